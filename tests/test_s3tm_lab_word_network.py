"""The word co-occurrence network of notebook 03, on a corpus small enough to count by hand."""

from __future__ import annotations

from routelab.s3tm.lab.routing.word_network import cooccurrence_graph, cut_share, extra_word_network
from routelab.s3tm.wordsets import Corpus

POSTS = [
    ["flu", "shot"],
    ["flu", "shot", "vaccine"],
    ["flu", "ebola"],
    ["ebola", "africa"],
    ["flu"],
]


def test_graph_counts_posts_and_cooccurrences():
    g = cooccurrence_graph(Corpus.from_word_lists(POSTS), top=4)
    # flu in 4 posts, shot 2, ebola 2, then vaccine/africa (1 each): top 4 keeps one of them
    assert g.nodes["flu"]["count"] == 4 and g.nodes["shot"]["count"] == 2
    assert len(g.nodes) == 4
    assert g["flu"]["shot"]["weight"] == 2 and g["flu"]["ebola"]["weight"] == 1
    assert not g.has_edge("shot", "ebola")


def test_cut_share_by_hand():
    g = cooccurrence_graph(Corpus.from_word_lists(POSTS), top=3)  # flu, shot, ebola
    # edges: flu-shot (2), flu-ebola (1): total 3
    assert cut_share(g, {"flu": 0, "shot": 0, "ebola": 0}) == 0.0
    assert cut_share(g, {"flu": 0, "shot": 1, "ebola": 0}) == 2 / 3
    assert cut_share(g, {"flu": 0, "shot": 1, "ebola": 1}) == 1.0


def test_figure_has_one_panel_per_mapping_with_the_cut_in_its_title():
    g = cooccurrence_graph(Corpus.from_word_lists(POSTS), top=3)
    fig = extra_word_network(
        g,
        {"hash": {"flu": 0, "shot": 1, "ebola": 0}, "SALB": {"flu": 0, "shot": 0, "ebola": 1}},
        labels={"flu": "Flu"},
    )
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [
        "hash: 67% of co-occurrences cross matchers",
        "SALB: 33% of co-occurrences cross matchers",
    ]
    nodes = [t for t in fig.data if t.mode == "markers+text"]
    assert len(nodes) == 2 and "Flu" in nodes[0].text
    assert list(nodes[0].customdata) != list(nodes[1].customdata)
