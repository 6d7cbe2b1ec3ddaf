"""Subscription placement on matchers (S3-TM Sects. 2.1, 4, 5.1): eligibility, random
anycast, and the :class:`Placement` result shared with LASP (:mod:`routelab.s3tm.lasp`).

A subscription S may be evaluated by any matcher responsible for one of its words,
B(S, M) = {M(w) : w in S} (Sect. 4; the paper writes B(P, M)). Under hot-word splitting the
three categories of Sect. 5.1 decide (:func:`routelab.s3tm.skew.hot_placement`):

- (i) no hot word: eligible = {M(w) : w in S}; one of them is chosen (anycast);
- (ii) hot and regular words: eligible = the regular words' matchers (anycast);
- (iii) only hot words: the least frequent hot word is selected and the subscription is
  **multicast** to every matcher holding one of its versions (no choice to make).

The default policy is **random anycast**: a seeded stable hash of the subscription id picks
one eligible matcher uniformly (``mix64(sub_id, seed) mod |B|``; never Python's ``hash()``).

:func:`eligibility` computes the eligible sets of many subscriptions in one numba pass
(equal to ``hot_placement`` per subscription; tested); :func:`place_subscriptions` runs a
placer over a subscription corpus and returns a :class:`Placement` (entries
``(subscription row, matcher)``: one per anycast subscription, several per multicast one).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from routelab.hashing import mix64, py_mix64
from routelab.s3tm.routing import Mapping
from routelab.s3tm.skew import hot_placement
from routelab.s3tm.trie_kernel import unique_words_per_group
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from routelab.s3tm.trie_kernel import TrieForest

__all__ = [
    "CATEGORIES",
    "PLACERS",
    "Eligibility",
    "Placement",
    "RandomAnycast",
    "eligibility",
    "place_subscriptions",
    "random_anycast",
]

CATEGORIES = ("no_hot", "mixed", "all_hot")
"""Sect. 5.1 categories (i), (ii), (iii), indexed by the ``category`` codes 0, 1, 2."""

PLACERS = ("random", "LASP")


@dataclass(frozen=True, eq=False)
class Eligibility:
    """Eligible matchers of every subscription (CSR) and its Sect. 5.1 category.

    Subscription ``s`` may go to ``matchers[ptr[s]:ptr[s + 1]]`` (sorted, distinct); if
    ``multicast[s]`` (category iii) it goes to all of them.
    """

    ptr: np.ndarray
    matchers: np.ndarray
    category: np.ndarray
    multicast: np.ndarray

    def of(self, s: int) -> tuple[int, ...]:
        """Eligible (or, for multicast, required) matchers of subscription row ``s``."""
        return tuple(self.matchers[self.ptr[s] : self.ptr[s + 1]].tolist())

    def category_counts(self) -> dict[str, int]:
        """Subscriptions per category name."""
        counts = np.bincount(self.category, minlength=3)
        return {name: int(c) for name, c in zip(CATEGORIES, counts, strict=True)}


@numba.njit(cache=True)
def _eligibility_kernel(indptr, indices, base, n_versions, vptr, vtable, hot_rank, n_matchers):
    n = len(indptr) - 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    out = np.empty(len(indices) + 64, dtype=np.int32)
    category = np.zeros(n, dtype=np.int8)
    stamp = np.full(n_matchers, -1, dtype=np.int64)
    pos = 0
    for s in range(n):
        a, b = indptr[s], indptr[s + 1]
        n_hot = 0
        chosen = -1
        for j in range(a, b):
            w = indices[j]
            if n_versions[w] > 1:
                n_hot += 1
                if chosen < 0 or hot_rank[w] < hot_rank[chosen]:
                    chosen = w
        start = pos
        if n_hot == b - a and n_hot > 0:  # (iii) all hot: versions of the rarest hot word
            category[s] = 2
            k = n_versions[chosen]
            need = pos + k
            if need > len(out):
                grown = np.empty(2 * need, dtype=np.int32)
                grown[:pos] = out[:pos]
                out = grown
            for v in range(k):
                m = vtable[vptr[chosen] + v]
                if stamp[m] != s:
                    stamp[m] = s
                    out[pos] = m
                    pos += 1
        else:
            category[s] = 1 if n_hot > 0 else 0
            need = pos + (b - a)
            if need > len(out):
                grown = np.empty(2 * need, dtype=np.int32)
                grown[:pos] = out[:pos]
                out = grown
            for j in range(a, b):
                w = indices[j]
                if n_versions[w] > 1:
                    continue
                m = base[w]
                if stamp[m] != s:
                    stamp[m] = s
                    out[pos] = m
                    pos += 1
        out[start:pos].sort()
        ptr[s + 1] = pos
    return ptr, out[:pos].copy(), category


def eligibility(subs: Corpus, mapping: Mapping) -> Eligibility:
    """Eligible matchers and category of every subscription (Sects. 4 and 5.1).

    Raises:
        ValueError: a subscription has no words.
    """
    lengths = subs.lengths()
    if np.any(lengths == 0):
        bad = int(subs.post_ids[np.flatnonzero(lengths == 0)[0]])
        raise ValueError(f"subscription {bad} has no words")
    # look up only the words the subscriptions use (the vocabulary may be much larger)
    used = np.flatnonzero(np.bincount(subs.indices, minlength=subs.n_vocab) > 0)
    local = np.full(subs.n_vocab, -1, dtype=np.int64)
    local[used] = np.arange(len(used))
    words = [subs.vocab[j] for j in used.tolist()]
    tables = mapping.lookup_tables(words)
    hot_rank = np.zeros(len(words), dtype=np.int64)
    hot_ids = np.flatnonzero(tables["n_versions"] > 1)
    # the least frequent hot word is selected; ties by the word (as hot_placement does)
    order = sorted(hot_ids.tolist(), key=lambda j: (mapping.hot_counts[words[j]], words[j]))
    hot_rank[order] = np.arange(len(order))
    ptr, matchers, category = _eligibility_kernel(
        subs.indptr,
        local[subs.indices],
        tables["base"],
        tables["n_versions"],
        tables["vptr"],
        tables["vtable"],
        hot_rank,
        mapping.n_matchers,
    )
    return Eligibility(ptr, matchers, category, category == 2)


def random_anycast(elig: Eligibility, sub_ids: np.ndarray, seed: int = 0) -> np.ndarray:
    """Random anycast choice per subscription: eligible index ``mix64(sub_id, seed) mod |B|``
    (for multicast subscriptions the value is unused)."""
    sizes = np.diff(elig.ptr)
    pick = (
        mix64(np.asarray(sub_ids, dtype=np.int64), seed) % np.maximum(sizes, 1).astype(np.uint64)
    ).astype(np.int64)
    return elig.matchers[elig.ptr[:-1] + pick].astype(np.int64) if len(sizes) else pick


class RandomAnycast:
    """The default placement policy (Sect. 2.1), one subscription at a time.

    ``place(words, sub_id)`` returns the matchers that store the subscription: one eligible
    matcher chosen by a seeded stable hash of ``sub_id``, or all required matchers for a
    multicast (category iii) subscription.
    """

    name = "random"

    def __init__(self, mapping: Mapping, seed: int = 0) -> None:
        self.mapping = mapping
        self.seed = seed

    def place(self, words: Iterable[str], sub_id: int = 0) -> tuple[int, ...]:
        """Matchers storing subscription ``sub_id`` with ``words``."""
        hp = hot_placement(words, self.mapping)
        if hp.multicast:
            return hp.matchers
        return (hp.matchers[py_mix64(int(sub_id), self.seed) % len(hp.matchers)],)


@dataclass(frozen=True, eq=False)
class Placement:
    """Where each subscription lives.

    Attributes:
        n_matchers: N.
        method: ``"random"`` or ``"LASP"``.
        entry_rows: subscription row (into the placed corpus) of each entry.
        entry_matchers: matcher of each entry.
        category: Sect. 5.1 category code per subscription row (see :data:`CATEGORIES`).
        unique_words: |H(i)| per matcher after placing everything.
        info: parameters and timings.
    """

    n_matchers: int
    method: str
    entry_rows: np.ndarray
    entry_matchers: np.ndarray
    category: np.ndarray
    unique_words: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n_subs(self) -> int:
        """Subscriptions placed."""
        return len(self.category)

    def subs_per_matcher(self) -> np.ndarray:
        """Entries (stored subscriptions) per matcher."""
        return np.bincount(self.entry_matchers, minlength=self.n_matchers).astype(np.int64)

    def matchers_of(self, row: int) -> list[int]:
        """Matchers storing subscription row ``row``."""
        return sorted(self.entry_matchers[self.entry_rows == row].tolist())

    def forest(self, subs: Corpus) -> TrieForest:
        """One trie per matcher holding its subscriptions (:mod:`routelab.s3tm.trie_kernel`)."""
        from routelab.s3tm.trie_kernel import build_forest

        return build_forest(subs, self.n_matchers, self.entry_rows, self.entry_matchers)

    def category_counts(self) -> dict[str, int]:
        """Subscriptions per Sect. 5.1 category."""
        counts = np.bincount(self.category, minlength=3)
        return {name: int(c) for name, c in zip(CATEGORIES, counts, strict=True)}


def _entries(elig: Eligibility, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entries from anycast choices plus every multicast subscription's matchers."""
    n = len(elig.category)
    sizes = np.diff(elig.ptr)
    multi = elig.multicast
    reps = np.where(multi, sizes, 1)
    entry_rows = np.repeat(np.arange(n, dtype=np.int64), reps)
    # anycast rows take their choice; multicast rows take all their eligible matchers
    first = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(reps, out=first[1:])
    entry_matchers = np.empty(len(entry_rows), dtype=np.int64)
    entry_matchers[first[:-1][~multi]] = chosen[~multi]
    if multi.any():
        msizes = sizes[multi]
        offs = np.arange(int(msizes.sum())) - np.repeat(np.cumsum(msizes) - msizes, msizes)
        dest = np.repeat(first[:-1][multi], msizes) + offs
        entry_matchers[dest] = elig.matchers[np.repeat(elig.ptr[:-1][multi], msizes) + offs]
    return entry_rows, entry_matchers


def place_subscriptions(
    subs: Corpus,
    mapping: Mapping,
    method: str = "LASP",
    *,
    cost: Any = None,
    seed: int = 0,
    imbalance: str | None = None,
    impl: str = "kernel",
    progress: bool = False,
) -> Placement:
    """Place every subscription of ``subs`` (in row order, as a stream) on the matchers.

    Args:
        subs: the subscriptions (their ``post_ids`` are the subscription ids).
        mapping: the word-to-matcher mapping M (and its hot-word versions).
        method: ``"random"`` (seeded random anycast) or ``"LASP"`` (Algorithm 2).
        cost: LASP's cost function f (a :class:`~routelab.s3tm.lasp.CostFunction` or a
            ``(slope, intercept)`` pair); default ``CostFunction(1, 1)``.
        seed: random anycast seed.
        imbalance: LASP's imbalance measure (see :mod:`routelab.s3tm.lasp`); ``None``:
            :func:`~routelab.s3tm.lasp.default_imbalance` (``"cv"`` unless flipped).
        impl: ``"kernel"`` (numba) or ``"reference"`` (one :meth:`place` call per
            subscription through :class:`RandomAnycast` / :class:`~routelab.s3tm.lasp.LASP`).
        progress: progress bar (reference implementation).
    """
    import time

    from routelab.s3tm.lasp import LASP, CostFunction, default_imbalance, lasp_kernel_place

    if method not in PLACERS:
        raise ValueError(f"unknown placement method {method!r}; choose from {PLACERS}")
    if impl not in ("kernel", "reference"):
        raise ValueError(f"impl must be 'kernel' or 'reference', got {impl!r}")
    f = CostFunction.of(cost)
    imbalance = default_imbalance() if imbalance is None else imbalance
    t0 = time.perf_counter()
    if impl == "reference":
        from routelab.progress import tqdm

        placer: Any = (
            RandomAnycast(mapping, seed) if method == "random" else LASP(mapping, f, imbalance)
        )
        rows: list[int] = []
        matchers: list[int] = []
        category = np.empty(subs.n_posts, dtype=np.int8)
        for r in tqdm(range(subs.n_posts), desc=f"{method} placement", disable=not progress):
            words = subs.words_of(r)
            category[r] = CATEGORIES.index(hot_placement(words, mapping).category)
            for m in placer.place(words, int(subs.post_ids[r])):
                rows.append(r)
                matchers.append(m)
        entry_rows = np.asarray(rows, dtype=np.int64)
        entry_matchers = np.asarray(matchers, dtype=np.int64)
    else:
        elig = eligibility(subs, mapping)
        category = elig.category
        if method == "random":
            chosen = random_anycast(elig, subs.post_ids, seed)
        else:
            chosen = lasp_kernel_place(subs, elig, mapping.n_matchers, f, imbalance)
        entry_rows, entry_matchers = _entries(elig, chosen)
    seconds = time.perf_counter() - t0
    return Placement(
        mapping.n_matchers,
        method,
        entry_rows,
        entry_matchers,
        np.asarray(category, dtype=np.int8),
        unique_words_per_group(subs, entry_rows, entry_matchers, mapping.n_matchers),
        {
            "seconds": seconds,
            "impl": impl,
            "seed": seed,
            "imbalance": imbalance,
            "cost": (f.slope, f.intercept),
        },
    )
