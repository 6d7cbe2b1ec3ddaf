"""Word network (S3-TM Sect. 3.2): hand example, restriction to W^s, Spark == driver."""

from __future__ import annotations

from itertools import combinations

import pytest

from routelab.datasets.synthetic import topic_tweets_pandas
from routelab.s3tm import Corpus, word_network, word_network_spark

POSTS = [["a", "b", "c"], ["a", "b"], ["c"], ["a", "d"], []]


def test_hand_example():
    # f: a in P1,P2,P4 -> 3; b -> 2; c -> 2; d -> 1
    # pairs: (a,b) in P1,P2 -> 2; (a,c), (b,c) in P1 -> 1; (a,d) in P4 -> 1
    net = word_network(Corpus.from_word_lists(POSTS))
    assert net.freq_dict() == {"a": 3, "b": 2, "c": 2, "d": 1}
    assert net.pair_dict() == {("a", "b"): 2, ("a", "c"): 1, ("b", "c"): 1, ("a", "d"): 1}
    assert net.n_posts == 5 and net.n_edges() == 4
    # f_n(a) = f(a,b) + f(a,c) + f(a,d) = (2 + 1 + 1) / |P|
    assert net.neighbour_count()[0] == 4
    assert net.word_frequency()[0] == pytest.approx(3 / 5)


def test_restricted_to_subscribed_words():
    net = word_network(Corpus.from_word_lists(POSTS), subscribed_words={"a", "c", "zzz"})
    assert net.freq_dict() == {"a": 3, "c": 2}
    assert net.pair_dict() == {("a", "c"): 1}
    assert net.n_posts == 5


def _brute_force(word_lists, subscribed=None):
    freq, pairs = {}, {}
    for words in word_lists:
        ws = sorted({w for w in words if subscribed is None or w in subscribed})
        for w in ws:
            freq[w] = freq.get(w, 0) + 1
        for pair in combinations(ws, 2):
            pairs[pair] = pairs.get(pair, 0) + 1
    return freq, pairs


@pytest.mark.spark
@pytest.mark.parametrize("restrict", [False, True])
def test_spark_equals_driver_and_brute_force(spark, restrict):
    df = topic_tweets_pandas(400, seed=4, vocab_size=150, topic_words=20, n_topics=5)
    corpus = Corpus.from_frame(df)
    subscribed = set(corpus.vocab[::3]) if restrict else None
    sdf = spark.createDataFrame(
        [(int(i), list(w)) for i, w in zip(df.post_id, df.words, strict=True)],
        "post_id long, words array<string>",
    )
    on_spark = word_network_spark(sdf, subscribed)
    driver = word_network(corpus, subscribed)
    freq, pairs = _brute_force(corpus.word_lists(), subscribed)
    assert on_spark.freq_dict() == driver.freq_dict() == freq
    assert on_spark.pair_dict() == driver.pair_dict() == pairs
    assert on_spark.n_posts == driver.n_posts == 400
