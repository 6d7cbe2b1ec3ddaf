"""Tweet-based and topic-based subscriptions (S3-TM Sect. 6.1, "Experimental workload").

S3-TM evaluates two subscription workloads:

- *tweet-based*: "we pick random tweets from the dataset and register them as
  subscriptions" -- long, rarely shared subscriptions (:func:`tweet_subscriptions`);
- *topic-based*: LDA (Mallet, 100 topics, alpha = beta = 0.1) gives 5 words per topic;
  "each subscription selects one topic, decides its length using a Zipf distribution with a
  skew parameter of 0.5, and gets that number of words from the topic at random", with
  lengths 1..5 -- short, popular subscriptions (:func:`fit_topics`,
  :func:`topic_subscriptions`).

Subscriptions have the columns ``sub_id`` int64, ``words`` array<string> (sorted,
distinct), ``kind`` ("tweet" | "topic") and ``topic`` int32 (null for tweet-based).

Deviation from the paper: LDA is gensim's online variational Bayes (``LdaModel``,
Hoffman et al. 2010), not Mallet's collapsed Gibbs sampler; both fit the same model with
the same priors, and the top words of clear topics agree, but individual topics differ.
gensim runs single-threaded here because its multi-worker variant is not reproducible.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.checks import check_float, check_int, check_seed
from routelab.datasets.synthetic import (
    generate_blocks,
    prepare_output_dir,
    sample_cdf,
    zipf_cdf,
    zipf_pmf,
)
from routelab.errors import BadInputError
from routelab.readings import pick
from routelab.uniques import unique

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

KINDS = ("tweet", "topic")
TOPIC_CHOICES = ("uniform", "weight")
SUB_BLOCK = 1 << 16
"""Subscriptions per RNG block of the topic-based generator (fixed)."""
TAG_TOPIC_SUBS = 20
SUBSCRIPTION_SCHEMA = "sub_id long, words array<string>, kind string, topic int"


def default_topic_choice() -> str:
    """How a topic-based subscription picks its topic when not told: ``"uniform"``, or
    ``"weight"`` for a run with ``ROUTELAB_READING=topicweight`` (:mod:`routelab.readings`)."""
    return pick("topicweight", "uniform", "weight")


# --------------------------------------------------------------------------- inputs


def _spark_posts(posts: DataFrame | str | Path, spark: SparkSession | None = None) -> DataFrame:
    """A Spark posts DataFrame from a DataFrame or a Parquet directory, columns checked."""
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.types import ArrayType, StringType

    where = "posts"
    if not isinstance(posts, SparkDataFrame):
        from routelab.spark import get_spark

        path = Path(posts)
        if (path / "posts.parquet").exists():  # the folder `routelab s3tm preprocess` writes
            path = path / "posts.parquet"
        where = str(path)
        if not path.exists():
            raise BadInputError(f"{path}: no such posts file or directory")
        session = spark or get_spark()
        try:
            posts = session.read.parquet(str(path))
        except Exception as exc:  # AnalysisException and friends, one line for the user
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc)
            raise BadInputError(f"{path}: cannot read as Parquet: {first_line}") from None
    fields = {f.name: f.dataType for f in posts.schema.fields}
    missing = [c for c in ("post_id", "words") if c not in fields]
    if missing:
        raise BadInputError(
            f"{where}: missing column(s) {', '.join(missing)} (have: {', '.join(fields)})"
        )
    words_type = fields["words"]
    if not (isinstance(words_type, ArrayType) and isinstance(words_type.elementType, StringType)):
        raise BadInputError(
            f"{where}: column 'words' must be array<string>, got {words_type.simpleString()}"
        )
    return posts


def _clean_words_spark(posts: DataFrame) -> DataFrame:
    """``post_id`` and ``words`` as a sorted distinct array without nulls; empty posts dropped."""
    from pyspark.sql import functions as F

    words = F.array_sort(F.array_distinct(F.array_compact(F.col("words"))))
    return posts.select(F.col("post_id").cast("long").alias("post_id"), words.alias("words")).where(
        F.size("words") > 0
    )


def _clean_words_pandas(posts: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("post_id", "words") if c not in posts.columns]
    if missing:
        raise BadInputError(f"posts: missing column(s) {', '.join(missing)}")

    def clean(words: Any) -> list[str]:
        if words is None or (isinstance(words, float) and math.isnan(words)):
            return []
        return sorted({w for w in words if w is not None})

    out = pd.DataFrame(
        {
            "post_id": _post_ids(posts["post_id"]),
            "words": [clean(w) for w in posts["words"]],
        }
    )
    return out[out["words"].map(len) > 0].reset_index(drop=True)


def _post_ids(values: Any) -> np.ndarray:
    """Post ids as int64; null or non-integer ids are a :class:`BadInputError`."""
    series = pd.Series(values)
    nulls = int(series.isna().sum())
    if nulls:
        raise BadInputError(f"posts: {nulls} post(s) with a null post_id")
    try:
        ids = series.to_numpy(dtype=np.int64)
    except (TypeError, ValueError):
        raise BadInputError(f"posts: post_id must be integers, got {series.dtype}") from None
    if series.dtype.kind == "f" and not np.array_equal(ids, series.to_numpy()):
        raise BadInputError("posts: post_id must be integers, got fractional values")
    return ids


def _check_unique_ids(ids: Any) -> np.ndarray:
    ids = np.sort(_post_ids(ids))
    dup = ids[1:][ids[1:] == ids[:-1]]
    if len(dup):
        raise BadInputError(
            f"posts: post_id must be unique; {len(unique(dup))} duplicated id(s), "
            f"first {int(dup[0])}"
        )
    return ids


# --------------------------------------------------------------------------- tweet-based


def hash_order(post_ids: np.ndarray, seed: int, round_: int = 0) -> np.ndarray:
    """``post_ids`` in a seeded pseudo-random order: by a stable 64-bit hash, ties by id.

    Uses :func:`routelab.hashing.mix64` (never Python's salted ``hash()``), so the order is
    the same in every process; round ``r > 0`` uses an independent seed derived from
    ``(seed, r)``.
    """
    from routelab.hashing import mix64, py_mix64  # numba import: keep it off Spark workers

    ids = np.asarray(post_ids, dtype=np.int64)
    round_seed = seed if round_ == 0 else py_mix64(round_, seed)
    return ids[np.lexsort((ids, mix64(ids, round_seed)))]


def select_posts(post_ids: np.ndarray, n: int, seed: int) -> np.ndarray:
    """The post ids of ``n`` seeded random picks, without replacement while possible.

    The first ``len(post_ids)`` picks are a seeded permutation (:func:`hash_order`); if
    ``n`` exceeds the number of posts, further rounds repeat with fresh permutations, so
    every post is used ``floor`` or ``ceil`` of ``n / len(post_ids)`` times.
    """
    ids = _check_unique_ids(post_ids)
    if len(ids) == 0:
        raise BadInputError("posts: no post with at least one word to register")
    rounds = math.ceil(n / len(ids))
    picks = np.concatenate([hash_order(ids, seed, r) for r in range(rounds)])
    return picks[:n]


def tweet_subscriptions(
    posts: DataFrame | pd.DataFrame, n: int, seed: int = 0
) -> DataFrame | pd.DataFrame:
    """``n`` random posts registered as subscriptions (S3-TM Sect. 6.1, tweet-based).

    Posts whose word set is empty (or null) are excluded. The selection is
    :func:`select_posts` on the remaining post ids: seeded, reproducible, without
    replacement until every post has been used once. ``sub_id`` runs ``0..n-1`` in pick
    order. Accepts and returns a Spark or a pandas DataFrame (the same rows either way).
    """
    n = check_int("n", n, 1)
    seed = check_seed(seed)
    if isinstance(posts, pd.DataFrame):
        clean = _clean_words_pandas(posts)
        picks = select_posts(clean["post_id"].to_numpy(), n, seed)
        words = clean.set_index("post_id")["words"]
        return _frame(np.arange(n, dtype=np.int64), list(words.loc[picks]), "tweet", None)

    from pyspark.sql import functions as F

    clean = _clean_words_spark(_spark_posts(posts))
    ids = clean.select("post_id").toPandas()["post_id"].to_numpy()
    picks = select_posts(ids, n, seed)
    spark = clean.sparkSession
    chosen = spark.createDataFrame(pd.DataFrame({"sub_id": np.arange(n), "post_id": picks}))
    return chosen.join(clean, "post_id").select(
        F.col("sub_id").cast("long"),
        "words",
        F.lit("tweet").alias("kind"),
        F.lit(None).cast("int").alias("topic"),
    )


# --------------------------------------------------------------------------- topic model


@dataclass(frozen=True)
class TopicModel:
    """LDA topics for topic-based subscriptions (S3-TM Sect. 6.1).

    ``words[t]`` are topic ``t``'s top words (most probable first), ``probs[t]`` their
    probabilities P(word | topic), ``weights[t]`` the topic's share of the corpus (the mean
    of the posts' inferred topic proportions; sums to 1), ``params`` how it was fitted.
    """

    words: tuple[tuple[str, ...], ...]
    probs: tuple[tuple[float, ...], ...]
    weights: tuple[float, ...]
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.words:
            raise ValueError("a topic model needs at least one topic")
        if not (len(self.words) == len(self.probs) == len(self.weights)):
            raise ValueError("words, probs and weights must have one entry per topic")
        for t, (ws, ps) in enumerate(zip(self.words, self.probs, strict=True)):
            if not ws or len(ws) != len(ps):
                raise ValueError(f"topic {t}: needs words, one probability per word")
            if len(set(ws)) != len(ws):
                raise ValueError(f"topic {t}: duplicate words {ws}")
        if min(self.weights) < 0 or sum(self.weights) <= 0:
            raise ValueError("topic weights must be non-negative with a positive sum")

    @property
    def n_topics(self) -> int:
        return len(self.words)

    def to_frame(self) -> pd.DataFrame:
        """One row per (topic, word): ``topic``, ``rank`` (0 = top), ``word``, ``prob``,
        ``weight`` (the topic's corpus share)."""
        rows = [
            {"topic": t, "rank": r, "word": w, "prob": p, "weight": self.weights[t]}
            for t, (ws, ps) in enumerate(zip(self.words, self.probs, strict=True))
            for r, (w, p) in enumerate(zip(ws, ps, strict=True))
        ]
        frame = pd.DataFrame(rows)
        return frame.astype({"topic": "int32", "rank": "int32"})

    def save(self, path: str | Path) -> Path:
        """Write the model as JSON (``path`` is created or replaced)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f".{path.name}.{os.getpid()}.part")  # two runs may write it
        part.write_text(json.dumps(asdict(self), indent=1, default=_json_default))
        os.replace(part, path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> TopicModel:
        """Read a model written by :meth:`save`."""
        path = Path(path)
        try:
            data = json.loads(path.read_text())
            return cls(
                tuple(tuple(ws) for ws in data["words"]),
                tuple(tuple(float(p) for p in ps) for ps in data["probs"]),
                tuple(float(w) for w in data["weights"]),
                dict(data.get("params", {})),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise BadInputError(f"{path}: not a topic model file ({exc})") from None


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


class _PassProgress:
    """gensim training callback that advances a tqdm bar once per pass."""

    def __init__(self, bar: Any) -> None:
        self.bar = bar
        self.logger = None
        self.title = "pass"

    def __str__(self) -> str:
        return self.title

    def get_value(self, **_: Any) -> int:
        self.bar.update()
        return self.bar.n


def _collect_docs(
    posts: DataFrame | pd.DataFrame, max_posts: int | None, seed: int
) -> tuple[np.ndarray, list[list[str]]]:
    """Non-empty word sets in post_id order; at most ``max_posts``, picked by hash order."""
    if isinstance(posts, pd.DataFrame):
        clean = _clean_words_pandas(posts)
    else:
        clean = _clean_words_spark(_spark_posts(posts))
        if max_posts is not None:
            ids = clean.select("post_id").toPandas()["post_id"].to_numpy()
            keep = np.sort(select_posts(ids, min(max_posts, len(ids)), seed))
            spark = clean.sparkSession
            clean = clean.join(spark.createDataFrame(pd.DataFrame({"post_id": keep})), "post_id")
        clean = clean.toPandas()
    ids = _check_unique_ids(clean["post_id"].to_numpy())
    if max_posts is not None and len(ids) > max_posts:
        keep = np.sort(select_posts(ids, max_posts, seed))
        clean = clean[clean["post_id"].isin(keep)]
    clean = clean.sort_values("post_id")
    return clean["post_id"].to_numpy(), [list(w) for w in clean["words"]]


def fit_topics(
    posts: DataFrame | pd.DataFrame,
    n_topics: int = 100,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    words_per_topic: int = 5,
    passes: int = 5,
    iterations: int = 50,
    min_posts: int = 2,
    max_share: float = 0.5,
    seed: int = 0,
    max_posts: int | None = None,
    progress: bool = False,
    cache: bool = False,
) -> TopicModel:
    """Fit LDA on the posts' word sets and keep each topic's top words (S3-TM Sect. 6.1).

    The paper extracts 100 topics with Mallet (alpha = beta = 0.1) and takes 5 words per
    topic. Here gensim's ``LdaModel`` (online variational Bayes; see the module docstring)
    runs on the driver with symmetric priors ``alpha`` (document-topic) and ``eta = beta``
    (topic-word), ``random_state = seed``, single-threaded so the result is reproducible.

    Each post is a bag of words with count 1 per distinct word. The vocabulary drops words
    in fewer than ``min_posts`` posts (they cannot characterize a topic and only slow the
    fit) and words in more than ``max_share`` of the posts (ubiquitous words that survived
    stop-word removal would top every topic). ``max_posts`` fits on a deterministic sample
    (seeded hash order of post ids) for large corpora.

    Args:
        posts: Spark or pandas DataFrame with ``post_id`` and ``words``.
        n_topics: number of LDA topics.
        alpha, beta: Dirichlet priors of document-topic and topic-word distributions.
        words_per_topic: top words kept per topic.
        passes, iterations: gensim training passes over the corpus and E-step iterations.
        min_posts, max_share: vocabulary filter (see above).
        seed: gensim ``random_state`` and the ``max_posts`` sample.
        max_posts: fit on at most this many posts.
        progress: show a progress bar over the passes.
        cache: keep the fitted model in ``prepared_dir()/topic_models`` and return the kept
            one when the same documents are fitted with the same parameters again
            (:func:`topic_cache_path`). The fit is deterministic (one thread, ``seed``), so
            a kept model is the one a new fit would make: notebooks 02, 03, 04 and 13 fit
            the same 100 topics on the same bundled tweets, and only the first pays for it.
    """
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    from routelab.progress import tqdm

    n_topics = check_int("n_topics", n_topics, 1)
    words_per_topic = check_int("words_per_topic", words_per_topic, 1)
    passes = check_int("passes", passes, 1)
    iterations = check_int("iterations", iterations, 1)
    min_posts = check_int("min_posts", min_posts, 1)
    seed = check_seed(seed)
    alpha = check_float("alpha", alpha, 0.0, inclusive=False)
    beta = check_float("beta", beta, 0.0, inclusive=False)
    if not 0 < check_float("max_share", max_share) <= 1:
        raise ValueError(f"max_share must be in (0, 1], got {max_share!r}")
    if max_posts is not None:
        max_posts = check_int("max_posts", max_posts, 1)

    post_ids, docs = _collect_docs(posts, max_posts, seed)
    if not docs:
        raise BadInputError("posts: no post with at least one word to fit topics on")
    fit = dict(n_topics=n_topics, alpha=float(alpha), beta=float(beta),
               words_per_topic=words_per_topic, passes=passes, iterations=iterations,
               min_posts=min_posts, max_share=float(max_share), seed=seed)  # fmt: skip
    kept = topic_cache_path(post_ids, docs, fit) if cache else None
    if kept is not None and kept.exists():
        return TopicModel.load(kept)
    dictionary = Dictionary(docs)
    dictionary.filter_extremes(no_below=min_posts, no_above=max_share, keep_n=None)
    if len(dictionary) < words_per_topic:
        raise BadInputError(
            f"posts: only {len(dictionary)} words appear in >= {min_posts} posts and in "
            f"<= {max_share:.0%} of posts; need at least words_per_topic={words_per_topic}"
        )
    corpus = [bow for bow in (dictionary.doc2bow(d) for d in docs) if bow]
    bar = tqdm(total=passes, desc="LDA passes", disable=not progress, leave=False)
    try:
        lda = LdaModel(
            corpus=corpus,
            id2word=dictionary,
            num_topics=n_topics,
            alpha=float(alpha),
            eta=float(beta),
            passes=passes,
            iterations=iterations,
            random_state=seed,
            eval_every=None,
            chunksize=2000,
            callbacks=[_PassProgress(bar)],
        )
    finally:
        bar.close()
    gamma, _ = lda.inference(corpus)
    shares = gamma / gamma.sum(axis=1, keepdims=True)
    weights = shares.mean(axis=0)
    words, probs = [], []
    for t in range(n_topics):
        terms = lda.get_topic_terms(t, topn=words_per_topic)
        words.append(tuple(dictionary[i] for i, _ in terms))
        probs.append(tuple(float(p) for _, p in terms))
    params = {
        **fit,
        "n_posts": len(corpus),
        "vocab_size": len(dictionary),
        "first_post_id": int(post_ids[0]),
        "last_post_id": int(post_ids[-1]),
        "implementation": "gensim.LdaModel (online variational Bayes)",
    }
    model = TopicModel(tuple(words), tuple(probs), tuple(float(w) for w in weights), params)
    if kept is not None:
        model.save(kept)
    return model


#: bump when the fit changes in a way its parameters and documents do not show
TOPIC_CACHE_VERSION = 1


def topic_cache_path(post_ids: np.ndarray, docs: list[list[str]], fit: dict[str, Any]) -> Path:
    """Where :func:`fit_topics` keeps a model fitted on ``docs`` (the word lists in post_id
    order, as fitted: their word order decides the dictionary's ids) with the parameters
    ``fit``: ``prepared_dir()/topic_models/lda-<digest>.json``, the digest over the
    parameters, the gensim version, :data:`TOPIC_CACHE_VERSION`, the post ids and every word.
    Any change to the posts (another reading of the preprocessing, a subset) or to a
    parameter is another file."""
    import hashlib

    import gensim

    from routelab.paths import prepared_dir

    digest = hashlib.blake2b(digest_size=16)
    head = [TOPIC_CACHE_VERSION, gensim.__version__, sorted(fit.items()), len(docs)]
    digest.update(json.dumps(head).encode())
    digest.update(np.ascontiguousarray(np.asarray(post_ids, dtype=np.int64)).tobytes())
    digest.update("\x1e".join("\x1f".join(d) for d in docs).encode())
    return prepared_dir() / "topic_models" / f"lda-{digest.hexdigest()}.json"


# --------------------------------------------------------------------------- topic-based


def length_pmf(zipf_skew: float, max_len: int) -> np.ndarray:
    """P(length = k) for k = 1..max_len, ``∝ k**-zipf_skew`` (S3-TM: skew 0.5, lengths 1..5)."""
    return zipf_pmf(max_len, zipf_skew)


@dataclass(frozen=True)
class _TopicSubBlockFrame:
    """Block ``b`` of topic-based subscriptions: rows ``b*SUB_BLOCK ...`` (seeded per block)."""

    vocab: np.ndarray  # sorted distinct topic words (object array of str)
    table: np.ndarray  # (n_topics, max_words) ids into vocab, -1 padding
    topic_cdf: np.ndarray
    length_cdf: np.ndarray
    n: int
    seed: int

    def __call__(self, block: int) -> pd.DataFrame:
        lo = block * SUB_BLOCK
        sub_id = np.arange(lo, min(self.n, lo + SUB_BLOCK), dtype=np.int64)
        size = len(sub_id)
        rng = np.random.default_rng([self.seed, TAG_TOPIC_SUBS, block])
        topic = sample_cdf(rng, self.topic_cdf, size)
        length = sample_cdf(rng, self.length_cdf, size) + 1
        candidates = self.table[topic]  # (size, max_words)
        # a uniformly random subset of `length` words: the first `length` of a random order
        order_keys = rng.random(candidates.shape)
        order_keys[candidates < 0] = np.inf
        shuffled = np.take_along_axis(candidates, np.argsort(order_keys, axis=1), axis=1)
        keep = np.arange(candidates.shape[1]) < length[:, None]
        picked = np.where(keep, shuffled, np.iinfo(np.int64).max)
        picked.sort(axis=1)  # vocab ids are in lexicographic order of the words
        flat = picked[keep]  # after the sort each row starts with its `length` picks
        words = np.split(self.vocab[flat], np.cumsum(length)[:-1])
        return _frame(sub_id, words, "topic", topic.astype(np.int32))


def _topic_sub_frame(
    model: TopicModel, n: int, zipf_skew: float, max_len: int, topic_choice: str | None, seed: int
) -> _TopicSubBlockFrame:
    topic_choice = default_topic_choice() if topic_choice is None else topic_choice
    n = check_int("n", n, 1)
    seed = check_seed(seed)
    max_len = check_int("max_len", max_len, 1)
    zipf_skew = check_float("zipf_skew", zipf_skew, 0.0)
    if topic_choice not in TOPIC_CHOICES:
        raise ValueError(f"topic_choice must be one of {TOPIC_CHOICES}, got {topic_choice!r}")
    shortest = min(len(ws) for ws in model.words)
    if max_len > shortest:
        raise ValueError(
            f"max_len={max_len} exceeds the words of the smallest topic ({shortest}); "
            "fit more words per topic or lower max_len"
        )
    vocab = np.array(sorted({w for ws in model.words for w in ws}), dtype=object)
    index = {w: i for i, w in enumerate(vocab)}
    width = max(len(ws) for ws in model.words)
    table = np.full((model.n_topics, width), -1, dtype=np.int64)
    for t, ws in enumerate(model.words):
        table[t, : len(ws)] = [index[w] for w in ws]
    if topic_choice == "uniform":
        topic_cdf = np.arange(1, model.n_topics + 1, dtype=np.float64)
    else:
        topic_cdf = np.cumsum(np.asarray(model.weights, dtype=np.float64))
    length_cdf = zipf_cdf(max_len, zipf_skew)
    return _TopicSubBlockFrame(vocab, table, topic_cdf, length_cdf, n, seed)


def topic_subscriptions(
    model: TopicModel,
    n: int,
    *,
    zipf_skew: float = 0.5,
    max_len: int = 5,
    topic_choice: str | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """``n`` topic-based subscriptions (S3-TM Sect. 6.1), in-process.

    Each subscription picks a topic -- uniformly at random by default (the paper: "each
    subscription selects one topic", no weighting mentioned), or in proportion to the
    topics' corpus weights with ``topic_choice="weight"``; ``None``:
    :func:`default_topic_choice`, uniform unless the reading is flipped) -- then a length ``k`` in
    ``1..max_len`` with ``P(k) ∝ k**-zipf_skew`` (skew 0.5 in the paper), then ``k`` of the topic's words uniformly without replacement. Rows are
    generated in seeded blocks of :data:`SUB_BLOCK`, identical to
    :func:`topic_subscriptions_spark`.
    """
    frame = _topic_sub_frame(model, n, zipf_skew, max_len, topic_choice, seed)
    blocks = [frame(b) for b in range(math.ceil(frame.n / SUB_BLOCK))]
    return pd.concat(blocks, ignore_index=True)


def topic_subscriptions_spark(
    spark: SparkSession,
    model: TopicModel,
    n: int,
    *,
    zipf_skew: float = 0.5,
    max_len: int = 5,
    topic_choice: str | None = None,
    seed: int = 0,
    partitions: int | None = None,
) -> DataFrame:
    """:func:`topic_subscriptions` generated on Spark (same rows, any partition count)."""
    frame = _topic_sub_frame(model, n, zipf_skew, max_len, topic_choice, seed)
    return generate_blocks(spark, frame.n, SUB_BLOCK, frame, SUBSCRIPTION_SCHEMA, partitions)


# --------------------------------------------------------------------------- storage


def _frame(
    sub_id: np.ndarray, words: Sequence[Any], kind: str, topic: np.ndarray | None
) -> pd.DataFrame:
    topics = (
        pd.array([pd.NA] * len(sub_id), dtype="Int32")
        if topic is None
        else pd.array(topic, dtype="Int32")
    )
    return pd.DataFrame({"sub_id": sub_id, "words": list(words), "kind": kind, "topic": topics})


def write_subscriptions(
    df: DataFrame | pd.DataFrame, path: str | Path, *, overwrite: bool = False
) -> Path:
    """Write subscriptions (Spark or pandas) as a Parquet directory with the standard schema."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    prepare_output_dir(path, overwrite)
    if isinstance(df, pd.DataFrame):
        table = pa.table(
            {
                "sub_id": pa.array(df["sub_id"].to_numpy(dtype=np.int64)),
                "words": pa.array([list(w) for w in df["words"]], type=pa.list_(pa.string())),
                "kind": pa.array(df["kind"].astype(str).tolist(), type=pa.string()),
                "topic": pa.array(df["topic"].astype("Int32"), type=pa.int32(), from_pandas=True),
            }
        )
        path.mkdir(parents=True)
        pq.write_table(table, path / "part-00000.parquet")
        return path
    from pyspark.sql import functions as F

    df.select(
        F.col("sub_id").cast("long"),
        F.col("words").cast("array<string>"),
        F.col("kind").cast("string"),
        F.col("topic").cast("int"),
    ).write.parquet(str(path))
    return path


#: the subscriptions' Parquet directory inside the folder ``routelab s3tm subscriptions`` writes
SUBSCRIPTIONS_DIR = "subscriptions.parquet"


def read_subscriptions(
    path: str | Path, spark: SparkSession | None = None
) -> pd.DataFrame | DataFrame:
    """Read subscriptions written by :func:`write_subscriptions` (pandas, or Spark if given);
    ``path`` may also be the folder ``routelab s3tm subscriptions`` writes."""
    path = Path(path)
    if (path / SUBSCRIPTIONS_DIR).exists():
        path = path / SUBSCRIPTIONS_DIR
    if not path.exists():
        raise BadInputError(f"{path}: no such subscriptions directory")
    if spark is not None:
        df = spark.read.parquet(str(path))
        columns = df.columns
    else:
        try:
            df = pd.read_parquet(path)
        except Exception as exc:  # pyarrow's errors vary; one line for the user
            raise BadInputError(f"{path}: cannot read as Parquet: {exc}") from None
        columns = list(df.columns)
    missing = [c for c in ("sub_id", "words", "kind", "topic") if c not in columns]
    if missing:
        raise BadInputError(f"{path}: not a subscriptions table, missing {', '.join(missing)}")
    if spark is not None:
        return df
    df = df.sort_values("sub_id", ignore_index=True)
    df["words"] = [list(w) for w in df["words"]]
    df["topic"] = df["topic"].astype("Int32")
    return df


# --------------------------------------------------------------------------- pipeline


def build_subscriptions(
    posts_path: str | Path,
    out: str | Path,
    *,
    kind: str,
    n: int,
    seed: int = 0,
    n_topics: int = 100,
    words_per_topic: int = 5,
    zipf_skew: float = 0.5,
    max_len: int = 5,
    topic_choice: str | None = None,
    passes: int = 5,
    max_posts: int | None = None,
    overwrite: bool = False,
    spark: SparkSession | None = None,
    progress: bool = True,
    topics_path: str | Path | None = None,
) -> dict[str, Any]:
    """Read posts from Parquet, make ``n`` subscriptions of ``kind``, write them to ``out``.

    For ``kind="topic"`` the fitted topics are also saved to ``topics_path`` (default
    ``<out>.topics.json``; :meth:`TopicModel.save`). Returns a summary dict (counts, paths).
    """
    from routelab.spark import get_spark

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    out = Path(out)
    if out.exists() and not overwrite:
        raise BadInputError(f"{out}: already exists (pass overwrite=True / --overwrite)")
    session = spark or get_spark()
    posts = _spark_posts(posts_path, session)
    total = posts.count()
    usable = _clean_words_spark(posts).count()
    summary: dict[str, Any] = {
        "kind": kind,
        "n": n,
        "seed": seed,
        "posts": total,
        "posts_without_words": total - usable,
        "out": str(out),
    }
    if kind == "tweet":
        subs = tweet_subscriptions(posts, n, seed)
    else:
        model = fit_topics(
            posts,
            n_topics,
            words_per_topic=words_per_topic,
            passes=passes,
            seed=seed,
            max_posts=max_posts,
            progress=progress,
        )
        model_path = model.save(
            Path(topics_path) if topics_path else out.with_name(out.name + ".topics.json")
        )
        summary.update(
            topics_file=str(model_path),
            lda_posts=model.params["n_posts"],
            lda_vocabulary=model.params["vocab_size"],
        )
        subs = topic_subscriptions_spark(
            session,
            model,
            n,
            zipf_skew=zipf_skew,
            max_len=max_len,
            topic_choice=topic_choice,
            seed=seed,
        )
    write_subscriptions(subs, out, overwrite=overwrite)
    return summary
