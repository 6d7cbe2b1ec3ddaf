"""The D-Choices d rule (Nasir et al. ICDE'16, as their public simulator does it) on a worked example and edge cases."""

from __future__ import annotations

import pytest

from routelab.grouping.dchoices_rule import choose_d


def test_worked_example():
    # n = 10 workers, p1 = 0.3, p_H = 0.4 over |H| = 2 head keys, p_T = 0.6, eps = 1e-3,
    # q = (n-1)/n = 0.9. Start at d = round(p1 n) = 3.
    #   (a) r = 1 - q^(|H| d);  p_H + p_T r^2 <= r + eps ?
    #   (b) b = 1 - q^d;        p1 + (p_H - p1) b^d + p_T b^2 <= b + eps ?
    # d=3: r = 1-0.9^6  = 0.46856, lhs a = 0.4+0.6*0.21955 = 0.53173 > 0.46956  fail
    #      b = 1-0.9^3  = 0.27100, lhs b = 0.3+0.1*0.01990+0.6*0.07344 = 0.34605 > 0.27200 fail
    # d=4: r = 1-0.9^8  = 0.56953, lhs a = 0.59462 > 0.57053  fail
    #      b = 0.34390, lhs b = 0.37236 > 0.34490  fail
    # d=5: r = 1-0.9^10 = 0.65132, lhs a = 0.65453 > 0.65232  fail (just)
    #      b = 0.40951, lhs b = 0.40177 <= 0.41051  ok
    # d=6: r = 1-0.9^12 = 0.71757, lhs a = 0.70894 <= 0.71857  ok
    #      b = 0.46856, lhs b = 0.3+0.1*0.01058+0.6*0.21955 = 0.43279 <= 0.46956  ok
    # -> d = 6
    assert choose_d(0.3, 0.4, 2, 10, 1e-3, 2) == 6
    # with a generous slack (a) already holds at d = 5
    assert choose_d(0.3, 0.4, 2, 10, 0.01, 2) == 5


def test_start_is_at_least_d_min():
    # a mildly hot single key: round(p1 n) = round(0.3) = 0, the public simulator would
    # start at 0 or 1; we never give a hot key fewer than two choices
    assert choose_d(0.003, 0.003, 1, 100, 1e-3, 2) == 2
    assert choose_d(0.003, 0.003, 1, 100, 1e-3, 1) == 1


def test_no_d_works_gives_all_workers():
    # a key with 90% of the stream cannot be absorbed by d < n workers: (b) needs
    # p1 <= b + eps with b = 1 - 0.9^d < 0.62 for d <= 9
    assert choose_d(0.9, 0.95, 3, 10, 1e-3, 2) == 10
    assert choose_d(0.5, 0.5, 1, 1, 1e-3, 2) == 1


@pytest.mark.parametrize("n", [5, 20, 100])
def test_d_grows_with_skew(n):
    ds = [choose_d(p1, p1 + 0.05, 3, n, 1e-3, 2) for p1 in (0.01, 0.05, 0.1, 0.2, 0.4)]
    assert ds == sorted(ds)
    assert all(2 <= d <= n for d in ds)
