"""``routelab claims --against``: two runs' claims tables compared row by row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from routelab.cli import main
from routelab.dashboard import claims_diff, results_at


def _row(claim: str, verdict: str, measured: str = "1.3x") -> dict:
    return {"claim": claim, "paper": "Sect. 6", "paper_value": "2x", "measured": measured,
            "verdict": verdict, "rule": "r", "note": "", "kind": "claim"}  # fmt: skip


def _run(root: Path, tables: dict[str, list[dict]]) -> Path:
    for nb, rows in tables.items():
        (root / nb).mkdir(parents=True)
        (root / nb / "results.json").write_text(
            json.dumps({"notebook": nb, "profile": "smoke", "claims": rows})
        )
    return root


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    ours = _run(tmp_path / "a", {
        "01_a": [_row("faster", "holds"), _row("smaller", "fails", "2x"), _row("gone", "holds")],
        "02_b": [_row("same", "holds")],
        "03_c": [_row("only here", "holds")],
    })  # fmt: skip
    other = _run(tmp_path / "b", {
        "01_a": [_row("faster", "holds", "1.4x"), _row("smaller", "partly", "2x"),
                 _row("new", "fails")],
        "02_b": [_row("same", "holds")],
    })  # fmt: skip
    return ours, other


def test_rows_differing_in_the_fields_and_rows_in_one_run_only(runs) -> None:
    ours, other = runs
    diff = claims_diff(results_at(ours), results_at(other))
    got = [(r.notebook, r.claim, r.field, r.ours, r.other) for r in diff.itertuples()]
    assert got == [
        ("01_a", "smaller", "verdict", "fails", "partly"),
        ("01_a", "gone", "row", "present", ""),
        ("01_a", "new", "row", "", "present"),
        ("03_c", "", "notebook", "present", ""),
    ]
    measured = claims_diff(results_at(ours), results_at(other), ("verdict", "measured"))
    assert ("faster", "measured", "1.3x", "1.4x") in [
        (r.claim, r.field, r.ours, r.other) for r in measured.itertuples()
    ]
    assert claims_diff(results_at(ours), results_at(ours)).empty  # a run against itself
    with pytest.raises(ValueError, match="unknown claims field"):
        claims_diff(results_at(ours), results_at(other), ("colour",))


def test_the_other_run_may_be_a_notebook_dir_or_a_results_file(runs) -> None:
    ours, other = runs
    one = results_at(other / "01_a")
    assert [r["notebook"] for r in one] == ["01_a"]
    assert results_at(other / "01_a" / "results.json") == one


def test_cli_prints_the_differences_and_check_sets_the_status(runs, capsys) -> None:
    ours, other = runs
    assert main(["claims", "--figures", str(ours), "--against", str(other)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "01_a: smaller [verdict] fails -> partly" in out
    assert out[-1] == "4 difference(s) over 2 notebook(s) compared"
    assert main(["claims", "--figures", str(ours), "--against", str(other), "--check"]) == 1
    capsys.readouterr()
    # one notebook's run is compared with that notebook only
    args = ["claims", "--figures", str(ours), "--against", str(ours / "02_b"), "--check"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "0 difference(s) over 1 notebook(s) compared"
    args = ["claims", "--figures", str(ours / "01_a"), "--against", str(other / "01_a")]
    assert main(args) == 0  # one notebook's directory on both sides
    assert capsys.readouterr().out.splitlines()[-1] == "3 difference(s) over 1 notebook(s) compared"
    assert main(["claims", "--figures", str(ours), "--against", str(other), "--format", "json",
                 "--fields", "verdict", "measured"]) == 0  # fmt: skip
    rows = json.loads(capsys.readouterr().out)
    assert {"claim": "faster", "field": "measured"}.items() <= rows[0].items()


def test_cli_bad_input_names_the_path_or_field(runs, tmp_path: Path, capsys) -> None:
    ours, other = runs
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["claims", "--figures", str(ours), "--against", str(empty)]) == 2
    assert f"{empty}: no results.json there" in capsys.readouterr().err
    args = ["claims", "--figures", str(ours), "--against", str(other), "--fields", "colour"]
    assert main(args) == 2
    assert "unknown field(s) ['colour']" in capsys.readouterr().err
    lone = _run(tmp_path / "lone", {"09_z": [_row("x", "holds")]})
    assert main(["claims", "--figures", str(ours), "--against", str(lone)]) == 2
    err = capsys.readouterr().err
    assert "no notebook in both runs: ['01_a', '02_b', '03_c'] in" in err and "['09_z']" in err
    assert main(["claims", "--figures", str(ours), "--check"]) == 2
    assert "give --against OTHER" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  oops")
    assert main(["claims", "--figures", str(ours), "--against", str(bad)]) == 2
    assert f"{bad}: line 2: not JSON" in capsys.readouterr().err


def test_one_notebook_on_our_side_is_compared_with_that_notebook_only(runs, capsys) -> None:
    ours, other = runs
    assert main(["claims", "--figures", str(ours / "02_b"), "--against", str(other)]) == 0
    assert capsys.readouterr().out.splitlines() == ["0 difference(s) over 1 notebook(s) compared"]
