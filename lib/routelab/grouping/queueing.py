"""Worker queueing model: execution time, latency percentiles and throughput of a routing.

The PKG deployment experiment (PKG Sect. V-B Q4, Fig. 5: throughput and latency under a
CPU delay per tuple) and FISH's simulation metrics (FISH Sect. 6.1 "execution time",
Sect. 6.6 Figs. 18-19: latency percentiles, throughput) are reproduced with a simple model
computed *after* routing, from the assignment alone (routing never sees queue state):

- every worker is a single FIFO server; message ``i`` joins the queue of its worker at its
  arrival time ``a_i`` (its stream time, or 0 for all messages when the input is
  *saturated*, i.e. everything is available at once);
- worker ``w`` spends ``service_w = 1 / capacity_w + cpu_delay`` seconds per tuple
  (``1 / capacity_w`` defaults to ``service_time``);
- start ``s_i = max(a_i, finish of the previous tuple on w)``, finish ``f_i = s_i +
  service_w``, latency ``f_i - a_i``;
- execution time = last finish - first arrival; throughput = messages / execution time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

DEFAULT_SERVICE_TIME = 1e-4
"""Seconds per tuple when no capacities are given (0.1 ms, PKG Q4's smallest CPU delay)."""

PERCENTILES = (50.0, 95.0, 99.0)


def service_times(
    n_workers: int,
    capacities: np.ndarray | Sequence[float] | None = None,
    service_time: float = DEFAULT_SERVICE_TIME,
    cpu_delay: float = 0.0,
) -> np.ndarray:
    """Seconds per tuple of each worker: ``1 / capacity`` (or ``service_time``) + ``cpu_delay``."""
    if not (np.isfinite(cpu_delay) and cpu_delay >= 0):
        raise ValueError(f"cpu_delay must be a finite number >= 0, got {cpu_delay!r}")
    if capacities is None:
        if not (np.isfinite(service_time) and service_time >= 0):
            raise ValueError(f"service_time must be a finite number >= 0, got {service_time!r}")
        base = np.full(n_workers, float(service_time))
    else:
        caps = np.asarray(capacities, dtype=np.float64)
        if caps.ndim != 1 or caps.size < n_workers:
            raise ValueError(f"capacities need {n_workers} entries, got shape {caps.shape}")
        if not np.all(np.isfinite(caps)) or np.any(caps <= 0):
            raise ValueError("capacities must be finite and > 0 (tuples per second)")
        base = 1.0 / caps[:n_workers]
    return base + float(cpu_delay)


@numba.njit(cache=True)
def _fifo_kernel(assignment, arrivals, service, n_workers):
    finish = np.empty(assignment.size, dtype=np.float64)
    free_at = np.zeros(n_workers, dtype=np.float64)
    busy = np.zeros(n_workers, dtype=np.float64)
    for i in range(assignment.size):
        w = assignment[i]
        start = arrivals[i] if arrivals[i] > free_at[w] else free_at[w]
        done = start + service[w]
        free_at[w] = done
        busy[w] += service[w]
        finish[i] = done
    return finish, busy


@dataclass(frozen=True)
class QueueResult:
    """Per-message finish times and latencies, plus run-level execution time and throughput."""

    finish: np.ndarray
    latency: np.ndarray
    busy: np.ndarray
    execution_time: float
    throughput: float

    def latency_percentiles(self, qs: Sequence[float] = PERCENTILES) -> dict[str, float]:
        """``{"latency_p50": ..., ...}`` (seconds); NaN for an empty run."""
        if self.latency.size == 0:
            return {f"latency_p{q:g}": float("nan") for q in qs}
        values = np.percentile(self.latency, qs)
        return {f"latency_p{q:g}": float(v) for q, v in zip(qs, values, strict=True)}

    def summary(self) -> dict[str, float]:
        """Execution time, throughput, mean/max latency and the standard percentiles."""
        empty = self.latency.size == 0
        return {
            "execution_time": self.execution_time,
            "throughput": self.throughput,
            "latency_mean": float("nan") if empty else float(self.latency.mean()),
            "latency_max": float("nan") if empty else float(self.latency.max()),
            **self.latency_percentiles(),
        }


def run_queues(
    assignment: np.ndarray,
    service: np.ndarray,
    arrivals: np.ndarray | None = None,
) -> QueueResult:
    """Simulate the worker FIFO queues for a routing (model in the module docstring).

    Args:
        assignment: worker id of each message (stream order).
        service: seconds per tuple of each worker id (:func:`service_times`).
        arrivals: nondecreasing arrival time of each message; ``None`` = all at time 0.
    """
    assign = np.ascontiguousarray(assignment, dtype=np.int64)
    svc = np.ascontiguousarray(service, dtype=np.float64)
    n = assign.size
    if n and (assign.min() < 0 or assign.max() >= svc.size):
        raise ValueError(f"assignment uses worker ids outside 0..{svc.size - 1}")
    if arrivals is None:
        arr = np.zeros(n, dtype=np.float64)
    else:
        arr = np.ascontiguousarray(arrivals, dtype=np.float64)
        if arr.shape != (n,):
            raise ValueError(f"arrivals need one entry per message ({n}), got {arr.shape}")
        if n > 1 and np.any(np.diff(arr) < 0):
            raise ValueError("arrivals must be nondecreasing (messages in stream order)")
    finish, busy = _fifo_kernel(assign, arr, svc, svc.size)
    if n == 0:
        return QueueResult(finish, finish.copy(), busy, 0.0, 0.0)
    execution = float(finish.max() - arr[0])
    throughput = n / execution if execution > 0 else float("inf")
    return QueueResult(finish, finish - arr, busy, execution, throughput)


@numba.njit(cache=True)
def _multicopy_kernel(copy_tuple, copy_worker, copy_service, arrivals, n_tuples, n_workers):
    free_at = np.zeros(n_workers)
    done = np.zeros(n_tuples)
    for i in range(len(copy_tuple)):
        t = copy_tuple[i]
        w = copy_worker[i]
        start = max(arrivals[t], free_at[w])
        free_at[w] = start + copy_service[i]
        if free_at[w] > done[t]:
            done[t] = free_at[w]
    return done


def multicopy_latency(
    copy_tuple: np.ndarray,
    copy_worker: np.ndarray,
    copy_service: np.ndarray,
    arrivals: np.ndarray,
    n_workers: int,
    dispatch_service: float = 0.0,
) -> np.ndarray:
    """Per-tuple latency when a tuple is copied to several workers (PS2Stream Sect. VI-C).

    Each worker is a FIFO server as above, but the service time is given per copy (a
    worker's measured time for that tuple) and a tuple is done when its *last* copy is:
    latency = max over copies of finish - arrival (+ ``dispatch_service``). Copies must be
    in arrival order; a tuple with no copy (discarded by the dispatcher) costs only the
    dispatcher's time.
    """
    n = len(arrivals)
    done = _multicopy_kernel(
        np.asarray(copy_tuple, np.int64),
        np.asarray(copy_worker, np.int64),
        np.asarray(copy_service, np.float64),
        np.asarray(arrivals, np.float64),
        n,
        n_workers,
    )
    lat = np.where(done > 0, done - arrivals, 0.0)
    return lat + dispatch_service
