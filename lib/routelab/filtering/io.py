"""The neutral workload files of ``routelab filtering export`` / ``match``.

Three CSV files with a header, so any other engine can run on exactly the same workload:

- ``subs.csv``: ``sub_id,attr,op,value``, one row per predicate (a subscription's rows share
  its id); ``op`` one of ``< <= = != >= >``;
- ``events.csv``: ``event_id,attr,value``, one row per attribute/value pair;
- ``matches.csv``: ``event_id,subscription_id``, every match (the two id columns every
  ``routelab`` matcher writes).

For ``routelab filtering churn`` the files may carry times: ``subs.csv`` the columns
``insert`` and/or ``delete`` after ``value`` (a subscription is alive from its insert time,
empty: from the start, to its delete time, empty: never deleted; its rows must agree) and
``events.csv`` the column ``time`` (every event needs one; its rows must agree). A time that
is not a number or rows that disagree drop the whole subscription or event (``bad_time``),
as does a delete before the insert (``delete_before_insert``).

Ids (``sub_id``, ``event_id``) are integers that fit in 64 bits; any other id is a bad
record (``bad_id``). Values may be integers, floats or strings. An attribute's kind is
declared (``routelab filtering match --types price=number,carrier=text``; ``number`` is
``int`` or ``float`` as its values say, ``text`` is ``str``) or decided by the majority of
its values in both files: numeric when more than half parse as numbers, so one typo never
turns a numeric attribute into text (the typo's row is counted bad instead). Every decision
on an attribute whose values are mixed is said (:func:`decide_kinds`: "attribute price: 7 of
9 values are text, so it is read as text"), and a row refused because of it names the
decision and the ``--types`` that would change it. On a numeric
attribute integers are kept, and if any value is a float all are mapped to integers by an
order-preserving transform of their IEEE-754 bits (exact for equality and order). A text
attribute is dictionary-encoded and only ``=`` and ``!=`` make sense on it. A row that cannot be used is counted by reason, with file:line
examples (:class:`routelab.badrecords.BadRecordReport`), and the good rows are kept:

=======================  ==============================================================
``malformed_row``        not the header's number of fields
``bad_id``               an id that is not an integer, or one too large for 64 bits
``unknown_operator``     an operator outside ``< <= = != >= >``
``non_numeric_value``    a value that does not fit its attribute's kind (text on a
                         numeric attribute, a fraction on an ``int`` one), or ``< <= >= >``
                         on a text attribute; in subs.csv the whole subscription is dropped
                         (a conjunction without it would match more than asked), in
                         events.csv only that attribute of the event
``subscription_dropped`` the other rows of a subscription with a bad row
``repeated_attribute``   an event giving one attribute twice (the second row is dropped)
``bad_time``             a time that is not a number, rows of one subscription or event
                         giving different times, an event without a time in a timed file
``delete_before_insert`` a subscription deleted before it is inserted
``blank_line``           an empty line
=======================  ==============================================================
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from routelab.badrecords import BadRecordReport
from routelab.errors import BadInputError
from routelab.filtering.model import MISSING, OPS, Events, Subscriptions, ValueDictionary

SUBS_HEADER = ["sub_id", "attr", "op", "value"]
EVENTS_HEADER = ["event_id", "attr", "value"]


@dataclass
class FileWorkload:
    """The files' subscriptions and events, the attribute names (by code), the unusable
    rows, each attribute's kind (``int``, ``float``, ``str``) and why, for the attributes
    whose kind was declared or decided among mixed values (:func:`decide_kinds`)."""

    subs: Subscriptions
    events: Events
    attributes: list[str]
    report: BadRecordReport
    kinds: dict[str, str] = field(default_factory=dict)
    kind_reasons: dict[str, str] = field(default_factory=dict)
    #: the time columns the files have (``insert``, ``delete``, ``time``; none: untimed)
    time_columns: list[str] = field(default_factory=list)
    #: per subscription (row order): insert and delete time, NaN when none (from the start,
    #: never deleted); per event: its time (NaN when the files carry no time)
    insert: np.ndarray = field(default_factory=lambda: np.zeros(0))
    delete: np.ndarray = field(default_factory=lambda: np.zeros(0))
    event_time: np.ndarray = field(default_factory=lambda: np.zeros(0))


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


def _rows(path: Path, header: list[str], report: BadRecordReport, optional: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """Yield ``(line, values of header, {optional column: value})`` per usable row; the
    file's header is ``header`` followed by any of ``optional``."""
    if not path.exists():
        raise BadInputError(f"{path}: no such file")
    with path.open(newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        first = next(reader, None)
        wanted = ",".join(header) + "".join(f"[,{c}]" for c in optional)
        if first is None:
            raise BadInputError(f"{path}: empty file (expected the header {wanted})")
        names = [c.strip() for c in first]
        extra = names[len(header) :]
        if (
            names[: len(header)] != header
            or len(set(extra)) < len(extra)
            or set(extra) - set(optional)
        ):
            raise BadInputError(f"{path}:1: header {','.join(first)!r}, expected {wanted!r}")
        width = len(names)
        for row in reader:
            line = reader.line_num
            report.records += 1
            if not row or all(not c.strip() for c in row):
                report.add("blank_line", str(path), line, "")
                continue
            if len(row) != width:
                report.add(
                    "malformed_row",
                    str(path),
                    line,
                    ",".join(row),
                    detail=f"{len(row)} fields, expected {width}",
                )
                continue
            cells = [c.strip() for c in row]
            yield line, cells[: len(header)], dict(zip(extra, cells[len(header) :], strict=True))


#: the optional time columns: a subscription's life, an event's time (``filtering churn``)
SUB_TIME_COLUMNS = ("insert", "delete")
EVENT_TIME_COLUMNS = ("time",)


def _one_time(
    rows: list[tuple[int, str]], what: str
) -> tuple[float, None] | tuple[None, tuple[int, str, str]]:
    """The time the rows of one subscription or event give for ``what`` (NaN when none):
    ``(time, None)``, or ``(None, (line, value, detail))`` when a value is not a number or
    two rows disagree."""
    found: tuple[int, float] | None = None
    for line, text in rows:
        if not text:
            continue
        x = _number(text)
        if x is None:
            return None, (line, text, f"{what} {text!r} is not a number")
        if found is not None and float(x) != found[1]:
            return None, (line, text, f"{what} {text} here, {found[1]:g} at line {found[0]}")
        found = found or (line, float(x))
    return (found[1] if found else float("nan")), None


#: the attribute kinds ``--types`` may declare: the stored kinds, and ``number`` (``int``
#: or ``float``, as the attribute's values say) and ``text`` (``str``)
KINDS = ("int", "float", "str")
KIND_NAMES = ("number", "text", *KINDS)
#: the largest id the files may use (ids are int64)
MAX_ID = int(np.iinfo(np.int64).max)


def _numeric_kind(numbers: list[int | float]) -> str:
    return "float" if any(isinstance(x, float) for x in numbers) else "int"


def decide_kinds(
    values: dict[str, list[str]], types: dict[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Each attribute's kind and, for every attribute whose kind was declared or whose
    values are mixed (numbers and text), why: declared in ``types`` (``number``: ``int``, or
    ``float`` if a value has a fraction or exponent; ``text``: ``str``), else ``int``/``float``
    when most of its values (more than half) parse as numbers, else ``str``. One typo
    therefore never turns a numeric attribute into text: the typo's row is the bad one."""
    unknown = sorted(set(types) - set(values))
    if unknown:
        raise BadInputError(f"--types names attribute(s) {unknown} that no row uses")
    bad = {a: k for a, k in types.items() if k not in KIND_NAMES}
    if bad:
        raise BadInputError(f"--types {bad}: each kind must be number or text (or int, float, str)")
    kinds, why = {}, {}
    for attr, vs in values.items():
        numbers = [x for x in map(_number, vs) if x is not None]
        text = len(vs) - len(numbers)
        if attr in types:
            kind = {"text": "str", "number": _numeric_kind(numbers)}.get(types[attr], types[attr])
            kinds[attr] = kind
            why[attr] = f"attribute {attr}: declared {types[attr]} by --types"
            continue
        if 2 * len(numbers) <= len(vs):
            kinds[attr] = "str"
            if numbers:
                why[attr] = (
                    f"attribute {attr}: {text} of {len(vs)} values are text, so it is read as "
                    f"text (--types {attr}=number to read it as numbers)"
                )
        else:
            kinds[attr] = _numeric_kind(numbers)
            if text:
                why[attr] = (
                    f"attribute {attr}: {len(numbers)} of {len(vs)} values are numbers, so it "
                    f"is read as numbers (--types {attr}=text to read it as text)"
                )
    return kinds, why


def attribute_kinds(values: dict[str, list[str]], types: dict[str, str]) -> dict[str, str]:
    """Each attribute's kind (:func:`decide_kinds` without the reasons)."""
    return decide_kinds(values, types)[0]


def parse_types(text: str | None) -> dict[str, str]:
    """``attr=number,other=text`` -> a dict (the CLI's ``--types``)."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        attr, sep, kind = part.partition("=")
        if not sep or not attr.strip():
            raise BadInputError(f"--types {part!r}: write attr=number|text (or attr=int|float|str)")
        out[attr.strip()] = kind.strip()
    return out


def _why_id(text: str) -> str:
    try:
        int(text)
    except ValueError:
        return "not an integer"
    return f"{len(text.lstrip('+-'))} digits, beyond +-{MAX_ID}"


def _int64_id(text: str) -> int | None:
    """An id: an integer that fits in int64, else None."""
    try:
        value = int(text)
    except ValueError:
        return None
    return value if -MAX_ID - 1 <= value <= MAX_ID else None


def read_workload(
    subs_path: Path, events_path: Path, types: dict[str, str] | None = None
) -> FileWorkload:
    """Read ``subs.csv`` and ``events.csv`` (see the module docstring); ``types`` declares
    attribute kinds (``int``, ``float``, ``str``) instead of inferring them."""
    report = BadRecordReport()
    sub_rows: dict[int, list[tuple[str, str, str, int]]] = defaultdict(list)
    sub_times: dict[int, list[tuple[int, dict[str, str]]]] = defaultdict(list)
    timed = set()
    rows = _rows(Path(subs_path), SUBS_HEADER, report, SUB_TIME_COLUMNS)
    for line, (sid, attr, op, value), times in rows:
        timed.update(times)
        sub_id = _int64_id(sid)
        if sub_id is None:
            report.add("bad_id", str(subs_path), line, f"{sid},{attr},{op},{value}",
                       detail=f"sub_id must be a 64-bit integer ({_why_id(sid)})")  # fmt: skip
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
        sub_times[sub_id].append((line, times))
    event_rows: dict[int, dict[str, tuple[str, int]]] = defaultdict(dict)
    event_times: dict[int, list[tuple[int, str]]] = defaultdict(list)
    rows = _rows(Path(events_path), EVENTS_HEADER, report, EVENT_TIME_COLUMNS)
    for line, (eid, attr, value), times in rows:
        timed.update(times)
        event_id = _int64_id(eid)
        if event_id is None:
            report.add("bad_id", str(events_path), line, f"{eid},{attr},{value}",
                       detail=f"event_id must be a 64-bit integer ({_why_id(eid)})")  # fmt: skip
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
        if times:
            event_times[event_id].append((line, times["time"]))
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
    kinds, why = decide_kinds(values, types or {})
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
    lives: list[tuple[float, float]] = []
    for sub_id, preds in sub_rows.items():
        encoded, bad = [], None
        for attr, op, value, line in preds:
            code = encode(attr, value)
            if code is None:
                bad = ("non_numeric_value", line, f"{sub_id},{attr},{op},{value}",
                       _misfit(attr, kinds, why))  # fmt: skip
                break
            if op not in ("=", "!=") and kinds[attr] == "str":
                because = why.get(attr, f"attribute {attr}: every value is text")
                bad = ("non_numeric_value", line, f"{sub_id},{attr},{op},{value}",
                       f"{op} needs numbers, and {because}")  # fmt: skip
                break
            encoded.append((index[attr], op, code))
        life = []
        for col in SUB_TIME_COLUMNS:
            if bad is None:
                t, problem = _one_time([(ln, ts.get(col, "")) for ln, ts in sub_times[sub_id]], col)
                if problem is not None:
                    line, value, detail = problem
                    bad = ("bad_time", line, f"{sub_id},...,{col}={value}", detail)
                life.append(t)
        if bad is None and life[1] < life[0]:
            line = sub_times[sub_id][0][0]
            bad = ("delete_before_insert", line, f"{sub_id},insert={life[0]:g},delete={life[1]:g}",
                   "the subscription would never be alive")  # fmt: skip
        if bad is not None:
            reason, line, text, detail = bad
            report.add(reason, str(subs_path), line, text, detail=detail)
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
        lives.append((life[0], life[1]))
    n_attrs = max(1, len(attributes))
    subs = Subscriptions.from_lists(kept, ids=ids, n_attrs=n_attrs)
    event_time = {}
    for eid in sorted(event_rows):
        t, problem = _one_time(event_times.get(eid, []), "time")
        if problem is None and "time" in timed and np.isnan(t):
            problem = (min(ln for _, ln in event_rows[eid].values()), "", "the event has no time")
        if problem is not None:  # the event cannot be placed in time: all its rows dropped
            line, value, detail = problem
            report.add("bad_time", str(events_path), line, f"{eid},...,time={value}",
                       detail=detail, count=len(event_rows.pop(eid)))  # fmt: skip
            continue
        event_time[eid] = t
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
                    detail=_misfit(attr, kinds, why),
                )
                continue
            matrix[e, index[attr]] = code
    events = Events(matrix, np.asarray(event_ids, dtype=np.int64))
    life = np.array(lives, dtype=np.float64).reshape(-1, 2)
    return FileWorkload(
        subs, events, attributes, report, kinds, why, sorted(timed), life[:, 0], life[:, 1],
        np.array([event_time[e] for e in event_ids], dtype=np.float64),
    )  # fmt: skip


def _misfit(attr: str, kinds: dict[str, str], why: dict[str, str]) -> str:
    """Why a value does not fit its attribute: the kind and how it was decided."""
    kind = {"int": "whole numbers", "float": "numbers", "str": "text"}[kinds[attr]]
    return why.get(attr) or f"attribute {attr} holds {kind}"


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
