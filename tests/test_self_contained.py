"""The repository is self-contained: no file cites a document a reader of the repository
cannot open (design notes, specifications, issue trackers, numbered assumption lists), and
every parameter ``lib/routelab/READINGS.md`` names exists in the source.

A reading of an ambiguous paper passage belongs in the module docstring and in
READINGS.md; a design principle is stated in a sentence where it applies.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "routelab"
READINGS = LIB / "READINGS.md"

FORBIDDEN = {
    "the design notes": re.compile(r"DESIGN\.md"),
    "the specs folder": re.compile(r"\bspecs/"),
    "the spec as a document": re.compile(
        r"\bspec (?:Sect|§|A\d|\d)|\b[Tt]he spec\b|\bspec's\b|\bRECONSTRUCTED\b"
    ),
    "an issue number": re.compile(r"\b[Ii]ssues? #?\d+|(?:^|[\s(\[])#\d+\b"),
    "an assumption id": re.compile(r"\bA(?:[1-9]|1\d|2[0-5])\b"),
    "a session number": re.compile(r"\b[Ss]essions? \d+"),
    "a path outside the repository": re.compile(r"shared/papers|shared/specs|/work/shared"),
}
"""What may not be cited. Fabret et al.'s A0 (the initial hashing configuration) is the
paper's own notation and stays; ``owner/repo#123`` (a public upstream issue) is allowed."""

ALLOWED_LINES = ("pass parameters either in the spec or as keywords",)
"""Lines where a pattern matches legitimately (here: a runtime message about a KeySpec)."""

TOP_LEVEL = ("README.md", "Makefile", "pyproject.toml", "datasets/README.md")


def _text_files() -> list[Path]:
    files = [p for p in LIB.rglob("*") if p.suffix in {".py", ".md"} and p.is_file()]
    files += [p for p in (ROOT / "tests").rglob("*.py") if p.resolve() != Path(__file__).resolve()]
    files += sorted((ROOT / "notebooks").glob("*.ipynb"))
    files += [ROOT / name for name in TOP_LEVEL if (ROOT / name).exists()]
    return sorted(set(files))


def _lines(path: Path) -> list[tuple[str, str]]:
    """(where, text) per line; a notebook contributes its cells' sources, not outputs."""
    if path.suffix != ".ipynb":
        text = path.read_text(encoding="utf-8")
        return [(f"line {i}", line) for i, line in enumerate(text.splitlines(), 1)]
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for c, cell in enumerate(nb["cells"]):
        src = cell["source"]
        src = "".join(src) if isinstance(src, list) else src
        out += [(f"cell {c} line {i}", line) for i, line in enumerate(src.splitlines(), 1)]
    return out


def external_references(path: Path) -> list[str]:
    """Every line of ``path`` that cites something outside the repository."""
    found = []
    for where, line in _lines(path):
        if any(ok in line for ok in ALLOWED_LINES):
            continue
        for what, pattern in FORBIDDEN.items():
            m = pattern.search(line)
            if m:
                found.append(f"{where}: {what} ({m.group(0).strip()!r}): {line.strip()}")
    return found


@pytest.mark.parametrize("path", _text_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_external_references(path: Path) -> None:
    found = external_references(path)
    assert not found, f"{path.relative_to(ROOT)} cites what the repository does not hold:\n" + (
        "\n".join(found)
    )


def test_the_check_catches_old_citations(tmp_path: Path) -> None:
    """Lines as they read before the references were removed are caught."""
    old = [
        '"""Seeded, stable hashes for routing (DESIGN.md principle 4)."""',
        "in the text (RECONSTRUCTED, spec Sect. 3.4): we read it as one unit K_c",
        "that is the reading taken here (spec A11): ``RK(q) = ...``",
        "# tolerances, declared before measuring (issue 14)",
        "fair coin (A18). The stream interleaves objects and updates",
        "- ``all_words`` (a stress variant, the behaviour before session 17)",
        "see specs/ps2stream.md",
        "spread_seeds = [0, 1]  # run seeds of the seed-spread check (#12)",
    ]
    for line in old:
        f = tmp_path / "old.py"
        f.write_text(line + "\n")
        assert external_references(f), line
    ok = tmp_path / "ok.py"
    ok.write_text(
        "start from A0 and add tables (nteract/papermill#723); kernelspec's directory\n"
        'raise ValueError("pass parameters either in the spec or as keywords, not both")\n'
        'color = "#444"  # a colour, not an issue\n'
    )
    assert external_references(ok) == []


# ---------------------------------------------------------------- READINGS.md's parameters

_CALL = re.compile(r"`routelab\.([\w.]+)\((\w+)=")
_NAME = re.compile(r"`routelab\.([\w.]+)`")
_BARE = re.compile(r"`(\w+)=[^`]*`")


def _resolve(dotted: str) -> tuple[Path, list[str]]:
    """The source file of ``routelab.<dotted>`` and the names left after the module path."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = LIB.joinpath(*parts[:cut])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate, parts[cut:]
    raise AssertionError(f"routelab.{dotted}: no such module")


def _block(source: str, name: str) -> str:
    """The source of ``def name`` / ``class name`` (up to the next definition at its level)."""
    m = re.search(rf"^(\s*)(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", source, re.M)
    assert m, f"{name} is not defined"
    indent = len(m.group(1))
    end = re.compile(rf"^\s{{0,{indent}}}(?:@|def\s|class\s|async\s+def\s)", re.M)
    nxt = end.search(source, m.end())
    return source[m.start() : nxt.start() if nxt else len(source)]


def readings_parameters() -> list[tuple[str, str]]:
    if not READINGS.is_file():
        return []  # test_readings_exists_and_is_linked fails instead
    text = READINGS.read_text(encoding="utf-8")
    return sorted(set(_CALL.findall(text)))


def test_readings_exists_and_is_linked() -> None:
    assert READINGS.is_file()
    text = READINGS.read_text(encoding="utf-8")
    for section in ("S3-TM", "PKG", "FISH", "PS2Stream", "Fabret"):
        assert re.search(rf"^## {section}", text, re.M), f"no section for {section}"
    assert "READINGS.md" in (LIB / "README.md").read_text(encoding="utf-8")
    assert "READINGS.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_reading_names_a_switch_or_says_fixed() -> None:
    text = READINGS.read_text(encoding="utf-8")
    entries = re.split(r"^- ", text, flags=re.M)[1:]
    assert len(entries) >= 40
    for entry in entries:
        assert "Switch:" in entry, entry[:80]
        switch = " ".join(entry.split("Switch:", 1)[1].split())
        named = _CALL.search(switch) or _BARE.search(switch)
        assert named or "no switch (fixed" in switch, entry[:80]


@pytest.mark.parametrize(("dotted", "param"), readings_parameters())
def test_readings_parameter_exists(dotted: str, param: str) -> None:
    path, names = _resolve(dotted)
    assert names, f"routelab.{dotted} is a module, not a callable"
    source = path.read_text(encoding="utf-8")
    block = _block(source, names[0])
    for inner in names[1:]:
        block = _block(block, inner)
    assert re.search(rf"\b{re.escape(param)}\b", block), f"routelab.{dotted} has no {param!r}"


def test_readings_names_resolve() -> None:
    """Every ``routelab.x.y`` and bare ``param=`` in READINGS.md exists in the source."""
    text = READINGS.read_text(encoding="utf-8")
    for dotted in set(_NAME.findall(text)):
        path, names = _resolve(dotted)
        source = path.read_text(encoding="utf-8")
        for name in names:
            _block(source, name)
    every_source = "\n".join(p.read_text(encoding="utf-8") for p in LIB.rglob("*.py"))
    for param in set(_BARE.findall(text)):
        assert re.search(rf"\b{param}\b", every_source), f"{param!r} is not in the source"
