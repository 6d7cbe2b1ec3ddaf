"""Figures of PKG (Nasir et al., ICDE'15, Sects. IV-V) for notebook ``07_pkg``.

Each function takes the frames of :mod:`routelab.grouping.lab.pkg` and returns a
plotly figure; the notebook hands it to :meth:`routelab.report.NotebookReport.figure`,
which adds the data/profile/version footer and saves HTML, PNG and SVG. A method keeps its
colour in every figure (:data:`VARIANTS` through :func:`routelab.plots.color_for`).
Imbalance is plotted on log axes; a zero imbalance cannot be shown there and is left out.

A builder is named after the paper figure or table it draws, ``fig<N><panels>_<what>`` or
``table<N>_<what>``; one that draws neither starts with ``extra_``. The "Figures" table of
``lib/routelab/README.md`` maps every figure to its notebook and builder.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from routelab.grouping.lab.pkg.cases import (
    TABLE2_SCHEMES,
    USED_BINS,
    StreamCase,
    max_key_probability,
)
from routelab.grouping.lab.pkg.example import demo_loads
from routelab.grouping.lab.pkg.reductions import imbalance_lower_bound
from routelab.plots import PALETTE, color_for, log_axis

VARIANTS = ("G", "H", "L5", "L10", "L15", "L20")
"""Order of the variant colours (G = PKG with global load, H = hashing); L_S P shares L_S's."""

TABLE2_COLORS = {
    "PKG": PALETTE[0],
    "Hashing": PALETTE[1],
    "Off-Greedy": PALETTE[4],
    "On-Greedy": PALETTE[5],
    "PoTC": PALETTE[3],
}
"""Table II method colours (PKG and hashing as G and H elsewhere)."""

SCHEME_COLORS = {"kg": PALETTE[1], "sg": PALETTE[2], "pkg_local": PALETTE[0]}
SCHEME_NAMES = {"kg": "KG", "sg": "SG", "pkg_local": "PKG"}


def _dash(name: str) -> str:
    """L_S solid, L_S P (probing, the paper) dashed, L_S P/S (the /S variant) dotted."""
    if name.endswith("/S"):
        return "dot"
    return "dash" if name.endswith("P") else "solid"


def _color(name: str) -> str:
    if name.endswith("/S"):  # the non-paper probing variant: its own colour, never hidden
        return PALETTE[-1]
    base = name[:-1] if name.endswith("P") and name.startswith("L") else name
    if base in VARIANTS:
        return color_for(base, VARIANTS)
    return PALETTE[-1]


def _draw_order(name: str) -> tuple[int, int, str]:
    """Solid lines first, then dashed (L_S P), then dotted (L_S P/S): a dashed or dotted
    line drawn on top leaves the line beneath visible through its gaps. Within a style,
    the order of :data:`VARIANTS` (so the legend reads G, H, L5, L10, ...)."""
    base = name.removesuffix("/S")
    base = base[:-1] if base.endswith("P") and base.startswith("L") else base
    rank = VARIANTS.index(base) if base in VARIANTS else len(VARIANTS)
    return ({"solid": 0, "dash": 1, "dot": 2}[_dash(name)], rank, name)


def _label_narrow_log_axes(fig: go.Figure, axis: str = "y") -> go.Figure:
    """Give every log axis whose data hold fewer than two powers of ten (so
    :func:`routelab.plots.log_axis` would label one decade or none) explicit 1-2-3-5 labels."""
    values: dict[str, list[float]] = {}
    for trace in fig.data:
        ref = getattr(trace, f"{axis}axis") or axis
        ys = pd.to_numeric(pd.Series(getattr(trace, axis), dtype=object), errors="coerce")
        values.setdefault(ref, []).extend(ys[ys > 0].tolist())
    for ref, ys in values.items():
        if not ys:
            continue
        lo, hi = np.log10(min(ys)), np.log10(max(ys))
        if np.floor(hi) - np.ceil(lo) >= 1:
            continue  # two or more powers of ten lie inside the data: log_axis labels them
        ticks = [
            m * 10.0**k
            for k in range(int(np.floor(lo)), int(np.floor(hi)) + 1)
            for m in (1, 2, 3, 5)
            if 10**lo / 1.5 <= m * 10.0**k <= 10**hi * 1.5
        ]
        name = ref.replace(axis, f"{axis}axis", 1)
        fig.layout[name].update(
            tickmode="array", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks]
        )
    return fig


def _width(name: str) -> float:
    return 3.0 if _dash(name) == "dot" else 2.0


_SPACING = {"horizontal_spacing": 0.08, "vertical_spacing": 0.2}


def _grid(titles: Sequence[str], cols: int, **kw) -> tuple[go.Figure, list[tuple[int, int]]]:
    rows = max(1, -(-len(titles) // cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=list(titles), **kw)
    cells = [(i // cols + 1, i % cols + 1) for i in range(len(titles))]
    return fig, cells


def _positive(values: pd.Series) -> pd.Series:
    return values.where(values > 0)


def _title(case: StreamCase) -> str:
    return f"{case.label}<br><sup>1/p1 = {1 / case.p1:.0f}, 2/p1 = {case.boundary:.0f}</sup>"


def _boundaries(
    fig: go.Figure, case: StreamCase, workers: Sequence[int], row: int, col: int, first: bool
) -> None:
    """Mark ``1/p1`` (dotted) and ``2/p1`` (dashed) where they fall inside the W range."""
    for x, dash, name in ((1 / case.p1, "dot", "1/p1"), (case.boundary, "dash", "2/p1")):
        if not min(workers) <= x <= max(workers):
            continue
        fig.add_trace(
            go.Scatter(
                x=[x, x],
                y=[1e-7, 1],
                mode="lines",
                name=name,
                legendgroup=name,
                showlegend=first,
                line={"color": "#999", "dash": dash, "width": 1.5},
                hovertemplate=f"{name} = {x:.0f}<extra></extra>",
            ),
            row=row,
            col=col,
        )


def _imbalance_axes(
    fig: go.Figure, workers: Sequence[int], title: str, cells: Sequence[tuple[int, int]]
) -> go.Figure:
    log_axis(fig, "x", tickmode="array", tickvals=sorted(workers))
    fig.update_xaxes(title_text="workers W", row=max(r for r, _ in cells))
    log_axis(fig, "y")
    _label_narrow_log_axes(fig)
    fig.update_yaxes(title_text="avg I / m", col=1)
    fig.update_annotations(font_size=12)
    fig.update_layout(title=title, font_size=11)
    return fig


def table2_imbalance(rows: pd.DataFrame, cases: Sequence[StreamCase]) -> go.Figure:
    """Table II as lines: average imbalance fraction vs workers, one panel per stream, with
    the stream's ``1/p1`` and ``2/p1`` marked and, beyond ``2/p1``, the lower bound
    ``p1/2 - 1/W`` every two-choice scheme obeys (Sect. IV-A; drawn, not claimed: it holds
    by construction)."""
    fig, cells = _grid([_title(c) for c in cases], 3, **_SPACING)
    workers = sorted(rows["n_workers"].unique())
    for i, (case, (r, c)) in enumerate(zip(cases, cells, strict=True)):
        sel = rows[(rows["stream"] == case.name) & (rows["n_sources"] == 1)]
        for scheme, name in TABLE2_SCHEMES.items():
            d = sel[sel["scheme"] == scheme].sort_values("n_workers")
            fig.add_trace(
                go.Scatter(
                    x=d["n_workers"],
                    y=_positive(d["avg_imbalance_fraction"]),
                    mode="lines+markers",
                    name=name,
                    legendgroup=name,
                    showlegend=i == 0,
                    line={"color": TABLE2_COLORS[name]},
                ),
                row=r,
                col=c,
            )
        _boundaries(fig, case, workers, r, c, i == 0)
        beyond = [w for w in workers if w > 2 / case.p1]
        if beyond:  # Sect. IV-A: any two-choice scheme has I(m)/m >= p1/2 - 1/W there
            fig.add_trace(
                go.Scatter(
                    x=beyond,
                    y=[imbalance_lower_bound(case.p1, w) for w in beyond],
                    mode="lines",
                    name="bound p1/2 - 1/W",
                    legendgroup="bound",
                    showlegend=i == 0,
                    line={"color": "black", "dash": "dot", "width": 1},
                ),
                row=r,
                col=c,
            )
    title = "Table II: avg imbalance / messages vs workers (S=1, global load)"
    return _imbalance_axes(fig, workers, title, cells)


def fig2_local_vs_global(rows: pd.DataFrame, cases: Sequence[StreamCase]) -> go.Figure:
    """Fig. 2: average imbalance fraction of H, G, L_S (solid) and L_S P (dashed) vs
    workers, one panel per stream."""
    fig, cells = _grid([_title(c) for c in cases], 3, **_SPACING)
    seen: set[str] = set()
    for case, (r, c) in zip(cases, cells, strict=True):
        sel = rows[(rows["stream"] == case.name) & rows["variant"].str.match(r"^(H|G|L\d+P?)$")]
        groups = dict(list(sel.groupby("variant", sort=False)))
        for name in sorted(groups, key=_draw_order):
            d = groups[name].sort_values("n_workers")
            fig.add_trace(
                go.Scatter(
                    x=d["n_workers"],
                    y=_positive(d["avg_imbalance_fraction"]),
                    mode="lines+markers",
                    name=name,
                    legendgroup=name,
                    showlegend=name not in seen,
                    line={"color": _color(name), "dash": _dash(name)},
                ),
                row=r,
                col=c,
            )
            seen.add(name)
    workers = sorted(rows["n_workers"].unique())
    title = "Fig. 2: global (G) vs local (L_S) vs local + probing (L_S P)"
    return _imbalance_axes(fig, workers, title, cells)


def fig3_imbalance_through_time(
    timelines: pd.DataFrame, cases: Sequence[StreamCase], n_workers: int
) -> go.Figure:
    """Fig. 3: imbalance fraction through time at ``n_workers`` workers, one panel per
    stream (H, G, L_S solid, L_S P dashed, L_S P/S dotted)."""
    fig, cells = _grid([c.label for c in cases], 2 if len(cases) > 2 else len(cases), **_SPACING)
    seen: set[str] = set()
    at_w = timelines[timelines["n_workers"] == n_workers]
    for case, (r, c) in zip(cases, cells, strict=True):
        groups = dict(list(at_w[at_w["stream"] == case.name].groupby("variant", sort=False)))
        for name in sorted(groups, key=_draw_order):
            d = groups[name]
            fig.add_trace(
                go.Scatter(
                    x=d["messages"] / 1e6,
                    y=_positive(d["imbalance_fraction"]),
                    mode="lines",
                    name=name,
                    legendgroup=name,
                    showlegend=name not in seen,
                    line={"color": _color(name), "dash": _dash(name), "width": _width(name)},
                ),
                row=r,
                col=c,
            )
            seen.add(name)
    fig.update_xaxes(title_text="messages routed (millions)", row=cells[-1][0] if cells else 1)
    log_axis(fig, "y")
    _label_narrow_log_axes(fig)
    fig.update_yaxes(title_text="I(t) / t", col=1)
    fig.update_annotations(font_size=12)
    fig.update_layout(
        title=f"Fig. 3: imbalance / messages through time, W={n_workers}", font_size=11
    )
    return fig


def fig4_skewed_sources(skew: pd.DataFrame) -> go.Figure:
    """Fig. 4: PKG (L) imbalance fraction vs workers with sources split by user (skewed,
    solid) or round robin (uniform, dashed), one colour per number of sources."""
    fig = go.Figure()
    sources = sorted(skew["n_sources"].unique())
    for s in sources:
        for split, dash in (("skewed", "solid"), ("uniform", "dash")):
            d = skew[(skew["n_sources"] == s) & (skew["split"] == split)]
            d = d.sort_values("n_workers")
            fig.add_trace(
                go.Scatter(
                    x=d["n_workers"],
                    y=_positive(d["avg_imbalance_fraction"]),
                    mode="lines+markers",
                    name=f"S={s}, {split}",
                    line={"color": PALETTE[sources.index(s) % len(PALETTE)], "dash": dash},
                )
            )
    workers = sorted(skew["n_workers"].unique())
    log_axis(fig, "x", tickmode="array", tickvals=workers, title_text="workers W")
    log_axis(fig, "y", title_text="avg imbalance / messages")
    _label_narrow_log_axes(fig)
    fig.update_layout(title="Fig. 4: uniform vs skewed split of the messages on the sources")
    return fig


def fig5a_throughput_vs_delay(tp: pd.DataFrame, source_rate: float) -> go.Figure:
    """Fig. 5a: throughput (left) and mean latency in ms (right) vs CPU delay for KG, PKG
    and SG. SG is drawn last, dashed with open markers: it often coincides with PKG."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=["throughput", "mean latency"])
    groups = dict(list(tp.sort_values("delay_ms").groupby("scheme", sort=False)))
    order = [s for s in ("kg", "pkg_local", "sg") if s in groups]
    for scheme in order + sorted(set(groups) - set(order)):
        d = groups[scheme]
        style = {"color": SCHEME_COLORS.get(scheme, PALETTE[-1])}
        marker = {"size": 7}
        if scheme == "sg":  # SG and PKG often coincide: keep both visible
            style |= {"dash": "dash", "width": 2.5}
            marker = {"size": 11, "symbol": "circle-open", "line": {"width": 2}}
        name = SCHEME_NAMES.get(scheme, scheme)
        fig.add_trace(
            go.Scatter(
                x=d["delay_ms"],
                y=d["throughput"],
                name=name,
                legendgroup=name,
                mode="lines+markers",
                line=style,
                marker=marker,
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=d["delay_ms"],
                y=d["latency_ms"],
                name=name,
                legendgroup=name,
                showlegend=False,
                mode="lines+markers",
                line=style,
                marker=marker,
            ),
            row=1,
            col=2,
        )
    fig.add_hline(
        opacity=1,
        y=source_rate,
        line={"color": "#999", "dash": "dot", "width": 1.5},
        row=1,
        col=1,
        annotation_text="source rate",
    )
    fig.update_xaxes(title_text="CPU delay per tuple (ms)")
    fig.update_yaxes(title_text="messages / s", row=1, col=1)
    log_axis(fig, "y", title_text="ms", row=1, col=2)
    fig.update_layout(title="Fig. 5a: throughput and latency vs CPU delay (queueing model)")
    return fig


def fig5b_memory_vs_throughput(agg: pd.DataFrame) -> go.Figure:
    """Fig. 5b: saturated throughput vs memory of PKG and SG for several aggregation
    periods (labelled), with KG's throughput (nothing to aggregate) as a line."""
    fig = go.Figure()
    for scheme in ("pkg_local", "sg"):
        d = agg[agg["scheme"] == scheme].sort_values("period")
        fig.add_trace(
            go.Scatter(
                x=d["memory"],
                y=d["throughput"],
                mode="lines+markers+text",
                name=SCHEME_NAMES[scheme],
                text=[f"{p:g}s" for p in d["period"]],
                textposition="top center",
                line={"color": SCHEME_COLORS[scheme]},
            )
        )
    kg = agg[agg["scheme"] == "kg"]
    if len(kg):
        fig.add_hline(
            opacity=1,
            y=float(kg["throughput"].iloc[0]),
            line={"color": SCHEME_COLORS["kg"], "width": 2},
            annotation_text="KG (no aggregation)",
        )
    log_axis(fig, "x", title_text="average counters held per aggregation period")
    fig.update_yaxes(title_text="saturated throughput (messages / s)")
    fig.update_layout(title="Fig. 5b: throughput vs memory for different aggregation periods")
    return fig


def extra_used_bins(bins: pd.DataFrame) -> go.Figure:
    """Not a paper figure (Sect. IV-A's argument): fraction of bins that are a choice of
    some key (left) and PKG's scaled imbalance ``n I(m) / m`` against the bound
    ``n/|B| - 1`` (right), vs ``n``."""
    stats = (
        bins.groupby("n_workers")
        .agg(
            used=("used_fraction", "mean"),
            used_sd=("used_fraction", "std"),
            expected=("expected", "first"),
            imb=("scaled_imbalance", "mean"),
            imb_sd=("scaled_imbalance", "std"),
            bound=("scaled_bound", "mean"),
        )
        .reset_index()
    )
    fig = make_subplots(rows=1, cols=2, subplot_titles=["used bins", "PKG imbalance x n / m"])
    n = stats["n_workers"]
    fig.add_trace(
        go.Scatter(
            x=n,
            y=stats["used"],
            error_y={"array": stats["used_sd"]},
            mode="markers",
            name="measured",
            line={"color": PALETTE[0]},
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=n,
            y=stats["expected"],
            mode="lines",
            name="1-(1-1/n)^(2n)",
            line={"color": PALETTE[1], "dash": "dash"},
        ),
        row=1,
        col=1,
    )
    fig.add_hline(
        opacity=1,
        y=USED_BINS,
        line={"color": "#999", "dash": "dot", "width": 1.5},
        row=1,
        col=1,
        annotation_text="1 - 1/e²",
    )
    fig.add_trace(
        go.Scatter(
            x=n,
            y=stats["imb"],
            error_y={"array": stats["imb_sd"]},
            mode="markers",
            name="PKG (G)",
            line={"color": PALETTE[2]},
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Scatter(
            x=n,
            y=stats["bound"],
            mode="lines",
            name="bound n/|B| - 1",
            line={"color": PALETTE[3], "dash": "dash"},
        ),
        row=1,
        col=2,
    )
    fig.add_hline(
        opacity=1,
        y=1 / USED_BINS - 1,
        line={"color": "#999", "dash": "dot", "width": 1.5},
        row=1,
        col=2,
        annotation_text="0.156",
    )
    log_axis(fig, "x", title_text="keys = workers n")
    fig.update_yaxes(range=[0.8, 1.0], row=1, col=1)
    fig.update_layout(title="Sect. IV-A: uniform keys leave ~13.5% of the bins unused")
    return fig


def extra_two_choice_demo(keys: np.ndarray, n_workers: int, seed: int = 0) -> go.Figure:
    """Not a paper figure: the two-choice demo, each worker's load under hashing and PKG
    (bars, linear axis) for ``keys`` on ``n_workers`` workers, the average load m/W dashed,
    and where W sits against the stream's ``1/p1`` and ``2/p1`` (Sect. IV-A)."""
    loads = demo_loads(keys, n_workers, seed)
    m = keys.size
    p1 = max_key_probability(keys)
    fig = go.Figure()
    for name in ("hashing", "PKG"):
        d = loads[loads["scheme"] == name]
        fig.add_trace(
            go.Bar(
                x=d["worker"],
                y=d["load"],
                name=f"{name}: imbalance {d['load'].max() - m / n_workers:,.0f}",
                marker_color=TABLE2_COLORS["Hashing" if name == "hashing" else "PKG"],
            )
        )
    fig.add_hline(
        y=m / n_workers,
        line={"color": "#333", "dash": "dash", "width": 1.5},
        annotation_text="average m/W",
    )
    if n_workers < 1 / p1:
        regime = f"W < 1/p1 = {1 / p1:.1f}: PKG can split the hot key evenly"
    elif n_workers <= 2 / p1:
        regime = f"1/p1 <= W <= 2/p1 = {2 / p1:.1f}: the hot key's two workers are nearly full"
    else:
        regime = f"W > 2/p1 = {2 / p1:.1f}: the hot key's two workers exceed the average"
    fig.update_layout(
        title=f"{m:,} messages, p1 = {p1:.3f}, W = {n_workers}<br><sup>{regime}</sup>",
        barmode="group",
        bargap=0.15,
        height=380,
    )
    fig.update_xaxes(title_text="worker", dtick=1 if n_workers <= 20 else 5)
    fig.update_yaxes(title_text="messages")
    return fig
