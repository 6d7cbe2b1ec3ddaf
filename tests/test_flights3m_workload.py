"""Tests of the flights-3m workload of routelab.filtering.flights and of
``workload_data("flights-3m")``.

The unit tests run on small synthetic frames with the prepared ``flights`` columns (``ts``,
origin, destination, delay, distance; no download needed): events in time order, nulls
become MISSING, every subscription matches its anchor, every matcher of ALGORITHMS agrees
with the brute-force oracle, generation is deterministic in the seed. Two tests read the
real prepared file and are skipped when it is missing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from routelab.errors import DatasetError
from routelab.filtering import ALGORITHMS, build_matcher, oracle_match
from routelab.filtering.costmodel import EventStats
from routelab.filtering.flights import (
    FLIGHTS3M_ATTRIBUTES,
    FLIGHTS3M_COLUMNS,
    FRAME_COLUMNS,
    UNKNOWN,
    derive_flight_subscriptions,
    flight_events,
    flight_subscriptions,
    flights3m_events,
    flights3m_schema,
)
from routelab.filtering.model import MISSING, Events, Subscriptions

AIRPORTS = ["ATL", "ORD", "DFW", "LAX", "PHX", "DEN", "LAS", "IAH", "MSP", "DTW"]


def prepared(name: str) -> bool:
    try:
        from routelab.datasets.bundled import prepared_path

        prepared_path(name)
    except DatasetError:
        return False
    return True


needs_flights = pytest.mark.skipif(not prepared("flights"), reason="dataset flights not prepared")


def synthetic_frame(n: int, seed: int = 0, nulls: float = 0.03) -> pd.DataFrame:
    """``n`` flights with the prepared columns (``ts`` minute departures of January-June 2001,
    labelled UTC), skewed airports, a share ``nulls`` of nulls per column, not in time order."""
    rng = np.random.default_rng(seed)

    def airport() -> np.ndarray:
        out = np.array(AIRPORTS, dtype=object)[np.minimum(rng.zipf(1.5, n), len(AIRPORTS)) - 1]
        out[rng.random(n) < nulls] = None
        return out

    def numbers(values: np.ndarray) -> pd.Series:
        out = pd.Series(values, dtype="Int64")  # the prepared int64 columns, nullable
        out[rng.random(n) < nulls] = pd.NA
        return out

    minutes = rng.integers(0, 181 * 24 * 60, n)
    ts = pd.Series(pd.Timestamp("2001-01-01", tz="UTC") + pd.to_timedelta(minutes, unit="min"))
    ts[rng.random(n) < nulls] = pd.NaT
    return pd.DataFrame(
        {
            "ts": ts,
            "origin": airport(),
            "destination": airport(),
            "delay": numbers(np.round(rng.exponential(25, n) - 10).astype(np.int64)),
            "distance": numbers(rng.choice([187, 235, 762, 1400, 1744, 2475], n)),
        }
    )


@pytest.fixture(scope="module")
def flights() -> tuple[Events, object]:
    return flights3m_events(synthetic_frame(800, seed=3))


def matches_of(ptr: np.ndarray, ids: np.ndarray, e: int) -> np.ndarray:
    return ids[ptr[e] : ptr[e + 1]]


# --------------------------------------------------------------------------- events


def test_events_cover_every_attribute_in_time_order() -> None:
    frame = synthetic_frame(300, seed=1)
    assert list(frame.columns) == list(FLIGHTS3M_COLUMNS)
    events, schema = flights3m_events(frame)
    assert events.values.shape == (300, len(FLIGHTS3M_ATTRIBUTES))
    assert schema.names == [
        "origin", "destination", "route", "month", "weekday", "hour", "delay", "distance",
    ]  # fmt: skip
    assert [a.id for a in schema.attributes] == list(range(len(schema)))
    kinds = {a.name: a.kind for a in schema.attributes}
    assert {n for n, k in kinds.items() if k == "numeric"} == {"delay", "distance"}
    # time order: the events follow the sorted departures, the null ones last
    ts = frame["ts"].sort_values(kind="stable", na_position="last").reset_index(drop=True)
    month, hour = schema["month"].id, schema["hour"].id
    timed = ts.notna().to_numpy()
    assert (events.values[timed, month] == ts[timed].dt.month.to_numpy() - 1).all()
    assert (events.values[timed, hour] == ts[timed].dt.hour.to_numpy()).all()
    assert timed[: timed.sum()].all() and (events.values[~timed, month] == MISSING).all()
    assert (np.diff(events.values[timed, month]) >= 0).all()
    # the prepared file's order is kept as is; the source's column name works too
    in_order = frame.sort_values("ts", kind="stable", na_position="last").reset_index(drop=True)
    again, _ = flights3m_events(in_order.rename(columns={"ts": "date"}), schema)
    assert np.array_equal(again.values, events.values)
    with pytest.raises(ValueError, match="lacks column"):
        flights3m_events(frame.drop(columns=["delay"]))


def test_nulls_become_missing_and_values_are_natural_units() -> None:
    frame = synthetic_frame(4, nulls=0.0)
    frame["ts"] = pd.to_datetime(
        ["2001-03-05 17:42", "2001-01-01 00:01", "2001-02-01 06:00", "2001-06-30 23:59"]
    ).tz_localize("UTC")
    frame.loc[0, ["origin", "destination", "delay", "distance"]] = ["PHX", "LAX", -7, 1401]
    frame.loc[1, ["origin", "delay"]] = [None, pd.NA]  # no origin (so no route), no delay
    frame.loc[2, ["destination", "distance"]] = [None, pd.NA]
    frame.loc[3, "ts"] = pd.NaT
    events, schema = flights3m_events(frame)
    # time order: row 1 (Jan), row 2 (Feb), row 0 (Mar), row 3 (no time) last
    rows = [dict(zip(schema.names, v.tolist(), strict=True)) for v in events.values]
    mar = rows[2]
    assert schema["route"].decode(mar["route"]) == "PHX-LAX"
    assert schema["origin"].decode(mar["origin"]) == "PHX"
    assert schema["month"].decode(mar["month"]) == "Mar"
    assert schema["weekday"].decode(mar["weekday"]) == "Mon"  # 2001-03-05
    assert schema["hour"].decode(mar["hour"]) == "17h"
    assert (mar["delay"], mar["distance"]) == (-7, 1401)
    assert schema["delay"].decode(-7) == "-7 min" and schema["distance"].decode(1401) == "1401 mi"
    jan, feb, never = rows[0], rows[1], rows[3]
    assert schema["month"].decode(jan["month"]) == "Jan" and jan["hour"] == 0
    assert jan["origin"] == jan["route"] == jan["delay"] == MISSING
    assert jan["destination"] != MISSING and jan["distance"] != MISSING
    assert feb["destination"] == feb["route"] == feb["distance"] == MISSING
    assert never["month"] == never["weekday"] == never["hour"] == MISSING
    assert MISSING not in (never["origin"], never["route"], never["delay"])
    # float columns with NaN (a reader without nullable integers) read the same
    as_float = frame.astype({"delay": "float64", "distance": "float64"})
    assert np.array_equal(flights3m_events(as_float, schema)[0].values, events.values)


def test_a_given_schema_encodes_unseen_airports_as_unknown() -> None:
    train, schema = flights3m_events(synthetic_frame(200, seed=1))
    other = synthetic_frame(2, seed=2, nulls=0.0)
    other["ts"] = pd.to_datetime(["2001-01-01 00:01", "2001-01-01 00:02"]).tz_localize("UTC")
    other.loc[0, ["origin", "destination"]] = ["ZZZ", "ATL"]
    events, same = flights3m_events(other, schema)
    assert same is schema
    assert events.values[0, schema["origin"].id] == UNKNOWN
    assert events.values[0, schema["route"].id] == UNKNOWN
    assert events.values[0, schema["destination"].id] == schema["destination"].encode("ATL")
    assert flights3m_schema(other)["origin"].values == tuple(sorted(set(other["origin"])))
    # the two datasets' schemas are not interchangeable
    with pytest.raises(ValueError, match="not those of flight events"):
        flight_events(pd.DataFrame({c: [0] for c in FRAME_COLUMNS}), schema)
    mixed = Events(np.vstack([events.values, train.values[:50]]))
    subs, anchors = derive_flight_subscriptions(mixed, schema, 300, seed=4, sizes=(8,))
    for i, pred in enumerate(subs.as_lists()):  # never anchored on an unknown value
        for a, op, v in pred:
            if schema[a].kind == "categorical" and op == "=":
                assert v != UNKNOWN, (i, anchors[i])


# --------------------------------------------------------------------------- subscriptions


def test_every_subscription_matches_its_anchor(flights) -> None:
    events, schema = flights
    subs, anchors = derive_flight_subscriptions(
        events, schema, 2_000, seed=7, ne_share=0.2, range_share=0.6
    )
    assert len(subs) == 2_000 and len(anchors) == 2_000
    sizes = subs.sizes()
    assert sizes.min() >= 2 and sizes.max() <= 6
    ptr, ids = oracle_match(subs, Events(events.values[anchors]))
    assert all(i in matches_of(ptr, ids, i) for i in range(len(subs)))
    ops = {(schema[a].kind, op) for sub in subs.as_lists() for a, op, _ in sub}
    assert ops == {
        ("categorical", "="), ("categorical", "!="),
        ("numeric", "="), ("numeric", ">="), ("numeric", "<="),
    }  # fmt: skip
    # thresholds sit on the anchor's side: delay >= floor10, distance <= ceil100
    for i, sub in enumerate(subs.as_lists()[:300]):
        for a, op, v in sub:
            anchor = events.values[anchors[i], a]
            if schema[a].name == "delay" and op == ">=":
                assert v == anchor // 10 * 10
            if schema[a].name == "distance" and op == "<=":
                assert v == -(-anchor // 100) * 100


def test_thresholds_round_on_the_anchors_side() -> None:
    frame = synthetic_frame(1, nulls=0.0)
    frame.loc[0, ["origin", "destination", "delay", "distance"]] = ["PHX", "LAX", -7, 1401]
    events, schema = flights3m_events(frame)
    only = {a.name: 0.0 for a in schema.attributes}
    only.update(route=1.0, delay=1.0, distance=1.0)
    subs = flight_subscriptions(
        events, schema, 1, seed=0, sizes=(3,), popularity=only, range_share=1
    )
    assert schema.describe(subs, 0) == (
        "route = PHX-LAX AND delay >= -10 min AND distance <= 1500 mi"
    )


def test_determinism_by_seed(flights) -> None:
    events, schema = flights
    frame = synthetic_frame(800, seed=3)
    again, _ = flights3m_events(frame)
    assert np.array_equal(again.values, events.values)

    def run(seed: int) -> tuple[Subscriptions, np.ndarray]:
        return derive_flight_subscriptions(events, schema, 500, seed)

    a, anchors_a = run(5)
    b, anchors_b = run(5)
    assert a.as_lists() == b.as_lists() and (anchors_a == anchors_b).all()
    c, anchors_c = run(6)
    assert a.as_lists() != c.as_lists() and (anchors_a != anchors_c).any()
    assert flight_subscriptions(events, schema, 500, seed=5).as_lists() == a.as_lists()


# --------------------------------------------------------------------------- matchers


@pytest.mark.parametrize("name", ALGORITHMS)
def test_matchers_equal_the_oracle_on_flights3m(name: str, flights) -> None:
    events, schema = flights
    subs = flight_subscriptions(events, schema, 3_000, seed=11, ne_share=0.1)
    batch = Events(events.values[:300])
    expected_ptr, expected_ids = oracle_match(subs, batch)
    assert expected_ptr[-1] > 0
    matcher = build_matcher(name, subs, stats=EventStats.from_events(events))
    ptr, ids = matcher.match(batch)
    assert np.array_equal(ptr, expected_ptr)
    assert np.array_equal(ids, expected_ids)


# --------------------------------------------------------------------------- real data


def _first_rows(n: int) -> pd.DataFrame:
    import pyarrow.parquet as pq

    from routelab.datasets.bundled import prepared_path

    batch = next(pq.ParquetFile(prepared_path("flights")).iter_batches(batch_size=n))
    return pa.Table.from_batches([batch]).to_pandas()


@needs_flights
def test_real_prepared_rows_as_events_and_subscriptions() -> None:
    frame = _first_rows(3_000)
    events, schema = flights3m_events(frame)
    assert events.values.shape == (3_000, len(FLIGHTS3M_ATTRIBUTES))
    categorical = [a.id for a in schema.attributes if a.kind == "categorical"]
    assert not (events.values[:, categorical] == UNKNOWN).any()  # -1 is a delay, too
    assert not (events.values == MISSING).any()
    assert schema["month"].decode(events.values[0, schema["month"].id]) == "Jan"
    subs, anchors = derive_flight_subscriptions(events, schema, 2_000, seed=1)
    ptr, ids = oracle_match(subs, Events(events.values[anchors]))
    assert all(i in matches_of(ptr, ids, i) for i in range(len(subs)))
    batch = Events(events.values[-200:])
    expected = oracle_match(subs, batch)
    for name in ("counting", "propagation"):
        got = build_matcher(name, subs, stats=EventStats.from_events(events)).match(batch)
        assert all(np.array_equal(x, y) for x, y in zip(got, expected, strict=True)), name


@needs_flights
def test_workload_data_reads_flights3m() -> None:
    from routelab.filtering.lab.matching.experiments import (
        FLIGHTS_3M,
        real_event_table,
        workload_data,
    )

    subs, stats, batches = workload_data(FLIGHTS_3M, 500, seed=2, n_batches=3)
    events, schema = real_event_table(FLIGHTS_3M)
    assert len(events) > 2_000_000 and len(schema) == len(FLIGHTS3M_ATTRIBUTES)
    assert len(subs) == 500 and len(batches) == 3
    assert all(b.values.shape == (100, len(schema)) for b in batches)
    assert isinstance(stats, EventStats)
    # batches are 100 consecutive events of the time-ordered table
    month = schema["month"].id
    for b in batches:
        assert (np.diff(b.values[:, month]) >= 0).all()
    again, _, batches_again = workload_data(FLIGHTS_3M, 500, seed=2, n_batches=3)
    assert again.as_lists() == subs.as_lists()
    assert all(
        np.array_equal(x.values, y.values) for x, y in zip(batches, batches_again, strict=True)
    )
    other, _, _ = workload_data(FLIGHTS_3M, 500, seed=3, n_batches=3)
    assert other.as_lists() != subs.as_lists()
