"""LASP (S3-TM Alg. 2), random anycast and eligibility (Sects. 4.2, 5.1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routelab.s3tm.lasp import (
    LASP,
    CostFunction,
    fit_cost_function,
    imbalance_from_moments,
)
from routelab.s3tm.placement import (
    RandomAnycast,
    eligibility,
    place_subscriptions,
)
from routelab.s3tm.routing import Mapping
from routelab.s3tm.skew import hot_placement
from routelab.s3tm.wordsets import Corpus

WORDS = [f"w{i}" for i in range(20)]


def test_hand_example_traces_algorithm_2():
    # N = 3, M: a,d -> 0; b,e -> 1; c -> 2; f(h) = h + 1; imbalance = CV of the loads f(|H|)
    m = Mapping(3, "hash", 0, {"a": 0, "b": 1, "c": 2, "d": 0, "e": 1})
    lasp = LASP(m, CostFunction(1.0, 1.0, reading="literal"))  # Alg. 2's printed l, unchanged
    # S1 {a,b}, B = {0,1}. i=0: l = f(2) = 3, |H| -> [2,0,0], CV = sqrt(3*4-2^2)/(2+3)
    #   = 0.566, u = -1.70; i=1: the same loads permuted -> tie -> lower id: 0
    assert lasp.place(["a", "b"]) == (0,)
    # S2 {b,e}, B = {1}: the only eligible matcher
    assert lasp.place(["b", "e"]) == (1,)
    # S3 {a,c}, B = {0,2}. i=0: one new word, l = 2, |H| [3,2,0]: CV = sqrt(3*13-25)/8 = 0.468,
    #   u = -0.94; i=2: two new words, l = 3, |H| [2,2,2]: CV = 0, u = 0 -> balance wins: 2
    assert lasp.place(["a", "c"]) == (2,)
    # S4 {a,b,d}, B = {0,1}. i=0: new {d}, l = 2, |H| [3,2,2]: CV = sqrt(2)/10, u = -0.28;
    #   i=1: new {a,d}, l = 3, |H| [2,4,2]: CV = sqrt(8)/11, u = -0.77 -> overlap wins: 0
    assert lasp.place(["a", "b", "d"]) == (0,)
    # S5 {c,e}, B = {1,2}: one new word either way, loads permuted -> tie -> 1
    assert lasp.place(["c", "e"]) == (1,)
    assert lasp.unique_words.tolist() == [3, 3, 2]
    u, b = lasp.utility({"z"}, 2)  # a new word on matcher 2: |H| [3,3,3] -> CV 0
    assert b == 0.0 and u == 0.0


def test_imbalance_from_moments_matches_numpy():
    rng = np.random.default_rng(3)
    for _ in range(20):
        h = rng.integers(0, 50, 7)
        slope, icpt = rng.uniform(0.1, 3), rng.uniform(0, 5)
        loads = slope * h + icpt
        s1, s2 = int(h.sum()), int((h * h).sum())
        cv = imbalance_from_moments(7, s1, s2, slope, icpt, 0)
        alg2 = imbalance_from_moments(7, s1, s2, slope, icpt, 1)
        assert cv == pytest.approx(loads.std() / loads.mean(), rel=1e-9, abs=1e-12)
        assert alg2 == pytest.approx(math.sqrt(loads.var() / loads.mean()), rel=1e-9, abs=1e-12)


def test_fit_cost_function_recovers_a_line_and_checks_input():
    x = np.array([10, 20, 40, 80, 160])
    slope, icpt = fit_cost_function(x, 0.25 * x + 6)
    assert slope == pytest.approx(0.25) and icpt == pytest.approx(6)
    assert CostFunction.from_fit(0.5, -2.0).intercept == 0.0
    with pytest.raises(ValueError, match="two distinct"):
        fit_cost_function([5, 5], [1, 2])
    with pytest.raises(ValueError, match="positive"):
        CostFunction(0.0, 1.0)


def _random_mapping(rng: np.random.Generator, n: int, with_hot: bool) -> Mapping:
    plain = WORDS[:15] if with_hot else WORDS
    assign = {w: int(rng.integers(0, n)) for w in plain}
    versions, counts = {}, {}
    if with_hot:
        for w in WORDS[15:]:
            versions[w] = tuple(int(x) for x in rng.integers(0, n, int(rng.integers(2, 4))))
            counts[w] = int(rng.integers(1, 6))
    return Mapping(n, "hash", 0, assign, versions, counts)


sub_lists = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=5, unique=True), min_size=1, max_size=50
)


@settings(max_examples=60)
@given(subs=sub_lists, seed=st.integers(0, 10_000), n=st.integers(1, 6), hot=st.booleans())
def test_incremental_equals_batch_and_only_eligible(subs, seed, n, hot):
    mapping = _random_mapping(np.random.default_rng(seed), n, hot)
    corpus = Corpus.from_word_lists(subs, post_ids=np.arange(len(subs)) * 3 + 1)
    elig = eligibility(corpus, mapping)
    for r in range(corpus.n_posts):
        hp = hot_placement(corpus.words_of(r), mapping)
        assert elig.of(r) == hp.matchers and bool(elig.multicast[r]) == hp.multicast
    for method in ("random", "LASP"):
        for imbalance, reading in (("cv", "slope"), ("alg2", "slope"), ("cv", "literal")):
            kw = {"cost": (0.7, 2.5, reading), "seed": seed, "imbalance": imbalance}
            batch = place_subscriptions(corpus, mapping, method, **kw)
            one_by_one = place_subscriptions(corpus, mapping, method, impl="reference", **kw)
            assert np.array_equal(batch.entry_rows, one_by_one.entry_rows)
            assert np.array_equal(batch.entry_matchers, one_by_one.entry_matchers)
            assert np.array_equal(batch.unique_words, one_by_one.unique_words)
            for r in range(corpus.n_posts):
                placed = batch.matchers_of(r)
                if elig.multicast[r]:
                    assert tuple(placed) == elig.of(r)
                else:
                    assert len(placed) == 1 and placed[0] in elig.of(r)


def test_hot_word_categories_and_multicast():
    # "hot" split over matchers 0 and 2 (rarer than "hotter"), "x" -> 1, "y" -> 0
    m = Mapping(
        3,
        "SALB",
        0,
        {"x": 1, "y": 0},
        versions={"hot": (0, 2, 2), "hotter": (1, 2)},
        hot_counts={"hot": 5, "hotter": 9},
    )
    lasp = LASP(m)
    assert lasp.place(["hot", "hotter"]) == (0, 2)  # (iii): rarest hot word's versions
    assert {"hot", "hotter"} <= lasp.H[0] and {"hot", "hotter"} <= lasp.H[2]
    assert lasp.place(["hot", "x"]) == (1,)  # (ii): only the regular word's matcher
    corpus = Corpus.from_word_lists([["hot", "hotter"], ["hot", "x"], ["y"]])
    p = place_subscriptions(corpus, m, "random", seed=4)
    assert p.category_counts() == {"no_hot": 1, "mixed": 1, "all_hot": 1}
    assert p.matchers_of(0) == [0, 2] and p.matchers_of(1) == [1] and p.matchers_of(2) == [0]
    assert p.subs_per_matcher().tolist() == [2, 1, 1]
    assert RandomAnycast(m, 4).place(["hot", "hotter"], 0) == (0, 2)


def test_random_anycast_is_seeded_and_spreads():
    m = Mapping(4, "hash", 0, {w: i % 4 for i, w in enumerate(WORDS)})
    corpus = Corpus.from_word_lists([["w0", "w1", "w2", "w3"]] * 400)
    a = place_subscriptions(corpus, m, "random", seed=1)
    b = place_subscriptions(corpus, m, "random", seed=1)
    c = place_subscriptions(corpus, m, "random", seed=2)
    assert np.array_equal(a.entry_matchers, b.entry_matchers)
    assert not np.array_equal(a.entry_matchers, c.entry_matchers)
    counts = a.subs_per_matcher()
    assert counts.min() > 60  # 400 picks over 4 eligible matchers: ~100 each
    # LASP puts identical subscriptions together: one matcher holds all four words
    lasp = place_subscriptions(corpus, m, "LASP")
    assert len(set(lasp.entry_matchers.tolist())) == 1
    assert lasp.unique_words.sum() == 4 < a.unique_words.sum()


def test_slope_reading_keeps_the_grouping_incentive():
    # N = 3, M: a -> 0, b -> 1; f(h) = h + 1. H = [{a,b,c}, {d}, {e,f,g,h}]; S = {a, b}, B = {0, 1}.
    # i=0: no new word, |H| [3,1,4]: var_num = 3*26 - 64 = 14, n mean(L) = 8 + 3 = 11,
    #   b0 = sqrt(14)/11 = 0.3401; i=1: two new words, |H| [3,3,4]: var_num = 3*34 - 100 = 2,
    #   n mean(L) = 10 + 3 = 13, b1 = sqrt(2)/13 = 0.1088.
    # slope reading: l0 = 0, l1 = 2 -> u0 = 0 > u1 = -0.2176: grouping wins, matcher 0.
    # literal reading: l0 = f(0) = 1, l1 = f(2) = 3 -> u0 = -0.3401 < u1 = -0.3263: matcher 1.
    m = Mapping(3, "hash", 0, {"a": 0, "b": 1, "c": 0, "d": 1, "e": 2, "f": 2, "g": 2, "h": 2})
    expected = {
        "slope": (0, (0.0, -2 * math.sqrt(2) / 13)),
        "literal": (1, (-math.sqrt(14) / 11, -3 * math.sqrt(2) / 13)),
    }
    for reading, (choice, (u0, u1)) in expected.items():
        lasp = LASP(m, CostFunction(1.0, 1.0), cost_reading=reading)
        lasp.H = [set("abc"), {"d"}, set("efgh")]
        assert lasp.utility({"a", "b"}, 0)[0] == pytest.approx(u0, abs=1e-12)
        assert lasp.utility({"a", "b"}, 1)[0] == pytest.approx(u1, abs=1e-12)
        assert lasp.place(["a", "b"]) == (choice,)
    # the same choices through the kernel, from a stream that builds that state first
    subs = Corpus.from_word_lists([["a", "c"], ["d"], ["e", "f", "g", "h"], ["a", "b"]])
    for reading, choice in (("slope", 0), ("literal", 1)):
        f = CostFunction(1.0, 1.0, reading)
        placed = place_subscriptions(subs, m, "LASP", cost=f)
        ref = place_subscriptions(subs, m, "LASP", cost=f, impl="reference")
        assert placed.matchers_of(3)[0] == ref.matchers_of(3)[0] == choice
        assert list(placed.unique_words) == list(ref.unique_words)


def test_cost_function_readings():
    f = CostFunction(0.5, 10.0)
    assert f.reading == "slope" and f.delta(4) == 2.0 and f(4) == 12.0
    literal = f.with_reading("literal")
    assert literal.delta(4) == 12.0 and literal.delta(0) == 10.0 and f.delta(0) == 0.0
    assert CostFunction.of((0.5, 10.0, "literal")) == literal
    assert CostFunction.of((0.5, 10.0)) == f
    assert CostFunction.from_fit(0.5, 10.0, "literal") == literal
    assert f.other_reading() == literal and literal.other_reading() == f
    with pytest.raises(ValueError, match="reading"):
        CostFunction(1.0, 1.0, "increase")
