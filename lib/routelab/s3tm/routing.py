"""A learned word-to-matcher mapping M and publication routing K(P, M) (S3-TM Sect. 3.1).

:class:`Mapping` holds M for the words seen at learning time; a word unseen then falls back
to the hash policy (Sect. 3.1, last paragraphs) -- the same seeded stable string hash
:func:`routelab.hashing.string_bucket` the ``hash`` method uses. A hot word split into
versions (Sect. 5.1) maps each version to a matcher; an occurrence picks its version with
:func:`routelab.s3tm.skew.version_of`.

:meth:`Mapping.route` computes, for every post, the set of target matchers

    K(P, M) = union over w in P and W^s of {M(w)}          (Eq. 1)

as a CSR structure (:class:`Targets`), in one numba pass over the posts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
import pandas as pd

from routelab.hashing import seed_constant, string_bucket
from routelab.s3tm.skew import VERSION_SEPARATOR, version_of, word_key
from routelab.s3tm.wordsets import Corpus


@dataclass(frozen=True, eq=False)
class Targets:
    """K(P, M) for every post: post ``p`` goes to ``indices[indptr[p]:indptr[p+1]]``
    (sorted distinct matcher ids)."""

    indptr: np.ndarray
    indices: np.ndarray
    n_matchers: int

    @property
    def n_posts(self) -> int:
        """Number of routed posts (including those sent nowhere)."""
        return len(self.indptr) - 1

    def sizes(self) -> np.ndarray:
        """|K(P, M)| of every post (the multicast sizes)."""
        return np.diff(self.indptr)

    def loads(self) -> np.ndarray:
        """Publications routed to each matcher, L(i, M) under unit cost (``int64``, length N)."""
        return np.bincount(self.indices, minlength=self.n_matchers).astype(np.int64)

    def of(self, post: int) -> list[int]:
        """Targets of post ``post`` (row number)."""
        return self.indices[self.indptr[post] : self.indptr[post + 1]].tolist()


@dataclass(frozen=True, eq=False)
class Mapping:
    """Word -> matcher mapping for ``n_matchers`` matchers.

    Attributes:
        n_matchers: N.
        method: the learning method (``hash``, ``gC``, ``gFC``, ``gFCL``, ``gNFCL``, ``SALB``).
        seed: seed of the fallback hash and of the version choice.
        assignment: learned (non-split) word -> matcher in ``0..N-1``.
        versions: hot word -> matcher of each of its versions (empty without splitting).
        hot_counts: hot word -> number of learning posts containing it.
        info: learning details (time, corpus sizes, parameters).
    """

    n_matchers: int
    method: str
    seed: int
    assignment: dict[str, int]
    versions: dict[str, tuple[int, ...]] = field(default_factory=dict)
    hot_counts: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.n_matchers < 1:
            raise ValueError(f"n_matchers must be >= 1, got {self.n_matchers}")
        bad = [w for w, m in self.assignment.items() if not 0 <= m < self.n_matchers]
        bad += [
            w for w, ms in self.versions.items() if any(not 0 <= m < self.n_matchers for m in ms)
        ]
        if bad:
            raise ValueError(f"matcher ids outside 0..{self.n_matchers - 1} for {bad[:5]}")

    # ------------------------------------------------------------------ lookups
    def covers(self, word: str) -> bool:
        """Whether ``word`` was learned (plain or split)."""
        return word in self.assignment or word in self.versions

    def fallback(self, word: str) -> int:
        """The hash policy for words unseen at learning time."""
        return string_bucket(word, self.n_matchers, self.seed)

    def matcher_of(self, word: str) -> int:
        """M(w) for a non-split word (learned or by the hash fallback).

        Raises:
            KeyError: ``word`` is split; use :meth:`matchers_of`.
        """
        if word in self.versions:
            raise KeyError(f"{word!r} is split into versions; use matchers_of()")
        m = self.assignment.get(word)
        return self.fallback(word) if m is None else m

    def matchers_of(self, word: str) -> tuple[int, ...]:
        """All matchers that may receive ``word`` (its versions' matchers if split)."""
        if word in self.versions:
            return self.versions[word]
        return (self.matcher_of(word),)

    def to_frame(self) -> pd.DataFrame:
        """One row per (word, version) with its matcher; version -1 for unsplit words."""
        rows = [(w, -1, m) for w, m in self.assignment.items()]
        rows += [(w, v, m) for w, ms in self.versions.items() for v, m in enumerate(ms)]
        return pd.DataFrame(rows, columns=["word", "version", "matcher"])

    # ------------------------------------------------------------------ routing
    def lookup_tables(self, vocab: list[str]) -> dict[str, np.ndarray]:
        """Per-vocabulary-word arrays used by the routing kernel.

        ``base``: matcher of non-split words; ``n_versions``: 1, or k for split words;
        ``vptr``/``vtable``: version matchers of split words; ``keys``: version hash keys.
        """
        n = len(vocab)
        base = np.empty(n, dtype=np.int32)
        n_versions = np.ones(n, dtype=np.int64)
        vptr = np.zeros(n, dtype=np.int64)
        keys = np.zeros(n, dtype=np.uint64)
        vtable: list[int] = []
        for j, w in enumerate(vocab):
            ms = self.versions.get(w)
            if ms is None:
                base[j] = self.matcher_of(w)
            else:
                base[j] = ms[0]
                n_versions[j] = len(ms)
                vptr[j] = len(vtable)
                keys[j] = word_key(w, self.seed)
                vtable.extend(ms)
        return {
            "base": base,
            "n_versions": n_versions,
            "vptr": vptr,
            "vtable": np.asarray(vtable, dtype=np.int32),
            "keys": keys,
        }

    def route(self, corpus: Corpus, subscribed: Iterable[str] | None = None) -> Targets:
        """K(P, M) of every post of ``corpus`` (Eq. 1).

        Args:
            corpus: the publications.
            subscribed: W^s; only these words route a publication. ``None``: all words.
        """
        tables = self.lookup_tables(corpus.vocab)
        use = (
            np.ones(corpus.n_vocab, dtype=bool)
            if subscribed is None
            else corpus.word_mask(subscribed)
        )
        indptr, indices = _route_kernel(
            corpus.indptr,
            corpus.indices,
            corpus.post_ids,
            use,
            tables["base"],
            tables["n_versions"],
            tables["vptr"],
            tables["vtable"],
            tables["keys"],
            seed_constant(self.seed),
            self.n_matchers,
        )
        return Targets(indptr, indices, self.n_matchers)


@numba.njit(cache=True)
def _route_kernel(
    indptr, indices, post_ids, use, base, n_versions, vptr, vtable, keys, seed_const, n_matchers
):
    n = len(indptr) - 1
    stamp = np.full(n_matchers, -1, dtype=np.int64)
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    out = np.empty(len(indices), dtype=np.int32)
    pos = 0
    for p in range(n):
        start = pos
        for j in range(indptr[p], indptr[p + 1]):
            w = indices[j]
            if not use[w]:
                continue
            k = n_versions[w]
            if k == 1:
                m = base[w]
            else:
                m = vtable[vptr[w] + version_of(post_ids[p], keys[w], seed_const, k)]
            if stamp[m] != p:
                stamp[m] = p
                out[pos] = m
                pos += 1
        out[start:pos].sort()
        out_ptr[p + 1] = pos
    return out_ptr, out[:pos].copy()


def mapping_from_assignment(
    vocab: list[str],
    matchers: np.ndarray,
    n_matchers: int,
    method: str,
    seed: int,
    origin: dict[int, tuple[str, int]] | None = None,
    hot_counts: dict[str, int] | None = None,
    info: dict[str, Any] | None = None,
) -> Mapping:
    """Build a :class:`Mapping` from a per-word-id matcher array (``-1`` = not learned).

    ``origin`` maps the word ids of hot-word versions to ``(word, version)``; versions that
    did not occur in the learning posts get the hash fallback of their version name.
    """
    origin = origin or {}
    assignment: dict[str, int] = {}
    version_lists: dict[str, dict[int, int]] = {}
    for j in np.flatnonzero(matchers >= 0).tolist():
        if j in origin:
            word, v = origin[j]
            version_lists.setdefault(word, {})[v] = int(matchers[j])
        else:
            assignment[vocab[j]] = int(matchers[j])
    counts: dict[str, int] = {}
    for word, _version in origin.values():
        version_lists.setdefault(word, {})
        counts[word] = counts.get(word, 0) + 1
    versions = {
        word: tuple(
            found.get(v, string_bucket(f"{word}{VERSION_SEPARATOR}{v}", n_matchers, seed))
            for v in range(counts[word])
        )
        for word, found in version_lists.items()
    }
    return Mapping(
        n_matchers, method, seed, assignment, versions, dict(hot_counts or {}), dict(info or {})
    )
