"""A user's own spatio-textual stream from files (``routelab spatial match``).

Objects: CSV or Parquet with ``id``, ``text``, ``lat``, ``lon`` and optionally ``ts``.
Queries: ``id``, ``keywords`` (an expression such as ``a AND b`` / ``a OR b``, AND binding
tighter, parentheses allowed), ``min_lat``, ``min_lon``, ``max_lat``, ``max_lon`` and
optionally ``insert`` and ``delete`` times (same scale as ``ts``). Texts and keywords are
cleaned like the S3-TM corpus (tokens, stop words, Porter stems), so ``vaccines`` in a text
matches the keyword ``vaccine``.

Order: with times, tuples are ordered by time (at equal times: insertions, then objects,
then deletions); without, every query is inserted first and objects follow in file order.
Bad records are counted by reason with file and line (CSV: the line in the file) and
skipped: missing or non-numeric coordinates, coordinates out of range (an object's point or
a query's rectangle: latitude outside [-90, 90], longitude outside [-180, 180]), a text with
no word left after cleaning, a duplicate id, an empty or malformed expression, a keyword
that is only a stop word, a rectangle with min > max, an object's ``ts`` or a query's
``insert``/``delete`` that is present but not a number (``bad_time``: a typo such as ``2O``
must not turn into "never deleted"), a deletion before the insertion. An empty ``insert``
means "from the start", an empty ``delete`` "never deleted". Query times need the objects'
``ts`` (they are placed among the objects by time): times on the queries alone are an error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from routelab.badrecords import BadRecordReport
from routelab.errors import BadInputError
from routelab.spatial.model import (
    DEL,
    INS,
    OBJ,
    Stream,
    Vocabulary,
    make_objects,
    make_queries,
    parse_expression,
)

OBJECT_COLUMNS = ("id", "text", "lat", "lon")
QUERY_COLUMNS = ("id", "keywords", "min_lat", "min_lon", "max_lat", "max_lon")


def read_table(path: Path, required: tuple[str, ...]) -> tuple[pd.DataFrame, int]:
    """A CSV/Parquet file as strings-or-numbers; returns the frame and the line of row 0."""
    if not path.exists():
        raise BadInputError(f"{path}: no such file")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            frame, first = pd.read_parquet(path), 1
        else:
            frame, first = pd.read_csv(path, dtype=str, keep_default_na=False), 2
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise BadInputError(f"{path}: cannot read ({exc})") from None
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise BadInputError(
            f"{path}: missing column(s) {', '.join(missing)}; it has {', '.join(map(str, frame.columns))}"
        )
    return frame.reset_index(drop=True), first


def _num(series: pd.Series) -> np.ndarray:
    return pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)


def _blank(series: pd.Series) -> np.ndarray:
    """Cells with no value: missing (Parquet null, NaN) or only white space (CSV)."""
    return series.map(lambda v: v is None or (isinstance(v, float) and np.isnan(v)) or
                      (isinstance(v, str) and not v.strip())).to_numpy(dtype=bool)  # fmt: skip


def optional_times(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A time column where a cell may be empty: (the times, NaN where empty; the cells that
    hold something that is not a finite number, e.g. the typo ``2O``)."""
    values = _num(series)
    return values, ~_blank(series) & ~np.isfinite(values)


def _bad_rows(
    bad: BadRecordReport,
    mask: np.ndarray,
    reason: str,
    where: str,
    first: int,
    frame: pd.DataFrame,
    detail: str,
) -> np.ndarray:
    for i in np.flatnonzero(mask)[: bad.max_examples]:
        bad.add(reason, where, first + int(i), ",".join(map(str, frame.iloc[i].tolist())), detail)
    if mask.sum() > bad.max_examples:
        bad.counts[reason] += int(mask.sum()) - bad.max_examples
    return ~mask


def read_user_stream(objects_path: Path, queries_path: Path, bad: BadRecordReport) -> Stream:
    from routelab.corpus.text import clean_many, clean_words

    objs, o_first = read_table(objects_path, OBJECT_COLUMNS)
    qs, q_first = read_table(queries_path, QUERY_COLUMNS)
    bad.records += len(objs) + len(qs)
    ow, qw = objects_path.name, queries_path.name
    lat, lon = _num(objs["lat"]), _num(objs["lon"])
    keep = np.ones(len(objs), dtype=bool)
    keep &= _bad_rows(
        bad,
        ~(np.isfinite(lat) & np.isfinite(lon)),
        "bad_coordinates",
        ow,
        o_first,
        objs,
        "lat/lon missing or not a number",
    )
    keep &= _bad_rows(
        bad,
        keep & ((np.abs(lat) > 90) | (np.abs(lon) > 180)),
        "coordinates_out_of_range",
        ow,
        o_first,
        objs,
        "|lat| <= 90 and |lon| <= 180",
    )
    words = clean_many(objs["text"].astype(str).tolist())
    keep &= _bad_rows(
        bad,
        keep & (np.array([len(w) for w in words]) == 0),
        "no_words",
        ow,
        o_first,
        objs,
        "no word left after cleaning",
    )
    ids = objs["id"].astype(str)
    keep &= _bad_rows(
        bad, keep & ids.duplicated().to_numpy(), "duplicate_id", ow, o_first, objs, "id seen before"
    )
    ts = _num(objs["ts"]) if "ts" in objs.columns else None
    if ts is not None:
        keep &= _bad_rows(
            bad,
            keep & ~np.isfinite(ts),
            "bad_time",
            ow,
            o_first,
            objs,
            "ts missing or not a number",
        )
    # queries
    rect = np.stack([_num(qs[c]) for c in ("min_lon", "min_lat", "max_lon", "max_lat")], axis=1)
    qkeep = np.ones(len(qs), dtype=bool)
    qkeep &= _bad_rows(
        bad,
        ~np.isfinite(rect).all(axis=1),
        "bad_rectangle",
        qw,
        q_first,
        qs,
        "a bound is missing or not a number",
    )
    qkeep &= _bad_rows(
        bad,
        qkeep & ((rect[:, 0] > rect[:, 2]) | (rect[:, 1] > rect[:, 3])),
        "bad_rectangle",
        qw,
        q_first,
        qs,
        "min > max",
    )
    qkeep &= _bad_rows(
        bad,
        qkeep
        & (
            (np.abs(rect[:, [1, 3]]) > 90).any(axis=1) | (np.abs(rect[:, [0, 2]]) > 180).any(axis=1)
        ),
        "coordinates_out_of_range",
        qw,
        q_first,
        qs,
        "rectangle: lat must lie in [-90, 90] and lon in [-180, 180]",
    )
    times: dict[str, np.ndarray] = {}
    for col in ("insert", "delete"):
        if col in qs.columns:
            times[col], typo = optional_times(qs[col])
            qkeep &= _bad_rows(
                bad, qkeep & typo, "bad_time", qw, q_first, qs, f"{col} is not a number"
            )
    if times and ts is None:
        raise BadInputError(
            f"{qw} has {'/'.join(times)} times but {ow} has no ts column: query times are "
            f"placed among the objects by their ts; add ts to {ow} or drop the time columns "
            f"of {qw}"
        )
    t_ins, t_del = times.get("insert"), times.get("delete")
    dnfs: list[list[list[str]] | None] = []
    for i, text in enumerate(qs["keywords"].astype(str)):
        if not qkeep[i]:
            dnfs.append(None)
            continue
        try:
            dnf = parse_expression(text)
        except BadInputError as exc:
            bad.add("bad_expression", qw, q_first + i, text, str(exc))
            qkeep[i] = False
            dnfs.append(None)
            continue
        cleaned = [[w for k in conj for w in clean_words(k)] for conj in dnf]
        if any(len(c) == 0 for c in cleaned):
            bad.add("stopword_keyword", qw, q_first + i, text, "a conjunct has only stop words")
            qkeep[i] = False
            dnfs.append(None)
            continue
        dnfs.append(cleaned)
    qids = qs["id"].astype(str)
    qkeep &= _bad_rows(
        bad, qkeep & qids.duplicated().to_numpy(), "duplicate_id", qw, q_first, qs, "id seen before"
    )
    if t_ins is not None and t_del is not None:
        qkeep &= _bad_rows(
            bad,
            qkeep & np.isfinite(t_del) & np.isfinite(t_ins) & (t_del < t_ins),
            "delete_before_insert",
            qw,
            q_first,
            qs,
            "delete < insert",
        )
    if not keep.any() or not qkeep.any():
        raise BadInputError(
            f"nothing to match: {int(keep.sum())} usable objects in {ow}, {int(qkeep.sum())} usable "
            f"queries in {qw} (bad records: "
            + ", ".join(f"{n:,} {reason}" for reason, n in sorted(bad.counts.items()))
            + ")"
        )
    vocab = Vocabulary()
    oi = np.flatnonzero(keep)
    qi = np.flatnonzero(qkeep)
    o_num = np.arange(len(oi))
    q_num = np.arange(len(qi))
    objects = make_objects(o_num, lon[oi], lat[oi], [words[i] for i in oi], vocab)
    queries = make_queries(q_num, rect[qi], [dnfs[i] for i in qi], vocab)
    # order
    has_times = ts is not None and (t_ins is not None or t_del is not None)
    if has_times:
        q_ins = (
            np.full(len(qi), -np.inf) if t_ins is None else np.nan_to_num(t_ins[qi], nan=-np.inf)
        )
        q_del = t_del[qi] if t_del is not None else np.full(len(qi), np.nan)
        dels = np.flatnonzero(np.isfinite(q_del))
        times = np.concatenate([q_ins, ts[oi], q_del[dels]])
        prio = np.concatenate([np.zeros(len(qi)), np.ones(len(oi)), np.full(len(dels), 2)])
        kind = np.concatenate(
            [np.full(len(qi), INS), np.full(len(oi), OBJ), np.full(len(dels), DEL)]
        )
        ref = np.concatenate([q_num, o_num, dels])
        order = np.lexsort((prio, times))
        kind, ref = kind[order], ref[order]
    else:
        kind = np.concatenate([np.full(len(qi), INS), np.full(len(oi), OBJ)])
        ref = np.concatenate([q_num, o_num])
    info = {
        "data": f"user files {ow} + {qw}",
        "object_ids": ids.to_numpy()[oi],
        "query_ids": qids.to_numpy()[qi],
        "ordered_by_time": has_times,
        "object_rows": oi,  # the kept rows of each file (0-based, in file order)
        "query_rows": qi,
    }
    return Stream(objects, queries, kind.astype(np.int8), ref.astype(np.int64), vocab, info)
