"""The claims rules of notebook 06_shedding on hand-made inputs: every verdict each rule can
give."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from routelab.claims import Verdict, claim_row
from routelab.s3tm.lab.shedding import claims as sc
from routelab.s3tm.shedding import RANDOM_DROP


def _curve(sub, con, rnd, sheds):
    """A Fig. 8a curve over thresholds inf, 3, 2, 1 with given accuracies and load sheds
    (random dropping sheds what subscription shedding sheds)."""
    rows = []
    ms = [math.inf, 3.0, 2.0, 1.0]
    for method, acc, shed in (
        ("subscription", sub, sheds),
        ("consensus", con, sheds),
        (RANDOM_DROP, rnd, sheds),
    ):
        for m, a, s in zip(ms, acc, shed, strict=True):
            rows.append(
                {"method": method, "m": m, "accuracy": a, "load_shed": s, "false_matches": 0}
            )
    return pd.DataFrame(rows)


SHEDS = [0.0, 0.1, 0.25, 0.5]
#: subscription keeps 95 % at 25 % shed (the paper's point, interpolated: 0.25 + ...)
GOOD = _curve([1.0, 0.97, 0.95, 0.8], [1.0, 0.9, 0.8, 0.6], [1.0, 0.9, 0.75, 0.5], SHEDS)
#: consensus better than subscription everywhere; random better than subscription at m = 1
BAD = _curve([1.0, 0.9, 0.8, 0.3], [1.0, 0.95, 0.9, 0.6], [1.0, 0.9, 0.75, 0.5], SHEDS)


def _deliveries(false=0, missed=0):
    return SimpleNamespace(false_matches=false, missed_matches=missed)


# --------------------------------------------------------------------------- rules


@pytest.mark.parametrize(
    ("gain", "verdict"),
    [
        ({"mean_gain": 0.1, "min_gain": 0.0, "share_better": 1.0, "n": 5}, "holds"),
        ({"mean_gain": 0.1, "min_gain": -0.004, "share_better": 0.8, "n": 5}, "holds"),  # tie
        ({"mean_gain": 0.1, "min_gain": -0.05, "share_better": 0.8, "n": 5}, "partly"),
        ({"mean_gain": -0.02, "min_gain": -0.05, "share_better": 0.0, "n": 5}, "fails"),
        ({"mean_gain": 0.0, "min_gain": 0.0, "share_better": 1.0, "n": 5}, "fails"),
        (
            {"mean_gain": math.nan, "min_gain": math.nan, "share_better": math.nan, "n": 0},
            "not comparable",
        ),
    ],
)
def test_beats_verdict(gain, verdict):
    assert sc.beats_verdict(gain).verdict == verdict


@pytest.mark.parametrize(
    ("shed", "verdict"),
    [
        (0.25, "holds"),
        (0.16, "holds"),
        (0.34, "holds"),
        (0.731, "direction only"),  # the earlier tweet workload
        (0.128, "direction only"),  # the earlier topic workload
        (0.0, "fails"),
        (math.nan, "not comparable"),
    ],
)
def test_shed_verdict_is_graded_at_the_papers_size(shed, verdict):
    assert sc.shed_verdict(shed).verdict == verdict


@pytest.mark.parametrize(
    ("diff", "verdict"),
    [(0.025, "holds"), (0.0, "fails"), (-0.1, "fails"), (math.nan, "not comparable")],
)
def test_random_drop_verdict(diff, verdict):
    assert sc.random_drop_verdict(diff).verdict == verdict


def test_per_workload_combines_and_names_each_workload():
    h = sc.shed_verdict(0.25)
    d = sc.shed_verdict(0.7)
    f = sc.shed_verdict(0.0)
    assert sc.per_workload({"tweet": h, "topic": h}).verdict == "holds"
    both = sc.per_workload({"tweet": d, "topic": h})
    assert both.verdict == "direction only" and "tweet: direction only, topic: holds" in both.rule
    assert sc.per_workload({"tweet": h, "topic": f}).verdict == "partly"
    assert sc.per_workload({"tweet": f, "topic": f}).verdict == "fails"


def test_random_drop_gaps_by_hand():
    # GOOD: at m = 3, 2, 1 (sheds 10, 25, 50 % >= 1 %): 0.97-0.9, 0.95-0.75, 0.8-0.5
    assert sc.random_drop_gaps(GOOD) == pytest.approx(0.07)
    assert sc.random_drop_gaps(BAD) == pytest.approx(-0.2)
    nothing = GOOD.assign(load_shed=0.0)
    assert math.isnan(sc.random_drop_gaps(nothing))


# --------------------------------------------------------------------------- rows


def _by_claim(rows):
    return {r["claim"].split(" ")[0]: r for r in rows}


def test_shedding_claims_hold_on_a_curve_meeting_the_paper():
    rows = sc.shedding_claims({"tweet": GOOD}, {"tweet": _deliveries()})
    assert [r["kind"] for r in rows] == ["check", "claim", "claim", "claim", "claim"]
    for r in rows:
        assert set(r) == set(claim_row("c", "p", "", "m", Verdict("holds", "r")))
        assert r["paper_value"] and r["verdict"].rule
    assert [r["verdict"].verdict for r in rows] == ["holds"] * 5
    # accuracy 0.95 at 25 % shed, 0.8 at 50 %: 90 % is reached at 25 + 25 * 5/15 = 33.3 %
    assert "tweet: 33.3% shed" in rows[2]["measured"]


def test_shedding_claims_fail_where_the_paper_does_not_hold():
    rows = sc.shedding_claims({"tweet": BAD}, {"tweet": _deliveries(false=2)})
    verdicts = [r["verdict"].verdict for r in rows]
    assert verdicts == ["fails", "fails", "direction only", "fails", "holds"]  # shape holds
    assert "0 false and 0 missed" not in rows[0]["measured"]


def test_one_workload_of_two_makes_a_claim_partly():
    rows = sc.shedding_claims(
        {"tweet": GOOD, "topic": BAD}, {"tweet": _deliveries(), "topic": _deliveries()}
    )
    assert rows[1]["verdict"].verdict == "partly"
    assert "; not on topic: consensus shedding is ahead" in rows[1]["note"]
    assert rows[3]["verdict"].verdict == "partly"


def test_shed_far_above_the_paper_is_direction_only_with_the_reason():
    far = _curve([1.0, 0.99, 0.98, 0.95], [1.0, 0.9, 0.8, 0.6], [1.0, 0.9, 0.75, 0.5], SHEDS)
    rows = sc.shedding_claims({"tweet": far}, {"tweet": _deliveries()})
    assert rows[2]["verdict"].verdict == "direction only"
    assert "tweet: 50.0% shed" in rows[2]["measured"] and "50%, more than" in rows[2]["note"]


# --------------------------------------------------------------------------- Fig. 8b


def _report(levels, settled=(0, 0, 0, 0), times=(10.0, 20.0, 60.0, 5.0)):
    return pd.DataFrame(
        {
            "input_rate": [16_000.0, 32_000.0, 2_000.0, 16_000.0],
            "level_end": list(levels),
            "settled_range": list(settled),
            "settle_time": list(times),
            "reversals": [0, 0, 0, 0],
            "dropped": [0.0] * 4,
        }
    )


def test_follows_rate_counts_each_rate_change():
    assert sc.follows_rate(_report([3, 6, 0, 3]), 8) == (3, 3)
    assert sc.follows_rate(_report([3, 8, 0, 3]), 8) == (3, 3)  # 8 is the top
    assert sc.follows_rate(_report([3, 3, 0, 3]), 8) == (2, 3)
    assert sc.follows_rate(_report([3, 3, 3, 3]), 8) == (0, 3)


def test_controller_verdict_each_outcome():
    assert sc.controller_verdict(_report([3, 6, 0, 3]), 0, 8).verdict == "holds"
    # one rate change missed: the "follows" part is partly
    assert sc.controller_verdict(_report([3, 3, 0, 3]), 0, 8).verdict == "partly"
    # follows, but jumps across the stable segment: one part fails
    assert sc.controller_verdict(_report([3, 6, 0, 3]), 2, 8).verdict == "partly"
    # nothing followed, jumps, and no segment settles
    flat = _report([3, 3, 3, 3], settled=(4, 4, 4, 4))
    assert sc.controller_verdict(flat, 3, 8).verdict == "fails"


def test_lag_ratio_and_its_direction():
    assert sc.lag_ratio(_report([3, 6, 0, 3])) == pytest.approx(3.0)  # 60 s down / 20 s up
    assert sc.lag_ratio(_report([3, 6, 0, 3], times=(1, 40, 20, 1))) == pytest.approx(0.5)
    assert math.isnan(sc.lag_ratio(_report([3, 6, 0, 3]).iloc[:2]))
    assert sc.lag_times(_report([3, 6, 0, 3])) == (20.0, 60.0)
    assert sc.lag_verdict(3.0).verdict == "holds"
    assert sc.lag_verdict(0.5).verdict == "fails"
    assert sc.lag_verdict(math.nan).verdict == "not comparable"
    # both settle at once: nothing shows the descent slower (not an infinite ratio that holds)
    both_instant = _report([3, 6, 0, 3], times=(1, 0, 0, 1))
    assert sc.lag_times(both_instant) == (0.0, 0.0)
    assert math.isnan(sc.lag_ratio(both_instant))
    assert sc.lag_verdict(sc.lag_ratio(both_instant)).verdict == "not comparable"
    # an instant rise and a slow descent: the descent is slower (infinite ratio, holds)
    assert sc.lag_ratio(_report([3, 6, 0, 3], times=(1, 0, 20, 1))) == math.inf


def test_curve_summary_by_hand():
    from routelab.s3tm.lab.shedding.experiments import curve_summary

    out = curve_summary({"good": GOOD, "bad": BAD})
    assert out.loc["good", "subscription: shed at 90% accuracy"] == pytest.approx(0.25 + 0.25 / 3)
    # consensus: 0.9 at 10 % shed, 0.8 at 25 %: exactly 10 %
    assert out.loc["good", "consensus: shed at 90% accuracy"] == pytest.approx(0.1)
    assert out.loc["good", "lead over random dropping (min)"] == pytest.approx(0.07)
    assert out.loc["bad", "gain over consensus (mean)"] < 0


# --------------------------------------------------------------------------- notes


def test_consensus_note_follows_each_workload():
    rows = sc.shedding_claims({"tweet": GOOD}, {"tweet": _deliveries()})
    assert rows[1]["verdict"].verdict == "holds" and "not on" not in rows[1]["note"]
    # BAD: consensus is ahead at every shed -> the note says so for that workload only
    rows = sc.shedding_claims(
        {"tweet": BAD, "topic": GOOD}, {"tweet": _deliveries(), "topic": _deliveries()}
    )
    assert rows[1]["verdict"].verdict == "partly"
    assert "; not on tweet: consensus shedding is ahead on average" in rows[1]["note"]
    assert "topic:" not in rows[1]["note"]
    # identical accuracies: a tie, named as one
    tie = _curve([1.0, 0.9, 0.8, 0.6], [1.0, 0.9, 0.8, 0.6], [1.0, 0.9, 0.75, 0.5], SHEDS)
    rows = sc.shedding_claims({"topic": tie}, {"topic": _deliveries()})
    assert (
        rows[1]["verdict"].verdict == "fails" and "topic: the two policies tie" in rows[1]["note"]
    )


def test_shed_note_explains_only_what_the_numbers_show():
    # the paper's 25 %: no note beyond the setting
    rows = sc.shedding_claims({"tweet": GOOD}, {"tweet": _deliveries()})
    assert rows[2]["verdict"].verdict == "holds" and "more than" not in rows[2]["note"]
    far = _curve([1.0, 0.99, 0.98, 0.95], [1.0, 0.9, 0.8, 0.6], [1.0, 0.9, 0.75, 0.5], SHEDS)
    # far above the paper on topic-based subscriptions: no tweet-based explanation
    rows = sc.shedding_claims({"topic": far}, {"topic": _deliveries()})
    assert "topic: 50%, more than" in rows[2]["note"] and "whole post" not in rows[2]["note"]
    rows = sc.shedding_claims({"tweet": far}, {"tweet": _deliveries()})
    assert "whole post" in rows[2]["note"]
    # 90 % accuracy at 10 % shed: less than the paper, and no explanation for more
    rows = sc.shedding_claims({"tweet": BAD}, {"tweet": _deliveries()})
    assert rows[2]["verdict"].verdict == "direction only"
    assert (
        "tweet: 10%, less than the paper's" in rows[2]["note"]
        and "whole post" not in rows[2]["note"]
    )


def test_lag_sensitivity_is_computed_from_the_times():
    # 7 s down / 2 s up = 3.5: one second moves it by 14 %-50 %; 6 / 3 = 2 still above 1
    text = sc._lag_sensitivity(2.0, 7.0)
    assert "14%-50%" in text and "would not flip" in text
    # 4 s / 3 s = 1.33: 3 / 4 < 1, one second could flip it
    assert "could flip" in sc._lag_sensitivity(3.0, 4.0)
    # 3 s / 4 s = 0.75 (fails): 4 / 3 > 1 could flip it back
    assert "could flip" in sc._lag_sensitivity(4.0, 3.0)
    assert "would not flip" in sc._lag_sensitivity(20.0, 2.0)
    assert sc._lag_sensitivity(math.nan, 2.0) == ""
