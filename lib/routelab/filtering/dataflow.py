"""Fabret et al.'s matcher as a Spark dataflow: subscriptions partitioned over parallel
matcher instances (partitions play the parallel operator instances).

Beyond the paper: Fabret et al. run one matching process; spreading it over P instances,
and the choice of which instance sees which event, are ours. Two ways of routing
(``routing=``):

- ``"broadcast"`` (the default): subscriptions are split into P parts by a seeded stable
  hash of their id (:func:`routelab.hashing.bucket`) and every event is sent to every part;
- ``"access"``: the **routing key** of a subscription is its access predicate, the one
  propagation and static give it in A0 (the single equality (attr, =, value) of least nu,
  :func:`routelab.filtering.static.assign_access`; no equality: the catch-all group).
  Whole access-predicate groups are placed on partitions by expected load (sum of
  nu(p) * |group|, the checks an event costs; greedy largest-first onto the least-loaded
  partition), the catch-all group is dealt round-robin over all partitions. The driver
  keeps the table (attr, value) -> partition (:class:`AccessRouting`) and sends an event
  only to the partitions owning an equality it satisfies (its pairs (a, v)) plus those
  holding catch-all subscriptions: a subscription's every match satisfies its access
  predicate, so no match is lost and each partition still answers exactly the oracle's
  matches for the events it receives.

Each Spark partition plays one matcher instance: it builds its own index (phase-1
families, clusters) over its part, then replays its events in batches in order and emits
(event id, subscription id) pairs. The union over the partitions is the answer (the tests
check it equals the oracle's); each partition reports its subscriptions, the events it
received, its build time, its in-task matching time, matches and checks (subscriptions
checked, the sum of the matcher's ``last_checks``; counting's counter updates
``last_work``), so the slowest instance bounds throughput. Spark's own per-batch
scheduling cost is not in these times: one task replays all batches.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from routelab.filtering.costmodel import EventStats
from routelab.filtering.matchers import ALGORITHMS, build_matcher
from routelab.filtering.model import MISSING, Events, Subscriptions
from routelab.filtering.static import assign_access, predicate_nu
from routelab.hashing import bucket
from routelab.timing import now as clock
from routelab.uniques import unique

#: the ways of sending events to matcher instances (see the module docstring)
ROUTINGS = ("broadcast", "access")
#: where access routing puts the subscriptions without an equality (:func:`plan_access_routing`)
CATCH_ALL = ("group", "spread")


@dataclass
class DataflowResult:
    pairs: pd.DataFrame  # event_id, sub_id
    # partition, subscriptions, events (received), build_s, match_s, matches, checks
    partitions: pd.DataFrame
    # routing, partitions, events, messages_per_event, imbalance_checks, imbalance_match_s,
    # throughput_eps, route_s (see :func:`run_summary`)
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass
class AccessRouting:
    """The driver's routing table of ``routing="access"``: subscription -> partition, and
    access predicate -> partition.

    ``key_attr``/``key_value``/``key_part`` list the single-equality access predicates in
    use, sorted by (attr, value); ``tables`` the conjunctions, per schema X: its attributes,
    the keys' values (sorted rows) and their partitions; ``catch_all_parts`` the partitions
    holding catch-all subscriptions (they receive every event); ``load`` each partition's
    expected checks per event; ``group`` each subscription's access group."""

    partitions: int
    owner: np.ndarray  # partition of each subscription (row order)
    access: np.ndarray  # single-equality access predicate id, else -1 (catch-all, table)
    key_attr: np.ndarray
    key_value: np.ndarray
    key_part: np.ndarray
    catch_all_parts: np.ndarray
    load: np.ndarray
    group: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    tables: list[tuple[tuple[int, ...], np.ndarray, np.ndarray]] = field(default_factory=list)

    def route(self, events: Events) -> np.ndarray:
        """(n_events, partitions) bool: which partitions event e is sent to."""
        send = np.zeros((len(events), self.partitions), dtype=bool)
        send[:, self.catch_all_parts] = True
        values = events.values
        starts = np.searchsorted(self.key_attr, np.arange(values.shape[1] + 1))
        for a in range(values.shape[1]):
            lo, hi = starts[a], starts[a + 1]
            if lo == hi:
                continue
            col = values[:, a]
            keys = self.key_value[lo:hi]
            pos = np.minimum(np.searchsorted(keys, col), hi - lo - 1)
            hit = (col != MISSING) & (keys[pos] == col)
            send[np.flatnonzero(hit), self.key_part[lo + pos[hit]]] = True
        for schema, keys, parts in self.tables:
            if max(schema) >= values.shape[1] or not len(keys):
                continue
            ev = values[:, list(schema)]
            ok = np.flatnonzero((ev != MISSING).all(axis=1))
            ev_rows = _rows(ev[ok])
            key_rows = _rows(keys)
            pos = np.minimum(np.searchsorted(key_rows, ev_rows), len(keys) - 1)
            hit = key_rows[pos] == ev_rows
            send[ok[hit], parts[pos[hit]]] = True
        return send


def _rows(a: np.ndarray) -> np.ndarray:
    """Each row of an int64 matrix as one value (its bytes) that sorts and searches
    consistently: equal rows, equal values (the order is not the integers')."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    return a.view(np.dtype((np.void, 8 * a.shape[1]))).ravel()


def plan_access_routing(
    subs: Subscriptions,
    nu: np.ndarray,
    partitions: int,
    *,
    schemas: Sequence[tuple[int, ...]] = (),
    catch_all: str = "spread",
) -> AccessRouting:
    """Place whole access-predicate groups on ``partitions`` partitions (beyond the paper).

    Every subscription's access predicate is the one static clustering gives it in the
    configuration A0 + ``schemas`` (``assign_access``: its single equality of least nu, or
    a conjunction on a table's schema when that is more selective); a group's expected load
    is nu(p) * |group| (the checks an event costs it). Subscriptions without an equality
    (load 1 each: every event scans them) are dealt round-robin over the partitions first
    (``catch_all="spread"``: every partition then receives every event) or form one group
    like the others (``"group"``: one partition receives every event). Then the groups,
    largest load first (ties: lower key), each go wholly to the least-loaded partition
    (ties: the lower index). Deterministic in ``subs``, ``nu`` and ``schemas``."""
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, got {partitions}")
    if catch_all not in CATCH_ALL:
        raise ValueError(f"catch_all must be 'group' or 'spread', got {catch_all!r}")
    schemas = [tuple(x) for x in schemas]
    kind, used, best_nu = assign_access(subs, schemas, nu)
    t = subs.table
    n, width = used.shape
    # a group's identity: (kind, attr of a single equality, the key's values)
    ident = np.zeros((n, 2 + width), dtype=np.int64)
    ident[:, 0] = kind
    single = kind == -1
    ident[single, 1] = t.attr[used[single, 0]]
    if len(t.value):
        ident[:, 2:] = np.where(used >= 0, t.value[np.maximum(used, 0)], 0)
    catch = kind == -2
    spread = catch if catch_all == "spread" else np.zeros(n, dtype=bool)
    owner = np.empty(n, dtype=np.int64)
    load = np.zeros(partitions)
    dealt = np.flatnonzero(spread)
    owner[dealt] = np.arange(len(dealt)) % partitions
    load += np.bincount(owner[dealt], minlength=partitions)
    rest = np.flatnonzero(~spread)
    keys, first, inverse = np.unique(ident[rest], axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    group_load = np.bincount(inverse, weights=best_nu[rest], minlength=len(keys))
    order = np.lexsort((*keys.T[::-1], -group_load))
    heap = [(float(load[p]), p) for p in range(partitions)]
    heapq.heapify(heap)
    part_of = np.empty(len(keys), dtype=np.int64)
    for g in order:
        current, p = heapq.heappop(heap)
        part_of[g] = p
        load[p] = current + group_load[g]
        heapq.heappush(heap, (float(load[p]), p))
    owner[rest] = part_of[inverse]
    group = np.full(n, -1, dtype=np.int64)
    group[rest] = inverse
    g_single = np.flatnonzero(keys[:, 0] == -1)
    key_attr, key_value = keys[g_single, 1], keys[g_single, 2]
    by_key = np.lexsort((key_value, key_attr))
    tables = []
    for ti, x in enumerate(schemas):
        g = np.flatnonzero(keys[:, 0] == ti)
        vals = keys[g, 2 : 2 + len(x)]
        srt = np.argsort(_rows(vals), kind="stable")
        tables.append((x, vals[srt], part_of[g][srt]))
    return AccessRouting(
        partitions=partitions,
        owner=owner,
        access=np.where(single, used[:, 0], -1),
        key_attr=key_attr[by_key],
        key_value=key_value[by_key],
        key_part=part_of[g_single][by_key],
        catch_all_parts=unique(owner[catch]),
        load=load,
        group=group,
        tables=tables,
    )


def _take_events(events: Events, rows: np.ndarray) -> Events:
    return Events(events.values[rows], events.ids[rows])


def _instance(
    part: int,
    subs: Subscriptions,
    owner: np.ndarray,
    events: Events,
    algorithm: str,
    batch: int,
    stats: EventStats | None,
) -> tuple[list[np.ndarray], dict[str, Any]]:
    """One matcher instance: build over the subscriptions ``owner`` gives ``part``, then
    match ``events`` (the ones this instance receives) in batches."""
    mine = subs.take(np.flatnonzero(owner == part))
    t0 = clock()
    matcher = build_matcher(algorithm, mine, stats=stats) if len(mine) else None
    build_s = clock() - t0
    out, match_s, checks = [], 0.0, 0
    for lo in range(0, len(events), batch):
        chunk = Events(events.values[lo : lo + batch], events.ids[lo : lo + batch])
        if matcher is None:
            continue
        t0 = clock()
        ptr, ids = matcher.match(chunk)
        match_s += clock() - t0
        work = getattr(matcher, "last_checks", None)
        if work is None:
            work = matcher.last_work  # counting: counter updates
        checks += int(np.sum(work))
        ev = np.repeat(chunk.ids, np.diff(ptr))
        out.append(np.stack([ev, ids], axis=1))
    n_matches = int(sum(len(o) for o in out))
    info = {
        "partition": part,
        "subscriptions": len(mine),
        "events": len(events),
        "build_s": build_s,
        "match_s": match_s,
        "matches": n_matches,
        "checks": checks,
    }
    return out, info


def _imbalance(values: pd.Series) -> float:
    """max / mean (1.0 when every value is 0)."""
    mean = float(values.mean())
    return float(values.max()) / mean if mean > 0 else 1.0


def run_summary(
    infos: pd.DataFrame, n_events: int, routing: str, route_s: float = 0.0
) -> dict[str, Any]:
    """Per-run figures from the per-partition report: messages per event (partitions an
    event is sent to, on average), load imbalance (max / mean) of checks and of match
    time, throughput (events per second of the slowest partition's matching time; inf if
    it took no time)."""
    slowest = float(infos["match_s"].max()) if len(infos) else 0.0
    return {
        "routing": routing,
        "partitions": len(infos),
        "events": n_events,
        "messages_per_event": float(infos["events"].sum()) / n_events if n_events else 0.0,
        "imbalance_checks": _imbalance(infos["checks"]),
        "imbalance_match_s": _imbalance(infos["match_s"]),
        "throughput_eps": n_events / slowest if slowest > 0 else float("inf"),
        "route_s": route_s,
    }


def match_on_spark(
    subs: Subscriptions,
    events: Events,
    *,
    algorithm: str = "propagation",
    partitions: int = 4,
    seed: int = 0,
    batch: int = 100,
    stats: EventStats | None = None,
    spark: Any = None,
    routing: str = "broadcast",
    routing_schemas: Sequence[tuple[int, ...]] = (),
    catch_all: str = "spread",
) -> DataflowResult:
    """Match ``events`` against ``subs`` with ``partitions`` matcher instances on Spark.

    ``routing="broadcast"``: subscriptions hashed by id (``seed``), every event to every
    instance; ``routing="access"`` (beyond the paper): whole access-predicate groups per
    instance, each event only to the instances owning an access predicate it satisfies or
    holding catch-all subscriptions (:func:`plan_access_routing`; ``seed`` unused). The
    access predicates are chosen with ``stats`` (default: measured on ``events``), which
    the instances' matchers then get too. ``static`` and ``dynamic`` measure ``stats`` on ``events`` when
    none is given. ``routing_schemas`` (tables whose conjunctions may be access predicates,
    e.g. static's greedy configuration) and ``catch_all`` are passed to
    :func:`plan_access_routing`."""
    from routelab.spark import get_spark

    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, got {partitions}")
    if routing not in ROUTINGS:
        raise ValueError(f"unknown routing {routing!r}; choose from {', '.join(ROUTINGS)}")
    if (algorithm in ("static", "dynamic") or routing == "access") and stats is None:
        stats = EventStats.from_events(events.widen(subs.n_attrs))
    t0 = clock()
    if routing == "access":
        plan = plan_access_routing(
            subs, predicate_nu(subs, stats), partitions, schemas=routing_schemas,
            catch_all=catch_all,
        )  # fmt: skip
        owner = plan.owner
        send = plan.route(events)
        elements = [
            (p, _take_events(events, np.flatnonzero(send[:, p]))) for p in range(partitions)
        ]
        shipped = None  # each instance's events travel with its task
    else:
        owner = bucket(subs.ids, partitions, seed)
        elements = [(p, None) for p in range(partitions)]
        shipped = events  # one broadcast copy, read by every instance
    route_s = clock() - t0
    spark = spark or get_spark()
    sc = spark.sparkContext
    shared = sc.broadcast((subs, owner, shipped, algorithm, batch, stats))

    def run(parts: Any) -> Any:
        s, own, everything, alg, b, st = shared.value
        for p, received in parts:
            mine = received if received is not None else everything
            pairs, info = _instance(p, s, own, mine, alg, b, st)
            yield info, (np.concatenate(pairs) if pairs else np.zeros((0, 2), np.int64))

    results = sc.parallelize(elements, partitions).mapPartitions(run).collect()
    shared.unpersist()
    infos = pd.DataFrame([r[0] for r in results]).sort_values("partition", ignore_index=True)
    pairs = np.concatenate([r[1] for r in results]) if results else np.zeros((0, 2), np.int64)
    frame = pd.DataFrame(pairs, columns=["event_id", "sub_id"]).sort_values(
        ["event_id", "sub_id"], ignore_index=True
    )
    return DataflowResult(frame, infos, run_summary(infos, len(events), routing, route_s))
