"""SALB, Spread-Aware Load Balancing: a readable reference of S3-TM Algorithm 1 (Sect. 3.3).

This version follows the pseudocode line by line and is meant for reading and for tests;
experiments use the equivalent fast kernel :mod:`routelab.s3tm.salb_kernel`.

Arithmetic is exact (``fractions.Fraction``), so candidates with equal utility really
compare equal and the tie rule is well defined: **among matchers with the highest utility
the lowest matcher id wins** (the pseudocode's strict ``u > u*`` keeps the first). Since
``u = -r * b`` with ``r, b >= 0``, comparing ``u`` is the same as comparing
``(r * b)^2 = r^2 * var(L) / avg(L)^2``, which is rational; we compare that (no square root).

Reading notes (what the pseudocode leaves open; see also ``routelab/READINGS.md``):

- ``var`` is the population variance of the N candidate loads (the sample variance differs
  by the constant factor N/(N-1) and picks the same matcher);
- ``avg(L)`` is never 0: the first word assigned brings load ``l = |nbr(w)| >= 1``;
- W is the set of words occurring in the learning posts (already restricted to W^s when the
  caller gives subscriptions); words are taken in decreasing f(w), ties by the word string
  (:meth:`~routelab.s3tm.wordsets.Corpus.words_by_frequency`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from routelab.progress import tqdm
from routelab.s3tm.wordsets import Corpus


def salb_reference(posts: Corpus, n_matchers: int, *, progress: bool = False) -> np.ndarray:
    """Algorithm 1 on ``posts`` for ``n_matchers`` matchers.

    Returns:
        ``int32`` matcher (``0..N-1``) per word id of ``posts.vocab``; ``-1`` for words that
        occur in no post.
    """
    N = n_matchers
    publications = [set(p) for p in _post_word_ids(posts)]
    n_pub = len(publications)

    M: dict[int, int] = {}  # M <- {}                      initialize the mapping
    R = Fraction(0)  # R <- 0                               initialize the spread
    L = [0] * N  # for all i: L_i <- 0                      initialize loads
    # W <- union of P, and the word-to-publication bipartite graph G(W, P, E): nbr_G(w)
    nbr: dict[int, list[int]] = {}
    for p, words in enumerate(publications):
        for w in words:
            nbr.setdefault(w, []).append(p)
    W = posts.words_by_frequency()  # desc. order of f(w)

    for w in tqdm(W.tolist(), desc="SALB reference", disable=not progress, leave=False):
        best_rb2 = None  # u* <- -infinity  (u* = -sqrt(best_rb2))
        l_best = 0  # l* <- 0
        k = 0  # k <- 0
        for i in range(N):
            # extra load w brings to i: publications with w that have no word mapped to i yet
            l_i = sum(1 for P in nbr[w] if not any(M.get(w2) == i for w2 in publications[P]))
            r = R + Fraction(l_i, n_pub)  # spread if w -> i
            loads = [L[j] for j in range(N) if j != i] + [L[i] + l_i]  # union loads
            avg = Fraction(sum(loads), N)
            var = Fraction(sum(x * x for x in loads), N) - avg * avg  # E[x^2] - E[x]^2
            rb2 = r * r * var / (avg * avg)  # u = -r * b, b = sqrt(var) / avg
            if best_rb2 is None or rb2 < best_rb2:  # if u > u*
                best_rb2 = rb2  # u* <- u
                l_best = l_i  # l* <- l
                k = i  # k <- i
        L[k] += l_best  # update the load of the matcher
        R += Fraction(l_best, n_pub)  # update the spread
        M[w] = k  # add the new mapping

    out = np.full(posts.n_vocab, -1, dtype=np.int32)
    for w, i in M.items():
        out[w] = i
    return out


def _post_word_ids(posts: Corpus) -> list[list[int]]:
    return [
        posts.indices[posts.indptr[p] : posts.indptr[p + 1]].tolist() for p in range(posts.n_posts)
    ]
