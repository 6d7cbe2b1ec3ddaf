"""Guess what a file holds from its first bytes, to explain a load that kept nothing.

``routelab s3tm preprocess --input-format twitter-json`` given a CSV, or ``--input-format csv`` given Parquet,
reads every record as bad; the command then says what the input looks like instead of
exiting 0 with nothing written.
"""

from __future__ import annotations

import glob
from pathlib import Path

PARQUET_MAGIC = b"PAR1"


def first_file(path: str) -> Path | None:
    """The first regular, visible file of a file, folder or glob (local paths only)."""
    p = Path(path.removeprefix("file://"))
    if p.is_file():
        return p
    candidates = (
        sorted(glob.glob(str(p / "**" / "*"), recursive=True))
        if p.is_dir()
        else sorted(glob.glob(str(p)))
    )
    for c in candidates:
        name = Path(c).name
        if Path(c).is_file() and not name.startswith((".", "_")):
            return Path(c)
    return None


def sniff(path: str) -> str | None:
    """``parquet``, ``json``, ``csv``, ``tsv``, ``text`` or ``empty`` for the first file of
    ``path``; None if it cannot be read here (e.g. a remote filesystem)."""
    f = first_file(path)
    if f is None:
        return None
    with f.open("rb") as fh:
        head = fh.read(4096)
    if not head.strip():
        return "empty"
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text[:1] in (b"{", b"["):
        return "json"
    first_line = text.split(b"\n", 1)[0]
    if b"\t" in first_line:
        return "tsv"
    if b"," in first_line:
        return "csv"
    return "text"
