"""The simulator, its sweep task, and local estimation with sources as Spark partitions."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.grouping.dataflow import local_estimation_on_spark
from routelab.grouping.events import WorkerEvent
from routelab.grouping.fish_kernel import fish_kernel
from routelab.grouping.inputs import round_robin_sources
from routelab.grouping.lab.tasks import simulate_task
from routelab.grouping.metrics import replication_memory
from routelab.grouping.schemes_kernel import pkg_local_kernel
from routelab.grouping.simulator import assign_sources, simulate
from routelab.sweep import grid, run_grid


def zipf_keys(n: int = 20_000, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.zipf(1.5, size=n) % 5000).astype(np.int64)


def test_summary_is_consistent_with_its_parts():
    keys = zipf_keys()
    times = np.arange(keys.size) / 100.0
    r = simulate(keys, "pkg_local", 8, 4, seed=1, times=times, n_checkpoints=50, memory_period=10)
    row = r.summary()
    assert r.loads.sum() == keys.size and r.n_sources == 4
    assert row["avg_imbalance"] == pytest.approx(r.timeline["imbalance"].mean())
    assert row["final_imbalance"] == pytest.approx(r.loads.max() - r.loads.mean())
    assert row["memory"] == replication_memory(keys, r.assignment)
    assert row["n_keys"] == np.unique(keys).size
    assert 1.0 <= row["memory_normalized"] <= 2.0  # PKG keeps a key on <= 2 workers
    assert row["memory_window"] <= row["memory"]
    assert row["param_d"] == 2 and row["label"] == "PKG (L)"
    assert len(r.timeline_rows()) == len(r.timeline)
    same = pkg_local_kernel(keys, round_robin_sources(keys.size, 4), 8, seed=1)
    np.testing.assert_array_equal(r.assignment, same)


def test_memory_orders_kg_pkg_sg():
    keys = zipf_keys(seed=2)
    mem = {s: simulate(keys, s, 10).memory_normalized for s in ("kg", "pkg_global", "sg")}
    assert mem["kg"] == 1.0
    assert mem["kg"] < mem["pkg_global"] <= 2.0 < mem["sg"]


def test_reference_implementation_gives_the_same_run():
    keys = zipf_keys(3000, seed=3)
    a = simulate(keys, "dchoices", 6, 3, implementation="reference", capacity=20)
    b = simulate(keys, "dchoices", 6, 3, capacity=20)
    np.testing.assert_array_equal(a.assignment, b.assignment)
    assert a.summary()["avg_imbalance"] == b.summary()["avg_imbalance"]


def test_source_groupings():
    keys = np.array([5, 6, 5, 7, 5, 6])
    assert assign_sources(6, 2).tolist() == [0, 1, 0, 1, 0, 1]
    by_key = assign_sources(6, 3, grouping="key", keys=keys, seed=4)
    assert len(set(by_key[keys == 5].tolist())) == 1
    users = np.array([1, 1, 2, 2, 3, 3])
    by_user = assign_sources(6, 3, grouping="key", keys=keys, source_keys=users)
    assert by_user[0] == by_user[1] and by_user[2] == by_user[3]
    with pytest.raises(ValueError, match="source_grouping"):
        assign_sources(6, 2, grouping="random")
    r = simulate(keys, "pkg_local", 3, 3, source_grouping="key", seed=4)
    assert r.n_sources == int(by_key.max()) + 1


def test_queueing_settings():
    keys = zipf_keys(4000, seed=5)
    sat = simulate(keys, "kg", 4, service_time=1e-3)
    # saturated: execution time = largest load x service time
    assert sat.queue.execution_time == pytest.approx(sat.loads.max() * 1e-3)
    slow = simulate(keys, "kg", 4, service_time=1e-3, cpu_delay=1e-3)
    assert slow.queue.execution_time == pytest.approx(2 * sat.queue.execution_time)
    paced = simulate(keys, "sg", 4, service_time=1e-3, arrival_rate=100.0)
    # SG at 100 msg/s on 4 workers of 1000 tuples/s never queues
    assert paced.queue.latency.max() == pytest.approx(1e-3)
    hetero = simulate(keys, "sg", 2, capacities=[1000.0, 250.0])
    assert hetero.queue.execution_time == pytest.approx(hetero.loads[1] / 250.0)


def test_events_are_applied_and_checked():
    keys = zipf_keys(6000, seed=6)
    events = [WorkerEvent(2000, "add", 4), WorkerEvent(4000, "remove", 0)]
    r = simulate(keys, "fish", 4, 2, events=events)
    assert r.loads.size == 5 and r.loads[4] > 0
    assert not np.any(r.assignment[4000:] == 0)
    assert not np.any(r.assignment[:2000] == 4)
    with pytest.raises(ValueError, match="kg does not support worker add/remove events"):
        simulate(keys, "kg", 4, events=events)


def test_simulate_rejects_bad_arguments():
    keys = zipf_keys(100)
    with pytest.raises(ValueError, match="has no parameter"):
        simulate(keys, "kg", 4, d=2)
    with pytest.raises(ValueError, match="unknown grouping scheme"):
        simulate(keys, "nope", 4)
    with pytest.raises(ValueError, match="arrival_rate"):
        simulate(keys, "kg", 4, arrival_rate=0)
    with pytest.raises(ValueError, match="memory_period needs times"):
        simulate(keys, "kg", 4, memory_period=1.0)


def test_simulate_task_rows():
    point = {
        "stream": "zipf",
        "stream_n_messages": 5000,
        "stream_n_keys": 500,
        "stream_z": 1.2,
        "scheme": "pkg_probe",
        "n_workers": 5,
        "n_sources": 2,
        "probe_interval": 1.0,
    }
    (row,) = simulate_task(point)
    assert row["n_messages"] == 5000 and row["n_sources"] == 2
    assert row["param_probe_interval"] == 1.0
    assert row["data"] == "synthetic" and "Zipf" in row["stands_in_for"]
    timeline = simulate_task({**point, "output": "timeline", "n_checkpoints": 10})
    assert len(timeline) == 10 and timeline[-1]["messages"] == 5000
    with pytest.raises(ValueError, match="output"):
        simulate_task({**point, "output": "both"})
    frame = run_grid(simulate_task, grid(**{k: [v] for k, v in point.items()}, seed=[0, 1]),
                     local=True, progress=False)  # fmt: skip
    assert len(frame) == 2 and set(frame["seed"]) == {0, 1}


@pytest.mark.spark
@pytest.mark.parametrize("explicit_sources", [False, True])
def test_local_estimation_on_spark_matches_in_process(spark, explicit_sources):
    keys = zipf_keys(30_000, seed=7)
    n_sources, n_workers = 4, 10
    if explicit_sources:
        sources = np.random.default_rng(1).integers(0, n_sources, size=keys.size)
    else:
        sources = round_robin_sources(keys.size, n_sources)
    expected = pkg_local_kernel(keys, sources, n_workers, seed=3)
    got = local_estimation_on_spark(
        spark, keys, n_sources, n_workers, seed=3, sources=sources if explicit_sources else None
    )
    np.testing.assert_array_equal(got, expected)


@pytest.mark.spark
def test_simulate_task_runs_as_spark_tasks(spark):
    points = grid(
        stream=["zipf"],
        stream_n_messages=[4000],
        stream_n_keys=[300],
        scheme=["kg", "pkg_local"],
        n_workers=[6],
        n_sources=[2],
    )
    on_spark = run_grid(simulate_task, points, spark=spark, progress=False)
    in_process = run_grid(simulate_task, points, local=True, progress=False)
    assert on_spark["scheme"].tolist() == ["kg", "pkg_local"]
    cols = ["avg_imbalance", "memory", "execution_time"]
    assert on_spark[cols].equals(in_process[cols])


def test_fish_waiting_times_run_on_the_queue_clock():
    """Open point (1): the router sees the queues' arrival times and capacities.

    Three workers, 0.1 ms per tuple. Key A (workers {x, y}) arrives 20 times at t = 0; one
    second later -- long after x and y drained their 10 tuples each -- key B (workers
    {y, z}) arrives 20 times, one every 0.075 ms. FISH (no hot keys, exact estimate
    refreshed at every tuple) sees y idle again, so B alternates z, y, z, y, ...: each
    worker gets one tuple every 0.15 ms and no B tuple ever waits (latency = 0.1 ms).
    Told the wrong clock (1 tuple/s, what the simulator passed before), FISH believes y
    still has ~9 s of work and sends the first 10 B tuples to z, which queue up: the 10th
    waits (10 - 0.75 * 9) service times, latency 3.25 x 0.1 ms.
    """
    from routelab.grouping.consistent_hash import build_ring, ring_candidates
    from routelab.grouping.queueing import run_queues

    candidates = ring_candidates(build_ring([0, 1, 2], 100, 0), np.arange(200), 2)
    a = 0
    b = next(k for k in range(200) if len(set(candidates[k]) & set(candidates[a])) == 1)
    (y,) = set(candidates[a]) & set(candidates[b])
    (z,) = set(candidates[b]) - {y}
    s = 1e-4
    keys = np.array([a] * 20 + [b] * 20)
    times = np.concatenate([np.zeros(20), 1.0 + np.arange(20) * 0.75 * s])
    params = {"hot_threshold": 3.0, "interval": 0.0}  # theta = 1: no key is ever hot
    r = simulate(keys, "fish", 3, times=times, service_time=s, **params)
    assert r.assignment[20:].tolist() == [z, y] * 10
    assert r.queue.latency[20:].max() == pytest.approx(s)
    same = fish_kernel(keys, None, 3, times=times, capacities=np.full(3, 1 / s), **params)
    np.testing.assert_array_equal(r.assignment, same)
    stale = fish_kernel(keys, None, 3, times=times, **params)  # capacities 1 tuple/s
    assert stale[20:30].tolist() == [z] * 10
    queue = run_queues(stale, np.full(3, s), times)
    assert queue.latency[20:].max() == pytest.approx(3.25 * s)


def test_replayed_and_saturated_clocks_reach_the_router():
    keys = zipf_keys(3000, seed=8)
    times = np.arange(keys.size) * 100.0  # real-time gaps: every worker would look idle
    caps = [4000.0, 4000.0, 1000.0, 1000.0]
    paced = simulate(keys, "fish", 4, 2, times=times, capacities=caps, arrival_rate=9000.0)
    sources = round_robin_sources(keys.size, 2)
    expected = fish_kernel(keys, sources, 4, times=np.arange(keys.size) / 9000.0,
                                 capacities=caps)  # fmt: skip
    np.testing.assert_array_equal(paced.assignment, expected)
    saturated = simulate(keys, "fish", 4, 2, times=times, capacities=caps, arrival_rate=np.inf)
    at_zero = fish_kernel(keys, sources, 4, times=np.zeros(keys.size), capacities=caps)
    np.testing.assert_array_equal(saturated.assignment, at_zero)
    assert saturated.queue.execution_time == pytest.approx(max(
        saturated.loads[w] / caps[w] for w in range(4)))  # fmt: skip
    # the waiting-time estimate splits by capacity: fast workers get about 4x the tuples
    assert saturated.loads[:2].sum() > 3 * saturated.loads[2:].sum()
    with pytest.raises(ValueError, match="arrival_rate"):
        simulate(keys, "fish", 4, arrival_rate=float("nan"))


def test_compilation_is_not_timed_as_routing(monkeypatch):
    """The first call of a numba kernel compiles it; simulate() warms the kernel on a
    prefix first, so messages_per_second is routing alone and compile_seconds holds the
    rest (a kernel that is slow only on its first call stands in for compilation)."""
    import dataclasses
    import time

    import routelab.grouping.simulator as sim
    from routelab.grouping.schemes import get_scheme

    spec = get_scheme("kg")
    calls = []

    def slow_first(*args, **kwargs):
        if not calls:
            time.sleep(0.3)
        calls.append(1)
        return spec.kernel(*args, **kwargs)

    monkeypatch.setattr(
        sim, "get_scheme", lambda name: dataclasses.replace(spec, kernel=slow_first)
    )
    keys = np.arange(5000) % 97
    result = sim.simulate(keys, "kg", 4)
    assert len(calls) == 2  # the warm-up on a prefix, then the timed run
    assert result.compile_seconds >= 0.3 > result.route_seconds
    assert result.summary()["compile_seconds"] == result.compile_seconds
    ref = sim.simulate(keys, "kg", 4, implementation="reference")
    assert ref.compile_seconds == 0.0  # nothing to compile
    np.testing.assert_array_equal(ref.assignment, result.assignment)
