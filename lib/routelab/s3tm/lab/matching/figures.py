"""Plotly figures of notebook 04 (S3-TM Sects. 4, 6.3; Figs. 3 and 7a-h).

Inputs are the tidy frames of :mod:`routelab.s3tm.matching_load`,
:mod:`routelab.s3tm.lab.matching.scaling`, :mod:`routelab.s3tm.dataflow` and
:mod:`routelab.s3tm.streaming`; every function returns a ``plotly.graph_objects.Figure``.
A method keeps its colour everywhere (:func:`routelab.plots.color_for` over
:data:`routelab.s3tm.METHODS`); error bars are one standard deviation over folds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.plots import PALETTE, color_for, log_axis, log_ticks, widget_view
from routelab.s3tm.mappings import METHODS

__all__ = [
    "extra_dataflow",
    "fig3_lookup_curve",
    "fig7ah_subscription_scaling",
    "fig7_summary",
    "extra_loads_explorer",
    "loads_html",
    "extra_lasp_vs_random",
    "extra_streaming",
    "synthetic_symbols",
]

KIND_TITLES = {"tweet": "tweet-based subscriptions", "topic": "topic-based subscriptions"}
FIG7_PANELS = (
    ("relative_throughput", "relative throughput (SALB = 1)", False),
    ("throughput", "throughput (publications/s)", True),
    ("spread", "spread (matchers per routed post)", False),
    ("imbalance", "load imbalance (max / avg lookups)", False),
)


def fig3_lookup_curve(curve: pd.DataFrame, slope: float, intercept: float) -> go.Figure:
    """Fig. 3: lookups per publication vs unique words in a matcher's trie, one point per
    (matcher, workload), with the fitted line f(h) = slope * h + intercept."""
    fig = go.Figure()
    kinds = list(dict.fromkeys(curve["kind"])) if "kind" in curve else [None]
    for i, kind in enumerate(kinds):
        sel = curve if kind is None else curve[curve["kind"] == kind]
        fig.add_trace(
            go.Scatter(
                x=sel["unique_words"],
                y=sel["ops_per_pub"],
                mode="markers",
                name=KIND_TITLES.get(kind, "matchers") if kind else "matchers",
                marker={"size": 6, "opacity": 0.7, "color": PALETTE[i % len(PALETTE)]},
                customdata=sel[["n_subs", "matcher"]].to_numpy(),
                hovertemplate="%{customdata[0]} subs, matcher %{customdata[1]}<br>"
                "%{x} unique words, %{y:.1f} lookups/pub<extra></extra>",
            )
        )
    x = np.linspace(0, float(curve["unique_words"].max()), 50)
    fig.add_trace(
        go.Scatter(
            x=x,
            y=slope * x + intercept,
            mode="lines",
            name=f"fit f(h) = {slope:.4g} h + {intercept:.3g}",
            line={"color": "black", "dash": "dash"},
        )
    )
    fig.update_layout(
        title="Fig. 3: trie lookups per publication vs unique words in the trie",
        xaxis_title="unique words in the trie |H(i)|",
        yaxis_title="lookup operations per publication",
    )
    return fig


def extra_lasp_vs_random(frame: pd.DataFrame, *, synthetic_from: int | None = None) -> go.Figure:
    """LASP vs random anycast: total matching work (lookups, left) and subscription-aware
    imbalance (right) vs the number of subscriptions, per kind (mean over folds). Rows of
    LASP with the literal delta load (``cost_reading == "literal"``) are drawn dashed;
    tweet-based workloads above ``synthetic_from`` (they hold synthetic subscriptions) have
    open markers (:func:`synthetic_symbols`)."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("total matching load (lookups)", "load imbalance (max / avg)"),
    )
    from routelab.s3tm.lab.matching.scaling import placement_label

    frame = frame.assign(placer=placement_label(frame))
    agg = (
        frame.groupby(["kind", "placer", "n_subs"])[["total_ops", "imbalance"]].mean().reset_index()
    )
    styles = {"LASP": "solid", "LASP (literal l)": "dash", "random": "dot"}
    for k, kind in enumerate(sorted(agg["kind"].unique())):
        for placer in styles:
            sel = agg[(agg["kind"] == kind) & (agg["placer"] == placer)].sort_values("n_subs")
            if sel.empty:
                continue
            for col, metric in ((1, "total_ops"), (2, "imbalance")):
                fig.add_trace(
                    go.Scatter(
                        x=sel["n_subs"],
                        y=sel[metric],
                        mode="lines+markers",
                        name=f"{placer}, {kind}",
                        legendgroup=f"{placer}{kind}",
                        showlegend=col == 1,
                        line={"color": PALETTE[k % len(PALETTE)], "dash": styles[placer]},
                        marker={
                            "symbol": synthetic_symbols(
                                sel["n_subs"], synthetic_from if kind == "tweet" else None
                            )
                        },
                    ),
                    row=1,
                    col=col,
                )
    log_axis(fig, "x", title_text="subscriptions")
    log_axis(fig, "y", row=1, col=1, **log_ticks(agg["total_ops"]))
    fig.update_layout(title="Subscription placement: LASP vs random anycast (Sect. 4.2)")
    return fig


def fig7_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and std over folds of the Fig. 7 metrics per (kind, method, n_subs), tidy."""
    from routelab.s3tm.lab.shared import summarize

    metrics = [m for m, _, _ in FIG7_PANELS if m in frame.columns]
    return summarize(frame, metrics, by=("kind", "method", "n_subs"))


def fig7ah_subscription_scaling(
    summary: pd.DataFrame,
    kind: str,
    methods: Sequence[str] | None = None,
    *,
    synthetic_from: int | None = None,
) -> go.Figure:
    """Fig. 7 a-d (tweet-based) or e-h (topic-based) vs the number of subscriptions.

    ``synthetic_from``: the number of real posts the subscriptions copy before synthetic
    ones follow (:meth:`ScalingData.synthetic_from`); workloads larger than it are drawn
    with open markers, right of a dashed vertical line at the corpus size."""
    letters = "abcd" if kind == "tweet" else "efgh"
    titles = [f"({c}) {label}" for c, (_, label, _) in zip(letters, FIG7_PANELS, strict=True)]
    fig = make_subplots(rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.1)
    sel_kind = summary[summary["kind"] == kind]
    if sel_kind.empty:
        raise ValueError(f"no {kind!r} rows in the summary")
    present = set(sel_kind["method"])
    chosen = [m for m in (methods or METHODS) if m in present]
    for i, (metric, _, log_y) in enumerate(FIG7_PANELS):
        row, col = divmod(i, 2)
        sel = sel_kind[sel_kind["metric"] == metric]
        for method in chosen:
            line = sel[sel["method"] == method].sort_values("n_subs")
            fig.add_trace(
                go.Scatter(
                    x=line["n_subs"],
                    y=line["mean"],
                    error_y={"type": "data", "array": line["std"], "visible": True},
                    mode="lines+markers",
                    name=method,
                    legendgroup=method,
                    showlegend=i == 0,
                    line={"color": color_for(method, METHODS)},
                    marker={"symbol": synthetic_symbols(line["n_subs"], synthetic_from)},
                ),
                row=row + 1,
                col=col + 1,
            )
        if log_y:
            log_axis(fig, "y", row=row + 1, col=col + 1, **log_ticks(sel["mean"]))
        if synthetic_from is not None:
            fig.add_vline(
                x=synthetic_from, line={"dash": "dash", "color": "grey"}, row=row + 1, col=col + 1
            )
    log_axis(fig, "x", title_text="subscriptions")
    if synthetic_from is not None:
        # legend-only keys for the marker styles and the line
        for name, marker, line in (
            ("real posts only", {"symbol": "circle", "color": "grey"}, None),
            ("+ synthetic subs", {"symbol": "circle-open", "color": "grey"}, None),
            (f"corpus size ({synthetic_from:,})", None, {"dash": "dash", "color": "grey"}),
        ):
            fig.add_trace(
                go.Scatter(
                    x=[None],
                    y=[None],
                    mode="markers" if marker else "lines",
                    marker=marker,
                    line=line,
                    name=name,
                    legendgroup="workload",
                )
            )
    fig.update_layout(
        title=f"Fig. 7: performance vs number of subscriptions, {KIND_TITLES[kind]}",
        height=650,
    )
    return fig


def synthetic_symbols(n_subs: Sequence[int] | pd.Series, synthetic_from: int | None) -> list[str]:
    """Marker symbol per workload: "circle" when every subscription is real,
    "circle-open" when the workload holds synthetic ones (``n_subs > synthetic_from``)."""
    return [
        "circle-open" if synthetic_from is not None and int(n) > synthetic_from else "circle"
        for n in n_subs
    ]


def extra_dataflow(stats: pd.DataFrame) -> go.Figure:
    """Per matcher: share of the measured in-task times (encoding the received posts, trie
    traversal) beside the share of the model's loads (lookups; publications received)."""
    fig = go.Figure()
    series = (
        ("prepare_seconds", "measured: receive + encode posts"),
        ("match_seconds", "measured: trie traversal"),
        ("ops", "model: trie lookups (Sect. 4)"),
        ("posts", "model: publications received (Eq. 3)"),
    )
    for i, (col, label) in enumerate(series):
        if col not in stats:
            continue
        total = float(stats[col].sum()) or 1.0
        fig.add_trace(
            go.Bar(
                x=stats["matcher"],
                y=stats[col] / total,
                name=label,
                marker_color=PALETTE[i % len(PALETTE)],
            )
        )
    fig.update_layout(
        barmode="group",
        title="Spark dataflow: per-matcher share of work, measured in-task vs model",
        xaxis_title="matcher (= Spark partition)",
        yaxis_title="share of the total",
    )
    return fig


def extra_streaming(batches: pd.DataFrame) -> go.Figure:
    """Structured Streaming replay: posts and matches per micro-batch, and batch wall time."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    for col, label in (("posts", "posts"), ("matches", "distinct matches")):
        fig.add_trace(
            go.Scatter(x=batches["batch_id"], y=batches[col], name=label, mode="lines+markers")
        )
    fig.add_trace(
        go.Scatter(
            x=batches["batch_id"],
            y=batches["wall_seconds"],
            name="batch wall time (s)",
            mode="lines+markers",
            line={"color": "black"},
        ),
        secondary_y=True,
    )
    fig.update_layout(
        title="Structured Streaming replay of the corpus (one micro-batch per trigger)",
        xaxis_title="micro-batch",
    )
    log_axis(fig, "y", title_text="count (log)", secondary_y=False)
    fig.update_yaxes(title_text="seconds", secondary_y=True)
    return fig


def loads_html(frame: pd.DataFrame, kind: str, n_subs: int) -> str:
    """Per-matcher loads of every method as an HTML bar table (no JavaScript), for
    :func:`extra_loads_explorer`: one row per matcher, bar length = lookups / the largest load."""
    sel = frame[(frame["kind"] == kind) & (frame["n_subs"] == n_subs)]
    if "placer" in sel:
        sel = sel[sel["placer"] == "LASP"]
    sel = sel[sel["fold"] == sel["fold"].min()]
    methods = [m for m in METHODS if m in set(sel["method"])]
    loads = {m: np.asarray(sel[sel["method"] == m]["loads"].iloc[0], float) for m in methods}
    peak = max((v.max() for v in loads.values()), default=1.0) or 1.0
    head = "".join(
        f"<th style='padding:0 8px'>{m} (max/avg {v.max() / v.mean():.2f})</th>"
        for m, v in loads.items()
    )
    rows = []
    for i in range(len(next(iter(loads.values()), []))):
        cells = "".join(
            f"<td style='padding:1px 8px'><div style='background:{color_for(m, METHODS)};"
            f"width:{180 * v[i] / peak:.0f}px;height:10px;display:inline-block'></div> "
            f"{v[i]:,.0f}</td>"
            for m, v in loads.items()
        )
        rows.append(f"<tr><td>{i}</td>{cells}</tr>")
    title = f"<b>{n_subs:,} {KIND_TITLES[kind]}: trie lookups per matcher</b>"
    return f"{title}<table><tr><th>matcher</th>{head}</tr>{''.join(rows)}</table>"


def extra_loads_explorer(frame: pd.DataFrame) -> object:
    """An ipywidgets control: pick the subscription kind and count, see every method's
    per-matcher load (:func:`loads_html`). Built on :func:`routelab.plots.widget_view`
    (plain widgets, no Output capture, the default view kept for exported HTML)."""
    import ipywidgets as widgets

    kinds = sorted(frame["kind"].unique())
    sizes = sorted(int(n) for n in frame["n_subs"].unique())
    return widget_view(
        lambda kind, n_subs: loads_html(frame, kind, n_subs),
        kind=widgets.Dropdown(options=kinds, value=kinds[0], description="kind"),
        n_subs=widgets.SelectionSlider(options=sizes, value=sizes[-1], description="subs"),
    )
