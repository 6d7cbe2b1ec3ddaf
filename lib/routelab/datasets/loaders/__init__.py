"""Users' own data -> the standard Spark DataFrames of routelab (DESIGN.md, "Data").

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
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from routelab.badrecords import MAX_EXAMPLES, BadRecordExample, BadRecordReport, excerpt
from routelab.errors import BadInputError

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

INT64_MAX = (1 << 63) - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
_MS_THRESHOLD = 1e11  # |epoch| >= this is read as milliseconds in automatic mode
_FATAL = "__fatal__"  # a parse outcome that makes the whole input unreadable
TIME_FORMATS = ("iso", "twitter", "epoch_s", "epoch_ms")

# ---------------------------------------------------------------------------------------
# value parsing (pure Python; unit-tested without Spark)
# ---------------------------------------------------------------------------------------


class RecordError(ValueError):
    """A record cannot be used; ``reason`` is one of :data:`routelab.badrecords.REASONS`."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def stable_id(text: str) -> int:
    """``string_hash(text)`` masked to a non-negative int64 (the post_id of id-less posts)."""
    from routelab.hashing import string_hash  # lazily: it imports numba, slow in fresh workers

    return string_hash(text) & INT64_MAX


def parse_post_id(value: Any, fallback: str) -> int:
    """The post_id of a record: its integer id, else a stable hash (see module doc).

    Args:
        value: the record's id (int, digit string, other string, ``None``).
        fallback: ``"<name>:<line>"``, hashed when ``value`` is missing.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return stable_id(fallback)
    if isinstance(value, bool):
        return stable_id(str(value))
    if isinstance(value, int):
        return value if 0 <= value <= INT64_MAX else stable_id(str(value))
    if isinstance(value, float):
        return (
            int(value) if value.is_integer() and 0 <= value <= INT64_MAX else stable_id(repr(value))
        )
    text = str(value).strip()
    if not text:
        return stable_id(fallback)
    if text.isdigit() and text.isascii():
        number = int(text)
        if number <= INT64_MAX:
            return number
    return stable_id(text)


_TWITTER_TIME = re.compile(
    r"^[A-Za-z]{3} ([A-Za-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2}) (\d{4})$"
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
_NUMBER = re.compile(r"^[+-]?\d+(\.\d*)?([eE][+-]?\d+)?$")


def _to_micros(dt: datetime) -> int:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return (dt - _EPOCH) // _MICRO


def _parse_twitter_time(text: str) -> int:
    m = _TWITTER_TIME.match(text)
    if not m:
        raise ValueError("not in Twitter's 'Wed Oct 10 20:19:24 +0000 2018' format")
    mon, day, hh, mm, ss, sign, oh, om, year = m.groups()
    month = _MONTHS.get(mon.lower())
    if month is None:
        raise ValueError(f"unknown month {mon!r}")
    dt = datetime(int(year), month, int(day), int(hh), int(mm), int(ss), tzinfo=UTC)
    offset = timedelta(hours=int(oh), minutes=int(om))
    return _to_micros(dt - offset if sign == "+" else dt + offset)


def _epoch_to_micros(number: float, unit: str | None) -> int:
    if not math.isfinite(number):
        raise ValueError("not a finite number")
    if unit is None:
        unit = "ms" if abs(number) >= _MS_THRESHOLD else "s"
    micros = number * (1_000 if unit == "ms" else 1_000_000)
    if abs(micros) > 253402300799 * 1_000_000:  # beyond year 9999
        raise ValueError("out of range")
    return int(round(micros))


def parse_time(value: Any, time_format: str | None = None) -> int | None:
    """Microseconds since the epoch (UTC) of a time value, or ``None`` when it is missing.

    Args:
        value: a string, a number (epoch), a ``datetime`` or ``None``/empty/NaN.
        time_format: see the module doc.

    Raises:
        RecordError: ``bad_timestamp`` when the value is present but not parseable.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    try:
        if isinstance(value, datetime):
            return _to_micros(value)
        if isinstance(value, bool):
            raise ValueError("a boolean is not a time")
        if isinstance(value, int | float):
            if time_format not in (None, "epoch_s", "epoch_ms"):
                raise ValueError(f"a number, but time_format is {time_format!r}")
            unit = {"epoch_s": "s", "epoch_ms": "ms"}.get(time_format or "")
            return _epoch_to_micros(float(value), unit)
        text = str(value).strip()
        if not text:
            return None
        if time_format is None:
            if _NUMBER.match(text):
                return _epoch_to_micros(float(text), None)
            if text[:1].isdigit():
                return _to_micros(datetime.fromisoformat(text))
            return _parse_twitter_time(text)
        if time_format == "iso":
            return _to_micros(datetime.fromisoformat(text))
        if time_format == "twitter":
            return _parse_twitter_time(text)
        if time_format in ("epoch_s", "epoch_ms"):
            return _epoch_to_micros(float(text), "s" if time_format == "epoch_s" else "ms")
        return _to_micros(datetime.strptime(text, time_format))
    except (ValueError, OverflowError) as exc:
        raise RecordError("bad_timestamp", f"{str(value)[:40]!r}: {exc}") from None


def _coordinate(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("boolean")
    if isinstance(value, int | float):
        number = float(value)
    else:
        text = str(value).strip()
        if not text:
            return None
        number = float(text)
    if math.isnan(number):
        return None
    return number


def parse_coordinates(lat: Any, lon: Any) -> tuple[float | None, float | None]:
    """Validated ``(lat, lon)``; ``(None, None)`` when both are missing.

    Raises:
        RecordError: ``bad_coordinates`` when one is missing, either is not a number, or
            lat is outside [-90, 90] or lon outside [-180, 180].
    """
    try:
        la, lo = _coordinate(lat), _coordinate(lon)
    except (ValueError, TypeError):
        raise RecordError("bad_coordinates", f"lat={lat!r} lon={lon!r}") from None
    if la is None and lo is None:
        return None, None
    if la is None or lo is None:
        raise RecordError("bad_coordinates", f"only one of lat/lon: lat={lat!r} lon={lon!r}")
    if not (-90.0 <= la <= 90.0 and -180.0 <= lo <= 180.0):
        raise RecordError("bad_coordinates", f"out of range: lat={la} lon={lo}")
    return la, lo


def _geojson_point(value: Any) -> tuple[float | None, float | None]:
    """``(lat, lon)`` of a GeoJSON point ``{"coordinates": [lon, lat]}`` or ``[lon, lat]``."""
    if value is None:
        return None, None
    if isinstance(value, dict):
        value = value.get("coordinates")
        if value is None:
            return None, None
    if not isinstance(value, list) or len(value) != 2:
        raise RecordError("bad_coordinates", f"not a [lon, lat] pair: {str(value)[:40]}")
    return parse_coordinates(value[1], value[0])


# keys of Twitter streaming notices that are not tweets
_NOTICES = frozenset(
    {
        "delete",
        "limit",
        "scrub_geo",
        "status_withheld",
        "user_withheld",
        "disconnect",
        "warning",
        "friends",
        "event",
        "control",
    }
)
_TWEET_KEYS = ("id", "id_str", "text", "full_text", "extended_tweet", "created_at", "user")

Post = tuple[int, int | None, str, float | None, float | None]


def _nonempty_text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _v1_post(obj: dict[str, Any], fallback: str) -> Post:
    ext = obj.get("extended_tweet")
    text = (
        _nonempty_text(obj.get("full_text"))
        or (_nonempty_text(ext.get("full_text")) if isinstance(ext, dict) else None)
        or _nonempty_text(obj.get("text"))
    )
    if text is None:
        raise RecordError("missing_text", "no full_text, extended_tweet.full_text or text")
    raw_id = obj.get("id")
    if not isinstance(raw_id, int) or isinstance(raw_id, bool):
        raw_id = obj.get("id_str", raw_id)
    post_id = parse_post_id(raw_id, fallback)
    ts = parse_time(obj.get("created_at"), None)
    if ts is None and obj.get("timestamp_ms") is not None:
        ts = parse_time(obj.get("timestamp_ms"), "epoch_ms")
    lat, lon = _geojson_point(obj.get("coordinates"))
    return post_id, ts, text, lat, lon


def _v2_post(obj: Any, fallback: str) -> Post:
    if not isinstance(obj, dict):
        raise RecordError("not_a_post", "a v2 data element that is not an object")
    text = _nonempty_text(obj.get("text"))
    if text is None:
        raise RecordError("missing_text", "v2 tweet without text")
    post_id = parse_post_id(obj.get("id"), fallback)
    ts = parse_time(obj.get("created_at"), None)
    geo = obj.get("geo")
    lat, lon = _geojson_point(geo.get("coordinates")) if isinstance(geo, dict) else (None, None)
    return post_id, ts, text, lat, lon


def tweets_from_json(obj: Any, fallback: str) -> list[Post | RecordError]:
    """The posts in one parsed JSON value (v1.1 tweet, v2 line, or a list of those).

    Each element of the result is a post ``(post_id, ts_us, text, lat, lon)`` or the
    :class:`RecordError` that disqualifies it. ``fallback`` names the record for ids
    (``"<name>:<line>"``); the i-th tweet of a multi-tweet line gets ``fallback#i``.
    """
    if isinstance(obj, list):
        items: list[tuple[str, Any]] = [("any", o) for o in obj]
    elif isinstance(obj, dict) and "data" in obj:
        data = obj["data"]
        items = [("v2", o) for o in data] if isinstance(data, list) else [("v2", data)]
    else:
        items = [("any", obj)]
    out: list[Post | RecordError] = []
    for i, (kind, item) in enumerate(items):
        key = fallback if len(items) == 1 else f"{fallback}#{i}"
        try:
            if kind == "v2":
                out.append(_v2_post(item, key))
            elif isinstance(item, dict) and "data" in item:
                out.extend(tweets_from_json(item, key))
            elif not isinstance(item, dict):
                raise RecordError("not_a_post", f"a JSON {type(item).__name__}, not an object")
            elif any(k in item for k in _TWEET_KEYS):
                out.append(_v1_post(item, key))
            else:
                notice = next((k for k in item if k in _NOTICES), None)
                detail = f"stream notice {notice!r}" if notice else "no tweet fields"
                raise RecordError("not_a_post", detail)
        except RecordError as exc:
            out.append(exc)
    if not out:
        out.append(RecordError("not_a_post", "empty data list"))
    return out


def decode_line(raw: bytes) -> str:
    """Strict UTF-8 decoding of one record (BOM removed); raises ``bad_encoding``."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError("bad_encoding", f"invalid byte at offset {exc.start}") from None
    return text  # U+FFFD written as valid UTF-8 is a character like any other


def parse_key(value: Any) -> tuple[int, str | None]:
    """``(key, key_name)`` of one key-stream value.

    Non-negative integers within int64 (or their decimal strings) are their own key; any
    other value maps to ``string_hash`` of its string (masked to int64). ``key_name`` is
    always the original value as a string.

    Raises:
        RecordError: ``missing_key`` for ``None``, NaN or blank strings.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise RecordError("missing_key", "no key")
    text = str(value).strip()
    if not text:
        raise RecordError("missing_key", "blank key")
    if text.isdigit() and text.isascii() and int(text) <= INT64_MAX:
        return int(text), text
    return stable_id(text), text


# ---------------------------------------------------------------------------------------
# record converters: one raw record -> output rows (outcomes)
# ---------------------------------------------------------------------------------------

POST_COLUMNS = ("post_id", "ts", "text", "source", "lat", "lon", "line", "file")
KEY_COLUMNS = ("key", "key_name", "ts", "line", "file")
_POST_PARSED = ("post_id", "ts_us", "text", "lat", "lon")
_KEY_PARSED = ("key", "key_name", "ts_us")
_TRAILER = ("line", "file", "source", "reason", "detail", "excerpt")


@dataclass(frozen=True)
class _Input:
    """One input file: Spark's two spellings of its URI, a display name and a short name."""

    uri: str  # URL-encoded, as in _metadata.file_path
    path: str  # as Hadoop's Path.toString(), as in binaryFile's ``path``
    display: str  # what users see in reports (a local path when local)
    name: str  # relative to the loaded directory (used in stable ids)
    size: int
    source: str  # the ``source`` column value


@dataclass(frozen=True)
class _TableSpec:
    """Which columns of a table hold what (``load_table`` / ``load_key_stream``)."""

    text_col: str | None = None
    time_col: str | None = None
    lat_col: str | None = None
    lon_col: str | None = None
    id_col: str | None = None
    key_col: str | None = None
    time_format: str | None = None

    def columns(self) -> list[str]:
        cols = (self.key_col, self.text_col, self.time_col, self.lat_col, self.lon_col, self.id_col)
        return list(dict.fromkeys(c for c in cols if c))


def _bad(exc: RecordError, raw: Any, width: int) -> tuple:
    return (None,) * width + (exc.reason, exc.detail, excerpt(raw))


def _tweet_line_rows(raw: bytes, inp: _Input, line: int) -> list[tuple]:
    """Outcome rows of one JSON line (posts schema without the trailer's line/file/source)."""
    width = len(_POST_PARSED)
    try:
        text = decode_line(raw)
        if not text.strip():
            raise RecordError("blank_line")
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise RecordError("malformed_json", str(exc)[:80]) from None
    except RecordError as exc:
        return [_bad(exc, raw, width)]
    return _tweet_rows(obj, text, inp, line)


def _tweet_rows(obj: Any, text: str, inp: _Input, line: int) -> list[tuple]:
    width = len(_POST_PARSED)
    rows = []
    for outcome in tweets_from_json(obj, f"{inp.name}:{line}"):
        if isinstance(outcome, RecordError):
            rows.append(_bad(outcome, text, width))
        else:
            rows.append(outcome + (None, None, None))
    return rows


def _key_line_rows(raw: bytes, inp: _Input, line: int) -> list[tuple]:
    width = len(_KEY_PARSED)
    try:
        key, name = parse_key(decode_line(raw))
    except RecordError as exc:
        return [_bad(exc, raw, width)]
    return [(key, name, None, None, None, None)]


def _table_row(
    values: dict[str, Any], spec: _TableSpec, inp: _Input, line: int, time_is_micros: bool
) -> tuple:
    """One table row -> a post outcome (``values`` maps configured column -> value)."""
    try:
        text = values[spec.text_col]
        if isinstance(text, bytes):
            text = decode_line(text)
        if not isinstance(text, str) or not text.strip():
            raise RecordError("missing_text", f"column {spec.text_col!r} is empty")
        ts = _table_time(values, spec, time_is_micros)
        lat, lon = (
            parse_coordinates(values[spec.lat_col], values[spec.lon_col])
            if spec.lat_col
            else (None, None)
        )
        post_id = parse_post_id(values[spec.id_col] if spec.id_col else None, f"{inp.name}:{line}")
    except RecordError as exc:
        return _bad(exc, _row_excerpt(values), len(_POST_PARSED))
    return (post_id, ts, text, lat, lon, None, None, None)


def _key_row(
    values: dict[str, Any], spec: _TableSpec, inp: _Input, line: int, time_is_micros: bool
) -> tuple:
    try:
        key, name = parse_key(values[spec.key_col])
        ts = _table_time(values, spec, time_is_micros)
    except RecordError as exc:
        return _bad(exc, _row_excerpt(values), len(_KEY_PARSED))
    return (key, name, ts, None, None, None)


def _table_time(values: dict[str, Any], spec: _TableSpec, time_is_micros: bool) -> int | None:
    if not spec.time_col:
        return None
    value = values[spec.time_col]
    if time_is_micros:
        return None if value is None or value != value else int(value)
    return parse_time(value, spec.time_format)


def _row_excerpt(values: dict[str, Any]) -> str:
    parts = []
    for k, v in values.items():
        if isinstance(v, bytes):
            v = v.decode("utf-8", errors="backslashreplace")
        parts.append(f"{k}={v}")
    return ", ".join(parts)


def _csv_rows(
    content: bytes, inp: _Input, spec: _TableSpec, convert: Callable[..., tuple], delimiter: str
) -> Iterator[tuple]:
    """Parse one whole CSV file; yields outcome tuples followed by their line number."""
    if inp.path.endswith(".gz"):
        content = gzip.decompress(content)
    if content.startswith(b"\xef\xbb\xbf"):
        content = content[3:]
    try:
        text = content.decode("utf-8")
        check_each = False  # valid UTF-8 throughout (U+FFFD included)
    except UnicodeDecodeError:
        text = content.decode("utf-8", errors="surrogateescape")
        check_each = True
    csv.field_size_limit(MAX_FIELD_CHARS)  # fields up to 16M characters are read, not refused
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    width = len(_POST_PARSED) if convert is _table_row else len(_KEY_PARSED)
    physical: list[str] = []

    def line_text(n: int) -> str:
        """Physical line ``n`` (1-based) of the file, for excerpts."""
        if not physical:
            physical.extend(text.split("\n"))
        return physical[n - 1] if 0 < n <= len(physical) else ""

    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        yield (None,) * width + (_FATAL, f"{inp.display}: header unreadable: {exc}", ""), 1
        return
    wanted = spec.columns()
    missing = [c for c in wanted if c not in header]
    if missing:
        yield (
            (None,) * width
            + (
                _FATAL,
                f"{inp.display}: no column(s) {missing} in the header (columns: {header[:20]})",
                "",
            ),
            1,
        )
        return
    index = {c: header.index(c) for c in wanted}
    base = 0  # physical line of the reader's line 0 (moves when re-reading after a bad quote)
    end = reader.line_num
    while True:
        start = end + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # e.g. a NUL byte; the reader resynchronizes on the next line
            end = base + reader.line_num
            if "field larger than field limit" in str(exc):
                detail = f"a field longer than {MAX_FIELD_CHARS:,} characters"
                yield _bad(RecordError("row_too_long", detail), line_text(start), width), start
            else:
                yield _bad(RecordError("malformed_row", str(exc)), line_text(start), width), start
            continue
        end = base + reader.line_num
        if end > start and _swallowed_rows(row, len(header), delimiter, end, text):
            # a quote opened on line `start` is never closed: the reader took every
            # following line into one field; report it and read on from the next line
            detail = "a quote opened on this line is never closed"
            yield _bad(RecordError("unterminated_quote", detail), line_text(start), width), start
            rest = "\n".join(text.split("\n")[start:])
            reader = csv.reader(io.StringIO(rest, newline=""), delimiter=delimiter)
            base = end = start
            continue
        if not row:
            yield _bad(RecordError("blank_line"), "", width), start
            continue
        if check_each and any(_has_bad_chars(v) for v in row):
            raw = delimiter.join(row).encode("utf-8", errors="surrogateescape")
            yield _bad(RecordError("bad_encoding", "invalid UTF-8 in the row"), raw, width), start
            continue
        if len(row) != len(header):
            yield (
                _bad(
                    RecordError("malformed_row", f"{len(row)} fields, header has {len(header)}"),
                    delimiter.join(row),
                    width,
                ),
                start,
            )
            continue
        yield convert({c: row[i] for c, i in index.items()}, spec, inp, start, False), start


MAX_FIELD_CHARS = 1 << 24


def _swallowed_rows(row: list[str], n_fields: int, delimiter: str, end: int, text: str) -> bool:
    """True if a multi-line record ran to the end of the file inside a quoted field whose
    later lines each look like a complete row (the signature of an unclosed quote; a
    legitimate multi-line field closes its quote before the end of the file)."""
    at_eof = end >= text.count("\n") + (0 if text.endswith("\n") else 1)
    if not at_eof:
        return False
    for value in row:
        lines = [x for x in value.split("\n")[1:] if x]
        if lines and all(
            len(next(csv.reader([x], delimiter=delimiter))) == n_fields for x in lines
        ):
            return True
    return False


_BAD_CHARS = re.compile("[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)


def _has_bad_chars(value: str) -> bool:
    return _BAD_CHARS.search(value) is not None


def _json_array_rows(content: bytes, inp: _Input) -> Iterator[tuple]:
    """Parse one whole JSON array file; yields (outcome, line) pairs."""
    if inp.path.endswith(".gz"):
        content = gzip.decompress(content)
    if content.startswith(b"\xef\xbb\xbf"):
        content = content[3:]
    text = content.decode("utf-8", errors="surrogateescape")
    decoder = json.JSONDecoder()
    width = len(_POST_PARSED)
    pos = len(text) - len(text.lstrip())
    line = 1 + text.count("\n", 0, pos)
    if text[pos : pos + 1] != "[":
        yield (
            _bad(
                RecordError("malformed_json", "array file does not start with '['"),
                text[pos : pos + 60],
                width,
            ),
            line,
        )
        return
    counted, pos = pos, pos + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            if pos >= len(text):
                line += text.count("\n", counted, pos)
                yield (
                    _bad(RecordError("malformed_json", "array not closed with ']'"), "", width),
                    line,
                )
            return
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            obj, end = decoder.raw_decode(text, pos)
        except ValueError as exc:
            yield (
                _bad(
                    RecordError("malformed_json", f"{str(exc)[:60]}; rest of file skipped"),
                    text[pos : pos + 60],
                    width,
                ),
                line,
            )
            return
        chunk = text[pos:end]
        if _has_bad_chars(chunk):
            yield (
                _bad(RecordError("bad_encoding", "invalid UTF-8 in the element"), chunk, width),
                line,
            )
        else:
            for row in _tweet_rows(obj, chunk, inp, line):
                yield row, line
        pos = end


# ---------------------------------------------------------------------------------------
# Spark plumbing
# ---------------------------------------------------------------------------------------


@dataclass
class LoadResult:
    """What a loader returns: the good rows and the report of skipped ones."""

    df: DataFrame
    report: BadRecordReport = field(default_factory=BadRecordReport)
    _cached: Any = None

    def unpersist(self) -> None:
        """Release the parsed rows the loader keeps cached (``df`` stays usable)."""
        if self._cached is not None:
            self._cached.unpersist()
            self._cached = None


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


def _schema(kind: str) -> str:
    head = (
        "post_id long, ts_us long, text string, lat double, lon double"
        if kind == "posts"
        else "key long, key_name string, ts_us long"
    )
    return head + (
        ", line long, file string, source string, reason string, detail string, excerpt string"
    )


_INT_COLUMNS = frozenset({"post_id", "ts_us", "key", "line"})
_FLOAT_COLUMNS = frozenset({"lat", "lon"})


def _frame(rows: list[tuple], kind: str) -> pd.DataFrame:
    """Outcome rows -> a pandas frame with exact nullable int64 columns (no float detour)."""
    import pandas as pd

    names = (_POST_PARSED if kind == "posts" else _KEY_PARSED) + _TRAILER
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    data = {}
    for name, values in zip(names, columns, strict=True):
        if name in _INT_COLUMNS:
            data[name] = pd.array(values, dtype="Int64")
        elif name in _FLOAT_COLUMNS:
            data[name] = pd.array(values, dtype="Float64")
        else:
            data[name] = pd.array(values, dtype=object)
    return pd.DataFrame(data)


class _Examples:
    """Keeps excerpts only for the first few bad records per (reason, file) of a task.

    Rows of one file reach a task in line order, so the union over tasks holds the
    globally first examples; the other bad rows are only counted (small cache, tiny
    example query)."""

    def __init__(self, limit: int = MAX_EXAMPLES) -> None:
        self.limit = limit
        self.seen: dict[tuple[str, str], int] = {}

    def attach(self, outcome: tuple, line: int, inp: _Input) -> tuple:
        """``outcome`` = parsed fields + (reason, detail, excerpt) -> a full output row."""
        reason = outcome[-3]
        tail = outcome[-3:]
        if reason is not None:
            key = (reason, inp.display)
            count = self.seen.get(key, 0)
            self.seen[key] = count + 1
            if count >= self.limit and reason != _FATAL:
                tail = (reason, None, None)
        return outcome[:-3] + (line, inp.display, inp.source) + tail


def _parse_bytes(text: str) -> int:
    """Spark's byte sizes: ``4194304``, ``4194304b``, ``4m``, ``4mb`` ..."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", text.lower())
    if not m:
        return 4 << 20
    return int(m.group(1)) << (10 * " kmgt".index(m.group(2) or " "))


def _line_bases(spark: SparkSession, inputs: Sequence[_Input]) -> dict[tuple[Any, int], int]:
    """First line number of every split of the (big) line files (see module doc)."""
    import pyspark.sql.functions as F

    # Spark splits a file only when it is larger than its split size, which is at least
    # min(openCostInBytes, maxPartitionBytes)
    unsplit = min(
        _parse_bytes(spark.conf.get("spark.sql.files.openCostInBytes", "4mb")),
        _parse_bytes(spark.conf.get("spark.sql.files.maxPartitionBytes", "128mb")),
    )
    big = [i for i in inputs if i.size > unsplit and not i.path.endswith(".gz")]
    bases: dict[tuple[tuple[str, str, str], int], int] = {
        (_uri_key(i.uri, True), 0): 1 for i in inputs
    }
    if not big:
        return bases
    counts = (
        spark.read.text([i.path for i in big])
        .select(
            F.col("_metadata.file_path").alias("f"), F.col("_metadata.file_block_start").alias("b")
        )
        .groupBy("f", "b")
        .count()
        .collect()
    )
    per_file: dict[str, list[tuple[int, int]]] = {}
    for row in counts:
        per_file.setdefault(row["f"], []).append((int(row["b"]), int(row["count"])))
    for uri, blocks in per_file.items():
        first = 1
        for start, count in sorted(blocks):
            bases[(_uri_key(uri, True), start)] = first
            first += count
    return bases


def _map_lines(
    spark: SparkSession,
    inputs: Sequence[_Input],
    kind: str,
    parse: Callable[[bytes, _Input, int], list[tuple]],
) -> DataFrame:
    """Parse line files record by record with exact line numbers (one Python pass)."""
    import pyspark.sql.functions as F

    bases = _line_bases(spark, inputs)
    files = _Files(inputs)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        next_line: dict[tuple[str, int], list[int]] = {}  # per split: its next line number
        examples = _Examples()
        for batch in batches:
            rows: list[tuple] = []
            for uri, block, raw in zip(
                batch["f"].tolist(), batch["b"].tolist(), batch["v"].tolist(), strict=True
            ):
                counter = next_line.get((uri, block))
                if counter is None:
                    counter = next_line[(uri, block)] = [bases[(_uri_key(uri, True), block)]]
                line = counter[0]
                counter[0] += 1
                inp = files.encoded(uri)
                rows.extend(examples.attach(o, line, inp) for o in parse(raw, inp, line))
            yield _frame(rows, kind)

    raw = spark.read.text([i.path for i in inputs]).select(
        F.col("_metadata.file_path").alias("f"),
        F.col("_metadata.file_block_start").alias("b"),
        F.col("value").cast("binary").alias("v"),
    )
    return raw.mapInPandas(run, _schema(kind))


def _map_whole_files(
    spark: SparkSession,
    inputs: Sequence[_Input],
    kind: str,
    parse: Callable[[bytes, _Input], Iterable[tuple[tuple, int]]],
) -> DataFrame:
    """Parse whole files (JSON arrays, CSV) in one task each."""
    files = _Files(inputs)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        examples = _Examples()
        for batch in batches:
            for path, content in zip(
                batch["path"].tolist(), batch["content"].tolist(), strict=True
            ):
                inp = files.plain(path)
                rows = [examples.attach(o, line, inp) for o, line in parse(content, inp)]
                yield _frame(rows, kind)

    raw = spark.read.format("binaryFile").load([i.path for i in inputs]).select("path", "content")
    return raw.mapInPandas(run, _schema(kind))


def _map_parquet(
    spark: SparkSession,
    inputs: Sequence[_Input],
    kind: str,
    spec: _TableSpec,
    convert: Callable[..., tuple],
) -> DataFrame:
    """Convert Parquet rows with per-value checks; ``line`` is the 1-based row number."""
    import pyspark.sql.functions as F
    from pyspark.sql import types as T

    display = ", ".join(i.display for i in inputs[:3]) + (" ..." if len(inputs) > 3 else "")
    with spark_read_errors(display):
        table = spark.read.parquet(*[i.path for i in inputs])
        fields = {f.name: f.dataType for f in table.schema.fields}
    missing = [c for c in spec.columns() if c not in fields]
    if missing:
        raise BadInputError(f"{display}: no column(s) {missing} (columns: {list(fields)[:20]})")
    cols = [F.col("_metadata.file_path").alias("__f"), F.col("_metadata.row_index").alias("__r")]
    time_is_micros = False
    for c in spec.columns():
        dtype = fields[c]
        expr = F.col(c)
        if c == spec.time_col and isinstance(
            dtype, T.TimestampType | T.TimestampNTZType | T.DateType
        ):
            expr, time_is_micros = F.unix_micros(expr.cast("timestamp")), True
        elif c == spec.text_col and isinstance(dtype, T.StringType):
            expr = expr.cast("binary")
        elif c in (spec.id_col, spec.key_col) and isinstance(dtype, T.IntegralType | T.DecimalType):
            expr = expr.cast("string")  # pandas would turn int64 with nulls into float64
        elif isinstance(dtype, T.DecimalType):
            expr = expr.cast("double")
        cols.append(expr.alias(c))
    files = _Files(inputs)
    names = spec.columns()

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        examples = _Examples()
        for batch in batches:
            rows = []
            columns = [
                batch[c].astype(object).where(batch[c].notna(), None).tolist() for c in names
            ]
            for j, (uri, index) in enumerate(
                zip(batch["__f"].tolist(), batch["__r"].tolist(), strict=True)
            ):
                inp = files.encoded(uri)
                line = int(index) + 1
                values = {c: col[j] for c, col in zip(names, columns, strict=True)}
                rows.append(
                    examples.attach(convert(values, spec, inp, line, time_is_micros), line, inp)
                )
            yield _frame(rows, kind)

    return table.select(*cols).mapInPandas(run, _schema(kind))


def _finish(spark: SparkSession, parsed: DataFrame, kind: str, what: str) -> LoadResult:
    """Persist the parsed rows, count reasons and gather examples (one job), return good rows."""
    import pyspark.sql.functions as F
    from pyspark import StorageLevel

    parsed = parsed.persist(StorageLevel.MEMORY_AND_DISK)
    example = F.when(F.col("excerpt").isNotNull(), F.struct("file", "line", "excerpt", "detail"))
    with spark_read_errors(what):
        rows = (
            parsed.groupBy("reason")
            .agg(F.count(F.lit(1)).alias("n"), F.collect_list(example).alias("examples"))
            .collect()
        )
    fatal = [e["detail"] for r in rows if r["reason"] == _FATAL for e in r["examples"]]
    if fatal:
        parsed.unpersist()
        raise BadInputError("; ".join(sorted(fatal)[:3]))
    report = BadRecordReport(records=sum(int(r["n"]) for r in rows))
    for r in rows:
        if r["reason"] is not None:
            report.counts[r["reason"]] += int(r["n"])
            for e in r["examples"]:
                report.add_example(
                    r["reason"],
                    BadRecordExample(
                        e["file"], int(e["line"]), e["excerpt"] or "", e["detail"] or ""
                    ),
                )
    columns = POST_COLUMNS if kind == "posts" else KEY_COLUMNS
    df = parsed.filter(F.col("reason").isNull()).select(
        *[F.timestamp_micros("ts_us").alias("ts") if c == "ts" else c for c in columns]
    )
    return LoadResult(df=df, report=report, _cached=parsed)


def _detect_format(
    inputs: Sequence[_Input], fmt: str | None, allowed: Sequence[str], path: Any
) -> str:
    if fmt is not None:
        if fmt not in allowed:
            raise BadInputError(f"{path}: unknown format {fmt!r}; choose from {list(allowed)}")
        return fmt
    kinds = set()
    for inp in inputs:
        name = inp.name.lower().removesuffix(".gz")
        ext = name.rsplit(".", 1)[-1] if "." in name else ""
        kinds.add(
            {
                "csv": "csv",
                "tsv": "tsv",
                "parquet": "parquet",
                "pq": "parquet",
                "txt": "text",
                "": "text",
            }.get(ext, ext)
        )
    if len(kinds) == 1 and (kind := kinds.pop()) in allowed:
        return kind
    raise BadInputError(
        f"{path}: cannot tell the format from the file names; pass fmt= one of {list(allowed)}"
    )


def _check_time_format(time_format: str | None) -> None:
    if time_format is not None and time_format not in TIME_FORMATS and "%" not in time_format:
        raise BadInputError(
            f"time_format {time_format!r} is neither one of {TIME_FORMATS} nor a strptime pattern"
        )


# ---------------------------------------------------------------------------------------
# public loaders
# ---------------------------------------------------------------------------------------


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
