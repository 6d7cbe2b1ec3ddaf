"""Subcommands of the ``routelab`` CLI: one pattern, ``routelab <system> <verb>``.

Systems (one module each, each with ``register(subparsers)``): ``s3tm.py`` (S3-TM:
``preprocess``, ``stats``, ``subscriptions``, ``route``, ``match``; the verbs live in
``preprocess.py``, ``stats.py``, ``subscriptions.py``, ``s3tm_route.py``, ``s3tm_match.py``),
``grouping.py`` (PKG and FISH: ``run``), ``filtering.py`` (Fabret et al.: ``export``,
``match``, ``churn``), ``spatial.py`` (PS2Stream: ``match``, ``adjust``), ``compare.py`` (the five routers side by
side: ``run``). Workbench commands: ``datasets.py``
(pinned real data), ``generate.py`` (synthetic posts and key streams), ``figures.py`` (run the
notebooks), ``claims.py`` (every notebook's claims table), ``readings.py`` (readings flipped
for a run: ``list``, ``record``), ``bench.py`` (benchmarks: ``run``, and
``compare`` against an earlier commit).
:mod:`routelab.cli` lists the modules it loads.

The shared options and files live here, so every verb reads and writes alike:

- ``--algorithm NAME[,NAME...]``: choices read from the system's
  :class:`~routelab.methods.MethodRegistry` (:func:`add_algorithm_option`);
- ``--workers N[,N...]`` (:func:`add_workers_option`);
- ``--out DIR`` + ``--overwrite`` + ``--format csv|parquet|json`` (:func:`add_output_options`),
  written through :class:`Outputs`: the verb's tables (``matches``, ``workers``,
  ``results``; ``periods`` and ``migrations`` of ``spatial adjust``, ``steps`` of
  ``filtering churn``), ``summary.json`` (parameters, counts, timings, routelab version and commit)
  and ``bad_records.json`` (reason, file:line, excerpt);
- ``--master`` (:func:`add_master_option`).

Every option is checked before Spark starts (:func:`check_output_dir` and the parsers here
raise :class:`~routelab.errors.BadInputError`, which ``routelab`` prints as one line).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from routelab.errors import BadInputError

#: the table formats ``--format`` offers
TABLE_FORMATS = ("csv", "parquet", "json")
#: the files every system verb writes besides its tables
SUMMARY_FILE = "summary.json"
#: the result tables the verbs write (``<name>.<format>``)
RESULT_TABLES = ("matches", "workers", "results", "periods", "migrations", "steps")
BAD_RECORDS_FILE = "bad_records.json"


def add_master_option(parser: argparse.ArgumentParser) -> None:
    """``--master``: the Spark master URL every Spark-backed command accepts."""
    parser.add_argument(
        "--master",
        default=None,
        help="Spark master URL (default: $ROUTELAB_SPARK_MASTER or local[*])",
    )


def add_algorithm_option(
    parser: argparse.ArgumentParser,
    registry: Any,
    default: str | Sequence[str],
    *,
    many: bool = True,
) -> None:
    """``--algorithm NAME[,NAME...]`` (or ``all``; ``many=False``: one ``NAME``), the
    choices read from ``registry`` (a :class:`~routelab.methods.MethodRegistry`);
    :func:`algorithms` parses it."""
    default_text = default if isinstance(default, str) else ",".join(default)
    what = "one name, a comma list or 'all'" if many else "one name"
    parser.add_argument(
        "--algorithm",
        default=default_text,
        metavar="NAME[,NAME...]" if many else "NAME",
        help=f"{what} (default: {default_text}); choices: {registry.describe()}",
    )
    parser.set_defaults(_registry=registry, _many_algorithms=many)


def algorithms(args: argparse.Namespace) -> list[str]:
    """The canonical names ``--algorithm`` selected; an unknown name is a
    :class:`BadInputError` listing the choices."""
    try:
        names = args._registry.parse(args.algorithm)
    except ValueError as exc:
        raise BadInputError(f"--algorithm: {exc}") from None
    if not getattr(args, "_many_algorithms", True) and len(names) != 1:
        raise BadInputError(
            f"--algorithm {args.algorithm!r}: this verb runs one {args._registry.kind}, "
            f"not {len(names)}"
        )
    return names


def add_workers_option(
    parser: argparse.ArgumentParser,
    default: int | Sequence[int],
    *,
    many: bool = True,
    high: int | None = None,
) -> None:
    """``--workers N`` (``many``: ``N[,N...]``, every count is run); :func:`workers` parses
    it."""
    default_text = str(default) if isinstance(default, int) else ",".join(map(str, default))
    parser.add_argument(
        "--workers",
        default=default_text,
        metavar="N[,N...]" if many else "N",
        help=f"parallel workers{' (a comma list runs each)' if many else ''}"
        f"{f', at most {high}' if high else ''} (default: {default_text})",
    )
    parser.set_defaults(_many_workers=many)


def workers(args: argparse.Namespace, *, low: int = 1, high: int | None = None) -> list[int]:
    """The worker counts of ``--workers``, each checked to lie in ``[low, high]``."""
    text = str(args.workers)
    try:
        counts = [int(p) for p in text.replace(" ", ",").split(",") if p.strip()]
    except ValueError:
        raise BadInputError(f"--workers {text!r}: give whole numbers (e.g. 4 or 2,4,8)") from None
    if not counts:
        raise BadInputError("--workers: give at least one count")
    if not getattr(args, "_many_workers", True) and len(counts) > 1:
        raise BadInputError(f"--workers {text!r}: this verb takes one count")
    bad = [c for c in counts if c < low or (high is not None and c > high)]
    if bad:
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise BadInputError(f"--workers {','.join(map(str, bad))}: each count must be {span}")
    return counts


def _typed(name: str, value: Any) -> Any:
    """A parameter as ``summary.json`` records it: ``--workers`` as numbers (one int, or a
    list for several counts), not the text typed."""
    if name == "workers" and isinstance(value, str):
        try:
            counts = [int(p) for p in value.replace(" ", ",").split(",") if p.strip()]
        except ValueError:
            return value
        return counts[0] if len(counts) == 1 else counts
    return value


def add_output_options(
    parser: argparse.ArgumentParser,
    *,
    tables: bool = True,
    required: bool = True,
    when: str = "",
) -> None:
    """``--out DIR`` and ``--overwrite``; with ``tables``, ``--format csv|parquet|json``
    for the verb's result tables. ``when``: the case in which an optional ``--out`` is
    needed anyway, said in the help."""
    parser.add_argument(
        "--out",
        metavar="DIR",
        required=required,
        help="output directory (summary.json, bad_records.json and the verb's files)"
        + (f"; required {when}" if when else ""),
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the results of an earlier run in a non-empty --out",
    )
    if tables:
        parser.add_argument(
            "--format",
            choices=TABLE_FORMATS,
            default="csv",
            help="format of the result tables (default: %(default)s)",
        )


def check_output_dir(path: str | None, overwrite: bool) -> None:
    """One policy for every command writing an output directory, checked before Spark
    starts: ``--out`` naming a file is an error; an existing non-empty directory is refused
    unless ``--overwrite``."""
    if path is None:
        return
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise BadInputError(f"--out {out} is an existing file; give a directory to write")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise BadInputError(
            f"--out {out} already exists and is not empty; add --overwrite to replace it"
        )


class Outputs:
    """The output directory of one verb run: checked when made (before Spark starts), then
    written alike by every verb. ``command`` is e.g. ``"s3tm match"``."""

    def __init__(self, args: argparse.Namespace, command: str) -> None:
        check_output_dir(args.out, args.overwrite)
        self.dir = Path(args.out)
        self.format = getattr(args, "format", "csv")
        if self.format not in TABLE_FORMATS:
            self.format = "csv"
        self.command = command
        self.started = time.perf_counter()
        self.params = {
            k: _typed(k, v)
            for k, v in vars(args).items()
            if not k.startswith("_") and k not in ("func", "command", "verb", "action")
        }
        self.written: list[str] = []

    def path(self, name: str) -> Path:
        """Where a file of the verb goes: the directory is made on first use, and a file
        or Spark directory of that name left by an earlier run (``--overwrite``) is
        removed first."""
        import shutil

        if not self.written:
            self._clear_previous()
        self.dir.mkdir(parents=True, exist_ok=True)
        target = self.dir / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        self.written.append(name)
        return target

    def record(self, *names: str) -> None:
        """Claim file names a library call is about to write into the directory itself
        (e.g. preprocessing's ``posts.parquet``): they are cleared like :meth:`path`'s
        and listed in ``summary.json``. Call it before the library writes."""
        for name in names:
            self.path(name)

    def _clear_previous(self) -> None:
        """``--overwrite`` replaces a previous run's results: every file its summary.json
        lists and every file name a verb writes (tables in any format, the JSON reports),
        so no stale ``results.csv`` stands beside a new ``results.parquet``."""
        import shutil

        if not self.dir.is_dir():
            return
        names = {SUMMARY_FILE, BAD_RECORDS_FILE}
        names |= {f"{t}.{fmt}" for t in RESULT_TABLES for fmt in TABLE_FORMATS}
        with contextlib.suppress(OSError, ValueError):
            names |= set(json.loads((self.dir / SUMMARY_FILE).read_text()).get("files", []))
        for name in names:
            target = self.dir / name
            if target.resolve().parent != self.dir.resolve():
                continue  # only the folder's own files
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()

    def table(self, name: str, frame: Any) -> Path:
        """Write a pandas table as ``name.<format>``."""
        target = self.path(f"{name}.{self.format}")
        if self.format == "csv":
            frame.to_csv(target, index=False)
        elif self.format == "parquet":
            frame = frame.copy()
            for col in frame.select_dtypes(include="object").columns:
                # Parquet columns have one type: a column mixing numbers and text is text
                kinds = {type(v) for v in frame[col] if v is not None}
                if len(kinds) > 1 and not all(issubclass(k, list | tuple) for k in kinds):
                    frame[col] = frame[col].map(lambda v: v if v is None else str(v))
            frame.to_parquet(target, index=False)
        else:
            records = json.loads(frame.to_json(orient="records"))  # numpy types to JSON
            target.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n")
        return target

    def bad_records(self, report: Any | None) -> Path:
        """``bad_records.json``: the report's counts and examples (reason, file:line,
        excerpt); an empty report when the verb read no user records."""
        from routelab.badrecords import BadRecordReport

        report = report if report is not None else BadRecordReport()
        data = report.to_dict()
        target = self.path(BAD_RECORDS_FILE)
        target.write_text(json.dumps(data, indent=2, default=str) + "\n")
        return target

    def summary(
        self,
        counts: Mapping[str, Any],
        timings: Mapping[str, float] | None = None,
        **extra: Any,
    ) -> Path:
        """``summary.json``: the command and its parameters, ``counts``, ``timings``
        (seconds; ``total_s`` added), the routelab version and commit, the files written."""
        from routelab import __version__
        from routelab.paths import git_commit

        data = {
            "command": f"routelab {self.command}",
            "parameters": self.params,
            "counts": dict(counts),
            "timings": {
                **dict(timings or {}),
                "total_s": time.perf_counter() - self.started,
            },
            **extra,
            "files": sorted({*self.written, SUMMARY_FILE}),
            "routelab_version": __version__,
            "routelab_commit": git_commit(),
        }
        target = self.path(SUMMARY_FILE)
        target.write_text(json.dumps(data, indent=2, default=str) + "\n")
        return target


def add_system(
    subparsers: argparse._SubParsersAction, name: str, help: str, description: str
) -> argparse._SubParsersAction:
    """The parser of one system (``routelab <system>``) and its verbs' subparsers."""
    parser = subparsers.add_parser(name, help=help, description=description)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    return verbs
