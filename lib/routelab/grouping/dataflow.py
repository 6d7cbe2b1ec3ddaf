"""PKG's local load estimation as a Spark dataflow: every source is a Spark partition
(PKG Sect. III-B; partitions play the parallel operator instances, so the routed work
really runs in parallel).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from routelab.grouping.inputs import as_keys, as_sources, round_robin_sources

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _route_partition(index: int, blocks, n_workers: int, seed: int, d: int):
    """Run PKG local estimation on the messages of the one source held by this partition."""
    from routelab.grouping.schemes_kernel import pkg_local_kernel

    for source, (positions, keys) in blocks:
        if source != index:
            raise RuntimeError(f"source {source} landed in partition {index}")
        yield positions, pkg_local_kernel(keys, None, n_workers, seed=seed, d=d)


def local_estimation_on_spark(
    spark: SparkSession,
    keys: np.ndarray | Sequence[int],
    n_sources: int,
    n_workers: int,
    seed: int = 0,
    *,
    sources: np.ndarray | None = None,
    d: int = 2,
) -> np.ndarray:
    """PKG with local estimation (PKG Sect. III-B) where every source is a Spark partition.

    The messages of source ``s`` (round robin by default, or ``sources``) are keyed by ``s``
    and placed in partition ``s`` by an identity partitioner; each partition runs the PKG
    kernel on its own messages in stream order with its own local counts, so sources really
    route in parallel without sharing anything. Returns the worker of every message, equal
    to ``pkg_local`` run in-process with the same sources.
    """
    k = as_keys(keys)
    if sources is None:
        src = round_robin_sources(k.size, n_sources)
    else:
        src, found = as_sources(sources, k.size)
        if found > n_sources:
            raise ValueError(f"sources use {found} ids but n_sources is {n_sources}")
    blocks = []
    for s in range(int(n_sources)):
        positions = np.flatnonzero(src == s)
        blocks.append((s, (positions, k[positions])))
    n_parts = int(n_sources)
    rdd = spark.sparkContext.parallelize(blocks, n_parts).partitionBy(n_parts, lambda s: s)
    results = rdd.mapPartitionsWithIndex(
        lambda i, it: _route_partition(i, it, int(n_workers), int(seed), int(d))
    ).collect()
    assignment = np.empty(k.size, dtype=np.int32)
    for positions, routed in results:
        assignment[positions] = routed
    return assignment
