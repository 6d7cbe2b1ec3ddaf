"""PKG notebook 07: the sweep grids (one simulator point per configuration) of Table II and
Fig. 2 (:func:`imbalance_points`), Fig. 3 (:func:`timeline_points`, :func:`drift_summary`)
and Fig. 4 (:func:`source_skew_points`, :func:`source_shares`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.grouping.lab.pkg.cases import TABLE2_SCHEMES, StreamCase

if TYPE_CHECKING:
    pass


def _point(
    case: StreamCase, scheme: str, n_workers: int, n_sources: int = 1, seed: int = 0, **extra
) -> dict[str, Any]:
    return {
        "stream": case.name,
        **case.params,
        "scheme": scheme,
        "n_workers": int(n_workers),
        "n_sources": int(n_sources),
        "seed": int(seed),
        **extra,
    }


def imbalance_points(
    cases: Sequence[StreamCase],
    workers: Sequence[int],
    sources: Sequence[int],
    *,
    n_probes: int = 1000,
    n_checkpoints: int = 100,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Table II (the :data:`TABLE2_SCHEMES` with one source) and Fig. 2 (PKG with
    local estimation, without and with probing, at each number of sources), per stream.

    Points of one stream are adjacent so each Spark worker builds a stream once.
    """
    points = []
    for case in cases:
        interval = case.probe_interval(n_probes)
        for w in workers:
            for scheme in TABLE2_SCHEMES:
                points.append(_point(case, scheme, w, 1, seed, n_checkpoints=n_checkpoints))
            for s in sources:
                points.append(_point(case, "pkg_local", w, s, seed, n_checkpoints=n_checkpoints))
                points.append(
                    _point(
                        case,
                        "pkg_probe",
                        w,
                        s,
                        seed,
                        n_checkpoints=n_checkpoints,
                        probe_interval=interval,
                    )
                )
    return points


def timeline_points(
    cases: Sequence[StreamCase],
    workers: Sequence[int],
    n_sources: int = 5,
    *,
    n_probes: int = 1000,
    n_checkpoints: int = 200,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Fig. 3: ``I(t)`` through time for H, G, L and L-P at ``n_sources`` sources;
    L-P both as the paper says (a probe sets the estimates to the actual loads, ``L5P``) and
    with the estimates set to actual // S (``L5P/S``, a variant)."""
    points = []
    for case in cases:
        for w in workers:
            common = {"output": "timeline", "n_checkpoints": n_checkpoints}
            points.append(_point(case, "kg", w, 1, seed, **common))
            points.append(_point(case, "pkg_global", w, 1, seed, **common))
            points.append(_point(case, "pkg_local", w, n_sources, seed, **common))
            for reset in ("actual", "share"):  # the paper's reading and the /S variant
                points.append(
                    _point(
                        case,
                        "pkg_probe",
                        w,
                        n_sources,
                        seed,
                        probe_interval=case.probe_interval(n_probes),
                        probe_reset=reset,
                        **common,
                    )
                )
    return points


SOURCE_SPLITS = {"skewed": "movielens_edges", "uniform": "movielens_movies"}
"""Fig. 4's two ways to split MovieLens edges on sources: by user, or round robin."""


def source_skew_points(
    workers: Sequence[int],
    sources: Sequence[int],
    *,
    limit: int | None = None,
    n_checkpoints: int = 100,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Fig. 4 (Sect. V-B Q3): PKG with local estimation on MovieLens edges whose
    sources are key grouped by user (``skewed``) or round robin (``uniform``); the key sent
    to the workers is the movie in both cases."""
    params = {} if limit is None else {"stream_limit": int(limit)}
    return [
        {
            "stream": stream,
            **params,
            "scheme": "pkg_local",
            "n_workers": int(w),
            "n_sources": int(s),
            "seed": int(seed),
            "n_checkpoints": n_checkpoints,
        }
        for stream in SOURCE_SPLITS.values()
        for s in sources
        for w in workers
    ]


def skew_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4 rows with a ``split`` column (``skewed`` / ``uniform``) from the stream name."""
    by_stream = {stream: split for split, stream in SOURCE_SPLITS.items()}
    return rows.assign(split=rows["stream"].map(by_stream))


def source_shares(
    sources: Sequence[int], *, limit: int | None = None, seed: int = 0
) -> pd.DataFrame:
    """How uneven the user-keyed split of Fig. 4 is: the busiest source's share of the
    messages against the ``1/S`` of a uniform split."""
    from routelab.grouping.lab.streams import movielens_edges

    rows = []
    for s in sources:
        ks = movielens_edges(int(s), seed=seed, limit=limit)
        share = float(np.bincount(ks.sources, minlength=int(s)).max() / ks.sources.size)
        rows.append({"n_sources": int(s), "max_source_share": share, "uniform_share": 1.0 / s})
    return pd.DataFrame(rows)


def drift_summary(keys: np.ndarray, times: np.ndarray, period: float) -> dict[str, float]:
    """How much the key distribution moves between consecutive ``period``-second slices
    (Sect. V-A: CT's "popular cashtags change from week to week"): number of slices, how
    many different keys are the slice's most frequent, the range of the slice's ``p1``, and
    the median and max total-variation distance between consecutive slices (0 = same
    distribution, 1 = disjoint keys)."""
    if not period > 0:
        raise ValueError(f"period must be > 0, got {period!r}")
    t = np.asarray(times, dtype=np.float64)
    slices = np.floor((t - t[0]) / period).astype(np.int64)
    shares = pd.crosstab(slices, np.asarray(keys, dtype=np.int64), normalize="index")
    tv = 0.5 * shares.diff().abs().sum(axis=1).iloc[1:]
    top = shares.max(axis=1)
    return {
        "period_s": float(period),
        "slices": int(len(shares)),
        "distinct_top_keys": int(shares.idxmax(axis=1).nunique()),
        "p1_min": float(top.min()),
        "p1_max": float(top.max()),
        "tv_median": float(tv.median()) if len(tv) else 0.0,
        "tv_max": float(tv.max()) if len(tv) else 0.0,
    }
