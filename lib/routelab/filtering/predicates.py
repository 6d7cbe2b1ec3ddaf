"""Phase 1 of event matching: which predicates does the event satisfy (Sect. 2.2.1-2.2.2).

The paper tests predicates through "hash indexes for equality predicates and simple B-Trees
for inequalities" (Sect. 2.3) and sets one bit-vector entry per satisfied predicate. Our
layout ("predicate families", our design): predicate ids are sorted by (attribute, operator,
value), so each (attribute, operator) family is one contiguous id range with sorted
constants, and for an event value v the satisfied predicates of a family are

====  =====================================  ========================================
op    satisfied constants c (``v op c``)      id range
====  =====================================  ========================================
``<``   c > v                                  [upper_bound(v), end)
``<=``  c >= v                                 [lower_bound(v), end)
``=``   c == v                                 the one id with c == v, if any (lookup)
``!=``  c != v                                 the family without that id
``>=``  c <= v                                 [start, upper_bound(v))
``>``   c < v                                  [start, lower_bound(v))
====  =====================================  ========================================

A binary search on sorted constants plays the B-tree (and the hash index: equality constants
are unique in their family after deduplication). Predicates added later (subscription
inserts) get new ids at the end; ``pids`` maps a family position to its predicate id, so
ids need not follow the sort order. :class:`PredicateIndex` holds the families;
:func:`satisfied_reference` is the readable version, :func:`phase1` the numba kernel used by
every matcher: it sets ``B[p] = 1`` and lists the satisfied ids (so B is reset in O(#set)).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numba as nb
import numpy as np

from routelab.filtering.model import EQ, GE, LE, LT, MISSING, NE, PredicateTable


@dataclass
class PredicateIndex:
    """The (attribute, operator) families of a sorted predicate table."""

    fam_attr: np.ndarray  # int64
    fam_op: np.ndarray  # int64
    fam_start: np.ndarray  # int64
    fam_end: np.ndarray  # int64
    values: np.ndarray  # int64, constants in family order (sorted within each family)
    pids: np.ndarray  # int64, the predicate id at each family position
    n_ids: int  # size of the bit vector (ids may have gaps after deletions)

    @classmethod
    def build(
        cls,
        table: PredicateTable,
        alive: np.ndarray | None = None,
    ) -> PredicateIndex:
        """Families of ``table`` (predicates with ``alive`` False are left out)."""
        ids = np.arange(len(table), dtype=np.int64)
        if alive is not None:
            ids = ids[alive]
        a = table.attr[ids].astype(np.int64)
        o = table.op[ids].astype(np.int64)
        v = table.value[ids].astype(np.int64)
        order = np.lexsort((v, o, a))
        a, o, v, ids = a[order], o[order], v[order], ids[order]
        n = len(ids)
        if n == 0:
            z = np.zeros(0, dtype=np.int64)
            return cls(z, z, z, z, z, z, len(table))
        new = np.ones(n, dtype=bool)
        new[1:] = (a[1:] != a[:-1]) | (o[1:] != o[:-1])
        starts = np.flatnonzero(new)
        ends = np.append(starts[1:], n)
        return cls(
            a[starts], o[starts], starts.astype(np.int64), ends.astype(np.int64), v, ids, len(table)
        )

    def __len__(self) -> int:
        return self.n_ids

    def kernel_arrays(self) -> tuple[np.ndarray, ...]:
        """The family arrays in the order :func:`phase1` takes them (``fam_attr, fam_op,
        fam_start, fam_end, values, pids``)."""
        return self.fam_attr, self.fam_op, self.fam_start, self.fam_end, self.values, self.pids


def satisfied_reference(index: PredicateIndex, event: np.ndarray) -> list[int]:
    """The ids of the predicates ``event`` satisfies (readable version of :func:`phase1`)."""
    out: list[int] = []
    for attr, op, start, end in zip(
        index.fam_attr, index.fam_op, index.fam_start, index.fam_end, strict=True
    ):
        if attr >= len(event) or event[attr] == MISSING:
            continue  # a predicate on an absent attribute is false
        v = int(event[attr])
        consts = index.values[start:end].tolist()
        lo = start + bisect.bisect_left(consts, v)
        hi = start + bisect.bisect_right(consts, v)
        if op == LT:
            hit = range(hi, end)
        elif op == LE:
            hit = range(lo, end)
        elif op == EQ:
            hit = range(lo, hi)
        elif op == NE:
            hit = [*range(start, lo), *range(hi, end)]
        elif op == GE:
            hit = range(start, hi)
        else:  # GT
            hit = range(start, lo)
        out.extend(int(index.pids[k]) for k in hit)
    return sorted(out)


@nb.njit(cache=True, inline="always")
def _mark(B: np.ndarray, sat: np.ndarray, n: int, pids: np.ndarray, lo: int, hi: int) -> int:
    for k in range(lo, hi):
        p = pids[k]
        B[p] = 1
        sat[n] = p
        n += 1
    return n


@nb.njit(cache=True)
def phase1(
    event: np.ndarray,
    fam_attr: np.ndarray,
    fam_op: np.ndarray,
    fam_start: np.ndarray,
    fam_end: np.ndarray,
    values: np.ndarray,
    pids: np.ndarray,
    B: np.ndarray,
    sat: np.ndarray,
) -> int:
    """Set ``B[p] = 1`` for every predicate p the event satisfies and list them in
    ``sat[:n]``; return n. ``B`` must be all zeros on entry (reset with ``B[sat[:n]] = 0``)."""
    n = 0
    n_attrs = event.shape[0]
    for f in range(fam_attr.shape[0]):
        a = fam_attr[f]
        if a >= n_attrs:
            continue
        v = event[a]
        if v == MISSING:
            continue
        start, end = fam_start[f], fam_end[f]
        lo = start + np.searchsorted(values[start:end], v, side="left")
        hi = start + np.searchsorted(values[start:end], v, side="right")
        op = fam_op[f]
        if op == LT:
            n = _mark(B, sat, n, pids, hi, end)
        elif op == LE:
            n = _mark(B, sat, n, pids, lo, end)
        elif op == EQ:
            n = _mark(B, sat, n, pids, lo, hi)
        elif op == NE:
            n = _mark(B, sat, n, pids, start, lo)
            n = _mark(B, sat, n, pids, hi, end)
        elif op == GE:
            n = _mark(B, sat, n, pids, start, hi)
        else:
            n = _mark(B, sat, n, pids, start, lo)
    return n


@nb.njit(cache=True)
def _phase1_batch(events, fam_attr, fam_op, fam_start, fam_end, values, pids, n_preds):  # type: ignore[no-untyped-def]
    B = np.zeros(n_preds, dtype=np.uint8)
    sat = np.empty(max(n_preds, 1), dtype=np.int64)
    total = 0
    for e in range(events.shape[0]):
        n = phase1(events[e], fam_attr, fam_op, fam_start, fam_end, values, pids, B, sat)
        for k in range(n):
            B[sat[k]] = 0
        total += n
    return total


def phase1_batch(index: PredicateIndex, events: np.ndarray, n_preds: int) -> int:
    """Phase 1 alone (Sect. 2.2.1, "determining all predicates matched by an event") over a
    batch of events, with the same kernel and bit-vector reset every matcher runs before
    its subscription-matching phase; returns the satisfied predicates summed over the
    batch. Timing it beside a matcher's ``match`` splits the matcher's time into its two
    phases (Sect. 6.2.1 reports them separately)."""
    return int(
        _phase1_batch(
            np.ascontiguousarray(events, dtype=np.int64),
            *index.kernel_arrays(),
            int(n_preds),
        )
    )


def satisfied(index: PredicateIndex, event: np.ndarray) -> np.ndarray:
    """The kernel's satisfied ids for one event (sorted), for tests and examples."""
    B = np.zeros(len(index), dtype=np.uint8)
    sat = np.zeros(len(index), dtype=np.int64)
    n = phase1(
        np.ascontiguousarray(event, dtype=np.int64),
        *index.kernel_arrays(),
        B,
        sat,
    )
    return np.sort(sat[:n])
