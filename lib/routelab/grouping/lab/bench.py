"""Routing speed of every scheme: messages/s of the numba kernel and of the readable reference.

Our goals on one core: at least 20M messages/s for KG, SG and PKG, at least 5M for
D-C, W-C and FISH. :func:`bench_schemes` times each kernel (after a warm-up call that
compiles it) on a Zipf stream and each reference on a shorter prefix of the same stream,
and reports the ratio. Numbers depend on the machine and on its load; the lead wires this
into ``make bench``::

    python -c "from routelab.grouping.lab.bench import bench_schemes; print(bench_schemes())"
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

GOALS: dict[str, float] = {
    "kg": 20e6,
    "sg": 20e6,
    "pkg_global": 20e6,
    "pkg_local": 20e6,
    "pkg_probe": 20e6,
    "dchoices": 5e6,
    "wchoices": 5e6,
    "fish": 5e6,
}
"""Messages/s goals (schemes not listed have none)."""


def _best_seconds(run: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def bench_schemes(
    n_messages: int = 2_000_000,
    n_workers: int = 50,
    seed: int = 0,
    *,
    n_sources: int = 5,
    n_reference: int = 20_000,
    n_keys: int = 100_000,
    z: float = 1.1,
    repeats: int = 3,
    schemes: Sequence[str] | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Messages/s of each scheme's kernel and reference, and their ratio.

    Args:
        n_messages: stream length for the kernels.
        n_workers: workers.
        seed: seed of the stream and of the routing.
        n_sources: sources (round robin).
        n_reference: prefix length for the (slow) references.
        n_keys, z: the Zipf stream (``routelab.datasets.synthetic.keys_numpy``).
        repeats: timed runs per kernel (best kept; the reference runs once).
        schemes: names to bench (default all of :data:`~.schemes.SCHEMES`).
        progress: progress bar over schemes.

    Returns:
        One row per scheme: ``scheme``, ``label``, ``kernel_msgs_per_s``,
        ``reference_msgs_per_s``, ``speedup``, ``goal_msgs_per_s``, ``meets_goal``,
        ``n_messages``, ``n_workers``, ``n_sources``.
    """
    from routelab.datasets.synthetic import keys_numpy
    from routelab.grouping.inputs import round_robin_sources
    from routelab.grouping.schemes import SCHEMES, get_scheme
    from routelab.progress import tqdm

    names = list(schemes) if schemes is not None else list(SCHEMES)
    keys = keys_numpy("zipf", n_messages, seed=seed, n_keys=n_keys, z=z)
    sources = round_robin_sources(n_messages, n_sources)
    times = np.arange(n_messages, dtype=np.float64) / 1000.0
    m = min(n_reference, n_messages)
    rows = []
    for name in tqdm(names, desc="bench", disable=not progress, leave=False):
        spec = get_scheme(name)

        def kernel(spec=spec, n=n_messages):
            return spec.kernel(keys[:n], sources[:n], n_workers, seed=seed, times=times[:n])

        def reference(spec=spec):
            return spec.reference(keys[:m], sources[:m], n_workers, seed=seed, times=times[:m])

        spec.kernel(keys[:1000], sources[:1000], n_workers, seed=seed, times=times[:1000])
        kernel_rate = n_messages / _best_seconds(kernel, repeats)
        reference_rate = m / _best_seconds(reference, 1)
        goal = GOALS.get(name)
        rows.append(
            {
                "scheme": name,
                "label": spec.label,
                "kernel_msgs_per_s": kernel_rate,
                "reference_msgs_per_s": reference_rate,
                "speedup": kernel_rate / reference_rate,
                "goal_msgs_per_s": goal,
                "meets_goal": None if goal is None else bool(kernel_rate >= goal),
                "n_messages": n_messages,
                "n_workers": n_workers,
                "n_sources": n_sources,
            }
        )
    return pd.DataFrame(rows)


def bench_rows(
    quick: bool = False,
    *,
    n_messages: int | None = None,
    n_reference: int | None = None,
    schemes: Sequence[str] | None = None,
) -> list[dict[str, object]]:
    """Rows for :mod:`routelab.benchmarks` (``make bench``): each scheme's kernel in
    messages/s beside its readable reference measured in the same run.

    ``value`` is the kernel's rate, ``baseline`` the reference's, ``ratio`` their quotient,
    ``goal`` our goal (:data:`GOALS`; ``None`` where there is none) and
    ``meets_goal`` whether the kernel reaches it. ``quick`` uses a 200k-message stream and
    a 5k-message reference prefix (default 2M and 20k); ``n_messages`` / ``n_reference``
    override both.
    """
    n = n_messages or (200_000 if quick else 2_000_000)
    m = n_reference or (5_000 if quick else 20_000)
    table = bench_schemes(
        n_messages=n, n_reference=m, repeats=1 if quick else 3, schemes=schemes, progress=False
    )
    return [
        {
            "what": (
                f"{r.label} kernel ({r.n_messages:,} Zipf msgs, W={r.n_workers}, "
                f"S={r.n_sources}) vs reference"
            ),
            "value": r.kernel_msgs_per_s,
            "unit": "msg/s",
            "baseline": r.reference_msgs_per_s,
            "ratio": r.speedup,
            "goal": None if pd.isna(r.goal_msgs_per_s) else float(r.goal_msgs_per_s),
            "meets_goal": r.meets_goal,
        }
        for r in table.itertuples(index=False)
    ]
