"""``routelab bench filtering``: W0, 100 events against 1M and 6M subscriptions, one core.

Per algorithm, each in a fresh process: in-process kernel time per 100 events (best of 3
after a warm-up batch), beside counting and the brute-force oracle measured in the same run
(the baselines), build time, and the resident memory of the process once it holds the index
(the paper's measure: the pub/sub process's resident memory; the generator's temporary
arrays are freed first, as the paper's generator ran in another process).
Targets (ours, on this machine): static <= 5 ms, propagation <= 30 ms, counting <= 500 ms
per 100 events at 6M; dynamic within 1.5x of static and faster than propagation_wp (both
measured in the same run); building 6M subscriptions <= 30 s; peak RSS <= 1.5 GB for
propagation at 6M. Dynamic's cost per subscription change (a delete or an insert, its
maintenance included) is shown beside its cost per event.

Range-only subscriptions (:data:`~routelab.filtering.workload.RANGES`, beyond the paper)
at 100k and 1M: ``bitset`` and propagation with its bitset catch-all stage against
propagation with the paper's one-by-one catch-all scan (the baseline, same run) and
counting (100k); the goal is HEM's per-event time or less (:data:`HEM_MS`, measured once
by a maintainer with HEM's published code on the same events on one machine; not re-run
here: its code is not ours to vendor). An absolute time from one machine does not travel:
the sound comparison is HEM's ratio to our kernel of that day on that machine (HEM5DD
0.88x and 0.66x of commit c235ef3's bitset at 100k and 1M) against ``routelab bench compare
--ref c235ef3``'s ratio of the bitset rows.
"""

from __future__ import annotations

import resource
import time
from typing import Any

from routelab.filtering.costmodel import EventStats
from routelab.filtering.matchers import build_matcher
from routelab.filtering.oracle import oracle_match
from routelab.filtering.workload import W0, generate_events, generate_subscriptions

GOALS_MS_6M = {"static": 5.0, "propagation": 30.0, "propagation_wp": 30.0, "counting": 500.0}
#: the goal: dynamic at 6M within 1.5x of static (and faster than propagation_wp), same run
DYNAMIC_VS_STATIC = 1.5
BUILD_GOAL_S = 30.0
RSS_GOAL_MB = 1536.0
#: HEM (Liao et al., DASFAA 2022) on this machine, ms per event on the range workload
HEM_MS = {100_000: 0.095, 1_000_000: 0.70}
HEM_FACTOR = 1.0
#: prefetching "measurably faster": propagation / propagation_wp at 6M, same run
PREFETCH_GOAL = 1.05


def _best_ms(matcher: Any, batches: list) -> float:
    matcher.match(batches[0])
    best = float("inf")
    for events in batches[1:]:
        t0 = time.perf_counter()
        matcher.match(events)
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best


def _rss_mb() -> float:
    """Current resident set size of this process."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def measure(name: str, n: int) -> dict[str, float]:
    """Generate W0, build ``name`` (or run the oracle on one event), time 100-event batches."""
    import gc

    t0 = time.perf_counter()
    subs = generate_subscriptions(W0, n, seed=0)
    gen_s = time.perf_counter() - t0
    batches = [generate_events(W0, 100, seed=b) for b in range(4)]
    gc.collect()
    if name == "oracle":
        t0 = time.perf_counter()
        oracle_match(subs, batches[1])
        return {"ms": 1e3 * (time.perf_counter() - t0), "gen_s": gen_s}
    stats = EventStats.from_events(generate_events(W0, 2000, seed=99))
    t0 = time.perf_counter()
    m = build_matcher(name, subs, stats=stats)
    build_s = time.perf_counter() - t0
    del subs
    gc.collect()
    return {"ms": _best_ms(m, batches), "build_s": build_s, "gen_s": gen_s, "rss_mb": _rss_mb()}


def measure_churn(n: int, changes: int = 2_000, rounds: int = 5) -> dict[str, float]:
    """Dynamic at saturation on W0: ``rounds`` times delete the ``changes`` oldest and insert
    ``changes`` new subscriptions (maintenance included), then match 100 events; the
    microseconds per change and per event."""
    from dataclasses import replace

    import numpy as np

    subs = generate_subscriptions(W0, n, seed=0)
    fresh = generate_subscriptions(W0, changes * rounds, seed=1)
    stats = EventStats.from_events(generate_events(W0, 2000, seed=99))
    m = build_matcher("dynamic", subs, stats=stats)
    batches = [generate_events(W0, 100, seed=b) for b in range(rounds + 1)]
    m.match(batches[0])
    per_change, per_event = [], []
    for r in range(rounds):
        new = fresh.take(np.arange(r * changes, (r + 1) * changes))
        new = replace(new, ids=np.arange(n + r * changes, n + (r + 1) * changes))
        t0 = time.perf_counter()
        m.delete_many(list(range(r * changes, (r + 1) * changes)))
        m.insert_subscriptions(new)
        m.prepare()
        per_change.append((time.perf_counter() - t0) / (2 * changes))
        t0 = time.perf_counter()
        m.match(batches[r + 1])
        per_event.append((time.perf_counter() - t0) / 100)
    return {"us_per_change": 1e6 * float(np.median(per_change)),
            "us_per_event": 1e6 * float(np.median(per_event))}  # fmt: skip


def measure_ranges(name: str, n: int) -> dict[str, float]:
    """The range workload: build ``name`` (``"propagation:scan"``: with the paper's
    catch-all scan) on ``n`` subscriptions, best ms per event over 100-event batches."""
    from routelab.filtering.workload import RANGES, range_events, range_subscriptions

    subs = range_subscriptions(RANGES, n, seed=0)
    batches = [range_events(RANGES, 100, seed=b) for b in range(4)]
    base, _, stage = name.partition(":")
    stats = EventStats.from_events(range_events(RANGES, 2000, seed=99))
    t0 = time.perf_counter()
    m = build_matcher(base, subs, stats=stats, **({"catch_all": stage} if stage else {}))
    build_s = time.perf_counter() - t0
    ms = _best_ms(m, batches) / 100
    ptr, _ = m.match(batches[1])
    return {"ms": ms, "build_s": build_s, "matches": int(ptr[-1]), "rss_mb": _rss_mb()}


def range_rows(quick: bool = False) -> list[dict[str, Any]]:
    """The range workload's rows (module docstring)."""

    def run(name: str, n: int) -> dict[str, float]:
        if quick:
            return measure_ranges(name, n)
        return _measure_in_fresh_process(f"ranges:{name}", n)

    rows: list[dict[str, Any]] = []
    for n in [5_000] if quick else [100_000, 1_000_000]:
        scan = run("propagation:scan", n)
        names = ["bitset", "propagation", *(["counting"] if n <= 100_000 else [])]
        for name in names:
            r = run(name, n)
            goal = (
                HEM_FACTOR * HEM_MS[n]
                if n in HEM_MS and name in ("bitset", "propagation")
                else None
            )
            rows.append(
                {
                    "what": f"{name}, range-only subscriptions, N={n:,}: ms per event "
                    f"({r['matches']} matches per 100 events; baseline: the catch-all scan)",
                    "value": r["ms"],
                    "unit": "ms",
                    "baseline": scan["ms"],
                    "ratio": scan["ms"] / r["ms"],
                    "goal": goal,
                    "meets_goal": None if goal is None else r["ms"] <= goal,
                    "note": f"build {r['build_s']:.1f} s, resident {r['rss_mb']:.0f} MB"
                    + (f"; HEM {HEM_MS[n]} ms here" if n in HEM_MS else ""),
                }
            )
    return rows


def _measure_in_fresh_process(name: str, n: int) -> dict[str, float]:
    import json
    import subprocess
    import sys

    if name == "churn":
        call = f"measure_churn({n})"
    elif name.startswith("ranges:"):
        call = f"measure_ranges({name.removeprefix('ranges:')!r}, {n})"
    else:
        call = f"measure({name!r}, {n})"
    code = (
        "import json; from routelab.filtering.lab.bench import measure, measure_churn, "
        f"measure_ranges; print(json.dumps({call}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=1800
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_rows(quick: bool = False) -> list[dict[str, Any]]:
    sizes = [20_000] if quick else [1_000_000, 6_000_000]
    run = measure if quick else _measure_in_fresh_process
    rows: list[dict[str, Any]] = []
    for n in sizes:
        oracle = run("oracle", n)
        oracle_ms, gen_s = oracle["ms"], oracle["gen_s"]
        base = None
        measured: dict[str, float] = {}
        for name in ("counting", "propagation", "propagation_wp", "static", "dynamic"):
            r = run(name, n)
            ms, build_s, rss = r["ms"], r["build_s"], r["rss_mb"]
            measured[name] = ms
            base = ms if name == "counting" else base
            goal = GOALS_MS_6M.get(name) if n >= 6_000_000 else None
            if name == "dynamic" and n >= 6_000_000:
                # within 1.5x of static and below propagation_wp, both measured in this run
                goal = min(DYNAMIC_VS_STATIC * measured["static"], measured["propagation_wp"])
            rows.append(
                {
                    "what": f"{name}, W0, N={n:,}: ms per 100 events",
                    "value": ms,
                    "unit": "ms",
                    "baseline": base,
                    "ratio": base / ms,
                    "goal": goal,
                    "meets_goal": None if goal is None else ms <= goal,
                }
            )
            rows.append(
                {
                    "what": f"{name}, N={n:,}: build (+ {gen_s:.1f} s generation)",
                    "value": build_s,
                    "unit": "s",
                    "goal": BUILD_GOAL_S if n >= 6_000_000 else None,
                    "meets_goal": None if n < 6_000_000 else gen_s + build_s <= BUILD_GOAL_S,
                }
            )
            big_prop = name == "propagation" and n >= 6_000_000
            rows.append(
                {
                    "what": f"process holding {name}, N={n:,}: resident memory",
                    "value": rss,
                    "unit": "MB",
                    "goal": RSS_GOAL_MB if big_prop else None,
                    "meets_goal": rss <= RSS_GOAL_MB if big_prop else None,
                }
            )
        rows.append(
            {
                "what": f"prefetching, W0, N={n:,}: propagation / propagation_wp time",
                "value": measured["propagation"] / measured["propagation_wp"],
                "unit": "x",
                "goal": PREFETCH_GOAL if n >= 6_000_000 else None,
                "meets_goal": None
                if n < 6_000_000
                else measured["propagation"] / measured["propagation_wp"] >= PREFETCH_GOAL,
            }
        )
        churn = measure_churn(n) if quick else _measure_in_fresh_process("churn", n)
        rows.append(
            {
                "what": f"dynamic, W0 at N={n:,}: us per subscription change (maintenance "
                "included) beside us per event",
                "value": churn["us_per_change"],
                "unit": "us",
                "baseline": churn["us_per_event"],
                "ratio": churn["us_per_change"] / churn["us_per_event"],
            }
        )
        rows.append(
            {
                "what": f"oracle (brute force), N={n:,}: ms per event",
                "value": oracle_ms,
                "unit": "ms",
                "baseline": base,
                "ratio": None,
            }
        )
    return rows + range_rows(quick)
