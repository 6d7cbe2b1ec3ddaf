"""A PS2Stream run with dispatchers and workers as Spark tasks.

The stream is replayed deterministically, not streamed live. ``D`` dispatcher tasks each
receive every query request (so each keeps its own ``H_q`` consistent, our reading) and a
round-robin ``1/D`` share of the objects; only dispatcher 0 forwards the query requests.
Their output is gathered and ordered by stream position, then ``N`` worker tasks each
replay their sub-stream in order through their own GI2 and measure their busy time on
their own (``local[2]`` runs two at a time; each time is one worker's work, so the
busiest worker bounds the throughput as on the paper's one-worker-per-instance cluster).
The merger collects the pairs and removes duplicates. On a cluster only the master URL
changes.

:class:`SparkWorkers` are the workers of an adjusted replay (Sect. V,
:mod:`routelab.spatial.adjustment`) as Spark tasks: every period is one Spark job with one
task per worker; the task restores the worker's state (its live postings, checkpointed at
the end of the previous period) into a fresh GI2 index, replays the period's sub-stream,
times that replay alone, and returns its matches, candidate checks and new state.
Migrations between periods move postings between the workers' checkpointed states on the
driver, as a hot worker's serialised queries would travel to the cold one. They give the
same matches as :class:`routelab.spatial.adjust_workers.LocalWorkers` (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from routelab.spatial.adjust_workers import Postings, insertions
from routelab.spatial.engine import (
    PipelineResult,
    Setup,
    first_object,
    make_gridt,
    merge,
    replay_worker,
    run_info,
    worker_tuples,
)
from routelab.spatial.gi2 import ReplayResult, WorkerTuples, make_index
from routelab.spatial.gridt import DispatcherState, Gridt, Routed, combine_routed, dispatch
from routelab.spatial.kdt import Partition
from routelab.spatial.model import OBJ, Objects, Queries, Stream
from routelab.timing import now as clock


@dataclass
class _Shipped:
    """What the tasks need (not the build sample's statistics)."""

    stream: Stream
    obj_cell: np.ndarray
    q_range: np.ndarray
    gridt: Gridt
    n_dispatchers: int
    impl: str


def _dispatch_task(data: _Shipped, d: int) -> tuple[int, float, Routed]:
    st = data.stream
    pos = np.arange(len(st.kind))
    is_obj = st.kind == OBJ
    obj_rank = np.cumsum(is_obj) - 1
    mine = ~is_obj | (obj_rank % data.n_dispatchers == d)
    sub = pos[mine]
    kind, ref = st.kind[sub], st.ref[sub]
    dispatch(
        data.gridt,
        DispatcherState(),
        kind[:0],
        ref[:0],
        data.obj_cell,
        st.objects,
        st.queries,
        data.q_range,
    )  # compile
    state = DispatcherState()
    t0 = clock()
    r = dispatch(
        data.gridt,
        state,
        kind,
        ref,
        data.obj_cell,
        st.objects,
        st.queries,
        data.q_range,
        emit_queries=(d == 0),
    )
    busy = clock() - t0
    r.tup = sub[r.tup]
    return d, busy, r


def _worker_task(data: _Shipped, routed: Routed, w: int):
    tup = routed.tup[routed.worker == w]
    warm = int(np.searchsorted(tup, first_object(data.stream)))
    return replay_worker(
        data, worker_tuples(data.stream, routed, w), tup, w, data.impl, warm=warm, routed=routed
    )


def spark_run(
    setup: Setup, partition: Partition, n_dispatchers: int = 4, impl: str = "kernel", spark=None
) -> PipelineResult:
    """Dispatch and replay on Spark; the same result as :func:`~routelab.spatial.engine.run_pipeline`
    (pairs), with per-dispatcher and per-worker busy times measured in the tasks."""
    from routelab.spark import get_spark

    spark = spark or get_spark()
    sc = spark.sparkContext
    gt = make_gridt(setup, partition)
    data = _Shipped(setup.stream, setup.obj_cell, setup.q_range, gt, n_dispatchers, impl)
    bdata = sc.broadcast(data)
    outs = (
        sc.parallelize(range(n_dispatchers), n_dispatchers)
        .map(lambda d: _dispatch_task(bdata.value, d))
        .collect()
    )
    outs.sort(key=lambda o: o[0])
    routed = combine_routed([o[2] for o in outs])
    broute = sc.broadcast(routed)
    runs = (
        sc.parallelize(range(partition.n_workers), partition.n_workers)
        .map(lambda w: _worker_task(bdata.value, broute.value, w))
        .collect()
    )
    runs.sort(key=lambda r: r.worker)
    bdata.unpersist()
    broute.unpersist()
    pairs, dups = merge(runs)
    info = {
        **run_info(gt, routed, runs),
        "dispatcher_busy": [o[1] for o in outs],
        "n_dispatchers": n_dispatchers,
    }
    return PipelineResult(pairs, dups, runs, routed, max(o[1] for o in outs), gt, info)


def _sorted(q: np.ndarray, c: np.ndarray, k: np.ndarray) -> Postings:
    order = np.lexsort((k, c, q))
    return q[order].astype(np.int64), c[order].astype(np.int64), k[order].astype(np.int64)


def _select(post: Postings, cells: np.ndarray, terms: np.ndarray | None) -> np.ndarray:
    q, c, k = post
    sel = np.isin(c, cells)
    if terms is not None:
        sel &= np.asarray(terms, dtype=bool)[k]
    return sel


def _period_task(shared: tuple, w: int, post: Postings, wt: WorkerTuples):  # type: ignore[no-untyped-def]
    """One worker's period on a Spark executor: restore, replay (timed), checkpoint."""
    objects, queries, obj_cell, n_terms, impl, n_cells = shared
    idx = make_index(impl, objects, queries, obj_cell, n_terms)
    if len(post[0]):
        idx.replay(insertions(*post))
    t0 = clock()
    res = idx.replay(wt)
    busy = clock() - t0
    return w, res, busy, idx.cell_postings(np.arange(n_cells))


class SparkWorkers:
    """Workers as Spark tasks, one job per period; their state is their live postings,
    checkpointed between periods (module docstring)."""

    def __init__(
        self, objects: Objects, queries: Queries, obj_cell: np.ndarray, n_terms: int,
        n_workers: int, n_cells: int, impl: str = "kernel", spark=None,  # noqa: ANN001
    ) -> None:  # fmt: skip
        from routelab.spark import get_spark

        self.n_workers = n_workers
        self.sc = (spark or get_spark()).sparkContext
        empty = np.zeros(0, dtype=np.int64)
        self.state: list[Postings] = [(empty, empty, empty) for _ in range(n_workers)]
        self.shared = self.sc.broadcast((objects, queries, obj_cell, n_terms, impl, n_cells))

    def run(self, wts: list[WorkerTuples]) -> list[tuple[ReplayResult, float]]:
        shared = self.shared
        jobs = [(w, self.state[w], wts[w]) for w in range(self.n_workers)]
        outs = (
            self.sc.parallelize(jobs, self.n_workers)
            .map(lambda j: _period_task(shared.value, *j))
            .collect()
        )
        outs.sort(key=lambda o: o[0])
        self.state = [o[3] for o in outs]
        return [(o[1], o[2]) for o in outs]

    def postings(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings:
        sel = _select(self.state[w], cells, terms)
        q, c, k = self.state[w]
        return q[sel], c[sel], k[sel]

    def postings_per_cell(self, w: int, n_cells: int) -> np.ndarray:
        return np.bincount(self.state[w][1], minlength=n_cells).astype(np.int64)

    def take(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings:
        sel = _select(self.state[w], cells, terms)
        q, c, k = self.state[w]
        self.state[w] = (q[~sel], c[~sel], k[~sel])
        return q[sel], c[sel], k[sel]

    def give(self, w: int, post: Postings) -> None:
        q, c, k = self.state[w]
        self.state[w] = _sorted(np.r_[q, post[0]], np.r_[c, post[1]], np.r_[k, post[2]])

    def close(self) -> None:
        self.shared.unpersist()
