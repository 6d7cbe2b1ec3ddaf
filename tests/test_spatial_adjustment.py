"""PS2Stream Sect. V-A, local adjustment with real migration: the merged answer equals the
oracle's across every migration (kernel and reference GI2, several selections, deletions
around the migrations), H_q refcounts follow the cells, GI2's extraction and drop agree
between kernel and reference, and loads move from the hot worker to the cold one."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.spatial.adjust_workers import insertions
from routelab.spatial.adjustment import AdjustParams, move_hq, replay_adjusted
from routelab.spatial.engine import build_partition, make_gridt, prepare, run_pipeline
from routelab.spatial.gi2 import GI2Kernel, GI2Reference
from routelab.spatial.grid import BaseGrid
from routelab.spatial.gridt import DispatcherState, dispatch
from routelab.spatial.hybrid import HybridParams
from routelab.spatial.model import DEL, Stream
from routelab.spatial.oracle import oracle_pairs
from routelab.spatial.workload import random_workload

GRID = BaseGrid(-0.5, -0.5, 10.5, 10.5, 16)


def _drifting(seed: int) -> Stream:
    """A stream whose objects drift: the second half of the objects moves into one corner
    (the load of the workers owning it rises), and every query still alive at the end is
    deleted, so deletions follow queries wherever they migrated."""
    st = random_workload(seed, n_objects=1200, n_queries=300, mu=40)
    obj = st.objects
    half = np.arange(len(obj)) >= len(obj) // 2
    obj.lon[half] = 0.3 * obj.lon[half]
    obj.lat[half] = 0.3 * obj.lat[half]
    alive = np.setdiff1d(np.arange(len(st.queries)), st.ref[st.kind == DEL])
    return Stream(
        obj, st.queries, np.r_[st.kind, np.full(len(alive), DEL, np.int8)],
        np.r_[st.ref, alive], st.vocab,
    )  # fmt: skip


def _setup(seed: int, algorithm: str = "kd-tree"):
    st = _drifting(seed)
    n_o, n_q = len(st.objects), len(st.queries)
    setup = prepare(st, GRID, np.arange(n_o // 4), np.arange(n_q // 4), seed=seed)
    part, _ = build_partition(setup, algorithm, 4, hybrid=HybridParams(min_objects=20))
    return setup, part


@pytest.mark.parametrize("algorithm", ["frequency", "hybrid", "metric"])
def test_text_cells_hand_over_their_share(algorithm: str) -> None:
    """Text partitions (one term map for the space, or text-split regions): the hot worker
    hands over its terms of each migrated cell through a copy of the map; the answer stays
    the oracle's and the region's other cells keep the shared map."""
    setup, part = _setup(8, algorithm)
    gt = make_gridt(setup, part)
    run = replay_adjusted(setup, part, AdjustParams(period=150, sigma=1.05))
    moved = run.migrations[run.migrations["cells"] > 0]
    assert len(moved) >= 1
    assert run.pairs == oracle_pairs(setup.stream)
    if algorithm == "frequency":
        assert gt.n_text_cells == len(gt.cell_owner)  # every cell is a text cell here


def test_hand_over_by_hand() -> None:
    """Cells 0, 1 share map 0 (terms 0, 1 -> worker 1; term 2 -> worker 2); cell 2 is
    worker 1's alone. Worker 1 gives cells 1 and 2 to worker 3: cell 2 changes owner, cell
    1 gets a copy of the map with worker 1's terms given to 3, cell 0 keeps map 0."""
    from routelab.spatial.adjustment import cells_of, hand_over
    from routelab.spatial.gridt import Gridt

    gt = Gridt(2, 4, 3, np.array([-1, -1, 1, 2], np.int32), np.array([[1, 1, 2]], np.int16),
               np.array([3]))  # fmt: skip
    assert cells_of(gt, 1).tolist() == [0, 1, 2] and cells_of(gt, 2).tolist() == [0, 1, 3]
    new = hand_over(gt, np.array([1, 2]), 1, 3)
    assert new.cell_owner.tolist() == [-1, -2, 3, 2]
    assert new.tables.tolist() == [[1, 1, 2], [3, 3, 2]]
    assert [new.owner(1, t) for t in range(3)] == [3, 3, 2]
    assert [new.owner(0, t) for t in range(3)] == [1, 1, 2]
    assert cells_of(new, 1).tolist() == [0]


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("selector", ["GR", "DP", "SI", "RA"])
def test_the_answer_is_the_oracles_across_migrations(seed: int, selector: str) -> None:
    setup, part = _setup(seed)
    truth = oracle_pairs(setup.stream)
    run = replay_adjusted(setup, part, AdjustParams(period=150, sigma=1.05, selector=selector))
    moved = run.migrations[run.migrations["cells"] > 0] if len(run.migrations) else run.migrations
    assert len(moved) >= 2  # the drift triggers migrations
    assert (moved["postings"] > 0).any()  # state really moved
    assert run.pairs == truth
    assert run.pairs == run_pipeline(setup, part).pairs


def test_the_reference_index_migrates_the_same() -> None:
    setup, part = _setup(5)
    params = AdjustParams(period=150, sigma=1.05)
    kernel = replay_adjusted(setup, part, params, impl="kernel")
    reference = replay_adjusted(setup, part, params, impl="reference")
    assert kernel.pairs == reference.pairs == oracle_pairs(setup.stream)
    cols = ["period", "from", "to", "cells", "queries", "postings"]
    assert kernel.migrations[cols].equals(reference.migrations[cols])


def test_without_adjustment_nothing_moves_and_loads_are_the_pipelines() -> None:
    setup, part = _setup(3)
    run = replay_adjusted(setup, part, AdjustParams(period=150, enabled=False))
    assert run.migrations.empty and (run.periods["migrated_cells"] == 0).all()
    assert run.pairs == oracle_pairs(setup.stream)


def test_a_migration_moves_load_from_hot_to_cold() -> None:
    setup, part = _setup(4)
    run = replay_adjusted(setup, part, AdjustParams(period=150, sigma=1.05))
    moved = run.migrations[run.migrations["cells"] > 0]
    assert (moved["moved_load"] >= moved["need"] * (1 - 1e-9)).all()  # Phase II's constraint
    shipped = moved[moved["bytes"] > 0]
    assert len(shipped) and (shipped["migration_s"] > shipped["move_s"]).all()


def test_extraction_and_drop_agree_and_reinsert_restores() -> None:
    setup, part = _setup(6)
    st = setup.stream
    gt = make_gridt(setup, part)
    routed = dispatch(gt, DispatcherState(), st.kind, st.ref, setup.obj_cell, st.objects,
                      st.queries, setup.q_range, 0, len(st.kind) // 2)  # fmt: skip
    from routelab.spatial.engine import worker_tuples

    w = int(np.bincount(routed.worker).argmax())
    wt = worker_tuples(st, routed, w)
    kern = GI2Kernel(st.objects, st.queries, setup.obj_cell, len(st.vocab))
    ref = GI2Reference(st.objects, st.queries, setup.obj_cell)
    kern.replay(wt)
    ref.replay(wt)
    n_cells = GRID.g**2
    assert kern.postings_per_cell(n_cells).tolist() == ref.postings_per_cell(n_cells).tolist()
    cells = np.flatnonzero(kern.postings_per_cell(n_cells))[::2]
    got_k, got_r = kern.cell_postings(cells), ref.cell_postings(cells)
    assert all(a.tolist() == b.tolist() for a, b in zip(got_k, got_r, strict=True))
    before = kern.live_postings
    dropped = kern.drop_cells(cells)
    assert dropped == ref.drop_cells(cells) and kern.live_postings == before - dropped
    assert kern.postings_per_cell(n_cells)[cells].sum() == 0
    kern.replay(insertions(*got_k))  # put them back: the index holds what it held
    assert kern.cell_postings(cells)[0].tolist() == got_k[0].tolist()


def test_move_hq_counts_what_hand_over_moves_and_hq_follows_the_gridt() -> None:
    """A migration mid-stream: ``move_hq`` counts the live (cell, key) entries of ``w_from``
    in the cell (by hand from the table and the gridt); after :func:`hand_over` the same
    state dispatches on, the moved keys now ``w_to``'s, and every deletion finds its count
    (H_q back to zero once every query is deleted)."""
    from routelab.spatial import int_table as tb
    from routelab.spatial.adjustment import hand_over
    from routelab.spatial.gridt import _owner  # the gridt's H_o lookup

    setup, part = _setup(7)
    st = setup.stream
    alive = np.setdiff1d(np.arange(len(st.queries)), st.ref[st.kind == DEL])
    st = Stream(st.objects, st.queries, np.r_[st.kind, np.full(len(alive), DEL, np.int8)],
                np.r_[st.ref, alive], st.vocab)  # fmt: skip
    gt = make_gridt(setup, part)
    state = DispatcherState()
    half = len(st.kind) // 2
    args = (setup.obj_cell, st.objects, st.queries, setup.q_range)
    dispatch(gt, state, st.kind, st.ref, *args, 0, half)
    n_terms = gt.n_terms
    live = tb.to_dict(state.ref)
    c = next(iter(live)) // n_terms
    w_from = int(_owner(gt.cell_owner[c], gt.tables, next(iter(live)) % n_terms))
    w_to = (w_from + 1) % gt.n_workers
    by_hand = sum(1 for k in live if k // n_terms == c
                  and _owner(gt.cell_owner[c], gt.tables, k % n_terms) == w_from)  # fmt: skip
    assert move_hq(state, gt, np.array([c]), w_from) == by_hand >= 1
    gt2 = hand_over(gt, np.array([c]), w_from, w_to)
    moved = [k % n_terms for k in live if k // n_terms == c
             and _owner(gt.cell_owner[c], gt.tables, k % n_terms) == w_from]  # fmt: skip
    assert all(_owner(gt2.cell_owner[c], gt2.tables, t) == w_to for t in moved)
    assert tb.to_dict(state.ref) == live  # the counts stay; their worker is gt2's
    r = dispatch(gt2, state, st.kind, st.ref, *args, half, len(st.kind))
    assert r.hq_final == 0 and tb.to_dict(state.ref) == {}


def test_q3_regions_flip_between_q1_and_q2() -> None:
    """Fig. 16's workload: every ``q3_flip_every`` queries, 10 of the 100 regions switch
    between Q1 and Q2 (seeded), so a region's queries change kind between epochs."""
    import pandas as pd

    from routelab.spatial.lab.workload import WorkloadParams, make_queries_frame
    from routelab.spatial.places import BOXES

    lo_x, lo_y, hi_x, hi_y = BOXES["US"]
    rng = np.random.default_rng(0)
    objects = pd.DataFrame({"lon": rng.uniform(lo_x, hi_x, 2000), "lat": rng.uniform(lo_y, hi_y, 2000),
                            "words": [["a", "b", f"w{i % 50}"] for i in range(2000)]})  # fmt: skip
    p = WorkloadParams(query_set="Q3", q3_flip_every=500, seed=1)
    q = make_queries_frame(objects, 2000, p)
    again = make_queries_frame(objects, 2000, p)
    assert q["set"].tolist() == again["set"].tolist()
    static = make_queries_frame(objects, 2000, WorkloadParams(query_set="Q3", seed=1))
    first = slice(0, 500)
    assert q["set"][first].tolist() == static["set"][first].tolist()  # epoch 0: unflipped
    assert q["set"][500:].tolist() != static["set"][500:].tolist()  # later epochs differ


def test_time_selections_repeats_fast_selectors_and_reports_their_choice():
    """Each selector is timed on the same snapshot: a fast one repeats (up to
    ``time_repeats`` within ``time_budget_s``), its cells and cost are the kernel's own
    answer; with no budget every selector runs twice (one reading could be a stall)."""
    from dataclasses import replace

    import numpy as np

    from routelab.spatial.adjustment import AdjustParams, time_selections
    from routelab.spatial.migration import SELECTORS

    snap = (np.array([4.0, 3.0, 2.0, 1.0]), np.array([4, 2, 3, 1]), 5.0)
    names = ("DP", "GR", "SI", "RA")
    params = AdjustParams(period=10, time_selectors=names, time_repeats=7, time_budget_s=10.0)
    rows = time_selections(params, snap, period=3, n_cells=4)
    assert [r["selector"] for r in rows] == list(names)
    for r in rows:
        direct = SELECTORS.lookup(r["selector"]).kernel(*snap)
        assert r["repeats"] == 7 and r["period"] == 3 and r["cells_offered"] == 4
        assert r["cells"] == len(direct.cells) and r["cost"] == float(direct.cost)
        assert r["select_s"] > 0
    once = time_selections(replace(params, time_budget_s=0.0), snap, 0, 4)
    assert all(r["repeats"] == 2 for r in once)


def _busy(seconds: float) -> None:
    """Work (not wait) ``seconds`` by the clock of timed regions, whichever it reads."""
    from routelab.timing import now

    end = now() + seconds
    while now() < end:
        pass


def test_time_selections_interleaves_the_repeats(monkeypatch):
    """Round by round over the selectors still timing: a slow stretch of the machine slows
    every selector's repeat of that round alike. A selector past its budget at its fastest
    of two runs (DP's tens of ms) stops; the fast ones go on alternating to
    ``time_repeats``."""
    from types import SimpleNamespace

    import numpy as np

    from routelab.spatial import adjustment as adj

    calls: list[str] = []

    def entry(name, pause):
        def kernel(*_):
            calls.append(name)
            if pause:
                _busy(pause)
            return SimpleNamespace(cells=np.arange(2), cost=1.0, status="ok")

        return SimpleNamespace(kernel=kernel, check_params=lambda kw: kw)

    table = {"SLOW": entry("SLOW", 0.02), "A": entry("A", 0), "B": entry("B", 0)}
    monkeypatch.setattr(adj, "SELECTORS", SimpleNamespace(lookup=table.__getitem__))
    params = SimpleNamespace(time_selectors=("SLOW", "A", "B"), time_params={},
                             time_repeats=4, time_budget_s=0.01)  # fmt: skip
    rows = adj.time_selections(params, (None, None, 0.0), 0, 2)
    assert calls == ["SLOW", "A", "B", "SLOW", "A", "B", "A", "B", "A", "B"]
    assert [r["repeats"] for r in rows] == [2, 4, 4]


def test_time_selections_a_stalled_repeat_does_not_end_the_timing(monkeypatch):
    """A selector whose first repeat stalls past the budget (a preemption of the shared
    machine) goes on to ``time_repeats``: the budget is charged at its fastest reading, and
    the median is the undisturbed time, not the stall. One slow on every repeat stops."""
    from types import SimpleNamespace

    import numpy as np

    from routelab.spatial import adjustment as adj

    seen = {"STALL": 0, "SLOW": 0}

    def entry(name, first, rest):
        def kernel(*_):
            seen[name] += 1
            _busy(first if seen[name] == 1 else rest)
            return SimpleNamespace(cells=np.arange(1), cost=1.0, status="ok")

        return SimpleNamespace(kernel=kernel, check_params=lambda kw: kw)

    table = {"STALL": entry("STALL", 0.03, 0.0), "SLOW": entry("SLOW", 0.03, 0.03)}
    monkeypatch.setattr(adj, "SELECTORS", SimpleNamespace(lookup=table.__getitem__))
    params = SimpleNamespace(time_selectors=("STALL", "SLOW"), time_params={},
                             time_repeats=5, time_budget_s=0.01)  # fmt: skip
    rows = {r["selector"]: r for r in adj.time_selections(params, (None, None, 0.0), 0, 1)}
    assert rows["STALL"]["repeats"] == 5 and rows["STALL"]["select_s"] < 0.01
    assert rows["SLOW"]["repeats"] == 2 and rows["SLOW"]["select_s"] >= 0.03
