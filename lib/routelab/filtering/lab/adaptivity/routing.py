"""Routing events to matcher instances: broadcast vs access-predicate routing on Spark.

Beyond the paper: Fabret et al. run one matching process. Here the subscriptions are
spread over P Spark partitions (:func:`routelab.filtering.dataflow.match_on_spark`) and
events are either sent to every partition (``broadcast``, subscriptions hashed by id) or
routed by the **access predicate** (attr, value) of the subscriptions a partition holds
(``access``: whole groups per partition, balanced on nu(p) * |group|; an event goes only to
the partitions owning an equality it satisfies, plus those holding catch-all
subscriptions). :func:`routing_sweep` measures both on one workload.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from routelab.filtering.costmodel import EventStats
from routelab.filtering.dataflow import ROUTINGS, match_on_spark
from routelab.filtering.model import Events, Subscriptions


def routing_sweep(
    subs: Subscriptions,
    events: Events,
    partitions: Sequence[int] = (2, 4, 8),
    algorithms: Sequence[str] = ("propagation_wp",),
    routings: Sequence[str] = ROUTINGS,
    *,
    stats: EventStats | None = None,
    spark: Any = None,
    batch: int = 100,
    warm_up: bool = True,
    routing_schemas: Sequence[tuple[int, ...]] = (),
    catch_all: str = "spread",
) -> pd.DataFrame:
    """One row per (routing, algorithm, partitions): ``messages_per_event`` (partitions an
    event is sent to, on average), ``imbalance_checks`` and ``imbalance_match_s`` (max /
    mean over the partitions), ``throughput_eps`` (events / the slowest partition's
    matching seconds), ``matches``, ``checks`` (summed over partitions),
    ``slowest_match_s``, ``slowest_build_s`` and ``route_s`` (the driver's routing time).

    Every run's matches are checked equal to the first run's (same subscriptions and
    events, whatever the routing, algorithm or partition count): a difference raises
    ``AssertionError``. ``stats`` (default: measured on ``events``) is given to every run,
    so both routings' matchers choose the same access predicates. ``warm_up`` first runs
    every algorithm once on a few events, so the Python workers have loaded the numba
    kernels before anything is timed. ``routing_schemas`` and ``catch_all`` shape the
    access routing (:func:`routelab.filtering.dataflow.plan_access_routing`)."""
    unknown = sorted(set(routings) - set(ROUTINGS))
    if unknown:
        raise ValueError(f"unknown routing(s) {unknown}; choose from {', '.join(ROUTINGS)}")
    if stats is None:
        stats = EventStats.from_events(events.widen(subs.n_attrs))
    if warm_up:
        few = Events(events.values[:batch], events.ids[:batch])
        for algorithm in algorithms:
            for routing in routings:
                match_on_spark(
                    subs.take(np.arange(min(len(subs), 2000))),
                    few,
                    algorithm=algorithm,
                    partitions=max(partitions),
                    stats=stats,
                    spark=spark,
                    routing=routing,
                    routing_schemas=routing_schemas,
                    catch_all=catch_all,
                )
    reference: np.ndarray | None = None
    rows = []
    for algorithm in algorithms:
        for p in partitions:
            for routing in routings:
                result = match_on_spark(
                    subs,
                    events,
                    algorithm=algorithm,
                    partitions=p,
                    batch=batch,
                    stats=stats,
                    spark=spark,
                    routing=routing,
                    routing_schemas=routing_schemas,
                    catch_all=catch_all,
                )
                pairs = result.pairs[["event_id", "sub_id"]].to_numpy()
                if reference is None:
                    reference = pairs
                elif not np.array_equal(pairs, reference):
                    raise AssertionError(
                        f"{routing} routing of {algorithm} on {p} partitions found "
                        f"{len(pairs)} matches, not the {len(reference)} of the first run"
                    )
                parts = result.partitions
                rows.append(
                    {
                        "routing": routing,
                        "algorithm": algorithm,
                        "partitions": p,
                        "messages_per_event": result.summary["messages_per_event"],
                        "imbalance_checks": result.summary["imbalance_checks"],
                        "imbalance_match_s": result.summary["imbalance_match_s"],
                        "throughput_eps": result.summary["throughput_eps"],
                        "matches": len(pairs),
                        "checks": int(parts["checks"].sum()),
                        "slowest_match_s": float(parts["match_s"].max()),
                        "slowest_build_s": float(parts["build_s"].max()),
                        "route_s": result.summary["route_s"],
                    }
                )
    return pd.DataFrame(rows)
