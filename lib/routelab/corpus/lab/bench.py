"""``routelab bench preprocess`` (``make bench``): Spark preprocessing throughput
(:func:`routelab.corpus.preprocess.preprocess`) on the bundled corpus and on synthetic
tweet-like texts, beside the single-process :func:`routelab.corpus.text.clean_many` rate."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from routelab.corpus.preprocess import preprocess
from routelab.corpus.text import DEFAULT_STEM_MODE

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

GOAL_POSTS_PER_S = 20_000
#: the goal against one plain Python process on the same texts (same run)
GOAL_RATIO = 1.5


def synthetic_texts(n_posts: int, seed: int = 0, vocabulary: int = 50_000) -> list[str]:
    """Tweet-like texts for benchmarking: Zipf(1.1) words from a random vocabulary, mixed
    with mentions, links, hashtags, numbers, punctuation, stop words and ``&amp;``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    letters = rng.integers(ord("a"), ord("z") + 1, size=(vocabulary, 10), dtype=np.uint8)
    lengths = rng.integers(3, 11, size=vocabulary)
    endings = np.array(["", "s", "ing", "ed", "ly"])[rng.integers(0, 5, size=vocabulary)]
    vocab = [
        row[:k].tobytes().decode("ascii") + end
        for row, k, end in zip(letters, lengths, endings, strict=True)
    ]
    fillers = [
        "the",
        "a",
        "to",
        "and",
        "RT",
        "&amp;",
        "is",
        "of",
        "2013",
        "$5",
        ":)",
        "in",
        "for",
        "on",
        "with",
        "I'm",
        "don't",
        "!!",
        "-",
        "😀",
    ]
    ranks = np.minimum(rng.zipf(1.1, size=n_posts * 14), vocabulary) - 1
    lens = rng.integers(6, 22, size=n_posts)
    out, pos = [], 0
    for i, k in enumerate(lens):
        tokens = [vocab[r] for r in ranks[pos : pos + k // 2 + 3]]
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


def _process_tree_cpu_seconds() -> float | None:
    """User+system CPU seconds of this process and its live descendants (the Spark JVM and
    its Python workers); Linux ``/proc`` only, else ``None``."""
    import os

    try:
        ticks = os.sysconf("SC_CLK_TCK")
        parent, cpu = {}, {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(name)] = int(fields[1])
            cpu[int(name)] = (int(fields[11]) + int(fields[12])) / ticks
    except (OSError, ValueError, AttributeError):
        return None
    tree, grew = {os.getpid()}, True
    while grew:
        new = {pid for pid, ppid in parent.items() if ppid in tree and pid not in tree}
        tree |= new
        grew = bool(new)
    return sum(cpu.get(pid, 0.0) for pid in tree)


def _timed_preprocess(df: DataFrame, out: Path, posts: int) -> dict[str, Any]:
    cpu0, t0 = _process_tree_cpu_seconds(), time.perf_counter()
    res = preprocess(df, out, progress=False)
    seconds = time.perf_counter() - t0
    cpu1 = _process_tree_cpu_seconds()
    part = {
        "posts": posts,
        "rows_out": res.report.rows_out,
        "seconds": seconds,
        "posts_per_s": posts / seconds,
    }
    if cpu0 is not None and cpu1 is not None and cpu1 > cpu0:
        part["cpu_seconds"] = cpu1 - cpu0
        part["posts_per_cpu_s"] = posts / (cpu1 - cpu0)
    return part


def bench_preprocess(
    spark: SparkSession, n_posts: int, *, seed: int = 0, include_bundled: bool = True
) -> dict[str, Any]:
    """Measure preprocessing throughput (posts/s) on Spark, with a same-run baseline.

    Synthetic posts (:func:`synthetic_texts`) are first written to Parquet, so the timed
    run reads Parquet, cleans, counts, and writes Parquet, like a real run; the bundled
    corpus is timed too when it is prepared. A small warm-up run spread over every task
    slot first starts the Python workers (each imports nltk once; a warm-up on one
    partition started only one of them, and the other's start was timed). The baseline is :func:`routelab.corpus.text.clean_many` in
    this one Python process, without Spark.

    Besides wall time, each part reports the CPU seconds used by the driver, the JVM and the
    Python workers (``cpu_seconds``, Linux only): on a machine shared with other work,
    ``posts_per_cpu_s * cores`` bounds what the same run reaches on idle cores.

    Returns:
        ``{"synthetic": {...}, "bundled": {...} | None, "baseline": {...}, ...}``; each part
        has ``posts``, ``seconds``, ``posts_per_s``.
    """
    import os
    import tempfile

    from routelab.corpus.text import _STEMMERS, CachedStemmer, clean_many

    texts = synthetic_texts(n_posts, seed)
    results: dict[str, Any] = {
        "master": spark.sparkContext.master,
        "cpus": os.cpu_count(),
        "goal_posts_per_s": GOAL_POSTS_PER_S,
    }
    if hasattr(os, "getloadavg"):
        results["load_average_before"] = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="routelab-bench-") as tmp:
        src = Path(tmp) / "input.parquet"
        frame = pd.DataFrame({"post_id": range(n_posts), "text": texts})
        spark.createDataFrame(frame).write.parquet(str(src))
        # warm every Python worker (one per task slot), not only the one a limit() reaches:
        # each imports nltk and fills its stem cache once
        from routelab.spark import task_slots

        warm = spark.read.parquet(str(src)).limit(4000).repartition(2 * task_slots(spark))
        preprocess(warm, Path(tmp) / "warm", progress=False)
        results["synthetic"] = _timed_preprocess(
            spark.read.parquet(str(src)), Path(tmp) / "out", n_posts
        )
        results["bundled"] = None
        if include_bundled:
            from routelab.datasets.bundled import read_prepared_spark
            from routelab.errors import DatasetError

            try:
                tweets = read_prepared_spark(spark, "tweets")
            except DatasetError as exc:  # not prepared: say so instead of failing the bench
                results["bundled"] = {"skipped": str(exc)}
            else:
                results["bundled"] = _timed_preprocess(
                    tweets, Path(tmp) / "bundled", tweets.count()
                )
    sample = texts[: min(len(texts), 200_000)]
    _STEMMERS[DEFAULT_STEM_MODE] = CachedStemmer(DEFAULT_STEM_MODE)  # cold cache, fair start
    t0 = time.perf_counter()
    clean_many(sample)
    seconds = time.perf_counter() - t0
    results["baseline"] = {
        "what": "routelab.corpus.text.clean_many, 1 Python process, no Spark",
        "posts": len(sample),
        "seconds": seconds,
        "posts_per_s": len(sample) / seconds,
    }
    if hasattr(os, "getloadavg"):
        results["load_average_after"] = os.getloadavg()[0]
    return results


def bench_rows(
    quick: bool = False, *, n_posts: int | None = None, include_bundled: bool = True
) -> list[dict[str, Any]]:
    """Rows for :mod:`routelab.benchmarks` (``make bench``): posts/s vs the goal, with the
    single-process :func:`routelab.corpus.text.clean_many` rate as baseline. ``n_posts``
    overrides the size (1M, ``quick``: 100k; the tests run it on a few hundred)."""
    from routelab.spark import get_spark

    n = n_posts or (100_000 if quick else 1_000_000)
    res = bench_preprocess(get_spark(app_name="routelab-bench"), n, include_bundled=include_bundled)
    baseline = res["baseline"]["posts_per_s"]
    rows = []
    for what, part in (("synthetic", res["synthetic"]), ("bundled", res["bundled"])):
        if not part or "posts_per_s" not in part:
            continue
        note = ""
        if "posts_per_cpu_s" in part:
            note = f"; {part['posts_per_cpu_s']:,.0f} posts per CPU-second"
        rows.append(
            {
                "what": f"preprocess {what} ({part['posts']:,} posts, {res['master']}, "
                f"load {res.get('load_average_before', float('nan')):.1f}{note})",
                "value": part["posts_per_s"],
                "unit": "posts/s",
                "baseline": baseline,
                "ratio": part["posts_per_s"] / baseline,
                "goal": GOAL_RATIO * baseline,
                "meets_goal": part["posts_per_s"] >= max(GOAL_POSTS_PER_S, GOAL_RATIO * baseline),
                "note": f"goal: {GOAL_RATIO}x the one-process baseline and >= "
                f"{GOAL_POSTS_PER_S:,} posts/s",
            }
        )
    return rows
