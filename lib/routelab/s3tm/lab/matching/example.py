"""The worked example of notebook 04: a small trie drawn, and its lookups listed (S3-TM Sect. 4.1).

Five subscriptions and two posts, small enough to check by hand. Subscriptions are stored with
their words sorted, so ``[obama, health]`` becomes the path ``health > obama`` and ``[obama]``
sits on its own root child; a node reached through the post's j-th word (sorted) only probes
the words after it. One lookup is one probe of one node's child table with one post word
(:meth:`routelab.s3tm.trie_reference.SubscriptionTrie.match_ops`, whose ``trace`` lists the probes).

Hand count for post A = {care, health, obama, today} (sorted in that order):

- root probes care, health, obama, today (4 lookups; the first three are found);
- ``obama`` (sub 2) has no children: no lookup; ``health`` probes obama, today (2; obama found
  -> ``health > obama``, sub 1);
- ``care`` probes health, obama, today (3; health found); ``care > health`` (sub 3) probes
  obama, today (2; obama found -> ``care > health > obama``, sub 5).

11 lookups, matches 1, 2, 3, 5. Post B = {care, flu, health}: root probes care, flu, health
(3); ``health`` has only words after ``health`` left to probe (none); ``care`` probes flu,
health (2); ``care > health`` (sub 3) has nothing after ``health``: 5 lookups, match 3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from routelab.plots import PALETTE
from routelab.s3tm.trie_reference import SubscriptionTrie, brute_force_match

__all__ = [
    "EXAMPLE_POSTS",
    "EXAMPLE_SUBS",
    "example_trie",
    "lookup_table",
    "match_summary",
    "extra_worked_trie",
    "trie_nodes",
]

EXAMPLE_SUBS: dict[int, tuple[str, ...]] = {
    1: ("obama", "health"),
    2: ("obama",),
    3: ("care", "health"),
    4: ("vaccin",),
    5: ("obama", "care", "health"),
}
"""Subscription id -> words (as a user would type them; the trie sorts them)."""

EXAMPLE_POSTS: dict[str, tuple[str, ...]] = {
    "A": ("obama", "health", "care", "today"),
    "B": ("health", "care", "flu"),
}
"""Post name -> words."""


def example_trie(subs: Mapping[int, Sequence[str]] = EXAMPLE_SUBS) -> SubscriptionTrie:
    """A :class:`SubscriptionTrie` holding ``subs``."""
    trie = SubscriptionTrie()
    for sub_id, words in subs.items():
        trie.add(sub_id, words)
    return trie


def _label(path: Sequence[str]) -> str:
    return " > ".join(path) if path else "root"


def trie_nodes(trie: SubscriptionTrie) -> pd.DataFrame:
    """One row per trie node (every distinct sorted prefix of a stored subscription):
    ``node`` (its path), ``depth``, ``word`` (the edge into it) and ``subscriptions`` (ids
    stored there, sorted), in depth-first lexicographic order, the root first."""
    subs_at: dict[tuple[str, ...], list[int]] = {}
    prefixes: set[tuple[str, ...]] = {()}
    for sub_id in trie:
        key = trie.words_of(sub_id)
        subs_at.setdefault(key, []).append(int(sub_id))
        prefixes.update(key[:d] for d in range(1, len(key) + 1))
    rows = [
        {
            "node": _label(p),
            "depth": len(p),
            "word": p[-1] if p else "",
            "subscriptions": sorted(subs_at.get(p, [])),
            "path": p,
        }
        for p in sorted(prefixes)
    ]
    return pd.DataFrame(rows)


def lookup_table(
    trie: SubscriptionTrie, posts: Mapping[str, Sequence[str]] = EXAMPLE_POSTS
) -> pd.DataFrame:
    """Every lookup of every post, in traversal order: ``post``, ``lookup`` (1, 2, ...),
    ``at node`` (the node whose child table is probed), ``probes`` (the post word),
    ``found`` and ``subscriptions matched there`` (ids stored at the node reached, if any)."""
    nodes = trie_nodes(trie).set_index("node")
    rows = []
    for name, words in posts.items():
        trace: list[tuple[tuple[str, ...], str, bool]] = []
        trie.match_ops(words, trace=trace)
        for k, (path, word, found) in enumerate(trace, start=1):
            reached = _label((*path, word))
            subs = nodes.loc[reached, "subscriptions"] if found else []
            rows.append(
                {
                    "post": name,
                    "lookup": k,
                    "at node": _label(path),
                    "probes": word,
                    "found": bool(found),
                    "subscriptions matched there": ", ".join(map(str, subs)),
                }
            )
    return pd.DataFrame(rows)


def match_summary(
    subs: Mapping[int, Sequence[str]] = EXAMPLE_SUBS,
    posts: Mapping[str, Sequence[str]] = EXAMPLE_POSTS,
) -> pd.DataFrame:
    """Per post: its sorted words, the trie's lookups and matches, and the brute-force
    oracle's matches (set containment over all subscriptions)."""
    trie = example_trie(subs)
    sets = {int(s): frozenset(w) for s, w in subs.items()}
    rows = []
    for name, words in posts.items():
        matches, ops = trie.match_ops(words)
        rows.append(
            {
                "post": name,
                "words (sorted)": " ".join(sorted(set(words))),
                "lookups": ops,
                "trie matches": ", ".join(map(str, matches)),
                "oracle matches": ", ".join(map(str, brute_force_match(sets, words))),
            }
        )
    return pd.DataFrame(rows)


def _positions(nodes: pd.DataFrame) -> dict[tuple[str, ...], tuple[float, float]]:
    """Leaves at x = 0, 1, 2, ... in depth-first order; a parent above its children's mean."""
    children: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for p in nodes["path"]:
        if p:
            children.setdefault(p[:-1], []).append(p)
    pos: dict[tuple[str, ...], tuple[float, float]] = {}
    next_x = [0.0]

    def place(p: tuple[str, ...]) -> float:
        kids = sorted(children.get(p, []))
        if kids:
            x = sum(place(k) for k in kids) / len(kids)
        else:
            x = next_x[0]
            next_x[0] += 1.0
        pos[p] = (x, -float(len(p)))
        return x

    place(())
    return pos


def extra_worked_trie(trie: SubscriptionTrie, post: Sequence[str] | None = None) -> go.Figure:
    """The trie as a tree: one node per sorted prefix, labelled with its edge word and the
    subscriptions stored there. With ``post``, the nodes its lookup visits (reached through
    a found probe) are highlighted and the nodes it probes are outlined."""
    nodes = trie_nodes(trie)
    pos = _positions(nodes)
    visited: set[tuple[str, ...]] = {()}
    probed: set[tuple[str, ...]] = set()
    if post is not None:
        trace: list[tuple[tuple[str, ...], str, bool]] = []
        trie.match_ops(post, trace=trace)
        for path, word, found in trace:
            probed.add(path)
            if found:
                visited.add((*path, word))
    fig = go.Figure()
    ex, ey = [], []
    for p in nodes["path"]:
        if p:
            (x0, y0), (x1, y1) = pos[p[:-1]], pos[p]
            ex += [x0, x1, None]
            ey += [y0, y1, None]
    fig.add_trace(
        go.Scatter(
            x=ex, y=ey, mode="lines", line={"color": "#999"}, hoverinfo="skip", showlegend=False
        )
    )
    hit = PALETTE[1]
    for highlighted in (False, True):
        sel = [
            r for r in nodes.itertuples() if (r.path in visited and post is not None) == highlighted
        ]
        if not sel:
            continue
        text = [
            (r.word or "root")
            + (f"<br>sub {', '.join(map(str, r.subscriptions))}" if r.subscriptions else "")
            for r in sel
        ]
        fig.add_trace(
            go.Scatter(
                x=[pos[r.path][0] for r in sel],
                y=[pos[r.path][1] for r in sel],
                mode="markers+text",
                text=text,
                textposition="bottom center",
                marker={
                    "size": 18,
                    "color": hit if highlighted else "white",
                    "line": {
                        "color": "black",
                        "width": [3 if r.path in probed else 1 for r in sel],
                    },
                },
                name="visited by the post (thick outline: child table probed)"
                if highlighted
                else "not visited",
                hovertext=[r.node for r in sel],
                hoverinfo="text",
            )
        )
    depth = int(nodes["depth"].max())
    fig.update_xaxes(visible=False, range=[-0.7, max(x for x, _ in pos.values()) + 0.7])
    fig.update_yaxes(visible=False, range=[-depth - 0.7, 0.4])
    title = "The example trie (words sorted on every path)"
    if post is not None:
        title += f"<br>lookup of the post {{{', '.join(sorted(set(post)))}}}"
    fig.update_layout(
        title=title, height=440, margin={"t": 90}, legend={"orientation": "h", "y": -0.02}
    )
    return fig
