"""The papermill figure runner: ok and failing notebooks, run log, CLI exit code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from routelab.claims import not_comparable, within_factor
from routelab.cli import main
from routelab.report import CLAIM_KEYS, VERDICT_COLOURS, NotebookReport
from routelab.runs import discover_notebooks, run_notebooks


def _write_notebook(path: Path, cells: list[str]) -> None:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('profile = "default"\nvalue = 1')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, path)


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A fake repository root with two notebooks: one succeeds, one fails in cell 2."""
    (tmp_path / "notebooks").mkdir()
    ok_cells = [
        "from routelab.report import NotebookReport\n"
        "r = NotebookReport('01_ok', profile=profile, show=False)\n"
        "r.add_headline(value=value)\n"
        "from routelab.claims import at_least\n"
        "r.claim('one plus one', '2', str(1 + 1), verdict=at_least(1 + 1, 2))\n"
        "r.finish()",
    ]
    _write_notebook(tmp_path / "notebooks" / "01_ok.ipynb", ok_cells)
    _write_notebook(
        tmp_path / "notebooks" / "02_bad.ipynb", ["x = 1", "raise ValueError('planted failure')"]
    )
    monkeypatch.setenv("ROUTELAB_HOME", str(tmp_path))
    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path / "figures"))
    monkeypatch.setenv("ROUTELAB_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path


@pytest.mark.notebook
def test_failing_notebook_is_named_with_its_cell_and_others_still_run(sandbox):
    log = run_notebooks("smoke", progress=False)
    assert [r.notebook for r in log.runs] == ["01_ok", "02_bad"]
    ok, bad = log.runs
    assert ok.status == "ok" and bad.status == "failed"
    assert not log.ok
    # papermill injects a parameters cell after ours: the failing cell is index 3
    assert bad.failed_cell == 3
    assert "planted failure" in bad.error and "ValueError" in bad.error
    assert "FAILED at cell 3" in bad.describe()
    run_log = json.loads((sandbox / "runs" / "smoke" / "run_log.json").read_text())
    assert run_log["profile"] == "smoke" and run_log["ok"] is False
    assert {r["status"] for r in run_log["runs"]} == {"ok", "failed"}
    assert all("seconds" in r and "parameters" in r for r in run_log["runs"])
    assert (sandbox / "runs" / "smoke" / "01_ok.ipynb").exists()
    results = json.loads((sandbox / "figures" / "01_ok" / "results.json").read_text())
    assert results["profile"] == "smoke"
    assert results["claims"] == [
        {
            "claim": "one plus one",
            "paper": "2",
            "paper_value": "",
            "measured": "2",
            "verdict": "holds",
            "rule": "holds if >= 2",
            "note": "",
            "kind": "claim",
            "timing": False,
            "repeats": 0,
        }
    ]
    assert (sandbox / "runs" / "history.jsonl").read_text().count("\n") == 1


@pytest.mark.notebook
def test_cli_exit_code_reflects_failure(sandbox, capsys):
    assert main(["figures", "--profile", "smoke", "--only", "01", "-p", "value=7"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"01_ok\s+ok\s+[\d.]+ s\s+smoke\s+claims 1/1 hold", out), out
    results = json.loads((sandbox / "figures" / "01_ok" / "results.json").read_text())
    assert results["headline"] == {"value": 7}, "an explicit -p parameter wins"
    index = (sandbox / "figures" / "index.html").read_text()
    assert "one plus one" in index and "01_ok" in index
    assert main(["figures", "--profile", "smoke", "--only", "02_bad"]) == 1
    out = capsys.readouterr().out
    assert "02_bad: FAILED at cell 3" in out
    assert re.search(r"02_bad\s+failed", out), out
    assert main(["claims", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| 01_ok | one plus one | 2 |  | 2 | holds |" in out
    assert main(["claims", "--format", "json", "--verdict", "fails"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["claims", "--verdict", "maybe"]) == 2


def test_only_rejects_unknown_names(sandbox):
    assert [p.stem for p in discover_notebooks(["01"])] == ["01_ok"]
    assert main(["figures", "--only", "99_nope", "--list"]) == 2


def test_report_requires_claims_and_writes_json(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUTELAB_FIGURES_DIR", str(tmp_path))
    report = NotebookReport("xx_test", profile="smoke", show=False)
    with pytest.raises(ValueError, match="claims table"):
        report.finish()
    with pytest.raises(TypeError):  # the old boolean is gone: every row is graded
        report.claim("c", "p", "m", holds=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError):  # a verdict is required
        report.claim("c", "p", "m")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="verdict must be one of"):
        report.claim("c", "p", "m", verdict="roughly", rule="r")
    with pytest.raises(ValueError, match="rule"):
        report.claim("c", "p", "m", verdict="holds")
    report.claim("c", "p", "m", verdict=not_comparable("not testable here"))
    report.claim(
        "two", "Sect. 1", "3x", paper_value="12x", verdict=within_factor(3, 12, 2), kind="claim"
    )
    table = report.finish()
    assert list(table.frame.columns) == list(CLAIM_KEYS)
    html = table._repr_html_()
    assert "..." not in html and "12x" in html and "direction only" in html
    assert VERDICT_COLOURS["direction only"] in html
    data = json.loads((tmp_path / "xx_test" / "results.json").read_text())
    assert data["claims"][0]["verdict"] == "not comparable"
    assert data["claims"][1]["verdict"] == "direction only"
    assert "within 2x" in data["claims"][1]["rule"] and data["claims"][1]["paper_value"] == "12x"


def test_freeze_widgets_keeps_the_default_view(tmp_path):
    from routelab.runs import WIDGET_VIEW, freeze_widgets

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("w")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={
                WIDGET_VIEW: {"model_id": "abc", "version_major": 2, "version_minor": 0},
                "text/html": "<b>default</b>",
                "text/plain": "VBox()",
            },
        ),
        nbformat.v4.new_output("display_data", data={"text/plain": "1"}),
    ]
    nb.cells = [cell]
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    assert freeze_widgets(path) == 1
    data = nbformat.read(path, as_version=4).cells[0].outputs[0]["data"]
    assert WIDGET_VIEW not in data and data["text/html"] == "<b>default</b>"
    assert freeze_widgets(path) == 0
