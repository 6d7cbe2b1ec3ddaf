"""``routelab bench filtering``: W0, 100 events against 1M and 6M subscriptions, one core.

Per algorithm: in-process kernel time per 100 events (best of 3 after a warm-up batch),
beside counting and the brute-force oracle measured in the same run (the baselines), build
time, and the process's peak RSS after building (``ru_maxrss``, so the algorithms are built
in order of increasing memory and each value is the peak so far: an upper bound).
Targets (issue 9, this machine): static <= 5 ms, propagation <= 30 ms, counting <= 500 ms
per 100 events at 6M; building 6M subscriptions <= 30 s; peak RSS <= 1.5 GB for
propagation at 6M.
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
BUILD_GOAL_S = 30.0
RSS_GOAL_MB = 1536.0


def _best_ms(matcher: Any, batches: list) -> float:
    matcher.match(batches[0])
    best = float("inf")
    for events in batches[1:]:
        t0 = time.perf_counter()
        matcher.match(events)
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_rows(quick: bool = False) -> list[dict[str, Any]]:
    sizes = [20_000] if quick else [1_000_000, 6_000_000]
    rows: list[dict[str, Any]] = []
    for n in sizes:
        t0 = time.perf_counter()
        subs = generate_subscriptions(W0, n, seed=0)
        gen_s = time.perf_counter() - t0
        stats = EventStats.from_events(generate_events(W0, 2000, seed=99))
        batches = [generate_events(W0, 100, seed=b) for b in range(4)]
        t0 = time.perf_counter()
        oracle_match(subs, batches[1])
        oracle_ms = 1e3 * (time.perf_counter() - t0)
        base = None
        for name in ("counting", "propagation", "propagation_wp", "static"):
            t0 = time.perf_counter()
            m = build_matcher(name, subs, stats=stats)
            build_s = time.perf_counter() - t0
            ms = _best_ms(m, batches)
            base = ms if name == "counting" else base
            goal = GOALS_MS_6M.get(name) if n >= 6_000_000 else None
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
            rows.append(
                {
                    "what": f"after building {name}, N={n:,}: peak RSS",
                    "value": _rss_mb(),
                    "unit": "MB",
                    "goal": RSS_GOAL_MB if name == "propagation" and n >= 6_000_000 else None,
                    "meets_goal": None
                    if not (name == "propagation" and n >= 6_000_000)
                    else _rss_mb() <= RSS_GOAL_MB,
                }
            )
            del m
        rows.append(
            {
                "what": f"oracle (brute force), N={n:,}: ms per event",
                "value": oracle_ms,
                "unit": "ms",
                "baseline": base,
                "ratio": None,
            }
        )
    return rows
