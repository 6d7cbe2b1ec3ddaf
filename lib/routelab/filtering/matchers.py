"""The algorithms compared in Sect. 6, behind one interface: build, insert, delete, match.

=====================  ================================================================
name                   what (Sect.)
=====================  ================================================================
``counting``           the counting baseline (Sect. 5): :mod:`.counting`
``propagation``        clusters whose access predicates are single equality predicates,
                       the one of least nu per subscription (Pereira et al.; Sect. 3.3's
                       best(S, A0)); no prefetching
``propagation_wp``     the same structures, cluster matching with software prefetching
                       (Sect. 2.2.3)
``static``             the greedy schema-based clustering with multi-attribute hash
                       tables (Sect. 3.2.3), with prefetching
``dynamic``             dynamic clustering (Sect. 4): loaded incrementally from A0 in batches,
                       tables created and removed by the maintenance algorithm
                       (:mod:`.dynamic`), with prefetching
``bitset``             beyond the paper: interval predicates by precomputed bitsets of
                       the subscriptions an event cannot match (Rein, HEM; :mod:`.bitset`)
=====================  ================================================================

:data:`PAPER_ALGORITHMS` are the five of Sect. 6. The clustered matchers check their
catch-all subscriptions (no equality predicate) with a bitset stage
(``catch_all="bitset"``, the default) or one by one as the paper does (``"scan"``).

The clustered matcher itself is :class:`~routelab.filtering.cluster_matcher.ClusterMatcher`.

Every matcher returns matches as CSR over the events (``ptr``, subscription ids sorted per
event), the subscriptions checked per event (``last_checks``, the paper's cost unit) and
supports ``insert(sub_id, predicates)`` / ``delete(sub_id)`` between batches.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from routelab.filtering.bitset import BitsetMatcher, bitset_reference
from routelab.filtering.cluster_matcher import ClusterMatcher
from routelab.filtering.clusters import match_reference
from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.counting import CountingMatcher, counting_reference
from routelab.filtering.dynamic import DynamicMatcher, Thresholds
from routelab.filtering.model import Events, Subscriptions
from routelab.filtering.oracle import oracle_ids
from routelab.filtering.static import greedy_configuration
from routelab.methods import Method, MethodRegistry
from routelab.protocols import Matcher


def _build_counting(subs: Subscriptions, **_: object) -> CountingMatcher:
    return CountingMatcher(subs)


def _build_propagation(
    subs: Subscriptions,
    *,
    stats: EventStats | None = None,
    prefetch: bool = False,
    catch_all: str = "bitset",
    **_: object,
) -> ClusterMatcher:
    name = "propagation_wp" if prefetch else "propagation"
    return ClusterMatcher(subs, stats=stats, prefetch=prefetch, name=name, catch_all=catch_all)


def _build_static(
    subs: Subscriptions,
    *,
    stats: EventStats | None = None,
    consts: CostConstants | None = None,
    greedy_sample: int | None = None,
    max_schema_size: int = 3,
    seed: int = 0,
    catch_all: str = "bitset",
    **_: object,
) -> ClusterMatcher:
    if stats is None:
        raise ValueError("static clustering needs event statistics (stats=)")
    schemas, _ = greedy_configuration(
        subs, stats, consts, sample=greedy_sample, max_schema_size=max_schema_size, seed=seed
    )
    return ClusterMatcher(
        subs, stats=stats, schemas=schemas, prefetch=True, name="static", catch_all=catch_all
    )


def _build_dynamic(
    subs: Subscriptions,
    *,
    stats: EventStats | None = None,
    consts: CostConstants | None = None,
    max_schema_size: int = 3,
    thresholds: Thresholds | None = None,
    batch: int = 10_000,
    catch_all: str = "bitset",
    **_: object,
) -> DynamicMatcher:
    if stats is None:
        raise ValueError("dynamic clustering needs event statistics (stats=)")
    m = DynamicMatcher(
        subs,
        stats=stats,
        consts=consts,
        thresholds=thresholds,
        max_schema_size=max_schema_size,
        batch=batch,
    )
    m.set_catch_all(catch_all)
    return m


def _build_bitset(
    subs: Subscriptions, *, buckets: int = 512, step: int = 4, **_: object
) -> BitsetMatcher:
    return BitsetMatcher(subs, buckets=buckets, step=step)


def _bitset_reference(subs: Subscriptions, events: Events, **_: object) -> list[list[int]]:
    return bitset_reference(subs, events)


def _counting_reference(subs: Subscriptions, events: Events, **_: object) -> list[list[int]]:
    return counting_reference(subs, events)


def _cluster_reference(build: Callable[..., ClusterMatcher]) -> Callable[..., list[list[int]]]:
    def reference(subs: Subscriptions, events: Events, **params: object) -> list[list[int]]:
        """Fig. 2 and cluster_matching in plain Python over the structures ``build`` makes."""
        m = build(subs, **params)
        internal = match_reference(m.index, m.registry, events.widen(m.registry.n_attrs).values)
        ids = m.registry.ids.view()
        return [sorted(int(ids[i]) for i in row) for row in internal]

    return reference


#: the five algorithms of Sect. 6 and ``bitset``: ``kernel(subs, **params)`` builds a
#: matcher (:class:`routelab.protocols.Matcher`: ``match``, ``insert``, ``delete``);
#: ``reference(subs, events, **params)`` returns each event's matching subscription ids by
#: the readable version of the same algorithm; ``oracle`` (same call) the brute force's
MATCHERS: MethodRegistry[Method] = MethodRegistry(
    "matching algorithm",
    [
        Method(
            "counting",
            "counting",
            "Sect. 5",
            _build_counting,
            _counting_reference,
            oracle=oracle_ids,
        ),
        Method(
            "propagation",
            "propagation",
            "Sects. 2.2, 3.3 (best(S, A0))",
            _build_propagation,
            _cluster_reference(_build_propagation),
            oracle=oracle_ids,
        ),
        Method(
            "propagation_wp",
            "propagation (prefetching)",
            "Sect. 2.2.3",
            partial(_build_propagation, prefetch=True),
            _cluster_reference(partial(_build_propagation, prefetch=True)),
            oracle=oracle_ids,
        ),
        Method(
            "static",
            "static",
            "Sect. 3.2.3",
            _build_static,
            _cluster_reference(_build_static),
            {"greedy_sample": 200_000, "max_schema_size": 3},
            oracle=oracle_ids,
        ),
        Method(
            "dynamic",
            "dynamic",
            "Sect. 4",
            _build_dynamic,
            _cluster_reference(_build_dynamic),
            {"max_schema_size": 3, "batch": 10_000},
            oracle=oracle_ids,
        ),
        Method(
            "bitset",
            "bitset (interval)",
            "beyond the paper: Rein (INFOCOM'14), HEM (DASFAA'22)",
            _build_bitset,
            _bitset_reference,
            {"buckets": 512, "step": 8},
            oracle=oracle_ids,
        ),
    ],
)
ALGORITHMS = MATCHERS.names
#: the five algorithms of the paper's Sect. 6 (its figures compare these)
PAPER_ALGORITHMS = ("counting", "propagation", "propagation_wp", "static", "dynamic")


def build_matcher(algorithm: str, subs: Subscriptions, **params: object) -> Matcher:
    """Build one of :data:`MATCHERS` over ``subs``. ``params``: ``stats`` (event
    statistics from sample events, needed by ``static`` to cost its tables; ``propagation``
    uses them to pick the access predicate of least nu, else the lowest attribute),
    ``consts``, ``greedy_sample``, ``max_schema_size``, ``seed`` (``static``'s greedy),
    ``thresholds`` and ``batch`` (``dynamic``'s maintenance and loading batch)."""
    unknown = sorted(set(params) - BUILD_PARAMS)
    if unknown:
        raise TypeError(
            f"build_matcher got unknown parameter(s) {unknown}; use {sorted(BUILD_PARAMS)}"
        )
    return MATCHERS.lookup(algorithm).kernel(subs, **params)


#: what :func:`build_matcher` passes on to the algorithms' builders
BUILD_PARAMS = frozenset(
    {"stats", "consts", "greedy_sample", "max_schema_size", "seed", "thresholds", "batch",
     "buckets", "step", "catch_all"}
)  # fmt: skip
