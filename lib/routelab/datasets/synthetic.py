"""Seeded synthetic data at paper scale: topic-model tweets and skewed key streams.

Every generator is deterministic in ``(parameters, seed)`` and independent of the number
of Spark partitions: rows are produced in fixed-size *blocks* (:data:`KEY_BLOCK` keys,
:data:`POST_BLOCK` posts), and block ``b`` draws from ``numpy.random.default_rng([seed,
tag, b])``, where ``tag`` separates the generators. On Spark, ``spark.range(n_blocks)`` +
``mapInPandas`` turns each block id into its rows, so the same code reaches billions of
rows on a cluster; the in-process twins (:func:`keys_numpy`, :func:`topic_tweets_pandas`)
run the very same block function and return identical rows.

Generators
----------
- :func:`topic_tweets` -- word-set posts from a drifting topic model, the stand-in for
  S3-TM's 1M-tweet learning corpora (S3-TM Sect. 6.1, Table 1).
- :func:`zipf_keys` -- finite-support Zipf keys (PKG Sect. V, FISH Sect. 6.1 "ZF").
- :func:`lognormal_keys` -- PKG's log-normal datasets LN1 and LN2 (PKG Sect. V-A, Table I).
- :func:`time_evolving_zipf` -- FISH's time-evolving Zipf stream (FISH Sect. 6.1).
- :func:`keys_numpy` -- the key streams in-process, for the fast simulators.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from routelab.uniques import unique
import pandas as pd

from routelab.checks import check_float, check_int, check_seed
from routelab.readings import pick

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

KEY_BLOCK = 1 << 16
"""Keys per RNG block of the key streams (fixed: changing it changes every stream)."""

POST_BLOCK = 1 << 13
"""Posts per RNG block of :func:`topic_tweets` (fixed for the same reason)."""

# Stream tags: the second entry of every block's seed sequence, so two generators given the
# same seed draw unrelated numbers. The time-evolving Zipf shares the Zipf tag on purpose:
# its first period is exactly ``zipf_keys`` with the same seed.
TAG_ZIPF = 1
TAG_LOGNORMAL = 2
TAG_LOGNORMAL_WEIGHTS = 3
TAG_PERIOD_PERMUTATION = 4
TAG_TWEETS = 10
TAG_TWEET_MODEL = 11

LOGNORMAL_PARAMS: dict[str, tuple[float, float]] = {
    "LN1": (1.789, 2.366),
    "LN2": (2.245, 1.133),
}
"""(mu, sigma) of PKG's synthetic datasets (PKG Sect. V-A, from an Orkut analysis)."""

LOGNORMAL_KEYS: dict[str, int] = {"LN1": 16_000, "LN2": 1_100}
"""Number of keys of LN1/LN2 in PKG Table I (10M messages each)."""

WEEK_US = 7 * 24 * 3600 * 1_000_000
APRIL_2013_RATE = 979_442 / (30 * 24 * 3600)
"""Posts per second of S3-TM's sampled April 2013 corpus (Table 1: 979,442 tweets in 30 days)."""


# --------------------------------------------------------------------------- shared pieces


@lru_cache(maxsize=16)
def zipf_cdf(n: int, s: float) -> np.ndarray:
    """Cumulative weights ``sum_{k<=r} k**-s`` for ranks ``r = 1..n`` (not normalized).

    Sampling ``searchsorted(cdf, u * cdf[-1], side="right") + 1`` with ``u ~ U[0,1)`` gives
    rank ``r`` with probability exactly ``r**-s / H(n, s)`` (up to float64 rounding).
    Cached per process, so Spark workers build it once per (n, s).
    """
    cdf = np.cumsum(np.arange(1, n + 1, dtype=np.float64) ** -float(s))
    cdf.flags.writeable = False
    return cdf


def zipf_pmf(n: int, s: float) -> np.ndarray:
    """Probabilities of ranks ``1..n`` under the finite-support Zipf law ``P(r) ∝ r**-s``."""
    cdf = zipf_cdf(n, s)
    return np.diff(cdf, prepend=0.0) / cdf[-1]


def sample_cdf(rng: np.random.Generator, cdf: np.ndarray, size: int) -> np.ndarray:
    """Indices ``0..len(cdf)-1`` drawn with probabilities proportional to ``diff(cdf)``."""
    u = rng.random(size) * cdf[-1]
    return np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)


def generate_blocks(
    spark: SparkSession,
    n_rows: int,
    block_rows: int,
    make_block: Callable[[int], pd.DataFrame],
    schema: str,
    partitions: int | None = None,
) -> DataFrame:
    """A Spark DataFrame whose rows are ``make_block(0), make_block(1), ...``.

    ``spark.range(n_blocks)`` spreads the block ids over ``partitions`` tasks (default:
    the cluster's default parallelism) and ``mapInPandas`` calls ``make_block`` (a
    picklable callable of the block id) on the executors. Because the rows of a block
    depend only on its id, the result does not depend on ``partitions``.
    """
    n_blocks = max(1, math.ceil(n_rows / block_rows))
    if partitions is None:
        partitions = spark.sparkContext.defaultParallelism
    partitions = max(1, min(check_int("partitions", partitions, 1), n_blocks))

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            for block in batch["id"].to_numpy():
                yield make_block(int(block))

    return spark.range(0, n_blocks, 1, numPartitions=partitions).mapInPandas(run, schema)


def _concat_blocks(
    n_rows: int, block_rows: int, make_block: Callable[[int], Any], progress: bool, desc: str
) -> list[Any]:
    from routelab.progress import tqdm

    n_blocks = max(1, math.ceil(n_rows / block_rows))
    return [make_block(b) for b in tqdm(range(n_blocks), desc=desc, disable=not progress)]


_PARQUET_FILES = (".parquet", ".crc", "_SUCCESS")


def prepare_output_dir(path: Path, overwrite: bool) -> None:
    """Make room for a Parquet directory at ``path``.

    Raises :class:`~routelab.errors.BadInputError` if ``path`` exists and ``overwrite`` is
    false, or if it is a file or holds anything but Parquet parts (so a mistyped path
    never deletes user files); otherwise removes the old directory.
    """
    from routelab.errors import BadInputError

    path = Path(path)
    if not path.exists():
        return
    if not overwrite:
        raise BadInputError(f"{path}: already exists (pass overwrite=True / --overwrite)")
    if not path.is_dir():
        raise BadInputError(f"{path}: is a file, expected a Parquet directory")
    foreign = sorted(p.name for p in path.iterdir() if not p.name.endswith(_PARQUET_FILES))
    if foreign:
        raise BadInputError(
            f"{path}: refusing to overwrite a directory holding non-Parquet files "
            f"({', '.join(foreign[:3])})"
        )
    shutil.rmtree(path)


def write_parquet(df: DataFrame, path: str | Path, *, overwrite: bool = False) -> Path:
    """Write a Spark DataFrame as a Parquet directory (see :func:`prepare_output_dir`)."""
    path = Path(path)
    prepare_output_dir(path, overwrite)
    df.write.parquet(str(path))
    return path


# --------------------------------------------------------------------------- key streams


@dataclass(frozen=True)
class ZipfSpec:
    """Finite-support Zipf over keys ``1..n_keys``: ``P(k) ∝ k**-z`` (key = rank)."""

    n_keys: int
    z: float

    def __post_init__(self) -> None:
        check_int("n_keys", self.n_keys, 1)
        check_float("z", self.z, 0.0)

    def draw(self, rng: np.random.Generator, seq: np.ndarray, seed: int) -> np.ndarray:
        return sample_cdf(rng, zipf_cdf(self.n_keys, self.z), len(seq)).astype(np.int64) + 1


@dataclass(frozen=True)
class TimeEvolvingZipfSpec:
    """FISH's time-evolving Zipf: Zipf ranks whose key assignment changes every period.

    Tuple ``i`` lies in period ``p = i // shift_every`` and draws a rank ``r`` from
    :class:`ZipfSpec`. Period 0 uses ``key = r``. Later periods map ranks to keys by

    - ``offset`` given: a cyclic shift, ``key = (r - 1 + p * offset) mod n_keys + 1``
      (our reading of FISH Sect. 6.1, whose formula was lost from the text: "for the last
      20% of the tuples the occurrence probability obeys [a shifted Zipf] where [the
      shift] is 5M"; FISH's ZF is ``shift_every = 0.8 * n``, ``offset = 5_000_000``);
    - ``offset=None``: the hot keys are re-drawn, ``key = (a_p (r - 1) + b_p) mod n_keys
      + 1`` with ``a_p`` coprime to ``n_keys`` and ``b_p`` drawn from the seed and ``p``
      (a seeded affine permutation: every period is exactly Zipf over new hot keys).
    """

    n_keys: int
    z: float
    shift_every: int
    offset: int | None = None

    def __post_init__(self) -> None:
        check_int("n_keys", self.n_keys, 2)
        if self.n_keys > 2**31:
            raise ValueError(f"n_keys must be <= 2**31, got {self.n_keys}")
        check_float("z", self.z, 0.0)
        check_int("shift_every", self.shift_every, 1)
        if self.offset is not None:
            check_int("offset", self.offset, 0)

    def period_map(self, period: int, seed: int) -> tuple[int, int]:
        """``(a, b)`` of period ``period``: ``key = (a * (rank-1) + b) mod n_keys + 1``."""
        if period == 0:
            return 1, 0
        if self.offset is not None:
            return 1, (period * self.offset) % self.n_keys
        rng = np.random.default_rng([seed, TAG_PERIOD_PERMUTATION, period])
        while True:
            a = int(rng.integers(1, self.n_keys))
            if math.gcd(a, self.n_keys) == 1:
                break
        return a, int(rng.integers(0, self.n_keys))

    def draw(self, rng: np.random.Generator, seq: np.ndarray, seed: int) -> np.ndarray:
        ranks = ZipfSpec(self.n_keys, self.z).draw(rng, seq, seed) - 1
        periods = seq // self.shift_every
        keys = np.empty_like(ranks)
        for period in unique(periods):
            a, b = self.period_map(int(period), seed)
            mask = periods == period
            keys[mask] = (ranks[mask] * a + b) % self.n_keys + 1
        return keys


@lru_cache(maxsize=8)
def _lognormal_weight_cdf(mu: float, sigma: float, n_keys: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, TAG_LOGNORMAL_WEIGHTS])
    cdf = np.cumsum(np.exp(mu + sigma * rng.standard_normal(n_keys)))
    cdf.flags.writeable = False
    return cdf


@dataclass(frozen=True)
class LogNormalSpec:
    """PKG's log-normal key streams LN1/LN2 (PKG Sect. V-A).

    ``model="values"`` (default): every message's key is a log-normal sample rounded to the
    nearest integer, ``key = round(exp(mu + sigma * Z))``. This is the reading that
    reproduces PKG Table I: the most frequent key carries P(round(X) = 0) = 14.71% of LN1
    and P(round(X) = 3) = 7.01% of LN2, and 10M messages hold about 16.3k and 1.1k
    distinct keys (Table I: p1 = 14.71% / 7.01%, 16k / 1.1k keys).

    ``model="frequencies"``: ``n_keys`` keys (default Table I's 16k / 1.1k) get log-normal
    weights ``w_k = exp(mu + sigma * Z_k)`` (drawn once from the seed) and messages pick
    key ``k`` with probability ``w_k / sum(w)``; the key-frequency distribution is
    log-normal with log-sd ``sigma``. Table I's p1 values do not follow from this reading.
    """

    mu: float
    sigma: float
    model: str = "values"
    n_keys: int | None = None

    def __post_init__(self) -> None:
        check_float("mu", self.mu)
        check_float("sigma", self.sigma, 0.0)
        if self.model not in ("values", "frequencies"):
            raise ValueError(f"model must be 'values' or 'frequencies', got {self.model!r}")
        if self.model == "values" and self.n_keys is not None:
            raise ValueError("n_keys applies to model='frequencies' only")
        if self.model == "frequencies":
            if self.n_keys is None:
                raise ValueError("model='frequencies' needs n_keys")
            check_int("n_keys", self.n_keys, 1)

    def weight_cdf(self, seed: int) -> np.ndarray:
        """Cumulative log-normal key weights of the ``frequencies`` model (keys 1..n_keys)."""
        assert self.n_keys is not None
        return _lognormal_weight_cdf(self.mu, self.sigma, self.n_keys, seed)

    def draw(self, rng: np.random.Generator, seq: np.ndarray, seed: int) -> np.ndarray:
        if self.model == "values":
            x = np.exp(self.mu + self.sigma * rng.standard_normal(len(seq)))
            return np.rint(np.minimum(x, 2.0**62)).astype(np.int64)
        return sample_cdf(rng, self.weight_cdf(seed), len(seq)).astype(np.int64) + 1


KeySpec = ZipfSpec | TimeEvolvingZipfSpec | LogNormalSpec

_TAGS: dict[type, int] = {
    ZipfSpec: TAG_ZIPF,
    TimeEvolvingZipfSpec: TAG_ZIPF,
    LogNormalSpec: TAG_LOGNORMAL,
}


def lognormal_spec(
    which: str | tuple[float, float] = "LN1",
    model: str | None = None,
    n_keys: int | None = None,
) -> LogNormalSpec:
    """The :class:`LogNormalSpec` of ``"LN1"``, ``"LN2"`` or a custom ``(mu, sigma)``.

    ``model`` None: ``"values"``, or ``"frequencies"`` when the reading ``lognormal`` is
    flipped for the run (``ROUTELAB_READING=lognormal``, :mod:`routelab.readings`)."""
    model = pick("lognormal", "values", "frequencies") if model is None else model
    bad = f"which must be 'LN1', 'LN2' or a (mu, sigma) pair, got {which!r}"
    if isinstance(which, str):
        name = which.upper()
        if name not in LOGNORMAL_PARAMS:
            raise ValueError(bad)
        mu, sigma = LOGNORMAL_PARAMS[name]
        if model == "frequencies" and n_keys is None:
            n_keys = LOGNORMAL_KEYS[name]
    else:
        try:
            mu, sigma = (float(v) for v in which)
        except (TypeError, ValueError):
            raise ValueError(bad) from None
    return LogNormalSpec(mu, sigma, model, n_keys)


def key_spec(kind: str, **params: Any) -> KeySpec:
    """Build and validate a key-stream spec by name.

    ``kind``: ``"zipf"`` (``n_keys``, ``z``), ``"lognormal"`` (``which``, ``model``,
    ``n_keys``), ``"ln1"`` / ``"ln2"`` (``model``, ``n_keys``), ``"time_evolving_zipf"``
    (``n_keys``, ``z``, ``shift_every``, ``offset``).
    """
    name = kind.lower().replace("-", "_")
    try:
        if name == "zipf":
            return ZipfSpec(**params)
        if name == "time_evolving_zipf":
            return TimeEvolvingZipfSpec(**params)
        if name == "lognormal":
            return lognormal_spec(**params)
        if name in ("ln1", "ln2"):
            return lognormal_spec(name.upper(), **params)
    except TypeError as exc:  # unknown or missing keyword
        raise ValueError(f"bad parameters for key stream {kind!r}: {exc}") from None
    raise ValueError(
        f"unknown key stream {kind!r}; choose zipf, lognormal, ln1, ln2 or time_evolving_zipf"
    )


def _key_block(spec: KeySpec, n: int, seed: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    lo = block * KEY_BLOCK
    seq = np.arange(lo, min(n, lo + KEY_BLOCK), dtype=np.int64)
    rng = np.random.default_rng([seed, _TAGS[type(spec)], block])
    return seq, spec.draw(rng, seq, seed)


@dataclass(frozen=True)
class _KeyBlockFrame:
    spec: KeySpec
    n: int
    seed: int

    def __call__(self, block: int) -> pd.DataFrame:
        seq, keys = _key_block(self.spec, self.n, self.seed, block)
        return pd.DataFrame({"seq": seq, "key": keys})


def key_stream(
    spark: SparkSession, spec: KeySpec, n: int, seed: int = 0, *, partitions: int | None = None
) -> DataFrame:
    """``n`` keys of ``spec`` as a Spark DataFrame (``seq`` int64 = position, ``key`` int64)."""
    n = check_int("n", n, 1)
    seed = check_seed(seed)
    frame = _KeyBlockFrame(spec, n, seed)
    return generate_blocks(spark, n, KEY_BLOCK, frame, "seq long, key long", partitions)


def keys_numpy(
    kind: str | KeySpec, n: int, *, seed: int = 0, progress: bool = False, **params: Any
) -> np.ndarray:
    """The keys of a stream in-process: the same ``int64`` keys as the Spark generator.

    ``kind`` is a spec or a name for :func:`key_spec`, e.g.
    ``keys_numpy("zipf", 10**6, n_keys=10**4, z=1.2, seed=3)`` equals
    ``zipf_keys(spark, 10**6, 10**4, 1.2, seed=3)``'s ``key`` column in ``seq`` order.
    """
    spec = kind if isinstance(kind, KeySpec) else key_spec(kind, **params)
    if isinstance(kind, KeySpec) and params:
        raise ValueError("pass parameters either in the spec or as keywords, not both")
    n = check_int("n", n, 1)
    seed = check_seed(seed)
    parts = _concat_blocks(
        n, KEY_BLOCK, lambda b: _key_block(spec, n, seed, b)[1], progress, "keys"
    )
    return np.concatenate(parts)


def zipf_keys(
    spark: SparkSession,
    n: int,
    n_keys: int,
    z: float,
    seed: int = 0,
    *,
    partitions: int | None = None,
) -> DataFrame:
    """``n`` keys from a finite-support Zipf law over ``1..n_keys`` with exponent ``z``.

    ``P(key = k) = k**-z / sum_{j<=n_keys} j**-z``, sampled exactly by inverse CDF on the
    precomputed cumulative weights. The Zipf streams of PKG (Sect. V) and FISH's ZF
    (Sect. 6.1, exponent range 0.1..2) use this law. Columns ``seq``, ``key`` (int64).
    """
    return key_stream(spark, ZipfSpec(n_keys, z), n, seed, partitions=partitions)


def lognormal_keys(
    spark: SparkSession,
    n: int,
    which: str | tuple[float, float] = "LN1",
    *,
    model: str | None = None,
    n_keys: int | None = None,
    seed: int = 0,
    partitions: int | None = None,
) -> DataFrame:
    """PKG's log-normal key stream LN1 or LN2 (PKG Sect. V-A, Table I); see :class:`LogNormalSpec`.

    With ``n = 10_000_000`` and the default ``model="values"`` (None: the run's reading,
    :func:`lognormal_spec`) this reproduces Table I's
    LN1/LN2 (p1 = 14.71% / 7.01%; about 16k / 1.1k distinct keys). Keys are non-negative
    int64 (``model="values"``) or ``1..n_keys`` (``model="frequencies"``).
    """
    spec = lognormal_spec(which, model, n_keys)
    return key_stream(spark, spec, n, seed, partitions=partitions)


def time_evolving_zipf(
    spark: SparkSession,
    n: int,
    n_keys: int,
    z: float,
    *,
    shift_every: int,
    offset: int | None = None,
    seed: int = 0,
    partitions: int | None = None,
) -> DataFrame:
    """FISH's time-evolving Zipf stream (FISH Sect. 6.1); see :class:`TimeEvolvingZipfSpec`.

    Within each period of ``shift_every`` tuples the keys follow Zipf(``z``) over
    ``n_keys`` keys; between periods the key-to-rank assignment changes (cyclic shift by
    ``offset``, or a fresh seeded permutation when ``offset`` is None), so yesterday's hot
    keys turn cold. Period 0 equals :func:`zipf_keys` with the same seed.
    """
    spec = TimeEvolvingZipfSpec(n_keys, z, shift_every, offset)
    return key_stream(spark, spec, n, seed, partitions=partitions)


# --------------------------------------------------------------------------- topic tweets


@dataclass(frozen=True)
class TopicTweetParams:
    """Parameters of the topic-model tweet generator (see :func:`topic_tweets`).

    Attributes:
        n_posts: number of posts.
        vocab_size: words ``w1..w<vocab_size>``; ``w<r>`` has global Zipf rank ``r``.
        n_topics: planted topics.
        mean_words: mean word draws per post, ``1 + Poisson(mean_words - 1)``.
        max_words: cap on the word draws per post.
        zipf_s: Zipf exponent of the global vocabulary.
        topic_words: words per topic.
        topic_zipf: Zipf exponent of the word weights inside a topic.
        topic_skew: Zipf exponent of the topics' popularity in week 0.
        background: probability that a word draw ignores the topic (global vocabulary).
        drift: sd of the weekly random-walk step of each topic's log-popularity.
        start: time of post 0 (naive times are UTC).
        weeks: span of the posts in weeks (default 4 when ``rate_per_s`` is not given).
        rate_per_s: posts per second instead of ``weeks``.
    """

    n_posts: int
    vocab_size: int = 100_000
    n_topics: int = 100
    mean_words: float = 4.0
    max_words: int = 20
    zipf_s: float = 1.0
    topic_words: int = 1000
    topic_zipf: float = 1.0
    topic_skew: float = 1.0
    background: float = 0.3
    drift: float = 0.5
    start: str = "2013-04-01"
    weeks: float | None = None
    rate_per_s: float | None = None

    def __post_init__(self) -> None:
        check_int("n_posts", self.n_posts, 1)
        check_int("vocab_size", self.vocab_size, 1)
        check_int("n_topics", self.n_topics, 1)
        check_float("mean_words", self.mean_words, 1.0)
        check_int("max_words", self.max_words, 1)
        check_float("zipf_s", self.zipf_s, 0.0)
        check_int("topic_words", self.topic_words, 1)
        if self.topic_words > self.vocab_size:
            raise ValueError(
                f"topic_words ({self.topic_words}) must be <= vocab_size ({self.vocab_size})"
            )
        check_float("topic_zipf", self.topic_zipf, 0.0)
        check_float("topic_skew", self.topic_skew, 0.0)
        if not 0.0 <= check_float("background", self.background, 0.0) <= 1.0:
            raise ValueError(f"background must be in [0, 1], got {self.background}")
        check_float("drift", self.drift, 0.0)
        if self.weeks is not None and self.rate_per_s is not None:
            raise ValueError("give either weeks or rate_per_s, not both")
        if self.weeks is not None:
            check_float("weeks", self.weeks, 0.0, inclusive=False)
        if self.rate_per_s is not None:
            check_float("rate_per_s", self.rate_per_s, 0.0, inclusive=False)
        try:
            pd.Timestamp(self.start)
        except (TypeError, ValueError):
            raise ValueError(f"start must be a date/time, got {self.start!r}") from None

    @property
    def start_us(self) -> int:
        """Start as microseconds since the epoch (naive times are UTC)."""
        ts = pd.Timestamp(self.start)
        ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
        return int(ts.value // 1000)

    @property
    def step_us(self) -> float:
        """Microseconds between consecutive posts."""
        if self.rate_per_s is not None:
            return 1e6 / self.rate_per_s
        weeks = 4.0 if self.weeks is None else self.weeks
        return weeks * WEEK_US / self.n_posts

    @property
    def n_weeks(self) -> int:
        """Number of (started) weeks the posts span."""
        return int(math.floor((self.n_posts - 1) * self.step_us / WEEK_US)) + 1


@dataclass(frozen=True)
class TopicTweetModel:
    """The drawn model behind :func:`topic_tweets` (driver-built, shipped to the tasks)."""

    params: TopicTweetParams
    topic_word_ids: np.ndarray  # (n_topics, topic_words) int64 word ids (0-based ranks)
    popularity: np.ndarray  # (n_weeks, n_topics) float64 topic probabilities per week

    @property
    def week_cdf(self) -> np.ndarray:
        return np.cumsum(self.popularity, axis=1)


@lru_cache(maxsize=4)
def _vocabulary(vocab_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Word strings ``w1..wV`` (id ``i`` is global rank ``i+1``), their lexicographic rank,
    and the inverse (lexicographic position -> id)."""
    names = np.array([f"w{i + 1}" for i in range(vocab_size)], dtype=object)
    lex_to_id = np.argsort(names.astype(str), kind="stable")
    lex_rank = np.empty(vocab_size, dtype=np.int64)
    lex_rank[lex_to_id] = np.arange(vocab_size)
    return names, lex_rank, lex_to_id


def topic_tweet_model(params: TopicTweetParams, seed: int = 0) -> TopicTweetModel:
    """Draw the topics and their weekly popularity (deterministic in ``params`` and ``seed``).

    - Topic words: each topic takes ``topic_words`` distinct words, drawn without
      replacement with probability proportional to the global Zipf weight (so frequent
      words are shared by many topics, like general terms in real tweets), in a seeded
      random order; its ``j``-th word has within-topic weight ``(j+1)**-topic_zipf``.
    - Popularity: in week 0 the topics' log-popularity is ``-topic_skew * log(rank)`` for a
      seeded random ranking; every following week each log-popularity takes an independent
      N(0, ``drift``**2) step (a geometric random walk; ``drift=0`` is a stationary mix).
      Week ``w``'s popularity is the softmax of the log-popularities.
    """
    seed = check_seed(seed)
    rng = np.random.default_rng([seed, TAG_TWEET_MODEL])
    p = params
    global_p = zipf_pmf(p.vocab_size, p.zipf_s)
    topic_word_ids = np.empty((p.n_topics, p.topic_words), dtype=np.int64)
    for t in range(p.n_topics):
        chosen = rng.choice(p.vocab_size, size=p.topic_words, replace=False, p=global_p)
        topic_word_ids[t] = rng.permutation(chosen)
    ranks = rng.permutation(p.n_topics) + 1
    log_pop = np.empty((p.n_weeks, p.n_topics))
    log_pop[0] = -p.topic_skew * np.log(ranks)
    for week in range(1, p.n_weeks):
        log_pop[week] = log_pop[week - 1] + p.drift * rng.standard_normal(p.n_topics)
    popularity = np.exp(log_pop - log_pop.max(axis=1, keepdims=True))
    popularity /= popularity.sum(axis=1, keepdims=True)
    return TopicTweetModel(p, topic_word_ids, popularity)


@dataclass(frozen=True)
class _TweetBlockFrame:
    model: TopicTweetModel
    seed: int

    def __call__(self, block: int) -> pd.DataFrame:
        m, p = self.model, self.model.params
        lo = block * POST_BLOCK
        post_id = np.arange(lo, min(p.n_posts, lo + POST_BLOCK), dtype=np.int64)
        size = len(post_id)
        rng = np.random.default_rng([self.seed, TAG_TWEETS, block])
        offset_us = np.floor(post_id * p.step_us).astype(np.int64)
        week = np.minimum(offset_us // WEEK_US, p.n_weeks - 1)
        # topic by the current week's popularity
        u_topic = rng.random(size)
        topic = np.empty(size, dtype=np.int64)
        week_cdf = m.week_cdf
        for w in unique(week):
            mask = week == w
            topic[mask] = np.searchsorted(week_cdf[w], u_topic[mask] * week_cdf[w, -1], "right")
        topic = np.minimum(topic, p.n_topics - 1)
        # length: 1 + Poisson(mean - 1), capped; then that many draws (duplicates collapse)
        length = 1 + np.minimum(rng.poisson(p.mean_words - 1.0, size), p.max_words - 1)
        owner = np.repeat(np.arange(size), length)
        draws = len(owner)
        background = rng.random(draws) < p.background
        u_word = rng.random(draws)
        in_topic_cdf = zipf_cdf(p.topic_words, p.topic_zipf)
        vocab_cdf = zipf_cdf(p.vocab_size, p.zipf_s)
        slot = np.minimum(
            np.searchsorted(in_topic_cdf, u_word * in_topic_cdf[-1], "right"), p.topic_words - 1
        )
        word = m.topic_word_ids[topic[owner], slot]
        word[background] = np.minimum(
            np.searchsorted(vocab_cdf, u_word[background] * vocab_cdf[-1], "right"),
            p.vocab_size - 1,
        )
        # distinct words per post in lexicographic order of their strings
        names, lex_rank, lex_to_id = _vocabulary(p.vocab_size)
        combined = unique(owner.astype(np.int64) * p.vocab_size + lex_rank[word])
        post_of = combined // p.vocab_size
        word_names = names[lex_to_id[combined % p.vocab_size]]
        counts = np.bincount(post_of, minlength=size)
        words = np.split(word_names, np.cumsum(counts)[:-1])
        ts = pd.to_datetime(p.start_us + offset_us, unit="us", utc=True)
        return pd.DataFrame(
            {"post_id": post_id, "ts": ts, "words": words, "topic": topic.astype(np.int32)}
        )


_TWEET_SCHEMA = "post_id long, ts timestamp, words array<string>, topic int"


def topic_tweets(
    spark: SparkSession,
    n_posts: int,
    *,
    seed: int = 0,
    partitions: int | None = None,
    **params: Any,
) -> DataFrame:
    """Synthetic word-set posts from a drifting topic model (stand-in for S3-TM Table 1).

    Model (all seeded, see :func:`topic_tweet_model`): a global vocabulary of
    ``vocab_size`` words ``w1, w2, ...`` with Zipf(``zipf_s``) weights (``w1`` is the most
    frequent); ``n_topics`` topics, each a Zipf(``topic_zipf``)-weighted subset of
    ``topic_words`` words; topic popularity starts Zipf(``topic_skew``) and drifts as a
    weekly random walk in log-popularity with step sd ``drift``. Post ``i`` has timestamp
    ``start + i * step`` (``weeks`` span, default 4 weeks, or ``rate_per_s`` posts per
    second), picks a topic by its week's popularity and a length ``L = 1 +
    min(Poisson(mean_words - 1), max_words - 1)``, and makes ``L`` word draws, each from
    the global vocabulary with probability ``background`` and from its topic otherwise;
    the post is the set of drawn words (so it may hold fewer than ``L`` words).

    Defaults approximate the April 2013 corpus of S3-TM Table 1 (979k tweets, 100k
    distinct words, 3.87M word occurrences, 5.5M word pairs): 1M posts with the defaults
    and seed 0 have 3.89 words per post, 87.7k distinct words and 3.3M distinct
    co-occurring pairs (measured). ``mean_words=10.4`` and ``vocab_size=200_000``
    approximate the Sparse corpus.

    Returns columns ``post_id`` int64 (0..n_posts-1), ``ts`` timestamp (UTC),
    ``words`` array<string> (sorted, distinct), ``topic`` int32 (the planted topic).
    """
    p = TopicTweetParams(n_posts, **params)
    frame = _TweetBlockFrame(topic_tweet_model(p, seed), check_seed(seed))
    return generate_blocks(spark, p.n_posts, POST_BLOCK, frame, _TWEET_SCHEMA, partitions)


def topic_tweets_pandas(
    n_posts: int, *, seed: int = 0, progress: bool = False, **params: Any
) -> pd.DataFrame:
    """In-process twin of :func:`topic_tweets`: the same rows as a pandas DataFrame."""
    p = TopicTweetParams(n_posts, **params)
    frame = _TweetBlockFrame(topic_tweet_model(p, seed), check_seed(seed))
    parts = _concat_blocks(p.n_posts, POST_BLOCK, frame, progress, "posts")
    return pd.concat(parts, ignore_index=True)
