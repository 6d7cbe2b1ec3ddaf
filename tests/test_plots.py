"""Figure conventions shared by every notebook."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from routelab.plots import (
    FOOTER_SHIFT_PX,
    METHOD_COLOURS,
    color_for,
    figure_bundle,
    log_axis,
    log_ticks,
    ratio_axis,
    stamp,
)


def test_methods_compared_together_have_distinct_colours():
    for group in (
        ["hash", "hash+split", "SALB", "gC", "gFC", "gFCL", "gNFCL"],
        ["KG", "SG", "PKG", "PoTC", "On-Greedy", "Off-Greedy", "D-C", "W-C", "FISH"],
        ["counting", "propagation", "propagation_wp", "static", "oracle"],
        ["grid", "kd-tree", "R-tree", "frequency", "hypergraph", "metric", "hybrid"],
    ):
        colours = [color_for(m) for m in group]
        assert len(set(colours)) == len(group), group


def test_unknown_names_take_their_palette_position_or_fail_clearly():
    assert color_for("b", ["a", "b"]) != color_for("a", ["a", "b"])
    with pytest.raises(ValueError, match="METHOD_COLOURS"):
        color_for("nobody")
    assert color_for("SALB", ["x"]) == METHOD_COLOURS["SALB"]


def test_log_axis_labels_every_decade():
    fig = go.Figure(go.Scatter(x=[1, 10, 1000], y=[2, 20, 200]))
    log_axis(fig, "x")
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.dtick == 1
    ratio_axis(fig, "y")
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.shapes[0].y0 == 1 and fig.layout.shapes[0].y1 == 1


def test_footer_sits_a_fixed_distance_below_the_plot_at_any_height():
    fig = stamp(go.Figure(), data="synthetic: test", profile="smoke")
    note = fig.layout.annotations[-1]
    assert note.y == 0 and note.yshift == FOOTER_SHIFT_PX and note.yanchor == "top"
    assert "data: synthetic: test" in note.text and "profile: smoke" in note.text
    assert "<br>" not in note.text and fig.layout.margin.b == 100


def test_a_long_footer_wraps_to_the_figure_width_instead_of_being_cut():
    data = "real: " + ", ".join(f"dataset number {i}" for i in range(20))  # ~350 characters
    fig = stamp(go.Figure(layout={"width": 900}), data=data, profile="default")
    lines = fig.layout.annotations[-1].text.split("<br>")
    assert len(lines) >= 3 and all(len(line) <= (900 - 80) / 6 for line in lines)
    assert " ".join(lines).startswith("data: real: dataset number 0, ")
    assert fig.layout.annotations[-1].align == "left"
    assert fig.layout.margin.b == 100 + (len(lines) - 1) * 13  # room for the extra lines


def test_figure_bundle_embeds_plotlyjs_once():
    import routelab.plots as plots

    plots._plotlyjs_sent = False
    first = figure_bundle(go.Figure())
    second = figure_bundle(go.Figure())
    assert len(first["text/html"]) > 1_000_000 > len(second["text/html"])
    assert first["application/vnd.plotly.v1+json"]["data"] == []


def test_log_ticks_label_every_tick_in_full():
    """1-2-5 ticks with SI labels (Fig. 7's lookups)."""
    ticks = log_ticks([60_000, 450_000])
    assert ticks["tickvals"] == [50_000, 100_000, 200_000, 500_000, 1_000_000]
    assert ticks["ticktext"] == ["50k", "100k", "200k", "500k", "1M"]
    assert log_ticks([0.0, float("nan")]) == {}


def test_log_ticks_label_steps_or_decades():
    """Fig. 5/6's reading: fine steps within a decade, 1-2-5 over two, decades beyond."""

    def vals(values):
        ticks = log_ticks(values, margin=1.15, max_decades=2.5, fine=True, si=False)
        return ticks["tickvals"] if ticks else None

    assert vals([1.0, 3.2]) == [1, 1.5, 2, 3]  # half a decade: 1-1.5-2-3-5-7 steps
    assert vals([1.0, 30.0]) == [1, 2, 5, 10, 20]  # 1.5 decades: 1-2-5 steps
    assert vals([0.01, 10.0]) is None  # 3 decades: plotly's labelled decades
    assert vals([]) is None


def test_saved_html_loads_one_shared_plotlyjs(tmp_path, monkeypatch):
    """Figures stay small: each HTML loads the one plotly.js copy beside the figures
    (relative path, so the folder opens offline anywhere) instead of embedding 4.8 MB."""
    import plotly
    import plotly.graph_objects as go

    from routelab.plots import save_figure

    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path))
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    (a,) = save_figure(fig, "01_x", "one", formats=("html",))
    (b,) = save_figure(fig, "02_y", "two", formats=("html",))
    js = tmp_path / f"plotly-{plotly.__version__}.min.js"
    assert js.stat().st_size > 1_000_000  # the library itself, once
    for page in (a, b):
        text = page.read_text()
        assert len(text) < 200_000, len(text)
        assert f'src="../{js.name}"' in text
        assert (page.parent / ".." / js.name).resolve() == js.resolve()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [js.name]


def test_every_method_of_a_system_has_its_own_colour():
    """One palette: within each system every method (by name and by label) has a colour of
    its own, and a name and its label share it."""
    from routelab.filtering.matchers import MATCHERS
    from routelab.grouping.schemes import SCHEMES
    from routelab.palette import METHOD_COLOURS, dash_for
    from routelab.s3tm.mappings import MAPPINGS
    from routelab.spatial.engine import PARTITIONERS
    from routelab.spatial.migration import SELECTORS

    for registry in (MAPPINGS, SCHEMES, MATCHERS, PARTITIONERS, SELECTORS):
        colours = {name: METHOD_COLOURS[name] for name in registry}
        assert len(set(colours.values())) == len(colours), colours
        for m in registry.values():
            assert METHOD_COLOURS[m.label] == colours[m.name], m.label
    # the examples a reader reported: R-tree vs metric (PS2Stream Fig. 6), and prefetching
    # drawn over propagation (Fabret Fig. 3(c)) stays visible by its dash
    assert METHOD_COLOURS["r-tree"] != METHOD_COLOURS["metric"]
    assert dash_for("propagation_wp") != dash_for("propagation")


def test_every_log_axis_labels_at_least_three_ticks():
    """A log axis over less than a decade (Fabret Fig. 3(b): only "1" on y) gets 1-2-5 or
    finer ticks; one spanning many decades keeps its decades; a set range counts, not the
    data; explicit tickvals are left alone."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from routelab.plots import label_log_axes, labelled_ticks, log_axis

    fig = make_subplots(rows=1, cols=3)
    fig.add_trace(go.Scatter(x=[1e6, 2e6], y=[0.8, 1.7]), row=1, col=1)  # < 1 decade on both
    fig.add_trace(go.Scatter(x=[1, 1e5], y=[3e3, 3e3]), row=1, col=2)  # one value on y
    fig.add_trace(go.Scatter(x=[1, 2], y=[1, 1e6]), row=1, col=3)
    log_axis(fig, "x")
    log_axis(fig, "y")
    before = labelled_ticks(fig)
    assert len(before["yaxis"]) < 3 and len(before["xaxis"]) < 3  # what a reader saw
    label_log_axes(fig)
    after = labelled_ticks(fig)
    assert set(after) == {f"{a}axis{s}" for a in "xy" for s in ("", "2", "3")}
    assert all(len(t) >= 3 for t in after.values()), after
    assert fig.layout.yaxis3.tickvals is None  # six decades: the decades stay
    assert fig.layout.xaxis.ticktext == ("1M", "1.5M", "2M")  # read in full
    chosen = go.Figure(go.Scatter(x=[50], y=[1]))  # a builder's own ticks (workers 5, 50)
    log_axis(chosen, "x", tickvals=[5, 50], ticktext=["W=5", "W=50"])
    label_log_axes(chosen)
    assert len(labelled_ticks(chosen)["xaxis"]) >= 3 and "W=50" in chosen.layout.xaxis.ticktext
    ranged = go.Figure(go.Scatter(x=[1, 2], y=[5, 6]))
    log_axis(ranged, "y", range=[0, 3])  # 1 to 1000 drawn: four decades labelled
    assert len(labelled_ticks(label_log_axes(ranged))["yaxis"]) == 4
    assert ranged.layout.yaxis.tickvals is None


def test_tables_show_numbers_as_a_reader_expects():
    import numpy as np
    import pandas as pd

    from routelab.report import number_text, tidy

    assert number_text(11_304_040.2) == "11,304,040"  # not 1.130404e+07
    assert number_text(12.0) == "12" and number_text(745.0) == "745"  # not 12.00, 745.0
    assert number_text(float("nan")) == "–" and number_text(None) == "–"  # not nan
    assert number_text(0.042522) == "0.0425" and number_text(1.143) == "1.14"
    frame = pd.DataFrame(
        {
            "points": [12, 3],
            "ratio": [1.143, np.nan],
            "throughput": [1.13e7, 2.5e4],
            "p1": [0.0119, 0.5],
        }
    )
    html = tidy(frame, percent=["p1"]).to_html()
    for text in ("12", "1.14", "–", "11,300,000", "25,000", "1.2%", "50.0%"):
        assert f">{text}<" in html, text
    assert "e+07" not in html and "12.00" not in html and "nan" not in html
