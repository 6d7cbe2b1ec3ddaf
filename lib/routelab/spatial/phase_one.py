"""Phase I of PS2Stream's local load adjustment (Sect. V-A): split or merge hot cells by
text when that lowers the total load.

For each of the ``k_hot`` most loaded cells of the hot worker ``w_max``:

* a cell **not** text-partitioned (one owner) is split by text into two pieces (the
  partitioner's TEXT_SPLIT, :func:`~routelab.spatial.baselines.node_text_split`: the
  cell's terms by load, LPT into two groups); if the two pieces' loads sum to less than
  the cell's and handing the smaller piece (by stored postings, the migration size) to
  ``w_min`` leaves ``L(w_min) <= L(w_max)``, the cell is split and that piece migrates;
* a cell **already** text-partitioned whose term map also gives terms to ``w_min`` (a
  sibling piece of the same region there) is merged into ``w_min``'s piece if one piece
  costs less than the two and ``L(w_min) <= L(w_max)`` after the move.

The loads are Definition 1 (the partitioner's ``unit_load``, :class:`SampleStats`) on the
period's own statistics: the objects of those cells routed in the period and the live
queries stored there by ``w_max`` and ``w_min``. Moved load is scaled to the period's
measured cell load (the same unit as the trigger's). Under the ``gi2_checks`` reading a
split never lowers the total (the two pieces check the same postings and an object with
terms in both pieces is copied twice), so splits fire only under the pairs readings; a
merge saves the copies of objects that reached both pieces and fires under every
reading. The run's migration table counts both, per cost model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from routelab.spatial.adjust_workers import Workers
from routelab.spatial.baselines import node_text_split
from routelab.spatial.cost import CostParams, SampleStats, Unit
from routelab.spatial.engine import Setup
from routelab.spatial.gridt import Gridt
from routelab.spatial.kdt import Node
from routelab.uniques import unique


@dataclass
class Action:
    """One Phase I step: ``kind`` "split" (``terms``: the piece handed to ``w_min``) or
    "merge" (``terms`` None: ``w_max``'s whole share of the cell)."""

    kind: str
    cell: int
    terms: np.ndarray | None
    load_before: float  # Definition 1 on the period's statistics: the cell (or two pieces)
    load_after: float  # the two pieces (split) or the merged piece
    moved_load: float  # measured load leaving w_max


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


def plan(
    setup: Setup,
    gt: Gridt,
    workers: Workers,
    hot: int,
    cold: int,
    loads: np.ndarray,
    cell_loads: list[np.ndarray],
    period_objects: np.ndarray,
    k_hot: int,
    costs: CostParams,
) -> tuple[list[Action], np.ndarray]:
    """The Phase I actions for ``hot`` -> ``cold`` (module docstring) and the loads they
    leave (estimated); nothing is changed here."""
    mine = cells_of(gt, hot)
    top = mine[np.argsort(-cell_loads[hot][mine], kind="stable")[:k_hot]]
    top = top[cell_loads[hot][top] > 0]
    est = loads.astype(np.float64).copy()
    if not len(top):
        return [], est
    st = setup.stream
    objs = period_objects[np.isin(setup.obj_cell[period_objects], top)]
    qs = unique(np.concatenate([workers.postings(w, top)[0] for w in (hot, cold)]))
    stats = SampleStats(
        setup.grid, st.objects.take(objs), st.queries.take(qs), len(st.vocab), costs
    )
    g = gt.g
    actions = []
    for cell in top.tolist():
        cy, cx = divmod(cell, g)
        own = int(gt.cell_owner[cell])
        big = float(cell_loads[hot][cell])
        if own >= 0:
            node = Node(cx, cy, cx + 1, cy + 1)
            whole = stats.load([node.unit])
            if whole <= 0:
                continue
            pieces = node_text_split(stats, node, 2, setup.term_hash)
            parts = [stats.load([p.unit]) for p in pieces]
            if sum(parts) >= whole:
                continue
            keys = workers.postings(hot, np.array([cell]))[2]
            sizes = [int(p.terms[keys].sum()) for p in pieces]
            small = int(np.argmin(sizes))
            give, keep = big * parts[small] / whole, big * parts[1 - small] / whole
            if est[cold] + give > est[hot] - big + keep:
                continue
            actions.append(
                Action("split", cell, pieces[small].terms, whole, sum(parts), big - keep)
            )
            est[hot] += keep - big
            est[cold] += give
        else:
            row = gt.tables[-1 - own]
            th, tc = row == hot, row == cold
            if not tc.any():
                continue
            lh, lc, lu = (stats.load([Unit(cx, cy, cx + 1, cy + 1, m)]) for m in (th, tc, th | tc))
            if lh + lc <= 0 or lu >= lh + lc:
                continue
            small = float(cell_loads[cold][cell])
            merged = (big + small) * lu / (lh + lc)
            if est[cold] - small + merged > est[hot] - big:
                continue
            actions.append(Action("merge", cell, None, lh + lc, lu, big))
            est[hot] -= big
            est[cold] += merged - small
    return actions, est
