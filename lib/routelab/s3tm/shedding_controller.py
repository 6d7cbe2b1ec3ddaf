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
Fig. 8a (:func:`measure_levels`, subscription shedding, trie-operation load).

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
available as ``reading="literal"`` (r = that bound / ``margin``).

**Simulation** (:func:`simulate`): discrete time steps of ``dt`` seconds; arrivals are
Poisson with the schedule's rate (seeded); the router+matchers serve ``capacity *
L(0)/L(l)`` publications per second at level l (``capacity``: publications per second at
level 0 -- a fixed budget of matching work per second divided by the load per publication);
arrivals beyond the full buffer (b plus an overload extension) are dropped and counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

READINGS = ("derived", "literal")
IDEAL, STABLE, OVERLOAD = 0, 1, 2
SEGMENT_NAMES = ("ideal", "stable", "overload")
PAPER_SCHEDULE = ((0.0, 16_000.0), (500.0, 32_000.0), (1000.0, 2_000.0), (1500.0, 16_000.0))
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


def measure_levels(
    deliveries: Any,
    thresholds: Sequence[float] | np.ndarray,
    *,
    method: str = "subscription",
    seed: int = 0,
) -> pd.DataFrame:
    """L(l) per level from the shedding runs of Fig. 8a.

    Returns ``level``, ``m``, ``load`` (mean trie operations per publication),
    ``relative_load`` (L(l)/L(0)), ``accuracy``, ``load_shed`` and ``step_ratio``
    (L(l-1)/L(l); NaN at level 0).
    """
    from routelab.s3tm.shedding import evaluate, keep_mask

    rows = []
    for level, m in enumerate(thresholds):
        res = evaluate(deliveries, keep_mask(deliveries, float(m), method, seed))
        rows.append(
            {
                "level": level,
                "m": float(m),
                "load": res["load_per_post"],
                "accuracy": res["accuracy"],
                "load_shed": res["load_shed"],
            }
        )
    frame = pd.DataFrame(rows)
    frame["relative_load"] = frame["load"] / frame["load"].iloc[0]
    frame["step_ratio"] = frame["load"].shift(1) / frame["load"]
    return frame


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


def ratio_bound(rho_max: float, reading: str = "derived") -> float:
    """The bound Eq. 8 puts on r = b^i / b^s: an upper bound ``1 / (rho_max - 1)`` (derived
    reading, inf when no level changes the load) or a lower bound ``rho_max - 1`` (literal)."""
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


def eq8_claim(segments: BufferSegments, loads: Sequence[float] | np.ndarray) -> dict[str, Any]:
    """The Eq. 8 claim as a claims-table row: ``segments``' ratio r against the measured
    level loads (holds per :func:`eq8_holds`)."""
    return {
        "claim": "The segment ratio r satisfies Eq. 8 for the measured L(l)",
        "paper": "Sect. 5.2.2, Eq. 8",
        "measured": f"r = b^i/b^s = {segments.r:.3f}, max L(l-1)/L(l) = {segments.rho_max:.3f}",
        "holds": eq8_holds(segments, loads),
        "note": f"{segments.reading} reading of Eq. 8 (see routelab.s3tm.shedding_controller)",
    }


def buffer_segments(
    loads: Sequence[float] | np.ndarray,
    size: float,
    *,
    overload: float | None = None,
    reading: str = "derived",
    margin: float = 0.5,
    max_ratio: float = 1.0,
) -> BufferSegments:
    """Split a buffer of ``size`` publications into ideal and stable segments by Eq. 8.

    Derived reading: r = ``margin`` x the upper bound ``1 / (rho_max - 1)``, capped at
    ``max_ratio`` (an unbounded r would leave no stable segment); literal reading:
    r = the lower bound ``rho_max - 1`` / ``margin``. ``overload`` (default ``size / 2``)
    is the room beyond b before arrivals are dropped.

    Raises:
        ValueError: ``margin`` outside (0, 1) or a non-positive ``size``.
    """
    if not 0 < margin < 1:
        raise ValueError(f"margin must be in (0, 1), got {margin}")
    if not size > 0:
        raise ValueError(f"buffer size must be positive, got {size}")
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


@dataclass(frozen=True, eq=False)
class ControllerRun:
    """A simulated run: one row per adaptation period in ``trace``.

    ``trace`` columns: ``time`` (end of the period, s), ``input_rate`` (publications/s),
    ``level`` (during the next period), ``m``, ``fullness`` (at the decision), ``segment``
    (name), ``processed_rate`` (publications served per second in the period),
    ``service_rate`` (capacity at the level of the period), ``dropped`` (arrivals dropped
    for lack of buffer in the period).
    """

    trace: pd.DataFrame
    segments: BufferSegments
    thresholds: np.ndarray
    loads: np.ndarray
    capacity: float
    schedule: tuple[tuple[float, float], ...]
    info: dict[str, Any] = field(default_factory=dict)


def _rate_at(schedule: Sequence[tuple[float, float]], t: np.ndarray) -> np.ndarray:
    starts = np.array([s for s, _ in schedule], dtype=np.float64)
    rates = np.array([r for _, r in schedule], dtype=np.float64)
    return rates[np.searchsorted(starts, t, side="right") - 1]


def simulate(
    loads: Sequence[float] | np.ndarray,
    thresholds: Sequence[float] | np.ndarray,
    capacity: float,
    segments: BufferSegments,
    schedule: Sequence[tuple[float, float]] = PAPER_SCHEDULE,
    *,
    duration: float = 2000.0,
    dt: float = 0.01,
    period: float = 1.0,
    seed: int = 0,
    noise: bool = True,
    start_level: int = 0,
    start_fullness: float = 0.0,
    progress: bool = False,
) -> ControllerRun:
    """Run the controller against an input-rate schedule (see the module docstring).

    Args:
        loads: L(l) per level (any unit; only ratios matter).
        thresholds: m per level (for the trace).
        capacity: publications per second served at level 0.
        segments: the buffer (:func:`buffer_segments`).
        schedule: ``(start time, rate)`` pairs, the first at time 0.
        duration, dt, period: simulated seconds, time step, adaptation period.
        seed: seeds the Poisson arrivals (``noise=False``: exactly rate x dt per step).
        start_level, start_fullness: initial state.
        progress: progress bar over adaptation periods.
    """
    from tqdm.auto import tqdm

    loads = np.asarray(loads, dtype=np.float64)
    step_ratios(loads)  # validates
    if not schedule or schedule[0][0] != 0:
        raise ValueError("the schedule must start at time 0")
    if capacity <= 0 or dt <= 0 or period < dt or duration < period:
        raise ValueError("capacity and dt must be positive, dt <= period <= duration")
    steps_per_period = int(round(period / dt))
    n_periods = int(math.floor(duration / period))
    service = capacity * loads[0] / loads  # publications per second per level
    max_level = len(loads) - 1
    rng = np.random.default_rng([seed, 0x8B])
    t_steps = np.arange(n_periods * steps_per_period) * dt
    expected = _rate_at(schedule, t_steps) * dt
    arrivals = rng.poisson(expected).astype(np.float64) if noise else expected
    level, q = int(start_level), float(start_fullness)
    prev_f, prev_seg = q, segments.segment(q)
    rows = []
    for k in tqdm(range(n_periods), desc="controller", disable=not progress, leave=False):
        served = dropped = 0.0
        mu = service[level] * dt
        for a in arrivals[k * steps_per_period : (k + 1) * steps_per_period]:
            q += a
            if q > segments.capacity:
                dropped += q - segments.capacity
                q = segments.capacity
            s = mu if q > mu else q
            q -= s
            served += s
        period_level = level
        level = adapt(level, q, prev_f, prev_seg, segments, max_level)
        prev_f, prev_seg = q, segments.segment(q)
        rows.append(
            {
                "time": (k + 1) * period,
                "input_rate": float(_rate_at(schedule, np.array([k * period]))[0]),
                "period_level": period_level,
                "level": level,
                "m": float(np.asarray(thresholds)[level]),
                "fullness": q,
                "segment": SEGMENT_NAMES[prev_seg],
                "processed_rate": served / period,
                "service_rate": service[period_level],
                "dropped": dropped,
            }
        )
    info = {"dt": dt, "period": period, "duration": duration, "seed": seed, "noise": noise}
    return ControllerRun(
        pd.DataFrame(rows),
        segments,
        np.asarray(thresholds, dtype=np.float64),
        loads,
        float(capacity),
        tuple((float(s), float(r)) for s, r in schedule),
        info,
    )


# --------------------------------------------------------------------------- analysis


def reversals(levels: Sequence[int] | np.ndarray) -> int:
    """How often the direction of level changes flips (up then down, or down then up)."""
    diffs = np.diff(np.asarray(levels, dtype=np.int64))
    moves = np.sign(diffs[diffs != 0])
    return int(np.count_nonzero(moves[1:] != moves[:-1]))


def segment_jumps(run: ControllerRun) -> int:
    """Level changes after which the buffer went straight from ideal to overload (after a
    decrease) or from overload to ideal (after an increase) by the next adaptation -- the
    oscillation Eq. 8 is meant to prevent."""
    t = run.trace
    seg = t["segment"].map(SEGMENT_NAMES.index).to_numpy()
    change = np.diff(t["level"].to_numpy())  # change decided at row i, effective in row i+1
    jumps = 0
    for i in range(len(change) - 1):
        if change[i] < 0 and seg[i] == IDEAL and seg[i + 1] == OVERLOAD:
            jumps += 1
        if change[i] > 0 and seg[i] == OVERLOAD and seg[i + 1] == IDEAL:
            jumps += 1
    return jumps


def oscillation_report(run: ControllerRun, settle_fraction: float = 0.5) -> pd.DataFrame:
    """Per steady-rate segment of the schedule: the level at its start and end, its mean,
    ``reversals`` of direction, the level range over the last ``settle_fraction`` of the
    segment (``settled_range``; 0 or 1 = settled on one level or between two adjacent ones),
    publications dropped, and the time the level first reached its final value
    (``settle_time``, seconds after the segment start)."""
    t = run.trace
    bounds = [s for s, _ in run.schedule] + [float(t["time"].max())]
    rows = []
    for (start, rate), end in zip(run.schedule, bounds[1:], strict=True):
        part = t[(t["time"] > start) & (t["time"] <= end)]
        if part.empty:
            continue
        levels = part["level"].to_numpy()
        tail = part[part["time"] > end - settle_fraction * (end - start)]["level"]
        final = int(levels[-1])
        first_final = part["time"].to_numpy()[np.flatnonzero(levels == final)[0]] - start
        rows.append(
            {
                "start": start,
                "end": end,
                "input_rate": rate,
                "level_start": int(levels[0]),
                "level_end": final,
                "level_mean": float(levels.mean()),
                "reversals": reversals(levels),
                "settled_range": int(tail.max() - tail.min()) if len(tail) else 0,
                "settle_time": float(first_final),
                "dropped": float(part["dropped"].sum()),
            }
        )
    return pd.DataFrame(rows)


def controller_verdict(run: ControllerRun) -> dict[str, Any]:
    """The Fig. 8b claim, measured: the level follows the input rate (higher mean level
    where the rate is higher than in the previous segment, lower where it is lower) and does
    not oscillate (no Eq. 8 segment jump; each segment settles within one level step)."""
    report = oscillation_report(run)
    follows = True
    for prev, cur in zip(report.itertuples(), report.iloc[1:].itertuples(), strict=False):
        if cur.input_rate > prev.input_rate:
            follows &= cur.level_end > prev.level_end or cur.level_end == len(run.loads) - 1
        elif cur.input_rate < prev.input_rate:
            follows &= cur.level_end < prev.level_end or cur.level_end == 0
    jumps = segment_jumps(run)
    settled = bool((report["settled_range"] <= 1).all())
    return {
        "follows_rate": bool(follows),
        "segment_jumps": jumps,
        "settled": settled,
        "max_reversals": int(report["reversals"].max()),
        "no_oscillation": bool(jumps == 0 and settled),
        "report": report,
    }


def controller_claim(run: ControllerRun) -> dict[str, Any]:
    """The Fig. 8b claim as a claims-table row, measured on ``run``."""
    v = controller_verdict(run)
    rep = v["report"]
    path = " -> ".join(f"{r.input_rate / 1000:g}k/s: level {r.level_end}" for r in rep.itertuples())
    dither = rep[rep["reversals"] > 0]
    note = (
        "follows = each rate increase ends at a higher level (or the top) and each decrease "
        "at a lower one (or 0); no oscillation = no level change moves the buffer from the "
        "ideal to the overload segment or back before the next adaptation (Eq. 8), and "
        "every rate segment settles within one level step over its second half"
    )
    if len(dither):
        note += (
            "; where the input rate lies between two levels' service rates the level "
            "alternates between those two adjacent levels ("
            + ", ".join(
                f"{r.input_rate / 1000:g}k/s: {r.reversals} reversals" for r in dither.itertuples()
            )
            + ")"
        )
    return {
        "claim": "The controller raises and lowers the shedding level with the input rate "
        "without oscillating",
        "paper": "Sect. 5.2.2, Sect. 6.5, Fig. 8b",
        "measured": f"{path}; {v['segment_jumps']} ideal<->overload jumps; settled within one "
        f"level: {v['settled']}; dropped {rep['dropped'].sum():.0f} publications",
        "holds": bool(v["follows_rate"] and v["no_oscillation"]),
        "note": note,
    }
