"""Record converters of the loaders: one raw record (a JSON line, a CSV row, a JSON array
file, a key line) -> output rows or the reason it is bad."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from routelab.badrecords import excerpt
from routelab.datasets.loaders.values import (
    _FATAL,
    RecordError,
    decode_line,
    parse_coordinates,
    parse_key,
    parse_post_id,
    parse_time,
    tweets_from_json,
)

if TYPE_CHECKING:
    pass


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
