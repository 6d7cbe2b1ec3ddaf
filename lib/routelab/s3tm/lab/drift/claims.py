"""The claims of notebook 05_drift (S3-TM Sect. 6.4, Fig. 7i-l), checked on the frames of
:mod:`routelab.s3tm.lab.drift.experiments`.

Throughput here is Eq. 6 computed from the routed loads of each window, not a wall-clock
time, so no row is a timing row. The notes are built from the measured trends: a method is
named with the reason it does not hold (a decrease beyond the margin, one not ruled out,
no drop after week 0).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from routelab.claims import Verdict, combine, declarations, share
from routelab.s3tm.lab.drift.experiments import LEARNED, default_learn_on

#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)

#: "No further decreasing trend" is shown, not assumed: the one-sided 95 % lower confidence
#: bound of the relative slope (slope / later mean, per window) must lie above -2 % per
#: window, i.e. a decrease larger than the margin is ruled out (a non-inferiority test; the
#: margin is declared here, before any run). A rising trend is no decrease.
TREND_MARGIN = 0.02
TREND_CONFIDENCE = 0.95


def no_trend_verdict(row: pd.Series) -> Verdict:
    """No decrease beyond :data:`TREND_MARGIN` per window (Sect. 6.4, "no further decreasing
    trend"), shown by the slope's one-sided bounds: holds if the lower bound lies above
    -margin (a larger decrease is ruled out), fails if the upper bound lies below it (the
    decrease is beyond the margin), inconclusive if the bounds straddle it (the windows
    cannot decide, as :func:`routelab.claims.equivalent`); not comparable with fewer than 3
    windows after week 0."""
    from scipy import stats

    n = int(row.get("windows_tested", 0))
    mean = float(row["later_mean"])
    if n < 3 or not mean:
        return Verdict("not comparable", "fewer than 3 windows after week 0")
    half = float(stats.t.ppf(TREND_CONFIDENCE, df=n - 2)) * float(row["slope_se"]) / abs(mean)
    est = float(row["relative_slope"])
    lo, hi = est - half, est + half
    rule = (
        f"one-sided {TREND_CONFIDENCE:.0%} bounds of the relative slope [{lo:+.1%}, {hi:+.1%}]"
        f"/window vs the margin -{TREND_MARGIN:.0%}"
    )
    if lo > -TREND_MARGIN:
        return Verdict("holds", rule + ": a larger decrease is ruled out")
    if hi < -TREND_MARGIN:
        return Verdict("fails", rule + ": decreasing beyond the margin")
    return Verdict("inconclusive", rule + ": a decrease beyond the margin is not ruled out")


def _method_verdict(drop: float, trend: Verdict) -> Verdict:
    """Per method: the trend part decides ("no further decreasing trend" is the claim): a
    trend that fails, is inconclusive or not comparable passes on; a missing drop with no
    trend is half of the sentence (partly)."""
    if trend.verdict != "holds":
        return trend
    if drop > 1:
        return Verdict("holds", trend.rule + "; drop > 1")
    return Verdict("partly", trend.rule + "; but no drop after week 0")


_WHY = {
    "fails": "a decrease beyond the margin",
    "inconclusive": "a decrease beyond the margin not ruled out",
    "partly": "no drop after week 0",
    "not comparable": "fewer than 3 windows after week 0",
}


def _why_not(methods: list[str], verdicts: list[Verdict]) -> str:
    """``"gFCL: a decrease beyond the margin; SALB: no drop after week 0"``: each method
    whose verdict is not "holds", with the reason its verdict gives."""
    return "; ".join(
        f"{m}: {_WHY[v.verdict]}"
        for m, v in zip(methods, verdicts, strict=True)
        if v.verdict != "holds"
    )


def drift_claims(
    trends: pd.DataFrame,
    gain_trends: pd.DataFrame,
    *,
    dataset: str = "tweets",
    learn_on: str | None = None,
    alpha: float = 0.05,
    windows: str = "",
    label: str = "",
) -> list[dict[str, Any]]:
    """Rows ``no_trend`` and ``no_gain_decay`` (claims.toml), on throughput and on the gain
    over hash; ``label`` is appended to the claim texts. ``learn_on`` ``None``:
    :func:`~routelab.s3tm.lab.drift.experiments.default_learn_on`."""
    learn_on = default_learn_on() if learn_on is None else learn_on
    suffix = f" ({label})" if label else ""

    def verdict(t: pd.DataFrame) -> tuple[str, Verdict, str]:
        sel = t[(t["dataset"] == dataset) & (t["learn_on"] == learn_on)].set_index("method")
        sel = sel.loc[[m for m in LEARNED if m in sel.index]]
        parts = [
            f"{m}: drop x{r['drop']:.2f}, slope {r['relative_slope']:+.1%}/window "
            f"(p={r['p_decreasing']:.2f})"
            for m, r in sel.iterrows()
        ]
        per_method = [
            _method_verdict(float(r["drop"]), no_trend_verdict(r)) for _, r in sel.iterrows()
        ]
        why = _why_not(list(sel.index), per_method)
        if not per_method:
            return "; ".join(parts), Verdict("not comparable", "no learned method"), why
        v = combine(per_method)
        rule = (
            f"per learned method: a decrease of more than {TREND_MARGIN:.0%}/window ruled out "
            f"(one-sided {TREND_CONFIDENCE:.0%} bound) and a drop after week 0; {v.rule}"
        )
        return "; ".join(parts), Verdict(v.verdict, rule), why

    out = []
    text, ok, why = verdict(trends)
    hash_row = trends[
        (trends["dataset"] == dataset)
        & (trends["learn_on"] == learn_on)
        & (trends["method"] == "hash")
    ]
    note = (
        f"least-squares slope of throughput over windows 1.. ({windows}); the absence of a "
        f"decrease is shown by ruling out one larger than {TREND_MARGIN:.0%}/window (a "
        f"non-significant one-sided t-test at {alpha:.0%} would not show it); mapping learned "
        f"on {learn_on!r} words of window 0"
    )
    if why:
        note += f"; not shown for {why}"
    if len(hash_row) and bool(hash_row["decreasing"].iloc[0]):
        slope = float(hash_row["relative_slope"].iloc[0])
        note += f"; hash (which learns nothing) declines significantly ({slope:+.1%}/window)"
        note += (
            ", so part of the decline is the workload itself changing, not the mapping ageing"
            if why
            else " while the learned mappings do not"
        )
    out.append(ROWS["no_trend"].row(text, ok, note, suffix=suffix))
    text, ok, why = verdict(gain_trends)
    out.append(ROWS["no_gain_decay"].row(
        text, ok, "same test on throughput / hash throughput per window, which removes "
        "workload changes that affect every mapping" + (f"; not shown for {why}" if why else ""),
        suffix=suffix,
    ))  # fmt: skip
    return out


def advantage_claim(
    frame: pd.DataFrame,
    *,
    dataset: str = "tweets",
    learn_on: str | None = None,
    leader: str = "SALB",
    label: str = "",
) -> dict[str, Any]:
    """Row ``advantage`` (claims.toml); ``label`` is appended to the claim text; ``learn_on``
    ``None``: :func:`~routelab.s3tm.lab.drift.experiments.default_learn_on`."""
    learn_on = default_learn_on() if learn_on is None else learn_on
    later = frame[
        (frame["dataset"] == dataset) & (frame["learn_on"] == learn_on) & (frame["window"] > 0)
    ]
    best = later.loc[later.groupby("window")["throughput"].idxmax()].set_index("window")["method"]
    lost = {int(w): m for w, m in best.items() if m != leader}
    return ROWS["advantage"].row(
        f"{leader} has the highest throughput in {len(best) - len(lost)} of "
        f"{len(best)} windows after week 0",
        share(
            len(best) - len(lost),
            len(best),
            rule=f"windows after week 0 where {leader} has the highest throughput",
        ),
        f"{dataset}, mapping learned on {learn_on!r} words of window 0"
        + (
            "; best elsewhere: " + ", ".join(f"window {w}: {m}" for w, m in lost.items())
            if lost
            else ""
        ),
        leader=leader, suffix=f" ({label})" if label else "",
    )  # fmt: skip


#: Sect. 6.4, "the throughput decreases by a factor of 2 after the first week": week 0's
#: throughput over the later windows' mean, per learned method ...
PAPER_DROP = 2.0
#: ... within this factor of 2 holds (1.6-2.5); a drop outside it is direction only.
DROP_FACTOR = 1.25


def _later_over_week0(frame: pd.DataFrame, metric: str) -> pd.Series:
    """Per method: the mean of ``metric`` over windows 1.. over its value in window 0."""
    week0 = frame[frame["window"] == 0].groupby("method")[metric].mean()
    later = frame[frame["window"] > 0].groupby("method")[metric].mean()
    return later / week0


def headline_rows(
    trends: pd.DataFrame,
    frame: pd.DataFrame,
    *,
    dataset: str = "tweets",
    learn_on: str | None = None,
    label: str = "",
) -> list[dict[str, Any]]:
    """Rows ``drop_by_2``, ``spread_and_imbalance`` and ``salb_imbalance`` (claims.toml), on
    ``trends`` (:func:`trend_tests` of throughput) and the per-window ``frame`` of
    :func:`run_drift`."""
    from routelab.claims import direction, within_factor

    learn_on = default_learn_on() if learn_on is None else learn_on
    suffix = f" ({label})" if label else ""
    sel = trends[(trends["dataset"] == dataset) & (trends["learn_on"] == learn_on)]
    sel = sel.set_index("method").loc[lambda t: [m for m in LEARNED if m in t.index]]
    win = frame[(frame["dataset"] == dataset) & (frame["learn_on"] == learn_on)]
    rows = []
    if len(sel):
        parts = [within_factor(float(d), PAPER_DROP, DROP_FACTOR) for d in sel["drop"]]
        verdict = combine(parts)
    else:
        verdict = Verdict("not comparable", "no learned method")
    off = [
        f"{m} x{d:.2f}"
        for m, d in sel["drop"].items()
        if not within_factor(float(d), PAPER_DROP, DROP_FACTOR).holds
    ]
    rows.append(ROWS["drop_by_2"].row(
        ", ".join(f"{m}: x{d:.2f}" for m, d in sel["drop"].items()), verdict,
        "drop = week 0's throughput / the later windows' mean"
        + (f"; outside 2x within {DROP_FACTOR:g}x: {', '.join(off)}" if off else ""),
        suffix=suffix,
    ))  # fmt: skip
    learned = [m for m in LEARNED if m in set(win["method"])]
    if learned and {"spread_routed", "imbalance"} <= set(win.columns):
        spread = _later_over_week0(win, "spread_routed")
        imb = _later_over_week0(win, "imbalance")
        both = [m for m in learned if spread[m] > 1 and imb[m] > 1]
        sharper = [m for m in learned if imb[m] > spread[m]]
        verdict = combine(
            [
                share(
                    len(both),
                    len(learned),
                    rule="learned methods whose spread and imbalance both rise after week 0",
                ),
                share(
                    len(sharper),
                    len(learned),
                    rule="learned methods whose imbalance rises more than their spread",
                ),
            ]
        )
        measured = "later / week 0: " + ", ".join(
            f"{m} spread x{spread[m]:.2f}, imbalance x{imb[m]:.2f}" for m in learned
        )
        miss = [m for m in learned if m not in both]
        note = "" if not miss else "not both rising for: " + ", ".join(miss)
    else:
        verdict = Verdict(
            "not comparable", "needs per-window spread and imbalance of a learned method"
        )
        measured, note = "not measured", ""
    rows.append(ROWS["spread_and_imbalance"].row(measured, verdict, note, suffix=suffix))
    methods = list(dict.fromkeys(win["method"]))
    if "SALB" in methods and len(methods) > 1 and "imbalance" in win.columns:
        w0 = win[win["window"] == 0].groupby("method")["imbalance"].mean()
        later = win[win["window"] > 0]
        rise = later.groupby("method")["imbalance"].mean() - w0
        steepest = rise.idxmax()
        lowest = later.loc[later.groupby("window")["imbalance"].idxmin(), ["window", "method"]]
        n_low = int((lowest["method"] == "SALB").sum())
        verdict = combine(
            [
                direction(
                    float(rise["SALB"] - rise.drop("SALB").max()), neutral=0.0, expected="above"
                ),
                share(
                    n_low, len(lowest), rule="windows after week 0 where SALB's imbalance is lowest"
                ),
            ]
        )
        measured = (
            "imbalance rise (later mean - week 0): "
            + ", ".join(f"{m} {v:+.3f}" for m, v in rise.items())
            + f"; SALB lowest in {n_low}/{len(lowest)} windows after week 0"
        )
        note = "" if steepest == "SALB" else f"the steepest rise is {steepest}'s, not SALB's"
    else:
        verdict = Verdict("not comparable", "needs SALB and another method's per-window imbalance")
        measured, note = "not measured", ""
    rows.append(ROWS["salb_imbalance"].row(measured, verdict, note, suffix=suffix))
    return rows
