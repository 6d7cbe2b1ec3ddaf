"""Notebook 13's claims (declared in claims.toml). Every row is about our own setting -- one
stream through five papers' routers -- so every row is kind "beyond" (never counted in a
paper's tally) or a check. The windows of one stream are not independent repeats: each
comparison is judged on a moving-block bootstrap over the paired windows
(:func:`routelab.claims.direction_block_bootstrap`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from routelab import claims
from routelab.compare.routers import SYSTEMS_BY_NAME, system_of

#: "bounded": SALB's imbalance at the larger N within this factor of the smaller N's
BOUNDED = 1.5
#: the smallest growth of hashing's imbalance that counts as growing
GROWTH = 0.1
#: PKG's "orders of magnitude": its max - avg load at most a tenth of key grouping's
ORDER = 10.0
#: consecutive windows per bootstrap block
BLOCK = 3
#: the rows, declared once (claims.toml beside this module)
ROWS = claims.declarations(__file__)
#: the rows pairing two routers at the smaller N: the routers, the column of window series,
#: which way the first lies from the second and by what margin
VERSUS = {
    "pkg_vs_kg": ("pkg_global", "kg", "window_excess", "below", ORDER - 1),
    "text_copies": ("frequency", "kd-tree", "window_replication", "above", 0.0),
    "dispatcher_drops": ("hybrid", "SALB", "window_replication", "below", 0.0),
}


def _pair(frame: pd.DataFrame, column: str, *routers: tuple[str, int]) -> list[np.ndarray]:
    """The window series of ``column`` of each (router, N), paired by window (:func:`_paired`)."""
    series = []
    for router, n in routers:
        at = (frame.system == system_of(router)) & (frame.router == router) & (frame.n_workers == n)
        series.append(np.asarray(frame[at].iloc[0][column], float) if at.any() else np.zeros(0))
    return _paired(*series)


def _paired(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """``a`` and ``b`` cut to the same length, on the windows where both are finite and > 0."""
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    return [a[ok], b[ok]]


def _bounded(a: np.ndarray, b: np.ndarray) -> claims.Verdict:
    """``a / b`` within :data:`BOUNDED` either way, on the block-bootstrap interval."""
    if len(a) < 6:
        return claims.not_comparable("fewer than 6 windows")
    r, lo, hi = (math.log(x) for x in claims.block_bootstrap_ratio(a, b, block=BLOCK))
    return claims.equivalent(r, lo, hi, math.log(BOUNDED), repeats=len(a))


def _ratio(a: np.ndarray, b: np.ndarray) -> str:
    """``a / b`` with its block-bootstrap interval, as every measured text shows it."""
    if len(a) < 2:
        return "fewer than 2 windows"
    r, lo, hi = claims.block_bootstrap_ratio(a, b, block=BLOCK)
    return f"{r:.3g}x [{lo:.3g}, {hi:.3g}] over {len(a)} windows (block bootstrap)"


def _versus(
    key: str, a: np.ndarray, b: np.ndarray, expected: str, margin: float = 0.0, **slots: object
) -> dict:
    """Row ``key``: whether ``a / b`` lies ``expected`` 1 (beyond ``margin``)."""
    verdict = claims.direction_block_bootstrap(a, b, expected=expected, margin=margin, block=BLOCK)
    return _graded(key, verdict, ratio=_ratio(a, b), **slots)


def _graded(key: str, verdict: claims.Verdict, **slots: object) -> dict:
    """The declared row ``key`` with its measured text and note filled from ``slots``."""
    row = ROWS[key]
    return row.graded(verdict, row.text("note", **slots), **slots)


def rows(
    frame: pd.DataFrame, drift: pd.DataFrame, small: int, big: int, equal: bool | None, scale: str
) -> list[dict]:
    """The rows declared in claims.toml beside this module (a drift row for each system with
    rows in ``drift``); ``equal``: whether S3-TM's and PS2Stream's answers (region ignored)
    coincided, ``None`` if not compared."""
    pk = frame[(frame["router"] == "pkg_global") & (frame["n_workers"] == small)]
    per_key = pk["workers_per_key"].to_numpy(float) if "workers_per_key" in pk else []
    keys = ROWS["pkg_vs_kg"].text("keys", n=np.nanmax(per_key)) if len(per_key) else ""
    slots = dict(
        small=small, big=big, scale=scale, keys=keys, BOUNDED=BOUNDED, ORDER=ORDER, BLOCK=BLOCK
    )
    hashing = _pair(frame, "window_imbalance", ("hash", big), ("hash", small))
    salb = _pair(frame, "window_imbalance", ("SALB", big), ("SALB", small))
    grows = claims.direction_block_bootstrap(*hashing, expected="above", margin=GROWTH, block=BLOCK)
    both = claims.combine([grows, _bounded(*salb)])
    ratios = dict(hash=_ratio(*hashing), salb=_ratio(*salb))
    out = [_graded("hash_grows_salb_bounded", both, **ratios, **slots)]
    for key, (a, b, column, expected, margin) in VERSUS.items():
        x, y = _pair(frame, column, (a, small), (b, small))
        out.append(_versus(key, x, y, expected, margin, **slots))
    for system in (s.name for s in SYSTEMS_BY_NAME.values() if not s.learns_online):
        d = drift[drift["system"] == system] if len(drift) else drift
        if not d.empty:
            x, y = _paired(d["adapted"].to_numpy(), d["static"].to_numpy())
            ms, router = d["relearn_s"].median() * 1e3, d["router"].iloc[0]
            out.append(_versus(f"drift {system}", x, y, "below", ms=ms, router=router, **slots))
    same = ROWS["same_answer"]
    if equal is None:
        measured, verdict = same.text("not_compared"), "not comparable"
    elif equal:
        measured, verdict = same.text("equal"), "holds"
    else:
        measured, verdict = same.text("differ"), "fails"
    return [*out, same.row(measured, claims.Verdict(verdict, same.rule))]
