"""The neutral workload files of ``routelab filtering export`` / ``match``.

Three CSV files with a header, so any other engine can run on exactly the same workload:

- ``subs.csv``: ``sub_id,attr,op,value``, one row per predicate (a subscription's rows share
  its id); ``op`` one of ``< <= = != >= >``;
- ``events.csv``: ``event_id,attr,value``, one row per attribute/value pair;
- ``matches.csv``: ``event_id,subscription_id``, every match (the two id columns every
  ``routelab`` matcher writes).

Values may be integers, floats or strings. An attribute whose values (in both files) all
parse as numbers is numeric: integers are kept, and if any value is a float all are mapped
to integers by an order-preserving transform of their IEEE-754 bits (exact for equality and
order). Any other attribute is categorical: values are dictionary-encoded and only ``=`` and
``!=`` make sense on it. A row that cannot be used is counted by reason, with file:line
examples (:class:`routelab.badrecords.BadRecordReport`), and the good rows are kept:

=======================  ==============================================================
``malformed_row``        not the header's number of fields
``bad_id``               an id that is not an integer
``unknown_operator``     an operator outside ``< <= = != >= >``
``non_numeric_value``    ``< <= >= >`` on a categorical (non-numeric) attribute: the
                         whole subscription is dropped (a conjunction without it would
                         match more than asked)
``repeated_attribute``   an event giving one attribute twice (the second row is dropped)
``blank_line``           an empty line
=======================  ==============================================================
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from routelab.badrecords import BadRecordReport
from routelab.errors import BadInputError
from routelab.filtering.model import MISSING, OPS, Events, Subscriptions, ValueDictionary

SUBS_HEADER = ["sub_id", "attr", "op", "value"]
EVENTS_HEADER = ["event_id", "attr", "value"]


@dataclass
class FileWorkload:
    subs: Subscriptions
    events: Events
    attributes: list[str]
    report: BadRecordReport


MATCHES_HEADER = ["event_id", "subscription_id"]


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            return None
        return value if np.isfinite(value) else None


def float_key(value: float) -> int:
    """An int64 with the same order as ``value`` (IEEE-754 bits, sign-folded)."""
    bits = int(np.array(value, dtype=np.float64).view(np.int64))
    return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF) - 1


def _rows(path: Path, header: list[str], report: BadRecordReport):  # type: ignore[no-untyped-def]
    if not path.exists():
        raise BadInputError(f"{path}: no such file")
    with path.open(newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        first = next(reader, None)
        if first is None:
            raise BadInputError(f"{path}: empty file (expected the header {','.join(header)})")
        if [c.strip() for c in first] != header:
            raise BadInputError(
                f"{path}:1: header {','.join(first)!r}, expected {','.join(header)!r}"
            )
        for row in reader:
            line = reader.line_num
            report.records += 1
            if not row or all(not c.strip() for c in row):
                report.add("blank_line", str(path), line, "")
                continue
            if len(row) != len(header):
                report.add(
                    "malformed_row",
                    str(path),
                    line,
                    ",".join(row),
                    detail=f"{len(row)} fields, expected {len(header)}",
                )
                continue
            yield line, [c.strip() for c in row]


def read_workload(subs_path: Path, events_path: Path) -> FileWorkload:
    """Read ``subs.csv`` and ``events.csv`` (see the module docstring)."""
    report = BadRecordReport()
    sub_rows: dict[int, list[tuple[str, str, str, int]]] = defaultdict(list)
    for line, (sid, attr, op, value) in _rows(Path(subs_path), SUBS_HEADER, report):
        try:
            sub_id = int(sid)
        except ValueError:
            report.add("bad_id", str(subs_path), line, sid, detail="sub_id is not an integer")
            continue
        if op == "==":
            op = "="
        if op not in OPS:
            report.add(
                "unknown_operator", str(subs_path), line, op, detail=f"use one of {' '.join(OPS)}"
            )
            continue
        sub_rows[sub_id].append((attr, op, value, line))
    event_rows: dict[int, dict[str, str]] = defaultdict(dict)
    for line, (eid, attr, value) in _rows(Path(events_path), EVENTS_HEADER, report):
        try:
            event_id = int(eid)
        except ValueError:
            report.add("bad_id", str(events_path), line, eid, detail="event_id is not an integer")
            continue
        if attr in event_rows[event_id]:
            report.add(
                "repeated_attribute",
                str(events_path),
                line,
                f"{eid},{attr},{value}",
                detail=f"event {event_id} already has {attr}",
            )
            continue
        event_rows[event_id][attr] = value
    # attribute kinds from every value in both files
    values: dict[str, list[str]] = defaultdict(list)
    for preds in sub_rows.values():
        for attr, _, value, _ in preds:
            values[attr].append(value)
    for ev in event_rows.values():
        for attr, value in ev.items():
            values[attr].append(value)
    attributes = sorted(values)
    index = {a: i for i, a in enumerate(attributes)}
    numbers = {a: [_number(v) for v in vs] for a, vs in values.items()}
    numeric = {a: all(x is not None for x in xs) for a, xs in numbers.items()}
    floats = {a: numeric[a] and any(isinstance(x, float) for x in numbers[a]) for a in values}
    dictionary = ValueDictionary()

    def encode(attr: str, value: str) -> int:
        if not numeric[attr]:
            return dictionary.encode(index[attr], value)
        x = _number(value)
        return float_key(float(x)) if floats[attr] else int(x)  # type: ignore[arg-type]

    kept: list[list[tuple[int, str, int]]] = []
    ids: list[int] = []
    for sub_id, preds in sub_rows.items():
        bad = [p for p in preds if p[1] not in ("=", "!=") and not numeric[p[0]]]
        if bad:
            attr, op, value, line = bad[0]
            report.add(
                "non_numeric_value",
                str(subs_path),
                line,
                f"{sub_id},{attr},{op},{value}",
                detail=f"{attr} has non-numeric values; {op} needs numbers",
                count=len(preds),
            )
            continue
        kept.append([(index[a], op, encode(a, v)) for a, op, v, _ in preds])
        ids.append(sub_id)
    n_attrs = max(1, len(attributes))
    subs = Subscriptions.from_lists(kept, ids=ids, n_attrs=n_attrs)
    event_ids = sorted(event_rows)
    matrix = np.full((len(event_ids), n_attrs), MISSING, dtype=np.int64)
    for e, eid in enumerate(event_ids):
        for attr, value in event_rows[eid].items():
            matrix[e, index[attr]] = encode(attr, value)
    events = Events(matrix, np.asarray(event_ids, dtype=np.int64))
    return FileWorkload(subs, events, attributes, report)


def write_workload(
    out: Path, subs: Subscriptions, events: Events, names: list[str] | None = None
) -> tuple[Path, Path]:
    """Write ``subs.csv`` and ``events.csv`` for integer-valued subscriptions and events."""
    out.mkdir(parents=True, exist_ok=True)
    names = names or [f"a{i}" for i in range(subs.n_attrs)]
    t = subs.table
    sub_of = np.repeat(subs.ids, subs.sizes())
    with (out / "subs.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(SUBS_HEADER)
        for sid, p in zip(sub_of, subs.preds, strict=True):
            w.writerow([int(sid), names[t.attr[p]], OPS[t.op[p]], int(t.value[p])])
    with (out / "events.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(EVENTS_HEADER)
        for eid, row in zip(events.ids, events.values, strict=True):
            for a, v in enumerate(row):
                if v != MISSING:
                    w.writerow([int(eid), names[a], int(v)])
    return out / "subs.csv", out / "events.csv"


def write_matches(path: Path, event_ids: np.ndarray, sub_ids: np.ndarray) -> Path:
    """``matches.csv``: one ``event_id,subscription_id`` row per match."""
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(MATCHES_HEADER)
        w.writerows(zip(event_ids.tolist(), sub_ids.tolist(), strict=True))
    return path
