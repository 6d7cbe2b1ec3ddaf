"""The dispatchers' open-addressing table (routelab.spatial.int_table) against a Python dict."""

import numba
import numpy as np
import pytest

from routelab.spatial import int_table as tb


@numba.njit
def _apply(keys, vals, counts, ops, op_keys, op_vals):
    """Replay put (0) / remove (1) / get (2) operations; gets are written to ``out``."""
    out = np.full(len(ops), -7, dtype=np.int64)
    for i in range(len(ops)):
        if ops[i] == 0:
            keys, vals = tb.put(keys, vals, counts, op_keys[i], op_vals[i])
        elif ops[i] == 1:
            s = tb.find(keys, op_keys[i])
            if s >= 0:
                tb.remove_at(keys, counts, s)
        else:
            s = tb.find(keys, op_keys[i])
            out[i] = vals[s] if s >= 0 else -1
    return keys, vals, out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("key_space", [50, 5_000, 2**40])
def test_the_table_equals_a_dict_under_random_puts_removes_and_gets(seed, key_space):
    rng = np.random.default_rng(seed)
    n = 20_000
    ops = rng.choice(3, size=n, p=[0.45, 0.25, 0.30]).astype(np.int64)
    op_keys = rng.integers(0, key_space, size=n).astype(np.int64)
    op_vals = rng.integers(-(2**40), 2**40, size=n).astype(np.int64)
    table = tb.new_table(16)
    keys, vals, out = _apply(*table, ops, op_keys, op_vals)
    ref: dict[int, int] = {}
    for i, (o, k, v) in enumerate(
        zip(ops.tolist(), op_keys.tolist(), op_vals.tolist(), strict=True)
    ):
        if o == 0:
            ref[k] = v
        elif o == 1:
            ref.pop(k, None)
        else:
            assert out[i] == ref.get(k, -1), f"get {k} at op {i}"
    counts = table[2]
    assert tb.to_dict((keys, vals, counts)) == ref
    assert counts[1] == len(ref)  # live keys
    assert counts[0] >= counts[1]  # used slots count the tombstones too
    assert 2 * counts[0] <= len(keys)  # the rehash keeps probing chains short
    assert len(keys) & (len(keys) - 1) == 0


def test_removed_slots_are_reused_without_growing():
    keys, vals, counts = tb.new_table(16)
    ops = np.array([0, 1] * 200, dtype=np.int64)  # put then remove one key at a time
    op_keys = np.repeat(np.arange(200, dtype=np.int64), 2)
    keys, vals, _ = _apply(keys, vals, counts, ops, op_keys, op_keys)
    assert len(keys) == 16 and counts[1] == 0 and tb.to_dict((keys, vals, counts)) == {}


def test_a_new_table_rounds_its_capacity_up_to_a_power_of_two():
    assert len(tb.new_table(1000)[0]) == 1024
    assert len(tb.new_table(1)[0]) == 16
    assert tb.to_dict(tb.new_table()) == {}
