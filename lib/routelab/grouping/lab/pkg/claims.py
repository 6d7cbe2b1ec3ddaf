"""The claims of notebook 07_pkg (PKG Sects. IV-V: Table II, Figs. 2-5, used bins), graded
with the rules of :mod:`routelab.claims` on the frames of
:mod:`routelab.grouping.lab.pkg`.

Every function returns rows ``{"claim", "paper", "paper_value", "measured", "verdict",
"note", "kind"}`` for :meth:`routelab.report.NotebookReport.claim`. The tolerances below are
declared before any run; where the paper states a size, the size is its own row (tested
within the tolerance) beside the direction. Rows that hold by construction of our model are
``kind="check"``. Throughputs and latencies (Fig. 5) come from the queueing model of
:mod:`routelab.grouping.simulator`, not from a clock, so no row is a timing row. Notes are
built from the measured numbers: an explanation is given only where the numbers call for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from routelab.claims import (
    UNMEASURED_NOTE,
    Verdict,
    at_least,
    combine,
    declarations,
    direction,
    equivalent,
    geometric_mean,
    not_comparable,
    ordering,
    share,
    t_interval,
    within_factor,
    within_tolerance,
)
from routelab.grouping.lab.pkg.cases import PAPER_DATASETS, USED_BINS, StreamCase
from routelab.grouping.lab.pkg.reductions import safe_ratio

#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)

Row = dict[str, Any]

# ----------------------------------------------------------------- tolerances (declared up front)

#: "Orders of magnitude" (Sect. V-B Q1): at least two decades, as a median over the points
#: below 1/p1, and never less than one decade at any of them.
ORDERS_OF_MAGNITUDE = 100.0
ONE_ORDER = 10.0
#: Table II's hashing/PKG ratios at W = 5, 10 (WP, TW) span 5.9e5-1.0e8; our gain at the same
#: points holds if within this factor of their geometric mean.
TABLE2_GAIN_FACTOR = 10.0
#: The paper's Table II numbers (average imbalance, messages) at W = 5, 10.
PAPER_TABLE2 = {
    # stand-in stream -> ((hashing, PKG) at W=5, (hashing, PKG) at W=10)
    "unigram_sample": ((1.4e6, 0.8), (1.7e6, 2.9)),
    "tweet_words": ((4.1e7, 0.4), (3.7e7, 1.7)),
}
#: "PKG even better than Off-Greedy" holds on >= this share of the W of the TW/WP stand-ins
#: for "partly" (the paper's own Table II has PKG <= Off-Greedy in 6 of 8 cells).
PARTLY_AT = 0.5
#: "L within one order of magnitude of G": partly if at least this share of points is.
LOCAL_PARTLY_AT = 0.9
#: "Probing does not improve" / "L and LP similar": the geometric mean LP/L within this factor
#: of 1 (a factor-1.5 gap is plainly visible on Fig. 3's log axis).
PROBE_MARGIN = 1.5
#: "47 % Jaccard overlap": within 10 points.
JACCARD = 0.47
JACCARD_TOL = 0.10
#: Drift (Fig. 3, CT): local estimation at least one decade below hashing at every W < 1/p1.
DRIFT_GAIN = 10.0
#: Skewed vs uniform sources "similar on average" (Fig. 4): mean skewed/uniform within 1.5x.
SKEW_MARGIN = 1.5
#: "SG and PKG perform similarly" (Fig. 5a): PKG/SG throughput within 5 % at every delay
#: (partly at >= PARTLY_AT of the delays).
THROUGHPUT_MARGIN = 0.05
#: Throughput cuts of a tenfold CPU delay: KG ~60 %, PKG/SG ~37 %, within 10 points.
KG_DROP = 0.60
PKG_DROP = 0.37
DROP_TOL = 0.10
#: "Up to 45 %" higher latency with KG: the largest KG/PKG - 1 within 15 points of 0.45.
LATENCY_GAIN = 0.45
LATENCY_TOL = 0.15
#: Memory (Sect. V-B Q4): PKG/KG = 3.6M/2.9M and PKG/SG = 3.6M/7.2M, each within 1.2x.
PAPER_MEMORY = {"kg": 2.9e6, "pkg_local": 3.6e6, "sg": 7.2e6}
MEMORY_FACTOR = 1.2
#: Sect. IV-A: used bins within 1 point of 1 - 1/e^2; the bound n/|B| - 1 within 0.01 of 0.156.
USED_BINS_TOL = 0.01
BOUND_VALUE = 1.0 / USED_BINS - 1.0
BOUND_TOL = 0.01
#: Tolerance of a floating-point bound comparison.
EPS = 1e-12
#: "On-Greedy performs very close to Off-Greedy" (Table II): On-Greedy's imbalance at most
#: this factor above Off-Greedy's at a W; the paper's own Table II meets it in 4/8 cells
#: (W = 50, 100), so partly at >= PARTLY_AT of the W.
ON_GREEDY_FACTOR = 2.0
#: "Binary: either well balanced or largely imbalanced" (Sect. V-B Q1): PKG's smallest
#: imbalance fraction beyond 2/p1 at least this factor above its largest below 1/p1 (two
#: decades; Table II jumps 2.9 -> 5.9e5 on WP and 2.74 -> 4.0e6 on TW).
BINARY_JUMP = 100.0
#: The worker counts where Table II's PKG is first largely imbalanced (Sect. V-B Q1: "around
#: 50 workers for WP and 100 for TW"), per stand-in stream.
PAPER_TRANSITION = {"unigram_sample": 50, "tweet_words": 100}
#: The transition's W depends on p1 (Sect. IV-A), so it is graded only on a stand-in whose p1
#: is within this factor of the paper's (Table I).
TRANSITION_P1_FACTOR = 1.5
#: "L has always a lower imbalance than H" (Fig. 2): partly at >= LOCAL_PARTLY_AT of points.
#: "Robust to the number of sources" (Fig. 2): L at the most sources within ONE_ORDER of L at
#: the fewest, at every (stream, W); partly at >= LOCAL_PARTLY_AT.
#: "Imbalance slightly increases with sources and workers" (Fig. 4): a step in S or W rises if
#: the imbalance fraction grows; holds if every step rises, partly at >= PARTLY_AT.
#: "Up to 60% more throughput than KG" (abstract, Sect. I): the largest PKG/KG - 1 over the
#: delays within 15 points of 0.60.
THROUGHPUT_GAIN = 0.60
THROUGHPUT_GAIN_TOL = 0.15


def _probing_no_better(lo: float, hi: float) -> Verdict:
    """One-sided: probing does not lower the imbalance by more than ``PROBE_MARGIN``x.
    Holds if the interval's low end of mean LP/L is at least 1/margin, fails if even its
    high end is below, inconclusive if the interval crosses 1/margin."""
    bound = 1.0 / PROBE_MARGIN
    rule = f"holds if the lower 95% bound of the mean LP/L is >= {bound:.3g}"
    if math.isnan(lo) or math.isnan(hi):
        return not_comparable(rule + "; nothing measured")
    rule += f" (interval {math.exp(lo):.3g}-{math.exp(hi):.3g})"
    if math.exp(lo) >= bound:
        return Verdict("holds", rule)
    if math.exp(hi) < bound:
        return Verdict("fails", rule + "; probing helps by more than the margin")
    return Verdict("inconclusive", rule + "; the interval crosses the bound")


def _log_interval(ratios: np.ndarray) -> tuple[float, float, float]:
    """Mean of ``log(ratios)`` and its 95 % confidence interval, with the t quantile for
    the ``points - 1`` degrees of freedom (finite, positive ratios only; a single point
    gives a zero-width interval)."""
    v = np.asarray(ratios, dtype=np.float64)
    logs = np.log(v[np.isfinite(v) & (v > 0)])
    if logs.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(logs.mean())
    if logs.size == 1:
        return mean, mean, mean
    _, low, high = t_interval(logs)
    return mean, low, high


# ----------------------------------------------------------------- Table II, Sect. IV-A


def paper_table2_gain() -> float:
    """Geometric mean of Table II's hashing/PKG ratios at W = 5, 10 on WP and TW."""
    return geometric_mean(
        np.array([h / p for cells in PAPER_TABLE2.values() for h, p in cells]), positive_only=True
    )


def table2_claims(
    gain: pd.DataFrame, cases: Sequence[StreamCase], imbalance: pd.DataFrame | None = None
) -> list[Row]:
    """Claims of Table II / Sect. IV-A from :func:`splitting_gain`; the PoTC and On-Greedy
    rows of Table II need the simulator rows ``imbalance`` (``stream``, ``n_workers``,
    ``n_sources``, ``scheme``, ``avg_imbalance_fraction``) and are "not comparable"
    without them."""
    below = gain[gain["below_1/p1"]]
    above = gain[gain["above_2/p1"]]
    worst = below["gain"].idxmin() if len(below) else ("-", 0)
    bounds = ", ".join(f"{c.symbol} {c.name} p1={c.p1:.2%} (1/p1={1 / c.p1:.0f})" for c in cases)
    if len(below):
        size = combine(
            [
                at_least(below["gain"].median(), ORDERS_OF_MAGNITUDE, what="median hashing/PKG"),
                at_least(below["gain"].min(), ONE_ORDER, what="smallest hashing/PKG"),
            ]
        )
    else:
        size = not_comparable("no grid point has W < 1/p1")
    out = [
        ROWS["orders_of_magnitude_gain"].row(
            f"W < 1/p1 ({len(below)} points): hashing/PKG median {below['gain'].median():.0f}x, "
            f"min {below['gain'].min():.0f}x ({worst[0]}, W={worst[1]}); "
            f"W > 2/p1 ({len(above)} points): median {above['gain'].median():.1f}x. "
            f"Streams: {bounds}",
            size,
            _orders_note(size, below, above, cases),
        ),
        _table2_size_row(gain, cases),
    ]
    margin = above["pkg_final"] - above["lower_bound_final"]
    ok = int((margin >= -EPS).sum())
    out.append(
        ROWS["linear_growth_bound"].row(
            f"{ok}/{len(above)} points with W > 2/p1 respect the bound; PKG's final fraction "
            f"exceeds it by at most {margin.max():.2e}"
            if len(above)
            else "no grid point has W > 2/p1",
            share(ok, len(above), partly_at=1.0, rule="holds if every point respects the bound"),
            "a derivation, not a claim: the bound holds for every two-choice scheme by "
            "construction (the top key's p1 m messages go to two workers); it is drawn on "
            "Table II's figure. PKG often sits right on it: it splits the top key evenly",
        )
    )
    paper_sets = gain[gain.index.get_level_values("stream").isin(list(PAPER_TABLE2))]
    better = paper_sets["pkg"] <= paper_sets["off_greedy"]
    rest = gain.drop(paper_sets.index)
    out.append(
        ROWS["pkg_beats_off_greedy"].row(
            f"PKG <= Off-Greedy at {int(better.sum())}/{len(better)} W on the TW and WP "
            f"stand-ins; on the other streams at "
            f"{int((rest['pkg'] <= rest['off_greedy']).sum())}/{len(rest)}",
            share(
                int(better.sum()),
                len(better),
                partly_at=PARTLY_AT,
                rule=f"holds if PKG <= Off-Greedy at every W of the TW/WP stand-ins, partly "
                f"if at >= {PARTLY_AT:.0%}",
            ),
            _off_greedy_note(gain),
        )
    )
    out += _binary_rows(gain, cases)
    out += _method_rows(imbalance)
    return out


def _unmeasured(keys: list[str], reason: str) -> list[Row]:
    """The declared rows ``keys`` as "not comparable" with ``reason`` (this run lacks it)."""
    return [
        ROWS[k].unmeasured(reason, note=UNMEASURED_NOTE, ON_GREEDY_FACTOR=ON_GREEDY_FACTOR)
        for k in keys
    ]


def _binary_rows(gain: pd.DataFrame, cases: Sequence[StreamCase]) -> list[Row]:
    """Sect. V-B Q1: PKG's balance is binary, and the transition's W on WP and TW."""
    jumps = {}
    for stream, g in gain.groupby(level="stream", sort=False):
        below, above = g[g["below_1/p1"]], g[g["above_2/p1"]]
        if len(below) and len(above):
            jumps[stream] = safe_ratio(
                np.array([above["pkg"].min()]), np.array([below["pkg"].max()])
            )[0]
    ok = sum(j >= BINARY_JUMP for j in jumps.values())
    low = {s: j for s, j in jumps.items() if j < BINARY_JUMP}
    rows = [
        ROWS["binary_balance"].row(
            "; ".join(f"{s}: x{j:.3g}" for s, j in jumps.items())
            + " (PKG's smallest fraction beyond 2/p1 over its largest below 1/p1)"
            if jumps
            else "no stream has grid points both below 1/p1 and beyond 2/p1",
            share(
                ok,
                len(jumps),
                partly_at=PARTLY_AT,
                rule=f"holds if on every stream with W on both sides PKG's smallest imbalance "
                f"beyond 2/p1 is >= {BINARY_JUMP:g}x its largest below 1/p1, partly if on "
                f">= {PARTLY_AT:.0%}",
            ),
            "a jump smaller than two decades on "
            + ", ".join(f"{s} (x{j:.3g})" for s, j in low.items())
            if low
            else "",
        )
    ]
    by_case = {c.name: c for c in cases}
    off, graded = [], {}
    for stream, w_paper in PAPER_TRANSITION.items():
        if stream not in by_case or stream not in gain.index.get_level_values("stream"):
            continue
        symbol, paper_p1 = PAPER_DATASETS[stream]
        p1 = by_case[stream].p1
        if not (paper_p1 / TRANSITION_P1_FACTOR <= p1 <= paper_p1 * TRANSITION_P1_FACTOR):
            off.append(
                f"{symbol} stand-in p1 = {p1:.2%} vs the paper's {paper_p1:.2%} "
                f"(2/p1 = {2 / p1:.0f} vs {2 / paper_p1:.0f})"
            )
            continue
        pkg = gain.xs(stream, level="stream")["pkg"].sort_index()
        steps = safe_ratio(pkg.to_numpy()[1:], pkg.to_numpy()[:-1])
        graded[symbol] = (
            (int(pkg.index[1:][int(np.argmax(steps))]), w_paper) if len(steps) else (0, w_paper)
        )
    measured = "; ".join(f"{s}: PKG's largest jump ends at W = {w}" for s, (w, _) in graded.items())
    if graded:
        verdict = share(
            sum(w == wp for w, wp in graded.values()),
            len(graded),
            partly_at=PARTLY_AT,
            rule="holds if PKG's largest jump between adjacent W ends at the paper's W on "
            "every stand-in whose p1 is within "
            f"{TRANSITION_P1_FACTOR:g}x of the paper's",
        )
    else:
        verdict = not_comparable(
            "the transition's W scales with 1/p1 and no stand-in's p1 is within "
            f"{TRANSITION_P1_FACTOR:g}x of the paper's: " + "; ".join(off)
            if off
            else "no WP or TW stand-in in the grid"
        )
    rows.append(
        ROWS["transition_workers"].row(
            measured or "not graded: " + ("; ".join(off) if off else "no WP or TW stand-in"),
            verdict,
            ("not graded: " + "; ".join(off)) if off and graded else "",
        )
    )
    return rows


def _method_rows(imbalance: pd.DataFrame | None) -> list[Row]:
    """Table II: PoTC vs hashing and On-Greedy vs Off-Greedy on the TW/WP stand-ins."""
    need = {"potc", "on_greedy", "off_greedy", "kg"}
    if imbalance is None or not need <= set(imbalance["scheme"]):
        have = "" if imbalance is None else ", ".join(sorted(set(imbalance["scheme"])))
        reason = (
            "table2_claims was not given the simulator rows with the PoTC and On-Greedy runs"
            if imbalance is None
            else f"the runs have no {', '.join(sorted(need - set(imbalance['scheme'])))} "
            f"(schemes: {have})"
        )
        return _unmeasured(["potc_vs_hashing", "on_greedy_close"], reason)
    sel = imbalance[
        (imbalance["n_sources"] == 1) & imbalance["stream"].isin(list(PAPER_TABLE2))
    ].pivot_table(index=["stream", "n_workers"], columns="scheme", values="avg_imbalance_fraction")
    if sel.empty:
        return _unmeasured(
            ["potc_vs_hashing", "on_greedy_close"], "the grid has no TW or WP stand-in"
        )
    better = sel["potc"] < sel["kg"]
    g_ratio = pd.Series(
        safe_ratio(sel["on_greedy"].to_numpy(), sel["off_greedy"].to_numpy()), index=sel.index
    )
    close = g_ratio <= ON_GREEDY_FACTOR
    where = ", ".join(f"{s} W={w}" for s, w in sel.index[~better.to_numpy()])
    far = ", ".join(f"{s} W={w} ({r:.3g}x)" for (s, w), r in g_ratio[~close].items())
    return [
        ROWS["potc_vs_hashing"].row(
            f"PoTC < hashing at {int(better.sum())}/{len(better)} W on the TW/WP stand-ins; "
            f"PoTC/hashing {(sel['potc'] / sel['kg']).min():.3g}-"
            f"{(sel['potc'] / sel['kg']).max():.3g}",
            share(
                int(better.sum()),
                len(better),
                partly_at=PARTLY_AT,
                rule=f"holds if PoTC's imbalance is below hashing's at every W of the TW/WP "
                f"stand-ins, partly if at >= {PARTLY_AT:.0%}",
            ),
            f"PoTC is not below hashing at {where}" if where else "",
        ),
        ROWS["on_greedy_close"].row(
            f"On-Greedy/Off-Greedy {g_ratio.min():.3g}-{g_ratio.max():.3g}; within "
            f"{ON_GREEDY_FACTOR:g}x at {int(close.sum())}/{len(close)} W on the TW/WP stand-ins",
            share(
                int(close.sum()),
                len(close),
                partly_at=PARTLY_AT,
                rule=f"holds if On-Greedy's imbalance is at most {ON_GREEDY_FACTOR:g}x "
                f"Off-Greedy's at every W of the TW/WP stand-ins, partly if at >= "
                f"{PARTLY_AT:.0%}",
            ),
            f"On-Greedy is more than {ON_GREEDY_FACTOR:g}x Off-Greedy at {far}" if far else "",
            ON_GREEDY_FACTOR=ON_GREEDY_FACTOR,
        ),
    ]


def _lengths(cases: Sequence[StreamCase]) -> str:
    lengths = [c.n_messages for c in cases]
    if not lengths:
        return ""
    lo, hi = min(lengths), max(lengths)
    return f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"


def _orders_note(
    size: Verdict, below: pd.DataFrame, above: pd.DataFrame, cases: Sequence[StreamCase]
) -> str:
    """The note of the orders-of-magnitude row, from its numbers: why the gain is small
    (stream length) only when the row does not hold, and what happens beyond 2/p1 (the
    paper's binary behaviour, Sect. IV-A) as measured."""
    parts = []
    if size.verdict not in ("holds", "not comparable"):
        parts.append(
            "hashing's imbalance grows with the stream length m while PKG's stays near a "
            "constant below 1/p1, so the ratio grows with m: the paper's streams are "
            f"22M-1.2G messages, ours {_lengths(cases)}"
        )
    if len(below) and len(above):
        b, a = float(below["gain"].median()), float(above["gain"].median())
        if a < b:
            parts.append(
                f"beyond 2/p1 the median gain falls to {a:.1f}x (from {b:.0f}x below 1/p1), "
                "the paper's binary behaviour"
            )
        else:
            parts.append(
                f"beyond 2/p1 the median gain does not fall ({a:.1f}x vs {b:.1f}x below "
                "1/p1), unlike the paper's binary behaviour"
            )
    return "; ".join(parts)


def _off_greedy_note(gain: pd.DataFrame) -> str:
    """Where Off-Greedy beats PKG, stream by stream with its worker counts (empty if
    nowhere); the claim itself is about Table II's two datasets."""
    worse = gain[gain["pkg"] > gain["off_greedy"]]
    if worse.empty:
        return "the paper's claim is about Table II's two datasets"
    by_stream = worse.reset_index().groupby("stream")["n_workers"].apply(list)
    return "the paper's claim is about Table II's two datasets; Off-Greedy beats PKG on " + (
        "; ".join(f"{st} at W = {', '.join(map(str, ws))}" for st, ws in by_stream.items())
    )


def _table2_size_row(gain: pd.DataFrame, cases: Sequence[StreamCase] = ()) -> Row:
    paper = paper_table2_gain()
    idx = [(s, w) for s in PAPER_TABLE2 for w in (5, 10) if (s, w) in gain.index]
    ours = (
        geometric_mean(gain.loc[idx, "gain"].to_numpy(), positive_only=True)
        if idx
        else float("nan")
    )
    verdict = (
        within_factor(ours, paper, TABLE2_GAIN_FACTOR)
        if idx
        else not_comparable("the grid has no W = 5 or 10 on the TW/WP stand-ins")
    )
    return ROWS["table2_gain_size"].row(
        f"geometric mean {ours:.3g}x over {len(idx)} points of the TW/WP stand-ins",
        verdict,
        _size_note(verdict, ours, paper, [c for c in cases if c.name in PAPER_TABLE2]),
        paper=paper,
    )


def _size_note(verdict: Verdict, ours: float, paper: float, cases: Sequence[StreamCase]) -> str:
    """Why our gain at Table II's points is smaller than the paper's, only when it is: the
    ratio grows with the stream length (hashing's imbalance ~ m, PKG's ~ constant)."""
    note = "the direction is the row above"
    if verdict.verdict in ("holds", "not comparable") or not ours < paper:
        return note
    lengths = f", our stand-ins {_lengths(cases)}" if cases else ""
    return (
        f"ours is {paper / ours:.3g}x smaller; the ratio grows with the stream length "
        "(hashing's imbalance ~ m, PKG's ~ constant) and Table II's WP has 22M messages and "
        f"TW 1.2G{lengths}; {note}"
    )


# ----------------------------------------------------------------- Fig. 2 and Sect. V-B Q2


def local_claims(
    ratios: pd.DataFrame,
    overlap: Mapping[str, float],
    same_on_spark: bool,
    where: str,
    gain: pd.DataFrame | None = None,
) -> list[Row]:
    """Claims of Sect. V-B Q2 (Fig. 2, Fig. 3 text) from :func:`local_global_frame`; the
    "L below H" row needs hashing's imbalance from :func:`splitting_gain` (``gain``) and is
    "not comparable" without it."""
    worst = ratios.loc[ratios["L_over_G"].idxmax()]
    within = ratios["L_over_G"] <= ONE_ORDER
    lp = ratios["LP_over_L"].to_numpy()
    gm = geometric_mean(lp, positive_only=True)
    mean, lo, hi = _log_interval(lp)
    margin = math.log(PROBE_MARGIN)
    probe_range = f"(range {ratios['LP_over_L'].min():.2f}-{ratios['LP_over_L'].max():.2f})"
    return [
        ROWS["local_within_order_of_global"].row(
            f"L/G <= 10 at {int(within.sum())}/{len(ratios)} points; median "
            f"{ratios['L_over_G'].median():.1f}, max {worst['L_over_G']:.1f} "
            f"({worst['stream']}, S={int(worst['n_sources'])}, W={int(worst['n_workers'])}, "
            f"G={worst['G']:.1e})",
            share(
                int(within.sum()),
                len(ratios),
                partly_at=LOCAL_PARTLY_AT,
                rule=f"holds if L/G <= 10 at every (stream, S, W), partly if at "
                f">= {LOCAL_PARTLY_AT:.0%} of them",
            ),
            _local_note(ratios, within),
        ),
        ROWS["probing_no_better"].row(
            f"geometric mean LP/L = {gm:.2f} over {len(ratios)} points {probe_range}; 95% CI "
            f"{math.exp(lo):.2f}-{math.exp(hi):.2f}",
            _probing_no_better(lo, hi),
            f"one-sided: holds unless probing lowers the imbalance by more than "
            f"{PROBE_MARGIN:g}x on average; we probe 1000 times per stream (the paper: every "
            "minute)",
        ),
        ROWS["probing_similar"].row(
            f"geometric mean LP/L = {gm:.2f} {probe_range}",
            equivalent(mean, lo, hi, margin),
            f"effect = mean ln(LP/L) with a t 95% interval over the points, margin "
            f"ln {PROBE_MARGIN:g}"
            + (
                "; LP is worse than L here: it resets the estimates to the true loads, which "
                "are on S times the scale of one source's own counts (see the L5P/S variant "
                "of Fig. 3)"
                if gm > PROBE_MARGIN
                else ""
            ),
        ),
        ROWS["local_global_jaccard"].row(
            f"Jaccard {overlap['jaccard']:.1%} (agreement {overlap['agreement']:.1%}) on {where}",
            within_tolerance(overlap["jaccard"], JACCARD, JACCARD_TOL),
            "one stream and one (W, S): the paper does not say on which it measured",
        ),
        ROWS["local_no_coordination"].row(
            f"sources as Spark partitions give the in-process routing: {same_on_spark}",
            Verdict(
                "holds" if same_on_spark else "fails",
                "holds if the Spark dataflow (one partition per source, nothing shared) "
                "routes every message as the in-process simulation does",
            ),
            "checks our Spark implementation: every source is one Spark partition",
        ),
        _local_below_hashing_row(ratios, gain),
        _sources_row(ratios),
    ]


def _local_below_hashing_row(ratios: pd.DataFrame, gain: pd.DataFrame | None) -> Row:
    """Row ``local_below_hashing`` (claims.toml)."""
    if gain is None:
        reason = "local_claims was not given hashing's imbalance (gain)"
        return _unmeasured(["local_below_hashing"], reason)[0]
    h = gain["hashing"]
    hashing = np.array(
        [h.get((s, w), np.nan) for s, w in zip(ratios["stream"], ratios["n_workers"], strict=True)],
        dtype=np.float64,
    )
    known = ~np.isnan(hashing)
    below = ratios["L"].to_numpy()[known] < hashing[known]
    ratio = safe_ratio(ratios["L"].to_numpy()[known], hashing[known])
    not_below = ratios[known][~below]
    return ROWS["local_below_hashing"].row(
        f"L < H at {int(below.sum())}/{len(below)} points; L/H median "
        f"{np.median(ratio) if len(ratio) else float('nan'):.2e}, max "
        f"{ratio.max() if len(ratio) else float('nan'):.2e}",
        share(
            int(below.sum()),
            len(below),
            partly_at=LOCAL_PARTLY_AT,
            rule=f"holds if L < H at every (stream, S, W), partly if at >= {LOCAL_PARTLY_AT:.0%}",
        ),
        "L is not below H at "
        + ", ".join(
            f"{r.stream} S={int(r.n_sources)} W={int(r.n_workers)}" for r in not_below.itertuples()
        )
        if len(not_below)
        else "",
    )


def _sources_row(ratios: pd.DataFrame) -> Row:
    """Row ``local_robust_to_sources`` (claims.toml)."""
    s_lo, s_hi = int(ratios["n_sources"].min()), int(ratios["n_sources"].max())
    if s_lo == s_hi:
        return ROWS["local_robust_to_sources"].row(
            f"one number of sources (S = {s_lo})",
            not_comparable(f"the profile's S grid has one value (S = {s_lo})"),
        )
    lo = ratios[ratios["n_sources"] == s_lo].set_index(["stream", "n_workers"])["L"]
    hi = ratios[ratios["n_sources"] == s_hi].set_index(["stream", "n_workers"])["L"]
    lo, hi = lo.align(hi, join="inner")
    r = pd.Series(safe_ratio(hi.to_numpy(), lo.to_numpy()), index=hi.index)
    spread = np.maximum(r, 1.0 / r)
    ok = spread <= ONE_ORDER
    worst = spread.idxmax()
    return ROWS["local_robust_to_sources"].row(
        f"L_{s_hi}/L_{s_lo} within 10x at {int(ok.sum())}/{len(ok)} (stream, W); range "
        f"{r.min():.2f}-{r.max():.2f} (largest spread at {worst[0]}, W={worst[1]})",
        share(
            int(ok.sum()),
            len(ok),
            partly_at=LOCAL_PARTLY_AT,
            rule=f"holds if L at S={s_hi} is within {ONE_ORDER:g}x of L at S={s_lo} at every "
            f"(stream, W), partly if at >= {LOCAL_PARTLY_AT:.0%}",
        ),
        "more sources add up to S/2 messages of local imbalance; it weighs where PKG is "
        f"nearly perfect: L_{s_hi}/L_{s_lo} exceeds 10x at "
        + ", ".join(f"{st} W={w}" for st, w in r.index[~ok.to_numpy()])
        if not ok.all()
        else "",
    )


def _local_note(ratios: pd.DataFrame, within: pd.Series) -> str:
    """Where L/G exceeds one order of magnitude and how small G is there (the S local
    imbalances add roughly S/2 messages, which weighs most where G is a few messages);
    empty if L/G <= 10 everywhere."""
    out = ratios[~within]
    if out.empty:
        return ""
    g_out, g_all = float(out["G"].median()), float(ratios["G"].median())
    note = f"L/G > 10 at {len(out)} point(s), where G's median is {g_out:.1e} (all: {g_all:.1e})"
    if g_out < g_all:
        note += (
            ": the S local imbalances add roughly S/2 messages, which weighs most where G is "
            "nearly perfect"
        )
    return note


# ----------------------------------------------------------------- Fig. 3 (drift), Fig. 4


def drift_claims(timelines: pd.DataFrame, cases: Sequence[StreamCase]) -> list[Row]:
    """Sect. V-B Q3 (Fig. 3 bottom row): PKG on streams with drifting skew, one claim per
    stream in ``cases``."""
    return [_drift_claim(timelines, case) for case in cases]


def _drift_claim(timelines: pd.DataFrame, case: StreamCase) -> Row:
    row = ROWS["drift_robust"]
    rows = timelines[(timelines["stream"] == case.name) & (timelines["n_workers"] < 1 / case.p1)]
    if rows.empty:
        why = f"no W < 1/p1 = {1 / case.p1:.0f} in the grid"
        return row.unmeasured(why, why, name=case.name)
    mean = rows.groupby(["n_workers", "variant"])["imbalance_fraction"].mean().unstack()
    peak = rows.groupby(["n_workers", "variant"])["imbalance_fraction"].max().unstack()
    local = next(v for v in mean.columns if v.startswith("L") and not v.endswith("P"))
    gains = safe_ratio(mean["H"].to_numpy(), mean[local].to_numpy())
    parts = [
        f"W={w}: {local} mean {mean.loc[w, local]:.1e} (peak {peak.loc[w, local]:.1e}) vs "
        f"H {mean.loc[w, 'H']:.1e}"
        for w in mean.index
    ]
    return row.row(
        "; ".join(parts),
        share(
            int((gains >= DRIFT_GAIN).sum()),
            len(gains),
            rule=f"holds if {local}'s time-averaged imbalance is >= {DRIFT_GAIN:g}x below "
            "hashing's at every W < 1/p1",
        ),
        f"{case.data} data; the paper gives no size, its Fig. 3 shows about a decade or more "
        "between L5 and H on CT",
        name=case.name,
    )


def skew_claims(skew: pd.DataFrame, shares: pd.DataFrame) -> list[Row]:
    """Rows ``skewed_sources_similar`` and ``imbalance_rises_with_s_w`` (claims.toml)."""
    wide = skew.pivot_table(
        index=["n_sources", "n_workers"], columns="split", values="avg_imbalance_fraction"
    )
    r = safe_ratio(wide["skewed"].to_numpy(), wide["uniform"].to_numpy())
    mean, lo, hi = _log_interval(r)
    top = shares.loc[shares["n_sources"].idxmin()]
    return [
        ROWS["skewed_sources_similar"].row(
            f"skewed/uniform ratio {r.min():.2f}-{r.max():.2f} over {len(r)} points "
            f"(geometric mean {geometric_mean(r, positive_only=True):.2f}); max skewed fraction "
            f"{wide['skewed'].max():.1e}; busiest source at S={int(top['n_sources'])} "
            f"gets {top['max_source_share']:.1%} vs {top['uniform_share']:.1%}",
            equivalent(mean, lo, hi, math.log(SKEW_MARGIN)),
            f"effect = mean ln(skewed/uniform), t 95% interval over the points, margin "
            f"ln {SKEW_MARGIN:g}; MovieLens users key grouped on sources stand in for LJ's "
            "out-degrees (the paper gives no number for LJ's source skew)",
        ),
        _rises_row(skew),
    ]


def _steps(skew: pd.DataFrame, along: str, fixed: str) -> tuple[int, int, list[str]]:
    """Adjacent steps of ``along`` (at each ``split`` and ``fixed`` value) where the
    imbalance fraction rises: (rising, steps, the falling ones as text)."""
    up, total, down = 0, 0, []
    for (split, f), g in skew.groupby(["split", fixed]):
        v = g.groupby(along)["avg_imbalance_fraction"].mean().sort_index()
        for (a0, x0), (a1, x1) in zip(v.items(), list(v.items())[1:], strict=False):
            total += 1
            if x1 > x0:
                up += 1
            else:
                name = {"n_sources": "S", "n_workers": "W"}
                down.append(f"{split} {name[fixed]}={f} {name[along]}={a0}->{a1}")
    return up, total, down


def _rises_row(skew: pd.DataFrame) -> Row:
    """Row ``imbalance_rises_with_s_w`` (claims.toml)."""
    parts, texts, falls = [], [], []
    for along, fixed, word in (("n_sources", "n_workers", "S"), ("n_workers", "n_sources", "W")):
        up, total, down = _steps(skew, along, fixed)
        rule = (
            f"holds if the imbalance rises at every step of {word}, partly if at >= {PARTLY_AT:.0%}"
        )
        if total == 0:
            parts.append(not_comparable(f"the profile's {word} grid has one value"))
            texts.append(f"one {word}")
        else:
            parts.append(share(up, total, partly_at=PARTLY_AT, rule=rule))
            texts.append(f"rises at {up}/{total} steps of {word}")
            falls += down
    return ROWS["imbalance_rises_with_s_w"].row(
        "; ".join(texts) + f"; largest fraction {skew['avg_imbalance_fraction'].max():.1e}",
        combine(parts),
        ("does not rise at: " + ", ".join(falls)) if falls else "",
    )


# ----------------------------------------------------------------- Fig. 5a and 5b


def throughput_claims(tp: pd.DataFrame, source_rate: float) -> list[Row]:
    """Sect. V-B Q4 (Fig. 5a) in the queueing model (latencies in ms)."""
    t = tp.pivot_table(index="delay_ms", columns="scheme", values="throughput")
    lat = tp.pivot_table(index="delay_ms", columns="scheme", values="latency_ms")
    lo, hi = t.index.min(), t.index.max()
    drop = 1 - t.loc[hi] / t.loc[lo]
    pkg_sg = (t["pkg_local"] / t["sg"]).to_numpy()
    lat_gain = (lat["kg"] / lat["pkg_local"]).to_numpy() - 1.0
    worst_lat = lat.index[int(np.nanargmax(lat_gain))]
    calibration = (
        f"the source emits {source_rate:,.0f} msg/s, the rate at which KG saturates at "
        "0.4 ms (the paper's KG saturation point)"
    )
    return [
        ROWS["throughput_pkg_sg_above_kg"].row(
            f"at {hi:g} ms: KG {t.loc[hi, 'kg']:,.0f}, PKG {t.loc[hi, 'pkg_local']:,.0f}, "
            f"SG {t.loc[hi, 'sg']:,.0f} msg/s; PKG/SG {pkg_sg.min():.3f}-{pkg_sg.max():.3f} "
            "over the delays",
            combine(
                [
                    share(
                        int((np.abs(pkg_sg - 1) <= THROUGHPUT_MARGIN).sum()),
                        len(pkg_sg),
                        partly_at=PARTLY_AT,
                        rule=f"holds if PKG/SG is within +-{THROUGHPUT_MARGIN:.0%} of 1 at every "
                        f"delay, partly if at >= {PARTLY_AT:.0%} of them",
                    ),
                    direction(
                        t.loc[hi, "pkg_local"] / t.loc[hi, "kg"], neutral=1.0, expected="above"
                    ),
                ]
            ),
            "a deterministic model, so each delay is graded on its own value; KG is compared "
            "at the largest delay: below saturation every scheme keeps up with the source",
        ),
        ROWS["delay_drop_pkg_sg"].row(
            f"{lo:g} -> {hi:g} ms: KG -{drop['kg']:.0%}, PKG -{drop['pkg_local']:.0%}, "
            f"SG -{drop['sg']:.0%}",
            combine(
                [
                    within_tolerance(drop["pkg_local"], PKG_DROP, DROP_TOL, neutral=0.0),
                    within_tolerance(drop["sg"], PKG_DROP, DROP_TOL, neutral=0.0),
                ]
            ),
            "this row grades PKG's and SG's cut (KG's 60% follows from our calibration, a "
            f"check below); {calibration}" + _drop_note(drop),
        ),
        ROWS["delay_drop_kg_more"].row(
            f"KG -{drop['kg']:.0%} vs PKG -{drop['pkg_local']:.0%}",
            direction(drop["kg"] - drop["pkg_local"], neutral=0.0, expected="above"),
            "the direction of the row above",
        ),
        ROWS["delay_drop_kg"].row(
            f"KG -{drop['kg']:.0%}",
            within_tolerance(drop["kg"], KG_DROP, DROP_TOL),
            f"holds by construction: {calibration}, so at 1 ms it delivers 0.4/1 of it",
        ),
        ROWS["latency_kg_over_pkg"].row(
            f"mean latency KG/PKG up to {1 + np.nanmax(lat_gain):.2f} (at {worst_lat:g} ms); "
            f"at {hi:g} ms: KG {lat.loc[hi, 'kg']:,.1f} ms vs PKG {lat.loc[hi, 'pkg_local']:,.1f} ms",
            within_tolerance(float(np.nanmax(lat_gain)), LATENCY_GAIN, LATENCY_TOL, neutral=0.0),
            _latency_note(lat_gain, lat.index, hi),
        ),
        _throughput_gain_row(t, drop),
    ]


def _throughput_gain_row(t: pd.DataFrame, drop: pd.Series) -> Row:
    """Row ``throughput_gain_vs_kg`` (claims.toml)."""
    gain = t["pkg_local"] / t["kg"] - 1.0
    at = gain.idxmax()
    verdict = within_tolerance(float(gain.max()), THROUGHPUT_GAIN, THROUGHPUT_GAIN_TOL, neutral=0.0)
    note = ""
    if verdict.verdict != "holds":
        paper_x = (1 - PKG_DROP) / (1 - KG_DROP)
        ours_x = (1 - float(drop["pkg_local"])) / (1 - float(drop["kg"]))
        note = (
            f"over the tenfold delay the paper's cluster kept {1 - PKG_DROP:.0%} of PKG's "
            f"throughput and {1 - KG_DROP:.0%} of KG's ({paper_x:.2f}x); our model keeps "
            f"{1 - drop['pkg_local']:.0%} and {1 - drop['kg']:.0%} ({ours_x:.2f}x)"
        )
    return ROWS["throughput_gain_vs_kg"].row(
        f"PKG/KG - 1 up to {gain.max():+.0%} (at {at:g} ms: PKG {t.loc[at, 'pkg_local']:,.0f} "
        f"vs KG {t.loc[at, 'kg']:,.0f} msg/s)",
        verdict,
        note,
    )


def _drop_note(drop: pd.Series) -> str:
    """Why PKG's and SG's throughput cut differs from the paper's 37 %, only when it does."""
    cuts = {"PKG": float(drop["pkg_local"]), "SG": float(drop["sg"])}
    more = [k for k, v in cuts.items() if v > PKG_DROP + DROP_TOL]
    less = [k for k, v in cuts.items() if v < PKG_DROP - DROP_TOL]
    note = ""
    if more:
        note += (
            f". {' and '.join(more)} lose more than the paper's {PKG_DROP:.0%}: in our model "
            "they become CPU-bound as soon as the delay exceeds the source's inter-arrival "
            "share"
        )
    if less:
        note += f". {' and '.join(less)} lose less than the paper's {PKG_DROP:.0%}"
    return note


def _latency_note(lat_gain: np.ndarray, delays: pd.Index, hi: float) -> str:
    """The latency row's note: our queues are open-loop (no back-pressure, unlike a Storm
    cluster); why the gap is far above the paper's 45 % only when it is."""
    note = (
        "open-loop FIFO queues fed at a fixed rate; a Storm cluster's closed loop "
        "(back-pressure) caps queues, our model does not"
    )
    peak = float(np.nanmax(lat_gain))
    if peak > LATENCY_GAIN + LATENCY_TOL:
        at = delays[int(np.nanargmax(lat_gain))]
        last = float(lat_gain[-1])
        note += (
            f". At {at:g} ms KG's hot worker's queue grows without bound while PKG's does not, "
            f"so the gap there ({peak:+.0%}) is far above the paper's {LATENCY_GAIN:.0%}; at "
            f"{hi:g} ms it is {last:+.0%}"
        )
    return note


def memory_claims(tp: pd.DataFrame, agg: pd.DataFrame, crossing_period: float = 30.0) -> list[Row]:
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
    p = PAPER_MEMORY
    counters = (
        f"counters per key: KG {mem['kg']:.2f}, PKG {mem['pkg_local']:.2f}, SG {mem['sg']:.2f}"
    )
    return [
        ROWS["memory_sizes"].row(
            f"PKG/KG {mem['pkg_local'] / mem['kg']:.2f}, PKG/SG "
            f"{mem['pkg_local'] / mem['sg']:.2f} ({counters})",
            combine(
                [
                    within_factor(
                        mem["pkg_local"] / mem["kg"], p["pkg_local"] / p["kg"], MEMORY_FACTOR
                    ),
                    within_factor(
                        mem["pkg_local"] / mem["sg"], p["pkg_local"] / p["sg"], MEMORY_FACTOR
                    ),
                ]
            ),
            "both ratios are sizes; the order KG < PKG < SG is the next row",
            pkg_kg=p["pkg_local"] / p["kg"],
            pkg_sg=p["pkg_local"] / p["sg"],
        ),
        ROWS["memory_order"].row(
            counters,
            ordering(
                {"KG": mem["kg"], "PKG": mem["pkg_local"], "SG": mem["sg"]}, ["KG", "PKG", "SG"]
            ),
        ),
        ROWS["aggregation_beats_sg"].row(
            f"PKG better at {int(better.sum())}/{len(better)} periods; closest at {edge:g} s: "
            f"PKG {pkg.loc[edge, 'throughput']:,.0f} vs SG {sg.loc[edge, 'throughput']:,.0f} "
            f"msg/s, {pkg.loc[edge, 'memory']:,.0f} vs {sg.loc[edge, 'memory']:,.0f} counters",
            share(int(better.sum()), len(better), rule="holds if at every period"),
            "saturated model, a flushed counter costs flush_cost"
            + (
                "; PKG is not better at "
                + ", ".join(f"{p:g} s" for p in better.index[~better.to_numpy()])
                if not better.all()
                else ""
            ),
        ),
        ROWS["aggregation_crossing_kg"].row(
            f"PKG > KG ({kg:,.0f} msg/s) from {above_kg.min():g} s"
            if len(above_kg)
            else f"PKG never exceeds KG ({kg:,.0f} msg/s)",
            share(
                int((long["throughput"] > kg).sum()),
                len(long),
                rule=f"holds if PKG > KG at every period >= {crossing_period:g} s",
            ),
            "the period scale is our stream clock (1,000 messages/s) and the flush cost is "
            "assumed, so where a crossing would fall is not evidence"
            + (
                ""
                if long.empty or (long["throughput"] > kg).all()
                else "; PKG stays at or below KG at "
                + ", ".join(f"{p:g} s" for p in long.index[~(long["throughput"] > kg).to_numpy()])
                + f" (its best there {long['throughput'].max():,.0f} msg/s)"
            ),
            crossing_period=crossing_period,
        ),
        *_aggregation_latency_rows(agg),
    ]


def _aggregation_latency_rows(agg: pd.DataFrame) -> list[Row]:
    """Fig. 5b: "similar average latency per message" for PKG and SG, which our aggregation
    model (:func:`aggregation_tradeoff`: saturated throughput and memory) does not give."""
    return _unmeasured(
        ["aggregation_latency"],
        "our aggregation model gives only "
        + ", ".join(c for c in agg.columns if c != "scheme")
        + " per period (saturated throughput, counters held): no per-message latency",
    )


# ----------------------------------------------------------------- Sect. IV-A used bins


def used_bins_claims(bins: pd.DataFrame) -> list[Row]:
    """Sect. IV-A: uniform keys use a ``1 - 1/e^2`` fraction of the bins (both rows are
    checks: textbook expectations that test our hash family, not findings of the paper)."""
    largest = bins[bins["n_workers"] == bins["n_workers"].max()]
    mean = largest["used_fraction"].mean()
    n = int(largest["n_workers"].iloc[0])
    respected = int((bins["scaled_imbalance"] >= bins["scaled_bound"] - 1e-9).sum())
    return [
        ROWS["used_bins_fraction"].row(
            f"{mean:.2%} +- {largest['used_fraction'].std():.2%} at n = {n:,} "
            f"({len(largest)} seeds)",
            within_tolerance(mean, USED_BINS, USED_BINS_TOL),
            "a check, not a claim: the expectation n - n(1 - 1/n)^(2n) is exact for ideal "
            "random hashes; measuring it tests that our two seeded hashes behave like them",
            USED_BINS=USED_BINS,
        ),
        ROWS["used_bins_bound"].row(
            f"n I(m)/m: mean {largest['scaled_imbalance'].mean():.3f} vs bound "
            f"{largest['scaled_bound'].mean():.3f}; bound respected in {respected}/"
            f"{len(bins)} runs",
            combine(
                [
                    within_tolerance(largest["scaled_bound"].mean(), BOUND_VALUE, BOUND_TOL),
                    share(
                        respected, len(bins), rule="holds if PKG respects the bound in every run"
                    ),
                ]
            ),
            "a check: every message lands in B, so max load >= m/|B| by construction; the "
            "bound's value follows from the used fraction. The paper writes 0.156 m; the "
            "bound is m/|B| - m/n = 0.156 m/n",
        ),
    ]
