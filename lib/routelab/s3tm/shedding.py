"""What load to shed: limiting a publication's multicast to m matchers (S3-TM Sect. 5.2.1,
Fig. 8a).

"We perform load shedding by limiting the maximum number of matchers a publication is routed
to, say m. If the publication at hand has more than m target matchers it ideally should be
routed to, then we only route it to the m matchers that have the highest utility metric":

- **consensus shedding** (:data:`SHEDDING_METHODS` ``"consensus"``): utility of matcher j for
  publication P = the number of P's subscribed words mapping to j, |{w in P and W^s :
  M(w) = j}|;
- **subscription shedding** (``"subscription"``): utility = the number of subscriptions on j
  for the words of P. Our reading: ``sum over w in P of n_j(w)``, with n_j(w) the number of
  subscriptions placed on j that contain w -- a count the router can keep next to the
  subscription word map H of LASP (a subscription sharing two words with P counts twice);
- **random dropping** (the baseline, :func:`random_drop_mask`): whole publications are dropped
  in a seeded pseudo-random order until the same load is shed.

Details we fix (the paper leaves them open):

- **ties** between equal utilities are broken by a seeded stable hash of (publication id,
  matcher) -- deterministic, and unbiased across matcher ids (:func:`pair_tiebreak`);
- **fractional m** (Sect. 5.2.2: "Delta could be less than 1, which corresponds to
  probabilistic forwarding for the last word selected for forwarding"): the top ``floor(m)``
  matchers are kept and the next one with probability ``m - floor(m)``, decided by a seeded
  stable hash of the publication id; ``m = inf`` keeps everything;
- **accuracy** = produced matches / the oracle's matches (distinct (publication,
  subscription) pairs, Sect. 6.5). The oracle (:func:`oracle_matches`) is plain set
  containment over all subscriptions, independent of the trie. Produced matches come from
  the matchers' tries (:mod:`routelab.s3tm.trie_kernel`) on the deliveries kept, so "shedding
  cannot result in superfluous matches" is checked, not assumed;
- **load**: per delivered (publication, matcher) pair either the trie lookup operations of
  that match (subscription-aware load, Sect. 4; ``cost="ops"``) or 1 (the unit routing load
  of Eq. 3; ``cost="unit"``). Percent of load shed = 1 - kept load / full load.

:class:`Deliveries` precomputes, for every pair of K(P, M), both utilities, both costs and
the matches the pair produces, so one threshold is evaluated with a few vectorized numpy
operations (:func:`keep_mask`, :func:`evaluate`); :func:`keep_reference` is the readable
per-publication version the tests compare it with. Mappings with split hot words are not
supported here (their versions make K(P, M) depend on the occurrence): learn with
``split_hot=False``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import pandas as pd

from routelab.hashing import mix64
from routelab.s3tm.routing import Mapping, Targets
from routelab.s3tm.wordsets import Corpus

SHEDDING_METHODS = ("consensus", "subscription")
"""The two multicast-limiting policies of Sect. 5.2.1."""

RANDOM_DROP = "random drop"
"""Label of the random-dropping baseline in result frames."""

COSTS = ("ops", "unit")
"""Load of one delivery: trie lookup operations (subscription-aware) or 1 (Eq. 3)."""

_TAG_FRACTION = 0x5F3759DF
_TAG_DROP = 0x2545F491


# --------------------------------------------------------------------------- oracle


@numba.njit(cache=True)
def _containment(
    p_indptr, p_indices, piv_ptr, piv_subs, s_indptr, s_indices, n_slots, out_p, out_s
):
    """Posts x subscriptions with S subset of P, probing only subs whose pivot word is in P.

    With empty ``out_*`` arrays it only counts."""
    mark = np.full(n_slots, -1, dtype=np.int64)
    fill = len(out_p) > 0
    n = 0
    for p in range(len(p_indptr) - 1):
        a, b = p_indptr[p], p_indptr[p + 1]
        for j in range(a, b):
            mark[p_indices[j]] = p
        for j in range(a, b):
            w = p_indices[j]
            for k in range(piv_ptr[w], piv_ptr[w + 1]):
                s = piv_subs[k]
                ok = True
                for t in range(s_indptr[s], s_indptr[s + 1]):
                    if mark[s_indices[t]] != p:
                        ok = False
                        break
                if ok:
                    if fill:
                        out_p[n] = p
                        out_s[n] = s
                    n += 1
    return n


def oracle_matches(posts: Corpus, subs: Corpus) -> tuple[np.ndarray, np.ndarray]:
    """All (post row, subscription row) with S a subset of P, by plain set containment.

    Each subscription is indexed under its *pivot*, its word in the fewest posts; a post
    checks only the subscriptions pivoted on one of its words (a match's pivot is in P).
    Subscription words absent from ``posts`` make a subscription unmatchable. Returns both
    arrays sorted by post row, then subscription row.

    Raises:
        ValueError: a subscription has no words.
    """
    lengths = subs.lengths()
    if np.any(lengths == 0):
        raise ValueError(f"subscription {int(subs.post_ids[np.argmin(lengths)])} has no words")
    index = posts.word_index
    absent = posts.n_vocab  # a slot no post marks
    to_post_id = np.array([index.get(w, absent) for w in subs.vocab], dtype=np.int64)
    s_indices = to_post_id[subs.indices] if len(subs.indices) else np.zeros(0, np.int64)
    freq = np.append(posts.doc_freq(), 0)
    row = np.repeat(np.arange(subs.n_posts), lengths)
    # pivot: the rarest word (absent words have frequency 0 and are never probed)
    order = np.lexsort((s_indices, freq[s_indices], row))
    first = np.zeros(subs.n_posts + 1, dtype=np.int64)
    np.cumsum(lengths, out=first[1:])
    pivot = s_indices[order[first[:-1]]] if subs.n_posts else np.zeros(0, np.int64)
    by_pivot = np.argsort(pivot, kind="stable")
    piv_ptr = np.zeros(posts.n_vocab + 2, dtype=np.int64)
    np.cumsum(np.bincount(pivot, minlength=posts.n_vocab + 1), out=piv_ptr[1:])
    args = (
        posts.indptr,
        posts.indices.astype(np.int64),
        piv_ptr,
        by_pivot.astype(np.int64),
        subs.indptr,
        s_indices,
        posts.n_vocab + 1,
    )
    empty = np.zeros(0, dtype=np.int64)
    n = _containment(*args, empty, empty)
    out_p = np.empty(n, dtype=np.int64)
    out_s = np.empty(n, dtype=np.int64)
    _containment(*args, out_p, out_s)
    order = np.lexsort((out_s, out_p))
    return out_p[order], out_s[order]


# --------------------------------------------------------------------------- deliveries


@dataclass(frozen=True, eq=False)
class Deliveries:
    """Every (publication, target matcher) pair of K(P, M) with what shedding needs.

    Pair ``q`` belongs to post ``pair_post[q]`` and matcher ``targets.indices[q]`` (pairs are
    grouped by post, CSR ``targets.indptr``).

    Attributes:
        targets: K(P, M) of every post.
        post_ids: id of every post (seeds the tie-breaks and the fractional forwarding).
        consensus: consensus utility per pair.
        subscription: subscription utility per pair.
        ops: trie lookup operations per pair (the matcher's work for that publication).
        match_pair: for each produced match entry, its pair.
        match_key: for each entry, the distinct (post, subscription) match it is (entries
            repeat a key only for a subscription stored on several matchers).
        key_in_oracle: for each distinct produced match, whether the oracle has it.
        n_matches: distinct matches produced when nothing is shed.
        n_oracle: the oracle's matches.
        false_matches: produced (nothing shed) but not in the oracle -- must be 0.
        missed_matches: in the oracle but not produced (nothing shed) -- must be 0.
        info: how the deliveries were made.
    """

    targets: Targets
    post_ids: np.ndarray
    consensus: np.ndarray
    subscription: np.ndarray
    ops: np.ndarray
    match_pair: np.ndarray
    match_key: np.ndarray
    key_in_oracle: np.ndarray
    n_matches: int
    n_oracle: int
    false_matches: int
    missed_matches: int
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n_posts(self) -> int:
        """Publications."""
        return self.targets.n_posts

    @property
    def n_pairs(self) -> int:
        """Deliveries without shedding, sum of |K(P, M)|."""
        return len(self.targets.indices)

    @property
    def pair_post(self) -> np.ndarray:
        """Post row of every pair."""
        return np.repeat(np.arange(self.n_posts, dtype=np.int64), self.targets.sizes())

    def utility(self, method: str) -> np.ndarray:
        """Per-pair utility of a :data:`SHEDDING_METHODS` policy."""
        if method == "consensus":
            return self.consensus
        if method == "subscription":
            return self.subscription
        raise ValueError(f"unknown shedding method {method!r}; choose from {SHEDDING_METHODS}")

    def cost(self, kind: str = "ops") -> np.ndarray:
        """Per-pair load: trie ops (``"ops"``) or 1 (``"unit"``), as float64."""
        if kind == "ops":
            return self.ops.astype(np.float64)
        if kind == "unit":
            return np.ones(self.n_pairs, dtype=np.float64)
        raise ValueError(f"unknown cost {kind!r}; choose from {COSTS}")


def encode_subscriptions(subscriptions: pd.DataFrame, posts: Corpus) -> Corpus:
    """Subscriptions (``sub_id``, ``words``) as a :class:`Corpus` sharing ``posts``' word ids
    (new words get new ids after them); ``post_ids`` are the ``sub_id`` values."""
    frame = subscriptions[["sub_id", "words"]].rename(columns={"sub_id": "post_id"})
    return Corpus.from_frame(frame, vocab=posts.vocab)


@numba.njit(cache=True)
def _pair_sums(indptr, indices, t_indptr, t_indices, counts):
    """For each pair (p, j): sum over the words w of p of counts[w, j]."""
    out = np.zeros(len(t_indices), dtype=np.int64)
    for p in range(len(indptr) - 1):
        for q in range(t_indptr[p], t_indptr[p + 1]):
            j = t_indices[q]
            total = 0
            for k in range(indptr[p], indptr[p + 1]):
                total += counts[indices[k], j]
            out[q] = total
    return out


def consensus_utility(posts_s: Corpus, mapping: Mapping, targets: Targets) -> np.ndarray:
    """|{w in P and W^s : M(w) = j}| for every pair of ``targets`` (``posts_s`` holds only
    subscribed words)."""
    base = mapping.lookup_tables(posts_s.vocab)["base"].astype(np.int64)
    rows = np.repeat(np.arange(posts_s.n_posts, dtype=np.int64), posts_s.lengths())
    keys, counts = np.unique(rows * mapping.n_matchers + base[posts_s.indices], return_counts=True)
    pair_keys = (
        np.repeat(np.arange(targets.n_posts, dtype=np.int64), targets.sizes()) * mapping.n_matchers
        + targets.indices
    )
    if not np.array_equal(keys, pair_keys):
        raise ValueError("consensus counts do not line up with K(P, M); is the mapping split?")
    return counts.astype(np.int64)


def subscription_counts(
    subs: Corpus, entry_rows: np.ndarray, entry_matchers: np.ndarray, n_vocab: int, n_matchers: int
) -> np.ndarray:
    """n_j(w): subscriptions on matcher j containing word w, a dense ``(n_vocab, N)`` table
    over the first ``n_vocab`` word ids (the posts' words)."""
    lengths = subs.lengths()[entry_rows]
    starts = np.repeat(subs.indptr[entry_rows], lengths)
    offs = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    words = subs.indices[starts + offs].astype(np.int64)
    matchers = np.repeat(np.asarray(entry_matchers, dtype=np.int64), lengths)
    inside = words < n_vocab
    counts = np.zeros((n_vocab, n_matchers), dtype=np.int64)
    np.add.at(counts, (words[inside], matchers[inside]), 1)
    return counts


def prepare_deliveries(
    posts: Corpus,
    subs: Corpus,
    mapping: Mapping,
    placement: Any,
) -> Deliveries:
    """Route ``posts`` (subscribed words only, Eq. 1), match every delivery on the matchers'
    tries and compare with the oracle.

    Args:
        posts: the publications (all their words; the matchers see whole publications).
        subs: the subscriptions, encoded with ``posts``' vocabulary
            (:func:`encode_subscriptions`); ``post_ids`` are the subscription ids.
        mapping: M, without split hot words.
        placement: a :class:`routelab.s3tm.placement.Placement` of ``subs``.

    Raises:
        ValueError: the mapping has split words, or ``subs`` does not share ``posts``' word
            ids.
    """
    from routelab.s3tm.trie_kernel import queries_from_targets

    if mapping.versions:
        raise ValueError("shedding needs a mapping without split hot words (split_hot=False)")
    if subs.vocab[: posts.n_vocab] != posts.vocab:
        raise ValueError("subscriptions must be encoded with the posts' vocabulary")
    sub_words = np.flatnonzero(subs.doc_freq()[: posts.n_vocab] > 0)
    subscribed = np.zeros(posts.n_vocab, dtype=bool)
    subscribed[sub_words] = True
    posts_s = posts.restrict(subscribed)
    targets = mapping.route(posts_s)
    consensus = consensus_utility(posts_s, mapping, targets)
    counts = subscription_counts(
        subs, placement.entry_rows, placement.entry_matchers, posts.n_vocab, mapping.n_matchers
    )
    subscription = _pair_sums(
        posts_s.indptr, posts_s.indices, targets.indptr, targets.indices, counts
    )
    forest = placement.forest(subs)
    q_posts, q_tries = queries_from_targets(targets)
    res = forest.match(posts, q_posts, q_tries, collect=True)
    match_pair = np.repeat(np.arange(len(q_posts), dtype=np.int64), np.diff(res.ptr))
    matched_post = q_posts[match_pair]
    row_of_id = pd.Index(subs.post_ids)
    matched_sub = row_of_id.get_indexer(res.subs)
    pair_codes = matched_post * subs.n_posts + matched_sub
    uniq, match_key = np.unique(pair_codes, return_inverse=True)
    o_post, o_sub = oracle_matches(posts, subs)
    oracle_codes = o_post * subs.n_posts + o_sub
    in_oracle = np.isin(uniq, oracle_codes, assume_unique=True)
    missed = int(len(np.setdiff1d(oracle_codes, uniq, assume_unique=True)))
    info = {
        "posts": posts.n_posts,
        "subscriptions": subs.n_posts,
        "subscribed_words": int(subscribed.sum()),
        "n_matchers": mapping.n_matchers,
        "mapping": mapping.method,
        "placement": getattr(placement, "method", "?"),
        "pairs": len(q_posts),
        "spread": len(q_posts) / max(posts.n_posts, 1),
    }
    return Deliveries(
        targets,
        posts.post_ids,
        consensus,
        subscription,
        res.ops.astype(np.int64),
        match_pair,
        match_key.astype(np.int64),
        in_oracle,
        len(uniq),
        len(oracle_codes),
        int((~in_oracle).sum()),
        missed,
        info,
    )


# --------------------------------------------------------------------------- selection


def pair_tiebreak(post_ids: np.ndarray, matchers: np.ndarray, seed: int = 0) -> np.ndarray:
    """Seeded stable hash of (publication id, matcher): the tie-break among equal utilities
    (smaller wins)."""
    h = mix64(np.asarray(post_ids, dtype=np.int64), seed)
    return mix64((h ^ np.asarray(matchers, dtype=np.uint64)).view(np.int64), seed)


def forward_fraction(post_ids: np.ndarray, seed: int = 0) -> np.ndarray:
    """A uniform number in [0, 1) per publication: forward the ``floor(m) + 1``-th matcher iff
    it is below ``m - floor(m)``."""
    h = mix64(np.asarray(post_ids, dtype=np.int64), seed ^ _TAG_FRACTION)
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _check_m(m: float) -> tuple[int, float]:
    if math.isnan(m) or m < 0:
        raise ValueError(f"shedding threshold m must be >= 0 or inf, got {m}")
    if math.isinf(m):
        return -1, 0.0
    whole = int(math.floor(m))
    return whole, m - whole


def keep_mask(deliveries: Deliveries, m: float, method: str, seed: int = 0) -> np.ndarray:
    """Which pairs are still delivered when each publication goes to at most ``m`` matchers
    chosen by ``method``'s utility (highest first; ties by :func:`pair_tiebreak`)."""
    whole, frac = _check_m(m)
    utility = deliveries.utility(method)
    if whole < 0:
        return np.ones(deliveries.n_pairs, dtype=bool)
    post = deliveries.pair_post
    tie = pair_tiebreak(deliveries.post_ids[post], deliveries.targets.indices, seed)
    order = np.lexsort((tie, -utility, post))
    rank = np.empty(deliveries.n_pairs, dtype=np.int64)
    rank[order] = np.arange(deliveries.n_pairs) - deliveries.targets.indptr[post[order]]
    keep = rank < whole
    if frac > 0:
        extra = forward_fraction(deliveries.post_ids, seed)[post] < frac
        keep |= (rank == whole) & extra
    return keep


def keep_reference(
    utilities: Sequence[float],
    matchers: Sequence[int],
    post_id: int,
    m: float,
    seed: int = 0,
) -> list[int]:
    """The matchers one publication is still sent to (readable version of :func:`keep_mask`).

    Sort the targets by utility, highest first, ties by the seeded (post, matcher) hash;
    keep the first ``floor(m)``, and the next one if the post's forwarding number is below
    ``m - floor(m)``.
    """
    whole, frac = _check_m(m)
    if whole < 0:
        return sorted(matchers)
    ties = pair_tiebreak(np.full(len(matchers), post_id), np.asarray(matchers, np.int64), seed)
    ranked = sorted(range(len(matchers)), key=lambda i: (-utilities[i], int(ties[i])))
    n_keep = whole
    if frac > 0 and forward_fraction(np.array([post_id]), seed)[0] < frac:
        n_keep += 1
    return sorted(int(matchers[i]) for i in ranked[:n_keep])


def random_drop_mask(
    deliveries: Deliveries, target_shed: float, cost: str = "ops", seed: int = 0
) -> np.ndarray:
    """Publications kept (True) when random dropping sheds ``target_shed`` of the load.

    Publications are dropped in the seeded order of a stable hash of their ids until the
    dropped load reaches ``target_shed`` of the total (the last one may overshoot by at
    most one publication's load)."""
    if not 0 <= target_shed <= 1:
        raise ValueError(f"target_shed must be in [0, 1], got {target_shed}")
    per_post = np.bincount(
        deliveries.pair_post, weights=deliveries.cost(cost), minlength=deliveries.n_posts
    )
    total = per_post.sum()
    order = np.argsort(mix64(deliveries.post_ids, seed ^ _TAG_DROP), kind="stable")
    dropped_before = np.concatenate(([0.0], np.cumsum(per_post[order])[:-1]))
    keep = np.ones(deliveries.n_posts, dtype=bool)
    keep[order[dropped_before < target_shed * total - 1e-9]] = False
    return keep


# --------------------------------------------------------------------------- evaluation


def evaluate(deliveries: Deliveries, kept_pairs: np.ndarray) -> dict[str, float]:
    """Accuracy and load shed of a set of kept pairs.

    Returns ``accuracy`` (distinct correct produced matches / oracle matches), ``load_shed`` (trie
    ops), ``unit_shed`` (deliveries), ``produced``, ``false_matches`` (produced but not in
    the oracle), ``kept_pairs``, ``load_per_post`` (mean
    trie ops per publication) and ``spread`` (mean kept deliveries per publication).
    """
    kept_pairs = np.asarray(kept_pairs, dtype=bool)
    ops = deliveries.cost("ops")
    hits = np.bincount(
        deliveries.match_key,
        weights=kept_pairs[deliveries.match_pair],
        minlength=deliveries.n_matches,
    )
    produced_keys = hits > 0
    produced = int(np.count_nonzero(produced_keys))
    correct = int(np.count_nonzero(produced_keys & deliveries.key_in_oracle))
    total_ops = ops.sum()
    n_kept = int(kept_pairs.sum())
    n_posts = max(deliveries.n_posts, 1)
    return {
        "accuracy": correct / deliveries.n_oracle if deliveries.n_oracle else float("nan"),
        "load_shed": 1 - ops[kept_pairs].sum() / total_ops if total_ops else 0.0,
        "unit_shed": 1 - n_kept / deliveries.n_pairs if deliveries.n_pairs else 0.0,
        "produced": produced,
        "false_matches": produced - correct,
        "kept_pairs": n_kept,
        "load_per_post": float(ops[kept_pairs].sum() / n_posts),
        "spread": n_kept / n_posts,
    }
