"""Consistent hashing with virtual nodes (FISH Sect. 5): lookups, remapping, balance."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.grouping.consistent_hash import (
    build_ring,
    modulo_candidates_reference,
    nb_modulo_walk,
    ring_candidates,
    ring_candidates_reference,
    ring_lookup,
    ring_lookup_reference,
    vnode_positions,
)
from routelab.hashing import mix64, py_mix64


def _brute_owner(workers: list[int], vnodes: int, seed: int, key: int) -> int:
    """Owner by definition: the virtual node at the smallest clockwise distance from the key."""
    pos = vnode_positions(workers, vnodes, seed)
    point = np.uint64(py_mix64(key, seed))
    with np.errstate(over="ignore"):
        dist = pos - point  # uint64 arithmetic wraps: clockwise distance on the ring
    w, _ = np.unravel_index(np.argmin(dist), dist.shape)
    return workers[int(w)]


def test_ring_layout() -> None:
    ring = build_ring([5, 1, 9], vnodes=7, seed=3)
    assert ring.workers.tolist() == [1, 5, 9]
    assert ring.positions.size == 21
    assert np.all(np.diff(ring.positions.astype(object)) > 0)  # sorted, no ties
    assert sorted(np.bincount(ring.owners).tolist()) == [0] * 7 + [7, 7, 7]


@pytest.mark.parametrize("seed", [0, 1, 17])
def test_lookup_is_nearest_virtual_node_clockwise(seed: int) -> None:
    workers = [0, 2, 3, 7]
    ring = build_ring(workers, vnodes=5, seed=seed)
    keys = list(range(-50, 250))
    expected = [_brute_owner(workers, 5, seed, k) for k in keys]
    assert [ring_lookup_reference(ring, k) for k in keys] == expected
    assert ring_lookup(ring, np.array(keys)).tolist() == expected


@pytest.mark.parametrize(("n", "vnodes", "seed"), [(1, 1, 0), (3, 1, 2), (10, 7, 5), (33, 100, 9)])
def test_reference_and_numba_candidates_agree(n: int, vnodes: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    workers = np.sort(rng.choice(200, size=n, replace=False))
    ring = build_ring(workers, vnodes, seed)
    keys = rng.integers(-(2**62), 2**62, size=300)
    for d in sorted({1, 2, n // 2 + 1, n}):
        fast = ring_candidates(ring, keys, d)
        slow = [ring_candidates_reference(ring, int(k), d) for k in keys]
        assert fast.tolist() == slow
        assert all(len(set(row)) == min(d, n) for row in slow)  # distinct workers
        assert set(fast.ravel().tolist()) <= set(workers.tolist())


def test_candidates_are_prefixes_and_cover_all_workers() -> None:
    ring = build_ring(range(12), vnodes=20, seed=4)
    keys = np.arange(500)
    full = ring_candidates(ring, keys, 12)
    assert all(sorted(row) == list(range(12)) for row in full.tolist())
    for d in (1, 2, 5, 11):
        assert np.array_equal(ring_candidates(ring, keys, d), full[:, :d])
    # first candidate = owner
    assert np.array_equal(full[:, 0], ring_lookup(ring, keys))


@pytest.mark.parametrize("n", [8, 20])
def test_adding_a_worker_moves_about_one_over_n_keys_all_to_it(n: int) -> None:
    keys = np.arange(200_000)
    fractions = []
    for seed in range(3):
        before = ring_lookup(build_ring(range(n), 100, seed), keys)
        after = ring_lookup(build_ring(range(n + 1), 100, seed), keys)
        moved = before != after
        assert np.all(after[moved] == n)  # monotonicity: keys only move to the new worker
        fractions.append(moved.mean())
    # one worker's share with 100 virtual nodes varies by about 1/sqrt(100) = 10%
    assert abs(np.mean(fractions) - 1 / (n + 1)) < 0.25 / (n + 1)


@pytest.mark.parametrize("n", [8, 20])
def test_removing_a_worker_moves_only_its_keys(n: int) -> None:
    keys = np.arange(200_000)
    fractions = []
    for seed in range(3):
        removed = seed % n
        before = ring_lookup(build_ring(range(n), 100, seed), keys)
        after = ring_lookup(build_ring([w for w in range(n) if w != removed], 100, seed), keys)
        moved = before != after
        assert np.array_equal(moved, before == removed)
        fractions.append(moved.mean())
    assert abs(np.mean(fractions) - 1 / n) < 0.25 / n


def test_modulo_placement_remaps_almost_everything() -> None:
    """The "without CH" baseline of Fig. 17: changing n moves about 1 - 1/n of the keys."""
    keys = np.arange(50_000)
    n = 10
    h = mix64(keys, 3)
    before = (h % np.uint64(n)).astype(int)
    after = (h % np.uint64(n + 1)).astype(int)
    assert (before != after).mean() > 0.85
    for k in (0, 1, 12345):
        live = list(range(n))
        out = np.empty(4, np.int32)
        nb_modulo_walk(np.array(live, np.int32), np.uint64(py_mix64(k, 3)), 4, out)
        assert out.tolist() == modulo_candidates_reference(live, k, 4, 3)
        assert out[0] == before[k]


def test_virtual_nodes_even_out_the_load() -> None:
    """Fig. 8d: with one point per worker the arcs are very uneven, with 100 they are not."""
    keys = np.arange(300_000)
    n = 16

    def max_over_mean(vnodes: int) -> float:
        """Largest load over the mean, averaged over five rings."""
        ratios = []
        for seed in range(5):
            owner = ring_lookup(build_ring(range(n), vnodes, seed), keys)
            counts = np.bincount(owner, minlength=n)
            ratios.append(counts.max() / counts.mean())
        return float(np.mean(ratios))

    # one point per worker: the largest of 16 arcs is about H_16 / 16 of the ring (max/mean
    # about 3.4); 100 points: each share has a CV of about 1/sqrt(100), max/mean about 1.2
    assert max_over_mean(1) > 2.0
    assert max_over_mean(100) < 1.3


def test_bad_rings_are_rejected() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        build_ring([], 10)
    with pytest.raises(ValueError, match="vnodes"):
        build_ring([0, 1], 0)
