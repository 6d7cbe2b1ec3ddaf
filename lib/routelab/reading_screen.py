"""Which reading decides which row: a screen of one notebook, bisected down to the readings.

A notebook is reached by several flippable readings (:data:`routelab.readings.FLIPS`); one
run per reading alone is the plain way to find the rows each decides, but most readings
decide nothing, and a run of notebook 11 or 13 takes many minutes. The screen runs the
notebook once with every reading flipped together; where that moves no row, the group is
done in one run. Where it moves rows, the readings are split in two halves and each half
is run, recursively, down to single readings (adaptive group testing):

- a reading alone that moves rows is a **finding** (it decides them);
- a half that moves nothing is a finding too: no row is decided by that combination;
- rows a group moves that neither of its halves moves (nor any set below them) are an
  **interaction**: the group's readings decide them together, no half of them does, so they
  are kept under the group (flagged ``together`` in the ledger).

With one deciding reading among ``k`` the screen takes about ``1 + 2 log2 k`` runs instead
of ``k``. Rows a half moves that its group did not (readings whose effects cancel) are
kept too: each finding is what its own run moved against the default run. Like
:func:`routelab.readings.record`, every finding compares one run with one default run.

A row the machine's load moves (a timing row near its bar) would move in every run and
send the screen down to every single reading. Control runs, more default runs beside the
base, name those rows (:func:`routelab.readings.noisy_rows`): they are left out of every
run's moved rows, so they neither decide a finding nor drive the bisection, and the screen
lists them (``Screen.noisy``).

One run against one default run cannot tell a reading's effect from a second run's noise
that the controls happened not to show (a timing row near its bar). Two guards:

- **Regrading** (``regrade``): a set of readings that change only how rows are graded
  (every one :attr:`~routelab.readings.Flip.graded_only`) moves nothing a run measures, so
  its verdicts are computed from the default run's own saved measurements under those
  readings (:data:`REGRADERS`, :func:`regrader`): exact, and about 25 s a regrade of
  notebook 11 against 17 minutes a run (a 2-core VM).
- **Confirmation** (``confirm``): a single reading that moves rows, and a group that keeps
  rows as an interaction, is run a second time, and only the rows both runs move to the
  same verdict are its finding; the others are listed as ``unconfirmed`` (noise). Regraded
  findings need no second run.

The runs themselves are ``routelab figures --only NB`` in a subprocess per set of readings
(:func:`figures_runner`), each in its own figures and runs directories; the screen takes
any ``run(keys, repeat=0) -> results.json`` (tests pass a fake).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, Protocol

from routelab.errors import BadInputError
from routelab.readings import FLIP_ENV, FLIPS, load_run, moved_rows, noisy_rows, run_verdicts


class Runner(Protocol):
    """One run of the notebook with these readings flipped (none: the default run) ->
    its results.json; ``repeat`` > 0: another run of the same readings, kept apart."""

    def __call__(self, keys: tuple[str, ...], repeat: int = 0) -> Path: ...


#: one default run's results.json and a set of graded-only readings -> the results.json of
#: that run regraded under them (:func:`regrader`)
Regrade = Callable[[Path, tuple[str, ...]], Path]

#: notebook -> "module:function" of its regrader: ``function(results.json) -> claim rows``
#: (:meth:`routelab.report.NotebookReport.claim`'s arguments),
#: the run's claims table rebuilt from its saved measurements under the readings flipped in
#: this process (:attr:`routelab.readings.Flip.graded_only` readings name only these notebooks)
REGRADERS: dict[str, str] = {
    "11_ps2stream_partitioning": "routelab.spatial.lab.partitioning.claims:regrade",
}


@dataclass(frozen=True)
class Finding:
    """What one run of the screen found: the readings flipped (``keys``), the rows it
    moved against the default run (claim -> (default verdict, verdict under the keys)),
    its ``results.json``, and whether the rows are an interaction (moved by the group,
    by neither of its halves nor any set the screen ran below them); for a single reading
    or a group's interaction run twice (``confirm``), ``moved`` keeps the rows both runs
    move to the same verdict."""

    keys: tuple[str, ...]
    moved: dict[str, tuple[str, str]]
    path: Path
    together: bool = False
    #: the second run under the same readings that confirmed ``moved`` (``confirm``)
    confirm: Path | None = None
    #: rows the first run moved that the second did not move to the same verdict
    unconfirmed: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: ``path`` is the default run regraded under the readings, not a run of the notebook
    regraded: bool = False


@dataclass
class Screen:
    """A finished screen: its findings, every run it made (keys, seconds) in order, and the
    rows left out as noise (claim -> the base's verdict, then each differing control's)."""

    notebook: str
    base: Path
    findings: list[Finding] = field(default_factory=list)
    runs: list[tuple[tuple[str, ...], float]] = field(default_factory=list)
    noisy: dict[str, list[str]] = field(default_factory=dict)


def verdicts(path: Path, notebook: str, default: bool = False) -> dict[str, str]:
    """claim -> verdict of one run of ``notebook`` (its ``results.json`` or a directory
    holding it); a run of another notebook, or with a flipped reading where ``default`` is
    asked for, is an error naming the file."""
    data = load_run(Path(path))
    if data.get("notebook") != notebook:
        raise BadInputError(f"{path}: a run of {data.get('notebook')!r}, not of {notebook!r}")
    if default and data.get("reading"):
        raise BadInputError(
            f"{path}: a run under the flipped reading {data['reading']!r}, not a default run"
        )
    return run_verdicts(data)


def reaching(notebook: str, skip: Sequence[str] = ()) -> tuple[str, ...]:
    """The flippable readings that reach ``notebook`` (sorted), less ``skip``."""
    unknown = [k for k in skip if k not in FLIPS]
    if unknown:
        raise BadInputError(f"unknown reading(s) {unknown}; known: {', '.join(sorted(FLIPS))}")
    keys = tuple(sorted(k for k, f in FLIPS.items() if notebook in f.notebooks))
    if not keys:
        known = sorted({nb for f in FLIPS.values() for nb in f.notebooks})
        raise BadInputError(f"no flippable reading reaches {notebook!r}; notebooks: {known}")
    return tuple(k for k in keys if k not in skip)


def screen(
    notebook: str,
    keys: Sequence[str],
    run: Runner,
    base: Path | None = None,
    log: Callable[[str], None] = print,
    controls: Sequence[Path] = (),
    regrade: Regrade | None = None,
    confirm: bool = False,
) -> Screen:
    """Screen ``notebook`` for the readings ``keys``: run them together, then bisect every
    set that moves rows (module docstring). ``base`` is a default run's results.json (run
    first when ``None``); ``controls``: more default runs, the rows they move against the
    base left out as noise; ``regrade``: a set of graded-only readings is regraded from the
    base run instead of run (:func:`regrader`); ``confirm``: a single reading that moves rows,
    or a group that keeps interaction rows, is run again and keeps only the rows both runs
    move; ``log`` gets one line per run."""
    keys = tuple(sorted(set(keys)))
    if not keys:
        raise BadInputError("no reading to screen")
    unknown = [k for k in keys if k not in FLIPS]
    if unknown:
        raise BadInputError(f"unknown reading(s) {unknown}; known: {', '.join(sorted(FLIPS))}")
    out = Screen(notebook, Path(base) if base is not None else Path())

    def graded(ks: tuple[str, ...]) -> bool:
        return regrade is not None and bool(ks) and all(FLIPS[k].graded_only for k in ks)

    def timed(ks: tuple[str, ...], repeat: int = 0) -> Path:
        label = ",".join(ks) or "(default)"
        if graded(ks):
            assert regrade is not None
            log(f"regrade: {notebook}'s default run under {label} (graded-only readings)")
            return regrade(out.base, ks)
        again = f" (again, run {repeat + 1} of these readings)" if repeat else ""
        log(f"run {len(out.runs) + 1}: {notebook} under {label}{again} ...")
        t0 = time.perf_counter()
        path = run(ks, repeat) if repeat else run(ks)
        out.runs.append((ks, time.perf_counter() - t0))
        return path

    if base is None:
        out.base = timed(())
    ours = verdicts(out.base, notebook, default=True)
    for control in controls:
        verdicts(control, notebook, default=True)  # a control of another notebook: its error
    out.noisy = noisy_rows(out.base, controls)
    if out.noisy:
        log(f"left out as noise (a control default run moves them): {', '.join(out.noisy)}")

    def attribute(ks: tuple[str, ...], path: Path) -> set[str]:
        """Bisect ``ks``; the rows found anywhere at or below it (so a group above never
        keeps a row a smaller set explains, even one whose effect this set cancels)."""
        moved = {c: v for c, v in moved_rows(ours, verdicts(path, notebook)).items()
                 if c not in out.noisy}  # fmt: skip
        log(f"  {','.join(ks)}: {len(moved)} row(s) moved")
        if not moved or len(ks) == 1:
            find(ks, moved, path)
            return set(moved)
        half = len(ks) // 2
        explained: set[str] = set()
        for part in (ks[:half], ks[half:]):
            explained |= attribute(part, timed(part))
        rest = {c: v for c, v in moved.items() if c not in explained}
        if rest:
            find(ks, rest, path, together=True)
        return set(moved) | explained

    def find(
        ks: tuple[str, ...], moved: dict[str, tuple[str, str]], path: Path, together: bool = False
    ) -> None:
        """Keep ``moved`` as the finding of ``ks`` (a single reading's rows, or a group's
        interaction rows, ``together``); under ``confirm``, readings that moved rows and were
        run (not regraded) are run a second time, and only the rows that run moves the same
        way are kept."""
        if not (moved and confirm and not graded(ks)):
            out.findings.append(Finding(ks, moved, path, together, regraded=graded(ks)))
            return
        again = timed(ks, repeat=1)
        twice = moved_rows(ours, verdicts(again, notebook))
        kept = {c: v for c, v in moved.items() if twice.get(c) == v}
        log(f"  {','.join(ks)} again: {len(kept)} of {len(moved)} row(s) confirmed")
        out.findings.append(Finding(ks, kept, path, together, confirm=again, unconfirmed={
            c: v for c, v in moved.items() if c not in kept}))  # fmt: skip

    attribute(keys, timed(keys))
    return out


def _this_commit() -> str | None:
    """The checkout's commit (:func:`routelab.paths.git_commit`), or None when it is modified
    or unknown: then no earlier run can be told to be this code's."""
    from routelab.paths import git_commit

    commit = git_commit()
    return None if commit.endswith("+dirty") or commit == "unknown" else commit


def finished_run(where: Path, notebook: str, profile: str, keys: Sequence[str]) -> bool:
    """Whether ``where`` (one run's folder of :func:`figures_runner`) holds a run of
    ``notebook`` under ``profile`` with exactly ``keys`` flipped that finished well and was
    made by this very code: its ``results.json`` names the notebook, profile, readings and
    the checkout's commit (:func:`routelab.paths.git_commit`, which must be clean: a run of a
    modified tree cannot be told from another modification's), and its ``run_log.json``
    says the run succeeded under that commit (a run that wrote its results and then failed,
    or was stopped before the end, is not taken)."""
    commit = _this_commit()
    if commit is None:
        return False
    results = where / "figures" / notebook / "results.json"
    log = where / "runs" / profile / "run_log.json"
    try:
        data, done = load_run(results), json.loads(log.read_text())
    except (BadInputError, OSError, ValueError):
        return False
    if not isinstance(data, dict) or not isinstance(done, dict):
        return False
    ran = [r for r in done.get("runs", []) if isinstance(r, dict) and r.get("notebook") == notebook]
    return (
        (data.get("notebook"), data.get("profile"), data.get("git_commit"))
        == (notebook, profile, commit)
        and (data.get("reading") or "") == ",".join(sorted(keys))
        and done.get("git_commit") == commit
        and done.get("ok") is True
        and [r.get("status") for r in ran] == ["ok"]
    )


def figures_runner(
    notebook: str,
    profile: str,
    out_dir: Path,
    timeout: float | None = None,
    resume: bool = False,
    log: Callable[[str], None] = print,
) -> Runner:
    """A :data:`Runner` that runs ``routelab figures --profile PROFILE --only NOTEBOOK`` in a
    subprocess with :data:`~routelab.readings.FLIP_ENV` set to the keys, its figures and
    executed notebooks under ``out_dir/<keys or default>``; a failed run is an error naming
    the notebook, the readings and the run's log. ``resume``: a run already there that
    :func:`finished_run` accepts (same notebook, profile, readings and commit) is taken as
    it is, so a screen stopped part-way (a session's end, a notebook 11 run taking 9 minutes
    each) goes on where it stopped; any other run there is replaced. ``repeat`` > 0: a second
    run of the same readings, in a folder of its own (``<keys>~2``)."""

    if resume and _this_commit() is None:
        from routelab.paths import git_commit

        log(f"--resume takes no run: the checkout's commit is {git_commit()!r} (modified or "
            "unknown), so no earlier run can be told to be this code's")  # fmt: skip

    def run(keys: tuple[str, ...], repeat: int = 0) -> Path:
        tag = "+".join(keys) or "default"
        if len(tag) > 80:  # a long group: named by its size and a digest of its keys
            tag = f"group{len(keys)}-{hashlib.sha1(tag.encode()).hexdigest()[:10]}"
        if repeat:
            tag += f"~{repeat + 1}"
        where = Path(out_dir) / profile / tag
        results = where / "figures" / notebook / "results.json"
        if resume and finished_run(where, notebook, profile, keys):
            log(f"  (taken from the finished run in {where})")
            return results
        if resume and where.exists():
            log(f"  (run again: {where} holds no run of this commit that finished well)")
        if where.exists():  # an earlier screen's run: never read as this one's
            shutil.rmtree(where)
        where.mkdir(parents=True)
        env = dict(os.environ, **{FLIP_ENV: ",".join(keys),
                                  "ROUTELAB_FIGURES_DIR": str(where / "figures"),
                                  "ROUTELAB_RUNS_DIR": str(where / "runs")})  # fmt: skip
        cmd = [sys.executable, "-m", "routelab.cli", "figures", "--profile", profile, "--only",
               notebook]  # fmt: skip
        log_path = where / "run.log"
        what = f"{notebook} under {','.join(keys) or 'no flipped reading'}"
        with log_path.open("w") as fh:
            try:
                done = subprocess.run(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                      timeout=timeout, check=False)  # fmt: skip
            except subprocess.TimeoutExpired as exc:
                raise BadInputError(
                    f"{what} ran past --timeout {timeout:g} s; see {log_path}"
                ) from exc
        if done.returncode != 0 or not results.is_file():
            raise BadInputError(f"{what} failed (exit {done.returncode}); see {log_path}")
        return results

    return run


@contextmanager
def _flipped(keys: Sequence[str]) -> Iterator[None]:
    """:data:`~routelab.readings.FLIP_ENV` set to ``keys`` in this process for the block."""
    before = os.environ.get(FLIP_ENV)
    os.environ[FLIP_ENV] = ",".join(keys)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(FLIP_ENV, None)
        else:
            os.environ[FLIP_ENV] = before


def regrader(notebook: str, out_dir: Path) -> Regrade | None:
    """A :data:`Regrade` for ``notebook`` (None when it has no :data:`REGRADERS` entry): it
    rebuilds a default run's claims table from that run's saved measurements under the
    readings (flipped in this process for the call) and writes a copy of the run's
    ``results.json`` with those claims, the readings under ``"reading"``, the default
    run's path under ``"regraded_from"`` and the regrading code's commit under
    ``"git_commit"`` (the rules are this code's), into ``out_dir/<keys>/``. Before the first regrade
    it regrades the default run unflipped: if that does not give the run's own verdicts
    (the rules changed since it ran), it is an error naming the rows, since the regraded
    verdicts would not be comparable with the run's."""
    if notebook not in REGRADERS:
        return None
    module, name = REGRADERS[notebook].split(":")
    checked: set[Path] = set()

    def rows(base: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        data = load_run(base)
        if data.get("notebook") != notebook:
            raise BadInputError(f"{base}: a run of {data.get('notebook')!r}, not {notebook!r}")
        from routelab.report import claim_row

        where = base if base.is_file() else base / notebook / "results.json"
        return data, [asdict(claim_row(**r)) for r in getattr(import_module(module), name)(where)]

    def regrade(base: Path, keys: tuple[str, ...]) -> Path:
        base = Path(base)
        if base not in checked:
            with _flipped(()):
                data, again = rows(base)
            moved = moved_rows(run_verdicts(data), run_verdicts({"claims": again}))
            if moved:
                raise BadInputError(
                    f"{base}: its saved measurements regraded under the default readings do "
                    f"not give its own verdicts ({'; '.join(f'{c}: {a} -> {b}' for c, (a, b) in moved.items())}), "
                    "so the rules changed since it ran: run the readings instead"
                )  # fmt: skip
            checked.add(base)
        with _flipped(keys):
            data, again = rows(base)
        where = Path(out_dir) / "+".join(keys) / notebook
        where.mkdir(parents=True, exist_ok=True)
        path = where / "results.json"
        from routelab.paths import git_commit

        path.write_text(json.dumps({**data, "claims": again, "reading": ",".join(keys),
                                    "regraded_from": str(base), "git_commit": git_commit()},
                                   indent=1, default=str))  # fmt: skip
        return path

    return regrade
