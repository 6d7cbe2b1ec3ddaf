"""The worked example of notebook 04: the trie's lookups, counted by hand."""

from __future__ import annotations

from routelab.s3tm.lab.matching import example as mex


def test_trace_lists_every_probe_in_traversal_order():
    trie = mex.example_trie()
    trace: list = []
    matches, ops = trie.match_ops(mex.EXAMPLE_POSTS["A"], trace=trace)
    # hand count (module docstring): root 4, health 2, care 3, care > health 2
    assert trace == [
        ((), "care", True),
        ((), "health", True),
        ((), "obama", True),
        ((), "today", False),
        (("health",), "obama", True),
        (("health",), "today", False),
        (("care",), "health", True),
        (("care",), "obama", False),
        (("care",), "today", False),
        (("care", "health"), "obama", True),
        (("care", "health"), "today", False),
    ]
    assert (matches, ops) == ([1, 2, 3, 5], 11)
    assert ops == len(trace)


def test_trace_does_not_change_the_result():
    trie = mex.example_trie()
    for words in mex.EXAMPLE_POSTS.values():
        assert trie.match_ops(words, trace=[]) == trie.match_ops(words)


def test_lookup_table_post_b_by_hand():
    table = mex.lookup_table(mex.example_trie())
    b = table[table["post"] == "B"]
    assert list(b["at node"]) == ["root", "root", "root", "care", "care"]
    assert list(b["probes"]) == ["care", "flu", "health", "flu", "health"]
    assert list(b["found"]) == [True, False, True, False, True]
    assert list(b["subscriptions matched there"]) == ["", "", "", "", "3"]
    a = table[table["post"] == "A"]
    assert len(a) == 11
    assert sorted(s for s in a["subscriptions matched there"] if s) == ["1", "2", "3", "5"]


def test_match_summary_equals_hand_count_and_oracle():
    summary = mex.match_summary().set_index("post")
    assert summary.loc["A", "lookups"] == 11 and summary.loc["B", "lookups"] == 5
    assert summary.loc["A", "trie matches"] == "1, 2, 3, 5"
    assert summary.loc["B", "trie matches"] == "3"
    assert (summary["trie matches"] == summary["oracle matches"]).all()


def test_trie_nodes_one_per_sorted_prefix():
    nodes = mex.trie_nodes(mex.example_trie())
    assert list(nodes["node"]) == [
        "root",
        "care",
        "care > health",
        "care > health > obama",
        "health",
        "health > obama",
        "obama",
        "vaccin",
    ]
    stored = {n: s for n, s in zip(nodes["node"], nodes["subscriptions"], strict=True) if s}
    assert stored == {
        "care > health": [3],
        "care > health > obama": [5],
        "health > obama": [1],
        "obama": [2],
        "vaccin": [4],
    }
    assert len(nodes) - 1 == mex.example_trie().n_nodes


def test_trie_figure_highlights_the_visited_nodes():
    trie = mex.example_trie()
    fig = mex.extra_worked_trie(trie, mex.EXAMPLE_POSTS["B"])
    visited = next(t for t in fig.data if t.name and t.name.startswith("visited"))
    # B visits root, care, care > health, health; not obama, health > obama, the deeper obama
    assert len(visited.x) == 4
