"""Workloads for evaluating word-to-matcher mappings (S3-TM Sects. 6, 6.1): posts,
subscriptions and cross-validation folds (the folds and subscription builders themselves,
:func:`~routelab.s3tm.lab.shared.kfold_assignment` and
:func:`~routelab.s3tm.lab.shared.make_subscriptions`, are in :mod:`routelab.s3tm.lab.shared`).

- :class:`CVData`: a dataset restricted to each subscription kind's subscribed words W^s
  (only they route a post, Eq. 1), with its folds; built by :func:`real_cv_data` (the
  bundled real tweets with tweet- and topic-based subscriptions, Sect. 6.1),
  :func:`synthetic_cv_data` or :func:`cv_data`; :func:`source_cv_data` makes one dataset
  per source of the real posts (health-news tweets, one account).
- :class:`CurveData`: a shuffled learning pool and a fixed test set of synthetic posts for
  the learning-corpus-size sweep (Fig. 6) and the learning-time sweep (Fig. 9); built by
  :func:`synthetic_curve_data`, or over the real posts' CV folds by :func:`curve_from_cv`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.corpus.corpora import real_posts_frame
from routelab.hashing import py_mix64
from routelab.s3tm.lab.shared import (
    KINDS,
    kfold_assignment,
    make_subscriptions,
    seeded_order,
    subscribed_word_set,
)
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


ALL_WORDS = "all"
"""Key of the unrestricted corpus in :attr:`CurveData.corpora` (every word subscribed)."""


# --------------------------------------------------------------------------- folds


# --------------------------------------------------------------------------- workloads


@dataclass(frozen=True, eq=False)
class CVData:
    """One dataset prepared for k-fold cross-validation.

    Attributes:
        name: dataset name (a column of every result row).
        corpora: subscription kind -> the posts restricted to that kind's W^s (every post is
            kept, possibly empty: a post without subscribed words goes nowhere, Eq. 1).
        folds: fold number of every post (row), from :func:`kfold_assignment`.
        n_folds: number of folds.
        info: how the dataset was made (sizes, subscription parameters, seed).
    """

    name: str
    corpora: dict[str, Corpus]
    folds: np.ndarray
    n_folds: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The subscription kinds available."""
        return tuple(self.corpora)

    def split(self, kind: str, fold: int) -> tuple[Corpus, Corpus]:
        """(learning posts, held-out posts) of ``fold`` under subscription kind ``kind``."""
        if kind not in self.corpora:
            raise KeyError(f"dataset {self.name!r} has no {kind!r} subscriptions")
        if not 0 <= fold < self.n_folds:
            raise ValueError(f"fold {fold} outside 0..{self.n_folds - 1}")
        corpus = self.corpora[kind]
        return corpus.subset(self.folds != fold), corpus.subset(self.folds == fold)

    def describe(self) -> pd.DataFrame:
        """One row per subscription kind: posts, words, subscribed words, routable posts."""
        rows = []
        for kind, corpus in self.corpora.items():
            freq = corpus.doc_freq()
            rows.append(
                {
                    "dataset": self.name,
                    "kind": kind,
                    "posts": corpus.n_posts,
                    "subscribed words in posts": int(np.count_nonzero(freq)),
                    "posts with a subscribed word": int(np.count_nonzero(corpus.lengths())),
                    "subscribed word occurrences": corpus.nnz,
                    "folds": self.n_folds,
                    "held-out posts per fold": int(np.bincount(self.folds).min()),
                }
            )
        return pd.DataFrame(rows)


def cv_data(
    name: str,
    corpus: Corpus,
    subscribed: Mapping[str, Iterable[str]],
    n_folds: int = 10,
    seed: int = 0,
    *,
    shuffle: bool = True,
    info: dict[str, Any] | None = None,
) -> CVData:
    """Restrict ``corpus`` to each kind's subscribed words and assign folds.

    Args:
        name: dataset name.
        corpus: all posts.
        subscribed: kind -> W^s (an iterable of words).
        n_folds, seed, shuffle: see :func:`kfold_assignment`.
        info: extra description kept in :attr:`CVData.info`.
    """
    corpora = {kind: corpus.restrict(corpus.word_mask(words)) for kind, words in subscribed.items()}
    folds = kfold_assignment(corpus.post_ids, n_folds, seed, shuffle=shuffle)
    details = {
        "posts": corpus.n_posts,
        "vocabulary": corpus.n_vocab,
        "seed": seed,
        "subscribed_words": {k: len(set(w)) for k, w in subscribed.items()},
        **(info or {}),
    }
    return CVData(name, corpora, folds, n_folds, details)


def real_cv_from_frame(
    frame: pd.DataFrame,
    name: str = "tweets",
    *,
    kinds: Sequence[str] = KINDS,
    n_subscriptions: int = 10_000,
    n_topics: int = 100,
    lda_passes: int = 3,
    n_folds: int = 10,
    seed: int = 0,
    all_words: bool = False,
    keep_subscriptions: bool = False,
    progress: bool = True,
    info: dict[str, Any] | None = None,
) -> CVData:
    """Real posts (``post_id``, ``words``) with tweet- and topic-based subscriptions, ready
    for CV (Sect. 6.1); topic-based subscriptions use LDA topics fitted on these posts
    (:func:`routelab.corpus.subscriptions.fit_topics`, ``n_topics`` topics, 5 words each).

    ``all_words=True`` also keeps the unrestricted posts under :data:`ALL_WORDS` (every word
    subscribed; for the learning-time sweep of Fig. 9 on real data); ``keep_subscriptions``
    keeps the subscriptions (kind -> ``sub_id``, ``words`` frame) in ``info["subscriptions"]``
    (for the trie-lookup load of :mod:`routelab.s3tm.lab.routing.load`).
    """
    corpus = Corpus.from_frame(frame[["post_id", "words"]])
    model = None
    if "topic" in kinds:
        from routelab.corpus.subscriptions import fit_topics

        model = fit_topics(
            frame, n_topics, passes=lda_passes, seed=seed, progress=progress, cache=True
        )
    subs = make_subscriptions(frame, kinds, n_subscriptions, seed, topic_model=model)
    details = {
        "source": "bundled real tweets",
        "words_per_post": corpus.nnz / max(corpus.n_posts, 1),
        "n_subscriptions": n_subscriptions,
        "n_topics": n_topics if model is not None else None,
        "lda_passes": lda_passes if model is not None else None,
        "corpus_issues": dict(corpus.issues),
        **(info or {}),
    }
    subscribed = {kind: subscribed_word_set(s) for kind, s in subs.items()}
    if keep_subscriptions:
        details["subscriptions"] = subs
    data = cv_data(name, corpus, subscribed, n_folds, seed, info=details)
    if all_words:
        data.corpora[ALL_WORDS] = corpus
    return data


def real_cv_data(
    spark: SparkSession,
    *,
    max_posts: int | None = None,
    progress: bool = True,
    **params: Any,
) -> CVData:
    """The bundled real tweets with tweet- and topic-based subscriptions, ready for CV.

    Posts come from :func:`real_posts_frame` (``max_posts``: the first posts in time order);
    the rest is :func:`real_cv_from_frame` (dataset name ``"tweets"``), which takes
    ``params`` (``kinds``, ``n_subscriptions``, ``n_topics``, ``lda_passes``, ``n_folds``,
    ``seed``, ``all_words``, ``keep_subscriptions``).
    """
    frame = real_posts_frame(spark, max_posts, progress=progress)
    return real_cv_from_frame(frame, "tweets", progress=progress, **params)


def source_subscriptions(n_subscriptions: int, n_source: int, n_union: int) -> int:
    """Subscriptions per kind for one source: the union's ``n_subscriptions`` scaled by the
    source's share of the posts (the same subscriptions-per-post ratio, Sect. 6.1: 100k per
    1M learning posts), at least 1.

    Raises:
        ValueError: sizes are not positive or the source exceeds the union.
    """
    if n_union < 1 or not 1 <= n_source <= n_union:
        raise ValueError(f"source of {n_source} posts out of a union of {n_union}")
    return max(1, round(n_subscriptions * n_source / n_union))


def source_cv_data(
    frame: pd.DataFrame,
    sources: Sequence[str] | None = None,
    *,
    n_subscriptions: int = 10_000,
    n_folds: int = 10,
    name: str = "tweets",
    **params: Any,
) -> list[CVData]:
    """Each source of the real posts (``source`` column: health-news tweets, one account)
    as its own dataset (the paper reports the geometric mean over its
    datasets, Sect. 6.2), named ``"<name>:<source>"``.

    Each gets its own subscriptions (tweet-based from its posts, topics fitted on its posts)
    at the union's subscriptions-per-post ratio (:func:`source_subscriptions`) and its own
    ``n_folds`` folds; ``params`` go to :func:`real_cv_from_frame`.

    Raises:
        ValueError: a requested source has no posts.
    """
    present = sorted(frame["source"].unique())
    chosen = present if sources is None else list(sources)
    missing = [s for s in chosen if s not in present]
    if missing:
        raise ValueError(f"no posts from source(s) {missing}; the posts have {present}")
    out = []
    for source in chosen:
        part = frame[frame["source"] == source].reset_index(drop=True)
        n_subs = source_subscriptions(n_subscriptions, len(part), len(frame))
        out.append(
            real_cv_from_frame(
                part,
                f"{name}:{source}",
                n_subscriptions=n_subs,
                n_folds=n_folds,
                info={"data_source": source},
                **params,
            )
        )
    return out


def curve_from_cv(data: CVData, test_fold: int = 0, name: str | None = None) -> CurveData:
    """A :class:`CurveData` over a CV dataset (Figs. 6 and 9 on real posts): fold
    ``test_fold`` is the fixed test set, the other folds (in seeded random order) the
    learning pool, so the largest learning corpus is a whole CV learning set. Corpora are
    shared with ``data`` (its kinds, and :data:`ALL_WORDS` if it has them)."""
    if not 0 <= test_fold < data.n_folds:
        raise ValueError(f"fold {test_fold} outside 0..{data.n_folds - 1}")
    seed = int(data.info.get("seed", 0))
    any_corpus = next(iter(data.corpora.values()))
    pool = np.flatnonzero(data.folds != test_fold)
    pool = pool[seeded_order(any_corpus.post_ids[pool], seed)]
    return CurveData(
        name or data.name,
        dict(data.corpora),
        np.flatnonzero(data.folds == test_fold),
        pool,
        seed,
        {**data.info, "test_fold": test_fold},
    )


def planted_topic_model(n_posts: int, seed: int = 0, *, words_per_topic: int = 5, **params: Any):
    """The planted topics of :func:`routelab.datasets.synthetic.topic_tweets` as a
    :class:`~routelab.corpus.subscriptions.TopicModel` (each topic's most probable words).

    It stands in for the LDA topics of Sect. 6.1 on synthetic posts: the generator knows
    its topics, so no topic model has to be fitted. Topic weights are the mean weekly
    popularity.
    """
    from routelab.corpus.subscriptions import TopicModel
    from routelab.datasets.synthetic import TopicTweetParams, topic_tweet_model, zipf_pmf

    p = TopicTweetParams(n_posts, **params)
    model = topic_tweet_model(p, seed)
    k = min(words_per_topic, p.topic_words)
    probs = zipf_pmf(p.topic_words, p.topic_zipf)[:k]
    words = tuple(tuple(f"w{i + 1}" for i in row[:k]) for row in model.topic_word_ids)
    weights = model.popularity.mean(axis=0)
    return TopicModel(
        words,
        tuple(tuple(float(x) for x in probs) for _ in words),
        tuple(float(w) for w in weights / weights.sum()),
        {"source": "planted topics of the synthetic generator", "seed": seed},
    )


def synthetic_cv_data(
    n_posts: int,
    *,
    kinds: Sequence[str] = KINDS,
    n_subscriptions: int = 100_000,
    n_folds: int = 10,
    seed: int = 0,
    progress: bool = True,
    **generator_params: Any,
) -> CVData:
    """Synthetic topic-model posts ready for CV, a second dataset for Fig. 5 (the paper
    combines April 2013 and Sparse). Subscriptions as in :func:`synthetic_curve_data`."""
    from routelab.datasets.synthetic import topic_tweets_pandas

    frame = topic_tweets_pandas(n_posts, seed=seed, progress=progress, **generator_params)
    corpus = Corpus.from_frame(frame[["post_id", "words"]])
    model = planted_topic_model(n_posts, seed, **generator_params) if "topic" in kinds else None
    subs = make_subscriptions(frame, kinds, n_subscriptions, seed, topic_model=model)
    info = {
        "source": "synthetic topic-model posts (routelab.datasets.synthetic.topic_tweets)",
        "n_subscriptions": n_subscriptions,
        "generator": dict(generator_params),
    }
    subscribed = {kind: subscribed_word_set(s) for kind, s in subs.items()}
    return cv_data("synthetic", corpus, subscribed, n_folds, seed, info=info)


@dataclass(frozen=True, eq=False)
class CurveData:
    """A shuffled learning pool and a fixed held-out test set (Figs. 6 and 9).

    Attributes:
        name: dataset name.
        corpora: kind -> posts restricted to that kind's W^s; :data:`ALL_WORDS` -> all words.
        test_rows: rows of the held-out posts.
        pool_rows: rows of the learning pool, in seeded random order.
        seed: seed of the shuffles.
        info: how the data was made.
    """

    name: str
    corpora: dict[str, Corpus]
    test_rows: np.ndarray
    pool_rows: np.ndarray
    seed: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def max_size(self) -> int:
        """Largest learning corpus available."""
        return len(self.pool_rows)

    def describe(self) -> pd.DataFrame:
        """One row per corpus (kind, or ``all`` words): posts, words, occurrences, split."""
        return pd.DataFrame(
            [
                {
                    "dataset": self.name,
                    "kind": kind,
                    "posts": corpus.n_posts,
                    "words in posts": int(np.count_nonzero(corpus.doc_freq())),
                    "word occurrences": corpus.nnz,
                    "learning pool": len(self.pool_rows),
                    "test posts": len(self.test_rows),
                }
                for kind, corpus in self.corpora.items()
            ]
        )

    def learning_rows(self, size: int, repeat: int = 0) -> np.ndarray:
        """``size`` learning posts: a prefix of the pool, re-shuffled per ``repeat``.

        Repeat 0 takes the first ``size`` pool posts, so the learning sets of one repeat are
        nested (a larger corpus adds posts, it never swaps them).
        """
        if not 1 <= size <= self.max_size:
            raise ValueError(f"learning size {size} outside 1..{self.max_size}")
        pool = self.pool_rows
        if repeat:
            pool = pool[seeded_order(pool, py_mix64(repeat, self.seed))]
        return np.sort(pool[:size])


def synthetic_curve_data(
    n_pool: int,
    n_test: int,
    *,
    kinds: Sequence[str] = KINDS,
    n_subscriptions: int = 10_000,
    seed: int = 0,
    progress: bool = True,
    **generator_params: Any,
) -> CurveData:
    """Synthetic topic-model posts (:func:`routelab.datasets.synthetic.topic_tweets_pandas`)
    split into a shuffled learning pool of ``n_pool`` and a test set of ``n_test`` posts.

    Tweet-based subscriptions are random posts; topic-based ones use the generator's planted
    topics (:func:`planted_topic_model`).
    """
    from routelab.datasets.synthetic import topic_tweets_pandas

    n_total = n_pool + n_test
    frame = topic_tweets_pandas(n_total, seed=seed, progress=progress, **generator_params)
    corpus = Corpus.from_frame(frame[["post_id", "words"]])
    model = planted_topic_model(n_total, seed, **generator_params) if "topic" in kinds else None
    subs = make_subscriptions(frame, kinds, n_subscriptions, seed, topic_model=model)
    del frame
    corpora = {
        kind: corpus.restrict(corpus.word_mask(subscribed_word_set(s))) for kind, s in subs.items()
    }
    corpora[ALL_WORDS] = corpus
    order = seeded_order(corpus.post_ids, seed)
    info = {
        "source": "synthetic topic-model posts (routelab.datasets.synthetic.topic_tweets)",
        "posts": n_total,
        "n_subscriptions": n_subscriptions,
        "generator": dict(generator_params),
    }
    return CurveData("synthetic", corpora, np.sort(order[:n_test]), order[n_test:], seed, info)


def sizes_up_to(sizes: Sequence[int], largest: int) -> list[int]:
    """The learning-corpus sizes below ``largest``, then ``largest`` itself (the whole
    learning pool), sorted without duplicates: a real corpus ends where it ends.

    Raises:
        ValueError: ``largest`` or a size is not positive.
    """
    if largest < 1 or any(int(s) < 1 for s in sizes):
        raise ValueError(f"sizes must be positive, got {list(sizes)} up to {largest}")
    return sorted({int(s) for s in sizes if int(s) < largest} | {int(largest)})
