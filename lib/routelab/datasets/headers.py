"""Cheap checks of a user's input before Spark starts: does it exist, and does it have the
columns the options name?

A command that will read ``--keys k.csv --key-col user`` on Spark first looks at the local
file's header here (a CSV/TSV's first line, a Parquet file's schema), so a misspelt column
fails in well under a second with the columns the file does have, not after Spark's start-up.
Paths with a URI scheme (``hdfs://``, ``s3a://``) are left to Spark, which reads them.
"""

from __future__ import annotations

import csv
import glob
import gzip
import re
from collections.abc import Mapping
from pathlib import Path

from routelab.errors import BadInputError

_EXT = {"csv": "csv", "tsv": "tsv", "parquet": "parquet", "pq": "parquet", "txt": "text"}


def _remote(path: str) -> bool:
    return bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", path))


def local_files(path: str | Path) -> list[Path] | None:
    """The visible data files of a local file, folder (recursively) or glob, sorted;
    ``None`` for a remote path. A missing path is a :class:`BadInputError`."""
    text = str(path)
    if _remote(text):
        return None
    matches = [Path(p) for p in sorted(glob.glob(text))] if glob.has_magic(text) else [Path(text)]
    files: list[Path] = []
    for m in matches:
        if m.is_dir():
            files += [
                f
                for f in sorted(m.rglob("*"))
                if f.is_file()
                and not any(part.startswith((".", "_")) for part in f.relative_to(m).parts)
            ]
        elif m.is_file():
            files.append(m)
    if not matches or not any(m.exists() for m in matches):
        raise BadInputError(f"{path}: no such file or directory")
    if not files:
        raise BadInputError(f"{path}: contains no data files (hidden '.'/'_' files are skipped)")
    return files


def file_format(file: Path) -> str:
    """``csv``, ``tsv``, ``parquet`` or ``text`` from the file name (``.gz`` ignored)."""
    name = file.name.lower().removesuffix(".gz")
    ext = name.rsplit(".", 1)[-1] if "." in name else "txt"
    return _EXT.get(ext, "text")


def columns(file: Path, fmt: str) -> list[str]:
    """The column names of one CSV/TSV (its first line) or Parquet file (its schema)."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return list(pq.read_schema(file).names)
        except Exception as exc:  # pyarrow's errors vary; one line for the user
            raise BadInputError(f"{file}: cannot read as Parquet ({exc})") from None
    opener = gzip.open if file.name.lower().endswith(".gz") else open
    with opener(file, "rt", encoding="utf-8", errors="replace", newline="") as fh:
        first = next(csv.reader(fh, delimiter="\t" if fmt == "tsv" else ","), None)
    if not first:
        raise BadInputError(f"{file}: no records at all (the input is empty; expected a header)")
    return [c.strip() for c in first]


def require_columns(path: str | Path, fmt: str | None, wanted: Mapping[str, str | None]) -> None:
    """Check that the first data file of ``path`` has every column ``wanted`` names
    (``{"--key-col": "user", "--time-col": None}``; ``None`` = not asked for).

    Raises:
        BadInputError: no such path, or a named column is not in the header (the message
            names the file, the option and the columns the file has).
    """
    files = local_files(path)
    if not files:
        return
    kind = fmt or file_format(files[0])
    asked = {opt: col for opt, col in wanted.items() if col}
    if kind not in ("csv", "tsv", "parquet"):
        if asked:
            opts = ", ".join(asked)
            raise BadInputError(
                f"{files[0]}: a {kind} file has no columns, so {opts} cannot apply; "
                "give a CSV/TSV/Parquet file (or --input-format)"
            )
        return
    have = columns(files[0], kind)
    for opt, col in asked.items():
        if col not in have:
            raise BadInputError(
                f"{files[0]}:1: no column {col!r} ({opt} {col}); its columns: {', '.join(have)}"
            )
