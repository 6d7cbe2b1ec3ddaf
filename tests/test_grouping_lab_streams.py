"""Named key streams: synthetic determinism, real streams in time order, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.errors import DatasetError
from routelab.grouping.inputs import key_grouped_sources
from routelab.grouping.lab import streams


def prepared(name: str) -> bool:
    try:
        from routelab.datasets.bundled import prepared_path

        prepared_path(name)
    except DatasetError:
        return False
    return True


needs = {
    name: pytest.mark.skipif(not prepared(name), reason=f"dataset {name} not prepared")
    for name in ("movielens", "flights", "tweets", "unigrams")
}


@pytest.mark.parametrize(
    "name,params",
    [
        ("zipf", {"n_messages": 3000, "n_keys": 100, "z": 1.1}),
        ("ln1", {"n_messages": 3000}),
        ("ln2", {"n_messages": 3000}),
        ("time_evolving_zipf", {"n_messages": 3000, "n_keys": 1000, "z": 1.5}),
    ],
)
def test_synthetic_streams_are_seeded(name, params):
    a = streams.load_stream(name, seed=1, **params)
    b = streams.load_stream(name, seed=1, **params)
    c = streams.load_stream(name, seed=2, **params)
    np.testing.assert_array_equal(a.keys, b.keys)
    assert not np.array_equal(a.keys, c.keys)
    assert a.keys.dtype == np.int64 and a.keys.size == 3000 and a.sources is None
    np.testing.assert_allclose(a.times, np.arange(3000) / streams.DEFAULT_RATE)
    assert a.meta["data"] == "synthetic" and a.meta["stands_in_for"]


def test_time_evolving_zipf_changes_its_hot_key():
    ks = streams.time_evolving_zipf(10_000, 1000, 1.5, seed=0)
    assert ks.meta["shift_every"] == 8000
    first = np.bincount(ks.keys[:8000]).argmax()
    last = np.bincount(ks.keys[8000:]).argmax()
    assert first == 1 and last != first


def test_unknown_stream_or_parameter():
    with pytest.raises(ValueError, match="valid: tweet_words"):
        streams.load_stream("wikipedia")
    with pytest.raises(ValueError, match="has no parameter"):
        streams.load_stream("zipf", skew=1.0)
    with pytest.raises(ValueError, match="rate"):
        streams.zipf(10, 10, 1.0, rate=0)


def test_real_streams_fail_clearly_when_not_prepared(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUTELAB_DATA_DIR", str(tmp_path))
    for name in ("movielens_movies", "flights_origins", "tweet_words", "unigram_sample"):
        with pytest.raises(DatasetError, match="datasets prepare"):
            streams.load_stream(name)


@needs["movielens"]
def test_movielens_streams_in_time_order():
    ks = streams.movielens_movies()
    assert ks.keys.size == ks.times.size > 90_000
    assert ks.times[0] == 0.0 and np.all(np.diff(ks.times) >= 0)
    assert ks.meta["data"] == "real" and "Amazon" in ks.meta["stands_in_for"]
    edges = streams.movielens_edges(n_sources=4, seed=2, limit=5000)
    np.testing.assert_array_equal(edges.keys, ks.keys[:5000])
    assert edges.sources.min() >= 0 and edges.sources.max() < 4
    from routelab.datasets.bundled import read_prepared

    frame = read_prepared("movielens").sort_values(["ts", "user_id", "movie_id"], kind="stable")
    users = frame["user_id"].to_numpy()[:5000]
    np.testing.assert_array_equal(edges.sources, key_grouped_sources(users, 4, 2))


@needs["flights"]
def test_flights_origins():
    ks = streams.flights_origins(limit=20_000)
    assert ks.keys.size == 20_000 and np.all(np.diff(ks.times) >= 0)
    assert ks.keys.min() >= 0 and ks.keys.max() < ks.meta["n_keys"]


@needs["tweets"]
def test_tweet_words():
    ks = streams.tweet_words(limit=300)
    assert ks.meta["n_tweets"] == 300 and np.all(np.diff(ks.times) >= 0)
    assert ks.keys.max() + 1 == ks.meta["n_keys"]  # dense ids
    assert ks.keys[0] == 0  # first word seen gets id 0
    with_stops = streams.tweet_words(limit=300, keep_stopwords=True)
    assert with_stops.keys.size > ks.keys.size


@needs["unigrams"]
def test_unigram_sample_follows_the_counts():
    ks = streams.unigram_sample(50_000, seed=3)
    top = float(np.mean(ks.keys == 1))
    p1 = ks.meta["p1"]
    assert abs(top - p1) < 4 * np.sqrt(p1 * (1 - p1) / 50_000)
    assert ks.meta["data"] == "semi-synthetic"
