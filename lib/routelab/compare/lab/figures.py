"""Notebook 13's table and figures: the trade-off each design picks (imbalance against
replication), throughput against N, and the cost of adapting to the drift.

Builders draw no paper figure, so they are named ``extra_<what>``; the "Figures" table of
``lib/routelab/README.md`` lists them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.compare.routers import COPIES, ROUTERS, SYSTEMS, SYSTEMS_BY_NAME
from routelab.palette import DESIGN_COLOURS

SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x")


def summary_table(frame: pd.DataFrame, n_workers: int) -> pd.DataFrame:
    """Per router at ``n_workers``: imbalance, replication, throughput (x one worker), the
    largest per-worker state (in its unit) and the busiest worker's measured seconds."""
    sub = frame[frame["n_workers"] == n_workers]
    cols = ["imbalance", "replication", "throughput_x", "state_max", "state_unit", "busiest_s"]
    return sub.set_index(["system", "router"])[cols].round(3)


LEGEND_ROW_PX = 22  # one legend entry's height at the house font (lines, small markers)
MARKER_ROW_PX = 30  # one entry showing an 11-px marker
PLOT_PX = 220  # what the plot area keeps beside a tall legend, with the title and footer


def _fit_legend(fig: go.Figure, height: int, row_px: int = LEGEND_ROW_PX) -> go.Figure:
    """Make the figure tall enough for its legend (one row of ``row_px`` per entry beside
    the plot), so the static PNG does not cut it off."""
    entries = sum(1 for t in fig.data if t.showlegend is not False)
    fig.update_layout(height=max(height, PLOT_PX + row_px * entries))
    return fig


def _replication_unit(system: str) -> str:
    """What the replication of ``system``'s routers counts (its adapter's
    ``replication_unit``; copies per tuple for a system without an adapter)."""
    s = SYSTEMS_BY_NAME.get(system)
    return s.replication_unit if s is not None else COPIES


def _router_label(system: str, router: str) -> str:
    """A router's legend name; where the replication is not copies per tuple (key
    grouping's: workers per key), it says what it is."""
    unit = _replication_unit(system)
    return f"{system}: {router}" + (f" ({unit})" if unit != COPIES else "")


def extra_tradeoff(frame: pd.DataFrame, workers: tuple[int, ...] = (8, 32)) -> go.Figure:
    """Imbalance against replication, every router, one panel per N. Each router is a
    legend entry (its system's colour, its own marker), not a text label on the plot, where
    routers at nearly the same point would print over each other. Key grouping's
    replication is the workers a key lives on, not copies of a tuple: its legend entries and
    the axis title say so."""
    ns = [n for n in workers if n in set(frame["n_workers"])]
    fig = make_subplots(rows=1, cols=len(ns), subplot_titles=[f"N = {n}" for n in ns])
    for col, n in enumerate(ns, start=1):
        sub = frame[frame["n_workers"] == n]
        for system in SYSTEMS:
            known = ROUTERS.get(system, ())
            present = set(frame.loc[frame["system"] == system, "router"])
            routers = [r for r in known if r in present] + sorted(present - set(known))
            for k, router in enumerate(routers):
                s = sub[(sub["system"] == system) & (sub["router"] == router)]
                if s.empty:
                    continue
                unit = _replication_unit(system)
                fig.add_trace(
                    go.Scatter(x=s["replication"], y=s["imbalance"], mode="markers",
                               name=_router_label(system, router),
                               legendgroup=f"{system}:{router}", showlegend=col == 1,
                               marker={"color": DESIGN_COLOURS[system], "size": 11,
                                       "symbol": SYMBOLS[k % len(SYMBOLS)],
                                       "line": {"width": 1, "color": "white"}},
                               hovertemplate=f"{system}: {router}<br>{unit} %{{x:.3g}}<br>"
                               "imbalance %{y:.3g}<extra></extra>"),
                    row=1, col=col,
                )  # fmt: skip
    fig.update_xaxes(title_text="replication", type="log")
    fig.update_yaxes(
        title_text="imbalance (max / mean messages per worker)", type="log", row=1, col=1
    )
    fig.update_layout(
        title="The trade-off each design picks<br><sub>replication: copies per tuple; for key "
        "grouping, the workers a key lives on</sub>",
        legend_title_text="router",
    )
    return _fit_legend(fig, 480, MARKER_ROW_PX)


def extra_throughput(frame: pd.DataFrame) -> go.Figure:
    """Throughput (x one worker) against N for every router; the dashed line is N, drawn
    on top of the routers' lines (some lie on it) and labelled at its end."""
    fig = go.Figure()
    ns = np.sort(frame["n_workers"].unique())
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
    fig.add_trace(go.Scatter(x=ns, y=ns, mode="lines", name="N (perfect)",
                             line={"color": "#333333", "dash": "dash", "width": 2.5}))  # fmt: skip
    if len(ns):
        fig.add_annotation(x=math.log10(ns[-1]), y=math.log10(ns[-1]), text="N (perfect)",
                           showarrow=False, xanchor="right", yanchor="bottom",
                           font={"color": "#333333"})  # fmt: skip
    fig.update_layout(title="Throughput against N (tuples per message at the busiest worker)",
                      xaxis={"type": "log", "title": "workers N"},
                      yaxis={"type": "log", "title": "throughput (x one worker)"})  # fmt: skip
    return _fit_legend(fig, 480)


def extra_drift(drift: pd.DataFrame) -> go.Figure:
    """Window by window: the imbalance of the configuration learned once and of the one
    re-learned before each window, one panel per system (its name above the panel, a short
    x title under each, so the titles of narrow panels do not run together)."""
    systems = [s for s in SYSTEMS if s in set(drift["system"])]
    fig = make_subplots(rows=1, cols=len(systems), subplot_titles=systems,
                        horizontal_spacing=0.06)  # fmt: skip
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
    fig.update_xaxes(title_text="window")
    fig.update_yaxes(title_text="imbalance", row=1, col=1)
    fig.update_layout(title="The cost of adapting to the drift (windows in time order)", height=420)
    return fig
