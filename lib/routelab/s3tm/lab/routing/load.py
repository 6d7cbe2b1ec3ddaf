"""Fig. 5's throughput with the subscription-aware load (S3-TM Sects. 4, 6.2,
6.3).

Fig. 5 (Sect. 6.2) charges every publication a unit cost at each matcher it reaches (Eq. 3);
Fig. 7 (Sect. 6.3, notebook 04) charges it the trie lookups of the matcher's subscriptions
(:mod:`routelab.s3tm.matching_load`). To compare the N = 16 points of the two figures, this
module re-measures Fig. 5's mappings under Fig. 7's load, with Fig. 7's own machinery
(:func:`routelab.s3tm.lab.shared.run_scaling`, shared with notebook 04: learn on the training folds
restricted to W^s, place the subscriptions with LASP, route and match the held-out fold):

- :func:`load_scaling_data`: the union's posts (every word: a matcher probes its trie with
  the whole post), folds and subscriptions of Fig. 5 as a
  :class:`~routelab.s3tm.lab.shared.ScalingData` -- so the mapping learned at
  a (kind, N, fold) is the very one of Fig. 5;
- :func:`fit_load_cost`: LASP's cost function f fitted on the Fig. 3 lookup curve, as
  notebook 04 does;
- :func:`run_load`: the grid over N (one Fig. 7 run per N);
- :func:`load_comparison`: relative throughput and imbalance per (kind, method, N) under
  both loads, on the same folds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from routelab.s3tm.lab import shared
from routelab.s3tm.lab.routing.summary import PAIR_KEYS
from routelab.s3tm.lab.routing.workloads import ALL_WORDS, CVData
from routelab.s3tm.lasp import CostFunction, fit_cost_function
from routelab.s3tm.matching_load import DEFAULT_CAPACITY, subscription_corpus

COSTS = ("unit (Eq. 3)", "trie lookups (Fig. 7)")
"""The two loads compared: Fig. 5's unit cost per delivery and Fig. 7's trie lookups."""


def load_scaling_data(data: CVData) -> shared.ScalingData:
    """``data``'s posts (every word), folds and subscriptions as Fig. 7's dataset.

    Raises:
        ValueError: ``data`` was built without ``all_words=True`` or
            ``keep_subscriptions=True`` (:func:`routelab.s3tm.lab.routing.workloads.real_cv_from_frame`).
    """
    if ALL_WORDS not in data.corpora or "subscriptions" not in data.info:
        raise ValueError(
            f"dataset {data.name!r} needs its unrestricted posts and its subscriptions "
            "(real_cv_from_frame(..., all_words=True, keep_subscriptions=True))"
        )
    posts = data.corpora[ALL_WORDS]
    streams = {
        kind: subscription_corpus(subs, posts.vocab)
        for kind, subs in data.info["subscriptions"].items()
    }
    info = {"source": data.info.get("source"), "dataset": data.name, "posts": posts.n_posts}
    return shared.ScalingData(posts, data.folds, data.n_folds, streams, info)


def fit_load_cost(
    sdata: shared.ScalingData,
    sizes: Sequence[int],
    *,
    n_matchers: int = 16,
    fold: int = 0,
    seed: int = 0,
) -> tuple[CostFunction, pd.DataFrame]:
    """LASP's f(h) = slope h + intercept from the lookup curve (Fig. 3) of ``sdata``'s
    subscriptions on held-out ``fold``, as notebook 04 fits it; returns f and the curve."""
    curve = shared.lookup_curves(sdata, sizes, n_matchers=n_matchers, fold=fold, seed=seed)
    slope, intercept = fit_cost_function(curve["unique_words"], curve["ops_per_pub"])
    return CostFunction.from_fit(slope, intercept), curve


def run_load(
    sdata: shared.ScalingData,
    nodes: Sequence[int],
    methods: Sequence[str] = ("hash", "SALB"),
    kinds: Sequence[str] = ("tweet", "topic"),
    *,
    folds: Sequence[int] = (0,),
    cost: Any = None,
    split_hot: bool = True,
    capacity: float = DEFAULT_CAPACITY,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> pd.DataFrame:
    """Fig. 5's grid (kind x method x N x fold) under the trie-lookup load: one
    :func:`~routelab.s3tm.lab.shared.run_scaling` per N with every
    subscription of each kind, LASP placement with ``cost``.

    Raises:
        ValueError: the kinds' subscription counts differ (one workload size per run).
    """
    sizes = {sdata.streams[k].n_posts for k in kinds}
    if len(sizes) != 1:
        raise ValueError(f"the kinds' subscription counts differ: {sorted(sizes)}")
    frames = [
        shared.run_scaling(
            sdata,
            sorted(sizes),
            methods,
            kinds,
            n_matchers=int(n),
            folds=folds,
            placers=("LASP",),
            cost=cost,
            split_hot=split_hot,
            capacity=capacity,
            seed=seed,
            spark=spark,
            local=local,
            progress=progress,
        )
        for n in nodes
    ]
    return pd.concat(frames, ignore_index=True)


def load_comparison(cv: pd.DataFrame, load: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Relative throughput (SALB = 1) and imbalance per (kind, method, N) under both loads
    (:data:`COSTS`), mean +- std over the folds that :func:`run_load` ran, taken from
    ``cv`` (Fig. 5's rows of ``dataset``) for the unit cost. Tidy: ``cost``, ``kind``,
    ``method``, ``n_matchers``, ``metric``, ``mean``, ``std``, ``n``.

    Raises:
        ValueError: ``cv`` lacks a (kind, method, N, fold) of ``load`` or its SALB rows.
    """
    keys = ["kind", "method", "n_matchers", "fold"]
    want = load[keys].drop_duplicates()
    unit = cv[cv["dataset"] == dataset].merge(want, on=keys, how="inner")
    if len(unit) != len(want):
        raise ValueError(
            f"Fig. 5 rows of {dataset!r} cover {len(unit)} of the {len(want)} load cells"
        )
    unit = shared.add_relative_throughput(unit, PAIR_KEYS)
    parts = []
    for cost, frame in zip(COSTS, (unit, load), strict=True):
        long = frame.melt(
            id_vars=keys, value_vars=["relative_throughput", "imbalance"], var_name="metric"
        )
        stats = long.groupby(keys[:-1] + ["metric"], sort=True)["value"].agg(
            ["mean", "std", "count"]
        )
        stats = stats.rename(columns={"count": "n"}).reset_index().fillna({"std": 0.0})
        parts.append(stats.assign(cost=cost))
    out = pd.concat(parts, ignore_index=True)
    return out[["cost", "kind", "method", "n_matchers", "metric", "mean", "std", "n"]]


def at_nodes(comparison: pd.DataFrame, n_matchers: int, method: str = "hash") -> pd.DataFrame:
    """A kind x cost table of ``method``'s relative throughput at ``n_matchers`` (e.g.
    N = 16, Fig. 7's), mean over folds, 3 decimals."""
    sel = comparison[
        (comparison["metric"] == "relative_throughput")
        & (comparison["method"] == method)
        & (comparison["n_matchers"] == n_matchers)
    ]
    if sel.empty:
        raise ValueError(f"no {method} rows at N = {n_matchers}")
    table = sel.pivot_table(index="kind", columns="cost", values="mean")
    return (
        table[[c for c in COSTS if c in table.columns]]
        .round(3)
        .rename_axis(columns=f"{method} / SALB at N = {n_matchers}")
    )
