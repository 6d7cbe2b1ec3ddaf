"""Imbalance through time, replication memory and choice coverage on hand examples."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.grouping.events import WorkerEvent
from routelab.grouping.metrics import (
    checkpoint_counts,
    choice_coverage,
    cumulative_loads,
    imbalance,
    imbalance_through_time,
    replication_memory,
    windowed_memory,
)
from routelab.hashing import bucket

KEYS = np.array([10, 10, 10, 11, 11, 12])
ASSIGN = np.array([0, 0, 1, 0, 2, 1])


def test_imbalance_hand_example():
    # loads after each message, I = max - avg:
    # [1,0,0] 1-1/3=2/3; [2,0,0] 2-2/3=4/3; [2,1,0] 2-1=1; [3,1,0] 3-4/3=5/3;
    # [3,1,1] 3-5/3=4/3; [3,2,1] 3-2=1; average (2/3+4/3+1+5/3+4/3+1)/6 = 7/6
    frame, loads = imbalance_through_time(ASSIGN, 3, n_checkpoints=6)
    assert frame["messages"].tolist() == [1, 2, 3, 4, 5, 6]
    assert loads[-1].tolist() == [3, 2, 1]
    assert frame["imbalance"].tolist() == pytest.approx([2 / 3, 4 / 3, 1, 5 / 3, 4 / 3, 1])
    assert frame["imbalance"].mean() == pytest.approx(7 / 6)
    assert frame["imbalance_fraction"].iloc[3] == pytest.approx((5 / 3) / 4)
    assert np.isnan(frame["time"]).all()
    assert imbalance(np.array([3, 2, 1])) == pytest.approx(1.0)


def test_imbalance_counts_only_active_workers():
    # worker 2 leaves before message 3; after 4 messages loads [2,1,1] but only w0, w1
    # count: I = 2 - 1.5 = 0.5 (with w2 it would be 2 - 4/3)
    events = [WorkerEvent(3, "remove", 2)]
    frame, _ = imbalance_through_time(np.array([0, 1, 2, 0, 1, 0]), 3, events=events,
                                      n_checkpoints=6)  # fmt: skip
    assert frame["imbalance"].iloc[3] == pytest.approx(0.5)
    assert frame["imbalance"].iloc[2] == pytest.approx(0.0)  # [1,1,1] all active
    times = np.arange(6.0) * 2
    frame, _ = imbalance_through_time(ASSIGN, 3, times=times, n_checkpoints=3)
    assert frame["messages"].tolist() == [2, 4, 6] and frame["time"].tolist() == [2, 6, 10]


def test_checkpoints_and_cumulative_loads():
    assert checkpoint_counts(10, 4).tolist() == [2, 5, 8, 10]
    assert checkpoint_counts(3, 10).tolist() == [1, 2, 3]
    assert checkpoint_counts(0, 5).size == 0
    loads = cumulative_loads(ASSIGN, 4, np.array([2, 6]))
    assert loads.tolist() == [[2, 0, 0, 0], [3, 2, 1, 0]]
    with pytest.raises(ValueError):
        checkpoint_counts(10, 0)


def test_replication_memory_hand_example():
    # pairs (10,0) (10,1) (11,0) (11,2) (12,1): 5 counters for 3 keys
    assert replication_memory(KEYS, ASSIGN) == 5
    assert replication_memory(KEYS, np.zeros(6, dtype=int)) == 3
    assert replication_memory(np.zeros(0, dtype=int), np.zeros(0, dtype=int)) == 0


def test_windowed_memory_hand_example():
    # periods of 1 s: window 0 {(10,0)}, 1 {(10,1),(11,0)}, 2 {(11,2),(12,1)} -> mean 5/3
    times = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5])
    assert windowed_memory(KEYS, ASSIGN, times, 1.0) == pytest.approx(5 / 3)
    assert windowed_memory(KEYS, ASSIGN, times, 10.0) == 5
    with pytest.raises(ValueError):
        windowed_memory(KEYS, ASSIGN, times, 0.0)


def test_choice_coverage_counts_hash_choices():
    keys = np.array([3, 3, 8, 21])
    used = {int(bucket(k, 50, 7)) for k in (3, 8, 21)} | {int(bucket(k, 50, 8)) for k in (3, 8, 21)}
    assert choice_coverage(keys, 50, d=2, seed=7) == pytest.approx(len(used) / 50)
