"""The layout of lib/routelab: algorithms apart from notebook code, no import cycles.

- every package ``routelab/<package>/``, with or without a ``lab`` (each paper's,
  ``corpus`` -- the corpus side of S3-TM --, ``compare``, ``datasets``, ``commands``), is
  outside its ``lab`` code a user calls on their own data: it never imports a ``lab``
  (notebook code), plotting or plotly, nor (except the CLI, ``commands``) the report or
  claims machinery;
- the direction is one way: a ``lab`` may import algorithm code, no module outside a
  ``lab`` (a package's algorithm side or a workbench module) imports any ``lab``;
- every lab is organised as ``<paper>/lab/<notebook>/``: one package per notebook, and at the
  lab's top level only its ``__init__``, the modules its notebooks share (a short allow-list
  per lab) and its ``bench*.py`` (``compare`` and ``corpus`` stay flat: one notebook, and two
  notebooks sharing one claims module);
- under ``s3tm/lab/`` each notebook's package imports only ``s3tm/lab/shared.py``, never
  another notebook's package;
- every package (and every ``lab``) has an ``__init__`` docstring that maps its files;
- no two routelab modules import each other, directly or through others, whether the import
  is at module level or inside a function.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib"
ROOT = LIB / "routelab"
PACKAGES = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists())
"""Every package under routelab, with or without a ``lab``."""
PAPERS = [p for p in PACKAGES if (ROOT / p / "lab").is_dir()]
"""The packages with a ``lab`` (notebook code)."""
CLI = "commands"
"""The one package that may import the report and claims machinery (``routelab claims``
reads the verdicts, answers are formatted by :mod:`routelab.report`)."""
S3TM_LAB = ROOT / "s3tm" / "lab"
NOTEBOOKS = LIB.parent / "notebooks"
LAB_SHARED = {
    "s3tm": {"shared"},
    "grouping": {"streams", "tasks"},
    "filtering": set(),
    "spatial": {"workload", "regime"},
}
"""Per lab organised as ``<paper>/lab/<notebook>/``: the modules its notebooks share, the only
ones (with ``__init__`` and ``bench*.py``) at the lab's top level."""
FLAT_LABS = {
    "compare": "serves notebook 13 alone",
    "corpus": "serves notebooks 01-02, which share its claims module",
}
"""The labs that stay flat (no notebook packages), and why."""
NOTEBOOK_PACKAGES = sorted(p.name for p in S3TM_LAB.iterdir() if (p / "__init__.py").exists())


def _is_lab(module: str) -> bool:
    """``module`` is a ``lab`` package or lives in one (``routelab.<package>.lab...``)."""
    return "lab" in module.split(".")


def _module_name(path: Path) -> str:
    parts = path.relative_to(LIB).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str | None = None) -> set[str]:
    """routelab modules ``path`` imports anywhere (module level or inside functions), except
    under ``if TYPE_CHECKING:``; ``module``: its dotted name (default: from its path)."""
    found: set[str] = set()
    module = module or _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:  # annotations only: not an import at run time
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("routelab"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1]
                    + ([base] if base else [])
                )
            if not base.startswith("routelab"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if (LIB / (sub.replace(".", "/") + ".py")).exists() else base)
    return found


MODULES = {_module_name(p): p for p in ROOT.rglob("*.py")}


def test_there_are_paper_packages_with_a_lab():
    assert {"s3tm", "grouping", "filtering", "spatial", "corpus", "compare"} <= set(PAPERS)
    assert {"datasets", CLI} <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_algorithms_do_not_import_notebook_code_plots_or_claims(package):
    """A package's algorithm side (everything outside its ``lab``) imports no ``lab``, no
    plotting, no plotly or ipywidgets, and (except the CLI) no report or claims."""
    banned = {"routelab.plots", "routelab.report", "routelab.claims"}
    if package == CLI:
        banned = {"routelab.plots"}
    offenders = []
    for name, path in MODULES.items():
        if not name.startswith(f"routelab.{package}.") and name != f"routelab.{package}":
            continue
        if _is_lab(name):
            continue
        text = path.read_text()
        for imported in _imports(path):
            if _is_lab(imported) or imported in banned:
                offenders.append(f"{name} imports {imported}")
        if "plotly" in text or "ipywidgets" in text:
            offenders.append(f"{name} uses plotly/ipywidgets")
    assert not offenders, offenders


def test_no_module_outside_a_lab_imports_a_lab():
    """Labs import algorithm code, never the reverse: no module outside a ``lab`` (a
    package's algorithm side, the CLI or a workbench module at the top) imports from any
    ``*.lab`` package, its own or another package's, at module level or in a function."""
    offenders = sorted(
        f"{name} imports {imported}"
        for name, path in MODULES.items()
        if not _is_lab(name)
        for imported in _imports(path)
        if _is_lab(imported)
    )
    assert not offenders, offenders


def test_the_import_direction_check_sees_a_lab_import(tmp_path):
    """The check above sees a lab imported at module level, inside a function and
    relatively; imports under ``if TYPE_CHECKING:`` (annotations only) do not count."""
    algorithm = tmp_path / "algorithm.py"
    algorithm.write_text(
        "from typing import TYPE_CHECKING\n"
        "from routelab.spatial.lab import workload\n"
        "from .lab import figures\n"
        "if TYPE_CHECKING:\n"
        "    from routelab.s3tm.lab.shared import SharedData\n"
        "def f():\n"
        "    from routelab.compare.lab.drift import drift_rows\n"
    )
    found = {m for m in _imports(algorithm, "routelab.compare.algorithm") if _is_lab(m)}
    assert found == {
        "routelab.spatial.lab.workload",
        "routelab.compare.lab.figures",
        "routelab.compare.lab.drift",
    }
    assert _is_lab("routelab.compare.lab") and not _is_lab("routelab.compare.labels")


@pytest.mark.parametrize(
    "package", sorted({n for n, p in MODULES.items() if p.name == "__init__.py"})
)
def test_every_package_docstring_maps_its_files(package):
    path = MODULES[package]
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    files = [p.stem for p in path.parent.glob("*.py") if p.name != "__init__.py"]
    missing = [f for f in files if f not in doc]
    assert doc and not missing, f"{package}: docstring does not mention {missing}"


def test_no_import_cycles():
    graph = {
        name: {m for m in _imports(path) if m in MODULES and m != name}
        for name, path in MODULES.items()
    }
    # a package's __init__ re-exporting its own modules is not a cycle of logic
    for name in graph:
        graph[name] = {
            m
            for m in graph[name]
            if not (MODULES[m].name == "__init__.py" and name.startswith(m + "."))
        }
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_every_lab_declares_its_layout():
    assert set(PAPERS) == set(LAB_SHARED) | set(FLAT_LABS)
    assert not set(LAB_SHARED) & set(FLAT_LABS)


def _packages(directory: Path) -> list[Path]:
    return sorted(d for d in directory.iterdir() if d.is_dir() and d.name != "__pycache__")


@pytest.mark.parametrize("paper", sorted(LAB_SHARED))
def test_every_lab_is_organised_by_notebook(paper):
    """A lab's top level holds its ``__init__``, the shared modules of its allow-list (each of
    which exists) and its ``bench*.py``; everything else is in a notebook's package, which
    names its notebook (``notebooks/<NN>_<name>.ipynb``) in its docstring, one each."""
    lab = ROOT / paper / "lab"
    stems = {p.stem for p in lab.glob("*.py")}
    stray = sorted(
        stems - {"__init__"} - LAB_SHARED[paper] - {s for s in stems if s.startswith("bench")}
    )
    assert not stray, f"{paper}/lab: {stray} belong in a notebook's package or in LAB_SHARED"
    assert LAB_SHARED[paper] <= stems, f"{paper}/lab: {LAB_SHARED[paper] - stems} do not exist"
    packages = _packages(lab)
    assert len(packages) >= 2, f"{paper}/lab has fewer than two notebook packages"
    notebooks = {p.stem for p in NOTEBOOKS.glob("*.ipynb")}
    named: dict[str, str] = {}
    for package in packages:
        init = package / "__init__.py"
        assert init.exists(), f"{package.relative_to(ROOT)} is not a package"
        assert not _packages(package), f"{package.relative_to(ROOT)} nests packages"
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        found = {n for n in notebooks if re.search(rf"\b{n}\b", doc)}
        assert len(found) == 1, f"{package.relative_to(ROOT)} names notebooks {sorted(found)}"
        (nb,) = found
        assert nb not in named, f"{nb} has two packages: {named.get(nb)}, {package.name}"
        named[nb] = package.name


@pytest.mark.parametrize("paper", sorted(FLAT_LABS))
def test_flat_labs_stay_flat(paper):
    assert not _packages(ROOT / paper / "lab"), (
        f"{paper}/lab has packages: declare it in LAB_SHARED"
    )


def test_the_lab_layout_check_sees_a_stray_module(tmp_path, monkeypatch):
    """A notebook's module left at a lab's top level fails the layout check."""
    fake = tmp_path / "lib" / "routelab"
    for rel in (
        "spatial/lab/__init__.py",
        "spatial/lab/regime.py",
        "spatial/lab/workload.py",
        "spatial/lab/bench.py",
        "spatial/lab/adjust_claims.py",
    ):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text('"""x"""\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake)
    with pytest.raises(AssertionError, match="adjust_claims"):
        test_every_lab_is_organised_by_notebook("spatial")


def test_s3tm_lab_has_one_package_per_notebook():
    assert {"routing", "matching", "drift", "shedding"} <= set(NOTEBOOK_PACKAGES)
    assert (S3TM_LAB / "shared.py").exists()


@pytest.mark.parametrize("package", NOTEBOOK_PACKAGES)
def test_s3tm_notebook_packages_import_only_the_shared_module(package):
    """No notebook package under s3tm/lab imports another (nor does shared.py import any);
    what two notebooks share lives in s3tm/lab/shared.py."""
    prefix = f"routelab.s3tm.lab.{package}"
    offenders = []
    for name, path in MODULES.items():
        if not (name == prefix or name.startswith(prefix + ".")):
            continue
        for imported in _imports(path):
            other = imported.removeprefix("routelab.s3tm.lab").lstrip(".").split(".")[0]
            if imported.startswith("routelab.s3tm.lab") and other not in ("", "shared", package):
                offenders.append(f"{name} imports {imported}")
    shared = MODULES["routelab.s3tm.lab.shared"]
    offenders += [
        f"shared imports {m}" for m in _imports(shared) if m.startswith(prefix + ".") or m == prefix
    ]
    assert not offenders, offenders


def _resolves(name: str) -> bool:
    import importlib

    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_routelab_name_in_the_docs_resolves():
    """A docstring, README or READINGS entry that names ``routelab.x.y`` names a module or an
    attribute that exists, so a move or rename cannot leave a reader at a dead end."""
    import re

    pattern = re.compile(r"\broutelab(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
    sources = [*ROOT.rglob("*.py"), *ROOT.rglob("*.md"), LIB.parent / "README.md"]
    dead = sorted(
        {
            f"{path.relative_to(LIB.parent)}: {name}"
            for path in sources
            for name in pattern.findall(path.read_text())
            if not name.endswith((".py", ".md", ".json", ".txt", ".properties"))
            and not _resolves(name)
        }
    )
    assert not dead, dead


def test_commands_never_import_notebook_code():
    """The CLI runs the algorithms on a user's data: ``routelab.commands`` reads user files
    through ``<paper>/io.py`` and never imports a ``lab`` (notebook code)."""
    offenders = [
        f"{name} imports {imported}"
        for name, path in MODULES.items()
        if name.startswith("routelab.commands")
        for imported in _imports(path)
        if ".lab" in imported
    ]
    assert not offenders, offenders


def test_user_file_readers_live_on_the_algorithm_side():
    """Each system that reads a user's own files does so in ``<paper>/io.py``."""
    for paper in ("s3tm", "filtering", "spatial"):
        assert (ROOT / paper / "io.py").exists(), paper
    assert not list(ROOT.glob("*/lab/files.py")) and not list(ROOT.glob("*/lab/interchange.py"))


def test_one_naming_convention_for_implementations():
    """A readable/fast pair is ``<topic>_reference.py`` + ``<topic>_kernel.py`` (functions
    ``<name>_reference`` / ``<name>_kernel``); each system's Spark version is ``dataflow.py``."""
    kernels = sorted(p for p in ROOT.rglob("*_kernel.py") if p.name != "jupyter_kernel.py")
    assert kernels
    for path in kernels:
        twin = path.with_name(path.name.replace("_kernel.py", "_reference.py"))
        assert twin.exists(), f"{path.relative_to(ROOT)} has no {twin.name}"
    for paper in ("s3tm", "grouping", "filtering", "spatial"):
        assert (ROOT / paper / "dataflow.py").exists(), paper
    odd = [p.name for p in ROOT.rglob("*.py") if p.stem in ("kernels", "reference", "replay")]
    assert not odd, odd
    assert not (ROOT / "kernel.py").exists()  # the Jupyter kernelspec is jupyter_kernel.py
