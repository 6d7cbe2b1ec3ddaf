"""Skew handling by hot-word splitting (S3-TM Sect. 5.1).

A node's even share of load is the aggregate word frequency divided by N,
``share = sum_w f(w) / N`` (over the learned, i.e. subscribed, words). A word may carry at
most ``hot_fraction`` (paper: one half) of that share: ``cap = hot_fraction * share``. A
*hot* word with ``f(w) > cap`` is split into the smallest number of versions
``k = ceil(f(w) / cap)`` such that each version's expected frequency ``f(w) / k`` is within
the cap. Every occurrence of a hot word in a publication is replaced by a random version in
``[0, k)``; the choice is a seeded stable hash of (seed, post id, word), so learning and
routing see the same version of the same occurrence and no process state is involved.

Subscriptions are placed by the three categories of Sect. 5.1 (:func:`hot_placement`);
the mapping learned on the split corpus (see :func:`routelab.s3tm.learn_mapping` with
``split_hot=True``) maps each version to a matcher.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

import numba
import numpy as np

from routelab.hashing import nb_mix64, seed_constant, string_hash
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from routelab.s3tm.routing import Mapping

#: separates a word from its version number in the learning vocabulary ("word\x1f3")
VERSION_SEPARATOR = "\x1f"


@numba.njit(cache=True, inline="always")
def version_of(post_id: np.int64, word_key: np.uint64, seed_const: np.uint64, k: np.int64) -> int:
    """Version in ``[0, k)`` of one occurrence: stable hash of (post id, word key, seed).

    ``word_key`` is :func:`word_key` of the word; ``seed_const`` is
    :func:`routelab.hashing.seed_constant` of the seed. Callable from Python and from numba.
    """
    h = nb_mix64(np.uint64(post_id) ^ word_key, seed_const)
    return np.int64(h % np.uint64(k))


def word_key(word: str, seed: int) -> np.uint64:
    """64-bit key of a word for :func:`version_of` (seeded BLAKE2b of the string)."""
    return np.uint64(string_hash(word, seed))


@dataclass(frozen=True)
class SplitPlan:
    """Which words are hot and into how many versions each is split.

    Attributes:
        words: hot word ids (into the corpus vocabulary the plan was made on).
        versions: number of versions ``k`` of each hot word (>= 2).
        counts: number of learning posts containing each hot word (|P| f(w)).
        cap: the per-word cap, in posts: ``hot_fraction * total / N``.
        total: aggregate word count ``sum_w |P| f(w)`` of the learning posts.
    """

    words: np.ndarray
    versions: np.ndarray
    counts: np.ndarray
    cap: float
    total: int


def split_plan(corpus: Corpus, n_matchers: int, hot_fraction: float = 0.5) -> SplitPlan:
    """Find the hot words of ``corpus`` for ``n_matchers`` nodes (Sect. 5.1).

    Args:
        corpus: learning posts, already restricted to the subscribed words.
        n_matchers: N.
        hot_fraction: fraction of a node's even share a single word may carry (paper: 0.5).
    """
    if n_matchers < 1:
        raise ValueError(f"n_matchers must be >= 1, got {n_matchers}")
    if not hot_fraction > 0:
        raise ValueError(f"hot_fraction must be positive, got {hot_fraction}")
    freq = corpus.doc_freq()
    total = int(freq.sum())
    # exact rational arithmetic, so f(w) / k <= cap holds without rounding slack and k is
    # the smallest such number
    cap = Fraction(hot_fraction) * total / n_matchers
    candidates = np.flatnonzero(freq > float(cap) * (1 - 1e-9)).tolist()
    hot = [w for w in candidates if int(freq[w]) > cap]
    versions = [math.ceil(Fraction(int(freq[w])) / cap) for w in hot]
    return SplitPlan(
        np.array(hot, dtype=np.int64),
        np.array(versions, dtype=np.int64),
        freq[hot].astype(np.int64),
        float(cap),
        total,
    )


@numba.njit(cache=True)
def _replace_hot(indptr, indices, post_ids, first_new, n_versions, keys, seed_const):
    """Replace each hot-word occurrence by the id of its version, then re-sort each post."""
    out = indices.copy()
    for p in range(len(indptr) - 1):
        changed = False
        for j in range(indptr[p], indptr[p + 1]):
            w = indices[j]
            k = n_versions[w]
            if k > 1:
                out[j] = first_new[w] + version_of(post_ids[p], keys[w], seed_const, k)
                changed = True
        if changed:
            out[indptr[p] : indptr[p + 1]].sort()
    return out


def apply_split(
    corpus: Corpus, plan: SplitPlan, seed: int = 0
) -> tuple[Corpus, dict[int, tuple[str, int]]]:
    """Rewrite ``corpus`` with hot words replaced by their versions.

    The version vocabulary entries ``word + VERSION_SEPARATOR + str(v)`` are appended to the
    vocabulary; the original hot word ids no longer occur.

    Returns:
        The split corpus and ``new word id -> (hot word, version)``.
    """
    n_versions = np.ones(corpus.n_vocab, dtype=np.int64)
    first_new = np.zeros(corpus.n_vocab, dtype=np.int64)
    keys = np.zeros(corpus.n_vocab, dtype=np.uint64)
    vocab = list(corpus.vocab)
    origin: dict[int, tuple[str, int]] = {}
    for w, k in zip(plan.words.tolist(), plan.versions.tolist(), strict=True):
        word = corpus.vocab[w]
        n_versions[w] = k
        first_new[w] = len(vocab)
        keys[w] = word_key(word, seed)
        for v in range(k):
            origin[len(vocab)] = (word, v)
            vocab.append(f"{word}{VERSION_SEPARATOR}{v}")
    indices = _replace_hot(
        corpus.indptr,
        corpus.indices.astype(np.int64),
        corpus.post_ids,
        first_new,
        n_versions,
        keys,
        seed_constant(seed),
    )
    split = Corpus(
        corpus.indptr,
        indices.astype(np.int32),
        vocab,
        post_ids=corpus.post_ids,
        issues=dict(corpus.issues),
    )
    return split, origin


@dataclass(frozen=True)
class HotPlacement:
    """Where a subscription may go under hot-word splitting (Sect. 5.1).

    Attributes:
        category: ``"no_hot"`` (i), ``"mixed"`` (ii: hot and regular words) or
            ``"all_hot"`` (iii: only hot words).
        matchers: for (i) and (ii) the eligible matchers, of which the placer (LASP) picks
            one (anycast); for (iii) every matcher that holds a version of the least
            frequent hot word, all of which must receive the subscription (multicast).
        multicast: True only for category (iii).
        words: the words whose matchers were considered (the regular words for (ii), the
            selected hot word for (iii)).
    """

    category: Literal["no_hot", "mixed", "all_hot"]
    matchers: tuple[int, ...]
    multicast: bool
    words: tuple[str, ...]


def hot_placement(subscription: Iterable[str], mapping: Mapping) -> HotPlacement:
    """Classify a subscription by its hot words and return its eligible/required matchers.

    (i) no hot words: eligible = {M(w) : w in S}; (ii) hot and regular words: the hot words
    are left out, eligible = {M(w) : w regular}; (iii) only hot words: the hot word with the
    lowest learning frequency is selected (ties: smallest word) and the subscription is
    multicast to all matchers holding one of its versions.

    Raises:
        ValueError: the subscription is empty.
    """
    words = sorted(set(subscription))
    if not words:
        raise ValueError("a subscription needs at least one word")
    hot = [w for w in words if w in mapping.versions]
    regular = [w for w in words if w not in mapping.versions]
    if not hot:
        return HotPlacement(
            "no_hot", tuple(sorted({mapping.matcher_of(w) for w in words})), False, tuple(words)
        )
    if regular:
        eligible = tuple(sorted({mapping.matcher_of(w) for w in regular}))
        return HotPlacement("mixed", eligible, False, tuple(regular))
    chosen = min(hot, key=lambda w: (mapping.hot_counts[w], w))
    return HotPlacement("all_hot", tuple(sorted(set(mapping.versions[chosen]))), True, (chosen,))
