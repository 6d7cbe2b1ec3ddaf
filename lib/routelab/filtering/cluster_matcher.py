"""The clustered matcher of Sects. 2.2-3: subscriptions in clusters reached through
access predicates (single equalities, conjunctions in multi-attribute tables), matched by
Fig. 2 with ``cluster_matching``. Propagation and static are configurations of it
(:mod:`.matchers`); dynamic (:mod:`.dynamic`) maintains its configuration.

The catch-all subscriptions (no equality predicate, so no access predicate) are checked
one by one in the paper (``catch_all="scan"``). With ``catch_all="bitset"`` (the default)
they are matched by a :class:`~routelab.filtering.bitset.BitsetStage` instead once there
are at least ``BITSET_MIN`` of them: the same answers (tested), ranges ruled out by
bitsets instead of row checks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from routelab.filtering.bitset import BitsetStage, merge_csr, rows_csr
from routelab.filtering.clusters import CATCH_ALL, ClusterIndex, equality_first, match_kernel
from routelab.filtering.costmodel import EventStats
from routelab.filtering.counting import sort_ids_per_event
from routelab.filtering.model import EQ, Events, Subscriptions
from routelab.filtering.predicates import PredicateIndex
from routelab.filtering.registry import Registry
from routelab.filtering.static import assign_access, predicate_nu
from routelab.uniques import unique

#: the fewest catch-all subscriptions for which the bitset stage replaces the scan
BITSET_MIN = 256
CATCH_ALL_STAGES = ("bitset", "scan")


class ClusterMatcher:
    """Propagation (A0 only) or static (A0 + greedy multi-attribute tables)."""

    catch_all = "bitset"
    _stage: BitsetStage | None = None
    _p1_cache: tuple | None = None

    def __init__(
        self,
        subs: Subscriptions,
        *,
        stats: EventStats | None = None,
        schemas: Sequence[tuple[int, ...]] = (),
        prefetch: bool = False,
        name: str = "propagation",
        catch_all: str = "bitset",
    ) -> None:
        self.name = name
        self.set_catch_all(catch_all)
        self.prefetch = prefetch
        self.registry = Registry(subs)
        self.stats = stats
        self.nu = predicate_nu(subs, stats) if stats is not None else np.ones(len(subs.table))
        self.index = ClusterIndex(len(subs.table))
        self.schemas = list(schemas)
        kind, used, _ = assign_access(subs, self.schemas, self.nu)
        access = self._register_access(subs, kind, used)
        rem_ptr, rem = remaining_predicates(subs, used)
        self.index.bulk_load(access, rem_ptr, rem)
        self.last_checks = np.zeros(0, dtype=np.int64)
        self.last_lookups = np.zeros(0, dtype=np.int64)

    def _register_access(
        self, subs: Subscriptions, kind: np.ndarray, used: np.ndarray
    ) -> np.ndarray:
        access = np.empty(len(subs), dtype=np.int64)
        none = kind == -2
        if none.any():
            access[none] = self.index.access_of(CATCH_ALL)
        single = kind == -1
        for pid in unique(used[single, 0]):
            self.index.access_of((int(pid),))
        access[single] = self.index.pred_access[used[single, 0]]
        values = subs.table.value
        for t, x in enumerate(self.schemas):
            rows = np.flatnonzero(kind == t)
            if not len(rows):
                continue
            pids = used[rows, : len(x)]
            base = len(values) + 1
            if base ** len(x) < 2**62:  # one int64 code per predicate-id tuple: a 1-d unique
                code = (pids * base ** np.arange(len(x))).sum(axis=1)
                _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
                keys = values[pids[first]]
            else:
                keys, inverse = np.unique(values[pids], axis=0, return_inverse=True)
            ids = np.array([self.index.access_of((x, tuple(int(v) for v in key))) for key in keys])
            access[rows] = ids[inverse.ravel()]
        return access

    # -- updates -------------------------------------------------------------------------
    def insert(self, sub_id: int, predicates: Sequence[tuple[int, str | int, int]]) -> None:
        """Insert one subscription (Sect. 2.3: predicates into the indexes, then an access
        predicate and an append to its cluster)."""
        reg = self.registry
        i = reg.add(sub_id, predicates)
        pids = reg.preds_of(i)
        table = reg.table()
        if len(self.nu) < len(table):
            extra = [
                self.stats.nu(int(table.attr[p]), int(table.value[p]))
                if self.stats is not None and table.op[p] == EQ
                else 1.0
                for p in range(len(self.nu), len(table))
            ]
            self.nu = np.concatenate([self.nu, extra])
        eq = {int(table.attr[p]): int(p) for p in pids[::-1] if table.op[p] == EQ}
        key, consumed, best = CATCH_ALL, [], np.inf
        for a in sorted(eq):
            if self.nu[eq[a]] < best:
                key, consumed, best = (eq[a],), [eq[a]], self.nu[eq[a]]
        for x in self.schemas:
            if all(a in eq for a in x):
                x_nu = float(np.prod([self.nu[eq[a]] for a in x]))
                if x_nu < best:
                    values = tuple(int(table.value[eq[a]]) for a in x)
                    key, consumed, best = (x, values), [eq[a] for a in x], x_nu
        access = self.index.access_of(key)
        remaining = equality_first(np.setdiff1d(pids, consumed).astype(np.int64), table.op)
        self.index.add(i, access, remaining)

    def delete(self, sub_id: int) -> None:
        """Delete one subscription in O(its size) through the subscription -> cluster map."""
        i = self.registry.remove(sub_id)
        self.index.remove(i)

    def set_catch_all(self, stage: str) -> None:
        """How the catch-all subscriptions are matched: "bitset" or "scan" (module doc)."""
        if stage not in CATCH_ALL_STAGES:
            raise ValueError(f"catch_all must be one of {CATCH_ALL_STAGES}, got {stage!r}")
        self.catch_all = stage
        self._stage = None
        self._p1_cache = None

    def catch_all_rows(self) -> np.ndarray:
        """The internal indexes of the catch-all subscriptions (every cluster of it)."""
        a = self.index.access_id.get(CATCH_ALL, -1)
        if a < 0:
            return np.zeros(0, dtype=np.int64)
        cs = np.flatnonzero(self.index.c_access.view() == a)
        parts = [self.index.members(int(c)) for c in cs]
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)

    def _phase1_for_clusters(self, staged_rows: np.ndarray) -> PredicateIndex:
        """Phase 1 over the predicates the clustered subscriptions use: those only the
        staged catch-all subscriptions use are left to the bitset stage (their bits would
        never be read)."""
        reg = self.registry
        full = reg.phase1_index()
        key = (self._stage.rebuilds if self._stage else 0, len(staged_rows))
        if self._p1_cache is not None and self._p1_cache[0] is full and self._p1_cache[1] == key:
            return self._p1_cache[2]
        _, preds = rows_csr(reg, staged_rows)
        refs = reg.refcount.view().copy()
        np.subtract.at(refs, preds, 1)
        index = PredicateIndex.build(reg.table(), refs > 0)
        self._p1_cache = (full, key, index)
        return index

    # -- matching ------------------------------------------------------------------------
    def prepare(self) -> None:
        """Rebuild now what updates invalidated and the next match needs (the phase-1
        families, the clusters of each access predicate, the tables' sorted keys), so a
        timed match does not pay for the updates before it."""
        self.registry.phase1_index()
        self.index.access_csr()
        self.index.tables()
        self.index.meta()

    def match(self, events: Events) -> tuple[np.ndarray, np.ndarray]:
        reg, idx = self.registry, self.index
        p1 = reg.phase1_index()
        acc_ptr, acc_clusters = idx.access_csr()
        tables = idx.tables()
        pred_access = idx.pred_access
        catch_all = idx.access_id.get(CATCH_ALL, -1)
        values = events.widen(reg.n_attrs).values
        staged = None
        if self.catch_all == "bitset" and catch_all >= 0:
            rows = self.catch_all_rows()
            if len(rows) >= BITSET_MIN:
                if self._stage is None:
                    self._stage = BitsetStage(reg)
                staged = self._stage.match(values, rows)
                catch_all = -1
                p1 = self._phase1_for_clusters(rows)
        ptr, out, self.last_checks, self.last_lookups = match_kernel(
            values,
            *p1.kernel_arrays(),
            reg.n_predicates(),
            pred_access,
            catch_all,
            acc_ptr,
            acc_clusters,
            idx.cols.data,
            idx.line.data,
            idx.meta(),
            tables.attrs,
            tables.ptr,
            tables.keys,
            tables.vals,
            tables.access,
            tables.slot_ptr,
            tables.slots,
            self.prefetch,
        )
        if staged is not None:
            ptr, out = merge_csr(ptr, out, staged[0], staged[1])
            self.last_checks = self.last_checks + staged[2]
        return ptr, sort_ids_per_event(ptr, reg.ids.view()[out])

    def nbytes(self) -> int:
        t = self.index.tables()
        stage = self._stage.nbytes() if self._stage is not None else 0
        return (
            self.index.nbytes()
            + stage
            + int(t.keys.nbytes + t.vals.nbytes + t.access.nbytes + t.slots.nbytes)
        )


def remaining_predicates(subs: Subscriptions, used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each subscription's predicates minus its access predicate's, equalities first."""
    n = len(subs)
    sub_of = np.repeat(np.arange(n), subs.sizes())
    pids = subs.preds.astype(np.int64)
    drop = np.zeros(len(pids), dtype=bool)
    for k in range(used.shape[1]):
        drop |= pids == used[sub_of, k]
    keep_sub, keep_pid = sub_of[~drop], pids[~drop]
    order = np.lexsort((subs.table.op[keep_pid] != EQ, keep_sub))
    rem = keep_pid[order].astype(np.int32)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keep_sub, minlength=n), out=ptr[1:])
    return ptr, rem
