"""Describing subscription workloads (S3-TM Sect. 6.1): lengths, word popularity, match rates.

The paper contrasts its two subscription models: tweet-based subscriptions are
"relatively long ... with low popularity", topic-based ones "relatively short ... with
high popularity". These functions measure exactly that on our workloads: the length
distribution (against the Zipf(0.5) law topic-based lengths are drawn from), how many
subscriptions each word appears in, and what fraction of posts each subscription matches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from routelab.plots import log_axis
from routelab.s3tm.wordsets import Corpus


def length_distribution(subs: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Share of subscriptions of each length, per kind: ``kind``, ``length``, ``share``."""
    rows = []
    for kind, frame in subs.items():
        lengths = frame["words"].map(len)
        shares = lengths.value_counts(normalize=True).sort_index()
        rows += [{"kind": kind, "length": int(k), "share": float(v)} for k, v in shares.items()]
    return pd.DataFrame(rows)


def extra_subscription_lengths(
    dist: pd.DataFrame, expected: Sequence[float] | None = None
) -> go.Figure:
    """Bars of the length distribution per kind, plus the expected pmf as markers."""
    fig = go.Figure()
    for kind, part in dist.groupby("kind", sort=False):
        fig.add_trace(go.Bar(x=part["length"], y=part["share"], name=f"{kind}-based"))
    if expected is not None:
        fig.add_trace(
            go.Scatter(
                x=np.arange(1, len(expected) + 1),
                y=list(expected),
                mode="markers",
                marker={"symbol": "x", "size": 11},
                name="Zipf(0.5) over 1..5 (expected, topic-based)",
            )
        )
    fig.update_layout(
        title="Subscription length (number of words)",
        barmode="group",
        xaxis_title="words in the subscription",
        yaxis_title="share of subscriptions",
    )
    return fig


def word_popularity(subs: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """How many subscriptions contain each word: ``kind``, ``word``, ``subs``, ``rank``."""
    frames = []
    for kind, frame in subs.items():
        counts = frame["words"].explode().dropna().value_counts()
        frames.append(
            pd.DataFrame(
                {
                    "kind": kind,
                    "word": counts.index,
                    "subs": counts.to_numpy(),
                    "rank": np.arange(1, len(counts) + 1),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def extra_word_popularity(pop: pd.DataFrame) -> go.Figure:
    """Rank of a word among subscribed words vs number of subscriptions holding it (log-log)."""
    fig = go.Figure()
    for kind, part in pop.groupby("kind", sort=False):
        fig.add_trace(
            go.Scatter(x=part["rank"], y=part["subs"], mode="lines", name=f"{kind}-based")
        )
    fig.update_layout(
        title="Word popularity among subscriptions",
        xaxis_title="rank of subscribed word",
        yaxis_title="subscriptions containing the word",
    )
    return log_axis(log_axis(fig, "x"), "y")


def match_rates(posts: Corpus, subs: pd.DataFrame) -> np.ndarray:
    """Fraction of ``posts`` each subscription matches (all its words in the post).

    Exact: the posting lists (posts per word) of a subscription's words are intersected,
    shortest first. A subscription with a word absent from the posts matches nothing.
    """
    csc = posts.to_scipy().tocsc()
    index = posts.word_index
    rates = np.zeros(len(subs), dtype=np.float64)
    for i, words in enumerate(subs["words"]):
        ids = [index.get(w) for w in words]
        if not ids or any(j is None for j in ids):
            continue
        lists = sorted((csc.indices[csc.indptr[j] : csc.indptr[j + 1]] for j in ids), key=len)
        hits = lists[0]
        for other in lists[1:]:
            hits = np.intersect1d(hits, other, assume_unique=True)
            if not len(hits):
                break
        rates[i] = len(hits) / max(posts.n_posts, 1)
    return rates


def extra_match_rate(rates: Mapping[str, np.ndarray]) -> go.Figure:
    """Complementary CDF of per-subscription match rates, per kind (log-log)."""
    fig = go.Figure()
    for kind, values in rates.items():
        positive = np.sort(values[values > 0])[::-1]
        share = np.arange(1, len(positive) + 1) / max(len(values), 1)
        fig.add_trace(go.Scatter(x=positive, y=share, mode="lines", name=f"{kind}-based"))
    fig.update_layout(
        title="Subscription popularity: share of posts matched",
        xaxis_title="fraction of posts a subscription matches",
        yaxis_title="share of subscriptions matching at least that",
    )
    return log_axis(log_axis(fig, "x"), "y")


def summary(subs: Mapping[str, pd.DataFrame], rates: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """One row per kind: count, mean/max length, distinct words, mean/median match rate."""
    rows: list[dict[str, Any]] = []
    for kind, frame in subs.items():
        lengths = frame["words"].map(len)
        r = rates[kind]
        rows.append(
            {
                "kind": kind,
                "subscriptions": len(frame),
                "mean length": lengths.mean(),
                "max length": int(lengths.max()),
                "distinct words": frame["words"].explode().nunique(),
                "mean match rate": r.mean(),
                "median match rate": float(np.median(r)),
                "never match": float((r == 0).mean()),
            }
        )
    return pd.DataFrame(rows).set_index("kind")


def topic_table(model: Any, forms: dict[str, str] | None = None, top: int = 15) -> pd.DataFrame:
    """The ``top`` topics by weight with their top words as people read them (the most
    frequent surface form of each stem, :func:`routelab.corpus.text.surface_forms`)."""
    from routelab.corpus.text import readable

    forms = forms or {}
    order = np.argsort(model.weights)[::-1][:top]
    return pd.DataFrame(
        {
            "topic": [int(t) for t in order],
            "weight": [f"{model.weights[t]:.1%}" for t in order],
            "top words": [" ".join(readable(model.words[t], forms)) for t in order],
            "stems": [" ".join(model.words[t]) for t in order],
        }
    )


def extra_topic_explorer(
    model: Any, topic_subs: pd.DataFrame, rates: np.ndarray, forms: dict[str, str] | None = None
) -> Any:
    """An ipywidgets explorer: pick a topic, see its words and its most popular subscriptions
    (words shown as their most frequent surface form, stems beside them)."""
    from routelab.corpus.text import readable

    forms = forms or {}
    import ipywidgets as widgets

    from routelab.plots import widget_view

    frame = topic_subs.assign(match_rate=rates)
    order = np.argsort(model.weights)[::-1]
    options = [
        (f"topic {t} ({model.weights[t]:.1%}): {' '.join(readable(model.words[t], forms))}", int(t))
        for t in order
    ]

    def render(topic: int, rows: int) -> str:
        words = pd.DataFrame(
            {
                "word": readable(model.words[topic], forms),
                "stem": model.words[topic],
                "P(word | topic)": model.probs[topic],
            }
        )
        subs = frame[frame["topic"] == topic].sort_values("match_rate", ascending=False)
        head = subs.head(rows)[["sub_id", "words", "match_rate"]].assign(
            words=lambda f: [" ".join(readable(w, forms)) for w in f["words"]]
        )
        return (
            words.to_html(index=False, float_format="{:.4f}".format)
            + f"<p>{len(subs)} subscriptions on topic {topic}; the {len(head)} most popular:</p>"
            + head.to_html(index=False, float_format="{:.2e}".format)
        )

    return widget_view(
        render,
        topic=widgets.Dropdown(options=options, description="topic"),
        rows=widgets.IntSlider(value=10, min=5, max=50, step=5, description="rows"),
    )


def topic_walkthrough(
    model: Any,
    topic_subs: pd.DataFrame,
    rates: np.ndarray,
    n_posts: int,
    forms: dict[str, str] | None = None,
    k: int = 3,
) -> pd.DataFrame:
    """Notebook 02's worked example: the heaviest topic's first ``k`` subscriptions (in id
    order), their words as people read them, and how many posts each matches (all its
    words in one post)."""
    from routelab.corpus.text import readable

    forms = forms or {}
    topic = int(np.argmax(model.weights))
    frame = topic_subs.assign(match_rate=rates)
    rows = frame[frame["topic"] == topic].sort_values("sub_id").head(k)
    return pd.DataFrame(
        {
            "topic": topic,
            "topic's top words": " ".join(readable(model.words[topic], forms)),
            "subscription": [" AND ".join(readable(w, forms)) for w in rows["words"]],
            "words": [len(w) for w in rows["words"]],
            "posts matched": np.rint(rows["match_rate"].to_numpy() * n_posts).astype(int),
        }
    )
