"""The brute-force matcher every algorithm is tested against (Sect. 1.1's definition).

For each event: evaluate *every* predicate of the table against the event's value of its
attribute (:func:`routelab.filtering.model.compare_arrays`), then a subscription matches
iff all its predicates hold (``np.logical_and.reduceat`` over its CSR row). No index, no
clustering, nothing shared with the algorithms under test.
"""

from __future__ import annotations

import numpy as np

from routelab.filtering.model import Events, Subscriptions, compare_arrays


def oracle_match(subs: Subscriptions, events: Events) -> tuple[np.ndarray, np.ndarray]:
    """All matches as CSR: subscription *indexes* (0..n-1, sorted) of event e are
    ``subs_out[ptr[e]:ptr[e+1]]``."""
    table = subs.table
    n = len(subs)
    sizes = subs.sizes()
    nonempty = sizes > 0
    starts = subs.ptr[:-1][nonempty]
    ptr = np.zeros(len(events) + 1, dtype=np.int64)
    out = []
    values = events.widen(max(subs.n_attrs, events.values.shape[1])).values
    for e in range(len(events)):
        sat = compare_arrays(values[e, table.attr], table.op, table.value)
        ok = np.ones(n, dtype=bool)  # an empty conjunction is always true
        if len(starts):
            ok[nonempty] = np.logical_and.reduceat(sat[subs.preds], starts)
        hit = np.flatnonzero(ok)
        out.append(hit)
        ptr[e + 1] = ptr[e] + len(hit)
    return ptr, (np.concatenate(out) if out else np.zeros(0, np.int64)).astype(np.int64)


def oracle_ids(subs: Subscriptions, events: Events, **_: object) -> list[list[int]]:
    """Each event's matching subscription *ids*, sorted: :func:`oracle_match` in the shape
    of the matchers' references (the ``oracle`` of every entry of
    :data:`routelab.filtering.matchers.MATCHERS`; build parameters are ignored)."""
    ptr, idx = oracle_match(subs, events)
    ids = subs.ids[idx]
    return [sorted(ids[ptr[e] : ptr[e + 1]].tolist()) for e in range(len(events))]
