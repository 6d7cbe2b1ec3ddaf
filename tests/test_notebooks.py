"""Every notebook runs under papermill with the smoke profile and reports its claims.

Each notebook is executed by the real figure runner (:func:`routelab.runs.run_notebooks`)
into temporary figure and run directories; the test then checks what the runner promises:
the executed notebook, a results.json with a non-empty claims table of the agreed shape,
and every recorded figure as HTML, PNG and SVG.
"""

from __future__ import annotations

import json

import nbformat
import pytest

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
    assert results["claims"], "a claims table"
    for claim in results["claims"]:
        assert tuple(claim) == CLAIM_KEYS
        assert claim["holds"] in (True, False, None)
        assert claim["claim"] and claim["measured"]
    assert results["figures"], "at least one figure"
    for fig in results["figures"]:
        for ext in ("html", "png", "svg"):
            path = tmp_path / "figures" / name / f"{fig['name']}.{ext}"
            assert path.exists() and path.stat().st_size > 0, path


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
