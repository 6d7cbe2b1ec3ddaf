"""``routelab bench compare`` (``make bench-compare REF=<commit>``): the benchmarks on an
earlier commit beside the work tree, interleaved in one run, with a history across commits.

REF is checked out in a temporary ``git worktree`` (removed afterwards, also on an error or
Ctrl-C). Each round runs the chosen benchmarks once on REF, then once on the work tree
(REF, HEAD, REF, HEAD, ...), each in a fresh subprocess of the same interpreter with
``PYTHONPATH=<tree>/lib``, so each side imports its own routelab and both share the machine's
state of the moment: a load that comes and goes hits both sides alike. The subprocess calls
that tree's own :func:`routelab.benchmarks.run_benchmarks` and writes its rows as JSON
(:data:`DRIVER`), so any commit that has ``routelab.benchmarks`` can be a REF.

A figure is one row's ``value``, named by its bench and :func:`figure_key`. Per figure the
report gives REF's and HEAD's median over the rounds, ``ratio`` = HEAD median / REF median
and the range of the rounds' paired ratios (HEAD_i / REF_i, round by round). The row's
``better`` (:func:`routelab.benchmarks.direction`) says which way is good; the *slowdown* is
HEAD's cost over REF's (``ratio`` for times, ``1 / ratio`` for rates), and a slowdown above
``1 + threshold`` (default 10 %) is flagged ``SLOWER``. A bench or figure that REF does not
have is reported as ``new, no baseline``.

Written: the raw rounds (``compare-<date>-<ref>-<head>.json``) and one line per run appended
to ``history.jsonl`` (date, machine, REF and HEAD commits, each figure's medians and ratio),
both under ``papermill_runs/bench/`` unless ``--out`` says otherwise. Only the standard
library: asv would need every benchmark written a second time in its own layout.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from routelab.errors import BadInputError, RoutelabError

#: a figure whose slowdown (HEAD's cost over REF's) exceeds ``1 + THRESHOLD`` is flagged
THRESHOLD = 0.10
DEFAULT_ROUNDS = 3
HISTORY_FILE = "history.jsonl"
SIDES = ("ref", "head")
NEW = "new, no baseline"
GONE = "gone at HEAD"

#: run in each round's subprocess, against that tree's routelab:
#: ``python -c DRIVER '{"names": [...], "quick": bool, "out": path}'``
DRIVER = r"""
import json, sys, time, traceback
args = json.loads(sys.argv[1])
result = {"python": sys.version.split()[0], "benches": {}}

def plain(o):
    if hasattr(o, "item"):
        return o.item()
    try:
        return float(o)
    except (TypeError, ValueError):
        return str(o)

try:
    import routelab
    from routelab import benchmarks
    known = getattr(benchmarks, "BENCHMARKS", {})
    result["routelab_file"] = routelab.__file__
except Exception as exc:
    benchmarks, known = None, {}
    result["import_error"] = f"{type(exc).__name__}: {exc}"
for name in args["names"]:
    if name not in known:
        result["benches"][name] = {"status": "missing"}
        continue
    t0 = time.perf_counter()
    try:
        rows = benchmarks.run_benchmarks([name], quick=args["quick"])
        result["benches"][name] = {"status": "ok", "rows": rows}
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        result["benches"][name] = {
            "status": "error",
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc()[-4000:],
        }
    result["benches"][name]["seconds"] = time.perf_counter() - t0
with open(args["out"], "w") as fh:
    json.dump(result, fh, default=plain)
"""


# --- figures and their comparison ---------------------------------------------------------


def figure_key(row: Mapping[str, Any]) -> str:
    """The name of a row's figure, the same on every commit and every round: the row's
    ``key`` if it has one, else its ``what`` up to the first ``" ("`` (the parenthesised
    rest often carries measured numbers: a load average, a generation time)."""
    if row.get("key"):
        return str(row["key"])
    return str(row.get("what", "")).split(" (", 1)[0].strip()


def keyed_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """One bench's rows by :func:`figure_key`; a key met again gets ``#2``, ``#3``..."""
    out: dict[str, Mapping[str, Any]] = {}
    for row in rows:
        key = base = figure_key(row)
        n = 1
        while key in out:
            n += 1
            key = f"{base} #{n}"
        out[key] = row
    return out


def _number(value: Any) -> float | None:
    """A finite float, or ``None``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _median(values: Sequence[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


@dataclass
class FigureComparison:
    """One figure on REF and on HEAD over the rounds."""

    bench: str
    figure: str
    unit: str
    better: str | None
    ref_values: list[float | None]
    head_values: list[float | None]
    ref_median: float | None = None
    head_median: float | None = None
    #: HEAD median / REF median
    ratio: float | None = None
    #: the range of the rounds' paired ratios HEAD_i / REF_i
    ratio_min: float | None = None
    ratio_max: float | None = None
    #: HEAD's cost over REF's: ``ratio`` for lower-is-better figures, ``1 / ratio`` for
    #: higher-is-better ones; ``None`` when the direction is unknown
    slowdown: float | None = None
    flagged: bool = False
    status: str = "compared"
    #: the flagging threshold: a slowdown above ``1 + threshold`` is flagged
    threshold: float = THRESHOLD

    @property
    def verdict(self) -> str:
        """What the maintainer reads: ``SLOWER by 15 %``, ``faster by 20 %``, ``same``..."""
        if self.status != "compared":
            return self.status
        if self.ratio is None:
            return "no figure"
        if self.slowdown is None:
            return "direction unknown"
        threshold = self.threshold
        disagree = (
            self.ratio_min is not None
            and self.ratio_max is not None
            and self.ratio_min <= 1.0 <= self.ratio_max
        )
        note = " (rounds disagree: rerun with more --rounds)" if disagree else ""
        if self.flagged:
            return f"SLOWER by {100 * (self.slowdown - 1):.0f} %{note}"
        if self.slowdown < 1 / (1 + threshold):
            return f"faster by {100 * (1 / self.slowdown - 1):.0f} %{note}"
        return f"same (within {100 * threshold:.0f} %)"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the history line's and the raw file's figure entry)."""
        data = asdict(self)
        data["verdict"] = self.verdict
        return data


def compare_figure(
    ref_values: Sequence[float | None],
    head_values: Sequence[float | None],
    better: str | None,
    *,
    threshold: float = THRESHOLD,
    bench: str = "",
    figure: str = "",
    unit: str = "",
) -> FigureComparison:
    """Medians, ratio, paired-ratio range and flag of one figure measured on both sides
    (one value per round; ``None`` where a round has no value)."""
    if not threshold >= 0:  # NaN too
        raise ValueError(f"threshold must be >= 0, not {threshold}")
    ref = [_number(v) for v in ref_values]
    head = [_number(v) for v in head_values]
    result = FigureComparison(bench, figure, unit, better, ref, head, threshold=threshold)
    result.ref_median, result.head_median = _median(ref), _median(head)
    if result.ref_median is None:
        result.status = NEW
        return result
    if result.head_median is None:
        result.status = GONE
        return result
    if result.ref_median == 0:
        return result
    result.ratio = result.head_median / result.ref_median
    paired = [h / r for r, h in zip(ref, head, strict=False) if r and h is not None]
    if paired:
        result.ratio_min, result.ratio_max = min(paired), max(paired)
    if better == "lower":
        result.slowdown = result.ratio
    elif better == "higher":
        result.slowdown = 1 / result.ratio if result.ratio else math.inf
    result.flagged = result.slowdown is not None and result.slowdown > 1 + threshold
    return result


def compare_rounds(
    rounds: Sequence[Mapping[str, Any]], names: Sequence[str], *, threshold: float = THRESHOLD
) -> tuple[list[FigureComparison], dict[str, dict[str, str]]]:
    """Every figure of the rounds (each ``{"round", "side", "benches": {name: {"status",
    "rows" | "error"}}}``, as :data:`DRIVER` writes them) compared, and per bench its
    problems by side (``{"matching": {"ref": "new, no baseline"}}``, errors)."""
    from routelab.benchmarks import direction

    n_rounds = max((int(r["round"]) for r in rounds), default=0)
    values: dict[tuple[str, str], dict[str, list[float | None]]] = {}
    meta: dict[tuple[str, str], Mapping[str, Any]] = {}
    problems: dict[str, dict[str, str]] = {}
    present: dict[str, set[str]] = {name: set() for name in names}
    for rnd in rounds:
        i, side = int(rnd["round"]) - 1, rnd["side"]
        for name in names:
            got = rnd.get("benches", {}).get(name, {"status": "missing"})
            if got.get("status") == "missing":
                problems.setdefault(name, {})[side] = NEW if side == "ref" else GONE
                continue
            if got.get("status") != "ok":
                problems.setdefault(name, {})[side] = f"error at {side.upper()}: " + str(
                    got.get("error", "failed")
                )
                continue
            present[name].add(side)
            for key, row in keyed_rows(got.get("rows", [])).items():
                slot = values.setdefault((name, key), {s: [None] * n_rounds for s in SIDES})
                slot[side][i] = _number(row.get("value"))
                if side == "head" or (name, key) not in meta:
                    meta[(name, key)] = row
    figures = []
    for name in names:
        for (bench, key), by_side in values.items():
            if bench != name:
                continue
            row = meta[(bench, key)]
            better = row.get("better") or direction(row.get("unit"))
            fig = compare_figure(
                by_side["ref"],
                by_side["head"],
                better,
                threshold=threshold,
                bench=bench,
                figure=key,
                unit=str(row.get("unit", "")),
            )
            # a side whose whole bench failed is an error, not a new or gone figure
            for side in SIDES:
                if side not in present[name] and name in problems and side in problems[name]:
                    fig.status = problems[name][side]
            figures.append(fig)
    return figures, problems


# --- printing, raw file, history -----------------------------------------------------------


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def format_comparison(
    figures: Sequence[FigureComparison], problems: Mapping[str, Mapping[str, str]]
) -> str:
    """The plain-text report: one line per figure, then the benches with no figures."""
    header = ("bench", "figure", "unit", "better", "REF", "HEAD", "HEAD/REF", "rounds", "")
    lines = [header]
    for f in figures:
        spread = (
            f"{f.ratio_min:.3f}-{f.ratio_max:.3f}"
            if f.ratio_min is not None and f.ratio_max is not None
            else "-"
        )
        name = f.figure if len(f.figure) <= 60 else f.figure[:57] + "..."
        lines.append(
            (
                f.bench,
                name,
                f.unit,
                f.better or "?",
                _fmt(f.ref_median),
                _fmt(f.head_median),
                "-" if f.ratio is None else f"{f.ratio:.3f}",
                spread,
                f.verdict,
            )
        )
    widths = [max(len(str(row[c])) for row in lines) for c in range(len(header))]
    right = {4, 5, 6}
    text = [
        "  ".join(
            str(cell).rjust(w) if c in right else str(cell).ljust(w)
            for c, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in lines
    ]
    for name, by_side in problems.items():
        for what in by_side.values():
            text.append(f"{name}: {what}" + (" (no such benchmark at REF)" if what == NEW else ""))
    return "\n".join(text)


def machine() -> dict[str, Any]:
    """The machine a run measured on."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "node": platform.node(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    with contextlib.suppress(OSError, AttributeError):
        info["load_average"] = round(os.getloadavg()[0], 2)
    return info


def history_line(
    *,
    ref: str,
    ref_commit: str,
    head_commit: str,
    head_dirty: bool,
    figures: Sequence[FigureComparison],
    rounds: int,
    quick: bool,
    names: Sequence[str],
    raw: str | None = None,
    date: str | None = None,
) -> dict[str, Any]:
    """One ``history.jsonl`` line: date, machine, REF and HEAD, each figure's medians,
    ratio and flag."""
    return {
        "date": date or datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "ref": {"name": ref, "commit": ref_commit},
        "head": {"commit": head_commit, "dirty": head_dirty},
        "rounds": rounds,
        "quick": quick,
        "benchmarks": list(names),
        "figures": [
            {
                "bench": f.bench,
                "figure": f.figure,
                "unit": f.unit,
                "better": f.better,
                "ref_median": f.ref_median,
                "head_median": f.head_median,
                "ratio": f.ratio,
                "ratio_min": f.ratio_min,
                "ratio_max": f.ratio_max,
                "slowdown": f.slowdown,
                "flagged": f.flagged,
                "status": f.status,
            }
            for f in figures
        ],
        "raw": raw,
    }


def append_history(path: Path, line: Mapping[str, Any]) -> None:
    """Append one JSON line (NaN written as null)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fh.write(json.dumps(_finite(line), allow_nan=False) + "\n")


def _finite(obj: Any) -> Any:
    """``obj`` with every non-finite float replaced by ``None`` (strict JSON)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


# --- git -----------------------------------------------------------------------------------


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=check, timeout=300
        )
    except FileNotFoundError:
        raise RoutelabError("bench compare needs git on PATH") from None
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or exc.stdout or "").strip().splitlines()
        raise RoutelabError(
            f"git {' '.join(args[:2])} failed: {detail[-1] if detail else exc}"
        ) from None


def git_root(start: Path) -> Path:
    """The top of the git checkout holding ``start``."""
    got = _git(start, "rev-parse", "--show-toplevel", check=False)
    if got.returncode != 0:
        raise RoutelabError(f"bench compare needs a git checkout; {start} is not in one")
    return Path(got.stdout.strip())


def resolve_ref(root: Path, ref: str) -> str:
    """The full commit id ``ref`` names, or a :class:`BadInputError` naming ``ref``."""
    if not ref or ref.startswith("-"):
        raise BadInputError(f"--ref {ref!r}: give a commit, branch or tag (e.g. HEAD~1)")
    got = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if got.returncode != 0 or not got.stdout.strip():
        raise BadInputError(
            f"--ref {ref!r}: no such commit in {root} (give a commit id, branch or tag, "
            "e.g. HEAD~1)"
        )
    return got.stdout.strip()


def head_state(root: Path) -> tuple[str, bool]:
    """HEAD's commit and whether ``lib/`` (the code the work-tree side runs) is modified."""
    commit = _git(root, "rev-parse", "HEAD").stdout.strip()
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no", "--", "lib").stdout
    return commit, bool(dirty.strip())


@contextlib.contextmanager
def ref_worktree(root: Path, commit: str, parent: Path) -> Iterator[Path]:
    """``commit`` checked out (detached) in a worktree under ``parent``, removed on exit
    whatever happens."""
    tree = parent / "ref-tree"
    try:
        _git(root, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        yield tree
    finally:
        _git(root, "worktree", "remove", "--force", str(tree), check=False)
        shutil.rmtree(tree, ignore_errors=True)
        _git(root, "worktree", "prune", check=False)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C, so the worktree is removed (main thread only)."""

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# --- one side of one round -----------------------------------------------------------------


def run_side(
    tree: Path,
    names: Sequence[str],
    *,
    quick: bool,
    scratch: Path,
    label: str,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The benchmarks ``names`` on ``tree``'s code in a fresh subprocess; its
    :data:`DRIVER` result (``{"benches": {name: {...}}}``). Output goes to a log file under
    ``scratch``; a subprocess that dies before writing its result is an error naming the
    log's last lines."""
    from routelab.paths import data_dir

    out = scratch / f"{label}.json"
    log = scratch / f"{label}.log"
    child = dict(os.environ if env is None else env)
    child.pop("ROUTELAB_HOME", None)  # each tree finds its own root
    child["PYTHONPATH"] = str(tree / "lib")
    child["ROUTELAB_DATA_DIR"] = str(data_dir())  # both sides read the same prepared data
    args = json.dumps({"names": list(names), "quick": quick, "out": str(out)})
    t0 = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.run(
            [sys.executable, "-c", DRIVER, args], cwd=tree, env=child, stdout=fh, stderr=fh
        )
    seconds = time.perf_counter() - t0
    if proc.returncode != 0 or not out.exists():
        tail = log.read_text(errors="replace").strip().splitlines()[-5:]
        reason = f"the benchmark process exited with {proc.returncode}: " + " | ".join(tail)
        return {
            "seconds": seconds,
            "benches": {n: {"status": "error", "error": reason} for n in names},
        }
    result = json.loads(out.read_text())
    result["seconds"] = seconds
    return result


# --- the whole comparison ------------------------------------------------------------------


@dataclass
class CompareResult:
    """What :func:`compare` measured and wrote."""

    ref: str
    ref_commit: str
    head_commit: str
    head_dirty: bool
    figures: list[FigureComparison]
    problems: dict[str, dict[str, str]]
    raw_path: Path
    history_path: Path

    @property
    def flagged(self) -> list[FigureComparison]:
        """The figures slower on HEAD by more than the threshold."""
        return [f for f in self.figures if f.flagged]

    @property
    def head_errors(self) -> dict[str, str]:
        """Benches that failed on the work tree."""
        return {
            name: by_side["head"]
            for name, by_side in self.problems.items()
            if by_side.get("head", "").startswith("error")
        }


def compare(
    ref: str,
    names: Sequence[str] | None = None,
    *,
    rounds: int = DEFAULT_ROUNDS,
    quick: bool = False,
    out_dir: Path | None = None,
    threshold: float = THRESHOLD,
    root: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> CompareResult:
    """Run ``names`` (default: every benchmark of the work tree) on ``ref`` and on the work
    tree, interleaved for ``rounds`` rounds; write the raw rounds and a history line under
    ``out_dir`` (default ``papermill_runs/bench``)."""
    from routelab.benchmarks import BENCHMARKS
    from routelab.paths import repo_root, runs_dir

    say = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if rounds < 1:
        raise BadInputError(f"--rounds {rounds}: give at least 1")
    names = list(names or BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise BadInputError(
            f"unknown benchmark {', '.join(map(repr, unknown))}; choose from "
            f"{', '.join(BENCHMARKS)}"
        )
    work = root or repo_root()
    top = git_root(work)
    ref_commit = resolve_ref(top, ref)
    head_commit, head_dirty = head_state(top)
    out = Path(out_dir) if out_dir is not None else runs_dir() / "bench"
    if out.exists() and not out.is_dir():
        raise BadInputError(f"--out {out} is an existing file; give a directory")
    say(
        f"bench compare: REF {ref} = {ref_commit[:10]}, HEAD = {head_commit[:10]}"
        f"{' + modified lib/' if head_dirty else ''}; {rounds} round(s) of "
        f"{', '.join(names)}{' (quick)' if quick else ''}"
    )
    raw_rounds: list[dict[str, Any]] = []
    started = datetime.now(UTC)
    scratch = Path(tempfile.mkdtemp(prefix="routelab-bench-compare-"))
    try:
        with _sigterm_as_interrupt(), ref_worktree(top, ref_commit, scratch) as ref_tree:
            trees = {"ref": ref_tree, "head": work}
            for i in range(1, rounds + 1):
                for side in SIDES:
                    got = run_side(
                        trees[side], names, quick=quick, scratch=scratch, label=f"r{i}-{side}"
                    )
                    raw_rounds.append({"round": i, "side": side, **got})
                    states = ", ".join(
                        f"{n} {b.get('status')}" for n, b in got.get("benches", {}).items()
                    )
                    say(f"  round {i}/{rounds} {side.upper():4s} {got['seconds']:6.1f} s  {states}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures, problems = compare_rounds(raw_rounds, names, threshold=threshold)
    out.mkdir(parents=True, exist_ok=True)
    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    raw_path = out / f"compare-{stamp}-{ref_commit[:10]}-{head_commit[:10]}.json"
    raw = {
        "command": "routelab bench compare",
        "started_at": started.isoformat(timespec="seconds"),
        "machine": machine(),
        "ref": {"name": ref, "commit": ref_commit},
        "head": {"commit": head_commit, "dirty": head_dirty},
        "benchmarks": names,
        "rounds": rounds,
        "quick": quick,
        "threshold": threshold,
        "order": "interleaved: REF then HEAD in each round, a fresh process each",
        "raw_rounds": raw_rounds,
        "figures": [f.to_dict() for f in figures],
        "problems": problems,
    }
    raw_path.write_text(json.dumps(_finite(raw), indent=1, default=str) + "\n")
    history_path = out / HISTORY_FILE
    append_history(
        history_path,
        history_line(
            ref=ref,
            ref_commit=ref_commit,
            head_commit=head_commit,
            head_dirty=head_dirty,
            figures=figures,
            rounds=rounds,
            quick=quick,
            names=names,
            raw=raw_path.name,
            date=started.isoformat(timespec="seconds"),
        ),
    )
    return CompareResult(
        ref, ref_commit, head_commit, head_dirty, figures, problems, raw_path, history_path
    )
