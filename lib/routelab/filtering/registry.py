"""The predicate registry and subscription bookkeeping shared by every matcher (Sects. 2.2.1, 2.3).

- **Predicates**: one id and one bit-vector entry per distinct predicate, reference-counted
  by the subscriptions that use it; a subscription insert adds its new predicates at the end
  (ids are never renumbered), a delete drops predicates no subscription uses any more from
  the phase-1 index. The phase-1 families (:class:`~routelab.filtering.predicates.
  PredicateIndex`) are rebuilt lazily after a change: O(#distinct predicates), which is
  small (1,120 in W0 at any N).
- **Subscriptions**: an internal index per subscription (bulk-loaded ones first), its
  predicate ids in CSR (bulk) or a small dict (inserted later), an ``alive`` flag, and the
  map from the user's subscription id to the index.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from routelab.filtering.model import PredicateTable, Subscriptions, op_code
from routelab.filtering.predicates import PredicateIndex
from routelab.uniques import unique


class _Growable:
    """A 1-d numpy array with amortised O(1) append."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = np.array(data)
        self.n = len(data)

    def append(self, value: int | float) -> int:
        if self.n == len(self.data):
            bigger = np.zeros(max(8, 2 * len(self.data)), dtype=self.data.dtype)
            bigger[: self.n] = self.data[: self.n]
            self.data = bigger
        self.data[self.n] = value
        self.n += 1
        return self.n - 1

    def view(self) -> np.ndarray:
        return self.data[: self.n]


class Registry:
    """Predicates and subscriptions of one matcher (see the module docstring)."""

    def __init__(self, subs: Subscriptions) -> None:
        table = subs.table
        self.n_attrs = subs.n_attrs
        self.attr = _Growable(table.attr.astype(np.int32))
        self.op = _Growable(table.op.astype(np.int8))
        self.value = _Growable(table.value.astype(np.int64))
        self.refcount = _Growable(np.bincount(subs.preds, minlength=len(table)).astype(np.int64))
        self._keys: dict[tuple[int, int, int], int] | None = None
        self.ids = _Growable(subs.ids.astype(np.int64))
        self.alive = _Growable(np.ones(len(subs), dtype=np.bool_))
        self.bulk_ptr, self.bulk_preds = subs.ptr, subs.preds
        self.n_bulk = len(subs)
        self.extra_preds: dict[int, np.ndarray] = {}
        self._bulk_sorted = np.argsort(subs.ids, kind="stable")
        self._extra_index: dict[int, int] = {}
        self._index: PredicateIndex | None = None

    # -- predicates -------------------------------------------------------------------
    def table(self) -> PredicateTable:
        return PredicateTable(self.attr.view(), self.op.view(), self.value.view())

    def n_predicates(self) -> int:
        return self.attr.n

    def phase1_index(self) -> PredicateIndex:
        """The phase-1 families of the predicates in use (rebuilt after changes)."""
        if self._index is None:
            self._index = PredicateIndex.build(self.table(), self.refcount.view() > 0)
        return self._index

    def _key_map(self) -> dict[tuple[int, int, int], int]:
        if self._keys is None:
            t = self.table()
            self._keys = {
                (int(a), int(o), int(v)): i
                for i, (a, o, v) in enumerate(zip(t.attr, t.op, t.value, strict=True))
            }
        return self._keys

    def _predicate_id(self, attr: int, op: int, value: int) -> int:
        keys = self._key_map()
        pid = keys.get((attr, op, value))
        if pid is None:
            pid = self.attr.append(attr)
            self.op.append(op)
            self.value.append(value)
            self.refcount.append(0)
            keys[(attr, op, value)] = pid
        return pid

    # -- subscriptions ----------------------------------------------------------------
    def __len__(self) -> int:
        return self.ids.n

    def preds_of(self, i: int) -> np.ndarray:
        if i < self.n_bulk:
            return self.bulk_preds[self.bulk_ptr[i] : self.bulk_ptr[i + 1]]
        return self.extra_preds[i]

    def index_of(self, sub_id: int) -> int:
        """The internal index of a live subscription id (KeyError if unknown or deleted)."""
        i = self._extra_index.get(int(sub_id))
        if i is None and self.n_bulk:
            k = np.searchsorted(self.ids.data[: self.n_bulk], sub_id, sorter=self._bulk_sorted)
            if k < self.n_bulk and self.ids.data[self._bulk_sorted[k]] == sub_id:
                i = int(self._bulk_sorted[k])
        if i is None or not self.alive.data[i]:
            raise KeyError(f"no live subscription with id {sub_id}")
        return i

    def add(self, sub_id: int, predicates: Iterable[tuple[int, str | int, int]]) -> int:
        """Register a new subscription; return its internal index."""
        try:
            self.index_of(sub_id)
        except KeyError:
            pass
        else:
            raise ValueError(f"subscription id {sub_id} is already registered")
        pids = set()
        for a, op, v in predicates:
            if not 0 <= int(a) < self.n_attrs:
                raise ValueError(f"attribute {a} outside 0..{self.n_attrs - 1}")
            pids.add(self._predicate_id(int(a), op_code(op), int(v)))
        arr = np.array(sorted(pids), dtype=np.int32)
        newly_used = [p for p in arr if self.refcount.data[p] == 0]
        self.refcount.data[arr] += 1
        if newly_used:
            self._index = None
        i = self.ids.append(sub_id)
        self.alive.append(True)
        self.extra_preds[i] = arr
        self._extra_index[int(sub_id)] = i
        return i

    def remove(self, sub_id: int) -> int:
        """Unregister a subscription (O(its size)); return its internal index."""
        i = self.index_of(sub_id)
        self.alive.data[i] = False
        pids = self.preds_of(i)
        self.refcount.data[pids] -= 1
        if np.any(self.refcount.data[pids] == 0):
            self._index = None
        self._extra_index.pop(int(sub_id), None)
        return i

    def add_many(self, subs: Subscriptions) -> np.ndarray:
        """:meth:`add` for a batch given as :class:`Subscriptions` (any predicate table):
        its predicates are mapped to this registry's ids once per distinct predicate.
        Returns the new internal indexes."""
        ids = subs.ids.astype(np.int64)
        if subs.n_attrs > self.n_attrs:
            raise ValueError(f"subscriptions use {subs.n_attrs} attributes, at most {self.n_attrs}")
        live = self.indexes_of(ids, missing=-1)
        if np.any(live >= 0):
            raise ValueError(f"subscription id {ids[live >= 0][0]} is already registered")
        t = subs.table
        mapping = np.array(
            [
                self._predicate_id(int(a), int(o), int(v))
                for a, o, v in zip(t.attr, t.op, t.value, strict=True)
            ],
            dtype=np.int64,
        )
        pids = mapping[subs.preds] if len(subs.preds) else np.zeros(0, dtype=np.int64)
        n = len(subs)
        sub_of = np.repeat(np.arange(n), subs.sizes())
        order = np.lexsort((pids, sub_of))
        pids = pids[order].astype(np.int32)
        if np.any(self.refcount.data[unique(pids)] == 0):
            self._index = None
        np.add.at(self.refcount.data, pids, 1)
        first = self.ids.n
        for k, i in enumerate(ids.tolist()):
            self.ids.append(i)
            self.alive.append(True)
            self.extra_preds[first + k] = pids[subs.ptr[k] : subs.ptr[k + 1]]
            self._extra_index[i] = first + k
        return np.arange(first, first + n, dtype=np.int64)

    def indexes_of(self, sub_ids: np.ndarray, missing: int | None = None) -> np.ndarray:
        """:meth:`index_of` for many ids (vectorised over the bulk-loaded ones); an unknown
        or deleted id raises KeyError, or gets ``missing`` if given."""
        sub_ids = np.asarray(sub_ids, dtype=np.int64)
        out = np.array([self._extra_index.get(i, -1) for i in sub_ids.tolist()], dtype=np.int64)
        if self.n_bulk and len(sub_ids):
            k = np.searchsorted(self.ids.data[: self.n_bulk], sub_ids, sorter=self._bulk_sorted)
            k = np.minimum(k, self.n_bulk - 1)
            cand = self._bulk_sorted[k]
            hit = (out < 0) & (self.ids.data[cand] == sub_ids)
            out[hit] = cand[hit]
        ok = out >= 0
        ok[ok] = self.alive.data[out[ok]]
        if not ok.all():
            if missing is None:
                raise KeyError(f"no live subscription with id {sub_ids[~ok][0]}")
            out[~ok] = missing
        return out

    def remove_many(self, sub_ids: np.ndarray) -> np.ndarray:
        """:meth:`remove` for many ids; returns their internal indexes."""
        idx = self.indexes_of(sub_ids)
        if len(unique(idx)) != len(idx):
            raise KeyError("a subscription id is given twice")
        self.alive.data[idx] = False
        parts = [self.preds_of(int(i)) for i in idx]
        pids = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
        np.subtract.at(self.refcount.data, pids, 1)
        if np.any(self.refcount.data[pids] == 0):
            self._index = None
        for i, sub_id in zip(idx.tolist(), np.asarray(sub_ids).tolist(), strict=True):
            self._extra_index.pop(int(sub_id), None)
            self.extra_preds.pop(i, None)
        return idx

    def live_ids(self) -> np.ndarray:
        return self.ids.view()[self.alive.view()]


def insert_many(matcher: object, subs: Sequence[tuple[int, Sequence]]) -> None:
    """``matcher.insert(sub_id, predicates)`` for each pair (a convenience for batches)."""
    for sub_id, preds in subs:
        matcher.insert(sub_id, preds)  # type: ignore[attr-defined]
