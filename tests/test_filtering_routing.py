"""Access-predicate routing of events to matcher partitions (beyond the paper: Fabret et
al. run one process): the router's table by hand, routed == broadcast == oracle, the
messages it saves, whole access groups per partition, the CLI's ``--routing access``."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from command_runner import run_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routelab.filtering.costmodel import EventStats
from routelab.filtering.dataflow import match_on_spark, plan_access_routing
from routelab.filtering.model import Events, Subscriptions, match_pairs
from routelab.filtering.oracle import oracle_match
from routelab.filtering.static import predicate_nu
from routelab.filtering.workload import W0, Workload, generate_events, generate_subscriptions

SMALL = Workload("small", n_t=6, n_p=3, fix_eq=1, fix_gt=1, u_p=4, n_a=6, u_a=4)


def _truth(subs: Subscriptions, events: Events) -> set[tuple[int, int]]:
    ptr, idx = oracle_match(subs, events)
    return {(int(events.ids[e]), int(s)) for e, s in match_pairs(ptr, subs.ids[idx])}


def _pairs(result) -> set[tuple[int, int]]:
    return set(zip(result.pairs["event_id"], result.pairs["sub_id"], strict=True))


# -- the hand example: a0 = 1, a0 = 2 and one subscription without an equality ------------

HAND_SUBS = [[(0, "=", 1)], [(0, "=", 2)], [(1, ">", 5)]]
# nu(a0 = 1) = 0.6, nu(a0 = 2) = 0.3; the catch-all's load is 1 per subscription
HAND_STATS = EventStats(2, np.ones(2), [{1: 0.6, 2: 0.3}, {}], default=np.array([0.1, 0.1]))
HAND_EVENTS = [{0: 1, 1: 9}, {0: 2}, {0: 3, 1: 9}, {1: 9}]


def _hand_plan(subs_lists, partitions=2):
    subs = Subscriptions.from_lists(subs_lists, n_attrs=2)
    return subs, plan_access_routing(subs, predicate_nu(subs, HAND_STATS), partitions)


def test_hand_example_routing_table():
    subs, plan = _hand_plan(HAND_SUBS)
    # the catch-all subscription is dealt first: partition 0 (load 1); then a0 = 1 (0.6)
    # goes to the least-loaded partition 1, and a0 = 2 (0.3) too (0.6 < 1)
    assert plan.owner.tolist() == [1, 1, 0]
    assert list(zip(plan.key_attr.tolist(), plan.key_value.tolist(), strict=True)) == [
        (0, 1),
        (0, 2),
    ]
    assert plan.key_part.tolist() == [1, 1] and plan.catch_all_parts.tolist() == [0]
    assert plan.load.tolist() == pytest.approx([1.0, 0.9])
    send = plan.route(Events.from_dicts(HAND_EVENTS, 2))
    # a0 = 1 and a0 = 2 reach partition 1 (their groups) and 0 (the catch-all); a0 = 3 and
    # an event without a0 satisfy no access predicate: the catch-all partition only
    assert send.tolist() == [[True, True], [True, True], [True, False], [True, False]]


def test_hand_example_without_the_catch_all():
    _, plan = _hand_plan(HAND_SUBS[:2])
    # a0 = 1 (0.6) to partition 0, then a0 = 2 (0.3) to the least-loaded partition 1
    assert plan.owner.tolist() == [0, 1] and plan.catch_all_parts.tolist() == []
    send = plan.route(Events.from_dicts(HAND_EVENTS, 2))
    assert send.tolist() == [[True, False], [False, True], [False, False], [False, False]]


@pytest.mark.spark
def test_hand_example_on_spark(spark):
    subs = Subscriptions.from_lists(HAND_SUBS, n_attrs=2)
    events = Events.from_dicts(HAND_EVENTS, 2)
    result = match_on_spark(
        subs, events, algorithm="propagation", partitions=2, stats=HAND_STATS,
        routing="access", spark=spark,
    )  # fmt: skip
    # s0 (a0 = 1) matches e0, s1 (a0 = 2) e1, s2 (a1 > 5) e0, e2 and e3
    assert _pairs(result) == {(0, 0), (1, 1), (0, 2), (2, 2), (3, 2)} == _truth(subs, events)
    parts = result.partitions
    assert parts["subscriptions"].tolist() == [1, 2] and parts["events"].tolist() == [4, 2]
    assert parts["matches"].tolist() == [3, 2]
    assert result.summary["messages_per_event"] == pytest.approx(1.5)


# -- routed == broadcast == oracle --------------------------------------------------------


@pytest.mark.spark
@pytest.mark.parametrize("algorithm", ["counting", "propagation", "propagation_wp"])
def test_routed_equals_broadcast_equals_oracle(spark, algorithm):
    subs = generate_subscriptions(SMALL, 2000, seed=5)
    events = generate_events(SMALL, 200, seed=5)
    truth = _truth(subs, events)
    routed = match_on_spark(
        subs, events, algorithm=algorithm, partitions=3, routing="access", spark=spark
    )
    broadcast = match_on_spark(subs, events, algorithm=algorithm, partitions=3, spark=spark)
    assert _pairs(routed) == _pairs(broadcast) == truth and len(truth) > 100
    assert routed.partitions["matches"].sum() == len(routed.pairs)  # nothing twice
    assert routed.partitions["subscriptions"].sum() == len(subs)
    assert broadcast.partitions["events"].tolist() == [len(events)] * 3
    assert broadcast.summary["messages_per_event"] == 3.0
    assert routed.summary["routing"] == "access" and broadcast.summary["routing"] == "broadcast"


@pytest.mark.spark
def test_w0_access_routing_sends_fewer_messages_and_agrees(spark):
    subs = generate_subscriptions(W0, 3000, seed=2)
    events = generate_events(W0, 300, seed=2)
    truth = _truth(subs, events)
    for algorithm in ("propagation", "counting"):
        routed = match_on_spark(
            subs, events, algorithm=algorithm, partitions=4, routing="access", spark=spark
        )
        broadcast = match_on_spark(subs, events, algorithm=algorithm, partitions=4, spark=spark)
        assert _pairs(routed) == _pairs(broadcast) == truth
        s = routed.summary
        assert s["messages_per_event"] < 4 and s["events"] == len(events)
        assert s["messages_per_event"] == routed.partitions["events"].sum() / len(events)
        assert s["imbalance_checks"] >= 1.0 and s["imbalance_match_s"] >= 1.0
        assert s["throughput_eps"] > 0
    # W0's events carry all 32 attributes, each an equality some partition owns: little
    # is saved, but not nothing
    assert routed.summary["messages_per_event"] > 3


SUB_PRED = st.tuples(
    st.integers(0, 2), st.sampled_from(["=", "=", "!=", "<", ">="]), st.integers(0, 3)
)
EVENT = st.dictionaries(st.integers(0, 2), st.integers(0, 3), max_size=3)


@pytest.mark.spark
@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    subs=st.lists(st.lists(SUB_PRED, max_size=3), min_size=1, max_size=12),
    events=st.lists(EVENT, min_size=1, max_size=8),
    partitions=st.integers(1, 3),
)
def test_tiny_workloads_routed_equal_the_oracle(spark, subs, events, partitions):
    s = Subscriptions.from_lists(subs, n_attrs=3)
    e = Events.from_dicts(events, 3)
    truth = _truth(s, e)
    for algorithm in ("propagation", "counting"):
        routed = match_on_spark(
            s, e, algorithm=algorithm, partitions=partitions, routing="access", spark=spark
        )
        assert _pairs(routed) == truth, algorithm
    broadcast = match_on_spark(s, e, algorithm="propagation", partitions=partitions, spark=spark)
    assert _pairs(broadcast) == truth


# -- the balancing invariant --------------------------------------------------------------


@pytest.mark.parametrize("partitions", [1, 2, 4, 7])
def test_access_groups_stay_whole_and_the_load_is_balanced(partitions):
    base = generate_subscriptions(SMALL, 3000, seed=3)
    lists = base.as_lists()
    # a fifth without any equality: the catch-all group
    lists = [[p for p in sub if p[1] != "="] if i % 5 == 0 else sub for i, sub in enumerate(lists)]
    subs = Subscriptions.from_lists(lists, n_attrs=SMALL.n_t)
    events = generate_events(SMALL, 500, seed=3)
    stats = EventStats.from_events(events)
    nu = predicate_nu(subs, stats)
    plan = plan_access_routing(subs, nu, partitions)
    assert plan_access_routing(subs, nu, partitions).owner.tolist() == plan.owner.tolist()
    grouped = plan.access >= 0
    for pid in np.unique(plan.access[grouped]):
        assert len(set(plan.owner[plan.access == pid].tolist())) == 1  # wholly on one
    catch = np.flatnonzero(~grouped)
    assert len(catch) == 600
    assert plan.owner[catch].tolist() == (np.arange(600) % partitions).tolist()  # round-robin
    # the loads are the groups' nu * size plus 1 per catch-all subscription, and list
    # scheduling leaves no partition more than one group (or one catch-all) above another
    expected = np.zeros(partitions)
    np.add.at(expected, plan.owner, np.where(grouped, nu[np.maximum(plan.access, 0)], 1.0))
    assert plan.load == pytest.approx(expected)
    pids, counts = np.unique(plan.access[grouped], return_counts=True)
    largest = max(1.0, float((nu[pids] * counts).max()))
    assert plan.load.max() - plan.load.min() <= largest + 1e-9
    # every key of the table is a group's, on its group's partition
    key_of = {(int(a), int(v)): int(p) for a, v, p in zip(plan.key_attr, plan.key_value,
                                                        plan.key_part, strict=True)}  # fmt: skip
    t = subs.table
    for i in np.flatnonzero(grouped)[:200]:
        pid = plan.access[i]
        assert key_of[(int(t.attr[pid]), int(t.value[pid]))] == plan.owner[i]
    # an event goes to a partition iff it satisfies one of its keys or it holds catch-alls
    send = plan.route(events)
    for e in range(50):
        want = set(plan.catch_all_parts.tolist())
        want |= {
            key_of[(a, int(v))] for a, v in enumerate(events.values[e]) if (a, int(v)) in key_of
        }
        assert set(np.flatnonzero(send[e]).tolist()) == want


def test_bad_routing_fails_before_spark_runs():
    subs = generate_subscriptions(SMALL, 10, seed=1)
    events = generate_events(SMALL, 5, seed=1)
    with pytest.raises(ValueError, match="unknown routing"):
        match_on_spark(subs, events, routing="multicast", spark=object())
    with pytest.raises(ValueError, match="partitions"):
        plan_access_routing(subs, np.ones(len(subs.table)), 0)


# -- the CLI ------------------------------------------------------------------------------

SUBS_CSV = """sub_id,attr,op,value
1,carrier,=,UA
1,delay,>=,60
2,carrier,=,AA
2,dest,=,LAX
3,delay,<,0
4,dest,=,SFO
"""
EVENTS_CSV = """event_id,attr,value
10,carrier,UA
10,delay,75
10,dest,LAX
11,carrier,AA
11,delay,-3
11,dest,LAX
12,carrier,DL
12,dest,SFO
"""


@pytest.mark.spark
def test_cli_routing_access_end_to_end(tmp_path, spark, capsys):
    (tmp_path / "subs.csv").write_text(SUBS_CSV)
    (tmp_path / "events.csv").write_text(EVENTS_CSV)
    base = ["filtering", "match", "--subs", str(tmp_path / "subs.csv"), "--events",
            str(tmp_path / "events.csv"), "--workers", "2"]  # fmt: skip
    access = [*base, "--routing", "access", "--out", str(tmp_path / "a")]
    assert run_command("filtering", access) == 0
    assert run_command("filtering", [*base, "--out", str(tmp_path / "b")]) == 0
    printed = capsys.readouterr().out
    assert "access routing" in printed and "broadcast routing" in printed

    def pairs(out):
        with (out / "matches.csv").open() as fh:
            return {(int(r["event_id"]), int(r["subscription_id"])) for r in csv.DictReader(fh)}

    # by hand: 10 (UA, 75, LAX) matches 1; 11 (AA, -3, LAX) matches 2 and 3; 12 (SFO) 4
    assert pairs(tmp_path / "a") == pairs(tmp_path / "b") == {(10, 1), (11, 2), (11, 3), (12, 4)}
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["routing"] == "access" and summary["parameters"]["routing"] == "access"
    assert 1 <= summary["messages_per_event"] <= 2
    assert {"checks", "match_s"} <= set(summary["imbalance"])
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["messages_per_event"] == 2
    workers = list(csv.DictReader((tmp_path / "a" / "workers.csv").open()))
    assert [w["routing"] for w in workers] == ["access", "access"]
    assert sum(int(w["subscriptions"]) for w in workers) == 4
    assert sum(int(w["events"]) for w in workers) == round(3 * summary["messages_per_event"])
    assert {"build_s", "match_s", "matches", "checks"} <= set(workers[0])
    # bad input: an unknown routing is refused by the parser (exit 2), before Spark runs
    with pytest.raises(SystemExit) as exc:
        run_command("filtering", [*base, "--routing", "multicast", "--out", str(tmp_path / "c")])
    assert exc.value.code == 2 and not (tmp_path / "c").exists()


# -- conjunctions (static's tables) and a grouped catch-all -------------------------------


def test_table_routing_by_hand():
    """A table on (a0, a1): subscriptions with both equalities are reached through the
    conjunction, one with only a0 = 1 through the single equality, one without equality
    is the catch-all group. nu uniform over 10: groups (a0, a1) = (1, 1) and (1, 2) cost
    0.01 each, a0 = 1 costs 0.1, the catch-all 1.0. Largest first: catch-all -> 0, a0 = 1
    -> 1, (1, 1) -> 1 (0.1 < 1.0), (1, 2) -> 1 (0.11 < 1.0)."""
    subs = Subscriptions.from_lists(
        [[(0, "=", 1), (1, "=", 1)], [(0, "=", 1), (1, "=", 2)], [(0, "=", 1)], [(1, ">", 5)]],
        n_attrs=2,
    )
    nu = predicate_nu(subs, EventStats.uniform([10, 10]))
    plan = plan_access_routing(subs, nu, 2, schemas=[(0, 1)], catch_all="group")
    assert plan.owner.tolist() == [1, 1, 1, 0]
    assert plan.catch_all_parts.tolist() == [0]
    ((schema, keys, parts),) = plan.tables
    assert schema == (0, 1) and keys.tolist() == [[1, 1], [1, 2]] and parts.tolist() == [1, 1]
    events = Events.from_dicts([{0: 1, 1: 1}, {0: 2, 1: 1}, {1: 2}], 2)
    # (1, 1) hits the table and a0 = 1 (partition 1); a0 = 2 hits nothing but the catch-all
    assert plan.route(events).tolist() == [[True, True], [True, False], [True, False]]
    spread = plan_access_routing(subs, nu, 2, schemas=[(0, 1)], catch_all="spread")
    assert spread.catch_all_parts.tolist() == [0]  # one catch-all subscription, dealt to 0
    with pytest.raises(ValueError, match="catch_all"):
        plan_access_routing(subs, nu, 2, catch_all="nowhere")


def test_w0_through_the_fixed_pair_reaches_one_partition():
    """W0 with a table on its two fixed attributes: every subscription is reached through
    (a0, a1), every event carries both, so it goes to exactly the one partition owning its
    key (or none if no subscription has it); groups stay whole."""
    subs = generate_subscriptions(W0, 20_000, seed=2)
    events = generate_events(W0, 300, seed=2)
    nu = predicate_nu(subs, EventStats.uniform([35] * 32))
    plan = plan_access_routing(subs, nu, 4, schemas=[(0, 1)], catch_all="group")
    send = plan.route(events)
    assert send.sum(axis=1).max() == 1
    for g in np.unique(plan.group):
        assert len(set(plan.owner[plan.group == g].tolist())) == 1
    # the keys' rows as single values: equal rows equal, different rows different
    from routelab.filtering.dataflow import _rows

    vals = np.array([[-5, 3], [2, -1], [-5, -7], [0, 0], [2, -1]], dtype=np.int64)
    r = _rows(vals)
    assert r[1] == r[4] and len(set(r[:4].tolist())) == 4


@pytest.mark.spark
def test_table_routing_equals_the_oracle_on_spark(spark):
    subs = generate_subscriptions(SMALL, 1_500, seed=4)
    lists = [
        [p for p in s if p[1] != "="] if i % 7 == 0 else s for i, s in enumerate(subs.as_lists())
    ]
    subs = Subscriptions.from_lists(lists, n_attrs=SMALL.n_t)
    events = generate_events(SMALL, 200, seed=4)
    stats = EventStats.from_events(events)
    for catch_all in ("group", "spread"):
        result = match_on_spark(
            subs, events, algorithm="propagation", partitions=3, stats=stats, spark=spark,
            routing="access", routing_schemas=[(0, 2), (0, 3)], catch_all=catch_all,
        )  # fmt: skip
        assert _pairs(result) == _truth(subs, events)
