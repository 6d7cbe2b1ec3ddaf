"""The word network of S3-TM Sect. 3.2: word frequencies f(w) and co-occurrence
frequencies f(w1, w2) of the learning posts.

Both are stored as *counts* (number of posts); the paper's frequencies are the counts
divided by |P| (:meth:`WordNetwork.word_frequency`, :meth:`WordNetwork.pair_frequency`).
Only subscribed words W^s route a publication (Eq. 1), so the network can be restricted to
W^s: unsubscribed words get no vertex weight and no edges.

Two implementations with one result type, tested equal:

- :func:`word_network` on the driver: ``X^T X`` of the posts x words incidence matrix
  (scipy sparse), whose diagonal is f(w) and whose off-diagonal part is f(w1, w2);
- :func:`routelab.s3tm.dataflow.word_network_spark` on Spark (Spark code lives in the
  dataflow module): explode the word sets, generate the pairs of each post with array
  functions, and count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from routelab.s3tm.wordsets import Corpus


@dataclass(frozen=True, eq=False)
class WordNetwork:
    """Word counts and pair counts over a vocabulary.

    Attributes:
        vocab: word id -> word (rows/columns of ``cooc``).
        freq: ``int64`` number of posts containing each word (|P| * f(w)).
        cooc: symmetric ``int64`` CSR matrix, zero diagonal: number of posts containing both
            words (|P| * f(w1, w2)); an edge of the word network iff non-zero.
        n_posts: |P|, the number of posts counted (including posts left without words).
    """

    vocab: list[str]
    freq: np.ndarray
    cooc: sp.csr_matrix
    n_posts: int

    def word_frequency(self) -> np.ndarray:
        """f(w) = |{P : w in P}| / |P| (Sect. 3.2)."""
        return self.freq / max(self.n_posts, 1)

    def pair_frequency(self) -> sp.csr_matrix:
        """f(w1, w2) = |{P : {w1, w2} in P}| / |P| (Sect. 3.2)."""
        return self.cooc.astype(np.float64) / max(self.n_posts, 1)

    def neighbour_count(self) -> np.ndarray:
        """|P| * f_n(w), with f_n(w) = sum of f(w, w') over the edges of w (Sect. 3.2.4)."""
        return np.asarray(self.cooc.sum(axis=1)).ravel().astype(np.int64)

    def n_edges(self) -> int:
        """Number of undirected edges (word pairs that co-occur at least once)."""
        return self.cooc.nnz // 2

    def freq_dict(self) -> dict[str, int]:
        """``word -> count`` for words with a non-zero count."""
        return {self.vocab[j]: int(self.freq[j]) for j in np.flatnonzero(self.freq)}

    def pair_dict(self) -> dict[tuple[str, str], int]:
        """``(w1, w2) -> count`` with ``w1 < w2`` (as strings), non-zero pairs only."""
        coo = sp.triu(self.cooc, k=1).tocoo()
        out = {}
        for a, b, c in zip(coo.row, coo.col, coo.data, strict=True):
            w1, w2 = sorted((self.vocab[a], self.vocab[b]))
            out[(w1, w2)] = int(c)
        return out


def word_network(corpus: Corpus, subscribed_words: Iterable[str] | None = None) -> WordNetwork:
    """Word network of ``corpus`` on the driver (scipy sparse ``X^T X``).

    Args:
        corpus: the learning posts.
        subscribed_words: W^s; if given, only these words get counts and edges.

    Returns:
        A :class:`WordNetwork` over ``corpus.vocab`` (same word ids).
    """
    if subscribed_words is not None:
        corpus = corpus.restrict(corpus.word_mask(subscribed_words))
    x = corpus.to_scipy()
    gram = (x.T @ x).tocsr()
    freq = gram.diagonal().astype(np.int64)
    gram.setdiag(0)
    gram.eliminate_zeros()
    gram.sort_indices()
    return WordNetwork(list(corpus.vocab), freq, gram.astype(np.int64), corpus.n_posts)
