"""The verdict rules of the claims tables: every verdict each rule can give, on hand-made inputs."""

from __future__ import annotations

import math

import pytest

from routelab import claims as c


def test_verdict_vocabulary_is_enforced():
    with pytest.raises(ValueError, match="verdict must be one of"):
        c.Verdict("true", "some rule")
    with pytest.raises(ValueError, match="needs the rule"):
        c.Verdict("holds", " ")
    assert c.Verdict("holds", "r").holds and not c.Verdict("partly", "r").holds


@pytest.mark.parametrize(
    ("measured", "expected"),
    [
        (2.56, "holds"),
        (2.0, "holds"),  # 2.56 / 1.3 = 1.97
        (3.3, "holds"),  # 2.56 * 1.3 = 3.33
        (1.9, "direction only"),  # beyond the tolerance, still > 1
        (1.28, "direction only"),
        (40.0, "direction only"),
        (0.8, "fails"),  # the opposite direction
        (1.0, "fails"),  # no effect at all
        (math.nan, "not comparable"),
    ],
)
def test_within_factor(measured, expected):
    v = c.within_factor(measured, 2.56, 1.3)
    assert v.verdict == expected
    assert "1.3x" in v.rule and "2.56" in v.rule


def test_within_factor_below_neutral_and_bad_arguments():
    # a reduction the paper sizes at 0.5x: 0.9x is the right direction, 1.2x is not
    assert c.within_factor(0.55, 0.5, 1.2).verdict == "holds"
    assert c.within_factor(0.9, 0.5, 1.2).verdict == "direction only"
    assert c.within_factor(1.2, 0.5, 1.2).verdict == "fails"
    with pytest.raises(ValueError):
        c.within_factor(1.0, 2.0, 0.5)
    with pytest.raises(ValueError):
        c.within_factor(1.0, -2.0, 2.0)


def test_within_tolerance():
    assert c.within_tolerance(0.27, 0.25, 0.05).verdict == "holds"
    assert c.within_tolerance(0.73, 0.25, 0.05).verdict == "fails"
    assert c.within_tolerance(0.73, 0.25, 0.05, neutral=0.0).verdict == "direction only"
    assert c.within_tolerance(-0.1, 0.25, 0.05, neutral=0.0).verdict == "fails"
    assert c.within_tolerance(math.nan, 0.25, 0.05).verdict == "not comparable"
    with pytest.raises(ValueError):
        c.within_tolerance(1, 1, -1)


def test_bounds_and_direction():
    assert c.at_least(21, 20).verdict == "holds"
    assert c.at_least(19.9, 20).verdict == "fails"
    assert c.at_most(5, 5).verdict == "holds"
    assert c.at_most(5.1, 5).verdict == "fails"
    assert c.at_most(math.nan, 5).verdict == "not comparable"
    assert c.direction(1.1, neutral=1, expected="above").verdict == "holds"
    assert c.direction(0.9, neutral=1, expected="above").verdict == "fails"
    assert c.direction(0.9, neutral=1, expected="below").verdict == "holds"
    with pytest.raises(ValueError):
        c.direction(1, neutral=1, expected="up")


def test_ordering():
    order = ["dynamic", "propagation_wp", "propagation", "counting"]
    times = {"dynamic": 1.0, "propagation_wp": 5.0, "propagation": 8.0, "counting": 900.0}
    assert c.ordering(times, order).verdict == "holds"
    swapped = {**times, "propagation_wp": 9.0}  # 1 of 3 pairs out of order
    assert c.ordering(swapped, order).verdict == "partly"
    reversed_ = {k: -v for k, v in times.items()}
    assert c.ordering(reversed_, order).verdict == "fails"
    assert c.ordering({"dynamic": 1.0}, order).verdict == "not comparable"
    assert "(3/3)" in c.ordering(times, order).rule


def test_share():
    assert c.share(4, 4).verdict == "holds"
    assert c.share(2, 4).verdict == "partly"
    assert c.share(1, 4).verdict == "fails"
    assert c.share(1, 4, partly_at=0.25).verdict == "partly"
    assert c.share(0, 4, partly_at=0.0).verdict == "fails"  # partly needs at least one case
    assert c.share(0, 0).verdict == "not comparable"


def test_equivalent_can_show_absence_and_presence():
    assert c.equivalent(0.01, -0.02, 0.03, margin=0.05).verdict == "holds"
    present = c.equivalent(-0.2, -0.3, -0.1, margin=0.05)
    assert present.verdict == "fails" and "outside" in present.rule
    unsure = c.equivalent(-0.02, -0.09, 0.05, margin=0.05)  # a failure to reject, no more
    assert unsure.verdict == "fails" and "inconclusive" in unsure.rule
    assert c.equivalent(math.nan, math.nan, math.nan, margin=0.05).verdict == "not comparable"
    with pytest.raises(ValueError):
        c.equivalent(0, 1, -1, margin=0.1)
    with pytest.raises(ValueError):
        c.equivalent(0, -1, 1, margin=0)


def test_combine():
    h, d, f, n = (c.Verdict(v, v) for v in ("holds", "direction only", "fails", "not comparable"))
    assert c.combine([h, h]).verdict == "holds"
    assert c.combine([h, d]).verdict == "direction only"
    assert c.combine([h, f]).verdict == "partly"
    assert c.combine([f, f, n]).verdict == "fails"
    assert c.combine([n, n]).verdict == "not comparable"
    assert c.combine([h, n]).verdict == "holds"
    with pytest.raises(ValueError):
        c.combine([])


def test_claim_row_is_what_report_claim_takes(tmp_path, monkeypatch):
    from routelab.report import CLAIM_KEYS, NotebookReport

    row = c.claim_row("c", "Fig. 1", "2x", "1.5x", c.within_factor(1.5, 2, 1.5), "n", kind="claim")
    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path))
    recorded = NotebookReport("xx_row", profile="smoke", show=False).claim(**row)
    assert recorded.verdict == "holds" and recorded.paper_value == "2x"
    assert set(row) | {"rule"} == set(CLAIM_KEYS)
    with pytest.raises(ValueError, match="kind"):
        c.claim_row("c", "p", "v", "m", c.within_factor(1.5, 2, 1.5), kind="derivation")
