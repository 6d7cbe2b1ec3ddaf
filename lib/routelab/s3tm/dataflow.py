"""The S3-TM dataflow on Spark: Router -> N Matchers -> Dispatcher (S3-TM Sect. 2, Fig. 1).

Partitions play the parallel operator instances, so the routed work really runs in parallel:

1. **Router** (``mapPartitions`` over the posts): K(P, M) of every post with the learned
   mapping and W^s (Eq. 1); one record ``(matcher, (post_id, words))`` per target.
2. **Shuffle to the matchers**: ``rdd.partitionBy(N, lambda k: k)`` -- the identity
   partitioner on the matcher id, so partition i *is* matcher i.
3. **Matcher i** (``mapPartitionsWithIndex``): builds (once per Python worker; cached by the
   state's token) the trie of the subscriptions placed on i from the broadcast
   :class:`MatcherState`, and matches its posts (:mod:`routelab.s3tm.trie_kernel`).
4. **Dispatcher**: the (sub_id, post_id) matches as a DataFrame, de-duplicated -- a
   multicast hot-word subscription (Sect. 5.1, category iii) lives on several matchers and
   a post may reach more than one of them -- and grouped per subscription.

**Per-matcher task times.** Spark's per-task metrics live in the JVM (a ``SparkListener``)
and are not exposed to PySpark; the status tracker only has stage-level counts. We therefore
measure wall time *inside* each matcher task (``time.perf_counter`` around building the
trie and around matching) and return it with the task's results. This is the Python work of
the task, without Spark's scheduling and (de)serialization overheads.

**The word network on Spark** (:func:`word_network_spark`, Sect. 3.2): the same
:class:`~routelab.s3tm.wordnet.WordNetwork` as :func:`routelab.s3tm.wordnet.word_network`
computes on the driver (tested equal), counted with Spark's array functions.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from routelab.errors import BadInputError
from routelab.s3tm.placement import Placement
from routelab.s3tm.routing import Mapping
from routelab.s3tm.wordnet import WordNetwork
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "DataflowResult",
    "MatcherState",
    "matcher_state",
    "posts_frame",
    "run_dataflow",
    "word_network_spark",
]

MATCH_SCHEMA = "sub_id long, post_id long"

# executor-side cache: (state token, matcher) -> (trie forest, build seconds); a matcher
# keeps its trie across micro-batches as a long-running matcher process would
_FORESTS: dict[tuple[str, int], tuple[Any, float]] = {}


@dataclass(frozen=True, eq=False)
class MatcherState:
    """What the Router and the Matchers need, broadcast once.

    Attributes:
        mapping: M (routing).
        subscribed: W^s, the words that route a publication.
        subs: the subscriptions (``post_ids`` are the subscription ids).
        entry_rows, entry_matchers: the placement's entries.
        token: identifies this state in the executors' trie cache.
    """

    mapping: Mapping
    subscribed: frozenset[str]
    subs: Corpus
    entry_rows: np.ndarray
    entry_matchers: np.ndarray
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def n_matchers(self) -> int:
        """N."""
        return self.mapping.n_matchers


def matcher_state(mapping: Mapping, placement: Placement, subs: Corpus) -> MatcherState:
    """Bundle the mapping, W^s (the words of ``subs``) and the placement."""
    if placement.n_matchers != mapping.n_matchers:
        raise ValueError(
            f"placement for {placement.n_matchers} matchers, mapping for {mapping.n_matchers}"
        )
    present = np.flatnonzero(np.bincount(subs.indices, minlength=subs.n_vocab) > 0)
    return MatcherState(
        mapping,
        frozenset(subs.vocab[j] for j in present),
        subs,
        placement.entry_rows,
        placement.entry_matchers,
    )


def posts_frame(spark: SparkSession, posts: Corpus, partitions: int | None = None) -> DataFrame:
    """A Corpus as a Spark DataFrame (``post_id`` long, ``words`` array<string>)."""
    frame = pd.DataFrame({"post_id": posts.post_ids, "words": posts.word_lists()})
    df = spark.createDataFrame(frame, "post_id long, words array<string>")
    return df.repartition(partitions) if partitions else df


# --------------------------------------------------------------------------- stages


def _value(handle: Any) -> MatcherState:
    return handle.value if hasattr(handle, "value") else handle


def route_partition(
    rows: Iterable[Any], handle: Any, counter: Any = None
) -> Iterator[tuple[int, tuple[int, list]]]:
    """Router: ``(matcher, (post_id, words))`` for every target of every post (Eq. 1);
    ``counter`` (a Spark accumulator) counts the posts seen."""
    state = _value(handle)
    batch = [(int(r[0]), list(r[1] or [])) for r in rows]
    if counter is not None:
        counter.add(len(batch))
    if not batch:
        return
    corpus = Corpus.from_word_lists([w for _, w in batch], post_ids=[p for p, _ in batch])
    targets = state.mapping.route(corpus, state.subscribed)
    for row, (post_id, words) in enumerate(batch):
        for m in targets.indices[targets.indptr[row] : targets.indptr[row + 1]].tolist():
            yield m, (post_id, words)


def _forest_of(state: MatcherState, matcher: int) -> tuple[Any, float, bool]:
    from routelab.s3tm.trie_kernel import build_forest

    key = (state.token, matcher)
    hit = _FORESTS.get(key)
    if hit is not None:
        return hit[0], hit[1], True
    start = time.perf_counter()
    rows = state.entry_rows[state.entry_matchers == matcher]
    forest = build_forest(state.subs, 1, rows, np.zeros(len(rows), dtype=np.int64))
    seconds = time.perf_counter() - start
    stale = [k for k in _FORESTS if k[0] != state.token]
    for k in stale:  # keep one placement's tries per worker
        del _FORESTS[k]
    _FORESTS[key] = (forest, seconds)
    return forest, seconds, False


def match_partition(index: int, items: Iterable[Any], handle: Any) -> Iterator[dict[str, Any]]:
    """Matcher ``index``: one result record with its matches and measured times."""
    task_start = time.perf_counter()
    state = _value(handle)
    forest, build_seconds, cached = _forest_of(state, index)
    start = time.perf_counter()
    posts = [v for _, v in items]
    n = len(posts)
    ops = 0
    sub_ids = post_ids = np.zeros(0, dtype=np.int64)
    corpus = None
    if n:
        corpus = Corpus.from_word_lists([w for _, w in posts], post_ids=[p for p, _ in posts])
    prepared = time.perf_counter()
    if corpus is not None:
        res = forest.match(corpus, np.arange(n), np.zeros(n, dtype=np.int64))
        sub_ids = res.subs
        post_ids = np.repeat(corpus.post_ids, np.diff(res.ptr))
        ops = int(res.ops.sum())
    match_seconds = time.perf_counter() - prepared
    yield {
        "matcher": index,
        "posts": n,
        "ops": ops,
        "matches": len(sub_ids),
        "subs": int(forest.n_subs[0]),
        "unique_words": int(forest.unique_words[0]),
        "build_seconds": 0.0 if cached else build_seconds,
        "trie_cached": cached,
        "prepare_seconds": prepared - start,
        "match_seconds": match_seconds,
        "task_seconds": time.perf_counter() - task_start,
        "sub_ids": sub_ids,
        "post_ids": post_ids,
    }


def _without_arrays(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ("sub_ids", "post_ids")}


def _match_rows(record: dict[str, Any]) -> Iterator[tuple[int, int]]:
    yield from zip(record["sub_ids"].tolist(), record["post_ids"].tolist(), strict=True)


@dataclass(frozen=True, eq=False)
class DataflowResult:
    """One run of the dataflow.

    Attributes:
        matches: distinct ``(sub_id, post_id)`` pairs (pandas, sorted).
        matcher_stats: one row per matcher: posts, lookup ops, matches, subscriptions,
            unique words, and the in-task times: ``build_seconds`` (its trie; 0 when the
            worker had it cached), ``prepare_seconds`` (receiving the posts and encoding
            their word sets), ``match_seconds`` (the trie traversal) and ``task_seconds``.
        duplicates_removed: match copies dropped by the dispatcher (multicast subscriptions).
        wall_seconds: driver wall time of the whole run.
        n_posts: publications that entered the router.
    """

    matches: pd.DataFrame
    matcher_stats: pd.DataFrame
    duplicates_removed: int
    wall_seconds: float
    n_posts: int = 0

    def time_vs_load(self) -> pd.DataFrame:
        """Pearson correlation of each measured per-matcher time with the model's loads:
        lookups (subscription-aware, Sect. 4) and publications received (Eq. 3)."""
        stats = self.matcher_stats
        rows = {}
        for col in ("prepare_seconds", "match_seconds", "task_seconds"):
            rows[col] = {
                load: float(np.corrcoef(stats[col], stats[load])[0, 1])
                if stats[col].std() > 0 and stats[load].std() > 0
                else float("nan")
                for load in ("ops", "posts")
            }
        return pd.DataFrame(rows).T.rename(
            columns={"ops": "corr with lookups", "posts": "corr with publications"}
        )

    def per_subscription(self) -> pd.DataFrame:
        """Matches delivered per subscription (``sub_id``, ``n_matches``)."""
        counts = self.matches.groupby("sub_id").size()
        return counts.rename("n_matches").reset_index()


def run_dataflow(
    posts: DataFrame,
    state: MatcherState | Any,
    *,
    spark: SparkSession | None = None,
) -> DataflowResult:
    """Route ``posts`` (``post_id``, ``words``) to N matcher partitions, match, dispatch.

    Args:
        posts: the publications as a Spark DataFrame.
        state: a :class:`MatcherState` or a broadcast of one (broadcast once to reuse it
            across runs, e.g. micro-batches).
        spark: the session (default: the posts' session).

    Raises:
        BadInputError: ``posts`` lacks ``post_id`` or ``words``.
    """
    from routelab.errors import BadInputError

    missing = [c for c in ("post_id", "words") if c not in posts.columns]
    if missing:
        raise BadInputError(f"posts DataFrame lacks column(s) {missing}; it has {posts.columns}")
    session = spark or posts.sparkSession
    start = time.perf_counter()
    handle = state
    own_broadcast = not hasattr(state, "value")
    if own_broadcast:
        handle = session.sparkContext.broadcast(state)
    n = _value(handle).n_matchers
    counter = session.sparkContext.accumulator(0)
    try:
        routed = posts.select("post_id", "words").rdd.mapPartitions(
            lambda rows: route_partition(rows, handle, counter)
        )
        matched = (
            routed.partitionBy(n, lambda k: k)
            .mapPartitionsWithIndex(lambda i, items: match_partition(i, items, handle))
            .cache()
        )
        stats = matched.map(_without_arrays).collect()
        pairs = session.createDataFrame(matched.flatMap(_match_rows), MATCH_SCHEMA)
        matches = pairs.dropDuplicates(["sub_id", "post_id"]).toPandas()
        total = sum(s["matches"] for s in stats)
        matched.unpersist()
    finally:
        if own_broadcast:
            handle.unpersist()
    matches = matches.sort_values(["sub_id", "post_id"], ignore_index=True)
    return DataflowResult(
        matches,
        pd.DataFrame(stats).sort_values("matcher", ignore_index=True),
        int(total - len(matches)),
        time.perf_counter() - start,
        int(counter.value),
    )


def word_network_spark(
    df: DataFrame, subscribed_words: Iterable[str] | None = None, *, words_col: str = "words"
) -> WordNetwork:
    """Word network of a posts DataFrame computed on Spark.

    Each post's words are cleaned into a sorted distinct set (null/empty words ignored),
    restricted to W^s when ``subscribed_words`` is given (broadcast join), paired with Spark
    array functions (no self-join), and counted by ``groupBy``. The counts are collected; the
    vocabulary is the sorted list of words with a non-zero count.

    Raises:
        BadInputError: ``words_col`` is missing.
    """
    from pyspark.sql import functions as F

    if words_col not in df.columns:
        raise BadInputError(f"posts DataFrame lacks column {words_col!r}; it has {df.columns}")
    spark = df.sparkSession
    n_posts = df.count()
    words = F.filter(F.col(words_col), lambda w: w.isNotNull() & (w != ""))
    posts = df.select(F.array_sort(F.array_distinct(words)).alias("ws"))
    if subscribed_words is not None:
        words_df = [(w,) for w in sorted(set(subscribed_words))]
        sub_df = spark.createDataFrame(words_df, "w string")
        posts = (
            df.select(F.monotonically_increasing_id().alias("row"), words.alias("ws"))
            .select("row", F.explode("ws").alias("w"))
            .join(F.broadcast(sub_df), on="w")
            .groupBy("row")
            .agg(F.array_sort(F.collect_set("w")).alias("ws"))
        )
    posts = posts.cache()
    try:
        freq = posts.select(F.explode("ws").alias("w")).groupBy("w").count().toPandas()
        n = F.size("ws")
        pairs_col = F.when(
            n >= 2,
            F.flatten(
                F.transform(
                    F.sequence(F.lit(1), n - 1),
                    lambda i: F.transform(
                        F.slice("ws", i + 1, n - i),
                        lambda b: F.struct(F.element_at("ws", i).alias("a"), b.alias("b")),
                    ),
                )
            ),
        )
        pairs = (
            posts.select(F.explode(pairs_col).alias("p"))
            .groupBy(F.col("p.a").alias("a"), F.col("p.b").alias("b"))
            .count()
            .toPandas()
        )
    finally:
        posts.unpersist()
    vocab = sorted(freq["w"].tolist())
    index = {w: j for j, w in enumerate(vocab)}
    counts = np.zeros(len(vocab), dtype=np.int64)
    counts[[index[w] for w in freq["w"]]] = freq["count"].to_numpy(dtype=np.int64)
    a = np.array([index[w] for w in pairs["a"]], dtype=np.int64)
    b = np.array([index[w] for w in pairs["b"]], dtype=np.int64)
    c = pairs["count"].to_numpy(dtype=np.int64)
    cooc = sp.coo_matrix(
        (np.concatenate([c, c]), (np.concatenate([a, b]), np.concatenate([b, a]))),
        shape=(len(vocab), len(vocab)),
    ).tocsr()
    cooc.sort_indices()
    return WordNetwork(vocab, counts, cooc, n_posts)
