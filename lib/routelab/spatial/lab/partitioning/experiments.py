"""Notebook 11's experiments: Fig. 6 (six baselines) and Figs. 7-11 (hybrid vs metric vs
kd-tree: throughput, latency, dispatcher and worker memory, scalability with workers).

One sweep point = one (country, query set, N, seed): a Spark task (``routelab.sweep``)
that builds the stream once, runs every algorithm of the figure on it (partition ->
gridt dispatch -> every worker's GI2 replay, each timed alone -> merger) and returns one
row per algorithm. Metrics (Sect. VI-A):

* ``throughput`` (measured): tuples / the busiest worker's busy time -- the capacity the
  partitioning decides. The dispatchers' capacity (``D`` dispatchers share the objects)
  is reported beside it as ``dispatcher_throughput``: our numba gridt is fast but the
  GI2 kernel is faster still on these workloads, so with ``D = 4`` the dispatchers would
  bound every algorithm alike and hide the comparison; the paper's Storm workers were the
  bottleneck (a reading, stated on the figures);
* ``busiest_us_per_tuple``: the busiest worker's busy time per tuple it replayed (the
  paper's Storm workers spent tens of microseconds per tuple: the regime the claims need);
* ``model_throughput``: tuples / the largest worker load in cost units (Definition 1 on
  the replay's own counts: ``c_m * checks + c_o * objects + (c_ins + c_del) * queries``),
  hardware-independent;
* ``throughput_runs`` and ``latency_runs``: the same per replay (every worker replays its
  sub-stream ``repeats`` times under the machine's timing lock; replay k of every worker
  makes repeat k), the repeated measurements behind the claims' intervals;
* ``latency_us``: mean time in system (microseconds: a replay has no network or
  serialization, the paper's Storm latencies are milliseconds) at a "moderate" input speed (our reading: one rate per
  stream, ``latency_load`` x the hybrid's measured capacity), multi-copy FIFO model
  (:func:`routelab.grouping.queueing.multicopy_latency`) with each copy's service time =
  its worker's busy time shared by the tuples' costs;
* ``dispatcher_mb`` and ``worker_mb``: the deterministic memory models of
  :mod:`routelab.spatial.gridt` and :mod:`routelab.spatial.engine`;
* ``pairs`` and ``duplicates``: the merger's distinct (query, object) pairs and the
  duplicates it removed, counted only with ``count_pairs=True`` (-1 otherwise: no claim
  reads them, and the count is one sort of every worker's matches, about 5 % of a sweep
  task; the engines' answers are tested against the oracle, and notebook 11's Helsinki
  cell shows them equal on Spark).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from routelab.grouping.queueing import multicopy_latency
from routelab.readings import pick
from routelab.spatial.cost import CostParams
from routelab.spatial.engine import (
    PipelineResult,
    Setup,
    build_partition,
    build_sample,
    filter_stream,
    first_object,
    grid_for,
    pooled_fixed,
    prepare,
    run_pipeline,
)
from routelab.spatial.gridt import Filtered
from routelab.spatial.hybrid import HybridParams
from routelab.spatial.kdt import Partition
from routelab.spatial.lab.regime import C_GRID_US, throughput_at
from routelab.spatial.lab.workload import WorkloadParams, tweet_stream
from routelab.spatial.model import DEL, INS, OBJ
from routelab.timing import clock_name

BASELINES = ("grid", "kd-tree", "r-tree", "frequency", "hypergraph", "metric")
COMPARED = ("hybrid", "metric", "kd-tree")


@lru_cache(maxsize=4)
def _stream(p: WorkloadParams):
    return tweet_stream(p)


def make_setup(
    p: WorkloadParams,
    g: int = 256,
    cost_model: str | CostParams | None = None,
    sample_fraction: float = 0.1,
    sample_min: int = 50_000,
) -> Setup:
    """The stream of ``p`` prepared on a ``g x g`` grid with its build sample. ``cost_model``
    is a reading name (default unit costs) or a full :class:`CostParams`; None:
    ``CostParams()`` (the run's reading of the worker load, ``gi2_checks`` unless flipped)."""
    st = _stream(p)
    so, sq = build_sample(st, sample_fraction, sample_min)
    if cost_model is None:
        costs = CostParams()
    elif isinstance(cost_model, CostParams):
        costs = cost_model
    else:
        costs = CostParams(model=cost_model)
    return prepare(st, grid_for(st, g), so, sq, costs, seed=p.seed)


def copy_shares(setup: Setup, res: PipelineResult, costs: CostParams) -> np.ndarray:
    """Every routed copy's share of its worker's busy time: its cost (Definition 1's units)
    over the sum of its worker's copies' costs."""
    routed = res.routed
    kinds = setup.stream.kind[routed.tup]
    checks = np.zeros(len(routed))
    for w in res.workers:
        checks[routed.worker == w.worker] = w.checks
    c = np.where(
        kinds == OBJ,
        costs.c_o + costs.c_m * checks,
        np.where(kinds == INS, costs.c_ins, costs.c_del),
    )
    total = np.bincount(routed.worker, weights=c, minlength=len(res.workers))
    return c / np.maximum(total[routed.worker], 1e-12)


def per_copy_service(
    setup: Setup,
    res: PipelineResult,
    costs: CostParams,
    busy: np.ndarray | None = None,
    c_s: float = 0.0,
    shares: np.ndarray | None = None,
) -> np.ndarray:
    """Seconds of every routed copy: its worker's busy time (``busy[w]``, default the best
    replay's) shared by the copies' costs (``shares``, default :func:`copy_shares`), plus
    ``c_s``, the platform's cost of one message (the regime map's ``c``,
    :mod:`routelab.spatial.lab.regime`)."""
    shares = copy_shares(setup, res, costs) if shares is None else shares
    b = res.worker_busy if busy is None else np.asarray(busy, dtype=np.float64)
    return b[res.routed.worker] * shares + c_s


def worker_counts(setup: Setup, res: PipelineResult, costs: CostParams) -> dict[str, list]:
    """Per worker, what its timed replay did (the tuples after the opening registration):
    candidate checks made by objects, objects, query insertions and deletions, postings
    created, its best busy seconds and Definition 1's load on these counts with ``costs`` -- the inputs of
    :mod:`routelab.spatial.lab.partitioning.cost_clock` (the cost model against the clock)."""
    out: dict[str, list] = {k: [] for k in WORKER_COLUMNS}
    for w in res.workers:
        k = setup.stream.kind[w.tup[w.warm :]]
        chk = w.checks[w.warm :]
        ins = int((k == INS).sum())
        out["w_checks"].append(float(chk[k == OBJ].sum()))
        out["w_objects"].append(int((k == OBJ).sum()))
        out["w_ins"].append(ins)
        out["w_del"].append(int((k == DEL).sum()))
        out["w_postings"].append(int(w.timed_postings))
        out["w_busy"].append(float(w.busy_s))
        out["w_busy_runs"].append([float(b) for b in (w.busy_runs or (w.busy_s,))])
        out["w_msgs"].append(int(w.timed_tuples))
        out["w_decode"].append(float(w.decode_s))
        out["w_fixed"].append(float(w.fixed_s))
        out["w_fixed_rate"].append(float(w.fixed_per_tuple_s))
        updates = (
            costs.c_q * out["w_postings"][-1]  # inserted and deleted alike in the steady state
            if costs.per_posting
            else costs.c_ins * ins + costs.c_del * out["w_del"][-1]
        )
        out["w_load"].append(
            costs.c_m * out["w_checks"][-1] + costs.c_o * out["w_objects"][-1] + updates
        )
    return out


#: the per-worker lists :func:`worker_counts` adds to every row
WORKER_COLUMNS = (
    "w_checks", "w_objects", "w_ins", "w_del", "w_postings", "w_busy", "w_load",
    "w_busy_runs", "w_msgs", "w_decode", "w_fixed", "w_fixed_rate",
)  # fmt: skip


def _status_mb(key: str) -> float | None:
    """A memory line of ``/proc/self/status`` (``VmHWM``, ``VmRSS``) in MB; None off Linux."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 2**10
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """This process's peak resident memory (MB) since the last :func:`reset_peak_rss` (on
    Linux, ``VmHWM``), else since it started: a Spark task's worker process."""
    peak = _status_mb("VmHWM")
    if peak is not None:
        return peak
    import resource
    import sys

    ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return ru / (2**20 if sys.platform == "darwin" else 2**10)


def rss_mb() -> float:
    """This process's resident memory now (MB; Linux ``VmRSS``, NaN elsewhere)."""
    now = _status_mb("VmRSS")
    return float("nan") if now is None else now


#: the machine a notebook run must fit (GB) and the share of it one task may take
MACHINE_GB = 24.0


def memory_capacity(frame: pd.DataFrame, machine_gb: float = MACHINE_GB) -> pd.DataFrame:
    """Per (country, query set): the resident memory of a fresh task process (the smallest
    start over every task of ``frame``: a Spark worker reused by a later task starts with
    the earlier task's caches), the set's peak over every partitioner, the memory one live
    query costs at most (``(peak - fresh start) / mu``: everything a task adds, the objects'
    share and leftovers included, charged to the queries, so an upper bound) and the
    largest live-query count one ``machine_gb`` machine replays at that rate with the same
    number of objects (a linear extrapolation from one query count: a lower bound)."""
    rows = []
    fresh = float(frame["rss_start_mb"].min()) if "rss_start_mb" in frame else float("nan")
    for (c, q), g in frame.groupby(["country", "query_set"]):
        start = fresh
        peak, mu = float(g["peak_rss_mb"].max()), float(g["mu"].max())
        per_q = (peak - start) / max(mu, 1.0)
        rows.append({"country": c, "query_set": q, "mu": int(mu), "rss_start_mb": start,
                     "peak_rss_mb": peak, "kb_per_query": 1024 * per_q,
                     "largest_mu": int((1024 * machine_gb - start) / per_q) if per_q > 0 else -1})  # fmt: skip
    return pd.DataFrame(rows)


def reset_peak_rss() -> bool:
    """Start a new peak-RSS window for this process (Linux: ``clear_refs`` 5 resets
    ``VmHWM``), so each partitioner of a task reports its own peak; False where the
    system offers no reset (then the peak is the process's so far)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure(
    setup: Setup, res: PipelineResult, n_dispatchers: int, costs: CostParams
) -> dict[str, Any]:
    """The row of one (algorithm, stream): throughput is the tuples after the opening
    registration of the live queries over the busiest worker's busy time on them (the
    running system's rate; the registration is replayed untimed)."""
    n = len(setup.stream.kind) - first_object(setup.stream)
    busy = res.worker_busy
    dispatch_s = res.dispatch_s / n_dispatchers
    counts = worker_counts(setup, res, costs)
    loads = np.array(counts["w_load"])
    runs = res.worker_busy_runs
    top = int(np.argmax(busy))
    fixed = pooled_fixed(
        counts["w_fixed"], counts["w_fixed_rate"], counts["w_msgs"], counts["w_objects"]
    )
    return {
        "fixed_share": float(fixed[top] / max(busy[top], 1e-12)),
        "busy_min_s": float(runs.max(axis=0).min()),
        "clock": clock_name(),
        "decode_share": float(res.workers[top].decode_s / max(busy[top], 1e-12)),
        "tuples": n,
        "throughput": n / max(busy.max(), 1e-9),
        "throughput_runs": [n / max(float(b), 1e-9) for b in runs.max(axis=0)],
        "dispatcher_throughput": n / max(dispatch_s, 1e-9),
        "model_throughput": n / max(loads.max(), 1e-9),
        "worker_busy_max_s": float(busy.max()),
        "busiest_us_per_tuple": 1e6 * float(busy[top]) / max(res.workers[top].timed_tuples, 1),
        "worker_busy_sum_s": float(busy.sum()),
        "dispatch_s": float(res.dispatch_s),
        "load_imbalance": float(loads.max() / max(loads.mean(), 1e-9)),
        "busy_imbalance": float(busy.max() / max(busy.mean(), 1e-12)),
        "total_cost": float(loads.sum()),
        "copies": int(res.info["copies"]),
        "discarded": int(res.info["discarded"]),
        "text_cells": int(res.info["text_cells"]),
        "dispatcher_mb": res.info["dispatcher_bytes"] / 1e6,
        "worker_mb": float(np.mean(res.info["worker_bytes"])) / 1e6,
        "pairs": int(res.info.get("distinct_pairs", len(res.pairs))),  # -1: not counted
        "duplicates": int(res.duplicates),
        **counts,
    }


def latency_us(
    setup: Setup,
    res: PipelineResult,
    rate: float,
    n_dispatchers: int,
    costs: CostParams,
    busy: np.ndarray | None = None,
    c_s: float = 0.0,
    shares: np.ndarray | None = None,
) -> tuple[float, float]:
    """Mean and 95th-percentile latency (microseconds) at ``rate`` tuples/s, steady state,
    with the workers' busy times ``busy`` (default: each worker's best replay) and ``c_s``
    seconds of platform cost per message (:func:`per_copy_service`).

    The stream opens with the registration of ``mu`` queries (``workload.interleave``);
    that warm-up is not timed: its tuples are all available at 0 and the steady stream
    starts arriving when every worker has finished them, so latency is measured on the
    tuples from the first object on (the paper measures a running system)."""
    n = len(setup.stream.kind)
    kind = setup.stream.kind
    first = int(np.argmax(kind == OBJ)) if (kind == OBJ).any() else 0
    service = per_copy_service(setup, res, costs, busy, c_s, shares)
    warm = res.routed.tup < first
    per_worker = np.bincount(
        res.routed.worker[warm], weights=service[warm], minlength=len(res.workers)
    )
    start = float(per_worker.max()) if warm.any() else 0.0
    idx = np.arange(n)
    arrivals = np.where(idx < first, 0.0, start + (idx - first) / rate)
    lat = multicopy_latency(
        res.routed.tup,
        res.routed.worker,
        service,
        arrivals,
        len(res.workers),
        res.dispatch_s / n_dispatchers / max(n, 1),
    )[first:]
    return float(lat.mean() * 1e6), float(np.percentile(lat, 95) * 1e6)


def run_algorithms(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Sweep task: every algorithm of ``params['algorithms']`` on one stream.

    ``n_workers`` may be a list: the first N runs every algorithm, each further N (Fig. 11)
    runs ``params['scal_algorithms']`` (default: the same) on the same stream and build
    sample, so the scalability points cost no new stream."""
    rss0 = rss_mb()
    wp = WorkloadParams(
        country=params["country"],
        n_objects=int(params["n_objects"]),
        mu=int(params["mu"]),
        query_set=params["query_set"],
        seed=int(params.get("seed", 0)),
        **({"q2_rare": params["q2_rare"]} if "q2_rare" in params else {}),
    )
    if "costs" in params:
        costs = CostParams(**params["costs"])
    else:  # no model named: the run's reading of the worker load (CostParams' default)
        costs = CostParams(**({"model": params["cost_model"]} if "cost_model" in params else {}))
    setup = make_setup(
        wp, int(params.get("g", 256)), costs, sample_min=int(params.get("sample_min", 50_000))
    )
    hp = HybridParams(**params.get("hybrid", {}))
    ns = params["n_workers"]
    ns = [int(n) for n in ns] if isinstance(ns, list | tuple) else [int(ns)]
    shared = filter_stream(setup)  # H_q's pass: the same for every partitioner
    rows = []
    for i, n_w in enumerate(ns):
        algs = (
            params["algorithms"] if i == 0 else params.get("scal_algorithms", params["algorithms"])
        )
        rows += _run_at(setup, params, list(algs), n_w, hp, costs, shared, latency=i == 0)
    rows = [{**r, "units": costs.update_unit, "rss_start_mb": rss0, "mu": wp.mu} for r in rows]
    # the same stream, partitioned in posting units (not again when the run's own units are
    # postings: ROUTELAB_READING=posting)
    if params.get("posting_algorithms") and not costs.per_posting:
        posting = costs.in_postings()
        s_p = replace(setup, stats=setup.stats.with_costs(posting))  # the same sample
        more = _run_at(
            s_p, params, list(params["posting_algorithms"]), ns[0], hp, posting, shared,
            latency=False,
        )  # fmt: skip
        rows += [{**r, "units": "posting", "rss_start_mb": rss0, "mu": wp.mu} for r in more]
    return rows


def _run_at(
    setup: Setup,
    params: dict[str, Any],
    algorithms: list[str],
    n_w: int,
    hp: HybridParams,
    costs: CostParams,
    shared: tuple[Filtered, float] | None = None,
    *,
    latency: bool = True,
) -> list[dict[str, Any]]:
    """Every algorithm at ``n_w`` workers on one prepared stream: one row each, routed
    from the stream's ``H_q`` pass ``shared`` (:func:`~routelab.spatial.engine.filter_stream`;
    None: each partitioner's pipeline makes its own).

    Latency (Fig. 8) is modelled only where a claim or figure reads it: with ``latency``, on
    the algorithms of ``params["latency_algorithms"]`` (default :data:`COMPARED`, Fig. 8's
    three); other rows carry NaN and empty replay lists (:func:`no_latency`). Fig. 11's
    worker counts and the posting-unit builds are graded on throughput only."""
    n_d = int(params.get("n_dispatchers", 4))
    rows, results = [], {}
    for alg in algorithms:
        reset_peak_rss()  # each partitioner's own peak
        gb = None
        if alg == "grid":
            part, build_s, gb = grid_on_model(setup, n_w, params.get("grid_gb", [32]))
        else:
            part, build_s = build_partition(setup, alg, n_w, hybrid=hp)
        res = run_pipeline(
            setup,
            part,
            repeats=int(params.get("repeats", 3)),
            keep_pairs=False,
            fixed=True,
            best_of=int(params.get("best_of", 1)),
            count_pairs=bool(params.get("count_pairs", False)),
            filtered=shared,
        )
        m = measure(setup, res, n_d, costs)
        results[alg] = res
        rows.append(
            {
                "algorithm": alg,
                "n_workers": n_w,
                "build_s": build_s,
                "grid_gb": gb,
                "leaves": len(part.leaves()),
                "text_leaves": text_split_leaves(part),
                **(hybrid_diagnostics(setup, part, hp) if alg == "hybrid" else {}),
                **m,
                "peak_rss_mb": peak_rss_mb(),
                "data": setup.stream.info["data"],
            }
        )
    graded = set(params.get("latency_algorithms", COMPARED)) if latency else set()
    with_latency = [r for r in rows if r["algorithm"] in graded]
    if with_latency:
        add_latency(
            setup,
            with_latency,
            {r["algorithm"]: results[r["algorithm"]] for r in with_latency},
            latency_load(params),
            n_d,
            costs,
        )
    for r in rows:
        if r["algorithm"] not in graded:
            r.update(no_latency())
    return rows


#: "moderate input speed" (Fig. 8): the latency's rate, this share of the hybrid's measured
#: capacity; ``ROUTELAB_READING=speed`` reads it as half the capacity
LATENCY_LOAD_ALTERNATIVE = 0.5


def latency_load(params: dict[str, Any]) -> float:
    """The sweep point's ``latency_load`` (Fig. 8's "moderate input speed" as a share of the
    hybrid's capacity): the point's own value, else 0.6 (our reading), or
    :data:`LATENCY_LOAD_ALTERNATIVE` under ``ROUTELAB_READING=speed``."""
    return float(pick("speed", params.get("latency_load", 0.6),
                      params.get("latency_load", LATENCY_LOAD_ALTERNATIVE)))  # fmt: skip


def no_latency() -> dict[str, Any]:
    """The latency columns of a row whose latency is not modelled: NaN and empty replay
    lists, one per cost of :data:`~routelab.spatial.lab.regime.C_GRID_US`."""
    return {"latency_us": float("nan"), "latency_p95_us": float("nan"), "latency_runs": [],
            "latency_rate": float("nan"), "latency_runs_grid": [[] for _ in C_GRID_US]}  # fmt: skip


def add_latency(
    setup: Setup,
    rows: list[dict[str, Any]],
    results: dict[str, PipelineResult],
    load: float,
    n_d: int,
    costs: CostParams,
) -> None:
    """Fig. 8's latency on every row, at a "moderate" input speed: ``load`` x the reference
    algorithm's (hybrid's) capacity. ``latency_us``/``latency_p95_us``/``latency_runs`` at
    the measured times (one mean per replay); ``latency_runs_grid[i]`` the same with
    :data:`~routelab.spatial.lab.regime.C_GRID_US`\\ ``[i]`` µs of platform cost per
    message added to every copy, the rate re-derived from the reference's capacity at that
    cost (:func:`~routelab.spatial.lab.regime.throughput_at`)."""
    ref = "hybrid" if "hybrid" in results else rows[0]["algorithm"]
    ref_res, ref_row = results[ref], next(r for r in rows if r["algorithm"] == ref)
    msgs = np.array(ref_row["w_msgs"], dtype=np.float64)
    rate = load * ref_row["throughput"]
    shares = {a: copy_shares(setup, res, costs) for a, res in results.items()}
    for r in rows:
        res, sh = results[r["algorithm"]], shares[r["algorithm"]]
        r["latency_us"], r["latency_p95_us"] = latency_us(setup, res, rate, n_d, costs, shares=sh)
        r["latency_runs"] = [
            latency_us(setup, res, rate, n_d, costs, busy, shares=sh)[0]
            for busy in res.worker_busy_runs.T
        ]  # one mean latency per replay (each worker's replay k)
        r["latency_rate"] = rate
        r["latency_runs_grid"] = []
    for c_us in C_GRID_US:
        c_s = 1e-6 * c_us
        cap = float(throughput_at(ref_res.worker_busy, msgs, ref_row["tuples"], c_s)[0])
        for r in rows:
            res = results[r["algorithm"]]
            r["latency_runs_grid"].append(
                [latency_us(setup, res, load * cap, n_d, costs, busy, c_s, shares[r["algorithm"]])[0]
                 for busy in res.worker_busy_runs.T]
            )  # fmt: skip


def grid_on_model(
    setup: Setup, n_workers: int, granularities: list[int]
) -> tuple[Partition, float, int]:
    """The grid baseline at the granularity whose build-sample model is best (the smallest
    largest worker load, Definition 1 on the sample): the paper tuned its baselines before
    measuring, so the granularity is chosen on what the partitioner sees, not on the
    throughput it is then graded by. Returns the partition, its build seconds (every
    granularity tried) and the granularity."""
    best: tuple[float, Partition, int] | None = None
    total = 0.0
    for gb in granularities:
        part, s = build_partition(setup, "grid", n_workers, grid_gb=int(gb))
        total += s
        peak = float(part.worker_loads(setup.stats).max())
        if best is None or peak < best[0]:
            best = (peak, part, int(gb))
    if best is None:
        raise ValueError("grid_gb needs at least one granularity")
    return best[1], total, best[2]


def hybrid_diagnostics(setup: Setup, part: Partition, hp: HybridParams) -> dict[str, Any]:
    """What Algorithm 1 decided and what its threshold saw: phase 1's NS / NT counts and the
    similarity probe's summary (:mod:`routelab.spatial.lab.partitioning.text_split`), with
    the probe's deepest similarities for the notebook's histogram."""
    from routelab.spatial.lab.partitioning.text_split import probe_summary, similarity_probe

    probe = similarity_probe(setup.stats, hp)
    deep = probe[(probe.depth == probe.depth.max()) & (probe.objects > 0)]
    return {
        "ns": int(part.info["NS"]),
        "nt": int(part.info["NT"]),
        **probe_summary(probe, hp.theta),
        "probe_similarities": [float(x) for x in deep.similarity],
    }


def text_split_leaves(part: Partition) -> int:
    """Leaves that hold only part of their region's terms (a text split)."""
    return sum(1 for leaf in part.leaves() if leaf.terms is not None)


def sweep(points: list[dict[str, Any]], *, local: bool = False, desc: str = "PS2Stream"):
    """Run :func:`run_algorithms` over grid points as Spark tasks."""
    from routelab.sweep import run_grid

    return run_grid(run_algorithms, points, local=local, desc=desc)


def points(
    countries: list[str],
    query_sets: list[str],
    workers: list[int],
    seeds: list[int],
    algorithms: tuple[str, ...],
    *,
    n_objects: dict[str, int],
    mu: dict[str, int],
    **common: Any,
) -> list[dict[str, Any]]:
    """Grid points (country x query set x N x seed); ``n_objects`` and ``mu`` per country,
    and any other value given as a dict keyed by country (e.g. the base grid ``g``) too."""

    def per_country(c: str) -> dict[str, Any]:
        return {k: (v[c] if isinstance(v, dict) and c in v else v) for k, v in common.items()}

    return [
        {
            "country": c,
            "query_set": q,
            "n_workers": n,
            "seed": s,
            "algorithms": tuple(algorithms),
            "n_objects": n_objects[c],
            "mu": mu[c],
            **per_country(c),
        }
        for c in countries
        for q in query_sets
        for n in workers
        for s in seeds
    ]


def figure_points(
    countries: list[str],
    scal_countries: list[str],
    workers: int,
    scal_workers: list[int],
    seeds: list[int],
    posting_sets: tuple[str, ...] = ("Q3",),
    **common: Any,
) -> list[dict[str, Any]]:
    """Notebook 11's grid for Figs. 6-11: one point per (country, query set, seed); Q1/Q2
    streams carry the six baselines and hybrid, Q3 streams hybrid, metric and kd-tree; on
    ``scal_countries`` the compared three also run at ``scal_workers`` on the same stream
    (Fig. 11). Those countries' points come first (they are the longest). On the query
    sets of ``posting_sets`` the compared three are also built with updates charged per
    posting (rows with ``units == "posting"``, beside the paper's ``"query"``)."""
    ns_scal = (workers, *[n for n in scal_workers if n != workers])
    kw = dict(common, scal_algorithms=COMPARED)
    out: list[dict[str, Any]] = []
    for c in sorted(countries, key=lambda c: c not in scal_countries):
        ns = ns_scal if c in scal_countries else (workers,)
        for qs in ("Q1", "Q2", "Q3"):
            algs = COMPARED if qs == "Q3" else BASELINES + ("hybrid",)
            more = {"posting_algorithms": COMPARED} if qs in posting_sets else {}
            out += points([c], [qs], [ns], seeds, algs, **kw, **more)
    return out


def with_params(p: WorkloadParams, **kw) -> WorkloadParams:
    return replace(p, **kw)


@dataclass(frozen=True)
class FigureFrames:
    """The sweep's runs cut as notebook 11 reads them: ``main`` (the paper's query units;
    posting units in a run under ``ROUTELAB_READING=posting``) and ``posting`` (rebuilt
    with updates per posting; empty under that flip), ``at_n`` (``main`` at the figures'
    N), ``fig6`` (the baselines on Q1/Q2), ``fig7`` (hybrid, metric, kd-tree at N) and
    ``fig11`` (the compared three at every N on the scalability countries)."""

    main: pd.DataFrame
    posting: pd.DataFrame
    at_n: pd.DataFrame
    fig6: pd.DataFrame
    fig7: pd.DataFrame
    fig11: pd.DataFrame


def split_runs(runs: pd.DataFrame, workers: int, scal_countries: list[str]) -> FigureFrames:
    """Cut :func:`sweep`'s runs (or the same frame read back from the notebook's saved
    measurements) into the frames of :class:`FigureFrames`."""
    missing = {"units", "n_workers", "query_set", "algorithm", "country"} - set(runs.columns)
    if missing:
        raise ValueError(f"not a notebook-11 runs frame: no column(s) {', '.join(sorted(missing))}")
    runs = runs.assign(**{c: runs[c].map(_plain) for c in runs.columns if _nested(runs[c])})
    # the run's own units: the paper's (per query), or per posting in a run under
    # ROUTELAB_READING=posting, whose rows are all posting rows (no second build)
    own = "query" if (runs.units == "query").any() or not len(runs) else "posting"
    main = runs[runs.units == own]
    posting = runs[runs.units == "posting"] if own == "query" else runs.iloc[:0]
    at_n = main[main.n_workers == workers]
    return FigureFrames(
        main=main,
        posting=posting,
        at_n=at_n,
        fig6=at_n[at_n.query_set.isin(["Q1", "Q2"]) & at_n.algorithm.isin(BASELINES)],
        fig7=at_n[at_n.algorithm.isin(COMPARED)],
        fig11=main[main.country.isin(scal_countries) & main.algorithm.isin(COMPARED)],
    )


def _nested(col: pd.Series) -> bool:
    """A column of arrays, as a parquet file gives back lists (of lists)."""
    return col.dtype == object and len(col) > 0 and isinstance(col.iloc[0], np.ndarray)


def _plain(value: Any) -> Any:
    """Nested arrays as nested lists (a read-back ``w_busy_runs`` is an object array of
    arrays, which ``np.array(..., dtype=float)`` cannot take)."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value] if value.dtype == object else value.tolist()
    return value
