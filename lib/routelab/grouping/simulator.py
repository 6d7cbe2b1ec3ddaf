"""The grouping simulator: route one stream with one scheme and measure everything.

It simulates the DAG of PKG Fig. 1 / FISH Fig. 1 (PKG Sect. V-A "Simulation", FISH Sect.
6.1): ``S`` sources receive the stream by shuffle grouping (round robin) or by key grouping
(on the key or on separate source keys), each source routes its messages to ``W`` workers
with the chosen scheme, workers may join or leave (:class:`~.events.WorkerEvent`), and
workers may differ in capacity. Afterwards, from the assignment alone:

- loads through time, imbalance ``I(t)`` and its fraction of messages (:mod:`.metrics`);
- replication memory (distinct key-worker pairs) normalized to key grouping;
- execution time, latency percentiles and throughput of FIFO worker queues with a service
  time per tuple and an optional CPU delay (:mod:`.queueing`).

**One clock for routers and queues.** A source routes a tuple when it emits it, and the tuple
joins its worker's queue at that moment. So the routing function receives the *queue*
arrival times (:func:`queue_arrivals`: the stream ``times``, a replay at ``arrival_rate``,
or all zero when the input is saturated) and the workers' *effective* capacities
``1 / (service time per tuple + cpu_delay)`` (:func:`router_capacities`), i.e. exactly what
the queues serve. FISH's waiting-time estimate (FISH Sect. 4.2.1) therefore runs on the
clock of the queues it tries to keep short, and PKG's probing interval (LP) counts queue
seconds. (Stream ``times`` still drive ``memory_period`` windows and the time column of
``I(t)``.)

:func:`simulate` runs one configuration in-process. The picklable sweep task (one grid point
-> rows) is :func:`routelab.grouping.lab.tasks.simulate_task`; PKG's local estimation with
every source as a Spark partition is :func:`routelab.grouping.dataflow.local_estimation_on_spark`.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.grouping.events import WorkerEvent, normalize_events, worker_universe
from routelab.grouping.inputs import (
    as_keys,
    as_sources,
    as_times,
    check_assignment,
    key_grouped_sources,
    round_robin_sources,
)
from routelab.grouping.metrics import (
    distinct_keys,
    imbalance_through_time,
    replication_memory,
    windowed_memory,
)
from routelab.grouping.queueing import (
    DEFAULT_SERVICE_TIME,
    QueueResult,
    run_queues,
    service_times,
)
from routelab.grouping.schemes import get_scheme

if TYPE_CHECKING:
    pass

SOURCE_GROUPINGS = ("shuffle", "key")


@dataclass
class SimulationResult:
    """Everything one simulation measured (see :func:`simulate`)."""

    scheme: str
    label: str
    params: dict[str, Any]
    n_messages: int
    n_keys: int
    n_workers: int
    n_sources: int
    seed: int
    assignment: np.ndarray = field(repr=False)
    loads: np.ndarray = field(repr=False)
    timeline: pd.DataFrame = field(repr=False)
    load_matrix: np.ndarray = field(repr=False)
    memory: int
    memory_window: float | None
    queue: QueueResult = field(repr=False)
    route_seconds: float
    compile_seconds: float = 0.0

    @property
    def avg_imbalance(self) -> float:
        """Mean of ``I(t)`` over the checkpoints (PKG Table II)."""
        return float(self.timeline["imbalance"].mean()) if len(self.timeline) else 0.0

    @property
    def avg_imbalance_fraction(self) -> float:
        """Average imbalance divided by the number of messages (PKG Figs. 2 and 4)."""
        return self.avg_imbalance / self.n_messages if self.n_messages else 0.0

    @property
    def final_imbalance(self) -> float:
        """``I(t)`` after the last message."""
        return float(self.timeline["imbalance"].iloc[-1]) if len(self.timeline) else 0.0

    @property
    def memory_normalized(self) -> float:
        """Distinct key-worker pairs per distinct key (1.0 = key grouping, FISH Fig. 11)."""
        return self.memory / self.n_keys if self.n_keys else 0.0

    @property
    def messages_per_second(self) -> float:
        """Routing speed of this run (messages / routing wall time; a numba kernel is
        compiled and warmed before the timed call, its compile time is
        ``compile_seconds``)."""
        return self.n_messages / self.route_seconds if self.route_seconds > 0 else float("inf")

    def summary(self) -> dict[str, Any]:
        """One flat row: configuration, imbalance, memory and queueing numbers."""
        row: dict[str, Any] = {
            "scheme": self.scheme,
            "label": self.label,
            "n_workers": self.n_workers,
            "n_sources": self.n_sources,
            "seed": self.seed,
            "n_messages": self.n_messages,
            "n_keys": self.n_keys,
            "avg_imbalance": self.avg_imbalance,
            "avg_imbalance_fraction": self.avg_imbalance_fraction,
            "final_imbalance": self.final_imbalance,
            "final_imbalance_fraction": (
                self.final_imbalance / self.n_messages if self.n_messages else 0.0
            ),
            "max_load": int(self.loads.max()) if self.loads.size else 0,
            "memory": self.memory,
            "memory_normalized": self.memory_normalized,
            "memory_window": self.memory_window,
            "route_seconds": self.route_seconds,
            "compile_seconds": self.compile_seconds,
        }
        row.update(self.queue.summary())
        row.update({f"param_{k}": v for k, v in self.params.items()})
        return row

    def timeline_rows(self) -> list[dict[str, Any]]:
        """``I(t)`` per checkpoint, each row tagged with the scheme and configuration."""
        base = {
            "scheme": self.scheme,
            "label": self.label,
            "n_workers": self.n_workers,
            "n_sources": self.n_sources,
            "seed": self.seed,
        }
        return [{**base, **r} for r in self.timeline.to_dict("records")]


def assign_sources(
    n_messages: int,
    n_sources: int,
    *,
    grouping: str = "shuffle",
    keys: np.ndarray | None = None,
    source_keys: np.ndarray | None = None,
    seed: int = 0,
) -> np.ndarray:
    """Source of every message: round robin (``"shuffle"``) or key grouped (``"key"``) on
    ``source_keys`` (default: the message keys)."""
    if grouping == "shuffle":
        return round_robin_sources(n_messages, n_sources)
    if grouping == "key":
        by = source_keys if source_keys is not None else keys
        if by is None or len(by) != n_messages:
            raise ValueError("source grouping 'key' needs one source key per message")
        return key_grouped_sources(by, n_sources, seed)
    raise ValueError(f"source_grouping must be one of {SOURCE_GROUPINGS}, got {grouping!r}")


def queue_arrivals(
    n_messages: int, times: np.ndarray | None, arrival_rate: float | None
) -> np.ndarray:
    """When each message joins its worker's queue -- the clock routers and queues share.

    ``arrival_rate`` given and finite: message ``i`` arrives at ``i / arrival_rate``;
    ``math.inf``: all at 0 (saturated input); ``None``: at the stream ``times``, or all at 0
    without times. Raises ``ValueError`` for a rate that is not a positive number.
    """
    if arrival_rate is not None:
        if isinstance(arrival_rate, bool) or not (
            isinstance(arrival_rate, numbers.Real) and arrival_rate > 0
        ):
            raise ValueError(
                f"arrival_rate must be a positive number (math.inf = saturated), "
                f"got {arrival_rate!r}"
            )
        if math.isinf(arrival_rate):
            return np.zeros(n_messages, dtype=np.float64)
        return np.arange(n_messages, dtype=np.float64) / float(arrival_rate)
    if times is None:
        return np.zeros(n_messages, dtype=np.float64)
    return times


def router_capacities(service: np.ndarray) -> np.ndarray | None:
    """Tuples/s each worker really serves (``1 / seconds per tuple``), as routers are told.

    ``None`` when some worker needs no time per tuple (``service_time=0`` and no CPU delay):
    an infinitely fast worker has no waiting time to estimate.
    """
    svc = np.asarray(service, dtype=np.float64)
    if svc.size == 0 or np.any(svc <= 0):
        return None
    return 1.0 / svc


def simulate(
    keys: np.ndarray | Sequence[int],
    scheme: str,
    n_workers: int,
    n_sources: int = 1,
    seed: int = 0,
    *,
    times: np.ndarray | None = None,
    sources: np.ndarray | None = None,
    source_grouping: str = "shuffle",
    source_keys: np.ndarray | None = None,
    capacities: np.ndarray | Sequence[float] | None = None,
    service_time: float = DEFAULT_SERVICE_TIME,
    cpu_delay: float = 0.0,
    arrival_rate: float | None = None,
    events: Sequence[WorkerEvent] = (),
    n_checkpoints: int = 200,
    memory_period: float | None = None,
    implementation: str = "kernel",
    progress: bool = False,
    **params: Any,
) -> SimulationResult:
    """Route ``keys`` with ``scheme`` over ``n_workers`` workers and measure the run.

    Args:
        keys: int keys in stream order.
        scheme: a name of :data:`routelab.grouping.schemes.SCHEMES`.
        n_workers: initial workers (ids ``0..n_workers-1``).
        n_sources: sources ``S`` (ignored when ``sources`` is given).
        seed: seed of every hash choice (and of key-grouped sources).
        times: nondecreasing stream times in seconds (probing, FISH epochs; queue arrivals).
        sources: explicit source of each message (e.g. from
            :func:`~routelab.grouping.lab.streams.movielens_edges`).
        source_grouping: ``"shuffle"`` (round robin) or ``"key"`` (hash of ``source_keys``,
            default the keys) when ``sources`` is not given.
        capacities: tuples/s of each worker id (heterogeneous workers); the queues serve
            ``1/capacity + cpu_delay`` s per tuple and the router is told the inverse.
        service_time: seconds per tuple when ``capacities`` is None.
        cpu_delay: extra seconds per tuple on every worker (PKG Fig. 5a).
        arrival_rate: if set, messages reach the workers at this rate (messages/s) instead
            of at ``times``; ``math.inf`` (or no ``times`` and no rate) makes the input
            saturated: every message is available at time 0. The router sees the same clock.
        events: worker add/remove events (schemes that support them only).
        n_checkpoints: samples of ``I(t)``.
        memory_period: also measure memory per aggregation period (seconds of ``times``).
        implementation: ``"kernel"`` (numba) or ``"reference"`` (readable, slow).
        progress: show a progress bar over the stages.
        **params: scheme parameters (see the scheme's ``defaults``).

    Returns:
        A :class:`SimulationResult`; ``.summary()`` is one flat row.
    """
    from routelab.progress import tqdm

    spec = get_scheme(scheme)
    scheme_params = spec.check_params(params)
    route = spec.implementation(implementation)
    k = as_keys(keys)
    n = k.size
    t = as_times(times, n)
    if sources is None:
        src = assign_sources(
            n, n_sources, grouping=source_grouping, keys=k, source_keys=source_keys, seed=seed
        )
    else:
        src, _ = as_sources(sources, n)
    n_sources_used = int(src.max()) + 1 if n else max(1, int(n_sources))
    evs = normalize_events(events, n_workers, n) if events else ()
    n_total = worker_universe(n_workers, evs)
    if memory_period is not None and t is None:
        raise ValueError("memory_period needs times")
    arrivals = queue_arrivals(n, t, arrival_rate)
    service = service_times(n_total, capacities, service_time, cpu_delay)

    bar = tqdm(total=4, desc=f"simulate {scheme}", disable=not progress, leave=False)
    compile_seconds = 0.0
    if implementation == "kernel" and not evs and n > 0:
        # compile (or load from numba's cache) and warm the kernel on a short prefix with
        # the same argument types, so the timed call measures routing, not compilation
        warm = min(n, 64)
        start = time.perf_counter()
        route(
            k[:warm],
            src[:warm],
            n_workers,
            seed=seed,
            times=None if arrivals is None else arrivals[:warm],
            capacities=router_capacities(service),
            events=evs,
            **scheme_params,
        )
        compile_seconds = time.perf_counter() - start
    start = time.perf_counter()
    assignment = route(
        k,
        src,
        n_workers,
        seed=seed,
        times=arrivals,
        capacities=router_capacities(service),
        events=evs,
        **scheme_params,
    )
    route_seconds = time.perf_counter() - start
    check_assignment(assignment, n_workers, evs)
    bar.update()
    timeline, load_matrix = imbalance_through_time(
        assignment, n_workers, events=evs, times=t, n_checkpoints=n_checkpoints
    )
    bar.update()
    memory = replication_memory(k, assignment)
    memory_window = windowed_memory(k, assignment, t, memory_period) if memory_period else None
    bar.update()
    queue = run_queues(assignment, service, arrivals)
    bar.update()
    bar.close()
    return SimulationResult(
        scheme=spec.name,
        label=spec.label,
        params=scheme_params,
        n_messages=n,
        n_keys=distinct_keys(k),
        n_workers=n_workers,
        n_sources=n_sources_used,
        seed=seed,
        assignment=assignment,
        loads=np.bincount(assignment, minlength=n_total),
        timeline=timeline,
        load_matrix=load_matrix,
        memory=memory,
        memory_window=memory_window,
        queue=queue,
        route_seconds=route_seconds,
        compile_seconds=compile_seconds,
    )
