"""The claims of notebook 05_drift (S3-TM Sect. 6.4, Fig. 7i-l) on the frames of
:mod:`routelab.s3tm.lab.drift.experiments`; rows, rules and texts in claims.toml. Throughput is
Eq. 6 on each window's routed loads, not a clock, so no row is a timing row. In every function
``label`` is appended to the claim texts and ``learn_on`` ``None`` is
:func:`~routelab.s3tm.lab.drift.experiments.default_learn_on`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from routelab.claims import Verdict, combine, declarations, direction, share, within_factor
from routelab.s3tm.lab.drift.experiments import LEARNED, default_learn_on

#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)
Row = dict[str, Any]  #: a claims-table row

#: "No further decreasing trend" (Sect. 6.4) is shown, not assumed: the one-sided 95 % lower
#: bound of the relative slope (slope / later mean, per window) must lie above -2 % per window
#: (a non-inferiority margin, declared before any run). A rising trend is no decrease.
TREND_MARGIN = 0.02
TREND_CONFIDENCE = 0.95
_MARGIN = {"TREND_MARGIN": TREND_MARGIN, "TREND_CONFIDENCE": TREND_CONFIDENCE}  # texts' slots
#: Sect. 6.4, "the throughput decreases by a factor of 2 after the first week" (week 0 over the
#: later windows' mean, per learned method), within this factor (1.6-2.5); outside: direction only
PAPER_DROP = 2.0
DROP_FACTOR = 1.25
#: why a learned method's trend is not shown, by its verdict
_WHY = {
    "fails": "a decrease beyond the margin",
    "inconclusive": "a decrease beyond the margin not ruled out",
    "partly": "no drop after week 0",
    "not comparable": "fewer than 3 windows after week 0",
}
_NO_LEARNED = Verdict("not comparable", "no learned method")


def _select(frame: pd.DataFrame, dataset: str, learn_on: str) -> pd.DataFrame:
    """The rows of ``frame`` for ``dataset`` and the mapping learned on ``learn_on``."""
    return frame[(frame["dataset"] == dataset) & (frame["learn_on"] == learn_on)]


def _learned(trends: pd.DataFrame, dataset: str, learn_on: str) -> pd.DataFrame:
    """The trend rows of the learned methods, by method in :data:`LEARNED`'s order."""
    sel = _select(trends, dataset, learn_on).set_index("method")
    return sel.loc[[m for m in LEARNED if m in sel.index]]


def _later(win: pd.DataFrame, metric: str, *, difference: bool = False) -> pd.Series:
    """Per method, the mean of ``metric`` over windows 1.. divided by week 0's
    (``difference``: minus week 0's)."""
    week0 = win[win["window"] == 0].groupby("method")[metric].mean()
    later = win[win["window"] > 0].groupby("method")[metric].mean()
    return later - week0 if difference else later / week0


def _best(win: pd.DataFrame, metric: str, lowest: bool = False) -> pd.Series:
    """Per window after week 0, the method with the highest (``lowest``) mean ``metric``."""
    later = win[win["window"] > 0]
    by = later.groupby("window")[metric]
    return later.loc[by.idxmin() if lowest else by.idxmax()].set_index("window")["method"]


def no_trend_verdict(row: pd.Series) -> Verdict:
    """One method's :func:`trend_tests` row: holds if the slope's one-sided lower bound lies
    above -:data:`TREND_MARGIN`, fails if the upper bound lies below it, inconclusive if they
    straddle it (as :func:`routelab.claims.equivalent`); not comparable with < 3 windows."""
    from scipy import stats

    n, mean = int(row.get("windows_tested", 0)), float(row["later_mean"])
    if n < 3 or not mean:
        return Verdict("not comparable", "fewer than 3 windows after week 0")
    half = float(stats.t.ppf(TREND_CONFIDENCE, df=n - 2)) * float(row["slope_se"]) / abs(mean)
    est = float(row["relative_slope"])
    lo, hi = est - half, est + half
    rule = ROWS["no_trend"].text("bounds", lo=lo, hi=hi, **_MARGIN)
    if lo > -TREND_MARGIN:
        return Verdict("holds", rule + ": a larger decrease is ruled out")
    if hi < -TREND_MARGIN:
        return Verdict("fails", rule + ": decreasing beyond the margin")
    return Verdict("inconclusive", rule + ": a decrease beyond the margin is not ruled out")


def _method_verdict(row: pd.Series) -> Verdict:
    """One learned method: its trend decides ("no further decreasing trend" is the claim); a
    missing drop with no trend is half of the sentence (partly)."""
    trend = no_trend_verdict(row)
    if not trend.holds:
        return trend
    if float(row["drop"]) > 1:
        return Verdict("holds", trend.rule + "; drop > 1")
    return Verdict("partly", trend.rule + "; but no drop after week 0")


def _trend(learned: pd.DataFrame) -> tuple[str, Verdict, str]:
    """Over the learned methods' trend rows: the measured text, the combined verdict and the
    note's part naming each method the claim is not shown for, with why (empty if none)."""
    d = ROWS["no_trend"]
    measured = "; ".join(d.text("method", m=m, r=r) for m, r in learned.iterrows())
    verdicts = [(m, _method_verdict(r)) for m, r in learned.iterrows()]
    why = "; ".join(d.text("why", m=m, why=_WHY[v.verdict]) for m, v in verdicts if not v.holds)
    not_shown = d.text("not_shown", methods=why) if why else ""
    if not verdicts:
        return measured, _NO_LEARNED, not_shown
    v = combine([v for _, v in verdicts])
    return measured, Verdict(v.verdict, d.text("grading", combined=v.rule, **_MARGIN)), not_shown


def drift_claims(
    trends: pd.DataFrame,
    gain_trends: pd.DataFrame,
    *,
    dataset: str = "tweets",
    learn_on: str | None = None,
    alpha: float = 0.05,
    windows: str = "",
    label: str = "",
) -> list[Row]:
    """Rows ``no_trend`` and ``no_gain_decay``, on throughput and on the gain over hash."""
    learn_on = default_learn_on() if learn_on is None else learn_on
    d, gain, suffix = ROWS["no_trend"], ROWS["no_gain_decay"], f" ({label})" if label else ""
    measured, verdict, not_shown = _trend(_learned(trends, dataset, learn_on))
    hashed = _select(trends[trends["method"] == "hash"], dataset, learn_on)
    declines = ""
    if len(hashed) and bool(hashed["decreasing"].iloc[0]):
        declines = d.text("hash", slope=float(hashed["relative_slope"].iloc[0]))
        declines += d.text("hash_and_learned") if not_shown else d.text("hash_only")
    slots = {"windows": windows, "alpha": alpha, "learn_on": learn_on, "hash": declines}
    note = d.text("note", not_shown=not_shown, **slots, **_MARGIN)
    rows = [d.row(measured, verdict, note, suffix=suffix)]
    measured, verdict, not_shown = _trend(_learned(gain_trends, dataset, learn_on))
    note = gain.text("note", not_shown=not_shown)
    return rows + [gain.row(measured, verdict, note, suffix=suffix)]


def advantage_claim(
    frame: pd.DataFrame,
    *,
    dataset: str = "tweets",
    learn_on: str | None = None,
    leader: str = "SALB",
    label: str = "",
) -> Row:
    """Row ``advantage``."""
    learn_on = default_learn_on() if learn_on is None else learn_on
    d, best = ROWS["advantage"], _best(_select(frame, dataset, learn_on), "throughput")
    lost = ", ".join(d.text("window", w=int(w), m=m) for w, m in best.items() if m != leader)
    won = int((best == leader).sum())
    verdict = share(won, len(best), rule=d.text("grading", leader=leader))
    elsewhere = d.text("elsewhere", windows=lost) if lost else ""
    note = d.text("note", dataset=dataset, learn_on=learn_on, elsewhere=elsewhere)
    suffix = f" ({label})" if label else ""
    return d.graded(verdict, note, leader=leader, won=won, total=len(best), suffix=suffix)


def headline_rows(
    trends: pd.DataFrame,
    frame: pd.DataFrame,
    *,
    dataset: str = "tweets",
    learn_on: str | None = None,
    label: str = "",
) -> list[Row]:
    """Rows ``drop_by_2``, ``spread_and_imbalance`` and ``salb_imbalance``, on ``trends``
    (:func:`trend_tests` of throughput) and the per-window ``frame`` of :func:`run_drift`."""
    learn_on = default_learn_on() if learn_on is None else learn_on
    suffix = f" ({label})" if label else ""
    win, drops = _select(frame, dataset, learn_on), _learned(trends, dataset, learn_on)["drop"]
    return [_drop_row(drops, suffix), _spread_row(win, suffix), _salb_row(win, suffix)]


def _drop_row(drops: pd.Series, suffix: str) -> Row:
    """Row ``drop_by_2`` on the learned methods' drops."""
    d = ROWS["drop_by_2"]
    graded = [(m, x, within_factor(float(x), PAPER_DROP, DROP_FACTOR)) for m, x in drops.items()]
    verdict = combine([v for *_, v in graded]) if graded else _NO_LEARNED
    off = ", ".join(d.text("off", m=m, drop=x) for m, x, v in graded if not v.holds)
    outside = d.text("outside", methods=off, DROP_FACTOR=DROP_FACTOR) if off else ""
    measured = ", ".join(d.text("method", m=m, drop=x) for m, x, _ in graded)
    return d.row(measured, verdict, d.text("note", outside=outside), suffix=suffix)


def _spread_row(win: pd.DataFrame, suffix: str) -> Row:
    """Row ``spread_and_imbalance`` on the per-window frame."""
    d = ROWS["spread_and_imbalance"]
    learned = [m for m in LEARNED if m in set(win["method"])]
    if not learned or not {"spread_routed", "imbalance"} <= set(win.columns):
        return d.unmeasured(d.text("missing"), suffix=suffix)
    spread, imb = _later(win, "spread_routed"), _later(win, "imbalance")
    both = [m for m in learned if spread[m] > 1 and imb[m] > 1]
    sharper = [m for m in learned if imb[m] > spread[m]]
    both_rise = share(len(both), len(learned), rule=d.text("both"))
    verdict = combine([both_rise, share(len(sharper), len(learned), rule=d.text("sharper"))])
    each = ", ".join(d.text("method", m=m, spread=spread[m], imbalance=imb[m]) for m in learned)
    miss = ", ".join(m for m in learned if m not in both)
    note = d.text("note", methods=miss) if miss else ""
    return d.graded(verdict, note, methods=each, suffix=suffix)


def _salb_row(win: pd.DataFrame, suffix: str) -> Row:
    """Row ``salb_imbalance`` on the per-window frame."""
    d = ROWS["salb_imbalance"]
    methods = list(dict.fromkeys(win["method"]))
    if "SALB" not in methods or len(methods) < 2 or "imbalance" not in win.columns:
        return d.unmeasured(d.text("missing"), suffix=suffix)
    rise, lowest = _later(win, "imbalance", difference=True), _best(win, "imbalance", lowest=True)
    n_low, gap = int((lowest == "SALB").sum()), float(rise["SALB"] - rise.drop("SALB").max())
    steeper = direction(gap, neutral=0.0, expected="above")
    verdict = combine([steeper, share(n_low, len(lowest), rule=d.text("lowest"))])
    rises = ", ".join(d.text("rise", m=m, rise=v) for m, v in rise.items())
    note = "" if rise.idxmax() == "SALB" else d.text("note", steepest=rise.idxmax())
    return d.graded(verdict, note, rises=rises, lowest=n_low, windows=len(lowest), suffix=suffix)
