"""PKG notebook 07, Fig. 5: saturation rate, throughput points and the aggregation
trade-off (flushed counters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.grouping.lab.pkg.cases import StreamCase
from routelab.grouping.lab.pkg.grids import _point
from routelab.uniques import unique

if TYPE_CHECKING:
    pass


def saturation_rate(
    keys: np.ndarray, scheme: str, n_workers: int, cpu_delay: float, seed: int = 0
) -> float:
    """Messages/s at which ``scheme``'s busiest worker saturates: ``1 / (share * delay)``.

    With one source and every worker spending ``cpu_delay`` s per tuple, the busiest worker
    (``share`` of the messages) caps the throughput of the whole operator (PKG Sect. V-B Q4).
    """
    from routelab.grouping.schemes import get_scheme

    if not cpu_delay > 0:
        raise ValueError(f"cpu_delay must be > 0 seconds, got {cpu_delay!r}")
    assignment = get_scheme(scheme).kernel(keys, None, n_workers, seed=seed)
    share = np.bincount(assignment, minlength=n_workers).max() / assignment.size
    return float(1.0 / (share * cpu_delay))


def throughput_points(
    case: StreamCase,
    delays_ms: Sequence[float],
    n_workers: int,
    source_rate: float,
    *,
    schemes: Sequence[str] = ("kg", "sg", "pkg_local"),
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Fig. 5a: one source emitting ``source_rate`` messages/s to ``n_workers``
    workers, each spending ``delay`` ms of CPU per tuple (nothing else)."""
    return [
        _point(
            case,
            scheme,
            n_workers,
            1,
            seed,
            cpu_delay=float(d) / 1000.0,
            service_time=0.0,
            arrival_rate=float(source_rate),
            n_checkpoints=10,
        )
        for scheme in schemes
        for d in delays_ms
    ]


def throughput_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5a rows with the CPU delay (``delay_ms``) and the mean latency (``latency_ms``)
    in milliseconds, the one latency unit of the notebook."""
    return rows.assign(
        delay_ms=(rows["cpu_delay"] * 1000.0).round(9), latency_ms=rows["latency_mean"] * 1000.0
    )


def flushed_counters(
    keys: np.ndarray, assignment: np.ndarray, times: np.ndarray, period: float, n_workers: int
) -> tuple[np.ndarray, float]:
    """Partial counters flushed by each worker when counters are sent to the aggregator
    every ``period`` seconds (Sect. V-B Q4, Fig. 5b): per worker, the sum over periods of
    the distinct keys it saw in the period; and the mean over periods of all counters held
    (the memory)."""
    if not period > 0:
        raise ValueError(f"period must be > 0, got {period!r}")
    t = np.asarray(times, dtype=np.float64)
    frame = pd.DataFrame(
        {
            "window": np.floor((t - t[0]) / period).astype(np.int64),
            "worker": np.asarray(assignment, dtype=np.int64),
            "key": np.asarray(keys, dtype=np.int64),
        }
    ).drop_duplicates()
    per_worker = np.bincount(frame["worker"], minlength=n_workers)
    memory = float(frame.groupby("window").size().mean())
    return per_worker, memory


def aggregation_tradeoff(
    keys: np.ndarray,
    times: np.ndarray,
    n_workers: int,
    periods: Sequence[float],
    cpu_delay: float,
    flush_cost: float,
    *,
    seed: int = 0,
) -> pd.DataFrame:
    """Fig. 5b: memory and saturated throughput of PKG and SG when partial counters are
    flushed every period, and of KG (one full counter per key, nothing to flush).

    Model (ours; the paper measures a Storm cluster): all messages are available at once,
    a worker spends ``cpu_delay`` s per tuple and ``flush_cost`` s per flushed counter, and
    throughput = messages / the busiest worker's total time. Memory = mean counters held
    per period (KG: distinct keys).
    """
    from routelab.grouping.schemes import get_scheme

    k = np.asarray(keys, dtype=np.int64)
    rows = []
    for scheme in ("kg", "pkg_local", "sg"):
        assignment = get_scheme(scheme).kernel(k, None, n_workers, seed=seed)
        loads = np.bincount(assignment, minlength=n_workers)
        if scheme == "kg":
            busiest = loads.max() * cpu_delay
            rows.append(
                {
                    "scheme": scheme,
                    "period": float("nan"),
                    "memory": float(unique(k).size),
                    "throughput": k.size / busiest,
                }
            )
            continue
        for period in periods:
            flushed, memory = flushed_counters(k, assignment, times, period, n_workers)
            busiest = float(np.max(loads * cpu_delay + flushed * flush_cost))
            rows.append(
                {
                    "scheme": scheme,
                    "period": float(period),
                    "memory": memory,
                    "throughput": k.size / busiest,
                }
            )
    return pd.DataFrame(rows)
