"""Notebook 13's table and figures: the trade-off each design picks (imbalance against
replication), throughput against N, and the cost of adapting to the drift.

Builders draw no paper figure, so they are named ``extra_<what>``; the "Figures" table of
``lib/routelab/README.md`` lists them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.compare.routers import SYSTEMS
from routelab.palette import DESIGN_COLOURS

SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x")


def summary_table(frame: pd.DataFrame, n_workers: int) -> pd.DataFrame:
    """Per router at ``n_workers``: imbalance, replication, throughput (x one worker), the
    largest per-worker state (in its unit) and the busiest worker's measured seconds."""
    sub = frame[frame["n_workers"] == n_workers]
    cols = ["imbalance", "replication", "throughput_x", "state_max", "state_unit", "busiest_s"]
    return sub.set_index(["system", "router"])[cols].round(3)


def extra_tradeoff(frame: pd.DataFrame, workers: tuple[int, ...] = (8, 32)) -> go.Figure:
    """Imbalance against replication, every router, one panel per N."""
    ns = [n for n in workers if n in set(frame["n_workers"])]
    fig = make_subplots(rows=1, cols=len(ns), subplot_titles=[f"N = {n}" for n in ns])
    for col, n in enumerate(ns, start=1):
        sub = frame[frame["n_workers"] == n]
        for system in SYSTEMS:
            s = sub[sub["system"] == system]
            fig.add_trace(
                go.Scatter(x=s["replication"], y=s["imbalance"], mode="markers+text",
                           text=s["router"], textposition="top center", name=system,
                           legendgroup=system, showlegend=col == 1,
                           marker={"color": DESIGN_COLOURS[system], "size": 11}),
                row=1, col=col,
            )  # fmt: skip
    fig.update_xaxes(title_text="replication (copies per tuple)", type="log")
    fig.update_yaxes(
        title_text="imbalance (max / mean messages per worker)", type="log", row=1, col=1
    )
    fig.update_layout(title="The trade-off each design picks", height=480)
    return fig


def extra_throughput(frame: pd.DataFrame) -> go.Figure:
    """Throughput (x one worker) against N for every router; the dotted line is N."""
    fig = go.Figure()
    ns = np.sort(frame["n_workers"].unique())
    fig.add_trace(go.Scatter(x=ns, y=ns, mode="lines", name="N (perfect)",
                             line={"color": "#999999", "dash": "dot"}))  # fmt: skip
    for system in SYSTEMS:
        s = frame[frame["system"] == system]
        for k, router in enumerate(sorted(set(s["router"]))):
            r = s[s["router"] == router].sort_values("n_workers")
            fig.add_trace(
                go.Scatter(x=r["n_workers"], y=r["throughput_x"], mode="lines+markers",
                           name=f"{system}: {router}", legendgroup=system,
                           line={"color": DESIGN_COLOURS[system]},
                           marker={"symbol": SYMBOLS[k % len(SYMBOLS)]})
            )  # fmt: skip
    fig.update_layout(title="Throughput against N (tuples per message at the busiest worker)",
                      xaxis={"type": "log", "title": "workers N"},
                      yaxis={"type": "log", "title": "throughput (x one worker)"}, height=480)  # fmt: skip
    return fig


def extra_drift(drift: pd.DataFrame) -> go.Figure:
    """Window by window: the imbalance of the configuration learned once and of the one
    re-learned before each window, one panel per system."""
    systems = [s for s in SYSTEMS if s in set(drift["system"])]
    fig = make_subplots(rows=1, cols=len(systems), subplot_titles=systems)
    for col, system in enumerate(systems, start=1):
        d = drift[drift["system"] == system].sort_values("window")
        for what, dash in (("static", "solid"), ("adapted", "dash")):
            fig.add_trace(
                go.Scatter(x=d["window"], y=d[what], mode="lines+markers",
                           name="learned once" if what == "static" else "re-learned each window",
                           legendgroup=what, showlegend=col == 1,
                           line={"color": DESIGN_COLOURS[system], "dash": dash}),
                row=1, col=col,
            )  # fmt: skip
    fig.update_xaxes(title_text="window (time order)")
    fig.update_yaxes(title_text="imbalance", row=1, col=1)
    fig.update_layout(title="The cost of adapting to the drift", height=420)
    return fig
