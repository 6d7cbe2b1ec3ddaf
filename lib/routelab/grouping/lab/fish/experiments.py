"""The experiments of notebook ``08_fish`` (FISH Sect. 6): grid points, one sweep task,
derived ratios, the parameter choice of RQ2 and the paper's numbers.

**What "execution time" means here** (FISH Sect. 6.1: "we use the processing time of loads
to evaluate the load balance ... the execution time ... depends on the utilization of the
workers"). The stream is replayed in its order at ``utilization`` times the workers' total
capacity (default 1.0: tuples arrive exactly as fast as all workers together can process
them), each worker is a FIFO queue serving ``1 / capacity`` seconds per tuple
(:mod:`routelab.grouping.queueing`), and routers see the same clock and capacities
(:mod:`routelab.grouping.simulator`). A scheme that keeps every worker equally busy *at
every moment* finishes right after the last arrival; any local imbalance -- a hot key
piling onto few workers for a while, as in time-evolving streams -- leaves a backlog that
delays the end. ``exec_x_sg`` divides by shuffle grouping's time (the paper's baseline,
Figs. 9-10), ``exec_x_ideal`` by the fluid ideal ``max(m / total capacity, last arrival +
one service time)``. ``utilization=None`` makes the input saturated (all tuples at time 0:
only the final loads matter).

**Memory** is the number of distinct (key, worker) pairs divided by the distinct keys: 1.0 is
field (key) grouping, FISH Fig. 11's baseline.

A grid point is a dict: a *case* (``case`` label, ``stream`` name of
:data:`routelab.grouping.lab.streams.STREAMS` and its ``stream_*`` parameters), a *variant*
(``variant`` label, ``scheme`` and its parameters), ``n_workers`` and common settings
(``n_sources``, ``seed``, ``service_time``, ``utilization``, ``fast_fraction`` /
``fast_speedup`` for heterogeneous workers, ``event`` = ``"add"`` / ``"remove"`` a worker
half-way, ``output_loads`` to add the per-worker ``loads`` list to the row).
:func:`run_point` is the picklable task for :func:`routelab.sweep.run_grid`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from routelab.grouping.events import WorkerEvent
from routelab.grouping.queueing import DEFAULT_SERVICE_TIME
from routelab.readings import is_flipped
from routelab.uniques import unique

LABELS = ("case", "variant")
"""Point keys that only label a point (not passed to the simulator)."""

CASE_KEYS = ("case", "n_workers")
"""Columns that identify one situation a setting is compared in."""


# ----------------------------------------------------------------------------- grid points


def case(label: str, stream: str, **stream_params: Any) -> dict[str, Any]:
    """A case of a grid: a labelled stream with its parameters (``stream_`` prefixed)."""
    return {"case": label, "stream": stream, **{f"stream_{k}": v for k, v in stream_params.items()}}


def variant(label: str, scheme: str, **params: Any) -> dict[str, Any]:
    """A variant of a grid: a labelled scheme with its parameters."""
    return {"variant": label, "scheme": scheme, **params}


def grid_points(
    cases: Sequence[Mapping[str, Any]],
    workers: Sequence[int],
    variants: Sequence[Mapping[str, Any]],
    **common: Any,
) -> list[dict[str, Any]]:
    """Every case x worker count x variant, with the common settings; case-major order, so
    consecutive points share a stream (each Python worker caches the last few)."""
    return [
        {**c, "n_workers": int(n), **v, **common} for c in cases for n in workers for v in variants
    ]


def worker_capacities(
    n_ids: int,
    service_time: float = DEFAULT_SERVICE_TIME,
    fast_fraction: float = 0.0,
    fast_speedup: float = 1.0,
) -> np.ndarray:
    """Tuples/s of each worker id: ``1 / service_time``, and ``fast_speedup`` times that for
    the first ``round(fast_fraction * n_ids)`` ids (FISH Sect. 6.4: "half of the workers'
    processing capability is twice the others")."""
    if not (service_time > 0 and math.isfinite(service_time)):
        raise ValueError(f"service_time must be a positive number, got {service_time!r}")
    if not 0.0 <= fast_fraction <= 1.0:
        raise ValueError(f"fast_fraction must lie in [0, 1], got {fast_fraction!r}")
    if not fast_speedup > 0:
        raise ValueError(f"fast_speedup must be > 0, got {fast_speedup!r}")
    caps = np.full(int(n_ids), 1.0 / service_time)
    caps[: int(round(fast_fraction * n_ids))] *= fast_speedup
    return caps


def worker_event(
    kind: str | None, n_workers: int, n_messages: int, seed: int = 0
) -> tuple[WorkerEvent, ...]:
    """FISH Sect. 6.5's dynamic scenario: half-way through the stream a new worker (id
    ``n_workers``) is added, or a seeded random worker is removed; ``None``: no event."""
    if kind is None:
        return ()
    at = n_messages // 2
    if kind == "add":
        return (WorkerEvent(at, "add", n_workers),)
    if kind == "remove":
        victim = int(np.random.default_rng([seed, 17]).integers(n_workers))
        return (WorkerEvent(at, "remove", victim),)
    raise ValueError(f"event must be 'add', 'remove' or None, got {kind!r}")


def owner_changes(
    keys: np.ndarray,
    before: Sequence[int],
    after: Sequence[int],
    *,
    placement: str = "ring",
    vnodes: int = 100,
    seed: int = 0,
) -> float:
    """Fraction of the distinct ``keys`` whose home worker (first candidate) differs between
    the live worker sets ``before`` and ``after`` -- FISH Sect. 5: about ``1/n`` on the
    consistent-hash ring, almost all under ``placement="mod"``."""
    from routelab.grouping.consistent_hash import build_ring, ring_lookup
    from routelab.hashing import mix64

    uniq = unique(np.asarray(keys, dtype=np.int64))
    if uniq.size == 0:
        return 0.0
    if placement == "ring":
        old = ring_lookup(build_ring(before, vnodes, seed), uniq)
        new = ring_lookup(build_ring(after, vnodes, seed), uniq)
    elif placement == "mod":
        point = mix64(uniq, seed)
        old = np.sort(np.asarray(before))[point % np.uint64(len(before))]
        new = np.sort(np.asarray(after))[point % np.uint64(len(after))]
    else:
        raise ValueError(f"placement must be 'ring' or 'mod', got {placement!r}")
    return float(np.mean(old != new))


def new_state_keys(keys: np.ndarray, assignment: np.ndarray, at: int) -> float:
    """Fraction of the keys seen both before and after message ``at`` that, afterwards, go to
    at least one worker that never held them before (new state to build; FISH Fig. 17)."""
    k = np.asarray(keys, dtype=np.int64)
    w = np.asarray(assignment, dtype=np.int64)
    before = pd.DataFrame({"key": k[:at], "worker": w[:at]}).drop_duplicates()
    after = pd.DataFrame({"key": k[at:], "worker": w[at:]}).drop_duplicates()
    both = np.intersect1d(before["key"].unique(), after["key"].unique())
    if both.size == 0:
        return 0.0
    after = after[after["key"].isin(both)]
    merged = after.merge(before, on=["key", "worker"], how="left", indicator=True)
    new_keys = merged.loc[merged["_merge"] == "left_only", "key"].unique()
    return float(new_keys.size / both.size)


def ideal_time(n_messages: int, capacities: np.ndarray, rate: float) -> float:
    """Fluid lower bound of the execution time: all work spread perfectly, never idle while
    work is waiting, and the last tuple needs at least one (fastest) service time."""
    if n_messages == 0:
        return 0.0
    work = n_messages / float(np.sum(capacities))
    if math.isinf(rate):
        return work
    return max(work, (n_messages - 1) / rate + 1.0 / float(np.max(capacities)))


def run_point(point: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One grid point -> one result row (the sweep task; see the module docstring).

    The row holds :meth:`~routelab.grouping.simulator.SimulationResult.summary`, the stream's
    ``data`` / ``stands_in_for`` tags, ``ideal_time`` and ``exec_x_ideal``, and with an
    ``event`` the fractions ``remapped_keys`` (:func:`owner_changes`, keys after the event)
    and ``new_state_keys`` (:func:`new_state_keys`) and ``post_event_imbalance``
    (:func:`relative_imbalance` of the messages after the event over the live workers).
    """
    from routelab.grouping.lab.tasks import cached_stream
    from routelab.grouping.simulator import simulate

    p = dict(point)
    for label in LABELS:
        p.pop(label, None)
    stream = p.pop("stream")
    stream_params = {k[len("stream_") :]: p.pop(k) for k in list(p) if k.startswith("stream_")}
    scheme = p.pop("scheme")
    n_workers = int(p.pop("n_workers"))
    n_sources = int(p.pop("n_sources", 1))
    seed = int(p.pop("seed", 0))
    service_time = float(p.pop("service_time", DEFAULT_SERVICE_TIME))
    utilization = p.pop("utilization", 1.0)
    fast_fraction = float(p.pop("fast_fraction", 0.0))
    fast_speedup = float(p.pop("fast_speedup", 1.0))
    event = p.pop("event", None)
    output_loads = bool(p.pop("output_loads", False))
    ks = cached_stream(stream, **stream_params)
    m = ks.keys.size
    events = worker_event(event, n_workers, m, seed)
    n_ids = n_workers + (1 if event == "add" else 0)
    caps = worker_capacities(n_ids, service_time, fast_fraction, fast_speedup)
    rate = math.inf if utilization is None else float(utilization) * caps[:n_workers].sum()
    result = simulate(
        ks.keys,
        scheme,
        n_workers,
        n_sources,
        seed,
        times=ks.times,
        capacities=caps,
        arrival_rate=rate,
        events=events,
        **p,
    )
    row = result.summary()
    ideal = ideal_time(m, caps[:n_workers], rate)
    row.update(
        data=ks.meta["data"],
        stands_in_for=ks.meta["stands_in_for"],
        arrival_rate=rate,
        ideal_time=ideal,
        exec_x_ideal=row["execution_time"] / ideal if ideal > 0 else float("nan"),
    )
    if output_loads:
        row["loads"] = result.loads.tolist()
    if events:
        ev = events[0]
        before = list(range(n_workers))
        after = before + [ev.worker] if ev.kind == "add" else [w for w in before if w != ev.worker]
        row["remapped_keys"] = owner_changes(
            ks.keys[ev.at :],
            before,
            after,
            placement=result.params.get("placement", "ring"),
            vnodes=result.params.get("vnodes", 100),
            seed=seed,
        )
        row["new_state_keys"] = new_state_keys(ks.keys, result.assignment, ev.at)
        row["post_event_imbalance"] = relative_imbalance(result.assignment[ev.at :], after)
    return [row]


def relative_imbalance(assignment: np.ndarray, workers: Sequence[int]) -> float:
    """``max / mean - 1`` of the messages each of ``workers`` received in ``assignment``
    (0 = perfectly even; FISH Fig. 17's load side after a worker change)."""
    w = np.asarray(assignment, dtype=np.int64)
    ids = np.asarray(workers, dtype=np.int64)
    if w.size == 0 or ids.size == 0:
        return 0.0
    loads = np.bincount(w, minlength=int(max(ids.max(), w.max())) + 1)[ids]
    return float(loads.max() / loads.mean() - 1.0)


def run_points(
    points: Sequence[Mapping[str, Any]],
    *,
    spark: Any = None,
    local: bool = False,
    desc: str = "FISH grid",
    progress: bool = True,
) -> pd.DataFrame:
    """Run grid points as Spark tasks (:func:`routelab.sweep.run_grid` with
    :func:`run_point`) and add ``exec_x_sg`` where the grid has SG rows."""
    from routelab.sweep import run_grid

    frame = run_grid(run_point, points, spark=spark, local=local, desc=desc, progress=progress)
    return add_ratios(frame)


def add_ratios(frame: pd.DataFrame, baseline: pd.DataFrame | None = None) -> pd.DataFrame:
    """``exec_x_sg``: execution time over SG's in the same case and worker count (SG rows of
    ``baseline``, default ``frame`` itself; NaN where there is none)."""
    base = frame if baseline is None else baseline
    out = frame.drop(columns=["exec_x_sg"], errors="ignore")
    if base.empty or "scheme" not in base or not (base["scheme"] == "sg").any():
        return out.assign(exec_x_sg=np.nan)
    sg = base[base["scheme"] == "sg"].groupby(list(CASE_KEYS))["execution_time"].first()
    ref = out.join(sg.rename("_sg"), on=list(CASE_KEYS))["_sg"]
    return out.assign(exec_x_sg=out["execution_time"] / ref)


def seed_spread(frame: pd.DataFrame, value: str = "exec_x_sg") -> pd.DataFrame:
    """Spread of ``value`` over run seeds per (case, workers, variant): mean, std, min,
    max, runs and the coefficient of variation (with independent choice seeds the
    runs of different seeds are independent draws)."""
    g = frame.groupby(["case", "n_workers", "variant"], sort=False)[value]
    out = g.agg(["mean", "std", "min", "max", "count"]).reset_index()
    out["cv"] = out["std"] / out["mean"]
    return out


# ----------------------------------------------------------------------------- RQ2 choice


#: knob of the study -> (the reading that, flipped for the run, fixes the knob's setting,
#: the alternative setting): under ``ROUTELAB_READING=<key>`` the notebook's runs that take
#: the study's choice take the alternative instead (:func:`choose_setting`)
STUDY_READINGS: dict[str, tuple[str, Any]] = {
    "decay": ("decay", 1.0),  # lifetime counting: no decay, alpha = 1
    "hot_threshold": ("hotkey", 0.2),  # D-C's theta = 1/(5n)
    "workers_formula": ("dk", "share"),  # d_k = ceil(n f_k)
}


@dataclass(frozen=True)
class StudyChoice:
    """The setting a parameter study chose and the table it chose from (:func:`choose_setting`)."""

    knob: str
    chosen: Any
    tolerance: float
    table: pd.DataFrame

    def describe(self) -> str:
        """One sentence for the notebook."""
        rows = self.table.loc[self.table["setting"] == self.chosen]
        if rows.empty:
            return f"{self.knob} = {self.chosen}: fixed by a flipped reading, not studied here"
        row = rows.iloc[0]
        return (
            f"{self.knob} = {self.chosen}: within {row['worst_slowdown']:.2%} of the best "
            f"execution time in every case (tolerance {self.tolerance:.1%}), mean memory "
            f"{row['mean_memory']:.3f}x FG"
        )


def choose_setting(
    frame: pd.DataFrame,
    knob: str,
    *,
    tolerance: float = 0.005,
    value: str = "exec_x_sg",
    memory: str = "memory_normalized",
) -> StudyChoice:
    """Pick a FISH setting the way FISH Sect. 6.3 (RQ2) does, made operational.

    The paper keeps the setting with "the best effect on load balance and memory overhead",
    and for the threshold one whose execution time "is similar to" the best while its memory
    is "almost no different" from the leanest. Here: in every case (``case`` x
    ``n_workers``) find the best (lowest) ``value`` over the settings of ``knob``; a setting
    is *balanced* when its ``value`` stays within ``tolerance`` of that best in every case;
    among balanced settings the one with the least mean ``memory`` wins (ties: the first in
    sorted order). If none is balanced, the one with the smallest worst slowdown wins.
    Under a reading of :data:`STUDY_READINGS` flipped for the run (``ROUTELAB_READING``,
    :mod:`routelab.readings`) the knob's alternative is chosen instead, whatever the study
    found (the table still holds the study; ``chosen`` marks the alternative's row).

    Returns a :class:`StudyChoice` whose table has, per setting: ``worst_slowdown`` (max over
    cases of ``value / best - 1``), ``mean_value``, ``mean_memory``, ``balanced``, ``chosen``.
    """
    if frame.empty or knob not in frame:
        raise ValueError(f"no rows with the study parameter {knob!r}")
    data = frame[frame[knob].notna()]
    best = data.groupby(list(CASE_KEYS))[value].transform("min")
    data = data.assign(_slow=data[value] / best - 1.0)
    table = (
        data.groupby(knob)
        .agg(
            worst_slowdown=("_slow", "max"),
            mean_value=(value, "mean"),
            mean_memory=(memory, "mean"),
        )
        .reset_index()
        .rename(columns={knob: "setting"})
        .sort_values("setting", kind="stable")
        .reset_index(drop=True)
    )
    table["balanced"] = table["worst_slowdown"] <= tolerance
    pool = table[table["balanced"]]
    if pool.empty:
        pick = table.loc[table["worst_slowdown"].idxmin(), "setting"]
    else:
        pick = pool.loc[pool["mean_memory"].idxmin(), "setting"]
    pick = pick.item() if hasattr(pick, "item") else pick
    if knob in STUDY_READINGS and is_flipped(STUDY_READINGS[knob][0]):
        pick = STUDY_READINGS[knob][1]
    table["chosen"] = table["setting"] == pick
    return StudyChoice(knob, pick, float(tolerance), table)


# ----------------------------------------------------------------------------- summaries


def at_most_workers(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows with the largest worker count of the frame."""
    return frame[frame["n_workers"] == frame["n_workers"].max()]


def ratio_table(
    frame: pd.DataFrame, value: str, numerator: str, denominator: str, by: str = "variant"
) -> pd.Series:
    """``value`` of variant ``numerator`` over variant ``denominator`` per case and worker
    count (a Series indexed by ``(case, n_workers)``)."""
    wide = frame.pivot_table(index=list(CASE_KEYS), columns=by, values=value, aggfunc="first")
    return (wide[numerator] / wide[denominator]).dropna()


def geo_mean(values: Sequence[float] | pd.Series | np.ndarray) -> float:
    """Geometric mean of positive numbers (NaN when empty)."""
    arr = np.asarray(values, dtype=np.float64)
    arr = arr[np.isfinite(arr)]
    return float(np.exp(np.log(arr).mean())) if arr.size else float("nan")


# ----------------------------------------------------------------------------- notebook sets


def real_cases(*, limit: int | None = None, flights_limit: int | None = None) -> list[dict]:
    """The real stand-ins of FISH Figs. 9 and 18-19: MovieLens movie ids for AM, tweet words
    for MT, and US flight origins (a real stream with drifting skew); ``limit`` keeps the
    first messages of the first two, ``flights_limit`` of the flights."""
    return [
        case("MovieLens movies (AM)", "movielens_movies", limit=limit),
        case("tweet words (MT)", "tweet_words", limit=limit),
        case("flight origins", "flights_origins", limit=flights_limit),
    ]


def zipf_cases(skews: Sequence[float], *, n_messages: int, n_keys: int) -> list[dict]:
    """FISH's time-evolving Zipf ZF (Sect. 6.1) at each skew: the hot keys change after 80%
    of the stream."""
    return [
        case(f"ZF z={z:g}", "time_evolving_zipf", n_messages=n_messages, n_keys=n_keys, z=z)
        for z in skews
    ]


def compared_variants(**fish_params: Any) -> list[dict]:
    """The schemes FISH Sect. 6.2 compares: SG, FG (key grouping), PKG, D-C, W-C, FISH."""
    return [
        variant("SG", "sg"),
        variant("FG", "kg"),
        variant("PKG", "pkg_local"),
        variant("D-C", "dchoices"),
        variant("W-C", "wchoices"),
        variant("FISH", "fish", **fish_params),
    ]


# ----------------------------------------------------------------------------- worked example

#: The worked example's stream, one source, epochs of 20 tuples: how often the hot key A and
#: its rival B occur in each epoch; the rest of an epoch are keys seen once.
WORKED_A = (8, 8, 2, 0, 0, 0, 6)
WORKED_B = (4, 4, 6, 6, 6, 6, 4)


def hot_key_epochs(
    a_counts: Sequence[int] = WORKED_A,
    b_counts: Sequence[int] = WORKED_B,
    *,
    epoch_size: int = 20,
    n_workers: int = 8,
    decay: float = 0.6,
    hot_threshold: float = 0.5,
) -> pd.DataFrame:
    """How many workers the hot key A gets after each epoch (FISH Sects. 4.1.1-4.1.2).

    One source counts each epoch of ``epoch_size`` tuples (A ``a_counts[e]`` times, B
    ``b_counts[e]`` times, the rest keys seen once) with the library's
    :class:`~routelab.grouping.fish_reference.EpochTopK`, classifies with
    :func:`~routelab.grouping.fish_reference.classify_hot_keys` at the epoch's end (the table
    routes the next epoch), then decays every counter by ``decay``. A row per epoch: A's
    decayed count ``c_A = decay * c_A(previous) + count``, the decayed total ``N``, the share
    ``f_A = c_A / N``, whether ``f_A > theta = hot_threshold / n``, the CHK formula
    ``ceil(n f_A / f_max)``, ``d_min`` and the workers A gets (a non-hot key: its two
    choices).
    """
    from routelab.grouping.fish_params import FishParams, hot_key_workers, hot_min_workers
    from routelab.grouping.fish_reference import EpochTopK, classify_hot_keys

    if len(a_counts) != len(b_counts):
        raise ValueError("a_counts and b_counts need one count per epoch each")
    params = FishParams(epoch_size=epoch_size, decay=decay, hot_threshold=hot_threshold)
    theta = params.theta(n_workers)
    counter = EpochTopK(params.capacity)
    table: dict[int, int] = {}
    cold = 100  # keys 100, 101, ... are seen once each
    rows = []
    for e, (a, b) in enumerate(zip(a_counts, b_counts, strict=True), start=1):
        if a + b > epoch_size:
            raise ValueError(f"epoch {e}: {a} + {b} tuples of A and B exceed {epoch_size}")
        for key in [0] * a + [1] * b + list(range(cold, cold + epoch_size - a - b)):
            counter.offer(key)
        cold += epoch_size - a - b
        freqs = counter.frequencies()
        previous = table
        table = classify_hot_keys(freqs, n_workers, params, previous)
        f_a = freqs.get(0, 0.0)
        hot = [f for f in freqs.values() if f > theta]
        f_max = max(hot) if hot else float("nan")
        d_min = hot_min_workers(sum(hot), len(hot), n_workers, params.min_workers)
        formula = hot_key_workers(f_a, f_max, n_workers, True)
        if 0 not in table:
            why = f"not hot: its {params.cold_choices} choices"
            formula = d_min = None
        elif table[0] == previous.get(0, 0) and previous[0] > max(formula, d_min):
            why = "kept M_A: never shrinks while hot"
        else:
            why = "ceil(n f_A / f_max)" if formula >= d_min else "d_min"
        rows.append(
            {
                "epoch": e,
                "A in epoch": a,
                "B in epoch": b,
                "c_A (decayed)": counter.count.get(0, 0.0),
                "N (decayed)": counter.total,
                "f_A = c_A / N": f_a,
                "hot (f_A > theta)": 0 in table,
                "f_max": f_max,
                "ceil(n f_A / f_max)": formula,
                "d_min": d_min,
                "workers for A next epoch": table.get(0, params.cold_choices),
                "why": why,
            }
        )
        counter.decay(params.effective_decay)
    out = pd.DataFrame(rows)
    return out.astype({"ceil(n f_A / f_max)": "Int64", "d_min": "Int64"})
