"""The workload generator of Sect. 6.1 (Table 1) and the named workloads of Sect. 6.2.

A workload specification gives n_t attribute names (ids 0..n_t-1), n_P predicates per
subscription of which the first ones are on *fixed* attributes (n_Pfix=, then n_Pfix>, then
n_Pfix<, each on its own attribute: ids 0, 1, ...), the others on distinct attributes drawn
uniformly without replacement from the remaining names with operator ``=``; predicate
values uniform integers in [l_P, u_P]; events carry n_A attribute/value pairs, the n_Afix
fixed attributes always (n_A = n_Afix = 32 in every experiment: every event has every
attribute), values uniform in [l_A, u_A]. Our precise reading of Sect. 6.1; the paper
uses no Zipf.

Named workloads (paper numbers, Sect. 6.2): **W0** (Fig. 3a, c, d): n_t = 32, n_P = 5 with 2
fixed, all ``=``, values 1..35 -> P(match) = 35^-5 per (event, subscription);
**W1op** and **W2op** (Fig. 3b): W0 with n_P = 4 (2 fixed ``=``, 1 fixed ``>``, 1 free
``=``) and n_P = 9 (2 fixed ``=``, 5 fixed ``<``, 1 fixed ``>``, 1 free ``=``).
Generation is vectorised numpy in chunks (6M subscriptions in seconds), seeded, with
independent streams for subscriptions and events. Beyond the paper: :data:`RANGES`, the
range-only workload of the interval matchers (:class:`RangeWorkload`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from routelab.filtering.model import EQ, GT, LT, Events, Subscriptions


@dataclass(frozen=True)
class Workload:
    """One workload specification (Table 1's parameters)."""

    name: str = "W0"
    n_t: int = 32
    n_p: int = 5
    fix_eq: int = 2
    fix_gt: int = 0
    fix_lt: int = 0
    l_p: int = 1
    u_p: int = 35
    n_a: int = 32
    l_a: int = 1
    u_a: int = 35

    def __post_init__(self) -> None:
        n_fix = self.fix_eq + self.fix_gt + self.fix_lt
        if n_fix > self.n_p:
            raise ValueError(f"{self.name}: {n_fix} fixed predicates > n_P = {self.n_p}")
        if self.n_p - n_fix > self.n_t - n_fix:
            raise ValueError(f"{self.name}: not enough attribute names for the free predicates")
        if not (self.l_p <= self.u_p and self.l_a <= self.u_a):
            raise ValueError(f"{self.name}: empty value domain")
        if not n_fix <= self.n_a <= self.n_t:
            raise ValueError(f"{self.name}: events need n_Pfix <= n_A <= n_t")

    @property
    def n_fix(self) -> int:
        return self.fix_eq + self.fix_gt + self.fix_lt

    def match_probability(self) -> float:
        """P(an event satisfies a subscription), for all-equality workloads whose event
        and predicate domains coincide and events carrying every attribute."""
        if self.fix_gt or self.fix_lt or self.n_a < self.n_t:
            raise ValueError("closed form only for all-equality workloads with full events")
        return (1.0 / (self.u_p - self.l_p + 1)) ** self.n_p


W0 = Workload("W0")
W1OP = Workload("W1op", n_p=4, fix_eq=2, fix_gt=1)
W2OP = Workload("W2op", n_p=9, fix_eq=2, fix_lt=5, fix_gt=1)
WORKLOADS = {w.name: w for w in (W0, W1OP, W2OP)}


def domain_sweep(domains: tuple[int, ...] = (10, 30, 50, 70, 90, 100)) -> list[Workload]:
    """Sect. 6.2.2: predicate (and event) value-domain size 10..100, W0 otherwise."""
    return [replace(W0, name=f"W0-dom{d}", u_p=d, u_a=d) for d in domains]


def predicates_sweep(sizes: tuple[int, ...] = (4, 6, 8, 10, 12, 14)) -> list[Workload]:
    """Sect. 6.2.2: predicates per subscription 4..14 (2 fixed ``=`` kept), W0 otherwise."""
    return [replace(W0, name=f"W0-np{k}", n_p=k) for k in sizes]


def generate_subscriptions(
    w: Workload, n: int, seed: int = 0, chunk: int = 500_000
) -> Subscriptions:
    """``n`` subscriptions of workload ``w`` (ids 0..n-1), deterministic in ``seed``."""
    rng = np.random.default_rng([seed, 1])  # stream 1: subscriptions
    fixed_ops = [EQ] * w.fix_eq + [GT] * w.fix_gt + [LT] * w.fix_lt
    n_free = w.n_p - w.n_fix
    attrs = np.empty((n, w.n_p), dtype=np.int64)
    ops = np.empty((n, w.n_p), dtype=np.int64)
    attrs[:, : w.n_fix] = np.arange(w.n_fix)
    ops[:, : w.n_fix] = fixed_ops
    ops[:, w.n_fix :] = EQ
    pool = w.n_t - w.n_fix
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        if n_free:
            attrs[lo:hi, w.n_fix :] = _distinct(rng, hi - lo, pool, n_free) + w.n_fix
    values = rng.integers(w.l_p, w.u_p + 1, size=(n, w.n_p), dtype=np.int64)
    return Subscriptions.from_dense(attrs, ops, values, n_attrs=w.n_t)


def _distinct(rng: np.random.Generator, n: int, pool: int, k: int) -> np.ndarray:
    """``n`` rows of ``k`` distinct sorted integers from ``range(pool)``, uniformly: redraw
    the rows with a repeat (few when k is small against pool), else the k smallest of
    random keys per row."""
    if k * k <= pool:
        out = np.sort(rng.integers(0, pool, size=(n, k)), axis=1)
        bad = np.flatnonzero((out[:, 1:] == out[:, :-1]).any(axis=1))
        while len(bad):
            out[bad] = np.sort(rng.integers(0, pool, size=(len(bad), k)), axis=1)
            bad = bad[(out[bad, 1:] == out[bad, :-1]).any(axis=1)]
        return out
    keys = rng.random((n, pool))
    return np.sort(np.argpartition(keys, k - 1, axis=1)[:, :k], axis=1)


def generate_events(w: Workload, n: int, seed: int = 0) -> Events:
    """``n`` events of workload ``w``: the fixed attributes always, then n_A - n_Pfix other
    attributes drawn without replacement (all of them when n_A = n_t)."""
    rng = np.random.default_rng([seed, 2])  # stream 2: events
    values = rng.integers(w.l_a, w.u_a + 1, size=(n, w.n_t), dtype=np.int64)
    if w.n_a < w.n_t:
        keys = rng.random((n, w.n_t - w.n_fix))
        absent = np.argpartition(keys, w.n_a - w.n_fix - 1, axis=1)[:, w.n_a - w.n_fix :]
        values[np.arange(n)[:, None], absent + w.n_fix] = np.iinfo(np.int64).min
    return Events(values)


@dataclass(frozen=True)
class RangeWorkload:
    """Range-only subscriptions (beyond the paper; the workload of the interval matchers
    Rein and HEM): each subscription has ``k`` interval predicates ``low <= x <= high``
    on distinct attributes drawn uniformly from ``d``, ``low`` uniform in
    ``[0, domain (1 - width))``, ``high = low + domain * width``; events give every
    attribute a uniform value in ``[0, domain)``."""

    name: str = "ranges"
    d: int = 20
    k: int = 10
    width: float = 0.3
    domain: int = 1_000_000

    def __post_init__(self) -> None:
        if not 1 <= self.k <= self.d:
            raise ValueError(f"{self.name}: need 1 <= k <= d, got k={self.k}, d={self.d}")
        if not 0 < self.width < 1 or self.domain < 2:
            raise ValueError(f"{self.name}: width in (0, 1) and domain >= 2 needed")


RANGES = RangeWorkload()


def range_subscriptions(w: RangeWorkload, n: int, seed: int = 0) -> Subscriptions:
    """``n`` range-only subscriptions of ``w`` (ids 0..n-1), deterministic in ``seed``."""
    from routelab.filtering.model import GE, LE

    rng = np.random.default_rng([seed, 3])  # stream 3: range subscriptions
    attrs = _distinct(rng, n, w.d, w.k)
    span = int(w.domain * w.width)
    low = rng.integers(0, max(1, int(w.domain * (1 - w.width))), size=(n, w.k), dtype=np.int64)
    a2 = np.repeat(attrs, 2, axis=1)
    ops = np.tile(np.array([GE, LE]), (n, w.k))
    values = np.stack([low, low + span], axis=2).reshape(n, 2 * w.k)
    return Subscriptions.from_dense(a2, ops, values, n_attrs=w.d)


def range_events(w: RangeWorkload, n: int, seed: int = 0) -> Events:
    """``n`` events of ``w``: every attribute, uniform in ``[0, domain)``."""
    rng = np.random.default_rng([seed, 4])  # stream 4: range events
    return Events(rng.integers(0, w.domain, size=(n, w.d), dtype=np.int64))


#: every workload a user can generate by name: the paper's and the range-only one
WORKLOAD_NAMES = (*WORKLOADS, RANGES.name)


def make_workload(name: str, n: int, n_events: int, seed: int = 0) -> tuple[Subscriptions, Events]:
    """``n`` subscriptions and ``n_events`` events of the workload called ``name``
    (:data:`WORKLOAD_NAMES`)."""
    if name == RANGES.name:
        return range_subscriptions(RANGES, n, seed), range_events(RANGES, n_events, seed)
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; use {', '.join(WORKLOAD_NAMES)}")
    w = WORKLOADS[name]
    return generate_subscriptions(w, n, seed=seed), generate_events(w, n_events, seed=seed)
