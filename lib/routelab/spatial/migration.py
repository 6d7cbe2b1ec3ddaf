"""The Minimum Cost Migration problem of PS2Stream's local load adjustment (Sect. V-A,
Definition 4) and the four ways the paper selects the cells to move (Sect. VI-D).

A hot worker w_max must hand cells to the coolest w_min. Cell g carries a load L(g) (the
cost model's load, Definition 3) and a migration cost S(g) (the bytes of the queries it
stores). Choose C' among w_max's cells minimising sum_{g in C'} S(g) subject to
sum_{g in C'} L(g) >= L_delta (the load to move; our reading of the lost formula,
``(L_max - L_min) / 2``, is the caller's). The problem is NP-hard: Partition reduces to it
with L(g) = S(g) = a_g and L_delta = sum a / 2.

=======  ==========================================================================
``DP``   exact: a 0/1 knapsack over the migration cost, best[s] = the most load movable
         with cost <= s, capacity the greedy's cost (an upper bound on the optimum); the
         answer is the least s with best[s] >= L_delta, the cells by backtracking. Time
         and memory O(|C| S_ub) (one byte per cell and cost): beyond ``max_table`` cells x
         costs it reports ``oom`` (the paper's DP "runs out of memory", Fig. 13)
``GR``   the paper's greedy: cells by S(g)/L(g) ascending; a cell that keeps the running
         load below L_delta is marked GS and kept; one that reaches it is marked GL and
         makes a candidate (the GS cells before it plus it); the cheapest candidate wins;
         the scan stops once the GS cells alone cost as much as the best candidate
``SI``   the paper's baseline: cells by size descending (``key="load"``: by load
         descending) until the load reaches L_delta
``RA``   cells in a seeded random order until the load reaches L_delta
=======  ==========================================================================

Cells with L(g) = 0 never help and are dropped first; if all the cells together carry less
than L_delta, every cell is selected (status ``all``). Sizes are integers (bytes, or a
coarser ``unit``: DP is exact on ``ceil(S / unit)``). :func:`select_brute_force` is the
tests' oracle (each entry's ``oracle`` in :data:`SELECTORS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numba as nb
import numpy as np

from routelab.methods import Method, MethodRegistry
from routelab.timing import now as clock


@dataclass(frozen=True)
class Selection:
    """The cells chosen (indexes into the candidates), their load and migration cost, the
    selection time and a status: ``ok``, ``all`` (not enough load: everything) or ``oom``
    (DP's table would exceed its memory bound: nothing chosen)."""

    cells: np.ndarray
    load: float
    cost: float
    seconds: float
    status: str = "ok"


def _inputs(load: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    load = np.asarray(load, dtype=np.float64)
    size = np.asarray(size, dtype=np.int64)
    if load.shape != size.shape or load.ndim != 1:
        raise ValueError("load and size must be 1-d arrays of the same length")
    if np.any(load < 0) or np.any(size < 0):
        raise ValueError("loads and sizes must be >= 0")
    return load, size


def _result(cells: list[int] | np.ndarray, load: np.ndarray, size: np.ndarray, t0: float,
            status: str = "ok") -> Selection:  # fmt: skip
    cells = np.sort(np.asarray(cells, dtype=np.int64))
    return Selection(
        cells, float(load[cells].sum()), float(size[cells].sum()), clock() - t0, status
    )


def _trivial(load: np.ndarray, size: np.ndarray, need: float, t0: float) -> Selection | None:
    """``all`` when the cells cannot carry ``need``, the empty set when nothing is needed."""
    if need <= 0:
        return _result([], load, size, t0)
    if load.sum() < need:
        return _result(np.flatnonzero(load > 0), load, size, t0, "all")
    return None


def _prepare(
    load: np.ndarray, size: np.ndarray, need: float
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray, Selection | None]:
    """The start of every selection: the clock, checked inputs, the useful cells (load >
    0) and the answer when it is trivial (else None)."""
    t0 = clock()
    load, size = _inputs(load, size)
    return t0, load, size, np.flatnonzero(load > 0), _trivial(load, size, need, t0)


def _prefix(order: np.ndarray, load: np.ndarray, need: float) -> np.ndarray:
    """The shortest prefix of ``order`` whose load reaches ``need``."""
    k = int(np.searchsorted(np.cumsum(load[order]), need * (1 - 1e-9)))
    return order[: k + 1]


def select_gr(load: np.ndarray, size: np.ndarray, need: float) -> Selection:
    """GR (Sect. V-A): the greedy with the GS/GL marking (module docstring)."""
    t0, load, size, useful, done = _prepare(load, size, need)
    if done is not None:
        return done
    order = useful[np.lexsort((useful, size[useful] / load[useful]))]
    return _result(_greedy(order, load, size, float(need)), load, size, t0)


@nb.njit(cache=True)
def _greedy(order, load, size, need):  # type: ignore[no-untyped-def]
    """GR's pass over the cells in ``order`` (S/L ascending): a cell that keeps the running
    load below ``need`` joins GS; one that reaches it completes a candidate GS + {g} (GL),
    kept if cheaper than the best so far; stops once GS alone costs as much as the best.
    Returns the best candidate's cells."""
    gs = np.empty(len(order), dtype=np.int64)
    k = 0
    l_s, s_s = 0.0, 0
    best_cost, best_k, best_g = np.inf, 0, -1
    for g in order:
        if s_s >= best_cost:
            break
        if l_s + load[g] < need:
            gs[k] = g  # GS: keeps the running load below L_delta
            k += 1
            l_s += load[g]
            s_s += size[g]
        elif s_s + size[g] < best_cost:  # GL: completes a candidate
            best_cost, best_k, best_g = float(s_s + size[g]), k, g
    out = np.empty(best_k + 1, dtype=np.int64)
    out[:best_k] = gs[:best_k]
    out[best_k] = best_g
    return out


def select_si(load: np.ndarray, size: np.ndarray, need: float, key: str = "size") -> Selection:
    """SI (Sect. VI-D): cells by size (or ``key="load"``: load) descending until the load
    reaches L_delta."""
    if key not in ("size", "load"):
        raise ValueError(f"key must be 'size' or 'load', got {key!r}")
    t0, load, size, useful, done = _prepare(load, size, need)
    if done is not None:
        return done
    by = size[useful] if key == "size" else load[useful]
    order = useful[np.lexsort((useful, -by))]
    return _result(_prefix(order, load, need), load, size, t0)


def select_ra(load: np.ndarray, size: np.ndarray, need: float, seed: int = 0) -> Selection:
    """RA (Sect. VI-D): cells in a seeded random order until the load reaches L_delta."""
    t0, load, size, useful, done = _prepare(load, size, need)
    if done is not None:
        return done
    return _result(_prefix(_permuted(useful, seed), load, need), load, size, t0)


@nb.njit(cache=True)
def _permuted(cells, seed):  # type: ignore[no-untyped-def]
    """``cells`` in a random order seeded by ``seed`` (numba's generator: a NumPy
    ``default_rng`` built per call cost RA tens of microseconds, more than its work)."""
    np.random.seed(seed)
    return cells[np.random.permutation(len(cells))]


@nb.njit(cache=True)
def _knapsack(load, size, capacity):  # type: ignore[no-untyped-def]
    """best[s]: the most load with total size <= s; keep[i, s]: item i taken at s."""
    n = load.shape[0]
    best = np.zeros(capacity + 1)
    keep = np.zeros((n, capacity + 1), dtype=np.bool_)
    for i in range(n):
        w = size[i]
        for s in range(capacity, w - 1, -1):
            cand = best[s - w] + load[i]
            if cand > best[s]:
                best[s] = cand
                keep[i, s] = True
    return best, keep


def select_dp(
    load: np.ndarray,
    size: np.ndarray,
    need: float,
    *,
    unit: int = 1,
    max_table: float = 5e8,
) -> Selection:
    """DP (Sect. V-A): the exact minimum-cost selection (module docstring); ``unit``
    coarsens the sizes (exact on ``ceil(S / unit)``), ``max_table`` bounds the table's
    cells x costs (status ``oom`` beyond it)."""
    t0, load, size, useful, done = _prepare(load, size, need)
    if done is not None:
        return done
    if unit < 1:
        raise ValueError(f"unit must be >= 1, got {unit}")
    all_units = -(-size // unit)
    units = all_units[useful]
    capacity = int(all_units[select_gr(load, size, need).cells].sum())  # the greedy's set fits
    if len(useful) * (capacity + 1) > max_table:
        return Selection(np.zeros(0, dtype=np.int64), 0.0, 0.0, clock() - t0, "oom")
    best, keep = _knapsack(load[useful], units, capacity)
    target = need * (1 - 1e-9)
    s = int(np.argmax(best >= target))  # best[capacity] reaches it: the greedy's set does
    chosen = []
    for i in range(len(useful) - 1, -1, -1):
        if keep[i, s]:
            chosen.append(int(useful[i]))
            s -= int(units[i])
    return _result(chosen, load, size, t0)


def select_brute_force(load: np.ndarray, size: np.ndarray, need: float) -> Selection:
    """Every subset of the useful cells (at most 20): the least cost reaching ``need``."""
    t0, load, size, useful, done = _prepare(load, size, need)
    if done is not None:
        return done
    if len(useful) > 20:
        raise ValueError("brute force is for at most 20 useful cells")
    best: tuple[int, ...] = tuple(useful.tolist())
    best_cost = int(size[useful].sum())
    target = need * (1 - 1e-9)
    for k in range(1, len(useful) + 1):
        for subset in combinations(useful.tolist(), k):
            cost = int(size[list(subset)].sum())
            if cost < best_cost and load[list(subset)].sum() >= target:
                best, best_cost = subset, cost
    return _result(list(best), load, size, t0)


#: the four selections of Sect. VI-D: ``kernel(load, size, need, **params)`` -> Selection;
#: none has a separate readable version (``reference`` is ``None``); the ``oracle`` of each
#: is the brute force, which gives the optimum they are judged by
SELECTORS: MethodRegistry[Method] = MethodRegistry(
    "migration selection",
    [
        Method("DP", "DP", "Sect. V-A (dynamic programming)", select_dp, None,
               {"unit": 1, "max_table": 5e8}, oracle=select_brute_force),
        Method("GR", "GR", "Sect. V-A (greedy, GS/GL)", select_gr, None,
               oracle=select_brute_force),
        Method("SI", "SI", "Sect. VI-D (by size)", select_si, None, {"key": "size"},
               oracle=select_brute_force),
        Method("RA", "RA", "Sect. VI-D (random)", select_ra, None, {"seed": 0},
               oracle=select_brute_force),
    ],
)  # fmt: skip


def load_to_move(loads: np.ndarray) -> tuple[int, int, float]:
    """The hot and cold workers and L_delta = (L_max - L_min) / 2 (our reading of the lost
    formula: moving it equalises the pair)."""
    loads = np.asarray(loads, dtype=np.float64)
    hot, cold = int(np.argmax(loads)), int(np.argmin(loads))
    return hot, cold, float(loads[hot] - loads[cold]) / 2


def triggered(loads: np.ndarray, sigma: float) -> bool:
    """The trigger of Sect. V: max load / min load above ``sigma`` (a zero minimum with a
    positive maximum always triggers)."""
    loads = np.asarray(loads, dtype=np.float64)
    if sigma < 1:
        raise ValueError(f"sigma must be >= 1, got {sigma}")
    top, low = float(loads.max()), float(loads.min())
    if low <= 0:
        return top > 0
    return top / low > sigma
