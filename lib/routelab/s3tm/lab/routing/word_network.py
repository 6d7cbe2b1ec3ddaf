"""Notebook 03's word network: what a word-to-matcher mapping does to the words people post.

S3-TM's mappings (Sect. 3) partition the **word co-occurrence network**: words are vertices,
and two words are linked by the number of posts holding both. A post is sent to every
matcher holding one of its words (Eq. 1), so every co-occurrence edge that a mapping cuts
between two matchers makes the posts on it go to both: spread. :func:`cooccurrence_graph`
builds the network of the most frequent words as a ``networkx`` graph; :func:`cut_share`
is the share of co-occurrence weight a mapping cuts; :func:`extra_word_network` draws the
network once per mapping, words coloured by their matcher, so hash's confetti and SALB's
coloured neighbourhoods can be compared at a glance.
"""

from __future__ import annotations

from collections.abc import Mapping as MappingType

import networkx as nx
import numpy as np
import plotly.graph_objects as go
import scipy.sparse as sp
from plotly.subplots import make_subplots

from routelab.plots import PALETTE
from routelab.s3tm.wordsets import Corpus


def cooccurrence_graph(corpus: Corpus, top: int = 40, min_weight: int = 1) -> nx.Graph:
    """The ``top`` most frequent words (node attribute ``count``: posts holding the word) and
    an edge between two of them weighted by the posts holding both (``weight`` >=
    ``min_weight``)."""
    n_posts = len(corpus.indptr) - 1
    counts = np.bincount(corpus.indices, minlength=len(corpus.vocab))
    keep = np.argsort(-counts, kind="stable")[:top]
    column = np.full(len(corpus.vocab), -1)
    column[keep] = np.arange(len(keep))
    rows = np.repeat(np.arange(n_posts), np.diff(corpus.indptr))
    cols = column[corpus.indices]
    mask = cols >= 0
    x = sp.csr_matrix((np.ones(mask.sum()), (rows[mask], cols[mask])), shape=(n_posts, len(keep)))
    pairs = (x.T @ x).tocoo()
    graph = nx.Graph()
    for w in keep:
        graph.add_node(corpus.vocab[w], count=int(counts[w]))
    for i, j, v in zip(pairs.row, pairs.col, pairs.data, strict=True):
        if i < j and v >= min_weight:
            graph.add_edge(corpus.vocab[keep[i]], corpus.vocab[keep[j]], weight=int(v))
    return graph


def cut_share(graph: nx.Graph, assignment: MappingType[str, int]) -> float:
    """Share of the co-occurrence weight whose two words sit on different matchers."""
    total = cut = 0
    for a, b, w in graph.edges(data="weight"):
        total += w
        if assignment.get(a, -1) != assignment.get(b, -2):
            cut += w
    return cut / total if total else 0.0


def extra_word_network(
    graph: nx.Graph,
    assignments: MappingType[str, MappingType[str, int]],
    *,
    labels: MappingType[str, str] | None = None,
    seed: int = 0,
) -> go.Figure:
    """One panel per mapping (name -> word -> matcher): the same layout, words coloured by
    matcher, edge width by co-occurrence; panel titles give the share of weight cut."""
    labels = labels or {}
    pos = nx.spring_layout(graph, seed=seed, weight="weight")
    names = list(assignments)
    fig = make_subplots(
        rows=1,
        cols=len(names),
        subplot_titles=[
            f"{n}: {cut_share(graph, assignments[n]):.0%} of co-occurrences cross matchers"
            for n in names
        ],
    )
    top_weight = max((w for _, _, w in graph.edges(data="weight")), default=1)
    for col, name in enumerate(names, start=1):
        for a, b, w in graph.edges(data="weight"):
            fig.add_trace(
                go.Scatter(
                    x=[pos[a][0], pos[b][0]],
                    y=[pos[a][1], pos[b][1]],
                    mode="lines",
                    line={"width": 0.5 + 4 * w / top_weight, "color": "rgba(120,120,120,0.35)"},
                    hoverinfo="skip",
                    showlegend=False,
                ),
                row=1,
                col=col,
            )
        words = list(graph.nodes)
        matcher = [assignments[name].get(w, -1) for w in words]
        fig.add_trace(
            go.Scatter(
                x=[pos[w][0] for w in words],
                y=[pos[w][1] for w in words],
                mode="markers+text",
                text=[labels.get(w, w) for w in words],
                textposition="top center",
                textfont={"size": 9},
                marker={
                    "size": [
                        6
                        + 14
                        * np.sqrt(
                            graph.nodes[w]["count"] / max(graph.nodes[v]["count"] for v in words)
                        )
                        for w in words
                    ],
                    "color": [PALETTE[m % len(PALETTE)] if m >= 0 else "#cccccc" for m in matcher],
                    "line": {"width": 0.5, "color": "#333"},
                },
                customdata=matcher,
                hovertemplate="%{text}: matcher %{customdata}<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=col,
        )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(
        title="The most frequent words' co-occurrence network, coloured by matcher",
        height=520,
        margin={"t": 90},
    )
    return fig
