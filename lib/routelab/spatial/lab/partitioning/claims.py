"""Notebook 11's claims table: PS2Stream's claims (Sects. I, III, VI-B, VI-C) against ours.

Rows, rules and texts are declared in ``claims.toml``; the tolerances are the constants below,
fixed before any run. The paper's 32-instance Storm cluster against our one 2-core machine: a
sized effect is judged within a factor, otherwise by direction. Throughput is the busiest
worker's measured rate (``experiments.py``); a timing row is judged on the paired replays
(every replay of every seed) with their intervals (:mod:`routelab.claims`), "inconclusive"
where they do not separate. A set is named as in the paper (GB is "UK")."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd

from routelab import claims
from routelab.claims import Verdict, not_comparable, slope_interval
from routelab.errors import BadInputError
from routelab.readings import pick
from routelab.spatial.cost import CostParams
from routelab.spatial.lab import regime
from routelab.spatial.lab.regime import C_PAPER_US, in_regime, regime_reason

#: the rows, declared once (claims.toml beside this module)
ROWS = claims.declarations(__file__)

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
#: "the model predicts the clock": R^2 of the workers' busy time on the balanced load
MODEL_R2 = 0.8
TEXT = ("frequency", "hypergraph", "metric")
SPACE = ("grid", "kd-tree", "r-tree")
COMPARED = ("hybrid", "metric", "kd-tree")
ORDERED = ("hybrid", "kd-tree", "metric")  # the algorithms of Fig. 7's rankings (C6, C7)
#: Fig. 11's panels: (a) is STS-UK-Q1 (stated); (b) and (c) read as UK-Q2 and UK-Q3
FIG11_PANELS = {"a": ("GB", "Q1"), "b": ("GB", "Q2"), "c": ("GB", "Q3")}
#: the other reading (``ROUTELAB_READING=fig11``): (b) is UK-Q3 and (c) UK-Q2
FIG11_PANELS_ALTERNATIVE = {"a": ("GB", "Q1"), "b": ("GB", "Q3"), "c": ("GB", "Q2")}
#: the reading of READINGS.md that :func:`with_posting_units` switches
UPDATE_UNIT_READING = "Updates per query or per posting"


def _of(df: pd.DataFrame, s: tuple, alg: str) -> pd.DataFrame:
    return df[(df.country == s[0]) & (df.query_set == s[1]) & (df.algorithm == alg)]


def _val(df: pd.DataFrame, s: tuple, alg: str, metric: str) -> float:
    x = _of(df, s, alg)[metric]
    return float(x.mean()) if len(x) else float("nan")


def _runs(df: pd.DataFrame, s: tuple, alg: str, column: str = "throughput_runs") -> np.ndarray:
    """The repeated measurements of one (set, algorithm): every replay of every seed, in
    (seed, replay) order, so the same position pairs across algorithms of one stream.
    Frames without the per-replay column give one value per seed."""
    d = _of(df, s, alg)
    d = d.sort_values("seed") if "seed" in d.columns else d
    if column in d.columns:
        return np.array([x for runs in d[column] for x in runs], dtype=np.float64)
    scalar = column.replace("_runs", "") if column != "latency_runs" else "latency_us"
    return d[scalar].to_numpy(np.float64) if scalar in d.columns else np.array([])


def _med(x: np.ndarray) -> float:
    return float(np.median(x)) if len(x) else float("nan")


def _sets(df: pd.DataFrame, q: str | None = None) -> list[tuple[str, str]]:
    """The (country, query set) pairs of ``df``, sorted; ``q``: of that query set only."""
    sets = set(zip(df.country, df.query_set, strict=True))
    return sorted(s for s in sets if q is None or s[1] == q)


def _name(c: str, q: str) -> str:
    return f"{'UK' if c == 'GB' else c}-{q}"


def _samples(df: pd.DataFrame, s: tuple, algs: tuple, column: str = "throughput_runs") -> dict:
    """The repeated measurements of each of ``algs`` measured on set ``s``."""
    samples = {a: _runs(df, s, a, column) for a in algs}
    return {a: x for a, x in samples.items() if len(x)}


def _paired(df: pd.DataFrame, s: tuple, x: str, y: str, column: str = "throughput_runs") -> tuple:
    """The replays of ``x`` and ``y`` on set ``s``, paired; () unless both are measured alike."""
    a, b = _runs(df, s, x, column), _runs(df, s, y, column)
    return (a, b) if len(a) and len(a) == len(b) else ()


def _ratio(df: pd.DataFrame, s: tuple, x: str, y: str, column: str = "throughput_runs") -> float:
    """``x``'s median ``column`` over ``y``'s on set ``s``."""
    return _med(_runs(df, s, x, column)) / _med(_runs(df, s, y, column))


def _beats(df: pd.DataFrame, q: str, pairs: tuple) -> list[Verdict]:
    """On each ``q`` set, each (x, y) of ``pairs``: x's throughput above y's; a pair not
    measured alike there (one missing, or other replay counts) is counted, not comparable,
    so a share or combination over the pairs says how many it rests on. Empty if no pair is
    measured alike anywhere."""
    cases = [(s, x, y, _paired(df, s, x, y)) for s in _sets(df, q) for x, y in pairs]
    if not any(p for *_, p in cases):
        return []
    return [
        claims.direction_measured(*p, expected="above")
        if p
        else not_comparable(f"{x} and {y} not measured alike on {_name(*s)}")
        for s, x, y, p in cases
    ]


def _top(
    df: pd.DataFrame, s: tuple, metric: str, best: Callable = max, algs: tuple = COMPARED
) -> str:
    """The algorithm of ``algs`` with the highest (``best=min``: lowest) ``metric`` on set ``s``."""
    return best(algs, key=lambda a: _val(df, s, a, metric))


def _wins(df: pd.DataFrame, metric: str, best: Callable = max) -> int:
    """The sets where hybrid's ``metric`` is the highest (``best=min``: lowest) of COMPARED."""
    return sum(_top(df, s, metric, best) == "hybrid" for s in _sets(df))


def _each_set(df: pd.DataFrame, metric: str, fmt: str, algs: tuple = ("hybrid",)) -> str:
    """``<set> <value>`` per set, the values of ``algs`` joined by "/" (sets joined by ", ",
    by "; " if several ``algs``); "" without ``metric``."""
    if metric not in df.columns:
        return ""
    return (", " if len(algs) == 1 else "; ").join(
        f"{_name(*s)} " + "/".join(format(_val(df, s, a, metric), fmt) for a in algs)
        for s in _sets(df)
    )


def _medians(df: pd.DataFrame, sets: list[tuple[str, str]], algs: tuple) -> str:
    """Each of ``sets``' median throughput of each of ``algs``."""
    return "; ".join(
        f"{_name(*s)}: " + ", ".join(f"{a} {_med(_runs(df, s, a)):,.0f}" for a in algs)
        for s in sets
    )


def _costs(df: pd.DataFrame, s: tuple, algs: tuple[str, ...]) -> str:
    """The duplication behind a comparison: each algorithm's routed copies and total cost."""
    if not {"copies", "total_cost", "load_imbalance"} <= set(df.columns):
        return ""
    return f"{_name(*s)}: " + "; ".join(
        f"{a} {_val(df, s, a, 'copies'):,.0f} copies / cost {_val(df, s, a, 'total_cost'):,.0f}"
        f" / max/mean {_val(df, s, a, 'load_imbalance'):.2f}"
        for a in algs
    )


def _families(
    df: pd.DataFrame, q: str, better: tuple, worse: tuple, sized: tuple, paper: float, tol: float
) -> tuple[Verdict, str]:
    """Rows C1, C2: every ``better`` baseline beats every ``worse`` one on each ``q`` set,
    sized by US-``q``'s ``sized`` pair (its paired replays within ``tol`` of ``paper``)."""
    us = ("US", q)
    if paired := _paired(df, us, *sized):
        size = claims.within_factor_measured(*paired, paper, tol)
        fast, slow = (_val(df, us, x, "model_throughput") for x in sized)
        measured = f"{_ratio(df, us, *sized):.2f}x on {_name(*us)} (model {fast / slow:.2f}x)"
    else:
        size = not_comparable(f"{sized[0]} and {sized[1]} not both measured on {_name(*us)}")
        measured = ""
    if verdicts := _beats(df, q, tuple(product(better, worse))):
        rule = f"(better, worse) pairs on every {q} set where the better's throughput is higher"
        family = claims.share_measured(verdicts, rule=rule)
        got = _medians(df, _sets(df, q), better + worse) + " tuples/s (medians)"
    else:
        family, got = not_comparable(f"no {q} runs of both families"), "not measured"
    return claims.combine([family, size]), f"{measured}; {got}"


def c1_space_beats_text_on_q1(fig6: pd.DataFrame) -> dict:
    """Row ``c1_space_beats_text_on_q1`` (claims.toml)."""
    row, pair = ROWS["c1_space_beats_text_on_q1"], ("grid", "frequency")
    v, measured = _families(fig6, "Q1", SPACE, TEXT, pair, C1_PAPER, RATIO_TOL)
    why = row.text("why") if v.verdict in ("holds", "direction only") else row.text("offset")
    return row.row(measured, v, _costs(fig6, ("US", "Q1"), pair) + why, C1_PAPER=C1_PAPER)


def c2_text_beats_space_on_q2(fig6: pd.DataFrame) -> dict:
    """Row ``c2_text_beats_space_on_q2`` (claims.toml)."""
    row, pair = ROWS["c2_text_beats_space_on_q2"], ("metric", "r-tree")
    v, measured = _families(fig6, "Q2", TEXT, SPACE, pair, C2_PAPER, C2_TOL)
    why = row.text("less") if v.verdict in ("fails", "partly") else row.text("why")
    return row.row(measured, v, _costs(fig6, ("US", "Q2"), pair) + why, C2_PAPER=C2_PAPER)


def c3_best_baselines(fig6: pd.DataFrame) -> dict:
    """Row ``c3_best_baselines`` (claims.toml)."""
    row, verdicts, got, model = ROWS["c3_best_baselines"], [], [], []
    for s in _sets(fig6):
        for family, algs, winner in (("text", TEXT, "metric"), ("space", SPACE, "kd-tree")):
            samples = _samples(fig6, s, algs)
            verdicts.append(claims.best_measured(samples, winner))
            best = max(samples, key=lambda a, x=samples: _med(x[a])) if samples else "-"
            got.append(row.text("case", set=_name(*s), family=family, best=best))
        top = ", ".join(_top(fig6, s, "model_throughput", max, algs) for algs in (TEXT, SPACE))
        model.append(row.text("model", set=_name(*s), top=top))
    v = claims.share_measured(verdicts, rule="(set, family) cases where the paper's winner is best")
    return row.graded(v, row.text("note", model="; ".join(model)), cases="; ".join(got))


def _hybrid_best(
    df: pd.DataFrame, rule: str = "", column: str = "throughput_runs", higher: bool = True
) -> tuple[Verdict, str]:
    """Per set, is hybrid's ``column`` the highest (``higher=False``: lowest) of COMPARED's on
    the paired replays: the verdict over the sets (``rule``) and each set's, as text."""
    per = [
        (s, claims.best_measured(_samples(df, s, COMPARED, column), "hybrid", higher=higher))
        for s in _sets(df)
    ]
    text = "; ".join(f"{_name(*s)}: {v.verdict}" for s, v in per)
    return claims.share_measured([v for _, v in per], rule=rule), text


def c4_hybrid_best(fig7: pd.DataFrame) -> dict:
    """Row ``c4_hybrid_best`` (claims.toml)."""
    row = ROWS["c4_hybrid_best"]
    v, verdicts = _hybrid_best(fig7, "sets where hybrid's throughput is highest")
    n = {"model": _wins(fig7, "model_throughput"), "total": len(_sets(fig7))}
    busy = _each_set(fig7, "busy_imbalance", ".2f")
    note = row.text("leads") if v.holds else row.text("uneven", busy=busy, **n)
    return row.graded(v, note, verdicts=verdicts, **n)


def c5_hybrid_q3(fig7: pd.DataFrame) -> dict:
    """Row ``c5_hybrid_q3`` (claims.toml): hybrid against the better (higher median) rival."""
    row, verdicts, got = ROWS["c5_hybrid_q3"], [], []
    for s in _sets(fig7, "Q3"):
        rival = max(("metric", "kd-tree"), key=lambda a, s=s: _med(_runs(fig7, s, a)))
        if paired := _paired(fig7, s, "hybrid", rival):
            verdicts.append(claims.within_factor_measured(*paired, C5_PAPER, C5_TOL))
            ratio = _med(paired[0]) / _med(paired[1])
            got.append(row.text("case", set=_name(*s), ratio=ratio, rival=rival))
    v = claims.combine(verdicts) if verdicts else not_comparable("no Q3 runs")
    return row.row("; ".join(got) or "not measured", v, _costs(fig7, ("GB", "Q3"), COMPARED))


def _order_row(fig7: pd.DataFrame, key: str, q: str, pairs: tuple, measured: str) -> dict:
    """Rows C6, C7: on every ``q`` set the first of each pair beats the second."""
    vs = _beats(fig7, q, pairs)
    v = claims.combine(vs) if vs else not_comparable(f"no {q} runs")
    return ROWS[key].row(measured, v, _costs(fig7, ("US", q), ORDERED))


def c6_q1_order(fig7: pd.DataFrame) -> dict:
    """Row ``c6_q1_order`` (claims.toml)."""
    pairs = (("hybrid", "kd-tree"), ("kd-tree", "metric"))
    medians = _medians(fig7, _sets(fig7, "Q1"), ORDERED)
    measured = ROWS["c6_q1_order"].text("measured", medians=medians)
    return _order_row(fig7, "c6_q1_order", "Q1", pairs, measured)


def c7_q2_order(fig7: pd.DataFrame) -> dict:
    """Row ``c7_q2_order`` (claims.toml)."""
    row, pairs, got = ROWS["c7_q2_order"], (("hybrid", "kd-tree"), ("metric", "kd-tree")), []
    for s in _sets(fig7, "Q2"):
        got.append(row.text("case", set=_name(*s), **{x: _ratio(fig7, s, x, y) for x, y in pairs}))
    return _order_row(fig7, "c7_q2_order", "Q2", pairs, "; ".join(got))


def fig8_hybrid_lowest_latency(fig7: pd.DataFrame) -> dict:
    """Row ``fig8_hybrid_lowest_latency`` (claims.toml)."""
    rule = "sets where hybrid's latency is lowest"
    v, verdicts = _hybrid_best(fig7, rule, "latency_runs", higher=False)
    return ROWS["fig8_hybrid_lowest_latency"].row(verdicts, v)


def c8_kd_latency_q2(fig7: pd.DataFrame) -> dict:
    """Row ``c8_kd_latency_q2`` (claims.toml)."""
    row, vs, got = ROWS["c8_kd_latency_q2"], [], []
    for s, other in product(_sets(fig7, "Q2"), ("hybrid", "metric")):
        if paired := _paired(fig7, s, "kd-tree", other, "latency_runs"):
            vs.append(claims.within_factor_measured(*paired, C8_PAPER, C8_TOL))
            ratio = _med(paired[0]) / _med(paired[1])
            got.append(row.text("case", set=_name(*s), other=other, ratio=ratio))
    v = claims.combine(vs) if vs else not_comparable("no Q2 latencies")
    return row.row("; ".join(got) or "not measured", v, C8_PAPER=C8_PAPER)


def c9_metric_latency(fig7: pd.DataFrame, tol: float = C9_TOL) -> dict:
    """Row ``c9_metric_latency`` (claims.toml)."""
    row, vs, got = ROWS["c9_metric_latency"], [], []
    for s in _sets(fig7):
        if not (paired := _paired(fig7, s, "metric", "hybrid", "latency_runs")):
            continue
        m, h = paired
        got.append(row.text("case", set=_name(*s), ratio=_med(m) / _med(h)))
        if s == ("GB", "Q1"):  # the exception: metric far larger, beyond the similar band
            vs.append(claims.direction_measured(m, h * tol, expected="above"))
        else:
            log = np.log(m / h)
            v = claims.equivalent(*claims.t_interval(log), float(np.log(tol)), repeats=len(m))
            vs.append(v if len(m) >= 3 else not_comparable(f"{v.rule}; fewer than 3 repeats"))
    v = claims.share_measured(vs, rule="sets as the paper says (similar; UK-Q1 larger)")
    return row.graded(v, ratios="; ".join(got), tol=tol)


def c10_dispatcher_memory(fig7: pd.DataFrame) -> list[dict]:
    """Rows ``c10_dispatcher_memory_bound`` and ``c10_dispatcher_memory_order`` (claims.toml)."""
    row, ratios, got = ROWS["c10_dispatcher_memory_order"], [], []
    for s in _sets(fig7):  # kd-tree least: min(metric, hybrid) / kd-tree above 1
        k, m, h = (_val(fig7, s, a, "dispatcher_mb") for a in ("kd-tree", "metric", "hybrid"))
        ratios.append(min(m, h) / k)
    for c in sorted(set(fig7.country)):  # hybrid's Q2 highest: Q2 / max(Q1, Q3) above 1
        h = {q: _val(fig7, (c, q), "hybrid", "dispatcher_mb") for q in ("Q1", "Q2", "Q3")}
        got.append(row.text("case", dataset=_name(c, ""), **h))
        ratios.append(h["Q2"] / max(h["Q1"], h["Q3"]))
    held = sum(claims.direction(r, neutral=1.0, expected="above").holds for r in ratios)
    most = float(fig7.dispatcher_mb.max())
    limit = f"holds if the largest dispatcher model < {MEMORY_LIMIT_MB:.0f} MB"
    bound = Verdict("holds" if most < MEMORY_LIMIT_MB else "fails", limit)
    rule = "(set) kd-tree least and (dataset) hybrid's Q2 highest"
    note = row.text("note", cells=_each_set(fig7, "text_cells", ",.0f"))
    return [
        ROWS["c10_dispatcher_memory_bound"].graded(bound, mb=most),
        row.row("; ".join(got), claims.share(held, len(ratios), rule=rule), note),
    ]


def c11_worker_memory(fig7: pd.DataFrame) -> dict:
    """Row ``c11_worker_memory`` (claims.toml): "in most cases" is more than half the sets."""
    row, n, wins = ROWS["c11_worker_memory"], len(_sets(fig7)), _wins(fig7, "worker_mb", min)
    rule = (
        "hybrid's worker memory is the smallest of the three on more than half of the cases: "
        f"holds; on some: partly ({wins}/{n})"
    )
    v = Verdict("holds" if wins > n / 2 else ("partly" if wins else "fails"), rule)
    v = v if n else not_comparable("no cases")
    note = row.text("note", mb=_each_set(fig7, "worker_mb", ".2f", COMPARED))
    return row.graded(v, note + ("" if v.holds else row.text("replicated")), wins=wins, n=n)


def workload_rows(fig7: pd.DataFrame) -> list[dict]:
    """Rows ``hybrid_least_workload`` and ``hybrid_balances_load`` (claims.toml)."""
    n, low = len(_sets(fig7)), _wins(fig7, "total_cost", min)
    bal = sum(_val(fig7, s, "hybrid", "load_imbalance") <= BALANCE_SIGMA for s in _sets(fig7))
    low_v = claims.share(low, n, rule="sets where hybrid's total cost is lowest")
    bal_v = claims.share(bal, n, rule=f"sets with max/mean <= {BALANCE_SIGMA}")
    costs = _each_set(fig7, "total_cost", ",.0f", COMPARED)
    loads = _each_set(fig7, "load_imbalance", ".2f")
    return [
        ROWS["hybrid_least_workload"].graded(low_v, low=low, n=n, costs=costs),
        ROWS["hybrid_balances_load"].graded(bal_v, loads=loads, BALANCE_SIGMA=BALANCE_SIGMA),
    ]


def hybrid_is_hybrid(fig7: pd.DataFrame) -> dict:
    """Row ``hybrid_is_hybrid`` (claims.toml)."""
    row = ROWS["hybrid_is_hybrid"]
    if "text_leaves" not in fig7.columns or not len(fig7):
        return row.unmeasured("the runs do not count text-split leaves")
    ok, got, wrong = [], [], []
    for (c, q), g in fig7[fig7.algorithm == "hybrid"].groupby(["country", "query_set"]):
        text, leaves = float(g.text_leaves.mean()), float(g.leaves.mean())
        ok.append(text > 0 if q in ("Q2", "Q3") else text <= leaves / 2)
        got.append(f"{_name(c, q)} {text:.0f}/{leaves:.0f}")
        if not ok[-1]:
            wrong.append(f"{_name(c, q)} ({'no text split' if q != 'Q1' else 'mostly text'})")
    rule = "sets where hybrid splits by text on Q2/Q3 (and mostly by space on Q1)"
    how = row.text("unlike", sets=", ".join(wrong)) if wrong else row.text("like")
    v = claims.share(sum(ok), len(ok), rule=rule)
    return row.graded(v, row.text("note", how=how), leaves=", ".join(got))


def cost_model_row(fit: pd.DataFrame, errors: pd.DataFrame | None = None) -> dict:
    """Row ``cost_model_predicts_time`` (claims.toml); ``fit``:
    :func:`routelab.spatial.lab.partitioning.cost_clock.fit_table`, ``errors``: each tuple
    kind's share of misplaced busy time."""
    row = ROWS["cost_model_predicts_time"]
    if fit is None or not len(fit):
        return row.unmeasured("no per-worker counts")
    rule = f"(set, partitioner) with R^2 >= {MODEL_R2} on the balanced load"
    v = claims.share(int((fit.r2_balanced >= MODEL_R2).sum()), len(fit), rule=rule)
    # a timing row: each R^2 rests on every worker of every seed's run
    v = Verdict(v.verdict, v.rule, int(fit.workers.min()) if "workers" in fit else 0)
    per = fit.groupby("algorithm")[["r2_balanced", "r2_calibrated"]].median()
    medians = ", ".join(f"{a} {bal:.2f} / {cal:.2f}" for a, (bal, cal) in per.iterrows())
    worst = fit.loc[fit.r2_balanced.idxmin()]
    where = {"worst": worst.algorithm, "set": _name(worst.country, worst.query_set)}
    measured = row.text("measured", medians=medians, r2=worst.r2_balanced, **where)
    if "r2_postings" in fit.columns:
        measured += row.text("postings", r2=fit.r2_postings.median())
    note = row.text("note")
    if errors is not None and len(errors):  # the kind whose unit ratio misplaces the most
        med = errors.groupby("kind").error_share.median()
        k = med.abs().idxmax()
        note += row.text("kind", kind=k, way="under" if med[k] < 0 else "over", share=abs(med[k]))
    return row.row(measured, v, note)


def _scaling_obs(fig11: pd.DataFrame, s: tuple, alg: str) -> tuple[list, list, list]:
    """(stream, workers, throughput) of every replay of one (set, algorithm) in Fig. 11."""
    gs, xs, ys = [], [], []
    for _, r in _of(fig11, s, alg).iterrows():
        runs = r["throughput_runs"] if "throughput_runs" in fig11.columns else [r["throughput"]]
        gs += [r["seed"] if "seed" in fig11.columns else 0] * len(runs)
        xs += [r["n_workers"]] * len(runs)
        ys += list(runs)
    return gs, xs, ys


def _scaling(fig11: pd.DataFrame, c: str, q: str, alg: str) -> tuple[float, float, float, int]:
    """The log-log slope of throughput against workers, paired by stream (each seed's own
    slope, their t interval over the seeds); one stream: the interval over its replays."""
    gs, xs, ys = _scaling_obs(fig11, (c, q), alg)
    return slope_interval(xs, ys) if len(set(gs)) < 2 else claims.paired_slope_interval(gs, xs, ys)


def _slope_gap(fig11: pd.DataFrame, s: tuple, a: str, b: str) -> tuple[float, float, float]:
    """(mean, low, high): the t interval of ``a``'s slope minus ``b``'s over the streams
    both ran (paired by seed); NaN with fewer than two such streams."""
    sa, sb = (claims.group_slopes(*_scaling_obs(fig11, s, x)) for x in (a, b))
    common = [k for k in sa if k in sb]
    if len(common) < 2:
        return float("nan"), float("nan"), float("nan")
    return claims.t_interval([sa[k] - sb[k] for k in common])


def c12_scalability(fig11: pd.DataFrame) -> list[dict]:
    """Rows ``c12_scalability`` and ``c12_hybrid_best_most`` (claims.toml)."""
    scales, most = ROWS["c12_scalability"], ROWS["c12_hybrid_best_most"]
    scal, got, best = [], [], []
    for s in _sets(fig11):
        est, lo, hi, k = _scaling(fig11, *s, "hybrid")
        if k:
            got.append(scales.text("case", set=_name(*s), est=est, lo=lo, hi=hi))
        side = "holds" if lo > SCALING_MIN_SLOPE else "fails" if hi < SCALING_MIN_SLOPE else ""
        if np.isnan(est):  # fewer than two worker counts
            side = "not comparable"
        scal.append(Verdict(side or "inconclusive", "the slope's interval against the minimum", k))
        best += [
            claims.best_measured(_samples(fig11[fig11.n_workers == n], s, COMPARED), "hybrid")
            for n in sorted(set(fig11.n_workers))
        ]
    n_best, n_open = sum(v.holds for v in best), sum(v.verdict == "inconclusive" for v in best)
    tally = {"best": n_best, "cases": len(best), "open": n_open}
    k = min((v.repeats for v in best if v.verdict != "not comparable"), default=0)
    if all(v.verdict == "not comparable" for v in best):
        verdict = not_comparable("no Fig. 11 runs with repeated measurements")
    elif n_best > len(best) / 2:
        verdict = Verdict("holds", most.text("rule_holds", **tally), k)
    elif n_best + n_open > len(best) / 2:
        verdict = Verdict("inconclusive", most.text("rule_open", **tally), k)
    else:
        verdict = Verdict("partly" if n_best else "fails", most.text("rule", **tally), k)
    rule = scales.text("rule", min=SCALING_MIN_SLOPE)
    return [
        scales.row("; ".join(got) or "not measured", claims.share_measured(scal, rule=rule)),
        most.graded(verdict, **tally),
    ]


def fig11_worst_rows(
    fig11: pd.DataFrame, panels: dict[str, tuple[str, str]] | None = None
) -> list[dict]:
    """Row ``fig11_worst_scaling`` (claims.toml) for panels (a) and (b). ``panels``: the
    panels' sets, default :data:`FIG11_PANELS` (:data:`FIG11_PANELS_ALTERNATIVE` under
    ``ROUTELAB_READING=fig11``); the set is in the measured text, not the claim, so both
    readings grade the same row."""
    panels = pick("fig11", FIG11_PANELS, FIG11_PANELS_ALTERNATIVE) if panels is None else panels
    row, out = ROWS["fig11_worst_scaling"], []
    for panel, worst in (("a", "metric"), ("b", "kd-tree")):
        s, others = panels[panel], [a for a in COMPARED if a != worst]
        slopes = {a: _scaling(fig11, *s, a) for a in COMPARED}
        if any(np.isnan(x[0]) for x in slopes.values()):
            v = not_comparable(f"this profile's Fig. 11 does not run {_name(*s)}")
            out.append(row.row("not measured", v, worst=worst, panel=panel))
            continue
        gaps = {o: _slope_gap(fig11, s, worst, o) for o in others}
        if any(np.isnan(g[1]) for g in gaps.values()):  # one stream: the slopes' intervals
            below = [slopes[worst][2] < slopes[o][1] for o in others]
            above = [slopes[worst][1] > slopes[o][2] for o in others]
            rule = "holds if its slope's interval lies below each other's"
        else:
            below, above = [gaps[o][2] < 0 for o in others], [gaps[o][1] > 0 for o in others]
            rule = "holds if, paired by stream, its slope minus each other's has its interval "
            rule += "below 0: " + "; ".join(
                f"{worst} - {o} {m:+.2f} [{lo:+.2f}, {hi:+.2f}]" for o, (m, lo, hi) in gaps.items()
            )
        k = min(x[3] for x in slopes.values())
        v = Verdict("holds" if all(below) else "fails" if any(above) else "inconclusive", rule, k)
        text = ", ".join(f"{a} {x[0]:.2f}" for a, x in slopes.items())
        measured = row.text("measured", set=_name(*s), slopes=text)
        out.append(row.row(measured, v, worst=worst, panel=panel))
    return out


def adjustment_rows() -> list[dict]:
    """Sect. VI-D's claims, graded in notebook 12 (listed here, not comparable)."""
    reason = "graded in notebook 12 (12_ps2stream_adjustment), which runs the local adjustment"
    return claims.unmeasured_rows(ROWS, "elsewhere", reason)


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
    """Every row of notebook 11's table, in the paper's order. A timing row is graded on the
    work-dominated sets only (:mod:`routelab.spatial.lab.regime`; the gate fails closed),
    twice: on this engine (``c = 0``) and, its verdict, at the paper's per-message cost
    (``c_paper`` µs per message added to the measured busy times); the note gives the first
    and the flip point ``c*``. ``vmap``: the verdict map of the same frames if computed
    already (:func:`engine_and_paper_table`); ``with_map=False`` grades without one (flip
    points "not mapped"; for a reading's alternative, whose verdicts alone are read)."""
    regime.check_cost(c_paper)
    frames = (fig6, fig7, fig11)
    full = _rows(*frames, model_fit, kind_errors)
    kept, grade = _work_dominated(frames, model_fit, kind_errors)
    reason = regime_reason(*frames)
    if not any(len(k) for k in kept):
        return claims.outside_regime(full, reason or "no runs")
    engine, paper = grade(*kept), grade(*(regime.at_cost(k, c_paper) for k in kept))
    if vmap is None:
        empty = pd.DataFrame(columns=["claim", "c_us", "verdict", "rule", "measured"])
        vmap = regime.verdict_map(grade, kept) if with_map else empty
    flips = regime.flip_points(vmap, c_paper).set_index("claim").flip
    left = f"; left out (not work-dominated): {reason}" if reason else ""
    rows = []
    for f, e, p in zip(full, engine, paper, strict=True):
        if not f.get("timing") or f["verdict"].verdict == "not comparable":
            rows.append(f)
            continue
        here, note = e["verdict"].verdict, p.get("note", "")
        measured = (
            f"at the paper's per-message cost (measured work + modelled {c_paper:g} µs per "
            f"message): {p.get('measured', '')} | on this engine (c = 0): {here}; "
            f"{e.get('measured', '')}"
        )
        note = (note + "; " if note else "") + (
            f"verdict at c = {c_paper:g} µs per message (the paper's platform cost, "
            f"READINGS.md); on this engine: {here}; flip point c*: "
            f"{flips.get(p['claim'], 'not mapped')}"
            + regime.reading_note(vmap, p["claim"], p["verdict"].verdict)
            + left
        )
        rows.append({**p, "measured": measured, "note": note})
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
    vmap = regime.verdict_map(grade, kept)
    return vmap, regime.flip_points(vmap, c_paper)


def _work_dominated(frames: tuple[pd.DataFrame, ...], model_fit: pd.DataFrame | None,
                    kind_errors: pd.DataFrame | None):  # fmt: skip  # noqa: ANN202
    """The frames cut to their work-dominated sets and the grading of every row on such
    frames (the cost-model fit cut alike)."""
    table = regime.regime_table(*frames)
    kept = tuple(in_regime(f, table) for f in frames)
    fit_k, err_k = (
        x if x is None or not len(x) or not len(table) else in_regime(x, table)
        for x in (model_fit, kind_errors)
    )
    return kept, partial(_rows, model_fit=fit_k, kind_errors=err_k)


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


def _on_sets(df: pd.DataFrame, sets: set | list) -> np.ndarray:
    """Which of ``df``'s runs are on one of ``sets`` ((country, query set) pairs)."""
    return np.array([s in sets for s in zip(df.country, df.query_set, strict=True)], dtype=bool)


def posting_units_row(posting: pd.DataFrame, paper_units: pd.DataFrame) -> dict:
    """Row ``posting_units_hybrid_best`` (claims.toml), beyond the paper: graded on this
    engine's clock (``c = 0``), the paper-unit builds' verdicts on the same sets beside it."""
    row = ROWS["posting_units_hybrid_best"]
    if posting is None or not len(posting):
        return row.unmeasured("no runs built with posting units")
    if not len(kept := in_regime(posting)):
        return row.unmeasured(f"not work-dominated: {regime_reason(posting)}")
    base = paper_units[_on_sets(paper_units, _sets(kept))] if len(paper_units) else paper_units
    rule = "sets where hybrid's throughput is highest among the posting-unit builds"
    v, now = _hybrid_best(kept, rule)
    then = _hybrid_best(in_regime(base))[1] if len(base) else ""
    medians = _medians(kept, _sets(kept), COMPARED)
    return row.graded(v, row.text("note"), now=now, medians=medians, then=then or "not measured")


def with_posting_units(fig7: pd.DataFrame, posting: pd.DataFrame) -> pd.DataFrame:
    """Fig. 7's runs under the other reading of the update unit: the sets built both ways
    (``posting``: the partitioners rebuilt with ``CostParams(update_unit="posting")``)
    take their posting-unit runs in place of the paper-unit ones, at Fig. 7's worker
    counts; the other sets stay."""
    if posting is None or not len(posting):
        return fig7
    alt = posting[posting.n_workers.isin(fig7.n_workers.unique())]
    return pd.concat([fig7[~_on_sets(fig7, set(_sets(posting)))], alt], ignore_index=True)


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
    sets = ", ".join(sorted(f"{c}-{q}" for c, q in _sets(posting)))
    return claims.name_deciding_reading(
        rows, alt, UPDATE_UNIT_READING, f"updates charged per posting, on {sets}"
    )


def claims_from_runs(
    runs: pd.DataFrame,
    workers: int,
    scal_countries: list[str],
    costs: CostParams,
    c_paper: float = C_PAPER_US,
    clock: object | None = None,
    vmap: pd.DataFrame | None = None,
) -> list[dict]:
    """Notebook 11's whole claims table from its runs (a reader regrades a saved run with
    ``pd.read_parquet("<figures>/11_ps2stream_partitioning/runs.parquet")``): the rows of
    :func:`rows_with_readings` and the posting-units row, on the frames of
    :func:`~routelab.spatial.lab.partitioning.experiments.split_runs`. ``clock``
    (:func:`~routelab.spatial.lab.partitioning.cost_clock.against_the_clock`) and ``vmap``
    (:func:`engine_and_paper_table`): the notebook's, if computed already."""
    from routelab.spatial.lab.partitioning import cost_clock
    from routelab.spatial.lab.partitioning.experiments import split_runs

    f = split_runs(runs, workers, scal_countries)
    clock = clock or cost_clock.against_the_clock(f.main, costs)
    rows = rows_with_readings(f.fig6, f.fig7, f.fig11, f.posting, clock.fit, clock.errors,
                              c_paper=c_paper, vmap=vmap)  # fmt: skip
    return [*rows, posting_units_row(f.posting, f.fig7)]


def regrade(results: Path) -> list[dict]:
    """Notebook 11's claims rows regraded from a finished run: its ``results.json`` (the
    parameters, and the calibrated unit costs where the run partitioned with them) and the
    ``runs.parquet`` saved beside it, graded by :func:`claims_from_runs` (whose rows these
    are) with this code's rules and the readings flipped in this process. A graded-only
    reading (``similar``, ``fig11``) changes nothing a run measures, so this is its verdicts
    exactly (:func:`routelab.reading_screen.regrader`). A run without its measurements, or
    without the parameters they are graded with, is an error naming the file."""
    results = Path(results)
    runs_path = results.parent / "runs.parquet"
    try:
        data = json.loads(results.read_text())
        p = data["parameters"]
        workers, countries, c_paper = p["workers"], p["scal_countries"], p["c_paper"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BadInputError(f"{results}: not a finished run of notebook 11 ({exc!r})") from exc
    if not runs_path.is_file():
        raise BadInputError(f"{runs_path}: no saved measurements beside {results.name}")
    reading = str(data.get("reading") or "").split(",")
    calibrated = (data.get("headline") or {}).get("calibrated_costs")
    costs = CostParams(**calibrated) if "units" in reading and calibrated else CostParams()
    return claims_from_runs(pd.read_parquet(runs_path), workers, countries, costs, c_paper)
