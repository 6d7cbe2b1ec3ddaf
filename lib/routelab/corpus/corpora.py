"""The word-set corpora the S3-TM notebooks share, preprocessed once and cached.

:func:`bundled_posts` returns the bundled real tweets (from a pinned registry package) as word sets
(:mod:`routelab.corpus.preprocess`). The first call preprocesses on Spark and writes
``datasets/prepared/tweets_words-<fingerprint>/``; later calls read that Parquet. The
fingerprint covers the cleaning code, the stop-word list and the prepared input, so a
change to any of them re-runs preprocessing instead of serving stale words.

``max_posts`` keeps the *first* posts in time order (``ts``, then ``post_id``), so a small
sample is a contiguous stretch of the stream, as a learning window would be.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

    from routelab.corpus.preprocess import PreprocessReport


def bundled_posts(
    spark: SparkSession, max_posts: int | None = None, *, progress: bool = True
) -> tuple[DataFrame, PreprocessReport]:
    """The bundled real tweets as word sets (``post_id``, ``ts``, ``words``, ``source``).

    Args:
        spark: the session (:func:`routelab.spark.get_spark`).
        max_posts: keep only the first ``max_posts`` posts in time order (``None``: all).
        progress: progress bar while preprocessing on first use.

    Returns:
        The posts DataFrame and the preprocessing report of the full corpus.
    """
    from routelab.corpus.preprocess import read_posts, read_report

    out = bundled_words(spark, progress=progress)
    posts = read_posts(spark, out)
    if max_posts is not None:
        if max_posts <= 0:
            raise ValueError(f"max_posts must be positive or None, got {max_posts}")
        posts = posts.orderBy("ts", "post_id").limit(int(max_posts))
    return posts, read_report(out)


def bundled_words(spark: SparkSession | None = None, *, progress: bool = True) -> Path:
    """The directory of the bundled tweets as word sets (:func:`~routelab.corpus.preprocess.
    bundled_words_dir`), preprocessed on first use. It counts as built once its
    ``report.json``, written last, exists; one process builds it while the others wait on a
    lock file beside it (two notebooks started together on a fresh checkout would otherwise
    write into the same directory at once, and one would fail or read a partial one)."""
    from routelab.corpus.preprocess import POSTS_DIR, REPORT_FILE, bundled_words_dir
    from routelab.paths import file_lock

    out = bundled_words_dir()

    def built() -> bool:
        return (out / POSTS_DIR).exists() and (out / REPORT_FILE).exists()

    if not built():
        out.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(out.parent / f"{out.name}.lock"):
            if not built():
                from routelab.corpus.preprocess import preprocess_bundled
                from routelab.spark import get_spark

                preprocess_bundled(spark or get_spark(), out, progress=progress)
    return out


def real_posts_frame(
    spark: SparkSession, max_posts: int | None = None, *, progress: bool = True
) -> pd.DataFrame:
    """The bundled real tweets (:func:`bundled_posts`) as a pandas frame (``post_id``,
    ``ts``, ``words``, ``source``) in time order (``ts``, ``post_id``); ``max_posts``: the
    first posts in time order."""
    posts, _ = bundled_posts(spark, max_posts, progress=progress)
    frame = posts.select("post_id", "ts", "words", "source").toPandas()
    return frame.sort_values(["ts", "post_id"], ignore_index=True)


def bundled_surface_forms(max_posts: int | None = None) -> dict[str, str]:
    """Stem -> most frequent surface form over the bundled tweets (the first ``max_posts``
    in time order), for showing topics and words to people (:func:`~routelab.corpus.text.
    surface_forms`)."""
    import pyarrow.parquet as pq

    from routelab.corpus.text import surface_forms
    from routelab.datasets.bundled import prepared_path

    table = pq.read_table(prepared_path("tweets"), columns=["ts", "text"]).to_pandas()
    table = table.sort_values("ts", kind="stable")
    if max_posts is not None:
        table = table.head(max_posts)
    return surface_forms(table["text"].tolist())
