"""PS2Stream lab: Spark replay, multi-copy latency, workload recipe, bench, figures (the
claims rules: ``test_spatial_lab_claims.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.grouping.queueing import multicopy_latency
from routelab.spatial.engine import build_partition, prepare, run_pipeline
from routelab.spatial.grid import BaseGrid
from routelab.spatial.lab.workload import (
    WorkloadParams,
    helsinki_stream,
    make_queries_frame,
    place_tweets,
)
from routelab.spatial.oracle import oracle_pairs
from routelab.spatial.places import BOXES
from routelab.spatial.workload import random_workload

GRID = BaseGrid(-0.5, -0.5, 10.5, 10.5, 32)


def test_multicopy_latency_hand_example() -> None:
    """Tuple 0 copied to workers 0 and 1 (2 s and 1 s), tuple 1 to worker 1 (1 s), all
    arriving at t = 0, 0.5: tuple 0 is done at 2 (its slower copy), tuple 1 waits for
    worker 1 until 1 and is done at 2 -> latencies 2 and 1.5; a discarded tuple 2 costs
    only the dispatcher's 0.1."""
    lat = multicopy_latency(
        [0, 0, 1], [0, 1, 1], [2.0, 1.0, 1.0], np.array([0.0, 0.5, 0.6]), 2, dispatch_service=0.1
    )
    assert lat.tolist() == pytest.approx([2.1, 1.6, 0.1])


@pytest.mark.spark
@pytest.mark.parametrize("algorithm", ["hybrid", "metric"])
def test_spark_replay_equals_local_pipeline_and_oracle(spark, algorithm: str) -> None:
    from routelab.spatial.dataflow import spark_run

    st = random_workload(3, n_objects=300, n_queries=80)
    setup = prepare(st, GRID, np.arange(150), np.arange(40))
    part, _ = build_partition(setup, algorithm, 3)
    local = run_pipeline(setup, part)
    for d in (1, 3):
        res = spark_run(setup, part, n_dispatchers=d, spark=spark)
        assert res.pairs == local.pairs == oracle_pairs(st)
        for f in ("tup", "worker", "post_ptr", "post_cell", "post_key"):
            assert np.array_equal(getattr(res.routed, f), getattr(local.routed, f)), (d, f)
        assert len(res.info["dispatcher_busy"]) == d


def test_tweets_are_placed_in_the_country_with_regional_vocabulary() -> None:
    p = WorkloadParams(country="GB", n_objects=3000, mu=50, seed=1)
    t = place_tweets(p)
    lo_x, lo_y, hi_x, hi_y = BOXES["GB"]
    assert t.lon.between(lo_x, hi_x).all() and t.lat.between(lo_y, hi_y).all()
    # p_home = 0.5: a London account's tweets cluster near London more than the others'
    london = t[t.account == "bbchealth"]
    other = t[t.account == "realDonaldTrump"]  # home Glasgow
    assert (london.lon - -0.13).abs().median() < 1.0
    assert (other.lat - 55.86).abs().median() < 1.0


def test_query_sets_follow_the_paper() -> None:
    objects = place_tweets(WorkloadParams(n_objects=3000, seed=2))
    counts: dict[str, int] = {}
    for ws in objects.words:
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
    top = sorted(counts, key=lambda w: (-counts[w], w))[: int(np.ceil(0.01 * len(counts)))]
    for qs, (lo, hi) in (("Q1", (1, 50)), ("Q2", (1, 100))):
        q = make_queries_frame(objects, 400, WorkloadParams(query_set=qs, seed=2))
        rect = np.stack(q.rect)
        side_km = (rect[:, 3] - rect[:, 1]) * 111.32
        assert side_km.min() >= lo - 1e-6 and side_km.max() <= hi + 1e-6
        sizes = q.dnf.map(lambda d: len({w for c in d for w in c}))
        assert set(sizes) <= {1, 2, 3}
        rare = q.dnf.map(lambda d: any(w not in top for c in d for w in c))
        if qs == "Q2":
            assert rare.all()  # at least one keyword outside the top 1 %
        else:
            assert not rare.all()
    q3 = make_queries_frame(objects, 400, WorkloadParams(query_set="Q3", seed=2))
    assert set(q3["set"]) == {"Q1", "Q2"}


def test_helsinki_demo_matches_oracle() -> None:
    st = helsinki_stream(n_queries=60, mu=20)
    assert len(st.objects) > 1000
    from routelab.spatial.engine import build_sample, grid_for

    so, sq = build_sample(st, 0.5, 0)
    setup = prepare(st, grid_for(st, 32), so, sq)
    part, _ = build_partition(setup, "hybrid", 2)
    assert run_pipeline(setup, part).pairs == oracle_pairs(st)


def test_bench_quick_rows_agree_with_the_baseline() -> None:
    from routelab.spatial.lab.bench import DISPATCHER_GOAL, WORKER_GOAL, bench_rows

    rows = bench_rows(quick=True)

    def row(prefix: str) -> dict:
        return next(r for r in rows if r["what"].startswith(prefix))

    gi2 = row("GI2 kernel: match")
    assert "objects: True;" in gi2["note"]  # the kernel found the STRtree matcher's matches
    assert gi2["ratio"] == pytest.approx(gi2["value"] / gi2["baseline"])
    assert gi2["meets_goal"] == (gi2["value"] >= WORKER_GOAL and gi2["ratio"] >= 20)
    disp = row("gridt dispatcher: route objects")
    assert disp["meets_goal"] == (disp["value"] >= DISPATCHER_GOAL and disp["ratio"] >= 20)
    # Sect. V-A: every selection beside RA at each cell count, and migration throughput
    for name in ("DP", "GR", "SI", "RA"):
        sel = row(f"{name} selection, 1,000 cells")
        assert sel["baseline"] == row("RA selection, 1,000 cells")["value"]
    assert row("migration between GI2 indexes:")["value"] > 0


def test_kdt_map_says_what_the_build_holds() -> None:
    """Figs. 3-4 promise dotted text-split regions only when the build has some."""
    from routelab.spatial.grid import BaseGrid
    from routelab.spatial.kdt import Node, Partition
    from routelab.spatial.lab.partitioning.figures import fig3_4_kdt_map

    grid = BaseGrid.around(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 4)
    left, right = Node(0, 0, 2, 4, worker=0), Node(2, 0, 4, 4, worker=1)
    space = Partition(Node(0, 0, 4, 4, kind="space", children=[left, right]), 2, "kd-tree")
    title = fig3_4_kdt_map(space, grid, np.zeros(1), np.zeros(1), "T").layout.title.text
    assert "2 space-only regions; no region is split by text" in title and "dotted" not in title
    a, b = Node(2, 0, 4, 4, worker=1), Node(2, 0, 4, 4, worker=2)
    text = Node(2, 0, 4, 4, kind="text", children=[a, b])
    mixed = Partition(Node(0, 0, 4, 4, kind="space", children=[left, text]), 3, "hybrid")
    title = fig3_4_kdt_map(mixed, grid, np.zeros(1), np.zeros(1), "T").layout.title.text
    assert "1 space-only regions, 1 text-split (dotted)" in title


def test_a_figure_data_line_names_every_series() -> None:
    """Fig. 6-11's frames hold one row per dataset: the data line names each of them."""
    from routelab.dashboard import data_kinds
    from routelab.report import data_line

    frame = pd.DataFrame({"data": ["TWEETS-US', Q1", "TWEETS-UK', Q1", "TWEETS-US', Q1"]})
    assert data_line(frame["data"]) == "TWEETS-US', Q1; TWEETS-UK', Q1"
    assert data_line("one") == "one"
    with pytest.raises(ValueError, match="data line"):
        data_line([])
    result = {
        "figures": [{"data": data_line(frame["data"])}, {"data": "real: tweets; stress: x"}],
        "data": ["Helsinki OSM POIs (1,000 named nodes)"],
    }
    kinds = data_kinds(result)
    assert "TWEETS-UK'" in kinds and "Helsinki" in kinds and kinds.count("TWEETS-US'") == 1
    assert data_kinds({"figures": [{"data": "real tweets, x"}, {"data": "real tweets, x; y"}]}) == (
        "real tweets, x; y"
    )


def test_per_copy_service_splits_each_workers_busy_time_by_its_copies_costs() -> None:
    """The vectorized split against a per-worker loop, and its invariant: a worker's copies
    add up to its busy time, plus ``c_s`` per copy."""
    from routelab.spatial.cost import CostParams
    from routelab.spatial.lab.partitioning import experiments as sx
    from routelab.spatial.model import INS, OBJ

    p = WorkloadParams(country="GB", n_objects=3000, mu=60, seed=3)
    setup = sx.make_setup(p, 32, "gi2_checks", sample_min=500)
    part, _ = build_partition(setup, "hybrid", 4)
    res = run_pipeline(setup, part, keep_pairs=False)
    costs = CostParams(model="gi2_checks")
    busy = np.array([0.5, 1.0, 2.0, 4.0])
    got = sx.per_copy_service(setup, res, costs, busy, c_s=1e-6)
    want = np.zeros(len(res.routed))
    for w in res.workers:  # the loop the kernel replaced
        rows = np.flatnonzero(res.routed.worker == w.worker)
        k = setup.stream.kind[w.tup]
        c = np.where(k == OBJ, costs.c_o + costs.c_m * w.checks,
                     np.where(k == INS, costs.c_ins, costs.c_del))  # fmt: skip
        want[rows] = busy[w.worker] * c / max(c.sum(), 1e-12) + 1e-6
    assert np.allclose(got, want, rtol=1e-12, atol=0)
    per_worker = np.bincount(res.routed.worker, weights=got, minlength=4)
    copies = np.bincount(res.routed.worker, minlength=4)
    assert np.allclose(per_worker, np.where(copies > 0, busy + 1e-6 * copies, 0.0))
