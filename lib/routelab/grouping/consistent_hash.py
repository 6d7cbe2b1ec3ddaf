"""Consistent hashing with virtual nodes (FISH Sect. 5; Karger et al. STOC'97, Chord).

Keys and workers are hashed onto one ring of 2^64 positions (the paper uses a 32-bit SHA-1
space; we use routelab's seeded 64-bit mix, :mod:`routelab.hashing`). Each worker owns
``vnodes`` virtual nodes; a key belongs to the first virtual node clockwise from it
(position >= the key's, wrapping around). Adding a worker moves to it only the keys that now
fall just before its virtual nodes; removing one moves only its own keys, each to the next
worker clockwise: about ``1/n`` of the keys either way (Fig. 8b-c). Virtual nodes even out
the arcs each worker owns when ``n`` is small (Fig. 8d).

FISH gives a key several workers: its ``d`` workers are the first ``d`` *distinct* workers
met clockwise from the key, so the workers for ``d`` are a prefix of those for ``d + 1``.

Positions: a key sits at ``mix64(key, seed)``; virtual node ``j`` of worker ``w`` at
``mix64(w * 2^32 + j, seed + VNODE_SEED_OFFSET)`` (a different seed so small integer keys
never coincide with virtual-node labels). Ties between equal positions (probability about
``(n vnodes)^2 / 2^65``) order by worker, then by virtual-node index.

:func:`build_ring` makes the ring (numpy); lookups exist twice with one definition: the
readable :func:`ring_lookup_reference` / :func:`ring_candidates_reference` (``bisect``) and
the numba :func:`nb_ring_walk` used inside kernels, with the vectorized
:func:`ring_lookup` / :func:`ring_candidates` on top. :func:`modulo_candidates_reference`
and :func:`nb_modulo_walk` are the "without consistent hashing" baseline of Fig. 17.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np

from routelab.hashing import mix64, nb_mix64, py_mix64, seed_constant
from routelab.uniques import unique

VNODE_SEED_OFFSET = 0x5F3759DF


@dataclass(frozen=True)
class HashRing:
    """A ring: sorted virtual-node ``positions`` (uint64) and their ``owners`` (int32 worker
    ids); ``workers`` are the live worker ids (sorted), ``seed`` the seed keys hash with.

    ``index[b]`` is the first virtual node at or after ``b << shift``: the top bits of a
    key's position jump close to its virtual node, so a lookup scans about one entry instead
    of binary-searching (``2^(64 - shift) >= 2 * len(positions)``).
    """

    positions: np.ndarray
    owners: np.ndarray
    workers: np.ndarray
    vnodes: int
    seed: int
    index: np.ndarray
    shift: int

    @property
    def n_workers(self) -> int:
        """Number of live workers on the ring."""
        return int(self.workers.size)

    @cached_property
    def position_list(self) -> list[int]:
        """The positions as Python ints (for ``bisect`` in the readable lookups)."""
        return self.positions.tolist()


def vnode_positions(workers: Sequence[int] | np.ndarray, vnodes: int, seed: int) -> np.ndarray:
    """Ring positions (uint64, shape ``(len(workers), vnodes)``) of each worker's virtual nodes."""
    w = np.asarray(workers, dtype=np.int64)
    labels = (w[:, None] << np.int64(32)) + np.arange(vnodes, dtype=np.int64)[None, :]
    return mix64(labels.ravel(), seed + VNODE_SEED_OFFSET).reshape(w.size, vnodes)


def build_ring(workers: Sequence[int] | np.ndarray, vnodes: int, seed: int = 0) -> HashRing:
    """The ring of the given live workers with ``vnodes`` virtual nodes each."""
    w = unique(np.asarray(workers, dtype=np.int64))
    if w.size == 0:
        raise ValueError("a hash ring needs at least one worker")
    if vnodes < 1 or vnodes >= 2**32:
        raise ValueError(f"vnodes must be in 1 .. 2**32 - 1, got {vnodes}")
    if w[0] < 0 or w[-1] >= 2**31:
        raise ValueError("worker ids must be in 0 .. 2**31 - 1")
    pos = vnode_positions(w, vnodes, seed).ravel()
    owners = np.repeat(w, vnodes).astype(np.int32)
    order = np.argsort(pos, kind="stable")  # input is by (worker, vnode): ties keep that order
    pos = pos[order]
    bits = max(1, int(2 * pos.size - 1).bit_length())
    shift = 64 - bits
    starts = np.arange(2**bits, dtype=np.uint64) << np.uint64(shift)
    index = np.searchsorted(pos, starts, side="left").astype(np.int32)
    return HashRing(pos, owners[order], w.astype(np.int32), vnodes, seed, index, shift)


# ----------------------------------------------------------------------------- reference


def ring_candidates_reference(ring: HashRing, key: int, d: int) -> list[int]:
    """The first ``d`` distinct workers clockwise from ``key`` (readable version)."""
    d = min(d, ring.n_workers)
    point = py_mix64(int(key), ring.seed)
    positions = ring.position_list
    i = bisect.bisect_left(positions, point)  # first virtual node at or after the key
    chosen: list[int] = []
    while len(chosen) < d:
        owner = int(ring.owners[i % len(positions)])
        if owner not in chosen:
            chosen.append(owner)
        i += 1
    return chosen


def ring_lookup_reference(ring: HashRing, key: int) -> int:
    """The worker that owns ``key``: the nearest virtual node clockwise."""
    return ring_candidates_reference(ring, key, 1)[0]


def modulo_candidates_reference(
    workers: Sequence[int] | np.ndarray, key: int, d: int, seed: int
) -> list[int]:
    """Without consistent hashing (Fig. 17): ``workers[(h(key) + i) mod n]`` for ``i < d``."""
    live = sorted(int(w) for w in workers)
    n = len(live)
    start = py_mix64(int(key), seed) % n
    return [live[(start + i) % n] for i in range(min(d, n))]


# ----------------------------------------------------------------------------- numba


@numba.njit(cache=True)
def nb_ring_start(positions, index, shift, point) -> np.int64:
    """Index of the first virtual node at or after ``point`` (0 after the last one)."""
    i = index[point >> np.uint64(shift)]
    size = positions.size
    while i < size and positions[i] < point:
        i += 1
    if i == size:
        return 0
    return i


@numba.njit(cache=True)
def nb_ring_walk(positions, owners, index, shift, point, d, out, seen, stamp) -> None:
    """Write the first ``d`` distinct workers clockwise from ``point`` into ``out[:d]``.

    ``index`` / ``shift`` are the ring's jump table (:class:`HashRing`). ``seen`` is a
    scratch array over worker ids holding stamps; ``stamp`` must differ from every value
    already in it (callers pass an increasing counter). ``d`` must not exceed the number of
    distinct owners.
    """
    size = positions.size
    i = nb_ring_start(positions, index, shift, point)
    got = 0
    while got < d:
        w = owners[i]
        if seen[w] != stamp:
            seen[w] = stamp
            out[got] = w
            got += 1
        i += 1
        if i == size:
            i = 0


@numba.njit(cache=True)
def nb_modulo_walk(live, point, d, out) -> None:
    """``out[i] = live[(point mod n + i) mod n]`` for ``i < d`` (``live`` sorted)."""
    n = live.size
    start = np.int64(point % np.uint64(n))
    for i in range(d):
        out[i] = live[(start + i) % n]


@numba.njit(cache=True)
def _candidates_many(positions, owners, index, shift, keys, seed_const, d, n_ids):
    out = np.empty((keys.size, d), dtype=np.int32)
    seen = np.full(n_ids, -1, dtype=np.int64)
    for j in range(keys.size):
        point = nb_mix64(np.uint64(keys[j]), seed_const)
        nb_ring_walk(positions, owners, index, shift, point, d, out[j], seen, j)
    return out


def ring_candidates(ring: HashRing, keys: np.ndarray | Sequence[int], d: int) -> np.ndarray:
    """numba lookups: ``(len(keys), min(d, n))`` int32 array of each key's first workers."""
    k = np.ascontiguousarray(keys, dtype=np.int64)
    d = min(int(d), ring.n_workers)
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    n_ids = int(ring.workers.max()) + 1
    return _candidates_many(
        ring.positions, ring.owners, ring.index, ring.shift, k, seed_constant(ring.seed), d, n_ids
    )


def ring_lookup(ring: HashRing, keys: np.ndarray | Sequence[int]) -> np.ndarray:
    """numba lookups: the owning worker (int32) of each key."""
    return ring_candidates(ring, keys, 1)[:, 0]
