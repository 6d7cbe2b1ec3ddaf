"""The figure runner: execute notebooks headlessly with papermill and log the run.

``routelab figures --profile smoke|default|paper [--only NAME]`` calls :func:`run_notebooks`:

- every ``notebooks/NN_*.ipynb`` (or those named by ``only``) runs in a fresh kernel with
  the profile's parameters injected after its ``parameters`` cell;
- the executed notebook goes to ``papermill_runs/<profile>/<name>.ipynb``;
- ``papermill_runs/<profile>/run_log.json`` records, per notebook, parameters, duration,
  status, the failing cell (if any) and the git commit; each run is also appended to
  ``papermill_runs/history.jsonl``;
- notebooks write their figures and ``results.json`` to ``figures/<name>/`` themselves
  (through :class:`routelab.report.NotebookReport`);
- a failing notebook is reported with its failing cell and error, the others still run,
  and the result says the run failed (the CLI exits non-zero).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from routelab.errors import RoutelabError
from routelab.jupyter_kernel import KERNEL_NAME, IPCKernelManager, ensure_kernel
from routelab.paths import figures_dir, git_commit, notebooks_dir, runs_dir
from routelab.profiles import check_profile, parameters_for
from routelab.progress import BATCH_ENV


@dataclass
class NotebookRun:
    """The outcome of one notebook execution."""

    notebook: str
    status: str  # "ok" or "failed"
    seconds: float
    parameters: dict[str, Any]
    output: str
    failed_cell: int | None = None
    failed_source: str | None = None
    error: str | None = None

    def describe(self) -> str:
        if self.status == "ok":
            return f"{self.notebook}: ok in {self.seconds:.1f} s"
        where = f"cell {self.failed_cell}" if self.failed_cell is not None else "setup"
        first = (self.failed_source or "").strip().splitlines()[:1]
        snippet = f" [{first[0][:70]}]" if first else ""
        return f"{self.notebook}: FAILED at {where}{snippet}: {self.error}"


@dataclass
class RunLog:
    """All notebook runs of one ``routelab figures`` call."""

    profile: str
    git_commit: str
    started_at: str
    runs: list[NotebookRun] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(r.status == "ok" for r in self.runs)

    @property
    def failed(self) -> list[NotebookRun]:
        return [r for r in self.runs if r.status != "ok"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "git_commit": self.git_commit,
            "started_at": self.started_at,
            "seconds": round(self.seconds, 2),
            "ok": self.ok,
            "runs": [asdict(r) for r in self.runs],
        }


def discover_notebooks(only: Sequence[str] | None = None) -> list[Path]:
    """The notebooks to run, in name order; ``only`` filters by name (with or without
    ``.ipynb``, or a unique prefix such as ``01``)."""
    all_books = sorted(p for p in notebooks_dir().glob("[0-9][0-9]_*.ipynb"))
    if not only:
        return all_books
    chosen: list[Path] = []
    for name in only:
        stem = name.removesuffix(".ipynb")
        matches = [p for p in all_books if p.stem == stem] or [
            p for p in all_books if p.stem.startswith(stem)
        ]
        if len(matches) != 1:
            names = ", ".join(p.stem for p in all_books)
            reason = "no notebook" if not matches else "several notebooks"
            raise RoutelabError(f"{reason} named {name!r}; available: {names}")
        if matches[0] not in chosen:
            chosen.append(matches[0])
    return chosen


def _error_details(exc: Exception) -> dict[str, Any]:
    """Failing cell index, its source and the error, from a papermill exception."""
    cell = getattr(exc, "cell_index", None)
    ename = getattr(exc, "ename", None)
    evalue = getattr(exc, "evalue", None)
    error = f"{ename}: {evalue}" if ename else f"{type(exc).__name__}: {exc}"
    return {
        "failed_cell": cell,
        "failed_source": getattr(exc, "source", None),
        "error": error.strip()[:2000],
    }


def run_notebook(
    path: Path,
    profile: str,
    out_dir: Path,
    *,
    extra_parameters: dict[str, Any] | None = None,
    timeout: int | None = None,
) -> NotebookRun:
    """Execute one notebook with papermill; never raises for a failing cell."""
    import papermill as pm

    parameters = {**parameters_for(profile, path.stem), **(extra_parameters or {})}
    output = out_dir / path.name
    start = time.perf_counter()
    try:
        with _batch_environment():
            pm.execute_notebook(
                str(path),
                str(output),
                parameters=parameters,
                cwd=str(path.parent),
                kernel_name=KERNEL_NAME,
                kernel_manager_class=IPCKernelManager,
                progress_bar=False,
                log_output=False,
                execution_timeout=timeout,
            )
        freeze_widgets(output)
        details: dict[str, Any] = {}
        status = "ok"
    except Exception as exc:  # a failed cell, a dead kernel, a bad notebook file
        details = _error_details(exc)
        status = "failed"
    return NotebookRun(
        notebook=path.stem,
        status=status,
        seconds=time.perf_counter() - start,
        parameters=parameters,
        output=str(output),
        **details,
    )


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def freeze_widgets(path: Path) -> int:
    """Replace each widget in an executed notebook by the default view it carries as HTML
    (:func:`routelab.plots.widget_view`): once the kernel is gone a widget has no model, and
    JupyterLab would show "Error displaying widget: model not found" where nbconvert and
    Lab can both show the HTML. Returns the number of outputs changed."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    changed = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW in data and "text/html" in data:
                del data[WIDGET_VIEW]
                changed += 1
    if changed:
        nbformat.write(nb, path)
    return changed


@contextlib.contextmanager
def _batch_environment() -> Iterator[None]:
    """Kernels started inside inherit ``ROUTELAB_BATCH=1`` (no progress widgets)."""
    old = os.environ.get(BATCH_ENV)
    os.environ[BATCH_ENV] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(BATCH_ENV, None)
        else:
            os.environ[BATCH_ENV] = old


def last_seconds(profile: str, history: Path | None = None) -> dict[str, float]:
    """Per notebook, the seconds of its latest successful run under ``profile`` recorded in
    ``history`` (default: ``papermill_runs/history.jsonl``, one line per ``routelab
    figures`` call, on this machine); unreadable lines are skipped."""
    path = history if history is not None else runs_dir() / "history.jsonl"
    found: dict[str, float] = {}
    if not path.exists():
        return found
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(entry, dict) or entry.get("profile") != profile:
            continue
        for run in entry.get("runs", []):
            if run.get("status") == "ok" and isinstance(run.get("seconds"), int | float):
                found[str(run["notebook"])] = float(run["seconds"])
    return found


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60:02d} min"


def remaining_estimate(
    notebooks: Sequence[str], profile: str, history: Path | None = None
) -> str | None:
    """What is left, from the last recorded run times of these notebooks on this machine
    (:func:`last_seconds`): "about 23 min left for 4 notebooks (by their last runs here)",
    naming the notebooks never run here; ``None`` when none has a recorded time (then
    nothing is known: times differ a lot between machines)."""
    known = last_seconds(profile, history)
    timed = [n for n in notebooks if n in known]
    if not timed:
        return None
    total = sum(known[n] for n in timed)
    text = (
        f"{_duration(total)} left for {len(timed)} notebook{'s' if len(timed) != 1 else ''} "
        f"(by their last {profile} runs on this machine)"
    )
    unknown = [n for n in notebooks if n not in known]
    if unknown:
        text += f", plus {', '.join(unknown)} (never run here)"
    return text


def run_notebooks(
    profile: str = "default",
    only: Sequence[str] | None = None,
    *,
    progress: bool = True,
    extra_parameters: dict[str, Any] | None = None,
    timeout: int | None = None,
) -> RunLog:
    """Run the notebooks under a profile; write executed notebooks and the run log.

    Returns the :class:`RunLog`; check ``.ok`` (the CLI exits 1 when a notebook failed).
    """
    from tqdm.auto import tqdm

    check_profile(profile)
    ensure_kernel()
    books = discover_notebooks(only)
    if not books:
        raise RoutelabError(f"no notebooks found in {notebooks_dir()}")
    out_dir = runs_dir() / profile
    out_dir.mkdir(parents=True, exist_ok=True)
    figures_dir().mkdir(parents=True, exist_ok=True)
    # kernels inherit these, so notebooks write where this run says
    os.environ["ROUTELAB_FIGURES_DIR"] = str(figures_dir())
    os.environ["ROUTELAB_RUNS_DIR"] = str(runs_dir())
    log = RunLog(
        profile=profile,
        git_commit=git_commit(),
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    start = time.perf_counter()
    bar = tqdm(books, desc=f"notebooks ({profile})", unit="nb", disable=not progress)
    for k, path in enumerate(bar):
        bar.set_postfix_str(path.stem)
        estimate = remaining_estimate([p.stem for p in books[k:]], profile)
        if progress and estimate:
            bar.write(f"{path.stem}: starting; {estimate}")
        run = run_notebook(
            path, profile, out_dir, extra_parameters=extra_parameters, timeout=timeout
        )
        log.runs.append(run)
        bar.write(run.describe())
    bar.close()
    log.seconds = time.perf_counter() - start
    (out_dir / "run_log.json").write_text(json.dumps(log.to_dict(), indent=2) + "\n")
    with (runs_dir() / "history.jsonl").open("a") as history:
        history.write(json.dumps(log.to_dict()) + "\n")
    return log
