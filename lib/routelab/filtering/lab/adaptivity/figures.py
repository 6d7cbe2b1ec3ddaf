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
from routelab.filtering.lab.adaptivity.experiments import typical_halving
from routelab.palette import color_for, dash_for
from routelab.plots import figure_html, log_axis, reference_line, widget_view

NAMES = {"dynamic": "dynamic", "no_change": "No Change"}
ROUTINGS = ("broadcast", "access")
PAPER_CHURN_RATE = 100  # changes per second in Sect. 6.2.3


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


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


LEVEL = 0.01  # two window means this close (relative) are level, neither above


def saturation_note(windows: pd.DataFrame, scenario: str) -> str:
    """What a Fig. 4 panel of this run shows, in one markdown sentence: in how many 2-hour
    windows dynamic's throughput (mean over seeds, as drawn) was above No Change's, and
    where each strategy ended against its first window (did dynamic recover?)."""
    sub = windows[windows["scenario"] == scenario]
    mean = sub.groupby(["window", "strategy"])["throughput"].mean().unstack("strategy")
    if not {"dynamic", "no_change"} <= set(mean.columns):
        return f"**In this run:** no {scenario} windows of both strategies to compare."
    mean = mean[["dynamic", "no_change"]].dropna().sort_index()
    n = len(mean)
    if n == 0:
        return f"**In this run:** no {scenario} windows of both strategies to compare."
    above = mean.index[mean["dynamic"] > mean["no_change"] * (1 + LEVEL)]
    below = mean.index[mean["dynamic"] < mean["no_change"] * (1 - LEVEL)]
    level = n - len(above) - len(below)
    if len(above) == n:
        where = f"dynamic was above No Change in every window ({n} of {n})"
    elif len(below) == n:
        where = f"dynamic was below No Change in every window ({n} of {n})"
    else:
        hours = ", ".join(f"{w:g}" for w in above)
        where = f"dynamic was above No Change in {len(above)} of {n} windows" + (
            f" (the windows ending at hours {hours})" if len(above) else ""
        )
        where += f", below it in {len(below)}"
        if level:
            where += f" and level with it (within {LEVEL:.0%}) in {level}"
    first, last = mean.iloc[0], mean.iloc[-1]
    dyn, nc = last["dynamic"] / first["dynamic"], last["no_change"] / first["no_change"]
    recovered = (
        "near its first window's throughput"
        if dyn >= 0.9
        else "below its first window's throughput, so this run shows no recovery"
    )
    return (
        f"**In this run** {where}. In the last window dynamic was at {dyn:.0%} of its first "
        f"window ({recovered}), No Change at {nc:.0%} of its own."
    )


def note_fig4a(windows: pd.DataFrame) -> str:
    """:func:`saturation_note` of Fig. 4(a) (schema change)."""
    return saturation_note(windows, "schema")


def note_fig4b(windows: pd.DataFrame) -> str:
    """:func:`saturation_note` of Fig. 4(b) (subscription and event skew)."""
    return saturation_note(windows, "skew")


def extra_churn_rate(
    frame: pd.DataFrame, halving: pd.Series, max_rate: float | None = None
) -> go.Figure:
    """Not a paper figure: throughput against changes per second (log axes), per strategy,
    the legend giving the rate where it halves.

    ``halving`` is :func:`~routelab.filtering.lab.adaptivity.experiments.halving_rates`
    (per strategy and seed); the legend states
    :func:`~routelab.filtering.lab.adaptivity.experiments.typical_halving` of each strategy's
    seeds, the number the churn claim grades. ``max_rate`` (default: the
    sweep's top rate) is where a seed that never halved counts."""
    top = float(frame["rate"].max()) if max_rate is None else float(max_rate)
    fig = go.Figure()
    for strategy, g in frame.groupby("strategy", sort=False):
        pts = g.groupby("rate")["throughput"].median()
        per_seed = halving.xs(strategy, level="strategy") if strategy in halving.index else []
        summary = typical_halving(per_seed, top)
        fig.add_trace(
            go.Scatter(
                x=pts.index,
                y=pts.to_numpy(),
                name=f"{NAMES.get(strategy, strategy)} ({summary.text(top)})",
                mode="lines+markers",
                line={"color": color_for(strategy), "dash": dash_for(strategy)},
            )
        )
    fig.update_layout(
        title="Churn rate: throughput vs subscription changes per second<br><sub>median over "
        "seeds; the halving rate is the geometric mean over seeds, as the claims table grades "
        "it</sub>",
        height=440,
        legend={"title_text": "strategy"},
    )
    log_axis(fig, "x", title_text="subscription changes per second (half inserts)")
    log_axis(fig, "y", title_text="events per second (after updates)")
    reference_line(fig, PAPER_CHURN_RATE, "x", "the paper's 100/s")
    return fig


LOG_METRICS = ("ms_per_100", "checks_per_event")  # span decades between the algorithms


def extra_real_data(frame: pd.DataFrame) -> go.Figure:
    """Not a paper figure: the five algorithms on real flight events (and W0 beside):
    ms per 100 events, subscriptions checked (log axes: they span decades) and matches per
    event (a linear axis: W0's events can match nothing, which a log axis would not draw,
    and a ratio of 6 must not look like 20)."""
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
        if metric in LOG_METRICS:
            fig.update_yaxes(type="log", row=1, col=col)
        else:  # a count a workload can have none of: 0 stays visible, ratios read as drawn
            fig.update_yaxes(rangemode="tozero", row=1, col=col)
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


def replay_hour(hour: Any) -> Any:
    """An hour as the replay offers it: to two decimals (10.2, not the 10.200000000000001
    that 51 ticks of 0.2 h add up to); a number or a Series."""
    return hour.round(2) if isinstance(hour, pd.Series) else round(float(hour), 2)


def replay_hours(ticks: pd.DataFrame) -> list[float]:
    """The distinct hours of a saturation run's ticks, rounded (:func:`replay_hour`)."""
    return sorted({replay_hour(h) for h in ticks["hour"].unique()})


def timeline_table(ticks: pd.DataFrame, scenario: str, hour: float) -> str:
    """The state of each strategy at ``hour`` of a scenario (first seed): tables,
    subscriptions moved so far, checks per event, events per second."""
    sub = ticks[(ticks["scenario"] == scenario) & (ticks["seed"] == ticks["seed"].min())]
    out = []
    for strategy, g in sub.groupby("strategy", sort=False):
        upto = g[replay_hour(g["hour"]) <= hour + 1e-9]
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
    hours = replay_hours(ticks)

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
