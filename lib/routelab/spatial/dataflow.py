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
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

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
from routelab.spatial.gridt import DispatcherState, Gridt, Routed, combine_routed, dispatch
from routelab.spatial.kdt import Partition
from routelab.spatial.model import OBJ, Stream


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
    t0 = time.perf_counter()
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
    busy = time.perf_counter() - t0
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
