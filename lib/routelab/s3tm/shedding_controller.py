"""How much load to shed: the adaptive shedding controller (S3-TM Sect. 5.2.2, Fig. 8b).

The router buffers publications; the buffer has three segments, *ideal* (front, size b^i),
*stable* (b^s) and *overload* (beyond b = b^i + b^s). Every adaptation period (1 s) the
controller looks at the buffer fullness f:

- overload (f >= b): raise the shedding level; ideal (f < b^i): lower it; stable: keep it;
- "we may increase (decrease) the load shedding level due to being in the overload (ideal)
  segment, yet when the next adaptation time comes, we might still be in the same segment.
  In this situation, we continue [...] if and only if the buffer fullness level has not went
  down (up) since the last adaptation time" (:func:`adapt`).

Levels (:func:`level_thresholds`): level 0 is m = inf, level 1 is m = k (k = 7), each next
level lowers m by Delta (Delta < 1: probabilistic forwarding of the last matcher), down to
``m_min``. L(l), the load per publication at level l, is measured with the shedding of
Fig. 8a (:func:`routelab.s3tm.lab.shedding.controller_simulation.measure_levels`, subscription shedding, trie-operation load).

**Eq. 8 and the segment ratio.** The text's Eq. 8 reads (b^s + b^i)/b^s > L(l - Delta)/L(l)
and Eq. 9 is garbled. Modelling the queue length as proportional to the load per
publication (the text's Little's-law argument), a level decrease taken at fullness f < b^i
multiplies f by rho_l = L(l - Delta)/L(l); it must not reach the overload segment, so
b^i * rho_l < b^i + b^s, i.e.

    (b^s + b^i) / b^i > max_l rho_l,      r = b^i / b^s < 1 / (max_l rho_l - 1).      (8')

The same inequality also keeps a level increase taken at f >= b from landing in the ideal
segment (b / rho_l >= b^i), which is what the text says Eq. 9 already ensures -- and Eq. 9's
surviving form 1 - L(l)/L(l - Delta) is exactly the stable share b^s / b that (8') needs.
We therefore take (8') (``reading="derived"``, default) and choose r = ``margin`` times its
bound; the literal Eq. 8 (b^s in the denominator: r > max rho - 1, a lower bound) is
available as ``reading="literal"`` (r = that bound / ``margin``; for a whole run,
``ROUTELAB_READING=eq8``, :func:`default_reading`).

The Fig. 8b simulation of the buffer under a rate schedule, and the measurement of L(l),
live in :mod:`routelab.s3tm.lab.shedding.controller_simulation` (notebook 06).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from routelab.readings import pick

READINGS = ("derived", "literal")
IDEAL, STABLE, OVERLOAD = 0, 1, 2
SEGMENT_NAMES = ("ideal", "stable", "overload")
"""Fig. 8b's input rate: 16k publications/s, 32k from t = 500 s, 2k from 1000 s, 16k from
1500 s."""


# --------------------------------------------------------------------------- levels


def level_thresholds(k: float = 7.0, delta: float = 1.0, m_min: float = 1.0) -> np.ndarray:
    """m of each shedding level: ``[inf, k, k - delta, k - 2 delta, ...]`` down to ``m_min``.

    Raises:
        ValueError: non-positive ``delta`` or ``m_min``, or ``k < m_min``.
    """
    if not delta > 0:
        raise ValueError(f"delta must be positive, got {delta}")
    if not m_min > 0:
        raise ValueError(f"m_min must be positive, got {m_min}")
    if k < m_min:
        raise ValueError(f"k ({k}) must be >= m_min ({m_min})")
    steps = int(math.floor((k - m_min) / delta + 1e-9))
    finite = k - delta * np.arange(steps + 1)
    return np.concatenate(([np.inf], np.round(finite, 9)))


def step_ratios(loads: Sequence[float] | np.ndarray) -> np.ndarray:
    """rho_l = L(l - 1) / L(l) for l = 1.. (one level = one Delta step).

    Raises:
        ValueError: fewer than two levels or a non-positive load.
    """
    loads = np.asarray(loads, dtype=np.float64)
    if len(loads) < 2:
        raise ValueError("need at least two shedding levels")
    if np.any(loads <= 0) or not np.all(np.isfinite(loads)):
        raise ValueError(f"loads must be positive and finite, got {loads.tolist()}")
    return loads[:-1] / loads[1:]


# --------------------------------------------------------------------------- buffer


@dataclass(frozen=True)
class BufferSegments:
    """The router buffer: ideal [0, ideal), stable [ideal, size), overload [size, capacity].

    Attributes:
        ideal: b^i (publications).
        stable: b^s.
        overload: the overload segment's extent beyond b (arrivals beyond are dropped).
        r: b^i / b^s.
        rho_max: max_l L(l - 1)/L(l) of the loads the segments were made for.
        reading: which form of Eq. 8 chose r (:data:`READINGS`).
    """

    ideal: float
    stable: float
    overload: float
    r: float
    rho_max: float
    reading: str

    @property
    def size(self) -> float:
        """b = b^i + b^s."""
        return self.ideal + self.stable

    @property
    def capacity(self) -> float:
        """Publications the buffer can hold (b plus the overload segment)."""
        return self.size + self.overload

    def segment(self, fullness: float) -> int:
        """:data:`IDEAL`, :data:`STABLE` or :data:`OVERLOAD`."""
        if fullness < self.ideal:
            return IDEAL
        return STABLE if fullness < self.size else OVERLOAD


def default_reading() -> str:
    """Eq. 8's reading when none is given: ``"derived"``, or ``"literal"`` for a run with
    ``ROUTELAB_READING=eq8`` (:mod:`routelab.readings`)."""
    return pick("eq8", "derived", "literal")


def ratio_bound(rho_max: float, reading: str | None = None) -> float:
    """The bound Eq. 8 puts on r = b^i / b^s: an upper bound ``1 / (rho_max - 1)`` (derived
    reading, inf when no level changes the load) or a lower bound ``rho_max - 1`` (literal).
    ``reading`` ``None``: :func:`default_reading`."""
    reading = default_reading() if reading is None else reading
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    excess = rho_max - 1.0
    if reading == "derived":
        return math.inf if excess <= 0 else 1.0 / excess
    return max(excess, 0.0)


def eq8_holds(segments: BufferSegments, loads: Sequence[float] | np.ndarray) -> bool:
    """Whether ``segments`` satisfy Eq. 8 (in their reading) for the level loads ``loads``."""
    rho = float(step_ratios(loads).max())
    b = segments.size
    if segments.reading == "derived":
        return bool(b / segments.ideal > rho)
    return bool(b / segments.stable > rho)


def buffer_segments(
    loads: Sequence[float] | np.ndarray,
    size: float,
    *,
    overload: float | None = None,
    reading: str | None = None,
    margin: float = 0.5,
    max_ratio: float = 1.0,
) -> BufferSegments:
    """Split a buffer of ``size`` publications into ideal and stable segments by Eq. 8.

    Derived reading: r = ``margin`` x the upper bound ``1 / (rho_max - 1)``, capped at
    ``max_ratio`` (an unbounded r would leave no stable segment); literal reading:
    r = the lower bound ``rho_max - 1`` / ``margin``. ``overload`` (default ``size / 2``)
    is the room beyond b before arrivals are dropped. ``reading`` ``None``:
    :func:`default_reading` (derived unless flipped).

    Raises:
        ValueError: ``margin`` outside (0, 1) or a non-positive ``size``.
    """
    if not 0 < margin < 1:
        raise ValueError(f"margin must be in (0, 1), got {margin}")
    if not size > 0:
        raise ValueError(f"buffer size must be positive, got {size}")
    reading = default_reading() if reading is None else reading
    rho = float(step_ratios(loads).max())
    bound = ratio_bound(rho, reading)
    # derived: a fraction of the upper bound; literal: a multiple of the lower bound
    r = min(margin * bound, max_ratio) if reading == "derived" else max(bound / margin, 1e-3)
    ideal = size * r / (1 + r)
    return BufferSegments(
        ideal, size - ideal, size / 2 if overload is None else float(overload), r, rho, reading
    )


# --------------------------------------------------------------------------- controller


def adapt(
    level: int,
    fullness: float,
    previous_fullness: float,
    previous_segment: int,
    segments: BufferSegments,
    max_level: int,
) -> int:
    """One adaptation step (Sect. 5.2.2); returns the new level.

    Overload: raise the level, unless the buffer was already in overload at the previous
    adaptation and its fullness has gone down since (the last raise is working). Ideal:
    lower it, unless the buffer was already ideal and its fullness has gone up since. Stable:
    keep it. The level stays within ``0..max_level``.
    """
    seg = segments.segment(fullness)
    if seg == OVERLOAD:
        if previous_segment == OVERLOAD and fullness < previous_fullness:
            return level
        return min(level + 1, max_level)
    if seg == IDEAL:
        if previous_segment == IDEAL and fullness > previous_fullness:
            return level
        return max(level - 1, 0)
    return level
