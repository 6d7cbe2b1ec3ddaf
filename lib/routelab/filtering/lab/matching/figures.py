"""Notebook 09's figures: Fig. 3(a-d) and the Sect. 6.2.2 sweeps, the explorer, and the
six matchers side by side on W0 and on range-only subscriptions.

A builder is named after the paper figure it draws, ``fig<N><panels>_<what>``; one that
draws no paper figure starts with ``extra_``. The "Figures" table of
``lib/routelab/README.md`` maps every figure to its notebook and builder.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.palette import color_for, dash_for
from routelab.plots import log_axis, widget_view

LABELS = {
    "ms_per_100": "ms per 100 events",
    "index_mb": "index size (MB)",
    "build_s": "loading time (s)",
    "checks_per_event": "subscriptions checked per event",
}


def _versus_n(frame: pd.DataFrame, column: str, title: str) -> go.Figure:
    """One line per algorithm: ``column`` against the number of subscriptions (log-log)."""
    fig = go.Figure()
    for algorithm, g in frame.groupby("algorithm", sort=False):
        g = g.groupby("n", as_index=False)[column].median()
        fig.add_trace(
            go.Scatter(
                x=g["n"],
                y=g[column],
                name=algorithm,
                mode="lines+markers",
                line={"color": color_for(algorithm), "dash": dash_for(algorithm)},
            )
        )
    fig.update_layout(title=title, legend_title_text="algorithm", height=460)
    log_axis(fig, "x", title_text="subscriptions (N)")
    log_axis(fig, "y", title_text=LABELS.get(column, column))
    return fig


def _panels(
    frame: pd.DataFrame,
    column: str,
    values: tuple[str, ...],
    x: str,
    titles: tuple[str, ...],
    title: str,
) -> go.Figure:
    """One panel per value of ``column``: ms per 100 events against ``x``, a line per
    algorithm (shared legend)."""
    fig = make_subplots(rows=1, cols=len(values), subplot_titles=titles)
    for col, value in enumerate(values, start=1):
        for algorithm, g in frame[frame[column] == value].groupby("algorithm", sort=False):
            g = g.groupby(x, as_index=False)["ms_per_100"].median()
            fig.add_trace(
                go.Scatter(
                    x=g[x],
                    y=g["ms_per_100"],
                    name=algorithm,
                    mode="lines+markers",
                    legendgroup=algorithm,
                    showlegend=col == 1,
                    line={"color": color_for(algorithm), "dash": dash_for(algorithm)},
                ),
                row=1,
                col=col,
            )
    fig.update_layout(title=title, height=460)
    log_axis(fig, "y")
    fig.update_yaxes(title_text="ms per 100 events", row=1, col=1)
    return fig


def fig3a_matching_time(
    frame: pd.DataFrame, title: str = "Fig. 3(a): matching 100 W0 events"
) -> go.Figure:
    """Fig. 3(a): time per 100 events against the number of subscriptions, W0."""
    return _versus_n(frame, "ms_per_100", title)


def fig3c_memory(frame: pd.DataFrame, title: str = "Fig. 3(c): index size, W0") -> go.Figure:
    """Fig. 3(c): bytes of the matching structures against the number of subscriptions."""
    return _versus_n(frame, "index_mb", title)


def fig3d_loading_time(
    frame: pd.DataFrame, title: str = "Fig. 3(d): loading time, W0"
) -> go.Figure:
    """Fig. 3(d): time to build the index from N subscriptions."""
    return _versus_n(frame, "build_s", title)


def fig3b_operators(frame: pd.DataFrame) -> go.Figure:
    """Fig. 3(b): one panel per workload (W1op, W2op), time per 100 events vs N."""
    fig = _panels(
        frame,
        "workload",
        ("W1op", "W2op"),
        "n",
        ("W1op (4 predicates, one >)", "W2op (9 predicates, 5 <, one >)"),
        "Fig. 3(b): operators",
    )
    log_axis(fig, "x", title_text="subscriptions (N)")
    return fig


def extra_sweeps(frame: pd.DataFrame) -> go.Figure:
    """Not a paper figure (the paper states the Sect. 6.2.2 results in words): time per 100
    events vs value-domain size and vs predicates."""
    fig = _panels(
        frame,
        "sweep",
        ("value domain", "predicates"),
        "x",
        ("value domain size", "predicates per subscription"),
        "Sect. 6.2.2: value domain and predicates",
    )
    fig.update_xaxes(title_text="values per attribute", row=1, col=1)
    fig.update_xaxes(title_text="predicates per subscription", row=1, col=2)
    return fig


def extra_side_by_side(frame: pd.DataFrame) -> go.Figure:
    """Beyond the paper: every algorithm on W0 and on the range-only workload at one N,
    median per-event time over the timed batches (log scale), one panel per workload."""
    med = frame.groupby(["workload", "algorithm"])["ms_per_100"].median().div(100).reset_index()
    workloads = [w for w in ("W0", "ranges") if w in set(med["workload"])]
    fig = make_subplots(rows=1, cols=len(workloads), subplot_titles=workloads)
    names = sorted(set(med["algorithm"]))
    for col, w in enumerate(workloads, start=1):
        sub = med[med["workload"] == w].sort_values("ms_per_100")
        fig.add_trace(
            go.Bar(x=sub["algorithm"], y=sub["ms_per_100"], showlegend=False,
                   marker_color=[color_for(a, names) for a in sub["algorithm"]]),
            row=1, col=col,
        )  # fmt: skip
    fig.update_yaxes(type="log", title_text="ms per event (median of the batches)", row=1, col=1)
    fig.update_layout(title="Six matchers on W0 and on range-only subscriptions", height=420)
    return fig


def checks_table(frame: pd.DataFrame, workload: str, n: int) -> str:
    rows = frame[(frame["workload"] == workload) & (frame["n"] == n)]
    table = rows.groupby("algorithm")[["checks_per_event", "ms_per_100", "matches_per_event"]]
    return table.median().round(2).to_html()


def extra_checks_explorer(frame: pd.DataFrame) -> Any:
    """Pick a workload and N; see subscriptions checked per event for each algorithm."""
    import ipywidgets as widgets

    workloads = sorted(frame["workload"].unique())
    sizes = sorted(int(n) for n in frame["n"].unique())
    return widget_view(
        lambda workload, n: checks_table(frame, workload, n),
        workload=widgets.Dropdown(options=workloads, value=workloads[0], description="workload"),
        n=widgets.SelectionSlider(options=sizes, value=sizes[0], description="N"),
    )
