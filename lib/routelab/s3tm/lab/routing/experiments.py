"""Evaluating word-to-matcher mappings as S3-TM Sect. 6 does it (Sects. 5.1, 6.1, 6.2, 6.6).

"All experiments are performed using tenfold cross-validation, and error bars showing the
standard deviation are included in the plots" (Sect. 6): a mapping is learned on the
training folds and its spread, imbalance and throughput (Eqs. 2-6) are measured on the
held-out fold. The sweeps run as Spark tasks through :func:`routelab.sweep.run_grid`; each
dataset (:mod:`routelab.s3tm.lab.routing.workloads`) is broadcast once and the module-level task
functions are imported by name on the executors:

- :func:`run_cv`: Fig. 5, dataset x subscription kind x method x N x fold;
- :func:`run_skew_ablation`: hot-word splitting on / off at large N (Sect. 5.1);
- :func:`run_learning_curve`: Fig. 6, throughput vs learning-corpus size;
- :func:`run_learning_time`: Fig. 9, wall time of :func:`learn_mapping` vs corpus size;
- :func:`worked_example`: six words, three matchers, hash vs SALB by hand (Eqs. 2, 4, 6).

Every result row carries the metrics of :meth:`routelab.s3tm.metrics.RouteMetrics.as_dict`
plus the learning details; :func:`run_cv` rows also carry the per-matcher ``loads``. The
tidy frames are summarized by :mod:`routelab.s3tm.lab.routing.summary`; the folds, subscriptions
and :class:`~routelab.s3tm.lab.shared.SharedData` handle come from :mod:`routelab.s3tm.lab.shared`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from routelab.s3tm.lab.routing.workloads import ALL_WORDS, CurveData, CVData
from routelab.s3tm.lab.shared import KINDS, SharedData
from routelab.s3tm.mappings import METHODS, learn_mapping
from routelab.s3tm.metrics import route_metrics
from routelab.s3tm.partition import GRAPH_METHODS
from routelab.s3tm.wordsets import Corpus
from routelab.timing import timing_lock

# --------------------------------------------------------------------------- tasks


def _resolve(handle: Any) -> Any:
    """The dataset behind a :class:`SharedData` handle, or the object itself (local runs)."""
    return handle.value if isinstance(handle, SharedData) else handle


def _learn_and_measure(
    train: Corpus, test: Corpus, params: dict[str, Any], *, with_loads: bool
) -> dict[str, Any]:
    """Learn a mapping on ``train`` and measure Eqs. 2-7 on ``test`` (one result row).

    ``cpu_seconds`` is the process CPU time of learning and measuring (METIS and the
    kernels run in this process), a cost figure that other load on the machine does not
    inflate the way it inflates wall time.
    """
    cpu = time.process_time()
    mapping = learn_mapping(
        train,
        int(params["n_matchers"]),
        params["method"],
        seed=int(params["seed"]),
        split_hot=bool(params["split_hot"]),
    )
    metrics = route_metrics(mapping, test)
    row = metrics.as_dict()
    row.update(
        cpu_seconds=time.process_time() - cpu,
        n_train=train.n_posts,
        learn_seconds=mapping.info["learn_seconds"],
        prepare_seconds=mapping.info["prepare_seconds"],
        n_learned_words=mapping.info["n_words"],
        n_hot=mapping.info["n_hot"],
    )
    if with_loads:
        row["loads"] = metrics.loads.tolist()
    return row


def cv_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """CV grid point: for each fold in ``folds``, learn on the other folds and measure on it.

    Params: ``data`` (a :class:`CVData` or its :class:`SharedData` handle), ``kind``,
    ``method``, ``n_matchers``, ``folds`` (fold numbers), ``split_hot``, ``seed``.
    Returns one row per fold (with ``fold`` and the per-matcher ``loads``).
    """
    data: CVData = _resolve(params["data"])
    rows = []
    for fold in params["folds"]:
        train, test = data.split(params["kind"], int(fold))
        rows.append({"fold": int(fold), **_learn_and_measure(train, test, params, with_loads=True)})
    return rows


def curve_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Learning-curve point (Fig. 6): for each repeat in ``repeats``, learn on ``size`` pool
    posts and measure on the fixed test set.

    Params: ``data`` (:class:`CurveData` or its handle), ``kind``, ``method``,
    ``n_matchers``, ``size``, ``repeats``, ``split_hot``, ``seed``.
    """
    data: CurveData = _resolve(params["data"])
    corpus = data.corpora[params["kind"]]
    test = corpus.subset(data.test_rows)
    rows = []
    for r in params["repeats"]:
        train = corpus.subset(data.learning_rows(int(params["size"]), int(r)))
        rows.append({"repeat": int(r), **_learn_and_measure(train, test, params, with_loads=False)})
    return rows


def timing_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Learning-time point (Fig. 9): wall time of :func:`learn_mapping` on ``size`` posts,
    every word subscribed, no splitting.

    A tiny warm-up run first loads the JIT kernels and METIS, so only learning is timed.
    Params: ``data`` (:class:`CurveData` or its handle), ``method``, ``n_matchers``,
    ``size``, ``repeat``, ``seed``.
    """
    data: CurveData = _resolve(params["data"])
    corpus = data.corpora[ALL_WORDS]
    n, method, seed = int(params["n_matchers"]), params["method"], int(params["seed"])
    learn_mapping(corpus.subset(data.pool_rows[:200]), 2, method, seed=seed)  # warm-up
    train = corpus.subset(data.learning_rows(int(params["size"]), int(params["repeat"])))
    with timing_lock():  # one timed learning run on the machine at a time
        start = time.perf_counter()
        mapping = learn_mapping(train, n, method, seed=seed)
        wall = time.perf_counter() - start
    return [
        {
            "learn_wall_seconds": wall,
            "learn_seconds": mapping.info["learn_seconds"],
            "n_train": train.n_posts,
            "n_learned_words": mapping.info["n_words"],
            "nnz": train.nnz,
        }
    ]


# --------------------------------------------------------------------------- sweeps


def _cost_key(point: dict[str, Any]) -> tuple[int, int]:
    """Expensive points first (METIS, many matchers, big corpora): better packing."""
    return (
        -int(point.get("method") in GRAPH_METHODS),
        -int(point.get("n_matchers", 0)) * int(point.get("size", 1)),
    )


def _sweep(
    task: Any,
    points: list[dict[str, Any]],
    datasets: Mapping[str, Any],
    *,
    sort_by: Sequence[str],
    spark: Any,
    local: bool,
    desc: str,
    progress: bool,
) -> pd.DataFrame:
    """Run ``task`` over ``points`` with :func:`routelab.sweep.run_grid`.

    Point ``p`` gets ``datasets[p["dataset"]]`` as ``p["data"]``: broadcast once per
    dataset (a :class:`SharedData` handle), or the object itself when ``local``. Bundling
    columns (``folds``, ``repeats``) and the handle are dropped from the result, which is
    sorted by the ``sort_by`` columns.
    """
    from routelab.sweep import broadcast, run_grid

    if not points:
        return pd.DataFrame()
    handles = {
        name: (data if local else SharedData(name, broadcast(data, spark)))
        for name, data in datasets.items()
    }
    try:
        frame = run_grid(
            task,
            [{**p, "data": handles[p["dataset"]]} for p in sorted(points, key=_cost_key)],
            spark=spark,
            local=local,
            desc=desc,
            progress=progress,
        )
    finally:
        if not local:
            for handle in handles.values():
                handle.unpersist()
    frame = frame.drop(columns=[c for c in ("data", "folds", "repeats") if c in frame.columns])
    return frame.sort_values(list(sort_by), kind="stable", ignore_index=True)


def _check_methods(methods: Sequence[str]) -> list[str]:
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"unknown mapping method(s) {bad}; choose from {METHODS}")
    return list(methods)


def _chunks(values: Sequence[int], size: int | None) -> list[tuple[int, ...]]:
    """``values`` in consecutive groups of ``size`` (all in one group for ``None``)."""
    values = [int(v) for v in values]
    if size is None:
        return [tuple(values)] if values else []
    if size < 1:
        raise ValueError(f"group size must be >= 1, got {size}")
    return [tuple(values[i : i + size]) for i in range(0, len(values), size)]


CV_KEYS = ("dataset", "kind", "method", "n_matchers", "split_hot", "seed", "fold")
"""The columns that identify one CV result row."""


def _cv_points(todo: Iterable[dict[str, Any]], folds_per_task: int | None) -> list[dict[str, Any]]:
    """Group (dataset, kind, method, N, split, seed, fold) rows into grid points."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for row in todo:
        key = tuple(row[k] for k in CV_KEYS[:-1])
        groups.setdefault(key, []).append(int(row["fold"]))
    return [
        {**dict(zip(CV_KEYS[:-1], key, strict=True)), "folds": chunk}
        for key, folds in groups.items()
        for chunk in _chunks(sorted(folds), folds_per_task)
    ]


def run_cv(
    datasets: Sequence[CVData],
    methods: Sequence[str] = METHODS,
    nodes: Sequence[int] = (2, 4, 8, 16, 32, 64, 128, 256),
    kinds: Sequence[str] = KINDS,
    *,
    folds: Sequence[int] | None = None,
    split_hot: bool | Sequence[bool] = True,
    seed: int = 0,
    folds_per_task: int | None = None,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """The Fig. 5 grid (dataset x kind x method x N x fold [x split]) as Spark tasks.

    Args:
        datasets: prepared datasets (their folds are used).
        methods, nodes, kinds: the grid axes.
        folds: which folds to hold out (default: all).
        split_hot: hot-word splitting (Sect. 5.1) on, off, or both (a sequence).
        seed: seed of the mappings (hash policy, METIS, version choice).
        folds_per_task: folds run by one Spark task (default: all folds of a
            (kind, method, N) cell in one task; Spark's per-job overhead, ~0.1-0.2 s on a
            laptop, would otherwise dominate the many sub-second fold runs). ``1`` gives one
            task per fold. The results do not depend on it.
        spark: the session (default :func:`routelab.spark.get_spark`).
        local: run in this process (tests, debugging).
        progress: progress bar over grid points.

    Returns:
        One row per (dataset, kind, method, N, split, fold): the parameters, the metrics of
        :meth:`~routelab.s3tm.metrics.RouteMetrics.as_dict`, ``n_train``,
        ``learn_seconds``, ``n_hot`` and the per-matcher ``loads`` (list).
    """
    splits = [split_hot] if isinstance(split_hot, bool) else [bool(s) for s in split_hot]
    todo = []
    for data in datasets:
        missing = [k for k in kinds if k not in data.corpora]
        if missing:
            raise ValueError(f"dataset {data.name!r} has no {missing} subscriptions")
        chosen = range(data.n_folds) if folds is None else folds
        todo += [
            dict(zip(CV_KEYS, (data.name, k, m, int(n), s, seed, int(f)), strict=True))
            for k in kinds
            for m in _check_methods(methods)
            for n in nodes
            for s in splits
            for f in chosen
        ]
    return _sweep(
        cv_task,
        _cv_points(todo, folds_per_task),
        {d.name: d for d in datasets},
        sort_by=CV_KEYS,
        spark=spark,
        local=local,
        desc="CV grid",
        progress=progress,
    )


def run_skew_ablation(
    datasets: Sequence[CVData],
    methods: Sequence[str] = METHODS,
    nodes: Sequence[int] = (64, 128, 256),
    kinds: Sequence[str] = KINDS,
    *,
    folds: Sequence[int] = (0, 1, 2),
    have: pd.DataFrame | None = None,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Hot-word splitting on and off (Sect. 5.1) at large N, for every method.

    Rows already in ``have`` (e.g. the :func:`run_cv` frame) are reused and only the
    missing (dataset, kind, method, N, split, seed, fold) combinations are run. Returns the
    rows of both settings.
    """
    want = [
        dict(zip(CV_KEYS, (d.name, k, m, int(n), s, seed, int(f)), strict=True))
        for d in datasets
        for k in kinds
        for m in _check_methods(methods)
        for n in nodes
        for s in (False, True)
        for f in folds
    ]
    keys = list(CV_KEYS)
    reuse = pd.DataFrame()
    if have is not None and len(have):
        reuse = have.merge(pd.DataFrame(want), on=keys, how="inner")
    done = set(reuse[keys].itertuples(index=False, name=None)) if len(reuse) else set()
    todo = [row for row in want if tuple(row[k] for k in keys) not in done]
    fresh = _sweep(
        cv_task,
        _cv_points(todo, None),
        {d.name: d for d in datasets},
        sort_by=CV_KEYS,
        spark=spark,
        local=local,
        desc="skew ablation",
        progress=progress,
    )
    frame = pd.concat([f for f in (reuse, fresh) if len(f)], ignore_index=True)
    return frame.sort_values(keys, kind="stable", ignore_index=True)


def run_learning_curve(
    data: CurveData,
    sizes: Sequence[int],
    methods: Sequence[str] = ("hash", "gFCL", "SALB"),
    n_matchers: int = 64,
    kinds: Sequence[str] = KINDS,
    *,
    repeats: int = 3,
    split_hot: bool = True,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Fig. 6: throughput on the fixed test set vs the number of learning posts.

    One task per (kind, method, size) runs all ``repeats`` (re-shuffled learning sets).
    """
    too_big = [s for s in sizes if s > data.max_size]
    if too_big:
        raise ValueError(f"learning sizes {too_big} exceed the pool of {data.max_size} posts")
    points = [
        {
            "dataset": data.name,
            "kind": kind,
            "method": method,
            "n_matchers": int(n_matchers),
            "size": int(size),
            "split_hot": split_hot,
            "seed": seed,
            "repeats": tuple(range(repeats)),
        }
        for kind in kinds
        for method in _check_methods(methods)
        for size in sizes
    ]
    return _sweep(
        curve_task,
        points,
        {data.name: data},
        sort_by=("kind", "method", "size", "repeat"),
        spark=spark,
        local=local,
        desc="learning curve",
        progress=progress,
    )


def run_learning_time(
    data: CurveData,
    sizes: Sequence[int],
    methods: Sequence[str] = ("SALB", "gC", "gFC", "gFCL", "gNFCL"),
    n_matchers: int = 64,
    *,
    repeats: int = 1,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Fig. 9: wall time of :func:`learn_mapping` vs the number of learning posts.

    One Spark task per (method, size, repeat); the timed learning runs take turns
    (:func:`routelab.timing.timing_lock`), so no two are timed against each other. Repeat r
    learns on its own sample of ``size`` posts: the repeats are the claim's measurements.
    """
    too_big = [s for s in sizes if s > data.max_size]
    if too_big:
        raise ValueError(f"learning sizes {too_big} exceed the pool of {data.max_size} posts")
    points = [
        {
            "dataset": data.name,
            "method": method,
            "n_matchers": int(n_matchers),
            "size": int(size),
            "repeat": r,
            "seed": seed,
        }
        for method in _check_methods(methods)
        for size in sizes
        for r in range(repeats)
    ]
    return _sweep(
        timing_task,
        points,
        {data.name: data},
        sort_by=("method", "size", "repeat"),
        spark=spark,
        local=local,
        desc="learning time",
        progress=progress,
    )


EXAMPLE_POSTS: tuple[tuple[str, ...], ...] = (
    ("flu", "shot"),
    ("flu", "vaccine"),
    ("shot", "vaccine"),
    ("flu", "shot", "vaccine"),
    ("trump", "vote"),
    ("trump", "rally"),
    ("vote", "rally"),
    ("trump", "vote", "rally"),
)
"""The worked example's posts: six words in two groups that are posted together."""


def worked_example(
    posts: Sequence[Sequence[str]] = EXAMPLE_POSTS,
    n_matchers: int = 3,
    methods: Sequence[str] = ("hash", "SALB"),
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A worked example a student can redo by hand (Sect. 3.1, Eqs. 1-6): learn each
    mapping on ``posts`` (every word subscribed, no splitting) and route the same posts.

    Returns:
        ``(per_post, per_method)``: for every post its words and the matchers K(P, M) it goes
        to under each method (Eq. 1); for every method the word -> matcher mapping, the loads
        L(i, M) (Eq. 3), their sum, the spread R = sum L / |P| (Eq. 2), the imbalance
        B = max L / avg L (Eq. 4) and the throughput T = |P| / max L in units of one
        matcher's capacity (Eq. 6).
    """
    words = list(dict.fromkeys(w for post in posts for w in post))
    per_post = pd.DataFrame(
        {"post": range(1, len(posts) + 1), "words": [" ".join(p) for p in posts]}
    )
    rows = []
    for method in methods:
        mapping = learn_mapping([list(p) for p in posts], n_matchers, method, seed=seed)
        m = route_metrics(mapping, [list(p) for p in posts])
        per_post[f"K(P) {method}"] = [
            "{" + ", ".join(map(str, m.targets.of(i))) + "}" for i in range(len(posts))
        ]
        rows.append(
            {
                "method": method,
                "mapping M": ", ".join(f"{w}->{mapping.matcher_of(w)}" for w in words),
                **{f"L({i})": int(load) for i, load in enumerate(m.loads)},
                "sum L": int(m.loads.sum()),
                "spread R": round(m.spread, 3),
                "imbalance B": round(m.imbalance, 3),
                "throughput T": round(m.throughput, 3),
            }
        )
    return per_post, pd.DataFrame(rows)
