"""Notebook 11's claims table: PS2Stream's claims C1-C12 against our runs.

Tolerances are module constants declared before any run. The paper's numbers come from a
32-instance Storm cluster on 280M / 58M real geo-tagged tweets; ours from a replay on one
2-core machine over semi-synthetic tweets, so a sized effect is judged within a factor
and otherwise by direction. Throughput is the busiest worker's measured rate (see
``experiments.py``); each row's note gives the modelled (cost-unit) value too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.claims import (
    Verdict,
    combine,
    direction,
    not_comparable,
    share,
    unmeasured_rows,
    within_factor,
)

C1_PAPER = 160_659 / 76_921  # US-Q1: grid vs frequency, 2.09x
C2_PAPER = 267_415 / 181_542  # US-Q2: metric vs R-tree, 1.47x
C5_PAPER = 1.30  # Q3: hybrid +30 % over metric and kd-tree
C8_PAPER = 25 / 15  # Q2: kd-tree latency 25 ms vs 15 ms
RATIO_TOL = 1.5  # C1's 2.09x holds within 1.5x either way (1.39x .. 3.1x)
C2_TOL = 1.2  # C2's 1.47x: within 1.2x (1.23x .. 1.76x; a wider band would include "no effect")
C8_TOL = 1.3  # C8's 1.67x: within 1.3x (1.28x .. 2.17x)
C5_TOL = 1.15  # +30 %: measured ratio within 1.30 / 1.15 .. 1.30 * 1.15
C9_TOL = 1.25  # "similar latency": metric / hybrid within 1.25x
MEMORY_LIMIT_MB = 1000.0  # C10


def _val(df: pd.DataFrame, country: str, qs: str, alg: str, metric: str) -> float:
    s = df[(df.country == country) & (df.query_set == qs) & (df.algorithm == alg)][metric]
    return float(s.mean()) if len(s) else float("nan")


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


def c1_space_beats_text_on_q1(fig6: pd.DataFrame) -> dict:
    r = _val(fig6, "US", "Q1", "grid", "throughput") / _val(
        fig6, "US", "Q1", "frequency", "throughput"
    )
    m = _val(fig6, "US", "Q1", "grid", "model_throughput") / _val(
        fig6, "US", "Q1", "frequency", "model_throughput"
    )
    return {
        "claim": "Q1: space partitioning beats text partitioning (grid vs frequency, US-Q1)",
        "paper": "Sect. VI-B, Fig. 6",
        "paper_value": f"{C1_PAPER:.2f}x (160,659 vs 76,921 tuples/s)",
        "measured": f"{r:.2f}x (model {m:.2f}x)",
        "verdict": within_factor(r, C1_PAPER, RATIO_TOL),
        "note": _costs(fig6, "US", "Q1", ("grid", "frequency"))
        + ". Text partitioning copies objects to every worker owning one of their terms; "
        "the measured ratio also carries the grid's imbalance (blocks are balanced by LPT only).",
    }


def c2_text_beats_space_on_q2(fig6: pd.DataFrame) -> dict:
    r = _val(fig6, "US", "Q2", "metric", "throughput") / _val(
        fig6, "US", "Q2", "r-tree", "throughput"
    )
    m = _val(fig6, "US", "Q2", "metric", "model_throughput") / _val(
        fig6, "US", "Q2", "r-tree", "model_throughput"
    )
    return {
        "claim": "Q2: text partitioning beats space partitioning (metric vs R-tree, US-Q2)",
        "paper": "Sect. VI-B, Fig. 6",
        "paper_value": f"{C2_PAPER:.2f}x (267,415 vs 181,542 tuples/s)",
        "measured": f"{r:.2f}x (model {m:.2f}x)",
        "verdict": within_factor(r, C2_PAPER, C2_TOL),
        "note": _costs(fig6, "US", "Q2", ("metric", "r-tree"))
        + ". On our data Q2's ranges (up to 100 km) rarely cross the few regions of 8 workers, "
        "so space partitioning duplicates few queries, while text partitioning still copies "
        "objects (OR queries register frequent keywords too): the paper's reason does not occur.",
    }


def c3_best_baselines(fig6: pd.DataFrame) -> dict:
    ok = 0
    sets = _sets(fig6)
    got = []
    for c, q in sets:
        text = {a: _val(fig6, c, q, a, "throughput") for a in ("frequency", "hypergraph", "metric")}
        space = {a: _val(fig6, c, q, a, "throughput") for a in ("grid", "kd-tree", "r-tree")}
        bt, bs = max(text, key=text.get), max(space, key=space.get)
        got.append(f"{_name(c, q)}: {bt}, {bs}")
        ok += (bt == "metric") + (bs == "kd-tree")
    return {
        "claim": "metric is the best text baseline and kd-tree the best space baseline",
        "paper": "Sect. VI-B, Fig. 6",
        "paper_value": "metric, kd-tree",
        "measured": "; ".join(got),
        "verdict": share(
            ok, 2 * len(sets), rule="share of (dataset-query set, family) with the paper's winner"
        ),
        "note": "model-throughput winners: "
        + "; ".join(
            f"{_name(c, q)}: "
            + max(
                ("frequency", "hypergraph", "metric"),
                key=lambda a, c=c, q=q: _val(fig6, c, q, a, "model_throughput"),
            )
            + ", "
            + max(
                ("grid", "kd-tree", "r-tree"),
                key=lambda a, c=c, q=q: _val(fig6, c, q, a, "model_throughput"),
            )
            for c, q in _sets(fig6)
        )
        + ". Within a family the measured throughputs are close and the ranking moves with timing noise.",
    }


def _hybrid_wins(
    fig7: pd.DataFrame, sets: list[tuple[str, str]], metric: str
) -> list[tuple[str, str]]:
    if metric not in fig7.columns:
        return []
    algs = ("hybrid", "metric", "kd-tree")
    return [s for s in sets if max(algs, key=lambda a, s=s: _val(fig7, *s, a, metric)) == "hybrid"]


def c4_hybrid_best(fig7: pd.DataFrame) -> dict:
    sets = _sets(fig7)
    wins = _hybrid_wins(fig7, sets, "throughput")
    model_wins = _hybrid_wins(fig7, sets, "model_throughput")
    return {
        "claim": "hybrid partitioning is best regardless of the distribution",
        "paper": "Sect. VI-C, Fig. 7",
        "paper_value": "best on every dataset-query set",
        "measured": f"best on {len(wins)}/{len(sets)}: {', '.join(_name(*s) for s in wins) or 'none'}"
        f" (modelled throughput: best on {len(model_wins)}/{len(sets)})",
        "verdict": share(
            len(wins),
            len(sets),
            partly_at=0.5,
            rule="share of dataset-query sets where hybrid's throughput is the highest",
        ),
        "note": _costs(fig7, "US", "Q3", ("hybrid", "metric", "kd-tree"))
        + ". The partitioners balance Definition 1's cost units (hybrid max/mean about 1.1); "
        "the measured busy times are less even for hybrid (busy max/mean: "
        + ", ".join(
            f"{_name(*st)} {_val(fig7, *st, 'hybrid', 'busy_imbalance'):.2f}"
            for st in _sets(fig7)
            if "busy_imbalance" in fig7.columns
        )
        + "): the unit costs (spec ratios, or calibrated on a synthetic workload) misjudge "
        "this machine's time per worker, so the model's winner is not the measured one.",
    }


def c5_hybrid_q3(fig7: pd.DataFrame) -> dict:
    ratios = [
        _val(fig7, c, "Q3", "hybrid", "throughput")
        / max(
            _val(fig7, c, "Q3", "metric", "throughput"),
            _val(fig7, c, "Q3", "kd-tree", "throughput"),
        )
        for c in sorted(set(fig7.country))
    ]
    r = float(np.exp(np.mean(np.log(ratios)))) if ratios else float("nan")
    v = within_factor(r, C5_PAPER, C5_TOL) if ratios else not_comparable("no Q3 runs")
    model = (
        [
            _val(fig7, c, "Q3", "hybrid", "model_throughput")
            / max(_val(fig7, c, "Q3", a, "model_throughput") for a in ("metric", "kd-tree"))
            for c in sorted(set(fig7.country))
        ]
        if "model_throughput" in fig7.columns
        else []
    )
    m = float(np.exp(np.mean(np.log(model)))) if model else float("nan")
    return {
        "claim": "Q3: hybrid outperforms metric and kd-tree by 30 %",
        "paper": "Sect. VI-C, Fig. 7c",
        "paper_value": "1.30x",
        "measured": f"{r:.2f}x (hybrid / better of the two, geo-mean over datasets; model {m:.2f}x)",
        "verdict": v,
        "note": _costs(fig7, "GB", "Q3", ("hybrid", "metric", "kd-tree")),
    }


def c6_q1_order(fig7: pd.DataFrame) -> dict:
    vs = []
    got = []
    for c in sorted(set(fig7.country)):
        h, k, m = (_val(fig7, c, "Q1", a, "throughput") for a in ("hybrid", "kd-tree", "metric"))
        got.append(f"{_name(c, 'Q1')}: hybrid {h:,.0f}, kd-tree {k:,.0f}, metric {m:,.0f}")
        vs += [
            direction(h / k, neutral=1.0, expected="above"),
            direction(k / m, neutral=1.0, expected="above"),
        ]
    return {
        "claim": "Q1: hybrid slightly > kd-tree >> metric",
        "paper": "Sect. VI-C, Fig. 7a",
        "paper_value": "hybrid > kd-tree > metric",
        "measured": "; ".join(got),
        "verdict": combine(vs),
        "note": _costs(fig7, "US", "Q1", ("hybrid", "kd-tree", "metric")),
    }


def c7_q2_order(fig7: pd.DataFrame) -> dict:
    vs = []
    got = []
    for c in sorted(set(fig7.country)):
        h, k, m = (_val(fig7, c, "Q2", a, "throughput") for a in ("hybrid", "kd-tree", "metric"))
        got.append(f"{_name(c, 'Q2')}: hybrid/kd {h / k:.2f}, metric/kd {m / k:.2f}")
        vs += [
            direction(h / k, neutral=1.0, expected="above"),
            direction(m / k, neutral=1.0, expected="above"),
        ]
    return {
        "claim": "Q2: hybrid and metric beat kd-tree",
        "paper": "Sect. VI-C, Fig. 7b",
        "paper_value": "hybrid, metric > kd-tree",
        "measured": "; ".join(got),
        "verdict": combine(vs),
        "note": _costs(fig7, "US", "Q2", ("hybrid", "kd-tree", "metric")),
    }


def c8_kd_latency_q2(fig7: pd.DataFrame) -> dict:
    r = _val(fig7, "US", "Q2", "kd-tree", "latency_us") / _val(
        fig7, "US", "Q2", "hybrid", "latency_us"
    )
    return {
        "claim": "kd-tree's latency is noticeably larger on Q2",
        "paper": "Sect. VI-C, Fig. 8b",
        "paper_value": f"{C8_PAPER:.2f}x (25 ms vs 15 ms)",
        "measured": f"{r:.2f}x (US-Q2, kd-tree / hybrid)",
        "verdict": within_factor(r, C8_PAPER, C8_TOL),
        "note": "latency of a replay in microseconds (no network, no serialization), FIFO "
        "queues fed at 0.6 x hybrid's measured capacity, steady state only",
    }


def c9_metric_latency(fig7: pd.DataFrame) -> dict:
    sets = [s for s in _sets(fig7) if s != ("GB", "Q1")]
    ok = 0
    got = []
    for s in sets:
        r = _val(fig7, *s, "metric", "latency_us") / _val(fig7, *s, "hybrid", "latency_us")
        got.append(f"{_name(*s)} {r:.2f}x")
        ok += 1 / C9_TOL <= r <= C9_TOL
    return {
        "claim": "metric's latency is similar to hybrid's (except UK-Q1)",
        "paper": "Sect. VI-C, Fig. 8",
        "paper_value": "similar; UK-Q1 metric 407 ms",
        "measured": "; ".join(got),
        "verdict": share(
            ok, len(sets), rule=f"share of sets with metric/hybrid latency within {C9_TOL}x"
        ),
        "note": "same latency model as C8; the paper's UK-Q1 exception (metric 407 ms) is "
        "excluded from the check as the paper excludes it",
    }


def c10_dispatcher_memory(fig7: pd.DataFrame) -> dict:
    mx = float(fig7.dispatcher_mb.max())
    vs = [
        Verdict(
            "holds" if mx < MEMORY_LIMIT_MB else "fails",
            f"largest dispatcher model < {MEMORY_LIMIT_MB:.0f} MB",
        )
    ]
    got = [f"max {mx:.1f} MB"]
    for s in _sets(fig7):
        k, m, h = (_val(fig7, *s, a, "dispatcher_mb") for a in ("kd-tree", "metric", "hybrid"))
        vs.append(direction(min(m, h) / k, neutral=1.0, expected="above"))
    for c in sorted(set(fig7.country)):
        h = {q: _val(fig7, c, q, "hybrid", "dispatcher_mb") for q in ("Q1", "Q2", "Q3")}
        got.append(f"{_name(c, '')}hybrid Q1/Q2/Q3 {h['Q1']:.1f}/{h['Q2']:.1f}/{h['Q3']:.1f} MB")
        vs.append(direction(h["Q2"] / max(h["Q1"], h["Q3"]), neutral=1.0, expected="above"))
    return {
        "claim": "dispatcher memory is small; kd-tree < metric, hybrid; hybrid's is highest on Q2",
        "paper": "Sect. VI-C, Fig. 9",
        "paper_value": "< 1000 MB",
        "measured": "; ".join(got),
        "verdict": combine(vs),
        "note": "deterministic byte model (cells, H_o entries, H_q refcounts); hybrid's text "
        "cells per set: "
        + ", ".join(
            f"{_name(*st)} {_val(fig7, *st, 'hybrid', 'text_cells'):,.0f}"
            for st in _sets(fig7)
            if "text_cells" in fig7.columns
        ),
    }


def c11_worker_memory(fig7: pd.DataFrame) -> dict:
    sets = _sets(fig7)
    wins = sum(
        min(("hybrid", "metric", "kd-tree"), key=lambda a, s=s: _val(fig7, *s, a, "worker_mb"))
        == "hybrid"
        for s in sets
    )
    return {
        "claim": "hybrid uses the least worker memory in most cases",
        "paper": "Sect. VI-C, Fig. 10",
        "paper_value": "smallest in most cases",
        "measured": f"smallest on {wins}/{len(sets)} sets",
        "verdict": _most(wins, len(sets), "hybrid's worker memory is the smallest of the three"),
        "note": "worker memory model (MB, mean over workers) hybrid / metric / kd-tree: "
        + "; ".join(
            f"{_name(*st)} "
            + "/".join(
                f"{_val(fig7, *st, a, 'worker_mb'):.2f}" for a in ("hybrid", "metric", "kd-tree")
            )
            for st in _sets(fig7)
        )
        + ". Hybrid's extra regions replicate queries over more workers.",
    }


def _most(n_ok: int, n: int, what: str) -> Verdict:
    """ "In most cases": holds on more than half of the cases, partly on at least one."""
    rule = f"{what} on more than half of the cases: holds; on some: partly ({n_ok}/{n})"
    if n == 0:
        return not_comparable("no cases")
    return Verdict("holds" if n_ok > n / 2 else ("partly" if n_ok else "fails"), rule)


def c12_scalability(fig11: pd.DataFrame) -> dict:
    vs = []
    got = []
    for s in _sets(fig11):
        d = fig11[
            (fig11.country == s[0]) & (fig11.query_set == s[1]) & (fig11.algorithm == "hybrid")
        ]
        g = d.groupby("n_workers").throughput.mean()
        if len(g) < 2:
            continue
        grow = float(g.iloc[-1] / g.iloc[0])
        got.append(f"{_name(*s)} hybrid x{grow:.2f} from {g.index[0]} to {g.index[-1]} workers")
        vs.append(direction(grow, neutral=1.0, expected="above"))
    v = combine(vs) if vs else not_comparable("fewer than two worker counts")
    return {
        "claim": "hybrid scales with the number of workers",
        "paper": "Sect. VI-C, Fig. 11",
        "paper_value": "grows; best in most cases",
        "measured": "; ".join(got),
        "verdict": v,
        "note": "each worker's replay is timed alone (2 cores), so the busiest worker's time "
        "falls as work is spread, as on separate instances",
    }


#: Sect. VI-D's headline claims (Figs. 12-16): not measured until dynamic load adjustment
#: (Sect. V) exists, so the table's denominator is the paper, not what we built
ADJUSTMENT_CLAIMS = (
    ("DP selects cells far slower than GR, SI and RA; RA fastest, GR and SI efficient",
     "Sect. VI-D, Figs. 12(a), 13", "DP >> GR, SI > RA in selection time"),
    ("GR, SI and RA select cells in a time independent of the number of queries",
     "Sect. VI-D, Fig. 13(a-b)", "flat in the number of queries"),
    ("DP and GR migrate the least data in the least time; GR best overall",
     "Sect. VI-D, Figs. 12(b), 14, 15", "GR < SI, RA in migration cost and time"),
    ("GR delays the fewest tuples during migration, DP second, SI and RA worse",
     "Sect. VI-D, Fig. 12(c)", "GR < DP < SI, RA in delayed tuples"),
    ("dynamic load adjustment raises throughput over no adjustment (STS-US-Q3, drifting)",
     "Sect. VI-D, Fig. 16", "higher throughput with adjustment"),
)  # fmt: skip


def adjustment_rows() -> list[dict]:
    """Sect. VI-D's claims, listed as not comparable with the reason."""
    return unmeasured_rows(
        ADJUSTMENT_CLAIMS,
        "dynamic load adjustment (Sect. V: local and global, Figs. 12-16) is not implemented",
    )


def all_rows(fig6: pd.DataFrame, fig7: pd.DataFrame, fig11: pd.DataFrame) -> list[dict]:
    return [
        c1_space_beats_text_on_q1(fig6),
        c2_text_beats_space_on_q2(fig6),
        c3_best_baselines(fig6),
        c4_hybrid_best(fig7),
        c5_hybrid_q3(fig7),
        c6_q1_order(fig7),
        c7_q2_order(fig7),
        c8_kd_latency_q2(fig7),
        c9_metric_latency(fig7),
        c10_dispatcher_memory(fig7),
        c11_worker_memory(fig7),
        c12_scalability(fig11),
        *adjustment_rows(),
    ]
