"""The workers of an adjusted replay (PS2Stream Sect. V): where their GI2 state lives.

:class:`LocalWorkers` keeps one GI2 index per worker in this process. :class:`SparkWorkers`
runs every period as one Spark job with one task per worker: the task restores the
worker's state (its live postings, checkpointed at the end of the previous period) into a
fresh GI2 index, replays the period's sub-stream, times that replay alone, and returns
its matches, candidate checks and new state. Migrations between periods move postings
between the workers' checkpointed states on the driver, as a hot worker's serialised
queries would travel to the cold one. Both give the same matches (tested); the adjustment
logic in :mod:`routelab.spatial.adjustment` does not know which one runs.
"""

from __future__ import annotations

import time
from typing import Protocol

import numpy as np

from routelab.spatial.gi2 import ReplayResult, WorkerTuples, make_index
from routelab.spatial.model import INS, Objects, Queries

Postings = tuple[np.ndarray, np.ndarray, np.ndarray]  # (query, cell, key), sorted


def insertions(q: np.ndarray, cell: np.ndarray, key: np.ndarray) -> WorkerTuples:
    """One INS per query of sorted postings ``(q, cell, key)``, carrying exactly them."""
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else np.zeros(0, np.int64)
    ptr = np.r_[starts, len(q)].astype(np.int64)
    return WorkerTuples(
        np.full(len(starts), INS, dtype=np.int8),
        q[starts].astype(np.int64),
        ptr,
        cell.astype(np.int64),
        key.astype(np.int32),
    )


def _sorted(q: np.ndarray, c: np.ndarray, k: np.ndarray) -> Postings:
    order = np.lexsort((k, c, q))
    return q[order].astype(np.int64), c[order].astype(np.int64), k[order].astype(np.int64)


def _select(post: Postings, cells: np.ndarray, terms: np.ndarray | None) -> np.ndarray:
    q, c, k = post
    sel = np.isin(c, cells)
    if terms is not None:
        sel &= np.asarray(terms, dtype=bool)[k]
    return sel


class Workers(Protocol):
    """What the adjustment needs of the workers."""

    n_workers: int

    def run(self, wts: list[WorkerTuples]) -> list[tuple[ReplayResult, float]]: ...

    def postings(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings: ...

    def postings_per_cell(self, w: int, n_cells: int) -> np.ndarray: ...

    def take(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings: ...

    def give(self, w: int, post: Postings) -> None: ...


class LocalWorkers:
    """One GI2 index per worker in this process (``impl``: kernel or reference)."""

    def __init__(
        self, objects: Objects, queries: Queries, obj_cell: np.ndarray, n_terms: int,
        n_workers: int, impl: str = "kernel",
    ) -> None:  # fmt: skip
        self.n_workers = n_workers
        self.index = [
            make_index(impl, objects, queries, obj_cell, n_terms) for _ in range(n_workers)
        ]

    def run(self, wts: list[WorkerTuples]) -> list[tuple[ReplayResult, float]]:
        out = []
        for idx, wt in zip(self.index, wts, strict=True):
            t0 = time.perf_counter()
            res = idx.replay(wt)
            out.append((res, time.perf_counter() - t0))
        return out

    def postings(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings:
        return self.index[w].cell_postings(cells, terms)

    def postings_per_cell(self, w: int, n_cells: int) -> np.ndarray:
        return self.index[w].postings_per_cell(n_cells)

    def take(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings:
        post = self.index[w].cell_postings(cells, terms)
        self.index[w].drop_cells(cells, terms)
        return post

    def give(self, w: int, post: Postings) -> None:
        if len(post[0]):
            self.index[w].replay(insertions(*post))


def _period_task(shared: tuple, w: int, post: Postings, wt: WorkerTuples):  # type: ignore[no-untyped-def]
    """One worker's period on a Spark executor: restore, replay (timed), checkpoint."""
    objects, queries, obj_cell, n_terms, impl, n_cells = shared
    idx = make_index(impl, objects, queries, obj_cell, n_terms)
    if len(post[0]):
        idx.replay(insertions(*post))
    t0 = time.perf_counter()
    res = idx.replay(wt)
    busy = time.perf_counter() - t0
    return w, res, busy, idx.cell_postings(np.arange(n_cells))


class SparkWorkers:
    """Workers as Spark tasks, one job per period; their state is their live postings,
    checkpointed between periods (module docstring)."""

    def __init__(
        self, objects: Objects, queries: Queries, obj_cell: np.ndarray, n_terms: int,
        n_workers: int, n_cells: int, impl: str = "kernel", spark=None,  # noqa: ANN001
    ) -> None:  # fmt: skip
        from routelab.spark import get_spark

        self.n_workers = n_workers
        self.sc = (spark or get_spark()).sparkContext
        empty = np.zeros(0, dtype=np.int64)
        self.state: list[Postings] = [(empty, empty, empty) for _ in range(n_workers)]
        self.shared = self.sc.broadcast((objects, queries, obj_cell, n_terms, impl, n_cells))

    def run(self, wts: list[WorkerTuples]) -> list[tuple[ReplayResult, float]]:
        shared = self.shared
        jobs = [(w, self.state[w], wts[w]) for w in range(self.n_workers)]
        outs = (
            self.sc.parallelize(jobs, self.n_workers)
            .map(lambda j: _period_task(shared.value, *j))
            .collect()
        )
        outs.sort(key=lambda o: o[0])
        self.state = [o[3] for o in outs]
        return [(o[1], o[2]) for o in outs]

    def postings(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings:
        sel = _select(self.state[w], cells, terms)
        q, c, k = self.state[w]
        return q[sel], c[sel], k[sel]

    def postings_per_cell(self, w: int, n_cells: int) -> np.ndarray:
        return np.bincount(self.state[w][1], minlength=n_cells).astype(np.int64)

    def take(self, w: int, cells: np.ndarray, terms: np.ndarray | None = None) -> Postings:
        sel = _select(self.state[w], cells, terms)
        q, c, k = self.state[w]
        self.state[w] = (q[~sel], c[~sel], k[~sel])
        return q[sel], c[sel], k[sel]

    def give(self, w: int, post: Postings) -> None:
        q, c, k = self.state[w]
        self.state[w] = _sorted(np.r_[q, post[0]], np.r_[c, post[1]], np.r_[k, post[2]])

    def close(self) -> None:
        self.shared.unpersist()


BACKENDS = ("local", "spark")
