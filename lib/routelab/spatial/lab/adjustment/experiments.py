"""Notebook 12's experiments: PS2Stream's local load adjustment (Sect. V-A, VI-D, Figs.
12-16) as Spark sweep tasks.

One task per (query count, seed): the semi-synthetic TWEETS-US' stream **in time order**
(the real drift of the tweets' time stamps, Sect. VI-D's "4 h of tweets every 10 s" replay),
partitioned by hybrid, replayed period by period (:func:`routelab.spatial.adjustment.
replay_adjusted`) once without adjustment and once per selection algorithm (DP, GR, SI,
RA). Per run: the selections' time, the migrated bytes and migration time, the latency
of every tuple at a common arrival rate (the FIFO multi-copy model of notebook 11, with the
migrations' pauses) bucketed as the paper buckets it, and the throughput (tuples over the
busiest worker's busy seconds, pauses included), per run and per period.

The paper's latency buckets are < 100 ms, 100 ms - 1 s and > 1 s on its cluster; our replay
runs in microseconds, so the buckets are relative (our reading, as the ratio 1:10 is the
paper's): b1 = the 99th percentile of the run without adjustment, b2 = 10 b1. The arrival
rate is ``utilization`` x the rate the run without adjustment sustains.

Every adjusted run does Phase I (``k_hot`` cells; the rows count its splits and merges)
before Phase II. Two more scenarios: ``pairs`` (the same stream under the ``pairs_unit``
reading of the cost model, where Phase I's text splits can lower the total load) and
``global`` (GR alone against GR with global adjustment, Sect. V-B, every quarter of the
stream, ``GR+global``). :func:`spark_backend_check` runs one stream with the workers as
Spark tasks and checks it against the local run.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from routelab.grouping.queueing import multicopy_latency
from routelab.spatial.adjustment import AdjustedRun, AdjustParams, replay_adjusted
from routelab.spatial.cost import CostParams
from routelab.spatial.engine import build_partition
from routelab.spatial.global_adjust import GlobalParams
from routelab.spatial.lab.partitioning.experiments import make_setup
from routelab.spatial.lab.regime import C_GRID_US
from routelab.spatial.lab.workload import WorkloadParams
from routelab.spatial.migration import SELECTORS
from routelab.timing import clock_name

NONE = "none"  # the run without adjustment
GLOBAL = "GR+global"  # GR with global adjustment


def _latency(run: AdjustedRun, n: int, rate: float, n_workers: int, c_s: float = 0.0) -> np.ndarray:
    """Every tuple's latency at ``rate`` tuples/s, ``c_s`` seconds of platform cost added
    to every copy's service time (the regime map's per-message cost)."""
    arrivals = np.arange(n) / rate
    return multicopy_latency(
        run.copy_tup, run.copy_worker, run.copy_service + c_s, arrivals, n_workers
    )


def run_throughput(busy: np.ndarray, msgs: np.ndarray, n: int, c_s: float = 0.0) -> float:
    """Tuples over the sum, per period, of that period's busiest worker's seconds (busy
    ``(periods, workers)``, pauses included, plus ``c_s`` per message): a worker hot in one
    period and cold in another does not average out."""
    return n / max(float((busy + c_s * msgs).max(axis=1).sum()), 1e-12)


def total_throughput(busy: np.ndarray, msgs: np.ndarray, n: int, c_s: float = 0.0) -> float:
    """The alternative reading of Fig. 16's throughput (READINGS.md, "Throughput with
    adjustment"): tuples over the busiest worker's total seconds over the run (busy
    ``(periods, workers)``, plus ``c_s`` per message), so a worker hot in one period and
    cold in another averages out."""
    return n / max(float((busy + c_s * msgs).sum(axis=0).max()), 1e-12)


def regime_columns(run: AdjustedRun) -> dict[str, float]:
    """The run's regime (:mod:`routelab.spatial.lab.regime`): the busiest worker's fixed cost
    as a share of its busy time, summed over the periods, and the run's busy seconds (the
    sum of the periods' busiest workers: one timed replay of the stream)."""
    busy = _busy(run)
    fixed = _cols(run, "fixed_")
    top = busy.argmax(axis=1)
    total = float(busy.max(axis=1).sum())
    share = (
        float(fixed[np.arange(len(top)), top].sum()) / max(total, 1e-12)
        if fixed.size
        else float("nan")
    )
    return {"fixed_share": share, "busy_min_s": total, "clock": clock_name()}


def adjust_point(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One (query count, seed) point (a Spark task): the run without adjustment and one per
    selector; rows per run (``level="run"``) and per period (``level="period"``)."""
    wp = WorkloadParams(
        country=str(params.get("country", "US")),
        n_objects=int(params["n_objects"]),
        mu=int(params["mu"]),
        query_set=str(params.get("query_set", "Q1")),
        q3_flip_every=int(params.get("flip_every", 0)),
        order="time",
        seed=int(params.get("seed", 0)),
    )
    t0 = time.perf_counter()
    # no model named: the run's reading of the worker load (CostParams' default)
    costs = CostParams(model=str(params["cost_model"])) if "cost_model" in params else CostParams()
    setup = make_setup(
        wp,
        g=int(params.get("g", 64)),
        sample_min=int(params.get("sample_min", 20_000)),
        cost_model=costs,
    )
    n_workers = int(params.get("workers", 8))
    part, _ = build_partition(setup, "hybrid", n_workers)
    setup_s = time.perf_counter() - t0
    selectors = list(params.get("selectors") or SELECTORS.names)
    period, sigma = int(params.get("period", 20_000)), float(params.get("sigma", 1.2))
    dp = {"max_table": float(params["dp_max_table"])} if params.get("dp_max_table") else {}
    n = len(setup.stream.kind)
    _warm_up(setup, part, list(SELECTORS.names))  # every selector: GR's snapshots time all
    runs: dict[str, AdjustedRun] = {
        NONE: replay_adjusted(
            setup, part, AdjustParams(period=period, enabled=False, measure_fixed=True)
        )
    }
    for name in selectors:
        snapshot = tuple(SELECTORS.names) if name == "GR" else ()  # every selector, GR's cells
        chosen = AdjustParams(period=period, sigma=sigma, selector=name, costs=costs,
                              selector_params=dp if name == "DP" else {}, measure_fixed=True,
                              time_selectors=snapshot, time_params={"DP": dp})  # fmt: skip
        runs[name] = replay_adjusted(setup, part, chosen)
    if params.get("global_fraction"):
        gp = GlobalParams(every=max(period, int(float(params["global_fraction"]) * n)))
        both = AdjustParams(
            period=period,
            sigma=sigma,
            selector="GR",
            costs=costs,
            global_params=gp,
            measure_fixed=True,
        )
        runs[GLOBAL] = replay_adjusted(setup, part, both)
    truth = runs[NONE].pair_keys
    util = float(params.get("utilization", 0.7))
    rate = util * run_throughput(_busy(runs[NONE]), _cols(runs[NONE], "msgs_"), n)
    lat_none = _latency(runs[NONE], n, rate, n_workers)
    b1 = float(np.percentile(lat_none, 99))
    grid = _cost_grid(runs, n, n_workers, util)
    rows = []
    for name, run in runs.items():
        if not np.array_equal(run.pair_keys, truth):
            raise AssertionError(f"{name}: the adjusted run's answer differs from the unadjusted")
        lat = _latency(run, n, rate, n_workers) if name != NONE else lat_none
        m = run.migrations
        moved = m[m["cells"] > 0] if len(m) else m
        busy = _busy(run)
        phase = m["phase"] if len(m) else pd.Series(dtype=str)
        ev = run.global_events["event"] if len(run.global_events) else pd.Series(dtype=str)
        rows.append(
            {
                "level": "run", "selector": name, "tuples": n, "setup_s": setup_s,
                "migrations": len(moved), "oom": int((m["status"] == "oom").sum()) if len(m) else 0,
                "select_s": float(m["select_s"].sum()) if len(m) else 0.0,
                "select_ms_mean": 1e3 * float(m["select_s"].mean()) if len(m) else 0.0,
                "bytes": float(moved["bytes"].sum()) if len(moved) else 0.0,
                "migration_s": float(moved["migration_s"].sum()) if len(moved) else 0.0,
                **phase_two_means(m),
                "cells_moved": int(moved["cells"].sum()) if len(moved) else 0,
                "queries_moved": int(moved["queries"].sum()) if len(moved) else 0,
                "throughput": run_throughput(busy, _cols(run, "msgs_"), n),
                "throughput_grid": grid[name][0], "lat_fast_grid": grid[name][1],
                "throughput_total_grid": [total_throughput(busy, _cols(run, "msgs_"), n, 1e-6 * c)
                                          for c in C_GRID_US],
                **regime_columns(run),
                "lat_fast": float((lat < b1).mean()), "lat_mid": float(((lat >= b1) & (lat < 10 * b1)).mean()),
                "lat_slow": float((lat >= 10 * b1).mean()), "b1_us": b1 * 1e6,
                "lat_p99_us": float(np.percentile(lat, 99) * 1e6),
                "sigma_obs_median": float(run.periods["sigma_obs"].replace(np.inf, np.nan).median()),
                "phase1_splits": int((phase == "I-split").sum()),
                "phase1_merges": int((phase == "I-merge").sum()),
                "phase2_moves": int(((phase == "II") & (m["cells"] > 0)).sum()) if len(m) else 0,
                "global_switches": int((ev == "switch").sum()), "global_drains": int((ev == "drain").sum()),
                "global_best_gain": _best_gain(run.global_events),
                "global_gamma": gp.gamma if name == GLOBAL else np.nan,
                "cost_model": costs.model,
                **trigger_counts(run, sigma),
            }
        )  # fmt: skip
        rows += snapshot_rows(run.selections, name)
        for _, pr in run.periods.iterrows():
            rows.append(
                {
                    "level": "period", "selector": name, "period": int(pr["period"]),
                    "tuples": int(pr["tuples"]),
                    "throughput": pr["tuples"] / max(float(busy[int(pr["period"])].max()), 1e-12),
                    "sigma_obs": float(pr["sigma_obs"]),
                    "migrated_cells": int(pr["migrated_cells"]),
                    "dual": bool(pr["dual"]),
                }
            )  # fmt: skip
    return rows


def trigger_counts(run: AdjustedRun, sigma: float) -> dict[str, int]:
    """What the trigger and Phase I did (Sect. V-A), for the checks: Phase I actions and
    those that lowered the estimated load (``load_after < load_before``), Phase II
    selections and those made in a period whose max / min load exceeded ``sigma``."""
    m = run.migrations
    if not len(m):
        return {"phase1_actions": 0, "phase1_lowered": 0, "p2_selections": 0, "p2_triggered": 0}
    one = m[m["phase"].astype(str).str.startswith("I-")]
    two = m[m["phase"] == "II"]
    ratio = run.periods.set_index("period")["sigma_obs"]
    return {
        "phase1_actions": len(one),
        "phase1_lowered": int((one["load_after"] < one["load_before"]).sum()) if len(one) else 0,
        "p2_selections": len(two),
        "p2_triggered": int((ratio.loc[two["period"]].to_numpy() > sigma).sum()),
    }


def phase_two_means(migrations: pd.DataFrame) -> dict[str, float]:
    """Per Phase II migration that moved cells (Sect. VI-D reports averages per migration):
    mean bytes, mean migration seconds, the modelled share of that time (bytes over the
    link; the rest -- selection, extraction, re-insertion -- is measured) and the count.
    Phase I's moves (no selection) and selections that moved nothing are left out."""
    m = migrations
    if not len(m) or "phase" not in m:
        return {"p2_migrations": 0, "p2_bytes_mean": np.nan, "p2_migration_ms_mean": np.nan,
                "p2_modelled_share": np.nan}  # fmt: skip
    two = m[(m["phase"] == "II") & (m["cells"] > 0)]
    if not len(two):
        return {"p2_migrations": 0, "p2_bytes_mean": np.nan, "p2_migration_ms_mean": np.nan,
                "p2_modelled_share": np.nan}  # fmt: skip
    modelled = two["migration_s"] - two["select_s"] - two["move_s"]
    return {
        "p2_migrations": len(two),
        "p2_bytes_mean": float(two["bytes"].mean()),
        "p2_migration_ms_mean": 1e3 * float(two["migration_s"].mean()),
        "p2_modelled_share": float(modelled.sum() / max(float(two["migration_s"].sum()), 1e-12)),
    }


def snapshot_rows(selections: pd.DataFrame, run: str) -> list[dict[str, Any]]:
    """``level="selection"`` rows: per selector timed on the run's Phase II snapshots (the
    same hot worker's cells for all four), its mean selection milliseconds over the
    snapshots it solved (Fig. 12(a)'s bars), how many it ran out of memory on and how many
    there were; and ``select_ms_geo``, the geometric mean over the snapshots every
    selector solved (the claims' measure: two selectors' ``select_ms_geo`` ratio is the
    geometric mean of their ratios snapshot by snapshot, each pair timed on the same cells,
    where the ratio of the plain means is decided by the largest snapshots, which differ
    between runs: the trigger reads measured loads)."""
    if not len(selections):
        return []
    solved = selections.groupby("period")["status"].agg(lambda s: bool((s != "oom").all()))
    common = set(solved[solved].index)
    out = []
    for name, g in selections.groupby("selector", sort=False):
        ok = g[g["status"] != "oom"]
        both = g[g["period"].isin(common)]["select_s"].to_numpy(float)
        geo = 1e3 * float(np.exp(np.log(np.maximum(both, 1e-9)).mean())) if len(both) else np.nan
        out.append({"level": "selection", "selector": name, "snapshot_of": run,
                    "snapshots": len(g), "oom": int((g["status"] == "oom").sum()),
                    "select_ms_mean": 1e3 * float(ok["select_s"].mean()) if len(ok) else np.nan,
                    "select_ms_geo": geo, "common_snapshots": len(both),
                    "cells_offered_mean": float(g["cells_offered"].mean())})  # fmt: skip
    return out


def _best_gain(events: pd.DataFrame) -> float:
    """The largest estimated saving of a re-partition over the global checks (NaN if none)."""
    if not len(events):
        return float("nan")
    checks = events[events["event"] != "drain"]
    return (
        float((1 - checks["load_new"] / checks["load_current"]).max())
        if len(checks)
        else float("nan")
    )


def _warm_up(setup: Any, part: Any, selectors: list[str]) -> None:
    """Compile the kernels (dispatch, GI2, the selectors) before anything is timed."""
    for name in selectors:
        SELECTORS.lookup(name).kernel(np.array([1.0, 2.0, 3.0]), np.array([3, 2, 1]), 2.5)
    few = min(len(setup.stream.kind), 4_000)
    small = replace(setup, stream=setup.stream.head(few))
    replay_adjusted(small, part, AdjustParams(period=max(1, few // 2), sigma=1.0))


def _busy(run: AdjustedRun) -> np.ndarray:
    """(periods, workers) busy seconds, migration pauses included."""
    return _cols(run, "busy_")


def _cols(run: AdjustedRun, prefix: str) -> np.ndarray:
    """(periods, workers) of the period columns ``<prefix><w>`` (empty if none)."""
    cols = sorted((c for c in run.periods.columns if c.startswith(prefix)),
                  key=lambda c: int(c[len(prefix):]))  # fmt: skip
    return run.periods[cols].to_numpy(float)


def _cost_grid(
    runs: dict[str, AdjustedRun], n: int, n_workers: int, util: float
) -> dict[str, tuple[list[float], list[float]]]:
    """Per run, the throughput and the share of tuples below b1 at every per-message cost of
    :data:`~routelab.spatial.lab.regime.C_GRID_US` (the arrival rate and b1 re-derived
    from the run without adjustment at that cost)."""
    out: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in runs}
    for c_us in C_GRID_US:
        c_s = 1e-6 * c_us
        none = runs[NONE]
        rate = util * run_throughput(_busy(none), _cols(none, "msgs_"), n, c_s)
        b1 = float(np.percentile(_latency(none, n, rate, n_workers, c_s), 99))
        for name, run in runs.items():
            lat = _latency(run, n, rate, n_workers, c_s)
            out[name][0].append(run_throughput(_busy(run), _cols(run, "msgs_"), n, c_s))
            out[name][1].append(float((lat < b1).mean()))
    return out


def points(
    n_objects: int,
    mus: list[int],
    workers: int,
    period: int,
    sigma: float,
    dp_max_table: float,
    seeds: list[int],
    flip_every: int,
    flip_seeds: list[int] | None = None,
    global_seeds: list[int] | None = None,
) -> list[dict[str, Any]]:
    """Notebook 12's grid: the time-ordered Q1 stream (``scenario="drift"``) at the smallest
    query count with every selection and at the larger ones with GR (whose snapshots time
    all four selections on the same cells); Fig. 16's Q3 stream with 10 % of the regions flipping
    every ``flip_every`` queries (``scenario="flips"``, GR only) at the largest; the drift
    stream under the pairs reading (``scenario="pairs"``, GR, the smallest count, the first
    seed: Phase I's actions are counted, not timed) and with global adjustment every quarter
    of the stream (``scenario="global"``, the smallest count). ``flip_seeds`` and
    ``global_seeds`` (default: ``seeds``) are the streams of Fig. 16 and of the global
    adjustment: Fig. 16's one row needs more seeds than the selection rows at its spread,
    the global adjustment (beyond the paper's figures) needs no more than the claims'
    minimum."""
    common = {"n_objects": n_objects, "workers": workers, "period": period, "sigma": sigma,
              "dp_max_table": dp_max_table}  # fmt: skip
    # at the larger counts GR alone runs in full: its snapshots time all four selectors on
    # the same cells (Figs. 13, 14(b) and C14 need no other full run there)
    drift = [{**common, "scenario": "drift", "mu": mu, "seed": s,
              **({"selectors": ["GR"]} if mu != min(mus) else {})}
             for mu in mus for s in seeds]  # fmt: skip
    flips = [{**common, "scenario": "flips", "mu": max(mus), "seed": s, "query_set": "Q3",
              "flip_every": flip_every, "selectors": ["GR"]}
             for s in (seeds if flip_seeds is None else flip_seeds)]  # fmt: skip
    pairs = [{**common, "scenario": "pairs", "mu": min(mus), "seed": seeds[0], "selectors": ["GR"],
              "cost_model": "pairs_unit"}]  # fmt: skip
    glob = [{**common, "scenario": "global", "mu": min(mus), "seed": s, "selectors": ["GR"],
             "global_fraction": 0.25}
            for s in (seeds if global_seeds is None else global_seeds)]  # fmt: skip
    return drift + flips + pairs + glob


def stepper_run(
    n_objects: int, mu: int, workers: int, period: int, sigma: float, seed: int
) -> AdjustedRun:
    """One adjusted run (GR) of the time-ordered Q1 stream, for the period stepper."""
    wp = WorkloadParams(n_objects=n_objects, mu=mu, order="time", seed=seed)
    setup = make_setup(wp, g=64, sample_min=min(20_000, n_objects))
    part, _ = build_partition(setup, "hybrid", workers)
    return replay_adjusted(setup, part, AdjustParams(period=period, sigma=sigma, selector="GR"))


def spark_backend_check(
    n_objects: int, mu: int, workers: int, period: int, sigma: float, seed: int, spark: Any = None
) -> pd.DataFrame:
    """One time-ordered stream adjusted (GR, Phase I and II) twice: the workers' GI2 state
    in this process, and the workers as Spark tasks (one job per period, state checkpointed
    as postings between periods). Raises if either answer differs from the other; one row
    per backend."""
    wp = WorkloadParams(n_objects=n_objects, mu=mu, order="time", seed=seed)
    setup = make_setup(wp, g=64, sample_min=min(20_000, n_objects))
    part, _ = build_partition(setup, "hybrid", workers)
    params = AdjustParams(period=period, sigma=sigma, selector="GR")
    rows, answers = [], []
    for backend in ("local", "spark"):
        t0 = time.perf_counter()
        run = replay_adjusted(setup, part, params, backend=backend, spark=spark)
        m = run.migrations
        rows.append({"backend": backend, "seconds": time.perf_counter() - t0,
                     "periods": len(run.periods), "pairs": len(run.pair_keys),
                     "migrations": int((m["cells"] > 0).sum()) if len(m) else 0,
                     "bytes": float(m["bytes"].sum()) if len(m) and "bytes" in m else 0.0})  # fmt: skip
        answers.append(run.pair_keys)
    if not np.array_equal(answers[0], answers[1]):
        raise AssertionError("the Spark workers' answer differs from the local workers'")
    return pd.DataFrame(rows)


def run_points(
    points: list[dict[str, Any]], *, spark: Any = None, local: bool = False
) -> pd.DataFrame:
    """Every point as a Spark task (:func:`routelab.sweep.run_grid`)."""
    from routelab.sweep import run_grid

    frame = run_grid(adjust_point, points, spark=spark, local=local, desc="PS2Stream adjustment")
    return frame.drop(columns=[c for c in ("selectors",) if c in frame.columns])
