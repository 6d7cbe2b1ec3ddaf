"""Notebook 13's claims: statements across the systems that one stream can test, graded
with the shared rules (:mod:`routelab.claims`). Every row is about our own setting -- one
stream through five papers' routers -- so every row is kind "beyond" (never counted in a
paper's tally) or a check (true by construction). The windows of one stream are not
independent repeats: each comparison is judged on a moving-block bootstrap over the paired
windows (:func:`routelab.claims.direction_block_bootstrap`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from routelab.claims import (
    Verdict,
    block_bootstrap_ratio,
    combine,
    direction_block_bootstrap,
    equivalent,
    not_comparable,
)
from routelab.compare.routers import SYSTEMS_BY_NAME

#: "bounded": SALB's imbalance at the larger N within this factor of the smaller N's
BOUNDED = 1.5
#: the smallest growth of hashing's imbalance that counts as growing
GROWTH = 0.1
#: PKG's "orders of magnitude": its max - avg load at most a tenth of key grouping's
ORDER = 10.0
#: consecutive windows per bootstrap block
BLOCK = 3
#: where each system's paper speaks of drift (the systems that learn their configuration
#: on the first windows: ``learns_online`` false)
DRIFT_SECTIONS = {
    "S3-TM": "S3-TM Sect. 6.4 (concept drift)",
    "PS2Stream": "PS2Stream Sect. V-B (the distribution changes; global adjustment)",
    "Fabret": "Fabret et al. Sect. 4 (subscription and event patterns change)",
}


def _series(frame: pd.DataFrame, system: str, router: str, n: int, column: str) -> np.ndarray:
    row = frame[
        (frame["system"] == system) & (frame["router"] == router) & (frame["n_workers"] == n)
    ]
    if row.empty:
        return np.zeros(0)
    return np.asarray(row.iloc[0][column], dtype=np.float64)


def _pair(
    frame: pd.DataFrame, a: tuple[str, str, int], b: tuple[str, str, int], column: str
) -> tuple[np.ndarray, np.ndarray]:
    """Router ``a``'s and router ``b``'s window series, paired by window ((system, router, N))."""
    return _paired(_series(frame, *a, column), _series(frame, *b, column))


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    return a[ok], b[ok]


def _bounded(a: np.ndarray, b: np.ndarray) -> Verdict:
    """``a / b`` within :data:`BOUNDED` either way, on the paired windows' block-bootstrap
    interval."""
    if len(a) < 6:
        return not_comparable("fewer than 6 windows")
    r, lo, hi = block_bootstrap_ratio(a, b, block=BLOCK)
    return equivalent(math.log(r), math.log(lo), math.log(hi), math.log(BOUNDED), repeats=len(a))


def _dir(a: np.ndarray, b: np.ndarray, expected: str, margin: float = 0.0) -> Verdict:
    return direction_block_bootstrap(a, b, expected=expected, margin=margin, block=BLOCK)


def _fmt(a: np.ndarray, b: np.ndarray) -> str:
    if len(a) < 2:
        return "fewer than 2 windows"
    r, lo, hi = block_bootstrap_ratio(a, b, block=BLOCK)
    return f"{r:.3g}x [{lo:.3g}, {hi:.3g}] over {len(a)} windows (block bootstrap)"


def _row(
    claim: str, paper: str, paper_value: str, measured: str, verdict: Verdict, note: str = "",
    kind: str = "beyond",
) -> dict:  # fmt: skip
    return {"claim": claim, "paper": paper, "paper_value": paper_value, "measured": measured,
            "verdict": verdict, "note": note, "kind": kind}  # fmt: skip


def rows(
    frame: pd.DataFrame, drift: pd.DataFrame, small: int, big: int, equal: bool | None, scale: str
) -> list[dict]:
    """Every row (module docstring); ``equal``: whether S3-TM's and PS2Stream's answers
    (region ignored) coincided, ``None`` if not compared."""
    out = []
    imb, rep = "window_imbalance", "window_replication"
    h_big, h_small = _pair(frame, ("S3-TM", "hash", big), ("S3-TM", "hash", small), imb)
    s_big, s_small = _pair(frame, ("S3-TM", "SALB", big), ("S3-TM", "SALB", small), imb)
    out.append(_row(
        "hashing words to matchers (key grouping) grows more imbalanced with N; SALB stays bounded",
        "S3-TM Sect. 5 vs PKG Sect. 3 (key grouping)",
        "key grouping's imbalance grows with the workers; SALB balances the load",
        f"imbalance at N={big} / N={small}: hash {_fmt(h_big, h_small)}; SALB {_fmt(s_big, s_small)}",
        combine([_dir(h_big, h_small, "above", GROWTH), _bounded(s_big, s_small)]),
        scale + f"; bounded = within {BOUNDED}x",
    ))  # fmt: skip
    pkg, kg = _pair(
        frame, ("key grouping", "pkg_global", small), ("key grouping", "kg", small),
        "window_excess",
    )  # fmt: skip
    pk = frame[(frame["router"] == "pkg_global") & (frame["n_workers"] == small)]
    per_key = pk["workers_per_key"].to_numpy(float) if "workers_per_key" in pk else np.zeros(0)
    out.append(_row(
        "partial key grouping balances the authors and hashtags orders of magnitude better "
        "than key grouping",
        "PKG Sects. II, V (imbalance I(t) = max - avg load)",
        "PKG's imbalance orders of magnitude below KG's",
        f"max - avg messages per worker, PKG / KG at N={small}: {_fmt(pkg, kg)}"
        + (f"; PKG sends each key to at most {np.nanmax(per_key):.0f} workers" if len(per_key)
           else ""),
        _dir(pkg, kg, "below", ORDER - 1),
        scale + f"; PKG's own imbalance (max - avg), an order of magnitude read as {ORDER:g}x",
    ))  # fmt: skip
    fr, kd = _pair(frame, ("PS2Stream", "frequency", small), ("PS2Stream", "kd-tree", small), rep)
    out.append(_row(
        "text partitioning copies objects that space partitioning sends once",
        "PS2Stream Sect. IV-A",
        "text partitioning duplicates objects, space partitioning queries",
        f"object copies per post, frequency / kd-tree at N={small}: {_fmt(fr, kd)}",
        _dir(fr, kd, "above"),
        scale + "; a check: a post with terms on several workers is copied to each by "
        "construction of text partitioning", kind="check",
    ))  # fmt: skip
    ps, s3 = _pair(frame, ("PS2Stream", "hybrid", small), ("S3-TM", "SALB", small), rep)
    out.append(_row(
        "PS2Stream's dispatcher forwards fewer copies than S3-TM for the same interests "
        "(it drops posts whose words have no live query in their cell)",
        "PS2Stream Sect. IV-C vs S3-TM Sect. 2",
        "objects with no live query term in their cell are discarded (PS2Stream)",
        f"copies per post, PS2Stream hybrid / S3-TM SALB at N={small}: {_fmt(ps, s3)}",
        _dir(ps, s3, "below"),
        scale + "; a check: a post outside every interest's square is dropped by PS2Stream's "
        "dispatcher by construction, not by S3-TM, which has no regions", kind="check",
    ))  # fmt: skip
    for system in (s.name for s in SYSTEMS_BY_NAME.values() if not s.learns_online):
        d = drift[drift["system"] == system] if len(drift) else drift
        if d.empty:
            continue
        a, b = _paired(d["adapted"].to_numpy(), d["static"].to_numpy())
        router = d["router"].iloc[0]
        out.append(_row(
            f"{system}: re-learning the configuration before each window lowers the imbalance",
            DRIFT_SECTIONS[system],
            "adapting to the drifting workload keeps the load balanced",
            f"{router}, re-learned / learned once: {_fmt(a, b)}; re-learning took "
            f"{d['relearn_s'].median() * 1e3:.0f} ms per window (median)",
            _dir(a, b, "below"),
            scale + "; one stream: the windows are paired and resampled in blocks of "
            f"{BLOCK} consecutive windows, not taken as independent repeats",
        ))  # fmt: skip
    out.append(_row(
        "S3-TM and PS2Stream return the same matches for the same interests when the regions "
        "are ignored",
        "S3-TM Sect. 2 (AND of words) = PS2Stream Sect. III-A (AND keywords, whole box)",
        "the same answer",
        "not compared" if equal is None else ("identical pair sets" if equal else "the pair sets differ"),
        Verdict("not comparable" if equal is None else "holds" if equal else "fails",
                "holds if the two answers are the same set of (interest, post) pairs"),
        "a check of the two implementations on the common stream", kind="check",
    ))  # fmt: skip
    return out
