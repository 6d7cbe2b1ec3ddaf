"""Fast numba kernels of the PKG-side grouping schemes.

Same signatures and the same output as :mod:`routelab.grouping.schemes_reference` (tests compare
them on random streams); read the reference for what each scheme does and which paper
section it implements. Here the per-message loops run in ``@njit`` functions: hashes with
:func:`routelab.hashing.nb_mix64`, loads in int64 arrays, routing tables indexed by dense
key ids (``pandas.factorize``), SpaceSaving summaries as heaps
(:mod:`routelab.grouping.spacesaving`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
import pandas as pd

from routelab.grouping.dchoices_rule import choose_d
from routelab.grouping.events import WorkerEvent
from routelab.grouping.inputs import RouteInputs, route_inputs
from routelab.grouping.schemes_reference import (
    check_d,
    check_hot_params,
    distinct_default,
    hot_threshold,
    probe_divisor,
    shuffle_offsets,
)
from routelab.grouping.spacesaving import (
    H_COUNT,
    H_STAMP,
    T_POS,
    new_summaries,
    ss_find,
    ss_head,
    ss_max_count,
    ss_needs_sift,
    ss_offer,
    ss_sift_down,
)
from routelab.hashing import choice_seed, nb_mix64, seed_constant

ArrayLike = np.ndarray | Sequence[int]


def _inputs(name, keys, sources, n_workers, times, capacities, events) -> RouteInputs:
    return route_inputs(
        keys, sources, n_workers, times=times, capacities=capacities, events=events, scheme=name
    )


def seed_constants(seed: int, d: int) -> np.ndarray:
    """The ``nb_mix64`` constants of hash choices ``0..d-1`` (seeds
    ``choice_seed(seed, i)``, see :func:`routelab.hashing.choice_seed`)."""
    return np.array([seed_constant(choice_seed(seed, i)) for i in range(d)], dtype=np.uint64)


def dense_ids(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense id of every message's key (order of first appearance) and the distinct keys."""
    codes, uniques = pd.factorize(keys)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)


@numba.njit(cache=True, inline="always")
def _choice(key: np.uint64, seed_const: np.uint64, n: np.uint64) -> np.int64:
    return np.int64(nb_mix64(key, seed_const) % n)


# ----------------------------------------------------------------------------- KG and SG


@numba.njit(cache=True)
def _kg_kernel(ukeys, n_workers, seed_const):
    out = np.empty(ukeys.size, dtype=np.int32)
    n = np.uint64(n_workers)
    for i in range(ukeys.size):
        out[i] = _choice(ukeys[i], seed_const, n)
    return out


def kg_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """Key grouping (PKG Sect. III); kernel of :func:`~.reference.kg_reference`."""
    inp = _inputs("kg", keys, sources, n_workers, times, capacities, events)
    return _kg_kernel(inp.keys.view(np.uint64), inp.n_workers, seed_constant(choice_seed(seed, 0)))


@numba.njit(cache=True)
def _sg_kernel(sources, offsets, n_workers):
    out = np.empty(sources.size, dtype=np.int32)
    nxt = offsets.copy()
    for i in range(sources.size):
        s = sources[i]
        w = nxt[s]
        out[i] = w
        w += 1
        nxt[s] = 0 if w == n_workers else w
    return out


def sg_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """Shuffle grouping, round robin per source (PKG Sect. II-A); kernel of
    :func:`~.reference.sg_reference`."""
    inp = _inputs("sg", keys, sources, n_workers, times, capacities, events)
    offsets = np.array(shuffle_offsets(inp.n_sources, inp.n_workers, seed), dtype=np.int64)
    return _sg_kernel(inp.sources, offsets, inp.n_workers)


# ----------------------------------------------------------------------------- routing tables


@numba.njit(cache=True)
def _table_kernel(ukeys, ids, n_keys, n_workers, seed_consts, greedy):
    """Static PoTC (``greedy=False``: least loaded of the d hash choices) or On-Greedy
    (``greedy=True``: least loaded of all workers), bound at a key's first occurrence."""
    out = np.empty(ukeys.size, dtype=np.int32)
    table = np.full(n_keys, -1, dtype=np.int64)
    load = np.zeros(n_workers, dtype=np.int64)
    n = np.uint64(n_workers)
    d = seed_consts.size
    for i in range(ukeys.size):
        kid = ids[i]
        w = table[kid]
        if w < 0:
            if greedy:
                w = 0
                for c in range(1, n_workers):
                    if load[c] < load[w]:
                        w = c
            else:
                w = _choice(ukeys[i], seed_consts[0], n)
                for j in range(1, d):
                    c = _choice(ukeys[i], seed_consts[j], n)
                    if load[c] < load[w]:
                        w = c
            table[kid] = w
        load[w] += 1
        out[i] = w
    return out


def potc_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
) -> np.ndarray:
    """Static PoTC (PKG Sect. III-A); kernel of :func:`~.reference.potc_reference`."""
    inp = _inputs("potc", keys, sources, n_workers, times, capacities, events)
    check_d(d)
    ids, uniques = dense_ids(inp.keys)
    return _table_kernel(
        inp.keys.view(np.uint64), ids, uniques.size, inp.n_workers, seed_constants(seed, d), False
    )


def on_greedy_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """On-Greedy (PKG Sect. V-B); kernel of :func:`~.reference.on_greedy_reference`."""
    inp = _inputs("on_greedy", keys, sources, n_workers, times, capacities, events)
    ids, uniques = dense_ids(inp.keys)
    return _table_kernel(
        inp.keys.view(np.uint64), ids, uniques.size, inp.n_workers, seed_constants(seed, 1), True
    )


@numba.njit(cache=True)
def _lpt_kernel(order, freq, n_workers):
    """Greedy over keys in the given order: each to the least assigned worker (lowest id)."""
    table = np.empty(freq.size, dtype=np.int32)
    assigned = np.zeros(n_workers, dtype=np.int64)
    for kid in order:
        w = 0
        for c in range(1, n_workers):
            if assigned[c] < assigned[w]:
                w = c
        table[kid] = w
        assigned[w] += freq[kid]
    return table


def off_greedy_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """Off-Greedy (PKG Sect. V-B); kernel of :func:`~.reference.off_greedy_reference`."""
    inp = _inputs("off_greedy", keys, sources, n_workers, times, capacities, events)
    ids, uniques = dense_ids(inp.keys)
    freq = np.bincount(ids, minlength=uniques.size).astype(np.int64)
    order = np.lexsort((uniques, -freq))  # decreasing frequency, then increasing key
    table = _lpt_kernel(order, freq, inp.n_workers)
    return table[ids]


# ----------------------------------------------------------------------------- PKG


@numba.njit(cache=True)
def _pkg_kernel(
    ukeys, sources, n_views, n_workers, seed_consts, local, probe, times, interval, divisor
):
    """Greedy-d with key splitting; ``local`` selects per-source estimates, ``probe`` resets
    them to ``true_load // divisor`` when ``t > last_probe + interval``."""
    out = np.empty(ukeys.size, dtype=np.int32)
    estimate = np.zeros((n_views, n_workers), dtype=np.int64)
    actual = np.zeros(n_workers, dtype=np.int64)
    n = np.uint64(n_workers)
    d = seed_consts.size
    last_probe = times[0] if probe and times.size > 0 else 0.0
    for i in range(ukeys.size):
        if probe and times[i] > last_probe + interval:
            for v in range(n_views):
                for w in range(n_workers):
                    estimate[v, w] = actual[w] // divisor
            last_probe = times[i]
        v = sources[i] if local else 0
        k = ukeys[i]
        best = _choice(k, seed_consts[0], n)
        best_load = estimate[v, best]
        for j in range(1, d):
            c = _choice(k, seed_consts[j], n)
            if estimate[v, c] < best_load:
                best = c
                best_load = estimate[v, c]
        estimate[v, best] += 1
        actual[best] += 1
        out[i] = best
    return out


def _pkg(
    inp: RouteInputs,
    seed: int,
    d: int,
    mode: str,
    probe_interval: float,
    probe_reset: str | None = "actual",
) -> np.ndarray:
    check_d(d)
    divisor = probe_divisor(probe_reset, inp.n_sources if mode != "global" else 1)
    local = mode != "global"
    probe = mode == "probe"
    if probe:
        times = inp.times if inp.times is not None else np.arange(inp.keys.size, dtype=float)
    else:
        times = np.zeros(0, dtype=np.float64)
    return _pkg_kernel(
        inp.keys.view(np.uint64),
        inp.sources,
        inp.n_sources if local else 1,
        inp.n_workers,
        seed_constants(seed, d),
        local,
        probe,
        times,
        float(probe_interval),
        divisor,
    )


def pkg_global_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
) -> np.ndarray:
    """PKG, global load (G); kernel of :func:`~.reference.pkg_global_reference`."""
    inp = _inputs("pkg_global", keys, sources, n_workers, times, capacities, events)
    return _pkg(inp, seed, d, "global", 0.0)


def pkg_local_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
) -> np.ndarray:
    """PKG, local estimation (L); kernel of :func:`~.reference.pkg_local_reference`."""
    inp = _inputs("pkg_local", keys, sources, n_workers, times, capacities, events)
    return _pkg(inp, seed, d, "local", 0.0)


def pkg_probe_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
    probe_interval: float = 60.0,
    probe_reset: str | None = None,
) -> np.ndarray:
    """PKG, local estimation + probing (LP); kernel of :func:`~.reference.pkg_probe_reference`."""
    inp = _inputs("pkg_probe", keys, sources, n_workers, times, capacities, events)
    if not probe_interval > 0:
        raise ValueError(f"probe_interval must be > 0, got {probe_interval!r}")
    return _pkg(inp, seed, d, "probe", probe_interval, probe_reset)


# ----------------------------------------------------------------------------- D-C and W-C


@numba.njit(cache=True)
def _hot_kernel(
    keys,
    ukeys,
    sources,
    n_sources,
    n_workers,
    seed_consts,
    all_workers,
    heap,
    table,
    size,
    threshold,
    epsilon,
    d_refresh,
    distinct,
):
    out = np.empty(keys.size, dtype=np.int32)
    chosen = np.empty(max(2, n_workers), dtype=np.int64)
    local = np.zeros((n_sources, n_workers), dtype=np.int64)
    seen = np.zeros(n_sources, dtype=np.int64)
    cached_d = np.zeros(n_sources, dtype=np.int64)
    computed_at = np.zeros(n_sources, dtype=np.int64)
    n = np.uint64(n_workers)
    for i in range(keys.size):
        s = sources[i]
        uk = ukeys[i]
        # SpaceSaving offer; the hit path (the common case) is written out here because a
        # numba call with several array arguments pays reference counting on every message
        slot = ss_find(table, s, keys[i])
        if slot >= 0:
            p = table[s, slot, T_POS]
            estimate = heap[s, p, H_COUNT] + 1
            heap[s, p, H_COUNT] = estimate
            heap[s, p, H_STAMP] = seen[s]
            if ss_needs_sift(heap, size, s, p):
                ss_sift_down(heap, table, size, s, p)
        else:
            estimate = ss_offer(heap, table, size, s, keys[i], seen[s])
        seen[s] += 1
        m = seen[s]
        n_choices = 2
        use_all = False
        hot_d = False
        if estimate > threshold * m:
            if all_workers:
                use_all = True
            else:
                if cached_d[s] == 0 or m - computed_at[s] >= min(d_refresh, computed_at[s]):
                    head_total, n_head = ss_head(heap, size, s, threshold * m)
                    p1 = ss_max_count(heap, size, s) / m
                    cached_d[s] = choose_d(p1, head_total / m, n_head, n_workers, epsilon, 2)
                    computed_at[s] = m
                n_choices = cached_d[s]
                use_all = n_choices >= n_workers
                hot_d = True
        if use_all:
            best = 0
            for c in range(1, n_workers):
                if local[s, c] < local[s, best]:
                    best = c
        elif distinct and hot_d:
            best = -1
            for j in range(n_choices):
                c = _choice(uk, seed_consts[j], n)
                clash = True
                while clash:  # move to the next worker while c repeats an earlier choice
                    clash = False
                    for x in range(j):
                        if chosen[x] == c:
                            clash = True
                            c = (c + 1) % n_workers
                            break
                chosen[j] = c
                if best < 0 or local[s, c] < local[s, best]:
                    best = c
        else:
            best = _choice(uk, seed_consts[0], n)
            for j in range(1, n_choices):
                c = _choice(uk, seed_consts[j], n)
                if local[s, c] < local[s, best]:
                    best = c
        local[s, best] += 1
        out[i] = best
    return out


def _hot(inp, seed, all_workers, capacity, theta, epsilon, d_refresh, distinct=True) -> np.ndarray:
    threshold = hot_threshold(theta, inp.n_workers)
    check_hot_params(capacity, epsilon, d_refresh)
    distinct = distinct_default() if distinct is None else distinct
    heap, table, size = new_summaries(inp.n_sources, int(capacity))
    return _hot_kernel(
        inp.keys,
        inp.keys.view(np.uint64),
        inp.sources,
        inp.n_sources,
        inp.n_workers,
        seed_constants(seed, max(2, inp.n_workers)),
        all_workers,
        heap,
        table,
        size,
        threshold,
        float(epsilon),
        int(d_refresh),
        bool(distinct),
    )


def dchoices_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    capacity: int = 100,
    theta: float | None = None,
    epsilon: float = 1e-3,
    d_refresh: int = 1000,
    distinct: bool | None = None,
) -> np.ndarray:
    """D-Choices; kernel of :func:`~.reference.dchoices_reference`."""
    inp = _inputs("dchoices", keys, sources, n_workers, times, capacities, events)
    return _hot(inp, seed, False, capacity, theta, epsilon, d_refresh, distinct)


def wchoices_kernel(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    capacity: int = 100,
    theta: float | None = None,
) -> np.ndarray:
    """W-Choices; kernel of :func:`~.reference.wchoices_reference`."""
    inp = _inputs("wchoices", keys, sources, n_workers, times, capacities, events)
    return _hot(inp, seed, True, capacity, theta, 0.0, 1)
