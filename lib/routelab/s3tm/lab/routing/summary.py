"""Summaries of the routing evaluation (S3-TM Sect. 6.2): relative throughput, means and
standard deviations over folds, geometric means across datasets.

- :data:`PAIR_KEYS`: what makes one experiment, for
  :func:`~routelab.s3tm.lab.shared.add_relative_throughput` (throughput relative to SALB = 1
  in the same experiment); :func:`across_datasets`: the geometric mean across datasets ("The geometric
  mean of the relative throughputs from both datasets is used", Sect. 6.2);
- :func:`geomean_of_means`: the same over datasets with different fold counts (the
  per-source datasets);
- :func:`relative_by_dataset`: each dataset's relative throughput side by side;
- :func:`fig5_summary`, :func:`split_gain`, :func:`metric_table`, :func:`headline`,
  :func:`headline_table`: what the notebook shows;
- :func:`swap_hash`: the Fig. 5 rows with hash run under the other hot-word splitting
  setting (which hash baseline the paper used is ambiguous).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from routelab.claims import geometric_mean
from routelab.s3tm.lab.routing.workloads import CVData
from routelab.s3tm.lab.shared import add_relative_throughput, summarize
from routelab.s3tm.mappings import METHODS

BASELINE = "SALB"
"""Relative throughput takes this method's throughput as 1 (Sect. 6.2)."""

FIG5_METRICS = ("relative_throughput", "throughput", "spread_routed", "imbalance")
"""The four panels of Fig. 5 per subscription kind."""

PAIR_KEYS = ("dataset", "kind", "n_matchers", "fold", "split_hot", "size", "repeat", "seed")
"""One routing experiment: relative throughput compares the methods within the same values
of these keys (those a frame has)."""


def across_datasets(frame: pd.DataFrame, metric: str = "relative_throughput") -> pd.DataFrame:
    """Combine datasets by the geometric mean of ``metric`` (Sect. 6.2), fold by fold.

    Folds of different datasets are paired by their number; the result has one row per
    (kind, method, N, fold, ...) with ``dataset`` = ``"geomean(a, b)"`` (or the only
    dataset's name).
    """
    names = sorted(frame["dataset"].unique())
    keys = [k for k in PAIR_KEYS if k in frame.columns and k != "dataset"]
    keys = ["method", *keys]
    out = frame.groupby(keys, sort=True)[metric].agg(geometric_mean).reset_index()
    counts = frame.groupby(keys, sort=True)["dataset"].nunique().to_numpy()
    if np.any(counts != len(names)):
        raise ValueError("every dataset must have the same grid to combine them")
    out["dataset"] = names[0] if len(names) == 1 else f"geomean({', '.join(names)})"
    return out


def geomean_of_means(
    frame: pd.DataFrame,
    datasets: Sequence[str],
    metric: str = "relative_throughput",
    by: Sequence[str] = ("kind", "method", "n_matchers"),
) -> pd.DataFrame:
    """Combine ``datasets`` by the geometric mean of their per-dataset means (Sect. 6.2),
    for datasets whose folds differ in number (e.g. fewer folds for the per-source datasets),
    so folds cannot be paired as :func:`across_datasets` does.

    Per (``by``) cell: mean = exp(mean_d log m_d) over the datasets' fold means m_d; std by
    the delta method, g * sqrt(sum_d (s_d / m_d)^2) / D with s_d the fold std of dataset d;
    n = the smallest number of folds. Returns rows in the tidy format of :func:`~routelab.s3tm.lab.shared.summarize`
    with ``dataset`` = ``"geomean(a, b)"`` (or the only dataset's name).

    Raises:
        ValueError: no datasets, a dataset is absent, or some cell lacks a dataset.
    """
    names = list(dict.fromkeys(datasets))
    if not names:
        raise ValueError("no datasets to combine")
    absent = sorted(set(names) - set(frame["dataset"]))
    if absent:
        raise ValueError(f"dataset(s) {absent} have no rows")
    by = [b for b in by if b in frame.columns]
    sel = frame[frame["dataset"].isin(names)]
    per = sel.groupby([*by, "dataset"], sort=True)[metric].agg(["mean", "std", "count"])
    per = per.reset_index().fillna({"std": 0.0})
    if np.any(per.groupby(by)["dataset"].nunique().to_numpy() != len(names)):
        raise ValueError("every dataset must have the same grid to combine them")
    rows = []
    for key, part in per.groupby(by, sort=True):
        g = geometric_mean(part["mean"])
        rel = part["std"].to_numpy() / part["mean"].to_numpy()
        std = g * float(np.sqrt(np.sum(rel**2))) / len(part)
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "metric": metric,
                "mean": g,
                "std": std,
                "n": int(part["count"].min()),
            }
        )
    out = pd.DataFrame(rows)
    out.insert(0, "dataset", names[0] if len(names) == 1 else f"geomean({', '.join(names)})")
    return out


def split_gain(frame: pd.DataFrame) -> pd.DataFrame:
    """Per experiment, the effect of hot-word splitting: ``throughput_gain`` =
    T(split on) / T(split off), and both imbalances (rows of :func:`run_skew_ablation`)."""
    keys = [k for k in ("dataset", "kind", "method", "n_matchers", "fold", "seed") if k in frame]
    cols = [*keys, "throughput", "imbalance"]
    split = frame["split_hot"].astype(bool)
    on, off = frame.loc[split, cols], frame.loc[~split, cols]
    out = on.merge(off, on=keys, suffixes=("_split", "_nosplit"), validate="one_to_one")
    out["throughput_gain"] = out["throughput_split"] / out["throughput_nosplit"]
    return out


def metric_table(summary: pd.DataFrame, metric: str, kind: str) -> pd.DataFrame:
    """A methods x N table of ``mean ± std`` strings for display."""
    sel = summary[(summary["metric"] == metric) & (summary["kind"] == kind)]
    text = sel.assign(
        cell=[_pm(m, s) for m, s in zip(sel["mean"], sel["std"], strict=True)]
    ).pivot_table(index="method", columns="n_matchers", values="cell", aggfunc="first")
    order = [m for m in METHODS if m in text.index]
    return text.loc[order]


def _pm(mean: float, std: float) -> str:
    if not math.isfinite(mean):
        return str(mean)
    digits = 3 if abs(mean) < 10 else 1
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def fig5_summary(
    cv: pd.DataFrame,
    main_dataset: str | None = None,
    *,
    combine: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The numbers behind Fig. 5, tidy: relative throughput (SALB = 1) combined across
    datasets by the geometric mean, and throughput, spread and imbalance of
    ``main_dataset`` (default: the first; the paper shows April 2013 for those).

    ``combine``: take the relative throughput as :func:`geomean_of_means` over these
    datasets only (e.g. the per-source datasets, whose folds may be fewer); by default every
    dataset in ``cv``, fold by fold (:func:`across_datasets`).

    Raises:
        ValueError: ``cv`` mixes splitting settings (summarize each separately).
    """
    if cv["split_hot"].nunique() > 1:
        raise ValueError("cv rows mix split_hot settings; select one")
    rel = add_relative_throughput(cv, PAIR_KEYS)
    if combine:
        combined = geomean_of_means(rel, combine)
    else:
        combined = summarize(across_datasets(rel), ["relative_throughput"])
    main = main_dataset or str(rel["dataset"].iloc[0])
    metrics = ["throughput", "spread_routed", "spread", "imbalance", "cv"]
    per_dataset = summarize(rel[rel["dataset"] == main], metrics)
    return pd.concat([combined, per_dataset], ignore_index=True)


def headline(cv: pd.DataFrame, data: CVData) -> dict[str, Any]:
    """Headline numbers of a CV run on ``data``: corpus size and, per subscription kind at
    the largest N, SALB's throughput and its ratio to hash (mean over folds)."""
    sel = cv[cv["dataset"] == data.name]
    n_max = int(sel["n_matchers"].max())
    out: dict[str, Any] = {"posts": data.info.get("posts"), "max_nodes": n_max}
    at = sel[sel["n_matchers"] == n_max]
    for kind, part in at.groupby("kind"):
        table = part.pivot_table(index="fold", columns="method", values="throughput")
        if BASELINE in table:
            out[f"{kind}_salb_throughput"] = float(table[BASELINE].mean())
            if "hash" in table:
                out[f"{kind}_salb_over_hash"] = float((table[BASELINE] / table["hash"]).mean())
    return out


def swap_hash(cv: pd.DataFrame, hash_rows: pd.DataFrame) -> pd.DataFrame:
    """The Fig. 5 rows with the ``hash`` rows replaced by ``hash_rows`` (hash run with the
    other hot-word splitting setting, Sect. 5.1), so every summary and claim can be taken
    against either hash baseline. The new rows keep their own setting in
    ``hash_split_hot``; their ``split_hot`` is set to the other methods' so the frame
    summarizes as one experiment (relative throughput against the same SALB runs).

    Raises:
        ValueError: ``cv`` mixes splitting settings or ``hash_rows`` holds other methods.
    """
    if cv["split_hot"].nunique() != 1:
        raise ValueError("cv rows mix split_hot settings; select one")
    if set(hash_rows["method"]) != {"hash"}:
        raise ValueError(
            f"hash_rows must be hash rows only, got {sorted(set(hash_rows['method']))}"
        )
    main = bool(cv["split_hot"].iloc[0])
    swapped = hash_rows.assign(hash_split_hot=hash_rows["split_hot"].astype(bool), split_hot=main)
    return pd.concat([cv[cv["method"] != "hash"], swapped], ignore_index=True)


def headline_table(numbers: dict[str, Any]) -> pd.DataFrame:
    """The headline numbers as a small table for display: integers with thousands
    separators, other numbers to three significant digits."""

    def text(v: Any) -> str:
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            return str(v)
        if float(v).is_integer() and abs(v) >= 1:
            return f"{int(v):,}"
        return f"{float(v):.3g}"

    return pd.DataFrame(
        {"headline": list(numbers), "value": [text(v) for v in numbers.values()]}
    ).set_index("headline")


def relative_by_dataset(
    cv: pd.DataFrame, kind: str, methods: Sequence[str] = ("hash", "gFCL")
) -> pd.DataFrame:
    """Relative throughput (SALB = 1, mean over each dataset's folds) of ``methods`` on
    every dataset of ``cv`` (the union and each source): a display table
    of (dataset, method) rows x N columns for ``kind``-based subscriptions, 3 decimals.

    Raises:
        ValueError: no rows of ``methods`` for ``kind``.
    """
    rel = add_relative_throughput(cv[cv["kind"] == kind], PAIR_KEYS)
    sel = rel[rel["method"].isin(list(methods))]
    if sel.empty:
        raise ValueError(f"no {list(methods)} rows for {kind!r} subscriptions")
    table = sel.pivot_table(
        index=["dataset", "method"], columns="n_matchers", values="relative_throughput"
    )
    return table.round(3)
