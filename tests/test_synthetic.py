"""Tests of routelab.datasets.synthetic: determinism, the laws behind each stream, twins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from command_runner import run_command
from scipy import stats

from routelab.datasets import synthetic as syn

# ----------------------------------------------------------------------------- helpers


def chi2_pvalue(counts: np.ndarray, probs: np.ndarray, min_expected: float = 5.0) -> float:
    """Chi-square goodness of fit; cells with small expectation are lumped into one."""
    counts = np.asarray(counts, dtype=float)
    expected = np.asarray(probs, dtype=float) * counts.sum()
    big = expected >= min_expected
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    exp *= obs.sum() / exp.sum()
    return float(stats.chisquare(obs, exp).pvalue)


def lognormal_rounded_pmf(mu: float, sigma: float, max_key: int) -> np.ndarray:
    """P(round(exp(mu + sigma Z)) = k) for k = 0..max_key, from the normal CDF."""
    k = np.arange(max_key + 1, dtype=float)
    lower = np.where(k > 0, np.log(np.maximum(k - 0.5, 1e-300)), -np.inf)
    upper = np.log(k + 0.5)
    return stats.norm.cdf((upper - mu) / sigma) - stats.norm.cdf((lower - mu) / sigma)


# ----------------------------------------------------------------------------- Zipf


def test_zipf_pmf_hand_computed():
    # z = 1 over 3 keys: weights 1, 1/2, 1/3, total 11/6
    np.testing.assert_allclose(syn.zipf_pmf(3, 1.0), [6 / 11, 3 / 11, 2 / 11])
    np.testing.assert_allclose(syn.zipf_cdf(3, 1.0), [1.0, 1.5, 1.5 + 1 / 3])


def test_keys_are_deterministic_in_seed():
    a = syn.keys_numpy("zipf", 70_000, n_keys=500, z=1.1, seed=4)
    b = syn.keys_numpy("zipf", 70_000, n_keys=500, z=1.1, seed=4)
    c = syn.keys_numpy("zipf", 70_000, n_keys=500, z=1.1, seed=5)
    assert a.dtype == np.int64 and len(a) == 70_000
    np.testing.assert_array_equal(a, b)
    assert (a != c).mean() > 0.5
    # a prefix of a longer stream is the shorter stream (blocks depend on the seed only)
    np.testing.assert_array_equal(syn.keys_numpy("zipf", 1000, n_keys=500, z=1.1, seed=4), a[:1000])


@pytest.mark.parametrize("z", [0.0, 0.8, 1.5])
def test_zipf_frequencies_follow_the_law(z):
    n_keys, n = 200, 100_000
    keys = syn.keys_numpy("zipf", n, n_keys=n_keys, z=z, seed=1)
    assert keys.min() >= 1 and keys.max() <= n_keys
    counts = np.bincount(keys, minlength=n_keys + 1)[1:]
    assert chi2_pvalue(counts, syn.zipf_pmf(n_keys, z)) > 1e-3
    # rank-frequency slope in log-log over the well-sampled head is -z
    top = np.arange(1, 31)
    slope = np.polyfit(np.log(top), np.log(counts[:30]), 1)[0]
    assert slope == pytest.approx(-z, abs=0.08)


# ----------------------------------------------------------------------------- log-normal


@pytest.mark.parametrize(("which", "top_key", "p1"), [("LN1", 0, 0.1471), ("LN2", 3, 0.0701)])
def test_lognormal_values_reproduce_pkg_table_one(which, top_key, p1):
    """PKG Table I: the most frequent key has 14.71% (LN1) / 7.01% (LN2) of the messages."""
    n = 400_000
    keys = syn.keys_numpy(which.lower(), n, seed=2)
    values, counts = np.unique(keys, return_counts=True)
    assert values[counts.argmax()] == top_key
    assert counts.max() / n == pytest.approx(p1, abs=4 * np.sqrt(p1 * (1 - p1) / n) + 1e-4)
    mu, sigma = syn.LOGNORMAL_PARAMS[which]
    # the median key is round(exp(mu)): 6 for LN1, 9 for LN2
    assert np.median(keys) == round(np.exp(mu))
    # the full distribution: chi-square against the rounded log-normal pmf
    max_key = int(values.max())
    pmf = lognormal_rounded_pmf(mu, sigma, max_key)
    pmf[-1] += 1 - pmf.sum()
    observed = np.bincount(keys, minlength=max_key + 1)
    assert chi2_pvalue(observed, pmf) > 1e-3


@pytest.mark.parametrize("which", ["LN1", "LN2"])
def test_lognormal_frequency_model_has_lognormal_key_frequencies(which):
    mu, sigma = syn.LOGNORMAL_PARAMS[which]
    spec = syn.lognormal_spec(which, "frequencies", n_keys=20_000)
    weights = np.diff(spec.weight_cdf(seed=3), prepend=0.0)
    logs = np.log(weights)
    assert logs.mean() == pytest.approx(mu, abs=4 * sigma / np.sqrt(len(logs)))
    assert logs.std() == pytest.approx(sigma, rel=0.03)
    # the stream picks keys in proportion to those weights
    keys = syn.keys_numpy(spec, 200_000, seed=3)
    assert keys.min() >= 1 and keys.max() <= 20_000
    counts = np.bincount(keys, minlength=20_001)[1:]
    assert chi2_pvalue(counts, weights / weights.sum()) > 1e-3
    # Table I's key counts are the default universe
    assert syn.lognormal_spec(which, "frequencies").n_keys == syn.LOGNORMAL_KEYS[which]


# ----------------------------------------------------------------------------- time-evolving


def test_time_evolving_zipf_offset_shifts_the_ranking():
    n, n_keys, every, offset = 90_000, 1000, 30_000, 400
    keys = syn.keys_numpy(
        "time_evolving_zipf", n, n_keys=n_keys, z=1.2, shift_every=every, offset=offset, seed=7
    )
    ranks = syn.keys_numpy("zipf", n, n_keys=n_keys, z=1.2, seed=7)
    np.testing.assert_array_equal(keys[:every], ranks[:every])  # period 0 is plain Zipf
    for period in (1, 2):
        part = slice(period * every, (period + 1) * every)
        np.testing.assert_array_equal(keys[part], (ranks[part] - 1 + period * offset) % n_keys + 1)


@pytest.mark.parametrize("offset", [None, 250])
def test_time_evolving_zipf_changes_hot_keys_and_each_period_is_zipf(offset):
    n_keys, every, z = 500, 40_000, 1.0
    spec = syn.TimeEvolvingZipfSpec(n_keys, z, every, offset)
    keys = syn.keys_numpy(spec, 3 * every, seed=11)
    tops = []
    for period in range(3):
        part = keys[period * every : (period + 1) * every]
        counts = np.bincount(part, minlength=n_keys + 1)[1:]
        tops.append(set(np.argsort(counts)[::-1][:5] + 1))
        # undo the period's affine map and test the ranks against Zipf
        a, b = spec.period_map(period, seed=11)
        ranks = ((part - 1 - b) * pow(a, -1, n_keys)) % n_keys + 1
        rank_counts = np.bincount(ranks, minlength=n_keys + 1)[1:]
        assert chi2_pvalue(rank_counts, syn.zipf_pmf(n_keys, z)) > 1e-3
    assert not tops[0] & tops[1] and not tops[1] & tops[2]


def test_period_maps_are_permutations():
    spec = syn.TimeEvolvingZipfSpec(360, 1.0, 10)  # 360 has many factors
    for period in range(1, 6):
        a, b = spec.period_map(period, seed=0)
        mapped = (np.arange(360) * a + b) % 360
        assert len(np.unique(mapped)) == 360


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: syn.keys_numpy("zipf", 10, n_keys=0, z=1.0), "n_keys must be >= 1"),
        (lambda: syn.keys_numpy("zipf", 10, n_keys=5, z=-1.0), "z must be"),
        (lambda: syn.keys_numpy("zipf", 0, n_keys=5, z=1.0), "n must be >= 1"),
        (lambda: syn.keys_numpy("zipf", 10, n_keys=5, z=1.0, seed=-1), "seed must be"),
        (lambda: syn.keys_numpy("zipf", 10, n_keys=5), "bad parameters"),
        (lambda: syn.keys_numpy("pareto", 10), "unknown key stream"),
        (lambda: syn.keys_numpy("lognormal", 10, which="LN3"), "which must be"),
        (lambda: syn.keys_numpy("ln1", 10, n_keys=5), "n_keys applies to model='frequencies'"),
        (lambda: syn.keys_numpy("ln1", 10, model="zipf"), "model must be"),
        (lambda: syn.TimeEvolvingZipfSpec(100, 1.0, 0), "shift_every must be >= 1"),
        (lambda: syn.TopicTweetParams(10, vocab_size=10, topic_words=20), "topic_words"),
        (lambda: syn.TopicTweetParams(10, weeks=2, rate_per_s=1.0), "either weeks or rate"),
        (lambda: syn.TopicTweetParams(10, background=1.5), "background must be in"),
        (lambda: syn.TopicTweetParams(10, start="not a date"), "start must be"),
        (lambda: syn.TopicTweetParams(10, mean_words=0.5), "mean_words must be"),
    ],
)
def test_bad_arguments_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ----------------------------------------------------------------------------- topic tweets

SMALL = {"vocab_size": 3000, "n_topics": 8, "topic_words": 40, "weeks": 4.0}


def test_topic_tweets_are_sorted_word_sets_from_the_vocabulary():
    df = syn.topic_tweets_pandas(10_000, seed=3, **SMALL)
    assert list(df.columns) == ["post_id", "ts", "words", "topic"]
    np.testing.assert_array_equal(df["post_id"], np.arange(10_000))
    vocab = {f"w{i}" for i in range(1, 3001)}
    for words in df["words"]:
        words = list(words)
        assert words and words == sorted(set(words))
        assert set(words) <= vocab
    assert df["topic"].between(0, 7).all()
    ts = df["ts"]
    assert ts.is_monotonic_increasing and ts.iloc[0] == pd.Timestamp("2013-04-01", tz="UTC")
    assert ts.iloc[-1] < pd.Timestamp("2013-04-29", tz="UTC")
    # posts draw mostly from their topic: at least the non-background share of words
    model = syn.topic_tweet_model(syn.TopicTweetParams(10_000, **SMALL), seed=3)
    topic_sets = [{f"w{i + 1}" for i in row} for row in model.topic_word_ids]
    share = np.mean(
        [
            np.mean([w in topic_sets[t] for w in ws])
            for ws, t in zip(df["words"], df["topic"], strict=True)
        ]
    )
    # (duplicates collapse and background draws may hit topic words, so allow 2% slack)
    assert share > 1 - model.params.background - 0.02


def test_topic_tweets_deterministic_and_seed_dependent():
    a = syn.topic_tweets_pandas(9000, seed=1, **SMALL)
    b = syn.topic_tweets_pandas(9000, seed=1, **SMALL)
    c = syn.topic_tweets_pandas(9000, seed=2, **SMALL)
    pd.testing.assert_frame_equal(a.drop(columns="words"), b.drop(columns="words"))
    assert all(list(x) == list(y) for x, y in zip(a["words"], b["words"], strict=True))
    assert (a["topic"] != c["topic"]).mean() > 0.3


def test_one_draw_per_post_without_background_gives_single_topic_words():
    params = dict(SMALL, mean_words=1.0, background=0.0)
    df = syn.topic_tweets_pandas(3000, seed=5, **params)
    model = syn.topic_tweet_model(syn.TopicTweetParams(3000, **params), seed=5)
    assert (df["words"].map(len) == 1).all()
    for words, topic in zip(df["words"], df["topic"], strict=True):
        assert int(words[0][1:]) - 1 in set(model.topic_word_ids[topic])


def _weekly_topic_counts(df: pd.DataFrame, n_topics: int) -> np.ndarray:
    week = ((df["ts"] - df["ts"].iloc[0]) // pd.Timedelta(weeks=1)).to_numpy()
    return np.array(
        [np.bincount(df["topic"][week == w], minlength=n_topics) for w in range(week.max() + 1)]
    )


def test_topic_popularity_drifts_across_weeks_and_matches_the_model():
    params = dict(SMALL, drift=1.0)
    df = syn.topic_tweets_pandas(40_000, seed=8, **params)
    counts = _weekly_topic_counts(df, 8)
    assert counts.shape == (4, 8)
    model = syn.topic_tweet_model(syn.TopicTweetParams(40_000, **params), seed=8)
    for week in range(4):  # each week's topics follow that week's popularity
        assert chi2_pvalue(counts[week], model.popularity[week]) > 1e-3
    assert stats.chi2_contingency(counts[[0, 3]]).pvalue < 1e-9  # and weeks differ


def test_without_drift_topic_popularity_is_stationary():
    df = syn.topic_tweets_pandas(40_000, seed=8, **dict(SMALL, drift=0.0))
    counts = _weekly_topic_counts(df, 8)
    assert stats.chi2_contingency(counts).pvalue > 1e-3


# ----------------------------------------------------------------------------- Spark twins


@pytest.mark.spark
@pytest.mark.parametrize(
    ("make", "spec", "partition_counts"),
    [
        (
            lambda sp, n, p: syn.zipf_keys(sp, n, 1000, 1.1, seed=9, partitions=p),
            syn.ZipfSpec(1000, 1.1),
            (1, 3),
        ),
        (
            lambda sp, n, p: syn.lognormal_keys(sp, n, "LN2", seed=9, partitions=p),
            syn.lognormal_spec("LN2"),
            (3,),
        ),
        (
            lambda sp, n, p: syn.time_evolving_zipf(
                sp, n, 300, 0.9, shift_every=50_000, seed=9, partitions=p
            ),
            syn.TimeEvolvingZipfSpec(300, 0.9, 50_000),
            (2,),
        ),
    ],
    ids=["zipf", "ln2", "time_evolving_zipf"],
)
def test_spark_key_streams_equal_numpy_for_any_partition_count(spark, make, spec, partition_counts):
    n = 2 * syn.KEY_BLOCK + 123  # two full blocks and a partial one
    expected = syn.keys_numpy(spec, n, seed=9)
    for partitions in partition_counts:
        got = make(spark, n, partitions).toPandas().sort_values("seq")
        np.testing.assert_array_equal(got["seq"], np.arange(n))
        np.testing.assert_array_equal(got["key"], expected)


@pytest.mark.spark
def test_spark_topic_tweets_equal_pandas_twin(spark):
    n = 2 * syn.POST_BLOCK + 77
    got = syn.topic_tweets(spark, n, seed=4, partitions=3, **SMALL).toPandas()
    got = got.sort_values("post_id", ignore_index=True)
    want = syn.topic_tweets_pandas(n, seed=4, **SMALL)
    np.testing.assert_array_equal(got["post_id"], want["post_id"])
    np.testing.assert_array_equal(got["topic"], want["topic"])
    assert (got["ts"].dt.tz_localize("UTC") == want["ts"]).all()
    assert all(list(x) == list(y) for x, y in zip(got["words"], want["words"], strict=True))


# ----------------------------------------------------------------------------- CLI


def _cli(argv: list[str]) -> int:
    return run_command("generate", argv)


@pytest.mark.spark
def test_cli_generate_keys_writes_parquet_and_refuses_to_clobber(spark, tmp_path, capsys):
    out = tmp_path / "zipf"
    argv = [
        "generate",
        "keys",
        "zipf",
        "--n",
        "5000",
        "--n-keys",
        "50",
        "--z",
        "1.3",
        "--seed",
        "2",
        "--out",
        str(out),
    ]
    assert _cli(argv) == 0
    written = pd.read_parquet(out).sort_values("seq")
    np.testing.assert_array_equal(
        written["key"], syn.keys_numpy("zipf", 5000, n_keys=50, z=1.3, seed=2)
    )
    assert _cli(argv) == 2
    assert "already exists" in capsys.readouterr().out
    (out / "notes.txt").write_text("mine")
    assert _cli([*argv, "--overwrite"]) == 2
    assert "refusing to overwrite" in capsys.readouterr().out
    assert _cli(["generate", "keys", "zipf", "--n", "10", "--out", str(tmp_path / "x")]) == 2
    assert "--n-keys is required" in capsys.readouterr().out


def test_cli_tweet_options_are_generator_parameters():
    from dataclasses import fields

    from routelab.commands.generate import TWEET_OPTIONS

    names = {f.name for f in fields(syn.TopicTweetParams)}
    assert {name for _, name, _, _ in TWEET_OPTIONS} <= names


@pytest.mark.spark
def test_cli_generate_tweets_passes_options_through(spark, tmp_path):
    out = tmp_path / "tweets"
    argv = [
        "generate",
        "tweets",
        "--n",
        "1500",
        "--topics",
        "3",
        "--vocab-size",
        "400",
        "--topic-words",
        "20",
        "--mean-words",
        "2.5",
        "--rate",
        "2",
        "--seed",
        "4",
        "--out",
        str(out),
    ]
    assert _cli(argv) == 0
    written = pd.read_parquet(out).sort_values("post_id", ignore_index=True)
    want = syn.topic_tweets_pandas(
        1500, seed=4, n_topics=3, vocab_size=400, topic_words=20, mean_words=2.5, rate_per_s=2.0
    )
    np.testing.assert_array_equal(written["topic"], want["topic"])
    assert [list(w) for w in written["words"]] == [list(w) for w in want["words"]]
