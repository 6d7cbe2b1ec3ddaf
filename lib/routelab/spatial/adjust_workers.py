"""The workers of an adjusted replay (PS2Stream Sect. V): what the adjustment needs of
them (:class:`Workers`) and the workers in this process.

:class:`LocalWorkers` keeps one GI2 index per worker in this process. Their Spark twin,
:class:`routelab.spatial.dataflow.SparkWorkers`, runs every period as one Spark job with
one task per worker (Spark code lives in the dataflow module). Both give the same matches
(tested); the adjustment logic in :mod:`routelab.spatial.adjustment` does not know which
one runs.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from routelab.spatial.gi2 import ReplayResult, WorkerTuples, make_index
from routelab.spatial.model import INS, Objects, Queries
from routelab.timing import now as clock

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
            t0 = clock()
            res = idx.replay(wt)
            out.append((res, clock() - t0))
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


BACKENDS = ("local", "spark")  # LocalWorkers, dataflow.SparkWorkers
