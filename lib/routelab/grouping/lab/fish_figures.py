"""Figures of notebook ``08_fish`` (FISH Sect. 6, Figs. 9-19) from the frames of
:mod:`routelab.grouping.lab.fish_experiments`, plus the per-worker load explorer.

Every function takes the result frame (one row per grid point: ``case``, ``n_workers``,
``variant`` and the measured columns) and returns a plotly figure; the notebook saves it
with :meth:`routelab.report.NotebookReport.figure`. Methods keep their colour across
figures (:func:`routelab.plots.color_for` over :data:`VARIANT_ORDER`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.plots import PALETTE, color_for, figure_html, widget_view

VARIANT_ORDER = ("SG", "FG", "PKG", "D-C", "W-C", "FISH")
"""Labels of the compared schemes, in legend order (colours follow this order)."""

SCHEME_LABELS = {
    "sg": "SG",
    "kg": "FG",
    "pkg_local": "PKG",
    "dchoices": "D-C",
    "wchoices": "W-C",
    "fish": "FISH",
}
"""Scheme name -> the label the FISH paper uses (FG = field grouping = our key grouping)."""

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def _colour(label: str, labels: Sequence[str]) -> str:
    known = list(VARIANT_ORDER)
    if label in known:
        return color_for(label, known)
    return PALETTE[(len(known) + list(labels).index(label)) % len(PALETTE)]


def _ordered(labels: Sequence[str]) -> list[str]:
    rank = {v: i for i, v in enumerate(VARIANT_ORDER)}
    uniq = list(dict.fromkeys(labels))
    return sorted(uniq, key=lambda v: (rank.get(v, len(rank)), uniq.index(v)))


def _grid(n_panels: int, max_cols: int = 4) -> tuple[int, int]:
    cols = min(max_cols, max(1, n_panels))
    return math.ceil(n_panels / cols), cols


def data_note(frame: pd.DataFrame) -> str:
    """The provenance footer of a figure: the cases by kind of data, e.g. ``real: MovieLens
    movies (AM), tweet words (MT); synthetic: ZF z=1, ZF z=1.4`` (case labels name the
    paper dataset a stream stands in for)."""
    parts = []
    for kind, group in frame.groupby("data", sort=False):
        parts.append(f"{kind}: " + ", ".join(dict.fromkeys(group["case"])))
    return "; ".join(parts)


def _panels(
    frame: pd.DataFrame,
    x: str,
    value: str,
    line_by: str,
    *,
    title: str,
    x_title: str,
    y_title: str,
    line_names: Any = str,
    categorical_x: bool = False,
    log_y: bool = False,
    hline: float | None = None,
    mark_x: Any = None,
    max_cols: int = 4,
) -> go.Figure:
    """``value`` against ``x``, one panel per case (wrapped over ``max_cols`` columns), one
    line per value of ``line_by``; ``mark_x`` draws a dashed vertical line."""
    cases = list(dict.fromkeys(frame["case"]))
    rows, cols = _grid(len(cases), max_cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=cases)
    by_variant = line_by == "variant"
    groups = list(dict.fromkeys(frame[line_by]))
    groups = _ordered(groups) if by_variant else sorted(groups)
    for i, c in enumerate(cases):
        sub = frame[frame["case"] == c]
        where = {"row": i // cols + 1, "col": i % cols + 1}
        for k, g in enumerate(groups):
            line = sub[sub[line_by] == g].sort_values(x)
            if line.empty:
                continue
            name = line_names(g)
            style = (
                {"color": _colour(g, groups)}
                if by_variant
                else {"color": PALETTE[k % len(PALETTE)], "dash": DASHES[k % len(DASHES)]}
            )
            xs = [str(v) for v in line[x]] if categorical_x else line[x]
            trace = go.Scatter(x=xs, y=line[value], name=name, legendgroup=name,
                               showlegend=i == 0, mode="lines+markers", line=style)  # fmt: skip
            fig.add_trace(trace, **where)
        if mark_x is not None and not sub.empty:
            fig.add_trace(go.Scatter(
                x=[str(mark_x)] * 2 if categorical_x else [mark_x] * 2,
                y=[sub[value].min(), sub[value].max()], name=f"chosen {mark_x}",
                legendgroup="chosen", showlegend=i == 0, mode="lines",
                line={"color": "#444", "dash": "dash", "width": 1}), **where)  # fmt: skip
    if categorical_x:
        ticks = [str(v) for v in sorted(frame[x].unique())]
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=ticks)
    else:
        ticks = sorted(frame[x].unique())
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[str(t) for t in ticks])
    fig.update_xaxes(title_text=x_title, row=rows)
    if log_y:
        fig.update_yaxes(type="log", dtick="D2")
    fig.update_yaxes(title_text=y_title, col=1)
    if hline is not None:
        fig.add_hline(y=hline, line={"dash": "dot", "color": "#999"})
    fig.update_layout(title=title)
    return fig


def scaling_figure(
    frame: pd.DataFrame,
    value: str,
    *,
    title: str,
    y_title: str,
    log_y: bool = False,
    hline: float | None = None,
) -> go.Figure:
    """``value`` against the number of workers (log2 axis), one panel per case, one line per
    variant (FISH Figs. 9-11, 14-16)."""
    return _panels(frame, "n_workers", value, "variant", title=title, x_title="workers",
                   y_title=y_title, log_y=log_y, hline=hline)  # fmt: skip


def study_figures(
    frame: pd.DataFrame,
    knob: str,
    chosen: Any,
    *,
    title: str,
    knob_title: str,
    value: str = "exec_x_sg",
    memory: str = "memory_normalized",
) -> tuple[go.Figure, go.Figure]:
    """FISH Figs. 12-13: execution time, and memory, against the settings of ``knob``; one
    panel per case, one line per worker count, the chosen setting dashed."""
    data = frame[frame[knob].notna()]
    common = {"x_title": knob_title, "line_names": lambda n: f"{n} workers",
              "categorical_x": True, "mark_x": chosen}  # fmt: skip
    return (
        _panels(data, knob, value, "n_workers", title=f"{title}: execution time",
                y_title="execution time / SG", **common),
        _panels(data, knob, memory, "n_workers", title=f"{title}: memory",
                y_title="memory / FG", **common),
    )  # fmt: skip


def rehash_figure(frame: pd.DataFrame, *, title: str) -> go.Figure:
    """FISH Fig. 17: memory, keys whose home worker moved, and load imbalance after adding
    or removing a worker half-way, with consistent hashing (ring) vs modulo placement;
    grouped bars per case."""
    panels = (
        ("memory_normalized", "memory / FG"),
        ("remapped_keys", "keys that moved home"),
        ("post_event_imbalance", "imbalance after (max/avg-1)"),
    )
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[p[1] for p in panels])
    settings = list(dict.fromkeys(frame["setting"]))
    for j, (col, _) in enumerate(panels):
        for k, s in enumerate(settings):
            sub = frame[frame["setting"] == s]
            if col not in sub or sub[col].isna().all():
                continue
            fig.add_trace(
                go.Bar(
                    x=sub["case"],
                    y=sub[col],
                    name=s,
                    legendgroup=s,
                    showlegend=j == 0,
                    marker_color=PALETTE[k % len(PALETTE)],
                ),
                row=1,
                col=j + 1,
            )
    fig.update_layout(title=title, barmode="group", height=460)
    return fig


def latency_figure(frame: pd.DataFrame, *, title: str, unit: float = 1e-3) -> go.Figure:
    """FISH Fig. 18: latency percentiles (p50, p95, p99; log axis, ``unit`` seconds) per
    scheme, one panel per case."""
    cases = list(dict.fromkeys(frame["case"]))
    fig = make_subplots(rows=1, cols=len(cases), subplot_titles=cases)
    quantiles = (("latency_p50", "p50"), ("latency_p95", "p95"), ("latency_p99", "p99"))
    for j, c in enumerate(cases):
        sub = frame[frame["case"] == c].set_index("variant")
        order = _ordered(sub.index)
        for k, (col, name) in enumerate(quantiles):
            fig.add_trace(
                go.Bar(
                    x=order,
                    y=sub.loc[order, col] / unit,
                    name=name,
                    legendgroup=name,
                    showlegend=j == 0,
                    marker_color=PALETTE[k],
                ),
                row=1,
                col=j + 1,
            )
    label = "ms" if unit == 1e-3 else f"x {unit:g} s"
    fig.update_yaxes(type="log", dtick="D2")
    fig.update_yaxes(title_text=f"latency ({label})", col=1)
    fig.update_layout(title=title, barmode="group", height=440)
    return fig


def throughput_figure(frame: pd.DataFrame, *, title: str) -> go.Figure:
    """FISH Fig. 19: throughput (tuples/s) per scheme, bars grouped by case."""
    fig = go.Figure()
    order = _ordered(frame["variant"])
    for v in order:
        sub = frame[frame["variant"] == v]
        fig.add_trace(
            go.Bar(x=sub["case"], y=sub["throughput"], name=v, marker_color=_colour(v, order))
        )
    fig.update_layout(title=title, barmode="group", yaxis_title="throughput (tuples/s)", height=440)
    return fig


def worker_load_figure(loads: np.ndarray, capacities: np.ndarray, *, title: str) -> go.Figure:
    """Per-worker load (tuples) and each worker's fair share by capacity."""
    caps = np.asarray(capacities, dtype=np.float64)[: loads.size]
    fair = loads.sum() * caps / caps.sum()
    x = np.arange(loads.size)
    fig = go.Figure(go.Bar(x=x, y=loads, name="tuples routed", marker_color=PALETTE[0]))
    fig.add_trace(go.Scatter(x=x, y=fair, name="fair share", mode="lines", line={"dash": "dot"}))
    fig.update_layout(title=title, xaxis_title="worker", yaxis_title="tuples", height=380)
    return fig


def load_explorer(
    cases: Sequence[Mapping[str, Any]],
    variants: Sequence[Mapping[str, Any]],
    workers: Sequence[int],
    **common: Any,
) -> Any:
    """An ipywidgets explorer: pick a stream (one of ``cases``), a scheme (one of
    ``variants``) and a worker count, see the per-worker load of that run (settings of
    :func:`routelab.grouping.lab.fish_experiments.run_point` in ``common``). Interactive in
    JupyterLab; an executed notebook (and its HTML export) shows the first selection.

    Built on :func:`routelab.plots.widget_view`: plain widgets updated by callbacks, no
    ``Output`` capture, which makes headless runs (papermill / nbclient) hang now and then
    (nteract/papermill#723, jupyter/nbclient#312).
    """
    import ipywidgets as widgets

    from routelab.grouping.lab.fish_experiments import run_point, worker_capacities

    by_case = {c["case"]: c for c in cases}
    by_variant = {v["variant"]: v for v in variants}

    def render(stream: str, scheme: str, n: int) -> str:
        point = {**by_case[stream], **by_variant[scheme], **common}
        (s,) = run_point({**point, "n_workers": n, "output_loads": True})
        caps = worker_capacities(n, common.get("service_time", 1e-4))
        title = (
            f"{scheme} on {stream}, {n} workers: execution time "
            f"{s['execution_time']:.3g} s, p99 latency {s['latency_p99'] * 1e3:.3g} ms, "
            f"memory {s['memory_normalized']:.2f}x FG"
        )
        return figure_html(worker_load_figure(np.asarray(s["loads"]), caps, title=title))

    return widget_view(
        render,
        stream=widgets.Dropdown(options=list(by_case), description="stream"),
        scheme=widgets.Dropdown(options=list(by_variant), description="scheme"),
        n=widgets.Dropdown(options=list(workers), value=workers[-1], description="workers"),
    )


def seed_spread_figure(
    frame: pd.DataFrame, value: str = "exec_x_sg", *, title: str, y_title: str
) -> go.Figure:
    """One marker per run seed for each variant, a panel per (case, workers): how far apart
    runs with different seeds land (issue 12, items 1-2)."""
    panels = list(dict.fromkeys(zip(frame["case"], frame["n_workers"], strict=True)))
    fig = make_subplots(
        rows=1, cols=len(panels), subplot_titles=[f"{c}, {n} workers" for c, n in panels]
    )
    variants = list(dict.fromkeys(frame["variant"]))
    for j, (c, n) in enumerate(panels, start=1):
        sel = frame[(frame["case"] == c) & (frame["n_workers"] == n)]
        for v in variants:
            d = sel[sel["variant"] == v]
            fig.add_trace(
                go.Scatter(
                    x=[v] * len(d),
                    y=d[value],
                    mode="markers",
                    name=v,
                    legendgroup=v,
                    showlegend=j == 1,
                    marker={"color": color_for(v, variants), "size": 8},
                    text=[f"seed {s}" for s in d["seed"]],
                ),
                row=1,
                col=j,
            )
    fig.update_yaxes(title_text=y_title, row=1, col=1)
    fig.update_layout(title=title)
    return fig
