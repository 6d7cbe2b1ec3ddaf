"""The neutral workload files of ``routelab filtering export`` / ``match``.

Three CSV files with a header, so any other engine can run on exactly the same workload:

- ``subs.csv``: ``sub_id,attr,op,value``, one row per predicate (a subscription's rows share
  its id); ``op`` one of ``< <= = != >= >``;
- ``events.csv``: ``event_id,attr,value``, one row per attribute/value pair;
- ``matches.csv``: ``event_id,subscription_id``, every match (the two id columns every
  ``routelab`` matcher writes).

Values may be integers, floats or strings. An attribute's kind is declared
(``routelab filtering match --types price=float,carrier=str``) or decided by the majority of
its values in both files: numeric when more than half parse as numbers, so one typo never
turns a numeric attribute into text (the typo's row is counted bad instead). On a numeric
attribute integers are kept, and if any value is a float all are mapped to integers by an
order-preserving transform of their IEEE-754 bits (exact for equality and order). A text
attribute is dictionary-encoded and only ``=`` and ``!=`` make sense on it. A row that cannot be used is counted by reason, with file:line
examples (:class:`routelab.badrecords.BadRecordReport`), and the good rows are kept:

=======================  ==============================================================
``malformed_row``        not the header's number of fields
``bad_id``               an id that is not an integer
``unknown_operator``     an operator outside ``< <= = != >= >``
``non_numeric_value``    a value that does not fit its attribute's kind (text on a
                         numeric attribute, a fraction on an ``int`` one), or ``< <= >= >``
                         on a text attribute; in subs.csv the whole subscription is dropped
                         (a conjunction without it would match more than asked), in
                         events.csv only that attribute of the event
``subscription_dropped`` the other rows of a subscription with a bad row
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


#: the attribute kinds ``--types`` may declare
KINDS = ("int", "float", "str")


def attribute_kinds(values: dict[str, list[str]], types: dict[str, str]) -> dict[str, str]:
    """Each attribute's kind: declared in ``types``, else ``int``/``float`` when most of its
    values (more than half) parse as numbers (``float`` if any of those has a fraction or
    exponent), else ``str``. One typo therefore never turns a numeric attribute into text:
    the typo's row is the bad one."""
    unknown = sorted(set(types) - set(values))
    if unknown:
        raise BadInputError(f"--types names attribute(s) {unknown} that no row uses")
    bad = {a: k for a, k in types.items() if k not in KINDS}
    if bad:
        raise BadInputError(f"--types {bad}: each kind must be one of {', '.join(KINDS)}")
    kinds = {}
    for attr, vs in values.items():
        if attr in types:
            kinds[attr] = types[attr]
            continue
        numbers = [x for x in map(_number, vs) if x is not None]
        if 2 * len(numbers) <= len(vs):
            kinds[attr] = "str"
        else:
            kinds[attr] = "float" if any(isinstance(x, float) for x in numbers) else "int"
    return kinds


def parse_types(text: str | None) -> dict[str, str]:
    """``attr=int,other=str`` -> a dict (the CLI's ``--types``)."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        attr, sep, kind = part.partition("=")
        if not sep or not attr.strip():
            raise BadInputError(f"--types {part!r}: write attr=int|float|str")
        out[attr.strip()] = kind.strip()
    return out


def read_workload(
    subs_path: Path, events_path: Path, types: dict[str, str] | None = None
) -> FileWorkload:
    """Read ``subs.csv`` and ``events.csv`` (see the module docstring); ``types`` declares
    attribute kinds (``int``, ``float``, ``str``) instead of inferring them."""
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
                "unknown_operator",
                str(subs_path),
                line,
                f"{sid},{attr},{op},{value}",
                detail=f"use one of {' '.join(OPS)}",
            )
            continue
        sub_rows[sub_id].append((attr, op, value, line))
    event_rows: dict[int, dict[str, tuple[str, int]]] = defaultdict(dict)
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
        event_rows[event_id][attr] = (value, line)
    # attribute kinds: declared (``types``) or decided by the majority of their values
    values: dict[str, list[str]] = defaultdict(list)
    for preds in sub_rows.values():
        for attr, _, value, _ in preds:
            values[attr].append(value)
    for ev in event_rows.values():
        for attr, (value, _) in ev.items():
            values[attr].append(value)
    attributes = sorted(values)
    index = {a: i for i, a in enumerate(attributes)}
    kinds = attribute_kinds(values, types or {})
    dictionary = ValueDictionary()

    def encode(attr: str, value: str) -> int | None:
        """The value's int64 code, or None when it does not fit the attribute's kind."""
        if kinds[attr] == "str":
            return dictionary.encode(index[attr], value)
        x = _number(value)
        if x is None or (kinds[attr] == "int" and not isinstance(x, int)):
            return None
        return float_key(float(x)) if kinds[attr] == "float" else int(x)

    kept: list[list[tuple[int, str, int]]] = []
    ids: list[int] = []
    for sub_id, preds in sub_rows.items():
        encoded, bad = [], None
        for attr, op, value, line in preds:
            code = encode(attr, value)
            if code is None:
                bad = (line, f"{sub_id},{attr},{op},{value}", f"{attr} is {kinds[attr]}")
                break
            if op not in ("=", "!=") and kinds[attr] == "str":
                bad = (line, f"{sub_id},{attr},{op},{value}", f"{attr} is text; {op} needs numbers")
                break
            encoded.append((index[attr], op, code))
        if bad is not None:
            line, text, detail = bad
            report.add("non_numeric_value", str(subs_path), line, text, detail=detail)
            others = [p for p in preds if p[3] != line]
            if others:
                # a conjunction without its bad predicate would match more than asked
                report.add(
                    "subscription_dropped",
                    str(subs_path),
                    others[0][3],
                    f"{sub_id},{others[0][0]},{others[0][1]},{others[0][2]}",
                    detail=f"subscription {sub_id}'s line {line} is bad",
                    count=len(others),
                )
            continue
        kept.append(encoded)
        ids.append(sub_id)
    n_attrs = max(1, len(attributes))
    subs = Subscriptions.from_lists(kept, ids=ids, n_attrs=n_attrs)
    event_ids = sorted(event_rows)
    matrix = np.full((len(event_ids), n_attrs), MISSING, dtype=np.int64)
    for e, eid in enumerate(event_ids):
        for attr, (value, line) in event_rows[eid].items():
            code = encode(attr, value)
            if code is None:  # the event keeps its other attributes; this one is missing
                report.add(
                    "non_numeric_value",
                    str(events_path),
                    line,
                    f"{eid},{attr},{value}",
                    detail=f"{attr} is {kinds[attr]}",
                )
                continue
            matrix[e, index[attr]] = code
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
