"""The worker FIFO queueing model on hand-computed examples."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.grouping.queueing import run_queues, service_times


def test_five_message_hand_example():
    # workers: w0 serves in 1 s, w1 in 2 s; arrivals 0, 0, 1, 1.5, 4
    # w0: m0 [0,1], m1 waits -> [1,2], m3 arrives 1.5 waits -> [2,3]
    # w1: m2 [1,3], m4 arrives 4 -> [4,6]
    q = run_queues(
        np.array([0, 0, 1, 0, 1]),
        np.array([1.0, 2.0]),
        np.array([0.0, 0.0, 1.0, 1.5, 4.0]),
    )
    assert q.finish.tolist() == [1.0, 2.0, 3.0, 3.0, 6.0]
    assert q.latency.tolist() == [1.0, 2.0, 2.0, 1.5, 2.0]
    assert q.busy.tolist() == [3.0, 4.0]
    assert q.execution_time == 6.0
    assert q.throughput == pytest.approx(5 / 6)
    summary = q.summary()
    assert summary["latency_mean"] == pytest.approx(1.7)
    assert summary["latency_max"] == 2.0
    assert summary["latency_p50"] == 2.0  # sorted 1, 1.5, 2, 2, 2


def test_saturated_execution_time_is_the_slowest_worker():
    # everything at t=0: execution = max over workers of load * service
    assignment = np.array([0, 1, 1, 2, 1, 0])  # loads 2, 3, 1
    q = run_queues(assignment, service_times(3, capacities=[10.0, 20.0, 5.0]))
    assert q.execution_time == pytest.approx(max(2 / 10, 3 / 20, 1 / 5))
    assert q.latency[2] == pytest.approx(2 / 20)  # second tuple on w1


def test_cpu_delay_adds_to_every_service_time():
    svc = service_times(2, service_time=1e-3, cpu_delay=4e-3)
    assert svc.tolist() == pytest.approx([5e-3, 5e-3])
    svc = service_times(3, capacities=[100.0, 50.0, 200.0], cpu_delay=1e-3)
    assert svc.tolist() == pytest.approx([0.011, 0.021, 0.006])


def test_bad_queue_inputs():
    with pytest.raises(ValueError, match="nondecreasing"):
        run_queues(np.array([0, 0]), np.array([1.0]), np.array([2.0, 1.0]))
    with pytest.raises(ValueError, match="outside"):
        run_queues(np.array([0, 3]), np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="cpu_delay"):
        service_times(2, cpu_delay=-1)
    with pytest.raises(ValueError, match="capacities"):
        service_times(2, capacities=[1.0, 0.0])
    empty = run_queues(np.zeros(0, dtype=np.int64), np.array([1.0]))
    assert empty.execution_time == 0.0 and np.isnan(empty.summary()["latency_p99"])
