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
from routelab.s3tm.lab.shedding.controller_simulation import ControllerRun
from routelab.s3tm.shedding import (
    RANDOM_DROP,
    SHEDDING_METHODS,
    Deliveries,
    evaluate,
    keep_mask,
    random_drop_mask,
)
from routelab.s3tm.shedding_controller import (
    BufferSegments,
    buffer_segments,
    eq8_holds,
    ratio_bound,
)

COLORS = {"consensus": PALETTE[1], "subscription": PALETTE[0], RANDOM_DROP: "#777777"}
KIND_TITLES = {"tweet": "tweet-based subscriptions", "topic": "topic-based subscriptions"}
SHORT_TITLES = {"tweet": "tweet-based", "topic": "topic-based"}
WORKLOAD_TITLES = {
    "learning": "subscriptions from learning posts",
    "all_words": "stress variant: all words subscribed",
}


def m_label(m: float) -> str:
    """``"∞"`` for no limit, else the threshold (``7`` or ``6.5``)."""
    return "∞" if math.isinf(m) else f"{m:g}"


def fig8a_shedding_accuracy(
    curve: pd.DataFrame, kind: str, *, shed: str = "load_shed", workload: str = ""
) -> go.Figure:
    """Fig. 8a: accuracy (solid, left axis) and percent of load shed (dashed, right axis)
    vs the shedding threshold m, for consensus and subscription shedding; random dropping's
    accuracy at subscription shedding's load shed (grey). ``workload`` labels the title."""
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
        title={
            "text": "Fig. 8a: accuracy and load shed vs threshold m<br><sup>"
            + KIND_TITLES.get(kind, kind)
            + (f"; {WORKLOAD_TITLES.get(workload, workload)}" if workload else "")
            + "</sup>",
            "y": 0.97,
            "yanchor": "top",
        },
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        margin={"t": 175, "b": 110},
        height=650,
    )
    return fig


def extra_tradeoff(
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
        rows=1,
        cols=len(kinds),
        subplot_titles=[SHORT_TITLES.get(k, k) for k in kinds],
        horizontal_spacing=0.06,
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
    fig.update_annotations(font_size=13)
    return fig


def fig8b_shedding_controller(run: ControllerRun) -> go.Figure:
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


def extra_buffer_example(
    loads: Sequence[float] = (5.0, 2.0), size: float = 1000.0, *, margin: float = 0.5
) -> tuple[go.Figure, BufferSegments]:
    """The worked example's buffer: segments for the level loads ``loads`` (Eq. 8, derived
    reading, r = ``margin`` x its bound), with the two moves Eq. 8 guards against -- a level
    decrease taken just inside the ideal segment multiplies the fullness by L(l-1)/L(l) and
    must stay below b; a level increase taken at b divides it and must stay at or above
    b^i."""
    seg = buffer_segments(loads, size, margin=margin)
    rho = seg.rho_max
    fig = go.Figure()
    bands = (("ideal", seg.ideal, "#d9f2dd"), ("stable", seg.stable, "#fff6c2"))
    bands += (("overload", seg.overload, "#ffd6d6"),)
    for name, width, color in bands:
        fig.add_trace(
            go.Bar(
                y=["buffer"],
                x=[width],
                orientation="h",
                name=name,
                marker_color=color,
                marker_line={"color": "#555", "width": 1},
                text=[f"{name}: {width:,.0f}"],
                textposition="inside",
                insidetextanchor="middle",
            )
        )
    moves = (
        (seg.ideal - 1, (seg.ideal - 1) * rho, "level lowered in ideal: x", 0.8),
        (seg.size, seg.size / rho, "level raised at b: /", -0.8),
    )
    for start, end, text, y in moves:
        fig.add_trace(
            go.Scatter(
                x=[start],
                y=[y],
                mode="markers",
                marker={"color": PALETTE[3], "size": 8},
                showlegend=False,
                hoverinfo="skip",
            )
        )
        fig.add_annotation(
            x=end,
            y=y,
            ax=start,
            ay=y,
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=3,
            arrowwidth=2,
            arrowcolor=PALETTE[3],
        )
        fig.add_annotation(
            x=(start + end) / 2,
            y=y + (0.35 if y > 0 else -0.35),
            showarrow=False,
            text=f"{text} {rho:g}: {start:,.0f} -> {end:,.0f}",
            font={"size": 11},
        )
    fig.update_layout(
        barmode="stack",
        title=f"Buffer segments for L = ({', '.join(f'{x:g}' for x in loads)}), "
        f"b = {seg.size:,.0f}: r = b^i/b^s = {seg.r:.3g}",
        xaxis={"title": "buffer fullness (publications)", "range": [0, seg.capacity * 1.02]},
        yaxis={"visible": False, "range": [-1.5, 1.5]},
        height=340,
        showlegend=False,
        margin={"b": 110},
    )
    return fig, seg


def segments_table(segments: BufferSegments, loads: Sequence[float] | np.ndarray) -> pd.DataFrame:
    """The buffer segments chosen by Eq. 8 as a small table (one row, publications)."""
    return pd.DataFrame(
        [
            {
                "b = b^i + b^s": round(segments.size),
                "ideal b^i": round(segments.ideal),
                "stable b^s": round(segments.stable),
                "overload beyond b": round(segments.overload),
                "max L(l-1)/L(l)": round(segments.rho_max, 3),
                "bound on r": round(ratio_bound(segments.rho_max, segments.reading), 3),
                "r = b^i/b^s": round(segments.r, 3),
                "Eq. 8 reading": segments.reading,
                "Eq. 8 holds": eq8_holds(segments, loads),
            }
        ]
    )


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


def extra_threshold_explorer(
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


def extra_spread_histogram(deliveries: dict[str, Deliveries]) -> go.Figure:
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
    "extra_buffer_example",
    "fig8b_shedding_controller",
    "fig8a_shedding_accuracy",
    "level_table",
    "m_label",
    "segments_table",
    "extra_spread_histogram",
    "extra_threshold_explorer",
    "threshold_row",
    "extra_tradeoff",
]
