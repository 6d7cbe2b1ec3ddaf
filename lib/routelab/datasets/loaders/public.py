"""The public loaders: Twitter JSON, tables (CSV / Parquet), key streams."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from routelab.datasets.loaders.files import _peek, list_inputs, spark_read_errors
from routelab.datasets.loaders.records import (
    _csv_rows,
    _Input,
    _json_array_rows,
    _key_line_rows,
    _key_row,
    _table_row,
    _TableSpec,
    _tweet_line_rows,
)
from routelab.datasets.loaders.spark_map import (
    LoadResult,
    _check_time_format,
    _detect_format,
    _finish,
    _map_lines,
    _map_parquet,
    _map_whole_files,
)
from routelab.errors import BadInputError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def load_twitter_json(
    spark: SparkSession, path: str | os.PathLike[str], *, source: str | None = None
) -> LoadResult:
    """Load Twitter API JSON (v1.1 objects or v2 lines) into the post schema.

    A file whose first non-blank character is ``[`` is a JSON array of tweets; any other
    file holds one JSON value per line. Per record: v1.1 takes ``full_text``, else
    ``extended_tweet.full_text``, else ``text``; ``id`` (or ``id_str``); ``created_at``
    (else ``timestamp_ms``); ``coordinates.coordinates`` as [lon, lat]. v2 lines take each
    element of ``data`` with ``id``, ``text``, ``created_at`` (ISO 8601) and
    ``geo.coordinates``. Stream notices (``delete``, ``limit``, ...) are ``not_a_post``.

    Args:
        spark: the session (from :func:`routelab.spark.get_spark`).
        path: a file, directory or glob.
        source: value of the ``source`` column (default: each file's relative name).
    """
    inputs = list_inputs(spark, path, source)
    arrays = [i for i in inputs if _peek(spark, i).lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"["]
    lines = [i for i in inputs if i not in arrays]
    with spark_read_errors(str(path)):
        parts = []
        if lines:
            parts.append(_map_lines(spark, lines, "posts", _tweet_line_rows))
        if arrays:
            parts.append(_map_whole_files(spark, arrays, "posts", _json_array_rows))
        parsed = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])
    return _finish(spark, parsed, "posts", str(path))


def load_table(
    spark: SparkSession,
    path: str | os.PathLike[str],
    text_col: str = "text",
    time_col: str | None = None,
    lat_col: str | None = None,
    lon_col: str | None = None,
    id_col: str | None = None,
    time_format: str | None = None,
    fmt: str | None = None,
    *,
    source: str | None = None,
) -> LoadResult:
    """Load a CSV (with header; ``.tsv`` tab-separated) or Parquet table into the post schema.

    Args:
        spark: the session.
        path: a file, directory or glob.
        text_col: the column holding the post text.
        time_col: optional time column (see the module doc for accepted values).
        lat_col, lon_col: optional coordinate columns (give both or neither).
        id_col: optional id column (integers kept, other values hashed; see module doc).
        time_format: how to read ``time_col`` strings (module doc).
        fmt: ``"csv"``, ``"tsv"`` or ``"parquet"`` (default: from the file extension).
        source: value of the ``source`` column (default: each file's relative name).

    Raises:
        BadInputError: unreadable path, unknown format, or a configured column missing.
    """
    if bool(lat_col) != bool(lon_col):
        raise BadInputError("give both lat_col and lon_col, or neither")
    _check_time_format(time_format)
    spec = _TableSpec(
        text_col=text_col,
        time_col=time_col,
        lat_col=lat_col,
        lon_col=lon_col,
        id_col=id_col,
        time_format=time_format,
    )
    return _load_tabular(spark, path, spec, fmt, source, "posts", _table_row)


def load_key_stream(
    spark: SparkSession,
    path: str | os.PathLike[str],
    key_col: str | None = None,
    time_col: str | None = None,
    *,
    fmt: str | None = None,
    time_format: str | None = None,
) -> LoadResult:
    """Load a plain key stream into the key schema (``key``, ``key_name``, ``ts``, ...).

    A text file holds one key per line (``ts`` is null); CSV/Parquet take ``key_col``
    (required for them) and optionally ``time_col``. Integer keys are kept; other keys
    map to a stable 63-bit hash with the original in ``key_name`` (:func:`parse_key`).
    Blank keys are ``missing_key``.

    Args:
        fmt: ``"text"``, ``"csv"``, ``"tsv"`` or ``"parquet"`` (default: from the extension;
            files without a known extension are text).
    """
    _check_time_format(time_format)
    inputs = list_inputs(spark, path)
    kind = _detect_format(inputs, fmt, ("text", "csv", "tsv", "parquet"), path)
    if kind == "text":
        if key_col or time_col:
            raise BadInputError(
                f"{path}: a text key stream has no columns; key_col/time_col need CSV or Parquet"
            )
        with spark_read_errors(str(path)):
            parsed = _map_lines(spark, inputs, "keys", _key_line_rows)
        return _finish(spark, parsed, "keys", str(path))
    if not key_col:
        raise BadInputError(f"{path}: key_col is required for {kind} key streams")
    spec = _TableSpec(key_col=key_col, time_col=time_col, time_format=time_format)
    return _load_tabular(spark, path, spec, kind, None, "keys", _key_row, inputs)


def _load_tabular(
    spark: SparkSession,
    path: Any,
    spec: _TableSpec,
    fmt: str | None,
    source: str | None,
    kind: str,
    convert: Callable[..., tuple],
    inputs: list[_Input] | None = None,
) -> LoadResult:
    inputs = inputs or list_inputs(spark, path, source)
    table_kind = _detect_format(inputs, fmt, ("csv", "tsv", "parquet"), path)
    with spark_read_errors(str(path)):
        if table_kind == "parquet":
            parsed = _map_parquet(spark, inputs, kind, spec, convert)
        else:
            delimiter = "\t" if table_kind == "tsv" else ","

            def parse(content: bytes, inp: _Input) -> Iterator[tuple[tuple, int]]:
                return _csv_rows(content, inp, spec, convert, delimiter)

            parsed = _map_whole_files(spark, inputs, kind, parse)
    return _finish(spark, parsed, kind, str(path))
