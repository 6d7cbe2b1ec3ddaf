"""Plotly figures of the S3-TM routing evaluation (Sects. 6.2, 6.6; Figs. 5, 6, 9).

Every function takes the tidy frames of :mod:`routelab.s3tm.lab.routing_experiments` and
:mod:`routelab.s3tm.lab.routing_summary` and returns a ``plotly.graph_objects.Figure``; a method
keeps its colour in every figure (:func:`routelab.plots.color_for` over
:data:`routelab.s3tm.METHODS`). Error bars are one standard deviation over the
cross-validation folds (or the repeats of Fig. 6), as in the paper.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.plots import color_for
from routelab.s3tm.mappings import METHODS

KIND_TITLES = {"tweet": "tweet-based subscriptions", "topic": "topic-based subscriptions"}

_FIG5_PANELS = (
    ("relative_throughput", "relative throughput (SALB = 1)", False),
    ("throughput", "throughput (x matcher capacity C)", True),
    ("spread_routed", "spread (matchers per routed post)", False),
    ("imbalance", "load imbalance (max / avg)", True),
)


def _methods_in(frame: pd.DataFrame, methods: Sequence[str] | None) -> list[str]:
    present = set(frame["method"])
    return [m for m in (methods or METHODS) if m in present]


def _node_axis(fig: go.Figure, nodes: Sequence[int], **where: int) -> None:
    ticks = sorted({int(n) for n in nodes})
    fig.update_xaxes(
        type="log", tickvals=ticks, ticktext=[str(t) for t in ticks], title="nodes N", **where
    )


def _line(
    sel: pd.DataFrame, x: str, method: str, *, show: bool, dash: str | None = None
) -> go.Scatter:
    sel = sel.sort_values(x)
    return go.Scatter(
        x=sel[x],
        y=sel["mean"],
        error_y={"type": "data", "array": sel["std"], "visible": True, "thickness": 1},
        mode="lines+markers",
        name=method,
        legendgroup=method,
        showlegend=show,
        line={"color": color_for(method, METHODS), "dash": dash},
        marker={"size": 6},
    )


def fig5(summary: pd.DataFrame, kind: str, methods: Sequence[str] | None = None) -> go.Figure:
    """Fig. 5 a-d (tweet-based) or e-h (topic-based): relative throughput, throughput,
    spread and imbalance vs nodes, mean +- std over folds.

    Args:
        summary: tidy summary (:func:`routelab.s3tm.lab.routing_summary.fig5_summary`) with one
            dataset per metric.
        kind: ``"tweet"`` or ``"topic"``.
        methods: methods to draw (default: all present, in :data:`METHODS` order).
    """
    letters = "abcd" if kind == "tweet" else "efgh"
    titles = [f"({ch}) {label}" for ch, (_, label, _) in zip(letters, _FIG5_PANELS, strict=True)]
    fig = make_subplots(
        rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.08, vertical_spacing=0.14
    )
    sel_kind = summary[summary["kind"] == kind]
    if sel_kind.empty:
        raise ValueError(f"no {kind!r} rows in the summary")
    for i, (metric, _, log_y) in enumerate(_FIG5_PANELS):
        row, col = divmod(i, 2)
        sel = sel_kind[sel_kind["metric"] == metric]
        if sel["dataset"].nunique() > 1:
            raise ValueError(f"{metric}: several datasets in the summary; pick one")
        for method in _methods_in(sel, methods):
            fig.add_trace(
                _line(sel[sel["method"] == method], "n_matchers", method, show=i == 0),
                row=row + 1,
                col=col + 1,
            )
        # the subplot title names the metric; the x title only under the bottom row
        fig.update_yaxes(type="log" if log_y else "linear", row=row + 1, col=col + 1)
        _node_axis(fig, sel_kind["n_matchers"], row=row + 1, col=col + 1)
        if row == 0:
            fig.update_xaxes(title=None, row=row + 1, col=col + 1)
    fig.update_layout(
        title=f"Fig. 5{letters[0]}-{letters[-1]}: {KIND_TITLES.get(kind, kind)} "
        "(mean ± std over folds)",
        legend_title="mapping",
    )
    return fig


def fig6(summary: pd.DataFrame, n_matchers: int, *, mark: float | None = 500_000) -> go.Figure:
    """Fig. 6: throughput on a fixed test set vs learning-corpus size, one panel per
    subscription kind, mean +- std over repeats.

    Args:
        summary: :func:`routelab.s3tm.lab.routing_summary.summarize` of the learning-curve rows by
            (kind, method, size) with metric ``throughput``.
        n_matchers: N of the sweep (for the title).
        mark: draw a dotted line at this corpus size (the paper's 0.5M) if in range.
    """
    sel = summary[summary["metric"] == "throughput"]
    kinds = [k for k in ("tweet", "topic") if k in set(sel["kind"])]
    fig = make_subplots(rows=1, cols=len(kinds), subplot_titles=[KIND_TITLES[k] for k in kinds])
    for j, kind in enumerate(kinds):
        part = sel[sel["kind"] == kind]
        for method in _methods_in(part, None):
            fig.add_trace(
                _line(part[part["method"] == method], "size", method, show=j == 0),
                row=1,
                col=j + 1,
            )
        fig.update_xaxes(type="log", title="learning posts", row=1, col=j + 1)
        fig.update_yaxes(title="throughput (x C)" if j == 0 else None, row=1, col=j + 1)
        if mark is not None and part["size"].min() <= mark <= part["size"].max():
            fig.add_vline(x=mark, line={"dash": "dot", "color": "#888"}, row=1, col=j + 1)
    fig.update_layout(
        title=f"Fig. 6: throughput vs learning-corpus size (N = {n_matchers}, synthetic posts)",
        legend_title="mapping",
    )
    return fig


def fig9(timing: pd.DataFrame, n_matchers: int) -> go.Figure:
    """Fig. 9: learning time (wall seconds of ``learn_mapping``) vs learning posts, log-log."""
    agg = (
        timing.groupby(["method", "size"])["learn_wall_seconds"]
        .agg(mean="mean", std="std")
        .reset_index()
        .fillna({"std": 0.0})
    )
    fig = go.Figure()
    for method in _methods_in(agg, None):
        fig.add_trace(_line(agg[agg["method"] == method], "size", method, show=True))
    fig.update_xaxes(type="log", title="learning posts")
    fig.update_yaxes(type="log", title="learning time (s)")
    fig.update_layout(
        title=f"Fig. 9: time to learn the mapping (N = {n_matchers})",
        legend_title="mapping",
    )
    return fig


def fig_skew_ablation(gains: pd.DataFrame) -> go.Figure:
    """Throughput gain of hot-word splitting, T(split) / T(no split), per method and N
    (Sect. 5.1), one panel per subscription kind; mean +- std over folds.

    Args:
        gains: :func:`routelab.s3tm.lab.routing_summary.split_gain` rows.
    """
    agg = (
        gains.groupby(["kind", "method", "n_matchers"])["throughput_gain"]
        .agg(mean="mean", std="std")
        .reset_index()
        .fillna({"std": 0.0})
    )
    kinds = [k for k in ("tweet", "topic") if k in set(agg["kind"])]
    fig = make_subplots(rows=1, cols=len(kinds), subplot_titles=[KIND_TITLES[k] for k in kinds])
    for j, kind in enumerate(kinds):
        part = agg[agg["kind"] == kind]
        for method in _methods_in(part, None):
            sel = part[part["method"] == method].sort_values("n_matchers")
            fig.add_trace(
                go.Bar(
                    x=[f"N = {n}" for n in sel["n_matchers"]],
                    y=sel["mean"],
                    error_y={"type": "data", "array": sel["std"], "visible": True},
                    name=method,
                    legendgroup=method,
                    showlegend=j == 0,
                    marker_color=color_for(method, METHODS),
                ),
                row=1,
                col=j + 1,
            )
        fig.add_hline(y=1.0, line={"dash": "dot", "color": "#444"}, row=1, col=j + 1)
    fig.update_yaxes(type="log")
    fig.update_yaxes(title="T(split) / T(no split)", row=1, col=1)
    fig.update_layout(
        barmode="group",
        title="Skew handling (Sect. 5.1): throughput with / without hot-word splitting",
        legend_title="mapping",
    )
    return fig


def load_figure(
    cv: pd.DataFrame,
    kind: str,
    method: str,
    n_matchers: int,
    *,
    fold: int = 0,
    dataset: str | None = None,
    split_hot: bool | None = None,
) -> go.Figure:
    """Per-matcher load L(i, M) (Eq. 3) of one mapping on one held-out fold, with the
    average load as a dotted line.

    Args:
        cv: :func:`routelab.s3tm.lab.routing_experiments.run_cv` rows (with ``loads``).
        kind, method, n_matchers, fold: which experiment.
        dataset: which dataset (default: the first).
        split_hot: which splitting setting (default: the only one present).
    """
    sel = cv[
        (cv["kind"] == kind)
        & (cv["method"] == method)
        & (cv["n_matchers"] == n_matchers)
        & (cv["fold"] == fold)
        & (cv["dataset"] == (dataset or cv["dataset"].iloc[0]))
    ]
    if split_hot is not None:
        sel = sel[sel["split_hot"] == split_hot]
    if len(sel) != 1:
        raise ValueError(
            f"{len(sel)} rows for kind={kind}, method={method}, N={n_matchers}, fold={fold}; "
            "need exactly one (choose dataset / split_hot)"
        )
    row = sel.iloc[0]
    loads = np.asarray(row["loads"], dtype=np.int64)
    fig = go.Figure(
        go.Bar(
            x=np.arange(len(loads)),
            y=loads,
            marker_color=color_for(method, METHODS),
            name="load",
        )
    )
    fig.add_hline(y=loads.mean(), line={"dash": "dot", "color": "#444"})
    fig.update_xaxes(title="matcher i")
    fig.update_yaxes(title="publications routed L(i, M)")
    fig.update_layout(
        title=f"{method}, N = {n_matchers}, {KIND_TITLES.get(kind, kind)}, fold {fold}: "
        f"imbalance {row['imbalance']:.2f}, spread {row['spread_routed']:.2f}, "
        f"throughput {row['throughput']:.2f}",
        showlegend=False,
    )
    return fig
