"""SpaceSaving: hand example, the m/k error guarantee, reference == numba heap."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from routelab.grouping.spacesaving import SpaceSaving, summarize, table_size_for


def test_hand_example_replace_min_plus_one():
    # capacity 2: 1 -> {1:1}; 2 -> {1:1, 2:1}; 1 -> {1:2, 2:1};
    # 3 evicts 2 (min 1) -> 3 gets 1 + 1 = 2, error 1; 3 -> {1:2, 3:3};
    # 2 evicts 1 (min 2) -> 2 gets 3, error 2
    ss = SpaceSaving(2)
    estimates = [ss.offer(k) for k in [1, 2, 1, 3, 3, 2]]
    assert estimates == [1, 1, 2, 2, 3, 3]
    assert ss.items() == [(2, 3, 2), (3, 3, 1)]
    assert summarize(np.array([1, 2, 1, 3, 3, 2]), 2) == [(2, 3, 2), (3, 3, 1)]
    assert ss.estimate(1) == 0 and ss.max_count() == 3
    assert ss.head(2.5) == (6, 2) and ss.head(3) == (0, 0)


def test_ties_evict_the_least_recently_updated_counter():
    # 5 and 6 both count 1; 5 was updated first, so 7 replaces 5
    ss = SpaceSaving(2)
    for k in (5, 6, 7):
        ss.offer(k)
    assert ss.items() == [(7, 2, 1), (6, 1, 0)]
    assert summarize(np.array([5, 6, 7]), 2) == [(7, 2, 1), (6, 1, 0)]


@pytest.mark.parametrize("seed", range(6))
def test_error_bounded_by_m_over_k(seed):
    rng = np.random.default_rng(seed)
    capacity = int(rng.integers(5, 60))
    keys = (rng.zipf(1.2 + 0.1 * seed, size=20_000) % 3000).astype(np.int64)
    true = Counter(keys.tolist())
    m = keys.size
    rows = summarize(keys, capacity)
    assert len(rows) == min(capacity, len(true))
    assert sum(c for _, c, _ in rows) == m  # SpaceSaving's counts always sum to m
    for key, count, error in rows:
        assert true[key] <= count <= true[key] + error
        assert error <= m / capacity
    monitored = {k for k, _, _ in rows}
    assert all(k in monitored for k, c in true.items() if c > m / capacity)


@pytest.mark.parametrize("seed", range(4))
def test_reference_equals_numba_summary(seed):
    rng = np.random.default_rng(100 + seed)
    for capacity in (1, 3, 17, 64):
        keys = rng.zipf(1.3, size=4000).astype(np.int64) % 400 - 200 * (10**12)
        ss = SpaceSaving(capacity)
        for k in keys.tolist():
            ss.offer(k)
        assert ss.items() == summarize(keys, capacity)


def test_bad_capacity_and_table_size():
    with pytest.raises(ValueError, match="capacity"):
        SpaceSaving(0)
    assert table_size_for(100) == 256 and table_size_for(1) == 4
