"""The word network of S3-TM Sect. 3.2: word frequencies f(w) and co-occurrence
frequencies f(w1, w2) of the learning posts.

Both are stored as *counts* (number of posts); the paper's frequencies are the counts
divided by |P| (:meth:`WordNetwork.word_frequency`, :meth:`WordNetwork.pair_frequency`).
Only subscribed words W^s route a publication (Eq. 1), so the network can be restricted to
W^s: unsubscribed words get no vertex weight and no edges.

Two implementations with one result type, tested equal:

- :func:`word_network` on the driver: ``X^T X`` of the posts x words incidence matrix
  (scipy sparse), whose diagonal is f(w) and whose off-diagonal part is f(w1, w2);
- :func:`word_network_spark` on Spark: explode the word sets, generate the pairs of each
  post with array functions, and count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from routelab.errors import BadInputError
from routelab.s3tm.wordsets import Corpus

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


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


def word_network_spark(
    df: DataFrame, subscribed_words: Iterable[str] | None = None, *, words_col: str = "words"
) -> WordNetwork:
    """Word network of a posts DataFrame computed on Spark.

    Each post's words are cleaned into a sorted distinct set (null/empty words ignored),
    restricted to W^s when ``subscribed_words`` is given (broadcast join), paired with Spark
    array functions (no self-join), and counted by ``groupBy``. The counts are collected; the
    vocabulary is the sorted list of words with a non-zero count.

    Raises:
        BadInputError: ``words_col`` is missing.
    """
    from pyspark.sql import functions as F

    if words_col not in df.columns:
        raise BadInputError(f"posts DataFrame lacks column {words_col!r}; it has {df.columns}")
    spark = df.sparkSession
    n_posts = df.count()
    words = F.filter(F.col(words_col), lambda w: w.isNotNull() & (w != ""))
    posts = df.select(F.array_sort(F.array_distinct(words)).alias("ws"))
    if subscribed_words is not None:
        words_df = [(w,) for w in sorted(set(subscribed_words))]
        sub_df = spark.createDataFrame(words_df, "w string")
        posts = (
            df.select(F.monotonically_increasing_id().alias("row"), words.alias("ws"))
            .select("row", F.explode("ws").alias("w"))
            .join(F.broadcast(sub_df), on="w")
            .groupBy("row")
            .agg(F.array_sort(F.collect_set("w")).alias("ws"))
        )
    posts = posts.cache()
    try:
        freq = posts.select(F.explode("ws").alias("w")).groupBy("w").count().toPandas()
        n = F.size("ws")
        pairs_col = F.when(
            n >= 2,
            F.flatten(
                F.transform(
                    F.sequence(F.lit(1), n - 1),
                    lambda i: F.transform(
                        F.slice("ws", i + 1, n - i),
                        lambda b: F.struct(F.element_at("ws", i).alias("a"), b.alias("b")),
                    ),
                )
            ),
        )
        pairs = (
            posts.select(F.explode(pairs_col).alias("p"))
            .groupBy(F.col("p.a").alias("a"), F.col("p.b").alias("b"))
            .count()
            .toPandas()
        )
    finally:
        posts.unpersist()
    vocab = sorted(freq["w"].tolist())
    index = {w: j for j, w in enumerate(vocab)}
    counts = np.zeros(len(vocab), dtype=np.int64)
    counts[[index[w] for w in freq["w"]]] = freq["count"].to_numpy(dtype=np.int64)
    a = np.array([index[w] for w in pairs["a"]], dtype=np.int64)
    b = np.array([index[w] for w in pairs["b"]], dtype=np.int64)
    c = pairs["count"].to_numpy(dtype=np.int64)
    cooc = sp.coo_matrix(
        (np.concatenate([c, c]), (np.concatenate([a, b]), np.concatenate([b, a]))),
        shape=(len(vocab), len(vocab)),
    ).tocsr()
    cooc.sort_indices()
    return WordNetwork(vocab, counts, cooc, n_posts)
