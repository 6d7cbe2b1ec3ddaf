"""FISH end to end: numba kernel == readable reference, events, conservation, behaviour."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.grouping.events import WorkerEvent
from routelab.grouping.fish_kernel import fish_kernel
from routelab.grouping.fish_reference import fish_reference
from routelab.grouping.inputs import check_assignment


def _evolving_stream(rng: np.random.Generator, m: int, n_keys: int = 400) -> np.ndarray:
    """Zipf keys whose popular keys change halfway (a small time-evolving stream)."""
    ranks = np.minimum(rng.zipf(1.4, m), n_keys) - 1
    first, second = rng.permutation(n_keys), rng.permutation(n_keys)
    keys = np.where(np.arange(m) < m // 2, first[ranks], second[ranks]).astype(np.int64)
    return keys * 7919 - 10**6  # negative and spread-out ids


CASES = [
    dict(capacity=16, epoch_size=50),
    dict(capacity=16, epoch_size=50, decay=0.0, interval=0.0, workers_formula="share"),
    dict(capacity=24, epoch_size=40, counting="lifetime", min_workers=1, cold_choices=1),
    dict(capacity=16, epoch_size=64, hot_policy="wc", vnodes=1),
    dict(capacity=16, epoch_size=64, hot_policy="dc", decay=0.9),
    dict(capacity=16, epoch_size=30, assignment="load_count", placement="mod"),
    dict(capacity=8, epoch_size=1, hot_threshold=0.01, cold_choices=3),
    dict(capacity=32, epoch_size=100, hot_threshold=3.0, interval=0.5),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_equals_reference(case: int, seed: int) -> None:
    rng = np.random.default_rng(100 * case + seed)
    m = 2500
    n = int(rng.integers(2, 13))
    n_sources = int(rng.integers(1, 4))
    keys = _evolving_stream(rng, m)
    sources = rng.integers(0, n_sources, m)
    times = np.cumsum(rng.exponential(1.0 / (3 * n), m))  # busy: estimates matter
    caps = rng.uniform(1.0, 6.0, n)
    kw = dict(seed=seed, times=times, capacities=caps, **CASES[case])
    ref = fish_reference(keys, sources, n, **kw)
    fast = fish_kernel(keys, sources, n, **kw)
    assert fast.dtype == np.int32
    np.testing.assert_array_equal(fast, ref)
    check_assignment(fast, n)


EVENT_SETS = [
    [WorkerEvent(0, "add", 6), WorkerEvent(700, "remove", 1), WorkerEvent(700, "add", 9)],
    [WorkerEvent(300, "remove", 0), WorkerEvent(1200, "add", 0), WorkerEvent(2500, "add", 7)],
    [WorkerEvent(500, "add", 8), WorkerEvent(900, "remove", 8), WorkerEvent(1500, "remove", 2)],
]


@pytest.mark.parametrize("events", range(len(EVENT_SETS)))
@pytest.mark.parametrize("placement", ["ring", "mod"])
def test_kernel_equals_reference_with_worker_events(events: int, placement: str) -> None:
    rng = np.random.default_rng(events)
    m, n = 2500, 6
    evs = EVENT_SETS[events]
    keys = _evolving_stream(rng, m)
    sources = rng.integers(0, 2, m)
    caps = rng.uniform(1.0, 4.0, 10)
    kw = dict(seed=3, capacities=caps, events=evs, capacity=16, epoch_size=50, placement=placement)
    ref = fish_reference(keys, sources, n, **kw)
    fast = fish_kernel(keys, sources, n, **kw)
    np.testing.assert_array_equal(fast, ref)
    check_assignment(fast, n, evs)  # never routed to a worker that is not live


def test_default_parameters_agree() -> None:
    rng = np.random.default_rng(7)
    keys = rng.zipf(1.2, 3000)
    ref = fish_reference(keys, None, 16)
    np.testing.assert_array_equal(fish_kernel(keys, None, 16), ref)


@pytest.mark.parametrize("route", [fish_kernel, fish_reference])
def test_messages_are_conserved(route) -> None:
    rng = np.random.default_rng(11)
    m, n = 4000, 8
    keys = rng.zipf(1.5, m)
    sources = rng.integers(0, 3, m)
    evs = [WorkerEvent(1000, "add", 8), WorkerEvent(2000, "remove", 3)]
    out = route(keys, sources, n, events=evs, capacity=32, epoch_size=100)
    assert out.shape == (m,)
    check_assignment(out, n, evs)
    # the worker added at message 1000 takes messages after it, none before; the one removed
    # at 2000 takes none after it
    assert not (out[:1000] == 8).any() and (out[1000:] == 8).any()
    assert (out[1000:2000] == 3).any() and not (out[2000:] == 3).any()
    assert np.all(out[2000:] != 3)
    assert np.any(out[1000:] == 8)  # the new worker takes load


def test_deterministic_and_seeded() -> None:
    keys = np.random.default_rng(0).zipf(1.3, 5000)
    a = fish_kernel(keys, None, 8, seed=1)
    assert np.array_equal(a, fish_kernel(keys, None, 8, seed=1))
    assert not np.array_equal(a, fish_kernel(keys, None, 8, seed=2))


def test_hot_key_is_spread_cold_keys_use_two_workers() -> None:
    """Half the stream is key 0: after the first epoch CHK gives it every worker (relative
    formula, hottest key), while each non-hot key keeps its two ring workers."""
    rng = np.random.default_rng(5)
    m, n = 20_000, 8
    keys = np.where(rng.random(m) < 0.5, 0, rng.integers(1, 5001, m))
    out = fish_kernel(keys, None, n, capacity=200, epoch_size=200)
    hot = out[200:][keys[200:] == 0]
    per_worker = np.bincount(hot, minlength=n)
    assert per_worker.min() > 0.8 * per_worker.mean()
    cold = keys != 0
    pairs = np.unique(np.stack([keys[cold], out[cold]]), axis=1)
    assert np.bincount(np.unique(pairs[0], return_inverse=True)[1]).max() <= 2
    counts = np.bincount(out, minlength=n)
    assert counts.max() / counts.mean() < 1.02  # balanced (key grouping: about 4.5)


def test_heuristic_follows_capacity_load_count_does_not() -> None:
    """Fig. 16's mechanism: with workers of capacity 2, 2, 1, 1 fed at their total rate, the
    shortest estimated wait sends about twice as much to the fast workers; counting tuples
    sends the same to all."""
    rng = np.random.default_rng(9)
    keys = rng.integers(0, 1000, 12_000)
    caps = np.array([2.0, 2.0, 1.0, 1.0])
    kw = dict(capacities=caps, cold_choices=4, epoch_size=10**9)
    heur = np.bincount(fish_kernel(keys, None, 4, **kw), minlength=4)
    count = np.bincount(fish_kernel(keys, None, 4, assignment="load_count", **kw), minlength=4)
    np.testing.assert_allclose(heur / heur.sum(), caps / caps.sum(), atol=0.01)
    np.testing.assert_allclose(count / count.sum(), 0.25, atol=0.01)


def test_adding_a_worker_remaps_few_cold_keys() -> None:
    """Consistent hashing keeps most keys on their workers when a worker joins (Fig. 17);
    the modulo placement moves most of them."""
    rng = np.random.default_rng(2)
    m, n = 40_000, 10
    keys = rng.integers(0, 20_000, m)
    evs = [WorkerEvent(m // 2, "add", n)]
    kw = dict(events=evs, cold_choices=1, hot_threshold=1e9)  # one worker per key, no hot

    def moved_fraction(placement: str) -> float:
        out = fish_kernel(keys, None, n, placement=placement, **kw)
        before = dict(zip(keys[: m // 2].tolist(), out[: m // 2].tolist(), strict=True))
        after = dict(zip(keys[m // 2 :].tolist(), out[m // 2 :].tolist(), strict=True))
        common = before.keys() & after.keys()
        return sum(before[k] != after[k] for k in common) / len(common)

    assert moved_fraction("ring") < 1.5 / (n + 1)
    assert moved_fraction("mod") > 0.8


def test_bad_input_is_rejected_clearly() -> None:
    keys = np.arange(10)
    with pytest.raises(ValueError, match="not active"):
        fish_kernel(keys, None, 3, events=[WorkerEvent(2, "remove", 5)])
    with pytest.raises(ValueError, match="already active"):
        fish_kernel(keys, None, 3, events=[WorkerEvent(2, "add", 1)])
    with pytest.raises(ValueError, match="unknown FISH parameter"):
        fish_kernel(keys, None, 3, epochs=5)
    with pytest.raises(ValueError, match="nondecreasing"):
        fish_kernel(keys, None, 3, times=np.arange(10.0)[::-1])
    with pytest.raises(ValueError, match="capacities"):
        fish_kernel(keys, None, 3, capacities=np.ones(2))
    assert fish_kernel(np.array([], np.int64), None, 3).size == 0
    assert fish_reference(np.array([], np.int64), None, 3).size == 0
