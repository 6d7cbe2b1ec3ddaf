"""Subscription-aware load (Sect. 4, Eq. 6 with trie lookups), Fig. 3 data and the Fig. 7
grid on small synthetic data (no Spark: ``local=True``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.corpus.subscriptions import tweet_subscriptions
from routelab.datasets.synthetic import topic_tweets_pandas
from routelab.s3tm.lab.subscription_scaling import (
    lookup_curve,
    placement_gain,
    run_scaling,
    scaling_data,
    tweet_subscription_corpus,
)
from routelab.s3tm.mappings import learn_mapping
from routelab.s3tm.matching_load import (
    matching_load,
    route_subscribed,
    subscription_corpus,
)
from routelab.s3tm.placement import place_subscriptions
from routelab.s3tm.trie import SubscriptionTrie
from routelab.s3tm.wordsets import Corpus


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return topic_tweets_pandas(800, seed=5, vocab_size=300, topic_words=30, n_topics=5)


@pytest.fixture(scope="module")
def posts(frame) -> Corpus:
    return Corpus.from_frame(frame[["post_id", "words"]])


def test_subscription_corpora_equal_the_generic_encoder(frame, posts):
    subs = tweet_subscriptions(frame[["post_id", "words"]], 1500, seed=2)  # > posts: repeats
    generic = Corpus.from_frame(
        subs.rename(columns={"sub_id": "post_id"})[["post_id", "words"]], vocab=posts.vocab
    )
    for fast in (subscription_corpus(subs, posts.vocab), tweet_subscription_corpus(posts, 1500, 2)):
        assert fast.vocab[: posts.n_vocab] == posts.vocab
        assert np.array_equal(fast.indptr, generic.indptr)
        assert np.array_equal(fast.indices, generic.indices)
        assert np.array_equal(fast.post_ids, generic.post_ids)


def test_matching_load_equals_reference_tries(posts):
    subs = tweet_subscription_corpus(posts, 300, seed=1)
    mapping = learn_mapping(posts, 4, "SALB", subscriptions=subs, split_hot=True)
    placement = place_subscriptions(subs, mapping, "LASP", cost=(0.01, 4.0))
    load = matching_load(mapping, placement, subs, posts, capacity=10.0)
    tries = [SubscriptionTrie() for _ in range(4)]
    for r, m in zip(placement.entry_rows, placement.entry_matchers, strict=True):
        tries[m].add(int(subs.post_ids[r]), subs.words_of(int(r)))
    targets = route_subscribed(mapping, posts, subs)
    ops = np.zeros(4, dtype=np.int64)
    for p in range(posts.n_posts):
        for m in targets.of(p):
            ops[m] += tries[m].match_ops(posts.words_of(p))[1]
    assert load.ops.tolist() == ops.tolist()
    assert load.pubs.tolist() == targets.loads().tolist()
    assert load.unique_words.tolist() == [t.unique_words for t in tries]
    assert load.throughput == pytest.approx(10.0 * posts.n_posts / ops.max())
    assert load.imbalance == pytest.approx(ops.max() / ops.mean())
    assert load.spread == pytest.approx(targets.loads().sum() / np.count_nonzero(targets.sizes()))


def test_lookup_curve_rows_are_consistent(posts):
    subs = tweet_subscription_corpus(posts, 400, seed=3)
    curve = lookup_curve(posts, subs, [20, 100, 400], n_matchers=4)
    assert set(curve["n_subs"]) == {20, 100, 400}
    assert (curve["ops_per_pub"] == curve["ops"] / curve["pubs"]).all()
    # nested workloads: a matcher's trie only grows, so the total unique words grows
    per_size = curve.groupby("n_subs")["unique_words"].sum()
    assert per_size.is_monotonic_increasing


def test_run_scaling_local_grid(posts):
    streams = {"tweet": tweet_subscription_corpus(posts, 600, seed=4)}
    data = scaling_data(posts, streams, n_folds=3, seed=0)
    frame = run_scaling(
        data,
        [50, 600],
        ["hash", "SALB"],
        kinds=["tweet"],
        n_matchers=4,
        folds=[0],
        placers=["LASP", "random"],
        cost=(0.01, 4.0),
        local=True,
        progress=False,
    )
    assert len(frame) == 2 * 2 * 2
    salb = frame[frame["method"] == "SALB"]
    assert np.allclose(salb["relative_throughput"], 1.0)
    assert (frame["n_posts"] == int((data.folds == 0).sum())).all()
    gain = placement_gain(frame)
    assert len(gain) == 4 and (gain["lasp_ops"] > 0).all()
    with pytest.raises(ValueError, match="unknown"):
        run_scaling(data, [50], ["nope"], kinds=["tweet"], local=True)


def test_reading_comparison_on_hand_made_rows():
    from routelab.s3tm.lab.subscription_scaling import placement_label, reading_comparison

    rows = []
    for placer, reading, ops in (
        ("LASP", "slope", (60, 80)),
        ("LASP", "literal", (90, 110)),
        ("random", "slope", (200, 200)),
    ):
        for fold, o in enumerate(ops):
            rows.append(
                {
                    "kind": "tweet",
                    "n_subs": 100,
                    "placer": placer,
                    "cost_reading": reading,
                    "fold": fold,
                    "total_ops": o,
                    "imbalance": 1.0 + fold,
                    "unique_words": 10,
                }
            )
    frame = pd.DataFrame(rows)
    assert list(placement_label(frame)) == ["LASP"] * 2 + ["LASP (literal l)"] * 2 + ["random"] * 2
    table = reading_comparison(frame)
    assert list(table["placement"]) == ["LASP", "LASP (literal l)", "random"]
    assert list(table["total lookups"]) == [70, 100, 200]
    assert list(table["lookups / random"]) == [0.35, 0.5, 1.0]
    assert list(table["imbalance (max/avg)"]) == [1.5, 1.5, 1.5]
    from routelab.s3tm.lab.subscription_scaling import reading_summary

    summary = reading_summary(table)
    assert len(summary) == 1
    row = summary.iloc[0]
    assert row["lookups / random, slope l"] == 0.35 and row["lookups / random, literal l"] == 0.5
    assert row["unique words, random"] == 10


def test_log_ticks_label_every_tick_in_full():
    from routelab.s3tm.lab.matching_figures import log_ticks

    ticks = log_ticks([60_000, 450_000])
    assert ticks["tickvals"] == [50_000, 100_000, 200_000, 500_000, 1_000_000]
    assert ticks["ticktext"] == ["50k", "100k", "200k", "500k", "1M"]
    assert log_ticks([0.0, float("nan")]) == {}


def test_run_scaling_carries_the_cost_reading(posts):
    from routelab.s3tm.lasp import CostFunction

    streams = {"tweet": tweet_subscription_corpus(posts, 300, seed=4)}
    data = scaling_data(posts, streams, n_folds=3, seed=0)
    kw = dict(kinds=["tweet"], n_matchers=4, folds=[0], local=True, progress=False)
    slope = run_scaling(data, [300], ["SALB"], cost=CostFunction(0.01, 4.0), **kw)
    literal = run_scaling(data, [300], ["SALB"], cost=CostFunction(0.01, 4.0, "literal"), **kw)
    assert list(slope["cost_reading"]) == ["slope"] and list(literal["cost_reading"]) == ["literal"]
