"""The verdict rules of the claims tables: every verdict each rule can give, on hand-made inputs."""

from __future__ import annotations

import math

import numpy as np
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
    assert unsure.verdict == "inconclusive" and "crosses" in unsure.rule
    assert c.equivalent(math.nan, math.nan, math.nan, margin=0.05).verdict == "not comparable"
    with pytest.raises(ValueError):
        c.equivalent(0, 1, -1, margin=0.1)
    with pytest.raises(ValueError):
        c.equivalent(0, -1, 1, margin=0)


def test_equivalent_measured_every_verdict_and_the_repeats_that_would_decide():
    """Paired ratios against a 1.5x margin either way. Hand-computed: log ratios 0, +-0.05
    (ratios 1, e^0.05, e^-0.05) have mean 0 and sd 0.05, so the 95 % interval is
    +-4.303 * 0.05 / sqrt(3) = +-0.124, inside +-ln 1.5 = +-0.405: holds."""
    den = np.ones(3)
    same = c.equivalent_measured(np.exp([0.0, 0.05, -0.05]), den, 1.5)
    assert same.verdict == "holds" and same.repeats == 3
    assert "[0.667, 1.5]" in same.rule
    assert "ratio 1 [0.883, 1.13] over 3 repeats" in same.rule
    halved = c.equivalent_measured(np.exp([-0.7, -0.75, -0.65]), den, 1.5)
    assert halved.verdict == "fails" and "outside the margin" in halved.rule
    # mean -0.2, sd 0.2 over 4: the interval -0.2 +- 3.182 * 0.1 reaches -0.518, past -0.405
    edge = c.equivalent_measured(np.exp([0.0, -0.2, -0.4, -0.2 + 0.0]), np.ones(4), 1.5)
    assert edge.verdict == "inconclusive" and "crosses the margin" in edge.rule
    n = c.repeats_to_decide([0.0, -0.2, -0.4, -0.2], [-math.log(1.5), math.log(1.5)])
    assert n is not None and n > 4 and f"about {n} repeats would decide" in edge.rule
    assert c.equivalent_measured([1.0, 1.1], [1.0, 1.0], 1.5).verdict == "not comparable"
    with pytest.raises(ValueError):
        c.equivalent_measured(den, den, 1.0)


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
    assert set(row) | {"rule", "repeats"} == set(CLAIM_KEYS)
    with pytest.raises(ValueError, match="kind"):
        c.claim_row("c", "p", "v", "m", c.within_factor(1.5, 2, 1.5), kind="derivation")


def test_t_interval_uses_the_t_quantile_for_its_degrees_of_freedom():
    mean, low, high = c.t_interval([1.0, 2.0, 3.0])
    # s = 1, n = 3: half width t(0.975, 2) / sqrt(3) = 4.303 / 1.732 = 2.484 (1.96 gives 1.13)
    assert mean == 2.0 and math.isclose(high - mean, 2.4843, rel_tol=1e-3)
    assert math.isclose(mean - low, high - mean)
    assert all(math.isnan(v) for v in c.t_interval([1.0])[1:])
    assert all(math.isnan(v) for v in c.t_interval([]))
    ratio, lo, hi = c.ratio_interval([2.0, 2.0, 2.0], [1.0, 1.0, 1.0])
    assert (ratio, lo, hi) == (2.0, 2.0, 2.0)
    with pytest.raises(ValueError, match="paired"):
        c.ratio_interval([1.0, 2.0], [1.0])


def test_direction_measured_gives_every_verdict():
    fast, slow = [1.0, 1.1, 0.9, 1.0], [2.0, 2.1, 1.9, 2.0]
    assert c.direction_measured(slow, fast, expected="above").verdict == "holds"
    assert c.direction_measured(fast, slow, expected="above").verdict == "fails"
    assert c.direction_measured(slow, fast, expected="below").verdict == "fails"
    assert c.direction_measured(fast, slow, expected="below").verdict == "holds"
    noisy = [1.0, 1.3, 0.8, 1.1]  # ratios around 1: noise cannot decide
    v = c.direction_measured(noisy, fast, expected="above")
    assert v.verdict == "inconclusive" and "includes 1" in v.rule
    v = c.direction_measured(slow[:2], fast[:2], expected="above")  # too few repeats
    assert v.verdict == "not comparable" and "only 2 paired repeats" in v.rule
    with pytest.raises(ValueError, match="above"):
        c.direction_measured(slow, fast, expected="up")


def test_direction_measured_with_a_margin_fails_a_negligible_difference():
    ones = [1.0] * 5
    tiny = [1.02, 0.99, 1.03, 1.0, 1.01]  # ~1 % slower: no meaningful slow-down
    assert c.direction_measured(tiny, ones, expected="above").verdict == "inconclusive"
    v = c.direction_measured(tiny, ones, expected="above", margin=0.1)
    assert v.verdict == "fails" and "above 1.1" in v.rule
    big = [1.5, 1.45, 1.55, 1.5, 1.48]
    assert c.direction_measured(big, ones, expected="above", margin=0.1).verdict == "holds"
    edge = [1.02, 1.18, 1.1, 1.05, 1.15]
    assert c.direction_measured(edge, ones, expected="above", margin=0.1).verdict == (
        "inconclusive"
    )
    faster = [0.6, 0.62, 0.58, 0.61, 0.6]
    assert c.direction_measured(faster, ones, expected="below", margin=0.1).verdict == "holds"
    assert c.direction_measured(tiny, ones, expected="below", margin=0.1).verdict == "fails"
    with pytest.raises(ValueError, match="margin"):
        c.direction_measured(tiny, ones, expected="above", margin=-0.1)
    with pytest.raises(ValueError, match="paired"):
        c.ordering_measured({"a": ones, "b": big}, ["a", "b"], margin=0.1)
    assert c.ordering_measured({"a": ones, "b": tiny}, ["a", "b"], paired=True,
                               margin=0.1).verdict == "fails"  # fmt: skip


def test_ordering_measured_gives_every_verdict():
    order = ["a", "b", "c"]
    apart = {"a": [1.0, 1.1, 0.9], "b": [5.0, 5.1, 4.9], "c": [9.0, 9.1, 8.9]}
    assert c.ordering_measured(apart, order).verdict == "holds"
    overlap = {**apart, "c": [4.0, 6.0, 5.5]}  # b and c overlap, none reversed
    assert c.ordering_measured(overlap, order).verdict == "inconclusive"
    one_wrong = {**apart, "c": [3.0, 3.1, 2.9]}  # b > c, a < b: 1 of 2 in order
    assert c.ordering_measured(one_wrong, order).verdict == "partly"
    backwards = {"a": apart["c"], "b": apart["b"], "c": apart["a"]}
    assert c.ordering_measured(backwards, order).verdict == "fails"
    v = c.ordering_measured({**apart, "b": [5.0, 5.1]}, order)
    assert v.verdict == "not comparable" and "b" in v.rule


def test_ordering_measured_paired_separates_what_shared_noise_hides():
    order = ["a", "b", "c"]
    # each repeat moves all three together (a different workload per seed): unpaired, the
    # intervals overlap; paired, b/a and c/b are 2x in every repeat
    a = [1.0, 3.0, 6.0]
    shared = {"a": a, "b": [2 * x for x in a], "c": [4 * x for x in a]}
    assert c.ordering_measured(shared, order).verdict == "inconclusive"
    v = c.ordering_measured({k: [x * (1 + 0.01 * i) for i, x in enumerate(s)]
                             for k, s in shared.items()}, order, paired=True)  # fmt: skip
    assert v.verdict == "holds" and "b/a 2" in v.rule
    swapped = {"a": shared["a"], "b": shared["c"], "c": [x * 1.01 for x in shared["b"]]}
    assert c.ordering_measured(swapped, order, paired=True).verdict == "partly"
    noisy = {"a": a, "b": [1.5, 2.0, 9.0], "c": [3.0, 6.0, 20.0]}  # b/a 1.5, 0.67, 1.5
    assert c.ordering_measured(noisy, order, paired=True).verdict == "inconclusive"
    backwards = {"a": shared["c"], "b": shared["b"], "c": shared["a"]}
    assert c.ordering_measured(backwards, order, paired=True).verdict == "fails"
    # b/a's log ratios 0.2, 0, 0.1 (mean 0.1, sd 0.1) against the edge 0: t(n-1) x 0.1 /
    # sqrt(n) < 0.1 first at n = 7 (t(6) = 2.447 < 2.646; t(5) = 2.571 > sqrt 6 = 2.449)
    import math

    b = [math.exp(0.2), 1.0, math.exp(0.1)]
    open_b = c.ordering_measured({"a": [1.0] * 3, "b": b, "c": [10 * x for x in b]}, order,
                                 paired=True)  # fmt: skip
    assert open_b.verdict == "inconclusive"
    assert "about 7 paired repeats would decide" in open_b.rule
    v = c.ordering_measured({**shared, "b": [2.0, 6.0]}, order, paired=True)
    assert v.verdict == "not comparable"


def test_combine_shows_what_it_cannot_judge_and_keeps_noise_undecided():
    h, d, f = c.Verdict("holds", "r1"), c.Verdict("direction only", "r2"), c.Verdict("fails", "r3")
    i, n = c.Verdict("inconclusive", "r4"), c.not_comparable("r5: no data")
    assert c.combine([h, i]).verdict == "inconclusive"
    assert c.combine([h, i, f]).verdict == "partly"
    assert c.combine([i, f]).verdict == "fails"
    assert c.combine([i, i]).verdict == "inconclusive"
    v = c.combine([h, n])
    assert v.verdict == "holds" and "not comparable: r5: no data" in v.rule  # shown, not dropped
    assert c.combine([h, d, n]).verdict == "direction only"
    assert c.combine([n, n]).verdict == "not comparable"
    assert "inconclusive" in c.VERDICTS and c.MIN_REPEATS == 3


def test_within_factor_measured_gives_every_verdict():
    base = [1.0, 1.02, 0.98, 1.0]
    times = lambda r: [b * r for b in base[:1]] + [r * 1.01, r * 0.99, r]  # noqa: E731
    v = c.within_factor_measured(times(2.0), base, 2.0, 1.25)
    assert v.verdict == "holds" and v.repeats == 4 and "over 4 repeats" in v.rule
    assert c.within_factor_measured(times(5.0), base, 2.0, 1.25).verdict == "direction only"
    assert c.within_factor_measured(times(0.5), base, 2.0, 1.25).verdict == "fails"
    # a paper ratio below 1 (ours faster): the sides swap
    assert c.within_factor_measured(times(0.5), base, 0.5, 1.25).verdict == "holds"
    assert c.within_factor_measured(times(0.1), base, 0.5, 1.25).verdict == "direction only"
    assert c.within_factor_measured(times(2.0), base, 0.5, 1.25).verdict == "fails"
    # straddling the band's edge (1.6): noise would pick holds or direction only
    edge = [1.45, 1.75, 1.5, 1.7]
    v = c.within_factor_measured(edge, [1.0] * 4, 2.0, 1.25)
    assert v.verdict == "inconclusive" and "straddles" in v.rule
    # around 1, far below the band: the paper's size is excluded, its direction not shown
    near_one = c.within_factor_measured([0.97, 1.02, 0.95, 1.01], [1.0] * 4, 2.0, 1.25)
    assert near_one.verdict == "fails"
    v = c.within_factor_measured(times(2.0)[:2], base[:2], 2.0, 1.25)
    assert v.verdict == "not comparable" and v.repeats == 0
    with pytest.raises(ValueError):
        c.within_factor_measured(base, base, 1.0, 1.25)


def test_slope_interval_uses_every_observation():
    x = [1, 1, 1, 10, 10, 10, 100, 100, 100]
    y = [v * s for v in (1, 10, 100) for s in (0.99, 1.0, 1.01)]
    slope, low, high, n = c.slope_interval(x, y)
    assert (
        n == 9 and math.isclose(slope, 1.0, abs_tol=1e-9) and low < 1 < high and high - low < 0.02
    )
    assert math.isnan(c.slope_interval([1, 1, 1], [1, 2, 3])[0])  # one distinct x
    assert math.isnan(c.slope_interval([1, 2], [1, 2])[0])


def test_verdicts_carry_their_repeats_and_a_timing_row_needs_three(tmp_path, monkeypatch):
    from routelab.report import NotebookReport

    fast, slow = [1.0, 1.1, 0.9], [2.0, 2.1, 1.9]
    assert c.direction_measured(slow, fast, expected="above").repeats == 3
    assert c.ordering_measured({"a": fast, "b": slow}, ["a", "b"]).repeats == 3
    three, five = c.Verdict("holds", "r", 3), c.Verdict("holds", "r", 5)
    assert c.combine([three, five]).repeats == 3
    assert c.combine([three, c.Verdict("holds", "single")]).repeats == 0
    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path))
    report = NotebookReport("xx_timing", profile="smoke", show=False)
    row = c.claim_row("t", "Fig. 1", "2x", "1.9x", c.within_factor(1.9, 2, 1.5), timing=True)
    with pytest.raises(ValueError, match="needs >= 3 repeated"):
        report.claim(**row)
    row["verdict"] = c.direction_measured(slow, fast, expected="above")
    assert report.claim(**row).repeats == 3
    row["verdict"] = c.not_comparable("no data")  # nothing measured, nothing to repeat
    assert report.claim(**row).verdict == "not comparable"


def test_within_tolerance_interval_gives_every_verdict():
    f = c.within_tolerance_interval
    assert f(0.85, 0.8, 0.9, 0.87, 0.15, neutral=0.0, repeats=9).verdict == "holds"
    assert f(0.3, 0.25, 0.35, 0.87, 0.15, neutral=0.0).verdict == "direction only"
    assert f(-0.3, -0.4, -0.2, 0.87, 0.15, neutral=0.0).verdict == "fails"
    v = f(0.7, 0.6, 0.8, 0.87, 0.15, neutral=0.0, repeats=9)  # crosses 0.72
    assert v.verdict == "inconclusive" and v.repeats == 9
    assert f(0.1, -0.1, 0.3, 0.87, 0.15, neutral=0.0).verdict == "inconclusive"  # crosses 0
    assert f(2.0, 1.9, 2.1, 1.0, 0.15).verdict == "fails"  # no neutral: outside fails
    assert f(float("nan"), 0, 1, 1.0, 0.1).verdict == "not comparable"


def test_best_measured_and_share_measured_give_every_verdict():
    lo, mid, hi = [1.0, 1.1, 0.9], [5.0, 5.1, 4.9], [9.0, 9.1, 8.9]
    assert c.best_measured({"a": hi, "b": mid, "c": lo}, "a").verdict == "holds"
    assert c.best_measured({"a": lo, "b": mid, "c": hi}, "a", higher=False).verdict == "holds"
    assert c.best_measured({"a": mid, "b": hi}, "a").verdict == "fails"
    close = c.best_measured({"a": [5.0, 6.0, 4.5], "b": mid}, "a")
    assert close.verdict == "inconclusive" and close.repeats == 3
    assert c.best_measured({"a": hi}, "a").verdict == "not comparable"
    assert c.best_measured({"a": hi[:2], "b": lo[:2]}, "a").verdict == "not comparable"
    h, i, f = (
        c.Verdict("holds", "r", 3),
        c.Verdict("inconclusive", "r", 3),
        c.Verdict("fails", "r", 3),
    )
    n = c.not_comparable("none")
    assert c.share_measured([h, h, n]).verdict == "holds"
    v = c.share_measured([h, i])
    assert v.verdict == "inconclusive" and "1 hold, 1 inconclusive" in v.rule
    # 1 of 3 holds, one open: fails if it failed, partly if it held -> the row stays open
    open_row = c.share_measured([h, f, i])
    assert open_row.verdict == "inconclusive" and "fails .. partly" in open_row.rule
    # 3 hold, 2 open, 1 fails: 3/6 or 5/6 -> partly either way; 0 hold, 2 open, 4 fail: fails
    assert c.share_measured([h, h, h, i, i, f]).verdict == "partly"
    assert c.share_measured([i, i, f, f, f, f]).verdict == "fails"
    assert c.share_measured([h, f, f, f, i, i, i, i]).verdict == "inconclusive"  # 1/8 .. 5/8
    assert c.share_measured([h, h, f]).verdict == "partly"
    assert c.share_measured([f, f]).verdict == "fails"
    assert c.share_measured([n]).verdict == "not comparable"


def test_beyond_measured_gives_each_verdict():
    from routelab.claims import beyond_measured

    def verdict(low, high, expected="above", repeats=3):
        est = (low + high) / 2
        return beyond_measured(est, low, high, 0.5, expected=expected, what="x", repeats=repeats)

    assert verdict(0.6, 0.9).verdict == "holds"
    assert verdict(0.1, 0.4).verdict == "fails"
    assert verdict(0.4, 0.6).verdict == "inconclusive"
    assert verdict(0.1, 0.4, expected="below").verdict == "holds"
    assert verdict(0.6, 0.9, expected="below").verdict == "fails"
    assert verdict(0.6, 0.9, repeats=2).verdict == "not comparable"
    assert verdict(0.6, 0.9).repeats == 3 and "above 0.5" in verdict(0.6, 0.9).rule
    with pytest.raises(ValueError, match="expected"):
        verdict(0.6, 0.9, expected="beside")


def test_beyond_measured_says_the_repeats_that_would_decide():
    """A t interval 0.4 +- 0.2 over 4 repeats against 0.5: sd = 0.2 x 2 / t(3) = 0.1257;
    8 repeats give t(7) x sd / sqrt 8 = 0.105 > the gap 0.1, 9 give 0.0966 < 0.1."""
    from routelab.claims import beyond_measured

    v = beyond_measured(0.4, 0.2, 0.6, 0.5, expected="above", what="x", repeats=4)
    assert v.verdict == "inconclusive" and "about 9 repeats would decide" in v.rule
    lopsided = beyond_measured(0.4, 0.1, 0.6, 0.5, expected="above", what="x", repeats=4)
    assert "would decide" not in lopsided.rule  # not a t interval: no estimate
    on_edge = beyond_measured(0.5, 0.3, 0.7, 0.5, expected="above", what="x", repeats=4)
    assert "no number of repeats" in on_edge.rule


def test_block_bootstrap_direction_gives_each_verdict() -> None:
    import numpy as np

    from routelab.claims import block_bootstrap_ratio, direction_block_bootstrap

    base = np.array([2.0, 2.1, 2.2, 2.0, 2.3, 2.1, 2.2, 2.0, 2.1])
    lower = base * np.array([0.6, 0.62, 0.58, 0.61, 0.6, 0.59, 0.63, 0.6, 0.61])
    assert direction_block_bootstrap(lower, base, expected="below").verdict == "holds"
    assert direction_block_bootstrap(base / 0.6, base, expected="below").verdict == "fails"
    mixed = base * np.array([0.5, 1.6, 0.6, 1.5, 0.5, 1.7, 0.6, 1.4, 0.9])
    assert direction_block_bootstrap(mixed, base, expected="below").verdict == "inconclusive"
    assert direction_block_bootstrap(lower[:4], base[:4], expected="below").verdict == (
        "not comparable"
    )
    # the ratio is the geometric mean of the paired ratios; the interval is seeded
    r, lo, hi = block_bootstrap_ratio(lower, base)
    assert r == pytest.approx(float(np.exp(np.mean(np.log(lower / base)))))
    assert lo <= r <= hi and block_bootstrap_ratio(lower, base) == (r, lo, hi)


def test_an_inconclusive_rule_says_how_many_repeats_would_decide() -> None:
    import numpy as np

    from routelab.claims import repeats_to_decide

    # log ratios 0, 0.1, 0.2: mean 0.1, sd 0.1; t(n-1) / sqrt(n) < 1 first at n = 7
    # (n = 6: 2.571 / 2.449 = 1.05; n = 7: 2.447 / 2.646 = 0.92)
    assert repeats_to_decide(np.array([0.0, 0.1, 0.2]), [0.0]) == 7
    assert repeats_to_decide(np.array([-0.1, 0.1]), [0.0]) is None  # the mean on the edge
    v = c.direction_measured([1.0, 1.105, 1.221], [1.0, 1.0, 1.0], expected="above")
    assert v.verdict == "inconclusive" and "about 7 repeats would decide" in v.rule


def test_name_deciding_reading_notes_only_rows_whose_verdict_changes():
    from routelab.claims import Verdict, name_deciding_reading

    rows = [
        {"claim": "a", "verdict": Verdict("holds", "r")},
        {"claim": "b", "verdict": Verdict("fails", "r"), "note": "seeds 0-2"},
        {"claim": "c", "verdict": Verdict("holds", "r")},
    ]
    alt = [{"claim": "a", "verdict": Verdict("holds", "r")},
           {"claim": "b", "verdict": Verdict("inconclusive", "r")}]  # fmt: skip
    out = name_deciding_reading(rows, alt, "Dmove strict", "Dmove >= as printed")
    assert out[0] == rows[0] and out[2] == rows[2]  # agrees; not in the alternative
    assert out[1]["note"] == (
        "seeds 0-2; the reading 'Dmove strict' decides this row: under the alternative "
        "(Dmove >= as printed) it reads inconclusive"
    )
    assert out[1]["verdict"] == rows[1]["verdict"] and "note" not in rows[0]


def test_direction_measured_without_spread_is_decided_by_the_value():
    """Identical repeats leave no noise: a ratio of exactly 1 fails (no difference), one
    exactly on the expected side holds; with spread, 1 inside the interval stays open."""
    from routelab.claims import direction_measured

    same = direction_measured([3.0] * 6, [3.0] * 6, expected="above")
    assert same.verdict == "fails" and "no spread" in same.rule
    double = direction_measured([6.0] * 6, [3.0] * 6, expected="above")
    assert double.verdict == "holds"
    assert direction_measured([6.0] * 6, [3.0] * 6, expected="below").verdict == "fails"
    noisy = direction_measured([3.1, 2.9, 3.0, 3.2, 2.8, 3.0], [3.0] * 6, expected="above")
    assert noisy.verdict == "inconclusive"


def test_group_slopes_and_the_paired_slope_interval_by_hand():
    # stream a: 100 -> 200 from 4 to 8 workers (slope 1); stream b: 10 -> 10 (slope 0);
    # stream c has one worker count (no slope, left out); a non-positive value is dropped
    groups = ["a", "a", "b", "b", "c", "c", "b"]
    x = [4, 8, 4, 8, 4, 4, 8]
    y = [100, 200, 10, 10, 5, 6, -1]
    assert c.group_slopes(groups, x, y) == pytest.approx({"a": 1.0, "b": 0.0})
    est, lo, hi, n = c.paired_slope_interval(groups, x, y)
    # two slopes 1 and 0: mean 0.5, sd 0.707, t(1) = 12.706 -> half 12.706 * 0.5 = 6.35
    assert (
        n == 2 and est == pytest.approx(0.5) and hi - est == pytest.approx(12.706 * 0.5, rel=1e-3)
    )
    assert lo == pytest.approx(2 * est - hi)
    # four streams of one slope at different levels: a zero-width interval at that slope
    g4 = [s for s in range(4) for _ in (4, 8)]
    x4 = [n for _ in range(4) for n in (4, 8)]
    y4 = [lvl * (n / 4) ** 0.7 for lvl in (1, 5, 20, 80) for n in (4, 8)]
    est, lo, hi, n = c.paired_slope_interval(g4, x4, y4)
    assert n == 4 and est == pytest.approx(0.7) and hi - lo == pytest.approx(0, abs=1e-9)
    assert math.isnan(c.paired_slope_interval(["a", "a"], [4, 8], [1, 2])[1])  # one group
