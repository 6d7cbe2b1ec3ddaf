"""Hot-word splitting and subscription categories (S3-TM Sect. 5.1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routelab.datasets.synthetic import topic_tweets_pandas
from routelab.hashing import seed_constant
from routelab.s3tm import (
    Corpus,
    apply_split,
    hot_placement,
    learn_mapping,
    route_metrics,
    split_plan,
)
from routelab.s3tm.skew import version_of, word_key


@pytest.fixture(scope="module")
def posts() -> Corpus:
    df = topic_tweets_pandas(1500, seed=7, vocab_size=400, topic_words=40, n_topics=8)
    return Corpus.from_frame(df)


def test_split_plan_hand_example():
    # counts: a=6, b=3, c=2, d=1 (12 posts of one word each); total 12, N = 4:
    # even share 12/4 = 3, cap = 1.5 -> a: k = ceil(6/1.5) = 4, b: ceil(3/1.5) = 2,
    # c: ceil(2/1.5) = 2, d: 1 <= 1.5 not hot
    corpus = Corpus.from_word_lists([["a"]] * 6 + [["b"]] * 3 + [["c"]] * 2 + [["d"]])
    plan = split_plan(corpus, 4)
    assert plan.cap == 1.5 and plan.total == 12
    got = {corpus.vocab[w]: int(k) for w, k in zip(plan.words, plan.versions, strict=True)}
    assert got == {"a": 4, "b": 2, "c": 2}


@settings(max_examples=60)
@given(
    counts=st.lists(st.integers(1, 400), min_size=1, max_size=12),
    n=st.integers(1, 300),
    fraction=st.sampled_from([0.25, 0.5, 1.0]),
)
def test_split_versions_never_exceed_the_cap_and_are_minimal(counts, n, fraction):
    words = [[f"w{i}"] for i, c in enumerate(counts) for _ in range(c)]
    corpus = Corpus.from_word_lists(words)
    plan = split_plan(corpus, n, fraction)
    cap = fraction * sum(counts) / n
    hot = dict(zip(plan.words.tolist(), plan.versions.tolist(), strict=True))
    for w, c in enumerate(np.bincount(corpus.indices)):
        if w in hot:
            k = hot[w]
            assert k >= 2 and c / k <= cap + 1e-12 and c / (k - 1) > cap
        else:
            assert c <= cap + 1e-12


def test_version_choice_is_stable_and_uniform():
    sc, key = seed_constant(3), word_key("health", 3)
    draws = np.array([version_of(p, key, sc, 5) for p in range(20_000)])
    again = np.array([version_of(p, key, sc, 5) for p in range(20_000)])
    np.testing.assert_array_equal(draws, again)
    counts = np.bincount(draws, minlength=5)
    # chi-square with 4 dof; 18.5 is the 0.999 quantile
    assert ((counts - 4000) ** 2 / 4000).sum() < 18.5
    other = np.array([version_of(p, key, seed_constant(4), 5) for p in range(200)])
    assert (other != draws[:200]).any()


def test_apply_split_replaces_hot_words(posts):
    plan = split_plan(posts, 64)
    split, origin = apply_split(posts, plan, seed=1)
    assert len(plan.words) > 0
    np.testing.assert_array_equal(split.lengths(), posts.lengths())
    freq = split.doc_freq()
    assert freq[plan.words].sum() == 0  # hot words only occur as versions
    for w, k, c in zip(plan.words, plan.versions, plan.counts, strict=True):
        ids = [j for j, (word, _) in origin.items() if word == posts.vocab[w]]
        assert len(ids) == k and freq[ids].sum() == c


def test_routing_reaches_the_learned_version(posts):
    # routing the learning posts with the learned split mapping reproduces the version
    # choice made at learning time, so every occurrence goes where SALB put its version
    m = learn_mapping(posts, 64, "SALB", split_hot=True, seed=1)
    split, origin = apply_split(posts, split_plan(posts, 64), seed=1)
    targets = m.route(posts)
    for p in range(0, posts.n_posts, 7):
        expected = set()
        for j in split.indices[split.indptr[p] : split.indptr[p + 1]]:
            word, v = origin.get(j, (split.vocab[j], -1))
            expected.add(m.versions[word][v] if v >= 0 else m.assignment[word])
        assert targets.of(p) == sorted(expected)


def test_split_lowers_imbalance_at_many_nodes(posts):
    # Sect. 5.1: hot words limit balance beyond ~64 nodes; splitting them must help
    plain = learn_mapping(posts, 128, "SALB")
    split = learn_mapping(posts, 128, "SALB", split_hot=True)
    assert route_metrics(split, posts).imbalance < route_metrics(plain, posts).imbalance


def test_placement_categories_hand_example():
    corpus = Corpus.from_word_lists([["a"]] * 6 + [["b"]] * 3 + [["c"]] * 2 + [["d"]])
    m = learn_mapping(corpus, 4, "hash", split_hot=True, seed=0)
    assert set(m.versions) == {"a", "b", "c"} and m.hot_counts == {"a": 6, "b": 3, "c": 2}
    p = hot_placement(["d"], m)  # (i) no hot word
    assert (p.category, p.matchers, p.multicast) == ("no_hot", (m.matcher_of("d"),), False)
    p = hot_placement(["a", "d"], m)  # (ii) hot and regular: only the regular word counts
    assert (p.category, p.matchers, p.words) == ("mixed", (m.matcher_of("d"),), ("d",))
    p = hot_placement(["a", "c"], m)  # (iii) only hot: least frequent hot word c, multicast
    assert (p.category, p.words, p.multicast) == ("all_hot", ("c",), True)
    assert p.matchers == tuple(sorted(set(m.versions["c"])))


def test_placement_never_misses_a_matching_publication(posts):
    # whatever matcher the placer picks among the eligible ones (anycast), or all required
    # ones (multicast), a publication containing every word of the subscription reaches it
    m = learn_mapping(posts, 64, "SALB", split_hot=True, seed=2)
    targets = m.route(posts)
    hot = sorted(m.versions)
    assert len(hot) >= 2
    rng = np.random.default_rng(0)
    seen = set()
    for p in rng.choice(posts.n_posts, 300, replace=False):
        words = posts.words_of(int(p))
        sub = list(rng.choice(words, size=min(len(words), 2), replace=False))
        if rng.random() < 0.3:
            sub = [w for w in words if w in m.versions] or sub
        placement = hot_placement(sub, m)
        seen.add(placement.category)
        reached = set(targets.of(int(p)))
        if placement.multicast:
            assert reached & set(placement.matchers)
        else:
            assert set(placement.matchers) <= reached
    assert seen == {"no_hot", "mixed", "all_hot"}
