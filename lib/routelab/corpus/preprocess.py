"""Posts -> word sets on Spark: S3-TM's preprocessing (Sect. 2.1 "Receiver", Sect. 6.1).

:func:`preprocess` turns a DataFrame in the post schema (:mod:`routelab.datasets.loaders`)
into the *word-set* schema every S3-TM experiment reads:

``post_id`` int64, ``ts`` timestamp, ``words`` array<string> (a set: distinct, sorted),
plus ``source``, ``lat``, ``lon`` when the input has them.

Steps, each counted in the :class:`PreprocessReport` (``rows_in - sum(dropped) ==
rows_out``):

1. the ids alone are counted (rows and distinct ``post_id``; a Parquet input reads that
   one column), which tells whether step 3 is needed;
2. each text becomes its word set with :func:`routelab.corpus.text.clean_words`, run as a
   vectorized (Arrow) pandas UDF whose Python workers keep a stem cache (each distinct
   word is stemmed once per worker); this is the expensive step and runs once per row. An
   input with fewer partitions than task slots (one Parquet file, one CSV) is spread over
   ``2 x slots`` partitions first, so every core cleans;
3. duplicates of a ``post_id`` are dropped (``duplicate_post_id``). The kept row is chosen
   deterministically: one that survives cleaning, then the earliest ``ts``, then the
   smallest word set;
4. of the remaining rows, those without text (``missing_text``), with no word left
   (``empty_after_cleaning``) or fewer than ``min_words`` (``too_few_words``) are dropped.

With ``out`` and no duplicate ids (the common case) steps 2 and 4 are one evaluation: the
rows are cleaned while they are written, and the tally by reason is observed on the rows
the write reads (``DataFrame.observe``), so the cleaned rows are neither cached nor read
twice. With duplicates, or without ``out``, the tagged rows are cached, tallied in one job,
de-duplicated (a shuffle) where needed, and written from the cache.

With ``out`` the result goes to ``out/posts.parquet`` (row order not significant) and the
report to ``out/report.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd  # at module level: pandas_udf resolves the "pd.Series" type hints

from routelab.badrecords import BadRecordReport
from routelab.corpus.text import DEFAULT_STOP_LIST, STEM_MODES, default_stem_mode, default_stop_list
from routelab.errors import BadInputError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from routelab.datasets.loaders import LoadResult

POSTS_DIR = "posts.parquet"
REPORT_FILE = "report.json"
OPTIONAL_COLUMNS = ("source", "lat", "lon")
DROP_REASONS = ("duplicate_post_id", "missing_text", "empty_after_cleaning", "too_few_words")


@dataclass
class PreprocessReport:
    """What preprocessing did: rows in and out, dropped rows by reason, the loader's report."""

    rows_in: int = 0
    rows_out: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    loader: BadRecordReport | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the content of ``report.json``)."""
        return {
            "rows_in": self.rows_in,
            "rows_out": self.rows_out,
            "dropped": dict(self.dropped),
            "loader": self.loader.to_dict() if self.loader is not None else None,
            "settings": dict(self.settings),
            "seconds": round(self.seconds, 3),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PreprocessReport:
        """Inverse of :meth:`to_dict`."""
        loader = data.get("loader")
        return cls(
            rows_in=int(data["rows_in"]),
            rows_out=int(data["rows_out"]),
            dropped={k: int(v) for k, v in data.get("dropped", {}).items()},
            loader=BadRecordReport.from_dict(loader) if loader else None,
            settings=dict(data.get("settings", {})),
            seconds=float(data.get("seconds", 0.0)),
        )

    def __str__(self) -> str:
        lines = []
        if self.loader is not None:
            lines += ["loading:", *("  " + ln for ln in str(self.loader).splitlines())]
        lines.append(
            f"preprocessing: {self.rows_in:,} posts in, {self.rows_out:,} out "
            f"({self.seconds:.1f} s)"
        )
        for reason in DROP_REASONS:
            if self.dropped.get(reason):
                lines.append(f"  dropped {reason:<22} {self.dropped[reason]:>10,}")
        if self.settings:
            lines.append("  settings: " + ", ".join(f"{k}={v}" for k, v in self.settings.items()))
        return "\n".join(lines)


@dataclass
class PreprocessResult:
    """Word-set posts (``df``), the report, and where they were written (if anywhere)."""

    df: DataFrame
    report: PreprocessReport
    path: Path | None = None
    _cached: Any = None

    def unpersist(self) -> None:
        """Release the cached rows kept when no ``out`` was given."""
        for frame in self._cached or []:
            frame.unpersist()
        self._cached = None


def _words_udf(
    stopwords: Collection[str] | None, stem: bool, stem_mode: str, stop_list: str
) -> Any:
    """A vectorized UDF: text column -> word-set column (:func:`routelab.corpus.text.clean_many`;
    without ``stopwords``, the list ``stop_list`` of :func:`routelab.corpus.text.load_stopwords`)."""
    from pyspark.sql.functions import pandas_udf

    stops = frozenset(stopwords) if stopwords is not None else None

    @pandas_udf("array<string>")
    def words(texts: pd.Series) -> pd.Series:
        from routelab.corpus.text import clean_many, load_stopwords

        chosen = load_stopwords(stop_list) if stops is None else stops
        return pd.Series(clean_many(texts.tolist(), chosen, stem, stem_mode), index=texts.index)

    return words


def _input_frame(data: DataFrame | LoadResult) -> tuple[DataFrame, BadRecordReport | None]:
    df = getattr(data, "df", data)
    report = getattr(data, "report", None)
    missing = [c for c in ("post_id", "text") if c not in df.columns]
    if missing:
        raise BadInputError(
            f"preprocess needs columns post_id and text; missing {missing} (columns: {df.columns})"
        )
    return df, report


def preprocess(
    data: DataFrame | LoadResult,
    out: str | Path | None = None,
    *,
    min_words: int = 1,
    stem: bool = True,
    stem_mode: str | None = None,
    stopwords: Collection[str] | None = None,
    progress: bool = True,
) -> PreprocessResult:
    """Clean, stem and de-duplicate posts into word sets on Spark (S3-TM Sect. 6.1).

    Args:
        data: a DataFrame in the post schema (at least ``post_id`` and ``text``) or a
            :class:`~routelab.datasets.loaders.LoadResult` (its report is included).
        out: a directory for ``posts.parquet`` and ``report.json`` (overwritten), or
            ``None`` to keep the result cached in memory only.
        min_words: drop posts with fewer words after cleaning.
        stem: Porter stemming on/off; ``stem_mode`` picks the variant
            (:class:`routelab.corpus.text.CachedStemmer`; ``None``:
            :func:`routelab.corpus.text.default_stem_mode`).
        stopwords: a custom stop-word set (default: :func:`routelab.corpus.text.load_stopwords`
            of :func:`routelab.corpus.text.default_stop_list`).
        progress: show a step progress bar.
    """
    import pyspark.sql.functions as F
    from pyspark import StorageLevel

    from routelab.progress import tqdm
    from routelab.spark import task_slots

    if min_words < 1:
        raise ValueError(f"min_words must be >= 1, got {min_words}")
    stem_mode = default_stem_mode() if stem_mode is None else stem_mode
    if stem_mode not in STEM_MODES:
        raise ValueError(f"unknown stem_mode {stem_mode!r}; choose from {STEM_MODES}")
    stop_list = default_stop_list()
    start = time.perf_counter()
    df, loader_report = _input_frame(data)
    spark = df.sparkSession
    bar = tqdm(total=3, desc="preprocess", disable=not progress, leave=False)
    # the ids alone first (a Parquet input reads one column): are there duplicates?
    bar.set_postfix_str("counting post ids")
    id_check = df.select(F.col("post_id").cast("long").alias("post_id")).agg(
        F.count(F.lit(1)).alias("rows"), F.count_distinct("post_id").alias("ids")
    )
    counts = id_check.first()
    rows_in, distinct = int(counts["rows"]), int(counts["ids"])
    bar.update()
    slots = task_slots(spark)
    if df.rdd.getNumPartitions() < slots:
        df = df.repartition(2 * slots)
    extra = [c for c in OPTIONAL_COLUMNS if c in df.columns]
    ts = F.col("ts").cast("timestamp") if "ts" in df.columns else F.lit(None).cast("timestamp")
    # clean every row once (the expensive step) and tag the rows to drop
    words = _words_udf(stopwords, stem, stem_mode, stop_list)(F.col("text"))
    tagged = (
        df.select(
            F.col("post_id").cast("long").alias("post_id"),
            ts.alias("ts"),
            F.col("text").cast("string").alias("text"),
            *extra,
        )
        .withColumn("words", words)
        .withColumn(
            "reason",
            F.when(F.col("text").isNull() | (F.trim(F.col("text")) == ""), "missing_text")
            .when(F.size("words") == 0, "empty_after_cleaning")
            .when(F.size("words") < min_words, "too_few_words"),
        )
        .drop("text")
    )
    columns = ["post_id", "ts", "words", *extra]
    settings = {
        "min_words": min_words,
        "stem": stem,
        "stem_mode": stem_mode if stem else None,
        "stopwords": (
            ("default" if stop_list == DEFAULT_STOP_LIST else stop_list)
            if stopwords is None
            else f"custom ({len(stopwords)})"
        ),
    }
    cached: list[Any] = []
    path = None
    if out is not None and distinct == rows_in:
        # one evaluation: every row cleaned once while it is written; the tally is observed
        # on the way (the rows counted are the rows the write read)
        from pyspark.sql import Observation

        bar.set_postfix_str("cleaning and writing Parquet")
        path = _output_path(out)
        seen = Observation("preprocess_tally")
        tagged.observe(seen, *_tally_columns()).filter(F.col("reason").isNull()).select(
            *columns
        ).write.mode("overwrite").parquet(str(path))
        counted, by_reason = _tally_from(seen.get)
        if counted != rows_in:
            raise RuntimeError(
                f"preprocess: the input gave {rows_in:,} rows to the id check and {counted:,} "
                "to the write; is its source changing while it is read?"
            )
        bar.update()
    else:
        tagged = tagged.persist(StorageLevel.MEMORY_AND_DISK)
        bar.set_postfix_str("cleaning")
        cached.append(tagged)
        _, by_reason = _tally(tagged)
        if distinct < rows_in:
            # keep one row per post_id, deterministically: a row that survives cleaning
            # first, then the earliest ts, then the smallest word set
            bar.set_postfix_str("removing duplicate post ids")
            key = F.struct(
                F.col("reason").isNotNull().alias("k0"),
                F.col("ts").isNull().alias("k1"),
                "ts",
                "words",
                "reason",
                *extra,
            )
            tagged = (
                tagged.groupBy("post_id")
                .agg(F.min(key).alias("r"))
                .select("post_id", "r.ts", "r.words", "r.reason", *[f"r.{c}" for c in extra])
                .persist(StorageLevel.MEMORY_AND_DISK)
            )
            cached.append(tagged)
            _, by_reason = _tally(tagged)
        bar.update()
    result = tagged.filter(F.col("reason").isNull()).select(*columns)
    if out is not None and path is None:
        bar.set_postfix_str("writing Parquet")
        path = _output_path(out)
        result.write.mode("overwrite").parquet(str(path))
        for frame in cached:
            frame.unpersist()
        cached = []
    if path is not None:
        result = spark.read.parquet(str(path))
    dropped = {"duplicate_post_id": rows_in - distinct}
    dropped.update({r: by_reason.get(r, 0) for r in DROP_REASONS[1:]})
    report = PreprocessReport(
        rows_in=rows_in,
        rows_out=by_reason.get(None, 0),
        dropped=dropped,
        loader=loader_report,
        settings=settings,
    )
    report.seconds = time.perf_counter() - start
    if out is not None:
        (Path(out) / REPORT_FILE).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    bar.update()
    bar.close()
    return PreprocessResult(df=result, report=report, path=path, _cached=cached)


def _output_path(out: str | Path) -> Path:
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir / POSTS_DIR


#: the rows per drop reason, None = kept (the order of the tally's ``r<i>`` columns)
_REASONS: tuple[str | None, ...] = (None, *DROP_REASONS[1:])


def _tally_columns() -> list[Any]:
    """The tally's aggregates: rows, and rows per reason (:data:`_REASONS`)."""
    import pyspark.sql.functions as F

    aggs = [F.count(F.lit(1)).alias("rows")]
    for i, reason in enumerate(_REASONS):
        test = F.col("reason").isNull() if reason is None else F.col("reason") == reason
        aggs.append(F.sum(test.cast("long")).alias(f"r{i}"))
    return aggs


def _tally_from(row: Any) -> tuple[int, dict[str | None, int]]:
    """(rows, rows per reason) from a row of :func:`_tally_columns`."""
    return int(row["rows"]), {reason: int(row[f"r{i}"] or 0) for i, reason in enumerate(_REASONS)}


def _tally(tagged: DataFrame) -> tuple[int, dict[str | None, int]]:
    """One job: rows, and rows per drop reason (None = kept)."""
    return _tally_from(tagged.agg(*_tally_columns()).first())


def read_posts(spark: SparkSession, path: str | Path) -> DataFrame:
    """Read word-set posts written by :func:`preprocess` (``out`` or its ``posts.parquet``).

    Raises:
        BadInputError: nothing readable there, or no ``words`` column.
    """
    from routelab.datasets.loaders import spark_read_errors

    p = Path(path)
    if (p / POSTS_DIR).exists():
        p = p / POSTS_DIR
    if not p.exists():
        raise BadInputError(
            f"{path}: no such file or directory (expected the output "
            f"directory of `routelab s3tm preprocess`)"
        )
    with spark_read_errors(str(p)):
        df = spark.read.parquet(str(p))
    if "words" not in df.columns:
        raise BadInputError(
            f"{p}: no 'words' column; is it the output of `routelab s3tm preprocess`?"
        )
    return df


def read_report(path: str | Path) -> PreprocessReport:
    """The :class:`PreprocessReport` saved next to preprocessed posts (``report.json``)."""
    return PreprocessReport.from_dict(json.loads((Path(path) / REPORT_FILE).read_text()))


def bundled_words_dir() -> Path:
    """Where :func:`preprocess_bundled` writes by default and
    :func:`routelab.corpus.corpora.bundled_posts` reads: ``datasets/prepared/tweets_words-<fp>/``.

    The fingerprint covers this module, the cleaning code, the stop-word list, the stemming
    mode (:func:`routelab.corpus.text.default_stem_mode`; both follow a flipped reading,
    :mod:`routelab.readings`) and the prepared input, so a change to any of them re-runs
    preprocessing instead of serving stale words; the CLI and the notebooks share the one
    cache.
    """
    import hashlib

    from routelab.corpus import text as text_module
    from routelab.datasets.bundled import prepared_path
    from routelab.paths import prepared_dir

    digest = hashlib.blake2b(digest_size=6)
    for source in (Path(text_module.__file__), Path(__file__)):
        digest.update(source.read_bytes())
    digest.update(" ".join(sorted(text_module.load_stopwords())).encode())  # file + gensim's list
    digest.update(text_module.default_stem_mode().encode())
    stat = prepared_path("tweets").stat()
    digest.update(f"{stat.st_size}:{int(stat.st_mtime)}".encode())
    return prepared_dir() / f"tweets_words-{digest.hexdigest()}"


def preprocess_bundled(
    spark: SparkSession, out: str | Path | None = None, *, progress: bool = True, **options: Any
) -> PreprocessResult:
    """Preprocess the bundled real tweets (``datasets/prepared/tweets.parquet``).

    Args:
        out: output directory (default :func:`bundled_words_dir`).
        options: passed to :func:`preprocess` (``min_words``, ``stem``, ...).
    """
    from routelab.datasets.bundled import read_prepared_spark

    df = read_prepared_spark(spark, "tweets")
    return preprocess(
        df, out if out is not None else bundled_words_dir(), progress=progress, **options
    )
