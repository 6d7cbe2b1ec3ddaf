"""Every notebook runs under papermill with the smoke profile and reports its claims.

Each notebook is executed by the real figure runner (:func:`routelab.runs.run_notebooks`)
into temporary figure and run directories; the test then checks what the runner promises:
the executed notebook, a results.json with a non-empty claims table of the agreed shape,
and every recorded figure as HTML, PNG and SVG.
"""

from __future__ import annotations

import json
import os
import re

import nbformat
import pytest

from routelab.claims import KINDS, MIN_REPEATS, VERDICTS
from routelab.errors import BadInputError
from routelab.paths import notebooks_dir
from routelab.report import CLAIM_KEYS

NOTEBOOKS = sorted(p.stem for p in notebooks_dir().glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_committed_clean(name):
    nb = nbformat.read(notebooks_dir() / f"{name}.ipynb", as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged 'parameters'"
    assert "profile" in tagged[0].source
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, "commit without outputs"
    assert "claims" in nb.cells[-1].source.lower() or "finish" in nb.cells[-1].source


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_figure_is_read_for_the_student(name):
    """Each cell that records a figure is followed by a "Reading
    this figure" note (after, at most, one cell displaying a note built from the run's
    numbers, ``Markdown(...)``), and the notebook has a worked example small enough to
    check by hand."""
    nb = nbformat.read(notebooks_dir() / f"{name}.ipynb", as_version=4)
    cells = nb.cells

    def reading(i: int) -> bool:
        if i < len(cells) and cells[i].cell_type == "code" and "Markdown(" in cells[i].source:
            i += 1  # the run's note, then the static reading
        return (
            i < len(cells)
            and cells[i].cell_type == "markdown"
            and ("**Reading th" in cells[i].source)
        )

    unread = [
        i
        for i, cell in enumerate(cells)
        if cell.cell_type == "code" and "report.figure(" in cell.source and not reading(i + 1)
    ]
    assert not unread, f"figure cells without a reading note after them: {unread}"
    headings = [c.source for c in cells if c.cell_type == "markdown"]
    assert any("worked example" in h.lower() for h in headings), "no worked example"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_papermill_reads_every_parameter(name):
    """papermill (``--help-notebook``, the runner's overrides) sees each assignment of the
    parameters cell; a second ``=`` on a line (say, in a comment) hides it."""
    from papermill.translators import PythonTranslator

    nb = nbformat.read(notebooks_dir() / f"{name}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assigned = [
        line.split("=", 1)[0].strip()
        for line in cell.source.splitlines()
        if line[:1].isidentifier() and "=" in line
    ]
    seen = [p.name for p in PythonTranslator.inspect(cell)]
    assert seen == assigned


@pytest.mark.notebook
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_smoke_run(name, tmp_path, monkeypatch):
    from routelab.runs import run_notebooks

    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path / "figures"))
    monkeypatch.setenv("ROUTELAB_RUNS_DIR", str(tmp_path / "runs"))
    log = run_notebooks("smoke", [name], progress=False, timeout=600)  # per cell: a hang fails
    run = log.runs[0]
    assert run.status == "ok", run.describe()
    assert (tmp_path / "runs" / "smoke" / f"{name}.ipynb").exists()
    results = json.loads((tmp_path / "figures" / name / "results.json").read_text())
    assert results["profile"] == "smoke"
    from routelab.profiles import OVERRIDES

    smoke = OVERRIDES["smoke"].get(name, {})
    recorded = {k: v for k, v in results["parameters"].items() if k in smoke}
    assert recorded, "the report records the parameters the smoke profile sets"
    assert all(recorded[k] == json.loads(json.dumps(smoke[k])) for k in recorded), recorded
    assert results["claims"], "a claims table"
    texts = [c["claim"] for c in results["claims"]]  # runs are compared row by row by text
    assert len(set(texts)) == len(texts), f"two rows named alike: {texts}"
    for claim in results["claims"]:
        assert tuple(claim) == CLAIM_KEYS
        assert claim["verdict"] in VERDICTS and claim["kind"] in KINDS
        assert claim["claim"] and claim["measured"] and claim["rule"]
        if claim["kind"] == "claim":  # the paper's side of the row, beside ours
            assert claim["paper"] and claim["paper_value"], f"no paper value: {claim}"
        if claim["timing"] and claim["verdict"] != "not comparable":  # noise decides nothing
            assert claim["repeats"] >= MIN_REPEATS, f"a timing claim on one measurement: {claim}"
    assert results["figures"], "at least one figure"
    _check_outputs_render_offline(tmp_path / "runs" / "smoke" / f"{name}.ipynb", results)
    for fig in results["figures"]:
        for ext in ("html", "png", "svg"):
            path = tmp_path / "figures" / name / f"{fig['name']}.{ext}"
            assert path.exists() and path.stat().st_size > 0, path
        # the figure page loads the one shared plotly.js beside the figures (offline)
        page = (tmp_path / "figures" / name / f"{fig['name']}.html").read_text()
        src = re.search(r'src="\.\./(plotly-[^"]+\.min\.js)"', page)
        assert src and (tmp_path / "figures" / src.group(1)).exists(), fig["name"]
        assert len(page) < 5_000_000, "plotly.js is not embedded in every figure"
    for saved in results.get("measurements", []):  # raw measurements read back
        assert (tmp_path / "figures" / name / saved["file"]).exists(), saved
    if name == "11_ps2stream_partitioning":  # its saved runs regrade to the same table
        _regrades_as_written(tmp_path / "figures" / name, results)


def _regrades_as_written(folder, results: dict) -> None:
    import pandas as pd

    from routelab.spatial.cost import CostParams
    from routelab.spatial.lab.partitioning import claims as sc

    p = results["parameters"]
    assert [m["name"] for m in results["measurements"]] == ["runs"]
    runs = pd.read_parquet(folder / "runs.parquet")
    rows = sc.claims_from_runs(runs, p["workers"], p["scal_countries"], CostParams(), p["c_paper"])
    again = [(r["claim"], r["verdict"].verdict, r["verdict"].rule) for r in rows]
    assert again == [(c["claim"], c["verdict"], c["rule"]) for c in results["claims"]]
    # the screen's regrader: the same table unflipped, and a graded-only reading's table
    assert [
        (r["claim"], r["verdict"].verdict, r["verdict"].rule)
        for r in sc.regrade(folder / "results.json")
    ] == again
    from routelab import reading_screen as rs
    from routelab.paths import git_commit
    from routelab.readings import FLIP_ENV

    regrade = rs.regrader("11_ps2stream_partitioning", folder.parent.parent / "regraded")
    for keys in (("similar",), ("fig11", "similar")):
        path = regrade(folder / "results.json", keys)
        data = json.loads(path.read_text())
        assert data["reading"] == ",".join(keys) and data["regraded_from"]
        assert data["git_commit"] == git_commit()  # the rules are this code's
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(FLIP_ENV, ",".join(keys))
            rows = sc.claims_from_runs(runs, p["workers"], p["scal_countries"], CostParams(),
                                       p["c_paper"])  # fmt: skip
        assert [c["verdict"] for c in data["claims"]] == [r["verdict"].verdict for r in rows]
    assert os.environ.get(FLIP_ENV) is None  # the regrader's flip ends with its call
    damaged = folder.parent.parent / "damaged" / "results.json"
    damaged.parent.mkdir()
    damaged.write_text(json.dumps({**results, "claims": [{**c, "verdict": "holds"}
                                                         for c in results["claims"]]}))  # fmt: skip
    (damaged.parent / "runs.parquet").write_bytes((folder / "runs.parquet").read_bytes())
    if any(c["verdict"] != "holds" for c in results["claims"]):
        with pytest.raises(BadInputError, match="rules changed since it ran"):
            regrade(damaged, ("similar",))
    (damaged.parent / "runs.parquet").unlink()
    with pytest.raises(BadInputError, match="no saved measurements"):
        sc.regrade(damaged)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_profile_overrides_name_real_parameters(name):
    import ast

    from routelab.profiles import OVERRIDES

    nb = nbformat.read(notebooks_dir() / f"{name}.ipynb", as_version=4)
    source = next(c.source for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    defined = {
        t.id
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    for profile, books in OVERRIDES.items():
        unknown = set(books.get(name, {})) - defined
        assert not unknown, f"{profile} profile sets {unknown}, not parameters of {name}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_profile_is_applied_by_the_notebook_itself(name):
    """The cell after ``parameters`` applies the profile, so Lab, papermill and
    ``routelab figures`` give the same run for the same profile."""
    nb = nbformat.read(notebooks_dir() / f"{name}.ipynb", as_version=4)
    idx = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    assert f'apply_profile("{name}", globals())' in nb.cells[idx + 1].source


def test_apply_profile_gives_profile_values_and_explicit_values_win(monkeypatch, tmp_path):
    from routelab import profiles

    book = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("profile = 'default'\nsize = 1000\nseeds = [0, 1]\n")
    params.metadata["tags"] = ["parameters"]
    book.cells = [params]
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "99_toy.ipynb").write_text(nbformat.writes(book))
    monkeypatch.setenv("ROUTELAB_HOME", str(tmp_path))
    monkeypatch.setitem(profiles.OVERRIDES["smoke"], "99_toy", {"size": 10, "seeds": [0]})
    assert profiles.notebook_defaults("99_toy") == {
        "profile": "default",
        "size": 1000,
        "seeds": [0, 1],
    }
    # as papermill -p profile smoke leaves it: the defaults, profile replaced
    ns = {"profile": "smoke", "size": 1000, "seeds": [0, 1]}
    assert profiles.apply_profile("99_toy", ns, quiet=True) == {"size": 10, "seeds": [0]}
    assert ns["size"] == 10 and ns["seeds"] == [0]
    # an explicit value (papermill -p size 50) wins over the profile
    ns = {"profile": "smoke", "size": 50, "seeds": [0, 1]}
    assert profiles.apply_profile("99_toy", ns, quiet=True) == {"seeds": [0]}
    assert ns["size"] == 50
    # shown as a cell's last expression, the result adds nothing to the printed line
    from IPython.core.interactiveshell import InteractiveShell

    formatter = InteractiveShell.instance().display_formatter
    ns = {"profile": "smoke", "size": 1000, "seeds": [0, 1]}
    applied = profiles.apply_profile("99_toy", ns, quiet=True)
    assert applied == {"size": 10, "seeds": [0]} and formatter.format(applied) == ({}, {})
    assert formatter.format(dict(applied))[0]  # an ordinary dict would show
    # the default profile changes nothing
    ns = {"profile": "default", "size": 1000, "seeds": [0, 1]}
    assert profiles.apply_profile("99_toy", ns, quiet=True) == {}
    with pytest.raises(ValueError, match="unknown profile"):
        profiles.apply_profile("99_toy", {"profile": "fast"}, quiet=True)
    monkeypatch.setitem(profiles.OVERRIDES["smoke"], "99_toy", {"nope": 1})
    with pytest.raises(KeyError, match="nope"):
        profiles.apply_profile("99_toy", {"profile": "smoke"}, quiet=True)


def _check_outputs_render_offline(path, results):
    """Each recorded figure is shown exactly once, as plotly's mimetype (Lab) and as
    self-contained HTML (nbconvert); every widget carries its default view as HTML; the
    nbconvert HTML export draws every figure without fetching anything."""
    from nbconvert import HTMLExporter

    nb = nbformat.read(path, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    plots = [o for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(plots) == len(results["figures"]), "every figure shown once"
    for o in plots:
        figure = o["data"]["application/vnd.plotly.v1+json"]
        _check_methods_have_distinct_colours(figure)
        _check_log_axes_are_readable(figure)
    assert all("text/html" in o["data"] for o in plots)
    # widgets are frozen to their default view (a dead kernel's widget has no model: Lab
    # would show "model not found"); a widget without a default view would stay behind
    widgets = [
        o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert not widgets, "an executed notebook keeps a widget Lab cannot render offline"
    body, _ = HTMLExporter().from_notebook_node(nb)
    assert body.count("Plotly.newPlot") >= len(results["figures"])
    assert 'src="https://cdn.plot.ly' not in body, "plotly.js must be embedded, not fetched"


def _check_methods_have_distinct_colours(figure: dict) -> None:
    """No two methods drawn in one figure share a colour (traces named after a registered
    method, by name, label or alias; one method may appear in several traces)."""
    from routelab.palette import ALIASES, METHOD_COLOURS

    seen: dict[str, str] = {}
    for trace in figure.get("data", []):
        name = trace.get("name")
        if name not in METHOD_COLOURS:
            continue
        colour = (trace.get("line") or {}).get("color") or (trace.get("marker") or {}).get("color")
        if not isinstance(colour, str):
            continue
        method = ALIASES.get(name, name)
        other = seen.setdefault(colour.lower(), method)
        title = (figure.get("layout", {}).get("title") or {}).get("text", "")
        assert other == method, f"{other} and {method} share {colour} in {title!r}"


def _check_log_axes_are_readable(figure: dict) -> None:
    """Every log axis of an executed figure labels at least three ticks within its data."""
    import plotly.graph_objects as go

    from routelab.plots import labelled_ticks

    fig = go.Figure(_decoded(figure))
    title = (figure.get("layout", {}).get("title") or {}).get("text", "")
    for axis, ticks in labelled_ticks(fig).items():
        assert len(ticks) >= 3, f"{axis} of {title!r} labels {ticks}"


def _decoded(value):
    """A figure's JSON with plotly's typed arrays (``{"bdata": ..., "dtype": ...}``, how
    plotly 6 stores numbers in a notebook) turned back into lists of numbers."""
    import base64

    import numpy as np

    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
            if "shape" in value:
                arr = arr.reshape([int(n) for n in str(value["shape"]).split(",")])
            return arr.tolist()
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value
