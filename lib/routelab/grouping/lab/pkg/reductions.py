"""PKG notebook 07: result rows -> the paper's tables: Table II (:func:`table2`,
:func:`splitting_gain`), Fig. 2 (:func:`local_global_frame`), Sect. V-B Q2
(:func:`routing_overlap`), the variant labels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.claims import geometric_mean
from routelab.grouping.lab.pkg.cases import TABLE2_SCHEMES, StreamCase

if TYPE_CHECKING:
    pass


def variant(scheme: str, n_sources: int, probe_reset: Any = None) -> str:
    """The paper's name of a run: ``H``, ``G``, ``L5``, ``L5P`` (``L5P/S`` for the
    ``probe_reset="share"`` variant); Table II names otherwise."""
    if scheme == "kg":
        return "H"
    if scheme == "pkg_global":
        return "G"
    if scheme == "pkg_local":
        return f"L{int(n_sources)}"
    if scheme == "pkg_probe":
        return f"L{int(n_sources)}P" + ("/S" if probe_reset == "share" else "")
    return TABLE2_SCHEMES.get(scheme, scheme)


def with_labels(rows: pd.DataFrame, cases: Sequence[StreamCase] = ()) -> pd.DataFrame:
    """``rows`` plus ``variant`` and ``stream_label`` columns."""
    out = rows.copy()
    resets = out["probe_reset"] if "probe_reset" in out.columns else [None] * len(out)
    out["variant"] = [
        variant(s, n, r) for s, n, r in zip(out["scheme"], out["n_sources"], resets, strict=True)
    ]
    labels = {c.name: c.label for c in cases}
    out["stream_label"] = out["stream"].map(lambda n: labels.get(n, n))
    return out


def table2(
    rows: pd.DataFrame, value: str = "avg_imbalance", streams: Sequence[str] | None = None
) -> pd.DataFrame:
    """Table II: average imbalance (messages) per stream and scheme (rows) and number of
    workers (columns), one source, global load; only ``streams`` if given (the paper's
    Table II shows WP and TW)."""
    sel = rows[rows["scheme"].isin(list(TABLE2_SCHEMES)) & (rows["n_sources"] == 1)].copy()
    if streams is not None:
        sel = sel[sel["stream"].isin(list(streams))]
    sel["method"] = pd.Categorical(
        sel["scheme"].map(TABLE2_SCHEMES), categories=list(TABLE2_SCHEMES.values()), ordered=True
    )
    return sel.pivot_table(
        index=["stream", "method"], columns="n_workers", values=value, observed=True
    )


def safe_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` with ``0 / 0 = 1`` and ``x / 0 = inf``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a / b
    out[(a == 0) & (b == 0)] = 1.0
    return out


def imbalance_lower_bound(p1: float, n_workers: int) -> float:
    """Sect. IV-A: the two bins of the most frequent key receive a ``p1`` fraction of the
    messages, so ``I(m) / m >= p1/2 - 1/W`` for every scheme with at most two choices."""
    return max(0.0, p1 / 2.0 - 1.0 / n_workers)


def splitting_gain(rows: pd.DataFrame, cases: Sequence[StreamCase]) -> pd.DataFrame:
    """Per stream and ``W``: hashing's and PKG's average imbalance fraction, their ratio
    (the gain of key splitting, Q1), Off-Greedy's, PKG's final imbalance fraction against
    the lower bound of :func:`imbalance_lower_bound`, and where ``W`` sits relative to
    ``1/p1`` and ``2/p1``."""
    by_case = {c.name: c for c in cases}
    sel = rows[rows["n_sources"] == 1]
    frac = sel.pivot_table(
        index=["stream", "n_workers"], columns="scheme", values="avg_imbalance_fraction"
    )
    final = sel[sel["scheme"] == "pkg_global"].set_index(["stream", "n_workers"])
    out = pd.DataFrame(index=frac.index)
    out["hashing"] = frac["kg"]
    out["pkg"] = frac["pkg_global"]
    out["off_greedy"] = frac["off_greedy"]
    out["gain"] = safe_ratio(frac["kg"].to_numpy(), frac["pkg_global"].to_numpy())
    out["pkg_final"] = final["final_imbalance_fraction"]
    streams = out.index.get_level_values("stream")
    workers = out.index.get_level_values("n_workers")
    out["p1"] = [by_case[s].p1 for s in streams]
    out["lower_bound_final"] = [
        imbalance_lower_bound(p, w) for p, w in zip(out["p1"], workers, strict=True)
    ]
    out["below_1/p1"] = workers < 1.0 / out["p1"].to_numpy()
    out["above_2/p1"] = workers > 2.0 / out["p1"].to_numpy()
    return out


def gain_summary(gain: pd.DataFrame) -> pd.DataFrame:
    """:func:`splitting_gain` in one row per stream: ``p1``, the hashing/PKG gain below
    ``1/p1`` (smallest and median) and beyond ``2/p1`` (median), and how far PKG's final
    imbalance sits above the ``p1/2 - 1/W`` bound there (largest excess)."""
    rows = []
    for stream, g in gain.groupby(level="stream", sort=False):
        below, above = g[g["below_1/p1"]], g[g["above_2/p1"]]
        rows.append(
            {
                "stream": stream,
                "p1": g["p1"].iloc[0],
                "W < 1/p1": len(below),
                "min gain": below["gain"].min(),
                "median gain": below["gain"].median(),
                "W > 2/p1": len(above),
                "gain beyond 2/p1": above["gain"].median(),
                "PKG above bound": (above["pkg_final"] - above["lower_bound_final"]).max(),
            }
        )
    return pd.DataFrame(rows).set_index("stream")


def local_global_summary(ratios: pd.DataFrame) -> pd.DataFrame:
    """:func:`local_global_frame` in one row per stream: median and largest L/G, the
    geometric mean and range of LP/L, over every ``S`` and ``W``."""
    rows = []
    for stream, r in ratios.groupby("stream", sort=False):
        rows.append(
            {
                "stream": stream,
                "points": len(r),
                "median L/G": r["L_over_G"].median(),
                "max L/G": r["L_over_G"].max(),
                "geo. mean LP/L": geometric_mean(r["LP_over_L"].to_numpy(), positive_only=True),
                "min LP/L": r["LP_over_L"].min(),
                "max LP/L": r["LP_over_L"].max(),
            }
        )
    return pd.DataFrame(rows).set_index("stream")


def local_global_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Fig. 2 as ratios: per stream, ``S`` and ``W``, the imbalance of L over G and of L-P
    over L (Sect. V-B Q2)."""
    g = rows[rows["scheme"] == "pkg_global"].set_index(["stream", "n_workers"])[
        "avg_imbalance_fraction"
    ]
    local = rows[rows["scheme"].isin(["pkg_local", "pkg_probe"])]
    wide = local.pivot_table(
        index=["stream", "n_sources", "n_workers"],
        columns="scheme",
        values="avg_imbalance_fraction",
    ).reset_index()
    wide["G"] = [g.loc[(s, w)] for s, w in zip(wide["stream"], wide["n_workers"], strict=True)]
    wide["L_over_G"] = safe_ratio(wide["pkg_local"], wide["G"])
    wide["LP_over_L"] = safe_ratio(wide["pkg_probe"], wide["pkg_local"])
    return wide.rename(columns={"pkg_local": "L", "pkg_probe": "LP"})


def routing_overlap(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """How often two routings agree: the fraction of messages sent to the same worker, and
    the Jaccard overlap of their (message, worker) sets, ``a / (2 - a)`` (Sect. V-B Q2)."""
    x = np.asarray(a)
    y = np.asarray(b)
    if x.shape != y.shape or x.size == 0:
        raise ValueError(f"routings must be non-empty and equally long: {x.shape} vs {y.shape}")
    agree = float(np.mean(x == y))
    return {"agreement": agree, "jaccard": agree / (2.0 - agree)}
