"""How many choices D-Choices gives a hot key (Nasir et al., ICDE'16, as their
public simulator does it).

With ``n`` workers, head (hot) keys ``H`` of total frequency ``p_H``, tail frequency
``p_T = 1 - p_H`` and top frequency ``p_1``, D-Choices uses the smallest ``d`` in
``[max(d_min, round(p_1 n)), n]`` that satisfies both

    (a)  p_H + p_T (1 - ((n-1)/n)^(|H| d))^2  <=  1 - ((n-1)/n)^(|H| d) + eps
    (b)  p_1 + (p_H - p_1) b^d + p_T b^2      <=  b + eps,    b = 1 - ((n-1)/n)^d

and ``d = n`` (every worker, i.e. W-Choices) when no ``d`` does. (a) asks that the workers
reachable by head keys can absorb the head plus the tail keys that land there; (b) asks the
same for the workers of the top key. ``eps = 1e-3`` as in the public simulator.

Deviation from the public simulator, on purpose: it starts the search at ``round(p_1 n)``,
which can be 0 or 1, so a hot key could get a single choice (fewer than a tail key under
PKG, or an empty choice list). We start at ``d_min = 2``.

:func:`choose_d` is a numba function so the reference and the kernel of D-Choices evaluate
the identical floating-point expression (a Python twin could round differently at a boundary
and pick another ``d``); it is callable from plain Python too.
"""

from __future__ import annotations

import numba


@numba.njit(cache=True)
def choose_d(
    p1: float, p_head: float, n_head: int, n_workers: int, epsilon: float = 1e-3, d_min: int = 2
) -> int:
    """Smallest ``d >= max(d_min, round(p1 * n))`` meeting conditions (a) and (b), else ``n``.

    Args:
        p1: estimated frequency of the most frequent key (fraction of messages).
        p_head: total estimated frequency of the head keys (fraction).
        n_head: number of head keys ``|H|``.
        n_workers: number of workers ``n``.
        epsilon: slack of both conditions.
        d_min: smallest number of choices a hot key gets.
    """
    n = n_workers
    p_tail = 1.0 - p_head
    q = (n - 1.0) / n
    d = int(round(p1 * n))
    if d < d_min:
        d = d_min
    while d < n:
        reach_head = 1.0 - q ** (n_head * d)
        cond_a = p_head + p_tail * reach_head**2 <= reach_head + epsilon
        b = 1.0 - q**d
        cond_b = p1 + (p_head - p1) * b**d + p_tail * b**2 <= b + epsilon
        if cond_a and cond_b:
            return d
        d += 1
    return n
