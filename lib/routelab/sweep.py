"""Parameter sweeps as Spark tasks (Spark as the execution layer: a grid is Spark tasks).

A grid of parameter dicts becomes one Spark task per point; each task calls a
module-level function ``task(params) -> list[dict]`` and the result rows (each tagged with
its parameters) come back as a pandas DataFrame. Locally this spreads the grid over the
cores of ``local[*]``; on a cluster set ``ROUTELAB_SPARK_MASTER`` and nothing else changes.

Large read-only inputs (a corpus, a key stream) should be passed through
:func:`broadcast` and looked up in the task with ``value()`` rather than put in every
parameter dict.
"""

from __future__ import annotations

import itertools
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from routelab.errors import RoutelabError

Task = Callable[[dict[str, Any]], list[dict[str, Any]]]


class SweepError(RoutelabError):
    """A grid point failed; the message names the point and the task's error."""


def grid(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """Cartesian product of named axes: ``grid(method=["a","b"], n=[2,4])`` -> 4 dicts."""
    names = list(axes)
    values = [list(v) for v in axes.values()]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def _returnable(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters as sent back to the driver: a Broadcast handle cannot be pickled on an
    executor, so it comes back as a placeholder (the rows never need the value itself)."""
    from pyspark import Broadcast

    return {k: ("<broadcast>" if isinstance(v, Broadcast) else v) for k, v in params.items()}


def _run_point(task: Task, params: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        rows = task(dict(params))
        error = None
    except Exception as exc:  # reported on the driver with the grid point
        rows = []
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"
    return {
        "params": _returnable(params),
        "rows": rows,
        "error": error,
        "seconds": time.perf_counter() - start,
    }


def run_grid(
    task: Task,
    points: Sequence[Mapping[str, Any]],
    *,
    spark: Any = None,
    local: bool = False,
    desc: str = "sweep",
    progress: bool = True,
) -> pd.DataFrame:
    """Run ``task`` on every grid point as Spark tasks and collect the rows.

    Args:
        task: a picklable (module-level) function ``params -> list of row dicts``.
        points: the grid, e.g. from :func:`grid`.
        spark: a session (default :func:`routelab.spark.get_spark`).
        local: run in this process instead of on Spark (debugging, tiny grids).
        desc: progress-bar label.
        progress: show a progress bar over finished grid points.

    Returns:
        One row per returned row dict, with the point's parameters as columns and the
        point's wall time in ``task_seconds``.

    Raises:
        SweepError: naming the first failing point and its error.
    """
    from routelab.progress import tqdm

    points = [dict(p) for p in points]
    if not points:
        return pd.DataFrame()
    bar = tqdm(total=len(points), desc=desc, disable=not progress, leave=False)
    results: list[dict[str, Any]] = []
    if local:
        for p in points:
            results.append(_run_point(task, p))
            bar.update()
    else:
        from concurrent.futures import ThreadPoolExecutor, as_completed

        from routelab.spark import get_spark

        session = spark or get_spark()
        sc = session.sparkContext
        _ship_by_value(task)

        def submit(point: dict[str, Any]) -> dict[str, Any]:
            # one small Spark job per grid point: Spark runs them concurrently on the
            # free cores and the bar advances as each point finishes
            return sc.parallelize([point], 1).map(lambda p: _run_point(task, p)).collect()[0]

        workers = max(1, min(len(points), sc.defaultParallelism))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(submit, p): i for i, p in enumerate(points)}
            by_index: dict[int, dict[str, Any]] = {}
            for future in as_completed(futures):
                by_index[futures[future]] = future.result()
                bar.update()
        results = [by_index[i] for i in range(len(points))]
    bar.close()
    failed = [r for r in results if r["error"]]
    if failed:
        first = failed[0]
        raise SweepError(
            f"{len(failed)} of {len(points)} grid points failed; first: {first['params']}: "
            f"{first['error']}"
        )
    rows = []
    for r in results:
        for row in r["rows"]:
            rows.append({**r["params"], **row, "task_seconds": r["seconds"]})
    return pd.DataFrame(rows)


def _ship_by_value(task: Task) -> None:
    """Let executors run tasks defined outside installed packages (tests, scripts).

    Functions of ``routelab`` are imported by name on the executors; a task from any other
    module (a test file, a user's script) is pickled by value instead.
    """
    import sys

    from pyspark import cloudpickle

    module = getattr(task, "__module__", None) or ""
    if module and module != "__main__" and not module.startswith("routelab"):
        mod = sys.modules.get(module)
        if mod is not None:
            cloudpickle.register_pickle_by_value(mod)


def broadcast(value: Any, spark: Any = None) -> Any:
    """Broadcast a read-only value to the executors; tasks read it with ``.value``."""
    from routelab.spark import get_spark

    return (spark or get_spark()).sparkContext.broadcast(value)
