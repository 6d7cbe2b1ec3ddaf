"""Subscription clusters and the two-phase event matching of Sects. 2.2.1-2.2.3 (Figs. 1-2).

Every subscription lives in exactly one **cluster**: the subscriptions with the same
**access predicate** and the same number n of predicates *still to check* (its predicates
minus those of the access predicate). A cluster of m subscriptions is an n x m **predicates
array** of bit-vector references stored *column-wise* (row i contiguous: the i-th remaining
predicate of every subscription) plus a **subscription line** of m ids. Subscription j
matches iff every B entry of column j is 1; rows are checked in order with early exit,
equality predicates first (Sect. 6.2.1: inequalities are checked only if all equalities
hold), so later rows are touched only for survivors -- the reason for column storage.

An **access predicate** is a single equality predicate (already evaluated by phase 1, "for
free") or a conjunction of equalities on several attributes looked up in a
**multi-attribute hash table** of schema X (Sect. 3). Subscriptions without any equality
predicate go to a catch-all list scanned for every event (our reading; no workload
of the paper has them).

Event matching (Fig. 2): phase 1 sets the bit vector; the candidate clusters are those of
every satisfied single-equality access predicate, of every multi-attribute table whose
schema the event covers and whose key the event hits (an open-addressing hash table per
schema: one hash, then linear probing), and the catch-all list; phase 2 runs
``cluster_matching`` on each (Sect. 2.2.3; the paper's code with its transcription bugs
fixed: ``sub_array[r][k]`` dereferenced through B, ``line[k]`` appended).

Storage is one **arena** (flat arrays, no Python object per subscription): cluster c owns
``cap[c]`` columns; an insert appends a column (a full cluster is moved to the arena's end
with twice the capacity, amortised O(1)); a delete moves the cluster's last column into the
hole through the subscription -> (cluster, position) map: O(n), independent of N
(Sect. 2.3: "deletions can be made fast by maintaining for each subscription the identifier
of the cluster that contains it"). :func:`match_reference` is the readable matcher,
:func:`match_kernel` the numba one (optionally with software prefetching, ``*_wp``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from routelab.filtering.model import EQ, MISSING
from routelab.filtering.predicates import phase1, satisfied_reference
from routelab.filtering.prefetch import prefetch
from routelab.filtering.registry import _Growable
from routelab.hashing import nb_mix64, seed_constant
from routelab.uniques import unique

CATCH_ALL = ("*",)  # the access key of subscriptions without an equality predicate
KEY_SEED = 0x5EED  # seed of the multi-attribute key hash (verified against stored values)
UNFOLD = 16  # int32 entries per 64-byte cache line
LOOKAHEAD = 8 * UNFOLD  # prefetch distance in entries (8 cache lines ahead)


@dataclass
class Tables:
    """The multi-attribute hash tables for the kernel (rebuilt when access keys change)."""

    width: int
    attrs: np.ndarray  # (n_tables, width) int64, -1 padded
    ptr: np.ndarray  # (n_tables + 1) entries per table
    keys: np.ndarray  # hashed key per entry
    vals: np.ndarray  # (n_entries, width) the key's values (collision check)
    access: np.ndarray  # access id per entry
    slot_ptr: np.ndarray  # (n_tables + 1) each table's slots: a power of two >= 2 entries
    slots: np.ndarray  # open addressing, linear probing: entry index per slot, -1 empty


class ClusterIndex:
    """Clusters in one arena, access predicates, and the subscription -> cluster map."""

    def __init__(self, n_preds_hint: int = 0) -> None:
        self.cols = _Growable(np.zeros(0, dtype=np.int32))
        self.line = _Growable(np.zeros(0, dtype=np.int64))
        self.c_access = _Growable(np.zeros(0, dtype=np.int64))
        self.c_rows = _Growable(np.zeros(0, dtype=np.int64))
        self.c_cap = _Growable(np.zeros(0, dtype=np.int64))
        self.c_count = _Growable(np.zeros(0, dtype=np.int64))
        self.c_off = _Growable(np.zeros(0, dtype=np.int64))
        self.c_loff = _Growable(np.zeros(0, dtype=np.int64))
        self.cluster_of: dict[tuple[int, int], int] = {}
        self.loc_cluster = _Growable(np.zeros(0, dtype=np.int64))
        self.loc_pos = _Growable(np.zeros(0, dtype=np.int64))
        self.access_keys: list[tuple] = []  # access id -> key: (pid,), CATCH_ALL, (X, values)
        self.access_id: dict[tuple, int] = {}
        self.pred_access = np.full(n_preds_hint, -1, dtype=np.int64)
        self.schemas: list[tuple[int, ...]] = []
        self.garbage = 0
        self._acc_csr: tuple[np.ndarray, np.ndarray] | None = None
        self._tables: Tables | None = None
        self._meta: np.ndarray | None = None
        self._meta_dirty = True
        # per schema: hashed key, access id, values of each access predicate (appended once)
        self._table_keys: dict[tuple[int, ...], tuple[list, list, list]] = {}

    # -- access predicates -------------------------------------------------------------
    def access_of(self, key: tuple) -> int:
        a = self.access_id.get(key)
        if a is None:
            a = len(self.access_keys)
            self.access_keys.append(key)
            self.access_id[key] = a
            if key != CATCH_ALL and len(key) == 1:
                pid = key[0]
                if pid >= len(self.pred_access):
                    grown = np.full(max(2 * len(self.pred_access), pid + 1), -1, dtype=np.int64)
                    grown[: len(self.pred_access)] = self.pred_access
                    self.pred_access = grown
                self.pred_access[pid] = a
            elif key != CATCH_ALL:
                if key[0] not in self.schemas:
                    self.schemas.append(key[0])
                entries = self._table_keys.setdefault(key[0], ([], [], []))
                entries[0].append(int(combine_key(np.asarray(key[1], dtype=np.int64))))
                entries[1].append(a)
                entries[2].append(key[1])
                self._tables = None
        return a

    # -- clusters ----------------------------------------------------------------------
    def _new_cluster(self, access: int, rows: int, cap: int) -> int:
        self._meta_dirty = True
        c = self.c_access.append(access)
        self.c_rows.append(rows)
        self.c_cap.append(cap)
        self.c_count.append(0)
        self.c_off.append(self._reserve(self.cols, rows * cap))
        self.c_loff.append(self._reserve(self.line, cap))
        self.cluster_of[(access, rows)] = c
        self._acc_csr = None
        return c

    @staticmethod
    def _reserve(arr: _Growable, n: int) -> int:
        start = arr.n
        need = start + n
        if need > len(arr.data):
            bigger = np.zeros(max(need, 2 * len(arr.data), 16), dtype=arr.data.dtype)
            bigger[:start] = arr.data[:start]
            arr.data = bigger
        arr.n = need
        return start

    def _relocate(self, c: int, need: int = 0) -> None:
        """Move a full cluster to the arena's end with twice the capacity (or ``need``)."""
        self._meta_dirty = True
        rows, cap, count = self.c_rows.data[c], self.c_cap.data[c], self.c_count.data[c]
        new_cap = max(4, 2 * cap, need)
        off, loff = self.c_off.data[c], self.c_loff.data[c]
        old_cols = self.cols.data[off : off + rows * cap].reshape(rows, cap)[:, :count].copy()
        old_line = self.line.data[loff : loff + count].copy()
        new_off = self._reserve(self.cols, rows * new_cap)
        new_loff = self._reserve(self.line, new_cap)
        self.cols.data[new_off : new_off + rows * new_cap].reshape(rows, new_cap)[:, :count] = (
            old_cols
        )
        self.line.data[new_loff : new_loff + count] = old_line
        self.garbage += rows * cap
        self.c_off.data[c], self.c_loff.data[c], self.c_cap.data[c] = new_off, new_loff, new_cap

    def add(self, i: int, access: int, remaining: np.ndarray) -> None:
        """Append subscription ``i`` (internal index) with its remaining predicate ids."""
        self._meta_dirty = True
        rows = len(remaining)
        c = self.cluster_of.get((access, rows))
        if c is None:
            c = self._new_cluster(access, rows, 4)
        if self.c_count.data[c] == self.c_cap.data[c]:
            self._relocate(c)
        j = self.c_count.data[c]
        off, cap = self.c_off.data[c], self.c_cap.data[c]
        for r in range(rows):
            self.cols.data[off + r * cap + j] = remaining[r]
        self.line.data[self.c_loff.data[c] + j] = i
        self.c_count.data[c] = j + 1
        while self.loc_cluster.n <= i:
            self.loc_cluster.append(-1)
            self.loc_pos.append(-1)
        self.loc_cluster.data[i], self.loc_pos.data[i] = c, j

    def remove(self, i: int) -> None:
        """Remove subscription ``i``: its cluster's last column moves into its place."""
        self._meta_dirty = True
        c, j = self.loc_cluster.data[i], self.loc_pos.data[i]
        if c < 0:
            raise KeyError(f"subscription index {i} is in no cluster")
        last = self.c_count.data[c] - 1
        off, cap, loff = self.c_off.data[c], self.c_cap.data[c], self.c_loff.data[c]
        if j != last:
            for r in range(self.c_rows.data[c]):
                self.cols.data[off + r * cap + j] = self.cols.data[off + r * cap + last]
            moved = self.line.data[loff + last]
            self.line.data[loff + j] = moved
            self.loc_pos.data[moved] = j
        self.c_count.data[c] = last
        self.loc_cluster.data[i], self.loc_pos.data[i] = -1, -1

    def add_many(
        self, idx: np.ndarray, access: np.ndarray, rem_ptr: np.ndarray, rem: np.ndarray
    ) -> np.ndarray:
        """:meth:`add` for a batch: subscription ``idx[k]`` with access id ``access[k]`` and
        remaining predicates ``rem[rem_ptr[k]:rem_ptr[k + 1]]``, appended in batch order.
        Each receiving cluster is grown once (amortised doubling). Returns the clusters
        that received subscriptions."""
        self._meta_dirty = True
        idx = np.asarray(idx, dtype=np.int64)
        if not len(idx):
            return np.zeros(0, dtype=np.int64)
        rows = np.diff(rem_ptr).astype(np.int64)
        pairs, inverse, counts = np.unique(
            np.column_stack([access, rows]), axis=0, return_inverse=True, return_counts=True
        )
        cl = np.empty(len(pairs), dtype=np.int64)
        for g, ((a, r), k) in enumerate(zip(pairs.tolist(), counts.tolist(), strict=True)):
            c = self.cluster_of.get((a, r))
            if c is None:
                c = self._new_cluster(a, r, max(4, k))
            if self.c_count.data[c] + k > self.c_cap.data[c]:
                self._relocate(c, int(self.c_count.data[c] + k))
            cl[g] = c
        top = int(idx.max()) + 1
        if self.loc_cluster.n < top:
            for arr in (self.loc_cluster, self.loc_pos):
                if len(arr.data) < top:
                    bigger = np.full(max(top, 2 * len(arr.data)), -1, dtype=np.int64)
                    bigger[: arr.n] = arr.data[: arr.n]
                    arr.data = bigger
                arr.data[arr.n : top] = -1
                arr.n = top
        if np.any(self.loc_cluster.data[idx] >= 0):
            raise ValueError("add_many: a subscription is already in a cluster")
        _append(
            idx,
            cl[inverse.ravel()],
            rem_ptr,
            rem,
            self.cols.data,
            self.line.data,
            self.c_cap.data,
            self.c_count.data,
            self.c_off.data,
            self.c_loff.data,
            self.loc_cluster.data,
            self.loc_pos.data,
        )
        return cl

    def remove_many(self, idx: np.ndarray) -> np.ndarray:
        """:meth:`remove` for a batch; returns the clusters the subscriptions left."""
        self._meta_dirty = True
        idx = np.asarray(idx, dtype=np.int64)
        if not len(idx):
            return np.zeros(0, dtype=np.int64)
        if np.any(idx >= self.loc_cluster.n) or np.any(self.loc_cluster.data[idx] < 0):
            raise KeyError("remove_many: a subscription index is in no cluster")
        left = self.loc_cluster.data[idx].copy()
        _remove(
            idx,
            self.cols.data,
            self.line.data,
            self.c_rows.data,
            self.c_cap.data,
            self.c_count.data,
            self.c_off.data,
            self.c_loff.data,
            self.loc_cluster.data,
            self.loc_pos.data,
        )
        return unique(left)

    def compact(self) -> None:
        """Rewrite the arena without garbage and slack: clusters in order of their access
        predicate (those an event scans together lie together), each with room for a
        quarter more columns. Positions in clusters do not change."""
        self._meta_dirty = True
        n = self.c_rows.n
        rows, count = self.c_rows.view(), self.c_count.view()
        cap = np.maximum(4, count + count // 4)
        order = np.argsort(self.c_access.view(), kind="stable")
        new_off = np.zeros(n, dtype=np.int64)
        new_loff = np.zeros(n, dtype=np.int64)
        new_off[order] = np.concatenate([[0], np.cumsum((rows * cap)[order])[:-1]])
        new_loff[order] = np.concatenate([[0], np.cumsum(cap[order])[:-1]])
        cols = np.zeros(int((rows * cap).sum()), dtype=np.int32)
        line = np.zeros(int(cap.sum()), dtype=np.int64)
        _copy_clusters(
            self.cols.data, self.line.data, self.c_off.view(), self.c_loff.view(),
            self.c_cap.view(), rows, count, cols, line, new_off, new_loff, cap,
        )  # fmt: skip
        self.cols, self.line = _Growable(cols), _Growable(line)
        self.c_off, self.c_loff = _Growable(new_off), _Growable(new_loff)
        self.c_cap = _Growable(cap.astype(np.int64))
        self.garbage = 0

    def members(self, c: int) -> np.ndarray:
        """The internal subscription indexes of cluster ``c`` (its subscription line)."""
        loff = self.c_loff.data[c]
        return self.line.data[loff : loff + self.c_count.data[c]].copy()

    def add_schema(self, schema: tuple[int, ...]) -> None:
        """Open a multi-attribute table of ``schema`` (Sect. 4: a table is created)."""
        if schema not in self.schemas:
            self.schemas.append(schema)
            self._tables = None

    def drop_schema(self, schema: tuple[int, ...]) -> None:
        """Close the table of ``schema`` (its clusters must be empty by then)."""
        self.schemas.remove(schema)
        self._tables = None

    def bulk_load(self, access: np.ndarray, rem_ptr: np.ndarray, rem: np.ndarray) -> None:
        """Load subscriptions 0..n-1 (must be the first load) in one vectorised pass."""
        self._meta_dirty = True
        if self.loc_cluster.n:
            raise RuntimeError("bulk_load works on an empty index only")
        n = len(access)
        rows = np.diff(rem_ptr)
        order = np.lexsort((rows, access))
        a_sorted, r_sorted = access[order], rows[order]
        new = np.ones(n, dtype=bool)
        new[1:] = (a_sorted[1:] != a_sorted[:-1]) | (r_sorted[1:] != r_sorted[:-1])
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, n))
        g_rows = r_sorted[starts]
        g_cap = np.maximum(counts, 4)
        g_off = np.concatenate([[0], np.cumsum(g_rows * g_cap)[:-1]]).astype(np.int64)
        g_loff = np.concatenate([[0], np.cumsum(g_cap)[:-1]]).astype(np.int64)
        cols = np.zeros(int((g_rows * g_cap).sum()), dtype=np.int32)
        line = np.zeros(int(g_cap.sum()), dtype=np.int64)
        group = np.cumsum(new) - 1
        pos = np.arange(n) - starts[group]
        _fill(cols, line, order, group, pos, g_off, g_loff, g_cap, rem_ptr, rem)
        self.cols = _Growable(cols)
        self.line = _Growable(line)
        g_access = a_sorted[starts].astype(np.int64)
        self.c_access = _Growable(g_access)
        self.c_rows = _Growable(g_rows.astype(np.int64))
        self.c_cap = _Growable(g_cap.astype(np.int64))
        self.c_count = _Growable(counts.astype(np.int64))
        self.c_off = _Growable(g_off)
        self.c_loff = _Growable(g_loff)
        self.cluster_of = dict(
            zip(
                zip(g_access.tolist(), g_rows.tolist(), strict=True),
                range(len(starts)),
                strict=True,
            )
        )
        self._acc_csr = None
        self.loc_cluster = _Growable(np.empty(n, dtype=np.int64))
        self.loc_pos = _Growable(np.empty(n, dtype=np.int64))
        self.loc_cluster.data[order] = group
        self.loc_pos.data[order] = pos

    # -- kernel views ------------------------------------------------------------------
    def access_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Clusters of each access id (CSR)."""
        if self._acc_csr is None:
            n_acc = len(self.access_keys)
            acc = self.c_access.view()
            order = np.argsort(acc, kind="stable")
            ptr = np.zeros(n_acc + 1, dtype=np.int64)
            np.cumsum(np.bincount(acc, minlength=n_acc), out=ptr[1:])
            self._acc_csr = (ptr, order.astype(np.int64))
        return self._acc_csr

    def meta(self) -> np.ndarray:
        """Each cluster's rows, capacity, count, column offset and line offset packed in
        one 64-byte row, so visiting a cluster costs one cache line, not five (rebuilt
        when clusters change)."""
        n = self.c_rows.n
        if self._meta is None or len(self._meta) != n or self._meta_dirty:
            meta = np.zeros((n, 8), dtype=np.int64)
            for k, arr in enumerate(
                (self.c_rows, self.c_cap, self.c_count, self.c_off, self.c_loff)
            ):
                meta[:, k] = arr.view()
            self._meta = meta
            self._meta_dirty = False
        return self._meta

    def tables(self) -> Tables:
        """The multi-attribute tables: per schema, its access predicates' hashed keys
        (sorted; hashed once, when the access predicate is registered)."""
        if self._tables is None:
            width = max((len(x) for x in self.schemas), default=1)
            attrs = np.full((len(self.schemas), width), -1, dtype=np.int64)
            ptr = np.zeros(len(self.schemas) + 1, dtype=np.int64)
            keys, vals, access = [], [], []
            for t, x in enumerate(self.schemas):
                attrs[t, : len(x)] = x
                hashed, acc, values = self._table_keys.get(x, ([], [], []))
                h = np.asarray(hashed, dtype=np.uint64)
                order = np.lexsort((np.asarray(acc, dtype=np.int64), h))
                keys.append(h[order])
                access.append(np.asarray(acc, dtype=np.int64)[order])
                v = np.zeros((len(order), width), dtype=np.int64)
                if len(order):
                    v[:, : len(x)] = np.asarray(values, dtype=np.int64)[order]
                vals.append(v)
                ptr[t + 1] = ptr[t] + len(order)
            all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)
            counts = np.diff(ptr)
            caps = np.array(
                [max(8, 1 << int(2 * k - 1).bit_length()) if k else 8 for k in counts],
                dtype=np.int64,
            )
            slot_ptr = np.zeros(len(self.schemas) + 1, dtype=np.int64)
            np.cumsum(caps, out=slot_ptr[1:])
            slots = np.full(int(slot_ptr[-1]), -1, dtype=np.int64)
            _fill_slots(all_keys, ptr, slot_ptr, slots)
            self._tables = Tables(
                width,
                attrs,
                ptr,
                all_keys,
                np.concatenate(vals) if vals else np.zeros((0, width), dtype=np.int64),
                np.concatenate(access) if access else np.zeros(0, dtype=np.int64),
                slot_ptr,
                slots,
            )
        return self._tables

    def n_subscriptions(self) -> int:
        return int(self.c_count.view().sum())

    def nbytes(self) -> int:
        """Bytes held by the clusters (arena incl. slack and garbage) and the map."""
        return int(
            self.cols.data.nbytes
            + self.line.data.nbytes
            + self.loc_cluster.data.nbytes
            + self.loc_pos.data.nbytes
        )


@nb.njit(cache=True)
def _fill(cols, line, order, group, pos, g_off, g_loff, g_cap, rem_ptr, rem):  # type: ignore[no-untyped-def]
    for k in range(order.shape[0]):
        i = order[k]
        g = group[k]
        j = pos[k]
        base = g_off[g]
        cap = g_cap[g]
        for r in range(rem_ptr[i + 1] - rem_ptr[i]):
            cols[base + r * cap + j] = rem[rem_ptr[i] + r]
        line[g_loff[g] + j] = i


@nb.njit(cache=True)
def _append(idx, cl, rem_ptr, rem, cols, line, c_cap, c_count, c_off, c_loff, loc_c, loc_p):  # type: ignore[no-untyped-def]
    for k in range(idx.shape[0]):
        c = cl[k]
        j = c_count[c]
        base = c_off[c]
        cap = c_cap[c]
        for r in range(rem_ptr[k + 1] - rem_ptr[k]):
            cols[base + r * cap + j] = rem[rem_ptr[k] + r]
        line[c_loff[c] + j] = idx[k]
        c_count[c] = j + 1
        loc_c[idx[k]] = c
        loc_p[idx[k]] = j


@nb.njit(cache=True)
def _remove(idx, cols, line, c_rows, c_cap, c_count, c_off, c_loff, loc_c, loc_p):  # type: ignore[no-untyped-def]
    for k in range(idx.shape[0]):
        i = idx[k]
        c = loc_c[i]
        j = loc_p[i]
        last = c_count[c] - 1
        off = c_off[c]
        cap = c_cap[c]
        loff = c_loff[c]
        if j != last:
            for r in range(c_rows[c]):
                cols[off + r * cap + j] = cols[off + r * cap + last]
            moved = line[loff + last]
            line[loff + j] = moved
            loc_p[moved] = j
        c_count[c] = last
        loc_c[i] = -1
        loc_p[i] = -1


@nb.njit(cache=True)
def _copy_clusters(
    cols, line, off, loff, cap, rows, count, new_cols, new_line, new_off, new_loff, new_cap
):  # type: ignore[no-untyped-def]  # noqa: E501
    for c in range(rows.shape[0]):
        for r in range(rows[c]):
            src = off[c] + r * cap[c]
            dst = new_off[c] + r * new_cap[c]
            for j in range(count[c]):
                new_cols[dst + j] = cols[src + j]
        for j in range(count[c]):
            new_line[new_loff[c] + j] = line[loff[c] + j]


@nb.njit(cache=True)
def _fill_slots(keys, ptr, slot_ptr, slots):  # type: ignore[no-untyped-def]
    for t in range(ptr.shape[0] - 1):
        base = slot_ptr[t]
        mask = slot_ptr[t + 1] - base - 1
        for q in range(ptr[t], ptr[t + 1]):
            s = np.int64(keys[q] & np.uint64(mask))
            while slots[base + s] != -1:
                s = (s + 1) & mask
            slots[base + s] = q


_KEY_CONST = seed_constant(KEY_SEED)


@nb.njit(cache=True)
def combine_key(values: np.ndarray) -> np.uint64:
    """A seeded 64-bit hash of an access predicate's values (never Python's ``hash()``)."""
    h = np.uint64(values.shape[0])
    for v in values:
        h = nb_mix64(h ^ np.uint64(v & 0x7FFFFFFFFFFFFFFF), _KEY_CONST)
    return h


@nb.njit(cache=True, inline="always")
def _scan(
    c: int,
    B: np.ndarray,
    cols: np.ndarray,
    line: np.ndarray,
    meta: np.ndarray,
    out: np.ndarray,
    n_out: int,
    with_prefetch: bool,
) -> tuple[np.ndarray, int, int]:
    """cluster_matching (Sect. 2.2.3): column-wise, rows in order with early exit."""
    rows, cap, m = meta[c, 0], meta[c, 1], meta[c, 2]
    off, loff = meta[c, 3], meta[c, 4]
    next_prefetch = 0
    for j in range(m):
        if with_prefetch and j == next_prefetch:
            next_prefetch += UNFOLD
            if rows > 0 and j + LOOKAHEAD < m:
                prefetch(cols, off + j + LOOKAHEAD)
                if rows > 1:
                    prefetch(cols, off + cap + j + LOOKAHEAD)
        # row 0 (an equality when the subscription has one) decides most columns alone
        if rows > 0 and B[cols[off + j]] == 0:
            continue
        ok = True
        for r in range(1, rows):
            if B[cols[off + r * cap + j]] == 0:
                ok = False
                break
        if ok:
            if n_out == out.shape[0]:
                bigger = np.empty(2 * out.shape[0] + 16, dtype=out.dtype)
                bigger[:n_out] = out[:n_out]
                out = bigger
            out[n_out] = line[loff + j]
            n_out += 1
    return out, n_out, m


@nb.njit(cache=True)
def match_kernel(
    events: np.ndarray,
    fam_attr: np.ndarray,
    fam_op: np.ndarray,
    fam_start: np.ndarray,
    fam_end: np.ndarray,
    values: np.ndarray,
    pids: np.ndarray,
    n_preds: int,
    pred_access: np.ndarray,
    catch_all: int,
    acc_ptr: np.ndarray,
    acc_clusters: np.ndarray,
    cols: np.ndarray,
    line: np.ndarray,
    meta: np.ndarray,
    t_attrs: np.ndarray,
    t_ptr: np.ndarray,
    t_keys: np.ndarray,
    t_vals: np.ndarray,
    t_access: np.ndarray,
    t_slot_ptr: np.ndarray,
    t_slots: np.ndarray,
    with_prefetch: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fig. 2 for a batch: matches (internal indexes) per event as CSR, subscriptions
    checked per event (the paper's cost unit) and table lookups per event."""
    B = np.zeros(n_preds, dtype=np.uint8)
    sat = np.empty(n_preds, dtype=np.int64)
    out = np.empty(64, dtype=np.int64)
    ptr = np.zeros(events.shape[0] + 1, dtype=np.int64)
    checks = np.zeros(events.shape[0], dtype=np.int64)
    lookups = np.zeros(events.shape[0], dtype=np.int64)
    width = t_attrs.shape[1]
    key_vals = np.empty(width, dtype=np.int64)
    n_out = 0
    for e in range(events.shape[0]):
        ev = events[e]
        n_sat = phase1(ev, fam_attr, fam_op, fam_start, fam_end, values, pids, B, sat)
        for k in range(n_sat + 1 + t_attrs.shape[0]):
            a = -1
            if k < n_sat:
                p = sat[k]
                if p < pred_access.shape[0]:
                    a = pred_access[p]
            elif k == n_sat:
                a = catch_all
            else:
                t = k - n_sat - 1
                covered = True
                n_key = 0
                for w in range(width):
                    attr = t_attrs[t, w]
                    if attr < 0:
                        break
                    if attr >= ev.shape[0] or ev[attr] == MISSING:
                        covered = False
                        break
                    key_vals[n_key] = ev[attr]
                    n_key += 1
                if not covered:
                    continue
                lookups[e] += 1
                h = combine_key(key_vals[:n_key])
                base = t_slot_ptr[t]
                mask = t_slot_ptr[t + 1] - base - 1
                s = np.int64(h & np.uint64(mask))
                while t_slots[base + s] != -1:
                    q = t_slots[base + s]
                    if t_keys[q] == h:
                        same = True
                        for w in range(n_key):
                            if t_vals[q, w] != key_vals[w]:
                                same = False
                                break
                        if same:
                            a = t_access[q]
                            break
                    s = (s + 1) & mask
            if a < 0:
                continue
            for ci in range(acc_ptr[a], acc_ptr[a + 1]):
                out, n_out, m = _scan(
                    acc_clusters[ci],
                    B,
                    cols,
                    line,
                    meta,
                    out,
                    n_out,
                    with_prefetch,
                )
                checks[e] += m
        for k in range(n_sat):
            B[sat[k]] = 0
        ptr[e + 1] = n_out
    return ptr, out[:n_out].copy(), checks, lookups


def match_reference(index: ClusterIndex, registry: object, events: np.ndarray) -> list[list[int]]:
    """Fig. 2 and cluster_matching in plain Python over the same structures; returns the
    internal subscription indexes matched by each event."""
    from routelab.filtering.registry import Registry

    assert isinstance(registry, Registry)
    pindex = registry.phase1_index()
    acc_ptr, acc_clusters = index.access_csr()
    results = []
    for ev in events:
        B = np.zeros(registry.n_predicates(), dtype=bool)
        sat = satisfied_reference(pindex, ev)
        B[sat] = True  # phase 1: predicate testing
        candidates: list[int] = []
        for p in sat:
            a = index.access_id.get((p,))
            if a is not None:
                candidates.append(a)
        if CATCH_ALL in index.access_id:
            candidates.append(index.access_id[CATCH_ALL])
        for x in index.schemas:  # multi-attribute tables the event covers
            if all(attr < len(ev) and ev[attr] != MISSING for attr in x):
                a = index.access_id.get((x, tuple(int(ev[attr]) for attr in x)))
                if a is not None:
                    candidates.append(a)
        matched = []
        for a in candidates:  # phase 2: subscription matching
            for c in acc_clusters[acc_ptr[a] : acc_ptr[a + 1]]:
                rows, cap = index.c_rows.data[c], index.c_cap.data[c]
                off, loff = index.c_off.data[c], index.c_loff.data[c]
                for j in range(index.c_count.data[c]):
                    if all(B[index.cols.data[off + r * cap + j]] for r in range(rows)):
                        matched.append(int(index.line.data[loff + j]))
        results.append(sorted(matched))
    return results


def equality_first(pids: np.ndarray, ops: np.ndarray) -> np.ndarray:
    """A subscription's remaining predicates, equalities first (Sect. 6.2.1)."""
    return pids[np.argsort(ops[pids] != EQ, kind="stable")]
