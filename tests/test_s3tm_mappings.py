"""learn_mapping: coverage of learned words, METIS partitions, gNFCL weights, hash stability."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from routelab.datasets.synthetic import topic_tweets_pandas
from routelab.hashing import string_bucket
from routelab.s3tm import METHODS, Corpus, learn_mapping, word_network
from routelab.s3tm.partition import metis_graph, normalized_vertex_load, to_positive_int


@pytest.fixture(scope="module")
def posts() -> Corpus:
    df = topic_tweets_pandas(600, seed=3, vocab_size=300, topic_words=30, n_topics=6)
    return Corpus.from_frame(df)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("split_hot", [False, True])
def test_every_learned_word_is_covered(posts, method, split_hot):
    n = 16
    subs = [posts.words_of(p) for p in range(0, 600, 5)]
    subscribed = {w for s in subs for w in s}
    m = learn_mapping(posts, n, method, subscriptions=subs, seed=2, split_hot=split_hot)
    freq = posts.restrict(posts.word_mask(subscribed)).doc_freq()
    learned = {posts.vocab[w] for w in np.flatnonzero(freq)}
    # exactly the subscribed words that occur are learned (plain or split)
    assert set(m.assignment) | set(m.versions) == learned
    assert not set(m.assignment) & set(m.versions)
    assert m.info["n_hot"] == len(m.versions) and (len(m.versions) > 0) == split_hot
    matchers = list(m.assignment.values()) + [v for vs in m.versions.values() for v in vs]
    assert all(0 <= x < n for x in matchers)


@pytest.mark.parametrize("method", ["gC", "gFC", "gFCL", "gNFCL"])
@pytest.mark.parametrize("n", [2, 5, 32])
def test_metis_methods_use_n_parts_and_are_deterministic(posts, method, n):
    a = learn_mapping(posts, n, method, seed=4)
    b = learn_mapping(posts, n, method, seed=4)
    assert a.assignment == b.assignment
    parts = set(a.assignment.values())
    assert parts <= set(range(n))
    if n <= 5:  # METIS may leave a part empty on tiny graphs, not with a few parts
        assert len(parts) == n


@pytest.mark.parametrize("method", ["gC", "gFC", "gFCL", "gNFCL"])
def test_fewer_words_than_matchers_get_one_matcher_each(posts, method, capfd):
    """METIS cannot split k < N words into N parts (it prints 'Cannot bisect a graph with 0
    vertices!' and crowds the words together); each word gets its own matcher instead."""
    subscribed = {posts.vocab[j] for j in np.flatnonzero(posts.doc_freq())[:20]}
    m = learn_mapping(posts, 32, method, subscriptions=subscribed, split_hot=False)
    assert set(m.assignment) == subscribed
    assert sorted(m.assignment.values()) == list(range(20))
    assert "bisect" not in capfd.readouterr().out


@pytest.mark.parametrize("method", ["gFCL", "gNFCL"])
def test_metis_console_lines_are_counted_not_printed(method, capfd):
    """An unsplit word in every post outweighs a part's even share at 64 parts: METIS prints
    'Cannot bisect a graph with 0 vertices!'; the lines are counted in ``info`` and kept off
    the console, and the heaviest word still sits alone on its matcher."""
    rng = np.random.default_rng(1)
    lists = [["hot"] + [f"w{x}" for x in rng.integers(0, 200, size=3)] for _ in range(400)]
    m = learn_mapping(Corpus.from_word_lists(lists), 64, method, split_hot=False)
    assert m.info["metis_messages"] > 0
    assert "bisect" not in capfd.readouterr().out
    hot = m.assignment["hot"]
    assert [w for w, x in m.assignment.items() if x == hot] == ["hot"]


def _cut(net, mapping) -> int:
    """Total co-occurrence weight of edges whose words lie on different matchers."""
    part = np.array([mapping.matcher_of(w) for w in net.vocab])
    coo = net.cooc.tocoo()
    return int(coo.data[part[coo.row] != part[coo.col]].sum()) // 2


@pytest.mark.parametrize("method", ["gFC", "gFCL", "gNFCL"])
def test_metis_cuts_less_co_frequency_than_hashing(posts, method):
    net = word_network(posts)
    assert _cut(net, learn_mapping(posts, 8, method)) < _cut(net, learn_mapping(posts, 8, "hash"))


def test_graph_weights_follow_the_table(posts):
    net = word_network(posts)
    words = np.flatnonzero(net.freq)
    sub, vw, ew = metis_graph(net, words, "gC")
    assert vw is None and ew is None
    assert (sub != sub.T).nnz == 0 and sub.diagonal().sum() == 0
    _, vw, ew = metis_graph(net, words, "gFC")
    assert vw is None and ew.min() >= 1 and ew.sum() == net.cooc.sum()
    _, vw, _ = metis_graph(net, words, "gFCL")
    np.testing.assert_array_equal(vw, net.freq[words])
    _, vw, _ = metis_graph(net, words, "gNFCL", resolution=100)
    load = normalized_vertex_load(net.freq[words], net.neighbour_count()[words])
    assert np.all(np.abs(vw - 100 * load) <= 0.5 + (100 * load < 0.5))


def test_gnfcl_normalization_k_cooccurring_words():
    # k = 3 words x, y, z always together (4 posts), plus w alone (2 posts):
    # f_n(x) = f(x,y) + f(x,z) = 2 f(x) -> l(x) = f(x) / (1 + 2) = f(x) / 3;  l(w) = f(w)
    posts = Corpus.from_word_lists([["x", "y", "z"]] * 4 + [["w"]] * 2)
    net = word_network(posts)
    load = normalized_vertex_load(net.word_frequency(), net.neighbour_count() / net.n_posts)
    f = net.word_frequency()
    for word in "xyz":
        j = posts.word_index[word]
        assert load[j] == pytest.approx(f[j] / 3)
    assert load[posts.word_index["w"]] == pytest.approx(f[posts.word_index["w"]])
    assert load[[posts.word_index[w] for w in "xyz"]].sum() == pytest.approx(4 / 6)


def test_to_positive_int():
    np.testing.assert_array_equal(
        to_positive_int(np.array([0.0, 0.004, 0.02, 1.234])), [1, 1, 2, 123]
    )


def test_hash_mapping_uses_the_string_hash_and_fallback(posts):
    m = learn_mapping(posts, 7, "hash", seed=9)
    assert all(m.assignment[w] == string_bucket(w, 7, 9) for w in m.assignment)
    assert m.matcher_of("never-seen") == string_bucket("never-seen", 7, 9)


def test_hash_mapping_is_stable_across_processes():
    words = [["obama", "health"], ["game", "night", "health"], ["über", "café"]]
    here = learn_mapping(words, 13, "hash", seed=5).assignment
    code = (
        "import json; from routelab.s3tm import learn_mapping; "
        f"print(json.dumps(learn_mapping({words!r}, 13, 'hash', seed=5).assignment))"
    )
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        assert json.loads(out.stdout) == here


def test_unknown_method_and_bad_n():
    with pytest.raises(ValueError, match="unknown mapping method"):
        learn_mapping([["a"]], 2, "salb")
    with pytest.raises(ValueError, match="n_matchers"):
        learn_mapping([["a"]], 0, "hash")
