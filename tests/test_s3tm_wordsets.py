"""Corpus construction (word lists, pandas, Spark), subsets, restriction, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.errors import BadInputError
from routelab.s3tm import Corpus, subscribed_words

WORDS = [["b", "a", "a"], [], ["c"], ["a", "c", "d"]]


def test_from_word_lists_builds_sorted_sets():
    c = Corpus.from_word_lists(WORDS)
    assert c.vocab == ["a", "b", "c", "d"]
    assert c.indptr.tolist() == [0, 2, 2, 3, 6]
    assert c.indices.tolist() == [0, 1, 2, 0, 2, 3]
    assert c.doc_freq().tolist() == [2, 1, 2, 1]
    assert c.post_ids.tolist() == [0, 1, 2, 3]


def test_extending_a_vocabulary_keeps_ids():
    posts = Corpus.from_word_lists(WORDS)
    subs = Corpus.from_word_lists([["d", "zeta"], ["a"]], vocab=posts.vocab)
    assert subs.vocab[:4] == posts.vocab and subs.vocab[4] == "zeta"
    assert subs.word_lists() == [["d", "zeta"], ["a"]]
    assert subscribed_words(subs) == {"a", "d", "zeta"}


def test_repairable_problems_are_counted():
    c = Corpus.from_word_lists([["a", "", None], None])
    assert c.word_lists() == [["a"], []]
    assert c.issues == {"empty or null word": 2, "null word list": 1}


def test_bad_input_names_the_post():
    with pytest.raises(BadInputError, match="post 1: expected a list of words"):
        Corpus.from_word_lists([["a"], "ab"])
    with pytest.raises(BadInputError, match="post 0: word 3 is a int"):
        Corpus.from_word_lists([["a", 3]])
    with pytest.raises(ValueError, match="sorted and distinct"):
        Corpus(np.array([0, 2]), np.array([1, 0]), ["a", "b"])


def test_words_by_frequency_breaks_ties_by_string():
    c = Corpus.from_word_lists([["z", "m"], ["z", "a"], ["q"]], vocab=["q", "m", "a", "z", "x"])
    assert [c.vocab[w] for w in c.words_by_frequency()] == ["z", "a", "m", "q"]


def test_subset_and_restrict():
    c = Corpus.from_word_lists(WORDS, post_ids=[10, 11, 12, 13])
    s = c.subset([3, 0])
    assert s.word_lists() == [["a", "c", "d"], ["a", "b"]] and s.post_ids.tolist() == [13, 10]
    assert c.subset(np.array([False, True, True, False])).word_lists() == [[], ["c"]]
    r = c.restrict(c.word_mask({"a", "d", "nope"}))
    assert r.word_lists() == [["a"], [], [], ["a", "d"]] and r.n_posts == 4


def test_from_frame_matches_word_lists_and_counts_issues():
    df = pd.DataFrame(
        {"post_id": [7, 3, 9, 1], "words": [["b", "a", "a"], [], None, ["c", "", None]]}
    )
    c = Corpus.from_frame(df)
    assert c.word_lists() == [["a", "b"], [], [], ["c"]]
    assert c.post_ids.tolist() == [7, 3, 9, 1]
    assert c.issues == {"null word list": 1, "empty or null word": 2}
    with pytest.raises(BadInputError, match="duplicate post_id"):
        Corpus.from_frame(pd.DataFrame({"post_id": [1, 1], "words": [["a"], ["b"]]}))
    with pytest.raises(BadInputError, match="lacks column"):
        Corpus.from_frame(pd.DataFrame({"id": [1]}))


@pytest.mark.spark
def test_from_spark_equals_word_lists(spark):
    rows = [(13, ["a", "c", "d", "c"]), (10, ["b", "a"]), (11, []), (12, ["c", ""]), (14, None)]
    df = spark.createDataFrame(rows, "post_id long, words array<string>")
    c = Corpus.from_spark(df, vocab=["q"])
    assert c.post_ids.tolist() == [10, 11, 12, 13, 14]
    assert c.vocab == ["q", "a", "b", "c", "d"]
    assert c.word_lists() == [["a", "b"], [], ["c"], ["a", "c", "d"], []]
    assert c.issues == {"null word list": 1, "empty or null word": 1}
    dup = spark.createDataFrame([(1, ["a"]), (1, ["b"])], "post_id long, words array<string>")
    with pytest.raises(BadInputError, match="1 duplicate post_id"):
        Corpus.from_spark(dup)
    with pytest.raises(BadInputError, match="lacks column"):
        Corpus.from_spark(df.drop("words"))
