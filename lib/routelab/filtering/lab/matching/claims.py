"""Notebook 09's claims table: the claims of Sect. 6 (C1-C13, C16-C17) against ours.

Every tolerance is a module constant, declared before any measurement. Machines differ by
20 years (the paper's 500 MHz Pentium III vs this one), so absolute times are stated but
ratios and shapes are what is judged. Where the paper measures *dynamic* we measure our
dynamic clustering (Sect. 4, :mod:`routelab.filtering.dynamic`); static is compared with it
(C8). The saturation claims of Sect. 6.2.3 (Fig. 4) are notebook 10's
(:mod:`routelab.filtering.lab.adaptivity.claims`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.claims import (
    MIN_REPEATS,
    Verdict,
    at_least,
    beyond_measured,
    combine,
    declarations,
    direction_measured,
    equivalent,
    not_comparable,
    ordering,
    ordering_measured,
    outside_regime,
    ratio_interval,
    slope_interval,
    t_interval,
    unmeasured_rows,
    within_factor_measured,
    within_tolerance,
    within_tolerance_interval,
)

#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)

#: Sect. 6.2.1 at 6M, matching 100 events: each algorithm's total (Fig. 3a; phase 1 with
#: event parsing, phase 2, and sending the matches' ids back to the client)
PAPER_MS_6M = {
    "counting": 90_377.0,
    "propagation": 804.0,
    "propagation_wp": 509.0,
    "dynamic": 166.0,
}
#: the part of every total that is not subscription matching: dynamic's 166 ms are 130 ms of
#: phase 1 (parsing included), 10 ms of phase 2 and 26 ms of IPC, and propagation with
#: prefetching "spends the same time for predicates checking and communication"; phase 1 is
#: "done by the same function for all algorithms"
PAPER_COMMON_MS = 166.0 - 10.0
#: the subscription-matching phase (phase 2) at 6M: stated for dynamic (10 ms) and
#: propagation_wp (353 ms); for propagation and counting the total minus the common part
PAPER_MATCH_MS_6M = {
    "counting": PAPER_MS_6M["counting"] - PAPER_COMMON_MS,
    "propagation": PAPER_MS_6M["propagation"] - PAPER_COMMON_MS,
    "propagation_wp": 353.0,
    "dynamic": 10.0,
}
FACTOR_TOL = 2.0  # a ratio the paper sizes holds within 2x either way
PREFETCH_TOL = 1.25  # prefetching's factor: within 1.25x
#: "independent of N": over the paper's range (100k to 6M subscriptions, 60x) the time may
#: grow by at most 1.25x, so the log-log slope's interval must lie inside +-ln 1.25 / ln 60
PAPER_N_RANGE = 6_000_000 / 100_000
FLAT_GROWTH = 1.25
SLOPE_MARGIN = float(np.log(FLAT_GROWTH) / np.log(PAPER_N_RANGE))
SPACE_SLOPE_TOL = 0.15  # "space linear": log-log slope of bytes vs N within 1 +- 0.15
PROP_WP_SLOPE = float(np.log(353 / 10) / np.log(6_000_000 / 100_000))  # C5: 10 -> 353 ms
PROP_WP_SLOPE_TOL = 0.15
SAME_FACTOR_TOL = 1.5  # C9 "by the same factor": the two slow-downs within 1.5x of each other
#: the smallest difference a ranking or a "slower" claim of Sect. 6.2 is about (a ratio of
#: 1.25): the paper's rankings differ by 1.8x or more (Fig. 3a's phase 2: 10 < 353 < 648 <
#: 90,221 ms; Fig. 3d's loading times), and its W2op slow-down is drawn on a log axis, so a
#: measured difference wholly below 25 % is not the paper's effect
#: (:func:`routelab.claims.direction_measured`)
MIN_EFFECT = 0.25
PHASE1_SHARE_PAPER = 130 / 140  # C4: 130 ms predicate discovery of dynamic's 140 ms (no IPC)
PAPER_HARDWARE = "a 500 MHz Pentium III, one process (the paper)"
#: the paper's smallest N (Fig. 3: 100k to 6M subscriptions): below it the kernels run for
#: microseconds, where caches and the other task's memory traffic, not the algorithm,
#: decide a ranking, and the claims are about sizes the paper measured
PAPER_MIN_N = 100_000
#: the matcher's time split into the paper's two phases (columns of the experiments' rows)
WHOLE, MATCHING = "ms_per_100", "match_ms"
#: the algorithm the paper calls "dynamic" (Sect. 4)
CLUSTERED = "dynamic"
#: C8 "static did not significantly beat the dynamic algorithm (few ms per 100 events)":
#: static's advantage, dynamic / static in the matching phase, stays below 1 + MIN_EFFECT


def _paired(
    frame: pd.DataFrame, column: str, algorithms: list[str], n: int | None = None
) -> tuple[int, dict[str, np.ndarray]]:
    """Repeated measurements of ``column`` per algorithm at the largest N every algorithm
    ran (or at ``n``), aligned on (seed, batch): batch b of seed s holds the same events for
    every algorithm, so entry i of each array is one paired repeat."""
    sub = frame[frame["algorithm"].isin(algorithms)]
    if n is None:
        common = sub.groupby("n")["algorithm"].nunique()
        common = common[common == len(algorithms)]
        if common.empty:
            return 0, {}
        n = int(common.index.max())
    keys = [k for k in ("seed", "batch") if k in sub.columns]
    at = sub[sub["n"] == n]
    if not keys:
        at = at.assign(_i=at.groupby("algorithm").cumcount())
        keys = ["_i"]
    wide = at.pivot_table(index=keys, columns="algorithm", values=column, aggfunc="first")
    wide = wide.dropna()
    if not set(algorithms) <= set(wide.columns):
        return n, {}
    return n, {a: wide[a].to_numpy(float) for a in algorithms}


def _per_seed(frame: pd.DataFrame, column: str, algorithms: list[str]) -> tuple[int, dict]:
    """A per-point quantity (build time, bytes) at the largest N where every algorithm was
    built for at least MIN_REPEATS seeds (else the largest common N): one value per seed
    (the point's batches repeat it)."""
    keys = [k for k in ("algorithm", "n", "seed") if k in frame.columns]
    points = frame.groupby(keys, as_index=False)[column].first()
    if "batch" in frame.columns:
        points = points.assign(batch=0)
    n = None
    if "seed" in points.columns:
        sub = points[points["algorithm"].isin(algorithms)]
        seeds = sub.groupby(["n", "algorithm"])["seed"].nunique().unstack()
        ok = seeds[(seeds.reindex(columns=algorithms) >= MIN_REPEATS).all(axis=1)]
        n = int(ok.index.max()) if len(ok) else None
    return _paired(points, column, algorithms, n)


def _per_point(
    frame: pd.DataFrame, column: str, algorithms: list[str]
) -> tuple[list[int], dict[str, np.ndarray]]:
    """A per-point quantity (build time) at every (N, seed) point where each of
    ``algorithms`` was built: entry i of every array is one point, a paired repeat (the same
    subscriptions built by each algorithm, back to back). Returns the sizes covered."""
    keys = [k for k in ("algorithm", "n", "seed") if k in frame.columns]
    points = frame[frame["algorithm"].isin(algorithms)].groupby(keys, as_index=False)[column]
    wide = points.first().pivot_table(
        index=[k for k in keys if k != "algorithm"], columns="algorithm", values=column,
        aggfunc="first",
    ).dropna()  # fmt: skip
    if wide.empty or not set(algorithms) <= set(wide.columns):
        return [], {}
    sizes = sorted({int(i[0] if isinstance(i, tuple) else i) for i in wide.index})
    return sizes, {a: wide[a].to_numpy(float) for a in algorithms}


def _median(values: np.ndarray) -> float:
    return float(np.median(values)) if len(values) else float("nan")


def phase_split_row(frame: pd.DataFrame) -> dict:
    """C4: in the paper's dynamic run at 6M, predicate discovery (phase 1) takes 130 ms of
    140 ms (the rest is IPC). The paper's phase 1 includes parsing the events, which our
    kernels never do, and it does not give phase 1 without parsing: the row shows our
    measured share (phase 1 timed alone on the same batches, against dynamic's whole time at
    the largest N) and is not comparable."""
    reason = (
        "the paper's 130 ms include parsing the events, which our kernels do not do, and "
        "the paper gives no phase 1 without parsing"
    )
    n, t = _paired(frame, WHOLE, [CLUSTERED]) if "phase1_ms" in frame.columns else (0, {})
    if not t:
        return ROWS["phase_split_row"].unmeasured(reason, PHASE1_SHARE_PAPER=PHASE1_SHARE_PAPER)
    _, p1 = _paired(frame, "phase1_ms", [CLUSTERED], n)
    share = _median(p1[CLUSTERED] / t[CLUSTERED])
    return ROWS["phase_split_row"].row(
        f"{share:.0%} (phase 1 {_median(p1[CLUSTERED]):.3g} of "
        f"{_median(t[CLUSTERED]):.3g} ms per 100 events, {CLUSTERED}, N={n:,}, median of "
        f"{len(t[CLUSTERED])} batches)",
        not_comparable(reason),
        "phase 1 is most of our time too"
        if share > 0.5
        else "without parsing, our phase 1 is the smaller part: subscription matching dominates",
        PHASE1_SHARE_PAPER=PHASE1_SHARE_PAPER,
    )


def at_paper_size(rows: list[dict], frame: pd.DataFrame) -> list[dict]:
    """``rows`` as they are, or, when every N of ``frame`` lies below :data:`PAPER_MIN_N`,
    each timing row "not comparable" with the reason and what it measured."""
    if "n" not in frame.columns or not len(frame) or frame["n"].max() >= PAPER_MIN_N:
        return rows
    reason = (
        f"the paper measures from {PAPER_MIN_N:,} subscriptions; this profile's largest N is "
        f"{int(frame['n'].max()):,}, where the kernels run for microseconds"
    )
    return outside_regime(rows, reason)


def _rate_check(events_per_s: float, paper: float) -> Verdict:
    """Our events/s against the paper's rate, the rule worded like the paper's value."""
    v = at_least(events_per_s, paper, what="events/s")
    return Verdict(v.verdict, f"holds if events/s >= {paper:,.0f} (the paper's rate)")


def throughput_row(frame: pd.DataFrame) -> dict:
    """Row ``throughput_row`` (claims.toml)."""
    best = frame.groupby("algorithm")[WHOLE].median().min() if len(frame) else np.nan
    eps = 1e5 / best if best == best else float("nan")
    return ROWS["throughput_row"].row(
        f"{eps:,.0f} events/s (fastest algorithm, kernel only, one core of this machine)",
        _rate_check(eps, 1000),
        "absolute rates on different hardware: a check of our configuration, not a "
        "test of the paper",
        PAPER_HARDWARE=PAPER_HARDWARE,
    )


def _slope(frame: pd.DataFrame, algorithm: str, column: str) -> tuple[float, float, float, int]:
    """Log-log slope of ``column`` vs N over every repeated measurement, with its 95 %
    interval (t quantile for the observations' degrees of freedom) and their number."""
    sub = frame[frame["algorithm"] == algorithm]
    return slope_interval(sub["n"].to_numpy(float), sub[column].to_numpy(float))


def ratio_row(
    frame: pd.DataFrame,
    slow: str,
    fast: str,
    key: str,
    tol: float = FACTOR_TOL,
) -> dict:
    """A ratio of the paper's Sect. 6.2.1 graded like with like: our subscription-matching
    phase (whole time minus phase 1, paired by batch) against the paper's phase-2 times at
    6M (:data:`PAPER_MATCH_MS_6M`), never against its totals, which carry event parsing and
    IPC we do not have."""
    paper_slow = PAPER_MATCH_MS_6M[slow]
    paper_fast = PAPER_MATCH_MS_6M[fast]
    paper = paper_slow / paper_fast
    total = PAPER_MS_6M[slow] / PAPER_MS_6M[fast]
    n, t = _paired(frame, MATCHING, [slow, fast]) if MATCHING in frame.columns else (0, {})
    if not t:
        v: Verdict = not_comparable(f"{slow} and {fast} not measured at a common N")
        measured, note = "not measured", ""
    else:
        v = within_factor_measured(t[slow], t[fast], paper, tol)
        ratio = _median(t[slow]) / _median(t[fast])
        measured = (
            f"{ratio:.3g}x at N={n:,} (matching phase {_median(t[slow]):.3g} vs "
            f"{_median(t[fast]):.3g} ms per 100 events, median of {len(t[slow])} paired batches)"
        )
        note = {
            "holds": "the matching phase keeps the paper's factor",
            "direction only": f"the right way, but {ratio:.3g}x against the paper's {paper:.3g}x"
            + (f" at N={n:,}, below the paper's 6M" if n < 6_000_000 else ""),
            "fails": f"{fast} is not faster than {slow} in the matching phase here",
            "inconclusive": "the paired batches' interval straddles the band: more repeats "
            "would decide",
        }.get(v.verdict, "")
    return ROWS[key].row(
        measured, v, note, paper=paper, paper_slow=paper_slow, paper_fast=paper_fast, total=total
    )


def scalability_rows(frame: pd.DataFrame) -> list[dict]:
    """C1-C3, C5-C7, C10, C11, C16, C17 from the Fig. 3(a, c, d) rows (one row per timed
    batch, with ``seed`` and ``batch``)."""
    rows = [
        ratio_row(frame, "counting", "propagation", "counting_vs_propagation"),
        ratio_row(frame, "propagation", "propagation_wp", "prefetching", PREFETCH_TOL),
        ratio_row(frame, "propagation_wp", CLUSTERED, "clustering_vs_propagation_wp"),
    ]
    order = [CLUSTERED, "propagation_wp", "propagation", "counting"]
    n, t = _paired(frame, MATCHING, order) if MATCHING in frame.columns else (0, {})
    rows.append(
        ROWS["matching_ordering"].row(
            ", ".join(f"{k} {_median(v):.3g} ms" for k, v in t.items())
            + f" (matching phase, medians) at N={n:,}"
            if t
            else "not measured",
            ordering_measured(t, order, paired=True, margin=MIN_EFFECT)
            if t
            else not_comparable("not every algorithm measured at a common N"),
        )
    )
    est, lo, hi, k = _slope(frame, CLUSTERED, WHOLE)
    flat = equivalent(est, lo, hi, SLOPE_MARGIN, repeats=k)
    rows.append(
        ROWS["dynamic_flat_in_n"].row(
            f"log-log slope {est:.3f} [{lo:.3f}, {hi:.3f}] over {k} batches "
            f"(phase 1 + 2): {np.exp(est * np.log(PAPER_N_RANGE)):.2f}x over a 60x range",
            flat,
            "the paper's totals also carry ~156 ms per 100 events of parsing and IPC "
            "that do not grow with N, which flattens its curve; ours have none",
            FLAT_GROWTH=FLAT_GROWTH,
        )
    )
    est, lo, hi, k = (
        _slope(frame, "propagation_wp", MATCHING)
        if MATCHING in frame.columns
        else (np.nan,) * 3 + (0,)
    )
    grow = within_tolerance_interval(
        est, lo, hi, PROP_WP_SLOPE, PROP_WP_SLOPE_TOL, neutral=0.0, repeats=k
    )
    rows.append(
        ROWS["propagation_wp_growth"].row(
            f"log-log slope {est:.2f} [{lo:.2f}, {hi:.2f}] of the matching phase over {k} batches",
            grow,
            PROP_WP_SLOPE=PROP_WP_SLOPE,
        )
    )
    big = frame[frame["n"] == frame["n"].max()]
    fastest = big.groupby("algorithm")[WHOLE].median().min() if len(big) else float("nan")
    eps = 1e5 / fastest if fastest == fastest else float("nan")
    rows.append(
        ROWS["rate_600_at_6m"].row(
            f"{eps:,.0f} events/s at N={int(frame['n'].max()):,} (kernel only, one core)",
            _rate_check(eps, 600)
            if int(frame["n"].max()) >= 6_000_000
            else not_comparable("no 6M point in this profile"),
            "an absolute rate on a machine 20 years newer, without IPC or event parsing: "
            "a check of our configuration, not a test of the paper",
            PAPER_HARDWARE=PAPER_HARDWARE,
        )
    )
    n, mem = _per_seed(frame, "index_mb", ["counting", "propagation", CLUSTERED])
    med = {k: _median(v) for k, v in mem.items()}
    rows.append(
        ROWS["memory_ordering"].row(
            ", ".join(f"{k} {v:.0f} MB" for k, v in med.items()) + f" at N={n:,}",
            ordering(med, ["propagation", "counting", CLUSTERED]),
            "our sizes are the index structures' bytes, not the process's resident set",
        )
    )
    loaders = ["counting", "propagation", "static"]
    n, load = _per_seed(frame, "build_s", loaders)
    # Fig. 3d states the order at every N: each (N, seed) point is a paired repeat of it
    # (one seed's build at one N varies with the kernel's work for its fresh memory)
    sizes, every = _per_point(frame, "build_s", loaders)
    rows.append(
        ROWS["loading_ordering"].row(
            ", ".join(f"{k} {_median(v):.2f} s" for k, v in load.items())
            + f" at N={n:,} (median of {min((len(v) for v in load.values()), default=0)} seeds)"
            + (
                f"; ordered on the paired builds of {len(every[loaders[0]])} (N, seed) points, "
                f"N={sizes[0]:,}-{sizes[-1]:,}"
                if every
                else ""
            ),
            ordering_measured(every, loaders, paired=True, margin=MIN_EFFECT)
            if every
            else not_comparable("not every algorithm built at a common N"),
        )
    )
    points = frame.groupby(["algorithm", "n"], as_index=False)["index_mb"].first()
    est, lo, hi, _ = _slope(points, "propagation", "index_mb")
    rows.append(
        ROWS["space_linear"].row(
            f"log-log slope {est:.2f} (propagation)",
            within_tolerance(est, 1.0, SPACE_SLOPE_TOL),
            "our arrays are proportional to the predicates stored: this checks the "
            "implementation (the paper's argument, Sect. 2.3), it does not test the paper",
        )
    )
    rows.append(loading_dynamic_row(frame))
    rows.append(static_vs_dynamic_row(frame))
    return at_paper_size(rows, frame)


def _ratios(frame: pd.DataFrame, algorithm: str, slow: str, fast: str) -> np.ndarray:
    """Per-repeat slow-down of ``algorithm`` from workload ``fast`` to ``slow`` (repeat i of
    each, same seed and batch index) at the frame's largest N."""
    sub = frame[(frame["algorithm"] == algorithm) & (frame["n"] == frame["n"].max())]
    keys = [k for k in ("seed", "batch") if k in sub.columns]
    if not keys:
        sub, keys = sub.assign(_i=sub.groupby("workload").cumcount()), ["_i"]
    wide = sub.pivot_table(index=keys, columns="workload", values=WHOLE, aggfunc="first")
    if not {slow, fast} <= set(wide.columns):
        return np.array([])
    wide = wide.dropna()
    return (wide[slow] / wide[fast]).to_numpy(float)


def operator_row(frame: pd.DataFrame) -> dict:
    """C9 (Fig. 3b) at the paper's sizes (:func:`at_paper_size`)."""
    return at_paper_size([_operator_row(frame)], frame)[0]


def _operator_row(frame: pd.DataFrame) -> dict:
    """C9: both algorithms slower on W2op than on W1op, by the same factor: each slow-down's
    interval must lie above 1, and the two slow-downs' paired quotient must lie within
    :data:`SAME_FACTOR_TOL` of 1 (an equivalence on its log)."""
    algorithms = sorted(frame["algorithm"].unique()) if len(frame) else []
    ratios = {a: _ratios(frame, a, "W2op", "W1op") for a in algorithms}
    ratios = {a: r for a, r in ratios.items() if len(r)}
    if len(ratios) < 2:
        return ROWS["operator_same_factor"].unmeasured("missing workloads")
    a, b = list(ratios)[:2]
    k = min(len(ratios[a]), len(ratios[b]))
    slower = [
        direction_measured(r, np.ones_like(r), expected="above", margin=MIN_EFFECT)
        for r in ratios.values()
    ]
    est, lo, hi = t_interval(np.log(ratios[a][:k] / ratios[b][:k]))
    same = equivalent(est, lo, hi, float(np.log(SAME_FACTOR_TOL)), repeats=k)
    if k < 3:
        same = not_comparable(f"{same.rule}; only {k} paired repeats")
    v = combine([*slower, same])
    n = int(frame["n"].max())
    return ROWS["operator_same_factor"].row(
        ", ".join(f"{k_} {_median(r):.2f}x" for k_, r in ratios.items())
        + f" at N={n:,} (medians of the paired batches)",
        v,
        {
            "holds": "both slow down by a similar factor",
            "partly": "one of the two parts does not hold: see the rule",
            "fails": "W2op is not slower here, or the factors differ",
        }.get(v.verdict, ""),
    )


def _drops(frame: pd.DataFrame, algorithm: str) -> np.ndarray:
    """Per-repeat speed-up of ``algorithm`` from the smallest to the largest swept value."""
    sub = frame[frame["algorithm"] == algorithm]
    keys = [k for k in ("seed", "batch") if k in sub.columns]
    if not keys:
        sub, keys = sub.assign(_i=sub.groupby("x").cumcount()), ["_i"]
    wide = sub.pivot_table(index=keys, columns="x", values=WHOLE, aggfunc="first").dropna()
    if wide.shape[1] < 2:
        return np.array([])
    return (wide.iloc[:, 0] / wide.iloc[:, -1]).to_numpy(float)


def sweep_rows(frame: pd.DataFrame) -> list[dict]:
    """C12, C13 from the Sect. 6.2.2 sweeps (frame with ``sweep`` and ``x`` columns)."""
    rows = []
    dom = frame[frame["sweep"] == "value domain"]
    drop = {a: _drops(dom, a) for a in ("propagation", CLUSTERED)}
    if all(len(d) for d in drop.values()):
        k = min(len(d) for d in drop.values())
        v = combine(
            [
                *(direction_measured(d, np.ones_like(d), expected="above") for d in drop.values()),
                direction_measured(drop[CLUSTERED][:k], drop["propagation"][:k], expected="below"),
            ]
        )
        xs = sorted(dom["x"].unique())
        measured = ", ".join(f"{a} {_median(d):.2f}x faster" for a, d in drop.items())
        measured += f" from domain {xs[0]} to {xs[-1]} (medians of {k} paired batches)"
    else:
        v, measured = not_comparable("fewer than two domain sizes"), "not measured"
    rows.append(ROWS["domain_size_sweep"].row(measured, v))
    pred = frame[frame["sweep"] == "predicates"]
    d = _drops(pred, CLUSTERED)
    if len(d):
        v = direction_measured(np.ones_like(d), d, expected="below")
        xs = sorted(pred["x"].unique())
        measured = f"{CLUSTERED} {_median(d):.3g}x faster from {xs[0]} to {xs[-1]} predicates"
    else:
        v, measured = not_comparable("fewer than two predicate counts"), "not measured"
    rows.append(ROWS["predicates_sweep"].row(measured, v))
    return at_paper_size(rows, frame)


def loading_dynamic_row(frame: pd.DataFrame) -> dict:
    """Row ``loading_dynamic_row`` (claims.toml)."""
    n, load = _per_seed(frame, "build_s", ["static", CLUSTERED])
    ok = len(load) == 2
    return ROWS["loading_dynamic_row"].row(
        f"static {_median(load['static']):.2f} s, dynamic {_median(load[CLUSTERED]):.2f} s "
        f"at N={n:,} (medians of {len(load['static'])} seeds)"
        if ok
        else "not measured",
        direction_measured(load[CLUSTERED], load["static"], expected="below", margin=MIN_EFFECT)
        if ok
        else not_comparable("static and dynamic not built at a common N"),
        "dynamic's load is incremental (batches of 10,000, maintenance after each); "
        "static's is the greedy on a sample, then one bulk build",
    )


def static_vs_dynamic_row(frame: pd.DataFrame) -> dict:
    """C8: static "did not significantly beat the dynamic algorithm (few ms per 100
    events)": holds if the paired ratio dynamic / static (matching phase) has its interval
    below 1 + MIN_EFFECT, fails if above, inconclusive if it straddles."""
    n, t = _paired(frame, MATCHING, ["static", CLUSTERED]) if MATCHING in frame.columns else (0, {})
    if not t:
        return ROWS["static_vs_dynamic_row"].row(
            "not measured", not_comparable("static and dynamic not measured at a common N")
        )
    ratio, low, high = ratio_interval(t[CLUSTERED], t["static"])
    verdict = beyond_measured(
        ratio, low, high, 1 + MIN_EFFECT, expected="below", repeats=len(t["static"]),
        what="dynamic/static (matching phase, paired batches)",
    )  # fmt: skip
    return ROWS["static_vs_dynamic_row"].row(
        f"dynamic {_median(t[CLUSTERED]):.3g} vs static {_median(t['static']):.3g} "
        f"ms per 100 events in the matching phase at N={n:,} ({ratio:.2f}x)",
        verdict,
    )


def saturation_rows() -> list[dict]:
    """Sect. 6.2.3's claims are graded in notebook 10 (Fig. 4); listed here as such."""
    return unmeasured_rows(
        ROWS,
        "elsewhere",
        "graded in notebook 10 (10_fabret_adaptivity), which runs the saturation experiments",
    )
