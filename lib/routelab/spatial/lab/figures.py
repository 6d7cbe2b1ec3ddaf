"""Notebook 11's figures: Fig. 3/4 (a real kdt-tree and its gridt over the map), Fig. 6
(baselines), Figs. 7-10 (hybrid vs metric vs kd-tree) and Fig. 11 (workers).

A builder is named after the paper figure it draws, ``fig<N><panels>_<what>`` (``fig3_4_``
for one drawing of Figs. 3 and 4). The "Figures" table of ``lib/routelab/README.md`` maps
every figure to its notebook and builder.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.plots import color_for, log_axis
from routelab.spatial.grid import BaseGrid
from routelab.spatial.kdt import Partition

ALGORITHM_ORDER = ("grid", "kd-tree", "r-tree", "frequency", "hypergraph", "metric", "hybrid")


def fig3_4_kdt_map(
    partition: Partition,
    grid: BaseGrid,
    lon: np.ndarray,
    lat: np.ndarray,
    title: str,
    max_points: int = 3000,
) -> go.Figure:
    """The kdt-tree's leaves over the map (Figs. 3-4): a rectangle per space region, coloured
    by worker; a region split by text is dotted and lists its workers. The subtitle says what
    the build holds (how many space-only and text-split regions), so a build without text
    splits never promises dotted regions."""
    fig = go.Figure()
    regions: dict[tuple[int, int, int, int], list[int]] = {}
    for leaf in partition.leaves():
        regions.setdefault((leaf.x0, leaf.y0, leaf.x1, leaf.y1), []).append(leaf.worker)
    names = [f"worker {w}" for w in range(partition.n_workers)]
    for (x0, y0, x1, y1), workers in regions.items():
        a, b, c, d = grid.cell_box(x0, y0, x1, y1)
        text = len(workers) > 1
        colour = color_for(names[workers[0]], names)
        fig.add_trace(
            go.Scatter(
                x=[a, c, c, a, a],
                y=[b, b, d, d, b],
                mode="lines",
                fill="toself",
                line={
                    "color": "black",
                    "width": 1.5 if text else 0.8,
                    "dash": "dot" if text else "solid",
                },
                fillcolor=colour,
                opacity=0.35 if text else 0.5,
                showlegend=False,
                hoverinfo="text",
                text=("text split: workers " + "/".join(map(str, sorted(set(workers)))))
                if text
                else f"space leaf: worker {workers[0]}",
            )
        )
    k = min(len(lon), max_points)
    idx = np.linspace(0, len(lon) - 1, k).astype(int)
    fig.add_trace(
        go.Scattergl(
            x=lon[idx],
            y=lat[idx],
            mode="markers",
            name="objects (sample)",
            marker={"size": 2, "color": "black", "opacity": 0.4},
        )
    )
    n_text = sum(len(w) > 1 for w in regions.values())
    n_space = len(regions) - n_text
    holds = (
        f"{n_space} space-only regions, {n_text} text-split (dotted)"
        if n_text
        else f"{n_space} space-only regions; no region is split by text in this build"
    )
    fig.update_layout(
        title={"text": f"{title}<br><sub>{holds}</sub>"},
        xaxis_title="longitude",
        yaxis_title="latitude",
        yaxis={"scaleanchor": "x", "scaleratio": 1.3},
        height=520,
    )
    return fig


def _label(row: pd.Series) -> str:
    return f"{'UK' if row['country'] == 'GB' else row['country']}-{row['query_set']}"


def _bars(
    df: pd.DataFrame,
    metric: str,
    title: str,
    y_title: str,
    *,
    log: bool = False,
    algorithms: tuple[str, ...] | None = None,
) -> go.Figure:
    """Grouped bars: x = dataset-query set, one bar per algorithm (the layout of Figs.
    6-10)."""
    d = df.copy()
    d["set"] = d.apply(_label, axis=1)
    d = d.groupby(["set", "algorithm"], as_index=False)[metric].mean()
    algs = [a for a in (algorithms or ALGORITHM_ORDER) if a in set(d.algorithm)]
    fig = go.Figure()
    for a in algs:
        s = d[d.algorithm == a]
        fig.add_trace(go.Bar(x=s.set, y=s[metric], name=a, marker_color=color_for(a, algs)))
    fig.update_layout(
        barmode="group", title=title, yaxis_title=y_title, xaxis_title="dataset-query set"
    )
    if log:
        log_axis(fig, "y")
    return fig


def fig6_baselines(
    df: pd.DataFrame,
    algorithms: tuple[str, ...] | None = None,
    title: str = "Fig. 6 - baselines: throughput (busiest worker)",
) -> go.Figure:
    """Fig. 6: throughput (tuples/s of the busiest worker) of the six baselines."""
    return _bars(df, "throughput", title, "tuples/s", algorithms=algorithms)


def fig7_throughput(
    df: pd.DataFrame, algorithms: tuple[str, ...] | None = None, title: str = "Fig. 7 - throughput"
) -> go.Figure:
    """Fig. 7: throughput (tuples/s) of hybrid vs metric vs kd-tree partitioning."""
    return _bars(df, "throughput", title, "tuples/s", algorithms=algorithms)


def fig8_latency(
    df: pd.DataFrame,
    algorithms: tuple[str, ...] | None = None,
    title: str = "Fig. 8 - mean latency at 0.6 x hybrid's capacity (steady state)",
) -> go.Figure:
    """Fig. 8: mean latency (microseconds) of hybrid vs metric vs kd-tree partitioning."""
    return _bars(df, "latency_us", title, "microseconds", algorithms=algorithms)


def fig9_dispatcher_memory(
    df: pd.DataFrame,
    algorithms: tuple[str, ...] | None = None,
    title: str = "Fig. 9 - dispatcher memory (model)",
) -> go.Figure:
    """Fig. 9: dispatcher memory (MB, modelled) of hybrid vs metric vs kd-tree."""
    return _bars(df, "dispatcher_mb", title, "MB", algorithms=algorithms)


def fig10_worker_memory(
    df: pd.DataFrame,
    algorithms: tuple[str, ...] | None = None,
    title: str = "Fig. 10 - worker memory (model, mean over workers)",
) -> go.Figure:
    """Fig. 10: worker memory (MB, modelled, mean over workers) of hybrid vs metric vs
    kd-tree."""
    return _bars(df, "worker_mb", title, "MB", algorithms=algorithms)


def fig11_scalability(df: pd.DataFrame, metric: str = "throughput") -> go.Figure:
    """Fig. 11: throughput against the number of workers, one panel per dataset-query set."""
    d = df.copy()
    d["set"] = d.apply(_label, axis=1)
    sets = sorted(d.set.unique())
    fig = make_subplots(rows=1, cols=len(sets), subplot_titles=sets, shared_yaxes=False)
    algs = [a for a in ALGORITHM_ORDER if a in set(d.algorithm)]
    for j, s in enumerate(sets, start=1):
        for a in algs:
            g = (
                d[(d.set == s) & (d.algorithm == a)]
                .groupby("n_workers", as_index=False)[metric]
                .mean()
            )
            fig.add_trace(
                go.Scatter(
                    x=g.n_workers,
                    y=g[metric],
                    name=a,
                    mode="lines+markers",
                    marker_color=color_for(a, algs),
                    showlegend=j == 1,
                ),
                row=1,
                col=j,
            )
        fig.update_xaxes(title_text="workers", row=1, col=j)
    fig.update_yaxes(title_text="tuples/s (busiest worker)", row=1, col=1)
    fig.update_layout(title="Fig. 11 - scalability with the number of workers")
    return fig
