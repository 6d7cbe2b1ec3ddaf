"""The claims of notebook 07_pkg (PKG Sects. IV-V: Table II, Figs. 2-5, used bins), checked on
the frames of :mod:`routelab.grouping.lab.pkg_experiments`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from routelab.grouping.lab.pkg_experiments import USED_BINS, StreamCase, geomean, safe_ratio


def _claim(claim: str, paper: str, measured: str, holds: Any, note: str = "") -> dict[str, Any]:
    return {
        "claim": claim,
        "paper": paper,
        "measured": measured,
        "holds": None if holds is None else bool(holds),
        "note": note,
    }


def table2_claims(gain: pd.DataFrame, cases: Sequence[StreamCase]) -> list[dict[str, Any]]:
    """Claims of Table II / Sect. IV-A from :func:`splitting_gain`."""
    below = gain[gain["below_1/p1"]]
    above = gain[gain["above_2/p1"]]
    worst = below["gain"].idxmin() if len(below) else ("-", 0)
    bounds = ", ".join(f"{c.symbol} {c.name} p1={c.p1:.2%} (1/p1={1 / c.p1:.0f})" for c in cases)
    out = [
        _claim(
            "PKG reduces imbalance by orders of magnitude vs hashing while W < about 1/p1",
            "Table II, Sect. V-B Q1",
            f"W < 1/p1 ({len(below)} points): hashing/PKG median {below['gain'].median():.0f}x, "
            f"min {below['gain'].min():.0f}x ({worst[0]}, W={worst[1]}); "
            f"W > 2/p1 ({len(above)} points): median {above['gain'].median():.1f}x. "
            f"Streams: {bounds}",
            len(below) > 0 and below["gain"].min() >= 10 and below["gain"].median() >= 100,
            "holds = at least 10x at every W < 1/p1 and a median of at least 100x; beyond "
            "2/p1 the gain collapses as the paper's binary behaviour predicts",
        )
    ]
    margin = above["pkg_final"] - above["lower_bound_final"]
    out.append(
        _claim(
            "Beyond 2/p1 workers imbalance grows linearly: I(m)/m >= p1/2 - 1/W",
            "Sect. IV-A",
            f"{int((margin >= -1e-12).sum())}/{len(above)} points with W > 2/p1 respect the "
            f"bound; PKG's final fraction exceeds it by at most {margin.max():.2e}"
            if len(above)
            else "no grid point has W > 2/p1",
            bool((margin >= -1e-12).all()) if len(above) else None,
            "a derivation, not a claim: the bound holds for every two-choice scheme by "
            "construction (the top key's p1 m messages go to two workers); it is drawn on "
            "Table II's figure. PKG often sits right on it: it splits the top key evenly",
        )
    )
    out[-1]["kind"] = "check"
    paper_sets = gain[gain.index.get_level_values("stream").isin(["tweet_words", "unigram_sample"])]
    better = paper_sets["pkg"] <= paper_sets["off_greedy"]
    rest = gain.drop(paper_sets.index)
    out.append(
        _claim(
            "PKG balances even better than Off-Greedy (which knows the key distribution)",
            "Table II (WP, TW)",
            f"PKG <= Off-Greedy at {int(better.sum())}/{len(better)} W on the TW and WP "
            f"stand-ins; on the other streams at "
            f"{int((rest['pkg'] <= rest['off_greedy']).sum())}/{len(rest)}",
            bool(better.all()) if len(better) else None,
            "holds = on the TW/WP stand-ins at every W; Off-Greedy can win on streams with "
            "a few very heavy keys (LN1, LN2) where key splitting hits the p1 bound",
        )
    )
    return out


def local_claims(
    ratios: pd.DataFrame, overlap: Mapping[str, float], same_on_spark: bool, where: str
) -> list[dict[str, Any]]:
    """Claims of Sect. V-B Q2 (Fig. 2, Fig. 3 text) from :func:`local_global_frame`."""
    worst = ratios.loc[ratios["L_over_G"].idxmax()]
    within = ratios["L_over_G"] <= 10
    gm = geomean(ratios["LP_over_L"].to_numpy())
    return [
        _claim(
            "Local estimation (L) stays within one order of magnitude of global (G)",
            "Fig. 2, Sect. V-B Q2",
            f"L/G <= 10 at {int(within.sum())}/{len(ratios)} points; median "
            f"{ratios['L_over_G'].median():.1f}, max {worst['L_over_G']:.1f} "
            f"({worst['stream']}, S={int(worst['n_sources'])}, W={int(worst['n_workers'])}, "
            f"G={worst['G']:.1e})",
            bool(within.all()),
            "the sum of S local imbalances adds roughly S/2 messages, so L/G is largest "
            "where G is nearly perfect (a few messages out of millions)",
        ),
        _claim(
            "Periodic probing (LP) does not improve on local estimation",
            "Fig. 3, Sect. V-B Q2",
            f"geometric mean LP/L = {gm:.2f} over {len(ratios)} points "
            f"(range {ratios['LP_over_L'].min():.2f}-{ratios['LP_over_L'].max():.2f})",
            gm >= 0.8,
            "holds = probing removes less than 20% of L's imbalance on average; we probe "
            "1000 times per stream (the paper: every minute)",
        ),
        _claim(
            "G and L reach similar balance with different choices: 47% Jaccard overlap",
            "Sect. V-B Q2",
            f"Jaccard {overlap['jaccard']:.1%} (agreement {overlap['agreement']:.1%}) on {where}",
            abs(overlap["jaccard"] - 0.47) <= 0.10,
            "holds = within 10 points of the paper's 47%",
        ),
        _claim(
            "Local estimation needs no coordination: each source routes on its own counts",
            "Sect. III-B",
            f"sources as Spark partitions give the in-process routing: {same_on_spark}",
            same_on_spark,
            "every source is one Spark partition; nothing is shared between partitions",
        ),
    ]


def drift_claims(timelines: pd.DataFrame, cases: Sequence[StreamCase]) -> list[dict[str, Any]]:
    """Sect. V-B Q3 (Fig. 3 bottom row): PKG on streams with drifting skew, one claim per
    stream in ``cases``."""
    return [_drift_claim(timelines, case) for case in cases]


def _drift_claim(timelines: pd.DataFrame, case: StreamCase) -> dict[str, Any]:
    claim = f"PKG is robust to drift in the key distribution: {case.name}"
    rows = timelines[(timelines["stream"] == case.name) & (timelines["n_workers"] < 1 / case.p1)]
    if rows.empty:
        return _claim(claim, "Fig. 3, Q3", f"no W < 1/p1 = {1 / case.p1:.0f} in the grid", None)
    mean = rows.groupby(["n_workers", "variant"])["imbalance_fraction"].mean().unstack()
    peak = rows.groupby(["n_workers", "variant"])["imbalance_fraction"].max().unstack()
    local = next(v for v in mean.columns if v.startswith("L") and not v.endswith("P"))
    gains = mean["H"] / mean[local]
    parts = [
        f"W={w}: {local} mean {mean.loc[w, local]:.1e} (peak {peak.loc[w, local]:.1e}) vs "
        f"H {mean.loc[w, 'H']:.1e}"
        for w in mean.index
    ]
    return _claim(
        claim,
        "Fig. 3 (CT), Sect. V-B Q3",
        "; ".join(parts),
        bool((gains >= 10).all()),
        f"{case.data} data; holds = {local}'s time-averaged imbalance fraction at least 10x "
        "below hashing's at every W < 1/p1",
    )


def skew_claims(skew: pd.DataFrame, shares: pd.DataFrame) -> list[dict[str, Any]]:
    """Sect. V-B Q3 (Fig. 4): skewed vs uniform split of the messages on the sources."""
    wide = skew.pivot_table(
        index=["n_sources", "n_workers"], columns="split", values="avg_imbalance_fraction"
    )
    r = safe_ratio(wide["skewed"].to_numpy(), wide["uniform"].to_numpy())
    spread = np.maximum(r, 1 / r)
    top = shares.loc[shares["n_sources"].idxmin()]
    return [
        _claim(
            "With skewed sources the imbalance is similar to a uniform split",
            "Fig. 4, Sect. V-B Q3",
            f"skewed/uniform ratio {r.min():.2f}-{r.max():.2f} over {len(r)} points "
            f"(geometric mean {geomean(r):.2f}); max skewed fraction "
            f"{wide['skewed'].max():.1e}; busiest source at S={int(top['n_sources'])} "
            f"gets {top['max_source_share']:.1%} vs {top['uniform_share']:.1%}",
            bool((spread <= 2).all()),
            "MovieLens users key grouped on sources stand in for LJ's out-degrees; holds = "
            "within a factor of 2 at every point. Our source skew is milder than LJ's",
        )
    ]


def throughput_claims(tp: pd.DataFrame, source_rate: float) -> list[dict[str, Any]]:
    """Sect. V-B Q4 (Fig. 5a) in the queueing model."""
    t = tp.pivot_table(index="delay_ms", columns="scheme", values="throughput")
    lat = tp.pivot_table(index="delay_ms", columns="scheme", values="latency_mean")
    lo, hi = t.index.min(), t.index.max()
    drop = 1 - t.loc[hi] / t.loc[lo]
    similar = (t["pkg_local"] >= 0.95 * t["sg"]).all() and (t["pkg_local"] >= 0.99 * t["kg"]).all()
    lat_ratio = lat.loc[hi, "kg"] / lat.loc[hi, "pkg_local"]
    return [
        _claim(
            "PKG's throughput matches SG's and beats KG's at every CPU delay",
            "Fig. 5a, Sect. V-B Q4",
            f"at {hi:g} ms: KG {t.loc[hi, 'kg']:,.0f}, PKG {t.loc[hi, 'pkg_local']:,.0f}, "
            f"SG {t.loc[hi, 'sg']:,.0f} msg/s",
            similar and t.loc[hi, "pkg_local"] > t.loc[hi, "kg"],
            "holds = PKG within 5% of SG everywhere, never below KG, above KG at the largest delay",
        ),
        _claim(
            "A tenfold CPU delay cuts KG's throughput by ~60%, PKG's and SG's by ~37%",
            "Sect. V-B Q4",
            f"{lo:g} -> {hi:g} ms: KG -{drop['kg']:.0%}, PKG -{drop['pkg_local']:.0%}, "
            f"SG -{drop['sg']:.0%}",
            drop["kg"] > drop["pkg_local"],
            f"the source emits {source_rate:,.0f} msg/s, the rate at which KG saturates at "
            "0.4 ms (the paper's KG saturation point), so KG's drop follows from that "
            "calibration; holds = KG drops more than PKG",
        ),
        _claim(
            "Under heavy load KG's latency is higher than PKG's (up to 45%)",
            "Sect. V-B Q4",
            f"mean latency at {hi:g} ms: KG/PKG = {lat_ratio:.2f}",
            lat_ratio > 1,
            "open-loop FIFO queues: an overloaded worker's queue keeps growing, so the ratio "
            "is far above the paper's closed-loop 45%",
        ),
    ]


def memory_claims(
    tp: pd.DataFrame, agg: pd.DataFrame, crossing_period: float = 30.0
) -> list[dict[str, Any]]:
    """PKG's memory between KG's and SG's (Sect. III-A, V-B Q4) and the aggregation
    trade-off of Fig. 5b (:func:`aggregation_tradeoff`)."""
    mem = tp.groupby("scheme")["memory_normalized"].first()
    pkg = agg[agg["scheme"] == "pkg_local"].set_index("period")
    sg = agg[agg["scheme"] == "sg"].set_index("period")
    kg = float(agg.loc[agg["scheme"] == "kg", "throughput"].iloc[0])
    better = (pkg["throughput"] > sg["throughput"]) & (pkg["memory"] < sg["memory"])
    edge = (pkg["throughput"] / sg["throughput"]).idxmin()
    long = pkg[pkg.index >= crossing_period]
    above_kg = pkg.index[pkg["throughput"] > kg]
    return [
        _claim(
            "PKG needs more memory than KG but about half of SG's (3.6M vs 2.9M vs 7.2M)",
            "Sect. V-B Q4",
            f"counters per key: KG {mem['kg']:.2f}, PKG {mem['pkg_local']:.2f}, "
            f"SG {mem['sg']:.2f} (paper: 1, 1.24, 2.48)",
            mem["kg"] < mem["pkg_local"] < mem["sg"],
            "holds = KG < PKG < SG",
        ),
        _claim(
            "For every aggregation period PKG has higher throughput than SG with less memory",
            "Fig. 5b",
            f"PKG better at {int(better.sum())}/{len(better)} periods; closest at {edge:g} s: "
            f"PKG {pkg.loc[edge, 'throughput']:,.0f} vs SG {sg.loc[edge, 'throughput']:,.0f} "
            f"msg/s, {pkg.loc[edge, 'memory']:,.0f} vs {sg.loc[edge, 'memory']:,.0f} counters",
            bool(better.all()),
            "saturated model, a flushed counter costs flush_cost; at very short periods almost "
            "every message is its own counter and PKG and SG flush about equally",
        ),
        _claim(
            f"Above a {crossing_period:g} s aggregation period PKG's throughput exceeds KG's",
            "Fig. 5b",
            f"PKG > KG ({kg:,.0f} msg/s) from {above_kg.min():g} s"
            if len(above_kg)
            else f"PKG never exceeds KG ({kg:,.0f} msg/s)",
            bool(len(long) and (long["throughput"] > kg).all()) if len(long) else None,
            "the period scale is our stream clock (1,000 messages/s) and the flush cost is "
            "assumed, so where the crossing falls is not evidence; that one exists is",
        ),
    ]


def used_bins_claims(bins: pd.DataFrame) -> list[dict[str, Any]]:
    """Sect. IV-A: uniform keys use a ``1 - 1/e^2`` fraction of the bins."""
    largest = bins[bins["n_workers"] == bins["n_workers"].max()]
    mean = largest["used_fraction"].mean()
    bound_ok = bool((bins["scaled_imbalance"] >= bins["scaled_bound"] - 1e-9).all())
    return [
        _claim(
            "n uniform keys use only 1 - 1/e^2 ~ 86.5% of n bins",
            "Sect. IV-A",
            f"{mean:.2%} +- {largest['used_fraction'].std():.2%} at n = "
            f"{int(largest['n_workers'].iloc[0]):,} ({len(largest)} seeds)",
            abs(mean - USED_BINS) <= 0.01,
            "holds = within 1 point of 86.47%",
        ),
        _claim(
            "Hence imbalance >= m/(0.865 n) - m/n ~ 0.156 m/n",
            "Sect. IV-A",
            f"n I(m)/m: mean {largest['scaled_imbalance'].mean():.3f} vs bound "
            f"{largest['scaled_bound'].mean():.3f}; bound respected in "
            f"{int((bins['scaled_imbalance'] >= bins['scaled_bound'] - 1e-9).sum())}/"
            f"{len(bins)} runs",
            bound_ok,
            "the paper writes 0.156 m; the bound is m/|B| - m/n = 0.156 m/n",
        ),
    ]
