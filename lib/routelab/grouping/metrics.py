"""Load-balance and memory metrics of a routing (PKG Sect. II, V; FISH Sect. 6.1).

- Load ``L_i(t)``: messages worker ``i`` received up to ``t`` (PKG Sect. II).
- Imbalance ``I(t) = max_i L_i(t) - avg_i L_i(t)`` over the workers active at ``t``; its
  *fraction* divides by the messages routed so far (PKG Figs. 2-3 plot fractions). We sample
  ``I(t)`` at ``n_checkpoints`` evenly spaced message counts; Table II's "average imbalance
  measured throughout the simulation" is the mean over those samples.
- Replication memory: distinct (key, worker) pairs, i.e. the counters a stateful operator
  keeps (PKG Q4 "counters"; FISH "memory overhead"). Normalized by the number of distinct
  keys it is 1 for key grouping without worker changes (FISH Fig. 11's baseline).
- Windowed memory: the same count per aggregation period, averaged over periods (partial
  counters are flushed every period, PKG Fig. 5b).
- Choice coverage: fraction of workers that are a hash choice of at least one key (the
  ``1 - 1/e^2`` argument of PKG Sect. IV-A).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from routelab.grouping.events import WorkerEvent, active_workers_at, worker_universe
from routelab.hashing import bucket, choice_seed
from routelab.uniques import unique


def checkpoint_counts(n_messages: int, n_checkpoints: int) -> np.ndarray:
    """Evenly spaced message counts ``1..n_messages`` (at most ``n_checkpoints``, distinct)."""
    if n_checkpoints < 1:
        raise ValueError(f"n_checkpoints must be >= 1, got {n_checkpoints}")
    if n_messages <= 0:
        return np.zeros(0, dtype=np.int64)
    points = np.linspace(n_messages / n_checkpoints, n_messages, n_checkpoints)
    return unique(np.clip(np.round(points), 1, n_messages).astype(np.int64))


def cumulative_loads(
    assignment: np.ndarray, n_total_workers: int, counts: np.ndarray
) -> np.ndarray:
    """Loads after the first ``c`` messages for each ``c`` in ``counts``: shape (C, workers)."""
    assign = np.asarray(assignment)
    loads = np.zeros((len(counts), n_total_workers), dtype=np.int64)
    prev = 0
    for j, c in enumerate(counts):
        loads[j] = np.bincount(assign[prev:c], minlength=n_total_workers)
        prev = int(c)
    return np.cumsum(loads, axis=0)


def load_stats(
    loads: np.ndarray, active: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(max, mean)`` of the loads over the last axis, counting only ``active`` workers."""
    arr = np.asarray(loads, dtype=np.float64)
    if arr.shape[-1] == 0 or (arr.ndim > 1 and arr.shape[0] == 0):
        return np.zeros(arr.shape[:-1]), np.zeros(arr.shape[:-1])
    if active is not None:
        arr = np.where(active, arr, np.nan)
        return np.nanmax(arr, axis=-1), np.nanmean(arr, axis=-1)
    return arr.max(axis=-1), arr.mean(axis=-1)


def imbalance(loads: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
    """``I = max - avg`` of the loads over the active workers (last axis; PKG Sect. II)."""
    high, avg = load_stats(loads, active)
    return high - avg


def imbalance_through_time(
    assignment: np.ndarray,
    n_workers: int,
    *,
    events: Sequence[WorkerEvent] = (),
    times: np.ndarray | None = None,
    n_checkpoints: int = 200,
) -> tuple[pd.DataFrame, np.ndarray]:
    """``I(t)`` at evenly spaced message counts.

    Returns a DataFrame (``messages``, ``time`` (stream time of the last message, NaN
    without times), ``max_load``, ``avg_load``, ``imbalance``, ``imbalance_fraction``) and
    the cumulative load matrix (checkpoints x worker ids). With events, only the workers
    active when the checkpoint's last message was routed count.
    """
    assign = np.asarray(assignment)
    n_total = worker_universe(n_workers, events)
    counts = checkpoint_counts(assign.size, n_checkpoints)
    loads = cumulative_loads(assign, n_total, counts)
    active = None
    if events:
        active = np.array(
            [active_workers_at(n_workers, events, int(c) - 1) for c in counts], dtype=bool
        ).reshape(len(counts), n_total)
    high, avg = load_stats(loads, active)
    frame = pd.DataFrame(
        {
            "messages": counts,
            "time": times[counts - 1] if times is not None else np.full(len(counts), np.nan),
            "max_load": high,
            "avg_load": avg,
            "imbalance": high - avg,
            "imbalance_fraction": (high - avg) / np.maximum(counts, 1),
        }
    )
    return frame, loads


def replication_memory(keys: np.ndarray, assignment: np.ndarray) -> int:
    """Number of distinct (key, worker) pairs: counters kept over all workers."""
    k = np.asarray(keys, dtype=np.int64)
    w = np.asarray(assignment, dtype=np.int64)
    if k.shape != w.shape:
        raise ValueError(f"keys and assignment differ in length: {k.shape} vs {w.shape}")
    if k.size == 0:
        return 0
    codes, _ = pd.factorize(k)
    pair = codes.astype(np.int64) * (int(w.max()) + 1) + w
    return int(pd.unique(pair).size)


def distinct_keys(keys: np.ndarray) -> int:
    """Number of distinct keys (the memory of key grouping)."""
    return int(pd.unique(np.asarray(keys, dtype=np.int64)).size)


def windowed_memory(
    keys: np.ndarray, assignment: np.ndarray, times: np.ndarray, period: float
) -> float:
    """Mean over aggregation periods of the distinct (key, worker) pairs seen in the period
    (counters are flushed to the aggregator every ``period`` seconds, PKG Fig. 5b)."""
    if not period > 0:
        raise ValueError(f"period must be > 0, got {period!r}")
    k = np.asarray(keys, dtype=np.int64)
    t = np.asarray(times, dtype=np.float64)
    if k.size == 0:
        return 0.0
    window = np.floor((t - t[0]) / period).astype(np.int64)
    codes, _ = pd.factorize(k)
    w = np.asarray(assignment, dtype=np.int64)
    frame = pd.DataFrame({"window": window, "pair": codes.astype(np.int64) * (w.max() + 1) + w})
    return float(frame.groupby("window")["pair"].nunique().mean())


def choice_coverage(keys: np.ndarray, n_workers: int, d: int = 2, seed: int = 0) -> float:
    """Fraction of workers that are one of the ``d`` hash choices of at least one key.

    For ``n`` distinct uniform keys and ``d = 2`` its expectation is
    ``1 - (1 - 1/n)^(2n) ~ 1 - 1/e^2 ~ 0.865`` (PKG Sect. IV-A).
    """
    distinct = pd.unique(np.asarray(keys, dtype=np.int64))
    used = np.zeros(n_workers, dtype=bool)
    for i in range(d):
        used[bucket(distinct, n_workers, choice_seed(seed, i))] = True
    return float(used.mean())
