"""Worker add/remove events for the grouping simulator (FISH Sect. 5, "dynamic change of workers").

A :class:`WorkerEvent` says that before the message with index ``at`` is routed, worker
``worker`` joins (``kind="add"``) or leaves (``kind="remove"``) the set of workers a router
may choose from. Workers ``0 .. n_workers-1`` exist at the start; an added worker brings a
new id (or re-activates a removed one). Schemes that cannot handle events raise
``ValueError("<scheme> does not support worker add/remove events")`` through
:func:`reject_events`.

:func:`normalize_events` validates a sequence of events against the initial worker count and
the stream length and returns them sorted by ``at`` (stable, so two events at the same index
apply in the order given). :func:`events_to_arrays` turns them into flat arrays for numba
kernels, and :func:`active_workers_at` replays them for metrics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

EVENT_KINDS = ("add", "remove")
KIND_ADD = 0
KIND_REMOVE = 1


@dataclass(frozen=True)
class WorkerEvent:
    """Worker ``worker`` is added or removed just before message index ``at`` is routed."""

    at: int
    kind: Literal["add", "remove"]
    worker: int

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"WorkerEvent kind must be 'add' or 'remove', got {self.kind!r}")
        if int(self.at) != self.at or self.at < 0:
            raise ValueError(f"WorkerEvent.at must be a message index >= 0, got {self.at!r}")
        if int(self.worker) != self.worker or self.worker < 0:
            raise ValueError(f"WorkerEvent.worker must be a worker id >= 0, got {self.worker!r}")


def reject_events(events: Sequence[WorkerEvent], scheme: str) -> None:
    """Raise the agreed ``ValueError`` if a scheme without event support is given events."""
    if len(events) > 0:
        raise ValueError(f"{scheme} does not support worker add/remove events")


def normalize_events(
    events: Sequence[WorkerEvent], n_workers: int, n_messages: int | None = None
) -> tuple[WorkerEvent, ...]:
    """Validate events and return them sorted by ``at`` (ties keep their given order).

    Checks: each item is a :class:`WorkerEvent`; ``at <= n_messages`` when the stream length
    is given; an added worker is not active at that moment; a removed worker is active; at
    least one worker stays active. Raises ``ValueError`` naming the offending event.
    """
    if n_workers < 1:
        raise ValueError(f"n_workers must be >= 1, got {n_workers}")
    for ev in events:
        if not isinstance(ev, WorkerEvent):
            raise ValueError(f"events must be WorkerEvent objects, got {ev!r}")
    ordered = tuple(sorted(events, key=lambda e: e.at))
    active = set(range(n_workers))
    for ev in ordered:
        if n_messages is not None and ev.at > n_messages:
            raise ValueError(f"{ev}: index beyond the stream of {n_messages} messages")
        if ev.kind == "add":
            if ev.worker in active:
                raise ValueError(f"{ev}: worker {ev.worker} is already active")
            active.add(ev.worker)
        else:
            if ev.worker not in active:
                raise ValueError(f"{ev}: worker {ev.worker} is not active")
            if len(active) == 1:
                raise ValueError(f"{ev}: cannot remove the last active worker")
            active.remove(ev.worker)
    return ordered


def worker_universe(n_workers: int, events: Sequence[WorkerEvent]) -> int:
    """Number of worker ids that ever exist: ``max(n_workers, largest event worker + 1)``."""
    return max([n_workers] + [ev.worker + 1 for ev in events])


def events_to_arrays(events: Sequence[WorkerEvent]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat arrays ``(at int64, kind int8 (0 add, 1 remove), worker int32)`` in given order."""
    at = np.array([ev.at for ev in events], dtype=np.int64)
    kind = np.array([KIND_ADD if ev.kind == "add" else KIND_REMOVE for ev in events], np.int8)
    worker = np.array([ev.worker for ev in events], dtype=np.int32)
    return at, kind, worker


def active_workers_at(n_workers: int, events: Sequence[WorkerEvent], index: int) -> np.ndarray:
    """Boolean mask over the worker universe: who is active when message ``index`` is routed."""
    mask = np.zeros(worker_universe(n_workers, events), dtype=bool)
    mask[:n_workers] = True
    for ev in sorted(events, key=lambda e: e.at):
        if ev.at > index:
            break
        mask[ev.worker] = ev.kind == "add"
    return mask
