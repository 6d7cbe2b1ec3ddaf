"""The dispatchers' index: gridt (PS2Stream Sect. IV-C, Fig. 4), built from any partition.

Each cell of the base grid holds two maps. ``H_o``: term -> worker, from the partition
(a space-only cell stores one worker for every term; a cell under a text node stores the
text groups' workers, explicit for sample terms, seeded hash for the rest). ``H_q``:
term -> the workers holding live queries registered under that term for the cell, with
reference counts.

Reading of the garbled text (the one consistent assignment): query requests are placed with
``H_o`` (for every covered cell and every registering key ``k``: worker ``H_o[c](k)``; the
INS message carries the ``(cell, key)`` postings the worker must create), and objects are
routed with ``H_q`` (to the workers of the object's terms that have live queries in its
cell). An object whose terms have no live query in its cell is discarded ("the object can
be discarded if it contains no terms in H_q"); with ``use_filter=False`` objects
are routed with ``H_o`` instead (every owner of one of its terms), an ablation.

:func:`dispatch` is the numba kernel (state kept between calls, so a stream can be routed
in pieces), two passes in a row: :func:`filter_tuples`, ``H_q``'s pass (no partition changes
it: ``H_q`` is keyed by (cell, key)), then :func:`route`, the owners' pass through one gridt,
so every partitioner of a stream can route from one ``H_q`` pass.
:func:`dispatch_reference` walks the kdt-tree with Python dicts. Up to 64 workers (worker
sets are 64-bit masks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from routelab.readings import pick
from routelab.spatial import int_table as tb
from routelab.spatial.int_table import new_table
from routelab.spatial.kdt import Node, Partition
from routelab.spatial.model import DEL, INS, OBJ, Objects, Queries

MAX_WORKERS = 64

#: bytes per entry of the dispatcher memory model (a hash-map entry of two ints + overhead)
HO_ENTRY_BYTES = 16
HQ_ENTRY_BYTES = 24
CELL_BYTES = 8


@dataclass
class Gridt:
    """``cell_owner[c]`` >= 0: the worker of every term in cell ``c``; ``-1 - i``: the
    cell's ``H_o`` is ``tables[i]`` (term -> worker)."""

    g: int
    n_workers: int
    n_terms: int
    cell_owner: np.ndarray  # int32 (g*g)
    tables: np.ndarray  # int16 (n_tables, n_terms)
    explicit_terms: np.ndarray  # per table: number of sample terms stored explicitly
    info: dict = field(default_factory=dict)

    @property
    def n_text_cells(self) -> int:
        return int((self.cell_owner < 0).sum())

    def owner(self, cell: int, term: int) -> int:
        o = int(self.cell_owner[cell])
        return o if o >= 0 else int(self.tables[-1 - o, term])

    def ho_entries(self) -> int:
        """Entries of the ``H_o`` maps: one per space-only cell, one pointer per text cell
        to its region's shared term map, and the explicit (sample) terms of every such map
        (cells of one kdt-tree text region share one map -- a text-only partition is one
        map for the whole space)."""
        own = self.cell_owner
        return int(len(own) + self.explicit_terms.sum())


def build_gridt(partition: Partition, g: int, n_terms: int, sample_terms: np.ndarray) -> Gridt:
    """The gridt of a partition: one pass over the tree."""
    if partition.n_workers > MAX_WORKERS:
        raise ValueError(f"at most {MAX_WORKERS} workers, got {partition.n_workers}")
    owner = np.full((g, g), -(1 << 30), dtype=np.int32)
    tables: list[np.ndarray] = []

    def fill_text(n: Node, table: np.ndarray, mask: np.ndarray) -> None:
        if n.kind == "leaf":
            table[mask] = n.worker
            return
        if n.kind != "text":
            raise ValueError("a space cut below a text node cannot be routed by gridt")
        for j, c in enumerate(n.children):
            fill_text(c, table, mask & (n.groups == j))

    def visit(n: Node) -> None:
        if n.kind == "space":
            for c in n.children:
                visit(c)
        elif n.kind == "leaf":
            owner[n.y0 : n.y1, n.x0 : n.x1] = n.worker
        else:
            table = np.full(n_terms, -1, dtype=np.int16)
            fill_text(n, table, np.ones(n_terms, dtype=bool))
            tables.append(table)
            owner[n.y0 : n.y1, n.x0 : n.x1] = -len(tables)

    visit(partition.root)
    if np.any(owner == -(1 << 30)):
        raise ValueError("the partition leaves cells uncovered")
    tab = np.stack(tables) if tables else np.zeros((0, n_terms), dtype=np.int16)
    if np.any(tab < 0):
        raise ValueError("a text node leaves terms without a worker")
    explicit = np.full(len(tables), int(sample_terms.sum()), dtype=np.int64)
    return Gridt(
        g,
        partition.n_workers,
        n_terms,
        owner.ravel(),
        tab,
        explicit,
        {"algorithm": partition.algorithm},
    )


@dataclass
class Routed:
    """Dispatcher output, one row per (tuple, worker) copy in stream order; INS rows carry
    their postings ``post_cell/post_key[post_ptr[i]:post_ptr[i+1]]``."""

    tup: np.ndarray  # int64 stream position
    worker: np.ndarray  # int64
    post_ptr: np.ndarray
    post_cell: np.ndarray
    post_key: np.ndarray
    discarded: int
    hq_peak: int
    hq_final: int

    def __len__(self) -> int:
        return len(self.tup)


class DispatcherState:
    """``H_q`` of one dispatcher, kept between calls: a refcount per live (cell, key), an
    :mod:`routelab.spatial.int_table`. A gridt gives a (cell, key) one worker (``H_o``), so
    the refcount per (cell, key) is the refcount of its one (cell, key, worker) entry and
    an object's lookup sends it to that worker: one table, one probe per posting. The
    state follows the gridt it is dispatched with: a gridt that changes between calls
    moves the (cell, key) entries with it (the migration's
    :func:`routelab.spatial.adjustment.move_hq` only counts them)."""

    def __init__(self) -> None:
        self.ref = new_table()
        self.counters = np.zeros(2, dtype=np.int64)  # live refcount entries, peak


@numba.njit(cache=True, inline="always")
def _owner(own, tables, t):
    """``H_o[c](t)``: the cell's single worker, or its text table's entry for ``t``."""
    return own if own >= 0 else np.int64(tables[-1 - own, t])


@numba.njit(cache=True)
def _grow_rows(o_tup, o_w, o_ptr, n_out):
    """The output rows with twice the room (the first ``n_out`` kept)."""
    cap = 2 * len(o_tup)
    a = np.empty(cap, dtype=np.int64)
    a[:n_out] = o_tup[:n_out]
    b = np.empty(cap, dtype=np.int64)
    b[:n_out] = o_w[:n_out]
    pp = np.zeros(cap + 1, dtype=np.int64)
    pp[: n_out + 1] = o_ptr[: n_out + 1]
    return a, b, pp


@numba.njit(cache=True)
def _filter(
    rk_keys,
    rk_vals,
    rk_cnt,
    counters,
    kind,
    ref,
    lo,
    hi,
    obj_cell,
    obj_term_ptr,
    obj_terms,
    q_range,
    key_ptr,
    keys,
    g,
    n_terms,
    use_filter,
):
    """``H_q``'s pass over tuples ``lo..hi``: every query request updates the reference
    counts of its (cell, key) postings; every object keeps the terms with a live query in
    its cell (all its terms without the filter), ``terms[ptr[i - lo]:ptr[i - lo + 1]]``."""
    n = hi - lo
    ptr = np.zeros(n + 1, dtype=np.int64)
    cap = 1024
    out = np.empty(cap, dtype=np.int64)
    n_f = 0
    for i in range(lo, hi):
        k = kind[i]
        r = ref[i]
        if k == 0:
            c = obj_cell[r]
            for j in range(obj_term_ptr[r], obj_term_ptr[r + 1]):
                t = obj_terms[j]
                if use_filter and tb.find(rk_keys, c * n_terms + t) < 0:
                    continue
                if n_f == cap:
                    cap *= 2
                    grown = np.empty(cap, dtype=np.int64)
                    grown[:n_f] = out[:n_f]
                    out = grown
                out[n_f] = t
                n_f += 1
        elif k > 0:
            for cy in range(q_range[r, 1], q_range[r, 3] + 1):
                for cx in range(q_range[r, 0], q_range[r, 2] + 1):
                    c = cy * g + cx
                    for j in range(key_ptr[r], key_ptr[r + 1]):
                        rk = c * n_terms + keys[j]
                        slot = tb.find(rk_keys, rk)
                        if k == 1:
                            if slot >= 0:
                                rk_vals[slot] += 1
                                continue
                            counters[0] += 1
                            if counters[0] > counters[1]:
                                counters[1] = counters[0]
                            rk_keys, rk_vals = tb.put(rk_keys, rk_vals, rk_cnt, rk, 1)
                        elif slot >= 0:
                            if rk_vals[slot] > 1:
                                rk_vals[slot] -= 1
                            else:
                                tb.remove_at(rk_keys, rk_cnt, slot)
                                counters[0] -= 1
        ptr[i - lo + 1] = n_f
    return ptr, out[:n_f], rk_keys, rk_vals


@numba.njit(cache=True)
def _route(
    kind,
    ref,
    lo,
    hi,
    f_ptr,
    f_terms,
    obj_cell,
    q_range,
    key_ptr,
    keys,
    cell_owner,
    tables,
    g,
    n_workers,
    emit_queries,
):
    """The owners' pass over tuples ``lo..hi`` (after :func:`_filter`): an object goes to
    ``H_o[c](t)`` of each of its kept terms, a query request to the owner of each of its
    (cell, key) postings, INS rows carrying their postings grouped per worker."""
    n = hi - lo
    cap = max(16, 2 * n)
    o_tup = np.empty(cap, dtype=np.int64)
    o_w = np.empty(cap, dtype=np.int64)
    o_ptr = np.zeros(cap + 1, dtype=np.int64)
    pcap = 1024
    p_cell = np.empty(pcap, dtype=np.int64)
    p_key = np.empty(pcap, dtype=np.int64)
    n_out = 0
    n_post = 0
    discarded = 0
    w_posts = np.zeros(n_workers, dtype=np.int64)
    w_at = np.zeros(n_workers, dtype=np.int64)
    scap = 1024  # one query's (cell, key, worker) placements, in enumeration order
    s_cell = np.empty(scap, dtype=np.int64)
    s_key = np.empty(scap, dtype=np.int64)
    s_w = np.empty(scap, dtype=np.int64)
    for i in range(lo, hi):
        k = kind[i]
        r = ref[i]
        if k < 0:  # not this dispatcher's (global adjustment's dual strategies)
            continue
        if k == 0:
            own = cell_owner[obj_cell[r]]
            m = 0
            for j in range(f_ptr[i - lo], f_ptr[i - lo + 1]):
                m |= np.int64(1) << _owner(own, tables, f_terms[j])
            if m == 0:
                discarded += 1
                continue
            for w in range(n_workers):
                if (m >> w) & 1:
                    if n_out + 1 >= len(o_tup):
                        o_tup, o_w, o_ptr = _grow_rows(o_tup, o_w, o_ptr, n_out)
                    o_tup[n_out] = i
                    o_w[n_out] = w
                    n_out += 1
                    o_ptr[n_out] = n_post
        elif emit_queries:
            x0 = q_range[r, 0]
            y0 = q_range[r, 1]
            x1 = q_range[r, 2]
            y1 = q_range[r, 3]
            # place every (cell, key) once, then emit the placements grouped per worker
            w_posts[:] = 0
            need = (y1 - y0 + 1) * (x1 - x0 + 1) * (key_ptr[r + 1] - key_ptr[r])
            if need > scap:
                scap = 2 * need
                s_cell = np.empty(scap, dtype=np.int64)
                s_key = np.empty(scap, dtype=np.int64)
                s_w = np.empty(scap, dtype=np.int64)
            n_s = 0
            for cy in range(y0, y1 + 1):
                for cx in range(x0, x1 + 1):
                    c = cy * g + cx
                    own = cell_owner[c]
                    for j in range(key_ptr[r], key_ptr[r + 1]):
                        t = keys[j]
                        w = _owner(own, tables, t)
                        s_cell[n_s] = c
                        s_key[n_s] = t
                        s_w[n_s] = w
                        n_s += 1
                        w_posts[w] += 1
            if k == 1:  # the postings grouped per worker (a counting sort, stable)
                need = n_post + n_s
                if need > pcap:
                    while pcap < need:
                        pcap *= 2
                    a2 = np.empty(pcap, dtype=np.int64)
                    a2[:n_post] = p_cell[:n_post]
                    p_cell = a2
                    b2 = np.empty(pcap, dtype=np.int64)
                    b2[:n_post] = p_key[:n_post]
                    p_key = b2
                at = n_post
                for w in range(n_workers):
                    w_at[w] = at
                    at += w_posts[w]
                for x in range(n_s):
                    w = s_w[x]
                    p_cell[w_at[w]] = s_cell[x]
                    p_key[w_at[w]] = s_key[x]
                    w_at[w] += 1
            for w in range(n_workers):
                if w_posts[w] == 0:
                    continue
                if n_out + 1 >= len(o_tup):
                    o_tup, o_w, o_ptr = _grow_rows(o_tup, o_w, o_ptr, n_out)
                if k == 1:
                    n_post += w_posts[w]
                o_tup[n_out] = i
                o_w[n_out] = w
                n_out += 1
                o_ptr[n_out] = n_post
    return (
        o_tup[:n_out],
        o_w[:n_out],
        o_ptr[: n_out + 1],
        p_cell[:n_post],
        p_key[:n_post],
        discarded,
    )


def use_hq_filter(use_filter: bool | None = None) -> bool:
    """Whether objects are routed with ``H_q`` (the live queries' map) and discarded when no
    term has a live query in their cell: ``use_filter``, or if None our reading (True);
    ``ROUTELAB_READING=gridt`` makes it False for a run (objects routed with ``H_o``)."""
    return bool(pick("gridt", True, False)) if use_filter is None else bool(use_filter)


@dataclass
class Filtered:
    """The partition-independent half of routing tuples ``lo..hi`` (:func:`filter_tuples`):
    each object's terms with a live query in its cell, ``terms[ptr[i - lo]:ptr[i - lo +
    1]]`` for stream position ``i``, and ``H_q``'s peak and final entry counts. Every
    partitioner of one stream shares it: ``H_q`` is keyed by (cell, key), never by worker,
    so only the owners' pass (:func:`route`) depends on the gridt. ``use_filter``: whether
    objects kept only the terms with a live query (False: every term, the ablation)."""

    lo: int
    hi: int
    ptr: np.ndarray
    terms: np.ndarray
    hq_peak: int
    hq_final: int
    use_filter: bool = True


def filter_tuples(
    state: DispatcherState,
    kind: np.ndarray,
    ref: np.ndarray,
    obj_cell: np.ndarray,
    objects: Objects,
    queries: Queries,
    q_range: np.ndarray,
    g: int,
    n_terms: int,
    lo: int = 0,
    hi: int | None = None,
    use_filter: bool | None = None,
) -> Filtered:
    """``H_q``'s pass over tuples ``lo..hi`` (state kept in ``state`` between calls).
    ``use_filter`` None: :func:`use_hq_filter` (True, our reading)."""
    hi = len(kind) if hi is None else hi
    use_filter = use_hq_filter(use_filter)
    ptr, terms, rk_keys, rk_vals = _filter(
        *state.ref,
        state.counters,
        kind.astype(np.int8),
        ref.astype(np.int64),
        lo,
        hi,
        obj_cell.astype(np.int64),
        objects.term_ptr,
        objects.terms,
        q_range.astype(np.int64),
        queries.key_ptr,
        queries.keys,
        g,
        n_terms,
        use_filter,
    )
    state.ref = (rk_keys, rk_vals, state.ref[2])
    return Filtered(lo, hi, ptr, terms, int(state.counters[1]), int(state.counters[0]), use_filter)


def route(
    gridt: Gridt,
    filtered: Filtered,
    kind: np.ndarray,
    ref: np.ndarray,
    obj_cell: np.ndarray,
    queries: Queries,
    q_range: np.ndarray,
    emit_queries: bool = True,
) -> Routed:
    """The owners' pass: tuples ``filtered.lo..hi`` routed through ``gridt``."""
    tup, w, ptr, pc, pk, disc = _route(
        kind.astype(np.int8),
        ref.astype(np.int64),
        filtered.lo,
        filtered.hi,
        filtered.ptr,
        filtered.terms,
        obj_cell.astype(np.int64),
        q_range.astype(np.int64),
        queries.key_ptr,
        queries.keys,
        gridt.cell_owner,
        gridt.tables,
        gridt.g,
        gridt.n_workers,
        emit_queries,
    )
    return Routed(
        tup, w, ptr, pc, pk.astype(np.int32), int(disc), filtered.hq_peak, filtered.hq_final
    )


def dispatch(
    gridt: Gridt,
    state: DispatcherState,
    kind: np.ndarray,
    ref: np.ndarray,
    obj_cell: np.ndarray,
    objects: Objects,
    queries: Queries,
    q_range: np.ndarray,
    lo: int = 0,
    hi: int | None = None,
    use_filter: bool | None = None,
    emit_queries: bool = True,
) -> Routed:
    """Route tuples ``lo..hi`` of a stream (kernel): :func:`filter_tuples`, then
    :func:`route`. ``emit_queries=False`` updates ``H_q`` without sending query requests
    (the extra dispatchers of the replay). ``use_filter`` None: :func:`use_hq_filter`."""
    f = filter_tuples(
        state, kind, ref, obj_cell, objects, queries, q_range, gridt.g, gridt.n_terms, lo, hi,
        use_filter,
    )  # fmt: skip
    return route(gridt, f, kind, ref, obj_cell, queries, q_range, emit_queries)


def dispatch_reference(
    partition: Partition,
    g: int,
    kind: np.ndarray,
    ref: np.ndarray,
    obj_cell: np.ndarray,
    objects: Objects,
    queries: Queries,
    q_range: np.ndarray,
    use_filter: bool | None = None,
) -> Routed:
    """The same routing with the kdt-tree walked per (cell, term) and Python dicts
    (``use_filter`` None: :func:`use_hq_filter`)."""
    use_filter = use_hq_filter(use_filter)
    hq: dict[tuple[int, int], dict[int, int]] = {}
    rows: list[tuple[int, int, list[tuple[int, int]]]] = []
    discarded = 0
    live = peak = 0
    for i in range(len(kind)):
        r = int(ref[i])
        if kind[i] == OBJ:
            c = int(obj_cell[r])
            cx, cy = c % g, c // g
            ws: set[int] = set()
            for t in objects.terms_of(r).tolist():
                if use_filter:
                    ws |= set(hq.get((c, t), {}))
                else:
                    ws.add(partition.route_cell_term(cx, cy, t))
            if not ws:
                discarded += 1
            rows += [(i, w, []) for w in sorted(ws)]
            continue
        x0, y0, x1, y1 = (int(v) for v in q_range[r])
        per_w: dict[int, list[tuple[int, int]]] = {}
        for cy in range(y0, y1 + 1):
            for cx in range(x0, x1 + 1):
                c = cy * g + cx
                for t in queries.keys_of(r).tolist():
                    w = partition.route_cell_term(cx, cy, t)
                    per_w.setdefault(w, []).append((c, t))
                    slot = hq.setdefault((c, t), {})
                    if kind[i] == INS:
                        if slot.get(w, 0) == 0:
                            live += 1
                            peak = max(peak, live)
                        slot[w] = slot.get(w, 0) + 1
                    elif kind[i] == DEL and slot.get(w, 0) > 0:
                        slot[w] -= 1
                        if slot[w] == 0:
                            del slot[w]
                            live -= 1
                        if not slot:
                            del hq[(c, t)]
        for w in sorted(per_w):
            rows.append((i, w, per_w[w] if kind[i] == INS else []))
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(p) for _, _, p in rows], out=ptr[1:])
    posts = [x for _, _, p in rows for x in p]
    return Routed(
        np.array([t for t, _, _ in rows], dtype=np.int64),
        np.array([w for _, w, _ in rows], dtype=np.int64),
        ptr,
        np.array([c for c, _ in posts], dtype=np.int64),
        np.array([t for _, t in posts], dtype=np.int32),
        discarded,
        peak,
        live,
    )


def dispatcher_memory_bytes(gridt: Gridt, hq_entries: int) -> int:
    """Deterministic memory model of one dispatcher: cells, ``H_o`` and ``H_q`` entries."""
    return (
        gridt.g * gridt.g * CELL_BYTES
        + gridt.ho_entries() * HO_ENTRY_BYTES
        + hq_entries * HQ_ENTRY_BYTES
    )


def combine_routed(parts: list[Routed], dedupe: bool = False) -> Routed:
    """Several dispatch outputs as one, ordered by (stream position, worker). With
    ``dedupe`` a (tuple, worker) copy sent by more than one part is kept once (the object
    copies of two strategies routed side by side; query rows are never sent twice)."""
    tup = np.concatenate([p.tup for p in parts])
    worker = np.concatenate([p.worker for p in parts])
    lengths = np.concatenate([np.diff(p.post_ptr) for p in parts])
    cells = np.concatenate([p.post_cell for p in parts])
    keys = np.concatenate([p.post_key for p in parts])
    offsets = np.cumsum([0] + [len(p.post_cell) for p in parts[:-1]])
    starts = np.concatenate([p.post_ptr[:-1] + off for p, off in zip(parts, offsets, strict=True)])
    order = np.lexsort((worker, tup))
    if dedupe and len(order):
        t, w = tup[order], worker[order]
        order = order[np.r_[True, (t[1:] != t[:-1]) | (w[1:] != w[:-1])]]
    lengths = lengths[order]
    ptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    gather = np.repeat(starts[order] - ptr[:-1], lengths) + np.arange(ptr[-1])
    return Routed(
        tup[order],
        worker[order],
        ptr,
        cells[gather],
        keys[gather],
        sum(p.discarded for p in parts),
        max(p.hq_peak for p in parts),
        max(p.hq_final for p in parts),
    )
