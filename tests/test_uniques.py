"""``routelab.uniques.unique`` gives ``np.unique``'s answer, dtype included."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.uniques import unique


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.uint64, bool])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_equals_numpy_on_random_integers(dtype, n):
    rng = np.random.default_rng(n)
    a = rng.integers(0, 50, n).astype(dtype)
    got, want = unique(a), np.unique(a)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_flattens_like_numpy_and_takes_lists():
    a = np.array([[3, 1, 3], [2, 1, 9]])
    assert unique(a).tolist() == [1, 2, 3, 9] and unique([5, 5, -1]).tolist() == [-1, 5]


def test_other_dtypes_go_to_numpy():
    f = np.array([2.0, np.nan, 1.0, np.nan, 2.0])
    assert np.array_equal(unique(f), np.unique(f), equal_nan=True) and len(unique(f)) == 3
    s = np.array(["b", "a", "b"])
    assert unique(s).tolist() == ["a", "b"]


def test_by_hand():
    assert unique(np.array([4, -2, 4, 0, -2], dtype=np.int64)).tolist() == [-2, 0, 4]
