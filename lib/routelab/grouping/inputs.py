"""Input validation shared by every routing function (the interface in the module docstring of
:mod:`routelab.grouping`): one place that turns user arrays into the dtypes the kernels expect
and rejects bad input with a message that says what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from routelab.grouping.events import WorkerEvent, normalize_events, reject_events
from routelab.hashing import bucket

SOURCE_SEED_OFFSET = 7919
"""Added to the seed when messages are key grouped onto sources, so the source hash is
unrelated to the workers' hash choices (seeded by ``choice_seed(seed, i)``)."""


@dataclass(frozen=True)
class RouteInputs:
    """Validated routing inputs: ``keys`` int64, ``sources`` int32, ``n_sources`` >= 1."""

    keys: np.ndarray
    sources: np.ndarray
    n_sources: int
    n_workers: int
    times: np.ndarray | None
    capacities: np.ndarray | None
    events: tuple[WorkerEvent, ...]


def as_keys(keys: np.ndarray | Sequence[int]) -> np.ndarray:
    """Keys as a contiguous 1-D int64 array; any integer dtype is accepted, others rejected."""
    arr = np.asarray(keys)
    if arr.ndim != 1:
        raise ValueError(f"keys must be a 1-D array, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"keys must be integers, got dtype {arr.dtype}")
    if arr.dtype == np.uint64:
        return np.ascontiguousarray(arr.view(np.int64))
    return np.ascontiguousarray(arr, dtype=np.int64)


def as_sources(sources: np.ndarray | Sequence[int] | None, n: int) -> tuple[np.ndarray, int]:
    """Source ids as int32 (all zero when ``None``) and the number of sources (max id + 1)."""
    if sources is None:
        return np.zeros(n, dtype=np.int32), 1
    arr = np.asarray(sources)
    if arr.shape != (n,):
        raise ValueError(f"sources must have one entry per message ({n}), got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"sources must be integers, got dtype {arr.dtype}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"source ids must be >= 0, got {int(arr.min())}")
    n_sources = int(arr.max()) + 1 if arr.size else 1
    return np.ascontiguousarray(arr, dtype=np.int32), n_sources


def as_times(times: np.ndarray | Sequence[float] | None, n: int) -> np.ndarray | None:
    """Times as float64 seconds, checked to be finite and nondecreasing (``None`` stays)."""
    if times is None:
        return None
    arr = np.ascontiguousarray(times, dtype=np.float64)
    if arr.shape != (n,):
        raise ValueError(f"times must have one entry per message ({n}), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"times must be finite; message {bad} has {arr[bad]}")
    if n > 1:
        drops = np.flatnonzero(np.diff(arr) < 0)
        if drops.size:
            i = int(drops[0]) + 1
            raise ValueError(
                f"times must be nondecreasing; message {i} has {arr[i]} after {arr[i - 1]}"
            )
    return arr


def as_capacities(
    capacities: np.ndarray | Sequence[float] | None, n_total_workers: int
) -> np.ndarray | None:
    """Per-worker capacities (tuples/s, > 0) covering every worker id that ever exists."""
    if capacities is None:
        return None
    arr = np.ascontiguousarray(capacities, dtype=np.float64)
    if arr.ndim != 1 or arr.size < n_total_workers:
        raise ValueError(
            f"capacities need one entry per worker id ({n_total_workers}), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("capacities must be finite and > 0 (tuples per second)")
    return arr


def route_inputs(
    keys: np.ndarray | Sequence[int],
    sources: np.ndarray | Sequence[int] | None,
    n_workers: int,
    *,
    times: np.ndarray | Sequence[float] | None = None,
    capacities: np.ndarray | Sequence[float] | None = None,
    events: Sequence[WorkerEvent] = (),
    scheme: str = "scheme",
    supports_events: bool = False,
) -> RouteInputs:
    """Validate the common routing arguments (see :mod:`routelab.grouping`)."""
    if int(n_workers) != n_workers or n_workers < 1:
        raise ValueError(f"n_workers must be a positive integer, got {n_workers!r}")
    n_workers = int(n_workers)
    k = as_keys(keys)
    s, n_sources = as_sources(sources, k.size)
    t = as_times(times, k.size)
    if supports_events:
        evs = normalize_events(events, n_workers, k.size)
    else:
        reject_events(events, scheme)
        evs = ()
    n_total = max([n_workers] + [ev.worker + 1 for ev in evs])
    c = as_capacities(capacities, n_total)
    return RouteInputs(k, s, n_sources, n_workers, t, c, evs)


def check_assignment(
    assignment: np.ndarray, n_workers: int, events: Sequence[WorkerEvent] = ()
) -> None:
    """Assert a routing result is well formed: ids in range, no message to an inactive worker.

    Raises ``RuntimeError`` (a bug in a scheme, not bad user input) naming the first bad message.
    """
    arr = np.asarray(assignment)
    n_total = max([n_workers] + [ev.worker + 1 for ev in events])
    if arr.size and (arr.min() < 0 or arr.max() >= n_total):
        i = int(np.flatnonzero((arr < 0) | (arr >= n_total))[0])
        raise RuntimeError(f"message {i} routed to worker {arr[i]} outside 0..{n_total - 1}")
    if not events:
        if arr.size and arr.max() >= n_workers:
            i = int(np.flatnonzero(arr >= n_workers)[0])
            raise RuntimeError(f"message {i} routed to worker {arr[i]} >= n_workers {n_workers}")
        return
    active = np.zeros(n_total, dtype=bool)
    active[:n_workers] = True
    bounds = sorted({0, arr.size, *[min(ev.at, arr.size) for ev in events]})
    ordered = sorted(events, key=lambda e: e.at)
    j = 0
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        while j < len(ordered) and ordered[j].at <= lo:
            active[ordered[j].worker] = ordered[j].kind == "add"
            j += 1
        bad = ~active[arr[lo:hi]]
        if bad.any():
            i = lo + int(np.flatnonzero(bad)[0])
            raise RuntimeError(f"message {i} routed to inactive worker {arr[i]}")


def round_robin_sources(n_messages: int, n_sources: int) -> np.ndarray:
    """Sources fed by shuffle grouping: message ``i`` goes to source ``i mod S`` (as the public
    PKG simulator does)."""
    if int(n_sources) != n_sources or n_sources < 1:
        raise ValueError(f"n_sources must be a positive integer, got {n_sources!r}")
    return (np.arange(n_messages, dtype=np.int64) % n_sources).astype(np.int32)


def key_grouped_sources(
    source_keys: np.ndarray | Sequence[int], n_sources: int, seed: int = 0
) -> np.ndarray:
    """Sources fed by key grouping on ``source_keys`` (PKG Sect. V-B Q3, skewed sources):
    ``bucket(source_key, S, seed + SOURCE_SEED_OFFSET)``."""
    if int(n_sources) != n_sources or n_sources < 1:
        raise ValueError(f"n_sources must be a positive integer, got {n_sources!r}")
    keys = as_keys(source_keys)
    return bucket(keys, int(n_sources), seed + SOURCE_SEED_OFFSET).astype(np.int32)
