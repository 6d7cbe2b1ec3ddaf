"""Posts and subscriptions as word sets in CSR form (S3-TM Sect. 3.1: a publication is a set
of words).

A :class:`Corpus` stores ``n`` posts over a vocabulary ``vocab`` (word id -> word):
post ``p`` holds the word ids ``indices[indptr[p]:indptr[p + 1]]``, sorted and distinct.
Every post keeps its ``post_id`` (int64), which seeds the per-occurrence choices of hot-word
splitting (Sect. 5.1). Subscriptions use the same class; build them with the posts'
vocabulary (``vocab=posts.vocab``) so both share word ids, new words getting new ids.

Inputs are checked: a malformed post raises :class:`~routelab.errors.BadInputError` naming
the post and the reason; records that can be repaired (an empty or null word, a null word
list) are dropped and counted by reason in :attr:`Corpus.issues`, never silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from routelab.errors import BadInputError
from routelab.uniques import unique

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True, eq=False)
class Corpus:
    """Posts (or subscriptions) as sorted distinct word-id sets in CSR form.

    Attributes:
        indptr: ``int64``, length ``n_posts + 1``.
        indices: ``int32`` word ids; sorted and distinct within each post.
        vocab: word id -> word.
        post_ids: ``int64`` id of each post (default ``0..n-1``).
        issues: repaired input problems, ``reason -> count``.
    """

    indptr: np.ndarray
    indices: np.ndarray
    vocab: list[str]
    post_ids: np.ndarray = None  # type: ignore[assignment]
    issues: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        indptr = np.ascontiguousarray(self.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(self.indices, dtype=np.int32)
        n = len(indptr) - 1
        if n < 0 or indptr[0] != 0 or indptr[-1] != len(indices):
            raise ValueError("indptr must start at 0 and end at len(indices)")
        if np.any(np.diff(indptr) < 0):
            raise ValueError("indptr must be non-decreasing")
        if len(indices) and (indices.min() < 0 or indices.max() >= len(self.vocab)):
            raise ValueError("word ids must lie in 0..len(vocab)-1")
        # sorted and distinct within each post: consecutive ids increase except across posts
        step_ok = np.diff(indices.astype(np.int64)) > 0
        boundary = np.zeros(max(len(indices) - 1, 0), dtype=bool)
        inner = indptr[1:-1]
        inner = inner[(inner > 0) & (inner < len(indices))]
        boundary[inner - 1] = True
        if not np.all(step_ok | boundary):
            raise ValueError("word ids of each post must be sorted and distinct")
        post_ids = (
            np.arange(n, dtype=np.int64)
            if self.post_ids is None
            else np.ascontiguousarray(self.post_ids, dtype=np.int64)
        )
        if len(post_ids) != n:
            raise ValueError(f"{len(post_ids)} post ids for {n} posts")
        object.__setattr__(self, "indptr", indptr)
        object.__setattr__(self, "indices", indices)
        object.__setattr__(self, "vocab", list(self.vocab))
        object.__setattr__(self, "post_ids", post_ids)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_word_lists(
        cls,
        word_lists: Iterable[Iterable[str]],
        vocab: Sequence[str] | None = None,
        post_ids: Sequence[int] | np.ndarray | None = None,
    ) -> Corpus:
        """Build from one iterable of words per post (duplicates within a post are merged).

        Args:
            word_lists: the posts, e.g. ``[["obama", "health"], ["game"]]``.
            vocab: an existing vocabulary to extend (e.g. the posts' when encoding
                subscriptions); new words get new ids in sorted order after it. Default:
                the sorted distinct words.
            post_ids: one id per post (default ``0..n-1``).

        Raises:
            BadInputError: a post is a bare string or holds a non-string word.
        """
        posts: list[list[str]] = []
        issues: dict[str, int] = {}
        for i, words in enumerate(word_lists):
            if words is None:
                issues["null word list"] = issues.get("null word list", 0) + 1
                posts.append([])
                continue
            if isinstance(words, str | bytes):
                raise BadInputError(
                    f"post {i}: expected a list of words, got the string {words[:40]!r}"
                )
            kept: set[str] = set()
            for w in words:
                if w is None or w == "":
                    issues["empty or null word"] = issues.get("empty or null word", 0) + 1
                    continue
                if not isinstance(w, str):
                    raise BadInputError(f"post {i}: word {w!r} is a {type(w).__name__}, not str")
                kept.add(w)
            posts.append(sorted(kept))
        base = list(vocab) if vocab is not None else []
        index = {w: j for j, w in enumerate(base)}
        new_words = sorted({w for p in posts for w in p if w not in index})
        for w in new_words:
            index[w] = len(base)
            base.append(w)
        lengths = np.fromiter((len(p) for p in posts), dtype=np.int64, count=len(posts))
        indptr = np.zeros(len(posts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.fromiter(
            (index[w] for p in posts for w in p), dtype=np.int32, count=int(indptr[-1])
        )
        _sort_within_posts(indptr, indices)
        return cls(indptr, indices, base, post_ids=post_ids, issues=issues)

    @classmethod
    def from_spark(
        cls,
        df: DataFrame,
        vocab: Sequence[str] | None = None,
        *,
        id_col: str = "post_id",
        words_col: str = "words",
    ) -> Corpus:
        """Build from a Spark DataFrame with an id column and ``words`` ``array<string>``.

        The vocabulary (sorted distinct words, appended to ``vocab`` when given) and the
        word ids are computed on Spark by exploding the word arrays and joining with the
        vocabulary; only ``(post_id, word_id)`` pairs are collected. Posts come out sorted by
        id; posts without words are kept (empty).

        Raises:
            BadInputError: a column is missing, an id is null or duplicated.
        """
        from pyspark.sql import functions as F

        missing = [c for c in (id_col, words_col) if c not in df.columns]
        if missing:
            raise BadInputError(f"posts DataFrame lacks column(s) {missing}; it has {df.columns}")
        spark = df.sparkSession
        checks = df.agg(
            F.count(F.lit(1)).alias("rows"),
            F.countDistinct(id_col).alias("ids"),
            F.sum(F.col(id_col).isNull().cast("long")).alias("null_ids"),
            F.sum(F.col(words_col).isNull().cast("long")).alias("null_lists"),
            F.sum(
                F.coalesce(F.size(F.filter(words_col, lambda w: w.isNull() | (w == ""))), F.lit(0))
            ).alias("bad_words"),
        ).first()
        if checks["null_ids"]:
            raise BadInputError(f"{checks['null_ids']} posts have a null {id_col}")
        if checks["ids"] != checks["rows"]:
            raise BadInputError(
                f"{checks['rows'] - checks['ids']} duplicate {id_col} values among "
                f"{checks['rows']} posts"
            )
        exploded = df.select(
            F.col(id_col).cast("long").alias("pid"), F.explode_outer(words_col).alias("word")
        )
        valid = exploded.filter(F.col("word").isNotNull() & (F.col("word") != ""))
        seen = [r[0] for r in valid.select("word").distinct().collect()]
        base = list(vocab) if vocab is not None else []
        known = set(base)
        base.extend(sorted(w for w in seen if w not in known))
        vocab_df = spark.createDataFrame(
            [(w, j) for j, w in enumerate(base)], "word string, wid int"
        )
        pairs = (
            exploded.join(F.broadcast(vocab_df), on="word", how="left")
            .select("pid", "wid")
            .toPandas()
        )
        pids = pairs["pid"].to_numpy(dtype=np.int64)
        wids_col = pairs["wid"]
        has_word = wids_col.notna().to_numpy()
        post_ids = unique(pids)
        rows = np.searchsorted(post_ids, pids[has_word])
        wids = wids_col[has_word].to_numpy(dtype=np.int64)
        indptr, indices = _csr_from_pairs(rows, wids, len(post_ids), len(base))
        issues = {}
        if checks["null_lists"]:
            issues["null word list"] = int(checks["null_lists"])
        if checks["bad_words"]:
            issues["empty or null word"] = int(checks["bad_words"])
        return cls(indptr, indices, base, post_ids=post_ids, issues=issues)

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        vocab: Sequence[str] | None = None,
        *,
        id_col: str = "post_id",
        words_col: str = "words",
    ) -> Corpus:
        """Build from a pandas DataFrame with an id column and a column of word lists/arrays.

        Vectorized (explode + factorize), for in-process corpora of millions of posts. Rows
        keep their order. New words get ids in sorted order after ``vocab``.

        Raises:
            BadInputError: a column is missing, an id is null or duplicated.
        """
        missing = [c for c in (id_col, words_col) if c not in df.columns]
        if missing:
            raise BadInputError(f"posts frame lacks column(s) {missing}; it has {list(df.columns)}")
        if df[id_col].isna().any():
            raise BadInputError(f"{int(df[id_col].isna().sum())} posts have a null {id_col}")
        post_ids = df[id_col].to_numpy(dtype=np.int64)
        n_dup = len(post_ids) - len(unique(post_ids))
        if n_dup:
            raise BadInputError(f"{n_dup} duplicate {id_col} values among {len(df)} posts")
        lists = df[words_col].reset_index(drop=True)
        null_lists = lists.isna()
        empty_lists = int((lists[~null_lists].map(len) == 0).sum())
        flat = lists.explode()
        present = flat.notna().to_numpy()
        null_words = int((~present).sum()) - int(null_lists.sum()) - empty_lists
        if present.any() and pd.api.types.infer_dtype(flat[present]) != "string":
            kind = pd.api.types.infer_dtype(flat[present])
            raise BadInputError(f"column {words_col!r} must hold lists of strings, found {kind}")
        valid = present & (flat != "").to_numpy()
        codes, uniques = pd.factorize(flat[valid], sort=True)
        base = list(vocab) if vocab is not None else []
        index = pd.Index(base)
        ids = index.get_indexer(uniques) if len(base) else np.full(len(uniques), -1)
        new = np.flatnonzero(ids < 0)
        ids[new] = len(base) + np.arange(len(new))
        base.extend(uniques[new].tolist())
        rows = flat.index.to_numpy()[valid]
        indptr, indices = _csr_from_pairs(
            rows.astype(np.int64), ids[codes].astype(np.int64), len(lists), len(base)
        )
        issues = {}
        if null_lists.any():
            issues["null word list"] = int(null_lists.sum())
        n_bad = null_words + int((present & ~valid).sum())
        if n_bad:
            issues["empty or null word"] = n_bad
        return cls(indptr, indices, base, post_ids=post_ids, issues=issues)

    # ----------------------------------------------------------------- basic properties
    @property
    def n_posts(self) -> int:
        """Number of posts."""
        return len(self.indptr) - 1

    @property
    def n_vocab(self) -> int:
        """Vocabulary size (word ids are ``0..n_vocab-1``)."""
        return len(self.vocab)

    @property
    def nnz(self) -> int:
        """Total number of (post, word) memberships."""
        return len(self.indices)

    def __len__(self) -> int:
        return self.n_posts

    @cached_property
    def word_index(self) -> dict[str, int]:
        """word -> word id."""
        return {w: i for i, w in enumerate(self.vocab)}

    def lengths(self) -> np.ndarray:
        """Number of words of each post (``int64``)."""
        return np.diff(self.indptr)

    def words_of(self, post: int) -> list[str]:
        """The words of post ``post`` (row number, not post id)."""
        return [self.vocab[j] for j in self.indices[self.indptr[post] : self.indptr[post + 1]]]

    def word_lists(self) -> list[list[str]]:
        """All posts as lists of words (small corpora, tests)."""
        return [self.words_of(p) for p in range(self.n_posts)]

    def doc_freq(self) -> np.ndarray:
        """Number of posts containing each word, ``|{P : w in P}|`` (``int64``, per word id)."""
        return np.bincount(self.indices, minlength=self.n_vocab).astype(np.int64)

    def word_mask(self, words: Iterable[str]) -> np.ndarray:
        """Boolean mask over the vocabulary: True for the given words (unknown ones ignored)."""
        mask = np.zeros(self.n_vocab, dtype=bool)
        index = self.word_index
        ids = [index[w] for w in words if w in index]
        mask[ids] = True
        return mask

    def words_by_frequency(self) -> np.ndarray:
        """Word ids with ``f(w) > 0`` in decreasing frequency; ties by the word string.

        This is the word order of SALB (Algorithm 1, "for w in W in desc. order of f(w)");
        the string tie-break makes it independent of how word ids were assigned.
        """
        freq = self.doc_freq()
        present = np.flatnonzero(freq > 0)
        words = np.array([self.vocab[j] for j in present], dtype=object)
        string_rank = np.empty(len(present), dtype=np.int64)
        string_rank[np.argsort(words, kind="stable")] = np.arange(len(present))
        return present[np.lexsort((string_rank, -freq[present]))]

    def to_scipy(self) -> sp.csr_matrix:
        """The posts x words incidence matrix (``int64`` ones)."""
        data = np.ones(self.nnz, dtype=np.int64)
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(self.n_posts, self.n_vocab))

    # ----------------------------------------------------------------- derived corpora
    def subset(self, rows: np.ndarray | Sequence[int]) -> Corpus:
        """The posts at row numbers ``rows`` (int array or boolean mask), same vocabulary."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if len(rows) != self.n_posts:
                raise ValueError(f"mask of length {len(rows)} for {self.n_posts} posts")
            rows = np.flatnonzero(rows)
        rows = rows.astype(np.int64)
        starts, lens = self.indptr[rows], np.diff(self.indptr)[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        gather = np.repeat(starts - indptr[:-1], lens) + np.arange(indptr[-1])
        return Corpus(
            indptr,
            self.indices[gather],
            self.vocab,
            post_ids=self.post_ids[rows],
            issues=dict(self.issues),
        )

    def restrict(self, word_mask: np.ndarray) -> Corpus:
        """Keep only the words where ``word_mask`` is True; every post is kept (maybe empty).

        Used to restrict posts to the subscribed words W^s (Eq. 1: only subscribed words
        route a publication).
        """
        word_mask = np.asarray(word_mask, dtype=bool)
        if len(word_mask) != self.n_vocab:
            raise ValueError(f"word mask of length {len(word_mask)} for {self.n_vocab} words")
        keep = word_mask[self.indices]
        kept_before = np.zeros(self.nnz + 1, dtype=np.int64)
        np.cumsum(keep, out=kept_before[1:])
        return Corpus(
            kept_before[self.indptr],
            self.indices[keep],
            self.vocab,
            post_ids=self.post_ids,
            issues=dict(self.issues),
        )


def _csr_from_pairs(
    rows: np.ndarray, wids: np.ndarray, n_rows: int, n_vocab: int
) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr, indices) from (row, word id) pairs; duplicate pairs are merged."""
    key = unique(rows * np.int64(n_vocab + 1) + wids)
    rows, wids = key // (n_vocab + 1), key % (n_vocab + 1)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return indptr, wids.astype(np.int32)


def _sort_within_posts(indptr: np.ndarray, indices: np.ndarray) -> None:
    """Sort each post's word ids in place (vectorized: one lexsort by (post, id))."""
    if len(indices) == 0:
        return
    row = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    indices[:] = indices[np.lexsort((indices, row))]


def as_corpus(posts: Any, vocab: Sequence[str] | None = None) -> Corpus:
    """Accept a :class:`Corpus`, a Spark or pandas DataFrame (``post_id``, ``words``) or
    word lists."""
    if isinstance(posts, Corpus):
        return posts
    if hasattr(posts, "sparkSession") and hasattr(posts, "columns"):
        return Corpus.from_spark(posts, vocab=vocab)
    if isinstance(posts, pd.DataFrame):
        return Corpus.from_frame(posts, vocab=vocab)
    return Corpus.from_word_lists(posts, vocab=vocab)


def subscribed_words(subscriptions: Any) -> frozenset[str] | None:
    """The subscribed word set W^s (Sect. 3.1) of ``subscriptions``; ``None`` means all words.

    Accepts ``None``, a :class:`Corpus` of subscriptions, a Spark DataFrame with a
    ``words`` column, a ``set``/``frozenset`` of words, or an iterable of word lists.
    """
    if subscriptions is None:
        return None
    if isinstance(subscriptions, Corpus):
        present = np.flatnonzero(subscriptions.doc_freq() > 0)
        return frozenset(subscriptions.vocab[j] for j in present)
    if isinstance(subscriptions, set | frozenset):
        return frozenset(subscriptions)
    if hasattr(subscriptions, "sparkSession") and hasattr(subscriptions, "columns"):
        from pyspark.sql import functions as F

        if "words" not in subscriptions.columns:
            raise BadInputError(
                f"subscriptions DataFrame lacks column 'words'; it has {subscriptions.columns}"
            )
        rows = subscriptions.select(F.explode("words").alias("w")).distinct().collect()
        return frozenset(r[0] for r in rows if r[0])
    return subscribed_words(Corpus.from_word_lists(subscriptions))
