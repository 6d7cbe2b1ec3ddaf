"""A user's own posts and subscriptions as S3-TM corpora (``routelab s3tm route|match``).

The posts are the folder ``routelab s3tm preprocess`` writes (or any Parquet with
``post_id`` and ``words`` array<string>, optionally ``ts``); the subscriptions are the folder
``routelab s3tm subscriptions`` writes (or a Parquet with ``sub_id`` and ``words``).

:func:`learning_split` divides the posts as the paper's experiments do (Sect. 6.1: the
mapping is learned on past publications and measured on later ones): in time order when
the posts carry times, else in ``post_id`` order; the first ``fraction`` learn, the rest are
held out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from routelab.badrecords import BadRecordExample, BadRecordReport
from routelab.errors import BadInputError
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class UserPosts:
    """Posts in stream order (time, then id) and what could not be used."""

    corpus: Corpus
    ordered_by_time: bool
    report: BadRecordReport


def _parquet_input(path: str | Path, inner: str, option: str, made_by: str) -> Path | None:
    """The Parquet an S3-TM verb reads from ``path``: ``path/inner`` (the folder ``made_by``
    writes) or a Parquet file/folder itself; ``None`` for a remote path (left to Spark). A
    folder or file of another kind is a :class:`BadInputError` saying what was expected."""
    from routelab.datasets.headers import local_files

    p = Path(path)
    files = local_files(p)  # raises when nothing is there
    if files is None:
        return None
    if (p / inner).exists():
        return p / inner
    if all(f.suffix == ".parquet" for f in files):
        return p
    raise BadInputError(
        f"{path}: no {inner} here; {option} wants the folder `{made_by}` writes "
        "(or a Parquet of its columns)"
    )


def check_posts(path: str | Path, option: str = "--posts") -> None:
    """Before Spark starts: ``path`` is a local folder of word-set posts (or a remote path,
    left to Spark) whose Parquet has ``words``."""
    from routelab.datasets.headers import require_columns

    target = _parquet_input(path, "posts.parquet", option, "routelab s3tm preprocess")
    if target is not None:
        require_columns(target, "parquet", {f"{option} (word sets)": "words"})


def check_subscriptions(path: str | Path, option: str = "--subscriptions") -> None:
    """Before Spark starts: ``path`` holds subscriptions (``sub_id``, ``words``)."""
    from routelab.datasets.headers import require_columns

    made_by = "routelab s3tm subscriptions"
    target = _parquet_input(path, "subscriptions.parquet", option, made_by)
    if target is not None:
        wanted = {f"{option} (ids)": "sub_id", f"{option} (words)": "words"}
        require_columns(target, "parquet", wanted)


def load_posts(spark: SparkSession, path: str | Path) -> UserPosts:
    """Read word-set posts in stream order; posts without words are counted (``no_words``),
    not matched or learned from."""
    from pyspark.sql import functions as F

    from routelab.corpus.preprocess import read_posts

    df = read_posts(spark, path)
    if "post_id" not in df.columns:
        raise BadInputError(f"{path}: no 'post_id' column; is it `routelab s3tm preprocess`'s?")
    timed = "ts" in df.columns and df.filter(F.col("ts").isNotNull()).limit(1).count() > 0
    order = ["ts", "post_id"] if timed else ["post_id"]
    frame = df.select("post_id", "words", *(["ts"] if timed else [])).toPandas()
    frame = frame.sort_values(order, kind="stable", ignore_index=True)
    frame, report = _without_empty(frame[["post_id", "words"]], "post_id", path)
    if frame.empty:
        raise BadInputError(f"{path}: no post has any word (nothing to route or match)")
    frame["words"] = frame["words"].map(list)
    return UserPosts(Corpus.from_frame(frame), timed, report)


def load_subscriptions(
    spark: SparkSession, path: str | Path, vocab: list[str] | None = None
) -> tuple[Corpus, BadRecordReport]:
    """Subscriptions as a :class:`Corpus` whose ``post_ids`` are the subscription ids, sharing
    ``vocab``; subscriptions without words are counted (``no_words``) and left out."""
    from routelab.corpus.subscriptions import read_subscriptions
    from routelab.s3tm.matching_load import subscription_corpus

    frame, report = _without_empty(read_subscriptions(path), "sub_id", path)
    if frame.empty:
        raise BadInputError(f"{path}: no subscription has any word")
    try:
        subs = subscription_corpus(frame[["sub_id", "words"]], vocab)
    except ValueError as exc:
        raise BadInputError(f"{path}: {exc}") from None
    return subs, report


def learning_split(corpus: Corpus, fraction: float) -> tuple[Corpus, Corpus]:
    """(learning posts, held-out posts): the first ``fraction`` of the stream and the rest."""
    if not 0 < fraction < 1:
        raise BadInputError(f"the learning fraction must be in (0, 1), got {fraction}")
    cut = int(round(corpus.n_posts * fraction))
    if cut < 1 or cut >= corpus.n_posts:
        raise BadInputError(
            f"{corpus.n_posts} posts cannot be split {fraction:.0%} / {1 - fraction:.0%}: "
            "each side needs at least one post"
        )
    rows = np.arange(corpus.n_posts)
    return corpus.subset(rows[:cut]), corpus.subset(rows[cut:])


def pairs_frame(matches: pd.DataFrame) -> pd.DataFrame:
    """The dataflow's ``(sub_id, post_id)`` matches as the CLI writes them:
    ``post_id, subscription_id``, sorted."""
    out = pd.DataFrame(
        {
            "post_id": matches["post_id"].to_numpy(np.int64),
            "subscription_id": matches["sub_id"].to_numpy(np.int64),
        }
    )
    return out.sort_values(["post_id", "subscription_id"], ignore_index=True)


def _without_empty(
    frame: pd.DataFrame, id_col: str, path: str | Path
) -> tuple[pd.DataFrame, BadRecordReport]:
    """The rows that have words, and a report counting the others (``no_words``); a
    Parquet record has no line, so an example names the record by its id (line 0)."""
    report = BadRecordReport(records=len(frame))
    empty = frame["words"].map(lambda w: w is None or len(w) == 0).to_numpy()
    if empty.any():
        report.counts["no_words"] = int(empty.sum())
        for rid in frame.loc[empty, id_col].head(5):
            example = BadRecordExample(str(path), 0, f"{id_col} {rid}", "no words")
            report.add_example("no_words", example)
    return frame.loc[~empty].reset_index(drop=True), report
