"""The Spark dataflow (router -> identity-partitioned matchers -> dispatcher) and its
Structured Streaming replay produce exactly the oracle's matches (S3-TM Sects. 2, 4, 5.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.datasets.synthetic import topic_tweets_pandas
from routelab.s3tm.corpus import Corpus
from routelab.s3tm.dataflow import matcher_state, posts_frame, run_dataflow
from routelab.s3tm.mappings import learn_mapping
from routelab.s3tm.matching_load import matching_load, oracle_pairs, subscription_corpus
from routelab.s3tm.placement import place_subscriptions
from routelab.s3tm.streaming import replay_stream
from routelab.s3tm.trie import brute_force_match

N = 4


@pytest.fixture(scope="module")
def workload():
    frame = topic_tweets_pandas(600, seed=3, vocab_size=150, topic_words=20, n_topics=4)
    posts = Corpus.from_frame(frame[["post_id", "words"]])
    freq = posts.doc_freq()
    top = [posts.vocab[j] for j in np.argsort(-freq, kind="stable")[:3]]
    lists = [posts.words_of(r)[:3] for r in range(0, 600, 7) if posts.lengths()[r]]
    lists += [[top[0]], [top[0], top[1]], [top[1], top[2]], [top[0], "nowhere"]]  # hot-only subs
    subs = subscription_corpus(
        pd.DataFrame({"sub_id": np.arange(len(lists)) * 10, "words": lists}), posts.vocab
    )
    mapping = learn_mapping(posts, N, "SALB", subscriptions=subs, split_hot=True, hot_fraction=0.1)
    placement = place_subscriptions(subs, mapping, "LASP", cost=(0.01, 5.0))
    return frame, posts, subs, mapping, placement


def _brute(posts: Corpus, subs: Corpus) -> pd.DataFrame:
    table = {int(s): frozenset(subs.words_of(r)) for r, s in enumerate(subs.post_ids)}
    pairs = [
        (s, int(posts.post_ids[r]))
        for r in range(posts.n_posts)
        for s in brute_force_match(table, posts.words_of(r))
    ]
    return pd.DataFrame(pairs, columns=["sub_id", "post_id"]).sort_values(
        ["sub_id", "post_id"], ignore_index=True
    )


def test_workload_has_multicast_subscriptions(workload):
    _, _, _, mapping, placement = workload
    assert mapping.versions, "the fixture must split some hot words"
    assert placement.category_counts()["all_hot"] >= 1


def test_oracle_pairs_equals_brute_force(workload):
    _, posts, subs, _, _ = workload
    expected = _brute(posts, subs)
    got = oracle_pairs(posts, subs, chunk=97)
    assert got.astype("int64").equals(expected.astype("int64"))
    assert len(expected) > 100


@pytest.mark.spark
def test_dataflow_equals_oracle_without_duplicates(spark, workload):
    _, posts, subs, mapping, placement = workload
    state = matcher_state(mapping, placement, subs)
    result = run_dataflow(posts_frame(spark, posts, 3), state)
    expected = oracle_pairs(posts, subs)
    assert result.matches.astype("int64").equals(expected.astype("int64"))
    assert not result.matches.duplicated().any()
    # multicast copies of category-(iii) subscriptions were produced twice and dropped
    assert result.duplicates_removed > 0
    stats = result.matcher_stats
    assert stats["matcher"].tolist() == list(range(N))
    assert stats["matches"].sum() == len(expected) + result.duplicates_removed
    # the dataflow's counted work equals the model's subscription-aware load
    model = matching_load(mapping, placement, subs, posts)
    assert stats["ops"].tolist() == model.ops.tolist()
    assert stats["posts"].tolist() == model.pubs.tolist()
    assert (stats["task_seconds"] >= stats["match_seconds"]).all()
    per_sub = result.per_subscription()
    assert per_sub["n_matches"].sum() == len(expected)


@pytest.mark.spark
def test_streaming_replay_equals_batch(spark, workload, tmp_path):
    frame, posts, subs, mapping, placement = workload
    state = matcher_state(mapping, placement, subs)
    replay = replay_stream(spark, frame, state, n_files=2, workdir=tmp_path)
    assert len(replay.batches) == 2
    assert replay.batches["posts"].sum() == len(frame)
    expected = oracle_pairs(posts, subs)
    assert replay.matches.astype("int64").equals(expected.astype("int64"))
    # tries are built once per worker and reused by later micro-batches
    assert replay.matcher_stats["trie_cached"].any()
