"""Subscription churn replayed through one matcher: subscriptions inserted and deleted while
events arrive, the setting of Fabret et al.'s dynamic clustering (Sect. 4: the clustering is
maintained as subscriptions come and go, Sect. 4.1; inserts and deletes go through the
structures of Sect. 2.3).

The timeline (:func:`replay_churn`): events in (time, event id) order; subscription i is
alive for an event at time t when ``insert_i <= t <= delete_i`` (NaN insert: from the
start; NaN delete: never deleted), i.e. at equal times insertions come first, then events,
then deletions (the order of ``routelab spatial``'s files). Consecutive events with no
change between them form one batch; before each batch the subscriptions deleted since the
previous batch are deleted from the matcher and the new ones inserted (``dynamic``: as one
batch each, so maintenance runs once per batch, Sect. 4.1), then the batch is matched.
Every algorithm of :data:`~routelab.filtering.matchers.MATCHERS` supports this; the answer
equals :func:`routelab.filtering.oracle.oracle_match` over each event's live set (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from routelab.filtering.costmodel import EventStats
from routelab.filtering.matchers import build_matcher
from routelab.filtering.model import Events, Subscriptions
from routelab.timing import now as clock


@dataclass
class ChurnRun:
    """``pairs``: (event_id, sub_id) of every match, sorted; ``steps``: one row per batch
    (first_time, events, inserted, deleted, live, matches, update_s, match_s and, for the
    clustered matchers, tables: the multi-attribute hash tables in use); ``built_at``: the
    batch whose live set the matcher was built over (before it, no subscription lived)."""

    pairs: pd.DataFrame
    steps: pd.DataFrame
    built_at: int


def alive(insert: np.ndarray, delete: np.ndarray, t: float) -> np.ndarray:
    """Which subscriptions are alive for an event at time ``t`` (module docstring)."""
    return ~(insert > t) & ~(delete < t)


def replay_churn(
    subs: Subscriptions,
    events: Events,
    insert: np.ndarray,
    delete: np.ndarray,
    event_time: np.ndarray,
    algorithm: str = "dynamic",
    *,
    stats: EventStats | None = None,
    seed: int = 0,
) -> ChurnRun:
    """Replay ``events`` (at ``event_time``) against ``subs`` alive between ``insert`` and
    ``delete`` (per subscription row; module docstring) through one ``algorithm`` matcher.
    ``stats`` (default: measured on ``events``) cost static's and dynamic's tables; ``seed``
    is static's greedy sample. The matcher is built over the live set of the first batch
    that has one."""
    insert = np.asarray(insert, dtype=np.float64)
    delete = np.asarray(delete, dtype=np.float64)
    event_time = np.asarray(event_time, dtype=np.float64)
    if len(insert) != len(subs) or len(delete) != len(subs) or len(event_time) != len(events):
        raise ValueError("one insert and delete time per subscription, one time per event")
    if np.isnan(event_time).any():
        raise ValueError("every event needs a time")
    if stats is None:
        stats = EventStats.from_events(events.widen(subs.n_attrs))
    order = np.lexsort((events.ids, event_time))
    times = event_time[order]
    # a batch starts wherever the live set may change: a new time past an insert or delete
    ins_at = np.searchsorted(np.sort(np.where(np.isnan(insert), -np.inf, insert)), times, "right")
    del_at = np.searchsorted(np.sort(np.where(np.isnan(delete), np.inf, delete)), times, "left")
    new = np.r_[True, (np.diff(ins_at) != 0) | (np.diff(del_at) != 0)]
    starts = np.r_[np.flatnonzero(new), len(order)]
    lists = subs.as_lists()
    live = np.zeros(len(subs), dtype=bool)
    matcher = None
    built_at = -1
    pairs, steps = [], []
    for b in range(len(starts) - 1):
        rows = order[starts[b] : starts[b + 1]]
        t = float(times[starts[b]])
        target = alive(insert, delete, t)
        gone, added = np.flatnonzero(live & ~target), np.flatnonzero(target & ~live)
        t0 = clock()
        if matcher is None and target.any():
            matcher = build_matcher(algorithm, subs.take(added), stats=stats, seed=seed)
            built_at = b
        elif matcher is not None:
            _update(matcher, subs, lists, gone, added)
        if matcher is not None and hasattr(matcher, "prepare"):
            matcher.prepare()
        update_s = clock() - t0
        live = target
        batch = Events(events.values[rows], events.ids[rows])
        t0 = clock()
        if matcher is not None:
            ptr, ids = matcher.match(batch)
        else:
            ptr, ids = np.zeros(len(rows) + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
        match_s = clock() - t0
        pairs.append(np.stack([np.repeat(batch.ids, np.diff(ptr)), ids], axis=1))
        steps.append(
            {"batch": b, "first_time": t, "events": len(rows), "inserted": len(added),
             "deleted": len(gone), "live": int(live.sum()), "matches": int(ptr[-1]),
             "update_s": update_s, "match_s": match_s,
             "tables": len(getattr(matcher, "schemas", ())) if matcher is not None else 0}
        )  # fmt: skip
    both = np.concatenate(pairs) if pairs else np.zeros((0, 2), dtype=np.int64)
    frame = pd.DataFrame(both.astype(np.int64), columns=["event_id", "sub_id"])
    frame = frame.sort_values(["event_id", "sub_id"], ignore_index=True)
    return ChurnRun(frame, pd.DataFrame(steps), built_at)


def _update(
    matcher: object,
    subs: Subscriptions,
    lists: list[list[tuple[int, str, int]]],
    gone: np.ndarray,
    added: np.ndarray,
) -> None:
    """Delete ``gone`` and insert ``added`` (subscription rows): in one batch each where
    the matcher has batch updates (dynamic: one maintenance per batch), else one by one."""
    ids = subs.ids
    if len(gone):
        if hasattr(matcher, "delete_many"):
            matcher.delete_many(ids[gone].tolist())
        else:
            for sid in ids[gone].tolist():
                matcher.delete(sid)  # type: ignore[attr-defined]
    if len(added):
        if hasattr(matcher, "insert_subscriptions"):
            matcher.insert_subscriptions(subs.take(added))
        else:
            for r in added.tolist():
                matcher.insert(int(ids[r]), lists[r])  # type: ignore[attr-defined]
