"""Corpus statistics of word-set posts on Spark: S3-TM Table 1 and Fig. 4 (Sect. 6.1).

Table 1 of the paper describes each learning corpus by its number of tweets, of unique
words, the total word frequency (sum over posts of the number of distinct words) and the
number of word pairs (distinct unordered pairs of words that co-occur in some post);
Fig. 4 plots word frequency against rank on log-log axes (drawn by
:mod:`routelab.corpus.lab.figures`). Posts are the ``words`` sets
written by :mod:`routelab.corpus.preprocess`; arrays that are not sets are made sets first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

# the distinct unordered pairs (a, b), a < b, of a sorted distinct array ``w``
_PAIRS_SQL = (
    "flatten(transform(w, (a, i) -> "
    "transform(slice(w, i + 2, greatest(size(w) - i - 1, 0)), b -> named_struct('a', a, 'b', b))))"
)


def _word_sets(posts_df: DataFrame) -> DataFrame:
    import pyspark.sql.functions as F

    if "words" not in posts_df.columns:
        from routelab.errors import BadInputError

        raise BadInputError(f"posts need a 'words' column (columns: {posts_df.columns})")
    return posts_df.select(
        F.array_sort(F.array_distinct(F.filter("words", lambda x: x.isNotNull()))).alias("w")
    )


def table1(posts_df: DataFrame) -> dict[str, int]:
    """S3-TM Table 1 for one corpus.

    Returns:
        ``posts`` (rows), ``unique_words``, ``total_word_freq`` (sum of set sizes) and
        ``word_pairs`` (distinct unordered co-occurring pairs, exploded on Spark: a post
        of k words gives k(k-1)/2 pairs).
    """
    import pyspark.sql.functions as F

    sets = _word_sets(posts_df).persist()
    try:
        row = sets.agg(
            F.count(F.lit(1)).alias("posts"), F.coalesce(F.sum(F.size("w")), F.lit(0)).alias("freq")
        ).first()
        unique = sets.select(F.explode("w").alias("word")).distinct().count()
        pairs = (
            sets.filter(F.size("w") >= 2)
            .select(F.explode(F.expr(_PAIRS_SQL)).alias("p"))
            .distinct()
            .count()
        )
    finally:
        sets.unpersist()
    return {
        "posts": int(row["posts"]),
        "unique_words": int(unique),
        "total_word_freq": int(row["freq"]),
        "word_pairs": int(pairs),
    }


def table1_of(word_sets: Iterable[Iterable[str]]) -> dict[str, int]:
    """:func:`table1` in plain Python, for a handful of posts (the notebook's worked example
    and the tests' reference): posts, distinct words, the sum of set sizes and distinct
    unordered co-occurring pairs."""
    from itertools import combinations

    sets = [sorted(set(words)) for words in word_sets]
    return {
        "posts": len(sets),
        "unique_words": len({w for s in sets for w in s}),
        "total_word_freq": sum(len(s) for s in sets),
        "word_pairs": len({pair for s in sets for pair in combinations(s, 2)}),
    }


def format_table1(columns: dict[str, dict[str, int]]) -> str:
    """Table 1 as text, one column per corpus (``{"bundled tweets": table1(df), ...}``)."""
    labels = {
        "posts": "# of tweets",
        "unique_words": "# of words",
        "total_word_freq": "total word freq.",
        "word_pairs": "# of word pairs",
    }
    frame = pd.DataFrame(
        {
            name: {labels[k]: f"{v:,}" for k, v in t.items() if k in labels}
            for name, t in columns.items()
        }
    )
    return frame.to_string()


def word_frequencies(posts_df: DataFrame) -> pd.DataFrame:
    """Document frequency of every word: ``word``, ``freq`` (posts containing it), ``rank``.

    Sorted by ``freq`` descending, ties by word; ``rank`` is 1, 2, 3, ... in that order.
    """
    import pyspark.sql.functions as F

    counts = (
        _word_sets(posts_df)
        .select(F.explode("w").alias("word"))
        .groupBy("word")
        .agg(F.count(F.lit(1)).alias("freq"))
        .toPandas()
    )
    counts = counts.sort_values(["freq", "word"], ascending=[False, True], ignore_index=True)
    counts["freq"] = counts["freq"].astype("int64")
    counts["rank"] = np.arange(1, len(counts) + 1, dtype="int64")
    return counts


def fit_zipf(
    freqs: pd.DataFrame, min_rank: int = 1, max_rank: int | None = None, min_freq: int = 5
) -> dict[str, Any]:
    """Least-squares fit of ``log10 freq = c - s * log10 rank`` (Zipf's law) over a rank range.

    Args:
        freqs: from :func:`word_frequencies`.
        min_rank, max_rank: the rank range fitted (inclusive; default up to the last rank).
        min_freq: also leave out words seen in fewer posts; the tail of frequencies 1, 2,
            3, ... forms flat steps that would dominate an unweighted fit.

    Returns:
        ``exponent`` (s), ``intercept`` (c), ``r2``, ``points`` and the rank range used.
    """
    sel = freqs[(freqs["rank"] >= min_rank) & (freqs["freq"] >= min_freq)]
    if max_rank is not None:
        sel = sel[sel["rank"] <= max_rank]
    if len(sel) < 2:
        raise ValueError(f"need at least 2 words in the fitted range, got {len(sel)}")
    x = np.log10(sel["rank"].to_numpy(dtype=float))
    y = np.log10(sel["freq"].to_numpy(dtype=float))
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    total = ((y - y.mean()) ** 2).sum()
    r2 = 1.0 - (residual**2).sum() / total if total > 0 else 1.0
    return {
        "exponent": float(-slope),
        "intercept": float(intercept),
        "r2": float(r2),
        "points": int(len(sel)),
        "min_rank": int(sel["rank"].min()),
        "max_rank": int(sel["rank"].max()),
    }
