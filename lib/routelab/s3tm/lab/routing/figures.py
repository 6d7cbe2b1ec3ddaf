"""Plotly figures of the S3-TM routing evaluation (Sects. 6.2, 6.6; Figs. 5, 6, 9).

Every function takes the tidy frames of :mod:`routelab.s3tm.lab.routing.experiments` and
:mod:`routelab.s3tm.lab.routing.summary` and returns a ``plotly.graph_objects.Figure``; a method
keeps its colour in every figure (:func:`routelab.plots.color_for` over
:data:`routelab.s3tm.METHODS`). Error bars are one standard deviation over the
cross-validation folds (or the repeats of Fig. 6), as in the paper. Log axes go through
:func:`routelab.plots.log_axis` (labelled ticks only: decades, or 1-2-5 steps when the data
span less than a few decades); ratios are lines around a reference line at 1
(:func:`routelab.plots.ratio_axis`), never bars on a log axis.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.plots import color_for, log_axis, log_ticks, ratio_axis
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


def _log(fig: go.Figure, axis: str, values: Sequence[float] | np.ndarray, **where: int) -> None:
    """A log axis through :func:`routelab.plots.log_axis` with :func:`routelab.plots.log_ticks`
    labels (1-1.5-2-3-5-7 steps within a decade, 1-2-5 over two; the decades alone beyond)."""
    ticks = log_ticks(values, margin=1.15, max_decades=2.5, fine=True, si=False)
    if not ticks:
        log_axis(fig, axis, **where)
    else:
        log_axis(fig, axis, **ticks, **where)
        _no_minor_grid(fig, axis, **where)


def _no_minor_grid(fig: go.Figure, axis: str, **where: int) -> None:
    """Explicit ticks carry their own grid lines; plotly's minor grid would hatch the panel."""
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    update(minor_showgrid=False, **where)


def _node_axis(fig: go.Figure, nodes: Sequence[int], **where: int) -> None:
    """The N axis: log, ticks at the grid's node counts, each labelled."""
    ticks = sorted({int(n) for n in nodes})
    log_axis(
        fig,
        "x",
        tickmode="array",
        tickvals=ticks,
        ticktext=[str(t) for t in ticks],
        title="nodes N",
        **where,
    )
    _no_minor_grid(fig, "x", **where)


def _y_values(sel: pd.DataFrame) -> np.ndarray:
    """The data's extent on the y axis (mean +- std, positive part)."""
    y = np.concatenate([sel["mean"] - sel["std"], sel["mean"] + sel["std"], sel["mean"]])
    return y[y > 0]


def _line(
    sel: pd.DataFrame,
    x: str,
    method: str,
    *,
    show: bool,
    dash: str | None = None,
    label: str | None = None,
    colour_of_method: bool = False,
) -> go.Scatter:
    """One method's mean +- std line; ``label`` (default ``method``) names it and picks its
    colour (``colour_of_method``: the colour stays the method's)."""
    sel = sel.sort_values(x)
    colour = color_for(method, METHODS) if colour_of_method else None
    method = label or method
    return go.Scatter(
        x=sel[x],
        y=sel["mean"],
        error_y={"type": "data", "array": sel["std"], "visible": True, "thickness": 1},
        mode="lines+markers",
        name=method,
        legendgroup=method,
        showlegend=show,
        line={"color": colour or color_for(method, METHODS), "dash": dash},
        marker={"size": 6},
    )


def _hash_label(split_hot: bool) -> str:
    return "hash+split" if split_hot else "hash"


def fig5_mapping_metrics(
    summary: pd.DataFrame,
    kind: str,
    methods: Sequence[str] | None = None,
    *,
    hash_other: pd.DataFrame | None = None,
    split_hot: bool = True,
) -> go.Figure:
    """Fig. 5 a-d (tweet-based) or e-h (topic-based): relative throughput, throughput,
    spread and imbalance vs nodes, mean +- std over folds.

    Args:
        summary: tidy summary (:func:`routelab.s3tm.lab.routing.summary.fig5_summary`) with one
            dataset per metric.
        kind: ``"tweet"`` or ``"topic"``.
        methods: methods to draw (default: all present, in :data:`METHODS` order).
        hash_other: the summary of :func:`~routelab.s3tm.lab.routing.summary.swap_hash`
            (hash under the other splitting setting); its hash line is drawn dashed, and the
            two hash lines are labelled "hash+split" and "hash" (no splitting).
        split_hot: the splitting setting of ``summary`` (names its hash line).
    """
    letters = "abcd" if kind == "tweet" else "efgh"
    titles = [f"({ch}) {label}" for ch, (_, label, _) in zip(letters, _FIG5_PANELS, strict=True)]
    fig = make_subplots(
        rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.09, vertical_spacing=0.2
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
            label = _hash_label(split_hot) if method == "hash" and hash_other is not None else None
            fig.add_trace(
                _line(sel[sel["method"] == method], "n_matchers", method, show=i == 0, label=label),
                row=row + 1,
                col=col + 1,
            )
        drawn = sel
        if hash_other is not None:
            other = hash_other[
                (hash_other["kind"] == kind)
                & (hash_other["metric"] == metric)
                & (hash_other["method"] == "hash")
            ]
            fig.add_trace(
                _line(
                    other,
                    "n_matchers",
                    "hash",
                    show=i == 0,
                    dash="dash",
                    label=_hash_label(not split_hot),
                ),
                row=row + 1,
                col=col + 1,
            )
            drawn = pd.concat([sel, other])
        # the subplot title names the metric; the x title only under the bottom row
        if log_y:
            _log(fig, "y", _y_values(drawn), row=row + 1, col=col + 1)
        _node_axis(fig, sel_kind["n_matchers"], row=row + 1, col=col + 1)
        if row == 0:
            fig.update_xaxes(title=None, row=row + 1, col=col + 1)
    fig.update_layout(
        title=f"Fig. 5{letters[0]}-{letters[-1]}: {KIND_TITLES.get(kind, kind)} "
        "(mean ± std over folds)",
        legend_title="mapping",
        height=720,
        margin={"b": 120},
    )
    return fig


DATASET_DASH = ("solid", "dash", "dot", "dashdot")
"""Line styles of the datasets in Figs. 6 and 9 (first = solid)."""


def dataset_label(name: str) -> str:
    """Short legend label of a dataset: ``synthetic`` or ``real`` (the bundled tweets)."""
    return "synthetic" if name.startswith("synthetic") else "real"


def _dataset_lines(
    part: pd.DataFrame, x: str, *, show: bool, datasets: Sequence[str]
) -> list[go.Scatter]:
    """One line per (method, dataset) of ``part``: colour by method, dash by dataset;
    labelled ``method (real|synthetic)`` when there are several datasets."""
    lines = []
    for method in _methods_in(part, None):
        for d, name in enumerate(datasets):
            sel = part[(part["method"] == method) & (part["dataset"] == name)]
            if sel.empty:
                continue
            label = f"{method} ({dataset_label(name)})" if len(datasets) > 1 else method
            lines.append(
                _line(
                    sel,
                    x,
                    method,
                    show=show,
                    dash=DATASET_DASH[d % len(DATASET_DASH)],
                    label=label,
                    colour_of_method=True,
                )
            )
    return lines


def fig6_learning_curve(
    summary: pd.DataFrame, n_matchers: int, *, mark: float | None = 500_000
) -> go.Figure:
    """Fig. 6: throughput on a fixed test set vs learning-corpus size, one panel per
    subscription kind, mean +- std over repeats; several datasets (real and synthetic posts)
    share the panels, one line style each (:data:`DATASET_DASH`).

    Args:
        summary: :func:`routelab.s3tm.lab.shared.summarize` of the learning-curve rows by
            (dataset, kind, method, size) with metric ``throughput``.
        n_matchers: N of the sweep (for the title).
        mark: draw a dotted line at this corpus size (the paper's 0.5M) if in range.
    """
    sel = summary[summary["metric"] == "throughput"]
    if "dataset" not in sel:
        sel = sel.assign(dataset="synthetic")
    datasets = sorted(sel["dataset"].unique(), key=lambda d: (dataset_label(d) != "synthetic", d))
    kinds = [k for k in ("tweet", "topic") if k in set(sel["kind"])]
    fig = make_subplots(rows=1, cols=len(kinds), subplot_titles=[KIND_TITLES[k] for k in kinds])
    for j, kind in enumerate(kinds):
        part = sel[sel["kind"] == kind]
        for line in _dataset_lines(part, "size", show=j == 0, datasets=datasets):
            fig.add_trace(line, row=1, col=j + 1)
        log_axis(fig, "x", title="learning posts", row=1, col=j + 1)
        fig.update_yaxes(title="throughput (x C)" if j == 0 else None, row=1, col=j + 1)
        if mark is not None and part["size"].min() <= mark <= part["size"].max():
            fig.add_vline(x=mark, line={"dash": "dot", "color": "#888"}, row=1, col=j + 1)
    shown = " and ".join(f"{dataset_label(d)} ({DATASET_DASH[i]})" for i, d in enumerate(datasets))
    fig.update_layout(
        title=f"Fig. 6: throughput vs learning-corpus size (N = {n_matchers}, {shown} posts)",
        legend_title="mapping",
    )
    return fig


def fig9_learning_time(timing: pd.DataFrame, n_matchers: int) -> go.Figure:
    """Fig. 9: learning time (wall seconds of ``learn_mapping``) vs learning posts, log-log;
    several datasets (real and synthetic posts) one line style each."""
    if "dataset" not in timing:
        timing = timing.assign(dataset="synthetic")
    agg = (
        timing.groupby(["dataset", "method", "size"])["learn_wall_seconds"]
        .agg(mean="mean", std="std")
        .reset_index()
        .fillna({"std": 0.0})
    )
    datasets = sorted(agg["dataset"].unique(), key=lambda d: (dataset_label(d) != "synthetic", d))
    fig = go.Figure()
    for line in _dataset_lines(agg, "size", show=True, datasets=datasets):
        fig.add_trace(line)
    log_axis(fig, "x", title="learning posts")
    _log(fig, "y", _y_values(agg), title="learning time (s)")
    fig.update_layout(
        title=f"Fig. 9: time to learn the mapping (N = {n_matchers})",
        legend_title="mapping",
    )
    return fig


def extra_skew_ablation(gains: pd.DataFrame) -> go.Figure:
    """Throughput gain of hot-word splitting, T(split) / T(no split), per method and N
    (Sect. 5.1), one panel per subscription kind; mean +- std over folds. A ratio: lines
    and points on a log axis around the reference line at 1 (no gain).

    Args:
        gains: :func:`routelab.s3tm.lab.routing.summary.split_gain` rows.
    """
    agg = (
        gains.groupby(["kind", "method", "n_matchers"])["throughput_gain"]
        .agg(mean="mean", std="std")
        .reset_index()
        .fillna({"std": 0.0})
    )
    kinds = [k for k in ("tweet", "topic") if k in set(agg["kind"])]
    fig = make_subplots(
        rows=1,
        cols=len(kinds),
        subplot_titles=[KIND_TITLES[k] for k in kinds],
        horizontal_spacing=0.1,
    )
    for j, kind in enumerate(kinds):
        part = agg[agg["kind"] == kind]
        for method in _methods_in(part, None):
            fig.add_trace(
                _line(part[part["method"] == method], "n_matchers", method, show=j == 0),
                row=1,
                col=j + 1,
            )
        _node_axis(fig, part["n_matchers"], row=1, col=j + 1)
    ratio_axis(fig, "y")  # log, with the reference line at 1 in every panel
    for j, kind in enumerate(kinds):  # labelled ticks spanning each panel's ratios and 1
        part = agg[agg["kind"] == kind]
        _log(fig, "y", np.append(_y_values(part), 1.0), row=1, col=j + 1)
    fig.update_yaxes(title="T(split) / T(no split)", row=1, col=1)
    fig.update_layout(
        title="Skew handling (Sect. 5.1): throughput with / without hot-word splitting",
        legend_title="mapping",
        margin={"b": 120},
    )
    return fig


def extra_matcher_loads(
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
        cv: :func:`routelab.s3tm.lab.routing.experiments.run_cv` rows (with ``loads``).
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


def extra_fig5_two_loads(comparison: pd.DataFrame, *, mark: int | None = 16) -> go.Figure:
    """Fig. 5 under two loads: relative throughput (SALB = 1) and
    imbalance vs N, one row per subscription kind; colour = method, solid = unit cost
    (Eq. 3, Fig. 5), dashed = trie lookups (Fig. 7); a dotted line at N = ``mark`` (Fig. 7's
    N = 16).

    Args:
        comparison: :func:`routelab.s3tm.lab.routing.load.load_comparison`.
    """
    kinds = [k for k in ("tweet", "topic") if k in set(comparison["kind"])]
    if not kinds:
        raise ValueError("no tweet or topic rows to draw")
    costs = list(dict.fromkeys(comparison["cost"]))
    panels = (("relative_throughput", "relative throughput (SALB = 1)"), ("imbalance", "imbalance"))
    titles = [f"{k}-based: {label}" for k in kinds for _, label in panels]
    fig = make_subplots(rows=len(kinds), cols=2, subplot_titles=titles, vertical_spacing=0.16)
    for r, kind in enumerate(kinds):
        for c, (metric, _) in enumerate(panels):
            sel = comparison[(comparison["kind"] == kind) & (comparison["metric"] == metric)]
            for method in _methods_in(sel, None):
                for d, cost in enumerate(costs):
                    part = sel[(sel["method"] == method) & (sel["cost"] == cost)]
                    if part.empty:
                        continue
                    line = _line(
                        part,
                        "n_matchers",
                        method,
                        show=r == 0 and c == 0,
                        dash=DATASET_DASH[d % len(DATASET_DASH)],
                        label=f"{method}, {cost}",
                        colour_of_method=True,
                    )
                    fig.add_trace(line, row=r + 1, col=c + 1)
            _node_axis(fig, sel["n_matchers"], row=r + 1, col=c + 1)
            if metric == "imbalance":
                _log(fig, "y", _y_values(sel), row=r + 1, col=c + 1)
            if mark is not None and sel["n_matchers"].min() <= mark <= sel["n_matchers"].max():
                fig.add_vline(x=mark, line={"dash": "dot", "color": "#888"}, row=r + 1, col=c + 1)
    fig.update_layout(
        title="Fig. 5 under two loads: unit cost (solid) vs trie lookups (dashed)",
        legend_title="mapping, load",
        height=360 * len(kinds),
    )
    return fig
