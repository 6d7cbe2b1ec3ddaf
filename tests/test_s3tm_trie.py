"""Trie matcher reference (S3-TM Sect. 4.1): oracle equality, op counts, deletion."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routelab.errors import BadInputError
from routelab.s3tm.trie_reference import SubscriptionTrie, brute_force_match

WORDS = [f"w{i}" for i in range(12)]
word_sets = st.frozensets(st.sampled_from(WORDS), min_size=1, max_size=5)


def _trie(subs: dict[int, frozenset[str]]) -> SubscriptionTrie:
    t = SubscriptionTrie()
    for s, ws in subs.items():
        t.add(s, ws)
    return t


def test_hand_example_matches_and_ops():
    # sorted subscriptions: 1=[a,b], 2=[a], 3=[b,c], 4=[a,b,d]
    # trie: root{a{b{d}}, b{c}}; subs: a:[2], a.b:[1], a.b.d:[4], b.c:[3]
    t = _trie({1: frozenset("ab"), 2: frozenset("a"), 3: frozenset("cb"), 4: frozenset("abd")})
    assert t.unique_words == 4 and len(t) == 4 and t.n_nodes == 5
    # pub {a,b,c}: root probes a,b,c (3 ops; hits a, b); node a (pos 0) probes b,c (2; hit b);
    # node a.b (pos 1) probes c (1; miss); node b (pos 1) probes c (1; hit c); b.c is a leaf
    assert t.match_ops({"a", "b", "c"}) == ([1, 2, 3], 7)
    # pub {d}: root probes d (1 op, miss): nothing, no deeper probes
    assert t.match_ops({"d"}) == ([], 1)
    # words outside the trie cost probes at the root only
    assert t.match_ops({"a", "x", "y"}) == ([2], 3 + 2)


def test_internal_node_and_duplicate_words():
    t = SubscriptionTrie()
    t.add(7, ["b", "a", "a"])  # duplicates dropped, sorted
    t.add(8, ["a"])
    assert t.words_of(7) == ("a", "b")
    assert t.match(["a"]) == [8]
    assert t.match(["a", "b", "z"]) == [7, 8]


def test_bad_input_is_rejected_with_reason():
    t = SubscriptionTrie()
    with pytest.raises(BadInputError, match="no words"):
        t.add(1, [])
    with pytest.raises(BadInputError, match="string"):
        t.add(1, "health")
    with pytest.raises(BadInputError, match="non-empty"):
        t.add(1, ["a", ""])
    t.add(1, ["a"])
    with pytest.raises(BadInputError, match="already"):
        t.add(1, ["b"])


@settings(max_examples=150)
@given(
    subs=st.dictionaries(st.integers(0, 200), word_sets, max_size=40),
    pubs=st.lists(st.frozensets(st.sampled_from(WORDS), max_size=8), min_size=1, max_size=10),
)
def test_trie_equals_oracle(subs, pubs):
    t = _trie(subs)
    assert t.unique_words == len(set().union(*subs.values())) if subs else t.unique_words == 0
    for p in pubs:
        assert t.match(p) == brute_force_match(subs, p)


@settings(max_examples=100)
@given(
    subs=st.dictionaries(st.integers(0, 100), word_sets, min_size=1, max_size=30),
    data=st.data(),
)
def test_deletion_equals_rebuild_and_prunes(subs, data):
    removed = data.draw(st.sets(st.sampled_from(sorted(subs))))
    t = _trie(subs)
    for s in removed:
        assert t.remove(s)
        assert not t.remove(s)
    kept = {s: w for s, w in subs.items() if s not in removed}
    fresh = _trie(kept)
    assert len(t) == len(kept)
    # pruning leaves exactly the trie built from the survivors: same nodes, words and ops
    assert t.n_nodes == fresh.n_nodes
    assert t.unique_words == fresh.unique_words
    pubs = data.draw(st.lists(st.frozensets(st.sampled_from(WORDS)), min_size=1, max_size=5))
    for p in pubs:
        assert t.match_ops(p) == fresh.match_ops(p)
        assert t.match(p) == brute_force_match(kept, p)


def test_remove_everything_leaves_empty_root():
    t = _trie({1: frozenset("abc"), 2: frozenset("ab"), 3: frozenset("x")})
    for s in (2, 1, 3):
        t.remove(s)
    assert len(t) == 0 and t.n_nodes == 0 and t.unique_words == 0
    assert t.match_ops({"a", "b"}) == ([], 0)  # empty root: no probes at all
