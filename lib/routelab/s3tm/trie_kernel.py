"""Fast flat-array trie matcher (numba): the same tries, matches and op counts as the
reference :class:`routelab.s3tm.trie_reference.SubscriptionTrie` (S3-TM Sect. 4.1).

A :class:`TrieForest` holds one trie per matcher (``n_tries`` of them; trie ``t``'s root is
node ``t``) built in one pass from a subscription :class:`~routelab.s3tm.wordsets.Corpus`
and a list of *entries* ``(subscription row, trie)``: a subscription normally sits on one
trie (its matcher), a multicast hot-word subscription (Sect. 5.1, category iii) on several.

Layout (all numpy arrays, so a forest pickles cheaply and ships to Spark executors):

- words are identified by their **lexicographic rank** among the forest's words, so sorting
  ranks sorts words the way the reference sorts strings (Python's code-point order);
- all child tables of all nodes share one open-addressing hash table keyed by
  ``node * n_ranks + rank`` (linear probing, Fibonacci hashing);
- subscriptions ending at a node are a CSR slice ``node_subs[node_ptr[v]:node_ptr[v + 1]]``.

Matching a publication is the reference's scoped traversal with an explicit stack; one
**op** is one probe of a node's child table with one publication word, and nodes without
children are not probed -- exactly the reference's count. Publication words unknown to the
forest still cost their probes: they get "half ranks" (``2 * insertion point``) between the
known words' odd ranks ``2 * rank + 1``, so they sort where the reference puts them and
never hit a child.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from routelab.s3tm.wordsets import Corpus
from routelab.uniques import unique

__all__ = [
    "MatchResult",
    "TrieForest",
    "build_forest",
    "queries_from_targets",
    "unique_words_per_group",
]

_FIB = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, inline="always")
def _slot(key: np.int64, shift: np.uint64) -> np.int64:
    return np.int64((np.uint64(key) * _FIB) >> shift)


@numba.njit(cache=True, inline="always")
def _lookup(tkeys, tvals, key, shift, mask):
    """Child node for ``key`` (``node * n_ranks + rank``) or -1."""
    s = _slot(key, shift)
    while True:
        k = tkeys[s]
        if k == key:
            return tvals[s]
        if k == -1:
            return -1
        s = (s + 1) & mask


@numba.njit(cache=True, inline="always")
def _sort_small(buf, k):
    """Insertion sort of ``buf[:k]`` in place (word sets are short)."""
    for i in range(1, k):
        x = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > x:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = x


@numba.njit(cache=True)
def _rehash(tkeys, tvals, bits):
    """The same table with ``2 ** bits`` slots."""
    size = np.int64(1) << bits
    shift = np.uint64(64 - bits)
    mask = size - 1
    nkeys = np.full(size, -1, dtype=np.int64)
    nvals = np.full(size, -1, dtype=np.int32)
    for t in range(len(tkeys)):
        key = tkeys[t]
        if key == -1:
            continue
        s = _slot(key, shift)
        while nkeys[s] != -1:
            s = (s + 1) & mask
        nkeys[s] = key
        nvals[s] = tvals[t]
    return nkeys, nvals


@numba.njit(cache=True)
def _build(indptr, ranks, entry_rows, entry_tries, n_tries, n_ranks):
    """Insert every entry's sorted rank sequence. The table doubles whenever it gets half
    full. Returns the table and its bits, child counts and trie of every node, and the
    final node of every entry."""
    bits = np.int64(10)
    tkeys = np.full(np.int64(1) << bits, -1, dtype=np.int64)
    tvals = np.full(np.int64(1) << bits, -1, dtype=np.int32)
    cap = n_tries
    for e in range(len(entry_rows)):
        r = entry_rows[e]
        cap += indptr[r + 1] - indptr[r]
    n_children = np.zeros(cap, dtype=np.int32)
    node_trie = np.empty(cap, dtype=np.int64)
    node_trie[:n_tries] = np.arange(n_tries)
    end_node = np.empty(len(entry_rows), dtype=np.int64)
    n_nodes = n_tries
    n_keys = 0
    buf = np.empty(64, dtype=np.int64)
    for e in range(len(entry_rows)):
        r = entry_rows[e]
        k = indptr[r + 1] - indptr[r]
        if k > len(buf):
            buf = np.empty(2 * k, dtype=np.int64)
        for j in range(k):
            buf[j] = ranks[indptr[r] + j]
        _sort_small(buf, k)
        node = np.int64(entry_tries[e])
        for j in range(k):
            if 2 * (n_keys + 1) > len(tkeys):
                bits += 1
                tkeys, tvals = _rehash(tkeys, tvals, bits)
            shift = np.uint64(64 - bits)
            mask = len(tkeys) - 1
            key = node * n_ranks + buf[j]
            s = _slot(key, shift)
            while tkeys[s] != -1 and tkeys[s] != key:
                s = (s + 1) & mask
            if tkeys[s] == -1:
                tkeys[s] = key
                tvals[s] = n_nodes
                node_trie[n_nodes] = entry_tries[e]
                n_children[node] += 1
                n_nodes += 1
                n_keys += 1
            node = np.int64(tvals[s])
        end_node[e] = node
    return (
        tkeys,
        tvals,
        bits,
        n_children[:n_nodes].copy(),
        node_trie[:n_nodes].copy(),
        end_node,
    )


@numba.njit(cache=True)
def _match(
    indptr,
    half_ranks,
    q_posts,
    q_tries,
    tkeys,
    tvals,
    n_children,
    node_ptr,
    node_subs,
    n_ranks,
    bits,
    collect,
):
    """Scoped traversal for each query ``(post row, trie)``; see the module docstring."""
    shift = np.uint64(64 - bits)
    mask = (np.int64(1) << bits) - 1
    nq = len(q_posts)
    ops = np.zeros(nq, dtype=np.int64)
    n_match = np.zeros(nq, dtype=np.int64)
    out_ptr = np.zeros(nq + 1 if collect else 1, dtype=np.int64)
    out = np.empty(1024 if collect else 0, dtype=np.int64)
    n_out = 0
    pub = np.empty(64, dtype=np.int64)
    st_node = np.empty(4096, dtype=np.int64)
    st_pos = np.empty(4096, dtype=np.int64)
    for q in range(nq):
        p = q_posts[q]
        k = indptr[p + 1] - indptr[p]
        if k > len(pub):
            pub = np.empty(2 * k, dtype=np.int64)
        for j in range(k):
            pub[j] = half_ranks[indptr[p] + j]
        _sort_small(pub, k)
        words = pub
        start_out = n_out
        top = 0
        st_node[0] = q_tries[q]
        st_pos[0] = -1
        top = 1
        cnt_ops = 0
        cnt_match = 0
        while top > 0:
            top -= 1
            node = st_node[top]
            pos = st_pos[top]
            a, b = node_ptr[node], node_ptr[node + 1]
            cnt_match += b - a
            if collect and b > a:
                while n_out + (b - a) > len(out):
                    grown = np.empty(2 * len(out), dtype=np.int64)
                    grown[:n_out] = out[:n_out]
                    out = grown
                for i in range(a, b):
                    out[n_out] = node_subs[i]
                    n_out += 1
            if n_children[node] == 0:
                continue
            for j in range(pos + 1, k):
                cnt_ops += 1
                w = words[j]
                if w & 1 == 0:  # unknown to the forest: a probe that cannot hit
                    continue
                child = _lookup(tkeys, tvals, node * n_ranks + (w >> 1), shift, mask)
                if child >= 0:
                    if top == len(st_node):
                        g1 = np.empty(2 * top, dtype=np.int64)
                        g2 = np.empty(2 * top, dtype=np.int64)
                        g1[:top] = st_node[:top]
                        g2[:top] = st_pos[:top]
                        st_node, st_pos = g1, g2
                    st_node[top] = child
                    st_pos[top] = j
                    top += 1
        ops[q] = cnt_ops
        n_match[q] = cnt_match
        if collect:
            out[start_out:n_out].sort()
            out_ptr[q + 1] = n_out
    return ops, n_match, out_ptr, out[:n_out].copy()


@dataclass(frozen=True, eq=False)
class MatchResult:
    """Matching results per query ``(post row, trie)``.

    Attributes:
        ops: lookup operations per query.
        n_matches: matches per query (subscriptions of that trie contained in the post).
        ptr, subs: with ``collect=True``, query ``q``'s sorted matching sub ids are
            ``subs[ptr[q]:ptr[q + 1]]``; otherwise ``ptr`` is ``[0]`` and ``subs`` empty.
    """

    ops: np.ndarray
    n_matches: np.ndarray
    ptr: np.ndarray
    subs: np.ndarray

    def of(self, q: int) -> list[int]:
        """Matching sub ids of query ``q`` (needs ``collect=True``)."""
        return self.subs[self.ptr[q] : self.ptr[q + 1]].tolist()


@dataclass(frozen=True, eq=False)
class TrieForest:
    """One flat-array trie per matcher; build with :func:`build_forest`.

    Attributes:
        n_tries: number of tries (matchers).
        words: the forest's words in lexicographic order (rank -> word), a numpy unicode
            array.
        unique_words: |H(i)| per trie (distinct words of its subscriptions).
        n_subs: subscriptions (entries) per trie.
        n_nodes: nodes per trie, roots included.
        multicopy: some subscription sits on more than one trie.
    """

    n_tries: int
    words: np.ndarray
    tkeys: np.ndarray
    tvals: np.ndarray
    bits: int
    n_children: np.ndarray
    node_ptr: np.ndarray
    node_subs: np.ndarray
    unique_words: np.ndarray
    n_subs: np.ndarray
    n_nodes: np.ndarray
    multicopy: bool

    @property
    def n_ranks(self) -> int:
        """Number of distinct words in the forest."""
        return max(len(self.words), 1)

    def half_ranks(self, vocab: Sequence[str], used: np.ndarray | None = None) -> np.ndarray:
        """Per word id of ``vocab``: ``2 * rank + 1`` if the forest knows the word, else
        ``2 * (number of forest words before it)`` (see module docstring). With ``used``
        (a boolean mask over ``vocab``) only those entries are computed, the rest are 0."""
        out = np.zeros(len(vocab), dtype=np.int64)
        ids = np.arange(len(vocab)) if used is None else np.flatnonzero(used)
        if len(ids) == 0:
            return out
        v = np.asarray([vocab[j] for j in ids.tolist()], dtype=str)
        if len(self.words):
            idx = np.searchsorted(self.words, v).astype(np.int64)
        else:
            idx = np.zeros(len(v), dtype=np.int64)
        inside = idx < len(self.words)
        known = np.zeros(len(v), dtype=bool)
        known[inside] = self.words[idx[inside]] == v[inside]
        out[ids] = np.where(known, 2 * idx + 1, 2 * idx)
        return out

    def match(
        self,
        posts: Corpus,
        post_rows: np.ndarray,
        tries: np.ndarray,
        *,
        collect: bool = True,
        half_ranks: np.ndarray | None = None,
    ) -> MatchResult:
        """Match post ``post_rows[q]`` against trie ``tries[q]`` for every query ``q``.

        Args:
            posts: the publications (any vocabulary; words are compared as strings).
            post_rows, tries: the queries, e.g. from :func:`queries_from_targets`.
            collect: also return the matching sub ids (else only counts: much less memory
                for workloads with millions of matches).
            half_ranks: precomputed :meth:`half_ranks` of ``posts.vocab`` (reuse across
                calls on one corpus).
        """
        post_rows = np.ascontiguousarray(post_rows, dtype=np.int64)
        tries = np.ascontiguousarray(tries, dtype=np.int64)
        if len(post_rows) != len(tries):
            raise ValueError(f"{len(post_rows)} post rows but {len(tries)} tries")
        if len(tries) and (tries.min() < 0 or tries.max() >= self.n_tries):
            raise ValueError(f"trie ids must lie in 0..{self.n_tries - 1}")
        if len(post_rows) and (post_rows.min() < 0 or post_rows.max() >= posts.n_posts):
            raise ValueError(f"post rows must lie in 0..{posts.n_posts - 1}")
        if half_ranks is None:
            used = np.zeros(posts.n_vocab, dtype=bool)
            used[posts.indices] = True
            half_ranks = self.half_ranks(posts.vocab, used)
        hr = half_ranks
        ops, n_match, ptr, subs = _match(
            posts.indptr,
            hr[posts.indices],
            post_rows,
            tries,
            self.tkeys,
            self.tvals,
            self.n_children,
            self.node_ptr,
            self.node_subs,
            np.int64(self.n_ranks),
            np.int64(self.bits),
            collect,
        )
        return MatchResult(ops, n_match, ptr, subs)

    def match_words(self, words: Sequence[str], trie: int = 0) -> tuple[list[int], int]:
        """``(sorted matching sub ids, ops)`` of one publication on one trie (tests, demos)."""
        corpus = Corpus.from_word_lists([list(words)])
        res = self.match(corpus, np.zeros(1, np.int64), np.array([trie], dtype=np.int64))
        return res.of(0), int(res.ops[0])


def build_forest(
    subs: Corpus,
    n_tries: int = 1,
    entry_rows: np.ndarray | None = None,
    entry_tries: np.ndarray | None = None,
) -> TrieForest:
    """Build the tries of ``n_tries`` matchers from subscription entries.

    Args:
        subs: the subscriptions; their ``post_ids`` are the subscription ids reported by
            matching.
        n_tries: number of tries (matchers).
        entry_rows: subscription row of each entry (default: every row once).
        entry_tries: trie of each entry (default: all on trie 0).

    Raises:
        ValueError: mismatched entries, a trie id outside ``0..n_tries-1``, an empty
            subscription, or the same subscription twice on one trie.
    """
    if n_tries < 1:
        raise ValueError(f"n_tries must be >= 1, got {n_tries}")
    rows = (
        np.arange(subs.n_posts, dtype=np.int64)
        if entry_rows is None
        else np.ascontiguousarray(entry_rows, dtype=np.int64)
    )
    tries = (
        np.zeros(len(rows), dtype=np.int64)
        if entry_tries is None
        else np.ascontiguousarray(entry_tries, dtype=np.int64)
    )
    if len(rows) != len(tries):
        raise ValueError(f"{len(rows)} entry rows but {len(tries)} entry tries")
    if len(tries) and (tries.min() < 0 or tries.max() >= n_tries):
        raise ValueError(f"entry tries must lie in 0..{n_tries - 1}")
    if len(rows) and (rows.min() < 0 or rows.max() >= subs.n_posts):
        raise ValueError(f"entry rows must lie in 0..{subs.n_posts - 1}")
    lengths = subs.lengths()[rows]
    if np.any(lengths == 0):
        bad = int(subs.post_ids[rows[np.flatnonzero(lengths == 0)[0]]])
        raise ValueError(f"subscription {bad} has no words")
    counts = np.bincount(rows, minlength=subs.n_posts)
    repeated = np.flatnonzero(counts[rows] > 1)  # only multicast rows can repeat
    if len(repeated):
        pair = rows[repeated] * n_tries + tries[repeated]
        if len(unique(pair)) != len(pair):
            raise ValueError("a subscription appears twice on the same trie")
    # ranks of the words used by the entries, in lexicographic order
    used = np.flatnonzero(_used_words(subs.indptr, subs.indices, rows, subs.n_vocab))
    words = np.asarray([subs.vocab[j] for j in used], dtype=str)
    order = np.argsort(words, kind="stable")
    words = words[order]
    rank = np.full(subs.n_vocab, -1, dtype=np.int64)
    rank[used[order]] = np.arange(len(used))
    n_ranks = max(len(words), 1)
    tkeys, tvals, bits, n_children, node_trie, end_node = _build(
        subs.indptr, rank[subs.indices], rows, tries, np.int64(n_tries), np.int64(n_ranks)
    )
    n_nodes = len(n_children)
    order_e = np.argsort(end_node, kind="stable")
    node_subs = subs.post_ids[rows][order_e].astype(np.int64)
    node_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(end_node, minlength=n_nodes), out=node_ptr[1:])
    unique_words = unique_words_per_group(subs, rows, tries, n_tries)
    return TrieForest(
        n_tries=n_tries,
        words=words,
        tkeys=tkeys,
        tvals=tvals,
        bits=int(bits),
        n_children=n_children,
        node_ptr=node_ptr,
        node_subs=node_subs,
        unique_words=unique_words,
        n_subs=np.bincount(tries, minlength=n_tries).astype(np.int64),
        n_nodes=np.bincount(node_trie, minlength=n_tries).astype(np.int64),
        multicopy=bool(len(repeated) > 0),
    )


@numba.njit(cache=True)
def _used_words(indptr, indices, rows, n_vocab):
    used = np.zeros(n_vocab, dtype=np.bool_)
    for r in rows:
        for j in range(indptr[r], indptr[r + 1]):
            used[indices[j]] = True
    return used


@numba.njit(cache=True)
def _unique_per_group(indptr, indices, rows, groups, n_groups, n_vocab):
    seen = np.zeros((n_groups, n_vocab), dtype=np.uint8)
    out = np.zeros(n_groups, dtype=np.int64)
    for e in range(len(rows)):
        g = groups[e]
        r = rows[e]
        for j in range(indptr[r], indptr[r + 1]):
            w = indices[j]
            if seen[g, w] == 0:
                seen[g, w] = 1
                out[g] += 1
    return out


def unique_words_per_group(
    subs: Corpus, rows: np.ndarray, groups: np.ndarray, n_groups: int
) -> np.ndarray:
    """Distinct words of the subscriptions ``rows[e]`` in each group ``groups[e]``:
    |H(i)| per matcher for a placement's entries."""
    return _unique_per_group(
        subs.indptr,
        subs.indices,
        np.ascontiguousarray(rows, dtype=np.int64),
        np.ascontiguousarray(groups, dtype=np.int64),
        int(n_groups),
        max(subs.n_vocab, 1),
    )


def queries_from_targets(targets: object) -> tuple[np.ndarray, np.ndarray]:
    """``(post rows, tries)``: one query per (post, target matcher) of a
    :class:`~routelab.s3tm.routing.Targets`."""
    sizes = np.diff(targets.indptr)  # type: ignore[attr-defined]
    rows = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    return rows, np.asarray(targets.indices, dtype=np.int64)  # type: ignore[attr-defined]
