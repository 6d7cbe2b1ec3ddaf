"""Users' own data -> the standard Spark DataFrames of routelab.

Three loaders, each returning a :class:`LoadResult` (good rows in ``.df``, skipped records
counted by reason in ``.report``, see :mod:`routelab.badrecords`):

- :func:`load_twitter_json`: Twitter API v1.1 tweet objects (JSON lines or a JSON array
  file) and API v2 JSON lines (``{"data": {...}}`` or ``{"data": [...]}``), detected per
  record;
- :func:`load_table`: CSV or Parquet with a text column and optional time, lat/lon, id;
- :func:`load_key_stream`: a plain stream of keys (text file, CSV or Parquet column).

**Post schema** (the contract for everything downstream): ``post_id`` int64, ``ts``
timestamp (nullable, UTC), ``text`` string, ``source`` string, ``lat``/``lon`` double
(nullable), ``line`` int64 (1-based line of the record in its file; for Parquet the 1-based
row number), ``file`` string. **Key schema**: ``key`` int64, ``key_name`` string (the
original key as text), ``ts``, ``line``, ``file``.

**Bad records**: each gets exactly one reason, the first check it fails, in the order
encoding, JSON syntax / CSV shape, "is it a post", text (or key), time, coordinates; it is
left out of ``df`` and counted in ``report`` (first five examples per reason with file,
line and excerpt).

**post_id**: the record's id when it is an integer in int64 range; a non-integer id is
mapped with ``string_hash(id)``; a record without id gets ``string_hash("<name>:<line>")``,
where ``<name>`` is the file's path relative to the loaded directory (its base name when
a file was given), so ids do not change when the data directory moves. Hashes come from
:func:`routelab.hashing.string_hash` masked to 63 bits (non-negative int64).

**Times**: naive times are UTC. ``time_format`` is ``None`` (automatic: ISO 8601, Twitter's
``Wed Oct 10 20:19:24 +0000 2018``, or a number: epoch seconds, or epoch milliseconds when
its magnitude is >= 1e11), ``"iso"``, ``"twitter"``, ``"epoch_s"``, ``"epoch_ms"``, or a
:func:`datetime.strptime` pattern.

**How files are read** (exact line numbers and one reason per bad record):

- JSON lines and key text files are read with Spark's splittable text source; the raw
  bytes of every line go to Python (``mapInPandas``), which decodes them strictly (a line
  that is not UTF-8 is ``bad_encoding``; a U+FFFD written as UTF-8 is text) and parses them. A line's number
  is the sum of the line counts of the earlier splits of its file (one cheap JVM-side count
  of lines per ``(file, _metadata.file_block_start)``; skipped for files below
  ``spark.sql.files.openCostInBytes`` and ``maxPartitionBytes``, which Spark never splits)
  plus its position in its split. (A ``monotonically_increasing_id`` is not a line number.)
- JSON array files and CSV files are parsed whole in one task each (Spark's
  ``binaryFile`` source), with Python's ``json``/``csv`` modules tracking lines, so quoted
  CSV fields may hold newlines. Such a file must fit in a task's memory (< 2 GB); split or
  convert bigger ones to JSON lines/Parquet. ``.gz`` files are decompressed.
- Parquet uses Spark's reader; ``line`` is ``_metadata.row_index + 1``. Spark cannot read
  nanosecond timestamps (pandas' default): the error says to write ``coerce_timestamps='us'``.

A path may be a file, a directory (read recursively; names starting with ``.`` or ``_``
are skipped, as Spark does) or a glob. A path that cannot be read at all raises
:class:`~routelab.errors.BadInputError` naming it and the reason. The loaders run Spark
jobs eagerly (to count bad records) and persist the parsed rows (memory and disk); call
:meth:`LoadResult.unpersist` when done with a large input.

============== ==========================================================================
module         what it holds
============== ==========================================================================
``values.py``  value parsing (pure Python): post ids, times, coordinates, tweet JSON, keys
``records.py`` record converters: one raw record (JSON line, CSV row, JSON array file,
               key line) -> output rows or its bad-record reason
``files.py``   the files a path names (directories, globs, hidden names), their peeks;
               Spark read errors as one-line :class:`~routelab.errors.BadInputError`
``spark_map.py`` the parsers mapped on Spark (lines, whole files, Parquet), line numbers
               across splits, the bad-record report, :class:`LoadResult`
``public.py``  the three loaders
============== ==========================================================================

This package re-exports the public names of its modules, so
``from routelab.datasets.loaders import load_table`` (and the others) works as before.
"""

from __future__ import annotations

from routelab.datasets.loaders.files import list_inputs, spark_read_errors
from routelab.datasets.loaders.public import load_key_stream, load_table, load_twitter_json
from routelab.datasets.loaders.records import KEY_COLUMNS, MAX_FIELD_CHARS, POST_COLUMNS
from routelab.datasets.loaders.spark_map import LoadResult
from routelab.datasets.loaders.values import (
    INT64_MAX,
    TIME_FORMATS,
    Post,
    RecordError,
    decode_line,
    parse_coordinates,
    parse_key,
    parse_post_id,
    parse_time,
    stable_id,
    tweets_from_json,
)

__all__ = [
    "INT64_MAX",
    "KEY_COLUMNS",
    "LoadResult",
    "MAX_FIELD_CHARS",
    "POST_COLUMNS",
    "Post",
    "RecordError",
    "TIME_FORMATS",
    "decode_line",
    "list_inputs",
    "load_key_stream",
    "load_table",
    "load_twitter_json",
    "parse_coordinates",
    "parse_key",
    "parse_post_id",
    "parse_time",
    "spark_read_errors",
    "stable_id",
    "tweets_from_json",
]
