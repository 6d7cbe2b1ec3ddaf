"""Concept drift: a mapping learned on week 0, measured on later weeks (S3-TM Sect. 6.4, Fig. 7i-l).

The paper learns the word-to-matcher mapping on the tweets of week 0 and evaluates it on the
following weeks, "for each week we extracted new topics and created a new subscription set"
(100k topic-based subscriptions); it reports relative throughput, throughput, spread and
imbalance per week and observes that "while there is an initial decrease in throughput after
week 0, there is no decreasing trend afterwards".

Our reading, on the bundled real tweets (health news 2011-2015 + Trump 2009-2018):

- **windows** (:func:`equal_count_windows`): the posts with ``start <= ts < end`` in time order
  (``ts``, then ``post_id``) cut into ``n_windows`` windows of equal post count; "week" ``w``
  is window ``w``, "week 0" the first. Equal counts keep every window's metrics equally
  noisy; their time spans differ and every figure names them.
- **subscriptions per window** (:func:`window_topics_task`, one Spark task per window): LDA is
  refitted on the window's posts (:func:`routelab.corpus.subscriptions.fit_topics`, seeded) and
  topic-based subscriptions are drawn from its topics; the window's subscribed words W^s_w
  define which words route its posts (Eq. 1).
- **learning** (:func:`drift_task`, one Spark task per dataset x method x variant): the
  mapping is learned on window 0 only, either on all its words (``learn_on="all"``: the
  mapping knows every word of week 0, as the paper's explanation -- "learning that structure
  [of the spoken language] is sufficient" -- implies) or on the words subscribed in window 0
  (``learn_on="subscribed"``, as the cross-validation of notebook 03 does); words unseen at
  learning time use the hash fallback (Sect. 3.1).
- **measuring**: every window's posts are routed with that window's W^s and measured with
  Eqs. 2-6 (:func:`routelab.s3tm.metrics.route_metrics`); window 0 is measured in-sample, as
  in the paper (hence its "certain amount of overfitting").
- **the trend claim** (:func:`trend_tests`): a least-squares line through the metric of
  windows 1.. against the window index; the trend is "decreasing" when the slope is
  negative at one-sided significance ``alpha`` (t = slope / standard error, ``n - 2``
  degrees of freedom). The "drop" is week 0's value over the mean of the later windows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from routelab.readings import pick
from routelab.s3tm.lab.shared import add_relative_throughput
from routelab.s3tm.mappings import METHODS, learn_mapping
from routelab.s3tm.metrics import route_metrics
from routelab.s3tm.wordsets import Corpus

PAIR_KEYS = ("dataset", "learn_on", "n_matchers", "window", "seed")
"""One drift experiment: relative throughput compares the methods within the same dataset,
learning variant, N, window and seed (those a frame has)."""

DRIFT_METHODS = ("hash", "gFCL", "gNFCL", "SALB")
"""The methods of Fig. 7i-l."""

DRIFT_METRICS = ("relative_throughput", "throughput", "spread_routed", "imbalance")
"""The four panels of Fig. 7i-l (relative throughput, throughput, spread, imbalance)."""

LEARN_ON = ("all", "subscribed")
"""What the week-0 mapping is learned on (see the module docstring)."""


def default_learn_on() -> str:
    """The learning variant the claims and figures take when not told: ``"all"`` (our
    primary reading), or ``"subscribed"`` for a run with ``ROUTELAB_READING=drift``
    (:mod:`routelab.readings`)."""
    return pick("drift", "all", "subscribed")


# --------------------------------------------------------------------------- windows


def equal_count_windows(
    ts: Sequence[Any] | np.ndarray | pd.Series,
    n_windows: int,
    *,
    start: Any = None,
    end: Any = None,
    window_posts: int | None = None,
    post_ids: np.ndarray | None = None,
) -> np.ndarray:
    """Window number of every post (``-1`` = in no window).

    The posts with ``start <= ts < end`` (``None``: unbounded) are put in time order (ties by
    ``post_ids`` when given, else by position) and cut into ``n_windows`` consecutive windows
    of ``window_posts`` posts each (default: as many as fit equally, the remainder at the end
    is left out).

    Raises:
        ValueError: ``n_windows < 1``, or too few posts in the range for the windows.
    """
    if n_windows < 1:
        raise ValueError(f"n_windows must be >= 1, got {n_windows}")
    stamps = pd.to_datetime(pd.Series(np.asarray(ts)), utc=True)
    if stamps.isna().any():
        raise ValueError(f"{int(stamps.isna().sum())} posts have no timestamp")
    inside = np.ones(len(stamps), dtype=bool)
    if start is not None:
        inside &= (stamps >= pd.Timestamp(start, tz="UTC")).to_numpy()
    if end is not None:
        inside &= (stamps < pd.Timestamp(end, tz="UTC")).to_numpy()
    rows = np.flatnonzero(inside)
    tie = np.arange(len(stamps)) if post_ids is None else np.asarray(post_ids, dtype=np.int64)
    order = rows[np.lexsort((tie[rows], stamps.to_numpy(dtype="datetime64[ns]")[rows]))]
    size = len(order) // n_windows if window_posts is None else int(window_posts)
    if size < 1 or size * n_windows > len(order):
        raise ValueError(
            f"{len(order)} posts between {start} and {end} cannot fill {n_windows} windows"
            + (f" of {window_posts} posts" if window_posts is not None else "")
        )
    out = np.full(len(stamps), -1, dtype=np.int64)
    out[order[: size * n_windows]] = np.arange(size * n_windows) // size
    return out


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False)
class DriftData:
    """Posts cut into time windows, with each window's subscribed words.

    Attributes:
        name: dataset name (a column of every result row).
        corpus: the windowed posts in time order (all words).
        windows: window number of every post (row) of ``corpus``.
        subscribed: W^s of each window (from that window's topics).
        table: one row per window: ``window``, ``first``/``last`` timestamp, ``posts``,
            ``subscribed_words``, ``overlap_with_w0`` (Jaccard of W^s_w and W^s_0) and
            ``top_topics`` (the three largest topics' words).
        info: how the data was made.
    """

    name: str
    corpus: Corpus
    windows: np.ndarray
    subscribed: tuple[frozenset[str], ...]
    table: pd.DataFrame
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n_windows(self) -> int:
        """Number of windows."""
        return len(self.subscribed)

    def window(self, w: int, *, restrict: bool = True) -> Corpus:
        """The posts of window ``w``; restricted to W^s_w when ``restrict``."""
        if not 0 <= w < self.n_windows:
            raise ValueError(f"window {w} outside 0..{self.n_windows - 1}")
        posts = self.corpus.subset(self.windows == w)
        return posts.restrict(posts.word_mask(self.subscribed[w])) if restrict else posts


def window_topics_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One window's topics and subscribed words (a Spark task; Sect. 6.4 "for each week we
    extracted new topics and created a new subscription set").

    Params: ``window``, ``post_ids`` and ``words`` (the window's posts), ``n_topics``,
    ``lda_passes``, ``n_subscriptions``, ``seed``. Returns one row with ``subscribed`` (sorted
    W^s), ``top_topics`` (the three largest topics' words) and ``n_topics``.
    """
    from routelab.corpus.subscriptions import fit_topics, topic_subscriptions

    frame = pd.DataFrame({"post_id": params["post_ids"], "words": params["words"]})
    seed = int(params["seed"])
    model = fit_topics(
        frame, int(params["n_topics"]), passes=int(params["lda_passes"]), seed=seed, cache=True
    )
    subs = topic_subscriptions(model, int(params["n_subscriptions"]), seed=seed)
    subscribed = sorted({w for words in subs["words"] for w in words})
    largest = np.argsort(-np.asarray(model.weights), kind="stable")[:3]
    top = " | ".join(" ".join(model.words[t][:3]) for t in largest)
    return [{"subscribed": subscribed, "top_topics": top, "n_topics_fitted": model.n_topics}]


def drift_data(
    name: str,
    frame: pd.DataFrame,
    n_windows: int,
    *,
    start: Any = None,
    end: Any = None,
    window_posts: int | None = None,
    n_subscriptions: int = 100_000,
    n_topics: int = 100,
    lda_passes: int = 3,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
    info: dict[str, Any] | None = None,
) -> DriftData:
    """Cut ``frame`` (``post_id``, ``ts``, ``words``) into windows and fit each window's topics.

    The LDA fits run as one Spark task per window (:func:`routelab.sweep.run_grid`), or in
    this process with ``local=True``.
    """
    from routelab.sweep import run_grid

    missing = [c for c in ("post_id", "ts", "words") if c not in frame.columns]
    if missing:
        raise ValueError(f"posts frame lacks column(s) {missing}; it has {list(frame.columns)}")
    win = equal_count_windows(
        frame["ts"],
        n_windows,
        start=start,
        end=end,
        window_posts=window_posts,
        post_ids=frame["post_id"].to_numpy(),
    )
    kept = frame.assign(window=win)[win >= 0]
    kept = kept.sort_values(["ts", "post_id"], kind="stable", ignore_index=True)
    points = [
        {
            "window": w,
            "post_ids": part["post_id"].to_numpy(),
            "words": [list(x) for x in part["words"]],
            "n_topics": n_topics,
            "lda_passes": lda_passes,
            "n_subscriptions": n_subscriptions,
            "seed": seed,
        }
        for w, part in kept.groupby("window", sort=True)
    ]
    topics = run_grid(
        window_topics_task,
        points,
        spark=spark,
        local=local,
        desc="LDA per window",
        progress=progress,
    ).sort_values("window", ignore_index=True)
    subscribed = tuple(frozenset(s) for s in topics["subscribed"])
    corpus = Corpus.from_frame(kept[["post_id", "words"]])
    spans = kept.groupby("window", sort=True)["ts"].agg(["min", "max", "size"])
    table = pd.DataFrame(
        {
            "window": spans.index.to_numpy(),
            "first": spans["min"].to_numpy(),
            "last": spans["max"].to_numpy(),
            "posts": spans["size"].to_numpy(),
            "subscribed_words": [len(s) for s in subscribed],
            "overlap_with_w0": [_jaccard(s, subscribed[0]) for s in subscribed],
            "top_topics": topics["top_topics"].to_numpy(),
        }
    )
    details = {
        "windows": n_windows,
        "posts": corpus.n_posts,
        "left_out_posts": int(len(frame) - corpus.n_posts),
        "start": None if start is None else str(start),
        "end": None if end is None else str(end),
        "n_subscriptions": n_subscriptions,
        "n_topics": n_topics,
        "lda_passes": lda_passes,
        "seed": seed,
        **(info or {}),
    }
    return DriftData(name, corpus, kept["window"].to_numpy(), subscribed, table, details)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else float("nan")


def real_drift_data(
    spark: Any,
    n_windows: int = 10,
    *,
    start: Any = "2013-01-01",
    end: Any = "2015-05-01",
    window_posts: int | None = None,
    progress: bool = True,
    source: str | None = None,
    name: str = "tweets",
    **kwargs: Any,
) -> DriftData:
    """The bundled real tweets (:func:`routelab.corpus.corpora.bundled_posts`) between ``start`` and
    ``end`` in ``n_windows`` equal-count windows (other arguments: :func:`drift_data`).

    The default range is the period where health-news tweets arrive steadily (2013-01 to the
    end of that collection in 2015-04, with the Trump tweets of the same period).

    ``source`` keeps the posts of one source only (e.g. ``"healthtweets"``):
    the mixed windows' share of Trump tweets falls from 22-28 % (windows 0-1) to 7 % over
    the default range, so their drift is partly a change of corpus composition;
    single-source windows are not. The dataset is called ``name`` in every result row.

    Raises:
        ValueError: ``source`` names no source of the bundled tweets.
    """
    from pyspark.sql import functions as F

    from routelab.corpus.corpora import bundled_posts

    posts, _ = bundled_posts(spark, progress=progress)
    if start is not None:
        posts = posts.filter(F.col("ts") >= F.lit(pd.Timestamp(start).to_pydatetime()))
    if end is not None:
        posts = posts.filter(F.col("ts") < F.lit(pd.Timestamp(end).to_pydatetime()))
    if source is not None:
        known = sorted(r["source"] for r in posts.select("source").distinct().collect())
        if source not in known:
            raise ValueError(f"unknown source {source!r}; the bundled tweets have {known}")
        posts = posts.filter(F.col("source") == source)
    frame = posts.select("post_id", "ts", "words").toPandas()
    info = {
        "source": "bundled real tweets (health news + Trump)"
        if source is None
        else f"bundled real tweets, source {source} only"
    }
    return drift_data(
        name,
        frame,
        n_windows,
        start=start,
        end=end,
        window_posts=window_posts,
        spark=spark,
        progress=progress,
        info=info,
        **kwargs,
    )


def synthetic_drift_data(
    n_windows: int = 10,
    window_posts: int = 6000,
    *,
    drift: float = 0.5,
    seed: int = 0,
    progress: bool = True,
    **kwargs: Any,
) -> DriftData:
    """Synthetic topic-model posts whose topic popularity drifts week by week
    (:func:`routelab.datasets.synthetic.topic_tweets_pandas`, one week per window,
    ``drift`` = sd of the weekly log-popularity step); other arguments: :func:`drift_data`."""
    from routelab.datasets.synthetic import topic_tweets_pandas

    n = n_windows * window_posts
    frame = topic_tweets_pandas(n, seed=seed, weeks=float(n_windows), drift=drift)
    info = {"source": "synthetic topic-model posts", "drift": drift, "weeks": n_windows}
    return drift_data(
        "synthetic", frame, n_windows, seed=seed, progress=progress, info=info, **kwargs
    )


# --------------------------------------------------------------------------- experiment


def drift_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Learn on window 0, measure every window (one row per window).

    Params: ``data`` (:class:`DriftData` or its broadcast), ``method``, ``n_matchers``,
    ``learn_on`` (:data:`LEARN_ON`), ``split_hot``, ``seed``.
    """
    from routelab.s3tm.lab.shared import SharedData

    data: DriftData = params["data"]
    if isinstance(data, SharedData):
        data = data.value
    learn_on = params["learn_on"]
    if learn_on not in LEARN_ON:
        raise ValueError(f"learn_on must be one of {LEARN_ON}, got {learn_on!r}")
    train = data.window(0, restrict=learn_on == "subscribed")
    mapping = learn_mapping(
        train,
        int(params["n_matchers"]),
        params["method"],
        seed=int(params["seed"]),
        split_hot=bool(params["split_hot"]),
    )
    rows = []
    for w in range(data.n_windows):
        row = route_metrics(mapping, data.window(w)).as_dict()
        row.update(window=w, learn_seconds=mapping.info["learn_seconds"])
        rows.append(row)
    return rows


def run_drift(
    datasets: Sequence[DriftData],
    methods: Sequence[str] = DRIFT_METHODS,
    n_matchers: int = 16,
    learn_on: Sequence[str] = LEARN_ON,
    *,
    split_hot: bool = True,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Fig. 7i-l: dataset x learning variant x method as Spark tasks, one row per window.

    Returns the metrics of :meth:`~routelab.s3tm.metrics.RouteMetrics.as_dict` per
    (``dataset``, ``learn_on``, ``method``, ``window``) plus ``relative_throughput``
    (SALB = 1 in the same dataset, variant and window;
    :func:`~routelab.s3tm.lab.shared.add_relative_throughput` over :data:`PAIR_KEYS`).
    """
    from routelab.s3tm.lab.shared import SharedData
    from routelab.sweep import broadcast, run_grid

    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"unknown mapping method(s) {bad}; choose from {METHODS}")
    # SharedData: a broadcast handle that is not sent back with the grid point's parameters
    handles = {d.name: (d if local else SharedData(d.name, broadcast(d, spark))) for d in datasets}
    points = [
        {
            "dataset": d.name,
            "learn_on": variant,
            "method": method,
            "n_matchers": int(n_matchers),
            "split_hot": split_hot,
            "seed": seed,
        }
        for d in datasets
        for variant in learn_on
        for method in methods
    ]
    try:
        frame = run_grid(
            drift_task,
            [{**p, "data": handles[p["dataset"]]} for p in points],
            spark=spark,
            local=local,
            desc="drift",
            progress=progress,
        )
    finally:
        if not local:
            for handle in handles.values():
                handle.unpersist()
    frame = frame.drop(columns=["data"])
    frame = frame.sort_values(["dataset", "learn_on", "method", "window"], ignore_index=True)
    return add_relative_throughput(frame, PAIR_KEYS) if "SALB" in methods else frame


# --------------------------------------------------------------------------- trend test


@dataclass(frozen=True)
class SlopeTest:
    """Least-squares line ``y = a + slope * x`` with the slope's standard error and a one-sided
    t-test of ``slope < 0`` (``p`` = P(T_{n-2} <= t))."""

    slope: float
    stderr: float
    t: float
    p_decreasing: float
    n: int

    def decreasing(self, alpha: float = 0.05) -> bool:
        """Whether the slope is significantly negative at level ``alpha``."""
        return bool(self.p_decreasing < alpha)


def slope_test(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> SlopeTest:
    """Ordinary least squares slope of ``y`` on ``x`` and its one-sided test for a decrease.

    The standard error is ``sqrt(SSR / (n - 2) / Sxx)``. A perfect fit (zero residuals) has
    standard error 0: t is then ``-inf``/``+inf``/NaN by the slope's sign and p 0/1/NaN.

    Raises:
        ValueError: fewer than 3 points or all ``x`` equal.
    """
    from scipy import stats

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(x)
    if n != len(y) or n < 3:
        raise ValueError(f"need >= 3 (x, y) points of equal length, got {len(x)} and {len(y)}")
    sxx = float(np.sum((x - x.mean()) ** 2))
    if sxx == 0:
        raise ValueError("all x values are equal: no slope")
    slope = float(np.sum((x - x.mean()) * (y - y.mean())) / sxx)
    resid = y - (y.mean() + slope * (x - x.mean()))
    stderr = math.sqrt(float(np.sum(resid**2)) / (n - 2) / sxx)
    if stderr > 0:
        t = slope / stderr
        p = float(stats.t.cdf(t, df=n - 2))
    elif slope == 0:
        t, p = float("nan"), float("nan")
    else:
        t = math.copysign(float("inf"), slope)
        p = 0.0 if slope < 0 else 1.0
    return SlopeTest(slope, stderr, t, p, n)


def trend_tests(
    frame: pd.DataFrame, metric: str = "throughput", *, first: int = 1, alpha: float = 0.05
) -> pd.DataFrame:
    """Per dataset, learning variant and method: the drop after week 0 and the trend after it.

    Columns: ``week0`` (the metric in window 0), ``later_mean`` (mean over windows
    ``first..``), ``drop`` (= ``week0 / later_mean``), ``slope``, ``slope_se``, ``t``,
    ``p_decreasing`` (one-sided), ``relative_slope`` (slope / later_mean, per window) and
    ``decreasing`` (significantly negative slope at ``alpha``).
    """
    keys = [k for k in ("dataset", "learn_on", "method") if k in frame.columns]
    rows = []
    for key, part in frame.groupby(keys, sort=True):
        part = part.sort_values("window")
        later = part[part["window"] >= first]
        test = slope_test(later["window"], later[metric])
        week0 = float(part.loc[part["window"] == 0, metric].iloc[0])
        mean = float(later[metric].mean())
        rows.append(
            {
                **dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)),
                "week0": week0,
                "later_mean": mean,
                "drop": week0 / mean if mean else float("nan"),
                "slope": test.slope,
                "slope_se": test.stderr,
                "t": test.t,
                "p_decreasing": test.p_decreasing,
                "relative_slope": test.slope / mean if mean else float("nan"),
                "decreasing": test.decreasing(alpha),
                "windows_tested": test.n,
            }
        )
    return pd.DataFrame(rows)


def add_gain_over_hash(frame: pd.DataFrame) -> pd.DataFrame:
    """Add ``gain_over_hash`` = throughput / the hash mapping's throughput in the same
    dataset, variant and window. Hash learns nothing, so this ratio isolates what a learned
    mapping keeps of its advantage from changes of the workload itself (which move hash too)."""
    keys = [k for k in ("dataset", "learn_on", "n_matchers", "window", "seed") if k in frame]
    base = frame.loc[frame["method"] == "hash", [*keys, "throughput"]]
    out = frame.merge(base.rename(columns={"throughput": "_hash"}), on=keys, how="left")
    if out["_hash"].isna().any():
        raise ValueError("some windows have no hash row")
    out["gain_over_hash"] = out["throughput"] / out.pop("_hash")
    return out


LEARNED = ("gFCL", "gNFCL", "SALB")
"""The methods that learn from week 0 (hash does not)."""
