"""Fabret et al. Sect. 4, dynamic clustering: the oracle's matches after every insert,
delete, maintenance step and statistics change; the clustering's invariants; the metrics
against a recomputation from scratch; a hand example whose maintenance moves a known set
of subscriptions; and W0's expected table."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routelab.filtering.clusters import CATCH_ALL, match_reference
from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.dynamic import DynamicMatcher, Thresholds
from routelab.filtering.matchers import build_matcher
from routelab.filtering.model import EQ, MISSING, OPS, Events, Subscriptions, match_pairs
from routelab.filtering.oracle import oracle_match
from routelab.filtering.workload import W0, generate_events, generate_subscriptions

N_ATTRS = 5
predicate = st.tuples(st.integers(0, N_ATTRS - 1), st.sampled_from(OPS), st.integers(0, 3))
eq_predicate = st.tuples(st.integers(0, N_ATTRS - 1), st.just("="), st.integers(0, 2))
subscription = st.lists(st.one_of(eq_predicate, eq_predicate, predicate), max_size=5)
event = st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=N_ATTRS, max_size=N_ATTRS)
#: thresholds low enough that a handful of subscriptions triggers every situation
EAGER = Thresholds(bm_max=0.3, b_min=2, rp_min=2)


def _events(rows: list[list[int | None]]) -> Events:
    return Events(np.array([[MISSING if v is None else v for v in r] for r in rows], np.int64))


def _truth(live: dict[int, list], events: Events) -> set[tuple[int, int]]:
    ids = sorted(live)
    subs = Subscriptions.from_lists([live[i] for i in ids], ids=ids, n_attrs=N_ATTRS)
    ptr, idx = oracle_match(subs, events)
    return match_pairs(ptr, subs.ids[idx])


def _access_nu(m: DynamicMatcher, key: tuple) -> float:
    if key == CATCH_ALL:
        return 1.0
    if len(key) == 1:
        t = m.registry.table()
        return m.stats.nu(int(t.attr[key[0]]), int(t.value[key[0]]))
    return float(np.prod([m.stats.nu(a, v) for a, v in zip(*key, strict=True)]))


def _equalities(m: DynamicMatcher, i: int) -> dict[int, int]:
    """attr -> predicate id of subscription i's equalities (the first one per attribute)."""
    t = m.registry.table()
    out: dict[int, int] = {}
    for p in sorted(m.registry.preds_of(i).tolist()):
        if t.op[p] == EQ and int(t.attr[p]) not in out:
            out[int(t.attr[p])] = p
    return out


def check_invariants(m: DynamicMatcher) -> None:
    """Each live subscription in exactly one cluster, whose access predicate is among its
    equalities (a conjunction in a table of the configuration, or the catch-all only
    without equalities), and whose rows are its other predicates; dead ones in none;
    B(H) and BM(c) equal a recomputation from scratch; RP(H) is the sum of the
    contributions, each equal to a brute-force |Dmove| while its cluster is unchanged."""
    reg, idx = m.registry, m.index
    t = reg.table()
    alive = reg.alive.view()
    seen: list[int] = []
    sizes: dict[tuple, int] = {}
    for c in range(idx.c_count.n):
        members = idx.members(c).tolist()
        seen += members
        key = idx.access_keys[idx.c_access.data[c]]
        # BM(c) = nu(p_c) |c|, recomputed from the members and the statistics
        assert m.benefit_margin()[c] == pytest.approx(_access_nu(m, key) * len(members))
        rows, cap, off = idx.c_rows.data[c], idx.c_cap.data[c], idx.c_off.data[c]
        for j, i in enumerate(members):
            assert alive[i]
            assert idx.loc_cluster.data[i] == c and idx.loc_pos.data[i] == j
            preds = set(reg.preds_of(i).tolist())
            eq = _equalities(m, i)
            if key == CATCH_ALL:
                consumed: set[int] = set()
                assert not eq
            elif len(key) == 1:
                consumed = {key[0]}
                assert t.op[key[0]] == EQ and key[0] in preds
            else:
                schema, values = key
                assert schema in m.schemas
                # the conjunction of some equality of s on each attribute of the schema
                consumed = {
                    p
                    for p in preds
                    for a, v in zip(schema, values, strict=True)
                    if t.op[p] == EQ and t.attr[p] == a and t.value[p] == v
                }
                assert len(consumed) == len(schema)
                sizes[schema] = sizes.get(schema, 0) + 1
            column = {int(idx.cols.data[off + r * cap + j]) for r in range(rows)}
            assert column == preds - consumed and rows == len(preds - consumed)
    assert sorted(seen) == np.flatnonzero(alive).tolist()  # each live one exactly once
    assert {x: k for x, k in m.table_size.items() if k} == sizes
    assert set(m.table_size) == set(m.schemas) == set(idx.schemas)
    # reparation power: the sum of the contributions, each a brute-force |Dmove(H, {c})|
    for x, rp in m.rp.items():
        assert rp == sum(m.contrib[c][x] for c in m.repair[x])
        assert x not in m.schemas
    for c, contrib in m.contrib.items():
        if idx.c_count.data[c] == m.sent.get(c):
            assert contrib == _dmove_brute_force(m, c)


def _dmove_brute_force(m: DynamicMatcher, c: int) -> dict[tuple, int]:
    cur = _access_nu(m, m.index.access_keys[m.index.c_access.data[c]])
    out: dict[tuple, int] = {}
    for i in m.index.members(c).tolist():
        eq = _equalities(m, i)
        for k in range(2, m.max_schema_size + 1):
            for x in combinations(sorted(eq), k):
                nu = np.prod([m.nu[eq[a]] for a in x])
                if nu < cur and x not in m.schemas:
                    out[x] = out.get(x, 0) + 1
    return out


def _check_matches(m: DynamicMatcher, live: dict[int, list], events: Events) -> None:
    truth = _truth(live, events)
    ptr, ids = m.match(events)
    assert match_pairs(ptr, ids) == truth
    internal = match_reference(m.index, m.registry, events.values)
    ids_all = m.registry.ids.view()
    ref = {(e, int(ids_all[i])) for e, row in enumerate(internal) for i in row}
    assert ref == truth


@settings(max_examples=40, deadline=None)
@given(
    st.lists(subscription, min_size=1, max_size=12),
    st.lists(st.lists(subscription, min_size=1, max_size=8), min_size=1, max_size=4),
    st.lists(st.lists(st.booleans(), min_size=20, max_size=20), min_size=4, max_size=4),
    st.lists(event, min_size=1, max_size=5),
    st.lists(event, min_size=1, max_size=8),
    st.booleans(),
)
def test_dynamic_equals_the_oracle_through_churn_and_maintenance(
    initial, batches, deletes, event_rows, drift_rows, from_scratch
):
    """Inserts in batches, deletes, statistics re-estimated from a drifting window: after
    every step the kernel and the readable reference return the oracle's matches and the
    invariants hold."""
    subs = Subscriptions.from_lists(initial, n_attrs=N_ATTRS)
    events = _events(event_rows)
    m = DynamicMatcher(
        subs,
        stats=EventStats.uniform([3] * N_ATTRS),
        thresholds=EAGER,
        schemas=None if from_scratch else [(0, 1)],
        batch=3,
    )
    live = dict(enumerate(initial))
    check_invariants(m)
    _check_matches(m, live, events)
    next_id = len(initial)
    for b, batch in enumerate(batches):
        if b % 2:
            m.insert_many([(next_id + k, s) for k, s in enumerate(batch)])
        else:  # the vectorised path, from another predicate table
            ids = list(range(next_id, next_id + len(batch)))
            m.insert_subscriptions(Subscriptions.from_lists(batch, ids=ids, n_attrs=N_ATTRS))
        live.update({next_id + k: s for k, s in enumerate(batch)})
        next_id += len(batch)
        check_invariants(m)
        _check_matches(m, live, events)
        victims = [i for k, i in enumerate(sorted(live)) if deletes[b][k % 20]][: len(live) - 1]
        if victims:
            m.delete_many(victims)
            for i in victims:
                del live[i]
            check_invariants(m)
            _check_matches(m, live, events)
        m.refresh_stats(EventStats.from_events(_events(drift_rows[: b + 1] + event_rows)))
        check_invariants(m)
        _check_matches(m, live, events)


def test_single_inserts_and_deletes_through_the_interface():
    subs = Subscriptions.from_lists([[(0, "=", 1), (1, "=", 1)]] * 3, n_attrs=3)
    events = _events([[1, 1, 0], [1, 2, None]])
    m = build_matcher("dynamic", subs, stats=EventStats.from_events(events), thresholds=EAGER)
    live = dict(enumerate([[(0, "=", 1), (1, "=", 1)]] * 3))
    for k in range(3, 9):
        new = [(0, "=", 1), (1, "=", k % 3), (2, ">", k % 2)]
        m.insert(k, new)
        live[k] = new
        check_invariants(m)
    for k in (0, 4, 8):
        m.delete(k)
        del live[k]
        check_invariants(m)
    ptr, ids = m.match(events)
    assert match_pairs(ptr, ids) == _truth(live, events)
    with pytest.raises(KeyError):
        m.delete(0)


def test_hand_example_one_maintenance_step_moves_a_known_set():
    """Values uniform over 10 (nu = 0.1 per equality, 0.01 per pair). Six subscriptions,
    all reached through attribute 0 (the lowest attribute wins ties): s0..s3 have
    a0 = 1 and a1 = k, s4 has a0 = 1 and a2 > 3, s5 has a0 = 2 and a1 = 1. Cluster
    (a0 = 1) holds five subscriptions, BM = 0.1 * 5 = 0.5 >= BMmax = 0.4: it is
    redistributed (no table to go to), then sent to phase 2 where table (a0, a1) has
    RP = |{s0..s3}| = 4 >= RPmin = 3 (s4 has no equality on a1). The table is created and
    exactly s0..s3 move into it; s5's cluster (BM = 0.1) is never touched. Deleting s0..s2
    leaves B((a0, a1)) = 1 < Bmin = 2: the table is removed and s3 moves back."""
    lists = [[(0, "=", 1), (1, "=", k)] for k in range(4)]
    lists += [[(0, "=", 1), (2, ">", 3)], [(0, "=", 2), (1, "=", 1)]]
    subs = Subscriptions.from_lists(lists, n_attrs=3)
    stats = EventStats.uniform([10, 10, 10])
    th = Thresholds(bm_max=0.4, b_min=2, rp_min=3)
    m = DynamicMatcher(subs, stats=stats, thresholds=th, batch=100)
    assert m.schemas == [(0, 1)]
    assert [s.created for s in m.log] == [[(0, 1)]] and m.log[0].moved == 4
    in_table = {
        int(m.registry.ids.data[i])
        for c in range(m.index.c_count.n)
        if len(m.index.access_keys[m.index.c_access.data[c]]) == 2
        for i in m.index.members(c)
    }
    assert in_table == {0, 1, 2, 3}
    assert m.table_size == {(0, 1): 4}
    check_invariants(m)
    # the exact metrics of Sect. 4 by hand: absolute benefit sum (1 - nu(p_c)) =
    # 4 x 0.99 + 0.9 + 0.9; benefit margin sum nu(p_c) - nu(P(s)) = 0 for s0..s4 (their
    # access predicate is all their equalities) + 0.1 - 0.01 for s5 (a0 = 2 AND a1 = 1)
    exact = m.exact_metrics()
    assert exact["absolute_benefit"] == pytest.approx(5.76)
    assert exact["benefit_margin"] == pytest.approx(0.09)
    m.delete_many([0, 1, 2])
    assert m.schemas == [] and m.log[-1].dropped == [(0, 1)] and m.log[-1].moved == 1
    check_invariants(m)


def test_no_change_keeps_its_configuration():
    subs = generate_subscriptions(W0, 5_000, seed=1)
    stats = EventStats.uniform([35] * 32)
    m = DynamicMatcher(subs, stats=stats, thresholds=EAGER, schemas=[(2, 3)], adapt=False)
    m.delete_many(list(range(4_990)))
    assert m.schemas == [(2, 3)] and not m.log


def test_w0_dynamic_creates_the_fixed_pair_table_and_cuts_checks():
    """W0 from a0: the hot single-attribute clusters all send their subscriptions towards
    the table on the two fixed attributes (N/35^2 checks, the configuration the paper's
    10 ms at 6M imply); the checks
    per event fall from N/35 towards N/35^2 plus what clusters below BMmax keep."""
    n = 150_000
    subs = generate_subscriptions(W0, n, seed=3)
    events = generate_events(W0, 100, seed=4)
    stats = EventStats.uniform([35] * 32)
    m = build_matcher("dynamic", subs, stats=stats)
    th = m.thresholds
    assert (0, 1) in m.schemas
    ptr, ids = m.match(events)
    prop = build_matcher("propagation_wp", subs, stats=stats)
    ptr2, ids2 = prop.match(events)
    assert match_pairs(ptr, ids) == match_pairs(ptr2, ids2)
    # every single-equality cluster left is below BMmax: at most 32 * 35 clusters of BMmax
    left = m.last_checks.mean() - n / 35**2
    assert m.last_checks.mean() < prop.last_checks.mean() / 3
    assert left < 35 * th.bm_max * 1.5


def test_thresholds_from_the_cost_model_by_hand():
    """K_r 5, C_h 30, K_h 5, K_c 1 (the defaults), nu = 1/35: BMmax = K_r / K_c = 5 checks;
    a two-attribute table costs 5 + 30 + 2 * 5 = 45 ns per event and a move saves
    (1/35)(34/35) = 0.027755 checks: RPmin = 2 * 45 / 0.027755 = 3,242.6 -> 3,243."""
    th = Thresholds.from_cost_model(CostConstants(), 1 / 35)
    assert th.bm_max == 5
    assert th.rp_min == 3243 and th.b_min == 1621.5


def test_a_value_becoming_frequent_triggers_a_table():
    """Sect. 4.1's second cause: nu(p_c) rises. 4,000 subscriptions a0 = 1, a1 = b,
    a2 = c (b, c < 10) all reach through a0, rare at first (1 value in 1,000: BM = 4 <
    BMmax = 30). Then every event carries a0 = 1: re-estimated, nu(a0 = 1) ~ 1 and the
    cluster costs 4,000 checks per event. Redistribution sends the subscriptions to a1
    (400 per value, BM = 40 each: still hot), and
    phase 2 creates a table; the checks per event fall at least fivefold, matches stay the
    oracle's."""
    rng = np.random.default_rng(0)
    lists = [
        [(0, "=", 1), (1, "=", int(b)), (2, "=", int(c))] for b, c in rng.integers(0, 10, (4000, 2))
    ]
    subs = Subscriptions.from_lists(lists, n_attrs=3)
    m = DynamicMatcher(
        subs,
        stats=EventStats.uniform([1000, 10, 10]),
        thresholds=Thresholds(bm_max=30, b_min=5, rp_min=100),
        stats_every=500,
        stats_window=500,
    )
    assert m.schemas == []
    hot = Events(np.column_stack([np.ones(500, np.int64), rng.integers(0, 10, (500, 2))]))
    m.match(hot)
    assert m.last_checks.mean() == 4000
    assert m.schemas  # created by the maintenance the new statistics triggered
    ptr, ids = m.match(hot)
    assert m.last_checks.mean() < 800
    assert match_pairs(ptr, ids) == match_pairs(*_oracle_ids(subs, hot))
    check_invariants(m)


def _oracle_ids(subs: Subscriptions, events: Events) -> tuple[np.ndarray, np.ndarray]:
    ptr, idx = oracle_match(subs, events)
    return ptr, subs.ids[idx]


def test_bad_parameters_are_named():
    subs = Subscriptions.from_lists([[(0, "=", 1)]], n_attrs=1)
    with pytest.raises(ValueError, match="batch"):
        DynamicMatcher(subs, stats=EventStats.uniform([3]), batch=0)
    with pytest.raises(ValueError, match="statistics"):
        build_matcher("dynamic", subs)


def test_a_batch_insert_of_a_registered_id_is_refused():
    subs = Subscriptions.from_lists([[(0, "=", 1)], [(0, "=", 2)]], n_attrs=2)
    m = DynamicMatcher(subs, stats=EventStats.uniform([3, 3]))
    with pytest.raises(ValueError, match="already registered"):
        m.insert_subscriptions(Subscriptions.from_lists([[(1, "=", 1)]], ids=[1], n_attrs=2))
    with pytest.raises(ValueError, match="attributes"):
        m.insert_subscriptions(Subscriptions.from_lists([[(2, "=", 1)]], ids=[5], n_attrs=3))


def test_compaction_keeps_every_subscription_and_match():
    subs = generate_subscriptions(W0, 3_000, seed=8)
    events = generate_events(W0, 50, seed=8)
    m = DynamicMatcher(subs, stats=EventStats.uniform([35] * 32), thresholds=EAGER, batch=500)
    before = match_pairs(*m.match(events))
    m.index.garbage = m.index.cols.n  # force it
    m.maintain()
    assert m.index.garbage == 0 and m.index.cols.n <= sum(
        int(m.index.c_rows.data[c] * m.index.c_cap.data[c]) for c in range(m.index.c_count.n)
    )
    check_invariants(m)
    assert match_pairs(*m.match(events)) == before == match_pairs(*_oracle_ids(subs, events))
