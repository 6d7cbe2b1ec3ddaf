"""Figure style and saving: every figure as HTML (loading one shared plotly.js), PNG and SVG.

Static export goes through kaleido, which drives the Chromium that ``make setup``
installs. The kaleido server is started once per process (one per notebook kernel in a
batch) on the first static export and reused. Each saved figure carries a footer naming
its data (real / semi-synthetic / synthetic), the profile and the code version
(every figure says what it shows and where its numbers come from).
"""

from __future__ import annotations

import atexit
import json
import math
import os
import textwrap
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from routelab.errors import RoutelabError
from routelab.palette import METHOD_COLOURS, PALETTE, color_for, dash_for  # noqa: F401 (re-exported)
from routelab.paths import figures_dir, git_commit

FORMATS = ("html", "png", "svg")
_kaleido_started = False


def _template() -> go.layout.Template:
    template = go.layout.Template(pio.templates["simple_white"])
    template.layout.colorway = PALETTE
    template.layout.font = {"family": "DejaVu Sans, Arial, sans-serif", "size": 13}
    template.layout.xaxis.showgrid = True
    template.layout.yaxis.showgrid = True
    template.layout.xaxis.gridcolor = "#e5e5e5"
    template.layout.yaxis.gridcolor = "#e5e5e5"
    template.layout.legend = {"bgcolor": "rgba(255,255,255,0.7)"}
    # simple_white draws shapes with zero-width lines: reference lines (add_hline) would
    # vanish; rectangles keep their translucent fill
    template.layout.shapedefaults = {
        "fillcolor": "black",
        "opacity": 0.3,
        "line": {"width": 1.5, "color": "#444"},
    }
    return template


pio.templates["routelab"] = _template()
pio.templates.default = "routelab"


def log_axis(fig: go.Figure, axis: str = "y", **kwargs: Any) -> go.Figure:
    """A log axis labelled at every decade (1, 10, 100, ... or 10^k), never the bare
    minor labels ("2 5") plotly puts between decades. ``axis`` is "x" or "y"; further
    keyword arguments go to the axis (e.g. ``title_text``). Applies to every subplot."""
    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    update(type="log", dtick=1, exponentformat="power", minor={"showgrid": True}, **kwargs)
    return fig


def _axis_key(ref: str) -> str:
    """Layout key of an axis reference: "x" -> "xaxis", "y2" -> "yaxis2" ("" if ``ref`` is
    "paper" or a domain reference)."""
    if not ref or ref == "paper" or ref.endswith("domain"):
        return ""
    return f"{ref[0]}axis{ref[1:]}"


def reference_line(
    fig: go.Figure, value: float, axis: str = "x", text: str = "", **line: Any
) -> go.Figure:
    """A dotted reference line at data value ``value`` across the plot (``axis`` "x": a
    vertical line; "y": horizontal), labelled ``text``, placed right on a log axis too.

    Plotly reads a shape's position on a log axis as a data value but an annotation's as
    its log10: ``add_vline(x=100, annotation_text=...)`` on a log x axis draws the line at
    100 and its label at 10^100, stretching the axis to a hundred decades. Set the axis
    type before calling this."""
    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    style = {"dash": "dot", "color": "grey", **line}
    log = fig.layout[f"{axis}axis"].type == "log"
    at = math.log10(value) if log else value
    if axis == "x":
        fig.add_shape(type="line", xref="x", yref="y domain", x0=value, x1=value, y0=0, y1=1,
                      line=style)  # fmt: skip
        if text:
            fig.add_annotation(x=at, xref="x", y=1, yref="y domain", text=text,
                               showarrow=False, xanchor="left", yanchor="top")  # fmt: skip
    else:
        fig.add_shape(type="line", yref="y", xref="x domain", y0=value, y1=value, x0=0, x1=1,
                      line=style)  # fmt: skip
        if text:
            fig.add_annotation(y=at, yref="y", x=1, xref="x domain", text=text,
                               showarrow=False, xanchor="right", yanchor="bottom")  # fmt: skip
    return fig


def place_line_labels(fig: go.Figure) -> go.Figure:
    """Move each label that ``add_vline`` / ``add_hline`` put at its line's data value on a
    log axis to that value's log10 (where plotly reads an annotation there), so it sits on
    its line instead of decades beyond the data (see :func:`reference_line`)."""
    for note in fig.layout.annotations:
        for letter in ("x", "y"):
            ref = note[f"{letter}ref"] or letter
            key = _axis_key(ref)
            if not key or fig.layout[key].type != "log" or note[letter] is None:
                continue
            value = note[letter]
            on_line = any(
                shape.type == "line"
                and (shape[f"{letter}ref"] or letter) == ref
                and shape[f"{letter}0"] == value == shape[f"{letter}1"]
                for shape in fig.layout.shapes
            )
            if on_line and isinstance(value, int | float) and value > 0:
                note[letter] = math.log10(value)
    return fig


def si_label(v: float) -> str:
    """A tick label in full with an SI suffix: 500, 50k, 2M, 1G."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:g}{suffix}"
    return f"{v:g}"


def log_ticks(
    values: Sequence[float] | Any,
    *,
    margin: float = 2.5,
    max_decades: float | None = None,
    fine: bool = False,
    si: bool = True,
) -> dict[str, Any]:
    """Labelled tick values for a log axis over ``values``, as keyword arguments of
    :func:`log_axis` (``tickmode``, ``tickvals``, ``ticktext``): for data spanning less than
    a decade or two, where the decade labels alone would leave one tick.

    Ticks are 1, 2, 5 x 10^k (``fine``: 1, 1.5, 2, 3, 5, 7 x 10^k when the data span at most
    one decade) from min / ``margin`` to max * ``margin`` of the finite positive values,
    labelled with :func:`si_label` (50k, 100k) or ``%g`` (``si=False``). Returns ``{}``
    (the decades of :func:`log_axis`) when there is no such value, when the data span more
    than ``max_decades`` decades, or when fewer than two ticks fall in the range.
    """
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x) & (x > 0)]
    if len(x) == 0:
        return {}
    lo, hi = float(x.min()), float(x.max())
    span = math.log10(hi / lo)
    if max_decades is not None and span > max_decades:
        return {}
    steps = (1, 1.5, 2, 3, 5, 7) if fine and span <= 1 else (1, 2, 5)
    first, last = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    ticks = [m * 10.0**e for e in range(first, last + 1) for m in steps]
    inside = [t for t in ticks if lo / margin <= t <= hi * margin]
    if len(inside) < 2:
        return {}
    label = si_label if si else (lambda v: f"{v:g}")
    return {"tickmode": "array", "tickvals": inside, "ticktext": [label(t) for t in inside]}


def _axis_values(fig: go.Figure, key: str) -> list[float]:
    """The finite positive numbers the traces bound to layout axis ``key`` (``yaxis2``)
    draw on it (log axes show only those)."""
    import numpy as np

    letter, suffix = key[0], key[5:]
    ref = letter + suffix  # "y2" (plotly's trace.yaxis), "y" for the first axis
    found: list[float] = []
    for trace in fig.data:
        if (getattr(trace, f"{letter}axis", None) or letter) != ref:
            continue
        values = getattr(trace, letter, None)
        if values is None:
            continue
        try:
            arr = np.asarray(values, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            continue  # categories, dates: not a log axis' data
        found += arr[np.isfinite(arr) & (arr > 0)].tolist()
    return found


def _annotation_values(fig: go.Figure, key: str) -> list[float]:
    """Where the annotations placed on log axis ``key`` sit, as data values (plotly reads
    an annotation's position there as log10, and autoranges the axis over it)."""
    letter, ref = key[0], key[0] + key[5:]
    found = []
    for note in fig.layout.annotations:
        value = note[letter]
        # beyond 10^±300 no float can hold the position
        ours = (note[f"{letter}ref"] or letter) == ref
        if ours and isinstance(value, int | float) and abs(value) < 300:
            found.append(10.0 ** float(value))
    return found


def _log_extent(fig: go.Figure, key: str) -> tuple[float, float] | None:
    """The range log axis ``key`` draws: its set range, else what plotly autoranges over
    (the data and the annotations placed on it)."""
    axis = fig.layout[key]
    if axis.range is not None and None not in tuple(axis.range):
        lo, hi = sorted(10.0 ** float(r) for r in axis.range)
        return lo, hi
    values = _axis_values(fig, key)
    if not values:
        return None
    values += _annotation_values(fig, key)
    lo, hi = min(values), max(values)
    if hi <= lo * 1.0001:  # one value: plotly pads the axis around it
        lo, hi = lo / 1.5, hi * 1.5
    return lo, hi


def _log_axis_keys(fig: go.Figure) -> list[str]:
    return [
        k
        for k in fig.layout.to_plotly_json()
        if k.startswith(("xaxis", "yaxis")) and fig.layout[k].type == "log"
    ]


def _labelled(fig: go.Figure, key: str) -> list[float] | None:
    """The ticks log axis ``key`` labels within its data or set range (``None``: no data)."""
    extent = _log_extent(fig, key)
    if extent is None:
        return None
    lo, hi = extent
    axis = fig.layout[key]
    if axis.tickvals is not None:
        ticks = [float(t) for t in axis.tickvals]
    else:
        first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        every = int(axis.dtick) if isinstance(axis.dtick, int | float) and axis.dtick > 1 else 1
        ticks = [10.0**k for k in range(first, last + 1) if k % every == 0]
    # a tick within the drawn range: plotly pads the data range by a few percent
    return [t for t in ticks if lo / 1.3 <= t <= hi * 1.3]


def labelled_ticks(fig: go.Figure) -> dict[str, list[float]]:
    """Per log axis (``yaxis``, ``xaxis2``, ...), the tick values it labels within its data
    (or set range): the given ``tickvals``, else the decades."""
    found = {key: _labelled(fig, key) for key in _log_axis_keys(fig)}
    return {key: ticks for key, ticks in found.items() if ticks is not None}


def _ticks_between(lo: float, hi: float) -> list[float]:
    """At least three readable ticks from about ``lo`` to ``hi``: :func:`log_ticks`'s 1-2-5
    steps, else its finer ones, else four values spread evenly in log space (two
    significant digits)."""
    for fine in (False, True):
        ticks = log_ticks([lo, hi], margin=1.05, fine=fine).get("tickvals", [])
        if len(ticks) >= 3:
            return ticks
    a, b = math.log10(lo), math.log10(hi)
    return sorted({float(f"{10 ** (a + (b - a) * i / 3):.2g}") for i in range(4)})


LABEL_PX = {"x": 60, "y": 24}  # room one tick label needs along an x / a y axis


def max_labels(fig: go.Figure, key: str) -> int:
    """How many tick labels axis ``key`` holds without overlapping: its length in pixels
    (the figure's size less the margins, times the axis' domain) over :data:`LABEL_PX`."""
    axis = fig.layout[key]
    margin = fig.layout.margin
    if key[0] == "x":
        size = (fig.layout.width or 900) - (margin.l or 80) - (margin.r or 80)
    else:
        size = (fig.layout.height or 450) - (margin.t or 100) - (margin.b or 80)
    lo, hi = tuple(axis.domain or (0, 1))
    return max(2, int(size * (hi - lo) / LABEL_PX[key[0]]))


def _decades_readable(fig: go.Figure, key: str) -> None:
    """An axis labelled by plotly's own log ticks (no ``tickvals``) is labelled at decades
    only, never by plotly's bare in-between digits ("2", "5", which do not say their
    decade), and at every k-th decade when there are more decades than labels fit."""
    axis = fig.layout[key]
    if axis.tickvals is not None or axis.tickmode == "array":
        return
    if axis.dtick is None or (isinstance(axis.dtick, str) and axis.dtick.startswith("D")):
        axis.update(dtick=1, exponentformat=axis.exponentformat or "power")
    ticks = _labelled(fig, key) or []
    step = math.ceil(len(ticks) / max_labels(fig, key))
    if isinstance(axis.dtick, int | float) and step > axis.dtick:
        axis.update(dtick=step)


def label_log_axes(fig: go.Figure) -> go.Figure:
    """Make every log axis readable: at least three labelled ticks within its data, each
    naming its decade, never more than fit (:func:`max_labels`).

    An axis whose decades label fewer than three (data spanning a decade or less) gets
    1-2-5 ticks, or finer ones, labelled in full (50k, 200k). An axis with explicit
    ``tickvals`` keeps them (and their labels) and gets the readable ticks around them
    added when too few fall in its data. Any other axis is labelled at its decades
    (every k-th when they are too many), never by plotly's minor digits ("2", "5"). Labels
    ``add_vline`` put on a log axis are moved onto their lines first
    (:func:`place_line_labels`)."""
    place_line_labels(fig)
    for key in _log_axis_keys(fig):
        ticks_now = _labelled(fig, key)
        if ticks_now is None:
            continue
        if len(ticks_now) >= 3:
            _decades_readable(fig, key)
            continue
        axis = fig.layout[key]
        labels = {float(t): si_label(t) for t in _ticks_between(*_log_extent(fig, key))}
        if axis.tickvals is not None:
            given = list(axis.ticktext or [si_label(float(t)) for t in axis.tickvals])
            labels.update({float(t): str(x) for t, x in zip(axis.tickvals, given, strict=False)})
        ticks = sorted(labels)
        axis.update(tickmode="array", tickvals=ticks, ticktext=[labels[t] for t in ticks])
    return fig


def ratio_axis(fig: go.Figure, axis: str = "y", **kwargs: Any) -> go.Figure:
    """A ratio axis drawn as lines/points around a reference line at 1 (no bars on a log
    axis: a bar's length there means nothing)."""
    log_axis(fig, axis, **kwargs)
    if axis == "y":
        fig.add_hline(y=1, line_dash="dot", line_color="#666")
    else:
        fig.add_vline(x=1, line_dash="dot", line_color="#666")
    return fig


FOOTER_SHIFT_PX = -72  # below the plot area, under the x-axis title, at any figure height
FOOTER_CHAR_PX = 6.0  # width of one 10-px footer character (DejaVu Sans, a little generous)
FOOTER_LINE_PX = 13


def x_title_depth(fig: go.Figure) -> float:
    """About how far (pixels) below the plot area the bottom x axis' title ends: tick
    length, tick labels (taller with 10^k exponents, a word's length when plotly turns
    labels that do not fit on their side), the title's standoff and its lines."""
    axis = fig.layout.xaxis
    font = float(fig.layout.font.size or 13)
    labels = font * 1.3
    if axis.type == "log":
        ticks = labelled_ticks(fig).get("xaxis") or []
        if axis.exponentformat == "power":
            labels = font * 1.7
        if len(ticks) > max_labels(fig, "xaxis"):  # plotly turns crowded labels on their side
            labels = font * 0.6 * max(len(si_label(t)) for t in ticks) + font
    title = axis.title.text or ""
    lines = title.count("<br>") + 1 if title else 0
    return 5 + labels + float(axis.title.standoff or 15) + lines * font * 1.25


def stamp(fig: go.Figure, data: str, profile: str | None = None) -> go.Figure:
    """Add the provenance footer: data kind and source, profile, code version.

    The footer sits a fixed number of pixels below the plot area (not a fraction of the
    figure's height), and further when the x axis' labels and title reach deeper
    (:func:`x_title_depth`), so it never overlaps the x-axis title, whatever size the figure
    is shown at (notebook, HTML, PNG).
    """
    label_log_axes(fig)
    shift = min(FOOTER_SHIFT_PX, -round(x_title_depth(fig) + 12))
    parts = [f"data: {data}"]
    if profile:
        parts.append(f"profile: {profile}")
    parts.append(f"routelab {git_commit()}")
    # wrapped to the figure's width (the static export's, else 900 px) so it is never cut
    # off at the right edge; each extra line moves the bottom margin down
    width = (fig.layout.width or 900) - (fig.layout.margin.l or 80)
    lines = textwrap.wrap(" · ".join(parts), width=max(40, int(width / FOOTER_CHAR_PX)))
    fig.add_annotation(
        text="<br>".join(lines),
        xref="paper",
        yref="paper",
        x=0,
        y=0,
        yshift=shift,
        xanchor="left",
        yanchor="top",
        align="left",  # a wrapped footer's lines start under each other
        showarrow=False,
        font={"size": 10, "color": "#666"},
    )
    bottom = max(fig.layout.margin.b or 0, 100, 28 - shift) + FOOTER_LINE_PX * (len(lines) - 1)
    fig.update_layout(margin={"b": bottom})
    return fig


_plotlyjs_sent = False


def figure_bundle(fig: go.Figure) -> dict[str, Any]:
    """A display bundle that renders everywhere, offline: plotly's own mimetype (JupyterLab
    draws it interactively with the bundled extension) and self-contained HTML for
    ``nbconvert --to html`` and other viewers. plotly.js is embedded once per kernel (in
    the first figure's HTML); later figures use it."""
    global _plotlyjs_sent
    html = fig.to_html(include_plotlyjs=not _plotlyjs_sent, full_html=False)
    _plotlyjs_sent = True
    return {
        "application/vnd.plotly.v1+json": json.loads(fig.to_json()),
        "text/html": html,
        "text/plain": f"<plotly figure: {fig.layout.title.text or 'untitled'}>",
    }


def show_figure(fig: go.Figure) -> None:
    """Display ``fig`` once, renderable in Lab and in exported HTML (see
    :func:`figure_bundle`)."""
    from IPython.display import display

    display(figure_bundle(fig), raw=True)


def _ensure_kaleido() -> None:
    global _kaleido_started
    if _kaleido_started:
        return
    try:
        import kaleido

        kaleido.start_sync_server(silence_warnings=True)
    except Exception as exc:  # pragma: no cover - depends on the machine
        raise RoutelabError(
            f"cannot start kaleido for PNG/SVG export ({exc}); run `make setup` (it installs "
            "Chromium) or set ROUTELAB_STATIC_FIGURES=0 to write HTML only"
        ) from exc
    _kaleido_started = True
    atexit.register(_stop_kaleido)


def _stop_kaleido() -> None:
    global _kaleido_started
    if _kaleido_started:
        import kaleido

        kaleido.stop_sync_server(silence_warnings=True)
        _kaleido_started = False


def static_enabled() -> bool:
    """PNG/SVG export is on unless ``ROUTELAB_STATIC_FIGURES=0``."""
    return os.environ.get("ROUTELAB_STATIC_FIGURES", "1") != "0"


def shared_plotlyjs(root: Path) -> Path:
    """The one copy of plotly.js the saved figures load (``root/plotly-<version>.min.js``),
    written on first use; the version in the name keeps an old copy from serving a newer
    plotly's figures."""
    import plotly
    from plotly.offline import get_plotlyjs

    path = root / f"plotly-{plotly.__version__}.min.js"
    if not path.exists() or path.stat().st_size == 0:
        root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(get_plotlyjs(), encoding="utf-8")
        tmp.replace(path)  # atomic: two notebooks saving at once never see half a file
    return path


def save_figure(
    fig: go.Figure,
    notebook: str,
    name: str,
    *,
    formats: Sequence[str] = FORMATS,
    width: int | None = None,
    height: int | None = None,
) -> list[Path]:
    """Write ``figures/<notebook>/<name>.{html,png,svg}`` and return the paths.

    The HTML opens offline: it loads plotly.js from one shared copy beside the figures
    (``figures/plotly-<version>.min.js``, :func:`shared_plotlyjs`) instead of embedding its
    4.8 MB in every file. Static images use ``width``/``height``, else the figure's own
    layout size, else 900 x 560.
    """
    width = width or fig.layout.width or 900
    height = height or fig.layout.height or 560
    out_dir = figures_dir() / notebook
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for fmt in formats:
        path = out_dir / f"{name}.{fmt}"
        if fmt == "html":
            js = shared_plotlyjs(out_dir.parent)
            fig.write_html(path, include_plotlyjs=f"../{js.name}", full_html=True)
        elif fmt in ("png", "svg"):
            if not static_enabled():
                continue
            _ensure_kaleido()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fig.write_image(
                    path, format=fmt, width=width, height=height, scale=2 if fmt == "png" else 1
                )
        else:
            raise ValueError(f"unknown figure format {fmt!r}; use html, png or svg")
        written.append(path)
    return written


def figure_html(fig: go.Figure, width: int | None = None, height: int | None = None) -> str:
    """The figure as inline SVG markup (no JavaScript), for HTML widgets."""
    if not static_enabled():
        return "<i>static figures are off (ROUTELAB_STATIC_FIGURES=0)</i>"
    _ensure_kaleido()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svg = fig.to_image(
            format="svg",
            width=width or fig.layout.width or 800,
            height=height or fig.layout.height or 420,
        )
    return svg.decode("utf-8")


class _WidgetWithFallback:
    """An ipywidgets view whose display bundle also carries the default view as HTML, so an
    executed notebook shows it where no widget state is saved (nbconvert HTML, GitHub)."""

    def __init__(self, widget: Any, panel: Any, controls: dict[str, Any]) -> None:
        self.widget = widget
        self.panel = panel
        self.controls = controls

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        settings = ", ".join(f"{k} = {c.value!r}" for k, c in self.controls.items())
        bundle["text/html"] = (
            f"<div><p><i>Default view ({settings}); run the notebook to move the "
            f"controls.</i></p>{self.panel.value}</div>"
        )
        return bundle


def widget_view(render: Callable[..., str], **controls: Any) -> Any:
    """Controls above an HTML panel showing ``render(**control values)`` (an HTML string).

    The panel is a plain ``ipywidgets.HTML`` updated by ``observe`` callbacks: nothing is
    captured into an ``Output`` widget, which can hang a headless kernel (ipykernel 7 under
    papermill). Displayed, it also carries its default view as static HTML, so the
    executed notebook shows it offline in exported HTML. Use :func:`figure_html` to render
    a plotly figure and ``DataFrame.to_html`` for tables.
    """
    import ipywidgets as widgets

    panel = widgets.HTML(render(**{name: c.value for name, c in controls.items()}))

    def redraw(_: Any = None) -> None:
        panel.value = render(**{name: c.value for name, c in controls.items()})

    for control in controls.values():
        control.observe(redraw, names="value")
    box = widgets.VBox([widgets.HBox(list(controls.values())), panel])
    return _WidgetWithFallback(box, panel, dict(controls))
