"""Notebook 04's claims rows, on hand-made frames whose verdicts are known."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from routelab.report import CLAIM_KEYS, NotebookReport
from routelab.s3tm.lab.matching import claims as mc


def _summary(values: dict[tuple[str, int, str], tuple[float, float, float]]) -> pd.DataFrame:
    """(kind, n_subs, method) -> (relative_throughput, spread, imbalance) as summary rows."""
    rows = [
        {"kind": k, "n_subs": n, "method": m, "metric": metric, "mean": v}
        for (k, n, m), vals in values.items()
        for metric, v in zip(("relative_throughput", "spread", "imbalance"), vals, strict=True)
    ]
    return pd.DataFrame(rows)


SALB_WINS = _summary(
    {
        ("tweet", 10, "SALB"): (1.0, 2.0, 1.1),
        ("tweet", 10, "hash"): (0.5, 3.0, 1.5),
        ("topic", 10, "SALB"): (1.0, 1.5, 1.0),
        ("topic", 10, "hash"): (0.8, 2.5, 1.2),
    }
)
GFCL_WINS_ONCE = _summary(
    {
        ("tweet", 10, "SALB"): (1.0, 2.0, 1.0),
        ("tweet", 10, "hash"): (1.0, 3.0, 1.5),
        ("tweet", 10, "gFCL"): (1.25, 1.0, 2.0),
        ("topic", 10, "SALB"): (1.0, 1.5, 1.0),
        ("topic", 10, "hash"): (0.8, 2.5, 1.2),
    }
)


def v(row) -> str:
    return row["verdict"].verdict


def test_rows_are_accepted_by_the_report():
    row = mc.salb_keeps_advantage(SALB_WINS)
    claim = NotebookReport("xx", show=False).claim(**row)
    assert tuple(asdict(claim)) == tuple(CLAIM_KEYS) and claim.verdict == "holds"


def test_salb_advantage_and_hash_claims():
    row = mc.salb_keeps_advantage(SALB_WINS)
    assert v(row) == "holds" and row["note"] == ""
    row = mc.salb_keeps_advantage(GFCL_WINS_ONCE)
    assert v(row) == "partly" and "(1/2)" in row["verdict"].rule  # best in 1 of 2 workloads
    assert row["measured"] == "best method per (kind, size): SALB in 1, gFCL in 1"
    # where gFCL wins: spread 1.0 / 2.0, imbalance 2.0 / 1.0
    assert "beaten in 1 of 2 workloads" in row["note"] and "0.50-0.50x" in row["note"]
    assert "2.00-2.00x" in row["note"]
    row = mc.salb_beats_hash(SALB_WINS)
    assert v(row) == "holds" and row["measured"] == "SALB/hash throughput: 1.250-2.00"
    row = mc.salb_beats_hash(GFCL_WINS_ONCE)  # ties hash on tweets: not above it
    assert v(row) == "partly" and row["note"] == "not above hash at: tweet 10 (1.000)"
    loses = SALB_WINS.copy()
    loses.loc[(loses["method"] == "hash") & (loses["metric"] == "relative_throughput"), "mean"] = (
        2.0
    )
    assert v(mc.salb_beats_hash(loses)) == "fails"
    assert v(mc.salb_keeps_advantage(loses)) == "fails"


def test_lasp_and_drop_claims():
    gain = pd.DataFrame({"lasp_over_random": [0.5, 0.9]})
    row = mc.lasp_cuts_load(gain, [10, 100])
    assert v(row) == "holds"
    assert (
        row["measured"] == "LASP/random total lookups: 0.50-0.90 (SALB, [10, 100] subs, both kinds)"
    )
    assert v(mc.lasp_cuts_load(pd.DataFrame({"lasp_over_random": [0.5, 1.0]}), [10])) == "partly"
    assert v(mc.lasp_cuts_load(pd.DataFrame({"lasp_over_random": [1.5, 1.0]}), [10])) == "fails"
    grid = pd.DataFrame(
        {
            "kind": ["tweet", "tweet", "topic", "topic"],
            "n_subs": [10, 1000, 10, 1000],
            "method": "SALB",
            "placer": "LASP",
            "throughput": [100.0, 25.0, 100.0, 80.0],
        }
    )
    row = mc.topic_falls_slower(grid, 10, 1000)
    assert v(row) == "holds"
    assert row["measured"] == "SALB throughput 10 → 1,000 subs falls 4.00x (tweet) vs 1.25x (topic)"
    grid.loc[3, "throughput"] = 10.0  # topic now falls 10x, faster than tweet's 4x
    assert v(mc.topic_falls_slower(grid, 10, 1000)) == "fails"


def test_dataflow_claim():
    assert v(mc.dataflow_exact(5, 5, True, True)) == "holds"
    row = mc.dataflow_exact(5, 6, False, True)
    assert v(row) == "fails" and row["measured"] == "5 vs 6 matches; streaming replay equal: True"
    assert row["kind"] == "check"  # our implementation, not a paper claim


def test_rows_name_the_workloads_with_synthetic_subscriptions():
    assert mc.synthetic_note([10, 100, 1000], None, "x") == "x"
    assert mc.synthetic_note([10, 100], 100) == ""  # 100 = the corpus size: all real
    note = mc.synthetic_note([1000, 10, 5000], 100, "gFCL best")
    assert note == (
        "gFCL best; tweet-based 1,000, 5,000: 100 real posts + synthetic topic-model subscriptions"
    )
    row = mc.salb_keeps_advantage(GFCL_WINS_ONCE, synthetic_from=5)
    assert (
        row["note"].startswith("SALB is beaten") and "tweet-based 10: 5 real posts" in row["note"]
    )
    assert v(row) == "partly"  # the note never changes the verdict
    assert mc.salb_beats_hash(SALB_WINS, synthetic_from=5)["note"].startswith("tweet-based 10:")
    gain = pd.DataFrame({"lasp_over_random": [0.5, 0.9]})
    assert "100, 1,000" in mc.lasp_cuts_load(gain, [10, 100, 1000], synthetic_from=50)["note"]


def test_lasp_note_follows_the_verdict():
    gain = pd.DataFrame(
        {
            "kind": ["tweet", "topic"],
            "n_subs": [1000, 1000],
            "method": "SALB",
            "lasp_over_random": [0.8, 0.9],
        }
    )
    row = mc.lasp_cuts_load(gain, [1000])
    assert v(row) == "holds" and row["note"] == ""
    gain.loc[1, "lasp_over_random"] = 1.05
    row = mc.lasp_cuts_load(gain, [1000])
    assert v(row) == "partly"
    assert row["note"] == "LASP/random total lookups >= 1 at: topic 1,000 SALB (1.05)"
    gain["lasp_over_random"] = [1.2, 1.05]
    row = mc.lasp_cuts_load(gain, [1000])
    assert v(row) == "fails" and "tweet 1,000 SALB (1.20)" in row["note"]
    # no workload at all: nothing to grade
    empty = gain.iloc[:0]
    assert v(mc.lasp_cuts_load(empty, [1000])) == "not comparable"


def test_advantage_and_hash_notes_follow_the_verdict():
    assert mc.salb_keeps_advantage(SALB_WINS)["note"] == ""
    assert mc.salb_keeps_advantage(GFCL_WINS_ONCE)["note"].startswith("SALB is beaten in 1")
    assert mc.salb_beats_hash(SALB_WINS)["note"] == ""
    assert mc.salb_beats_hash(GFCL_WINS_ONCE)["note"].startswith("not above hash at: tweet 10")


def test_topic_falls_slower_not_comparable_without_a_drop():
    grid = pd.DataFrame(
        {
            "kind": ["tweet", "tweet", "topic", "topic"],
            "n_subs": [10, 1000, 10, 1000],
            "method": "SALB",
            "placer": "LASP",
            "throughput": [100.0, float("nan"), 100.0, 80.0],
        }
    )
    assert v(mc.topic_falls_slower(grid, 10, 1000)) == "not comparable"
