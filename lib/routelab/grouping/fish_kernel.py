"""FISH, fast numba kernel: the same routing as :mod:`routelab.grouping.fish_reference`.

The steps and readings are those of the reference (FISH Sects. 4.1-4.2 and 5; formulas in
:mod:`routelab.grouping.fish_params`); only the data structures change:

- the decayed top-K counters of each source (Sect. 4.1.1) are a min-heap ordered by
  ``(count, stamp)`` -- exactly the reference's eviction order -- plus a linear-probing
  table from key to heap position, so an offer costs ``O(log K)``. Decaying multiplies every
  counter by alpha and re-heapifies (rounding may tie two counters);
- the CHK table of each source (key -> workers) is a small open-addressing table rebuilt at
  every epoch end;
- the candidate workers of hot keys (up to every worker) are cached per key and segment of
  live workers, since walking the ring for ``d`` distinct workers costs about
  ``n ln(n / (n - d))`` steps; non-hot keys walk the ring each time (two or three steps);
- worker estimates are ``(sources, workers)`` arrays; refreshes are applied lazily.

Speed notes (numba): helpers are plain ``njit`` functions (``inline="always"`` nested
inside loops made numba keep reference counts alive, 15x slower), and the common top-K hit
is written out in the main loop because a call with many array arguments pays reference
counting on every message.

All floating-point expressions are written in the reference's order, and the two CHK formulas
are shared numba functions, so both give bit-identical counters, tables and choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from routelab.grouping.consistent_hash import nb_modulo_walk, nb_ring_walk
from routelab.grouping.dchoices_rule import choose_d
from routelab.grouping.events import WorkerEvent
from routelab.grouping.fish_params import (
    HOT_POLICIES,
    FishRun,
    hot_key_workers,
    hot_min_workers,
    prepare_fish_run,
)
from routelab.grouping.fish_reference import ALL_WORKERS
from routelab.hashing import nb_mix64, seed_constant

_ZERO = np.uint64(0)


@numba.njit(cache=True)
def _pow2_cap(x):
    """The power of two >= max(x, 16) (table sizes: load factor at most 1/2)."""
    size = 16
    while size < x:
        size *= 2
    return size


# ----------------------------------------------------------------------------- hash tables


@numba.njit(cache=True)
def _home(key):
    """Table hash of a key (unseeded: table layout never affects routing)."""
    return nb_mix64(np.uint64(key), _ZERO)


@numba.njit(cache=True)
def _slot(tkey, tval, s, key, h, empty):
    """Slot of ``key`` (hash ``h = _home(key)``) in row ``s`` of a linear-probing table, or the
    empty slot it would take."""
    mask = tkey.shape[1] - 1
    j = np.int64(h & np.uint64(mask))
    while tval[s, j] != empty and tkey[s, j] != key:
        j = (j + 1) & mask
    return j


@numba.njit(cache=True)
def _delete(tkey, tpos, hslot, s, j):
    """Empty slot ``j`` of the top-K table and shift later entries back (keeps probe chains);
    ``hslot`` follows the entries that move."""
    mask = tkey.shape[1] - 1
    tpos[s, j] = -1
    i = j
    while True:
        i = (i + 1) & mask
        if tpos[s, i] == -1:
            return
        home = np.int64(_home(tkey[s, i]) & np.uint64(mask))
        # the entry at i may stay only if its home lies cyclically in (j, i]
        stays = (j < home <= i) if j < i else (home > j or home <= i)
        if not stays:
            tkey[s, j] = tkey[s, i]
            tpos[s, j] = tpos[s, i]
            hslot[s, tpos[s, j]] = j
            tpos[s, i] = -1
            j = i


# ----------------------------------------------------------------------------- top-K heap
# Heap-ordered fields per source: hkey, hcount, hstamp, hslot (the node's table slot); the
# table maps key -> heap position (tpos, -1 = empty). Order: (count, stamp), least first.


@numba.njit(cache=True)
def _less(hcount, hstamp, s, a, b):
    ca = hcount[s, a]
    cb = hcount[s, b]
    return ca < cb or (ca == cb and hstamp[s, a] < hstamp[s, b])


@numba.njit(cache=True)
def _swap(hkey, hcount, hstamp, hslot, tpos, s, a, b):
    k = hkey[s, a]
    hkey[s, a] = hkey[s, b]
    hkey[s, b] = k
    c = hcount[s, a]
    hcount[s, a] = hcount[s, b]
    hcount[s, b] = c
    t = hstamp[s, a]
    hstamp[s, a] = hstamp[s, b]
    hstamp[s, b] = t
    j = hslot[s, a]
    hslot[s, a] = hslot[s, b]
    hslot[s, b] = j
    tpos[s, hslot[s, a]] = a
    tpos[s, hslot[s, b]] = b


@numba.njit(cache=True)
def _sift_down(hkey, hcount, hstamp, hslot, tpos, size, s, i):
    """Move the node at ``i`` down to its place (smaller children move up into the hole)."""
    key = hkey[s, i]
    c = hcount[s, i]
    st = hstamp[s, i]
    sl = hslot[s, i]
    child = 2 * i + 1
    while child < size:
        if child + 1 < size:  # pick the smaller child without a data-dependent branch
            cl = hcount[s, child]
            cr = hcount[s, child + 1]
            right = (cr < cl) | ((cr == cl) & (hstamp[s, child + 1] < hstamp[s, child]))
            child += np.int64(right)
        cc = hcount[s, child]
        if not (cc < c or (cc == c and hstamp[s, child] < st)):
            break
        hkey[s, i] = hkey[s, child]
        hcount[s, i] = cc
        hstamp[s, i] = hstamp[s, child]
        hslot[s, i] = hslot[s, child]
        tpos[s, hslot[s, i]] = i
        i = child
        child = 2 * i + 1
    hkey[s, i] = key
    hcount[s, i] = c
    hstamp[s, i] = st
    hslot[s, i] = sl
    tpos[s, sl] = i


@numba.njit(cache=True)
def _topk_miss(hkey, hcount, hstamp, hslot, size, tkey, tpos, s, key, h, j, now):
    """Algorithm 1 for a key not stored in source ``s``'s top-K (``j``: its empty table slot)."""
    n = size[s]
    if n < hkey.shape[1]:  # room left: merge the key into K (count 1, the largest stamp)
        hkey[s, n] = key
        hcount[s, n] = 1.0
        hstamp[s, n] = now
        hslot[s, n] = j
        tkey[s, j] = key
        tpos[s, j] = n
        size[s] = n + 1
        while n > 0:  # sift up
            parent = (n - 1) // 2
            if not _less(hcount, hstamp, s, n, parent):
                break
            _swap(hkey, hcount, hstamp, hslot, tpos, s, n, parent)
            n = parent
        return
    # ReplaceMin: the root, least (count, stamp), takes the key with its count + 1
    _delete(tkey, tpos, hslot, s, hslot[s, 0])
    hkey[s, 0] = key
    hcount[s, 0] = hcount[s, 0] + 1.0
    hstamp[s, 0] = now
    j = _slot(tkey, tpos, s, key, h, -1)
    tkey[s, j] = key
    tpos[s, j] = 0
    hslot[s, 0] = j
    _sift_down(hkey, hcount, hstamp, hslot, tpos, size[s], s, 0)


@numba.njit(cache=True)
def _topk_offer(hkey, hcount, hstamp, hslot, size, tkey, tpos, s, key, h, now):
    """Algorithm 1, lines 8-17: offer ``key`` (table hash ``h``) to source ``s``'s top-K.

    The kernel's loop writes the hit path out instead of calling this: a numba call with
    many array arguments pays reference counting, and hits are the common case.
    """
    slot = _slot(tkey, tpos, s, key, h, -1)
    p = tpos[s, slot]
    if p >= 0:  # stored: its occurrence number is incremented
        hcount[s, p] += 1.0
        hstamp[s, p] = now
        _sift_down(hkey, hcount, hstamp, hslot, tpos, size[s], s, p)
    else:
        _topk_miss(hkey, hcount, hstamp, hslot, size, tkey, tpos, s, key, h, slot, now)


@numba.njit(cache=True)
def _topk_decay(hkey, hcount, hstamp, hslot, tpos, size, total, s, alpha):
    """Inter-epoch decay: counters and total times alpha, then restore the heap order."""
    n = size[s]
    for p in range(n):
        hcount[s, p] *= alpha
    total[s] *= alpha
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(hkey, hcount, hstamp, hslot, tpos, n, s, i)


# ----------------------------------------------------------------------------- CHK


@numba.njit(cache=True)
def _classify(
    s, n_live, hkey, hcount, total, size, chk_key, chk_d, skey, sd, hot_k, hot_f, params_f, params_i
):
    """CHK (Algorithm 2) for source ``s``: rebuild its row of the hot table ``chk_key`` ->
    ``chk_d`` (see ``classify_hot_keys``); ``skey`` / ``sd`` are a one-row scratch table."""
    hot_threshold = params_f[0]
    policy, min_workers, relative = params_i[0], params_i[1], params_i[2] == 1
    theta = hot_threshold / n_live
    nh = 0
    for e in range(size[s]):
        f = hcount[s, e] / total[s]
        if f > theta:
            if nh == hot_k.size:
                raise RuntimeError("FISH kernel: more hot keys than the table can hold")
            hot_k[nh] = hkey[s, e]
            hot_f[nh] = f
            nh += 1
    sd[0, :] = 0
    if nh > 0:
        order = np.argsort(hot_k[:nh])
        f_max = hot_f[0]
        for j in range(nh):
            if hot_f[j] > f_max:
                f_max = hot_f[j]
        p_head = 0.0
        for j in range(nh):
            p_head += hot_f[order[j]]
        d_all = 0
        if policy == 1:
            d_all = ALL_WORKERS
        elif policy == 2:
            d_all = choose_d(f_max, p_head, nh, n_live)
        d_min = hot_min_workers(p_head, nh, n_live, min_workers)
        for j in range(nh):
            k = hot_k[order[j]]
            if policy == 0:
                d = hot_key_workers(hot_f[order[j]], f_max, n_live, relative)
                if d_min > d:
                    d = d_min
                prev = chk_d[s, _slot(chk_key, chk_d, s, k, _home(k), 0)]
                if prev > d:
                    d = prev
                if d > n_live:
                    d = n_live
            else:
                d = d_all
            slot = _slot(skey, sd, 0, k, _home(k), 0)
            skey[0, slot] = k
            sd[0, slot] = d
    chk_key[s, :] = skey[0, :]
    chk_d[s, :] = sd[0, :]


# ----------------------------------------------------------------------------- main loop


@numba.njit(cache=True)
def _fish_kernel(
    keys,
    sources,
    times,
    n_sources,
    cap,
    seg_starts,
    ring_off,
    ring_pos,
    ring_own,
    index_off,
    ring_index,
    ring_shift,
    live_off,
    live_ids,
    key_seed,
    params_f,
    params_i,
    hot_cap,
):
    # params_f: hot_threshold, decay, interval
    # params_i: policy, min_workers, relative, epoch_size, capacity, cold_choices,
    #           heuristic, ring placement
    alpha, interval = params_f[1], params_f[2]
    epoch_size, capacity, cold_choices = params_i[3], params_i[4], params_i[5]
    heuristic, on_ring = params_i[6] == 1, params_i[7] == 1
    m = keys.size
    n_ids = cap.size
    S = n_sources

    # Sect. 4.1.1: decayed top-K counters per source
    hkey = np.zeros((S, capacity), np.int64)
    hcount = np.zeros((S, capacity), np.float64)
    hstamp = np.zeros((S, capacity), np.int64)
    hslot = np.zeros((S, capacity), np.int64)
    size = np.zeros(S, np.int64)
    tsize = _pow2_cap(2 * capacity)
    tkey = np.zeros((S, tsize), np.int64)
    tpos = np.full((S, tsize), -1, np.int64)
    total = np.zeros(S, np.float64)
    offers = np.zeros(S, np.int64)
    in_epoch = np.zeros(S, np.int64)
    # Sect. 4.1.2: CHK table per source (d = 0 marks an empty slot), scratch, hot buffers
    hsize = _pow2_cap(2 * hot_cap)
    chk_key = np.zeros((S, hsize), np.int64)
    chk_d = np.zeros((S, hsize), np.int64)
    skey = np.zeros((1, hsize), np.int64)
    sd = np.zeros((1, hsize), np.int64)
    hot_k = np.empty(hot_cap, np.int64)
    hot_f = np.empty(hot_cap, np.float64)
    # candidate cache of hot keys (direct mapped; valid for one segment)
    ckey = np.zeros(hsize, np.int64)
    clen = np.zeros(hsize, np.int64)
    cseg = np.full(hsize, -1, np.int64)
    ccand = np.zeros((hsize, n_ids), np.int32)
    cmask = np.uint64(hsize - 1)
    buf = np.empty(n_ids, np.int32)
    seen = np.full(n_ids, -1, np.int64)
    walks = 0
    # Sect. 4.2.1: what each source infers about each worker
    # drain[s, w] = B_w, the time w would finish what s sent. A refresh clamps every B_w to
    # the clock; since refresh times only grow, the clamped value is max(drain, t_ref[s]),
    # computed when read (the reference clamps eagerly; max is exact, so both agree).
    drain = np.full((S, n_ids), -np.inf)
    load = np.zeros((S, n_ids), np.float64)
    sent = np.zeros((S, n_ids), np.int64)
    step = 1.0 / cap
    t_ref = np.zeros(S, np.float64)
    clock_set = np.zeros(S, np.bool_)

    live_mask = np.zeros(n_ids, np.bool_)
    for j in range(live_off[0], live_off[1]):
        live_mask[live_ids[j]] = True
    g = 0
    n_seg = seg_starts.size
    positions = ring_pos[ring_off[0] : ring_off[1]]
    owners = ring_own[ring_off[0] : ring_off[1]]
    index = ring_index[index_off[0] : index_off[1]]
    shift = ring_shift[0]
    live = live_ids[live_off[0] : live_off[1]]
    n_live = live.size
    out = np.empty(m, np.int32)
    for i in range(m):
        while g + 1 < n_seg and seg_starts[g + 1] <= i:
            g += 1
            for j in range(live_off[g], live_off[g + 1]):
                w = live_ids[j]
                if not live_mask[w]:  # (re)joining worker: idle from now on, everywhere
                    for s2 in range(S):
                        drain[s2, w] = times[i] if clock_set[s2] else -np.inf
                        load[s2, w] = 0.0
                        sent[s2, w] = 0
            live_mask[:] = False
            for j in range(live_off[g], live_off[g + 1]):
                live_mask[live_ids[j]] = True
            positions = ring_pos[ring_off[g] : ring_off[g + 1]]
            owners = ring_own[ring_off[g] : ring_off[g + 1]]
            index = ring_index[index_off[g] : index_off[g + 1]]
            shift = ring_shift[g]
            live = live_ids[live_off[g] : live_off[g + 1]]
            n_live = live.size

        s = sources[i]
        key = keys[i]
        t = times[i]
        # intra-epoch counting
        now = offers[s]
        offers[s] = now + 1
        total[s] += 1.0
        h = _home(key)
        slot = _slot(tkey, tpos, s, key, h, -1)
        p = tpos[s, slot]
        if p >= 0:  # stored: count + 1 (``_topk_offer`` written out: calls cost refcounts)
            hcount[s, p] += 1.0
            hstamp[s, p] = now
            _sift_down(hkey, hcount, hstamp, hslot, tpos, size[s], s, p)
        else:
            _topk_miss(hkey, hcount, hstamp, hslot, size, tkey, tpos, s, key, h, slot, now)
        # CHK table of the last epoch
        d = chk_d[s, _slot(chk_key, chk_d, s, key, h, 0)]
        is_hot = d > 0
        if not is_hot:
            d = cold_choices
        if d > n_live:
            d = n_live
        point = nb_mix64(np.uint64(key), key_seed)
        if is_hot:
            c = np.int64(h & cmask)
            if not (ckey[c] == key and cseg[c] == g and clen[c] >= d):
                if on_ring:
                    walks += 1
                    nb_ring_walk(positions, owners, index, shift, point, d, ccand[c], seen, walks)
                else:
                    nb_modulo_walk(live, point, d, ccand[c])
                ckey[c] = key
                cseg[c] = g
                clen[c] = d
            cand = ccand[c]
        else:
            if on_ring:
                walks += 1
                nb_ring_walk(positions, owners, index, shift, point, d, buf, seen, walks)
            else:
                nb_modulo_walk(live, point, d, buf)
            cand = buf
        # estimator clock (refresh every interval)
        if not clock_set[s] or t - t_ref[s] >= interval:
            t_ref[s] = t
            clock_set[s] = True
        tr = t_ref[s]
        # candidate worker selection: the first candidate, then anyone strictly better.
        # The wait max(max(B, t_ref) - t, 0) equals max(B - t, 0) because t_ref <= t.
        best = cand[0]
        if heuristic:
            best_wait = drain[s, best] - t
            if best_wait < 0.0:
                best_wait = 0.0
            best_load = load[s, best]
            for j in range(1, d):
                w = cand[j]
                wait = drain[s, w] - t
                if wait < 0.0:
                    wait = 0.0
                if wait < best_wait or (wait == best_wait and load[s, w] < best_load):
                    best = w
                    best_wait = wait
                    best_load = load[s, w]
        else:
            best_sent = sent[s, best]
            for j in range(1, d):
                w = cand[j]
                if sent[s, w] < best_sent:
                    best = w
                    best_sent = sent[s, w]
        if drain[s, best] < tr:
            drain[s, best] = tr
        drain[s, best] += step[best]
        load[s, best] += step[best]
        sent[s, best] += 1
        out[i] = best
        # epoch end: classify, then decay
        in_epoch[s] += 1
        if in_epoch[s] == epoch_size:
            _classify(
                s,
                n_live,
                hkey,
                hcount,
                total,
                size,
                chk_key,
                chk_d,
                skey,
                sd,
                hot_k,
                hot_f,
                params_f,
                params_i,
            )
            if alpha != 1.0:
                _topk_decay(hkey, hcount, hstamp, hslot, tpos, size, total, s, alpha)
            in_epoch[s] = 0
    return out


@numba.njit(cache=True)
def _topk_run(keys, capacity, epoch_size, alpha):
    hkey = np.zeros((1, capacity), np.int64)
    hcount = np.zeros((1, capacity), np.float64)
    hstamp = np.zeros((1, capacity), np.int64)
    hslot = np.zeros((1, capacity), np.int64)
    size = np.zeros(1, np.int64)
    tsize = _pow2_cap(2 * capacity)
    tkey = np.zeros((1, tsize), np.int64)
    tpos = np.full((1, tsize), -1, np.int64)
    total = np.zeros(1, np.float64)
    for i in range(keys.size):
        total[0] += 1.0
        _topk_offer(hkey, hcount, hstamp, hslot, size, tkey, tpos, 0, keys[i], _home(keys[i]), i)
        if (i + 1) % epoch_size == 0:
            _topk_decay(hkey, hcount, hstamp, hslot, tpos, size, total, 0, alpha)
    n = size[0]
    return hkey[0, :n].copy(), hcount[0, :n].copy(), total[0]


def topk_counts(
    keys: np.ndarray, capacity: int, epoch_size: int, decay: float
) -> tuple[dict[int, float], float]:
    """The kernel's decayed top-K of one source after ``keys``: ``({key: counter}, total)``.

    For tests against :class:`~routelab.grouping.fish_reference.EpochTopK` (same offers,
    decay after every ``epoch_size`` keys).
    """
    k, c, total = _topk_run(np.ascontiguousarray(keys, np.int64), capacity, epoch_size, decay)
    return dict(zip(k.tolist(), c.tolist(), strict=True)), float(total)


def hot_table_capacity(run: FishRun) -> int:
    """Most hot keys one classification can produce: every hot key has ``f > theta`` and the
    frequencies sum to 1, so fewer than ``n / hot_threshold``; never more than ``K``."""
    p = run.params
    return int(min(p.capacity, int(run.n_ids / p.hot_threshold) + 2))


def kernel_arguments(run: FishRun) -> tuple:
    """Flatten a :class:`FishRun` into the arrays and scalars of the numba kernel."""
    p = run.params
    ring_off = np.zeros(len(run.rings) + 1, np.int64)
    ring_off[1:] = np.cumsum([r.positions.size for r in run.rings])
    index_off = np.zeros(len(run.rings) + 1, np.int64)
    index_off[1:] = np.cumsum([r.index.size for r in run.rings])
    live_off = np.zeros(len(run.seg_workers) + 1, np.int64)
    live_off[1:] = np.cumsum([w.size for w in run.seg_workers])
    params_f = np.array([p.hot_threshold, p.effective_decay, p.interval], np.float64)
    params_i = np.array(
        [
            HOT_POLICIES.index(p.hot_policy),
            p.min_workers,
            int(p.workers_formula == "relative"),
            p.epoch_size,
            p.capacity,
            p.cold_choices,
            int(p.assignment == "heuristic"),
            int(p.placement == "ring"),
        ],
        np.int64,
    )
    return (
        run.keys,
        run.sources,
        run.times,
        run.n_sources,
        run.capacity_share,
        run.seg_starts,
        ring_off,
        np.concatenate([r.positions for r in run.rings]),
        np.concatenate([r.owners for r in run.rings]),
        index_off,
        np.concatenate([r.index for r in run.rings]),
        np.array([r.shift for r in run.rings], np.uint64),
        live_off,
        np.concatenate(run.seg_workers).astype(np.int32),
        seed_constant(run.seed),
        params_f,
        params_i,
        hot_table_capacity(run),
    )


def fish_kernel(
    keys: np.ndarray,
    sources: np.ndarray | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    **params: Any,
) -> np.ndarray:
    """FISH routing, numba kernel; same arguments and output as
    :func:`~routelab.grouping.fish_reference.fish_reference` (FISH Sects. 4-5;
    parameters :class:`~routelab.grouping.fish_params.FishParams`)."""
    run = prepare_fish_run(
        keys,
        sources,
        n_workers,
        seed=seed,
        times=times,
        capacities=capacities,
        events=events,
        **params,
    )
    if run.keys.size == 0:
        return np.empty(0, dtype=np.int32)
    return _fish_kernel(*kernel_arguments(run))
