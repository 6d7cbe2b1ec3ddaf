"""Notebook 12's claims table: PS2Stream Sect. VI-D (local adjustment, Figs. 12-16; the
claims C13-C20 of our reading), the rows and their texts declared in claims.toml. The
paper's percentages were lost from its text, so most rows grade directions and orderings;
each tolerance is a constant declared here. Every timing row rests on the seeds (one
independent stream each), paired within a seed; the rows about throughput and delayed
tuples go through the regime gate and the per-message cost map (:func:`gated_row`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from routelab import claims
from routelab.claims import Declaration, Verdict, beyond_measured, combine, not_comparable
from routelab.spatial.lab import regime as rg
from routelab.spatial.migration import select_brute_force, select_dp

#: the rows, declared once (claims.toml beside this module)
ROWS = claims.declarations(__file__)

#: the smallest effect a "longer", "faster", "less" or "more" is about (RA "fastest": RA /
#: GR and RA / SI below 1 / 1.25; without it, a difference near 0 (RA / GR 1.09x [1.05,
#: 1.14] and 1.03x [0.92, 1.16] in two runs) drifted between "fails" and "inconclusive")
MIN_EFFECT = 0.25
#: C14: GR, SI and RA's selection time "do not change with the number of queries": the
#: ratio between the two query counts within 1.5x either way
SAME_TIME = 1.5
#: C16: GR's migration time "nearly half" of RA's (and of SI's): within 1.5x of 0.5
HALF, HALF_TOL = 0.5, 1.5
#: "GR and SI are very efficient too": their selection under a tenth of DP's time
VERY_EFFICIENT = 0.1
#: "DP requires slightly longer time than GR": DP / GR within 1.2x of 1.2 (1.0 .. 1.44)
SLIGHTLY, SLIGHTLY_TOL = 1.2, 1.2
#: the selection rows' measure: per seed, a selector's geometric mean over the snapshots
#: every selector solved (:func:`~routelab.spatial.lab.adjustment.experiments.snapshot_rows`)
SELECT_MS = "select_ms_geo"
#: the reading of READINGS.md that Fig. 16's row is graded under, and beside it the other
THROUGHPUT_READING = "Throughput with adjustment"
#: the constants the declared texts name
TOLERANCES = dict(VERY_EFFICIENT=VERY_EFFICIENT, SLIGHTLY=SLIGHTLY, SLIGHTLY_TOL=SLIGHTLY_TOL)

#: the judges of paired per-seed values (a's, b's): the ratio a / b against a tolerance
_above = partial(claims.direction_measured, expected="above")
_below = partial(claims.direction_measured, expected="below")
_longer, _faster = partial(_above, margin=MIN_EFFECT), partial(_below, margin=MIN_EFFECT)
_tenth = partial(_below, margin=1 / VERY_EFFICIENT - 1)
_slightly = partial(claims.within_factor_measured, paper=SLIGHTLY, factor=SLIGHTLY_TOL)
_half = partial(claims.within_factor_measured, paper=HALF, factor=HALF_TOL)
_MS = "p2_migration_ms_mean"
_VERSUS = (("DP", "SI"), ("DP", "RA"), ("GR", "SI"), ("GR", "RA"))
#: the rows graded on paired ratios a / b at the smaller query count, their parts combined:
#: key -> (column, the pairs (a, b), judge); the first three read the selection snapshots
RATIO_ROWS = {
    "dp_selects_longest": (SELECT_MS, (("DP", "GR"), ("DP", "SI"), ("DP", "RA")), _longer),
    "ra_selects_fastest": (SELECT_MS, (("RA", "GR"), ("RA", "SI")), _faster),
    "gr_si_efficient": (SELECT_MS, (("GR", "DP"), ("SI", "DP")), _tenth),
    "dp_gr_least_data": ("p2_bytes_mean", _VERSUS, _below),
    "dp_gr_least_time": (_MS, _VERSUS, _below),
    "dp_slightly_longer": (_MS, (("DP", "GR"),), _slightly),
    "gr_half_of_ra_si": (_MS, (("GR", "RA"), ("GR", "SI")), _half),
}


def _paired(runs: pd.DataFrame, column: str, a: str, b: str, mu: int) -> tuple[np.ndarray, ...]:
    """Per seed, ``column`` of selectors ``a`` and ``b`` at ``mu`` queries."""
    if column not in runs or not len(runs):
        return np.zeros(0), np.zeros(0)
    sub = runs[runs["mu"] == mu].pivot_table(index="seed", columns="selector", values=column)
    sub = sub.reindex(columns=[a, b]).dropna()
    return sub[a].to_numpy(float), sub[b].to_numpy(float)


def _paired_mus(frame: pd.DataFrame, column: str, name: str, small: int, big: int) -> tuple:
    """Per seed, ``column`` of selector ``name`` at ``big`` and at ``small`` queries."""
    a = frame[(frame["mu"] == small) & (frame["selector"] == name)].set_index("seed")[column]
    b = frame[(frame["mu"] == big) & (frame["selector"] == name)].set_index("seed")[column]
    common = a.index.intersection(b.index)
    return b.loc[common].to_numpy(float), a.loc[common].to_numpy(float)


def _paired_grid(runs: pd.DataFrame, column: str, a: str, b: str, mu: int) -> tuple:
    """Per seed (rows) and per-message cost (columns of ``rg.C_GRID_US``), the list column
    ``column`` of selectors ``a`` and ``b`` at ``mu`` queries, and the runs used."""
    sub = runs[(runs["mu"] == mu) & runs["selector"].isin([a, b])]
    none = np.zeros((0, len(rg.C_GRID_US)))
    if column not in sub.columns:
        return none, none, sub
    both = sorted(set(sub[sub.selector == a].seed) & set(sub[sub.selector == b].seed))
    grid = sub.drop_duplicates(["selector", "seed"]).set_index(["selector", "seed"])[column]
    ga, gb = (np.array([list(grid[s, k]) for k in both]) if both else none for s in (a, b))
    return ga, gb, sub[sub.seed.isin(both)]


def _fmt(a: np.ndarray, b: np.ndarray) -> str:
    if len(a) < 2:
        return "fewer than 2 seeds"
    r, lo, hi = claims.ratio_interval(a, b)
    return f"{r:.3g}x [{lo:.3g}, {hi:.3g}] over {len(a)} seeds"


def _mean(x: np.ndarray) -> float:
    return float(np.mean(x)) if len(x) else float("nan")


def _total(frame: pd.DataFrame, column: str) -> int:
    return int(frame[column].sum()) if column in frame else 0


def _largest(frame: pd.DataFrame, column: str) -> float:
    return float(frame[column].max()) if column in frame else float("nan")


def gated_row(
    row: Declaration,
    what: str,
    runs: pd.DataFrame,
    column: str,
    a: str,
    b: str,
    mu: int,
    judge: Callable[[np.ndarray, np.ndarray], Verdict],
    note: str,
    c_paper: float = rg.C_PAPER_US,
) -> dict:
    """``row`` graded on ``a / b``'s ``what`` (``column``: per run, the value at every cost of
    the grid) through the regime gate, at ``c_paper`` µs per message (measured work plus
    modelled platform cost); the verdict on this engine (c = 0) and the flip point in the note."""
    ga, gb, used = _paired_grid(runs, column, a, b, mu)
    reason = rg.runs_reason(used)
    if not len(ga) or reason:
        why = reason or f"the runs have no {column}"
        measured = f"{a} / {b} on this engine: {_fmt(ga[:, 0], gb[:, 0])}" if len(ga) else None
        verdict = not_comparable(f"not work-dominated: {why}")
        return row.row(measured or "not measured", verdict, note)
    vmap = rg.paired_map(what, judge, ga, gb)
    fl = rg.flip_points(vmap, c_paper).iloc[0]
    ip = rg.check_cost(c_paper)
    v = judge(ga[:, ip], gb[:, ip])
    measured = (
        f"at the paper's per-message cost (measured work + modelled {c_paper:g} µs per "
        f"message): {a} / {b} {what} {_fmt(ga[:, ip], gb[:, ip])} | on this engine (c = 0): "
        f"{fl.verdict_engine}, {_fmt(ga[:, 0], gb[:, 0])}"
    )
    note += (
        f"; verdict at c = {c_paper:g} µs per message (READINGS.md); on this engine: "
        f"{fl.verdict_engine}; flip point c*: {fl.flip}{rg.reading_note(vmap, what, v.verdict)}"
        f"; fixed-cost share at most {used.fixed_share.max():.1%}, busiest worker busy at "
        f"least {used.busy_min_s.min():.2f} s"
    )
    return row.row(measured, v, note)


def _combined(key: str, parts: list[tuple[str, Verdict]], sep: str = "; ", **slots: Any) -> dict:
    """Row ``key`` of graded parts: their texts joined, their verdicts combined."""
    measured, verdict = sep.join(p for p, _ in parts), combine([v for _, v in parts])
    return ROWS[key].row(measured, verdict, ROWS[key].text("note", **slots), **TOLERANCES)


def _ratio_row(key: str, frame: pd.DataFrame, slots: dict) -> dict:
    """A row of :data:`RATIO_ROWS`, one part per pair."""
    column, pairs, judge = RATIO_ROWS[key]
    paired = {(a, b): _paired(frame, column, a, b, slots["small"]) for a, b in pairs}
    parts = [(f"{a} / {b}: {_fmt(x, y)}", judge(x, y)) for (a, b), (x, y) in paired.items()]
    return _combined(key, parts, **slots)


def _selection_rows(snap: pd.DataFrame, small: int, big: int, slots: dict) -> list[dict]:
    """Figs. 12(a), 13 on the snapshots: GR's Phase II triggers, every selector timed on each."""
    keys = ["dp_selects_longest", "ra_selects_fastest", "gr_si_efficient"]
    if not len(snap) or SELECT_MS not in snap:
        why = "no selection snapshots in the runs"
        if len(snap):
            why = f"the runs lack {SELECT_MS} (a frame recorded before it)"
        keys += ["selection_flat_in_queries", "dp_table_bound"]
        return [ROWS[k].unmeasured(why, note=slots["scale"], **TOLERANCES) for k in keys]
    flat, same = [], ROWS["selection_flat_in_queries"]
    for name in ("GR", "SI", "RA"):
        x, y = _paired_mus(snap, SELECT_MS, name, small, big)
        if len(x) >= 3 and small != big:
            r, lo, hi = claims.ratio_interval(x, y)
            text = same.text("part", name=name, r=r, lo=lo, hi=hi, **slots)
            flat.append((text, claims.equivalent_measured(x, y, SAME_TIME)))
        else:
            text = same.text("part_unmeasured", name=name, **slots)
            flat.append((text, not_comparable("one query count, or fewer than 3 seeds")))
    dp_big = snap[(snap["selector"] == "DP") & (snap["mu"] == big)]
    oom, n = int(dp_big["oom"].sum()), int(dp_big["snapshots"].sum())
    bound = ROWS["dp_table_bound"]
    verdict = Verdict("holds" if oom else "fails", bound.text("verdict_rule"))
    return [
        *(_ratio_row(k, snap, slots) for k in keys),
        _combined("selection_flat_in_queries", flat, **slots),
        bound.graded(verdict, oom=oom, n=n, big=big),
    ]


def _migration_rows(runs: pd.DataFrame, small: int, big: int, slots: dict) -> list[dict]:
    """Figs. 12(b), 14; DP out of memory at the smaller count: its rows are not comparable."""
    keys = ("dp_gr_least_data", "dp_gr_least_time", "dp_slightly_longer", "gr_half_of_ra_si")
    out = [_ratio_row(k, runs, slots) for k in keys]
    oom = _total(runs[(runs["selector"] == "DP") & (runs["mu"] == small)], "oom")
    for row in out[:3] if oom else []:  # a DP that gave up migrates nothing: never a win
        why = f"DP ran out of memory {oom} times at {small:,} queries (its table bound)"
        row["verdict"] = not_comparable(why)
    more = []
    for column, what in (("p2_bytes_mean", "size"), (_MS, "time")):
        x, y = _paired_mus(runs, column, "GR", small, big)
        text = ROWS["more_queries_larger"].text("part", what=what, ratio=_fmt(x, y), **slots)
        more.append((text, _above(x, y) if small != big else not_comparable("one query count")))
    return [*out, _combined("more_queries_larger", more, **slots)]


def _difference(x: np.ndarray, y: np.ndarray, expected: str, what: str) -> tuple[dict, Verdict]:
    """The paired difference ``x - y`` (its t interval over the seeds) as a text's slots, and
    whether it lies ``expected`` 0 (why not the ratio: the rows' rules, in claims.toml)."""
    mean, lo, hi = claims.t_interval(x - y)
    slots = dict(mean=mean, lo=lo, hi=hi, n=len(x), x=_mean(x), y=_mean(y))
    return slots, beyond_measured(mean, lo, hi, 0.0, expected=expected, what=what, repeats=len(x))


def _middle_bucket_row(runs: pd.DataFrame, small: int, scale_note: str) -> dict:
    """Row ``dp_middle_bucket``."""
    row = ROWS["dp_middle_bucket"]
    x, y = _paired(runs, "lat_mid", "DP", "GR", small)
    slots, verdict = _difference(x, y, "above", "DP's middle-bucket share minus GR's")
    z, _ = _paired(runs, "lat_slow", "DP", "GR", small)  # empty where not recorded
    past = row.text("past", z=_mean(z)) if len(z) else ""
    return row.graded(verdict, row.text("note", scale=scale_note), past=past, **slots)


def _fewer_delayed(runs: pd.DataFrame, a: str, b: str, mu: int) -> tuple[str, Verdict]:
    """A part of row ``dp_second``: ``a``'s delayed share minus ``b``'s."""
    x, y = _paired(runs, "lat_fast", a, b, mu)
    slots, verdict = _difference(1 - x, 1 - y, "below", f"{a}'s delayed share minus {b}'s")
    return ROWS["dp_second"].text("part", a=a, b=b, **slots), verdict


def _latency_rows(runs: pd.DataFrame, small: int, scale_note: str, c_paper: float) -> list[dict]:
    """Figs. 12(c), 15; GR's row combines three gated rows (:func:`gated_row`)."""
    fewest, what = ROWS["gr_fewest_delayed"], "share below b1"
    gated = [
        gated_row(fewest, what, runs, "lat_fast_grid", "GR", o, small, _above, "", c_paper)
        for o in ("DP", "SI", "RA")
    ]
    gates = " || ".join(g["note"].lstrip("; ") for g in gated)
    parts = [(g["measured"], g["verdict"]) for g in gated]
    second = [_fewer_delayed(runs, "DP", o, small) for o in ("SI", "RA")]
    return [
        _combined("gr_fewest_delayed", parts, sep=" || ", scale=scale_note, gates=gates),
        _combined("dp_second", second, scale=scale_note),
        _middle_bucket_row(runs, small, scale_note),
    ]


def _fig16_row(all_runs: pd.DataFrame, runs: pd.DataFrame, scale_note: str, c_paper: float) -> dict:
    """Row ``fig16_throughput`` on the runs with Q1/Q2 flips (else the drifting runs), naming
    :data:`THROUGHPUT_READING` where the alternative throughput decides it."""
    fig16 = ROWS["fig16_throughput"]
    flips = all_runs[all_runs["scenario"] == "flips"]
    source, what = (flips, fig16.text("flips")) if len(flips) else (runs, fig16.text("drift"))
    mu = int(source["mu"].max())

    def graded(column: str, note: str) -> dict:
        return gated_row(fig16, what, source, column, "GR", "none", mu, _above, note, c_paper)

    row = graded("throughput_grid", fig16.text("note", scale=scale_note))
    if "throughput_total_grid" not in source.columns:
        return row
    alt = graded("throughput_total_grid", fig16.text("note_total", scale=scale_note))
    reading = fig16.text("alternative")
    return claims.name_deciding_reading([row], [alt], THROUGHPUT_READING, reading)[0]


def check_rows(runs: pd.DataFrame, sigma: float | None = None) -> list[dict]:
    """Row ``phase2_triggered`` (none where the runs do not count the selections)."""
    if "p2_selections" not in runs:
        return []
    n, ok = int(runs["p2_selections"].sum()), int(runs["p2_triggered"].sum())
    row = ROWS["phase2_triggered"]
    verdict = "holds" if ok == n and n else "fails" if n else "not comparable"
    return [row.graded(Verdict(verdict, row.text("verdict_rule")), ok=ok, n=n)]


def rows(frame: pd.DataFrame, scale_note: str, c_paper: float = rg.C_PAPER_US) -> list[dict]:
    """Every row from the experiments' frame (``level == "run"`` rows and the selection
    snapshots); the gated timing rows graded at ``c_paper`` µs per message."""
    if "scenario" not in frame:
        frame = frame.assign(scenario="drift")
    all_runs, drift = frame[frame["level"] == "run"], frame[frame["scenario"] == "drift"]
    runs, snaps = drift[drift["level"] == "run"], drift[drift["level"] == "selection"]
    mus = sorted(runs["mu"].unique())
    small, big = int(mus[0]), int(mus[-1])
    share = runs[runs["mu"] == small].get("p2_modelled_share", [])
    modelled = float(np.nanmedian(share)) if len(share) else float("nan")
    slots = dict(scale=scale_note, small=small, big=big, modelled=modelled)
    return [
        *_selection_rows(snaps, small, big, slots),
        *_migration_rows(runs, small, big, slots),
        *_latency_rows(runs, small, scale_note, c_paper),
        _fig16_row(all_runs, runs, scale_note, c_paper),
        _dp_exact_row(),
        *check_rows(all_runs),
        *_phase_and_global_rows(all_runs, scale_note, c_paper),
    ]


def _phase_and_global_rows(
    all_runs: pd.DataFrame, scale_note: str, c_paper: float = rg.C_PAPER_US
) -> list[dict]:
    """Rows ``phase1_lowers_load`` (GR's runs) and ``global_repartition`` (the global runs)."""
    out = []
    gr = all_runs[all_runs["selector"] == "GR"]
    if "phase1_splits" in gr.columns and len(gr):
        row = ROWS["phase1_lowers_load"]
        per = gr.groupby("cost_model")[["phase1_splits", "phase1_merges"]].sum()
        models = "; ".join(
            row.text("model", model=m, splits=int(r.phase1_splits), merges=int(r.phase1_merges))
            for m, r in per.iterrows()
        )
        acts, lowered = _total(gr, "phase1_actions"), _total(gr, "phase1_lowered")
        split = per["phase1_splits"]
        ok = acts == lowered and split.get("gi2_checks", 0) == 0 and split.get("pairs_unit", 1) > 0
        verdict = Verdict("holds" if ok else "fails", row.text("verdict_rule"))
        out.append(row.graded(verdict, models=models, lowered=lowered, acts=acts))
    glob = all_runs[all_runs["scenario"] == "global"] if "scenario" in all_runs else all_runs[:0]
    if len(glob):
        row = ROWS["global_repartition"]
        mine = glob[glob["selector"] == "GR+global"]
        switches = int(mine["global_switches"].sum())
        gain, gamma = _largest(mine, "global_best_gain"), _largest(mine, "global_gamma")
        note = row.text("note", scale=scale_note, gamma=gamma)
        mu = int(glob["mu"].max())
        gated = gated_row(
            row, "throughput", glob, "throughput_grid", "GR+global", "GR", mu, _above, note, c_paper
        )
        gated["measured"] += row.text("switches", switches=switches, gain=gain, gamma=gamma)
        if not switches:
            gated["verdict"] = not_comparable(row.text("no_switch", gain=gain, gamma=gamma))
        out.append(gated)
    return out


def _dp_exact_row(n_cases: int = 200, seed: int = 0) -> dict:
    """Row ``dp_exact``: DP against the brute force on seeded random instances."""
    rng = np.random.default_rng(seed)
    wrong = 0
    for _ in range(n_cases):
        k = int(rng.integers(1, 13))
        load = rng.integers(0, 20, k).astype(float)
        size = rng.integers(0, 30, k)
        need = float(rng.random() * load.sum())
        wrong += select_dp(load, size, need).cost != select_brute_force(load, size, need).cost
    row = ROWS["dp_exact"]
    verdict = Verdict("fails" if wrong else "holds", row.text("verdict_rule"))
    return row.graded(verdict, ok=n_cases - wrong, n=n_cases)


#: the timing rows that go through the regime gate and the per-message cost map: (claim,
#: scenario, grid column, selector, baseline, which query count)
MAPPED = (
    ("Fig. 16: GR raises the throughput", "flips", "throughput_grid", "GR", "none", "big"),
    ("Fig. 12(c): GR leaves more tuples unaffected than DP", "drift", "lat_fast_grid", "GR",
     "DP", "small"),
    ("Fig. 12(c): GR leaves more tuples unaffected than SI", "drift", "lat_fast_grid", "GR",
     "SI", "small"),
    ("Fig. 12(c): GR leaves more tuples unaffected than RA", "drift", "lat_fast_grid", "GR",
     "RA", "small"),
    ("Sect. V-B: global adjustment raises the throughput", "global", "throughput_grid",
     "GR+global", "GR", "big"),
)  # fmt: skip


def regime_map(frame: pd.DataFrame) -> pd.DataFrame:
    """The verdict map (:func:`routelab.spatial.lab.regime.paired_map`) of notebook 12's
    gated timing rows on the work-dominated runs: one row per (claim, per-message cost)."""
    runs = frame[frame["level"] == "run"]
    out = []
    for claim, scenario, column, a, b, which in MAPPED:
        sub = runs[runs["scenario"] == scenario] if "scenario" in runs else runs
        if not len(sub):
            continue
        mu = sub["mu"].min() if which == "small" else sub["mu"].max()
        ga, gb, used = _paired_grid(sub, column, a, b, int(mu))
        if len(ga) and not rg.runs_reason(used):
            out.append(rg.paired_map(claim, _above, ga, gb))
    cols = ["claim", "c_us", "verdict", "rule", "measured"]
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=cols)


def regime_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, query count, selector): seeds, the largest fixed-cost share, the
    shortest run's busy seconds (the sum of its periods' busiest workers) and whether the
    runs are work-dominated (:func:`routelab.spatial.lab.regime.runs_reason`)."""
    runs = frame[frame["level"] == "run"]
    rows = []
    for (scenario, mu, sel), g in runs.groupby(["scenario", "mu", "selector"]):
        reason = rg.runs_reason(g)
        rows.append(
            {
                "scenario": scenario,
                "mu": int(mu),
                "selector": sel,
                "seeds": int(g["seed"].nunique()),
                "fixed_share_max": float(g["fixed_share"].max()) if "fixed_share" in g else np.nan,
                "busy_min_s": float(g["busy_min_s"].min()) if "busy_min_s" in g else np.nan,
                "work_dominated": not reason,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows)
