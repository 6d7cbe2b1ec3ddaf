"""The matching problem of Fabret et al. (SIGMOD 2001), Sect. 1.1, as flat arrays.

A **predicate** is (attribute, operator, value) with operator one of ``< <= = != >= >``;
a **subscription** is a conjunction (set) of predicates, possibly several on one attribute
(a range such as ``price >= 5 AND price <= 10``); an **event** is a set of (attribute,
value) pairs with no attribute twice. An event satisfies a subscription iff every predicate
of it is matched by a pair of the event: ``event[a] op value``. A predicate on an attribute
the event lacks is false, ``!=`` included (our reading: it follows from the definition).

Every distinct predicate gets one id (Sect. 2.2.1: "each indexed predicate that occurs in
one or more subscriptions is associated with a single entry in the predicate bit vector");
a subscription stores predicate ids, deduplicated. Values are integers: numbers are used as
they are; categorical values (strings) are dictionary-encoded per attribute with
:class:`ValueDictionary` (equality and ``!=`` only: an order on strings is not assumed).

Arrays, not objects, so 6M subscriptions fit in memory and numba kernels can read them:
:class:`PredicateTable` (``attr``, ``op``, ``value``), :class:`Subscriptions` (CSR: ``ptr``,
``preds``; ``ids`` the user's subscription ids), :class:`Events` (``values``: events x
attributes, :data:`MISSING` where an event lacks the attribute).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from routelab.uniques import unique

OPS = ("<", "<=", "=", "!=", ">=", ">")
OP_CODE = {op: i for i, op in enumerate(OPS)}
LT, LE, EQ, NE, GE, GT = range(6)
MISSING = np.iinfo(np.int64).min  # an attribute the event does not carry

Predicate = tuple[int, str, int]


def op_code(op: str | int) -> int:
    """The code of an operator given as text (``"<="``) or code."""
    if isinstance(op, int | np.integer):
        if not 0 <= int(op) < len(OPS):
            raise ValueError(f"unknown operator code {op}")
        return int(op)
    if op == "==":
        op = "="
    if op not in OP_CODE:
        raise ValueError(f"unknown operator {op!r}; use one of {' '.join(OPS)}")
    return OP_CODE[op]


def compare(value: int, op: int, constant: int) -> bool:
    """``value op constant`` (the matching rule of Sect. 1.1), for one pair."""
    if value == MISSING:
        return False
    if op == LT:
        return value < constant
    if op == LE:
        return value <= constant
    if op == EQ:
        return value == constant
    if op == NE:
        return value != constant
    if op == GE:
        return value >= constant
    return value > constant


def compare_arrays(values: np.ndarray, ops: np.ndarray, constants: np.ndarray) -> np.ndarray:
    """Vectorised :func:`compare` (``values`` may hold :data:`MISSING`)."""
    present = values != MISSING
    out = np.select(
        [ops == LT, ops == LE, ops == EQ, ops == NE, ops == GE, ops == GT],
        [
            values < constants,
            values <= constants,
            values == constants,
            values != constants,
            values >= constants,
            values > constants,
        ],
        default=False,
    )
    return out & present


@dataclass
class PredicateTable:
    """The distinct predicates: id i is ``(attr[i], op[i], value[i])``."""

    attr: np.ndarray  # int32
    op: np.ndarray  # int8
    value: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.attr)

    def describe(self, pid: int, names: Sequence[str] | None = None) -> str:
        name = names[self.attr[pid]] if names is not None else f"a{self.attr[pid]}"
        return f"{name} {OPS[self.op[pid]]} {self.value[pid]}"


@dataclass
class Subscriptions:
    """Subscriptions as CSR over predicate ids (deduplicated and sorted per subscription)."""

    ids: np.ndarray  # int64, the subscription ids
    ptr: np.ndarray  # int64, len n + 1
    preds: np.ndarray  # int32 predicate ids
    table: PredicateTable
    n_attrs: int

    def __len__(self) -> int:
        return len(self.ids)

    def sizes(self) -> np.ndarray:
        return np.diff(self.ptr)

    def predicates_of(self, i: int) -> np.ndarray:
        return self.preds[self.ptr[i] : self.ptr[i + 1]]

    def take(self, rows: np.ndarray) -> Subscriptions:
        """The subscriptions at ``rows`` (same predicate table, so the same ids)."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.ptr[rows + 1] - self.ptr[rows]
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        preds = self.preds[ranges(self.ptr[rows], lengths)]
        return Subscriptions(self.ids[rows], ptr, preds, self.table, self.n_attrs)

    def as_lists(self) -> list[list[Predicate]]:
        """Each subscription as ``[(attr, op text, value), ...]`` (for tests and examples)."""
        t = self.table
        return [
            [(int(t.attr[p]), OPS[t.op[p]], int(t.value[p])) for p in self.predicates_of(i)]
            for i in range(len(self))
        ]

    @classmethod
    def from_lists(
        cls,
        subscriptions: Sequence[Iterable[tuple[int, str | int, int]]],
        *,
        ids: Sequence[int] | None = None,
        n_attrs: int | None = None,
    ) -> Subscriptions:
        """Build from ``[[(attr, op, value), ...], ...]``; ids default to 0..n-1."""
        lengths, attrs, ops, values = [], [], [], []
        for sub in subscriptions:
            count = 0
            for a, op, v in sub:
                attrs.append(int(a))
                ops.append(op_code(op))
                values.append(int(v))
                count += 1
            lengths.append(count)
        ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        return cls.from_flat(
            ptr,
            np.asarray(attrs, dtype=np.int64),
            np.asarray(ops, dtype=np.int64),
            np.asarray(values, dtype=np.int64),
            ids=ids,
            n_attrs=n_attrs,
        )

    @classmethod
    def from_flat(
        cls,
        ptr: np.ndarray,
        attrs: np.ndarray,
        ops: np.ndarray,
        values: np.ndarray,
        *,
        ids: Sequence[int] | np.ndarray | None = None,
        n_attrs: int | None = None,
    ) -> Subscriptions:
        """Build from one flat predicate list per subscription (CSR ``ptr``); predicates
        are deduplicated globally (one bit-vector entry each) and within a subscription."""
        n = len(ptr) - 1
        if ids is None:
            ids = np.arange(n, dtype=np.int64)
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) != n:
            raise ValueError(f"{len(ids)} ids for {n} subscriptions")
        if len(unique(ids)) != n:
            raise ValueError("subscription ids must be unique")
        if len(attrs) and (attrs.min() < 0 or ops.min() < 0 or ops.max() >= len(OPS)):
            raise ValueError("attributes must be >= 0 and operators valid codes")
        n_attrs = int(n_attrs if n_attrs is not None else (attrs.max() + 1 if len(attrs) else 0))
        table, pred_ids = _dedup_predicates(attrs, ops, values)
        # dedup within each subscription: sort (sub, pred) and drop repeats
        sub_of = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
        order = np.lexsort((pred_ids, sub_of))
        sub_sorted, pred_sorted = sub_of[order], pred_ids[order]
        keep = np.ones(len(order), dtype=bool)
        keep[1:] = (sub_sorted[1:] != sub_sorted[:-1]) | (pred_sorted[1:] != pred_sorted[:-1])
        sub_sorted, pred_sorted = sub_sorted[keep], pred_sorted[keep]
        new_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(sub_sorted, minlength=n), out=new_ptr[1:])
        return cls(ids, new_ptr, pred_sorted.astype(np.int32), table, n_attrs)

    @classmethod
    def from_dense(
        cls,
        attrs: np.ndarray,
        ops: np.ndarray,
        values: np.ndarray,
        *,
        ids: np.ndarray | None = None,
        n_attrs: int | None = None,
    ) -> Subscriptions:
        """Build from (n_subs, n_preds) arrays: every subscription has the same number of
        predicates (the workloads of Sect. 6.1)."""
        n, k = attrs.shape
        if ids is None:
            ids = np.arange(n, dtype=np.int64)
        n_attrs = int(n_attrs if n_attrs is not None else (attrs.max() + 1 if attrs.size else 0))
        table, pred_ids = _dedup_predicates(attrs.ravel(), ops.ravel(), values.ravel())
        rows = np.sort(pred_ids.reshape(n, k), axis=1)
        if k > 1 and (rows[:, 1:] == rows[:, :-1]).any():  # repeated predicates: general path
            ptr = np.arange(0, n * k + 1, k, dtype=np.int64)
            return cls.from_flat(
                ptr, attrs.ravel(), ops.ravel(), values.ravel(), ids=ids, n_attrs=n_attrs
            )
        ptr = np.arange(0, n * k + 1, k, dtype=np.int64)
        return cls(
            np.asarray(ids, dtype=np.int64), ptr, rows.ravel().astype(np.int32), table, n_attrs
        )


def _dedup_predicates(
    attrs: np.ndarray, ops: np.ndarray, values: np.ndarray
) -> tuple[PredicateTable, np.ndarray]:
    """Distinct (attr, op, value) triples, sorted by attribute, operator, value (so each
    (attribute, operator) "family" is one contiguous id range with sorted constants)."""
    if len(attrs) == 0:
        empty = PredicateTable(np.zeros(0, np.int32), np.zeros(0, np.int8), np.zeros(0, np.int64))
        return empty, np.zeros(0, dtype=np.int64)
    vmin, vmax = int(values.min()), int(values.max())
    span = vmax - vmin + 1
    n_fam = (int(attrs.max()) + 1) * len(OPS)
    if span > 0 and n_fam * span <= 1 << 26:  # small key space: a dense table, no sort
        code = (attrs.astype(np.int64) * len(OPS) + ops) * span + (values - vmin)
        present = np.zeros(n_fam * span, dtype=bool)
        present[code] = True
        used = np.flatnonzero(present)
        dense_id = np.cumsum(present) - 1
        fam, val = np.divmod(used, span)
        a, o = np.divmod(fam, len(OPS))
        table = PredicateTable(a.astype(np.int32), o.astype(np.int8), (val + vmin).astype(np.int64))
        return table, dense_id[code]
    order = np.lexsort((values, ops, attrs))
    a, o, v = attrs[order], ops[order], values[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (a[1:] != a[:-1]) | (o[1:] != o[:-1]) | (v[1:] != v[:-1])
    group = np.cumsum(new) - 1
    pred_ids = np.empty(len(order), dtype=np.int64)
    pred_ids[order] = group
    table = PredicateTable(a[new].astype(np.int32), o[new].astype(np.int8), v[new].astype(np.int64))
    return table, pred_ids


@dataclass
class Events:
    """A batch of events: ``values[e, a]`` the value of attribute a in event e, or
    :data:`MISSING`; ``ids`` the user's event ids."""

    values: np.ndarray  # int64 (n_events, n_attrs)
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __post_init__(self) -> None:
        self.values = np.ascontiguousarray(self.values, dtype=np.int64)
        if self.values.ndim != 2:
            raise ValueError("event values must be a 2-d array (events x attributes)")
        if len(self.ids) == 0:
            self.ids = np.arange(len(self.values), dtype=np.int64)

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def from_dicts(cls, events: Sequence[Mapping[int, int]], n_attrs: int) -> Events:
        values = np.full((len(events), n_attrs), MISSING, dtype=np.int64)
        for e, event in enumerate(events):
            for a, v in event.items():
                if not 0 <= a < n_attrs:
                    raise ValueError(f"event {e}: attribute {a} outside 0..{n_attrs - 1}")
                values[e, a] = v
        return cls(values)

    def widen(self, n_attrs: int) -> Events:
        """The same events over ``n_attrs`` attributes (extra ones missing)."""
        if n_attrs <= self.values.shape[1]:
            return self
        extra = np.full((len(self), n_attrs - self.values.shape[1]), MISSING, dtype=np.int64)
        return Events(np.hstack([self.values, extra]), self.ids)


@dataclass
class ValueDictionary:
    """Dictionary encoding of categorical values, one code space per attribute."""

    codes: dict[int, dict[str, int]] = field(default_factory=dict)

    def encode(self, attr: int, value: str) -> int:
        table = self.codes.setdefault(attr, {})
        return table.setdefault(value, len(table))

    def lookup(self, attr: int, value: str) -> int | None:
        """The code of a known value, None for a value no subscription mentions."""
        return self.codes.get(attr, {}).get(value)


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenated index ranges ``[s, s + l)`` (vectorised)."""
    total = int(lengths.sum())
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def match_pairs(ptr: np.ndarray, subs: np.ndarray) -> set[tuple[int, int]]:
    """Matches in CSR form (per event) as a set of (event index, subscription index)."""
    counts = np.diff(ptr)
    events = np.repeat(np.arange(len(counts)), counts)
    return set(zip(events.tolist(), subs.tolist(), strict=True))
