"""Fig. 7a-h: performance vs the number of subscriptions (S3-TM Sect. 6.3).

N = 16 matchers, subscriptions from 100 up to 10M (paper), tweet- and topic-based, mapping
methods hash, gFCL, gNFCL, SALB (and the others on request). Each grid point

1. takes the first ``n_subs`` subscriptions of one seeded stream per kind (nested sets:
   a larger workload adds subscriptions, it never swaps them). The tweet-based stream
   registers every real post once, in seeded random order; beyond the corpus size it goes
   on with synthetic topic-model posts (:func:`synthetic_subscriptions`)
   instead of repeating posts (``beyond="repeat"``, the old behaviour, kept as a labelled
   variant). Topic-based subscriptions are drawn from the LDA topics at every size (the
   paper's model: at most 31 word sets per topic, so they repeat by design);
2. learns the mapping on the training folds restricted to their subscribed words W^s
   (hot-word splitting on, Sect. 5.1);
3. places the subscriptions with LASP (cost function f from Fig. 3) or random anycast;
4. routes the held-out fold, matches it against every matcher's trie and measures the
   subscription-aware load (:mod:`routelab.s3tm.matching_load`): throughput (Eq. 6 with
   trie lookups as load), spread, imbalance.

Relative throughput divides by SALB's throughput in the same (kind, size, fold), as in
Sect. 6.2. Grid points run as Spark tasks (:func:`routelab.sweep.run_grid`) with the
dataset broadcast once.

The grid itself (:class:`~routelab.s3tm.lab.shared.ScalingData`,
:func:`~routelab.s3tm.lab.shared.run_scaling`, :func:`~routelab.s3tm.lab.shared.scaling_task`,
:func:`~routelab.s3tm.lab.shared.lookup_curves`) is in :mod:`routelab.s3tm.lab.shared`,
since notebook 03 runs it too; this module builds the subscription streams and reads the
results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.s3tm.lab.shared import KINDS, ScalingData, kfold_assignment
from routelab.s3tm.mappings import learn_mapping
from routelab.s3tm.matching_load import subscribed_mask, subscription_corpus
from routelab.s3tm.placement import place_subscriptions
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "Deployment",
    "advantage_note",
    "deployment",
    "losses_to",
    "method_ranking",
    "placement_gain",
    "throughput_drop",
    "BEYOND_CORPUS",
    "real_scaling_data",
    "scaling_data",
    "synthetic_subscriptions",
    "tweet_subscription_corpus",
    "tweet_subscription_stream",
]


BEYOND_CORPUS = ("synthetic", "repeat")
"""What the tweet-based stream registers once every real post is a subscription:
``"synthetic"`` posts of the topic-model generator (default) or ``"repeat"`` the real posts
in fresh seeded rounds (the old behaviour; at 1M subscriptions and 84k posts almost all are
duplicates)."""

SYNTHETIC_SEED_TAG = 0x5E17
"""Mixed into the seed of the synthetic subscriptions, so they do not share random draws
with the selection of real posts."""


def _tweet_picks(posts: Corpus, n: int, seed: int) -> np.ndarray:
    """Rows of ``posts`` picked by :func:`routelab.corpus.subscriptions.select_posts`
    (seeded, posts with words only; repeats in fresh rounds beyond the corpus)."""
    from routelab.corpus.subscriptions import select_posts

    nonempty = np.flatnonzero(posts.lengths() > 0)
    picks = select_posts(posts.post_ids[nonempty], n, seed)
    order = np.argsort(posts.post_ids)
    return order[np.searchsorted(posts.post_ids, picks, sorter=order)]


def tweet_subscription_corpus(posts: Corpus, n: int, seed: int = 0) -> Corpus:
    """Tweet-based subscriptions (Sect. 6.1) straight from the posts' CSR: the same picks
    as :func:`routelab.corpus.subscriptions.tweet_subscriptions` (seeded, posts with words only,
    ``sub_id`` 0..n-1), without materializing word lists. Beyond the number of posts the
    picks repeat posts (see :func:`tweet_subscription_stream` for the alternative)."""
    chosen = posts.subset(_tweet_picks(posts, n, seed))
    return Corpus(chosen.indptr, chosen.indices, posts.vocab, post_ids=np.arange(n))


def synthetic_subscriptions(
    posts: Corpus, n: int, seed: int = 0, **generator_params: Any
) -> Corpus:
    """``n`` synthetic tweet-based subscriptions in the vocabulary of ``posts``: posts of
    the topic-model generator (:func:`routelab.datasets.synthetic.topic_tweets_pandas`)
    with their words mapped onto the real words by frequency rank.

    Generator settings (overridable by ``generator_params``): ``vocab_size`` = the number
    of words occurring in ``posts``, ``mean_words`` = the posts' mean number of words,
    ``drift=0`` (a stationary topic mix: the stream is a set of subscriptions, not a
    time series), the other parameters the generator's defaults. Mapping: the synthetic
    words, ranked by how many generated subscriptions hold them (ties by generator id),
    take the real words ranked by document frequency in ``posts`` (ties by word id), rank
    for rank. So word popularity follows the real ranking while co-occurrence follows the
    generator's planted topics (not the real posts'; our reading of continuing the
    stream with the generator beyond the corpus). Rows are ``0..n-1``.
    """
    from routelab.datasets.synthetic import topic_tweets_pandas

    real_freq = posts.doc_freq()
    real_rank = np.lexsort((np.arange(len(real_freq)), -real_freq))
    real_rank = real_rank[real_freq[real_rank] > 0]
    if not len(real_rank):
        raise ValueError("no word occurs in the posts: nothing to map synthetic words onto")
    lengths = posts.lengths()
    params = {
        "vocab_size": len(real_rank),
        "mean_words": max(1.0, float(lengths[lengths > 0].mean())),
        "drift": 0.0,
        **generator_params,
    }
    if params["vocab_size"] > len(real_rank):
        raise ValueError(
            f"vocab_size {params['vocab_size']} exceeds the {len(real_rank)} real words"
        )
    params.setdefault("topic_words", min(1000, params["vocab_size"]))
    frame = topic_tweets_pandas(n, seed=seed, **params)
    counts = frame["words"].map(len).to_numpy()
    flat = np.concatenate(frame["words"].to_numpy()) if n else np.array([], dtype=str)
    synth = pd.Series(flat, dtype=str).str.slice(1).astype(np.int64).to_numpy() - 1
    synth_freq = np.bincount(synth, minlength=params["vocab_size"])
    synth_rank = np.lexsort((np.arange(len(synth_freq)), -synth_freq))
    to_real = np.empty(len(synth_freq), dtype=np.int64)
    to_real[synth_rank] = real_rank[: len(synth_freq)]
    owner = np.repeat(np.arange(n, dtype=np.int64), counts)
    words = to_real[synth]
    order = np.lexsort((words, owner))
    indptr = np.concatenate([[0], np.cumsum(counts)])
    return Corpus(indptr, words[order], posts.vocab, post_ids=np.arange(n))


def tweet_subscription_stream(
    posts: Corpus,
    n: int,
    seed: int = 0,
    *,
    beyond: str = "synthetic",
    generator: dict[str, Any] | None = None,
) -> tuple[Corpus, np.ndarray]:
    """``n`` tweet-based subscriptions and their origins.

    The first ``min(n, posts with words)`` are real posts in the seeded order of
    :func:`tweet_subscription_corpus` (every post at most once); the rest are
    :func:`synthetic_subscriptions` (``beyond="synthetic"``, seeded independently, with
    ``generator`` parameters) or further rounds of real posts (``beyond="repeat"``).

    Returns:
        (subscriptions with ``post_ids`` 0..n-1, origin of each: the id of the post it
        copies, -1 for a synthetic one).
    """
    if beyond not in BEYOND_CORPUS:
        raise ValueError(f"beyond={beyond!r}; choose from {BEYOND_CORPUS}")
    n_real = n if beyond == "repeat" else min(n, int(np.count_nonzero(posts.lengths())))
    rows = _tweet_picks(posts, n_real, seed)
    real = posts.subset(rows)
    origins = np.concatenate([posts.post_ids[rows], np.full(n - n_real, -1, dtype=np.int64)])
    if n_real == n:
        return Corpus(real.indptr, real.indices, posts.vocab, post_ids=np.arange(n)), origins
    from routelab.hashing import py_mix64

    synth_seed = py_mix64(seed, SYNTHETIC_SEED_TAG) >> 33
    synth = synthetic_subscriptions(posts, n - n_real, synth_seed, **(generator or {}))
    indptr = np.concatenate([real.indptr, real.indptr[-1] + synth.indptr[1:]])
    indices = np.concatenate([real.indices, synth.indices])
    return Corpus(indptr, indices, posts.vocab, post_ids=np.arange(n)), origins


def scaling_data(
    posts: Corpus,
    streams: dict[str, Corpus],
    n_folds: int = 10,
    seed: int = 0,
    info: dict[str, Any] | None = None,
    ts: np.ndarray | None = None,
    origins: dict[str, np.ndarray] | None = None,
) -> ScalingData:
    """Assign seeded folds (shuffled) and bundle the subscription streams (with the
    ``origins`` of :func:`tweet_subscription_stream`, when known)."""
    for kind, stream in streams.items():
        if stream.vocab[: posts.n_vocab] != posts.vocab:
            raise ValueError(f"{kind} subscriptions must extend the posts' vocabulary")
    origins = {k: np.asarray(v, dtype=np.int64) for k, v in (origins or {}).items()}
    for kind, origin in origins.items():
        if kind not in streams or len(origin) != streams[kind].n_posts:
            raise ValueError(f"origins of {kind!r} do not match its subscription stream")
    folds = kfold_assignment(posts.post_ids, n_folds, seed)
    if ts is not None and len(ts) != posts.n_posts:
        raise ValueError(f"{len(ts)} timestamps for {posts.n_posts} posts")
    return ScalingData(posts, folds, n_folds, dict(streams), dict(info or {}), ts, origins)


def real_scaling_data(
    spark: SparkSession,
    max_subs: int,
    *,
    kinds: Sequence[str] = KINDS,
    max_posts: int | None = None,
    n_topics: int = 100,
    lda_passes: int = 3,
    n_folds: int = 10,
    seed: int = 0,
    progress: bool = True,
    tweet_beyond: str = "synthetic",
    generator: dict[str, Any] | None = None,
) -> ScalingData:
    """The bundled real tweets with ``max_subs`` subscriptions per kind (Sect. 6.1).

    Tweet-based subscriptions: :func:`tweet_subscription_stream` (real posts, each once,
    then ``tweet_beyond``: synthetic ones with ``generator`` parameters, or repeats;
    notebook 04 passes its ``tweet_beyond`` parameter, which a run with
    ``ROUTELAB_READING=tweetrepeat`` sets to ``"repeat"``).
    Topic-based subscriptions use LDA on the same posts (cached by
    :func:`routelab.corpus.subscriptions.fit_topics`, ``cache=True``).
    """
    from routelab.corpus.corpora import bundled_posts
    from routelab.corpus.subscriptions import fit_topics, topic_subscriptions

    posts_df, _ = bundled_posts(spark, max_posts, progress=progress)
    frame = posts_df.select("post_id", "ts", "words").toPandas()
    frame = frame.sort_values(["ts", "post_id"], ignore_index=True)
    corpus = Corpus.from_frame(frame[["post_id", "words"]])
    streams: dict[str, Corpus] = {}
    origins: dict[str, np.ndarray] = {}
    for kind in kinds:
        if kind == "tweet":
            streams[kind], origins[kind] = tweet_subscription_stream(
                corpus, max_subs, seed, beyond=tweet_beyond, generator=generator
            )
        elif kind == "topic":
            model = fit_topics(
                frame[["post_id", "words"]],
                n_topics,
                passes=lda_passes,
                seed=seed,
                progress=progress,
                cache=True,
            )
            subs = topic_subscriptions(model, max_subs, seed=seed)
            streams[kind] = subscription_corpus(subs, corpus.vocab)
        else:
            raise ValueError(f"unknown subscription kind {kind!r}; choose from {KINDS}")
    info = {
        "source": "bundled real tweets",
        "posts": corpus.n_posts,
        "max_subs": max_subs,
        "n_topics": n_topics,
        "lda_passes": lda_passes,
        "tweet_beyond": tweet_beyond,
        "generator": dict(generator or {}),
    }
    from routelab.s3tm.streaming import epoch_ms

    return scaling_data(corpus, streams, n_folds, seed, info, epoch_ms(frame["ts"]), origins)


# --------------------------------------------------------------------------- experiments


@dataclass(frozen=True, eq=False)
class Deployment:
    """One learned and placed configuration, ready for the Spark dataflow."""

    mapping: Any
    placement: Any
    subs: Corpus
    posts: Corpus
    posts_frame: pd.DataFrame


def deployment(
    data: ScalingData,
    kind: str,
    n_subs: int,
    *,
    method: str = "SALB",
    placer: str = "LASP",
    fold: int = 0,
    n_matchers: int = 16,
    cost: Any = None,
    max_posts: int | None = None,
    seed: int = 0,
) -> Deployment:
    """Learn M on the training folds, place ``n_subs`` subscriptions, and take (at most
    ``max_posts``) held-out posts as the publications to stream, with their times."""
    subs = data.workload(kind, n_subs)
    train = data.posts.subset(data.folds != fold).restrict(subscribed_mask(subs, data.posts))
    mapping = learn_mapping(train, n_matchers, method, seed=seed, split_hot=True)
    placement = place_subscriptions(subs, mapping, placer, cost=cost, seed=seed)
    rows = np.flatnonzero(data.folds == fold)[: max_posts or None]
    posts = data.posts.subset(rows)
    ts = data.ts[rows] if data.ts is not None else np.full(len(rows), -1, dtype=np.int64)
    frame = pd.DataFrame({"post_id": posts.post_ids, "ts": ts, "words": posts.word_lists()})
    return Deployment(mapping, placement, subs, posts, frame)


# --------------------------------------------------------------------------- claims


def placement_gain(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (kind, n_subs, method): mean total lookups under LASP and random anycast and
    their ratio (``lasp_over_random`` < 1: LASP reduces the matching load)."""
    keys = ["kind", "n_subs", "method"]
    agg = frame.groupby([*keys, "placer"])["total_ops"].mean().unstack("placer")
    if not {"LASP", "random"} <= set(agg.columns):
        raise ValueError("need rows of both placers, LASP and random")
    out = agg[["LASP", "random"]].rename(columns={"LASP": "lasp_ops", "random": "random_ops"})
    out["lasp_over_random"] = out["lasp_ops"] / out["random_ops"]
    return out.reset_index()


def placement_label(frame: pd.DataFrame) -> pd.Series:
    """``placer``, with LASP's delta-load reading when it is the literal one
    (:data:`routelab.s3tm.lasp.COST_READINGS`): "LASP", "LASP (literal l)" or "random"."""
    reading = frame.get("cost_reading", pd.Series("slope", index=frame.index))
    literal = (frame["placer"] == "LASP") & (reading == "literal")
    return frame["placer"].where(~literal, "LASP (literal l)")


def reading_comparison(frame: pd.DataFrame) -> pd.DataFrame:
    """LASP's two readings of the delta load (Sect. 4.2) beside random
    anycast: per (kind, n_subs, placement) the means over folds of the total lookups, the
    imbalance and the unique words summed over the matchers' tries, and the total lookups
    over random anycast's."""
    keys = ["kind", "n_subs"]
    labelled = frame.assign(placement=placement_label(frame))
    cols = {"total_ops": "total lookups", "imbalance": "imbalance (max/avg)"}
    if "unique_words" in labelled:
        cols["unique_words"] = "unique words (all tries)"
    out = labelled.groupby([*keys, "placement"])[list(cols)].mean().reset_index()
    rand = out[out["placement"] == "random"].set_index(keys)["total_ops"]
    out["lookups / random"] = (
        out["total_ops"] / rand.reindex(pd.MultiIndex.from_frame(out[keys])).to_numpy()
    )
    out = out.rename(columns={**cols, "n_subs": "subscriptions"})
    order = {"LASP": 0, "LASP (literal l)": 1, "random": 2}
    return out.sort_values(
        ["kind", "subscriptions", "placement"],
        key=lambda c: c.map(order) if c.name == "placement" else c,
        ignore_index=True,
    )


def reading_summary(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`reading_comparison` in one row per (kind, subscriptions): total lookups over
    random anycast's and unique words in all tries, for LASP's slope-only and literal delta
    loads (random's unique words beside them)."""
    keys = ["kind", "subscriptions"]
    wide = table.pivot_table(
        index=keys, columns="placement", values=["lookups / random", "unique words (all tries)"]
    )
    short = {"LASP": "slope l", "LASP (literal l)": "literal l", "random": "random"}
    out = pd.DataFrame(index=wide.index)
    for placement in ("LASP", "LASP (literal l)"):
        out[f"lookups / random, {short[placement]}"] = wide[("lookups / random", placement)]
    for placement in ("LASP", "LASP (literal l)", "random"):
        out[f"unique words, {short[placement]}"] = wide[("unique words (all tries)", placement)]
    return out.reset_index()


def throughput_drop(frame: pd.DataFrame, start: int, method: str = "SALB") -> pd.DataFrame:
    """Per kind: throughput at ``start`` subscriptions over throughput at the largest size
    (``drop`` > 1: how many times throughput fell), mean over folds, for ``method``."""
    sel = frame[(frame["method"] == method) & (frame.get("placer", "LASP") == "LASP")]
    mean = sel.groupby(["kind", "n_subs"])["throughput"].mean().reset_index()
    rows = []
    for kind, part in mean.groupby("kind"):
        part = part.set_index("n_subs")["throughput"]
        if start not in part.index:
            raise ValueError(f"no {kind} rows at {start} subscriptions")
        last = int(part.index.max())
        rows.append({"kind": kind, "from": start, "to": last, "drop": part[start] / part[last]})
    return pd.DataFrame(rows)


def method_ranking(summary: pd.DataFrame, metric: str = "relative_throughput") -> pd.DataFrame:
    """Per (kind, n_subs): the best method on ``metric`` (mean over folds), SALB's value and
    the best other method's value."""
    sel = summary[summary["metric"] == metric]
    rows = []
    for (kind, n), part in sel.groupby(["kind", "n_subs"]):
        part = part.set_index("method")["mean"]
        others = part.drop("SALB", errors="ignore")
        rows.append(
            {
                "kind": kind,
                "n_subs": int(n),
                "best": part.idxmax(),
                "SALB": float(part.get("SALB", np.nan)),
                "best_other": others.idxmax() if len(others) else None,
                "best_other_value": float(others.max()) if len(others) else np.nan,
                "hash": float(part.get("hash", np.nan)),
            }
        )
    return pd.DataFrame(rows)


def advantage_note(summary: pd.DataFrame, method: str = "SALB") -> str:
    """Why ``method`` is not the best everywhere: in how many workloads another method has
    the higher relative throughput, and the range of that method's spread and imbalance
    relative to ``method``'s there (empty if ``method`` is best everywhere)."""
    means = summary.pivot_table(
        index=["kind", "n_subs", "method"], columns="metric", values="mean"
    ).reset_index()
    spread, imb, winners = [], [], []
    for _, part in means.groupby(["kind", "n_subs"]):
        part = part.set_index("method")
        best = part["relative_throughput"].idxmax()
        if best == method or method not in part.index:
            continue
        winners.append(best)
        spread.append(part.loc[best, "spread"] / part.loc[method, "spread"])
        imb.append(part.loc[best, "imbalance"] / part.loc[method, "imbalance"])
    if not winners:
        return ""
    counts = pd.Series(winners).value_counts().to_dict()
    return (
        f"{method} is beaten in {len(winners)} of {means.groupby(['kind', 'n_subs']).ngroups} "
        f"workloads (by {counts}); there the winner's spread is {min(spread):.2f}-"
        f"{max(spread):.2f}x and its imbalance {min(imb):.2f}-{max(imb):.2f}x {method}'s"
    )


def losses_to(rank: pd.DataFrame, other: str = "hash") -> str:
    """Workloads of a :func:`method_ranking` frame where SALB's relative throughput is not
    above ``other``'s, as ``kind n_subs (ratio)``; empty if none."""
    bad = rank[rank["SALB"] <= rank[other]]
    return ", ".join(f"{r.kind} {r.n_subs:,} ({r.SALB / r[other]:.3f})" for _, r in bad.iterrows())
