"""PS2Stream's global load adjustment (Sect. V-B): periodic re-partitioning with two
strategies side by side until the old queries drain.

Every ``every`` tuples the dispatcher builds a new partition (``algorithm``, hybrid by
default) on a recent sample: the objects of the last ``window`` tuples and the queries
alive now. It estimates the total load of the current gridt and of the new one on that
same sample by routing it through each (a fresh dispatcher: the live queries inserted,
then the objects) and replaying every worker's share through GI2 (:func:`sample_load`:
``c_m`` x candidate checks + ``c_o`` x object copies + ``c_ins`` x query insertions, the
trigger's load). If the new one is lower by more than ``gamma`` (a fraction of the
current), it switches: queries inserted from now on are placed by the new gridt; the
queries alive at the switch stay where they are and their deletions go through the old
gridt's dispatcher; objects are routed by both (the union of the two worker sets: a
worker holding old and new queries gets one copy). When the old live queries fall below
``rho`` x those alive at the switch, the rest migrate: every worker drops their postings
and they are placed again by the new gridt, and the old strategy is stopped. Local
adjustment is suspended while two strategies run (our reading: the paper does not say
how the two interact).

Our readings of what the paper leaves open: the re-partitioning test (a ``gamma``
improvement on the sample) and the end of the dual period (``rho``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from routelab.readings import pick
from routelab.spatial.adjust_workers import Workers
from routelab.spatial.cost import CostParams, SampleStats
from routelab.spatial.engine import (
    PARTITIONERS,
    POSTING_BYTES,
    QUERY_BYTES,
    Setup,
    make_gridt,
    tuples_for,
)
from routelab.spatial.gi2 import make_index
from routelab.spatial.gridt import DispatcherState, Gridt, Routed, combine_routed, dispatch
from routelab.spatial.model import DEL, INS, OBJ
from routelab.timing import now as clock
from routelab.uniques import unique


@dataclass(frozen=True)
class GlobalParams:
    """Global adjustment's parameters (module docstring); ``every`` = 0 turns it off."""

    every: int = 0
    window: int = 0  # tuples of the recent sample (0: ``every``)
    #: switch when the new partition's sample load is lower by more than this share (0, any
    #: improvement, under ``ROUTELAB_READING=gamma``)
    gamma: float = field(default_factory=lambda: pick("gamma", 0.1, 0.0))
    rho: float = 0.1
    algorithm: str = "hybrid"

    def __post_init__(self) -> None:
        if self.every < 0 or self.window < 0:
            raise ValueError("every and window must be >= 0 tuples")
        if not 0 <= self.gamma < 1 or not 0 <= self.rho < 1:
            raise ValueError(f"gamma and rho must lie in [0, 1), got {self.gamma}, {self.rho}")
        PARTITIONERS.lookup(self.algorithm)


def sample_load(
    setup: Setup, gt: Gridt, objects: np.ndarray, queries: np.ndarray, costs: CostParams
) -> float:
    """Total load of routing a sample through ``gt`` (module docstring)."""
    st = setup.stream
    kind = np.r_[np.full(len(queries), INS), np.full(len(objects), OBJ)].astype(np.int8)
    ref = np.r_[queries, objects].astype(np.int64)
    routed = dispatch(
        gt, DispatcherState(), kind, ref, setup.obj_cell, st.objects, st.queries, setup.q_range
    )
    total = 0.0
    for w in range(gt.n_workers):
        wt = tuples_for(kind, ref, routed, w)
        res = make_index("kernel", st.objects, st.queries, setup.obj_cell, gt.n_terms).replay(wt)
        obj = wt.kind == OBJ
        total += costs.c_m * float(res.checks[obj].sum()) + costs.c_o * int(obj.sum())
        total += costs.c_ins * int((~obj).sum())
    return total


def live_after(
    kind: np.ndarray, ref: np.ndarray, n_queries: int, end: int, start: int = 0,
    alive: np.ndarray | None = None,
) -> np.ndarray:  # fmt: skip
    """Which queries are alive after the first ``end`` tuples (from ``alive``, the state
    after the first ``start``, if given)."""
    alive = np.zeros(n_queries, dtype=bool) if alive is None else alive.copy()
    k, r = kind[start:end], ref[start:end]
    alive[r[k == INS]] = True
    alive[r[k == DEL]] = False
    return alive


class Strategies:
    """The dispatchers' placement: one gridt, or (after a switch) old and new side by side."""

    def __init__(self, gt: Gridt) -> None:
        self.gt = gt
        self.state = DispatcherState()
        self.old: tuple[Gridt, DispatcherState] | None = None
        self.old_q = np.zeros(0, dtype=bool)
        self.at_switch = 0
        self._live: tuple[int, np.ndarray] | None = None  # (end, alive) of the last call

    def live(self, setup: Setup, end: int) -> np.ndarray:
        """The queries alive after the first ``end`` tuples, carried forward from the last
        call (the replay asks at increasing ends)."""
        st = setup.stream
        start, alive = self._live if self._live and self._live[0] <= end else (0, None)
        alive = live_after(st.kind, st.ref, len(st.queries), end, start, alive)
        self._live = (end, alive)
        return alive

    @property
    def dual(self) -> bool:
        return self.old is not None

    def route(self, setup: Setup, lo: int, hi: int) -> Routed:
        """Tuples ``lo..hi`` through the current strategy (or both)."""
        st = setup.stream
        args = (setup.obj_cell, st.objects, st.queries, setup.q_range)
        if self.old is None:
            return dispatch(self.gt, self.state, st.kind, st.ref, *args, lo, hi)
        kind, ref = st.kind[lo:hi], st.ref[lo:hi]
        is_q = kind != OBJ
        old = np.zeros(len(kind), dtype=bool)
        old[is_q] = self.old_q[ref[is_q]]
        k_old = np.where(is_q & ~old, -1, kind).astype(np.int8)
        k_new = np.where(old, -1, kind).astype(np.int8)
        parts = [
            dispatch(self.old[0], self.old[1], k_old, ref, *args),
            dispatch(self.gt, self.state, k_new, ref, *args),
        ]
        for p in parts:
            p.tup = p.tup + lo
        return combine_routed(parts, dedupe=True)

    def consider(
        self, setup: Setup, params: GlobalParams, costs: CostParams, end: int, n_workers: int
    ) -> dict:
        """Build a partition on the recent sample and switch if it pays (module docstring)."""
        st = setup.stream
        t0 = clock()
        lo = max(0, end - (params.window or params.every))
        objs = unique(st.ref[lo:end][st.kind[lo:end] == OBJ])
        live = self.live(setup, end)
        qs = np.flatnonzero(live)
        stats = SampleStats(
            setup.grid, st.objects.take(objs), st.queries.take(qs), len(st.vocab), costs
        )
        local = replace(setup, stats=stats)
        partition = PARTITIONERS.lookup(params.algorithm).kernel(local, n_workers)
        new_gt = make_gridt(local, partition)
        current = sample_load(setup, self.gt, objs, qs, costs)
        candidate = sample_load(setup, new_gt, objs, qs, costs)
        switch = candidate < (1 - params.gamma) * current
        if switch:
            self.old = (self.gt, self.state)
            self.gt, self.state = new_gt, DispatcherState()
            self.old_q = live.copy()
            self.at_switch = int(live.sum())
        return {
            "at_tuple": end, "event": "switch" if switch else "keep",
            "load_current": current, "load_new": candidate, "old_queries": self.at_switch if switch else 0,
            "seconds": clock() - t0,
        }  # fmt: skip

    def drained(self, setup: Setup, end: int, params: GlobalParams) -> bool:
        old_live = self.live(setup, end) & self.old_q
        return self.dual and int(old_live.sum()) < params.rho * max(self.at_switch, 1)

    def finish(self, setup: Setup, workers: Workers, end: int) -> dict:
        """The old queries still alive migrate to their places under the new gridt and the
        old strategy stops."""
        st = setup.stream
        t0 = clock()
        n_cells = len(self.gt.cell_owner)
        everything = np.arange(n_cells)
        moved_postings = 0
        for w in range(workers.n_workers):
            q, c, k = workers.take(w, everything)
            keep = ~self.old_q[q]
            moved_postings += int((~keep).sum())
            workers.give(w, (q[keep], c[keep], k[keep]))
        ids = np.flatnonzero(self.live(setup, end) & self.old_q)
        kind = np.full(len(ids), INS, dtype=np.int8)
        routed = dispatch(
            self.gt, self.state, kind, ids, setup.obj_cell, st.objects, st.queries, setup.q_range
        )
        placed = 0
        for w in range(workers.n_workers):
            wt = tuples_for(kind, ids, routed, w)
            placed += len(wt.post_cell)
            workers.give(
                w,
                (
                    np.repeat(wt.ref, np.diff(wt.post_ptr)),
                    wt.post_cell,
                    wt.post_key.astype(np.int64),
                ),
            )
        self.old = None
        self.old_q = np.zeros(0, dtype=bool)
        n_bytes = QUERY_BYTES * len(ids) + POSTING_BYTES * placed
        return {
            "at_tuple": end, "event": "drain", "load_current": np.nan, "load_new": np.nan,
            "old_queries": len(ids), "postings_dropped": moved_postings, "postings_placed": placed,
            "bytes": n_bytes, "seconds": clock() - t0,
        }  # fmt: skip
