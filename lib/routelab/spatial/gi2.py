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

Gap in the paper: lists that no object scans would keep deleted postings for ever; when the
pending deletions exceed ``purge_fraction`` of the live queries every list is swept.

Two implementations with one behaviour: :class:`GI2Reference` (dicts and lists, reads like
the paper) and :class:`GI2Kernel` (numba; postings in one pool of arrays, an
open-addressing hash table from ``cell * n_terms + term`` to the list). Both report the candidate checks
they perform (the unit of the default cost model, :mod:`routelab.spatial.cost`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numba
import numpy as np

from routelab.readings import pick
from routelab.spatial.int_table import mix as _mix
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

    def split(self, k: int) -> tuple[WorkerTuples, WorkerTuples]:
        """The first ``k`` tuples and the rest, each with its own postings."""
        k = int(min(max(k, 0), len(self.kind)))
        cut = int(self.post_ptr[k])
        head = WorkerTuples(
            self.kind[:k], self.ref[:k], self.post_ptr[: k + 1], self.post_cell[:cut],
            self.post_key[:cut],
        )  # fmt: skip
        tail = WorkerTuples(
            self.kind[k:], self.ref[k:], self.post_ptr[k:] - cut, self.post_cell[cut:],
            self.post_key[cut:],
        )  # fmt: skip
        return head, tail

    @classmethod
    def unposted(cls, kind: np.ndarray | int, ref: np.ndarray) -> WorkerTuples:
        """Tuples that create no postings (objects, deletions): ``kind`` per tuple or one
        kind for all of ``ref``."""
        ref = np.asarray(ref, dtype=np.int64)
        kinds = np.broadcast_to(np.asarray(kind, dtype=np.int8), ref.shape).copy()
        return cls(
            kinds,
            ref,
            np.zeros(len(ref) + 1, np.int64),
            np.zeros(0, np.int64),
            np.zeros(0, np.int32),
        )


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

    def copy(self) -> GI2Reference:
        """An independent index in the same state (the stream's objects and queries shared)."""
        out = copy.copy(self)
        out.lists = {k: list(v) for k, v in self.lists.items()}
        out.postings = dict(self.postings)
        out.deleted = set(self.deleted)
        return out

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

    def cell_postings(
        self, cells: np.ndarray, terms: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The live (not deleted) postings in ``cells`` (under the keys ``terms`` selects, a
        boolean mask over terms; all by default): (query, cell, key) arrays, sorted."""
        want = set(np.asarray(cells).tolist())
        rows = sorted(
            (q, c, k)
            for (c, k), lst in self.lists.items()
            if c in want and (terms is None or terms[k])
            for q in lst
            if q not in self.deleted
        )
        arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
        return arr[:, 0], arr[:, 1], arr[:, 2]

    def drop_cells(self, cells: np.ndarray, terms: np.ndarray | None = None) -> int:
        """Remove every posting in ``cells`` (under the keys ``terms`` selects) -- they
        migrate away; returns how many."""
        want = set(np.asarray(cells).tolist())
        dropped = 0
        for key in [k for k in self.lists if k[0] in want and (terms is None or terms[k[1]])]:
            for q in self.lists.pop(key):
                dropped += 1
                self.postings[q] -= 1
                if self.postings[q] == 0:
                    del self.postings[q]
                    self.deleted.discard(q)
        return dropped

    def postings_per_cell(self, n_cells: int) -> np.ndarray:
        """Live postings stored per cell (a migration's size)."""
        out = np.zeros(n_cells, dtype=np.int64)
        for (c, _), lst in self.lists.items():
            out[c] += sum(1 for q in lst if q not in self.deleted)
        return out

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


#: posting modes: how a candidate is decided without touching the query's own arrays
MODE_AND, MODE_OR, MODE_GENERAL = 0, 1, 2


@numba.njit(cache=True)
def _posting_mode(q, key, q_conj_ptr, q_cterm_ptr, q_conj_terms):
    """(mode, e1, e2): an AND query (one conjunct of <= 3 terms) needs its other terms e1, e2
    in the object; a pure OR query (single-term conjuncts, <= 3) matches on its key alone and
    keeps its other keys for de-duplication; anything else is evaluated in full."""
    c0 = q_conj_ptr[q]
    c1 = q_conj_ptr[q + 1]
    e = np.full(3, -1, dtype=np.int64)
    n = 0
    if c1 - c0 == 1:
        for tj in range(q_cterm_ptr[c0], q_cterm_ptr[c0 + 1]):
            t = q_conj_terms[tj]
            if t != key:
                if n == 2:
                    return MODE_GENERAL, -1, -1
                e[n] = t
                n += 1
        return MODE_AND, e[0], e[1]
    for cj in range(c0, c1):
        if q_cterm_ptr[cj + 1] - q_cterm_ptr[cj] != 1:
            return MODE_GENERAL, -1, -1
        t = q_conj_terms[q_cterm_ptr[cj]]
        if t != key:
            if n == 2:
                return MODE_GENERAL, -1, -1
            e[n] = t
            n += 1
    return MODE_OR, e[0], e[1]


@numba.njit(cache=True)
def _remove_deleted(
    s, s_start, s_len, p_q, p_rect, p_e1, p_e2, p_mode, deleted, live_post, counters
):
    """Compact slot ``s`` without its deleted postings; returns the postings visited."""
    a = s_start[s]
    w = a
    for j in range(a, a + s_len[s]):
        q = p_q[j]
        if deleted[q]:
            live_post[q] -= 1
            counters[2] -= 1
            if live_post[q] == 0:
                deleted[q] = False
                counters[1] -= 1
            continue
        if w != j:
            p_q[w] = q
            p_rect[w, 0] = p_rect[j, 0]
            p_rect[w, 1] = p_rect[j, 1]
            p_rect[w, 2] = p_rect[j, 2]
            p_rect[w, 3] = p_rect[j, 3]
            p_e1[w] = p_e1[j]
            p_e2[w] = p_e2[j]
            p_mode[w] = p_mode[j]
        w += 1
    visited = s_len[s]
    s_len[s] = w - a
    return visited


@numba.njit(cache=True, inline="always")
def _find(h, key):  # type: ignore[no-untyped-def]
    """Position of ``key`` in the open-addressing table ``h`` (rows of key and slot, one
    cache line per probe; linear probing), or ``-1 - p`` with ``p`` the empty position
    where it would go."""
    mask = h.shape[0] - 1
    i = _mix(key) & mask
    while True:
        k = h[i, 0]
        if k == key:
            return i
        if k == -1:
            return -1 - i
        i = (i + 1) & mask


@numba.njit(cache=True)
def _rehash(h, s_key, n):  # type: ignore[no-untyped-def]
    for sl in range(n):
        p = -1 - _find(h, s_key[sl])
        h[p, 0] = s_key[sl]
        h[p, 1] = sl


@numba.njit(cache=True)
def _replay(
    h,
    s_key,
    s_start,
    s_len,
    s_cap,
    n_slots,
    p_q,
    p_rect,
    p_e1,
    p_e2,
    p_mode,
    pool_used,
    deleted,
    live_post,
    counters,
    qstamp,
    term_mark,
    checks,
    kind,
    ref,
    post_ptr,
    post_cell,
    post_key,
    lo,
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
    cap0,
    reason,
):
    # counters: 0 live queries, 1 pending deletions, 2 live postings, 3 peak postings
    # reason[0] on an early return: 1 the pool is short, 2 only the lists' room
    n = len(kind)
    cap = max(1024, cap0)
    out_q = np.empty(cap, dtype=np.int32)  # indices into queries / objects (< 2^31)
    out_o = np.empty(cap, dtype=np.int32)
    n_out = 0
    pool_cap = len(p_q)
    for i in range(lo, n):
        k = kind[i]
        r = ref[i]
        if k == 1:  # INS: make room first (an insertion is applied whole or not at all)
            a = post_ptr[i]
            b = post_ptr[i + 1]
            need = 0
            for j in range(a, b):
                key = post_cell[j] * n_terms + post_key[j]
                x = _find(h, key)
                if x >= 0:
                    sl = h[x, 1]
                    if s_len[sl] == s_cap[sl]:
                        need += 2 * s_cap[sl]
                else:
                    need += 2
            if pool_used[0] + need > pool_cap:
                reason[0] = 1
                return out_q[:n_out], out_o[:n_out], i
            if n_slots[0] + (b - a) > len(s_start) or 2 * (n_slots[0] + (b - a)) > h.shape[0]:
                reason[0] = 2
                return out_q[:n_out], out_o[:n_out], i
            for j in range(a, b):
                key = post_cell[j] * n_terms + post_key[j]
                x = _find(h, key)
                if x >= 0:
                    sl = h[x, 1]
                else:
                    sl = n_slots[0]
                    n_slots[0] += 1
                    h[-1 - x, 0] = key
                    h[-1 - x, 1] = sl
                    s_key[sl] = key
                    s_start[sl] = pool_used[0]
                    s_len[sl] = 0
                    s_cap[sl] = 2
                    pool_used[0] += 2
                if s_len[sl] == s_cap[sl]:  # relocate to the end of the pool, doubled
                    new = pool_used[0]
                    old = s_start[sl]
                    for x in range(s_len[sl]):
                        p_q[new + x] = p_q[old + x]
                        p_rect[new + x, 0] = p_rect[old + x, 0]
                        p_rect[new + x, 1] = p_rect[old + x, 1]
                        p_rect[new + x, 2] = p_rect[old + x, 2]
                        p_rect[new + x, 3] = p_rect[old + x, 3]
                        p_e1[new + x] = p_e1[old + x]
                        p_e2[new + x] = p_e2[old + x]
                        p_mode[new + x] = p_mode[old + x]
                    s_start[sl] = new
                    pool_used[0] += 2 * s_cap[sl]
                    s_cap[sl] *= 2
                pos = s_start[sl] + s_len[sl]
                s_len[sl] += 1
                mode, e1, e2 = _posting_mode(r, post_key[j], q_conj_ptr, q_cterm_ptr, q_conj_terms)
                p_q[pos] = r
                p_rect[pos, 0] = q_rect[r, 0]
                p_rect[pos, 1] = q_rect[r, 1]
                p_rect[pos, 2] = q_rect[r, 2]
                p_rect[pos, 3] = q_rect[r, 3]
                p_e1[pos] = e1
                p_e2[pos] = e2
                p_mode[pos] = mode
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
                visited = 0
                for sl in range(n_slots[0]):
                    visited += _remove_deleted(
                        sl,
                        s_start,
                        s_len,
                        p_q,
                        p_rect,
                        p_e1,
                        p_e2,
                        p_mode,
                        deleted,
                        live_post,
                        counters,
                    )
                checks[i] = visited
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
                t = obj_terms[j]
                x = _find(h, cell * n_terms + t)
                if x < 0:
                    continue
                sl = h[x, 1]
                a = s_start[sl]
                ln = s_len[sl]
                c += ln
                has_deleted = False
                pending = counters[1] > 0
                for x in range(a, a + ln):
                    q = p_q[x]
                    if pending and deleted[q]:
                        has_deleted = True
                        continue
                    if not (
                        p_rect[x, 0] <= lon <= p_rect[x, 2] and p_rect[x, 1] <= lat <= p_rect[x, 3]
                    ):
                        continue
                    mode = p_mode[x]
                    if mode == 0:
                        e1 = p_e1[x]
                        e2 = p_e2[x]
                        if (e1 >= 0 and term_mark[e1] != stamp) or (
                            e2 >= 0 and term_mark[e2] != stamp
                        ):
                            continue
                    elif mode == 1:
                        e1 = p_e1[x]
                        e2 = p_e2[x]
                        if (e1 >= 0 and e1 < t and term_mark[e1] == stamp) or (
                            e2 >= 0 and e2 < t and term_mark[e2] == stamp
                        ):
                            continue  # found under an earlier key of the object
                    else:
                        if qstamp[q] == stamp:
                            continue
                        qstamp[q] = stamp
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
                        if not ok:
                            continue
                    if n_out == cap:
                        cap *= 2
                        nq = np.empty(cap, dtype=np.int32)
                        no = np.empty(cap, dtype=np.int32)
                        nq[:n_out] = out_q[:n_out]
                        no[:n_out] = out_o[:n_out]
                        out_q = nq
                        out_o = no
                    out_q[n_out] = q
                    out_o[n_out] = r
                    n_out += 1
                if has_deleted:  # lazy deletion: the scan drops them
                    _remove_deleted(
                        sl,
                        s_start,
                        s_len,
                        p_q,
                        p_rect,
                        p_e1,
                        p_e2,
                        p_mode,
                        deleted,
                        live_post,
                        counters,
                    )
            checks[i] = c
    return out_q[:n_out], out_o[:n_out], n


def _term_sel(terms: np.ndarray | None, n_terms: int) -> np.ndarray:
    if terms is None:
        return np.ones(max(1, n_terms), dtype=np.bool_)
    sel = np.asarray(terms, dtype=np.bool_)
    if len(sel) != n_terms:
        raise ValueError(f"terms must be a mask over {n_terms} terms, got {len(sel)}")
    return sel


@numba.njit(cache=True)
def _cell_postings(s_key, n_slots, s_start, s_len, p_q, deleted, mark, term_sel, n_terms):  # type: ignore[no-untyped-def]
    n = 0
    for sl in range(n_slots):
        key = s_key[sl]
        c = key // n_terms
        if c < mark.shape[0] and mark[c] and term_sel[key % n_terms]:
            n += s_len[sl]
    q = np.empty(n, dtype=np.int64)
    cell = np.empty(n, dtype=np.int64)
    k = np.empty(n, dtype=np.int64)
    m = 0
    for sl in range(n_slots):
        key = s_key[sl]
        c = key // n_terms
        if c < mark.shape[0] and mark[c] and term_sel[key % n_terms]:
            for j in range(s_start[sl], s_start[sl] + s_len[sl]):
                if not deleted[p_q[j]]:
                    q[m] = p_q[j]
                    cell[m] = c
                    k[m] = key % n_terms
                    m += 1
    return q[:m], cell[:m], k[:m]


@numba.njit(cache=True)
def _drop_cells(
    s_key, n_slots, s_start, s_len, p_q, deleted, live_post, counters, mark, term_sel, n_terms
):  # type: ignore[no-untyped-def]
    dropped = 0
    for sl in range(n_slots):
        key = s_key[sl]
        c = key // n_terms
        if c < mark.shape[0] and mark[c] and term_sel[key % n_terms]:
            for j in range(s_start[sl], s_start[sl] + s_len[sl]):
                q = p_q[j]
                live_post[q] -= 1
                counters[2] -= 1
                dropped += 1
                if live_post[q] == 0:
                    if deleted[q]:
                        deleted[q] = False
                        counters[1] -= 1
                    else:
                        counters[0] -= 1
            s_len[sl] = 0
    return dropped


@numba.njit(cache=True)
def _postings_per_cell(s_key, n_slots, s_start, s_len, p_q, deleted, n_cells, n_terms):  # type: ignore[no-untyped-def]
    out = np.zeros(n_cells, dtype=np.int64)
    for sl in range(n_slots):
        key = s_key[sl]
        c = key // n_terms
        for j in range(s_start[sl], s_start[sl] + s_len[sl]):
            if not deleted[p_q[j]]:
                out[c] += 1
    return out


class GI2Kernel:
    """GI2 in numba: the same matches and candidate checks as :class:`GI2Reference`.

    Each ``(cell, term)`` list is a contiguous run of a posting pool (query, its rectangle,
    and what else the object must contain), doubled and moved to the pool's end when full,
    so a scan reads memory in order instead of chasing pointers. A candidate is decided from
    the posting alone for AND queries (the conjunct's other terms) and pure OR queries (a
    key suffices; a query reached under two keys of one object is kept at the smaller key,
    so a worker delivers each pair once); other expressions are evaluated in full. Deleted
    ids are skipped and dropped from the list the scan is in (lazy deletion). Incremental:
    :meth:`replay` may be called on consecutive pieces of a sub-stream. The lists are
    found through an open-addressing table (Fibonacci hashing, linear probing, at most half
    full, rebuilt when the pool grows): one probe sequence per lookup in two flat arrays,
    where a numba typed dict cost about 100 ns.
    """

    def __init__(
        self,
        objects: Objects,
        queries: Queries,
        obj_cell: np.ndarray,
        n_terms: int,
        purge_fraction: float = 0.1,
    ) -> None:
        if max(len(objects), len(queries)) >= 2**31:
            raise ValueError("GI2Kernel's result arrays hold int32 indices: at most 2^31 - 1 "
                             "objects and queries")  # fmt: skip
        self.objects = objects
        self.queries = queries
        self.obj_cell = np.ascontiguousarray(obj_cell, dtype=np.int64)
        self.n_terms = int(n_terms)
        self.purge_fraction = float(purge_fraction)
        nq = len(queries)
        self.h = np.full((1, 2), -1, dtype=np.int64)  # open addressing: (cell, term) -> slot
        self.s_key = np.zeros(0, dtype=np.int64)
        self.s_start = np.zeros(0, dtype=np.int64)
        self.s_len = np.zeros(0, dtype=np.int64)
        self.s_cap = np.zeros(0, dtype=np.int64)
        self.n_slots = np.zeros(1, dtype=np.int64)
        self.p_q = np.zeros(0, dtype=np.int64)
        self.p_rect = np.zeros((0, 4), dtype=np.float64)
        self.p_e1 = np.zeros(0, dtype=np.int64)
        self.p_e2 = np.zeros(0, dtype=np.int64)
        self.p_mode = np.zeros(0, dtype=np.int8)
        self.pool_used = np.zeros(1, dtype=np.int64)
        self.deleted = np.zeros(nq, dtype=np.bool_)
        self.live_post = np.zeros(nq, dtype=np.int64)
        self.counters = np.zeros(4, dtype=np.int64)
        self.qstamp = np.full(nq, -1, dtype=np.int64)
        self.term_mark = np.full(max(1, self.n_terms), -1, dtype=np.int64)
        self.stamp0 = 0
        self.results_per_tuple = 0.0
        q = queries
        self._q = (np.ascontiguousarray(q.rect), q.conj_ptr, q.cterm_ptr, q.conj_terms)
        self._o = (self.obj_cell, objects.lon, objects.lat, objects.term_ptr, objects.terms)

    def _grow(self, extra_postings: int) -> None:
        """Repack the pool (each list at twice its length) with room for ``extra``."""
        n = int(self.n_slots[0])
        lens = self.s_len[:n]
        caps = np.maximum(2 * lens, 2)
        starts = np.zeros(n, dtype=np.int64)
        if n:
            starts[1:] = np.cumsum(caps)[:-1]
        used = int(caps.sum())
        size = max(1024, 2 * (used + 4 * extra_postings))
        src = np.repeat(self.s_start[:n], lens) + (
            np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        )
        dst = np.repeat(starts, lens) + (
            np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        )
        p_q = np.zeros(size, dtype=np.int64)
        p_rect = np.zeros((size, 4), dtype=np.float64)
        p_e1 = np.full(size, -1, dtype=np.int64)
        p_e2 = np.full(size, -1, dtype=np.int64)
        p_mode = np.zeros(size, dtype=np.int8)
        p_q[dst], p_rect[dst], p_e1[dst], p_e2[dst], p_mode[dst] = (
            self.p_q[src],
            self.p_rect[src],
            self.p_e1[src],
            self.p_e2[src],
            self.p_mode[src],
        )
        self.p_q, self.p_rect, self.p_e1, self.p_e2, self.p_mode = p_q, p_rect, p_e1, p_e2, p_mode
        self.pool_used[0] = used
        # room for the lists there are, doubled (a batch that needs more returns early
        # and grows again); the postings' pool is sized for the whole batch
        slot_size = max(1024, 2 * n + min(extra_postings, max(n, 1024)))
        for name, fill in (
            ("s_start", starts), ("s_len", lens.copy()), ("s_cap", caps), ("s_key", self.s_key[:n]),
        ):  # fmt: skip
            arr = np.zeros(slot_size, dtype=np.int64)
            arr[:n] = fill
            setattr(self, name, arr)
        self._rehash_table(n, slot_size)

    def _grow_lists(self) -> None:
        """Twice the room for lists (slot arrays and the table), the pool untouched."""
        n = int(self.n_slots[0])
        slot_size = max(1024, 2 * len(self.s_start), 2 * n + 1024)
        for name in ("s_start", "s_len", "s_cap", "s_key"):
            arr = np.zeros(slot_size, dtype=np.int64)
            arr[:n] = getattr(self, name)[:n]
            setattr(self, name, arr)
        self._rehash_table(n, slot_size)

    def _rehash_table(self, n: int, room: int) -> None:
        size = 1 << int(2 * room - 1).bit_length()  # a power of two >= 2 x the room
        self.h = np.full((size, 2), -1, dtype=np.int64)
        _rehash(self.h, self.s_key, n)

    @property
    def live_postings(self) -> int:
        return int(self.counters[2])

    def copy(self) -> GI2Kernel:
        """An independent index in the same state: every array of the index copied, the
        stream's objects and queries shared (a replay restarts from a snapshot instead of
        replaying what built it)."""
        out = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray) and name != "obj_cell":
                setattr(out, name, value.copy())
        return out

    def cell_postings(
        self, cells: np.ndarray, terms: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The live (not deleted) postings in ``cells`` (under the keys ``terms`` selects, a
        boolean mask over terms; all by default): (query, cell, key) arrays, sorted."""
        mark = np.zeros(int(np.max(cells, initial=-1)) + 1, dtype=np.bool_)
        mark[np.asarray(cells, dtype=np.int64)] = True
        q, c, k = _cell_postings(
            self.s_key, int(self.n_slots[0]), self.s_start, self.s_len, self.p_q, self.deleted, mark,
            _term_sel(terms, self.n_terms), self.n_terms,
        )  # fmt: skip
        order = np.lexsort((k, c, q))
        return q[order], c[order], k[order]

    def drop_cells(self, cells: np.ndarray, terms: np.ndarray | None = None) -> int:
        """Remove every posting in ``cells`` (under the keys ``terms`` selects) -- they
        migrate away; returns how many."""
        mark = np.zeros(int(np.max(cells, initial=-1)) + 1, dtype=np.bool_)
        mark[np.asarray(cells, dtype=np.int64)] = True
        return int(
            _drop_cells(
                self.s_key, int(self.n_slots[0]), self.s_start, self.s_len, self.p_q, self.deleted, self.live_post,
                self.counters, mark, _term_sel(terms, self.n_terms), self.n_terms,
            )
        )  # fmt: skip

    def postings_per_cell(self, n_cells: int) -> np.ndarray:
        """Live postings stored per cell (a migration's size)."""
        return _postings_per_cell(
            self.s_key,
            int(self.n_slots[0]),
            self.s_start,
            self.s_len,
            self.p_q,
            self.deleted,
            n_cells,
            self.n_terms,
        )

    def replay(self, tuples: WorkerTuples) -> ReplayResult:
        kind = tuples.kind.astype(np.int8)
        ref = tuples.ref.astype(np.int64)
        post_ptr = tuples.post_ptr.astype(np.int64)
        post_cell = tuples.post_cell.astype(np.int64)
        post_key = tuples.post_key.astype(np.int32)
        checks = np.zeros(len(kind), dtype=np.int64)
        outs_q, outs_o = [], []
        lo = 0
        if len(self.p_q) == 0:
            self._grow(len(post_cell))
        reason = np.zeros(1, dtype=np.int64)
        # room for the results: as many per tuple as the last call had (fewer copies as
        # the output grows)
        cap0 = int(min(self.results_per_tuple * len(kind) * 1.25, 1 << 31))
        while True:
            mq, mo, stop = _replay(
                self.h,
                self.s_key,
                self.s_start,
                self.s_len,
                self.s_cap,
                self.n_slots,
                self.p_q,
                self.p_rect,
                self.p_e1,
                self.p_e2,
                self.p_mode,
                self.pool_used,
                self.deleted,
                self.live_post,
                self.counters,
                self.qstamp,
                self.term_mark,
                checks,
                kind,
                ref,
                post_ptr,
                post_cell,
                post_key,
                lo,
                *self._o,
                *self._q,
                self.n_terms,
                self.purge_fraction,
                self.stamp0,
                cap0,
                reason,
            )
            outs_q.append(mq)
            outs_o.append(mo)
            if stop >= len(kind):
                break
            if reason[0] == 2:
                self._grow_lists()
            else:
                self._grow(int(post_ptr[-1] - post_ptr[stop]))
            lo = stop
        self.stamp0 += len(tuples)
        n_res = sum(len(q) for q in outs_q)
        if len(kind):
            self.results_per_tuple = n_res / len(kind)
        return ReplayResult(
            np.concatenate(outs_q),
            np.concatenate(outs_o),
            checks,
            int(self.counters[2]),
            int(self.counters[3]),
            int(self.counters[1]),
        )


def make_index(
    kind: str,
    objects: Objects,
    queries: Queries,
    obj_cell: np.ndarray,
    n_terms: int,
    purge_fraction: float | None = None,
) -> GI2Reference | GI2Kernel:
    """``kind`` = ``"kernel"`` (fast) or ``"reference"`` (readable). ``purge_fraction``:
    every list is swept when pending deletions exceed this fraction of the live queries
    (None: 0.1, our reading; ``ROUTELAB_READING=purge`` makes it infinite for a run, the
    paper's lazy deletion alone, never sweeping a list no object scans)."""
    purge_fraction = pick("purge", 0.1, float("inf")) if purge_fraction is None else purge_fraction
    if kind == "kernel":
        return GI2Kernel(objects, queries, obj_cell, n_terms, purge_fraction)
    if kind == "reference":
        return GI2Reference(objects, queries, obj_cell, purge_fraction)
    raise ValueError(f"GI2 implementation must be 'kernel' or 'reference', got {kind!r}")
