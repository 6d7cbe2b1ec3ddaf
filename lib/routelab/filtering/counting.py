"""The counting algorithm, the paper's baseline (Sect. 5, "NEONet-style"; evaluated in Sect. 6).

An association table maps each predicate to the subscriptions containing it. Per event:
reset a hit counter per subscription; for every predicate the event satisfies (phase 1),
increment the counter of each subscription in its list; a subscription matches when its
counter reaches its number of distinct predicates. Cost: one increment per (satisfied
predicate, subscription holding it), independent of any clustering.

:func:`counting_reference` mirrors that in plain Python; :class:`CountingMatcher` is the
fast version (CSR lists, numba kernel) with insert and delete: an inserted subscription is
appended to the lists of its predicates, a deleted one is flagged dead in O(1) and skipped
(its list entries are dropped at the next :meth:`CountingMatcher.compact`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numba as nb
import numpy as np

from routelab.filtering.model import Events, Subscriptions
from routelab.filtering.predicates import PredicateIndex, phase1, satisfied_reference
from routelab.filtering.registry import Registry


def counting_reference(subs: Subscriptions, events: Events) -> list[list[int]]:
    """Matching subscription ids per event, by counting (readable version)."""
    lists: dict[int, list[int]] = defaultdict(list)
    for i in range(len(subs)):
        for p in subs.predicates_of(i):
            lists[int(p)].append(i)
    size = subs.sizes()
    index = PredicateIndex.build(subs.table)
    out = []
    for e in range(len(events)):
        hits: dict[int, int] = defaultdict(int)
        matched = [i for i in range(len(subs)) if size[i] == 0]
        for p in satisfied_reference(index, events.values[e]):
            for i in lists[p]:
                hits[i] += 1
                if hits[i] == size[i]:
                    matched.append(i)
        out.append(sorted(int(subs.ids[i]) for i in matched))
    return out


def transpose(ptr: np.ndarray, cols: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR rows->cols to cols->rows (e.g. subscription->predicates to predicate->subs).
    Row ids are int32 while they fit: counting reads these lists for every satisfied
    predicate, and half the bytes is half its memory traffic."""
    dtype = np.int32 if len(ptr) - 1 < 2**31 else np.int64
    rows = np.repeat(np.arange(len(ptr) - 1, dtype=dtype), np.diff(ptr))
    order = np.argsort(cols, kind="stable")
    t_ptr = np.zeros(n_cols + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols, minlength=n_cols), out=t_ptr[1:])
    return t_ptr, rows[order]


#: subscriptions per block of the counting kernel: their uint8 countdowns and alive flags
#: (2 x 64 KiB) stay in cache while a block is counted
BLOCK = 1 << 16


@nb.njit(cache=True)
def _grow(buf: np.ndarray, need: int) -> np.ndarray:
    if need <= buf.shape[0]:
        return buf
    bigger = np.empty(max(need, 2 * buf.shape[0]), dtype=buf.dtype)
    bigger[: buf.shape[0]] = buf
    return bigger


@nb.njit(cache=True, inline="always")
def _count(lv, lo, hi, remaining, alive, out, n_out):  # type: ignore[no-untyped-def]
    """One satisfied predicate: count it for each subscription holding it (a countdown
    from the subscription's size: one small array touched, no separate hit/size arrays)."""
    for j in range(lo, hi):
        s = lv[j]
        r = remaining[s] - 1
        remaining[s] = r
        if r == 0 and alive[s]:
            out = _grow(out, n_out + 1)
            out[n_out] = s
            n_out += 1
    return n_out, out


@nb.njit(cache=True, inline="always")
def _restore(lv, lo, hi, remaining):  # type: ignore[no-untyped-def]
    for j in range(lo, hi):
        remaining[lv[j]] += 1
    return hi - lo


@nb.njit(cache=True)
def counting_kernel(
    events: np.ndarray,
    fam_attr: np.ndarray,
    fam_op: np.ndarray,
    fam_start: np.ndarray,
    fam_end: np.ndarray,
    values: np.ndarray,
    pids: np.ndarray,
    n_preds: int,
    block_ptr: np.ndarray,
    lists: np.ndarray,
    extra_ptr: np.ndarray,
    extra: np.ndarray,
    remaining: np.ndarray,
    alive: np.ndarray,
    always: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matches (internal indexes) per event as CSR, and the counter updates per event.
    ``remaining`` holds each subscription's size and is restored after every event;
    ``block_ptr[p, b]`` is where predicate p's list enters subscription block b."""
    B = np.zeros(n_preds, dtype=np.uint8)
    sat = np.empty(n_preds, dtype=np.int64)
    out = np.empty(64, dtype=np.int64)
    ptr = np.zeros(events.shape[0] + 1, dtype=np.int64)
    work = np.zeros(events.shape[0], dtype=np.int64)
    n_out = 0
    for e in range(events.shape[0]):
        n_sat = phase1(events[e], fam_attr, fam_op, fam_start, fam_end, values, pids, B, sat)
        for k in range(always.shape[0]):
            out = _grow(out, n_out + 1)
            out[n_out] = always[k]
            n_out += 1
        # the bulk-loaded subscriptions block by block (each block's countdowns stay in
        # cache while every satisfied predicate's share of the block is counted and then
        # restored), then the ones inserted later
        for b in range(block_ptr.shape[1] - 1):
            for k in range(n_sat):
                p = sat[k]
                if p < block_ptr.shape[0]:
                    n_out, out = _count(
                        lists, block_ptr[p, b], block_ptr[p, b + 1], remaining, alive, out, n_out
                    )
            for k in range(n_sat):
                p = sat[k]
                if p < block_ptr.shape[0]:
                    work[e] += _restore(lists, block_ptr[p, b], block_ptr[p, b + 1], remaining)
        for k in range(n_sat):
            p = sat[k]
            if p + 1 < extra_ptr.shape[0]:
                n_out, out = _count(
                    extra, extra_ptr[p], extra_ptr[p + 1], remaining, alive, out, n_out
                )
        for k in range(n_sat):
            p = sat[k]
            B[p] = 0
            if p + 1 < extra_ptr.shape[0]:
                work[e] += _restore(extra, extra_ptr[p], extra_ptr[p + 1], remaining)
        ptr[e + 1] = n_out
    return ptr, out[:n_out].copy(), work


class CountingMatcher:
    """Counting with insert / delete (see the module docstring)."""

    name = "counting"

    def __init__(self, subs: Subscriptions) -> None:
        self.registry = Registry(subs)
        self.lists_ptr, self.lists = transpose(subs.ptr, subs.preds, len(subs.table))
        self._size = np.diff(subs.ptr).astype(np.int64)
        self._extra: dict[int, list[int]] = defaultdict(list)
        self._extra_csr: tuple[np.ndarray, np.ndarray] | None = None
        self.last_work = np.zeros(0, dtype=np.int64)
        self._block_ptr: np.ndarray | None = None

    def block_ptr(self) -> np.ndarray:
        """(predicates, blocks + 1): where each list enters each block of ``BLOCK``
        subscriptions (lists are sorted by subscription), rebuilt after a compaction."""
        if self._block_ptr is None:
            n_lists = len(self.lists_ptr) - 1
            n_blocks = max(1, -(-self.registry.n_bulk // BLOCK))
            edges = np.arange(n_blocks + 1, dtype=np.int64) * BLOCK
            out = np.empty((n_lists, n_blocks + 1), dtype=np.int64)
            for p in range(n_lists):
                lo, hi = self.lists_ptr[p], self.lists_ptr[p + 1]
                out[p] = lo + np.searchsorted(self.lists[lo:hi], edges)
            self._block_ptr = out
        return self._block_ptr

    def insert(self, sub_id: int, predicates: Sequence[tuple[int, str | int, int]]) -> None:
        i = self.registry.add(sub_id, predicates)
        pids = self.registry.preds_of(i)
        self._size = np.append(self._size, len(pids)) if i >= len(self._size) else self._size
        self._size[i] = len(pids)
        for p in pids:
            self._extra[int(p)].append(i)
        self._extra_csr = None

    def delete(self, sub_id: int) -> None:
        self.registry.remove(sub_id)  # O(1): flagged dead, skipped by the kernel

    def compact(self) -> None:
        """Drop dead subscriptions' entries from the lists (a periodic clean-up)."""
        alive = self.registry.alive.view()
        n_lists = len(self.lists_ptr) - 1
        entry_pred = np.repeat(np.arange(n_lists), np.diff(self.lists_ptr))
        keep = alive[self.lists]
        new_ptr = np.zeros_like(self.lists_ptr)
        np.cumsum(np.bincount(entry_pred[keep], minlength=n_lists), out=new_ptr[1:])
        self.lists, self.lists_ptr = self.lists[keep], new_ptr
        self._block_ptr = None
        for p in list(self._extra):
            self._extra[p] = [i for i in self._extra[p] if alive[i]]
        self._extra_csr = None

    def _extra_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._extra_csr is None:
            n = self.registry.n_predicates()
            ptr = np.zeros(n + 1, dtype=np.int64)
            for p, subs in self._extra.items():
                ptr[p + 1] = len(subs)
            np.cumsum(ptr, out=ptr)
            flat = np.zeros(ptr[-1], dtype=np.int64)
            for p, subs in self._extra.items():
                flat[ptr[p] : ptr[p + 1]] = subs
            self._extra_csr = (ptr, flat)
        return self._extra_csr

    def match(self, events: Events) -> tuple[np.ndarray, np.ndarray]:
        """Matching subscription ids per event as CSR (``ptr``, ``ids``), ids sorted."""
        reg = self.registry
        index = reg.phase1_index()
        alive = reg.alive.view()
        always = np.flatnonzero((self._size[: len(reg)] == 0) & alive).astype(np.int64)
        x_ptr, x_subs = self._extra_arrays()
        size = self._size[: len(reg)]
        dtype = np.uint8 if size.max(initial=0) < 255 else np.int32
        ptr, out, self.last_work = counting_kernel(
            events.widen(reg.n_attrs).values,
            *index.kernel_arrays(),
            reg.n_predicates(),
            self.block_ptr(),
            self.lists,
            x_ptr,
            x_subs,
            size.astype(dtype),
            alive,
            always,
        )
        return ptr, sort_ids_per_event(ptr, reg.ids.view()[out])


def sort_ids_per_event(ptr: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Sort each event's ids (so every matcher's output compares equal)."""
    if len(ids) == 0:
        return ids
    event = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    return ids[np.lexsort((ids, event))]
