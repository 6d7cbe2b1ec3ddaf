"""The "Figures" table promises content, and the figures draw it.

``tests/test_figure_table.py`` checks the table's names (every builder exists and is called
by its notebook). Here each covered row's builder is drawn from a small hand-made frame
with the experiments' column shapes, and every quantity the row's caption names must be
drawn: a trace with finite points whose labels (trace name, subplot title, axis titles,
figure title) name it. A row whose caption promises a quantity its figure does not draw,
or a figure that drops a promised panel, fails here.

Covered: every PS2Stream and Fabret row that names a builder (paper figures; the
``extra:`` rows are not covered yet). Other papers' rows are not covered yet.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from test_figure_table import builders, figure_numbers, table_rows
from test_spatial_adjust_figures import _frame as adjust_frame

from routelab.filtering.lab.adaptivity import figures as adaptivity_figures
from routelab.filtering.lab.matching import figures as fabret_figures
from routelab.spatial.lab.adjustment import figures as adjust_figures
from routelab.spatial.lab.partitioning import figures as spatial_figures


def _finite(values: object) -> int:
    if values is None:
        return 0
    out = 0
    for v in np.asarray(values, dtype=object).ravel():
        try:
            out += math.isfinite(float(v))
        except (TypeError, ValueError):
            out += v is not None and not isinstance(v, float)  # a category counts as drawn
    return out


def drawn(fig: go.Figure) -> list[tuple[str, int]]:
    """``(labels, points)`` per trace: the trace's name, the title of the subplot it sits in,
    its axes' titles and the figure's title, with its finite y (or x) points."""
    layout = fig.layout
    title = (layout.title.text or "") if layout.title else ""
    out = []
    for trace in fig.data:
        xname = "xaxis" + (trace.xaxis or "x")[1:]
        yname = "yaxis" + (trace.yaxis or "y")[1:]
        xaxis, yaxis = layout[xname], layout[yname]
        labels = [trace.name or "", title, xaxis.title.text or "", yaxis.title.text or ""]
        text = getattr(trace, "text", None)
        labels += [text] if isinstance(text, str) else []
        xd = xaxis.domain or (0, 1)
        yd = yaxis.domain or (0, 1)
        for a in layout.annotations or ():  # subplot titles sit just above their domain
            paper = a.xref == "paper" and a.yref == "paper" and a.x is not None
            if (
                paper
                and a.text
                and xd[0] <= a.x <= xd[1]
                and yd[1] - 0.01 <= (a.y or 0) <= yd[1] + 0.1
            ):
                labels.append(a.text)
        # a secondary y axis shares the subplot: take the title of the axis it overlays
        if yaxis.overlaying:
            base = layout["yaxis" + yaxis.overlaying[1:]]
            labels.append(base.title.text or "")
        horizontal = getattr(trace, "orientation", None) == "h"
        values = getattr(trace, "x" if horizontal else "y", None)
        points = _finite(values if values is not None else getattr(trace, "x", None))
        out.append((" | ".join(labels), points))
    return out


def draws(fig: go.Figure, pattern: str) -> bool:
    """Some trace with finite points is labelled by ``pattern`` (case-insensitive)."""
    rx = re.compile(pattern, re.IGNORECASE)
    return any(points and rx.search(labels) for labels, points in drawn(fig))


# ---------------------------------------------------------------- small hand-made frames


def _spatial_runs() -> pd.DataFrame:
    """Notebook 11's run rows (Figs. 6-11): per set, algorithm and worker count."""
    rows = []
    for country in ("US", "GB"):
        for algorithm in ("hybrid", "metric", "kd-tree", "grid"):
            for n_workers in (4, 8):
                rows.append({"country": country, "query_set": "Q1", "algorithm": algorithm,
                             "n_workers": n_workers, "throughput": 1e5 * n_workers,
                             "throughput_runs": [1e5 * n_workers, 1.1e5 * n_workers],
                             "latency_us": 50.0, "latency_runs": [50.0, 55.0],
                             "dispatcher_mb": 3.0, "worker_mb": 12.0,
                             "busiest_us_per_tuple": 2.0})  # fmt: skip
    return pd.DataFrame(rows)


def _fabret_sweep() -> pd.DataFrame:
    """Notebook 09's rows: time per 100 events, index size and loading time vs N."""
    rows = []
    for workload in ("W0", "W1op", "W2op"):
        for algorithm in ("counting", "propagation", "dynamic"):
            for n in (1_000, 10_000):
                rows.append({"workload": workload, "algorithm": algorithm, "n": n,
                             "ms_per_100": n / 1e3, "index_mb": n / 1e4, "build_s": n / 1e5})  # fmt: skip
    return pd.DataFrame(rows)


def _fabret_windows() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Notebook 10's saturation windows (Fig. 4) and the ticks' live subscriptions."""
    windows = pd.DataFrame(
        [{"scenario": s, "strategy": st, "window": w, "seed": seed,
          "throughput": 1e3 + 10 * w + seed}
         for s in ("schema", "skew") for st in ("dynamic", "no_change")
         for w in range(4) for seed in range(3)]
    )  # fmt: skip
    ticks = pd.DataFrame({"scenario": ["schema", "skew"], "live": [30_000, 30_000]})
    return windows, ticks


def _adjust_with_periods() -> pd.DataFrame:
    """Notebook 12's frame (test_spatial_adjust_figures) with Fig. 16's period rows."""
    periods = pd.DataFrame(
        [{"level": "period", "scenario": s, "mu": 1_000, "seed": seed, "selector": sel,
          "period": p, "throughput": 1e4 + 100 * p}
         for s in ("flips", "drift") for sel in ("none", "GR")
         for seed in range(2) for p in range(4)]
    )  # fmt: skip
    return pd.concat([adjust_frame(), periods], ignore_index=True)


def _kdt_map() -> go.Figure:
    from routelab.spatial.grid import BaseGrid
    from routelab.spatial.kdt import Node, Partition

    grid = BaseGrid.around(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 4)
    left = Node(0, 0, 2, 4, worker=0)
    text = Node(2, 0, 4, 4, kind="text", children=[Node(2, 0, 4, 4, worker=1),
                                                   Node(2, 0, 4, 4, worker=2)])  # fmt: skip
    part = Partition(Node(0, 0, 4, 4, kind="space", children=[left, text]), 3, "hybrid")
    rng = np.random.default_rng(0)
    return spatial_figures.fig3_4_kdt_map(part, grid, rng.random(50), rng.random(50), "T")


# ------------------------------------------- what each row promises, and what draws it

# builder -> how to draw it from a hand-made frame
BUILD: dict[str, Callable[[], go.Figure]] = {
    "spatial.lab.partitioning.figures.fig3_4_kdt_map": _kdt_map,
    "spatial.lab.partitioning.figures.fig6_baselines": (
        lambda: spatial_figures.fig6_baselines(_spatial_runs())
    ),
    "spatial.lab.partitioning.figures.fig7_throughput": (
        lambda: spatial_figures.fig7_throughput(_spatial_runs())
    ),
    "spatial.lab.partitioning.figures.fig8_latency": (
        lambda: spatial_figures.fig8_latency(_spatial_runs())
    ),
    "spatial.lab.partitioning.figures.fig9_dispatcher_memory": (
        lambda: spatial_figures.fig9_dispatcher_memory(_spatial_runs())
    ),
    "spatial.lab.partitioning.figures.fig10_worker_memory": (
        lambda: spatial_figures.fig10_worker_memory(_spatial_runs())
    ),
    "spatial.lab.partitioning.figures.fig11_scalability": (
        lambda: spatial_figures.fig11_scalability(_spatial_runs())
    ),
    "spatial.lab.adjustment.figures.fig12_selection": (
        lambda: adjust_figures.fig12_selection(adjust_frame(), 1_000)
    ),
    "spatial.lab.adjustment.figures.fig13_15_query_counts": (
        lambda: adjust_figures.fig13_15_query_counts(adjust_frame())
    ),
    "spatial.lab.adjustment.figures.fig16_throughput": (
        lambda: adjust_figures.fig16_throughput(_adjust_with_periods())
    ),
    "filtering.lab.matching.figures.fig3a_matching_time": (
        lambda: fabret_figures.fig3a_matching_time(_fabret_sweep().query("workload == 'W0'"))
    ),
    "filtering.lab.matching.figures.fig3b_operators": (
        lambda: fabret_figures.fig3b_operators(_fabret_sweep())
    ),
    "filtering.lab.matching.figures.fig3c_memory": (
        lambda: fabret_figures.fig3c_memory(_fabret_sweep().query("workload == 'W0'"))
    ),
    "filtering.lab.matching.figures.fig3d_loading_time": (
        lambda: fabret_figures.fig3d_loading_time(_fabret_sweep().query("workload == 'W0'"))
    ),
    "filtering.lab.adaptivity.figures.fig4a_schema_change": (
        lambda: adaptivity_figures.fig4a_schema_change(*_fabret_windows())
    ),
    "filtering.lab.adaptivity.figures.fig4b_value_skew": (
        lambda: adaptivity_figures.fig4b_value_skew(*_fabret_windows())
    ),
}

# (paper, the caption's figure label) -> [(what the caption says, what the figure must
# draw: a pattern over the labels of a trace with finite points)]
PROMISES: dict[tuple[str, str], list[tuple[str, str]]] = {
    ("PS2Stream", "Figs. 3-4"): [
        ("kdt-tree over 4 workers", r"(space leaf|text split): workers? \d"),
        ("on the map", r"longitude.*latitude"),
    ],
    ("PS2Stream", "Fig. 6"): [("throughput", r"tuples/s"), ("baselines", r"^grid\b")],
    ("PS2Stream", "Fig. 7"): [
        ("throughput", r"tuples/s"),
        ("hybrid", r"^hybrid"),
        ("metric", r"^metric"),
        ("kd-tree", r"^kd-tree"),
    ],
    ("PS2Stream", "Fig. 8"): [("latency", r"latency.*microseconds")],
    ("PS2Stream", "Fig. 9"): [("memory of the dispatchers", r"dispatcher memory.*MB")],
    ("PS2Stream", "Fig. 10"): [("memory of the workers", r"worker memory.*MB")],
    ("PS2Stream", "Fig. 11"): [("throughput", r"tuples/s"), ("number of workers", r"workers")],
    ("PS2Stream", "Fig. 12a-c"): [
        ("DP, GR, SI, RA", r"^DP\b|selection time"),
        ("selection time", r"selection time"),
        ("migration cost", r"MB per migration"),
        ("latency", r"latency"),
    ],
    ("PS2Stream", "Fig. 13"): [("time to select", r"selection time"), ("queries", r"queries")],
    ("PS2Stream", "Fig. 14a-b"): [
        ("migration cost", r"MB per migration"),
        ("and time", r"ms per migration"),
    ],
    ("PS2Stream", "Fig. 15"): [
        ("migration cost", r"MB per migration"),
        ("time", r"ms per migration"),
        ("latency", r"latency < b1"),
    ],
    ("PS2Stream", "Fig. 16"): [
        ("throughput", r"tuples per busy second"),
        ("without", r"without adjustment"),
        ("with", r"^with adjustment"),
    ],
    ("Fabret", "Fig. 3a"): [
        ("matching time", r"ms per 100 events"),
        ("subscriptions", r"subscriptions"),
    ],
    ("Fabret", "Fig. 3b"): [
        ("dynamic", r"^dynamic"),
        ("propagation", r"^propagation"),
        ("W1", r"W1op"),
        ("W2", r"W2op"),
        ("operators", r"operators"),
    ],
    ("Fabret", "Fig. 3c"): [("memory", r"index size \(MB\)")],
    ("Fabret", "Fig. 3d"): [("loading time", r"loading time \(s\)")],
    ("Fabret", "Fig. 4a"): [
        ("throughput", r"events per second"),
        ("over time", r"hours"),
        ("schema change", r"schema"),
    ],
    ("Fabret", "Fig. 4b"): [
        ("throughput", r"events per second"),
        ("over time", r"hours"),
        ("skew", r"skew"),
    ],
}

COVERED_PAPERS = ("PS2Stream", "Fabret")


def _figure_rows() -> list[tuple[str, str, str]]:
    """``(paper, caption, builder)`` of the covered papers' figure rows, one per builder."""
    return [
        (row["paper"], row["figure"], name)
        for row in table_rows()
        if row["paper"] in COVERED_PAPERS and figure_numbers(row["figure"])
        for name in builders(row)
    ]


def _label(caption: str) -> str:
    return caption.split(":", 1)[0].strip()


def test_every_covered_row_is_checked():
    rows = _figure_rows()
    no_build = sorted({b for _, _, b in rows} - set(BUILD))
    no_promise = sorted({(p, _label(c)) for p, c, _ in rows} - set(PROMISES))
    assert not no_build and not no_promise, (no_build, no_promise)


@pytest.mark.parametrize(
    ("paper", "caption", "builder"), _figure_rows(), ids=lambda v: str(v).split(":")[0][:30]
)
def test_each_row_s_figure_draws_what_its_caption_names(paper, caption, builder):
    promises = PROMISES[(paper, _label(caption))]
    for said, _ in promises:
        assert said.lower() in caption.lower(), (
            f"the check expects the row to name {said!r}: {caption!r} "
            "(update the row and the check together)"
        )
    fig = BUILD[builder]()
    missing = [said for said, pattern in promises if not draws(fig, pattern)]
    assert not missing, (
        f"{caption!r}: {builder} draws nothing labelled {missing}; it draws "
        f"{[labels for labels, points in drawn(fig) if points]}"
    )


def test_a_dropped_panel_fails():
    """Fig. 14's migration time: without its panel the row's promise is not kept."""
    fig = adjust_figures.fig13_15_query_counts(adjust_frame())
    assert draws(fig, r"ms per migration")
    kept = [t for t in fig.data if t.xaxis != "x3"]
    fig2 = go.Figure(data=kept, layout=fig.layout)
    assert not draws(fig2, r"ms per migration")


def test_an_empty_trace_does_not_count():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[np.nan, np.nan], name="ms per migration"))
    assert not draws(fig, r"ms per migration")
