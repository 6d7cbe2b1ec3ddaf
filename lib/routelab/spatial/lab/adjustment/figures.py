"""Notebook 12's figures: Fig. 12 (DP, GR, SI, RA on one query count), Figs. 13-15 (GR,
SI, RA at two query counts), Fig. 16 (throughput with and without adjustment, per
period), the global adjustment's throughput (``extra_global_throughput``), Phase I's
actions per reading of the cost model (``extra_phase_one_table``), the worked example's
table and the period stepper.

Builder names follow the house rule (``fig<N>_<what>`` for a paper figure, ``extra_``
otherwise); the "Figures" table of ``lib/routelab/README.md`` lists them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.palette import color_for
from routelab.plots import figure_html, widget_view

ORDER = ["DP", "GR", "SI", "RA"]
COLOURS = {name: color_for(name) for name in [*ORDER, "none", "GR+global"]}
BUCKETS = [("lat_fast", "< b1 (unaffected)"), ("lat_mid", "b1 - 10 b1"), ("lat_slow", ">= 10 b1")]


BUCKET_COLOURS = {"lat_fast": "#009E73", "lat_mid": "#E69F00", "lat_slow": "#CC79A7"}
SIZE_COLOUR, TIME_COLOUR = "#0072B2", "#000000"


def _runs(frame: pd.DataFrame, mu: int | None = None, level: str = "run") -> pd.DataFrame:
    runs = frame[frame["level"] == level]
    if "scenario" in runs.columns:
        runs = runs[runs["scenario"] == "drift"]
    return runs[runs["mu"] == mu] if mu is not None else runs


def _selection_ms(frame: pd.DataFrame, mu: int | None = None) -> pd.DataFrame:
    """Median over seeds (per selector, and query count) of the mean selection time on GR's
    snapshots -- the four selectors on the same cells -- or of each run's own selections
    where no snapshot was taken."""
    snaps = _runs(frame, mu, "selection")
    source = snaps if len(snaps) else _runs(frame, mu)
    keys = ["selector"] if mu is not None else ["selector", "mu"]
    return source.groupby(keys)["select_ms_mean"].median()


def _panels(frame: pd.DataFrame, mu: int, title: str, selectors: list[str]) -> go.Figure:
    runs = _runs(frame, mu)
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=["(a) selection time (ms, same cells for all)",
                        "(b) per migration: size (bars) and time (dots)",
                        "(c) share of tuples by latency"],
        specs=[[{}, {"secondary_y": True}, {}]],
    )  # fmt: skip
    med = runs.groupby("selector").median(numeric_only=True).reindex(selectors).dropna(how="all")
    names = list(med.index)
    sel = _selection_ms(frame, mu).reindex(names)
    fig.add_trace(
        go.Bar(x=names, y=sel, marker_color=[COLOURS[n] for n in names], showlegend=False,
               hovertemplate="%{x}: %{y:.3g} ms<extra></extra>"),
        row=1, col=1,
    )  # fmt: skip
    size = med["p2_bytes_mean"] if "p2_bytes_mean" in med else med["bytes"]
    ms = med["p2_migration_ms_mean"] if "p2_migration_ms_mean" in med else 1e3 * med["migration_s"]
    fig.add_trace(
        go.Bar(x=names, y=size / 2**20, name="migrated MB per migration", marker_color=SIZE_COLOUR),
        row=1, col=2,
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(x=names, y=ms, name="ms per migration", mode="markers",
                   marker={"size": 12, "color": TIME_COLOUR, "symbol": "diamond"}),
        row=1, col=2, secondary_y=True,
    )  # fmt: skip
    for col, label in BUCKETS:
        fig.add_trace(go.Bar(x=names, y=med[col], name=label, marker_color=BUCKET_COLOURS[col]),
                      row=1, col=3)  # fmt: skip
    fig.update_layout(title=title, barmode="group", height=460,
                      legend={"orientation": "h", "y": -0.18})  # fmt: skip
    fig.update_yaxes(type="log", title_text="ms", row=1, col=1)
    fig.update_yaxes(title_text="MB", rangemode="tozero", row=1, col=2, secondary_y=False)
    fig.update_yaxes(title_text="ms", rangemode="tozero", nticks=5, tickformat=".3~s", row=1,
                     col=2, secondary_y=True)  # fmt: skip
    fig.update_yaxes(range=[0, 1], title_text="share of tuples", row=1, col=3)
    return fig


def fig12_selection(frame: pd.DataFrame, mu: int) -> go.Figure:
    """Fig. 12: DP, GR, SI and RA at one query count: (a) selection time, all four timed on
    the same snapshots of the hot worker's cells, (b) size and time per Phase II
    migration, (c) latency distribution (medians over seeds)."""
    return _panels(frame, mu, f"Fig. 12: cell selection and migration, {mu:,} queries", ORDER)


def fig13_15_query_counts(frame: pd.DataFrame) -> go.Figure:
    """Figs. 13-15: GR, SI, RA (and DP where it ran) at each query count: selection time
    (the same snapshots for all, at every count), size and time per migration (Fig. 14) and
    unaffected tuples (Fig. 15) for the selectors run in full at that count (GR alone at
    the larger counts). DP's points where it ran out of memory are not drawn (it migrated nothing
    there, which would look cheapest); the panel says where."""
    runs = _runs(frame)
    sel = _selection_ms(frame)
    fig = make_subplots(
        rows=1, cols=4,
        subplot_titles=["selection time (ms)", "MB per migration", "ms per migration",
                        "tuples unaffected (latency < b1)"],
    )  # fmt: skip
    snaps = _runs(frame, None, "selection")
    dp = pd.concat([runs[runs["selector"] == "DP"], snaps[snaps["selector"] == "DP"]])
    oom_at = sorted({int(m) for m, o in zip(dp["mu"], dp["oom"], strict=True) if o > 0})
    for name in ORDER:
        g = runs[runs["selector"] == name].groupby("mu").median(numeric_only=True)
        if g.empty:
            continue
        oom = pd.Series([int(m) in oom_at and name == "DP" for m in g.index], index=g.index)
        size = g["p2_bytes_mean"] if "p2_bytes_mean" in g else g["bytes"]
        ms = g["p2_migration_ms_mean"] if "p2_migration_ms_mean" in g else 1e3 * g["migration_s"]
        has = name in sel.index.get_level_values("selector")
        s = sel.loc[name] if has else pd.Series(np.nan, index=g.index)  # every count snapped
        s = s.where([not (int(m) in oom_at and name == "DP") for m in s.index])
        for col, y in enumerate([s, size / 2**20, ms, g["lat_fast"]], 1):
            if col > 1:
                y = pd.Series(np.asarray(y, dtype=float), index=g.index).where(~oom)
            fig.add_trace(
                go.Scatter(x=y.index, y=y, name=name, legendgroup=name, showlegend=col == 1,
                           mode="lines+markers", line={"color": COLOURS[name]}),
                row=1, col=col,
            )  # fmt: skip
    if oom_at:
        fig.add_annotation(text=f"DP: out of memory at {', '.join(f'{m:,}' for m in oom_at)} "
                           "queries (not drawn)", xref="paper", yref="paper", x=0, y=-0.22,
                           showarrow=False, xanchor="left")  # fmt: skip
    fig.update_xaxes(type="log", title_text="live queries (mu)")
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_layout(title="Figs. 13-15: the selections as the query count grows", height=460,
                      margin={"b": 110})  # fmt: skip
    return fig


def fig16_throughput(frame: pd.DataFrame, selector: str = "GR") -> go.Figure:
    """Fig. 16: throughput per period with and without adjustment, mean over seeds, one
    panel per scenario (Q3 with flipping regions; Q1 on the tweets' drift)."""
    per = frame[frame["level"] == "period"]
    if "scenario" not in per.columns:
        per = per.assign(scenario="drift")
    scenarios = [s for s in ("flips", "drift") if s in set(per["scenario"])]
    titles = {"flips": "Q3, 10 % of the regions flip Q1/Q2", "drift": "Q1, the tweets' drift"}
    fig = make_subplots(rows=1, cols=len(scenarios), subplot_titles=[titles[s] for s in scenarios])
    for col, scenario in enumerate(scenarios, start=1):
        sub = per[per["scenario"] == scenario]
        sub = sub[sub["mu"] == sub["mu"].max()]
        for name in ("none", selector):
            g = sub[sub["selector"] == name].groupby("period")["throughput"].mean()
            fig.add_trace(
                go.Scatter(x=g.index, y=g.to_numpy(), mode="lines+markers",
                           name="without adjustment" if name == "none"
                           else f"with adjustment ({name})", legendgroup=name,
                           showlegend=col == 1, line={"color": COLOURS[name]}),
                row=1, col=col,
            )  # fmt: skip
    fig.update_xaxes(title_text="period")
    fig.update_yaxes(title_text="tuples per busy second of the busiest worker", row=1, col=1)
    fig.update_layout(title="Fig. 16: throughput with vs without local adjustment", height=420)
    return fig


def extra_global_throughput(frame: pd.DataFrame) -> go.Figure:
    """Throughput per period on the drifting stream: no adjustment, GR (local only) and GR
    with global adjustment, mean over seeds; shaded periods had two strategies (the
    first seed's run)."""
    per = frame[(frame["level"] == "period") & (frame["scenario"] == "global")]
    fig = go.Figure()
    first = per[(per["selector"] == "GR+global") & (per["seed"] == per["seed"].min())]
    for p in first.loc[first["dual"].astype(bool), "period"]:
        fig.add_vrect(x0=p - 0.5, x1=p + 0.5, fillcolor="#E69F00", opacity=0.12, line_width=0)
    for name, label in (("none", "without adjustment"), ("GR", "local (GR)"),
                        ("GR+global", "local (GR) + global")):  # fmt: skip
        g = per[per["selector"] == name].groupby("period")["throughput"].mean()
        fig.add_trace(go.Scatter(x=g.index, y=g.to_numpy(), mode="lines+markers", name=label,
                                 line={"color": COLOURS[name]}))  # fmt: skip
    fig.update_layout(title="Global adjustment (Sect. V-B) on the tweets' drift", height=420,
                      xaxis_title="period",
                      yaxis_title="tuples per busy second of the busiest worker")  # fmt: skip
    return fig


def extra_phase_one_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Phase I's splits and merges and Phase II's moves per run, by reading of the cost
    model (GR on the drifting stream at the smaller query count), median over seeds."""
    runs = frame[(frame["level"] == "run") & frame["scenario"].isin(["drift", "pairs"])]
    runs = runs[(runs["selector"] == "GR") & (runs["mu"] == runs["mu"].min())]
    cols = ["phase1_splits", "phase1_merges", "phase2_moves", "throughput"]
    return runs.groupby("cost_model")[cols].median()


def _count(n: float, word: str) -> str:
    n = int(round(n))
    return f"{n} {word}{'' if n == 1 else 's'}"


def phase_one_note(frame: pd.DataFrame) -> str:
    """What :func:`extra_phase_one_table` shows, in one markdown sentence: per reading of
    the cost model, Phase I's splits and merges per run (the table's medians) and in all
    the seeds' runs together (what the claims table counts)."""
    runs = frame[(frame["level"] == "run") & frame["scenario"].isin(["drift", "pairs"])]
    runs = runs[(runs["selector"] == "GR") & (runs["mu"] == runs["mu"].min())]
    if runs.empty:
        return "**In this run:** no GR run to read Phase I from."
    parts = []
    for model, g in runs.groupby("cost_model"):
        med = g[["phase1_splits", "phase1_merges"]].median()
        tot = g[["phase1_splits", "phase1_merges"]].sum()
        parts.append(
            f"under `{model}`, {_count(med['phase1_splits'], 'split')} and "
            f"{_count(med['phase1_merges'], 'merge')} per run (median; "
            f"{int(tot['phase1_splits'])} and {int(tot['phase1_merges'])} over its "
            f"{_count(len(g), 'run')})"
        )
    return "**In this run** Phase I made " + "; ".join(parts) + "."


def global_note(frame: pd.DataFrame) -> str:
    """What :func:`extra_global_throughput` shows, in one markdown sentence: how many
    re-partitions were taken (and the best saving a check promised), how many periods are
    shaded, and how far the local-only and local + global lines lie apart."""
    runs = frame[(frame["level"] == "run") & (frame["scenario"] == "global")]
    per = frame[(frame["level"] == "period") & (frame["scenario"] == "global")]
    glob = runs[runs["selector"] == "GR+global"]
    if glob.empty:
        return "**In this run:** no global adjustment was run."
    switches = int(glob["global_switches"].sum())
    gain = glob["global_best_gain"].max()
    first = per[(per["selector"] == "GR+global") & (per["seed"] == per["seed"].min())]
    shaded = int(first["dual"].astype(bool).sum()) if "dual" in first else 0
    gain_text = f"{gain:.0%}" if pd.notna(gain) else "none"
    if switches:
        taken = (f"the global adjustment re-partitioned {_count(switches, 'time')} over "
                 f"{_count(len(glob), 'run')} (best saving promised: {gain_text})")  # fmt: skip
    else:
        taken = (f"no check promised the 10 % saving a re-partition needs (best: {gain_text}), "
                 f"so none was taken in {_count(len(glob), 'run')}")  # fmt: skip
    shade = f"{_count(shaded, 'period')} of the first seed ran two strategies (shaded)"
    lines = per[per["selector"].isin(["GR", "GR+global"])]
    mean = lines.groupby(["period", "selector"])["throughput"].mean().unstack("selector")
    gap = ""
    if {"GR", "GR+global"} <= set(mean.columns) and len(mean.dropna()):
        ratio = (mean["GR+global"] / mean["GR"]).dropna()
        ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
        if len(ratio):
            spread = np.exp(np.abs(np.log(ratio)))
            mig = runs.groupby("selector")["migrations"].median() if "migrations" in runs else {}
            moves = (f" (local migrations per run, median: {mig.get('GR', 0):g} local only, "
                     f"{mig.get('GR+global', 0):g} with global)") if len(mig) else ""  # fmt: skip
            gap = (f"; per period the local + global line was {ratio.median():.2f}x the local "
                   f"one (median), the two apart by up to {spread.max():.1f}x{moves}"
                   + ("; without a re-partition that gap is two separate replays' local "
                      "migrations and timings, not the global adjustment" if not switches
                      else ""))  # fmt: skip
    return f"**In this run** {taken}; {shade}{gap}."


def example_table(
    load: np.ndarray, size: np.ndarray, need: float, selections: dict
) -> pd.DataFrame:
    """The worked example: each method's cells, moved load and migration cost."""
    return pd.DataFrame(
        [
            {"method": name, "cells": ", ".join(f"g{c}" for c in s.cells), "load moved": s.load,
             "migration cost": s.cost, "feasible": s.load >= need}
            for name, s in selections.items()
        ]
    )  # fmt: skip


def extra_period_stepper(periods: pd.DataFrame, migrations: pd.DataFrame) -> Any:
    """Step through the periods of one adjusted run: each worker's load and the migration
    decided after the period."""
    import ipywidgets as widgets

    load_cols = sorted((c for c in periods.columns if c.startswith("load_")),
                       key=lambda c: int(c.split("_")[1]))  # fmt: skip

    def render(period: int) -> str:
        row = periods[periods["period"] == period].iloc[0]
        fig = go.Figure(go.Bar(x=[c.split("_")[1] for c in load_cols], y=row[load_cols]))
        fig.update_layout(height=280, title=f"period {period}: load per worker "
                          f"(max/min {row['sigma_obs']:.2f})", xaxis_title="worker")  # fmt: skip
        m = migrations[migrations["period"] == period] if len(migrations) else migrations
        table = (
            m.drop(columns=[c for c in ("status",) if c in m.columns]).round(4).to_html(index=False)
            if len(m)
            else "<p>no migration</p>"
        )
        return figure_html(fig) + table

    periods_list = periods["period"].astype(int).tolist()
    return widget_view(
        render, period=widgets.SelectionSlider(options=periods_list, value=periods_list[0],
                                               description="period")
    )  # fmt: skip


def extra_adjust_regime_map(vmap: pd.DataFrame, c_paper: float) -> go.Figure:
    """Notebook 12's regime map: Fig. 16's and Fig. 12(c)'s timing rows (and the global
    adjustment's) along the platform's cost per message, drawn as notebook 11's
    (:func:`routelab.spatial.lab.partitioning.figures.extra_regime_map`)."""
    from routelab.spatial.lab.partitioning.figures import extra_regime_map

    return extra_regime_map(
        vmap, c_paper, "Load adjustment: each timing verdict along the platform's cost per message"
    )
