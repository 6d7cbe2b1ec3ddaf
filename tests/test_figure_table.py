"""The "Figures" table of ``lib/routelab/README.md`` matches the code and the notebooks.

One row per paper figure (number + caption), the notebook that draws it and the builder
(``module.function`` under ``routelab``), or "not regenerated yet"; ``extra:`` rows list the
figures a notebook draws that are no paper figure. A builder renamed without the table, a
new figure builder left out of it, or a paper figure dropped from it fails here.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "routelab"
README = LIB / "README.md"
NOTEBOOKS = ROOT / "notebooks"
NOT_YET = "not regenerated yet"

PAPER_FIGURES = {
    "S3-TM": set(range(1, 10)),
    "PKG": set(range(1, 6)),
    "FISH": set(range(1, 21)),
    "Fabret": set(range(1, 5)),
    "PS2Stream": set(range(1, 17)),
    "All five": set(),  # notebook 13 compares the systems: extra figures only
}
"""The numbered figures of each paper (counted in the five papers' texts): each needs a row."""

PAPER_NOTEBOOKS = {
    "PKG": {"07_pkg"},
    "FISH": {"08_fish"},
    "Fabret": {"09_fabret_matching", "10_fabret_adaptivity"},
    "PS2Stream": {"11_ps2stream_partitioning", "12_ps2stream_adjustment"},
}

NAMED_LABS = ("s3tm", "corpus", "grouping", "filtering", "spatial", "compare")
"""Labs whose figure builders all follow ``fig<N><panels>_<what>`` / ``table<N>_<what>`` /
``extra_<what>``: every lab."""

BUILDER_NAME = re.compile(r"^(fig\d+[a-z]*(_[a-z0-9]+)*|table\d+_[a-z0-9_]+|extra_[a-z0-9_]+)$")
PLOTLY = re.compile(r"go\.Figure|make_subplots|\bpx\.")


def table_rows(text: str | None = None) -> list[dict[str, str]]:
    """The rows of the one table under ``## Figures``."""
    text = README.read_text() if text is None else text
    section = text.split("\n## Figures\n", 1)
    assert len(section) == 2, "lib/routelab/README.md has no '## Figures' section"
    body = section[1].split("\n## ", 1)[0]
    lines = [ln for ln in body.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == ["paper", "figure", "notebook", "builder"], header
    assert set(lines[1].replace("|", "").strip()) <= set("-: "), lines[1]
    rows = []
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        assert len(cells) == 4, ln
        rows.append(dict(zip(header, cells, strict=True)))
    assert rows, "the Figures table is empty"
    return rows


def builders(row: dict[str, str]) -> list[str]:
    """``module.function`` names in a row's builder cell (backticked)."""
    return re.findall(r"`([\w.]+)`", row["builder"])


def notebook(row: dict[str, str]) -> str | None:
    found = re.findall(r"`([\w]+)`", row["notebook"])
    return found[0] if found else None


def figure_numbers(caption: str) -> set[int]:
    """``Fig. 5a-h: ...`` -> {5}; ``Figs. 3-4: ...`` -> {3, 4}; tables and extras -> {}."""
    m = re.match(r"Figs?\. (\d+)(?:[a-z](?:-[a-z])?)?(?:-(\d+))?\b", caption)
    if not m:
        return set()
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) else first
    return set(range(first, last + 1))


def resolve(name: str):
    module, _, function = name.rpartition(".")
    return getattr(importlib.import_module(f"routelab.{module}"), function, None)


def notebook_code(name: str) -> str:
    cells = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def figure_modules() -> dict[str, str]:
    """``module -> source`` of the modules that build plotly figures (labs, corpus)."""
    return {
        ".".join(p.relative_to(LIB).with_suffix("").parts): p.read_text()
        for p in sorted(LIB.rglob("*.py"))
        if p.name != "plots.py" and "commands" not in p.parts and PLOTLY.search(p.read_text())
    }


def lab_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[0] if len(parts) > 2 and parts[1] == "lab" else None


def figure_builders(module: str, source: str) -> list[str]:
    """The figure builders a module defines: public functions named ``fig...`` (not
    ``figure...``); in the named labs also ``table<N>_...``, ``extra_...`` and any public
    function returning a plotly figure."""
    found = []
    for fn in ast.parse(source).body:
        if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
            continue
        named = fn.name.startswith("fig") and not fn.name.startswith("figure")
        if lab_of(module) in NAMED_LABS:
            returns = fn.returns is not None and "Figure" in ast.unparse(fn.returns)
            named = named or returns or bool(BUILDER_NAME.match(fn.name))
        if named:
            found.append(fn.name)
    return found


def unlisted_builders(modules: dict[str, str], rows: list[dict[str, str]]) -> list[str]:
    listed = {name for row in rows for name in builders(row)}
    return [
        f"{module}.{name}"
        for module, source in modules.items()
        for name in figure_builders(module, source)
        if f"{module}.{name}" not in listed
    ]


# ----------------------------------------------------------------------------- the tests


def test_every_builder_named_exists():
    missing = [
        (row["figure"], name) for row in table_rows() for name in builders(row) if not resolve(name)
    ]
    assert not missing, f"the Figures table names functions that do not exist: {missing}"


def test_every_row_names_a_builder_or_says_not_regenerated():
    for row in table_rows():
        names = builders(row)
        assert names or row["builder"] == NOT_YET, row
        assert bool(names) == bool(notebook(row)), f"a builder needs its notebook: {row}"


def test_every_paper_figure_has_a_row():
    rows = table_rows()
    for paper, numbers in PAPER_FIGURES.items():
        listed = set().union(*(figure_numbers(r["figure"]) for r in rows if r["paper"] == paper))
        assert numbers <= listed, f"{paper}: figures {sorted(numbers - listed)} have no row"
        assert listed <= numbers, f"{paper}: figures {sorted(listed - numbers)} do not exist"
    assert {r["paper"] for r in rows} == set(PAPER_FIGURES)


def test_rows_of_notebooks_07_to_11_are_complete():
    """Every figure row of PKG, FISH, Fabret and PS2Stream names a builder in one of its
    paper's notebooks, or says it is not regenerated yet."""
    for row in table_rows():
        if row["paper"] not in PAPER_NOTEBOOKS or row["figure"].startswith("extra:"):
            continue
        if row["builder"] == NOT_YET:
            continue
        assert notebook(row) in PAPER_NOTEBOOKS[row["paper"]], row
        if figure_numbers(row["figure"]):  # a figure (not a table): a fig<N> builder
            assert all(BUILDER_NAME.match(n.rpartition(".")[2]) for n in builders(row)), row


def test_each_builder_is_called_by_its_notebook():
    for row in table_rows():
        nb = notebook(row)
        if nb is None:
            continue
        assert (NOTEBOOKS / f"{nb}.ipynb").exists(), row
        code = notebook_code(nb)
        called = [n for n in builders(row) if re.search(rf"\.{n.rpartition('.')[2]}\b", code)]
        assert called, f"{nb} calls none of {builders(row)} ({row['figure']})"


def test_every_figure_builder_is_in_the_table():
    missing = unlisted_builders(figure_modules(), table_rows())
    assert not missing, f"figure builders missing from the Figures table: {missing}"


def test_named_labs_follow_the_pattern():
    """In every lab, every builder is ``fig<N>...``,
    ``table<N>_...`` or ``extra_...``, and a ``fig<N>`` builder's row is figure N."""
    rows = table_rows()
    for module, source in figure_modules().items():
        if lab_of(module) not in NAMED_LABS:
            continue
        for name in figure_builders(module, source):
            assert BUILDER_NAME.match(name), f"{module}.{name}"
            m = re.match(r"fig(\d+)", name)
            if m:
                row = next((r for r in rows if f"{module}.{name}" in builders(r)), None)
                assert row is not None, f"{module}.{name} is not in the Figures table"
                assert int(m.group(1)) in figure_numbers(row["figure"]), (name, row["figure"])


def test_a_renamed_builder_fails_the_checks(monkeypatch):
    """Renaming a builder in the code but not in the table fails both ways: the old name no
    longer resolves, and the new name is a builder the table does not list."""
    from routelab.grouping.lab.pkg import figures as pkg_figures

    module = "grouping.lab.pkg.figures"
    source = figure_modules()[module].replace("def fig4_skewed_sources(", "def fig4_sources(")
    assert unlisted_builders({module: source}, table_rows()) == [f"{module}.fig4_sources"]
    monkeypatch.delattr(pkg_figures, "fig4_skewed_sources")
    with pytest.raises(AssertionError, match="fig4_skewed_sources"):
        test_every_builder_named_exists()


def test_figure_numbers():
    assert figure_numbers("Fig. 5a-h: relative throughput") == {5}
    assert figure_numbers("Figs. 3-4: a kdt-tree") == {3, 4}
    assert figure_numbers("Fig. 12a-c: DP") == {12}
    assert figure_numbers("Table II: imbalance") == set()
    assert figure_numbers("extra: explorer") == set()
