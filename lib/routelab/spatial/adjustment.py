"""PS2Stream's load adjustment (Sect. V) in a period-by-period replay, with migration
that really moves the queries' state.

The stream is routed and replayed in periods of ``period`` tuples (the dispatchers' state
and the workers' GI2 state kept across periods; the workers run in this process,
:mod:`routelab.spatial.adjust_workers`, or as Spark tasks,
:class:`routelab.spatial.dataflow.SparkWorkers`). After each period every worker's
load is the cost model's (Definition 1 with the GI2 reading of the match count: ``c_m`` x
the candidate checks its objects made + ``c_o`` x its objects + ``c_ins`` x its query
insertions + ``c_del`` x its deletions), and a cell's load on a worker is the same sum
over the tuples of that cell (Definition 3's reading; a query insertion counts in every
cell where it created postings). These per-worker and per-cell loads are the statistics
the workers report each period (the ``periods`` table keeps them per worker).

**Local adjustment** (Sect. V-A), when max load / min load exceeds ``sigma``: Phase I
(:mod:`routelab.spatial.phase_one`: split a hot cell by text or merge it with its
sibling on ``w_min`` when that lowers the total load; ``k_hot`` cells examined), then, if
the estimated loads still violate ``sigma``, Phase II: the hottest worker hands the
coolest cells whose load reaches L_delta = (L_max - L_min) / 2 at the least migration
cost (the Minimum Cost Migration problem, :mod:`routelab.spatial.migration`: DP, GR, SI
or RA). **Global adjustment** (Sect. V-B, :mod:`routelab.spatial.global_adjust`) every
``global_params.every`` tuples.

**Migration** of cells C' (or of some terms of a cell) from w_max to w_min, at the period
boundary: w_max extracts the live postings of C' from its GI2 state (the queries' state:
query, cell, registering key) and drops them; w_min inserts them (one INS per query with
exactly those postings); every dispatcher's ``H_o`` gives C' to w_min (:func:`hand_over`)
and its ``H_q`` moves the reference counts of C' from w_max to w_min (:func:`move_hq`), so
later objects of C' go to w_min and later deletions of those queries reach it. The
migrated bytes are ``QUERY_BYTES`` per moved query plus ``POSTING_BYTES`` per posting (the
engine's memory model); the migration time is the measured extraction + drop + insertion
plus the bytes over ``bandwidth`` (the network the paper's workers would cross); both
workers pause for it. The merged answer equals the oracle's across every migration
(tested on drifting streams with deletions around the migrations).

Our readings (the paper's formulas for Sect. V were lost): the unit of migration is a cell
of the base grid. A space-only cell (one owner in ``H_o``) changes owner; from a text cell
(a term map shared by its region) the hot worker hands over its share, the terms the map
gives it, through a copy of the map for that cell (a copy whose terms all go to one worker
becomes a space-only cell again: a merge). One (w_max, w_min) pair per period.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numba
import numpy as np
import pandas as pd

from routelab.readings import pick
from routelab.spatial import phase_one
from routelab.spatial.adjust_workers import BACKENDS, LocalWorkers, Workers
from routelab.spatial.cost import CostParams
from routelab.spatial.dataflow import SparkWorkers
from routelab.spatial.engine import (
    FIXED_REPEATS,
    POSTING_BYTES,
    QUERY_BYTES,
    Setup,
    fixed_cost,
    make_gridt,
    worker_tuples,
)
from routelab.spatial.gi2 import WorkerTuples, make_index
from routelab.spatial.global_adjust import GlobalParams, Strategies
from routelab.spatial.gridt import DispatcherState, Gridt
from routelab.spatial.kdt import Partition
from routelab.spatial.migration import SELECTORS, load_to_move, triggered
from routelab.spatial.model import DEL, INS, OBJ
from routelab.spatial.phase_one import cells_of
from routelab.timing import now as clock
from routelab.uniques import unique


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
    #: Phase I: the hot worker's most loaded cells examined (0: no Phase I, the default under
    #: ``ROUTELAB_READING=phase1``: Phase II alone)
    k_hot: int = field(default_factory=lambda: pick("phase1", 5, 0))
    global_params: GlobalParams = field(default_factory=GlobalParams)
    #: also measure every worker's fixed cost per period (``fixed_<w>`` in the periods:
    #: the same replay against an empty index, :func:`routelab.spatial.engine.fixed_cost`)
    measure_fixed: bool = False
    #: at every Phase II trigger, also time these selectors on the same snapshot of the hot
    #: worker's cells (Sect. VI-D: "the four algorithms on the same worker (having the same
    #: set of cells)"); rows in ``AdjustedRun.selections``
    time_selectors: tuple[str, ...] = ()
    #: ``selector_params`` per timed selector (e.g. DP's table bound)
    time_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: a timed selector runs at least twice on its snapshot, then again until it ran
    #: ``time_repeats`` times or its repeats at its fastest reading would pass
    #: ``time_budget_s``; its time is the median (GR, SI and RA take microseconds: one
    #: reading of the clock is mostly timer noise; DP, at tens of ms, runs twice). The
    #: budget is charged at the fastest reading, not the sum: a stall of the shared machine
    #: (a preemption of several ms while two Spark tasks share 2 cores) in one repeat would
    #: otherwise end a microsecond selector's timing with the stall as its median (seen: SI
    #: at 2.6 ms over 2 repeats against 40 µs, a seed's RA / SI at 0.71x)
    time_repeats: int = 25
    time_budget_s: float = 0.005

    def __post_init__(self) -> None:
        if self.period < 1:
            raise ValueError(f"period must be >= 1 tuple, got {self.period}")
        if self.k_hot < 0:
            raise ValueError(f"k_hot must be >= 0, got {self.k_hot}")
        SELECTORS.lookup(self.selector)
        for name in self.time_selectors:
            SELECTORS.lookup(name)


@numba.njit(cache=True)
def _hq_keys_of(keys, mark, term_sel, n_terms, cell_owner, tables, w):  # type: ignore[no-untyped-def]
    n = 0
    for j in range(len(keys)):
        k = keys[j]
        if k < 0:
            continue
        c = k // n_terms
        t = k % n_terms
        if c < mark.shape[0] and mark[c] and term_sel[t]:
            own = cell_owner[c]
            if (own if own >= 0 else tables[-1 - own, t]) == w:
                n += 1
    return n


def move_hq(
    state: DispatcherState, gt: Gridt, cells: np.ndarray, w_from: int,
    terms: np.ndarray | None = None,
) -> int:  # fmt: skip
    """``H_q``'s part of a migration of ``cells`` (under the terms ``terms`` selects; all by
    default) from ``w_from``, read on the gridt ``gt`` before :func:`hand_over`: the live
    (cell, term) entries that change worker. Nothing else moves: the dispatcher keeps one
    reference count per (cell, term) and its worker is the gridt's
    (:class:`~routelab.spatial.gridt.DispatcherState`), which :func:`hand_over` changes for
    exactly these entries; a later deletion then finds its count under the new worker."""
    mark = np.zeros(int(np.max(cells, initial=-1)) + 1, dtype=np.bool_)
    mark[np.asarray(cells, dtype=np.int64)] = True
    n_terms = gt.n_terms
    sel = np.ones(max(1, n_terms), dtype=np.bool_) if terms is None else np.asarray(terms, bool)
    return int(_hq_keys_of(state.ref[0], mark, sel, n_terms, gt.cell_owner, gt.tables, w_from))


@dataclass
class AdjustedRun:
    """Merged pairs, one row per period (loads, busy seconds, trigger, migration) and per
    migration, and every routed copy (tuple, worker) with its service seconds: the
    worker's busy time in the period shared by the copies' costs, a migration's pause added
    to the first copy each of its two workers serves after it (the latency model's input,
    :func:`routelab.grouping.queueing.multicopy_latency`); ``migrations.phase`` is I-split,
    I-merge or II. ``global_events``: one row per global check (keep / switch) and per
    drain of the old strategy; ``final_gridt`` the dispatchers' ``H_o`` at the end."""

    #: the merged answer as sorted unique keys ``query index * n_objects + object index``
    pair_keys: np.ndarray
    periods: pd.DataFrame
    migrations: pd.DataFrame
    duplicates: int
    copy_tup: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    copy_worker: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    copy_service: np.ndarray = field(default_factory=lambda: np.zeros(0))
    global_events: pd.DataFrame = field(default_factory=pd.DataFrame)
    final_gridt: Gridt | None = None
    #: the selectors timed on each Phase II snapshot (``AdjustParams.time_selectors``)
    selections: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: the stream's query and object ids (``pairs`` maps the keys through them)
    query_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    object_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def pairs(self) -> set[tuple[int, int]]:
        """The merged answer as ``(query id, object id)`` pairs (built from
        :attr:`pair_keys`; compare runs by their keys, which is cheaper)."""
        n_o = max(len(self.object_ids), 1)
        q, o = np.divmod(self.pair_keys, n_o)
        return set(zip(self.query_ids[q].tolist(), self.object_ids[o].tolist(), strict=True))


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
    setup: Setup,
    partition: Partition,
    params: AdjustParams,
    impl: str = "kernel",
    backend: str = "local",
    spark=None,  # noqa: ANN001
) -> AdjustedRun:
    """The stream through the dispatchers and the workers' GI2 state, period by period,
    with local adjustment after each period (``params.enabled``) and global adjustment
    every ``params.global_params.every`` tuples (module docstring). ``backend``: "local"
    (the workers' indexes in this process) or "spark" (one Spark task per worker and
    period, :class:`~routelab.spatial.dataflow.SparkWorkers`)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    st = setup.stream
    gt0 = make_gridt(setup, partition)
    strat = Strategies(replace(gt0, cell_owner=gt0.cell_owner.copy()))
    n_cells = len(gt0.cell_owner)
    n_w = partition.n_workers
    base = (st.objects, st.queries, setup.obj_cell, gt0.n_terms, n_w)
    workers: Workers = (
        LocalWorkers(*base, impl=impl)
        if backend == "local"
        else SparkWorkers(*base, n_cells=n_cells, impl=impl, spark=spark)
    )
    method = SELECTORS.lookup(params.selector)
    sel_params = method.check_params(params.selector_params)
    gp = params.global_params
    keys: list[np.ndarray] = []  # per worker and period: query index * n_o + object index
    n_o = len(st.objects)
    periods, migrations, global_rows = [], [], []
    c_tup, c_w, c_srv = [], [], []
    pause = np.zeros(n_w)  # seconds each worker still owes to a migration
    empty = None  # an index holding no query, for the fixed cost (params.measure_fixed)
    selections: list[dict] = []
    for p, lo in enumerate(range(0, len(st.kind), params.period)):
        hi = min(len(st.kind), lo + params.period)
        routed = strat.route(setup, lo, hi)
        wts = [worker_tuples(st, routed, w) for w in range(n_w)]
        ran = workers.run(wts)
        loads = np.zeros(n_w)
        busy = np.zeros(n_w)
        cell_loads = []
        for w, (wt, (res, secs)) in enumerate(zip(wts, ran, strict=True)):
            busy[w] = secs
            keys.append(np.asarray(res.match_query, np.int64) * n_o + res.match_object)
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
        row.update({f"msgs_{w}": len(wts[w]) for w in range(n_w)})
        if params.measure_fixed:
            if empty is None:
                empty = make_index(impl, st.objects, st.queries, setup.obj_cell, gt0.n_terms)
            row.update({f"fixed_{w}": fixed_cost(setup, wts[w], impl=impl, repeats=FIXED_REPEATS,
                                                    empty=empty)
                        for w in range(n_w)})  # fmt: skip
        row["migrated_cells"] = 0
        row["dual"] = strat.dual
        more = hi < len(st.kind)
        if params.enabled and more and not strat.dual and triggered(loads, params.sigma):
            hot, cold, _ = load_to_move(loads)
            objs = st.ref[routed.tup[st.kind[routed.tup] == OBJ]]
            actions, est = (
                phase_one.plan(setup, strat.gt, workers, hot, cold, loads, cell_loads,
                               unique(objs), params.k_hot, params.costs)
                if params.k_hot else ([], loads)
            )  # fmt: skip
            touched = []
            for act in actions:
                cells = np.array([act.cell])
                t0 = clock()
                info = migrate(workers, strat, cells, hot, cold, act.terms)
                move_s = clock() - t0
                migrations.append(
                    {"period": p, "phase": f"I-{act.kind}", "from": hot, "to": cold, "cell": act.cell,
                     "need": np.nan, "cells": 1, "moved_load": act.moved_load,
                     "load_before": act.load_before, "load_after": act.load_after,
                     **info, "select_s": 0.0, "move_s": move_s,
                     "migration_s": move_s + info["bytes"] / params.bandwidth, "status": "ok"}
                )  # fmt: skip
                pause[[hot, cold]] += migrations[-1]["migration_s"]
                touched.append(act.cell)
            row["migrated_cells"] += len(actions)
            if triggered(est, params.sigma):
                hot, cold, need = load_to_move(est)
                mine = np.setdiff1d(cells_of(strat.gt, hot), touched)
                size = workers.postings_per_cell(hot, n_cells)
                snap = (cell_loads[hot][mine], _bytes(mine, size), need)
                t0 = clock()
                sel = method.kernel(*snap, **sel_params)
                select_s = clock() - t0
                selections += time_selections(params, snap, p, len(mine))
                cells = mine[sel.cells]
                if sel.status != "oom" and len(cells):
                    t0 = clock()
                    info = migrate(workers, strat, cells, hot, cold)
                    move_s = clock() - t0
                    migrations.append(
                        {"period": p, "phase": "II", "from": hot, "to": cold, "need": need,
                         "cells": len(cells), "moved_load": sel.load, "selected_cost": sel.cost,
                         **info, "select_s": select_s, "move_s": move_s,
                         "migration_s": select_s + move_s + info["bytes"] / params.bandwidth,
                         "status": sel.status}
                    )  # fmt: skip
                    row["migrated_cells"] += len(cells)
                    pause[[hot, cold]] += migrations[-1]["migration_s"]  # both workers pause
                else:
                    migrations.append({"period": p, "phase": "II", "from": hot, "to": cold,
                                       "need": need, "cells": 0, "status": sel.status,
                                       "select_s": select_s})  # fmt: skip
        if gp.every and more:
            if strat.dual and strat.drained(setup, hi, gp):
                global_rows.append({"period": p, **strat.finish(setup, workers, hi)})
                pause += global_rows[-1]["seconds"] + global_rows[-1]["bytes"] / params.bandwidth
            elif not strat.dual and hi // gp.every > lo // gp.every:
                global_rows.append(
                    {"period": p, **strat.consider(setup, gp, params.costs, hi, n_w)}
                )
        periods.append(row)
    if isinstance(workers, SparkWorkers):
        workers.close()
    order = np.argsort(np.concatenate(c_tup), kind="stable") if c_tup else np.zeros(0, int)
    every = np.concatenate(keys) if keys else np.zeros(0, np.int64)
    pair_keys = unique(every)
    return AdjustedRun(
        pair_keys,
        pd.DataFrame(periods),
        pd.DataFrame(migrations),
        len(every) - len(pair_keys),
        np.concatenate(c_tup)[order] if c_tup else np.zeros(0, np.int64),
        np.concatenate(c_w)[order] if c_w else np.zeros(0, np.int64),
        np.concatenate(c_srv)[order] if c_srv else np.zeros(0),
        pd.DataFrame(global_rows),
        strat.gt,
        pd.DataFrame(selections),
        st.queries.ids,
        st.objects.ids,
    )


def time_selections(
    params: AdjustParams, snap: tuple[np.ndarray, np.ndarray, float], period: int, n_cells: int
) -> list[dict]:
    """Every selector of ``params.time_selectors`` timed on one snapshot ``(loads, sizes,
    need)`` of the hot worker's cells: one row each (the median seconds over its repeats
    -- ``params.time_repeats`` / ``time_budget_s`` --, cells chosen, their cost, status;
    DP's "oom" where its table would exceed its bound).

    The repeats are interleaved, one round over the selectors still timing at a time: GR,
    SI and RA take microseconds, so a selector's 25 back-to-back repeats span a fraction of
    a millisecond, and a slow stretch of a shared machine (another process on the core,
    the cache) would slow one selector's repeats and not the next one's; round by round it
    slows them alike, and their ratio, the claims' measure, keeps. A selector runs at least
    twice and stops once its repeats at its fastest reading would pass the budget
    (:class:`AdjustParams`), so one stalled repeat neither ends its timing nor becomes its
    median."""
    chosen = [(n, SELECTORS.lookup(n).kernel,
               SELECTORS.lookup(n).check_params(params.time_params.get(n, {})))
              for n in params.time_selectors]  # fmt: skip
    times: dict[str, list[float]] = {n: [] for n, _, _ in chosen}
    sels: dict[str, Any] = {}
    active = list(chosen)
    while active:
        for name, kernel, kw in active:
            t0 = clock()
            sels[name] = kernel(*snap, **kw)
            times[name].append(clock() - t0)
        active = [(n, k, kw) for n, k, kw in active
                  if len(times[n]) < params.time_repeats
                  and (len(times[n]) < 2
                       or min(times[n]) * len(times[n]) < params.time_budget_s)]  # fmt: skip
    return [{"period": period, "selector": n, "cells_offered": n_cells,
             "select_s": float(np.median(times[n])), "repeats": len(times[n]),
             "cells": len(sels[n].cells), "cost": float(sels[n].cost),
             "status": sels[n].status} for n, _, _ in chosen]  # fmt: skip


def migrate(
    workers: Workers, strat: Strategies, cells: np.ndarray, hot: int, cold: int,
    terms: np.ndarray | None = None,
) -> dict:  # fmt: skip
    """Move ``cells`` (under ``terms``, all by default) from ``hot`` to ``cold``: the
    postings, ``H_o`` and ``H_q`` (module docstring); the size moved."""
    q, c, k = workers.take(hot, cells, terms)
    workers.give(cold, (q, c, k))
    moved_keys = move_hq(strat.state, strat.gt, cells, hot, terms)
    strat.gt = hand_over(strat.gt, cells, hot, cold, terms)
    n_q = len(unique(q))
    return {
        "queries": n_q, "postings": len(q), "bytes": QUERY_BYTES * n_q + POSTING_BYTES * len(q),
        "hq_keys": moved_keys,
    }  # fmt: skip


def hand_over(
    gt: Gridt, cells: np.ndarray, hot: int, cold: int, terms: np.ndarray | None = None
) -> Gridt:
    """``H_o`` after ``hot`` gives ``cells`` to ``cold`` (only the terms ``terms`` selects,
    if given). A space-only cell changes owner, or, with ``terms``, is split: its own term
    map sends those terms to ``cold`` and the rest to ``hot``. A text cell gets its own copy
    of its region's term map with ``hot``'s (selected) terms given to ``cold`` (copy on
    write: the region's other cells keep the shared map); a map left with one worker
    becomes a space-only cell of that worker (a merge)."""
    own = gt.cell_owner
    sel = np.ones(gt.n_terms, dtype=bool) if terms is None else np.asarray(terms, dtype=bool)
    space = cells[own[cells] >= 0]
    text = cells[own[cells] < 0]
    if terms is None:
        own[space] = cold
        space = space[:0]
    rows = np.vstack(
        [np.where(sel, cold, hot)[None, :].repeat(len(space), axis=0).astype(gt.tables.dtype),
         gt.tables[-1 - own[text]]]
    )  # fmt: skip
    explicit = np.r_[
        np.full(len(space), min(int(sel.sum()), gt.n_terms - int(sel.sum()))),
        gt.explicit_terms[-1 - own[text]] if len(text) else np.zeros(0, np.int64),
    ]
    rows[len(space) :][(rows[len(space) :] == hot) & sel] = cold
    target = np.r_[space, text].astype(np.int64)
    if not len(target):
        return gt
    one = (rows == rows[:, :1]).all(axis=1)
    own[target[one]] = rows[one, 0]
    rest = ~one
    own[target[rest]] = -1 - (len(gt.tables) + np.arange(int(rest.sum())))
    return replace(
        gt,
        tables=np.vstack([gt.tables, rows[rest]]).astype(gt.tables.dtype),
        explicit_terms=np.r_[gt.explicit_terms, explicit[rest]].astype(np.int64),
    )


def _bytes(cells: np.ndarray, postings: np.ndarray) -> np.ndarray:
    """Migration cost S(g) of each cell: its postings' bytes plus one query record per
    posting (a query spanning several migrated cells is shipped once; the additive S of
    Definition 4 counts it per cell)."""
    return (postings[cells] * (POSTING_BYTES + QUERY_BYTES)).astype(np.int64)


def _ratio(loads: np.ndarray) -> float:
    low = float(loads.min())
    return float(loads.max()) / low if low > 0 else float("inf")
