"""Notebook 10's figures: Fig. 4(a, b) (throughput over the saturation run), the churn-rate
sweep, the real-data comparison, routed vs broadcast, and the timeline replay widget.

Builder names follow the house rule (``fig<N><panel>_<what>`` for a paper figure,
``extra_`` otherwise); the "Figures" table of ``lib/routelab/README.md`` lists them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.claims import t_interval
from routelab.palette import color_for, dash_for
from routelab.plots import figure_html, log_axis, widget_view

NAMES = {"dynamic": "dynamic", "no_change": "No Change"}
ROUTINGS = ("broadcast", "access")


def _scaled_note(frame: pd.DataFrame) -> str:
    live = int(frame["live"].iloc[0]) if "live" in frame.columns and len(frame) else 0
    return (
        f"{live:,} live subscriptions (the paper: 3,000,000); lifetime and hours scaled by "
        f"{live / 3_000_000:.3g}"
    )


def _saturation(windows: pd.DataFrame, scenario: str, title: str, note: str) -> go.Figure:
    """Throughput per 2-hour window, mean over seeds with its 95 % interval, per strategy."""
    fig = go.Figure()
    sub = windows[windows["scenario"] == scenario]
    for strategy, g in sub.groupby("strategy", sort=False):
        pts = []
        for w, gw in g.groupby("window"):
            mean, lo, hi = t_interval(gw["throughput"].to_numpy(float))
            pts.append((w, mean, lo, hi))
        w, mean, lo, hi = (np.array(v) for v in zip(*pts, strict=True))
        fig.add_trace(
            go.Scatter(
                x=w,
                y=mean,
                name=NAMES.get(strategy, strategy),
                mode="lines+markers",
                line={"color": color_for(strategy), "dash": dash_for(strategy)},
                error_y={"type": "data", "array": hi - mean, "arrayminus": mean - lo},
            )
        )
    fig.add_vline(x=2, line_dash="dot", annotation_text="W2 starts", line_color="grey")
    fig.update_layout(
        title=f"{title}<br><sub>{note}</sub>",
        xaxis_title="simulated hours (2-hour windows, scaled)",
        yaxis_title="events per second (after updates)",
        legend_title_text="strategy",
        height=460,
    )
    return fig


def fig4a_schema_change(windows: pd.DataFrame, ticks: pd.DataFrame) -> go.Figure:
    """Fig. 4(a): W1 on 16 attributes, then W2 on the other 16."""
    return _saturation(
        windows,
        "schema",
        "Fig. 4(a): changing subscription schemas",
        _scaled_note(ticks[ticks["scenario"] == "schema"]),
    )


def fig4b_value_skew(windows: pd.DataFrame, ticks: pd.DataFrame) -> go.Figure:
    """Fig. 4(b): subscription and event skew on a fixed attribute (2 values, not 35)."""
    return _saturation(
        windows,
        "skew",
        "Fig. 4(b): adding subscription and event skew",
        _scaled_note(ticks[ticks["scenario"] == "skew"]),
    )


def extra_churn_rate(frame: pd.DataFrame, halving: dict[str, float]) -> go.Figure:
    """Not a paper figure: throughput against changes per second (log axes), per strategy,
    with the rate where it halves."""
    fig = go.Figure()
    for strategy, g in frame.groupby("strategy", sort=False):
        pts = g.groupby("rate")["throughput"].median()
        fig.add_trace(
            go.Scatter(
                x=pts.index,
                y=pts.to_numpy(),
                name=f"{NAMES.get(strategy, strategy)} (halves at "
                f"{halving.get(strategy, float('nan')):,.0f}/s)",
                mode="lines+markers",
                line={"color": color_for(strategy), "dash": dash_for(strategy)},
            )
        )
    fig.add_vline(x=100, line_dash="dot", annotation_text="the paper's 100/s", line_color="grey")
    fig.update_layout(title="Churn rate: throughput vs subscription changes per second", height=440)
    log_axis(fig, "x", title_text="subscription changes per second (half inserts)")
    log_axis(fig, "y", title_text="events per second (after updates)")
    return fig


def extra_real_data(frame: pd.DataFrame) -> go.Figure:
    """Not a paper figure: the five algorithms on real flight events (and W0 beside):
    ms per 100 events, subscriptions checked and matches per event."""
    metrics = [
        ("ms_per_100", "ms per 100 events"),
        ("checks_per_event", "checks per event"),
        ("matches_per_event", "matches per event"),
    ]
    fig = make_subplots(rows=1, cols=3, subplot_titles=[m[1] for m in metrics])
    for col, (metric, _) in enumerate(metrics, start=1):
        med = frame.groupby(["workload", "algorithm"], sort=False)[metric].median().reset_index()
        for algorithm, g in med.groupby("algorithm", sort=False):
            fig.add_trace(
                go.Bar(
                    x=g["workload"],
                    y=g[metric],
                    name=algorithm,
                    legendgroup=algorithm,
                    showlegend=col == 1,
                    marker_color=color_for(algorithm),
                ),
                row=1,
                col=col,
            )
        fig.update_yaxes(type="log", row=1, col=col)
    fig.update_layout(title="Real events: the five algorithms", barmode="group", height=440)
    return fig


def extra_routing(frame: pd.DataFrame) -> go.Figure:
    """Not a paper figure: messages per event and load imbalance (checks, max/avg) against
    partitions, broadcast vs routing by access predicate, per workload."""
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=["messages per event", "imbalance of checks (max/avg)"]
    )
    for (workload, routing), g in frame.groupby(["workload", "routing"], sort=False):
        g = g.groupby("partitions", as_index=False)[["messages_per_event", "imbalance_checks"]]
        g = g.median()
        for col, metric in enumerate(["messages_per_event", "imbalance_checks"], start=1):
            fig.add_trace(
                go.Scatter(
                    x=g["partitions"],
                    y=g[metric],
                    name=f"{workload}, {routing}",
                    legendgroup=f"{workload}{routing}",
                    showlegend=col == 1,
                    mode="lines+markers",
                    line={
                        "color": color_for(routing, ROUTINGS),
                        "dash": "solid" if workload == "W0" else "dash",
                    },
                ),
                row=1,
                col=col,
            )
    fig.update_xaxes(title_text="partitions (matcher instances)")
    fig.update_layout(title="Routing events to matcher partitions", height=440)
    return fig


def timeline_table(ticks: pd.DataFrame, scenario: str, hour: float) -> str:
    """The state of each strategy at ``hour`` of a scenario (first seed): tables,
    subscriptions moved so far, checks per event, events per second."""
    sub = ticks[(ticks["scenario"] == scenario) & (ticks["seed"] == ticks["seed"].min())]
    out = []
    for strategy, g in sub.groupby("strategy", sort=False):
        upto = g[g["hour"] <= hour + 1e-9]
        if upto.empty:
            continue
        last = upto.iloc[-1]
        out.append(
            {
                "strategy": NAMES.get(strategy, strategy),
                "hour": round(float(last["hour"]), 2),
                "tables": int(last["tables"]),
                "tables created so far": int(upto["created"].sum()),
                "tables removed so far": int(upto["dropped"].sum()),
                "moves so far": int(upto["moved"].sum()),
                "checks per event": round(float(last["checks_per_event"]), 1),
                "events per second": round(float(last["throughput"])),
            }
        )
    return pd.DataFrame(out).to_html(index=False)


def extra_timeline_replay(ticks: pd.DataFrame) -> Any:
    """Step through a saturation run: each strategy's configuration and cost at an hour."""
    import ipywidgets as widgets

    scenarios = sorted(ticks["scenario"].unique())
    hours = sorted(float(h) for h in ticks["hour"].unique())

    def render(scenario: str, hour: float) -> str:
        fig = go.Figure()
        sub = ticks[(ticks["scenario"] == scenario) & (ticks["seed"] == ticks["seed"].min())]
        for strategy, g in sub.groupby("strategy", sort=False):
            fig.add_trace(
                go.Scatter(
                    x=g["hour"],
                    y=g["checks_per_event"],
                    name=NAMES.get(strategy, strategy),
                    line={"color": color_for(strategy)},
                )
            )
        fig.add_vline(x=hour, line_color="grey")
        fig.update_layout(height=300, title="subscriptions checked per event", xaxis_title="hour")
        return timeline_table(ticks, scenario, hour) + figure_html(fig)

    return widget_view(
        render,
        scenario=widgets.Dropdown(options=scenarios, value=scenarios[0], description="scenario"),
        hour=widgets.SelectionSlider(
            options=hours, value=hours[len(hours) // 2], description="hour"
        ),
    )
