"""Seeded, stable hashes for routing: every random choice takes a seed, and the same
parameters on the same data give identical results in every process.

Python's built-in ``hash()`` is salted per process, so it must never decide where a key
goes. routelab hashes integer keys with the SplitMix64 finalizer (a murmur3-fmix64-style
avalanche mix) of the key xor a seed-derived constant, and strings with BLAKE2b. Both give
the same value in every process, on every machine.

The integer mix exists three times with one definition: a scalar numba function usable
inside ``@njit`` kernels, a vectorized numpy version, and a pure-Python one; tests assert
they agree.
"""

from __future__ import annotations

import hashlib

import numba
import numpy as np

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_C1 = 0xBF58476D1CE4E5B9
_C2 = 0x94D049BB133111EB


def _seed_constant(seed: int) -> int:
    """Spread a small seed over 64 bits (seed 0 and 1 give unrelated streams)."""
    return py_mix64(((seed & _MASK) * _GOLDEN + 0x632BE59BD9B4E019) & _MASK, 0)


def py_mix64(x: int, seed: int = 0) -> int:
    """Pure-Python reference: SplitMix64 finalizer of ``x xor seed-constant``."""
    z = (x & _MASK) ^ (_seed_constant(seed) if seed else 0)
    z = (z + _GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * _C1) & _MASK
    z = ((z ^ (z >> 27)) * _C2) & _MASK
    return z ^ (z >> 31)


def seed_constant(seed: int) -> np.uint64:
    """The 64-bit constant a seed contributes (pass it to :func:`nb_mix64` in kernels)."""
    return np.uint64(_seed_constant(seed) if seed else 0)


#: salt of the per-choice seeds (so choice seeds never coincide with plain run seeds)
CHOICE_SALT = 0x5EEDC401CE5A17


def choice_seed(seed: int, i: int) -> int:
    """The seed of hash choice ``i`` in a run seeded ``seed``: ``(seed, i)`` mixed by the
    stable hash (63 bits). Runs seeded ``s`` and ``s + 1`` share no hash function, as
    independent runs would (with ``seed + i`` choice ``i + 1`` of seed ``s`` was choice ``i``
    of seed ``s + 1``, so multi-seed statistics were correlated)."""
    return py_mix64(int(i), (int(seed) ^ CHOICE_SALT) & _MASK) >> 1


@numba.njit(cache=True, inline="always")
def nb_mix64(x: np.uint64, seed_const: np.uint64) -> np.uint64:
    """numba scalar version of :func:`py_mix64`; ``seed_const`` from :func:`seed_constant`."""
    z = np.uint64(x) ^ seed_const
    z = z + np.uint64(_GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_C1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_C2)
    return z ^ (z >> np.uint64(31))


def mix64(keys: np.ndarray | int, seed: int = 0) -> np.ndarray:
    """Vectorized 64-bit hash of integer keys (any int dtype); returns ``uint64``."""
    z = np.asarray(keys).astype(np.int64).view(np.uint64) ^ seed_constant(seed)
    with np.errstate(over="ignore"):
        z = z + np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_C1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_C2)
    return z ^ (z >> np.uint64(31))


def bucket(keys: np.ndarray | int, n: int, seed: int = 0) -> np.ndarray:
    """Map integer keys to ``0..n-1`` with a seeded stable hash (``int64`` array)."""
    if n <= 0:
        raise ValueError(f"number of buckets must be positive, got {n}")
    return (mix64(keys, seed) % np.uint64(n)).astype(np.int64)


def string_hash(text: str, seed: int = 0) -> int:
    """Stable unsigned 64-bit hash of a string (BLAKE2b keyed by the seed)."""
    digest = hashlib.blake2b(
        text.encode("utf-8"), digest_size=8, key=seed.to_bytes(8, "little", signed=False)
    ).digest()
    return int.from_bytes(digest, "little")


def string_bucket(text: str, n: int, seed: int = 0) -> int:
    """Map a string to ``0..n-1`` with a seeded stable hash."""
    if n <= 0:
        raise ValueError(f"number of buckets must be positive, got {n}")
    return string_hash(text, seed) % n
