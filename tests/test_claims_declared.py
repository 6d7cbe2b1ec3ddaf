"""Claims rows declared as data (``routelab.claims.Declaration``, each lab's ``claims.toml``):
the loader's errors, the row it builds, and every declaration file in the tree: it loads, each
row it declares is used by its module, and a module with declarations builds no row by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from routelab.claims import Declaration, Verdict, claim_row, declarations

LIB = Path(__file__).resolve().parents[1] / "lib" / "routelab"
DECLARED = sorted(LIB.rglob("claims.toml"))


def _module(tmp_path: Path, toml: str) -> str:
    (tmp_path / "claims.toml").write_text(toml)
    return str(tmp_path / "claims.py")


def test_declarations_load_fields_and_defaults(tmp_path: Path) -> None:
    rows = declarations(_module(tmp_path, '[a]\nclaim = "X"\npaper = "Sect. 1"\n'
                                          '[b]\nclaim = "Y"\npaper = "Fig. 2"\nkind = "check"\n'
                                          'timing = true\nrule = "r"\n'))  # fmt: skip
    assert list(rows) == ["a", "b"]
    assert rows["a"] == Declaration("a", "X", "Sect. 1")
    assert (rows["b"].kind, rows["b"].timing, rows["b"].rule) == ("check", True, "r")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[a]\nclaim = "X"\npaper = "P"\nverdict = "holds"\n', r"\[a\] has unknown fields \['verdict'\]"),
        ('[a]\nclaim = "X"\n', r"\[a\] lacks \['paper'\]"),
        ('[a]\nclaim = "X"\npaper = "P"\nkind = "paper"\n', "kind must be one of"),
        ('[a]\nclaim = " "\npaper = "P"\n', "claim is empty"),
        ('a = 1\n', r"\[a\] must be a table"),
        ('[a]\nclaim = "X"\npaper = "P"\ntiming = "false"\n', r"wrong type \['timing'\]"),
        ('[a]\nclaim = "X"\npaper = 3\n', r"wrong type \['paper'\]"),
        ('[a]\nclaim = "X"\npaper = "P"\n[a.texts]\nm = 2\n', r"wrong type \['texts.m'\]"),
        ('[a]\nclaim = "X"\npaper = "P"\ntexts = "m"\n', r"wrong type \['texts'\]"),
    ],
)  # fmt: skip
def test_declarations_name_the_file_and_the_row(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        declarations(_module(tmp_path, toml))


def test_row_is_claim_rows_shape_with_slots_filled() -> None:
    d = Declaration("k", "{system} balances", "Sect. {n}", "{x:.2f}x", kind="beyond", timing=True)
    v = Verdict("holds", "a rule", repeats=3)
    assert d.row("1.5x", v, "a note", system="SALB", n=6, x=2.561) == claim_row(
        "SALB balances", "Sect. 6", "2.56x", "1.5x", v, "a note", "beyond", True
    )
    # a literal brace is written twice; a slot left unfilled is an error, never a "{n}" in
    # the table, whether some slots are given or none
    assert Declaration("k", "{{a, b}}", "P").row("m", v)["claim"] == "{a, b}"
    with pytest.raises(KeyError):
        d.row("m", v, system="SALB")
    with pytest.raises(KeyError):
        d.unmeasured("no runs")


def test_declared_texts_are_filled_and_name_the_row_when_wrong(tmp_path: Path) -> None:
    rows = declarations(_module(tmp_path, '[a]\nclaim = "X"\npaper = "P"\n[a.texts]\n'
                                          'measured = "{won}/{total} cells; ratio {r:.3f} {{x}}"\n'))  # fmt: skip
    assert rows["a"].text("measured", won=3, total=4, r=1.23456) == "3/4 cells; ratio 1.235 {x}"
    with pytest.raises(KeyError, match="claim 'a', text 'measured': slot 'r' not given"):
        rows["a"].text("measured", won=3, total=4)
    with pytest.raises(KeyError, match="claim 'a' declares no text 'note'"):
        rows["a"].text("note")
    assert Declaration("b", "Y", "P").texts == {}
    # graded: the row with its declared measured text, unless the run gives one
    v = Verdict("holds", "a rule")
    assert rows["a"].graded(v, "n", won=1, total=2, r=0.5) == rows["a"].row(
        "1/2 cells; ratio 0.500 {x}", v, "n"
    )
    assert rows["a"].graded(v, measured="none")["measured"] == "none"
    with pytest.raises(KeyError, match="slot 'r' not given"):
        rows["a"].graded(v, won=1, total=2)


def test_unmeasured_is_not_comparable_with_the_reason() -> None:
    row = Declaration("k", "C", "P", "12x").unmeasured("no such data here")
    assert (row["measured"], row["verdict"]) == (
        "not measured",
        Verdict("not comparable", "no such data here"),
    )
    assert Declaration("k", "C", "P").unmeasured("r", "3 of 5", "n")["measured"] == "3 of 5"


def test_there_are_declaration_files() -> None:
    assert len(DECLARED) >= 2


@pytest.mark.parametrize("path", DECLARED, ids=lambda p: str(p.parent.relative_to(LIB)))
def test_every_declared_row_is_used_and_no_row_is_built_by_hand(path: Path) -> None:
    rows = declarations(str(path))
    source = path.with_name("claims.py").read_text()
    for key in rows:
        # a literal key, or "<family> <member>": a family of keys named by an f-string
        # (f"drift {system}") or by the family's name (unmeasured_rows(ROWS, "elsewhere"))
        family = key.split()[0]
        used = (
            f'f"{family} {{' in source or f'"{family}"' in source
            if " " in key
            else f'"{key}"' in source
        )
        assert used, f"{path}: [{key}] is declared but claims.py never uses it"
        for name in rows[key].texts:  # each declared text is fetched as .text("name", ...)
            fetched = re.search(rf'\.text\(\s*"{re.escape(name)}"', source) or (
                name == "measured" and ".graded(" in source  # Declaration.graded fetches it
            )
            assert fetched, f'{path}: [{key}.texts] {name} is never fetched by .text("{name}")'
    hand_built = re.findall(r'"claim":|\bclaim_row\b|\b_row\(', source)
    assert not hand_built, f"{path.with_name('claims.py')} builds rows by hand: {hand_built}"


def test_a_declared_note_stands_unless_the_run_gives_one() -> None:
    d = Declaration("k", "C", "P", note="the model's numbers, not a clock")
    v = Verdict("holds", "r")
    assert d.row("m", v)["note"] == "the model's numbers, not a clock"
    assert d.row("m", v, "this run's note")["note"] == "this run's note"
    assert d.unmeasured("no runs")["note"] == "the model's numbers, not a clock"


def test_unmeasured_rows_lists_a_family_not_comparable() -> None:
    from routelab.claims import UNMEASURED_NOTE, unmeasured_rows

    rows = {
        "elsewhere a": Declaration("elsewhere a", "A", "Sect. 1"),
        "measured": Declaration("measured", "B", "Sect. 2"),
        "elsewhere b": Declaration("elsewhere b", "C", "Sect. 3"),
    }
    out = unmeasured_rows(rows, "elsewhere", "graded in notebook 12")
    assert [r["claim"] for r in out] == ["A", "C"]
    assert {(r["verdict"].verdict, r["verdict"].rule, r["note"]) for r in out} == {
        ("not comparable", "graded in notebook 12", UNMEASURED_NOTE)
    }


def test_declared_rows_and_the_cli_list_every_declaration(capsys: pytest.CaptureFixture) -> None:
    import json

    from routelab.claims import declared_rows
    from routelab.cli import main

    rows = declared_rows()
    assert len(rows) == sum(len(declarations(str(p))) for p in DECLARED)
    assert {"lab", "key", "claim", "paper", "rule", "kind"} <= set(rows[0])
    routing = [r for r in rows if r["lab"] == "s3tm.lab.routing"]
    assert any(r["key"] == "salb_best_throughput" for r in routing)
    assert main(["claims", "--declared", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(rows)
    assert main(["claims", "--declared", "--only", "s3tm.lab.drift"]) == 0
    text = capsys.readouterr().out
    assert "s3tm.lab.drift [no_trend] (claim)" in text and "s3tm.lab.routing" not in text
    assert "  paper: Sect. 6.4, Fig. 7j" in text
    assert main(["claims", "--declared", "--only", "no.such.lab"]) == 2
    assert "the labs: compare.lab" in capsys.readouterr().err
    # flags about a run's table make no sense before any run: refused, not ignored
    assert main(["claims", "--declared", "--beyond"]) == 2
    assert "not --beyond" in capsys.readouterr().err
    # a rule with a pipe stays in its markdown cell
    assert main(["claims", "--declared", "--only", "spatial.lab.adjustment", "--format",
                 "markdown"]) == 0  # fmt: skip
    table = capsys.readouterr().out
    lines = table.splitlines()
    assert "O(\\|C\\|" in table and all(
        line.count(" | ") == lines[0].count(" | ") for line in lines[2:]
    )
    assert lines[0].count(" | ") == 10  # the declared fields, the lab and the texts


@pytest.mark.parametrize("path", DECLARED, ids=lambda p: str(p.parent.relative_to(LIB)))
def test_every_declared_row_says_what_it_measures_and_how_it_is_graded(path: Path) -> None:
    for key, row in declarations(str(path)).items():
        assert row.measures.strip() and row.rule.strip(), f"{path}: [{key}] lacks measures or rule"
