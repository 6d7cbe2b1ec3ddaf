"""Notebook 11's claims table: PS2Stream's claims (Sects. I, III, VI-B, VI-C) against ours.

Tolerances are module constants declared before any run. The paper's numbers come from a
32-instance Storm cluster on 280M / 58M real geo-tagged tweets; ours from a replay on one
2-core machine over semi-synthetic tweets, so a sized effect is judged within a factor
and otherwise by direction. Throughput is the busiest worker's measured rate (see
``experiments.py``); every worker replays its sub-stream ``repeats`` times under the
machine's timing lock, and each claim on throughput or latency is judged on these repeats
(x seeds) with their intervals (:mod:`routelab.claims`): a ranking holds only where the
intervals separate, otherwise the row says "inconclusive". Rows on the memory models
(Figs. 9-10) are checks: deterministic byte counts of our own structures. Each row's note
gives the modelled (cost-unit) value beside the measured one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.claims import (
    Verdict,
    best_measured,
    combine,
    declarations,
    direction,
    direction_measured,
    equivalent,
    group_slopes,
    name_deciding_reading,
    not_comparable,
    outside_regime,
    paired_slope_interval,
    share,
    share_measured,
    slope_interval,
    t_interval,
    unmeasured_rows,
    within_factor_measured,
)
from routelab.readings import pick
from routelab.spatial.cost import CostParams
from routelab.spatial.lab.regime import (
    C_PAPER_US,
    at_cost,
    check_cost,
    flip_points,
    in_regime,
    reading_note,
    regime_reason,
    regime_table,
    verdict_map,
)

#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)

C1_PAPER = 160_659 / 76_921  # US-Q1: grid vs frequency, 2.09x
C2_PAPER = 267_415 / 181_542  # US-Q2: metric vs R-tree, 1.47x
C5_PAPER = 1.30  # Q3: hybrid +30 % over metric and kd-tree
C8_PAPER = 25 / 15  # Q2: kd-tree latency 25 ms vs 15 ms
RATIO_TOL = 1.5  # C1's 2.09x holds within 1.5x either way (1.39x .. 3.1x)
C2_TOL = 1.2  # C2's 1.47x: within 1.2x (1.23x .. 1.76x; a wider band would include "no effect")
C8_TOL = 1.3  # C8's 1.67x: within 1.3x (1.28x .. 2.17x)
C5_TOL = 1.15  # +30 %: measured ratio within 1.30 / 1.15 .. 1.30 * 1.15
C9_TOL = 1.25  # "similar latency": metric / hybrid within 1.25x
#: C9's tolerance under ``ROUTELAB_READING=similar``: 1.5x, the band C1's ratio is read in
C9_TOL_ALTERNATIVE = 1.5
MEMORY_LIMIT_MB = 1000.0  # C10
#: "scales well with the number of workers" (Fig. 11): throughput grows at least as
#: workers^0.5 (half of linear), the log-log slope's interval above this
SCALING_MIN_SLOPE = 0.5
#: Definition 1's balance constraint: no worker above sigma x the mean load (HybridParams)
BALANCE_SIGMA = 1.2
TEXT = ("frequency", "hypergraph", "metric")
SPACE = ("grid", "kd-tree", "r-tree")
COMPARED = ("hybrid", "metric", "kd-tree")
#: Fig. 11's panels: (a) is STS-UK-Q1 (stated); (b) and (c) read as UK-Q2 and UK-Q3
FIG11_PANELS = {"a": ("GB", "Q1"), "b": ("GB", "Q2"), "c": ("GB", "Q3")}
#: the other reading (``ROUTELAB_READING=fig11``): (b) is UK-Q3 and (c) UK-Q2
FIG11_PANELS_ALTERNATIVE = {"a": ("GB", "Q1"), "b": ("GB", "Q3"), "c": ("GB", "Q2")}


def _val(df: pd.DataFrame, country: str, qs: str, alg: str, metric: str) -> float:
    s = df[(df.country == country) & (df.query_set == qs) & (df.algorithm == alg)][metric]
    return float(s.mean()) if len(s) else float("nan")


def _runs(
    df: pd.DataFrame,
    country: str,
    qs: str,
    alg: str,
    column: str = "throughput_runs",
    n_workers: int | None = None,
) -> np.ndarray:
    """The repeated measurements of one (set, algorithm): every replay of every seed, in
    (seed, replay) order, so the same position pairs across algorithms of one stream.
    Frames without the per-replay column give one value per seed."""  # fmt: skip
    d = df[(df.country == country) & (df.query_set == qs) & (df.algorithm == alg)]
    if n_workers is not None and "n_workers" in d.columns:
        d = d[d.n_workers == n_workers]
    d = d.sort_values("seed") if "seed" in d.columns else d
    if column in d.columns:
        return np.array([x for runs in d[column] for x in runs], dtype=np.float64)
    scalar = column.replace("_runs", "") if column != "latency_runs" else "latency_us"
    return d[scalar].to_numpy(np.float64) if scalar in d.columns else np.array([])


def _med(x: np.ndarray) -> float:
    return float(np.median(x)) if len(x) else float("nan")


def _sets(df: pd.DataFrame) -> list[tuple[str, str]]:
    return sorted({(c, q) for c, q in zip(df.country, df.query_set, strict=True)})


def _costs(df: pd.DataFrame, c: str, q: str, algs: tuple[str, ...]) -> str:
    """The duplication behind a comparison: each algorithm's routed copies and total cost."""
    parts = [
        f"{a} {_val(df, c, q, a, 'copies'):,.0f} copies / cost {_val(df, c, q, a, 'total_cost'):,.0f}"
        f" / max/mean {_val(df, c, q, a, 'load_imbalance'):.2f}"
        for a in algs
        if {"copies", "total_cost", "load_imbalance"} <= set(df.columns)
    ]
    return f"{_name(c, q)}: " + "; ".join(parts) if parts else ""


def _name(c: str, q: str) -> str:
    return f"{'UK' if c == 'GB' else c}-{q}"


def _ratio_row(
    df: pd.DataFrame,
    c: str,
    q: str,
    fast: str,
    slow: str,
    paper: float,
    tol: float,
) -> tuple[Verdict, str]:
    """A sized throughput ratio ``fast / slow`` on one set, on the paired replays."""  # fmt: skip
    a, b = _runs(df, c, q, fast), _runs(df, c, q, slow)
    if not len(a) or len(a) != len(b):
        return not_comparable(f"{fast} and {slow} not both measured on {_name(c, q)}"), ""
    v = within_factor_measured(a, b, paper, tol)
    m = _val(df, c, q, fast, "model_throughput") / _val(df, c, q, slow, "model_throughput")
    return v, f"{_med(a) / _med(b):.2f}x on {_name(c, q)} (model {m:.2f}x)"


def _family_row(df: pd.DataFrame, q: str, better: tuple, worse: tuple) -> tuple[Verdict, str]:
    """Every member of ``better`` beats every member of ``worse`` on each dataset's ``q``."""
    verdicts, got = [], []
    for c in sorted({c for c, qq in _sets(df) if qq == q}):
        for x in better:
            for y in worse:
                a, b = _runs(df, c, q, x), _runs(df, c, q, y)
                if len(a) and len(a) == len(b):
                    verdicts.append(direction_measured(a, b, expected="above"))
        got.append(
            f"{_name(c, q)}: "
            + ", ".join(f"{x} {_med(_runs(df, c, q, x)):,.0f}" for x in better + worse)
        )
    if not verdicts:
        return not_comparable(f"no {q} runs of both families"), "not measured"
    rule = f"(better, worse) pairs on every {q} set where the better's throughput is higher"
    return share_measured(verdicts, rule=rule), "; ".join(got) + " tuples/s (medians)"


def c1_space_beats_text_on_q1(fig6: pd.DataFrame) -> dict:
    """Row ``c1_space_beats_text_on_q1`` (claims.toml)."""
    size, measured = _ratio_row(fig6, "US", "Q1", "grid", "frequency", C1_PAPER, RATIO_TOL)
    family, got = _family_row(fig6, "Q1", SPACE, TEXT)
    v = combine([family, size])
    return ROWS["c1_space_beats_text_on_q1"].row(
        f"{measured}; {got}",
        v,
        _costs(fig6, "US", "Q1", ("grid", "frequency"))
        + (
            ". Text partitioning copies objects to every worker owning one of their terms"
            if v.verdict in ("holds", "direction only")
            else ". Text partitioning copies objects, yet here the grid's imbalance or the "
            "measured per-tuple cost offsets it: compare the model ratio with the measured one"
        ),
        C1_PAPER=C1_PAPER,
    )


def c2_text_beats_space_on_q2(fig6: pd.DataFrame) -> dict:
    """Row ``c2_text_beats_space_on_q2`` (claims.toml)."""
    size, measured = _ratio_row(fig6, "US", "Q2", "metric", "r-tree", C2_PAPER, C2_TOL)
    family, got = _family_row(fig6, "Q2", TEXT, SPACE)
    v = combine([family, size])
    fails = v.verdict in ("fails", "partly")
    return ROWS["c2_text_beats_space_on_q2"].row(
        f"{measured}; {got}",
        v,
        _costs(fig6, "US", "Q2", ("metric", "r-tree"))
        + (
            ". Space partitioning duplicates Q2's large ranges less than the paper's reason "
            "expects on our data, while text partitioning still copies objects"
            if fails
            else ". Q2's large ranges and rarer keywords favour text partitioning, as the "
            "paper explains"
        ),
        C2_PAPER=C2_PAPER,
    )


def c3_best_baselines(fig6: pd.DataFrame) -> dict:
    """Row ``c3_best_baselines`` (claims.toml)."""
    verdicts, got = [], []
    for c, q in _sets(fig6):
        for fam, winner in ((TEXT, "metric"), (SPACE, "kd-tree")):
            samples = {a: _runs(fig6, c, q, a) for a in fam}
            samples = {a: x for a, x in samples.items() if len(x)}
            verdicts.append(best_measured(samples, winner))
            best = max(samples, key=lambda a, s=samples: _med(s[a])) if samples else "-"
            got.append(f"{_name(c, q)} {'text' if fam == TEXT else 'space'}: {best}")
    v = share_measured(verdicts, rule="(set, family) cases where the paper's winner is best")
    return ROWS["c3_best_baselines"].row(
        "; ".join(got) + " (highest median)",
        v,
        "model-throughput winners: "
        + "; ".join(
            f"{_name(c, q)}: "
            + ", ".join(
                max(fam, key=lambda a, c=c, q=q: _val(fig6, c, q, a, "model_throughput"))
                for fam in (TEXT, SPACE)
            )
            for c, q in _sets(fig6)
        ),
    )


def _best_per_set(fig7: pd.DataFrame, column: str, higher: bool) -> list[tuple[str, Verdict]]:
    out = []
    for c, q in _sets(fig7):
        samples = {a: _runs(fig7, c, q, a, column) for a in COMPARED}
        out.append((_name(c, q), best_measured({a: x for a, x in samples.items() if len(x)},
                                               "hybrid", higher=higher)))  # fmt: skip
    return out


def c4_hybrid_best(fig7: pd.DataFrame) -> dict:
    """Row ``c4_hybrid_best`` (claims.toml)."""
    per = _best_per_set(fig7, "throughput_runs", True)
    v = share_measured([x for _, x in per], rule="sets where hybrid's throughput is highest")
    model = [
        s for s in _sets(fig7)
        if max(COMPARED, key=lambda a, s=s: _val(fig7, *s, a, "model_throughput")) == "hybrid"
    ]  # fmt: skip
    busy = ", ".join(
        f"{_name(*st)} {_val(fig7, *st, 'hybrid', 'busy_imbalance'):.2f}"
        for st in _sets(fig7)
        if "busy_imbalance" in fig7.columns
    )
    return ROWS["c4_hybrid_best"].row(
        "; ".join(f"{n}: {x.verdict}" for n, x in per)
        + f" (modelled throughput: best on {len(model)}/{len(_sets(fig7))})",
        v,
        "hybrid's measured throughput leads on every set"
        if v.verdict == "holds"
        else f"hybrid leads the model on {len(model)}/{len(_sets(fig7))} sets; the measured "
        f"busy times are less even than the modelled loads (hybrid busy max/mean: {busy})",
    )


def c5_hybrid_q3(fig7: pd.DataFrame) -> dict:
    """Row ``c5_hybrid_q3`` (claims.toml)."""
    verdicts, got = [], []
    for c in sorted(set(fig7[fig7.query_set == "Q3"].country)):
        h = _runs(fig7, c, "Q3", "hybrid")
        rivals = {a: _runs(fig7, c, "Q3", a) for a in ("metric", "kd-tree")}
        best = max(rivals, key=lambda a: _med(rivals[a]))
        if len(h) and len(h) == len(rivals[best]):
            verdicts.append(within_factor_measured(h, rivals[best], C5_PAPER, C5_TOL))
            got.append(f"{_name(c, 'Q3')} {_med(h) / _med(rivals[best]):.2f}x vs {best}")
    v = combine(verdicts) if verdicts else not_comparable("no Q3 runs")
    return ROWS["c5_hybrid_q3"].row(
        "; ".join(got) or "not measured", v, _costs(fig7, "GB", "Q3", COMPARED)
    )


def _pairs_row(fig7: pd.DataFrame, q: str, pairs: tuple[tuple[str, str], ...]) -> Verdict:
    vs = []
    for c in sorted(set(fig7[fig7.query_set == q].country)):
        for x, y in pairs:
            a, b = _runs(fig7, c, q, x), _runs(fig7, c, q, y)
            if len(a) and len(a) == len(b):
                vs.append(direction_measured(a, b, expected="above"))
    return combine(vs) if vs else not_comparable(f"no {q} runs")


def c6_q1_order(fig7: pd.DataFrame) -> dict:
    """Row ``c6_q1_order`` (claims.toml)."""
    got = [
        f"{_name(c, 'Q1')}: " + ", ".join(f"{a} {_med(_runs(fig7, c, 'Q1', a)):,.0f}"
                                         for a in ("hybrid", "kd-tree", "metric"))
        for c in sorted(set(fig7[fig7.query_set == "Q1"].country))
    ]  # fmt: skip
    return ROWS["c6_q1_order"].row(
        "; ".join(got) + " tuples/s (medians)",
        _pairs_row(fig7, "Q1", (("hybrid", "kd-tree"), ("kd-tree", "metric"))),
        _costs(fig7, "US", "Q1", ("hybrid", "kd-tree", "metric")),
    )


def c7_q2_order(fig7: pd.DataFrame) -> dict:
    """Row ``c7_q2_order`` (claims.toml)."""
    got = [
        f"{_name(c, 'Q2')}: hybrid/kd {_med(_runs(fig7, c, 'Q2', 'hybrid')) / _med(_runs(fig7, c, 'Q2', 'kd-tree')):.2f}, "
        f"metric/kd {_med(_runs(fig7, c, 'Q2', 'metric')) / _med(_runs(fig7, c, 'Q2', 'kd-tree')):.2f}"
        for c in sorted(set(fig7[fig7.query_set == "Q2"].country))
    ]
    return ROWS["c7_q2_order"].row(
        "; ".join(got),
        _pairs_row(fig7, "Q2", (("hybrid", "kd-tree"), ("metric", "kd-tree"))),
        _costs(fig7, "US", "Q2", ("hybrid", "kd-tree", "metric")),
    )


def fig8_hybrid_lowest_latency(fig7: pd.DataFrame) -> dict:
    """Row ``fig8_hybrid_lowest_latency`` (claims.toml)."""
    per = _best_per_set(fig7, "latency_runs", False)
    return ROWS["fig8_hybrid_lowest_latency"].row(
        "; ".join(f"{n}: {x.verdict}" for n, x in per),
        share_measured([x for _, x in per], rule="sets where hybrid's latency is lowest"),
        "latency of a replay in microseconds (no network, no serialization), FIFO "
        "queues fed at the notebook's load x hybrid's measured capacity",
    )


def c8_kd_latency_q2(fig7: pd.DataFrame) -> dict:
    """Row ``c8_kd_latency_q2`` (claims.toml)."""
    vs, got = [], []
    for c in sorted(set(fig7[fig7.query_set == "Q2"].country)):
        kd = _runs(fig7, c, "Q2", "kd-tree", "latency_runs")
        for other in ("hybrid", "metric"):
            o = _runs(fig7, c, "Q2", other, "latency_runs")
            if len(kd) and len(kd) == len(o):
                vs.append(within_factor_measured(kd, o, C8_PAPER, C8_TOL))
                got.append(f"{_name(c, 'Q2')} kd-tree/{other} {_med(kd) / _med(o):.2f}x")
    return ROWS["c8_kd_latency_q2"].row(
        "; ".join(got) or "not measured",
        combine(vs) if vs else not_comparable("no Q2 latencies"),
        "latency of a replay in microseconds (no network, no serialization), FIFO "
        "queues fed at the notebook's load x hybrid's measured capacity, steady state only",
        C8_PAPER=C8_PAPER,
    )


def c9_metric_latency(fig7: pd.DataFrame, tol: float = C9_TOL) -> dict:
    """Row ``c9_metric_latency`` (claims.toml)."""
    vs, got = [], []
    margin = float(np.log(tol))
    for s in _sets(fig7):
        m = _runs(fig7, *s, "metric", "latency_runs")
        h = _runs(fig7, *s, "hybrid", "latency_runs")
        if not len(m) or len(m) != len(h):
            continue
        got.append(f"{_name(*s)} {_med(m) / _med(h):.2f}x")
        if s == ("GB", "Q1"):  # the exception: metric far larger, beyond the similar band
            vs.append(direction_measured(m, h * tol, expected="above"))
        else:
            est, lo, hi = t_interval(np.log(m / h))
            v = equivalent(est, lo, hi, margin, repeats=len(m))
            vs.append(v if len(m) >= 3 else not_comparable(f"{v.rule}; fewer than 3 repeats"))
    return ROWS["c9_metric_latency"].row(
        "; ".join(got) + " (metric / hybrid, medians)",
        share_measured(vs, rule="sets as the paper says (similar; UK-Q1 larger)"),
        tol=tol,
    )


def c10_dispatcher_memory(fig7: pd.DataFrame) -> list[dict]:
    """Sect. VI-C, Fig. 9, on our dispatcher memory model: the < 1000 MB bound and the
    ordering (kd-tree least; hybrid highest on Q2) as checks of our deterministic model."""
    mx = float(fig7.dispatcher_mb.max())
    order, got = [], []
    for s in _sets(fig7):
        k, m, h = (_val(fig7, *s, a, "dispatcher_mb") for a in ("kd-tree", "metric", "hybrid"))
        order.append(direction(min(m, h) / k, neutral=1.0, expected="above"))
    for c in sorted(set(fig7.country)):
        h = {q: _val(fig7, c, q, "hybrid", "dispatcher_mb") for q in ("Q1", "Q2", "Q3")}
        got.append(f"{_name(c, '')}hybrid Q1/Q2/Q3 {h['Q1']:.1f}/{h['Q2']:.1f}/{h['Q3']:.1f} MB")
        order.append(direction(h["Q2"] / max(h["Q1"], h["Q3"]), neutral=1.0, expected="above"))
    cells = ", ".join(
        f"{_name(*st)} {_val(fig7, *st, 'hybrid', 'text_cells'):,.0f}"
        for st in _sets(fig7)
        if "text_cells" in fig7.columns
    )
    return [
        ROWS["c10_dispatcher_memory_bound"].row(
            f"max {mx:.1f} MB",
            Verdict(
                "holds" if mx < MEMORY_LIMIT_MB else "fails",
                f"holds if the largest dispatcher model < {MEMORY_LIMIT_MB:.0f} MB",
            ),
            "a bound on our own byte model, far from the paper's scale",
        ),
        ROWS["c10_dispatcher_memory_order"].row(
            "; ".join(got),
            share(
                sum(v.holds for v in order),
                len(order),
                rule="(set) kd-tree least and (dataset) hybrid's Q2 highest",
            ),
            f"deterministic byte model (cells, H_o entries, H_q refcounts); hybrid's "
            f"text cells per set: {cells}",
        ),
    ]


def c11_worker_memory(fig7: pd.DataFrame) -> dict:
    """Row ``c11_worker_memory`` (claims.toml)."""
    sets = _sets(fig7)
    wins = sum(
        min(COMPARED, key=lambda a, s=s: _val(fig7, *s, a, "worker_mb")) == "hybrid" for s in sets
    )
    v = _most(wins, len(sets), "hybrid's worker memory is the smallest of the three")
    return ROWS["c11_worker_memory"].row(
        f"smallest on {wins}/{len(sets)} sets",
        v,
        "worker memory model (MB, mean over workers) hybrid / metric / kd-tree: "
        + "; ".join(
            f"{_name(*st)} " + "/".join(f"{_val(fig7, *st, a, 'worker_mb'):.2f}" for a in COMPARED)
            for st in _sets(fig7)
        )
        + ("" if v.holds else ". Hybrid's extra regions replicate queries over more workers."),
    )


def _most(n_ok: int, n: int, what: str) -> Verdict:
    """ "In most cases": holds on more than half of the cases, partly on at least one."""
    rule = f"{what} on more than half of the cases: holds; on some: partly ({n_ok}/{n})"
    if n == 0:
        return not_comparable("no cases")
    return Verdict("holds" if n_ok > n / 2 else ("partly" if n_ok else "fails"), rule)


def workload_rows(fig7: pd.DataFrame) -> list[dict]:
    """Abstract and Sect. III (Definition 1): the partitioning "minimizes the total amount of
    workload and balances the load of workers": hybrid's total cost (cost units, on the
    replay's own counts) is the lowest of the three on each set, and its busiest worker
    stays within sigma x the mean load. Cost units are a model, not a clock: one value per
    set (seeds averaged)."""
    sets = _sets(fig7)
    low = [
        min(COMPARED, key=lambda a, s=s: _val(fig7, *s, a, "total_cost")) == "hybrid" for s in sets
    ]
    bal = [_val(fig7, *s, "hybrid", "load_imbalance") <= BALANCE_SIGMA for s in sets]
    costs = "; ".join(
        f"{_name(*s)} " + "/".join(f"{_val(fig7, *s, a, 'total_cost'):,.0f}" for a in COMPARED)
        for s in sets
    )
    imb = ", ".join(f"{_name(*s)} {_val(fig7, *s, 'hybrid', 'load_imbalance'):.2f}" for s in sets)
    return [
        ROWS["hybrid_least_workload"].row(
            f"lowest on {sum(low)}/{len(sets)} sets; hybrid/metric/kd-tree: {costs}",
            share(sum(low), len(sets), rule="sets where hybrid's total cost is lowest"),
        ),
        ROWS["hybrid_balances_load"].row(
            f"hybrid max/mean load: {imb}",
            share(sum(bal), len(sets), rule=f"sets with max/mean <= {BALANCE_SIGMA}"),
            BALANCE_SIGMA=BALANCE_SIGMA,
        ),
    ]


def hybrid_is_hybrid(fig7: pd.DataFrame) -> dict:
    """Sects. IV-B, VI-C: hybrid partitions by space where queries' keywords are frequent
    (Q1: "hybrid partitioning wisely choose space-partitioning ... in most regions") and by
    text where they are not (Q2, and Q2's regions of Q3): on every Q2 and Q3 set some
    leaves of hybrid's kdt-tree hold only part of their region's terms, and on Q1 most
    leaves are space-only. Deterministic in the builds: one value per set (seeds pooled)."""
    if "text_leaves" not in fig7.columns or not len(fig7):
        return ROWS["hybrid_is_hybrid"].row(
            "not measured", not_comparable("the runs do not count text-split leaves")
        )
    h = fig7[fig7.algorithm == "hybrid"]
    ok, got, wrong = [], [], []
    for (c, q), g in h.groupby(["country", "query_set"]):
        text, leaves = float(g.text_leaves.mean()), float(g.leaves.mean())
        ok.append(text > 0 if q in ("Q2", "Q3") else text <= leaves / 2)
        got.append(f"{_name(c, q)} {text:.0f}/{leaves:.0f}")
        if not ok[-1]:
            wrong.append(f"{_name(c, q)} ({'no text split' if q != 'Q1' else 'mostly text'})")
    v = share(sum(ok), len(ok), rule="sets where hybrid splits by text on Q2/Q3 (and mostly "
              "by space on Q1)")  # fmt: skip
    return ROWS["hybrid_is_hybrid"].row(
        "text-split / all leaves (mean over seeds): " + ", ".join(got), v,
        "a check of our builds: "
        + ("every set splits as Sect. VI-C describes" if not wrong else
           "not as Sect. VI-C describes on " + ", ".join(wrong))
        + "; a set without text-split leaves is a kd-tree's partition, and its hybrid-vs-kd-tree "
        "rows compare two space partitionings",
    )  # fmt: skip


#: "the model predicts the clock": R^2 of the workers' busy time on the balanced load
MODEL_R2 = 0.8


def cost_model_row(fit: pd.DataFrame, errors: pd.DataFrame | None = None) -> dict:
    """Sect. IV-A, Definition 1: the load the partitioners balance is the workers' work.
    Holds where, for every partitioner and set, the balanced load (the partitioners' unit
    ratios, one seconds-per-unit scale per set) explains at least :data:`MODEL_R2` of the
    variance of the workers' busy times (``fit``:
    :func:`routelab.spatial.lab.partitioning.cost_clock.fit_table`, with the unit costs
    calibrated on the run's own workers beside it)."""
    if fit is None or not len(fit):
        return ROWS["cost_model_predicts_time"].row(
            "not measured", not_comparable("no per-worker counts")
        )
    ok = fit.r2_balanced >= MODEL_R2
    per = fit.groupby("algorithm").agg(
        bal=("r2_balanced", "median"), cal=("r2_calibrated", "median")
    )
    v = share(
        int(ok.sum()),
        len(fit),
        rule=f"(set, partitioner) with R^2 >= {MODEL_R2} on the balanced load",
    )
    # a timing row: each R^2 rests on every worker of every seed's run
    v = Verdict(v.verdict, v.rule, int(fit.workers.min()) if "workers" in fit else 0)
    worst = fit.loc[fit.r2_balanced.idxmin()]
    return ROWS["cost_model_predicts_time"].row(
        "median R^2 balanced / calibrated units: "
        + ", ".join(f"{a} {r.bal:.2f} / {r.cal:.2f}" for a, r in per.iterrows())
        + f"; worst {worst.algorithm} on {_name(worst.country, worst.query_set)} "
        f"({worst.r2_balanced:.2f})"
        + (
            f"; with updates charged per posting (fitted): median R^2 "
            f"{fit.r2_postings.median():.2f}"
            if "r2_postings" in fit.columns
            else ""
        ),
        v,
        "R^2 over the workers of every run; 'calibrated' refits the four unit costs on "
        "the run's own workers per query set, so the gap between the two is what the "
        "partitioners' unit ratios get wrong on this machine" + _worst_kind(errors),
    )


def _worst_kind(errors: pd.DataFrame | None) -> str:
    """The tuple kind whose unit ratio misplaces the most busy time (median over sets)."""
    if errors is None or not len(errors):
        return ""
    med = errors.groupby("kind").error_share.median()
    k = med.abs().idxmax()
    way = "under" if med[k] < 0 else "over"
    return (
        f"; the kind the ratios misprice most is the {k}: {way}-charged by "
        f"{abs(med[k]):.0%} of the measured busy time (median over sets)"
    )


def _scaling_obs(fig11: pd.DataFrame, c: str, q: str, alg: str) -> tuple[list, list, list]:
    """(stream, workers, throughput) of every replay of one (set, algorithm) in Fig. 11."""
    d = fig11[(fig11.country == c) & (fig11.query_set == q) & (fig11.algorithm == alg)]
    gs, xs, ys = [], [], []
    for _, r in d.iterrows():
        runs = r["throughput_runs"] if "throughput_runs" in d.columns else [r["throughput"]]
        gs += [r["seed"] if "seed" in d.columns else 0] * len(runs)
        xs += [r["n_workers"]] * len(runs)
        ys += list(runs)
    return gs, xs, ys


def _scaling(fig11: pd.DataFrame, c: str, q: str, alg: str) -> tuple[float, float, float, int]:
    """The log-log slope of throughput against workers, paired by stream: each seed's own
    slope (its stream at every worker count), their mean and t interval over the seeds
    (:func:`routelab.claims.paired_slope_interval`); a frame of one stream falls back to
    the interval over its replays (:func:`routelab.claims.slope_interval`)."""
    gs, xs, ys = _scaling_obs(fig11, c, q, alg)
    if len(set(gs)) < 2:
        return slope_interval(xs, ys)
    return paired_slope_interval(gs, xs, ys)


def _slope_gap(fig11: pd.DataFrame, c: str, q: str, a: str, b: str) -> tuple[float, float, float]:
    """(mean, low, high): the t interval of ``a``'s slope minus ``b``'s over the streams
    both ran (paired by seed); NaN with fewer than two such streams."""
    sa, sb = (group_slopes(*_scaling_obs(fig11, c, q, x)) for x in (a, b))
    common = [k for k in sa if k in sb]
    if len(common) < 2:
        return float("nan"), float("nan"), float("nan")
    return t_interval([sa[k] - sb[k] for k in common])


def c12_scalability(fig11: pd.DataFrame) -> list[dict]:
    """Sect. VI-C, Fig. 11: hybrid "scales well with the number of workers" (the log-log
    slope of throughput vs workers, paired by stream (:func:`_scaling`: each seed's own
    slope, the t interval over the seeds), its interval above :data:`SCALING_MIN_SLOPE`) and
    "exhibits the best performance in most cases" (per set and worker count)."""
    scal, got = [], []
    best = []
    for c, q in _sets(fig11):
        est, lo, hi, k = _scaling(fig11, c, q, "hybrid")
        if k:
            got.append(f"{_name(c, q)} slope {est:.2f} [{lo:.2f}, {hi:.2f}]")
        if np.isnan(est):
            scal.append(not_comparable(f"{_name(c, q)}: fewer than two worker counts"))
        elif lo > SCALING_MIN_SLOPE:
            scal.append(Verdict("holds", "slope interval above the minimum", k))
        elif hi < SCALING_MIN_SLOPE:
            scal.append(Verdict("fails", "slope interval below the minimum", k))
        else:
            scal.append(Verdict("inconclusive", "slope interval straddles the minimum", k))
        for n in sorted(set(fig11.n_workers)):
            samples = {a: _runs(fig11, c, q, a, n_workers=n) for a in COMPARED}
            best.append(best_measured({a: x for a, x in samples.items() if len(x)}, "hybrid"))
    rule = (f"sets where hybrid's log-log slope of throughput vs workers (each stream's own, "
            f"paired by seed) has its interval "
            f"above {SCALING_MIN_SLOPE} (throughput >= workers^{SCALING_MIN_SLOPE})")  # fmt: skip
    n_best = sum(v.holds for v in best)
    n_judged = sum(v.verdict not in ("not comparable", "inconclusive") for v in best)
    open_ = sum(v.verdict == "inconclusive" for v in best)
    k = min((v.repeats for v in best if v.verdict != "not comparable"), default=0)
    if not best or n_judged + open_ == 0:
        most: Verdict = not_comparable("no Fig. 11 runs with repeated measurements")
    elif n_best > len(best) / 2:
        most = Verdict(
            "holds", f"hybrid best in more than half of (set, N): {n_best}/{len(best)}", k
        )
    elif n_best + open_ > len(best) / 2:
        most = Verdict("inconclusive", f"hybrid best in {n_best}/{len(best)} (set, N), "
                       f"{open_} undecided", k)  # fmt: skip
    else:
        most = Verdict("partly" if n_best else "fails",
                       f"hybrid best in {n_best}/{len(best)} (set, N)", k)  # fmt: skip
    return [
        ROWS["c12_scalability"].row(
            "; ".join(got) or "not measured",
            share_measured(scal, rule=rule),
            "each worker's replay is timed alone (the machine's timing lock), so the "
            "busiest worker's time falls as work is spread, as on separate instances",
        ),
        ROWS["c12_hybrid_best_most"].row(
            f"best (intervals separate) in {n_best}/{len(best)} (set, workers)", most
        ),
    ]


def _fmt_gap(g: tuple[float, float, float]) -> str:
    return f"{g[0]:+.2f} [{g[1]:+.2f}, {g[2]:+.2f}]"


def fig11_worst_rows(
    fig11: pd.DataFrame, panels: dict[str, tuple[str, str]] | None = None
) -> list[dict]:
    """Sect. VI-C, Fig. 11(a)-(b): metric scales worst on UK-Q1 (a), kd-tree worst in (b)
    (read as UK-Q2): the algorithm with the smallest scaling slope. Paired by stream: on
    every seed both ran, the named algorithm's slope minus each other's (:func:`_slope_gap`),
    holds if every such difference's t interval lies below 0, fails if one lies above;
    a frame of one stream compares the slopes' own intervals. Not comparable when the
    notebook's Fig. 11 does not run that set. ``panels``: the sets of the panels, default
    :data:`FIG11_PANELS` (:data:`FIG11_PANELS_ALTERNATIVE` under ``ROUTELAB_READING=fig11``)."""
    panels = pick("fig11", FIG11_PANELS, FIG11_PANELS_ALTERNATIVE) if panels is None else panels
    out = []
    for panel, worst in (("a", "metric"), ("b", "kd-tree")):
        c, q = panels[panel]
        # the panel's set is in the measured text, not the claim: a run under the other
        # reading of the panels (ROUTELAB_READING=fig11) grades the same row
        slopes = {a: _scaling(fig11, c, q, a) for a in COMPARED}
        if any(np.isnan(s[0]) for s in slopes.values()):
            out.append(
                ROWS["fig11_worst_scaling"].row(
                    "not measured",
                    not_comparable(f"this profile's Fig. 11 does not run {_name(c, q)}"),
                    worst=worst,
                    panel=panel,
                )
            )
            continue
        others = [a for a in COMPARED if a != worst]
        gaps = {o: _slope_gap(fig11, c, q, worst, o) for o in others}
        if any(np.isnan(g[1]) for g in gaps.values()):  # one stream: the slopes' intervals
            below = [slopes[worst][2] < slopes[o][1] for o in others]
            above = [slopes[worst][1] > slopes[o][2] for o in others]
            rule = "holds if its slope's interval lies below each other's"
        else:
            below = [gaps[o][2] < 0 for o in others]
            above = [gaps[o][1] > 0 for o in others]
            rule = ("holds if, paired by stream, its slope minus each other's has its interval "
                    "below 0: " + "; ".join(f"{worst} - {o} {_fmt_gap(g)}"
                                            for o, g in gaps.items()))  # fmt: skip
        k = min(s[3] for s in slopes.values())
        v = Verdict("holds" if all(below) else "fails" if any(above) else "inconclusive", rule, k)
        out.append(
            ROWS["fig11_worst_scaling"].row(
                f"{_name(c, q)}: "
                + ", ".join(f"{a} {s[0]:.2f}" for a, s in slopes.items())
                + " (slopes)",
                v,
                worst=worst,
                panel=panel,
            )
        )
    return out


def adjustment_rows() -> list[dict]:
    """Sect. VI-D's claims, graded in notebook 12 (listed here, not comparable)."""
    return unmeasured_rows(
        ROWS,
        "elsewhere",
        "graded in notebook 12 (12_ps2stream_adjustment), which runs the local adjustment",
    )


def all_rows(
    fig6: pd.DataFrame,
    fig7: pd.DataFrame,
    fig11: pd.DataFrame,
    model_fit: pd.DataFrame | None = None,
    kind_errors: pd.DataFrame | None = None,
    c_paper: float = C_PAPER_US,
    vmap: pd.DataFrame | None = None,
    with_map: bool = True,
) -> list[dict]:
    """Every row of notebook 11's table, in the paper's order.

    A timing row is graded on the work-dominated sets only (:mod:`routelab.spatial.lab.regime`:
    fixed-cost share, busy time, seeds; the gate fails closed), twice: on this engine
    (``c = 0``) and at the paper's per-message cost (``c = c_paper`` µs added per message
    to the measured busy times). The second is the row's verdict, labelled as measured work
    plus modelled platform cost; the note gives the first and the flip point ``c*``
    (:func:`routelab.spatial.lab.regime.flip_points`). With no set work-dominated a timing
    row is "not comparable" with the measured reason.

    ``vmap``: the verdict map of the same frames if computed already
    (:func:`engine_and_paper_table`; it grades every row at ten costs); ``with_map=False``
    grades without one (flip points "not mapped"; for a reading's alternative, whose
    verdicts alone are read)."""
    check_cost(c_paper)
    frames = (fig6, fig7, fig11)
    full = _rows(*frames, model_fit, kind_errors)
    kept, grade = _work_dominated(frames, model_fit, kind_errors)
    reason = regime_reason(*frames)
    if not any(len(k) for k in kept):
        return outside_regime(full, reason or "no runs")
    engine = grade(*kept)
    paper = grade(*(at_cost(k, c_paper) for k in kept))
    if vmap is None and with_map:
        vmap = verdict_map(grade, kept)
    if vmap is None:
        vmap = pd.DataFrame(columns=["claim", "c_us", "verdict", "rule", "measured"])
    flips = flip_points(vmap, c_paper).set_index("claim")
    left = f"; left out (not work-dominated): {reason}" if reason else ""
    rows = []
    for f, e, p in zip(full, engine, paper, strict=True):
        if not f.get("timing") or f["verdict"].verdict == "not comparable":
            rows.append(f)
            continue
        fl = flips.loc[p["claim"]] if p["claim"] in flips.index else None
        flip = fl["flip"] if fl is not None else "not mapped"
        p = dict(p)
        p["measured"] = (
            f"at the paper's per-message cost (measured work + modelled {c_paper:g} µs per "
            f"message): {p.get('measured', '')} | on this engine (c = 0): "
            f"{e['verdict'].verdict}; {e.get('measured', '')}"
        )
        note = p.get("note", "")
        p["note"] = (note + "; " if note else "") + (
            f"verdict at c = {c_paper:g} µs per message (the paper's platform cost, "
            f"READINGS.md); on this engine: {e['verdict'].verdict}; flip point c*: {flip}"
            + reading_note(vmap, p["claim"], p["verdict"].verdict)
            + left
        )
        rows.append(p)
    return rows


def engine_and_paper_table(
    fig6: pd.DataFrame,
    fig7: pd.DataFrame,
    fig11: pd.DataFrame,
    model_fit: pd.DataFrame | None = None,
    kind_errors: pd.DataFrame | None = None,
    c_paper: float = C_PAPER_US,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The regime map of every timing row on the work-dominated sets: the verdict map along
    ``c`` (:func:`routelab.spatial.lab.regime.verdict_map`) and its flip points."""
    kept, grade = _work_dominated((fig6, fig7, fig11), model_fit, kind_errors)
    vmap = verdict_map(grade, kept)
    return vmap, flip_points(vmap, c_paper)


def _work_dominated(frames: tuple[pd.DataFrame, ...], model_fit: pd.DataFrame | None,
                    kind_errors: pd.DataFrame | None):  # fmt: skip  # noqa: ANN202
    """The frames cut to their work-dominated sets and the grading of every row on such
    frames (the cost-model fit cut alike)."""
    table = regime_table(*frames)
    kept = tuple(in_regime(f, table) for f in frames)
    fit_k, err_k = (_keep_sets(x, table) for x in (model_fit, kind_errors))

    def grade(*fs: pd.DataFrame) -> list[dict]:
        return _rows(*fs, fit_k, err_k)

    return kept, grade


def _keep_sets(frame: pd.DataFrame | None, table: pd.DataFrame) -> pd.DataFrame | None:
    """The rows of a per-set frame (the cost-model fit) on work-dominated sets."""
    if frame is None or not len(frame) or not len(table):
        return frame
    return in_regime(frame, table)


def _rows(
    fig6: pd.DataFrame,
    fig7: pd.DataFrame,
    fig11: pd.DataFrame,
    model_fit: pd.DataFrame | None = None,
    kind_errors: pd.DataFrame | None = None,
) -> list[dict]:
    return [
        *workload_rows(fig7),
        hybrid_is_hybrid(fig7),
        *([cost_model_row(model_fit, kind_errors)] if model_fit is not None else []),
        c1_space_beats_text_on_q1(fig6),
        c2_text_beats_space_on_q2(fig6),
        c3_best_baselines(fig6),
        c4_hybrid_best(fig7),
        c5_hybrid_q3(fig7),
        c6_q1_order(fig7),
        c7_q2_order(fig7),
        fig8_hybrid_lowest_latency(fig7),
        c8_kd_latency_q2(fig7),
        c9_metric_latency(fig7, tol=pick("similar", C9_TOL, C9_TOL_ALTERNATIVE)),
        *c10_dispatcher_memory(fig7),
        c11_worker_memory(fig7),
        *c12_scalability(fig11),
        *fig11_worst_rows(fig11),
        *adjustment_rows(),
    ]


def posting_units_row(posting: pd.DataFrame, paper_units: pd.DataFrame) -> dict:
    """Beyond the paper: does hybrid still win once every partitioner balances what the
    workers pay, an update charged per GI2 posting (cells x keys) instead of per query
    (``CostParams(update_unit="posting")``)? Per set built both ways (the Q3 sets), hybrid's
    throughput against metric's and kd-tree's among the posting-unit builds, on the paired
    replays of the work-dominated sets (the regime gate of :mod:`routelab.spatial.lab.regime`),
    on this engine (``c = 0``); the paper-unit builds' verdict beside it."""
    if posting is None or not len(posting):
        return ROWS["posting_units_hybrid_best"].row(
            "not measured", not_comparable("no runs built with posting units")
        )
    kept = in_regime(posting)
    if not len(kept):
        return ROWS["posting_units_hybrid_best"].row(
            "not measured", not_comparable(f"not work-dominated: {regime_reason(posting)}")
        )
    per = _best_per_set(kept, "throughput_runs", True)
    v = share_measured([x for _, x in per], rule="sets where hybrid's throughput is highest "
                       "among the posting-unit builds")  # fmt: skip
    sets = _sets(kept)
    base = paper_units[
        [(c, q) in sets for c, q in zip(paper_units.country, paper_units.query_set, strict=True)]
    ] if len(paper_units) else paper_units  # fmt: skip
    then = _best_per_set(in_regime(base), "throughput_runs", True) if len(base) else []
    med = "; ".join(
        f"{_name(c, q)}: " + ", ".join(f"{a} {_med(_runs(kept, c, q, a)):,.0f}" for a in COMPARED)
        for c, q in sets
    )
    return ROWS["posting_units_hybrid_best"].row(
        "posting units: "
        + "; ".join(f"{n}: {x.verdict}" for n, x in per)
        + f" ({med} tuples/s, medians) | paper's units on the same sets: "
        + ("; ".join(f"{n}: {x.verdict}" for n, x in then) or "not measured"),
        v,
        "every partitioner (hybrid, metric, kd-tree) rebuilt on the same stream and "
        "sample with c_ins = c_del = 1 per posting (READINGS.md); graded on this engine's "
        "clock; a row about our reading, not counted in the paper's tally",
    )


#: the reading of READINGS.md that :func:`with_posting_units` switches
UPDATE_UNIT_READING = "Updates per query or per posting"


def with_posting_units(fig7: pd.DataFrame, posting: pd.DataFrame) -> pd.DataFrame:
    """Fig. 7's runs under the other reading of the update unit: the sets built both ways
    (``posting``: the partitioners rebuilt with ``CostParams(update_unit="posting")``)
    take their posting-unit runs in place of the paper-unit ones, at Fig. 7's worker
    counts; the other sets stay. The claims graded on it say where the reading decides a
    row (:func:`routelab.claims.name_deciding_reading`)."""
    if posting is None or not len(posting):
        return fig7
    sets = set(zip(posting.country, posting.query_set, strict=True))
    built = [(c, q) in sets for c, q in zip(fig7.country, fig7.query_set, strict=True)]
    alt = posting[posting.n_workers.isin(fig7.n_workers.unique())]
    return pd.concat([fig7[~np.asarray(built, dtype=bool)], alt], ignore_index=True)


def rows_with_readings(
    fig6: pd.DataFrame,
    fig7: pd.DataFrame,
    fig11: pd.DataFrame,
    posting: pd.DataFrame | None,
    model_fit: pd.DataFrame | None = None,
    kind_errors: pd.DataFrame | None = None,
    c_paper: float = C_PAPER_US,
    vmap: pd.DataFrame | None = None,
) -> list[dict]:
    """:func:`all_rows`, each row's note naming the update-unit reading where the
    posting-unit builds (:func:`with_posting_units`) give it another verdict (``vmap``:
    the default's verdict map if computed already)."""
    rows = all_rows(fig6, fig7, fig11, model_fit, kind_errors, c_paper=c_paper, vmap=vmap)
    if posting is None or not len(posting):
        return rows
    alt = all_rows(fig6, with_posting_units(fig7, posting), fig11, model_fit, kind_errors,
                   c_paper=c_paper, with_map=False)  # fmt: skip
    sets = ", ".join(sorted({f"{c}-{q}" for c, q in zip(posting.country, posting.query_set,
                                                          strict=True)}))  # fmt: skip
    return name_deciding_reading(rows, alt, UPDATE_UNIT_READING,
                                 f"updates charged per posting, on {sets}")  # fmt: skip


def claims_from_runs(
    runs: pd.DataFrame,
    workers: int,
    scal_countries: list[str],
    costs: CostParams,
    c_paper: float = C_PAPER_US,
    clock: object | None = None,
    vmap: pd.DataFrame | None = None,
) -> list[dict]:
    """Notebook 11's whole claims table from its runs: the rows of
    :func:`rows_with_readings` and the posting-units row, on :func:`split_runs`'s frames
    and the cost model's fit against the clock. The notebook grades its sweep with this; a
    reader regrades a saved run with it (``pd.read_parquet("<figures>/11_ps2stream_partitioning/runs.parquet")``).
    ``clock``: the notebook's :func:`~routelab.spatial.lab.partitioning.cost_clock.against_the_clock`
    of the same runs, and ``vmap`` its verdict map (:func:`engine_and_paper_table`), if
    computed already."""
    from routelab.spatial.lab.partitioning import cost_clock
    from routelab.spatial.lab.partitioning.experiments import split_runs

    f = split_runs(runs, workers, scal_countries)
    clock = clock or cost_clock.against_the_clock(f.main, costs)
    rows = rows_with_readings(f.fig6, f.fig7, f.fig11, f.posting, clock.fit, clock.errors,
                              c_paper=c_paper, vmap=vmap)  # fmt: skip
    return [*rows, posting_units_row(f.posting, f.fig7)]
