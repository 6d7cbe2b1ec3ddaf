"""Definition 1 against the clock: does the load the partitioners balance predict the time
the workers spend? (PS2Stream Sect. IV-A.)

Every partitioner balances Definition 1's load ``c_m M + c_o |O| + c_ins |Q^ins| + c_del
|Q^del|`` with the unit-cost ratios of :class:`routelab.spatial.cost.CostParams` (the
paper's values are lost). Each measured run reports, per worker, the counts of its timed
replay (:func:`routelab.spatial.lab.partitioning.experiments.worker_counts`) and its busy
seconds. Here:

* :func:`worker_frame`: one row per (run, worker) with those counts;
* :func:`calibrate`: this machine's unit costs (nanoseconds per check, object, insertion,
  deletion), fitted by non-negative least squares on the run's own workers, per query set
  (the kinds of tuples cost differently under Q1's frequent and Q2's rare keywords);
* :func:`fit_table`: per (set, partitioner), how well the busy time is predicted by the
  balanced load (the partitioners' unit ratios, up to one scale: a model the partitioners
  use is right if it ranks and sizes the workers' work, whatever its unit) and by the
  calibrated units (R^2, 1 - residual / total sum of squares over the workers);
* :func:`posting_fit`: the same with an update charged per posting it makes (its cells x
  keys) instead of per query;
* :func:`kind_errors`: where the balanced model errs: per set and tuple kind, the busy
  time the partitioners' unit misplaces (scaled ratio minus calibrated cost, times the
  count), as a share of the measured busy time;
* :func:`against_the_clock`: all of it for one frame of runs (the notebook's one call).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from routelab.spatial.cost import CostParams

#: the tuple kinds of Definition 1 and the per-worker count column of each
KINDS = {"check": "w_checks", "object": "w_objects", "insertion": "w_ins", "deletion": "w_del"}
KEYS = ("country", "query_set", "algorithm", "seed", "n_workers")


def worker_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, worker): the run's keys, the worker's counts and busy seconds."""
    need = [*KINDS.values(), "w_busy"]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValueError(f"the runs have no per-worker counts ({', '.join(missing)})")
    keys = [k for k in KEYS if k in frame.columns]
    rows = []
    for _, r in frame.iterrows():
        for w in range(len(r["w_busy"])):
            rows.append(
                {
                    **{k: r[k] for k in keys},
                    "worker": w,
                    **{c: float(r[c][w]) for c in need},
                    "w_postings": float(r["w_postings"][w]) if "w_postings" in r else np.nan,
                }
            )
    return pd.DataFrame(rows)


def _nnls(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy.optimize import nnls

    scale = np.maximum(x.max(axis=0), 1.0)  # columns of very different sizes
    coef, _ = nnls(x / scale, y)
    return coef / scale


def _r2(measured: np.ndarray, predicted: np.ndarray) -> float:
    total = float(((measured - measured.mean()) ** 2).sum())
    if total <= 0:
        return float("nan")
    return 1.0 - float(((measured - predicted) ** 2).sum()) / total


def calibrate(workers: pd.DataFrame, by: str = "query_set") -> pd.DataFrame:
    """This machine's unit costs per ``by`` group: seconds per check, object, insertion and
    deletion fitted (non-negative least squares, no intercept) to every worker's busy time,
    with the fit's R^2 and the costs as ratios to a check (the form of ``CostParams``).

    In the steady state a worker receives as many deletions as insertions (each query's
    copies come and go together), so the fit cannot tell the two apart: read their sum as
    the cost of one query update (non-negative least squares gives it to either)."""
    out = []
    for key, g in workers.groupby(by):
        x = g[list(KINDS.values())].to_numpy(np.float64)
        y = g["w_busy"].to_numpy(np.float64)
        coef = _nnls(x, y)
        row = {by: key, "workers": len(g), "r2": _r2(y, x @ coef)}
        row.update({f"{k}_ns": 1e9 * c for k, c in zip(KINDS, coef, strict=True)})
        unit = coef[0] if coef[0] > 0 else np.nan
        row.update({f"{k}_per_check": c / unit for k, c in zip(KINDS, coef, strict=True)})
        out.append(row)
    return pd.DataFrame(out)


#: the alternative the clock suggests: an update costs per posting (cells x keys it makes),
#: not per query; fitted on checks, objects and postings
POSTING_KINDS = {"check": "w_checks", "object": "w_objects", "posting": "w_postings"}


def posting_fit(workers: pd.DataFrame, by: str = "query_set") -> pd.DataFrame:
    """R^2 per (country, query set, algorithm) of the busy time against checks, objects and
    the postings the worker's insertions made (unit costs fitted per ``by`` group like
    :func:`calibrate`): does charging an update per posting predict the clock better than
    per query?"""
    rows = []
    for _, g in workers.groupby(by):
        x = g[list(POSTING_KINDS.values())].to_numpy(np.float64)
        y = g["w_busy"].to_numpy(np.float64)
        coef = _nnls(x, y)
        pred = pd.Series(x @ coef, index=g.index)
        for (c, q, a), ga in g.groupby(["country", "query_set", "algorithm"]):
            rows.append({"country": c, "query_set": q, "algorithm": a,
                         "r2_postings": _r2(ga.w_busy.to_numpy(np.float64),
                                            pred[ga.index].to_numpy()),
                         "posting_ns": 1e9 * coef[2]})  # fmt: skip
    return pd.DataFrame(rows)


def _balanced_units(costs: CostParams) -> np.ndarray:
    return np.array([costs.c_m, costs.c_o, costs.c_ins, costs.c_del], dtype=np.float64)


def _per_set(workers: pd.DataFrame, units: pd.DataFrame, costs: CostParams, by: str):
    """For each (country, query set): its rows, counts, busy seconds, balanced load, the
    least-squares seconds per cost unit and the calibrated unit costs of its ``by`` group."""
    coef = {r[by]: np.array([r[f"{k}_ns"] for k in KINDS]) / 1e9 for _, r in units.iterrows()}
    ratios = _balanced_units(costs)
    for (c, q), g in workers.groupby(["country", "query_set"]):
        x = g[list(KINDS.values())].to_numpy(np.float64)
        y = g["w_busy"].to_numpy(np.float64)
        load = x @ ratios
        scale = float(load @ y / max(load @ load, 1e-300))  # seconds per cost unit on the set
        yield c, q, g, x, y, load, scale, ratios, coef[g[by].iloc[0]]


def fit_table(
    workers: pd.DataFrame, units: pd.DataFrame, costs: CostParams, by: str = "query_set"
) -> pd.DataFrame:
    """Per (country, query set, algorithm): R^2 of the busy time against the balanced load
    (``costs``' ratios, one least-squares scale per set) and against the calibrated units
    of its ``by`` group (``units`` from :func:`calibrate`)."""
    rows = []
    for c, q, g, x, y, load, scale, _, cal in _per_set(workers, units, costs, by):
        for a, ga in g.groupby("algorithm"):
            idx = g.index.get_indexer(ga.index)
            rows.append(
                {
                    "country": c,
                    "query_set": q,
                    "algorithm": a,
                    "workers": len(ga),
                    "r2_balanced": _r2(y[idx], scale * load[idx]),
                    "r2_calibrated": _r2(y[idx], x[idx] @ cal),
                    "seconds_per_unit": scale,
                }
            )
    return pd.DataFrame(rows)


def kind_errors(
    workers: pd.DataFrame, units: pd.DataFrame, costs: CostParams, by: str = "query_set"
) -> pd.DataFrame:
    """Per (country, query set, tuple kind): the busy seconds the balanced model misplaces
    on that kind, ``(scale * ratio_k - calibrated_k) * count_k`` summed over the workers,
    as a share of their measured busy time (positive: the model charges the kind too
    much). ``scale`` is the set's least-squares seconds per cost unit."""
    rows = []
    for c, q, _, x, y, _, scale, ratios, cal in _per_set(workers, units, costs, by):
        for j, k in enumerate(KINDS):
            err = float(((scale * ratios[j] - cal[j]) * x[:, j]).sum())
            rows.append(
                {"country": c, "query_set": q, "kind": k, "error_share": err / max(y.sum(), 1e-12),
                 "charged_s": float(scale * ratios[j] * x[:, j].sum()),
                 "measured_s": float(cal[j] * x[:, j].sum())}
            )  # fmt: skip
    return pd.DataFrame(rows)


@dataclass
class CostClock:
    """Definition 1 against the clock for one frame of runs: ``workers`` (one row per run
    and worker, with ``predicted``: the balanced load in seconds), the calibrated ``units``,
    the ``fit`` per (set, partitioner) with the per-posting R^2 beside it, the ``errors``
    per tuple kind."""

    workers: pd.DataFrame
    units: pd.DataFrame
    fit: pd.DataFrame
    errors: pd.DataFrame


def against_the_clock(frame: pd.DataFrame, costs: CostParams, by: str = "query_set") -> CostClock:
    """:func:`worker_frame`, :func:`calibrate`, :func:`fit_table` (joined with
    :func:`posting_fit`) and :func:`kind_errors` on the runs of ``frame``, whose
    partitioners balanced ``costs``."""
    keys = ["country", "query_set", "algorithm"]
    workers = worker_frame(frame)
    units = calibrate(workers, by)
    fit = fit_table(workers, units, costs, by).merge(
        posting_fit(workers, by)[[*keys, "r2_postings"]], on=keys
    )
    scale = workers.merge(
        fit[["country", "query_set", "seconds_per_unit"]].drop_duplicates(),
        on=["country", "query_set"],
        how="left",
    )["seconds_per_unit"].to_numpy()
    load = workers[list(KINDS.values())].to_numpy(np.float64) @ _balanced_units(costs)
    return CostClock(
        workers.assign(predicted=scale * load), units, fit, kind_errors(workers, units, costs, by)
    )
