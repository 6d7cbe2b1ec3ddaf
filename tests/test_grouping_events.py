"""Worker events and the shared input validation of the grouping schemes."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.grouping.events import (
    WorkerEvent,
    active_workers_at,
    events_to_arrays,
    normalize_events,
    reject_events,
    worker_universe,
)
from routelab.grouping.inputs import (
    as_keys,
    check_assignment,
    key_grouped_sources,
    round_robin_sources,
    route_inputs,
)


def test_worker_event_validates_fields():
    with pytest.raises(ValueError, match="kind"):
        WorkerEvent(3, "join", 1)
    with pytest.raises(ValueError, match="at"):
        WorkerEvent(-1, "add", 1)
    with pytest.raises(ValueError, match="worker"):
        WorkerEvent(0, "remove", -2)


def test_normalize_sorts_stably_and_checks_membership():
    evs = [WorkerEvent(5, "add", 3), WorkerEvent(2, "remove", 0), WorkerEvent(5, "remove", 3)]
    assert normalize_events(evs, 3, 10) == (evs[1], evs[0], evs[2])
    with pytest.raises(ValueError, match="already active"):
        normalize_events([WorkerEvent(1, "add", 2)], 3)
    with pytest.raises(ValueError, match="not active"):
        normalize_events([WorkerEvent(1, "remove", 7)], 3)
    with pytest.raises(ValueError, match="last active"):
        normalize_events([WorkerEvent(1, "remove", 0)], 1)
    with pytest.raises(ValueError, match="beyond the stream"):
        normalize_events([WorkerEvent(11, "add", 3)], 3, 10)
    with pytest.raises(ValueError, match="WorkerEvent objects"):
        normalize_events([(1, "add", 3)], 3)


def test_active_workers_replays_events():
    evs = [WorkerEvent(2, "add", 4), WorkerEvent(5, "remove", 1)]
    assert worker_universe(3, evs) == 5
    assert active_workers_at(3, evs, 1).tolist() == [True, True, True, False, False]
    assert active_workers_at(3, evs, 2).tolist() == [True, True, True, False, True]
    assert active_workers_at(3, evs, 5).tolist() == [True, False, True, False, True]
    at, kind, worker = events_to_arrays(evs)
    assert at.tolist() == [2, 5] and kind.tolist() == [0, 1] and worker.tolist() == [4, 1]


def test_reject_events_message():
    reject_events((), "kg")
    with pytest.raises(ValueError, match="kg does not support worker add/remove events"):
        reject_events([WorkerEvent(0, "add", 5)], "kg")


def test_check_assignment_finds_messages_to_inactive_workers():
    evs = [WorkerEvent(2, "remove", 1), WorkerEvent(4, "add", 3)]
    check_assignment(np.array([0, 1, 0, 2, 3, 3]), 3, evs)
    with pytest.raises(RuntimeError, match="message 2 routed to inactive worker 1"):
        check_assignment(np.array([0, 1, 1, 2, 3]), 3, evs)
    with pytest.raises(RuntimeError, match="message 3 routed to inactive worker 3"):
        check_assignment(np.array([0, 1, 0, 3]), 3, evs)
    with pytest.raises(RuntimeError, match="outside"):
        check_assignment(np.array([0, 9]), 3)


def test_route_inputs_rejects_bad_input():
    with pytest.raises(ValueError, match="integers"):
        route_inputs(np.array([1.5, 2.0]), None, 3)
    with pytest.raises(ValueError, match="one entry per message"):
        route_inputs([1, 2, 3], [0, 1], 3)
    with pytest.raises(ValueError, match=">= 0"):
        route_inputs([1, 2], [0, -1], 3)
    with pytest.raises(ValueError, match="nondecreasing; message 2"):
        route_inputs([1, 2, 3], None, 3, times=[0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="positive integer"):
        route_inputs([1], None, 0)
    with pytest.raises(ValueError, match="capacities"):
        route_inputs([1], None, 2, capacities=[1.0, -1.0])
    with pytest.raises(ValueError, match="does not support"):
        route_inputs([1], None, 2, events=[WorkerEvent(0, "add", 2)], scheme="sg")
    inp = route_inputs(np.array([3, 4], dtype=np.uint8), None, 2)
    assert inp.keys.dtype == np.int64 and inp.n_sources == 1 and inp.sources.tolist() == [0, 0]


def test_uint64_keys_keep_their_bits():
    big = np.array([2**64 - 1], dtype=np.uint64)
    assert as_keys(big).tolist() == [-1]


def test_source_assignment_helpers():
    assert round_robin_sources(5, 2).tolist() == [0, 1, 0, 1, 0]
    users = np.array([7, 8, 7, 9, 8, 7])
    src = key_grouped_sources(users, 3, seed=1)
    assert src.min() >= 0 and src.max() < 3
    assert len({int(s) for s in src[users == 7]}) == 1  # one user, one source
