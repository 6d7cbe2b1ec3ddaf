"""One stream for the five routers: the bundled real tweets in time order, each post
carrying what every system reads.

Per post: ``words`` (S3-TM's preprocessing, the cached word sets of notebooks 02-03),
``account`` and ``hashtags`` (lower-cased ``#tags`` of the raw text: the keys of key
grouping), a place (``lon``, ``lat``: notebook 11's TWEETS-US' placement, the account's
home metro with probability ``p_home`` else a gazetteer place by population, jittered),
and attributes derived from the record for Fabret's predicates: ``hour`` and ``weekday``
(UTC), ``n_words``, ``source`` (0 health news, 1 the one account), ``region`` (the
country's box cut 10 x 10, as PS2Stream's Q3 regions), ``has_link`` and ``n_hashtags``.
``window`` cuts the time order into ``windows`` consecutive windows of equal size (our
reading of "week by week": the tweets span 2009-2018, 440 calendar weeks with a median of
71 posts, too few to measure a router on).

:func:`common_stream` builds it once and caches it as Parquet under the prepared data
directory, keyed by the word cache, the parameters and this module.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: attribute ids of the Fabret view (:func:`attribute_matrix`)
ATTRS = ("topic", "region", "hour", "weekday", "n_words", "source", "has_link", "n_hashtags")
REGIONS = 10  # the box cut REGIONS x REGIONS
#: a hashtag in a raw text (key grouping's keys, lower-cased)
HASHTAG = re.compile(r"#(\w+)")


def _fingerprint(**params: Any) -> str:
    from routelab.corpus.preprocess import bundled_words_dir

    digest = hashlib.blake2b(digest_size=6)
    digest.update(Path(__file__).read_bytes())
    digest.update(repr(sorted(params.items())).encode())
    digest.update(bundled_words_dir().name.encode())
    return digest.hexdigest()


def common_stream(
    spark: Any = None,
    max_posts: int | None = None,
    *,
    seed: int = 0,
    country: str = "US",
    p_home: float = 0.5,
    windows: int = 12,
) -> pd.DataFrame:
    """The common stream (module docstring), in time order, cached. ``spark`` is needed
    only if the word sets were never preprocessed on this machine; ``max_posts`` keeps the
    first posts in time order."""
    from routelab.paths import prepared_dir

    if windows < 2:
        raise ValueError(f"windows must be >= 2, got {windows}")
    fp = _fingerprint(
        max_posts=max_posts, seed=seed, country=country, p_home=p_home, windows=windows
    )
    path = prepared_dir() / "compare" / f"stream-{fp}.parquet"
    if path.exists():
        return pd.read_parquet(path)
    frame = _build(spark, max_posts, seed, country, p_home, windows)
    path.parent.mkdir(parents=True, exist_ok=True)
    # written beside it, then renamed: a run reading the cache never meets a partial file
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    frame.to_parquet(partial)
    os.replace(partial, path)
    return frame


def _build(
    spark: Any, max_posts: int | None, seed: int, country: str, p_home: float, windows: int
) -> pd.DataFrame:
    from routelab.corpus.corpora import real_posts_frame
    from routelab.datasets.bundled import read_prepared
    from routelab.spatial.places import box_region, place_accounts

    if spark is None:
        from routelab.spark import get_spark

        spark = get_spark()
    posts = real_posts_frame(spark, max_posts, progress=False)
    raw = read_prepared("tweets", ["post_id", "text", "account"])
    df = posts.merge(raw, on="post_id", how="left").sort_values(
        ["ts", "post_id"], ignore_index=True
    )
    if len(df) < windows:
        raise ValueError(f"{len(df)} posts cannot fill {windows} windows")
    text = df["text"].fillna("")
    df["hashtags"] = hashtags(text)
    rng = np.random.default_rng([seed, 13])
    df["lon"], df["lat"] = place_accounts(df["account"].fillna("").to_numpy(), country, p_home, rng)
    ts = pd.to_datetime(df["ts"], utc=True)
    df["hour"] = ts.dt.hour.astype(np.int64)
    df["weekday"] = ts.dt.weekday.astype(np.int64)
    df["n_words"] = df["words"].map(len).astype(np.int64)
    df["source"] = (df["source"] != "healthtweets").astype(np.int64)
    df["region"] = box_region(df["lon"].to_numpy(), df["lat"].to_numpy(), country, REGIONS)
    df["has_link"] = text.str.contains("http", regex=False).astype(np.int64)
    df["n_hashtags"] = df["hashtags"].map(len).astype(np.int64)
    df["window"] = (np.arange(len(df)) * windows // len(df)).astype(np.int64)
    df["words"] = df["words"].map(list)
    return df.drop(columns=["text"])


def hashtags(texts: Any) -> list[list[str]]:
    """Each raw text's distinct ``#tags``, lower-cased and sorted (key grouping's keys)."""
    return [sorted({t.lower() for t in HASHTAG.findall(s)}) for s in texts]


def key_stream(stream: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Key grouping's view: one message per (post, key), keys being the post's author and
    hashtags, in time order (a post with an empty author sends its hashtags only); returns
    (integer keys, the message's post row, seconds since the first post)."""
    keys = [
        [*([f"@{a}"] if a else []), *(f"#{h}" for h in tags)]
        for a, tags in zip(stream["account"], stream["hashtags"], strict=True)
    ]
    row = np.repeat(np.arange(len(stream)), [len(k) for k in keys])
    codes, _ = pd.factorize(pd.Series([k for ks in keys for k in ks]))
    ts = pd.to_datetime(stream["ts"], utc=True)
    secs = (ts - ts.iloc[0]).dt.total_seconds().to_numpy()[row]
    return codes.astype(np.int64), row, secs


def describe(stream: pd.DataFrame) -> pd.DataFrame:
    """What the common stream holds, one column (notebook 13's first table)."""
    return pd.DataFrame(
        {
            "posts": [len(stream)],
            "windows": [int(stream["window"].max()) + 1],
            "from": [stream["ts"].min()],
            "to": [stream["ts"].max()],
            "accounts": [stream["account"].nunique()],
            "posts with a hashtag": [f"{(stream['n_hashtags'] > 0).mean():.1%}"],
            "distinct hashtags": [len({h for hs in stream["hashtags"] for h in hs})],
            "words per post": [round(float(stream["n_words"].mean()), 1)],
            "regions used": [stream["region"].nunique()],
        }
    ).T.rename(columns={0: "the common stream"})
