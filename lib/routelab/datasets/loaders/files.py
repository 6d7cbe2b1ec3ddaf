"""Which files the loaders read, and Spark read errors as :class:`~routelab.errors.BadInputError`
(:func:`spark_read_errors`): paths, directories and globs as Hadoop file statuses
(hidden names skipped, as Spark does), each with the name its post ids are hashed from."""

from __future__ import annotations

import contextlib
import gzip
import os
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from routelab.datasets.loaders.records import _Input
from routelab.errors import BadInputError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@contextlib.contextmanager
def spark_read_errors(what: str) -> Iterator[None]:
    """Context manager: Spark/Java errors while reading ``what`` become one-line
    :class:`BadInputError` naming it (no Java stack trace reaches the user)."""
    from py4j.protocol import Py4JError, Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        yield
    except (PySparkException, Py4JJavaError, Py4JError) as exc:
        message = str(exc).strip()
        if isinstance(exc, Py4JJavaError):
            message = str(exc.java_exception)
        lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
        tail = [ln for ln in lines if "Error:" in ln and not ln.startswith("File ")]
        short = (
            tail[-1]
            if "PythonException" in type(exc).__name__ and tail
            else lines[0]
            if lines
            else type(exc).__name__
        )
        hint = ""
        if "TIMESTAMP(NANOS" in short:
            hint = (
                " (Spark cannot read nanosecond timestamps; write the file with "
                "pandas' to_parquet(..., coerce_timestamps='us'))"
            )
        raise BadInputError(f"{what}: cannot be read: {short[:300]}{hint}") from None


def _hadoop_path(spark: SparkSession, path: str) -> Any:
    jvm = spark.sparkContext._jvm
    return jvm.org.apache.hadoop.fs.Path(path)


def _absolute(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", text) and not re.match(r"^[A-Za-z]:\\", text):
        return text
    return os.path.abspath(text)


def _visible(name: str) -> bool:
    return not any(part.startswith((".", "_")) for part in name.split("/") if part)


def list_inputs(
    spark: SparkSession, path: str | os.PathLike[str], source: str | None = None
) -> list[_Input]:
    """The data files under ``path`` (file, directory read recursively, or glob).

    Raises:
        BadInputError: nothing readable is there.
    """
    given = _absolute(path)
    with spark_read_errors(str(path)):
        hpath = _hadoop_path(spark, given)
        fs = hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        statuses = fs.globStatus(hpath)
        found: list[_Input] = []
        for status in statuses or []:
            if status.isDirectory():
                root = status.getPath().toUri().getPath().rstrip("/") + "/"
                files = fs.listFiles(status.getPath(), True)
                while files.hasNext():
                    st = files.next()
                    rel = st.getPath().toUri().getPath()
                    rel = rel[len(root) :] if rel.startswith(root) else st.getPath().getName()
                    if _visible(rel):
                        found.append(_make_input(st, rel, source))
            elif _visible(status.getPath().getName()):
                found.append(_make_input(status, status.getPath().getName(), source))
    if not statuses:
        raise BadInputError(f"{path}: no such file or directory")
    if not found:
        raise BadInputError(f"{path}: contains no data files (hidden '.'/'_' files are skipped)")
    return sorted(found, key=lambda i: i.display)


def _make_input(status: Any, name: str, source: str | None) -> _Input:
    p = status.getPath()
    uri = p.toUri()
    display = uri.getPath() if uri.getScheme() == "file" else p.toString()
    return _Input(
        uri=uri.toString(),
        path=p.toString(),
        display=display,
        name=name,
        size=int(status.getLen()),
        source=source or name,
    )


def _peek(spark: SparkSession, inp: _Input, n: int = 256) -> bytes:
    """The first bytes of a file (decompressed for local ``.gz``), for format sniffing."""
    if inp.uri.startswith("file:"):
        opener = gzip.open if inp.display.endswith(".gz") else open
        try:
            with opener(inp.display, "rb") as fh:
                return fh.read(n)
        except OSError as exc:
            raise BadInputError(f"{inp.display}: cannot be read: {exc}") from None
    with spark_read_errors(inp.display):
        hpath = _hadoop_path(spark, inp.path)
        stream = hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).open(hpath)
        try:  # byte by byte over py4j, stopping at the first non-blank byte
            data = bytearray()
            while len(data) < n:
                b = stream.read()
                if b < 0:
                    break
                data.append(b)
                if data.lstrip(b"\xef\xbb\xbf \t\r\n"):
                    break
            return bytes(data)
        finally:
            stream.close()


_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?://([^/]*))?(.*)$", re.S)


def _uri_key(uri: str, encoded: bool) -> tuple[str, str, str]:
    """(scheme, authority, path) of a file URI; Hadoop spells local files both
    ``file:/x`` and ``file:///x``, ``_metadata.file_path`` is URL-encoded, binaryFile's
    ``path`` is not."""
    m = _URI.match(uri)
    if not m:
        return "", "", uri
    scheme, authority, path = m.groups()
    return scheme.lower(), authority or "", unquote(path) if encoded else path


class _Files:
    """Find an input by either of Spark's spellings of its URI."""

    def __init__(self, inputs: Sequence[_Input]) -> None:
        self._by_key = {}
        for inp in inputs:
            self._by_key[_uri_key(inp.uri, True)] = inp
            self._by_key[_uri_key(inp.path, False)] = inp

    def encoded(self, uri: str) -> _Input:
        return self._by_key[_uri_key(uri, True)]

    def plain(self, path: str) -> _Input:
        return self._by_key[_uri_key(path, False)]
