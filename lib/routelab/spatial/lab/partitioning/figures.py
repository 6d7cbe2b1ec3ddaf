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

from routelab.claims import t_interval
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


def _mean_interval(g: pd.DataFrame, metric: str, runs_col: str) -> dict[str, float]:
    """The mean of the repeated runs of rows ``g`` (``runs_col`` lists) with its 95 % t
    interval and count, and the busiest worker's median time per tuple; without runs, the
    mean of ``metric`` and no interval."""
    runs = [x for r in g[runs_col] for x in r] if runs_col in g.columns else []
    y, lo, hi = t_interval(runs) if len(runs) >= 2 else (g[metric].mean(), np.nan, np.nan)
    us = g["busiest_us_per_tuple"].median() if "busiest_us_per_tuple" in g.columns else np.nan
    return {"y": y, "lo": lo, "hi": hi, "n": len(runs), "us": us}


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
    6-10). Where the frame holds the repeated measurements (``<metric>_runs``, or
    ``latency_runs`` for ``latency_us``), a bar is their mean with its 95 % t interval as
    the error bar; where it holds the busiest worker's time per tuple, the hover shows it
    and the title gives its range (the regime the timings were taken in)."""
    d = df.copy()
    d["set"] = d.apply(_label, axis=1)
    runs_col = {"latency_us": "latency_runs"}.get(metric, f"{metric}_runs")
    d = pd.DataFrame(
        [{"set": st, "algorithm": a, **_mean_interval(g, metric, runs_col)}
         for (st, a), g in d.groupby(["set", "algorithm"])]
    )  # fmt: skip
    algs = [a for a in (algorithms or ALGORITHM_ORDER) if a in set(d.algorithm)]
    fig = go.Figure()
    for a in algs:
        s = d[d.algorithm == a]
        err = None
        if s.n.max() >= 2:
            err = {"type": "data", "symmetric": False, "array": (s.hi - s.y).to_numpy(),
                   "arrayminus": (s.y - s.lo).to_numpy()}  # fmt: skip
        hover = [
            f"{a}, {st}: {y:,.4g} [{lo:,.4g}, {hi:,.4g}] over {n} runs"
            + (f"; busiest worker {us:.3g} µs/tuple" if np.isfinite(us) else "")
            for st, y, lo, hi, n, us in zip(s.set, s.y, s.lo, s.hi, s.n, s.us, strict=True)
        ]
        fig.add_trace(
            go.Bar(x=s.set, y=s.y, name=a, marker_color=color_for(a, algs), error_y=err,
                   hovertext=hover, hoverinfo="text")
        )  # fmt: skip
    if d.us.notna().any():
        title += (
            f"<br><sub>busiest worker {d.us.min():.3g}-{d.us.max():.3g} µs per tuple; bars: "
            "mean and 95 % interval of the repeated runs</sub>"
        )
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
    """Fig. 11: throughput against the number of workers, one panel per dataset-query set,
    each point the mean of the repeated runs with its 95 % interval, the busiest worker's
    time per tuple in the hover."""
    d = df.copy()
    d["set"] = d.apply(_label, axis=1)
    sets = sorted(d.set.unique())
    fig = make_subplots(rows=1, cols=len(sets), subplot_titles=sets, shared_yaxes=False)
    algs = [a for a in ALGORITHM_ORDER if a in set(d.algorithm)]
    runs_col = f"{metric}_runs"
    for j, s in enumerate(sets, start=1):
        for a in algs:
            p = pd.DataFrame(
                [{"n": n, **_mean_interval(g, metric, runs_col)}
                 for n, g in d[(d.set == s) & (d.algorithm == a)].groupby("n_workers")]
            )  # fmt: skip
            fig.add_trace(
                go.Scatter(
                    x=p.n,
                    y=p.y,
                    name=a,
                    mode="lines+markers",
                    marker_color=color_for(a, algs),
                    showlegend=j == 1,
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": (p.hi - p.y).to_numpy(),
                        "arrayminus": (p.y - p.lo).to_numpy(),
                    },  # fmt: skip
                    hovertext=[
                        f"{a}, {n} workers: {y:,.4g} tuples/s; busiest worker {us:.3g} µs/tuple"
                        for n, y, us in zip(p.n, p.y, p.us, strict=True)
                    ],
                    hoverinfo="text",
                ),  # fmt: skip
                row=1,
                col=j,
            )
        fig.update_xaxes(title_text="workers", row=1, col=j)
    fig.update_yaxes(title_text="tuples/s (busiest worker)", row=1, col=1)
    title = "Fig. 11 - scalability with the number of workers"
    if "busiest_us_per_tuple" in d.columns:
        us = d["busiest_us_per_tuple"]
        title += f"<br><sub>busiest worker {us.min():.3g}-{us.max():.3g} µs per tuple</sub>"
    fig.update_layout(title=title)
    return fig


def extra_cost_model_vs_clock(workers: pd.DataFrame) -> go.Figure:
    """Each worker's measured busy time against the load the partitioners balanced (scaled
    to seconds per set by least squares, ``predicted``:
    :func:`routelab.spatial.lab.partitioning.cost_clock.against_the_clock`): one point per
    (run, worker), colour = partitioner, one panel per set; the diagonal is a perfect model."""
    d = workers.copy()
    d["set"] = d.apply(_label, axis=1)
    sets = sorted(d.set.unique())
    fig = make_subplots(rows=1, cols=len(sets), subplot_titles=sets)
    algs = [a for a in ALGORITHM_ORDER if a in set(d.algorithm)]
    for j, s in enumerate(sets, start=1):
        sub = d[d.set == s]
        top = float(max(sub.w_busy.max(), sub.predicted.max()))
        fig.add_trace(
            go.Scatter(x=[0, top], y=[0, top], mode="lines", line={"dash": "dot", "color": "grey"},
                       showlegend=False, hoverinfo="skip"),
            row=1, col=j,
        )  # fmt: skip
        for a in algs:
            g = sub[sub.algorithm == a]
            fig.add_trace(
                go.Scatter(
                    x=g.predicted, y=g.w_busy, mode="markers", name=a,
                    marker_color=color_for(a, algs), showlegend=j == 1,
                    hovertext=[f"{a}, worker {w}, seed {sd}" for w, sd in
                               zip(g.worker, g.get("seed", [0] * len(g)), strict=True)],
                ),
                row=1, col=j,
            )  # fmt: skip
        fig.update_xaxes(title_text="model (s)", row=1, col=j)
    fig.update_yaxes(title_text="measured busy (s)", row=1, col=1)
    fig.update_layout(title="Definition 1 against the clock: every worker's busy time")
    return fig


def extra_cost_model_errors(errors: pd.DataFrame) -> go.Figure:
    """Where the balanced model errs: per set, the busy time each tuple kind is charged too
    much (positive) or too little (negative) by the partitioners' unit ratios, as a share of
    the measured busy time (:func:`routelab.spatial.lab.partitioning.cost_clock.kind_errors`)."""
    d = errors.copy()
    d["set"] = d.apply(_label, axis=1)
    kinds = list(dict.fromkeys(d.kind))
    fig = go.Figure()
    for k in kinds:
        g = d[d.kind == k]
        fig.add_trace(go.Bar(x=g.set, y=100 * g.error_share, name=k,
                             marker_color=color_for(k, kinds)))  # fmt: skip
    fig.update_layout(
        barmode="group",
        title="Where Definition 1's unit ratios err: busy time misplaced per tuple kind",
        yaxis_title="% of measured busy time (+: charged too much)",
        xaxis_title="dataset-query set",
    )
    return fig


def extra_similarity_probe(frame: pd.DataFrame, theta: float) -> go.Figure:
    """The similarities Algorithm 1's threshold sees: hybrid's probe nodes (a depth-4
    kd-tree, :mod:`routelab.spatial.lab.partitioning.text_split`) per set, theta as a line:
    nodes below it are where phase 1 considers text partitioning."""
    d = frame[frame.algorithm == "hybrid"].copy()
    d["set"] = d.apply(_label, axis=1)
    fig = go.Figure()
    sets = sorted(d.set.unique())
    for s in sets:
        vals = [x for r in d[d.set == s]["probe_similarities"] for x in r]
        fig.add_trace(go.Box(y=vals, name=s, boxpoints="all", jitter=0.4,
                             marker_color=color_for(s, sets)))  # fmt: skip
    fig.add_hline(y=theta, line_dash="dash", annotation_text=f"theta = {theta:g}")
    fig.update_layout(
        title="Algorithm 1's text similarity on a depth-4 kd probe (every seed)",
        yaxis_title="cosine(objects' terms, queries' keywords)",
        showlegend=False,
    )
    return fig


def extra_regime_map(vmap: pd.DataFrame, c_paper: float, title: str | None = None) -> go.Figure:
    """The regime map: per timing claim (rows), its verdict at every platform cost per
    message ``c`` (columns, µs), coloured by verdict, with the paper's cost ``c_paper``
    marked (:func:`routelab.spatial.lab.regime.verdict_map`). ``c = 0`` is this engine;
    where a row changes colour is its flip point."""
    from routelab.claims import VERDICTS
    from routelab.report import VERDICT_COLOURS

    strong = {"holds": "#4c9a3f", "direction only": "#d9b440", "partly": "#e8913a",
              "fails": "#c8423b", "inconclusive": "#8f7bbd", "not comparable": "#9a9a9a"}  # fmt: skip
    claims = list(dict.fromkeys(vmap.claim))
    costs = sorted(vmap.c_us.unique())
    code = {v: i for i, v in enumerate(VERDICTS)}
    z = np.full((len(claims), len(costs)), np.nan)
    text = np.full(z.shape, "", dtype=object)
    for r in vmap.itertuples():
        i, j = claims.index(r.claim), costs.index(r.c_us)
        z[i, j] = code[r.verdict]
        text[i, j] = f"{r.claim}<br>c = {r.c_us:g} µs: <b>{r.verdict}</b><br>{r.rule}"
    n = len(VERDICTS)
    scale = []
    for v, k in code.items():  # a step per verdict
        scale += [[k / n, strong[v]], [(k + 1) / n, strong[v]]]
    labels = [f"{c:g}" + (" (paper)" if np.isclose(c, c_paper) else "") for c in costs]
    fig = go.Figure(
        go.Heatmap(z=z, x=labels, y=[_wrap(c) for c in claims], zmin=0, zmax=n, colorscale=scale,
                   text=text, hoverinfo="text", xgap=2, ygap=2, showscale=False)
    )  # fmt: skip
    for v in VERDICTS:  # a legend of the verdicts present
        if v in set(vmap.verdict):
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=v,
                                     marker={"color": strong[v], "size": 12, "symbol": "square",
                                             "line": {"color": VERDICT_COLOURS[v], "width": 1}}))  # fmt: skip
    if any(np.isclose(c, c_paper) for c in costs):
        fig.add_vline(x=labels.index(next(x for x in labels if "paper" in x)), line_width=2,
                      line_color="black", line_dash="dash")  # fmt: skip
    fig.update_layout(
        title=title or "Every timing claim's verdict along the platform's cost per message",
        xaxis_title="platform cost per message c (µs); 0 = this engine, dashed = the paper's",
        height=max(360, 36 * len(claims) + 160), margin={"l": 360},
        legend={"orientation": "h", "y": -0.25},
    )  # fmt: skip
    fig.update_yaxes(autorange="reversed")
    return fig


def _wrap(text: str, width: int = 48) -> str:
    """``text`` broken into lines of at most ``width`` characters (a heatmap's row labels)."""
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "<br>".join([*lines, line])
