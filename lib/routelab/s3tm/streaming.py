"""The Router -> Matcher dataflow as a Spark Structured Streaming job (S3-TM Sect. 2).

The corpus is replayed as a stream: the posts, in time order, are written as ``n_files``
Parquet files into a temporary directory; ``readStream`` picks them up
``max_files_per_trigger`` at a time (one micro-batch per trigger), and ``foreachBatch``
runs the dataflow of :mod:`routelab.s3tm.dataflow` (router, identity-partitioned matchers,
dispatcher) on each micro-batch. ``trigger(availableNow=True)`` processes everything that
is there and stops, so the replay is a finite, reproducible job.

The matcher state (mapping, placement, subscriptions) is broadcast once; each Python
worker builds a matcher's trie on first use and keeps it for later micro-batches (as a
long-running matcher would), so ``build_seconds`` is non-zero only where a trie was built.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.s3tm.dataflow import MatcherState, run_dataflow

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["StreamReplay", "epoch_ms", "replay_stream", "write_replay_files"]

POSTS_SCHEMA = "post_id long, ts long, words array<string>"


@dataclass(frozen=True, eq=False)
class StreamReplay:
    """Result of a replay.

    Attributes:
        batches: one row per micro-batch: ``batch_id``, ``posts``, ``matches`` (distinct),
            ``duplicates_removed``, ``wall_seconds``, ``max_task_seconds``.
        matcher_stats: the per-matcher rows of every micro-batch (with ``batch_id``).
        matches: distinct ``(sub_id, post_id)`` pairs over the whole replay.
        wall_seconds: the streaming query's wall time.
    """

    batches: pd.DataFrame
    matcher_stats: pd.DataFrame
    matches: pd.DataFrame
    wall_seconds: float


def write_replay_files(posts: pd.DataFrame, directory: Path, n_files: int) -> list[Path]:
    """Write ``posts`` (``post_id``, ``ts``, ``words``), sorted by time, as ``n_files``
    Parquet files of consecutive posts, oldest first (file names sort in time order)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if n_files < 1:
        raise ValueError(f"n_files must be >= 1, got {n_files}")
    missing = [c for c in ("post_id", "ts", "words") if c not in posts.columns]
    if missing:
        raise ValueError(f"posts lack column(s) {missing}")
    ordered = posts.sort_values(["ts", "post_id"], ignore_index=True)
    directory.mkdir(parents=True, exist_ok=True)
    schema = pa.schema(
        [("post_id", pa.int64()), ("ts", pa.int64()), ("words", pa.list_(pa.string()))]
    )
    paths = []
    bounds = np.linspace(0, len(ordered), n_files + 1).astype(int)
    for i in range(n_files):
        chunk = ordered.iloc[bounds[i] : bounds[i + 1]]
        table = pa.Table.from_pandas(
            pd.DataFrame(
                {
                    "post_id": chunk["post_id"].astype("int64"),
                    "ts": epoch_ms(chunk["ts"]),
                    "words": [list(w) for w in chunk["words"]],
                }
            ),
            schema=schema,
            preserve_index=False,
        )
        path = directory / f"posts-{i:05d}.parquet"
        pq.write_table(table, path)
        paths.append(path)
    return paths


def epoch_ms(ts: pd.Series) -> np.ndarray:
    """Timestamps as epoch milliseconds; a missing time becomes -1 (the file order, set
    before, is kept)."""
    if pd.api.types.is_datetime64_any_dtype(ts):
        ms = ts.dt.tz_localize(None) if getattr(ts.dt, "tz", None) is not None else ts
        out = ms.astype("datetime64[ms]").astype("int64").to_numpy()
        out[ts.isna().to_numpy()] = -1
        return out
    return ts.fillna(-1).astype("int64").to_numpy()


def replay_stream(
    spark: SparkSession,
    posts: pd.DataFrame | DataFrame,
    state: MatcherState,
    *,
    n_files: int = 8,
    max_files_per_trigger: int = 1,
    workdir: str | Path | None = None,
    timeout_seconds: float = 600.0,
) -> StreamReplay:
    """Replay ``posts`` through the dataflow as a Structured Streaming job.

    Args:
        spark: the session.
        posts: ``post_id``, ``ts``, ``words`` (pandas or Spark).
        state: the matcher state (:func:`routelab.s3tm.dataflow.matcher_state`).
        n_files: the corpus is cut into this many files, in time order.
        max_files_per_trigger: files per micro-batch.
        workdir: where to put the input files and the checkpoint (default: a temporary
            directory, removed afterwards).
        timeout_seconds: give up waiting for the query after this long.

    Raises:
        RoutelabError: the streaming query failed or timed out (with the batch error).
    """
    from routelab.errors import RoutelabError

    frame = posts if isinstance(posts, pd.DataFrame) else posts.toPandas()
    own_dir = workdir is None
    root = Path(tempfile.mkdtemp(prefix="routelab-replay-")) if own_dir else Path(workdir)
    handle = spark.sparkContext.broadcast(state)
    batches: list[dict[str, Any]] = []
    stats: list[pd.DataFrame] = []
    found: list[pd.DataFrame] = []

    def on_batch(df: DataFrame, batch_id: int) -> None:
        start = time.perf_counter()
        result = run_dataflow(df, handle, spark=spark)
        if result.n_posts == 0:
            return
        found.append(result.matches)
        stats.append(result.matcher_stats.assign(batch_id=batch_id))
        batches.append(
            {
                "batch_id": batch_id,
                "posts": result.n_posts,
                "matches": len(result.matches),
                "duplicates_removed": result.duplicates_removed,
                "wall_seconds": time.perf_counter() - start,
                "max_task_seconds": float(result.matcher_stats["task_seconds"].max()),
            }
        )

    try:
        write_replay_files(frame, root / "in", n_files)
        stream = (
            spark.readStream.schema(POSTS_SCHEMA)
            .option("maxFilesPerTrigger", int(max_files_per_trigger))
            .parquet(str(root / "in"))
        )
        start = time.perf_counter()
        query = (
            stream.writeStream.foreachBatch(on_batch)
            .option("checkpointLocation", str(root / "checkpoint"))
            .trigger(availableNow=True)
            .start()
        )
        try:
            finished = query.awaitTermination(timeout_seconds)
        except Exception as exc:  # StreamingQueryException wraps the batch's error
            raise RoutelabError(f"streaming replay failed: {exc}") from exc
        if not finished:
            query.stop()
            raise RoutelabError(f"streaming replay did not finish in {timeout_seconds} s")
        wall = time.perf_counter() - start
    finally:
        handle.unpersist()
        if own_dir:
            shutil.rmtree(root, ignore_errors=True)
    matches = (
        pd.concat(found, ignore_index=True).drop_duplicates()
        if found
        else pd.DataFrame({"sub_id": [], "post_id": []}, dtype="int64")
    )
    return StreamReplay(
        pd.DataFrame(batches).sort_values("batch_id", ignore_index=True)
        if batches
        else pd.DataFrame(),
        pd.concat(stats, ignore_index=True) if stats else pd.DataFrame(),
        matches.sort_values(["sub_id", "post_id"], ignore_index=True),
        wall,
    )
