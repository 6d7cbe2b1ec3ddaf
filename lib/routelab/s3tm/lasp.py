"""LASP: Load-Aware Subscription Placement (S3-TM Sect. 4.2, Algorithm 2).

For a subscription S, LASP considers only the eligible matchers B(S, M) (Sect. 4; with
hot-word splitting the Sect. 5.1 categories, :func:`routelab.s3tm.skew.hot_placement`:
category (iii) is multicast and needs no choice). It keeps the *subscription word map*
H(i), the distinct words of the subscriptions on matcher i, and for each eligible i computes

    l = f(|S \\ H(i)|)                                   (subscription delta load, see below)
    L = {f(|H(j)|) : j != i} + {f(|S u H(i)|)}            (loads if S went to i)
    b = imbalance(L)
    u = -l * b

and places S on the eligible matcher with the highest utility u; then H(k) <- H(k) u S.
(The pseudocode updates H inside the loop; the intent -- and ours -- is to update the chosen
matcher's map once, after the loop.) f is the linear cost model of Fig. 3: the lookup
operations per publication of a trie with h unique words, ``f(h) = slope * h + intercept``
(:class:`CostFunction`, fitted by :func:`fit_cost_function`).

Readings we take (documented choices):

- **Imbalance.** Alg. 2 prints ``b = sqrt(var(L) / avg(L))`` while SALB (Alg. 1) and the
  text use the coefficient of variation ``sqrt(var(L)) / avg(L)``. We default to the CV
  (``imbalance="cv"``: scale-free, the text's "load imbalance"), and offer the
  printed form as ``imbalance="alg2"`` (for a whole run, ``ROUTELAB_READING=alg2``).
- **The delta load l** (``cost_reading``). Alg. 2 prints
  ``l = f(|S \\ H(i)|)``, i.e. *including* the intercept of f; with Fig. 3's fitted f the
  intercept dominates the slope term, so l hardly depends on how many new words S brings
  and the grouping incentive vanishes (LASP then merely balances). The prose of Sect. 4.2
  speaks of the *increase* in load a subscription causes, ``f(|S u H(i)|) - f(|H(i)|) =
  slope * |S \\ H(i)|``. We default to that slope-only reading (``cost_reading="slope"``)
  and keep the printed one as ``cost_reading="literal"`` (for a whole run,
  ``ROUTELAB_READING=intercept``). The loads L and the imbalance b
  use f with its intercept under both readings.
- **Ties.** Utilities tie often (e.g. several matchers already hold all of S's words:
  under the slope reading their ``l = 0``, so ``u = 0``). Among equal utilities the lower
  imbalance wins, then the lower matcher id. A negative fitted intercept is clipped to 0
  (:meth:`CostFunction.from_fit`).
- **Exactness.** The loads are affine in the integers |H(j)|, so b is computed from the
  integer moments ``n``, ``sum h``, ``sum h^2`` (:func:`imbalance_from_moments`); the
  readable reference (:class:`LASP`, sets and a load list as in the pseudocode) and the
  numba kernel (:func:`lasp_kernel_place`, a bitset per matcher and running moments) thus
  compute bit-identical utilities and make identical choices (tested).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from routelab.readings import pick
from routelab.s3tm.routing import Mapping
from routelab.s3tm.skew import hot_placement
from routelab.s3tm.wordsets import Corpus
from routelab.uniques import unique

__all__ = [
    "IMBALANCES",
    "LASP",
    "COST_READINGS",
    "CostFunction",
    "default_cost_reading",
    "default_imbalance",
    "fit_cost_function",
    "imbalance_from_moments",
    "lasp_kernel_place",
]

IMBALANCES = ("cv", "alg2")
COST_READINGS = ("slope", "literal")
"""LASP's delta load l: ``slope * |S \\ H(i)|`` (the increase in load, default) or Alg. 2's
printed ``f(|S \\ H(i)|)`` with the intercept (see the module docstring)."""


def default_imbalance() -> str:
    """LASP's imbalance measure when none is given: ``"cv"``, or Alg. 2's printed ``"alg2"``
    for a run with ``ROUTELAB_READING=alg2`` (:mod:`routelab.readings`)."""
    return pick("alg2", "cv", "alg2")


def default_cost_reading() -> str:
    """LASP's delta-load reading when none is given: ``"slope"``, or Alg. 2's printed
    ``"literal"`` for a run with ``ROUTELAB_READING=intercept`` (:mod:`routelab.readings`)."""
    return pick("intercept", "slope", "literal")


@dataclass(frozen=True)
class CostFunction:
    """LASP's f: lookup operations per publication of a trie with ``h`` unique words,
    ``f(h) = slope * h + intercept`` (S3-TM Sect. 4.2, Fig. 3).

    ``reading`` says how LASP turns f into the delta load of ``new`` words
    (:meth:`delta`, :data:`COST_READINGS`): ``"slope"`` (default) ``slope * new``, the
    increase in load; ``"literal"`` Alg. 2's printed ``f(new)``, intercept included (the
    default for a run with ``ROUTELAB_READING=intercept``, :func:`default_cost_reading`).
    """

    slope: float = 1.0
    intercept: float = 1.0
    reading: str = field(default_factory=default_cost_reading)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.slope) and self.slope > 0):
            raise ValueError(f"cost slope must be positive, got {self.slope}")
        if not (math.isfinite(self.intercept) and self.intercept >= 0):
            raise ValueError(f"cost intercept must be >= 0, got {self.intercept}")
        if self.reading not in COST_READINGS:
            raise ValueError(f"cost reading must be one of {COST_READINGS}, got {self.reading!r}")

    def __call__(self, h: float) -> float:
        return self.slope * h + self.intercept

    @property
    def delta_intercept(self) -> float:
        """The constant term of :meth:`delta`: 0 (slope reading) or the intercept."""
        return self.intercept if self.reading == "literal" else 0.0

    def delta(self, new: float) -> float:
        """LASP's delta load l of a subscription bringing ``new`` words (Sect. 4.2)."""
        return self.slope * new + self.delta_intercept

    def with_reading(self, reading: str | None) -> CostFunction:
        """This f with another delta-load reading (``None``: unchanged)."""
        if reading is None or reading == self.reading:
            return self
        return CostFunction(self.slope, self.intercept, reading)

    def other_reading(self) -> CostFunction:
        """This f with the other delta-load reading (slope-only <-> literal): the one a
        notebook runs beside the run's own (notebook 04's LASP figure)."""
        (other,) = (r for r in COST_READINGS if r != self.reading)
        return self.with_reading(other)

    @classmethod
    def from_fit(cls, slope: float, intercept: float, reading: str | None = None) -> CostFunction:
        """From a fitted line; a negative intercept is clipped to 0 (f counts operations).
        ``reading``: the delta-load reading (``None``: :func:`default_cost_reading`)."""
        reading = default_cost_reading() if reading is None else reading
        return cls(float(slope), max(float(intercept), 0.0), reading)

    @classmethod
    def of(cls, cost: Any) -> CostFunction:
        """Accept a :class:`CostFunction`, a ``(slope, intercept)`` pair or
        ``(slope, intercept, reading)`` triple, or ``None`` (``f(h) = h + 1``); without a
        reading, :func:`default_cost_reading` (the slope reading unless flipped)."""
        if cost is None:
            return cls()
        if isinstance(cost, CostFunction):
            return cost
        slope, intercept, *reading = cost
        return cls(float(slope), float(intercept), *(str(r) for r in reading))


def fit_cost_function(
    unique_words: Sequence[float] | np.ndarray, ops_per_pub: Sequence[float] | np.ndarray
) -> tuple[float, float]:
    """Least-squares line through (unique words in a trie, lookups per publication):
    the Fig. 3 fit that becomes LASP's f. Returns ``(slope, intercept)``.

    Raises:
        ValueError: fewer than two distinct x values, or non-finite input.
    """
    x = np.asarray(unique_words, dtype=np.float64)
    y = np.asarray(ops_per_pub, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"{len(x)} x values but {len(y)} y values")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("the cost fit needs finite values")
    if len(unique(x)) < 2:
        raise ValueError("the cost fit needs at least two distinct trie sizes")
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


@numba.njit(cache=True)
def imbalance_from_moments(n, s1, s2, slope, intercept, kind):
    """Imbalance of the loads ``f(h_j) = slope * h_j + intercept`` of ``n`` matchers from
    ``s1 = sum h_j`` and ``s2 = sum h_j^2`` (integers, so the variance numerator is exact).

    ``kind`` 0: CV = std / mean; 1: Alg. 2's printed ``sqrt(var / mean)``. 0 if all loads
    are 0.
    """
    var_num = n * s2 - s1 * s1  # n^2 var(h), exact
    mean_num = slope * s1 + intercept * n  # n mean(L)
    if mean_num <= 0.0:
        return 0.0
    if kind == 0:
        return slope * math.sqrt(var_num) / mean_num
    return math.sqrt(slope * slope * var_num / (n * mean_num))


def _kind_code(imbalance: str) -> int:
    if imbalance not in IMBALANCES:
        raise ValueError(f"imbalance must be one of {IMBALANCES}, got {imbalance!r}")
    return IMBALANCES.index(imbalance)


class LASP:
    """Algorithm 2, incremental: subscriptions stream in through :meth:`place`.

    The readable reference (Python sets for H, the load list of the pseudocode); the fast
    batch version with identical choices is :func:`lasp_kernel_place`.
    """

    name = "LASP"

    def __init__(
        self,
        mapping: Mapping,
        cost: Any = None,
        imbalance: str | None = None,
        *,
        cost_reading: str | None = None,
    ) -> None:
        self.mapping = mapping
        self.cost = CostFunction.of(cost).with_reading(cost_reading)
        imbalance = default_imbalance() if imbalance is None else imbalance
        self.imbalance = imbalance
        self._kind = _kind_code(imbalance)
        self.H: list[set[str]] = [set() for _ in range(mapping.n_matchers)]

    def utility(self, S: set[str], i: int) -> tuple[float, float]:
        """``(u, b)`` of placing S on matcher i (Alg. 2's loop body)."""
        f = self.cost
        l_delta = f.delta(len(S - self.H[i]))
        sizes = [len(self.H[j]) for j in range(len(self.H)) if j != i]
        sizes.append(len(S | self.H[i]))
        s1 = sum(sizes)
        s2 = sum(h * h for h in sizes)
        b = imbalance_from_moments(len(sizes), s1, s2, f.slope, f.intercept, self._kind)
        return -l_delta * b, b

    def place(self, words: Iterable[str], sub_id: int = 0) -> tuple[int, ...]:
        """Place one subscription; returns the matchers that store it (one matcher, or all
        required matchers for a multicast category-(iii) subscription). ``sub_id`` is
        unused (LASP is deterministic); it keeps the placer interface uniform."""
        S = set(words)
        hp = hot_placement(S, self.mapping)
        if hp.multicast:
            for i in hp.matchers:
                self.H[i] |= S
            return hp.matchers
        best, u_best, b_best = -1, -math.inf, math.inf
        for i in hp.matchers:  # eligible matchers only, ascending
            u, b = self.utility(S, i)
            if u > u_best or (u == u_best and b < b_best):
                best, u_best, b_best = i, u, b
        self.H[best] |= S
        return (best,)

    @property
    def unique_words(self) -> np.ndarray:
        """|H(i)| per matcher."""
        return np.array([len(h) for h in self.H], dtype=np.int64)


@numba.njit(cache=True)
def _lasp_kernel(
    indptr, indices, eptr, ematchers, multicast, has, h, s1, s2, slope, intercept, kind, l_icpt
):
    """Alg. 2 over subscriptions in order (``l_icpt``: the delta load's constant term, 0 for
    the slope reading). ``has`` (N x V uint8) is H as bitsets, ``h``
    the sizes |H(i)|, ``s1``/``s2`` their running sum and sum of squares (1-element
    arrays); all are updated in place, so successive batches continue one stream."""
    n = len(indptr) - 1
    n_m = len(h)
    chosen = np.full(n, -1, dtype=np.int64)
    for s in range(n):
        a, b = indptr[s], indptr[s + 1]
        if multicast[s]:
            for e in range(eptr[s], eptr[s + 1]):
                m = ematchers[e]
                for j in range(a, b):
                    w = indices[j]
                    if has[m, w] == 0:
                        has[m, w] = 1
                        s1[0] += 1
                        s2[0] += 2 * h[m] + 1  # (h + 1)^2 - h^2
                        h[m] += 1
            continue
        best = -1
        u_best = -np.inf
        b_best = np.inf
        for e in range(eptr[s], eptr[s + 1]):
            m = ematchers[e]
            new = 0
            for j in range(a, b):
                if has[m, indices[j]] == 0:
                    new += 1
            l_delta = slope * new + l_icpt
            h_new = h[m] + new
            t1 = s1[0] - h[m] + h_new
            t2 = s2[0] - h[m] * h[m] + h_new * h_new
            imb = imbalance_from_moments(n_m, t1, t2, slope, intercept, kind)
            u = -l_delta * imb
            if u > u_best or (u == u_best and imb < b_best):
                best = m
                u_best = u
                b_best = imb
        for j in range(a, b):
            w = indices[j]
            if has[best, w] == 0:
                has[best, w] = 1
                s2[0] += 2 * h[best] + 1
                s1[0] += 1
                h[best] += 1
        chosen[s] = best
    return chosen


def lasp_kernel_place(
    subs: Corpus,
    elig: Any,
    n_matchers: int,
    cost: Any = None,
    imbalance: str | None = None,
    *,
    cost_reading: str | None = None,
) -> np.ndarray:
    """LASP's choice for every subscription of ``subs`` in row order (``-1`` for multicast
    rows, which go to all their matchers), given their
    :class:`~routelab.s3tm.placement.Eligibility`. Same choices as :class:`LASP`.
    ``cost_reading`` overrides the reading of ``cost`` (:data:`COST_READINGS`); ``imbalance``
    ``None`` is :func:`default_imbalance`."""
    f = CostFunction.of(cost).with_reading(cost_reading)
    imbalance = default_imbalance() if imbalance is None else imbalance
    has = np.zeros((n_matchers, max(subs.n_vocab, 1)), dtype=np.uint8)
    h = np.zeros(n_matchers, dtype=np.int64)
    s1 = np.zeros(1, dtype=np.int64)
    s2 = np.zeros(1, dtype=np.int64)
    return _lasp_kernel(
        subs.indptr,
        subs.indices,
        elig.ptr,
        elig.matchers,
        elig.multicast,
        has,
        h,
        s1,
        s2,
        float(f.slope),
        float(f.intercept),
        _kind_code(imbalance),
        float(f.delta_intercept),
    )
