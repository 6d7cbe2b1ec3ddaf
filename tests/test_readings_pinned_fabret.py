"""Fabret et al. readings of READINGS.md pinned: each default gives the documented answer on
a small hand-checked case and the alternative the other (SIGMOD 2001, filtering)."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.dynamic import DynamicMatcher, Thresholds
from routelab.filtering.model import MISSING, Events, Subscriptions, match_pairs
from routelab.filtering.oracle import oracle_match
from routelab.filtering.static import greedy_configuration


def test_not_equal_on_a_missing_attribute_is_false() -> None:
    """``!=`` on a missing attribute (Sect. 1.1), fixed: a0 != 5 holds for a0 = 3, fails
    for a0 = 5 and for an event without a0."""
    subs = Subscriptions.from_lists([[(0, "!=", 5)]], n_attrs=2)
    events = Events(np.array([[3, 0], [5, 0], [MISSING, 0]], dtype=np.int64))
    ptr, idx = oracle_match(subs, events)
    assert match_pairs(ptr, subs.ids[idx]) == {(0, 0)}


def test_checking_costs_one_unit_per_subscription_by_default() -> None:
    """checking(p, s), cost model (Sect. 3.1): K_c per subscription checked by default
    (``checking="unit"``); ``"rows"`` K_c per remaining predicate. A subscription with 3
    remaining predicates, K_c = 2: unit 2, rows 3 x 2 = 6."""
    assert CostConstants(K_c=2.0).check_cost(3) == 2.0
    assert CostConstants(K_c=2.0, checking="rows").check_cost(3) == 6.0


def test_event_statistics_are_laplace_smoothed_with_alpha_one() -> None:
    """nu and mu, "an independent tool" (Sect. 3.1): per-attribute Laplace-smoothed value
    frequencies, alpha = 1 by default.

    a0 over three events: 1, 1, 2 (2 distinct values). alpha 1: denominator
    3 + 1 x (2 + 1) = 6; nu(a0 = 1) = (2 + 1) / 6 = 1/2, nu(a0 = 2) = 2/6, unseen 1/6.
    alpha 0: 2/3, 1/3, unseen 0. a1 is missing in one event of three: mu = 2/3."""
    events = Events(np.array([[1, 4], [1, MISSING], [2, 4]], dtype=np.int64))
    st = EventStats.from_events(events)
    assert st.nu(0, 1) == pytest.approx(1 / 2) and st.nu(0, 2) == pytest.approx(1 / 3)
    assert st.nu(0, 9) == pytest.approx(1 / 6)
    assert st.mu([1]) == pytest.approx(2 / 3)
    raw = EventStats.from_events(events, alpha=0.0)
    assert raw.nu(0, 1) == pytest.approx(2 / 3) and raw.nu(0, 9) == 0.0


def _same_triples(n: int) -> Subscriptions:
    return Subscriptions.from_lists([[(0, "=", 1), (1, "=", 1), (2, "=", 1)]] * n, n_attrs=3)


def test_greedy_schemas_up_to_three_sample_support_and_budget() -> None:
    """Greedy at 6M subscriptions (Sect. 3.2.3): schemas up to ``max_schema_size`` = 3,
    at least ``min_support`` = 2 sampled subscriptions, a seeded ``sample`` of 200,000,
    the budget ``max_space`` checked before a table is added.

    1,000 identical subscriptions a0 = a1 = a2 = 1, values uniform over 10 (nu 0.1 per
    equality), default constants K_r 5, C_h 30, K_h 5, K_c 1. Each sits in a cluster of
    nu 0.1. Pair table: gain 1,000 x (0.1 - 0.01) = 90, benefit 90 - (30 + 2 x 5) - 5 = 45.
    Triple: gain 1,000 x (0.1 - 0.001) = 99, benefit 99 - 45 - 5 = 49, same space (one
    access predicate, 1,000 references): the triple wins, after it no pair gains.
    ``max_schema_size=2``: the first pair (0, 1), after it (0, 2) and (1, 2) gain 0.
    ``sample=1``: one sampled subscription (scale 1,000: the same benefits) has support 1
    < 2: nothing; with ``min_support=1`` the triple again. ``max_space=0``: nothing."""
    subs, stats = _same_triples(1_000), EventStats.uniform([10, 10, 10])
    chosen, steps = greedy_configuration(subs, stats)
    assert chosen == [(0, 1, 2)] and steps[0].benefit == pytest.approx(49.0)
    assert greedy_configuration(subs, stats, max_schema_size=2)[0] == [(0, 1)]
    assert greedy_configuration(subs, stats, sample=1)[0] == []
    assert greedy_configuration(subs, stats, sample=1, min_support=1)[0] == [(0, 1, 2)]
    assert greedy_configuration(subs, stats, max_space=0.0)[0] == []


def test_dynamic_dmove_requires_a_strictly_more_selective_table() -> None:
    """Dynamic clustering's reparation power (Sect. 4, "Algorithm Metrics"): Dmove(H, C')
    holds the subscriptions for which H's access predicate is *strictly* more selective,
    nu(p_s^H) < nu(p_c) (default ``dmove_strict=True``; the paper prints >=).

    Five subscriptions a0 = 1 AND a1 = 7 with nu(a0 = 1) = 0.1 and nu(a1 = 7) = 1 (every
    event carries a1 = 7): the access predicate is a0 = 1 (nu 0.1), cluster BM = 0.1 x 5 =
    0.5 >= BMmax 0.3: hot, sent to phase 2. Table (a0, a1) has nu 0.1 x 1 = 0.1, equal,
    not smaller: strict RP = 0, no table. Non-strict: RP = 5 >= RPmin 3, the table is
    created although no subscription gains by moving into it (it stays empty)."""
    subs = Subscriptions.from_lists([[(0, "=", 1), (1, "=", 7)]] * 5, n_attrs=2)
    stats = EventStats(2, np.ones(2), [{}, {7: 1.0}], np.array([0.1, 0.5]))
    th = Thresholds(bm_max=0.3, b_min=1, rp_min=3)
    assert th.dmove_strict is True
    strict = DynamicMatcher(subs, stats=stats, thresholds=th, batch=100)
    assert strict.schemas == [] and strict.dmove(0) == {}
    loose = Thresholds(bm_max=0.3, b_min=1, rp_min=3, dmove_strict=False)
    m = DynamicMatcher(subs, stats=stats, thresholds=loose, batch=100)
    assert m.schemas == [(0, 1)] and m.table_size == {(0, 1): 0}
