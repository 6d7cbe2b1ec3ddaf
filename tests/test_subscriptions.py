"""Tests of routelab.corpus.subscriptions: tweet- and topic-based subscriptions, LDA, storage, CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from command_runner import run_command
from scipy import stats

from routelab.corpus import subscriptions as sb
from routelab.errors import BadInputError
from routelab.hashing import py_mix64


def make_posts(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Posts with random word sets over 60 words; every 10th post is empty or null."""
    rng = np.random.default_rng(seed)
    words = []
    for i in range(n):
        if i % 20 == 0:
            words.append([])
        elif i % 20 == 10:
            words.append(None)
        else:
            k = int(rng.integers(1, 7))
            words.append(sorted({f"v{j}" for j in rng.integers(0, 60, k)}))
    # ids not contiguous and not sorted, to catch positional assumptions
    ids = rng.permutation(np.arange(n, dtype=np.int64) * 7 + 3)
    return pd.DataFrame({"post_id": ids, "words": words})


HAND_MODEL = sb.TopicModel(
    words=(
        ("a", "b", "c", "d", "e"),
        ("f", "g", "h", "i", "j"),
        ("k", "l", "m", "n", "o", "p", "q"),
        ("b", "r", "s", "t", "u"),
    ),
    probs=((0.3, 0.2, 0.2, 0.2, 0.1),) * 2 + ((0.2,) * 4 + (0.1,) * 3,) + ((0.2,) * 5,),
    weights=(0.7, 0.1, 0.1, 0.1),
)


# ----------------------------------------------------------------------------- tweet-based


def test_hash_order_is_the_seeded_stable_hash_order():
    ids = np.array([5, 17, 2, 99, 40, 3], dtype=np.int64)
    for seed in (0, 1, 12345):
        expected = sorted(ids.tolist(), key=lambda i: (py_mix64(i, seed), i))
        assert sb.hash_order(ids, seed).tolist() == expected
    assert sb.hash_order(ids, 1).tolist() != sb.hash_order(ids, 2).tolist()


def test_tweet_subscriptions_are_distinct_real_posts():
    posts = make_posts()
    nonempty = posts[posts["words"].map(lambda w: bool(w))]
    subs = sb.tweet_subscriptions(posts, 150, seed=3)
    assert list(subs.columns) == ["sub_id", "words", "kind", "topic"]
    np.testing.assert_array_equal(subs["sub_id"], np.arange(150))
    assert (subs["kind"] == "tweet").all() and subs["topic"].isna().all()
    picks = sb.select_posts(nonempty["post_id"].to_numpy(), 150, 3)
    assert len(set(picks)) == 150  # without replacement
    by_id = dict(zip(posts["post_id"], posts["words"], strict=True))
    for words, post_id in zip(subs["words"], picks, strict=True):
        assert list(words) == by_id[post_id] and words  # exactly the post's words
    again = sb.tweet_subscriptions(posts, 150, seed=3)
    assert [list(w) for w in again["words"]] == [list(w) for w in subs["words"]]
    other = sb.tweet_subscriptions(posts, 150, seed=4)
    assert [list(w) for w in other["words"]] != [list(w) for w in subs["words"]]


def test_tweet_subscriptions_beyond_the_corpus_reuse_posts_evenly():
    posts = make_posts(100)
    nonempty = posts[posts["words"].map(lambda w: bool(w))]["post_id"].to_numpy()
    m = len(nonempty)  # 90: ids i%20 in {0, 10} are empty or null
    assert m == 90
    picks = sb.select_posts(nonempty, 2 * m + 5, seed=1)
    used = pd.Series(picks).value_counts()
    assert set(used.index) == set(nonempty)
    assert set(used.to_numpy()) <= {2, 3} and (used == 3).sum() == 5
    assert len(set(picks[:m])) == m  # first round is a permutation


def test_duplicate_post_ids_and_empty_corpus_are_reported():
    posts = pd.DataFrame({"post_id": [1, 2, 2], "words": [["a"], ["b"], ["c"]]})
    with pytest.raises(BadInputError, match="post_id must be unique.*first 2"):
        sb.tweet_subscriptions(posts, 2)
    with pytest.raises(BadInputError, match="1 post.s. with a null post_id"):
        sb.tweet_subscriptions(pd.DataFrame({"post_id": [1, None], "words": [["a"], ["b"]]}), 1)
    empty = pd.DataFrame({"post_id": [1, 2], "words": [[], None]})
    with pytest.raises(BadInputError, match="no post with at least one word"):
        sb.tweet_subscriptions(empty, 1)
    with pytest.raises(BadInputError, match="missing column"):
        sb.tweet_subscriptions(pd.DataFrame({"id": [1]}), 1)
    with pytest.raises(ValueError, match="n must be >= 1"):
        sb.tweet_subscriptions(posts, 0)


# ----------------------------------------------------------------------------- topic-based


def test_length_pmf_hand_computed():
    # skew 0.5 over 1..2: weights 1 and 1/sqrt(2)
    w = np.array([1.0, 2**-0.5])
    np.testing.assert_allclose(sb.length_pmf(0.5, 2), w / w.sum())
    np.testing.assert_allclose(sb.length_pmf(0.0, 4), [0.25] * 4)


def test_topic_subscriptions_follow_the_paper_model():
    n = 150_000
    subs = sb.topic_subscriptions(HAND_MODEL, n, seed=5)
    assert (subs["kind"] == "topic").all()
    np.testing.assert_array_equal(subs["sub_id"], np.arange(n))
    lengths = subs["words"].map(len).to_numpy()
    assert lengths.min() == 1 and lengths.max() == 5
    assert stats.chisquare(np.bincount(lengths)[1:], sb.length_pmf(0.5, 5) * n).pvalue > 1e-3
    topics = subs["topic"].to_numpy(dtype=int)
    assert stats.chisquare(np.bincount(topics, minlength=4)).pvalue > 1e-3  # uniform
    for words, topic in zip(subs["words"][:5000], topics[:5000], strict=True):
        words = list(words)
        assert words == sorted(set(words))
        assert set(words) <= set(HAND_MODEL.words[topic])
    # words are drawn uniformly from the topic: each of topic 2's 7 words equally often
    in_topic2 = np.concatenate(subs["words"][topics == 2].to_numpy())
    assert stats.chisquare(pd.Series(in_topic2).value_counts().to_numpy()).pvalue > 1e-3


def test_topic_subscriptions_reproducible_and_weighted_choice():
    a = sb.topic_subscriptions(HAND_MODEL, 2000, seed=1)
    b = sb.topic_subscriptions(HAND_MODEL, 2000, seed=1)
    c = sb.topic_subscriptions(HAND_MODEL, 2000, seed=2)
    assert [list(w) for w in a["words"]] == [list(w) for w in b["words"]]
    assert (a["topic"] == b["topic"]).all() and (a["topic"] != c["topic"]).any()
    n = 50_000
    weighted = sb.topic_subscriptions(HAND_MODEL, n, topic_choice="weight", seed=1)
    counts = np.bincount(weighted["topic"].to_numpy(dtype=int), minlength=4)
    assert stats.chisquare(counts, np.array(HAND_MODEL.weights) * n).pvalue > 1e-3


def test_topic_subscription_arguments_are_checked():
    with pytest.raises(ValueError, match="max_len=6 exceeds"):
        sb.topic_subscriptions(HAND_MODEL, 10, max_len=6)
    with pytest.raises(ValueError, match="topic_choice"):
        sb.topic_subscriptions(HAND_MODEL, 10, topic_choice="popular")
    with pytest.raises(ValueError, match="zipf_skew"):
        sb.topic_subscriptions(HAND_MODEL, 10, zipf_skew=-1)
    with pytest.raises(ValueError, match="duplicate words"):
        sb.TopicModel((("a", "a"),), ((0.5, 0.5),), (1.0,))


# ----------------------------------------------------------------------------- LDA


def planted_posts(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """Three disjoint 8-word vocabularies; each post takes 4 words of one of them."""
    rng = np.random.default_rng(seed)
    vocabularies = [[f"{letter}{i}" for i in range(8)] for letter in "xyz"]
    words = [sorted(rng.choice(vocabularies[i % 3], 4, replace=False).tolist()) for i in range(n)]
    return pd.DataFrame({"post_id": np.arange(n), "words": words})


def test_lda_recovers_planted_topics_reproducibly():
    posts = planted_posts()
    model = sb.fit_topics(posts, 3, passes=10, seed=0)
    letters = [{w[0] for w in words} for words in model.words]
    assert all(len(s) == 1 for s in letters)  # each topic is one planted vocabulary
    assert set().union(*letters) == {"x", "y", "z"}  # and all three are found
    np.testing.assert_allclose(model.weights, [1 / 3] * 3, atol=0.05)
    assert all(list(p) == sorted(p, reverse=True) for p in model.probs)
    assert model.params["n_posts"] == 600 and model.params["vocab_size"] == 24
    again = sb.fit_topics(posts, 3, passes=10, seed=0)
    assert again.words == model.words
    frame = model.to_frame()
    assert list(frame.columns) == ["topic", "rank", "word", "prob", "weight"]
    assert len(frame) == 15


def test_lda_max_posts_and_vocabulary_filter():
    posts = planted_posts(900)
    model = sb.fit_topics(posts, 3, passes=2, seed=1, max_posts=300)
    assert model.params["n_posts"] == 300
    with pytest.raises(BadInputError, match="need at least words_per_topic=30"):
        sb.fit_topics(posts, 3, words_per_topic=30)


# ----------------------------------------------------------------------------- storage


def test_subscriptions_and_topic_model_round_trip(tmp_path):
    subs = pd.concat(
        [
            sb.topic_subscriptions(HAND_MODEL, 50, seed=0),
            sb.tweet_subscriptions(make_posts(), 20, seed=0).assign(sub_id=lambda d: d.sub_id + 50),
        ],
        ignore_index=True,
    )
    path = sb.write_subscriptions(subs, tmp_path / "subs")
    back = sb.read_subscriptions(path)
    assert back["sub_id"].dtype == np.int64 and str(back["topic"].dtype) == "Int32"
    assert back["topic"].isna().sum() == 20
    pd.testing.assert_frame_equal(
        back.drop(columns="words"), subs.drop(columns="words"), check_dtype=False
    )
    assert [list(w) for w in back["words"]] == [list(w) for w in subs["words"]]
    with pytest.raises(BadInputError, match="already exists"):
        sb.write_subscriptions(subs, path)
    (path / "keep.txt").write_text("user file")
    with pytest.raises(BadInputError, match="refusing to overwrite"):
        sb.write_subscriptions(subs, path, overwrite=True)
    model_path = HAND_MODEL.save(tmp_path / "topics.json")
    assert sb.TopicModel.load(model_path) == HAND_MODEL
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(BadInputError, match="not a topic model"):
        sb.TopicModel.load(tmp_path / "bad.json")


# ----------------------------------------------------------------------------- Spark


@pytest.mark.spark
def test_spark_tweet_subscriptions_equal_pandas(spark):
    posts = make_posts(300)
    got = sb.tweet_subscriptions(spark.createDataFrame(posts), 120, seed=6).toPandas()
    got = got.sort_values("sub_id", ignore_index=True)
    want = sb.tweet_subscriptions(posts, 120, seed=6)
    np.testing.assert_array_equal(got["sub_id"], want["sub_id"])
    assert [list(w) for w in got["words"]] == [list(w) for w in want["words"]]
    assert got["topic"].isna().all() and (got["kind"] == "tweet").all()


@pytest.mark.spark
def test_spark_topic_subscriptions_equal_pandas(spark):
    n = sb.SUB_BLOCK + 500
    got = sb.topic_subscriptions_spark(spark, HAND_MODEL, n, seed=2, partitions=2).toPandas()
    got = got.sort_values("sub_id", ignore_index=True)
    want = sb.topic_subscriptions(HAND_MODEL, n, seed=2)
    np.testing.assert_array_equal(got["topic"], want["topic"].to_numpy(dtype=int))
    assert [list(w) for w in got["words"]] == [list(w) for w in want["words"]]


def _cli(argv: list[str]) -> int:
    return run_command("subscriptions", argv)


@pytest.mark.spark
def test_cli_builds_both_kinds_from_parquet(spark, tmp_path, capsys):
    posts_dir = tmp_path / "posts"
    spark.createDataFrame(planted_posts(300)).write.parquet(str(posts_dir))
    common = ["--posts", str(posts_dir), "--n", "400", "--seed", "1", "--no-progress"]
    out = tmp_path / "tweet_subs"
    assert _cli(["subscriptions", *common, "--kind", "tweet", "--out", str(out)]) == 0
    tweet = sb.read_subscriptions(out)
    assert len(tweet) == 400 and (tweet["words"].map(len) == 4).all()
    out = tmp_path / "topic_subs"
    argv = [
        "subscriptions",
        *common,
        "--kind",
        "topic",
        "--topics",
        "3",
        "--passes",
        "3",
        "--words-per-topic",
        "4",
        "--max-len",
        "4",
        "--out",
        str(out),
    ]
    assert _cli(argv) == 0
    topic = sb.read_subscriptions(out)
    model = sb.TopicModel.load(out / "topics.json")
    assert len(topic) == 400 and topic["words"].map(len).max() <= 4
    for words, t in zip(topic["words"], topic["topic"], strict=True):
        assert set(words) <= set(model.words[t])
    capsys.readouterr()
    assert _cli(argv) == 2
    assert "already exists" in capsys.readouterr().out
    bad = tmp_path / "keys"
    spark.createDataFrame(pd.DataFrame({"key": [1, 2]})).write.parquet(str(bad))
    assert (
        _cli(
            [
                "subscriptions",
                "--posts",
                str(bad),
                "--kind",
                "tweet",
                "--n",
                "1",
                "--out",
                str(tmp_path / "x"),
            ]
        )
        == 2
    )
    printed = capsys.readouterr().out  # checked before Spark starts: the file and its columns
    assert f"{bad}" in printed and "no column 'words'" in printed and "its columns: key" in printed


def test_lda_cache_returns_the_fit_it_kept_and_refits_on_any_change(tmp_path, monkeypatch):
    """fit_topics(cache=True): a second fit of the same documents with the same parameters
    is read back (gensim is not called) and equals a fresh fit; the rows' order does not
    matter (the fit orders posts by id); a parameter or one word changed is a new fit."""
    import gensim.models

    monkeypatch.setenv("ROUTELAB_DATA_DIR", str(tmp_path))
    posts = planted_posts(300)
    fresh = sb.fit_topics(posts, 3, passes=2, seed=0)
    kept = sb.fit_topics(posts, 3, passes=2, seed=0, cache=True)
    assert kept == fresh
    files = sorted((tmp_path / "prepared" / "topic_models").glob("lda-*.json"))
    assert len(files) == 1 and not list(files[0].parent.glob(".*.part"))

    real_lda = gensim.models.LdaModel

    def no_fit(*args, **kwargs):
        raise AssertionError("refitted a kept model")

    monkeypatch.setattr(gensim.models, "LdaModel", no_fit)
    shuffled = posts.sample(frac=1.0, random_state=1)
    assert sb.fit_topics(shuffled, 3, passes=2, seed=0, cache=True) == fresh
    with pytest.raises(AssertionError, match="refitted"):  # another parameter: a new fit
        sb.fit_topics(posts, 3, passes=3, seed=0, cache=True)
    changed = posts.copy()
    changed.at[0, "words"] = [*changed.at[0, "words"][:-1], "newword"]
    with pytest.raises(AssertionError, match="refitted"):  # one word changed: a new fit
        sb.fit_topics(changed, 3, passes=2, seed=0, cache=True)
    monkeypatch.setattr(gensim.models, "LdaModel", real_lda)
    other = sb.fit_topics(posts, 3, passes=2, seed=1, cache=True)
    assert other.params["seed"] == 1
    assert len(list((tmp_path / "prepared" / "topic_models").glob("lda-*.json"))) == 2
    files[0].write_text("{not json")
    with pytest.raises(BadInputError, match=files[0].name):
        sb.fit_topics(posts, 3, passes=2, seed=0, cache=True)
