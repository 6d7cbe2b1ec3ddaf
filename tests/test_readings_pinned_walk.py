"""Every reading of ``lib/routelab/READINGS.md`` that has a switch is pinned by a test.

A reading is a bullet ``- **Title.** ... Switch: ...``; unless its switch says "no switch",
it must end with ``Pinned by: `test_a`, `test_b`.`` naming test functions defined in
``tests/test_readings_pinned_*.py`` (those tests check that the default gives the
documented answer and the alternative the other, so a flipped default fails). A marker
naming a missing test fails too, on any bullet.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READINGS = ROOT / "lib" / "routelab" / "READINGS.md"
TESTS = ROOT / "tests"

_BULLET = re.compile(r"^- \*\*")
_MARKER = re.compile(r"Pinned by:\s*(.+?)\.\s*$", re.S)
_NAME = re.compile(r"`(\w+)`")


@dataclass(frozen=True)
class Reading:
    """One bullet of READINGS.md: its title, section, first line and full text."""

    title: str
    section: str
    line: int
    text: str

    @property
    def switch(self) -> str:
        """The text after ``Switch:`` (whitespace collapsed), "" if there is none."""
        if "Switch:" not in self.text:
            return ""
        return " ".join(self.text.split("Switch:", 1)[1].split())

    @property
    def has_switch(self) -> bool:
        return not self.switch.startswith("no switch")

    @property
    def pinned_by(self) -> list[str] | None:
        """Test names of the ``Pinned by:`` marker (None without a marker)."""
        flat = " ".join(self.text.split())
        if "Pinned by:" not in flat:
            return None
        m = _MARKER.search(flat)
        return _NAME.findall(m.group(1)) if m else []


def parse_readings(text: str) -> list[Reading]:
    """The bullets of a READINGS text. A bullet runs from its ``- **`` line to the next
    bullet, heading or blank line; continuation lines may be indented or not."""
    out: list[Reading] = []
    section = ""
    current: list[str] = []
    start = 0

    def close() -> None:
        if current:
            body = "\n".join(current)
            m = re.match(r"- \*\*(.+?)\*\*", " ".join(body.split()))
            title = m.group(1) if m else body[:60]
            out.append(Reading(title, section, start, body))
            current.clear()

    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            close()
            section = line.lstrip("#").strip()
        elif _BULLET.match(line):
            close()
            current.append(line)
            start = i
        elif not line.strip():
            close()
        elif current:
            current.append(line)
    close()
    return out


def defined_tests(paths: list[Path]) -> set[str]:
    """Names of the module-level ``test_*`` functions defined in ``paths`` (by AST)."""
    names: set[str] = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test_"
            ):
                names.add(node.name)
    return names


def problems(readings: list[Reading], tests: set[str]) -> list[str]:
    """What is wrong: a switch without a marker, or a marker naming a missing test."""
    out = []
    for r in readings:
        names = r.pinned_by
        where = f"{r.section} / {r.title} (line {r.line})"
        if names is None:
            if r.has_switch:
                out.append(f"{where}: has a switch but no 'Pinned by:' marker")
            continue
        if not names:
            out.append(f"{where}: 'Pinned by:' names no test")
        for name in names:
            if name not in tests:
                out.append(f"{where}: pinned by {name}, which no pinned test file defines")
    return out


def _pinned_files() -> list[Path]:
    return sorted(TESTS.glob("test_readings_pinned_*.py"))


def test_every_switched_reading_is_pinned_by_existing_tests() -> None:
    """READINGS.md: every reading with a switch names tests that exist."""
    readings = parse_readings(READINGS.read_text(encoding="utf-8"))
    assert len(readings) >= 60, "the parser lost readings"
    assert sum(r.has_switch for r in readings) >= 40
    found = problems(readings, defined_tests(_pinned_files()))
    assert not found, "\n".join(found)


SAMPLE = """\
# Readings

## Paper A

- **Pinned one (Sect. 1).** Reading: x. Alternative: y. Switch:
  `routelab.a.f(p="y")` (default `"x"`). Pinned by: `test_one`,
  `test_two`.
- **Unpinned (Sect. 2).** Reading: x. Switch: `routelab.a.g(q=1)`.
- **Fixed (Sect. 3).** Reading: x. Switch: no switch
  (fixed).

- **Wrong marker.** Switch: `routelab.a.h(r=2)`. Pinned by: `test_gone`.
## Paper B
- **Last one.** Switch: no switch (fixed). Pinned by: `test_one`.
"""


def test_the_parser_reports_a_switch_without_a_marker_and_a_missing_test() -> None:
    """The walk's own parser on a hand-written text: bullets spanning lines, a blank line
    and a heading ending a bullet, a switch without marker, a marker naming a missing test."""
    readings = parse_readings(SAMPLE)
    assert [r.title for r in readings] == [
        "Pinned one (Sect. 1).",
        "Unpinned (Sect. 2).",
        "Fixed (Sect. 3).",
        "Wrong marker.",
        "Last one.",
    ]
    assert [r.section for r in readings] == ["Paper A"] * 4 + ["Paper B"]
    assert [r.has_switch for r in readings] == [True, True, False, True, False]
    assert readings[0].pinned_by == ["test_one", "test_two"]
    assert readings[1].pinned_by is None and readings[2].pinned_by is None
    found = problems(readings, {"test_one", "test_two"})
    assert len(found) == 2
    assert "Unpinned" in found[0] and "no 'Pinned by:' marker" in found[0]
    assert "Wrong marker" in found[1] and "test_gone" in found[1]
    assert problems(readings, {"test_one", "test_two", "test_gone"})[0].startswith(
        "Paper A / Unpinned"
    )
    assert len(problems(readings, {"test_one"})) == 3  # test_two is missing too


def test_defined_tests_reads_functions_by_ast(tmp_path: Path) -> None:
    """Only module-level ``def test_...`` count (not a name in a string or a helper)."""
    f = tmp_path / "test_readings_pinned_x.py"
    f.write_text('def test_a():\n    pass\n\n\ndef helper():\n    "def test_b(): no"\n')
    assert defined_tests([f]) == {"test_a"}
