"""Subscription-aware load and throughput (S3-TM Sects. 4, 6.3) and the Fig. 3 cost curve.

Eq. 3 charges every publication a unit cost at each matcher it reaches. With subscriptions
in the picture (Sect. 4) the cost of a publication at matcher i is the **matching work of
i's trie** for it: the counted lookup operations of the scoped traversal
(:mod:`routelab.s3tm.trie_reference`; one op = one child-table probe). So

    L(i) = sum over publications P routed to i of ops_i(P)
    T    = min_i C |P| / L(i)                                  (Eq. 6 with that load)

with C a matcher's capacity in lookup operations per second (:data:`DEFAULT_CAPACITY`,
notional: T is then publications per second). Imbalance is Eq. 4 (max / mean) of these
loads; spread (Eq. 2, over routed posts) does not depend on the subscriptions' placement.

A publication is routed by its subscribed words (Eq. 1), but the matcher probes its trie
with *all* the publication's words (the post travels whole).

:func:`routelab.s3tm.lab.shared.lookup_curve` measures Fig. 3 (lookups per publication vs unique words in a trie);
:func:`routelab.s3tm.lasp.fit_cost_function` turns it into LASP's f.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from routelab.s3tm.placement import Placement
from routelab.s3tm.routing import Mapping, Targets
from routelab.s3tm.trie_kernel import TrieForest, queries_from_targets
from routelab.s3tm.wordsets import Corpus
from routelab.uniques import unique

__all__ = [
    "DEFAULT_CAPACITY",
    "MatchingLoad",
    "matching_load",
    "oracle_pairs",
    "route_subscribed",
    "subscribed_mask",
    "subscription_corpus",
]

DEFAULT_CAPACITY = 1e6
"""C of Eq. 6: lookup operations per second one matcher sustains (notional)."""


def subscription_corpus(
    subs: pd.DataFrame, vocab: Sequence[str] | None = None, *, id_col: str = "sub_id"
) -> Corpus:
    """Subscriptions (``sub_id``, ``words``) as a :class:`Corpus` sharing ``vocab``.

    Generated workloads repeat word sets a lot (1M tweet-based subscriptions from 84k
    posts, topic-based ones from 100 topics x 5 words), so the distinct word sets are
    encoded once (:meth:`Corpus.from_word_lists`) and gathered per subscription; the
    subscription ids become the corpus' ``post_ids``.

    Raises:
        BadInputError: (from the encoder) a word list is a bare string or holds non-strings.
        ValueError: a column is missing or ids repeat.
    """
    missing = [c for c in (id_col, "words") if c not in subs.columns]
    if missing:
        raise ValueError(f"subscriptions lack column(s) {missing}; they have {list(subs.columns)}")
    ids = subs[id_col].to_numpy(dtype=np.int64)
    if len(unique(ids)) != len(ids):
        raise ValueError(f"duplicate {id_col} values among {len(ids)} subscriptions")
    keys = ["\x1f".join(sorted(set(ws))) if ws is not None else None for ws in subs["words"]]
    codes, uniques = pd.factorize(pd.Series(keys, dtype=object), use_na_sentinel=False)
    lists = [[] if k is None or k == "" else k.split("\x1f") for k in uniques]
    distinct = Corpus.from_word_lists(lists, vocab=vocab)
    gathered = distinct.subset(codes.astype(np.int64))
    return Corpus(
        gathered.indptr,
        gathered.indices,
        distinct.vocab,
        post_ids=ids,
        issues=dict(distinct.issues),
    )


def subscribed_mask(subs: Corpus, posts: Corpus) -> np.ndarray:
    """Mask over ``posts.vocab`` of the words some subscription of ``subs`` uses (W^s)."""
    used = np.zeros(subs.n_vocab, dtype=bool)
    used[subs.indices] = True
    if subs.vocab[: posts.n_vocab] == posts.vocab:  # shared vocabulary (the usual case)
        return used[: posts.n_vocab].copy()
    return posts.word_mask(subs.vocab[j] for j in np.flatnonzero(used))


def route_subscribed(mapping: Mapping, posts: Corpus, subs: Corpus) -> Targets:
    """K(P, M) of every post with W^s = the words of ``subs`` (Eq. 1)."""
    return mapping.route(posts.restrict(subscribed_mask(subs, posts)))


@dataclass(frozen=True, eq=False)
class MatchingLoad:
    """Subscription-aware load of one placement on one set of publications.

    Attributes:
        ops: lookup operations per matcher, L(i).
        pubs: publications routed to each matcher (the Eq. 3 load).
        matches: matches produced per matcher (copies of multicast subscriptions count
            once per matcher).
        unique_words: |H(i)| per matcher.
        n_posts: publications measured; n_routed: those with a subscribed word.
        capacity: C (lookup ops per second per matcher).
    """

    ops: np.ndarray
    pubs: np.ndarray
    matches: np.ndarray
    unique_words: np.ndarray
    n_posts: int
    n_routed: int
    capacity: float

    @property
    def n_matchers(self) -> int:
        """N."""
        return len(self.ops)

    @property
    def total_ops(self) -> int:
        """Total matching work, sum_i L(i)."""
        return int(self.ops.sum())

    @property
    def imbalance(self) -> float:
        """Eq. 4 on the subscription-aware loads (NaN without load)."""
        mean = self.ops.mean()
        return float(self.ops.max() / mean) if mean > 0 else float("nan")

    @property
    def cv(self) -> float:
        """Coefficient of variation of the subscription-aware loads."""
        mean = self.ops.mean()
        return float(self.ops.std() / mean) if mean > 0 else float("nan")

    @property
    def throughput(self) -> float:
        """Eq. 6 with L(i) = lookup ops: C |P| / max_i L(i), publications per second."""
        peak = float(self.ops.max())
        return self.capacity * self.n_posts / peak if peak > 0 else float("inf")

    @property
    def spread(self) -> float:
        """Mean multicast size over the routed posts (Eq. 2, the paper's reading)."""
        return float(self.pubs.sum() / self.n_routed) if self.n_routed else float("nan")

    @property
    def unit_imbalance(self) -> float:
        """Eq. 4 on the unit-cost loads (publications per matcher), for comparison."""
        mean = self.pubs.mean()
        return float(self.pubs.max() / mean) if mean > 0 else float("nan")

    def as_dict(self) -> dict[str, Any]:
        """Scalar metrics (one sweep row)."""
        return {
            "n_posts": self.n_posts,
            "n_routed": self.n_routed,
            "throughput": self.throughput,
            "spread": self.spread,
            "imbalance": self.imbalance,
            "cv": self.cv,
            "unit_imbalance": self.unit_imbalance,
            "total_ops": self.total_ops,
            "max_ops": int(self.ops.max()),
            "ops_per_delivery": float(self.ops.sum() / max(self.pubs.sum(), 1)),
            "total_matches": int(self.matches.sum()),
            "unique_words": int(self.unique_words.sum()),
        }


def matching_load(
    mapping: Mapping,
    placement: Placement,
    subs: Corpus,
    posts: Corpus,
    *,
    forest: TrieForest | None = None,
    capacity: float = DEFAULT_CAPACITY,
) -> MatchingLoad:
    """Route ``posts`` (W^s = the words of ``subs``), match them against the matchers'
    tries built from ``placement`` and sum the lookup operations per matcher.

    Args:
        mapping: M.
        placement: where each subscription of ``subs`` lives.
        subs: the subscriptions placed.
        posts: the publications (e.g. a held-out fold); any vocabulary.
        forest: the tries, if already built (``placement.forest(subs)``).
        capacity: C of Eq. 6 in lookup operations per second.
    """
    if capacity <= 0:
        raise ValueError(f"capacity must be positive, got {capacity}")
    forest = placement.forest(subs) if forest is None else forest
    targets = route_subscribed(mapping, posts, subs)
    rows, tries = queries_from_targets(targets)
    res = forest.match(posts, rows, tries, collect=False)
    n = mapping.n_matchers
    return MatchingLoad(
        ops=np.bincount(tries, weights=res.ops, minlength=n).astype(np.int64),
        pubs=np.bincount(tries, minlength=n).astype(np.int64),
        matches=np.bincount(tries, weights=res.n_matches, minlength=n).astype(np.int64),
        unique_words=forest.unique_words.copy(),
        n_posts=posts.n_posts,
        n_routed=int(np.count_nonzero(targets.sizes())),
        capacity=float(capacity),
    )


def oracle_pairs(posts: Corpus, subs: Corpus, *, chunk: int = 4096) -> pd.DataFrame:
    """All matching ``(sub_id, post_id)`` pairs by set containment, independent of the trie.

    Sparse algebra: ``S @ P.T`` counts the shared words of every (subscription, post) pair;
    a pair matches iff the count equals the subscription's length (posts in chunks).
    """
    if subs.vocab[: posts.n_vocab] != posts.vocab:
        posts = Corpus.from_word_lists(
            posts.word_lists(), vocab=subs.vocab, post_ids=posts.post_ids
        )
    n_vocab = max(subs.n_vocab, posts.n_vocab)
    s_mat = _incidence(subs, n_vocab)
    p_mat = _incidence(posts, n_vocab)
    lengths = subs.lengths()
    out_s, out_p = [], []
    for lo in range(0, posts.n_posts, chunk):
        block = (s_mat @ p_mat[lo : lo + chunk].T).tocoo()
        hit = block.data == lengths[block.row]
        out_s.append(subs.post_ids[block.row[hit]])
        out_p.append(posts.post_ids[lo + block.col[hit]])
    frame = pd.DataFrame(
        {
            "sub_id": np.concatenate(out_s) if out_s else np.zeros(0, np.int64),
            "post_id": np.concatenate(out_p) if out_p else np.zeros(0, np.int64),
        }
    )
    return frame.sort_values(["sub_id", "post_id"], ignore_index=True)


def _incidence(corpus: Corpus, n_vocab: int) -> Any:
    import scipy.sparse as sp

    data = np.ones(corpus.nnz, dtype=np.int32)
    return sp.csr_matrix((data, corpus.indices, corpus.indptr), shape=(corpus.n_posts, n_vocab))
