"""The matching-cost model of Sect. 3.1 and the event statistics it needs.

Per event (Sect. 3.1.1; the simplified form)::

    matching(S, C, H) = K_r |H| + sum_{H in H} mu(H) (C_h + K_h |H.A|)
                        + sum_{s in S} nu(C(s).p) checking(C(s).p, s)

with mu(H) the probability that an event carries every attribute of table H's schema,
nu(p) the probability that an event satisfies access predicate p, and checking(p, s) the
cost of checking s once its cluster is scanned. The paper's formula for checking was lost
in the text (reconstructed from the prose): we read it as one unit K_c per subscription
checked (``checking="unit"``, the default) or K_c per remaining predicate
(``checking="rows"``). The initial single-attribute tables (the phase-1 equality indexes)
cost neither lookups nor space (Sect. 3.1.2).

nu and mu come from an "independent tool" in the paper; ours is :class:`EventStats`: per
attribute, the Laplace-smoothed frequency of each value and the share of events carrying
the attribute, measured on a window of events, and independence between attributes (our
reading). :func:`example_3_1` reproduces the paper's Example 3.1 exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from routelab.filtering.model import MISSING, Events
from routelab.readings import pick


@dataclass
class CostConstants:
    """Unit costs in ns (K_r, C_h, K_h, K_c) and bytes (K_space per stored reference,
    hash_space per access predicate, init_space per table). Defaults are this machine's
    order of magnitude; :func:`routelab.filtering.lab.matching.experiments.calibrate`
    measures them."""

    K_r: float = 5.0
    C_h: float = 30.0
    K_h: float = 5.0
    K_c: float = 1.0
    K_space: float = 4.0
    hash_space: float = 48.0
    init_space: float = 1024.0
    #: our reading (READINGS.md); ``ROUTELAB_READING=checking`` flips the default for a run
    checking: str = field(default_factory=lambda: pick("checking", "unit", "rows"))

    def check_cost(self, remaining: int) -> float:
        if self.checking == "unit":
            return self.K_c
        if self.checking == "rows":
            return self.K_c * max(1, remaining)
        raise ValueError(f"checking must be 'unit' or 'rows', got {self.checking!r}")


@dataclass
class EventStats:
    """Value frequencies (nu of equality predicates) and attribute presence (mu)."""

    n_attrs: int
    presence: np.ndarray  # mu per attribute
    freq: list[dict[int, float]] = field(default_factory=list)
    default: np.ndarray = field(default_factory=lambda: np.zeros(0))  # nu of an unseen value

    @classmethod
    def from_events(cls, events: Events, alpha: float | None = None) -> EventStats:
        """Laplace-smoothed per-attribute value frequencies over a window of events.

        ``alpha`` is the smoothing: 1.0 (Laplace, our reading) unless given; 0.0 (the
        window's plain frequencies, an unseen value nu 0) under ``ROUTELAB_READING=smoothing``.
        """
        alpha = pick("smoothing", 1.0, 0.0) if alpha is None else alpha
        values = events.values
        n, n_attrs = values.shape
        presence = (values != MISSING).mean(axis=0) if n else np.zeros(n_attrs)
        freq, default = [], np.zeros(n_attrs)
        for a in range(n_attrs):
            col = values[:, a]
            col = col[col != MISSING]
            uniq, counts = np.unique(col, return_counts=True)
            denom = len(col) + alpha * (len(uniq) + 1)
            freq.append({int(u): (c + alpha) / denom for u, c in zip(uniq, counts, strict=True)})
            default[a] = alpha / denom if denom else 0.0
        return cls(n_attrs, presence, freq, default)

    @classmethod
    def uniform(cls, domains: Sequence[int]) -> EventStats:
        """Every attribute present, values uniform over ``domains[a]`` values."""
        n_attrs = len(domains)
        freq = [dict() for _ in range(n_attrs)]
        return cls(n_attrs, np.ones(n_attrs), freq, 1.0 / np.asarray(domains, dtype=float))

    def nu(self, attr: int, value: int) -> float:
        """P(event[attr] == value)."""
        return self.presence[attr] * self.freq[attr].get(int(value), self.default[attr])

    def mu(self, schema: Sequence[int]) -> float:
        """P(the event carries every attribute of ``schema``) (independence)."""
        return float(np.prod([self.presence[a] for a in schema]))


def matching_cost(
    populations: Mapping[tuple[int, ...], float],
    nu_of: Mapping[tuple[int, ...], float],
    schemas: Sequence[tuple[int, ...]],
    stats: EventStats,
    consts: CostConstants,
) -> float:
    """Sect. 3.1.1 for a clustering summarised by schema: ``populations[X]`` subscriptions
    use an access predicate of schema X, each satisfied with probability ``nu_of[X]``;
    ``schemas`` are the multi-attribute tables (single attributes cost no lookup)."""
    tables = [x for x in schemas if len(x) > 1]
    cost = consts.K_r * len(tables)
    cost += sum(stats.mu(x) * (consts.C_h + consts.K_h * len(x)) for x in tables)
    cost += sum(n * nu_of[x] * consts.check_cost(0) for x, n in populations.items())
    return cost


def event_checks(
    populations: Mapping[tuple[str, ...], float],
    domains: Mapping[str, int],
    event_attrs: Sequence[str],
) -> tuple[int, float]:
    """Lookups and expected subscription checks for one event with ``event_attrs`` under
    uniform independent values: every table whose schema the event covers is looked up
    (single attributes included), and its matching access predicate's share of the
    table's subscriptions, population / prod(domains), is checked."""
    lookups, checks = 0, 0.0
    for schema, n in populations.items():
        if all(a in event_attrs for a in schema):
            lookups += 1
            checks += n / float(np.prod([domains[a] for a in schema]))
    return lookups, checks


def _three_digits_down(v: float) -> float:
    step = 10.0 ** (math.floor(math.log10(v)) - 2)
    return math.floor(v / step) * step


def example_3_1(paper_rounding: bool = True) -> dict[str, tuple[int, float]]:
    """Example 3.1 of the paper: 7M subscriptions over attributes A, B, C (100 equiprobable
    independent values each), 1M per nonempty subset of {A, B, C}; an event with A and B
    but not C. C1 = tables A, B, C (multi-attribute subscriptions spread evenly over their
    attributes' tables): 2 lookups, 46,600 checks. C2 = tables A, B, C, AB, BC (AC split
    between A and C, ABC between AB and BC): 3 lookups, 25,150 checks.

    The paper rounds C1's table population 1M + 0.5M + 0.5M + 0.33M to "2.33M" (23,300 per
    cluster); ``paper_rounding`` does the same (three significant digits, rounded down),
    else the exact 2,333,333 gives 46,667 checks."""
    domains = {"A": 100, "B": 100, "C": 100}
    million = 1_000_000
    subsets = [s for k in (1, 2, 3) for s in combinations("ABC", k)]
    c1: dict[tuple[str, ...], float] = {("A",): 0.0, ("B",): 0.0, ("C",): 0.0}
    for s in subsets:  # each subset's million spread evenly over its single attributes
        for a in s:
            c1[(a,)] += million / len(s)
    if paper_rounding:
        c1 = {k: _three_digits_down(v) for k, v in c1.items()}
    c2 = {
        ("A",): million + million / 2,  # A, half of AC
        ("B",): float(million),
        ("C",): million + million / 2,  # C, half of AC
        ("A", "B"): million + million / 2,  # AB, half of ABC
        ("B", "C"): million + million / 2,  # BC, half of ABC
    }
    event = ("A", "B")
    return {"C1": event_checks(c1, domains, event), "C2": event_checks(c2, domains, event)}
