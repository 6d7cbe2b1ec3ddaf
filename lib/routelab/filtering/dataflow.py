"""Fabret et al.'s matcher as a Spark dataflow: subscriptions partitioned over parallel
matcher instances (partitions play the parallel operator instances).

Subscriptions are split into P parts by a seeded stable hash of their id
(:func:`routelab.hashing.bucket`); each Spark partition plays one matcher instance: it
builds its own index (phase-1 families, clusters) over its part, then replays every event
batch (broadcast) in order and emits (event id, subscription id) pairs. The union over the
partitions is the answer (the tests check it equals the oracle's); each partition reports
its build time and its in-task matching time, so the slowest instance bounds throughput.
Spark's own per-batch scheduling cost is not in these times: one task replays all batches.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from routelab.filtering.costmodel import EventStats
from routelab.filtering.matchers import ALGORITHMS, build_matcher
from routelab.filtering.model import Events, Subscriptions
from routelab.hashing import bucket


@dataclass
class DataflowResult:
    pairs: pd.DataFrame  # event_id, sub_id
    partitions: pd.DataFrame  # partition, subscriptions, build_s, match_s, matches


def _instance(
    part: int,
    subs: Subscriptions,
    owner: np.ndarray,
    events: Events,
    algorithm: str,
    batch: int,
    stats: EventStats | None,
) -> tuple[list[np.ndarray], dict[str, Any]]:
    mine = subs.take(np.flatnonzero(owner == part))
    t0 = time.perf_counter()
    matcher = build_matcher(algorithm, mine, stats=stats) if len(mine) else None
    build_s = time.perf_counter() - t0
    out, match_s = [], 0.0
    for lo in range(0, len(events), batch):
        chunk = Events(events.values[lo : lo + batch], events.ids[lo : lo + batch])
        if matcher is None:
            continue
        t0 = time.perf_counter()
        ptr, ids = matcher.match(chunk)
        match_s += time.perf_counter() - t0
        ev = np.repeat(chunk.ids, np.diff(ptr))
        out.append(np.stack([ev, ids], axis=1))
    n_matches = int(sum(len(o) for o in out))
    info = {
        "partition": part,
        "subscriptions": len(mine),
        "build_s": build_s,
        "match_s": match_s,
        "matches": n_matches,
    }
    return out, info


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
) -> DataflowResult:
    """Match ``events`` against ``subs`` with ``partitions`` matcher instances on Spark."""
    from routelab.spark import get_spark

    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, got {partitions}")
    if algorithm == "static" and stats is None:
        stats = EventStats.from_events(events)
    spark = spark or get_spark()
    sc = spark.sparkContext
    owner = bucket(subs.ids, partitions, seed)
    shared = sc.broadcast((subs, owner, events, algorithm, batch, stats))

    def run(parts: Any) -> Any:
        s, own, ev, alg, b, st = shared.value
        for p in parts:
            pairs, info = _instance(p, s, own, ev, alg, b, st)
            yield info, (np.concatenate(pairs) if pairs else np.zeros((0, 2), np.int64))

    results = sc.parallelize(range(partitions), partitions).mapPartitions(run).collect()
    shared.unpersist()
    infos = pd.DataFrame([r[0] for r in results]).sort_values("partition", ignore_index=True)
    pairs = np.concatenate([r[1] for r in results]) if results else np.zeros((0, 2), np.int64)
    frame = pd.DataFrame(pairs, columns=["event_id", "sub_id"]).sort_values(
        ["event_id", "sub_id"], ignore_index=True
    )
    return DataflowResult(frame, infos)
