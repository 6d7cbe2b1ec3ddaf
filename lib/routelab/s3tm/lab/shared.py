"""The scaffolding notebooks 03-06 share (``routing/``, ``matching/``, ``drift/``,
``shedding/`` import it; none of them imports another).

- folds: :func:`kfold_assignment` / :func:`kfold_splits` -- a seeded stable-hash shuffle of
  the post ids, then contiguous folds whose sizes differ by at most one ("All experiments
  are performed using tenfold cross-validation", Sect. 6). Folds must be made over shuffled
  posts: on drifting data, learning on early posts and testing on later ones measures
  drift, not the mapping (``shuffle=False`` keeps the given order for that);
- subscriptions: :data:`KINDS`, :func:`make_subscriptions` (tweet- and topic-based,
  Sect. 6.1), :func:`subscribed_word_set` (W^s);
- :class:`SharedData`: a grid point's handle on a broadcast dataset (notebooks 03, 05);
- :func:`add_relative_throughput` (SALB = 1 in the same experiment, Sect. 6.2; each
  notebook names its experiment keys: :data:`SCALING_KEYS` here, the routing and drift
  keys in their packages) and :func:`summarize` (mean and standard deviation over folds);
- the Fig. 7 grid (S3-TM Sect. 6.3; notebook 04, and 03's Fig. 5 under Fig. 7's
  trie-lookup load): :class:`ScalingData` (posts with folds plus one subscription stream per
  kind), :func:`run_scaling` / :func:`scaling_task` (kind x n_subs x method x placer x
  fold as Spark tasks), :func:`lookup_curve` / :func:`lookup_curves` (Fig. 3's points). The
  streams themselves are built in :mod:`routelab.s3tm.lab.matching.scaling`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.hashing import mix64
from routelab.s3tm.lasp import CostFunction
from routelab.s3tm.mappings import METHODS, learn_mapping
from routelab.s3tm.matching_load import matching_load, subscribed_mask
from routelab.s3tm.placement import PLACERS, place_subscriptions
from routelab.s3tm.wordsets import Corpus
from routelab.uniques import unique

if TYPE_CHECKING:
    from routelab.corpus.subscriptions import TopicModel


# --------------------------------------------------------------------------- folds and subscriptions


KINDS = ("tweet", "topic")
"""Subscription workloads of Sect. 6.1: tweet-based and topic-based."""


def seeded_order(keys: np.ndarray, seed: int) -> np.ndarray:
    """Positions ``0..n-1`` of ``keys`` in a seeded pseudo-random order.

    Sorted by the stable 64-bit hash :func:`routelab.hashing.mix64` of each key (never
    Python's salted ``hash()``), ties by key then position; the same in every process.
    """
    keys = np.asarray(keys, dtype=np.int64)
    return np.lexsort((np.arange(len(keys)), keys, mix64(keys, seed)))


def kfold_assignment(
    post_ids: np.ndarray, n_folds: int, seed: int = 0, *, shuffle: bool = True
) -> np.ndarray:
    """Fold number (``0..n_folds-1``) of every post, for k-fold cross-validation.

    The posts are put in :func:`seeded_order` of their ids (``shuffle=True``) or kept in the
    given order (``shuffle=False``, e.g. time order to measure drift) and cut into
    ``n_folds`` contiguous folds whose sizes differ by at most one. A post's fold depends
    only on its id, the number of posts and the seed.

    Raises:
        ValueError: fewer posts than folds, ``n_folds < 2`` or duplicate post ids.
    """
    post_ids = np.asarray(post_ids, dtype=np.int64)
    n = len(post_ids)
    if n_folds < 2:
        raise ValueError(f"n_folds must be >= 2, got {n_folds}")
    if n < n_folds:
        raise ValueError(f"{n} posts cannot be split into {n_folds} folds")
    if len(unique(post_ids)) != n:
        raise ValueError("post ids must be unique to assign folds")
    order = seeded_order(post_ids, seed) if shuffle else np.arange(n)
    folds = np.empty(n, dtype=np.int32)
    folds[order] = (np.arange(n, dtype=np.int64) * n_folds // n).astype(np.int32)
    return folds


def kfold_splits(
    post_ids: np.ndarray, n_folds: int, seed: int = 0, *, shuffle: bool = True
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train_rows, test_rows)`` for each fold (sorted row numbers); see
    :func:`kfold_assignment`."""
    folds = kfold_assignment(post_ids, n_folds, seed, shuffle=shuffle)
    return [(np.flatnonzero(folds != f), np.flatnonzero(folds == f)) for f in range(n_folds)]


def subscribed_word_set(subscriptions: Any) -> frozenset[str]:
    """W^s of a subscriptions table (``words`` column of lists) or of word lists."""
    lists = subscriptions["words"] if isinstance(subscriptions, pd.DataFrame) else subscriptions
    return frozenset(w for words in lists for w in words if w)


def make_subscriptions(
    posts: pd.DataFrame,
    kinds: Sequence[str],
    n_subscriptions: int,
    seed: int = 0,
    *,
    topic_model: TopicModel | None = None,
) -> dict[str, pd.DataFrame]:
    """Tweet-based (random posts) and topic-based (topic words) subscriptions, Sect. 6.1.

    Args:
        posts: ``post_id``, ``words``.
        kinds: a subset of :data:`KINDS`.
        n_subscriptions: subscriptions per kind.
        seed: selection seed.
        topic_model: required for ``"topic"`` (LDA topics or a generator's planted topics).
    """
    from routelab.corpus.subscriptions import topic_subscriptions, tweet_subscriptions

    out: dict[str, pd.DataFrame] = {}
    for kind in kinds:
        if kind == "tweet":
            out[kind] = tweet_subscriptions(posts[["post_id", "words"]], n_subscriptions, seed)
        elif kind == "topic":
            if topic_model is None:
                raise ValueError("topic-based subscriptions need a topic model")
            out[kind] = topic_subscriptions(topic_model, n_subscriptions, seed=seed)
        else:
            raise ValueError(f"unknown subscription kind {kind!r}; choose from {KINDS}")
    return out


# --------------------------------------------------------------------------- grid handles and summaries


class SharedData:
    """A grid point's handle on a broadcast dataset.

    It travels to the executors with the point's parameters. :func:`routelab.sweep.run_grid`
    also returns every point's parameters to the driver, and an executor cannot pickle a
    Spark ``Broadcast``; this handle then pickles as an empty placeholder (the driver
    drops it), so large data stays broadcast once and never travels back.
    """

    def __init__(self, name: str, handle: Any = None) -> None:
        self.name = name
        self._handle = handle

    @property
    def value(self) -> Any:
        """The dataset (loaded once per executor process by Spark)."""
        if self._handle is None:
            raise RuntimeError(f"the broadcast handle of {self.name!r} was detached")
        return self._handle.value

    def unpersist(self) -> None:
        """Drop the executors' copies."""
        if self._handle is not None:
            self._handle.unpersist()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        on_driver = getattr(self._handle, "_jbroadcast", None) is not None
        return SharedData, (self.name, self._handle if on_driver else None)


def add_relative_throughput(
    frame: pd.DataFrame, keys: Sequence[str], baseline: str = "SALB"
) -> pd.DataFrame:
    """Add ``relative_throughput`` = throughput / the ``baseline`` method's throughput in the
    same experiment, Sect. 6.2: SALB = 1. An experiment is one combination of those of
    ``keys`` the frame has (each notebook names its own: :data:`SCALING_KEYS`,
    :data:`routelab.s3tm.lab.routing.summary.PAIR_KEYS`,
    :data:`routelab.s3tm.lab.drift.experiments.PAIR_KEYS`).

    Raises:
        ValueError: some experiment has no ``baseline`` row.
    """
    keys = [k for k in keys if k in frame.columns]
    base = frame.loc[frame["method"] == baseline, [*keys, "throughput"]]
    base = base.rename(columns={"throughput": "_base"})
    out = frame.merge(base, on=keys, how="left", validate="many_to_one")
    missing = out["_base"].isna()
    if missing.any():
        first = out.loc[missing, keys].iloc[0].to_dict()
        raise ValueError(f"{int(missing.sum())} rows lack a {baseline} baseline, e.g. {first}")
    out["relative_throughput"] = out["throughput"] / out.pop("_base")
    return out


def summarize(
    frame: pd.DataFrame,
    metrics: Sequence[str],
    by: Sequence[str] = ("dataset", "kind", "method", "n_matchers"),
) -> pd.DataFrame:
    """Mean and standard deviation (over folds / repeats) of each metric, tidy.

    Returns columns ``by`` + ``metric``, ``mean``, ``std`` (sample std, 0 for a single
    value), ``n``.
    """
    by = [b for b in by if b in frame.columns]
    present = [m for m in metrics if m in frame.columns]
    long = frame.melt(id_vars=by, value_vars=present, var_name="metric", value_name="value")
    out = long.groupby([*by, "metric"], sort=True)["value"].agg(["mean", "std", "count"])
    out = out.rename(columns={"count": "n"}).reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


# --------------------------------------------------------------------------- the Fig. 7 grid


SCALING_KEYS = ("kind", "n_subs", "placer", "fold", "n_matchers")
"""One Fig. 7 experiment: relative throughput compares the methods within the same kind,
size, placer, fold and N."""

FIG7_METHODS = ("hash", "gFCL", "gNFCL", "SALB")


@dataclass(frozen=True, eq=False)
class ScalingData:
    """Posts with folds plus one subscription stream per kind (the largest workload).

    Attributes:
        posts: all publications.
        folds: fold of every post (:func:`kfold_assignment`).
        n_folds: number of folds.
        streams: kind -> subscriptions (a :class:`Corpus` sharing ``posts.vocab``), in
            stream order; workload n is the first n rows.
        info: how the data was made.
        ts: post times (epoch ms, aligned with ``posts``; -1 unknown), for stream replays.
        origins: kind -> per subscription the id of the post it copies, -1 for a synthetic
            one (kinds without an entry, e.g. topic-based, are not copies of posts).
    """

    posts: Corpus
    folds: np.ndarray
    n_folds: int
    streams: dict[str, Corpus]
    info: dict[str, Any] = field(default_factory=dict)
    ts: np.ndarray | None = None
    origins: dict[str, np.ndarray] = field(default_factory=dict)

    def synthetic_from(self, kind: str) -> int | None:
        """Position of the first synthetic subscription in ``kind``'s stream (workloads
        larger than it hold synthetic ones); None if the stream has none."""
        origin = self.origins.get(kind)
        if origin is None or not (origin < 0).any():
            return None
        return int(np.argmax(origin < 0))

    def data_line(self, sizes: Sequence[int], kind: str = "tweet") -> str:
        """The start of a figure's data line for workloads of ``sizes``: "real: <source>",
        or "semi-synthetic: <source>; tweet subs > <n> synthetic" when a size holds
        synthetic subscriptions ("real: <source>; tweet subs > <n> repeat posts" for the
        repeat variant)."""
        source = self.info.get("source", "posts")
        start = self.synthetic_from(kind)
        if start is not None and max(sizes, default=0) > start:
            return f"semi-synthetic: {source}; {kind} subs > {start:,} synthetic"
        n_posts = int(np.count_nonzero(self.posts.lengths()))
        origin = self.origins.get(kind)
        if origin is not None and max(sizes, default=0) > n_posts:
            return f"real: {source}; {kind} subs > {n_posts:,} repeat posts"
        return f"real: {source}"

    def synthetic_count(self, kind: str, n_subs: int) -> int:
        """Synthetic subscriptions among the first ``n_subs`` of ``kind``."""
        start = self.synthetic_from(kind)
        return 0 if start is None else max(0, int(n_subs) - start)

    def describe(self, sizes: Sequence[int] = ()) -> pd.DataFrame:
        """Per kind and workload size: subscriptions, how many of them are synthetic,
        distinct word sets, mean length, subscribed words |W^s| and the share of posts
        holding a subscribed word."""
        rows = []
        for kind, stream in self.streams.items():
            for n in sorted({*sizes, stream.n_posts}):
                if n > stream.n_posts:
                    continue
                subs = self.workload(kind, n)
                mask = subscribed_mask(subs, self.posts)
                routed = np.bincount(
                    np.repeat(np.arange(self.posts.n_posts), self.posts.lengths()),
                    weights=mask[self.posts.indices],
                    minlength=self.posts.n_posts,
                )
                rows.append(
                    {
                        "kind": kind,
                        "subscriptions": n,
                        "synthetic": self.synthetic_count(kind, n),
                        "distinct word sets": _distinct_sets(subs),
                        "mean length": float(subs.lengths().mean()),
                        "subscribed words": int(mask.sum()),
                        "posts with a subscribed word": float((routed > 0).mean()),
                    }
                )
        return pd.DataFrame(rows)

    def workload(self, kind: str, n_subs: int) -> Corpus:
        """The first ``n_subs`` subscriptions of ``kind``."""
        stream = self.streams[kind]
        if not 1 <= n_subs <= stream.n_posts:
            raise ValueError(f"{n_subs} {kind} subscriptions requested, {stream.n_posts} made")
        return stream.subset(np.arange(n_subs))


def _distinct_sets(corpus: Corpus) -> int:
    """Distinct word sets, by a 64-bit set hash (sum of per-word hashes; collisions are
    astronomically unlikely at these sizes)."""
    from routelab.hashing import mix64

    if corpus.nnz == 0:
        return int(corpus.n_posts > 0)
    word_hash = mix64(corpus.indices.astype(np.int64), 7)
    row = np.repeat(np.arange(corpus.n_posts), corpus.lengths())
    sums = np.zeros(corpus.n_posts, dtype=np.uint64)
    np.add.at(sums, row, word_hash)
    return int(len(unique(sums)))


class _OnData:
    """A grid task bound to the (broadcast) dataset. The handle travels inside the task,
    not in the parameters, because a result row carries its parameters back to the driver
    and a broadcast cannot be pickled on an executor."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __call__(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        data = self.handle.value if hasattr(self.handle, "value") else self.handle
        return scaling_task({**params, "data": data})


def scaling_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One Fig. 7 grid point. Params: ``data`` (:class:`ScalingData`), ``kind``,
    ``n_subs``, ``method``, ``placer``, ``fold``, ``n_matchers``, ``cost``
    (slope, intercept, LASP's delta-load reading), ``split_hot``, ``seed``, ``capacity``."""
    data: ScalingData = params["data"]
    t0 = time.perf_counter()
    subs = data.workload(params["kind"], int(params["n_subs"]))
    mask = subscribed_mask(subs, data.posts)
    fold = int(params["fold"])
    train = data.posts.subset(data.folds != fold).restrict(mask)
    test = data.posts.subset(data.folds == fold)
    mapping = learn_mapping(
        train,
        int(params["n_matchers"]),
        params["method"],
        seed=int(params["seed"]),
        split_hot=bool(params["split_hot"]),
    )
    t1 = time.perf_counter()
    placement = place_subscriptions(
        subs, mapping, params["placer"], cost=params["cost"], seed=int(params["seed"])
    )
    t2 = time.perf_counter()
    load = matching_load(mapping, placement, subs, test, capacity=float(params["capacity"]))
    t3 = time.perf_counter()
    row = load.as_dict()
    row.update(
        synthetic_subs=data.synthetic_count(params["kind"], int(params["n_subs"])),
        subscribed_words=int(mask.sum()),
        n_hot=mapping.info["n_hot"],
        multicast_subs=placement.category_counts()["all_hot"],
        learn_seconds=t1 - t0,
        place_seconds=t2 - t1,
        match_seconds=t3 - t2,
        loads=load.ops.tolist(),
        cost_reading=CostFunction.of(params["cost"]).reading,
    )
    return [row]


def run_scaling(
    data: ScalingData,
    sizes: Sequence[int],
    methods: Sequence[str] = FIG7_METHODS,
    kinds: Sequence[str] = KINDS,
    *,
    n_matchers: int = 16,
    folds: Sequence[int] = (0,),
    placers: Sequence[str] = ("LASP",),
    cost: Any = None,
    split_hot: bool = True,
    capacity: float = 1e6,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """The Fig. 7 grid (kind x n_subs x method x placer x fold) as Spark tasks.

    Returns one row per point: the parameters, :meth:`MatchingLoad.as_dict` metrics, timings
    and per-matcher ``loads``; plus ``relative_throughput`` (see
    :func:`add_relative_throughput`) when SALB is among the methods.
    """
    from routelab.sweep import broadcast, run_grid

    bad = [m for m in methods if m not in METHODS]
    bad += [p for p in placers if p not in PLACERS]
    bad += [k for k in kinds if k not in data.streams]
    if bad:
        raise ValueError(f"unknown method(s), placer(s) or kind(s): {bad}")
    f = CostFunction.of(cost)
    points = [
        {
            "kind": kind,
            "n_subs": int(n),
            "method": method,
            "placer": placer,
            "fold": int(fold),
            "n_matchers": int(n_matchers),
            "split_hot": bool(split_hot),
            "seed": int(seed),
            "cost": (f.slope, f.intercept, f.reading),
            "capacity": float(capacity),
        }
        for kind in kinds
        for n in sizes
        for method in methods
        for placer in placers
        for fold in folds
    ]
    # big workloads first: better packing of the cores
    points.sort(key=lambda p: -p["n_subs"])
    handle = data if local else broadcast(data, spark)
    try:
        frame = run_grid(
            _OnData(handle),
            points,
            spark=spark,
            local=local,
            desc="Fig. 7 grid",
            progress=progress,
        )
    finally:
        if not local:
            handle.unpersist()
    frame = frame.drop(columns=["cost"])
    frame = frame.sort_values(
        ["kind", "n_subs", "method", "placer", "fold"], kind="stable", ignore_index=True
    )
    return add_relative_throughput(frame, SCALING_KEYS) if "SALB" in set(methods) else frame


def lookup_curves(
    data: ScalingData,
    sizes: Sequence[int],
    *,
    n_matchers: int = 16,
    fold: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Fig. 3 points for every kind (:func:`lookup_curve`),
    publications = the held-out ``fold``."""

    test = data.posts.subset(data.folds == fold)
    parts = []
    for kind, stream in data.streams.items():
        usable = [n for n in sizes if n <= stream.n_posts]
        curve = lookup_curve(test, stream, usable, n_matchers, seed=seed)
        parts.append(curve.assign(kind=kind))
    return pd.concat(parts, ignore_index=True)


def lookup_curve(
    posts: Corpus,
    subs: Corpus,
    sizes: Sequence[int],
    n_matchers: int = 16,
    *,
    seed: int = 0,
) -> pd.DataFrame:
    """Fig. 3 data: per matcher, unique words in its trie vs lookups per publication.

    For each size n the first n subscriptions are placed on ``n_matchers`` matchers by
    random anycast under the hash mapping (no cost model needed, so the curve that defines
    f does not depend on f), and ``posts`` are routed and matched. Each matcher gives one
    point: ``unique_words`` = |H(i)|, ``ops_per_pub`` = L(i) / publications routed to i.
    """
    from routelab.s3tm.mappings import learn_mapping

    rows = []
    for n in sizes:
        if not 1 <= n <= subs.n_posts:
            raise ValueError(f"size {n} outside 1..{subs.n_posts}")
        part = subs.subset(np.arange(n))
        mapping = learn_mapping(part, n_matchers, "hash", seed=seed)
        placement = place_subscriptions(part, mapping, "random", seed=seed)
        load = matching_load(mapping, placement, part, posts)
        for i in range(n_matchers):
            if load.pubs[i] == 0:
                continue
            rows.append(
                {
                    "n_subs": int(n),
                    "matcher": i,
                    "unique_words": int(load.unique_words[i]),
                    "subs_on_matcher": int(placement.subs_per_matcher()[i]),
                    "pubs": int(load.pubs[i]),
                    "ops": int(load.ops[i]),
                    "ops_per_pub": float(load.ops[i] / load.pubs[i]),
                }
            )
    return pd.DataFrame(rows)
