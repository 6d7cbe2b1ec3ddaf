"""Flat-array trie kernel == reference trie (matches, op counts, trie sizes)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routelab.s3tm.trie_kernel import build_forest, queries_from_targets
from routelab.s3tm.trie_reference import SubscriptionTrie, brute_force_match
from routelab.s3tm.wordsets import Corpus

WORDS = [f"w{i}" for i in range(15)] + ["Zeta", "alpha", "\u00e9t\u00e9"]
# publications may hold words no subscription uses (they still cost probes)
PUB_WORDS = [*WORDS, "aardvark", "w10a", "zzz", "W"]


@settings(max_examples=120)
@given(
    subs=st.lists(
        st.tuples(st.frozensets(st.sampled_from(WORDS), min_size=1, max_size=5), st.integers(0, 3)),
        max_size=40,
    ),
    pubs=st.lists(st.frozensets(st.sampled_from(PUB_WORDS), max_size=9), min_size=1, max_size=8),
)
def test_kernel_equals_reference(subs, pubs):
    n_tries = 4
    ids = np.arange(len(subs), dtype=np.int64) * 5 + 11
    corpus = Corpus.from_word_lists([sorted(w) for w, _ in subs], post_ids=ids)
    tries = np.array([t for _, t in subs], dtype=np.int64)
    forest = build_forest(corpus, n_tries, np.arange(len(subs)), tries)
    refs = [SubscriptionTrie() for _ in range(n_tries)]
    for sid, (words, t) in zip(ids.tolist(), subs, strict=True):
        refs[t].add(sid, words)
    assert forest.unique_words.tolist() == [r.unique_words for r in refs]
    assert forest.n_nodes.tolist() == [r.n_nodes + 1 for r in refs]  # + root
    assert forest.n_subs.tolist() == [len(r) for r in refs]
    posts = Corpus.from_word_lists([sorted(p) for p in pubs])  # its own vocabulary
    rows = np.repeat(np.arange(len(pubs)), n_tries)
    qt = np.tile(np.arange(n_tries), len(pubs))
    res = forest.match(posts, rows, qt)
    counted = forest.match(posts, rows, qt, collect=False)
    assert np.array_equal(res.ops, counted.ops)
    assert np.array_equal(res.n_matches, counted.n_matches)
    for q in range(len(rows)):
        matched, ops = refs[qt[q]].match_ops(pubs[rows[q]])
        assert res.of(q) == matched
        assert res.ops[q] == ops
        assert res.n_matches[q] == len(matched)


def test_hand_example_and_words_api():
    corpus = Corpus.from_word_lists([["a", "b"], ["a"], ["b", "c"], ["a", "b", "d"]])
    forest = build_forest(corpus)  # sub ids 0..3, one trie
    # same trie as tests/test_s3tm_trie.py::test_hand_example_matches_and_ops
    assert forest.match_words(["a", "b", "c"]) == ([0, 1, 2], 7)
    assert forest.match_words(["d"]) == ([], 1)
    assert forest.unique_words.tolist() == [4]
    subs = {i: frozenset(w) for i, w in enumerate(corpus.word_lists())}
    assert forest.match_words(["a", "b", "d", "q"])[0] == brute_force_match(subs, "abdq")


def test_multicopy_and_queries_from_targets():
    corpus = Corpus.from_word_lists([["hot"], ["hot", "x"]])
    forest = build_forest(corpus, 3, np.array([0, 0, 1]), np.array([0, 2, 1]))
    assert forest.multicopy and forest.n_subs.tolist() == [1, 1, 1]

    class _T:  # a Targets-like CSR: post 0 -> {0, 2}, post 1 -> {}, post 2 -> {1}
        indptr = np.array([0, 2, 2, 3])
        indices = np.array([0, 2, 1])

    rows, tries = queries_from_targets(_T)
    assert rows.tolist() == [0, 0, 2] and tries.tolist() == [0, 2, 1]


def test_bad_entries_are_rejected():
    corpus = Corpus.from_word_lists([["a"], []])
    with pytest.raises(ValueError, match="no words"):
        build_forest(corpus)
    with pytest.raises(ValueError, match="twice"):
        build_forest(corpus, 2, np.array([0, 0]), np.array([1, 1]))
    with pytest.raises(ValueError, match="0..1"):
        build_forest(corpus, 2, np.array([0]), np.array([2]))
