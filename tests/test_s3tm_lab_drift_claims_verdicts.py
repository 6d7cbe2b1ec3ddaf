"""Notebook 05's claims rows (routelab.s3tm.lab.drift.claims) on hand-made trend rows: every
verdict each rule can give, and notes that follow the verdict."""

from __future__ import annotations

import pandas as pd
import pytest

from routelab.s3tm.lab.drift import claims as dc

KEYS = {"claim", "paper", "paper_value", "measured", "verdict", "note", "kind", "timing"}


def _trends(rel_slopes, rel_se, drops=(1.0, 1.5, 1.4, 1.3), decreasing=(False,) * 4, n=7):
    """``trend_tests`` rows for hash, gFCL, gNFCL, SALB (later mean 100, ``n`` windows)."""
    return pd.DataFrame(
        {
            "dataset": "tweets",
            "learn_on": "all",
            "method": ["hash", "gFCL", "gNFCL", "SALB"],
            "drop": list(drops),
            "later_mean": 100.0,
            "slope": [100 * r for r in rel_slopes],
            "slope_se": [100 * e for e in rel_se],
            "relative_slope": list(rel_slopes),
            "p_decreasing": 0.5,
            "decreasing": list(decreasing),
            "windows_tested": n,
        }
    )


FLAT = _trends([0.0] * 4, [0.001] * 4)


def _row(trends, gain=FLAT):
    rows = dc.drift_claims(trends, gain, windows="w")
    for r in rows:
        assert set(r) == KEYS and r["kind"] == "claim" and not r["timing"]
    return rows


# --------------------------------------------------------------------------- the trend rule


@pytest.mark.parametrize(
    ("slope", "se", "verdict"),
    [
        (0.0, 0.001, "holds"),  # bounds ~ +-0.2 %: a 2 % decrease ruled out
        (0.05, 0.005, "holds"),  # rising is no decrease
        (-0.05, 0.005, "fails"),  # upper bound ~ -4 %: beyond the margin
        (0.0, 0.03, "inconclusive"),  # bounds ~ +-6 %: straddle -2 %
    ],
)
def test_no_trend_verdict_each_outcome(slope, se, verdict):
    row = pd.Series(
        {"windows_tested": 7, "later_mean": 1.0, "slope_se": se, "relative_slope": slope}
    )
    assert dc.no_trend_verdict(row).verdict == verdict


def test_no_trend_verdict_not_comparable_with_two_windows():
    row = pd.Series({"windows_tested": 2, "later_mean": 1.0, "slope_se": 0.1, "relative_slope": 0})
    assert dc.no_trend_verdict(row).verdict == "not comparable"


# --------------------------------------------------------------------------- the rows


def test_drift_row_every_verdict_and_its_note():
    rows = _row(FLAT)
    assert [r["verdict"].verdict for r in rows] == ["holds", "holds"]
    assert "not shown" not in rows[0]["note"] and "not shown" not in rows[1]["note"]
    # one learned method decays 5 %/window, two are flat: partly, the note names it
    decay = _trends([0.0, -0.05, 0.0, 0.0], [0.005] * 4)
    (row, _) = _row(decay)
    assert row["verdict"].verdict == "partly"
    assert "not shown for gFCL: a decrease beyond the margin" in row["note"]
    assert "gNFCL" not in row["note"]
    # every learned method decays: fails
    (row, _) = _row(_trends([-0.05] * 4, [0.005] * 4))
    assert row["verdict"].verdict == "fails" and "SALB: a decrease beyond the margin" in row["note"]
    # wide intervals: the windows cannot decide
    (row, _) = _row(_trends([0.0] * 4, [0.03] * 4))
    assert row["verdict"].verdict == "inconclusive"
    assert "SALB: a decrease beyond the margin not ruled out" in row["note"]
    # no drop after week 0 for SALB
    (row, _) = _row(_trends([0.0] * 4, [0.001] * 4, drops=(1.0, 1.5, 1.4, 0.9)))
    assert row["verdict"].verdict == "partly" and "SALB: no drop after week 0" in row["note"]
    # too few windows
    (row, _) = _row(_trends([0.0] * 4, [0.001] * 4, n=2))
    assert row["verdict"].verdict == "not comparable"


def test_hash_note_follows_the_learned_methods():
    # hash declines 3 %/window, the learned methods do not: the note says so
    hash_down = _trends([-0.03, 0.0, 0.0, 0.0], [0.001] * 4, decreasing=(True,) + (False,) * 3)
    (row, _) = _row(hash_down)
    assert row["verdict"].verdict == "holds"
    assert "hash (which learns nothing) declines significantly (-3.0%/window)" in row["note"]
    assert "while the learned mappings do not" in row["note"] and "part of" not in row["note"]
    # hash and gFCL decline: part of gFCL's decline is the workload
    both = _trends([-0.03, -0.05, 0.0, 0.0], [0.001] * 4, decreasing=(True,) + (False,) * 3)
    (row, _) = _row(both)
    assert row["verdict"].verdict == "partly" and "part of the decline" in row["note"]


def test_gain_row_note_follows_its_verdict():
    (_, row) = _row(FLAT, gain=_trends([0.0, 0.0, -0.05, 0.0], [0.005] * 4))
    assert row["verdict"].verdict == "partly" and "not shown for gNFCL" in row["note"]
    (_, row) = _row(FLAT)
    assert row["verdict"].verdict == "holds" and "not shown" not in row["note"]


def _windows(values):
    return pd.DataFrame(
        [
            {"dataset": "tweets", "learn_on": "all", "method": m, "window": w, "throughput": t}
            for m, ts in values.items()
            for w, t in enumerate(ts)
        ]
    )


def test_advantage_claim_every_verdict_and_its_note():
    row = dc.advantage_claim(_windows({"SALB": [5, 4, 4, 4], "hash": [3, 3, 3, 3]}))
    assert row["verdict"].verdict == "holds" and "best elsewhere" not in row["note"]
    row = dc.advantage_claim(_windows({"SALB": [5, 4, 2, 4], "hash": [3, 3, 3, 3]}))
    assert row["verdict"].verdict == "partly" and "window 2: hash" in row["note"]
    row = dc.advantage_claim(_windows({"SALB": [5, 2, 2, 4], "hash": [3, 3, 3, 3]}))
    assert row["verdict"].verdict == "fails" and "window 1: hash, window 2: hash" in row["note"]
    row = dc.advantage_claim(_windows({"SALB": [5], "hash": [3]}))  # week 0 only
    assert row["verdict"].verdict == "not comparable"
