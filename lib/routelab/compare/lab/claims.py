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
    declarations,
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
#: the rows, declared once (claims.toml beside this module)
ROWS = declarations(__file__)


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


def rows(
    frame: pd.DataFrame, drift: pd.DataFrame, small: int, big: int, equal: bool | None, scale: str
) -> list[dict]:
    """Every row (module docstring); ``equal``: whether S3-TM's and PS2Stream's answers
    (region ignored) coincided, ``None`` if not compared."""
    imb, rep = "window_imbalance", "window_replication"
    h_big, h_small = _pair(frame, ("S3-TM", "hash", big), ("S3-TM", "hash", small), imb)
    s_big, s_small = _pair(frame, ("S3-TM", "SALB", big), ("S3-TM", "SALB", small), imb)
    out = [
        ROWS["hash_grows_salb_bounded"].row(
            f"imbalance at N={big} / N={small}: hash {_fmt(h_big, h_small)}; SALB {_fmt(s_big, s_small)}",
            combine([_dir(h_big, h_small, "above", GROWTH), _bounded(s_big, s_small)]),
            scale + f"; bounded = within {BOUNDED}x",
        )
    ]
    pkg, kg = _pair(
        frame, ("key grouping", "pkg_global", small), ("key grouping", "kg", small),
        "window_excess",
    )  # fmt: skip
    pk = frame[(frame["router"] == "pkg_global") & (frame["n_workers"] == small)]
    per_key = pk["workers_per_key"].to_numpy(float) if "workers_per_key" in pk else np.zeros(0)
    out.append(ROWS["pkg_vs_kg"].row(
        f"max - avg messages per worker, PKG / KG at N={small}: {_fmt(pkg, kg)}"
        + (f"; PKG sends each key to at most {np.nanmax(per_key):.0f} workers" if len(per_key)
           else ""),
        _dir(pkg, kg, "below", ORDER - 1),
        scale + f"; PKG's own imbalance (max - avg), an order of magnitude read as {ORDER:g}x",
    ))  # fmt: skip
    fr, kd = _pair(frame, ("PS2Stream", "frequency", small), ("PS2Stream", "kd-tree", small), rep)
    out.append(ROWS["text_copies"].row(
        f"object copies per post, frequency / kd-tree at N={small}: {_fmt(fr, kd)}",
        _dir(fr, kd, "above"),
        scale + "; a check: a post with terms on several workers is copied to each by "
        "construction of text partitioning",
    ))  # fmt: skip
    ps, s3 = _pair(frame, ("PS2Stream", "hybrid", small), ("S3-TM", "SALB", small), rep)
    out.append(ROWS["dispatcher_drops"].row(
        f"copies per post, PS2Stream hybrid / S3-TM SALB at N={small}: {_fmt(ps, s3)}",
        _dir(ps, s3, "below"),
        scale + "; a check: a post outside every interest's square is dropped by PS2Stream's "
        "dispatcher by construction, not by S3-TM, which has no regions",
    ))  # fmt: skip
    for system in (s.name for s in SYSTEMS_BY_NAME.values() if not s.learns_online):
        d = drift[drift["system"] == system] if len(drift) else drift
        if d.empty:
            continue
        a, b = _paired(d["adapted"].to_numpy(), d["static"].to_numpy())
        router = d["router"].iloc[0]
        out.append(ROWS[f"drift {system}"].row(
            f"{router}, re-learned / learned once: {_fmt(a, b)}; re-learning took "
            f"{d['relearn_s'].median() * 1e3:.0f} ms per window (median)",
            _dir(a, b, "below"),
            scale + "; one stream: the windows are paired and resampled in blocks of "
            f"{BLOCK} consecutive windows, not taken as independent repeats",
        ))  # fmt: skip
    same = ROWS["same_answer"]
    out.append(
        same.row(
            "not compared"
            if equal is None
            else ("identical pair sets" if equal else "the pair sets differ"),
            Verdict(
                "not comparable" if equal is None else "holds" if equal else "fails", same.rule
            ),
            "a check of the two implementations on the common stream",
        )
    )
    return out
