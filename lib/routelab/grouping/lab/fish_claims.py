"""The claims table of notebook ``08_fish``: each FISH claim (Sect. 6) against our numbers.

Every function takes result frames of :mod:`routelab.grouping.lab.fish_experiments` (columns
``case``, ``n_workers``, ``variant``, ``data``, measured values) and returns claim rows
``{"claim", "paper", "measured", "holds", "note"}`` for
:meth:`routelab.report.NotebookReport.claim`. ``holds`` is always computed from the
measured data; a note says why when a claim does not hold.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from routelab.claims import Verdict, combine, direction, within_factor
from routelab.grouping.lab.fish_experiments import PAPER, at_most_workers, geo_mean, ratio_table

Row = dict[str, Any]

#: Tolerances of the effects the paper sizes (declared before any run): an effect above 10x
#: holds within 2x either way, a smaller one within 1.5x (both bands exclude "no effect").
BIG_EFFECT_TOL = 2.0
EFFECT_TOL = 1.5
PAPER_X = {
    "fig12_lifetime": 12.14,
    "fig12_no_memory": 2.65,
    "fig14_epoch": 11.91,
    "fig9_fish_vs_dc": 7.44,
    "fig9_fish_vs_wc": 6.95,
    "fig10_fish_vs_dc": 13.57,
    "fig10_fish_vs_wc": 12.05,
}


def _graded(
    key: str, claim: str, measured: str, verdict: Verdict, note: str = "", paper_value: str = ""
) -> Row:
    """A row graded with :mod:`routelab.claims` (paper value beside ours, rule attached)."""
    return {
        "claim": claim,
        "paper": PAPER.get(key, key),
        "paper_value": paper_value,
        "measured": measured,
        "verdict": verdict,
        "note": note,
    }


def _size(key: str, measured: float, what: str) -> Row:
    """The size of an effect the paper states ("up to 12.14x"), within the declared band."""
    paper = PAPER_X[key]
    tol = BIG_EFFECT_TOL if paper >= 10 else EFFECT_TOL
    return _graded(
        key if key in PAPER else key.rsplit("_", 1)[0] + "_dc_wc",
        f"{what}: the size of the effect",
        f"{measured:.3f}x",
        within_factor(measured, paper, tol),
        "the direction is its own row; this row tests the paper's size",
        paper_value=f"{paper}x",
    )


def _row(key: str, claim: str, measured: str, holds: bool, note: str = "") -> Row:
    return {
        "claim": claim,
        "paper": PAPER[key],
        "measured": measured,
        "holds": bool(holds),
        "note": note,
    }


def _paper_like(frame: pd.DataFrame) -> pd.DataFrame:
    """Cases standing in for the paper's datasets (AM, MT, ZF), i.e. all but the flights,
    whose 229 airports make a stream unlike any of the paper's (0.25M-0.39M keys)."""
    return frame[~frame["case"].str.startswith("flight")]


def _by_skew(frame: pd.DataFrame, max_skew: float | None = None) -> list[str]:
    """The time-evolving Zipf cases of ``frame`` by increasing skew (``stream_z``), those
    up to ``max_skew`` only when given."""
    if "stream_z" not in frame:
        return []
    zf = frame[frame["stream_z"].notna()].drop_duplicates("case").sort_values("stream_z")
    if max_skew is not None:
        zf = zf[zf["stream_z"] <= max_skew]
    return zf["case"].tolist()


def _low_skew(frame: pd.DataFrame) -> list[str]:
    """Real cases and Zipf cases with skew at most 1 (the paper's "low skew")."""
    real = frame.loc[frame["data"] == "real", "case"].unique().tolist()
    return real + _by_skew(frame, 1.0)


def _range(values: pd.Series, fmt: str = "{:.2f}x") -> str:
    return f"{fmt.format(values.min())} - {fmt.format(values.max())}"


def overall_claims(main: pd.DataFrame) -> list[Row]:
    """Figs. 9-11 (RQ1): FISH vs SG, PKG, D-C, W-C in execution time; memory vs FG."""
    fish = main[main["variant"] == "FISH"]
    real, zf = fish[fish["data"] == "real"], fish[fish["data"] == "synthetic"]
    rows = [
        _row(
            "fig9_fish_vs_sg",
            "FISH's execution time stays within about 1.1x of SG's (real stand-ins)",
            f"worst {real['exec_x_sg'].max():.3f}x SG ({len(real)} runs)",
            real["exec_x_sg"].max() <= 1.1,
        ),
        _row(
            "fig10_fish_vs_sg",
            "FISH's execution time stays within 1.32x of SG's (time-evolving Zipf)",
            f"worst {zf['exec_x_sg'].max():.3f}x SG ({len(zf)} runs)",
            zf["exec_x_sg"].max() <= 1.32,
        ),
    ]
    pkg = ratio_table(main, "exec_x_sg", "PKG", "FISH")
    lo, hi = main["n_workers"].min(), main["n_workers"].max()
    growth = pd.DataFrame({"lo": pkg.xs(lo, level=1), "hi": pkg.xs(hi, level=1)})
    rows.append(
        _row(
            "fig9_fish_vs_pkg",
            "FISH's advantage over PKG grows with the number of workers",
            "PKG / FISH execution time, "
            + "; ".join(f"{c}: {r.lo:.2f}x -> {r.hi:.2f}x" for c, r in growth.iterrows()),
            bool((growth["hi"] >= growth["lo"]).all() and (growth["hi"] > 1).all()),
            "PKG gives every key two workers, so hot keys overload them as workers grow",
        )
    )
    top = at_most_workers(main)
    hi = top["n_workers"].max()
    for fig, kind in (("fig9", "real"), ("fig10", "synthetic")):
        part = top[top["data"] == kind]
        if part.empty:
            continue
        dc_t = ratio_table(part, "exec_x_sg", "D-C", "FISH")
        wc_t = ratio_table(part, "exec_x_sg", "W-C", "FISH")
        dc, wc = float(dc_t.max()), float(wc_t.max())
        label = "real stand-ins" if kind == "real" else "time-evolving Zipf"
        rows.append(
            _graded(
                f"{fig}_fish_vs_dc_wc",
                f"With the most workers ({hi}) FISH runs faster than D-C and W-C ({label})",
                f"up to D-C / FISH = {dc:.3f}x, W-C / FISH = {wc:.3f}x over "
                f"{dc_t.index.get_level_values(0).nunique()} cases",
                combine(
                    [
                        direction(dc, neutral=1.0, expected="above"),
                        direction(wc, neutral=1.0, expected="above"),
                    ]
                ),
                ""
                if dc > 1 and wc > 1
                else (
                    "our D-C / W-C are built like the authors' public simulator (per-source "
                    "SpaceSaving of 100 counters, d re-estimated every 1000 tuples) but are "
                    "stronger baselines than it: the hot test does not add a counter's error "
                    "to its estimate a second time, d is at least 2, and a hot key's d choices "
                    "are d distinct workers; they already follow the drift of hot keys. W-C "
                    "sends hot keys to any worker, i.e. balances like SG but pays SG's memory "
                    "(Fig. 11)"
                ),
                paper_value=f"{PAPER_X[fig + '_fish_vs_dc']}x / {PAPER_X[fig + '_fish_vs_wc']}x",
            )
        )
        rows.append(_size(f"{fig}_fish_vs_dc", dc, f"FISH vs D-C, {label}"))
        rows.append(_size(f"{fig}_fish_vs_wc", wc, f"FISH vs W-C, {label}"))
    mem = _paper_like(top[top["variant"] == "FISH"])["memory_normalized"]
    rows.append(
        _row(
            "fig11_fish_memory",
            f"FISH's memory stays within a few x of FG with {hi} workers (AM, MT, ZF stand-ins)",
            f"{_range(mem)} FG",
            mem.max() <= 3.0,
            "few = at most 3x (the paper: 1.11x-2.61x)",
        )
    )
    flights = top[top["case"].str.startswith("flight")].set_index("variant")["memory_normalized"]
    if not flights.empty:
        rows.append(
            _row(
                "fig11_fish_memory",
                f"... also on the flights stream with {hi} workers",
                f"FISH {flights['FISH']:.2f}x FG (SG {flights['SG']:.1f}x, D-C "
                f"{flights['D-C']:.2f}x)",
                flights["FISH"] <= 3.0,
                "only 229 airports, most of them above the hot threshold at this scale: "
                "balancing them needs many workers per key, so memory per key is high; "
                f"FISH still keeps {flights['FISH'] / flights['SG']:.0%} of SG's memory",
            )
        )
    sg = main[main["variant"] == "SG"].pivot_table(
        index="n_workers", columns="case", values="memory_normalized"
    )
    rows.append(
        _row(
            "fig11_sg_memory",
            "SG's memory grows with the number of workers",
            f"SG memory with {lo} workers {_range(sg.loc[lo])}, with {hi} {_range(sg.loc[hi])}",
            bool((sg.diff().dropna() > 0).all().all()),
        )
    )
    return rows


def study_claims(
    decay: pd.DataFrame, threshold: pd.DataFrame, choices: dict[str, Any], tolerance: float
) -> list[Row]:
    """Figs. 12-13 (RQ2): what no decay, no memory, and extreme thresholds cost, and whether
    the library defaults are the settings the study chose (``choices``: knob -> value;
    ``tolerance``: the slowdown the choice rule still calls similar)."""
    a, h = choices["decay"], choices["hot_threshold"]
    by = ["case", "n_workers"]
    exec_a = decay.pivot_table(index=by, columns="decay", values="exec_x_sg")
    keep, forget = exec_a.columns.max(), exec_a.columns.min()
    slow = exec_a[keep] / exec_a[a]
    per_case = slow.groupby(level=0).max()
    zf = per_case.reindex(_by_skew(decay))
    rows = [
        _row(
            "fig12_lifetime",
            f"With the least decay (alpha = {keep:g}) FISH runs longer than with alpha = {a}, "
            "more so at higher skew",
            f"up to {slow.max():.3f}x; per ZF case "
            + ", ".join(f"{c}: {v:.3f}x" for c, v in zf.items()),
            bool(slow.max() > 1.0 and (zf.empty or zf.iloc[-1] >= zf.iloc[0])),
        ),
        _size("fig12_lifetime", float(slow.max()), f"no decay (alpha = {keep:g}) vs alpha = {a}"),
    ]
    mem_a = decay.pivot_table(index=by, columns="decay", values="memory_normalized")
    extra = (mem_a[forget] / mem_a[a]).groupby(level=0).max()
    low = extra.reindex(_low_skew(decay))
    rows.append(
        _row(
            "fig12_no_memory",
            f"Forgetting the most each epoch (alpha = {forget:g}) costs memory vs alpha = {a} "
            "on low-skew data",
            f"memory ratio up to {low.max():.3f}x ("
            + ", ".join(f"{c}: {v:.3f}x" for c, v in low.items())
            + ")",
            bool(low.max() > 1.0),
            "short memory makes frequency estimates noisy: more keys look hot for an epoch",
        )
    )
    rows.append(_size("fig12_no_memory", float(low.max()), f"no memory (alpha = {forget:g})"))
    exec_h = threshold.pivot_table(index=by, columns="hot_threshold", values="exec_x_sg")
    worst = (exec_h.div(exec_h.min(axis=1), axis=0) - 1).max()
    largest = worst.index.max()
    only_largest = worst[largest] > tolerance and (worst.drop(largest) <= tolerance).all()
    rows.append(
        _row(
            "fig13_largest",
            f"Only the largest threshold loses load balance noticeably (> {tolerance:.1%})",
            "worst slowdown vs the best threshold: "
            + ", ".join(f"theta n = {t:g}: {v:.2%}" for t, v in worst.items()),
            bool(only_largest),
            "" if only_largest else "the slowdowns do not single out the largest threshold",
        )
    )
    mem_h = threshold.pivot_table(index=by, columns="hot_threshold", values="memory_normalized")
    smallest = mem_h.columns.min()
    extra_h = (mem_h[smallest] / mem_h[h]).unstack("n_workers")
    most, fewest = extra_h.columns.max(), extra_h.columns.min()
    rows.append(
        _row(
            "fig13_smallest",
            f"The smallest threshold (theta n = {smallest:g}) costs memory, more with more workers",
            f"memory vs theta n = {h:g}: {extra_h[fewest].max():.3f}x with {fewest} workers, "
            f"{extra_h[most].max():.3f}x with {most}",
            bool(extra_h[most].max() > 1.0 and extra_h[most].max() >= extra_h[fewest].max()),
        )
    )
    from routelab.grouping.fish_params import FishParams

    defaults = FishParams()
    same = all(getattr(defaults, k) == v for k, v in choices.items())
    rows.append(
        {
            "claim": "The library's FISH defaults are the settings this study chose",
            "paper": "Sect. 6.3 chooses alpha and theta by this study (values lost in the text)",
            "measured": "chosen "
            + ", ".join(f"{k} {v}" for k, v in choices.items())
            + "; FishParams defaults "
            + ", ".join(f"{getattr(defaults, k)}" for k in choices),
            "holds": bool(same),
            "note": ""
            if same
            else "this profile's data chose differently from the default "
            "profile's run that set the defaults (see fish_params.py)",
        }
    )
    return rows


def ablation_claims(
    epoch_vs_lifetime: pd.DataFrame,
    policies: pd.DataFrame,
    hetero: pd.DataFrame,
    rehash: pd.DataFrame,
) -> list[Row]:
    """Figs. 14-17 (RQ3, RQ4): counting, hot-key policy, worker assignment, placement."""
    life = ratio_table(epoch_vs_lifetime, "exec_x_sg", "FISH lifetime", "FISH")
    skews = _by_skew(epoch_vs_lifetime)
    first, last = skews[0], skews[-1]
    workers = life.index.get_level_values(1)
    lo_n, hi_n = workers.min(), workers.max()
    corner_lo, corner_hi = life.loc[(first, lo_n)], life.loc[(last, hi_n)]
    rows = [
        _row(
            "fig14_epoch",
            "Epoch-based counting runs faster than lifetime counting, more so with more "
            "workers and skew",
            f"lifetime / epoch execution time up to {life.max():.3f}x; {corner_lo:.3f}x at "
            f"{first}, {lo_n} workers -> {corner_hi:.3f}x at {last}, {hi_n} workers",
            bool(life.max() > 1.0 and corner_hi >= corner_lo),
            "far below the paper's 11.91x: the lifetime variant still re-classifies every "
            "epoch and assigns by estimated waits, it only forgets nothing",
        ),
        _size("fig14_epoch", float(life.max()), "lifetime vs epoch-based counting"),
    ]
    top = at_most_workers(policies)
    mem_wc = geo_mean(ratio_table(top, "memory_normalized", "FISH w/ W-C", "FISH"))
    exec_dc = geo_mean(ratio_table(policies, "exec_x_sg", "FISH w/ D-C", "FISH"))
    mem_dc = geo_mean(ratio_table(policies, "memory_normalized", "FISH w/ D-C", "FISH"))
    rows.append(
        _row(
            "fig15_chk",
            "CHK needs less memory than the W-C policy; the D-C policy saves memory but runs "
            "longer",
            f"W-C policy / CHK memory with {top['n_workers'].max()} workers {mem_wc:.3f}x; "
            f"D-C policy / CHK: memory {mem_dc:.3f}x, execution time {exec_dc:.4f}x "
            "(geometric means)",
            mem_wc > 1.0 and exec_dc > 1.0 and mem_dc < 1.0,
            "holds = W-C policy needs more memory than CHK, and D-C's policy needs less "
            "memory than CHK but runs longer (all three parts of the paper's sentence)",
        )
    )
    hwa = ratio_table(hetero, "exec_x_ideal", "FISH (load count)", "FISH (heuristic)")
    rows.append(
        _row(
            "fig16_hwa",
            "On heterogeneous workers the heuristic (waiting-time) assignment beats "
            "load-count assignment",
            f"load count / heuristic execution time {_range(hwa, '{:.3f}x')}",
            bool(hwa.min() > 1.0),
            "with half the workers twice as fast and arrivals at the total capacity, equal "
            "tuple counts overload the slow half by 4/3, so 1.5x is the most this setting "
            "can show (the paper reports up to 2.61x)",
        )
    )
    ev = rehash[rehash["event"].notna()]
    ratio = ev.pivot_table(index="case", columns="variant", values="memory_normalized")
    cost = (ratio["mod"] / ratio["ring"]).reindex(_by_skew(ev))
    rows.append(
        _row(
            "fig17_ch",
            "Without consistent hashing a worker change costs much more memory, less so at "
            "high skew",
            f"modulo / ring memory after a worker add or remove: {cost.iloc[0]:.2f}x at "
            f"{cost.index[0]} -> {cost.iloc[-1]:.2f}x at {cost.index[-1]}; keys with a new "
            f"home worker: ring {ev[ev['variant'] == 'ring']['remapped_keys'].mean():.1%}, "
            f"modulo {ev[ev['variant'] == 'mod']['remapped_keys'].mean():.1%}",
            bool(cost.iloc[0] > 1.0 and cost.iloc[0] >= cost.iloc[-1]),
            "our memory counts the state from before the change too, so the 'twice' of the "
            "paper shows as a smaller ratio",
        )
    )
    return rows


def deployment_claims(top: pd.DataFrame) -> list[Row]:
    """Figs. 18-19 (RQ5) from the queueing model: latency and throughput at the largest
    scale on the real stand-ins."""
    real = top[top["data"] == "real"]
    wide = real.pivot_table(
        index="case", columns="variant", values=["latency_mean", "latency_p99", "throughput"]
    )
    mean_cut = 1 - geo_mean(wide["latency_mean"]["FISH"] / wide["latency_mean"]["W-C"])
    p99_cut = 1 - geo_mean(wide["latency_p99"]["FISH"] / wide["latency_p99"]["W-C"])
    rows = [
        _row(
            "fig18_latency",
            "FISH has lower average and 99th-percentile latency than W-C",
            f"FISH vs W-C: average {-mean_cut:+.1%}, p99 {-p99_cut:+.1%} (geometric mean over "
            "the real stand-ins)",
            mean_cut > 0 and p99_cut > 0,
            ""
            if mean_cut > 0 and p99_cut > 0
            else (
                "W-C lets every hot key use every worker, which in this queueing model (no "
                "cost for replicated state) queues least; FISH trades some latency for "
                "several times less memory (Fig. 11)"
            ),
        )
    ]
    t = wide["throughput"]
    vs_wc, vs_dc = geo_mean(t["FISH"] / t["W-C"]), geo_mean(t["FISH"] / t["D-C"])
    vs_sg = geo_mean(t["FISH"] / t["SG"])
    rows.append(
        _row(
            "fig19_throughput",
            "FISH's throughput beats W-C's and D-C's and comes close to SG's",
            f"FISH / W-C {vs_wc:.3f}x, FISH / D-C {vs_dc:.3f}x, FISH / SG {vs_sg:.3f}x",
            vs_wc >= 1.0 and vs_dc >= 1.0 and vs_sg >= 0.95,
            "all balanced schemes reach about the offered rate here, so throughput separates "
            "only FG and PKG from the rest",
        )
    )
    return rows
