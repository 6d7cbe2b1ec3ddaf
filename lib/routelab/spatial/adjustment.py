"""PS2Stream's local load adjustment (Sect. V-A) in a period-by-period replay, with
migration that really moves the queries' state.

The stream is routed and replayed in periods of ``period`` tuples (one dispatcher state and
one GI2 index per worker, both kept across periods). After each period every worker's load
is the cost model's (Definition 1 with the GI2 reading of the match count: ``c_m`` x the
candidate checks its objects made + ``c_o`` x its objects + ``c_ins`` x its query
insertions + ``c_del`` x its deletions), and a cell's load on a worker is the same sum over
the tuples of that cell (Definition 3's reading; a query insertion counts in every cell
where it created postings). When max load / min load exceeds ``sigma`` (the trigger), the
hottest worker hands the coolest cells whose load reaches L_delta = (L_max - L_min) / 2 at
the least migration cost (Phase II: the Minimum Cost Migration problem,
:mod:`routelab.spatial.migration`: DP, GR, SI or RA).

**Migration** of cells C' from w_max to w_min, at the period boundary: w_max extracts the
live postings of C' from its GI2 index (the queries' state: query, cell, registering key)
and drops them; w_min inserts them (one INS per query with exactly those postings); every
dispatcher's ``H_o`` gives C' to w_min and its ``H_q`` moves the reference counts of C' from
w_max to w_min (:func:`move_hq`), so later objects of C' go to w_min and later deletions of
those queries reach it. The migrated bytes are ``QUERY_BYTES`` per moved query plus
``POSTING_BYTES`` per posting (the engine's memory model); the migration time is the
measured extraction + drop + insertion plus the bytes over ``bandwidth`` (the network the
paper's workers would cross); both workers pause for it. The merged answer equals the
oracle's across every migration (tested on drifting streams with deletions around the
migrations).

Our readings (the paper's formulas for Sect. V were lost): the unit of migration is a cell
of the base grid. A space-only cell (one owner in ``H_o``) changes owner; from a text cell
(a term map shared by its region) the hot worker hands over its share, the terms the map
gives it, through a copy of the map for that cell (:func:`hand_over`). Phase I (splitting a
hot cell by text or merging it with a sibling) is not implemented here. One (w_max, w_min)
pair per period.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import numba
import numpy as np
import pandas as pd

from routelab.spatial.cost import CostParams
from routelab.spatial.engine import POSTING_BYTES, QUERY_BYTES, Setup, make_gridt, worker_tuples
from routelab.spatial.gi2 import WorkerTuples, make_index
from routelab.spatial.gridt import DispatcherState, Gridt, dispatch
from routelab.spatial.kdt import Partition
from routelab.spatial.migration import SELECTORS, load_to_move, triggered
from routelab.spatial.model import DEL, INS, OBJ


@dataclass(frozen=True)
class AdjustParams:
    """The adjustment's parameters (module docstring); ``selector``: DP, GR, SI or RA."""

    period: int = 20_000
    sigma: float = 1.2
    selector: str = "GR"
    selector_params: dict[str, Any] = field(default_factory=dict)
    costs: CostParams = field(default_factory=CostParams)
    bandwidth: float = 100e6  # bytes per second between two workers
    enabled: bool = True

    def __post_init__(self) -> None:
        if self.period < 1:
            raise ValueError(f"period must be >= 1 tuple, got {self.period}")
        SELECTORS.lookup(self.selector)


@numba.njit(cache=True)
def _move_hq(ref_d, mask_d, counters, mark, n_terms, w_from, w_to):  # type: ignore[no-untyped-def]
    keys = []
    for mk in mask_d:
        c = mk // n_terms
        if c < mark.shape[0] and mark[c] and (mask_d[mk] >> w_from) & 1:
            keys.append(mk)
    bit_from = np.int64(1) << w_from
    bit_to = np.int64(1) << w_to
    for mk in keys:
        rf = mk * 64 + w_from
        rt = mk * 64 + w_to
        v = ref_d[rf]
        del ref_d[rf]
        if rt in ref_d:
            ref_d[rt] += v
            counters[0] -= 1  # two live entries become one
        else:
            ref_d[rt] = v
        mask_d[mk] = (mask_d[mk] & ~bit_from) | bit_to
    return len(keys)


def move_hq(state: DispatcherState, cells: np.ndarray, n_terms: int, w_from: int, w_to: int) -> int:
    """Give ``w_to`` the ``H_q`` entries of ``w_from`` in ``cells`` (reference counts and
    worker bits); returns the (cell, term) keys moved."""
    mark = np.zeros(int(np.max(cells, initial=-1)) + 1, dtype=np.bool_)
    mark[np.asarray(cells, dtype=np.int64)] = True
    return int(_move_hq(state.ref, state.mask, state.counters, mark, n_terms, w_from, w_to))


def insertions(q: np.ndarray, cell: np.ndarray, key: np.ndarray) -> WorkerTuples:
    """One INS per query of sorted postings ``(q, cell, key)``, carrying exactly them."""
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else np.zeros(0, np.int64)
    ptr = np.r_[starts, len(q)].astype(np.int64)
    return WorkerTuples(
        np.full(len(starts), INS, dtype=np.int8),
        q[starts].astype(np.int64),
        ptr,
        cell.astype(np.int64),
        key.astype(np.int32),
    )


@dataclass
class AdjustedRun:
    """Merged pairs, one row per period (loads, busy seconds, trigger, migration) and per
    migration, and every routed copy (tuple, worker) with its service seconds: the
    worker's busy time in the period shared by the copies' costs, a migration's pause added
    to the first copy each of its two workers serves after it (the latency model's input,
    :func:`routelab.grouping.queueing.multicopy_latency`)."""

    pairs: set[tuple[int, int]]
    periods: pd.DataFrame
    migrations: pd.DataFrame
    duplicates: int
    copy_tup: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    copy_worker: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    copy_service: np.ndarray = field(default_factory=lambda: np.zeros(0))


def _loads(
    setup: Setup, wt: WorkerTuples, checks: np.ndarray, n_cells: int, costs: CostParams
) -> tuple[float, np.ndarray]:
    """A worker's load in the period and its load per cell (module docstring)."""
    kind = wt.kind
    obj = kind == OBJ
    cell_of_obj = setup.obj_cell[wt.ref[obj]]
    per_cell = np.bincount(
        cell_of_obj, weights=costs.c_m * checks[obj] + costs.c_o, minlength=n_cells
    ).astype(np.float64)
    ins = np.flatnonzero(kind == INS)
    if len(ins):
        n_post = wt.post_ptr[ins + 1] - wt.post_ptr[ins]
        # an insertion counts once in every cell where it creates postings
        pairs = np.unique(np.stack([np.repeat(ins, n_post), wt.post_cell]), axis=1)
        per_cell += costs.c_ins * np.bincount(pairs[1], minlength=n_cells)
    total = (
        costs.c_m * float(checks[obj].sum())
        + costs.c_o * int(obj.sum())
        + costs.c_ins * int((kind == INS).sum())
        + costs.c_del * int((kind == DEL).sum())
    )
    return total, per_cell


def replay_adjusted(
    setup: Setup, partition: Partition, params: AdjustParams, impl: str = "kernel"
) -> AdjustedRun:
    """The stream through one dispatcher and the workers' GI2 indexes, period by period,
    with local adjustment after each period (``params.enabled``; module docstring)."""
    st = setup.stream
    gt = make_gridt(setup, partition)
    gt = replace(gt, cell_owner=gt.cell_owner.copy())
    n_cells = len(gt.cell_owner)
    n_w = partition.n_workers
    state = DispatcherState()
    index = [
        make_index(impl, st.objects, st.queries, setup.obj_cell, gt.n_terms) for _ in range(n_w)
    ]
    method = SELECTORS.lookup(params.selector)
    sel_params = method.check_params(params.selector_params)
    pairs: set[tuple[int, int]] = set()
    duplicates = 0
    periods, migrations = [], []
    c_tup, c_w, c_srv = [], [], []
    pause = np.zeros(n_w)  # seconds each worker still owes to a migration
    for p, lo in enumerate(range(0, len(st.kind), params.period)):
        hi = min(len(st.kind), lo + params.period)
        routed = dispatch(
            gt, state, st.kind, st.ref, setup.obj_cell, st.objects, st.queries, setup.q_range,
            lo, hi,
        )  # fmt: skip
        loads = np.zeros(n_w)
        busy = np.zeros(n_w)
        cell_loads = []
        for w in range(n_w):
            wt = worker_tuples(st, routed, w)
            t0 = time.perf_counter()
            res = index[w].replay(wt)
            busy[w] = time.perf_counter() - t0
            q_ids = st.queries.ids[res.match_query].tolist()
            o_ids = st.objects.ids[res.match_object].tolist()
            for q, o in zip(q_ids, o_ids, strict=True):
                if (q, o) in pairs:
                    duplicates += 1
                pairs.add((q, o))
            loads[w], per_cell = _loads(setup, wt, res.checks, n_cells, params.costs)
            cell_loads.append(per_cell)
            rows = np.flatnonzero(routed.worker == w)
            cost = np.where(
                wt.kind == OBJ,
                params.costs.c_o + params.costs.c_m * res.checks,
                np.where(wt.kind == INS, params.costs.c_ins, params.costs.c_del),
            )
            service = busy[w] * cost / max(float(cost.sum()), 1e-12)
            if len(service):
                service[0] += pause[w]
                busy[w] += pause[w]
                pause[w] = 0.0
            c_tup.append(routed.tup[rows])
            c_w.append(np.full(len(rows), w, dtype=np.int64))
            c_srv.append(service)
        row = {"period": p, "first_tuple": lo, "tuples": hi - lo, "sigma_obs": _ratio(loads)}
        row.update({f"load_{w}": loads[w] for w in range(n_w)})
        row.update({f"busy_{w}": busy[w] for w in range(n_w)})
        row["migrated_cells"] = 0
        if params.enabled and hi < len(st.kind) and triggered(loads, params.sigma):
            hot, cold, need = load_to_move(loads)
            mine = cells_of(gt, hot)
            size = index[hot].postings_per_cell(n_cells)
            t0 = time.perf_counter()
            sel = method.kernel(
                cell_loads[hot][mine],
                _bytes(mine, size),
                need,
                **sel_params,
            )
            select_s = time.perf_counter() - t0
            cells = mine[sel.cells]
            if sel.status != "oom" and len(cells):
                t0 = time.perf_counter()
                q, c, k = index[hot].cell_postings(cells)
                index[hot].drop_cells(cells)
                index[cold].replay(insertions(q, c, k))
                gt = hand_over(gt, cells, hot, cold)
                moved_keys = move_hq(state, cells, gt.n_terms, hot, cold)
                move_s = time.perf_counter() - t0
                n_bytes = QUERY_BYTES * len(np.unique(q)) + POSTING_BYTES * len(q)
                migrations.append(
                    {
                        "period": p, "from": hot, "to": cold, "need": need,
                        "cells": len(cells), "moved_load": sel.load, "selected_cost": sel.cost,
                        "queries": len(np.unique(q)), "postings": len(q), "bytes": n_bytes,
                        "hq_keys": moved_keys, "select_s": select_s, "move_s": move_s,
                        "migration_s": select_s + move_s + n_bytes / params.bandwidth,
                        "status": sel.status,
                    }
                )  # fmt: skip
                row["migrated_cells"] = len(cells)
                pause[[hot, cold]] += migrations[-1]["migration_s"]  # both workers pause
            else:
                migrations.append({"period": p, "from": hot, "to": cold, "need": need,
                                   "cells": 0, "status": sel.status, "select_s": select_s})  # fmt: skip
        periods.append(row)
    order = np.argsort(np.concatenate(c_tup), kind="stable") if c_tup else np.zeros(0, int)
    return AdjustedRun(
        pairs,
        pd.DataFrame(periods),
        pd.DataFrame(migrations),
        duplicates,
        np.concatenate(c_tup)[order] if c_tup else np.zeros(0, np.int64),
        np.concatenate(c_w)[order] if c_w else np.zeros(0, np.int64),
        np.concatenate(c_srv)[order] if c_srv else np.zeros(0),
    )


def cells_of(gt: Gridt, w: int) -> np.ndarray:
    """The cells where worker ``w`` owns something in ``H_o``: space-only cells it owns and
    text cells whose term map gives it some terms."""
    own = gt.cell_owner
    has = own == w
    text = np.flatnonzero(own < 0)
    if len(text) and len(gt.tables):
        in_table = (gt.tables == w).any(axis=1)
        has[text] = in_table[-1 - own[text]]
    return np.flatnonzero(has)


def hand_over(gt: Gridt, cells: np.ndarray, hot: int, cold: int) -> Gridt:
    """``H_o`` after ``hot`` gives ``cells`` to ``cold``: a space-only cell changes owner; a
    text cell gets its own copy of its region's term map with ``hot``'s terms given to
    ``cold`` (copy on write: the region's other cells keep the shared map)."""
    own = gt.cell_owner
    space = cells[own[cells] >= 0]
    own[space] = cold
    text = cells[own[cells] < 0]
    if not len(text):
        return gt
    rows = gt.tables[-1 - own[text]].copy()
    rows[rows == hot] = cold
    own[text] = -1 - (len(gt.tables) + np.arange(len(text)))
    explicit = np.full(len(text), int(gt.explicit_terms.max(initial=0)))
    return replace(
        gt,
        tables=np.vstack([gt.tables, rows]).astype(gt.tables.dtype),
        explicit_terms=np.r_[gt.explicit_terms, explicit],
    )


def _bytes(cells: np.ndarray, postings: np.ndarray) -> np.ndarray:
    """Migration cost S(g) of each cell: its postings' bytes plus one query record per
    posting (a query spanning several migrated cells is shipped once; the additive S of
    Definition 4 counts it per cell)."""
    return (postings[cells] * (POSTING_BYTES + QUERY_BYTES)).astype(np.int64)


def _ratio(loads: np.ndarray) -> float:
    low = float(loads.min())
    return float(loads.max()) / low if low > 0 else float("inf")
