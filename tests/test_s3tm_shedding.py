"""What load to shed (S3-TM Sect. 5.2.1, Fig. 8a): utilities, thresholds, accuracy, load.

The hand example (4 matchers, one rich publication) is built so that consensus and
subscription shedding rank the matchers in opposite orders, with no ties:

    words -> matchers: a,x->0; b,f->1; c,g,h->2; d,i,j,k->3   (x occurs in no post)
    P0 = {a,b,f,c,g,h,d,i,j,k}: K = {0,1,2,3}
    subscriptions (placed on):  s0{a}@0 s1{a,b}@0 s2{a,c}@0 s3{a,d}@0 s4{b}@1 s5{b,f}@1
                                s6{c,g}@2 s7{d}@3 s8{h,x}@0 s9{i,j,k,x}@0
    W^s = every word, so consensus (P0's words per matcher) = 1, 2, 3, 4
    n_j(w) over P0's words: m0: a4 b1 c1 d1 h1 i1 j1 k1 = 11; m1: b2 f1 = 3; m2: c1 g1 = 2;
    m3: d1 = 1
    P0 matches s0..s7 (s8, s9 need x): m0 holds 4, m1 2, m2 1, m3 1
    P1 = {b,f}: K = {1}, matches s4, s5          P2 = {zz}: no subscribed word, K = {}
Oracle: 10 matches. Subscription shedding keeps m0, m1, m2, m3 in that order; consensus
keeps m3, m2, m1, m0.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from routelab.s3tm.lab.shedding.experiments import (
    build_workload,
    compare_at_equal_shed,
    shed_at_accuracy,
    shedding_curve,
)
from routelab.s3tm.placement import Placement, place_subscriptions
from routelab.s3tm.routing import Mapping
from routelab.s3tm.shedding import (
    RANDOM_DROP,
    encode_subscriptions,
    evaluate,
    keep_mask,
    keep_reference,
    oracle_matches,
    prepare_deliveries,
    random_drop_mask,
)
from routelab.s3tm.trie_reference import brute_force_match
from routelab.s3tm.wordsets import Corpus

HAND_MAP = {"a": 0, "x": 0, "b": 1, "f": 1, "c": 2, "g": 2, "h": 2, "d": 3, "i": 3, "j": 3, "k": 3}
HAND_SUBS = [
    (["a"], 0),
    (["a", "b"], 0),
    (["a", "c"], 0),
    (["a", "d"], 0),
    (["b"], 1),
    (["b", "f"], 1),
    (["c", "g"], 2),
    (["d"], 3),
    (["h", "x"], 0),
    (["i", "j", "k", "x"], 0),
]


def _placement(subs: Corpus, matchers: list[int], n: int) -> Placement:
    rows = np.arange(subs.n_posts, dtype=np.int64)
    return Placement(
        n,
        "hand",
        rows,
        np.asarray(matchers, np.int64),
        np.zeros(len(rows), np.int8),
        np.zeros(n, np.int64),
    )


@pytest.fixture(scope="module")
def hand():
    posts = Corpus.from_word_lists([list("abfcghdijk"), ["b", "f"], ["zz"]], post_ids=[10, 11, 12])
    frame = pd.DataFrame({"sub_id": range(len(HAND_SUBS)), "words": [w for w, _ in HAND_SUBS]})
    subs = encode_subscriptions(frame, posts)
    mapping = Mapping(4, "hand", 0, dict(HAND_MAP))
    placement = _placement(subs, [m for _, m in HAND_SUBS], 4)
    return prepare_deliveries(posts, subs, mapping, placement)


def test_hand_example_utilities_and_matches(hand):
    assert hand.targets.of(0) == [0, 1, 2, 3] and hand.targets.of(1) == [1]
    assert hand.targets.of(2) == []
    assert hand.consensus.tolist() == [1, 2, 3, 4, 2]
    assert hand.subscription.tolist() == [11, 3, 2, 1, 3]
    assert hand.n_oracle == 10 and hand.n_matches == 10
    assert hand.false_matches == 0 and hand.missed_matches == 0
    hits = np.bincount(hand.match_pair, minlength=hand.n_pairs)
    assert hits.tolist() == [4, 2, 1, 1, 2]


@pytest.mark.parametrize(
    ("method", "expected"),
    # accuracy for m = 4, 3, 2, 1, 0 (P1 keeps its only matcher while m >= 1)
    [
        ("subscription", [10, 9, 8, 6, 0]),
        ("consensus", [10, 6, 4, 3, 0]),
    ],
)
def test_hand_example_accuracy_by_threshold(hand, method, expected):
    got = [evaluate(hand, keep_mask(hand, m, method))["produced"] for m in (4, 3, 2, 1, 0)]
    assert got == expected
    unit = [evaluate(hand, keep_mask(hand, m, method))["unit_shed"] for m in (4, 3, 2, 1, 0)]
    # 5 deliveries: P0 loses 0,1,2,3 of its 4 then all; P1 keeps its one while m >= 1
    assert np.allclose(unit, [0, 1 / 5, 2 / 5, 3 / 5, 1])


def test_no_limit_keeps_everything_and_zero_sheds_everything(hand):
    full = evaluate(hand, keep_mask(hand, math.inf, "subscription"))
    assert full["accuracy"] == 1.0 and full["load_shed"] == 0.0 and full["unit_shed"] == 0.0
    none = evaluate(hand, keep_mask(hand, 0, "consensus"))
    assert none["accuracy"] == 0.0 and none["load_shed"] == 1.0 and none["produced"] == 0


def test_bad_threshold_is_rejected(hand):
    with pytest.raises(ValueError, match="threshold"):
        keep_mask(hand, -1, "consensus")
    with pytest.raises(ValueError, match="unknown shedding method"):
        keep_mask(hand, 2, "loudest")


# --------------------------------------------------------------------------- random inputs


def _random_case(seed: int, n_posts: int = 150, n_subs: int = 120, n_matchers: int = 6):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i:02d}" for i in range(30)]
    weights = 1.0 / np.arange(1, 31)
    weights /= weights.sum()

    def draw(lo: int, hi: int) -> list[str]:
        k = int(rng.integers(lo, hi + 1))
        return sorted({vocab[i] for i in rng.choice(30, size=k, p=weights)})

    posts = Corpus.from_word_lists(
        [draw(1, 9) for _ in range(n_posts)], post_ids=rng.permutation(10 * n_posts)[:n_posts]
    )
    frame = pd.DataFrame(
        {"sub_id": np.arange(n_subs) * 7 + 3, "words": [draw(1, 3) for _ in range(n_subs)]}
    )
    subs = encode_subscriptions(frame, posts)
    mapping = Mapping(n_matchers, "random", seed, {w: int(rng.integers(n_matchers)) for w in vocab})
    placement = place_subscriptions(subs, mapping, "random", seed=seed)
    return posts, subs, frame, mapping, placement


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_oracle_equals_brute_force(seed):
    posts, subs, frame, *_ = _random_case(seed)
    o_post, o_sub = oracle_matches(posts, subs)
    sets = {int(s): frozenset(w) for s, w in zip(frame["sub_id"], frame["words"], strict=True)}
    expected = []
    for p, words in enumerate(posts.word_lists()):
        expected += [(p, s) for s in brute_force_match(sets, words)]
    got = sorted(zip(o_post.tolist(), subs.post_ids[o_sub].tolist(), strict=True))
    assert got == sorted(expected)


@pytest.mark.parametrize("seed", [4, 5])
def test_shedding_never_creates_false_matches_and_accuracy_is_monotone(seed):
    posts, subs, _, mapping, placement = _random_case(seed)
    d = prepare_deliveries(posts, subs, mapping, placement)
    assert d.false_matches == 0 and d.missed_matches == 0 and d.n_oracle > 0
    thresholds = [math.inf, 6, 5, 4.5, 4, 3, 2.25, 2, 1.5, 1, 0.5, 0]
    for method in ("consensus", "subscription"):
        masks = [keep_mask(d, m, method, seed) for m in thresholds]
        results = [evaluate(d, mask) for mask in masks]
        assert all(r["false_matches"] == 0 for r in results)
        acc = [r["accuracy"] for r in results]
        shed = [r["load_shed"] for r in results]
        assert acc[0] == 1.0 and shed[0] == 0.0
        assert all(a >= b for a, b in zip(acc, acc[1:], strict=False))
        assert all(a <= b + 1e-12 for a, b in zip(shed, shed[1:], strict=False))
        # a lower threshold keeps a subset of the deliveries (same seed)
        assert all(np.all(lo <= hi) for hi, lo in zip(masks, masks[1:], strict=False))
        kept_per_post = np.bincount(d.pair_post, weights=masks[3], minlength=d.n_posts)
        assert kept_per_post.max() <= 5  # m = 4.5 keeps at most 5


@pytest.mark.parametrize("seed", [6, 7])
def test_vectorized_selection_equals_reference(seed):
    posts, subs, _, mapping, placement = _random_case(seed)
    d = prepare_deliveries(posts, subs, mapping, placement)
    for method in ("consensus", "subscription"):
        util = d.utility(method)
        for m in (3, 2.5, 1, 0.3):
            mask = keep_mask(d, m, method, seed)
            for p in range(d.n_posts):
                a, b = d.targets.indptr[p], d.targets.indptr[p + 1]
                ref = keep_reference(
                    util[a:b].tolist(), d.targets.indices[a:b].tolist(), int(d.post_ids[p]), m, seed
                )
                assert ref == d.targets.indices[a:b][mask[a:b]].tolist()


def test_ties_are_broken_by_a_seeded_hash_of_post_and_matcher():
    # every utility equal: who is kept depends only on (post id, matcher, seed)
    matchers = list(range(8))
    kept = keep_reference([1.0] * 8, matchers, post_id=42, m=3, seed=0)
    assert kept == keep_reference([1.0] * 8, matchers[::-1], post_id=42, m=3, seed=0)
    assert len(kept) == 3
    choices = {
        tuple(keep_reference([1.0] * 8, matchers, post_id=p, m=3, seed=0)) for p in range(50)
    }
    assert len(choices) > 10  # not always the lowest ids
    assert any(
        keep_reference([1.0] * 8, matchers, post_id=42, m=3, seed=s) != kept for s in range(1, 6)
    )


def test_fractional_threshold_forwards_the_next_matcher_with_that_probability():
    post_ids = np.arange(4000)
    extra = [len(keep_reference([3.0, 2.0, 1.0], [0, 1, 2], int(p), 1.25)) - 1 for p in post_ids]
    assert abs(np.mean(extra) - 0.25) < 0.03


def test_random_drop_sheds_the_target_load_deterministically():
    posts, subs, _, mapping, placement = _random_case(8)
    d = prepare_deliveries(posts, subs, mapping, placement)
    per_post = np.bincount(d.pair_post, weights=d.cost("ops"), minlength=d.n_posts)
    for target in (0.0, 0.1, 0.5, 0.9):
        keep = random_drop_mask(d, target, "ops", seed=3)
        shed = per_post[~keep].sum() / per_post.sum()
        assert target - 1e-9 <= shed <= target + per_post.max() / per_post.sum()
        assert np.array_equal(keep, random_drop_mask(d, target, "ops", seed=3))
    assert random_drop_mask(d, 0.0).all()


def test_curve_includes_random_drop_at_equal_shed():
    posts, subs, _, mapping, placement = _random_case(9)
    d = prepare_deliveries(posts, subs, mapping, placement)
    curve = shedding_curve(d, [math.inf, 4, 2, 1], seed=1)
    sub = curve[curve["method"] == "subscription"].set_index("m")
    rnd = curve[curve["method"] == RANDOM_DROP].set_index("m")
    assert len(rnd) == 4
    # equal load shed, up to one publication's load
    per_post = np.bincount(d.pair_post, weights=d.cost("ops"))
    assert np.all(np.abs(sub["load_shed"] - rnd["load_shed"]) <= per_post.max() / per_post.sum())


def test_shed_at_accuracy_interpolates():
    curve = pd.DataFrame({"load_shed": [0.0, 0.2, 0.4, 0.6], "accuracy": [1.0, 0.95, 0.85, 0.5]})
    assert shed_at_accuracy(curve, 0.9) == pytest.approx(0.3)
    assert shed_at_accuracy(curve, 0.4) == pytest.approx(0.6)
    assert shed_at_accuracy(curve, 1.01) == 0.0


def test_compare_at_equal_shed_on_a_hand_curve():
    curve = pd.DataFrame(
        {
            "method": ["subscription"] * 3 + ["consensus"] * 3,
            "load_shed": [0.0, 0.2, 0.4, 0.0, 0.2, 0.4],
            "accuracy": [1.0, 0.9, 0.8, 1.0, 0.8, 0.6],
        }
    )
    out = compare_at_equal_shed(curve)
    assert out["n"] == 2 and out["mean_gain"] == pytest.approx(0.15)
    assert out["min_gain"] == pytest.approx(0.1) and out["share_better"] == 1.0


def test_split_mappings_and_foreign_vocabularies_are_rejected(hand):
    posts = Corpus.from_word_lists([["a", "b"]])
    subs = Corpus.from_word_lists([["a"]])
    split = Mapping(2, "hand", 0, {"b": 1}, versions={"a": (0, 1)}, hot_counts={"a": 5})
    with pytest.raises(ValueError, match="split"):
        prepare_deliveries(posts, subs, split, _placement(subs, [0], 2))
    other = Corpus.from_word_lists([["b", "a"]], vocab=["b", "a"])
    with pytest.raises(ValueError, match="vocabulary"):
        prepare_deliveries(
            posts, other, Mapping(2, "hand", 0, {"a": 0, "b": 1}), _placement(other, [0], 2)
        )


def test_workloads_end_to_end_on_synthetic_posts():
    from routelab.datasets.synthetic import topic_tweets_pandas

    frame = topic_tweets_pandas(800, seed=3, vocab_size=400, topic_words=50)
    out = build_workload(
        frame,
        ["tweet"],
        workload="all_words",
        n_subscriptions=300,
        n_matchers=4,
        method="hash",
        placement="random",
        progress=False,
    )
    d = out.deliveries["tweet"]
    assert d.info["posts"] == 400 and d.info["learning_posts"] == 400
    assert d.false_matches == 0 and d.missed_matches == 0 and d.n_oracle >= 1


def _marked_posts(n: int = 600) -> pd.DataFrame:
    """Synthetic posts, each with a word of its own (``u<post_id>``): a subscription drawn
    from post p contains ``u<p>``, so its source is visible in the subscription."""
    from routelab.datasets.synthetic import topic_tweets_pandas

    frame = topic_tweets_pandas(n, seed=5, vocab_size=300, topic_words=40)
    frame["words"] = [[*w, f"u{p}"] for p, w in zip(frame["post_id"], frame["words"], strict=True)]
    return frame[["post_id", "words"]]


def _sources(subscriptions: pd.DataFrame) -> set[int]:
    return {int(w[1:]) for words in subscriptions["words"] for w in words if w.startswith("u")}


def test_default_workload_draws_subscriptions_from_learning_posts_only():
    # no held-out publication may be a subscription's source, and the
    # paper's ratio (0.1 subscriptions per learning post) sets the count
    from routelab.s3tm.lab.shedding.experiments import build_workload

    frame = _marked_posts()
    w = build_workload(
        frame, ["tweet"], n_matchers=4, method="hash", placement="random", progress=False
    )
    d = w.deliveries["tweet"]
    held_out = set(d.post_ids.tolist())
    assert held_out == set(w.test_ids.tolist()) and len(held_out) == 300
    assert held_out.isdisjoint(w.learn_ids.tolist())
    sources = _sources(w.subscriptions["tweet"])
    assert len(sources) == 30 == d.info["subscriptions"]  # round(0.1 * 300), no repeats
    assert sources <= set(w.learn_ids.tolist()) and not sources & held_out
    assert d.false_matches == 0 and d.missed_matches == 0
    # the stress variant draws from every post: held-out publications are subscriptions
    stress = build_workload(
        frame,
        ["tweet"],
        workload="all_words",
        n_subscriptions=200,
        n_matchers=4,
        method="hash",
        placement="random",
        progress=False,
    )
    assert _sources(stress.subscriptions["tweet"]) & set(stress.test_ids.tolist())
    assert stress.deliveries["tweet"].info["subscriptions"] == 200


def test_subscription_count_per_workload():
    from routelab.s3tm.lab.shedding.experiments import subscription_count

    assert subscription_count("learning", 1_000_000, 0.1, 5) == 100_000  # the paper's ratio
    assert subscription_count("learning", 42_011, 0.1, 5) == 4_201
    assert subscription_count("learning", 3, 0.1, 5) == 1
    assert subscription_count("all_words", 42_011, 0.1, 100_000) == 100_000
    with pytest.raises(ValueError, match="workload"):
        subscription_count("everything", 10, 0.1, 5)
    with pytest.raises(ValueError, match="ratio"):
        subscription_count("learning", 10, 0.0, 5)


def test_worked_example_by_hand():
    # notebook 06's worked example: P = {a..h} to matchers 0-4 with m = 2.
    # consensus = P's subscribed words per matcher: {a,b,c}=3, {d,e}=2, f, g, h = 1 -> 0, 1
    # subscription = sum of n_j(w) over P's words: m0 a=1; m1 d+c+e=3; m2 f*4+g+h+a=7;
    # m3 b+g*3+h=5; m4 h=1 -> 2, 3. P matches {d}@1, 4 subs @2, 3 subs @3: 8 matches.
    from routelab.s3tm.lab.shedding.experiments import worked_example
    from routelab.s3tm.lab.shedding.figures import extra_buffer_example

    table, policies = worked_example(2)
    assert table["consensus utility"].tolist() == [3, 2, 1, 1, 1]
    assert table["subscription utility"].tolist() == [1, 3, 7, 5, 1]
    assert table["P's matches there"].tolist() == [0, 1, 4, 3, 0]
    assert table["consensus (m = 2)"].tolist() == ["sent", "sent", "shed", "shed", "shed"]
    assert table["subscription (m = 2)"].tolist() == ["shed", "shed", "sent", "sent", "shed"]
    assert policies["matchers P is sent to"].tolist()[:2] == ["0, 1", "2, 3"]
    assert policies["accuracy"].tolist() == pytest.approx([1 / 8, 7 / 8, 0.4])
    assert policies.index[2] == "random dropping (60% of the load)"
    # buffer: L = (5, 2): rho = 2.5, r = 0.5 / (2.5 - 1) = 1/3 -> b^i = 250, b^s = 750;
    # lowered at 249 -> 622.5 < 1000; raised at 1000 -> 400 >= 250
    _, seg = extra_buffer_example((5.0, 2.0), 1000.0)
    assert seg.r == pytest.approx(1 / 3) and seg.ideal == pytest.approx(250)
    assert seg.stable == pytest.approx(750) and seg.overload == pytest.approx(500)
    assert 249 * seg.rho_max < seg.size and seg.size / seg.rho_max >= seg.ideal
