"""Figures of notebook ``08_fish`` (FISH Fig. 5, Sect. 6 Figs. 9-19) from the frames of
:mod:`routelab.grouping.lab.fish.experiments`, plus the per-worker load explorer.

A builder is named after the paper figure it draws, ``fig<N><panels>_<what>`` (``fig9_...``
to ``fig19_...``); one that draws no paper figure starts with ``extra_``. The "Figures" table
of ``lib/routelab/README.md`` maps every figure to its notebook and builder.

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

from routelab.plots import PALETTE, color_for, figure_html, log_axis, widget_view

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

VARIANT_STYLE = {
    "SG": {"line": {"dash": "dot", "width": 2}, "marker": {"symbol": "circle-open", "size": 9}},
    "W-C": {"line": {"dash": "dash", "width": 2}, "marker": {"symbol": "square-open", "size": 8}},
    "D-C": {"line": {"dash": "dashdot", "width": 2}, "marker": {"symbol": "x", "size": 8}},
    "FISH": {"line": {"width": 3.5}, "marker": {"symbol": "diamond", "size": 10}},
}
"""Line styles that keep FISH visible where SG, W-C and D-C lie on it (Figs. 10-11): the
baselines dashed with open markers, FISH thick with diamonds and drawn last (on top)."""

STUDY_MIN_SPAN = 0.10
"""Figs. 12-13 (and the RQ2 formula figures): each panel's y axis spans at least 10 % above
its lowest value, so differences of a few 0.1 % (run-to-run noise) stay flat instead of
filling the panel."""


def _colour(label: str, labels: Sequence[str]) -> str:
    """The scheme's fixed colour; other labels (e.g. "FISH (share)") take, in order, the
    palette colours no compared scheme uses."""
    known = list(VARIANT_ORDER)
    if label in known:
        return color_for(label, known)
    taken = {color_for(v, known) for v in known}
    free = [c for c in PALETTE if c not in taken] or list(PALETTE)
    others = [v for v in labels if v not in known]
    return free[others.index(label) % len(free)]


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
    min_span: float | None = None,
) -> go.Figure:
    """``value`` against ``x``, one panel per case (wrapped over ``max_cols`` columns), one
    line per value of ``line_by``; ``mark_x`` draws a dashed vertical line; ``min_span``
    (linear y only) makes every panel's y axis span at least that fraction above its lowest
    value (or ``hline``, if lower)."""
    cases = list(dict.fromkeys(frame["case"]))
    rows, cols = _grid(len(cases), max_cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=cases)
    by_variant = line_by == "variant"
    groups = list(dict.fromkeys(frame[line_by]))
    groups = _ordered(groups) if by_variant else sorted(groups)
    # FISH is drawn last (on top of the baselines it overlaps); the legend keeps the order
    draw = sorted(range(len(groups)), key=lambda k: by_variant and groups[k] == "FISH")
    for i, c in enumerate(cases):
        sub = frame[frame["case"] == c]
        where = {"row": i // cols + 1, "col": i % cols + 1}
        for k in draw:
            g = groups[k]
            line = sub[sub[line_by] == g].sort_values(x)
            if line.empty:
                continue
            name = line_names(g)
            extra = VARIANT_STYLE.get(g, {}) if by_variant else {}
            style = (
                {"color": _colour(g, groups), **extra.get("line", {})}
                if by_variant
                else {"color": PALETTE[k % len(PALETTE)], "dash": DASHES[k % len(DASHES)]}
            )
            xs = [str(v) for v in line[x]] if categorical_x else line[x]
            trace = go.Scatter(x=xs, y=line[value], name=name, legendgroup=name,
                               legendrank=k + 1, showlegend=i == 0, mode="lines+markers",
                               line=style, marker=extra.get("marker", {}))  # fmt: skip
            fig.add_trace(trace, **where)
        if min_span is not None and not sub.empty:
            lo = min(sub[value].min(), hline if hline is not None else np.inf)
            hi = max(sub[value].max(), lo * (1 + min_span))
            pad = 0.04 * (hi - lo)
            fig.update_yaxes(range=[lo - pad, hi + pad], **where)
        if mark_x is not None and not sub.empty:
            span = [lo, hi] if min_span is not None else [sub[value].min(), sub[value].max()]
            fig.add_trace(go.Scatter(
                x=[str(mark_x)] * 2 if categorical_x else [mark_x] * 2,
                y=span, name=f"chosen {mark_x}",
                legendgroup="chosen", showlegend=i == 0, mode="lines",
                line={"color": "#444", "dash": "dash", "width": 1}), **where)  # fmt: skip
    if categorical_x:
        ticks = [str(v) for v in sorted(frame[x].unique())]
        fig.update_xaxes(type="category", categoryorder="array", categoryarray=ticks)
    else:
        ticks = sorted(frame[x].unique())
        # a log2 axis labelled at every worker count (16, 32, 64, 128): routelab.plots.log_axis
        # labels decades only, which would leave these axes with "10" and "100"
        fig.update_xaxes(type="log", tickvals=ticks, ticktext=[str(t) for t in ticks])
    fig.update_xaxes(title_text=x_title, row=rows)
    if log_y:
        log_axis(fig, "y")
    fig.update_yaxes(title_text=y_title, col=1)
    if hline is not None:
        fig.add_hline(y=hline, line={"dash": "dot", "color": "#999"})
    fig.update_layout(title=title)
    return fig


def _scaling(
    frame: pd.DataFrame,
    value: str,
    *,
    title: str,
    y_title: str,
    log_y: bool = False,
    hline: float | None = None,
) -> go.Figure:
    """``value`` against the number of workers (log2 axis), one panel per case, one line per
    variant: the layout of FISH Figs. 9-11 and 14-16."""
    return _panels(frame, "n_workers", value, "variant", title=title, x_title="workers",
                   y_title=y_title, log_y=log_y, hline=hline)  # fmt: skip


def _study(
    frame: pd.DataFrame,
    knob: str,
    chosen: Any,
    *,
    title: str,
    knob_title: str,
    value: str = "exec_x_sg",
    memory: str = "memory_normalized",
) -> tuple[go.Figure, go.Figure]:
    """Execution time, and memory, against the settings of ``knob`` (the layout of FISH
    Figs. 12-13): one panel per case, one line per worker count, the chosen setting dashed;
    every y axis spans at least :data:`STUDY_MIN_SPAN` (execution time from SG's 1.0 up)."""
    data = frame[frame[knob].notna()]
    common = {"x_title": knob_title, "line_names": lambda n: f"{n} workers",
              "categorical_x": True, "mark_x": chosen, "min_span": STUDY_MIN_SPAN}  # fmt: skip
    return (
        _panels(data, knob, value, "n_workers", title=f"{title}: execution time",
                y_title="execution time / SG", hline=1.0, **common),
        _panels(data, knob, memory, "n_workers", title=f"{title}: memory",
                y_title="memory / FG", **common),
    )  # fmt: skip


def fig9_execution_time_real(
    frame: pd.DataFrame, *, title: str = "Fig. 9: real stand-ins: execution time"
) -> go.Figure:
    """FISH Fig. 9: execution time relative to SG (log) against workers on the real
    stand-ins, one panel per case, one line per scheme."""
    return _scaling(frame, "exec_x_sg", title=title, y_title="execution time / SG",
                    log_y=True, hline=1.0)  # fmt: skip


def fig10_execution_time_zipf(
    frame: pd.DataFrame, *, title: str = "Fig. 10: time-evolving Zipf: execution time"
) -> go.Figure:
    """FISH Fig. 10: as Fig. 9 on the time-evolving Zipf streams, one panel per skew."""
    return _scaling(frame, "exec_x_sg", title=title, y_title="execution time / SG",
                    log_y=True, hline=1.0)  # fmt: skip


def fig11_memory(frame: pd.DataFrame, *, title: str = "Fig. 11: memory") -> go.Figure:
    """FISH Fig. 11: memory relative to FG (log) against workers, every case."""
    return _scaling(frame, "memory_normalized", title=title, y_title="memory / FG",
                    log_y=True, hline=1.0)  # fmt: skip


def fig12_decay(
    frame: pd.DataFrame, chosen: Any, *, title: str = "Fig. 12: decay factor"
) -> tuple[go.Figure, go.Figure]:
    """FISH Fig. 12: execution time and memory against the decay factor alpha (two
    figures), the chosen alpha dashed."""
    return _study(frame, "decay", chosen, title=title, knob_title="decay α")


def fig13_hot_threshold(
    frame: pd.DataFrame, chosen: Any, *, title: str = "Fig. 13: hot-key threshold"
) -> tuple[go.Figure, go.Figure]:
    """FISH Fig. 13: execution time and memory against the hot-key threshold theta n (two
    figures), the chosen threshold dashed."""
    return _study(frame, "hot_threshold", chosen, title=title, knob_title="hot threshold θ·n")


def extra_workers_formula(
    frame: pd.DataFrame, chosen: Any, *, title: str = "RQ2: workers per hot key"
) -> tuple[go.Figure, go.Figure]:
    """Not a paper figure: execution time and memory for the two readings of Algorithm 2's
    workers-per-hot-key formula (``relative``, ``share``), laid out as Figs. 12-13."""
    return _study(frame, "workers_formula", chosen, title=title,
                  knob_title="workers per hot key")  # fmt: skip


def fig14_epoch_counting(
    frame: pd.DataFrame, *, title: str = "Fig. 14: epoch-based vs lifetime counting"
) -> go.Figure:
    """FISH Fig. 14: execution time relative to SG against workers, FISH's epoch-based hot-key
    identification vs lifetime counting (D-C's and W-C's)."""
    return _scaling(frame, "exec_x_sg", title=title, y_title="execution time / SG", hline=1.0)


def fig15_hot_key_policies(
    frame: pd.DataFrame,
    *,
    title: str = "Fig. 15: CHK vs the W-C and D-C hot-key policies",
) -> tuple[go.Figure, go.Figure]:
    """FISH Fig. 15: memory relative to FG (the paper's panel) and, as a second figure,
    execution time relative to SG, of FISH with CHK vs with W-C's and D-C's hot-key
    policies, against workers."""
    return (
        _scaling(frame, "memory_normalized", title=f"{title} (memory)", y_title="memory / FG"),
        _scaling(frame, "exec_x_sg", title=f"{title} (cont.): execution time",
                 y_title="execution time / SG", hline=1.0),
    )  # fmt: skip


def fig16_heterogeneous_workers(
    frame: pd.DataFrame, *, title: str = "Fig. 16: heterogeneous workers"
) -> go.Figure:
    """FISH Fig. 16: execution time relative to the ideal (capacity-proportional) time
    against workers, heuristic worker assignment vs assignment by load count, half of the
    workers faster."""
    return _scaling(frame, "exec_x_ideal", title=title, y_title="execution time / ideal",
                    hline=1.0)  # fmt: skip


def fig17_consistent_hashing(frame: pd.DataFrame, *, title: str) -> go.Figure:
    """FISH Fig. 17: memory, keys whose home worker moved, and load imbalance after adding
    or removing a worker half-way, with consistent hashing (ring) vs modulo placement;
    grouped bars per case."""
    panels = (
        ("memory_normalized", "memory / FG"),
        ("remapped_keys", "keys moved (share)"),
        ("post_event_imbalance", "max/mean load - 1"),
    )
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[p[1] for p in panels],
                        horizontal_spacing=0.09)  # fmt: skip
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
    fig.update_layout(title=title, barmode="group", height=480)
    return fig


LATENCY_UNIT = 1e-3
"""Every latency of notebook 08 is shown in milliseconds (figures, tables, the explorer)."""


def fig18_latency(frame: pd.DataFrame, *, title: str) -> go.Figure:
    """FISH Fig. 18: latency percentiles (p50, p95, p99; ms, log axis) per scheme, one panel
    per case: markers joined per percentile (no bars: a bar's length on a log axis means
    nothing)."""
    cases = list(dict.fromkeys(frame["case"]))
    fig = make_subplots(rows=1, cols=len(cases), subplot_titles=cases)
    quantiles = (("latency_p50", "p50", "circle"), ("latency_p95", "p95", "square"),
                 ("latency_p99", "p99", "diamond"))  # fmt: skip
    for j, c in enumerate(cases):
        sub = frame[frame["case"] == c].set_index("variant")
        order = _ordered(sub.index)
        for k, (col, name, symbol) in enumerate(quantiles):
            fig.add_trace(
                go.Scatter(
                    x=order,
                    y=sub.loc[order, col] / LATENCY_UNIT,
                    name=name,
                    legendgroup=name,
                    showlegend=j == 0,
                    mode="markers",
                    marker={"color": PALETTE[k], "symbol": symbol, "size": 10},
                ),
                row=1,
                col=j + 1,
            )
    log_axis(fig, "y")
    fig.update_yaxes(title_text="latency (ms)", col=1)
    fig.update_layout(title=title, height=440)
    return fig


def latency_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Figs. 18-19 as a small table, one row per scheme: p50 / p99 latency (ms) and
    throughput (tuples/s), each the geometric mean over the cases of ``frame``."""
    cols = {"latency_p50": "p50 latency (ms)", "latency_p99": "p99 latency (ms)",
            "throughput": "throughput (tuples/s)"}  # fmt: skip
    logs = np.log(frame[list(cols)].clip(lower=1e-12))
    out = np.exp(logs.groupby(frame["variant"]).mean())
    out[["latency_p50", "latency_p99"]] /= LATENCY_UNIT
    out = out.rename(columns=cols).reindex(_ordered(frame["variant"]))
    out.index.name = f"scheme (geometric mean over {frame['case'].nunique()} cases)"
    return out.round({"p50 latency (ms)": 3, "p99 latency (ms)": 3, "throughput (tuples/s)": 0})


def fig19_throughput(frame: pd.DataFrame, *, title: str) -> go.Figure:
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


def extra_worker_load(loads: np.ndarray, capacities: np.ndarray, *, title: str) -> go.Figure:
    """Per-worker load (tuples) and each worker's fair share by capacity."""
    caps = np.asarray(capacities, dtype=np.float64)[: loads.size]
    fair = loads.sum() * caps / caps.sum()
    x = np.arange(loads.size)
    fig = go.Figure(go.Bar(x=x, y=loads, name="tuples routed", marker_color=PALETTE[0]))
    fig.add_trace(go.Scatter(x=x, y=fair, name="fair share", mode="lines", line={"dash": "dot"}))
    fig.update_layout(title=title, xaxis_title="worker", yaxis_title="tuples", height=380)
    return fig


def extra_load_explorer(
    cases: Sequence[Mapping[str, Any]],
    variants: Sequence[Mapping[str, Any]],
    workers: Sequence[int],
    **common: Any,
) -> Any:
    """An ipywidgets explorer: pick a stream (one of ``cases``), a scheme (one of
    ``variants``) and a worker count, see the per-worker load of that run (settings of
    :func:`routelab.grouping.lab.fish.experiments.run_point` in ``common``). Interactive in
    JupyterLab; an executed notebook (and its HTML export) shows the first selection.

    Built on :func:`routelab.plots.widget_view`: plain widgets updated by callbacks, no
    ``Output`` capture, which makes headless runs (papermill / nbclient) hang now and then
    (nteract/papermill#723, jupyter/nbclient#312).
    """
    import ipywidgets as widgets

    from routelab.grouping.lab.fish.experiments import run_point, worker_capacities

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
        return figure_html(extra_worker_load(np.asarray(s["loads"]), caps, title=title))

    return widget_view(
        render,
        stream=widgets.Dropdown(options=list(by_case), description="stream"),
        scheme=widgets.Dropdown(options=list(by_variant), description="scheme"),
        n=widgets.Dropdown(options=list(workers), value=workers[-1], description="workers"),
    )


def extra_seed_spread(
    frame: pd.DataFrame, value: str = "exec_x_sg", *, title: str, y_title: str
) -> go.Figure:
    """One marker per run seed for each variant, a panel per (case, workers) -- cases in
    rows, worker counts in columns: how far apart runs with different seeds land.
    Each y axis spans at least :data:`STUDY_MIN_SPAN` above its lowest value
    (or 1 = SG), so seed noise of 0.01 % does not fill a panel."""
    cases = list(dict.fromkeys(frame["case"]))
    workers = sorted(frame["n_workers"].unique())
    titles = [f"{c}, {n} workers" for c in cases for n in workers]
    fig = make_subplots(rows=len(cases), cols=len(workers), subplot_titles=titles,
                        vertical_spacing=0.22, horizontal_spacing=0.1)  # fmt: skip
    variants = list(dict.fromkeys(frame["variant"]))
    symbols = ("circle", "diamond", "square", "x", "triangle-up")
    for r, c in enumerate(cases, start=1):
        for k, n in enumerate(workers, start=1):
            sel = frame[(frame["case"] == c) & (frame["n_workers"] == n)]
            for i, v in enumerate(variants):
                d = sel[sel["variant"] == v]
                fig.add_trace(
                    go.Scatter(
                        x=[v.replace(" (", "<br>(")] * len(d),
                        y=d[value],
                        mode="markers",
                        name=v,
                        legendgroup=v,
                        showlegend=r == 1 and k == 1,
                        marker={
                            "color": _colour(v, variants),
                            "size": 9,
                            "symbol": symbols[i % len(symbols)],
                        },  # fmt: skip
                        text=[f"seed {s}" for s in d["seed"]],
                    ),
                    row=r,
                    col=k,
                )
            if not sel.empty:
                lo = min(float(sel[value].min()), 1.0)
                hi = max(float(sel[value].max()), lo * (1 + STUDY_MIN_SPAN))
                pad = 0.05 * (hi - lo)
                fig.update_yaxes(range=[lo - pad, hi + pad], row=r, col=k)
    fig.update_yaxes(title_text=y_title, col=1)
    fig.update_layout(title=title, height=300 + 260 * len(cases), margin={"b": 110})
    return fig


PIPELINE_STAGES = (
    ("sources", "S sources,<br>each its own<br>router"),
    ("epoch counting", "top-K counters<br>per source:<br>c_k += 1<br>(Alg. 1)"),
    ("decay", "at each<br>epoch end:<br>c_k <- alpha c_k<br>N <- alpha N"),
    ("hot keys", "f_k = c_k / N<br>hot if f_k > theta<br>(Sect. 4.1.2)"),
    ("CHK", "d_k = max(ceil(<br>n f_k / f_max),<br>d_min, M_k);<br>cold keys: 2"),
    ("assignment", "of the d_k ring<br>workers, the one<br>with the shortest<br>estimated wait"),
    ("workers", "n workers,<br>FIFO queues,<br>state per<br>(key, worker)"),
)
"""The boxes of :func:`fig5_overview`: a title and a two-line description each."""


def fig5_overview(*, title: str, decay: float = 0.6, hot_threshold: float = 0.5) -> go.Figure:
    """FISH Fig. 5 (the overview of FISH), drawn our own way: FISH's pipeline (Sects. 4-5),
    sources -> epoch counting -> decay -> hot-key classification -> workers per hot key
    (CHK) -> worker assignment -> workers, as boxes joined by arrows; ``decay`` and
    ``hot_threshold`` (theta n) label their boxes. The decay box loops back to counting (the
    decayed counters start the next epoch)."""
    fig = go.Figure()
    n = len(PIPELINE_STAGES)
    width, gap = 1.0, 0.3
    xs = [i * (width + gap) for i in range(n)]
    labels = {
        "epoch counting": "epoch<br>counting",
        "decay": f"decay<br>alpha = {decay:g}",
        "hot keys": f"hot keys<br>theta n = {hot_threshold:g}",
    }
    for i, (x, (name, text)) in enumerate(zip(xs, PIPELINE_STAGES, strict=True)):
        colour = PALETTE[i % len(PALETTE)]
        fig.add_shape(type="rect", x0=x, x1=x + width, y0=0, y1=1, line={"color": colour},
                      fillcolor=colour, opacity=0.18)  # fmt: skip
        fig.add_annotation(x=x + width / 2, y=0.83, text=f"<b>{labels.get(name, name)}</b>",
                           showarrow=False, font={"size": 12})  # fmt: skip
        fig.add_annotation(x=x + width / 2, y=0.36, text=text, showarrow=False,
                           font={"size": 10})  # fmt: skip
        if i:
            fig.add_annotation(x=x, y=0.5, ax=xs[i - 1] + width, ay=0.5, xref="x", yref="y",
                               axref="x", ayref="y", text="", showarrow=True, arrowhead=2,
                               arrowwidth=1.5)  # fmt: skip
    counting, decay_box = xs[1] + width / 2, xs[2] + width / 2
    fig.add_annotation(x=counting, y=1.0, ax=decay_box, ay=1.0, xref="x", yref="y", axref="x",
                       ayref="y", text="", showarrow=True, arrowhead=2,
                       arrowwidth=1.2)  # fmt: skip
    fig.add_annotation(x=(counting + decay_box) / 2, y=1.12, showarrow=False,
                       text="next epoch", font={"size": 10})  # fmt: skip
    fig.update_xaxes(visible=False, range=[-0.1, xs[-1] + width + 0.1])
    fig.update_yaxes(visible=False, range=[-0.15, 1.3])
    fig.update_layout(title=title, height=360, showlegend=False, margin={"b": 90})
    return fig
