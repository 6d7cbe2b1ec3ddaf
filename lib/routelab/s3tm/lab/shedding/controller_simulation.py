"""Fig. 8b's experiment (notebook 06_shedding; S3-TM Sect. 5.2.2): the load per level L(l)
measured with Fig. 8a's shedding, and a discrete-time simulation of the router buffer under
the paper's input-rate schedule driven by :mod:`routelab.s3tm.shedding_controller`.

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

from routelab.s3tm.shedding_controller import (
    IDEAL,
    OVERLOAD,
    SEGMENT_NAMES,
    BufferSegments,
    adapt,
    step_ratios,
)

PAPER_SCHEDULE = ((0.0, 16_000.0), (500.0, 32_000.0), (1000.0, 2_000.0), (1500.0, 16_000.0))


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
    from routelab.progress import tqdm

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
