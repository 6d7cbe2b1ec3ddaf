"""Posts -> word sets on Spark: S3-TM's preprocessing (Sect. 2.1 "Receiver", Sect. 6.1).

:func:`preprocess` turns a DataFrame in the post schema (:mod:`routelab.datasets.loaders`)
into the *word-set* schema every S3-TM experiment reads:

``post_id`` int64, ``ts`` timestamp, ``words`` array<string> (a set: distinct, sorted),
plus ``source``, ``lat``, ``lon`` when the input has them.

Steps, each counted in the :class:`PreprocessReport` (``rows_in - sum(dropped) ==
rows_out``):

1. duplicates of a ``post_id`` are dropped (``duplicate_post_id``); the kept row is chosen
   deterministically (a row with text, then the earliest ``ts``, then the smallest text);
2. rows without text are dropped (``missing_text``);
3. each text becomes its word set with :func:`routelab.text.clean_words`, run as a
   vectorized (Arrow) pandas UDF whose Python workers keep a stem cache;
4. posts with no word left (``empty_after_cleaning``) or fewer than ``min_words``
   (``too_few_words``) are dropped.

With ``out`` the result goes to ``out/posts.parquet`` (sorted by ``ts``, ``post_id``) and
the report to ``out/report.json``.
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
from routelab.errors import BadInputError
from routelab.text import DEFAULT_STEM_MODE, STEM_MODES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from routelab.datasets.loaders import LoadResult

POSTS_DIR = "posts.parquet"
REPORT_FILE = "report.json"
OPTIONAL_COLUMNS = ("source", "lat", "lon")
DROP_REASONS = ("duplicate_post_id", "missing_text", "empty_after_cleaning", "too_few_words")
GOAL_POSTS_PER_S = 20_000


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
        return cls(rows_in=int(data["rows_in"]), rows_out=int(data["rows_out"]),
                   dropped={k: int(v) for k, v in data.get("dropped", {}).items()},
                   loader=BadRecordReport.from_dict(loader) if loader else None,
                   settings=dict(data.get("settings", {})),
                   seconds=float(data.get("seconds", 0.0)))

    def __str__(self) -> str:
        lines = []
        if self.loader is not None:
            lines += ["loading:", *("  " + ln for ln in str(self.loader).splitlines())]
        lines.append(f"preprocessing: {self.rows_in:,} posts in, {self.rows_out:,} out "
                     f"({self.seconds:.1f} s)")
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
        if self._cached is not None:
            self._cached.unpersist()
            self._cached = None


def _words_udf(stopwords: Collection[str] | None, stem: bool, stem_mode: str) -> Any:
    """A vectorized UDF: text column -> word-set column (:func:`routelab.text.clean_many`)."""
    from pyspark.sql.functions import pandas_udf

    stops = frozenset(stopwords) if stopwords is not None else None

    @pandas_udf("array<string>")
    def words(texts: pd.Series) -> pd.Series:
        from routelab.text import clean_many

        return pd.Series(clean_many(texts.tolist(), stops, stem, stem_mode), index=texts.index)

    return words


def _input_frame(data: DataFrame | LoadResult) -> tuple[DataFrame, BadRecordReport | None]:
    df = getattr(data, "df", data)
    report = getattr(data, "report", None)
    missing = [c for c in ("post_id", "text") if c not in df.columns]
    if missing:
        raise BadInputError(f"preprocess needs columns post_id and text; missing {missing} "
                            f"(columns: {df.columns})")
    return df, report


def preprocess(
    data: DataFrame | LoadResult,
    out: str | Path | None = None,
    *,
    min_words: int = 1,
    stem: bool = True,
    stem_mode: str = DEFAULT_STEM_MODE,
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
            (:class:`routelab.text.CachedStemmer`).
        stopwords: a custom stop-word set (default: :func:`routelab.text.load_stopwords`).
        progress: show a step progress bar.
    """
    import pyspark.sql.functions as F
    from pyspark import StorageLevel
    from tqdm.auto import tqdm

    if min_words < 1:
        raise ValueError(f"min_words must be >= 1, got {min_words}")
    if stem_mode not in STEM_MODES:
        raise ValueError(f"unknown stem_mode {stem_mode!r}; choose from {STEM_MODES}")
    start = time.perf_counter()
    df, loader_report = _input_frame(data)
    spark = df.sparkSession
    extra = [c for c in OPTIONAL_COLUMNS if c in df.columns]
    ts = F.col("ts").cast("timestamp") if "ts" in df.columns else F.lit(None).cast("timestamp")
    base = df.select(F.col("post_id").cast("long").alias("post_id"), ts.alias("ts"),
                     F.col("text").cast("string").alias("text"), *extra)
    bar = tqdm(total=3 if out else 2, desc="preprocess", disable=not progress, leave=False)

    # 1. one row per post_id, chosen deterministically: min of (no text, no ts, ts, text, ...)
    key = F.struct(F.col("text").isNull().alias("k0"), F.col("ts").isNull().alias("k1"),
                   "ts", "text", *extra)
    deduped = (base.groupBy("post_id")
               .agg(F.count(F.lit(1)).alias("n"), F.min(key).alias("r"))
               .select("post_id", "n", "r.ts", "r.text", *[f"r.{c}" for c in extra]))
    # 2-4. clean, then tag the rows to drop
    words = _words_udf(stopwords, stem, stem_mode)(F.col("text"))
    tagged = deduped.withColumn("words", words).withColumn(
        "reason",
        F.when(F.col("text").isNull() | (F.trim(F.col("text")) == ""), "missing_text")
        .when(F.size("words") == 0, "empty_after_cleaning")
        .when(F.size("words") < min_words, "too_few_words"),
    ).drop("text").persist(StorageLevel.MEMORY_AND_DISK)

    bar.set_postfix_str("cleaning and counting")
    counts = tagged.groupBy("reason").agg(F.count(F.lit(1)).alias("rows"),
                                          F.sum("n").alias("n")).collect()
    bar.update()
    rows_in = sum(int(r["n"]) for r in counts)
    distinct = sum(int(r["rows"]) for r in counts)
    dropped = {reason: 0 for reason in DROP_REASONS}
    dropped["duplicate_post_id"] = rows_in - distinct
    for r in counts:
        if r["reason"] is not None:
            dropped[r["reason"]] += int(r["rows"])
    rows_out = sum(int(r["rows"]) for r in counts if r["reason"] is None)
    result = tagged.filter(F.col("reason").isNull()).select("post_id", "ts", "words", *extra)

    report = PreprocessReport(
        rows_in=rows_in, rows_out=rows_out, dropped=dropped, loader=loader_report,
        settings={"min_words": min_words, "stem": stem,
                  "stem_mode": stem_mode if stem else None,
                  "stopwords": "default" if stopwords is None else f"custom ({len(stopwords)})"},
    )
    path = None
    cached = tagged
    if out is not None:
        bar.set_postfix_str("writing Parquet")
        out_dir = Path(out)
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / POSTS_DIR
        result.orderBy("ts", "post_id").write.mode("overwrite").parquet(str(path))
        bar.update()
        tagged.unpersist()
        cached = None
        result = spark.read.parquet(str(path))
    report.seconds = time.perf_counter() - start
    if out is not None:
        (Path(out) / REPORT_FILE).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    bar.update()
    bar.close()
    return PreprocessResult(df=result, report=report, path=path, _cached=cached)


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
        raise BadInputError(f"{path}: no such file or directory (expected the output "
                            f"directory of `routelab preprocess`)")
    with spark_read_errors(str(p)):
        df = spark.read.parquet(str(p))
    if "words" not in df.columns:
        raise BadInputError(f"{p}: no 'words' column; is it the output of `routelab preprocess`?")
    return df


def read_report(path: str | Path) -> PreprocessReport:
    """The :class:`PreprocessReport` saved next to preprocessed posts (``report.json``)."""
    return PreprocessReport.from_dict(json.loads((Path(path) / REPORT_FILE).read_text()))


def bundled_words_dir() -> Path:
    """Where :func:`preprocess_bundled` writes by default (``<prepared>/tweets_words``)."""
    from routelab.paths import prepared_dir

    return prepared_dir() / "tweets_words"


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
    return preprocess(df, out if out is not None else bundled_words_dir(), progress=progress,
                      **options)


# ---------------------------------------------------------------------------------------
# benchmark (wired into `make bench` through routelab.benchmarks)
# ---------------------------------------------------------------------------------------


def synthetic_texts(n_posts: int, seed: int = 0, vocabulary: int = 50_000) -> list[str]:
    """Tweet-like texts for benchmarking: Zipf(1.1) words from a random vocabulary, mixed
    with mentions, links, hashtags, numbers, punctuation, stop words and ``&amp;``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    letters = rng.integers(ord("a"), ord("z") + 1, size=(vocabulary, 10), dtype=np.uint8)
    lengths = rng.integers(3, 11, size=vocabulary)
    endings = np.array(["", "s", "ing", "ed", "ly"])[rng.integers(0, 5, size=vocabulary)]
    vocab = [row[:k].tobytes().decode("ascii") + end
             for row, k, end in zip(letters, lengths, endings, strict=True)]
    fillers = ["the", "a", "to", "and", "RT", "&amp;", "is", "of", "2013", "$5", ":)",
               "in", "for", "on", "with", "I'm", "don't", "!!", "-", "😀"]
    ranks = np.minimum(rng.zipf(1.1, size=n_posts * 14), vocabulary) - 1
    lens = rng.integers(6, 22, size=n_posts)
    out, pos = [], 0
    for i, k in enumerate(lens):
        tokens = [vocab[r] for r in ranks[pos:pos + k // 2 + 3]]
        pos += k // 2 + 3
        tokens += [fillers[j] for j in rng.integers(0, len(fillers), size=k - len(tokens) // 2)]
        if i % 3 == 0:
            tokens.append(f"@user{i % 997}")
        if i % 2 == 0:
            tokens.append(f"https://t.co/{i:x}")
        if i % 5 == 0:
            tokens.insert(0, f"#{vocab[ranks[i % len(ranks)]].title()}")
        rng.shuffle(tokens)
        out.append(" ".join(tokens))
    return out


def bench_preprocess(spark: SparkSession, n_posts: int, *, seed: int = 0,
                     include_bundled: bool = True) -> dict[str, Any]:
    """Measure preprocessing throughput (posts/s) on Spark, with a same-run baseline.

    Synthetic posts (:func:`synthetic_texts`) are first written to Parquet, so the timed
    run reads Parquet, cleans, de-duplicates, and writes Parquet, like a real run. The
    bundled corpus is timed too when it is prepared. The baseline is plain
    :func:`routelab.text.clean_many` in this one Python process (no Spark).

    Returns:
        ``{"synthetic": {...}, "bundled": {...} | None, "baseline": {...}}`` with
        ``posts``, ``seconds``, ``posts_per_s`` each, plus the parallelism used.
    """
    import tempfile

    from routelab.text import _STEMMERS, CachedStemmer, clean_many

    texts = synthetic_texts(n_posts, seed)
    results: dict[str, Any] = {"parallelism": spark.sparkContext.defaultParallelism,
                               "goal_posts_per_s": GOAL_POSTS_PER_S}
    with tempfile.TemporaryDirectory(prefix="routelab-bench-") as tmp:
        src = Path(tmp) / "input.parquet"
        frame = pd.DataFrame({"post_id": range(n_posts), "text": texts})
        spark.createDataFrame(frame).write.parquet(str(src))
        # warm-up: start the Python workers and fill their stem caches, as a long run would
        preprocess(spark.read.parquet(str(src)).limit(2000), Path(tmp) / "warm", progress=False)
        t0 = time.perf_counter()
        res = preprocess(spark.read.parquet(str(src)), Path(tmp) / "out", progress=False)
        seconds = time.perf_counter() - t0
        results["synthetic"] = {"posts": n_posts, "rows_out": res.report.rows_out,
                                "seconds": seconds, "posts_per_s": n_posts / seconds}
        results["bundled"] = None
        if include_bundled:
            try:
                from routelab.datasets.bundled import read_prepared_spark

                tweets = read_prepared_spark(spark, "tweets")
            except Exception as exc:  # not prepared: report instead of failing the bench
                results["bundled"] = {"skipped": str(exc)}
            else:
                n = tweets.count()
                t0 = time.perf_counter()
                preprocess(tweets, Path(tmp) / "bundled", progress=False)
                seconds = time.perf_counter() - t0
                results["bundled"] = {"posts": n, "seconds": seconds, "posts_per_s": n / seconds}
    sample = texts[: min(len(texts), 200_000)]
    _STEMMERS[DEFAULT_STEM_MODE] = CachedStemmer(DEFAULT_STEM_MODE)  # cold cache, fair start
    t0 = time.perf_counter()
    clean_many(sample)
    seconds = time.perf_counter() - t0
    results["baseline"] = {"what": "routelab.text.clean_many, 1 Python process, no Spark",
                           "posts": len(sample), "seconds": seconds,
                           "posts_per_s": len(sample) / seconds}
    return results


def bench_rows(quick: bool = False) -> list[dict[str, Any]]:
    """Rows for :mod:`routelab.benchmarks` (``make bench``)."""
    from routelab.spark import get_spark

    n = 100_000 if quick else 1_000_000
    res = bench_preprocess(get_spark(app_name="routelab-bench"), n)
    baseline = res["baseline"]["posts_per_s"]
    rows = []
    for what, part in (("synthetic", res["synthetic"]), ("bundled", res["bundled"])):
        if not part or "posts_per_s" not in part:
            continue
        rows.append({
            "what": f"preprocess {what} ({part['posts']:,} posts, "
                    f"{res['parallelism']} cores)",
            "value": part["posts_per_s"], "unit": "posts/s",
            "baseline": baseline, "ratio": part["posts_per_s"] / baseline,
            "goal": GOAL_POSTS_PER_S, "meets_goal": part["posts_per_s"] >= GOAL_POSTS_PER_S,
        })
    return rows
