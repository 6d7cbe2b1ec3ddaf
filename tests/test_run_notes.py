"""Reading notes built from the run's numbers (notebooks 10 and 12): each note states what
its figure or table shows, tested on hand-made frames where the figure shows each case."""

from __future__ import annotations

import pandas as pd

from routelab.filtering.lab.adaptivity import figures as af
from routelab.spatial.lab.adjustment import figures as jf


def saturation_windows(dynamic: list[float], no_change: list[float]) -> pd.DataFrame:
    """Fig. 4(b)'s windows by hand: two seeds at +-1 around the given means."""
    rows = []
    for strategy, values in (("dynamic", dynamic), ("no_change", no_change)):
        for k, v in enumerate(values):
            for seed, d in ((0, -1.0), (1, 1.0)):
                rows.append({"scenario": "skew", "strategy": strategy, "seed": seed,
                             "window": 2.0 * (k + 1), "throughput": v + d})  # fmt: skip
    return pd.DataFrame(rows)


def test_fig4b_note_says_dynamic_below_in_every_window_and_no_recovery():
    note = af.note_fig4b(saturation_windows([100, 80, 70, 60], [120, 110, 100, 90]))
    assert "dynamic was below No Change in every window (4 of 4)" in note
    assert "60% of its first window" in note and "shows no recovery" in note
    assert "No Change at 75% of its own" in note


def test_fig4b_note_counts_the_windows_dynamic_is_above_and_a_recovery():
    note = af.note_fig4b(saturation_windows([100, 80, 95, 99], [100, 90, 85, 80]))
    assert (
        "above No Change in 2 of 4 windows (the windows ending at hours 6, 8), below it in 1 "
        "and level with it (within 1%) in 1" in note
    )
    assert "near its first window's throughput" in note and "no recovery" not in note
    above = af.note_fig4b(saturation_windows([100, 100], [50, 50]))
    assert "above No Change in every window (2 of 2)" in above
    empty = saturation_windows([1.0], [1.0]).iloc[:0]
    assert "no skew windows" in af.note_fig4b(empty)


def test_fig4a_note_reads_its_own_scenario():
    w = saturation_windows([100, 50], [100, 90]).assign(scenario="schema")
    note = af.note_fig4a(w)  # level in the first window, below in the second
    assert "above No Change in 0 of 2 windows, below it in 1 and level with it" in note
    assert "1 of 2" not in af.note_fig4b(w) and "no skew windows" in af.note_fig4b(w)


def adjust_frame(switches: int, gain: float, dual: list[bool], ratio: float) -> pd.DataFrame:
    """Notebook 12's global scenario by hand: 3 seeds, GR and GR+global runs, periods."""
    rows = []
    for seed in range(3):
        for sel in ("none", "GR", "GR+global"):
            rows.append({"level": "run", "scenario": "global", "mu": 1_000, "seed": seed,
                         "selector": sel, "global_switches": switches if sel == "GR+global"
                         else 0, "global_best_gain": gain if sel == "GR+global" else None,
                         "migrations": {"none": 0, "GR": 4, "GR+global": 3}[sel]})  # fmt: skip
            for period, is_dual in enumerate(dual):
                tp = 1_000.0 * (ratio if sel == "GR+global" else 1.0)
                rows.append({"level": "period", "scenario": "global", "mu": 1_000,
                             "seed": seed, "selector": sel, "period": period,
                             "throughput": tp, "dual": is_dual and sel == "GR+global"})  # fmt: skip
    return pd.DataFrame(rows)


def test_global_note_without_a_switch_names_no_shade_and_the_real_gap():
    note = jf.global_note(adjust_frame(0, 0.077, [False] * 4, 2.0))
    assert "no check promised the 10 % saving" in note and "best: 8%" in note
    assert "none was taken in 3 runs" in note
    assert "0 periods of the first seed ran two strategies" in note
    assert "2.00x the local one" in note and "up to 2.0x" in note and "noise" not in note
    assert "3 with global" in note and "not the global adjustment" in note


def test_global_note_with_switches_counts_them_and_the_shaded_periods():
    note = jf.global_note(adjust_frame(1, 0.25, [False, True, True, False], 1.1))
    assert "re-partitioned 3 times over 3 runs (best saving promised: 25%)" in note
    assert "2 periods of the first seed ran two strategies (shaded)" in note
    assert "not the global adjustment" not in note and "1.10x" in note
    assert "no global adjustment" in jf.global_note(adjust_frame(0, 0, [], 1.0).iloc[:0])


def phase_frame(splits: dict[str, list[int]], merges: dict[str, list[int]]) -> pd.DataFrame:
    rows = []
    for model, scenario in (("gi2_checks", "drift"), ("pairs_unit", "pairs")):
        for seed, (s, m) in enumerate(zip(splits[model], merges[model], strict=True)):
            for mu in (1_000, 5_000):  # the larger count is not the table's
                rows.append({"level": "run", "scenario": scenario, "cost_model": model,
                             "selector": "GR", "mu": mu, "seed": seed, "phase1_splits": s,
                             "phase1_merges": m if mu == 1_000 else 99, "phase2_moves": 4,
                             "throughput": 1.0})  # fmt: skip
    return pd.DataFrame(rows)


def test_phase_one_note_states_the_tables_medians_and_the_totals():
    frame = phase_frame({"gi2_checks": [0, 0, 0], "pairs_unit": [3, 2, 4]},
                        {"gi2_checks": [0, 6, 0], "pairs_unit": [0, 0, 0]})  # fmt: skip
    note = jf.phase_one_note(frame)
    table = jf.extra_phase_one_table(frame)
    assert table.loc["gi2_checks", "phase1_merges"] == 0  # the table's median
    assert (
        "under `gi2_checks`, 0 splits and 0 merges per run (median; 0 and 6 over its 3 runs)"
        in note
    )
    assert (
        "under `pairs_unit`, 3 splits and 0 merges per run (median; 9 and 0 over its 3 runs)"
        in note
    )
    one = jf.phase_one_note(phase_frame({"gi2_checks": [1], "pairs_unit": [1]},
                                        {"gi2_checks": [1], "pairs_unit": [0]}))  # fmt: skip
    assert "1 split and 1 merge per run" in one and "over its 1 run)" in one
