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
in pieces); :func:`dispatch_reference` walks the kdt-tree with Python dicts. Up to 64
workers (worker sets are 64-bit masks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

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
def _dispatch(
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
    cell_owner,
    tables,
    g,
    n_terms,
    n_workers,
    use_filter,
    emit_queries,
):
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
            c = obj_cell[r]
            m = 0
            own = cell_owner[c]
            for j in range(obj_term_ptr[r], obj_term_ptr[r + 1]):
                t = obj_terms[j]
                if use_filter:
                    if tb.find(rk_keys, c * n_terms + t) >= 0:
                        m |= np.int64(1) << _owner(own, tables, t)
                else:
                    m |= np.int64(1) << _owner(own, tables, t)
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
        else:
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
                        rk = c * n_terms + t
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
            if not emit_queries:
                continue
            for w in range(n_workers):
                if w_posts[w] == 0:
                    continue
                if n_out + 1 >= len(o_tup):
                    o_tup, o_w, o_ptr = _grow_rows(o_tup, o_w, o_ptr, n_out)
                if k == 1:
                    need = n_post + w_posts[w]
                    if need > pcap:
                        while pcap < need:
                            pcap *= 2
                        a2 = np.empty(pcap, dtype=np.int64)
                        a2[:n_post] = p_cell[:n_post]
                        p_cell = a2
                        b2 = np.empty(pcap, dtype=np.int64)
                        b2[:n_post] = p_key[:n_post]
                        p_key = b2
                    for x in range(n_s):
                        if s_w[x] == w:
                            p_cell[n_post] = s_cell[x]
                            p_key[n_post] = s_key[x]
                            n_post += 1
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
        rk_keys,
        rk_vals,
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
    use_filter: bool = True,
    emit_queries: bool = True,
) -> Routed:
    """Route tuples ``lo..hi`` of a stream (kernel). ``emit_queries=False`` updates ``H_q``
    without sending query requests (the extra dispatchers of the replay)."""
    hi = len(kind) if hi is None else hi
    tup, w, ptr, pc, pk, disc, rk_keys, rk_vals = _dispatch(
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
        gridt.cell_owner,
        gridt.tables,
        gridt.g,
        gridt.n_terms,
        gridt.n_workers,
        use_filter,
        emit_queries,
    )
    state.ref = (rk_keys, rk_vals, state.ref[2])
    return Routed(
        tup,
        w,
        ptr,
        pc,
        pk.astype(np.int32),
        int(disc),
        int(state.counters[1]),
        int(state.counters[0]),
    )


def dispatch_reference(
    partition: Partition,
    g: int,
    kind: np.ndarray,
    ref: np.ndarray,
    obj_cell: np.ndarray,
    objects: Objects,
    queries: Queries,
    q_range: np.ndarray,
    use_filter: bool = True,
) -> Routed:
    """The same routing with the kdt-tree walked per (cell, term) and Python dicts."""
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
