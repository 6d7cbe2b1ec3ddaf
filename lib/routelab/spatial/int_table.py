"""An open-addressing ``int64 -> int64`` table for numba kernels: the dispatchers' ``H_q``.

``numba.typed.Dict`` costs two hashed lookups for a "get or 0" and boxes every call through
its generic hashing; the gridt dispatcher (Sect. IV-C) makes hundreds of such lookups per
query update (every covered cell x key), so ``H_q`` kept in two such dicts was most of the
dispatcher's time. This table is two flat arrays (keys, values) with linear probing and a
multiplicative (Fibonacci) hash, tombstones for deletions and a rehash when live plus
deleted slots pass half the capacity. Keys must be non-negative (``EMPTY`` and ``TOMB`` are
negative). It is an implementation detail of the kernel, not part of the paper: the
dispatcher's results equal :func:`routelab.spatial.gridt.dispatch_reference`'s, which keeps
``H_q`` in Python dicts.

A table is the tuple ``(keys, values, counts)`` with ``counts = [used slots, live keys]``;
:func:`put` and :func:`remove` may return new arrays (a rehash), so callers keep what they
return.
"""

from __future__ import annotations

import numba
import numpy as np

EMPTY = -1
TOMB = -2


def new_table(capacity: int = 1024) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty table with room for ``capacity`` slots (rounded up to a power of two)."""
    cap = 1 << max(4, int(capacity - 1).bit_length())
    return np.full(cap, EMPTY, dtype=np.int64), np.zeros(cap, dtype=np.int64), np.zeros(2, np.int64)


@numba.njit(cache=True, inline="always")
def mix(key):
    """Fibonacci hashing of a non-negative int64 key: the high half of key x 2^64/phi (the
    GI2 kernel's list table hashes its (cell, term) keys with it too)."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32))


@numba.njit(cache=True, inline="always")
def _home(key, mask):
    return mix(key) & mask


@numba.njit(cache=True, inline="always")
def find(keys, key):
    """The slot holding ``key``, or -1."""
    m = len(keys) - 1
    i = _home(key, m)
    while True:
        k = keys[i]
        if k == key:
            return i
        if k == EMPTY:
            return -1
        i = (i + 1) & m


@numba.njit(cache=True)
def _rehash(keys, vals, counts, cap):
    nk = np.full(cap, EMPTY, dtype=np.int64)
    nv = np.zeros(cap, dtype=np.int64)
    m = cap - 1
    for j in range(len(keys)):
        k = keys[j]
        if k >= 0:
            i = _home(k, m)
            while nk[i] != EMPTY:
                i = (i + 1) & m
            nk[i] = k
            nv[i] = vals[j]
    counts[0] = counts[1]
    return nk, nv


@numba.njit(cache=True)
def put(keys, vals, counts, key, val):
    """Set ``key`` to ``val``; returns the (possibly rehashed) ``keys, vals``."""
    i = find(keys, key)
    if i >= 0:
        vals[i] = val
        return keys, vals
    if 2 * (counts[0] + 1) > len(keys):  # live + tombstones past half: grow or just clean
        cap = 2 * len(keys) if 4 * (counts[1] + 1) > len(keys) else len(keys)
        keys, vals = _rehash(keys, vals, counts, cap)
    m = len(keys) - 1
    i = _home(key, m)
    while keys[i] >= 0:
        i = (i + 1) & m
    if keys[i] == EMPTY:
        counts[0] += 1
    keys[i] = key
    vals[i] = val
    counts[1] += 1
    return keys, vals


@numba.njit(cache=True, inline="always")
def remove_at(keys, counts, slot):
    """Delete the key in ``slot`` (from :func:`find`)."""
    keys[slot] = TOMB
    counts[1] -= 1


def to_dict(table: tuple[np.ndarray, np.ndarray, np.ndarray]) -> dict[int, int]:
    """The table's live entries as a Python dict (tests, inspection)."""
    keys, vals, _ = table
    live = keys >= 0
    return dict(zip(keys[live].tolist(), vals[live].tolist(), strict=True))
