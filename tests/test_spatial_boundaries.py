"""Objects on every corner and edge of query rectangles and on the base grid's cell
boundaries: every partitioner's pipeline, both GI2 implementations and the adjusted replay
equal the oracle (closed rectangles), so a kernel that treats an edge as open, or puts a
boundary point in a cell its query does not cover, fails here."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.spatial.adjustment import AdjustParams, replay_adjusted
from routelab.spatial.engine import build_partition, prepare, run_pipeline, worker_tuples
from routelab.spatial.gi2 import GI2Kernel, GI2Reference
from routelab.spatial.grid import BaseGrid
from routelab.spatial.hybrid import HybridParams
from routelab.spatial.oracle import oracle_pairs
from routelab.spatial.workload import on_boundaries, random_workload

GRID = BaseGrid(0.0, 0.0, 10.0, 10.0, 16)
LINES = np.arange(17) * (10.0 / 16)


def _setup(seed: int):  # noqa: ANN202
    st = on_boundaries(random_workload(seed, n_objects=900, n_queries=120, mu=60), LINES, seed)
    n_o, n_q = len(st.objects), len(st.queries)
    return prepare(st, GRID, np.arange(n_o // 3), np.arange(n_q // 3), seed=seed)


def test_the_workload_puts_points_on_the_boundaries() -> None:
    setup = _setup(0)
    st = setup.stream
    r = st.queries.rect
    on_corner = np.isin(st.objects.lon, r[:, [0, 2]]) & np.isin(st.objects.lat, r[:, [1, 3]])
    on_line = np.isin(st.objects.lon, LINES) & np.isin(st.objects.lat, LINES)
    assert on_corner.mean() > 0.3 and on_line.mean() > 0.3
    assert (np.isin(r[:, 0], LINES) & (r[:, 2] > r[:, 0])).sum() >= 20  # snapped edges
    truth = oracle_pairs(st)
    assert len(truth) > 100  # boundary points do match


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "algorithm", ["grid", "kd-tree", "r-tree", "frequency", "metric", "hybrid"]
)
def test_pipelines_equal_the_oracle_on_boundaries(algorithm: str, seed: int) -> None:
    setup = _setup(seed)
    part, _ = build_partition(setup, algorithm, 4, hybrid=HybridParams(min_objects=20), grid_gb=4)
    truth = oracle_pairs(setup.stream)
    assert run_pipeline(setup, part).pairs == truth
    assert run_pipeline(setup, part, impl="reference").pairs == truth


def test_gi2_kernel_and_reference_agree_on_boundaries() -> None:
    setup = _setup(2)
    st = setup.stream
    part, _ = build_partition(setup, "kd-tree", 3)
    routed = run_pipeline(setup, part).routed
    for w in range(3):
        wt = worker_tuples(st, routed, w)
        k = GI2Kernel(st.objects, st.queries, setup.obj_cell, len(st.vocab)).replay(wt)
        r = GI2Reference(st.objects, st.queries, setup.obj_cell).replay(wt)
        assert sorted(zip(k.match_query.tolist(), k.match_object.tolist(), strict=True)) == sorted(
            zip(r.match_query.tolist(), r.match_object.tolist(), strict=True)
        )
        assert k.checks.tolist() == r.checks.tolist()


def test_adjusted_replay_equals_the_oracle_on_boundaries() -> None:
    setup = _setup(3)
    part, _ = build_partition(setup, "hybrid", 4, hybrid=HybridParams(min_objects=20))
    run = replay_adjusted(setup, part, AdjustParams(period=200, sigma=1.05))
    assert (run.migrations["cells"] > 0).any()
    assert run.pairs == oracle_pairs(setup.stream)
