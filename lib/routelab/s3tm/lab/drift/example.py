"""The worked example of notebook 05: which top words enter and leave the top-k from one
window to the next (S3-TM Sect. 6.4, the drift the week-0 mapping has to survive).

A word's count in a window is its document frequency there (posts containing it; posts are
word sets). The top-k of a window are its k most frequent words, ties broken by the word
(alphabetically), so the table is deterministic and checkable by hand. For each transition
w -> w+1 the table lists the words that enter the top-k (in w+1's, not in w's), those that
leave it, and how many stay.

Hand example: window 0 counts {a: 5, b: 4, c: 3, d: 1}, window 1 {a: 2, c: 6, d: 4, e: 4};
top-2 of window 0 is (a, b), of window 1 (c, d) (d before e on the tie): entering c, d;
leaving a, b; 0 kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from routelab.s3tm.wordsets import Corpus

__all__ = ["data_turnover", "top_k", "top_word_turnover", "window_counts"]


def top_k(counts: Mapping[str, int], k: int) -> list[str]:
    """The ``k`` words with the highest counts (ties: alphabetical), most frequent first."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    return [w for w, _ in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:k]]


def window_counts(corpus: Corpus, windows: np.ndarray | Sequence[int]) -> list[dict[str, int]]:
    """Document frequency of every word, per window (window numbers 0..max of ``windows``;
    rows with window ``-1`` are in no window)."""
    windows = np.asarray(windows, dtype=np.int64)
    if len(windows) != corpus.n_posts:
        raise ValueError(f"{len(windows)} window numbers for {corpus.n_posts} posts")
    out = []
    for w in range(int(windows.max()) + 1 if len(windows) else 0):
        df = corpus.subset(np.flatnonzero(windows == w)).doc_freq()
        nz = np.flatnonzero(df)
        out.append({corpus.vocab[i]: int(df[i]) for i in nz})
    return out


def top_word_turnover(
    counts: Sequence[Mapping[str, int]], k: int = 10, labels: Sequence[str] | None = None
) -> pd.DataFrame:
    """One row per window transition: ``from``, ``to`` (window labels), ``entering`` and
    ``leaving`` (the words, each with its count in the window it is top in, in rank order),
    ``kept`` (top-k words in both)."""
    labels = [str(w) for w in range(len(counts))] if labels is None else list(labels)
    if len(labels) != len(counts):
        raise ValueError(f"{len(labels)} labels for {len(counts)} windows")
    tops = [top_k(c, k) for c in counts]
    rows = []
    for w in range(len(counts) - 1):
        before, after = tops[w], tops[w + 1]
        entering = [x for x in after if x not in before]
        leaving = [x for x in before if x not in after]
        rows.append(
            {
                "from": labels[w],
                "to": labels[w + 1],
                "entering": ", ".join(f"{x} ({counts[w + 1][x]})" for x in entering),
                "leaving": ", ".join(f"{x} ({counts[w][x]})" for x in leaving),
                "kept": len(set(before) & set(after)),
            }
        )
    return pd.DataFrame(rows, columns=["from", "to", "entering", "leaving", "kept"])


def data_turnover(data: object, k: int = 10) -> pd.DataFrame:
    """:func:`top_word_turnover` of a :class:`~routelab.s3tm.lab.drift.experiments.DriftData`
    (its own windows), labelled ``w (Mon YYYY)`` by each window's first post."""
    table = data.table  # type: ignore[attr-defined]
    labels = [
        f"{w} ({pd.Timestamp(t):%b %Y})"
        for w, t in zip(table["window"], table["first"], strict=True)
    ]
    counts = window_counts(data.corpus, data.windows)  # type: ignore[attr-defined]
    return top_word_turnover(counts, k, labels)
