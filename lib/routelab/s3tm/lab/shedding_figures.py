"""Plotly figures and the threshold explorer of load shedding (S3-TM Sects. 5.2, 6.5;
Fig. 8a/b).

Inputs are the frames and objects of :mod:`routelab.s3tm.shedding` and
:mod:`routelab.s3tm.shedding_controller`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.plots import PALETTE
from routelab.s3tm.lab.controller_simulation import ControllerRun
from routelab.s3tm.shedding import (
    RANDOM_DROP,
    SHEDDING_METHODS,
    Deliveries,
    evaluate,
    keep_mask,
    random_drop_mask,
)

COLORS = {"consensus": PALETTE[1], "subscription": PALETTE[0], RANDOM_DROP: "#777777"}
KIND_TITLES = {"tweet": "tweet-based subscriptions", "topic": "topic-based subscriptions"}


def m_label(m: float) -> str:
    """``"∞"`` for no limit, else the threshold (``7`` or ``6.5``)."""
    return "∞" if math.isinf(m) else f"{m:g}"


def fig8a(curve: pd.DataFrame, kind: str, *, shed: str = "load_shed") -> go.Figure:
    """Fig. 8a: accuracy (solid, left axis) and percent of load shed (dashed, right axis)
    vs the shedding threshold m, for consensus and subscription shedding; random dropping's
    accuracy at subscription shedding's load shed (grey)."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    order = sorted(curve["m"].unique(), reverse=True)
    labels = [m_label(m) for m in order]
    for method in (*SHEDDING_METHODS, RANDOM_DROP):
        sel = curve[curve["method"] == method].set_index("m").loc[order]
        name = method if method == RANDOM_DROP else f"{method} shedding"
        fig.add_trace(
            go.Scatter(
                x=labels,
                y=sel["accuracy"],
                mode="lines+markers",
                name=f"{name}: accuracy",
                line={"color": COLORS[method]},
            ),
            secondary_y=False,
        )
        if method != RANDOM_DROP:
            fig.add_trace(
                go.Scatter(
                    x=labels,
                    y=100 * sel[shed],
                    mode="lines+markers",
                    name=f"{name}: % load shed",
                    line={"color": COLORS[method], "dash": "dash"},
                    marker={"symbol": "square-open"},
                ),
                secondary_y=True,
            )
    fig.update_xaxes(title="shedding threshold m (max matchers per publication)")
    fig.update_yaxes(
        title="accuracy (fraction of the oracle's matches)", range=[0, 1.02], secondary_y=False
    )
    fig.update_yaxes(title="% of load shed", range=[0, 102], secondary_y=True, showgrid=False)
    fig.update_layout(
        title=f"Fig. 8a: accuracy and load shed vs threshold ({KIND_TITLES.get(kind, kind)})",
        legend={"orientation": "h", "y": -0.3},
        margin={"b": 190},
    )
    return fig


def tradeoff_figure(
    curves: dict[str, pd.DataFrame],
    *,
    shed: str = "load_shed",
    accuracy: float = 0.9,
    paper_shed: float = 0.25,
) -> go.Figure:
    """Accuracy vs percent of load shed, one panel per subscription kind: the comparison "at
    equal load shed"; the dashed lines mark the paper's operating point (25% at 90%)."""
    kinds = list(curves)
    fig = make_subplots(
        rows=1, cols=len(kinds), subplot_titles=[KIND_TITLES.get(k, k) for k in kinds]
    )
    for c, kind in enumerate(kinds, start=1):
        for method in (*SHEDDING_METHODS, RANDOM_DROP):
            sel = curves[kind][curves[kind]["method"] == method].sort_values(shed)
            fig.add_trace(
                go.Scatter(
                    x=100 * sel[shed],
                    y=sel["accuracy"],
                    mode="lines+markers",
                    name=method,
                    legendgroup=method,
                    showlegend=c == 1,
                    line={"color": COLORS[method]},
                    text=[f"m = {m_label(m)}" for m in sel["m"]],
                ),
                row=1,
                col=c,
            )
        ref = {"color": "#555", "dash": "dash", "width": 1.5}
        fig.add_hline(y=accuracy, line=ref, row=1, col=c)
        fig.add_vline(x=100 * paper_shed, line=ref, row=1, col=c)
        fig.update_xaxes(title="% of load shed", range=[0, 100], row=1, col=c)
    fig.update_yaxes(range=[0, 1.02])
    fig.update_yaxes(title="accuracy", row=1, col=1)
    fig.update_layout(
        title=f"Accuracy at equal load shed (dashed: {paper_shed:.0%} shed, "
        f"{accuracy:.0%} accuracy)"
    )
    return fig


def controller_figure(run: ControllerRun) -> go.Figure:
    """Fig. 8b: input and processed rate (solid, left) and the shedding level (dashed,
    right) over time; below, the buffer fullness against its ideal / stable / overload
    segments."""
    t = run.trace
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.6, 0.4],
        vertical_spacing=0.08,
        specs=[[{"secondary_y": True}], [{}]],
    )
    fig.add_trace(
        go.Scatter(x=t["time"], y=t["input_rate"], name="input rate", line={"color": PALETTE[0]}),
        row=1,
        col=1,
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=t["time"],
            y=t["processed_rate"],
            name="processed rate",
            line={"color": PALETTE[2], "width": 1},
        ),
        row=1,
        col=1,
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=t["time"],
            y=t["level"],
            name="shedding level",
            line={"color": PALETTE[1], "dash": "dash", "shape": "hv"},
        ),
        row=1,
        col=1,
        secondary_y=True,
    )
    seg = run.segments
    bands = (
        (0, seg.ideal, "ideal"),
        (seg.ideal, seg.size, "stable"),
        (seg.size, seg.capacity, "overload"),
    )
    for (lo, hi, name), color in zip(bands, ("#d9f2dd", "#fff6c2", "#ffd6d6"), strict=True):
        fig.add_hrect(
            y0=lo,
            y1=hi,
            fillcolor=color,
            line_width=0,
            layer="below",
            row=2,
            col=1,
            exclude_empty_subplots=False,
            annotation_text=name,
            annotation_position="top right",
            annotation_font_size=10,
        )
    fig.add_trace(
        go.Scatter(
            x=t["time"],
            y=t["fullness"],
            name="buffer fullness",
            line={"color": PALETTE[7], "width": 1},
        ),
        row=2,
        col=1,
    )
    fig.update_yaxes(title="publications / s", row=1, col=1, secondary_y=False)
    fig.update_yaxes(
        title="shedding level",
        row=1,
        col=1,
        secondary_y=True,
        showgrid=False,
        range=[-0.2, len(run.loads) - 0.8],
        dtick=1,
    )
    fig.update_yaxes(title="buffer (publications)", range=[0, seg.capacity], row=2, col=1)
    fig.update_xaxes(title="time (s)", row=2, col=1)
    fig.update_layout(
        title="Fig. 8b: input rate and shedding level",
        height=650,
        legend={"orientation": "h", "y": 1.08, "x": 1, "xanchor": "right"},
        margin={"t": 110},
    )
    return fig


def level_table(levels: pd.DataFrame) -> pd.DataFrame:
    """The measured L(l) table for display (m as text)."""
    out = levels.copy()
    out["m"] = [m_label(m) for m in out["m"]]
    return out


def threshold_row(
    deliveries: Deliveries, m: float, *, cost: str = "ops", seed: int = 0
) -> pd.DataFrame:
    """Accuracy and load shed of each policy at threshold ``m`` (random dropping at
    subscription shedding's load shed)."""
    rows = {}
    for method in SHEDDING_METHODS:
        rows[method] = evaluate(deliveries, keep_mask(deliveries, m, method, seed))
    target = rows["subscription"]["load_shed" if cost == "ops" else "unit_shed"]
    keep = random_drop_mask(deliveries, target, cost, seed)
    rows[RANDOM_DROP] = evaluate(deliveries, keep[deliveries.pair_post])
    frame = pd.DataFrame(rows).T
    return frame[["accuracy", "load_shed", "unit_shed", "spread", "false_matches"]]


def threshold_explorer(
    deliveries: dict[str, Deliveries],
    thresholds: Sequence[float],
    *,
    seed: int = 0,
) -> Any:
    """An ipywidgets slider over the threshold m (and a subscription-kind picker) showing
    accuracy and load shed of consensus shedding, subscription shedding and random dropping
    at that m, computed live from the deliveries."""
    import ipywidgets as widgets

    from routelab.plots import widget_view

    options = [(m_label(m), float(m)) for m in sorted(thresholds, reverse=True)]

    def render(kind: str, m: float) -> str:
        d = deliveries[kind]
        title = f"{KIND_TITLES.get(kind, kind)}: at most m = {m_label(m)} matchers per publication"
        table = threshold_row(d, m, seed=seed).astype(float)
        return f"<p><b>{title}</b></p>" + table.to_html(float_format="{:.3f}".format)

    return widget_view(
        render,
        kind=widgets.Dropdown(options=list(deliveries), description="kind"),
        m=widgets.SelectionSlider(
            options=options, value=options[len(options) // 2][1], description="m"
        ),
    )


def spread_histogram(deliveries: dict[str, Deliveries]) -> go.Figure:
    """How many matchers publications go to without shedding (|K(P, M)|), per kind: what a
    threshold m can cut."""
    fig = go.Figure()
    for i, (kind, d) in enumerate(deliveries.items()):
        sizes = d.targets.sizes()
        counts = np.bincount(sizes)
        fig.add_trace(
            go.Bar(
                x=np.arange(len(counts)),
                y=counts / max(len(sizes), 1),
                name=KIND_TITLES.get(kind, kind),
                marker_color=PALETTE[i],
            )
        )
    fig.update_layout(
        barmode="group",
        title="Multicast size |K(P, M)| without shedding",
        xaxis_title="matchers per publication",
        yaxis_title="share of publications",
    )
    return fig


__all__ = [
    "controller_figure",
    "fig8a",
    "level_table",
    "m_label",
    "spread_histogram",
    "threshold_explorer",
    "threshold_row",
    "tradeoff_figure",
]
