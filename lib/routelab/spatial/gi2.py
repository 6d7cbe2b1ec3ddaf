"""The workers' index: GI2, the Grid-Inverted-Index of Vaid et al. (PS2Stream Sect. IV-D).

"After dividing the STS queries by the cells they overlap with, GI2 constructs an inverted
index for each cell": a query is appended to the inverted list of its registering keys
(:func:`routelab.spatial.model.assign_keys`) in every cell it was sent for. An object looks
up its cell and scans the lists of its distinct terms; each candidate query is checked
(rectangle, then the keyword expression) once per object. Deletion is lazy: the id goes
into a hash set and its postings are removed when a scan meets them.

The cells are the base grid's (:mod:`routelab.spatial.grid`); the dispatcher tells the
worker which ``(cell, key)`` postings to create (its ``INS`` message), so a worker indexes
a query only where its partition owns it.

Gap (spec 2.4): lists that no object scans would keep deleted postings for ever; when the
pending deletions exceed ``purge_fraction`` of the live queries every list is swept.

Two implementations with one behaviour: :class:`GI2Reference` (dicts and lists, reads like
the paper) and :class:`GI2Kernel` (numba; postings in arrays with a free list, one typed
dict from ``cell * n_terms + term`` to the list head). Both report the candidate checks
they perform (the unit of the default cost model, :mod:`routelab.spatial.cost`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import types

from routelab.spatial.model import DEL, INS, OBJ, Objects, Queries


@dataclass
class WorkerTuples:
    """A worker's sub-stream in order: ``kind``, ``ref`` (object or query index) and, for
    each INS, the ``(cell, key)`` postings to create (``post_ptr`` indexes them per tuple;
    other kinds have none)."""

    kind: np.ndarray  # int8
    ref: np.ndarray  # int64
    post_ptr: np.ndarray  # int64, n+1
    post_cell: np.ndarray  # int64
    post_key: np.ndarray  # int32

    def __len__(self) -> int:
        return len(self.kind)


@dataclass
class ReplayResult:
    """What a worker's replay produced: matched (query index, object index) pairs, the
    candidate checks of every tuple, and the index size at the end."""

    match_query: np.ndarray
    match_object: np.ndarray
    checks: np.ndarray
    live_postings: int
    peak_postings: int
    pending_deletions: int


# --------------------------------------------------------------------------- reference


class GI2Reference:
    """GI2 as the paper describes it: per cell, ``term -> list of query ids``."""

    def __init__(
        self, objects: Objects, queries: Queries, obj_cell: np.ndarray, purge_fraction: float = 0.1
    ) -> None:
        self.objects = objects
        self.queries = queries
        self.obj_cell = obj_cell
        self.purge_fraction = purge_fraction
        self.lists: dict[tuple[int, int], list[int]] = {}
        self.postings: dict[int, int] = {}  # live query -> its postings still in lists
        self.deleted: set[int] = set()
        self.peak = 0

    @property
    def n_postings(self) -> int:
        return sum(len(v) for v in self.lists.values())

    def insert(self, q: int, cells: np.ndarray, keys: np.ndarray) -> int:
        if len(cells) == 0:
            return 0
        for c, k in zip(cells.tolist(), keys.tolist(), strict=True):
            self.lists.setdefault((c, k), []).append(q)
        self.postings[q] = self.postings.get(q, 0) + len(cells)
        self.peak = max(self.peak, self.n_postings)
        return len(cells)

    def delete(self, q: int) -> int:
        if q in self.postings:
            self.deleted.add(q)
        if len(self.deleted) > self.purge_fraction * max(1, len(self.postings) - len(self.deleted)):
            return self.purge()
        return 0

    def purge(self) -> int:
        """Remove every deleted query's postings; returns the postings visited."""
        visited = 0
        for key in list(self.lists):
            lst = self.lists[key]
            visited += len(lst)
            kept = [q for q in lst if q not in self.deleted]
            if kept:
                self.lists[key] = kept
            else:
                del self.lists[key]
        for q in self.deleted:
            self.postings.pop(q, None)
        self.deleted.clear()
        return visited

    def match(self, o: int) -> tuple[list[int], int]:
        """Matching queries of object ``o`` and the candidate checks made."""
        cell = int(self.obj_cell[o])
        terms = self.objects.terms_of(o)
        term_set = frozenset(terms.tolist())
        lon, lat = self.objects.lon[o], self.objects.lat[o]
        checked: set[int] = set()
        hits: list[int] = []
        checks = 0
        for t in terms.tolist():
            lst = self.lists.get((cell, t))
            if not lst:
                continue
            kept = []
            for q in lst:
                checks += 1
                if q in self.deleted:  # lazy deletion: drop the posting now
                    self.postings[q] -= 1
                    if self.postings[q] == 0:
                        del self.postings[q]
                        self.deleted.discard(q)
                    continue
                kept.append(q)
                if q in checked:
                    continue
                checked.add(q)
                r = self.queries.rect[q]
                if (
                    r[0] <= lon <= r[2]
                    and r[1] <= lat <= r[3]
                    and any(all(int(x) in term_set for x in conj) for conj in self.queries.dnf(q))
                ):
                    hits.append(q)
            if kept:
                self.lists[(cell, t)] = kept
            else:
                del self.lists[(cell, t)]
        return hits, checks

    def replay(self, tuples: WorkerTuples) -> ReplayResult:
        mq: list[int] = []
        mo: list[int] = []
        checks = np.zeros(len(tuples), dtype=np.int64)
        for i in range(len(tuples)):
            kind, ref = int(tuples.kind[i]), int(tuples.ref[i])
            if kind == OBJ:
                hits, checks[i] = self.match(ref)
                mq.extend(hits)
                mo.extend([ref] * len(hits))
            elif kind == INS:
                a, b = tuples.post_ptr[i], tuples.post_ptr[i + 1]
                checks[i] = self.insert(ref, tuples.post_cell[a:b], tuples.post_key[a:b])
            elif kind == DEL:
                checks[i] = self.delete(ref)
        return ReplayResult(
            np.asarray(mq, dtype=np.int64),
            np.asarray(mo, dtype=np.int64),
            checks,
            self.n_postings,
            self.peak,
            len(self.deleted),
        )


# --------------------------------------------------------------------------- kernel

_DICT_TYPES = dict(key_type=types.int64, value_type=types.int64)


@numba.njit(cache=True)
def _purge(heads, p_query, p_next, free, n_free, deleted, live_post):
    visited = 0
    empty = []
    for key, h in heads.items():
        prev = -1
        p = h
        new_head = h
        while p >= 0:
            visited += 1
            nxt = p_next[p]
            q = p_query[p]
            if deleted[q]:
                live_post[q] -= 1
                if prev < 0:
                    new_head = nxt
                else:
                    p_next[prev] = nxt
                free[n_free[0]] = p
                n_free[0] += 1
            else:
                prev = p
            p = nxt
        if new_head < 0:
            empty.append(key)
        else:
            heads[key] = new_head
    for key in empty:
        del heads[key]
    return visited


@numba.njit(cache=True)
def _replay(
    heads,
    p_query,
    p_next,
    free,
    n_free,
    n_used,
    deleted,
    live_post,
    counters,
    qstamp,
    term_mark,
    kind,
    ref,
    post_ptr,
    post_cell,
    post_key,
    obj_cell,
    obj_lon,
    obj_lat,
    obj_term_ptr,
    obj_terms,
    q_rect,
    q_conj_ptr,
    q_cterm_ptr,
    q_conj_terms,
    n_terms,
    purge_fraction,
    stamp0,
):
    # counters: 0 live queries, 1 pending deletions, 2 live postings, 3 peak postings
    n = len(kind)
    checks = np.zeros(n, dtype=np.int64)
    cap = 1024
    out_q = np.empty(cap, dtype=np.int64)
    out_o = np.empty(cap, dtype=np.int64)
    n_out = 0
    for i in range(n):
        k = kind[i]
        r = ref[i]
        if k == 1:  # INS
            a = post_ptr[i]
            b = post_ptr[i + 1]
            for j in range(a, b):
                if n_free[0] > 0:
                    n_free[0] -= 1
                    p = free[n_free[0]]
                else:
                    p = n_used[0]
                    n_used[0] += 1
                key = post_cell[j] * n_terms + post_key[j]
                p_query[p] = r
                if key in heads:
                    p_next[p] = heads[key]
                else:
                    p_next[p] = -1
                heads[key] = p
            live_post[r] += b - a
            if b > a:
                counters[0] += 1
            counters[2] += b - a
            if counters[2] > counters[3]:
                counters[3] = counters[2]
            checks[i] = b - a
        elif k == 2:  # DEL (lazy)
            if live_post[r] > 0 and not deleted[r]:
                deleted[r] = True
                counters[1] += 1
                counters[0] -= 1
            if counters[1] > purge_fraction * max(1, counters[0]):
                before = 0
                for q in range(len(deleted)):
                    if deleted[q]:
                        before += live_post[q]
                checks[i] = _purge(heads, p_query, p_next, free, n_free, deleted, live_post)
                counters[2] -= before
                for q in range(len(deleted)):
                    if deleted[q] and live_post[q] == 0:
                        deleted[q] = False
                counters[1] = 0
        else:  # OBJ
            stamp = stamp0 + i
            cell = obj_cell[r]
            lon = obj_lon[r]
            lat = obj_lat[r]
            ta = obj_term_ptr[r]
            tb = obj_term_ptr[r + 1]
            for j in range(ta, tb):
                term_mark[obj_terms[j]] = stamp
            c = 0
            for j in range(ta, tb):
                key = cell * n_terms + obj_terms[j]
                if key not in heads:
                    continue
                h = heads[key]
                prev = -1
                p = h
                new_head = h
                while p >= 0:
                    c += 1
                    nxt = p_next[p]
                    q = p_query[p]
                    if deleted[q]:
                        live_post[q] -= 1
                        counters[2] -= 1
                        if live_post[q] == 0:
                            deleted[q] = False
                            counters[1] -= 1
                        if prev < 0:
                            new_head = nxt
                        else:
                            p_next[prev] = nxt
                        free[n_free[0]] = p
                        n_free[0] += 1
                        p = nxt
                        continue
                    prev = p
                    p = nxt
                    if qstamp[q] == stamp:
                        continue
                    qstamp[q] = stamp
                    if not (
                        q_rect[q, 0] <= lon <= q_rect[q, 2] and q_rect[q, 1] <= lat <= q_rect[q, 3]
                    ):
                        continue
                    ok = False
                    for cj in range(q_conj_ptr[q], q_conj_ptr[q + 1]):
                        allin = True
                        for tj in range(q_cterm_ptr[cj], q_cterm_ptr[cj + 1]):
                            if term_mark[q_conj_terms[tj]] != stamp:
                                allin = False
                                break
                        if allin:
                            ok = True
                            break
                    if ok:
                        if n_out == cap:
                            cap *= 2
                            nq = np.empty(cap, dtype=np.int64)
                            no = np.empty(cap, dtype=np.int64)
                            nq[:n_out] = out_q[:n_out]
                            no[:n_out] = out_o[:n_out]
                            out_q = nq
                            out_o = no
                        out_q[n_out] = q
                        out_o[n_out] = r
                        n_out += 1
                if new_head < 0:
                    del heads[key]
                elif new_head != h:
                    heads[key] = new_head
            checks[i] = c
    return out_q[:n_out], out_o[:n_out], checks


class GI2Kernel:
    """GI2 in numba: the same behaviour as :class:`GI2Reference`, incremental
    (:meth:`replay` may be called repeatedly on consecutive pieces of a sub-stream)."""

    def __init__(
        self,
        objects: Objects,
        queries: Queries,
        obj_cell: np.ndarray,
        n_terms: int,
        purge_fraction: float = 0.1,
    ) -> None:
        self.objects = objects
        self.queries = queries
        self.obj_cell = np.ascontiguousarray(obj_cell, dtype=np.int64)
        self.n_terms = int(n_terms)
        self.purge_fraction = float(purge_fraction)
        nq = len(queries)
        self.heads = numba.typed.Dict.empty(**_DICT_TYPES)
        self.p_query = np.zeros(0, dtype=np.int64)
        self.p_next = np.zeros(0, dtype=np.int64)
        self.free = np.zeros(0, dtype=np.int64)
        self.n_free = np.zeros(1, dtype=np.int64)
        self.n_used = np.zeros(1, dtype=np.int64)
        self.deleted = np.zeros(nq, dtype=np.bool_)
        self.live_post = np.zeros(nq, dtype=np.int64)
        self.counters = np.zeros(4, dtype=np.int64)
        self.qstamp = np.full(nq, -1, dtype=np.int64)
        self.term_mark = np.full(max(1, self.n_terms), -1, dtype=np.int64)
        self.stamp0 = 0
        q = queries
        self._q = (np.ascontiguousarray(q.rect), q.conj_ptr, q.cterm_ptr, q.conj_terms)
        self._o = (self.obj_cell, objects.lon, objects.lat, objects.term_ptr, objects.terms)

    def _reserve(self, extra: int) -> None:
        need = int(self.n_used[0]) + extra
        if need <= len(self.p_query):
            return
        cap = max(need, 2 * len(self.p_query), 1024)
        for name in ("p_query", "p_next", "free"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=np.int64)
            new[: len(old)] = old
            setattr(self, name, new)

    @property
    def live_postings(self) -> int:
        return int(self.counters[2])

    def replay(self, tuples: WorkerTuples) -> ReplayResult:
        self._reserve(len(tuples.post_cell))
        mq, mo, checks = _replay(
            self.heads,
            self.p_query,
            self.p_next,
            self.free,
            self.n_free,
            self.n_used,
            self.deleted,
            self.live_post,
            self.counters,
            self.qstamp,
            self.term_mark,
            tuples.kind.astype(np.int8),
            tuples.ref.astype(np.int64),
            tuples.post_ptr.astype(np.int64),
            tuples.post_cell.astype(np.int64),
            tuples.post_key.astype(np.int32),
            *self._o,
            *self._q,
            self.n_terms,
            self.purge_fraction,
            self.stamp0,
        )
        self.stamp0 += len(tuples)
        return ReplayResult(
            mq, mo, checks, int(self.counters[2]), int(self.counters[3]), int(self.counters[1])
        )


def make_index(
    kind: str,
    objects: Objects,
    queries: Queries,
    obj_cell: np.ndarray,
    n_terms: int,
    purge_fraction: float = 0.1,
) -> GI2Reference | GI2Kernel:
    """``kind`` = ``"kernel"`` (fast) or ``"reference"`` (readable)."""
    if kind == "kernel":
        return GI2Kernel(objects, queries, obj_cell, n_terms, purge_fraction)
    if kind == "reference":
        return GI2Reference(objects, queries, obj_cell, purge_fraction)
    raise ValueError(f"GI2 implementation must be 'kernel' or 'reference', got {kind!r}")
