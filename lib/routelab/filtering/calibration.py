"""The cost model's unit costs measured on this machine (Sect. 3.1's K_c, C_h, K_h).

The paper's constants came from its 500 MHz machine, where checking a subscription cost
about 20 ns and a memory access about as much. Here a check in a long cluster costs about
2 ns (a sequential, prefetched scan) while a table probe costs a hash, a slot, the key's
values, the access predicate's cluster list and the visited cluster's first cache lines:
mostly dependent cache misses, some hundreds of ns once the arena is larger than the
caches. The model's relative prices (a probe in checks) therefore differ by two orders of
magnitude between the machines, and the static greedy and the dynamic thresholds must use
this machine's.

:func:`measure_constants` times the clustered matcher on W0 (seeded) in configurations that
differ in checks (propagation at two sizes, one table on the fixed pair) and in probes
(10 or 30 three-attribute tables, each probed by every event), and fits ns per event = fixed +
K_c checks + (C_h + K_h |X|) probes by least squares. ``K_r`` (a table's fixed cost per
event) is folded into the probe: every table of W0 is probed by every event.
"""

from __future__ import annotations

import numpy as np

from routelab.filtering.cluster_matcher import ClusterMatcher
from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.workload import W0, generate_events, generate_subscriptions
from routelab.timing import now as clock


def _time_per_event(m: ClusterMatcher, events: object, repeats: int) -> float:
    m.match(events)  # warm-up
    best = np.inf
    for _ in range(repeats):
        t0 = clock()
        m.match(events)
        best = min(best, clock() - t0)
    return best / len(events) * 1e9  # type: ignore[arg-type]


def measure_constants(
    n: int = 400_000, *, events: int = 1000, repeats: int = 3, seed: int = 0
) -> tuple[CostConstants, dict[str, float]]:
    """This machine's K_c and C_h (ns) from a least-squares fit (module docstring);
    returns the constants and the fit (each configuration's ns per event, R^2)."""
    stats = EventStats.uniform([35] * 32)
    ev = generate_events(W0, events, seed=seed + 1)
    subs = generate_subscriptions(W0, n, seed=seed)
    rows, ns = [], []
    configs = [
        (n // 4, []),
        (n, []),
        (n, [(0, 1)]),
        (n, [(0, 1, a) for a in range(2, 12)]),
        (n, [(0, 1, a) for a in range(2, 32)]),
    ]
    for size, schemas in configs:
        part = subs.take(np.arange(size)) if size < n else subs
        m = ClusterMatcher(part, stats=stats, schemas=schemas, prefetch=True)
        t = _time_per_event(m, ev, repeats)
        rows.append([1.0, float(m.last_checks.mean()), float(m.last_lookups.mean())])
        ns.append(t)
    design, y = np.array(rows), np.array(ns)
    (fixed, k_c, probe), *_ = np.linalg.lstsq(design, y, rcond=None)
    pred = design @ np.array([fixed, k_c, probe])
    r2 = 1 - float(((y - pred) ** 2).sum()) / max(float(((y - y.mean()) ** 2).sum()), 1e-12)
    k_h = CostConstants().K_h
    consts = CostConstants(K_c=float(max(k_c, 1e-3)), C_h=float(max(probe - 3 * k_h, 1.0)))
    fit = {"fixed_ns": float(fixed), "K_c_ns": float(k_c), "probe_ns": float(probe), "r2": r2}
    fit.update({f"config{k}_ns": float(v) for k, v in enumerate(ns)})
    return consts, fit
