"""Routing metrics (S3-TM Eqs. 1-7) against a hand-computed example and invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from routelab.datasets.synthetic import topic_tweets_pandas
from routelab.s3tm import Corpus, Mapping, learn_mapping, route_metrics

# M: a->0, b->1, c->1, d->0, N = 2; W^s = {a, c, d} (b is not subscribed)
HAND_MAPPING = Mapping(2, "manual", 0, {"a": 0, "b": 1, "c": 1, "d": 0})
HAND_POSTS = [["a", "b"], ["a", "c"], ["a"], ["b", "c"], ["d"], ["b"]]
HAND_SUBS = [["a"], ["c", "d"]]


def test_hand_example():
    # Eq. 1 (only subscribed words route):
    #   P1 {a,b} -> {0};  P2 {a,c} -> {0,1};  P3 {a} -> {0};  P4 {b,c} -> {1};
    #   P5 {d} -> {0};    P6 {b} -> {} (no subscribed word)
    # Eq. 2: spread = (1+2+1+1+1+0)/6 = 1.0; over the 5 routed posts 6/5 = 1.2
    # Eq. 3: L0 = |{P1,P2,P3,P5}| = 4, L1 = |{P2,P4}| = 2
    # Eq. 4: avg = 3, imbalance = 4/3; CV = std([4,2]) / 3 = 1/3
    # Eq. 6 (C = 1): T = 6 / 4 = 1.5;  Eq. 7: T-hat = C N / (R B) = 2 / (1.0 * 4/3) = 1.5
    m = route_metrics(HAND_MAPPING, HAND_POSTS, HAND_SUBS)
    assert [m.targets.of(p) for p in range(6)] == [[0], [0, 1], [0], [1], [0], []]
    assert m.loads.tolist() == [4, 2]
    assert m.n_posts == 6 and m.n_routed == 5
    assert m.spread == pytest.approx(1.0)
    assert m.spread_routed == pytest.approx(1.2)
    assert m.imbalance == pytest.approx(4 / 3)
    assert m.cv == pytest.approx(1 / 3)
    assert m.throughput == pytest.approx(1.5)
    assert m.t_hat == pytest.approx(1.5)


def test_hand_example_all_words_and_capacity():
    # all words subscribed: sizes 2,2,1,1,1,1 -> spread 8/6; L0 = 4 (P1,P2,P3,P5),
    # L1 = 4 (P1,P2,P4,P6); imbalance 1, CV 0; T = C * 6 / 4 with C = 10 -> 15
    m = route_metrics(HAND_MAPPING, HAND_POSTS, capacity=10.0)
    assert m.loads.tolist() == [4, 4]
    assert m.spread == pytest.approx(8 / 6)
    assert (m.imbalance, m.cv) == (pytest.approx(1.0), pytest.approx(0.0))
    assert m.throughput == pytest.approx(15.0)


def test_unseen_word_uses_hash_fallback():
    m = route_metrics(HAND_MAPPING, [["zebra"]])
    assert m.targets.of(0) == [HAND_MAPPING.fallback("zebra")]


def test_no_load_gives_nan_imbalance_and_infinite_throughput():
    m = route_metrics(HAND_MAPPING, [["a"], ["b"]], [["x"]])
    assert m.loads.tolist() == [0, 0] and m.spread == 0.0
    assert math.isnan(m.imbalance) and math.isinf(m.throughput)


@pytest.mark.parametrize("method", ["hash", "SALB", "gFCL"])
@pytest.mark.parametrize("n", [3, 8])
def test_invariants_on_random_corpora(method, n):
    df = topic_tweets_pandas(400, seed=n, vocab_size=120, topic_words=20, n_topics=5)
    posts = Corpus.from_frame(df)
    learn, test = posts.subset(np.arange(300)), posts.subset(np.arange(300, 400))
    subs = [posts.words_of(p) for p in range(0, 300, 7)]
    mapping = learn_mapping(learn, n, method, subscriptions=subs, seed=1)
    m = route_metrics(mapping, test, subs)
    sizes = m.targets.sizes()
    subscribed = {w for s in subs for w in s}
    for p in range(test.n_posts):
        # K(P, M): sorted distinct matchers of the post's subscribed words (Eq. 1)
        words = [w for w in test.words_of(p) if w in subscribed]
        assert m.targets.of(p) == sorted({mapping.matcher_of(w) for w in words})
    assert m.loads.sum() == sizes.sum()
    assert m.imbalance >= 1.0 and 1.0 <= m.imbalance <= n
    assert m.t_hat == pytest.approx(m.throughput)
    assert m.spread_routed >= 1.0
