"""Figures a newcomer could not read: axes stretched far beyond their data,
overlapping tick labels, a legend and a claim stating different numbers, a log axis that
hides a zero, labels piled on each other. Each figure is built from a small hand-made frame
shaped like its experiment's and its plotly objects are checked."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from routelab.filtering.lab.adaptivity import claims as ac
from routelab.filtering.lab.adaptivity import experiments as ad
from routelab.filtering.lab.adaptivity import figures as af
from routelab.plots import labelled_ticks, max_labels, stamp, x_title_depth

RATES = [100, 1_000, 10_000, 100_000, 200_000]


def churn_frame() -> pd.DataFrame:
    """A churn sweep by hand: 3 seeds, dynamic halving between 10^4 and 10^5 changes/s
    at a rate that differs by seed, No Change flatter."""
    rows = []
    for seed, drop in enumerate((0.3, 0.45, 0.2)):
        for rate in RATES:
            for strategy, base in (("dynamic", 50_000.0), ("no_change", 30_000.0)):
                k = RATES.index(rate)
                factor = 1.0 if k < 3 else drop / (k - 2) if strategy == "dynamic" else 0.9
                rows.append({"strategy": strategy, "seed": seed, "rate": rate,
                             "second": 0, "throughput": base * factor})  # fmt: skip
    return pd.DataFrame(rows)


def test_churn_figure_stays_near_its_data_with_few_labels():
    churn = churn_frame()
    fig = af.extra_churn_rate(churn, ad.halving_rates(churn))
    ticks = labelled_ticks(fig)  # what plotly autoranges over: data and annotations
    x = ticks["xaxis"]
    assert min(x) >= min(RATES) / 10 and max(x) <= max(RATES) * 10, x  # not 10^0 .. 10^100
    assert len(x) <= max_labels(fig, "xaxis") and len(x) <= 8, x
    note = next(a for a in fig.layout.annotations if "100/s" in a.text)
    assert note.x == pytest.approx(2.0)  # log10(100): plotly reads annotation x as log10
    line = next(s for s in fig.layout.shapes if s.type == "line")
    assert line.x0 == line.x1 == 100  # a shape's x is a data value
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    stamped = stamp(fig, data="synthetic: test", profile="smoke")
    footer = stamped.layout.annotations[-1]
    assert footer.text.startswith("data: synthetic")
    assert -footer.yshift > x_title_depth(stamped)  # below the x-axis title
    assert stamped.layout.margin.b >= -footer.yshift + 20


def test_a_vline_label_on_a_log_axis_is_moved_onto_its_line_when_stamped():
    import plotly.graph_objects as go

    from routelab.plots import log_axis

    fig = go.Figure(go.Scatter(x=[100, 200_000], y=[5, 6]))
    log_axis(fig, "x")
    fig.add_vline(x=100, annotation_text="the paper's 100/s")  # the old way
    assert len(labelled_ticks(fig)["xaxis"]) > 90  # what a reader saw: 10^0 .. 10^100
    stamp(fig, data="synthetic: test")
    assert fig.layout.annotations[0].x == pytest.approx(2.0)
    assert len(labelled_ticks(fig)["xaxis"]) <= 5


def test_churn_legend_states_the_claims_halving_rate():
    churn = churn_frame()
    halving = ad.halving_rates(churn)
    fig = af.extra_churn_rate(churn, halving)
    legend = {t.name.split(" (")[0]: t.name for t in fig.data}
    summary = ad.typical_halving(halving.loc["dynamic"], max(RATES))
    # the claim's measured text and the legend carry one number, not a median beside a mean
    row = ac.churn_row(churn, max(RATES))
    number = f"{summary.rate:,.0f}"
    assert f"halves at {number}/s" in legend["dynamic"], legend
    assert f"halves at {number} changes/s" in row["measured"], row["measured"]
    median = f"{halving.loc['dynamic'].median():,.0f}"
    assert median != number and median not in legend["dynamic"]
    assert "never halves up to 200,000/s" in legend["No Change"]
    assert summary.seeds == 3 and summary.never == 0
    assert summary.rate == pytest.approx(math.exp(np.log(halving.loc["dynamic"]).mean()))


def test_matches_per_event_on_a_linear_axis_that_shows_a_zero():
    rows = []
    for workload, matches in (("W0", 0.0), ("flights", 6.0), ("flights-3m", 1.0)):
        for algorithm in ("counting", "propagation", "static"):
            for seed in (0, 1):
                rows.append({"workload": workload, "algorithm": algorithm, "seed": seed,
                             "ms_per_100": 5.0 + seed, "checks_per_event": 1e4 if workload == "W0"
                             else 30.0, "matches_per_event": matches})  # fmt: skip
    fig = af.extra_real_data(pd.DataFrame(rows))
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert fig.layout.yaxis3.type in (None, "linear") and fig.layout.yaxis3.rangemode == "tozero"
    bars = [t for t in fig.data if t.yaxis == "y3"]
    assert {float(v) for t in bars for v in t.y} == {0.0, 6.0, 1.0}  # W0's zero is drawn


def compare_frame() -> pd.DataFrame:
    """Notebook 13's grid by hand: every router at N = 8 and 32, several at one point."""
    from routelab.compare.routers import ROUTERS

    rows = []
    for system, routers in ROUTERS.items():
        for k, router in enumerate(routers):
            for n in (2, 8, 32):
                same = system == "key grouping"  # five routers nearly on one point
                rows.append({"system": system, "router": router, "n_workers": n,
                             "imbalance": 1.1 if same else 1.0 + 0.3 * k,
                             "replication": 1.0 if same else 1.0 + 0.5 * k,
                             "throughput_x": float(n) if k < 2 else n / (1 + k)})  # fmt: skip
    return pd.DataFrame(rows)


def test_tradeoff_names_routers_in_the_legend_not_in_piled_labels():
    from routelab.compare.lab import figures as cf
    from routelab.palette import DESIGN_COLOURS

    fig = cf.extra_tradeoff(compare_frame(), (8, 32))
    assert all("text" not in (t.mode or "") for t in fig.data)  # no labels printed on points
    shown = [t for t in fig.data if t.showlegend is not False]
    names = [t.name for t in shown]
    assert len(names) == len(set(names)) == 15
    looks = {(t.marker.color, t.marker.symbol) for t in shown}
    assert len(looks) == 15  # every router told apart by colour and marker
    kg = [t for t in shown if t.name.startswith("key grouping")]
    assert kg and all("workers per key" in t.name for t in kg)
    assert all(t.marker.color == DESIGN_COLOURS["key grouping"] for t in kg)
    assert "copies per tuple; for key grouping, the workers a key lives on" in (
        fig.layout.title.text
    )
    assert {fig.layout.xaxis.title.text, fig.layout.xaxis2.title.text} == {"replication"}
    stamp(fig, data="real: test")
    room = fig.layout.height - fig.layout.margin.b - (fig.layout.margin.t or 100)
    assert room >= 28 * len(shown)  # the legend (11-px markers) fits the PNG's height


def test_perfect_line_is_drawn_on_top_dashed_and_labelled():
    from routelab.compare.lab import figures as cf

    fig = cf.extra_throughput(compare_frame())
    top = fig.data[-1]  # drawn last: above the routers that lie on it
    assert top.name == "N (perfect)" and top.line.dash == "dash" and top.line.width >= 2
    assert list(top.x) == list(top.y) == [2, 8, 32]
    label = [a for a in fig.layout.annotations if a.text == "N (perfect)"]
    assert label and label[0].x == pytest.approx(math.log10(32))  # log axes: log10 position
    stamp(fig, data="real: test")
    room = fig.layout.height - fig.layout.margin.b - (fig.layout.margin.t or 100)
    assert room >= 19 * len(fig.data)


def test_drift_panels_titles_fit_their_panels():
    from routelab.compare.lab import figures as cf
    from routelab.compare.routers import SYSTEMS

    drift = pd.DataFrame([{"system": s, "window": w, "static": 1.0 + w / 10, "adapted": 1.1}
                          for s in SYSTEMS for w in range(3, 12)])  # fmt: skip
    fig = cf.extra_drift(drift)
    legend = 40 + 7 * max(len(t.name) for t in fig.data)  # the legend right of the panels
    width = (fig.layout.width or 900) - 160 - legend
    titles = [fig.layout[f"xaxis{i}"] for i in ("", "2", "3", "4")]
    for axis in titles:
        text = axis.title.text or ""
        panel = width * (axis.domain[1] - axis.domain[0])
        assert len(text) * 8 < panel, (text, panel)  # no title runs into its neighbour's
    subplot_titles = [a.text for a in fig.layout.annotations]
    assert subplot_titles == list(SYSTEMS)


def test_no_log_axis_keeps_plotlys_bare_minor_digits():
    """An axis over three and a half decades, left to plotly, labels "2" and "5" between
    the decades; once stamped it labels decades only (or 1-2-5 ticks named in full)."""
    from routelab.compare.lab import figures as cf

    fig = cf.extra_throughput(compare_frame().assign(throughput_x=lambda f: f["n_workers"] * 80))
    fig.update_layout(xaxis={"range": None})
    for key in ("xaxis", "yaxis"):
        assert fig.layout[key].type == "log" and fig.layout[key].dtick is None  # plotly's own
    stamp(fig, data="real: test")
    for key in ("xaxis", "yaxis"):
        axis = fig.layout[key]
        if axis.tickvals is None:
            assert axis.dtick == 1, key
        else:  # every label is the tick's whole value: "2" means 2, "5k" 5,000
            scale = {"k": 1e3, "M": 1e6, "G": 1e9}
            for value, text in zip(axis.tickvals, axis.ticktext, strict=True):
                read = float(text[:-1]) * scale[text[-1]] if text[-1] in scale else float(text)
                assert read == pytest.approx(value), (text, value)
    assert fig.layout.yaxis.dtick == 1 and len(labelled_ticks(fig)["yaxis"]) >= 3
