"""PS2Stream Sect. V-A, the Minimum Cost Migration problem: DP equals the brute force, GR is
feasible and never cheaper than DP, every selection moves at least the load it must, the
paper's greedy by hand, DP's memory bound, the trigger and L_delta."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routelab.spatial.migration import (
    SELECTORS,
    load_to_move,
    select_brute_force,
    select_dp,
    select_gr,
    select_ra,
    select_si,
    triggered,
)

LOAD = np.array([4.0, 3.0, 2.0, 1.0])
SIZE = np.array([4, 2, 3, 1])


def test_hand_example():
    """need 5. S/L: 1.0, 0.67, 1.5, 1.0, so GR scans cells 1, 0, 3, 2: cell 1 (load 3 < 5)
    is GS; cell 0 reaches 7 >= 5: GL, candidate {1, 0} of cost 6; cell 3 keeps 4 < 5: GS;
    cell 2 reaches 6 but {1, 3, 2} costs 6, not cheaper. GR: {0, 1}, cost 6. The optimum
    costs 5 ({0, 3} or {1, 2}): GR is not exact. SI (size descending) takes 0 then 2:
    cost 7."""
    gr = select_gr(LOAD, SIZE, 5)
    assert gr.cells.tolist() == [0, 1] and gr.cost == 6 and gr.load == 7
    dp = select_dp(LOAD, SIZE, 5)
    assert dp.cost == 5 and dp.load >= 5
    assert select_brute_force(LOAD, SIZE, 5).cost == 5
    si = select_si(LOAD, SIZE, 5)
    assert si.cells.tolist() == [0, 2] and si.cost == 7
    assert select_si(LOAD, SIZE, 5, key="load").cells.tolist() == [0, 1]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 20), st.integers(0, 30)), min_size=1, max_size=12),
    st.floats(0.0, 1.2),
    st.integers(1, 4),
)
def test_dp_is_optimal_and_every_selection_is_feasible(cells, share, unit):
    load = np.array([c[0] for c in cells], dtype=float)
    size = np.array([c[1] for c in cells])
    need = share * load.sum()
    truth = select_brute_force(load, size, need)
    for name, method in SELECTORS.items():
        sel = method.kernel(load, size, need)
        assert sel.status in ("ok", "all")
        if load.sum() >= need:
            assert sel.load >= need - 1e-9 * max(need, 1), name  # moves at least L_delta
            assert sel.cost >= truth.cost, name  # never cheaper than the optimum
        else:
            assert sel.status == "all" and sel.cells.tolist() == np.flatnonzero(load > 0).tolist()
        assert not np.any(load[sel.cells] == 0) or need <= 0  # useless cells never chosen
        assert sel.load == pytest.approx(load[sel.cells].sum())
        assert sel.cost == size[sel.cells].sum()
    assert select_dp(load, size, need).cost == truth.cost
    coarse = select_dp(load, size, need, unit=unit)  # exact on ceil(S / unit)
    units = -(-size // unit)
    assert units[coarse.cells].sum() == units[select_brute_force(load, units, need).cells].sum()


def test_dp_reports_its_memory_bound():
    rng = np.random.default_rng(0)
    load = rng.random(1000) + 0.1
    size = rng.integers(1_000, 100_000, 1000)
    sel = select_dp(load, size, load.sum() / 2, max_table=1e6)
    assert sel.status == "oom" and len(sel.cells) == 0
    assert select_gr(load, size, load.sum() / 2).status == "ok"


def test_random_order_is_seeded():
    load = np.arange(1.0, 30.0)
    size = np.arange(1, 30)
    a, b = select_ra(load, size, 100, seed=3), select_ra(load, size, 100, seed=3)
    assert a.cells.tolist() == b.cells.tolist()
    assert select_ra(load, size, 100, seed=4).cells.tolist() != a.cells.tolist()


def test_trigger_and_load_to_move():
    assert load_to_move(np.array([10.0, 4.0, 7.0])) == (0, 1, 3.0)
    assert triggered(np.array([12.0, 10.0]), 1.1) and not triggered(np.array([12.0, 10.0]), 1.2)
    assert triggered(np.array([1.0, 0.0]), 1.2) and not triggered(np.array([0.0, 0.0]), 1.2)
    with pytest.raises(ValueError, match="sigma"):
        triggered(np.array([1.0]), 0.5)
    with pytest.raises(ValueError, match="same length"):
        select_gr(np.ones(3), np.ones(2, dtype=int), 1)
    with pytest.raises(ValueError, match="key"):
        select_si(LOAD, SIZE, 1, key="age")


def _gr_by_hand(load, size, need):
    """GR's pass written plainly (the Python loop numba now compiles)."""
    useful = np.flatnonzero(load > 0)
    order = useful[np.lexsort((useful, size[useful] / load[useful]))]
    gs, l_s, s_s = [], 0.0, 0
    best_cost, best_k, best_g = np.inf, 0, -1
    for g in order.tolist():
        if s_s >= best_cost:
            break
        if l_s + load[g] < need:
            gs.append(g)
            l_s += load[g]
            s_s += int(size[g])
        elif s_s + size[g] < best_cost:
            best_cost, best_k, best_g = s_s + int(size[g]), len(gs), g
    return sorted(gs[:best_k] + [best_g])


def test_gr_kernel_equals_the_plain_loop_and_ra_is_a_minimal_prefix():
    from routelab.spatial.migration import _permuted

    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        load = rng.uniform(0, 10, n) * (rng.random(n) > 0.2)
        size = rng.integers(0, 50, n)
        need = float(rng.uniform(0.1, 1.0) * load.sum()) if load.sum() > 0 else 1.0
        gr = select_gr(load, size, need)
        if gr.status == "ok" and need > 0 and load.sum() >= need:
            assert gr.cells.tolist() == _gr_by_hand(load, size, need)
            assert load[gr.cells].sum() >= need * (1 - 1e-9)
        seed = int(rng.integers(100))
        ra = select_ra(load, size, need, seed=seed)
        if ra.status == "ok" and len(ra.cells):
            # the shortest prefix of the seeded order (a permutation of the useful cells)
            order = _permuted(np.flatnonzero(load > 0), seed)
            assert sorted(order.tolist()) == np.flatnonzero(load > 0).tolist()
            k = next(
                i for i in range(len(order)) if load[order[: i + 1]].sum() >= need * (1 - 1e-9)
            )
            assert ra.cells.tolist() == sorted(order[: k + 1].tolist())
