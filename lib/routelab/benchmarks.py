"""``make bench``: speed figures, each beside a baseline measured in the same run.

Each benchmark is a function returning a list of row dicts with at least ``bench``,
``what``, ``value``, ``unit`` and, where a baseline exists, ``baseline``, ``ratio`` and
``goal``. Goals are printed, never asserted: speed lives here, not in the tests.

Every row also says which way is better for its ``value``: ``better`` is ``"higher"``
(rates: a unit ending ``/s``; speed-ups: ``x``) or ``"lower"`` (times, memory), given by the
bench itself or else read from its unit (:func:`direction`). ``routelab bench compare``
(:mod:`routelab.benchcompare`) uses it to tell a slowdown from a speed-up across commits.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

# name -> (module, function, description); imported lazily so one missing optional
# dependency does not stop the others.
BENCHMARKS: dict[str, tuple[str, str, str]] = {
    "preprocess": (
        "routelab.corpus.lab.bench",
        "bench_rows",
        "Spark preprocessing throughput, bundled corpus and 1M synthetic posts "
        "(goal >= 1.5x one plain Python process on the same texts, and >= 20,000 posts/s, "
        "on 2 cores)",
    ),
    "salb": (
        "routelab.s3tm.lab.routing.bench",
        "bench_rows",
        "SALB kernel on 1M synthetic posts, N=256 (goal <= 10 s) vs gFCL (METIS) and the "
        "reference SALB on a subset",
    ),
    "matching": (
        "routelab.s3tm.lab.matching.bench",
        "bench_rows",
        "trie matching at 100k subscriptions and LASP placement vs the brute-force oracle",
    ),
    "filtering": (
        "routelab.filtering.lab.bench",
        "bench_rows",
        "Fabret et al. on W0, 100 events vs 1M and 6M subscriptions, one core: counting, "
        "propagation(_wp), static, dynamic beside counting and the oracle (goals at 6M: static "
        "<= 5 ms, propagation <= 30 ms, counting <= 500 ms, dynamic within 1.5x of static and "
        "below propagation_wp; prefetching >= 1.05x; build <= 30 s; RSS <= 1.5 GB); "
        "dynamic's cost per subscription change beside its cost per event; range-only "
        "subscriptions at 100k and 1M: bitset and propagation's bitset stage vs the paper's "
        "catch-all scan (goal: HEM's time or less)",
    ),
    "spatial": (
        "routelab.spatial.lab.bench",
        "bench_rows",
        "PS2Stream: GI2 kernel with 1M live Q1 queries (batches of 2,000 objects; one call "
        "beside) and the gridt dispatcher (objects/s, one core) vs a shapely STRtree + keyword matcher (goals: worker >= 100k, dispatcher "
        ">= 500k tuples/s, each >= 20x STRtree); hybrid build on 400k objects; selection time "
        "of DP/GR/SI/RA vs cells (RA the baseline) and migration throughput (cells/s, MB/s)",
    ),
    "grouping": (
        "routelab.grouping.lab.bench",
        "bench_rows",
        "messages/s of each grouping scheme's kernel vs its reference (goals: 20M KG/SG/PKG, "
        "5M D-C/W-C/FISH, one core)",
    ),
}


#: units whose smaller values are better (times and memory)
LOWER_IS_BETTER_UNITS = frozenset({"ns", "us", "ms", "s", "min", "h", "B", "KB", "MB", "GB"})


def direction(unit: str | None) -> str | None:
    """``"higher"`` or ``"lower"``: which way a figure in ``unit`` is better; ``None`` when
    the unit does not say (such a figure is compared but never flagged)."""
    unit = (unit or "").strip()
    if unit.endswith("/s") or unit == "x":
        return "higher"
    if unit in LOWER_IS_BETTER_UNITS:
        return "lower"
    return None


def run_benchmarks(names: list[str] | None = None, quick: bool = False) -> list[dict[str, Any]]:
    """Run the selected benchmarks (all by default) and return their rows."""
    rows: list[dict[str, Any]] = []
    for name in names or list(BENCHMARKS):
        if name not in BENCHMARKS:
            raise ValueError(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
        module, func, _ = BENCHMARKS[name]
        bench: Callable[..., list[dict[str, Any]]] = getattr(importlib.import_module(module), func)
        for row in bench(quick=quick):
            row = {"bench": name, **row}
            row.setdefault("better", direction(row.get("unit")))
            rows.append(row)
    return rows


def format_rows(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of benchmark rows."""
    import pandas as pd

    if not rows:
        return "(no rows)"
    frame = pd.DataFrame(rows)
    cols = [
        c
        for c in (
            "bench",
            "what",
            "value",
            "unit",
            "better",
            "baseline",
            "ratio",
            "goal",
            "meets_goal",
            "note",
        )
        if c in frame.columns
    ]
    return frame[cols].to_string(index=False, float_format=lambda v: f"{v:,.2f}")
