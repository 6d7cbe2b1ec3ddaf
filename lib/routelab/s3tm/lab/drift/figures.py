"""Plotly figures of the concept-drift experiment (S3-TM Sect. 6.4, Fig. 7i-l).

Inputs are the frames of :mod:`routelab.s3tm.lab.drift.experiments`; a method keeps its colour across all
S3-TM figures (:func:`routelab.plots.color_for` over :data:`routelab.s3tm.METHODS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.plots import color_for
from routelab.s3tm.lab.drift.experiments import DRIFT_METHODS, default_learn_on
from routelab.s3tm.mappings import METHODS

PANELS = (
    ("relative_throughput", "(i) relative throughput (SALB = 1)"),
    ("throughput", "(j) throughput (x matcher capacity C)"),
    ("spread_routed", "(k) spread (matchers per routed post)"),
    ("imbalance", "(l) load imbalance (max / avg)"),
)


def window_labels(table: pd.DataFrame, *, short: bool = False) -> list[str]:
    """Tick labels: window number, then month and year of the window's first post (``short``:
    two-digit year, for narrow panels)."""
    firsts = pd.to_datetime(table["first"])
    year = "'%y" if short else "%Y"
    return [
        f"{w}<br>{t:%b}<br>{t.strftime(year)}" for w, t in zip(table["window"], firsts, strict=True)
    ]


def _trend_line(sel: pd.DataFrame, metric: str, first: int) -> tuple[np.ndarray, np.ndarray]:
    later = sel[sel["window"] >= first]
    slope, intercept = np.polyfit(later["window"], later[metric], 1)
    x = np.array([later["window"].min(), later["window"].max()], dtype=np.float64)
    return x, intercept + slope * x


def fig7il_drift(
    frame: pd.DataFrame,
    table: pd.DataFrame,
    *,
    dataset: str,
    learn_on: str | None = None,
    methods: Sequence[str] = DRIFT_METHODS,
    trend_from: int = 1,
) -> go.Figure:
    """Fig. 7i-l for one dataset: the four metrics per window, one line per method; the
    throughput panel adds each method's least-squares line over windows ``trend_from..``
    (dotted), the line the trend test of :func:`routelab.s3tm.lab.drift.experiments.trend_tests` fits.
    ``learn_on`` ``None``: :func:`~routelab.s3tm.lab.drift.experiments.default_learn_on`."""
    learn_on = default_learn_on() if learn_on is None else learn_on
    sel_all = frame[(frame["dataset"] == dataset) & (frame["learn_on"] == learn_on)]
    if sel_all.empty:
        raise ValueError(f"no rows for dataset {dataset!r} and learn_on {learn_on!r}")
    fig = make_subplots(
        rows=2,
        cols=2,
        subplot_titles=[t for _, t in PANELS],
        horizontal_spacing=0.1,
        vertical_spacing=0.2,
    )
    labels = window_labels(table)
    for i, (metric, _) in enumerate(PANELS):
        row, col = divmod(i, 2)
        for method in [m for m in methods if m in set(sel_all["method"])]:
            sel = sel_all[sel_all["method"] == method].sort_values("window")
            color = color_for(method, METHODS)
            fig.add_trace(
                go.Scatter(
                    x=sel["window"],
                    y=sel[metric],
                    mode="lines+markers",
                    name=method,
                    legendgroup=method,
                    showlegend=i == 0,
                    line={"color": color},
                ),
                row=row + 1,
                col=col + 1,
            )
            if metric == "throughput" and sel["window"].max() - trend_from >= 2:
                x, y = _trend_line(sel, metric, trend_from)
                fig.add_trace(
                    go.Scatter(
                        x=x,
                        y=y,
                        mode="lines",
                        line={"color": color, "dash": "dot", "width": 1},
                        name=f"{method} trend",
                        legendgroup=method,
                        showlegend=False,
                        hoverinfo="skip",
                    ),
                    row=row + 1,
                    col=col + 1,
                )
        fig.update_xaxes(
            tickvals=list(table["window"]),
            ticktext=labels,
            tickangle=0,
            tickfont={"size": 9},
            title="window (month of its first post)" if row == 1 else None,
            row=row + 1,
            col=col + 1,
        )
    # legend in its own column right of the panels (not over the title or subplot titles);
    # bottom margin for the three-line window ticks, the axis title and the data footer
    fig.update_layout(
        title=f"Concept drift: mapping learned on window 0<br><sup>{dataset}; learned on "
        f"{learn_on} words of window 0</sup>",
        height=800,
        legend={"orientation": "v", "y": 1.0, "x": 1.02, "xanchor": "left", "yanchor": "top"},
        margin={"t": 110, "b": 150, "r": 120},
    )
    return fig


def extra_gain_over_hash(
    frame: pd.DataFrame, tables: dict[str, pd.DataFrame], *, learn_on: str | None = None
) -> go.Figure:
    """Throughput relative to hash per window (:func:`routelab.s3tm.lab.drift.experiments.add_gain_over_hash`),
    one panel per dataset: how much of the week-0 advantage each learned mapping keeps
    (``learn_on`` ``None``: :func:`~routelab.s3tm.lab.drift.experiments.default_learn_on`)."""
    learn_on = default_learn_on() if learn_on is None else learn_on
    datasets = [d for d in tables if d in set(frame["dataset"])]
    fig = make_subplots(
        rows=1, cols=len(datasets), subplot_titles=datasets, horizontal_spacing=0.06
    )
    for c, dataset in enumerate(datasets, start=1):
        sel_all = frame[(frame["dataset"] == dataset) & (frame["learn_on"] == learn_on)]
        for method in [m for m in DRIFT_METHODS if m != "hash" and m in set(sel_all["method"])]:
            sel = sel_all[sel_all["method"] == method].sort_values("window")
            fig.add_trace(
                go.Scatter(
                    x=sel["window"],
                    y=sel["gain_over_hash"],
                    mode="lines+markers",
                    name=method,
                    legendgroup=method,
                    showlegend=c == 1,
                    line={"color": color_for(method, METHODS)},
                ),
                row=1,
                col=c,
            )
        fig.add_hline(y=1, line={"color": "#999", "dash": "dash"}, row=1, col=c)
        fig.update_xaxes(
            tickvals=list(tables[dataset]["window"]),
            ticktext=window_labels(tables[dataset], short=len(datasets) > 2),
            tickangle=0,
            tickfont={"size": 9},
            title="window",
            row=1,
            col=c,
        )
    fig.update_yaxes(title="throughput / hash throughput", row=1, col=1)
    # a ratio near 1 on a linear axis with the reference line at 1 (a log axis labelled by
    # decades would show a single tick over this range); lines, never bars
    fig.update_layout(
        title="What the week-0 mapping keeps: throughput relative to hash (1 = no advantage)",
        height=520,
        margin={"b": 150},
        legend={"orientation": "v", "y": 1.0, "x": 1.02, "xanchor": "left", "yanchor": "top"},
    )
    return fig


def trend_summary(trends: pd.DataFrame, gain_trends: pd.DataFrame) -> pd.DataFrame:
    """One tidy row per (dataset, learn_on, method): the drop after week 0 and the relative
    slope per window with its one-sided p-value, for throughput and for the gain over hash
    (hash's own gain is 1 by definition and left blank)."""
    keys = ["dataset", "learn_on", "method"]
    cols = {"drop": "drop", "relative_slope": "slope/window", "p_decreasing": "p(decreasing)"}
    left = trends[[*keys, *cols]].rename(columns={k: f"throughput {v}" for k, v in cols.items()})
    gain = gain_trends[gain_trends["method"] != "hash"][[*keys, *cols]]
    right = gain.rename(columns={k: f"gain {v}" for k, v in cols.items()})
    out = left.merge(right, on=keys, how="left")
    order = {m: i for i, m in enumerate(DRIFT_METHODS)}
    return out.sort_values(
        keys, key=lambda c: c.map(order) if c.name == "method" else c, ignore_index=True
    )
