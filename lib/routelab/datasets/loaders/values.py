"""Value parsing for the loaders (pure Python; unit-tested without Spark): post ids,
times, coordinates, tweet JSON (v1.1 and v2), raw lines, keys."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


INT64_MAX = (1 << 63) - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
_MS_THRESHOLD = 1e11  # |epoch| >= this is read as milliseconds in automatic mode
_FATAL = "__fatal__"  # a parse outcome that makes the whole input unreadable
TIME_FORMATS = ("iso", "twitter", "epoch_s", "epoch_ms")


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
            try:
                if text[:1].isdigit():
                    return _to_micros(datetime.fromisoformat(text))
                return _parse_twitter_time(text)
            except ValueError:
                raise ValueError(
                    "none of the automatic formats fits (epoch seconds/ms, ISO 8601, "
                    "Twitter's 'Wed Oct 10 20:19:24 +0000 2018'); give --time-format"
                ) from None
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
