"""The claims rows of notebook 03 (routelab.s3tm.lab.routing.claims) on hand-made inputs.

One test per verdict each rule can give (holds, fails, and direction only / partly / not
comparable where reachable); the expected ratios are computed by hand in the comments.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.claims import VERDICTS, Verdict
from routelab.s3tm.lab.routing import claims as rc

KEYS = {"claim", "paper", "paper_value", "measured", "verdict", "note", "kind", "timing"}


def _summary(values, metric):
    """Tidy summary rows from {(kind, N): {method: (mean, std)}}."""
    rows = [
        dict(dataset="d", kind=k, method=m, n_matchers=n, metric=metric, mean=mu, std=sd, n=3)
        for (k, n), cell in values.items()
        for m, (mu, sd) in cell.items()
    ]
    return pd.DataFrame(rows)


def _cell(salb, hash_, gfcl, gnfcl, gc, gfc, std=0.1):
    vals = dict(SALB=salb, hash=hash_, gFCL=gfcl, gNFCL=gnfcl, gC=gc, gFC=gfc)
    return {m: (v, std) for m, v in vals.items()}


def _verdict(row):
    assert set(row) == KEYS
    assert isinstance(row["verdict"], Verdict) and row["verdict"].verdict in VERDICTS
    assert row["kind"] == "claim" and row["paper"] and row["paper_value"]
    return row["verdict"].verdict


GOOD = _cell(4.0, 2.0, 3.0, 3.0, 0.5, 0.4)  # SALB best
LOST = _cell(1.0, 1.0, 2.0, 1.0, 0.5, 0.4)  # gFCL ahead by 1.0 > gFCL's std 0.1


# --------------------------------------------------------------------------- throughput


def test_best_throughput_holds_on_every_cell_and_on_a_tie():
    row = rc.salb_best_throughput(_summary({("topic", 8): GOOD}, "throughput"))
    assert _verdict(row) == "holds" and "1/1" in row["measured"]
    # gFCL ahead by 0.05 < gFCL's std 0.1: a tie, still a win
    tie = {("topic", 8): _cell(4.0, 2.0, 4.05, 3.0, 0.5, 0.4)}
    assert _verdict(rc.salb_best_throughput(_summary(tie, "throughput"))) == "holds"


def test_best_throughput_partly_and_fails():
    half = {("topic", 8): GOOD, ("tweet", 2): LOST}  # 1/2 cells
    row = rc.salb_best_throughput(_summary(half, "throughput"))
    assert _verdict(row) == "partly" and "tweet N=2: gFCL" in row["note"]
    third = {("topic", 8): GOOD, ("tweet", 2): LOST, ("tweet", 4): LOST}  # 1/3 < 1/2
    assert _verdict(rc.salb_best_throughput(_summary(third, "throughput"))) == "fails"


def test_best_throughput_note_explains_spread_vs_balance():
    worse = {("topic", 8): GOOD, ("tweet", 2): LOST}
    # in the lost cell: SALB spread 4.0 vs winner gFCL 3.2 -> +25 %; imbalance 1.1 vs 1.0 -> +10 %
    extra = {("tweet", 2): _cell(4.0, 4.1, 3.2, 3.3, 2.0, 2.0)}
    imb = {("tweet", 2): _cell(1.0, 1.2, 1.1, 1.1, 3.0, 3.0)}
    full = pd.concat(
        [
            _summary(worse, "throughput"),
            _summary({("topic", 8): GOOD, **extra}, "spread_routed"),
            _summary({("topic", 8): GOOD, **imb}, "imbalance"),
        ]
    )
    note = rc.salb_best_throughput(full, words_per_post=7.5)["note"]
    assert "spread is +25%" in note and "imbalance +10%" in note and "7.5 words" in note
    # SALB spreads more, the winner is no better balanced: spread decides; 7.5 > 3.96 words
    assert "spread, not balance, decides them" in note and "weighs spread more" in note


# --------------------------------------------------------------------------- imbalance


def test_lowest_imbalance_holds_partly_fails():
    low = _cell(1.1, 1.5, 1.3, 1.4, 5.0, 9.0, std=0.01)
    high = _cell(1.6, 1.5, 1.3, 1.4, 5.0, 9.0, std=0.01)  # gFCL 1.3 < SALB 1.6
    assert _verdict(rc.salb_lowest_imbalance(_summary({("topic", 8): low}, "imbalance"))) == (
        "holds"
    )
    row = rc.salb_lowest_imbalance(_summary({("topic", 8): low, ("topic", 16): high}, "imbalance"))
    assert _verdict(row) == "partly" and "topic N=16: gFCL" in row["note"]
    cells = {("topic", 8): low, ("topic", 16): high, ("topic", 32): high}
    assert _verdict(rc.salb_lowest_imbalance(_summary(cells, "imbalance"))) == "fails"


def test_imbalance_at_8_sizes():
    # B(gNFCL) / B(SALB) = 6.6 / 1.1 = 6.0, B(gFCL) / B(SALB) = 4.4 / 1.1 = 4.0: the paper's
    holds = {("tweet", 8): _cell(1.1, 2.0, 4.4, 6.6, 9.0, 9.0)}
    row = rc.salb_imbalance_at_8(_summary(holds, "imbalance"))
    assert _verdict(row) == "holds" and "B(gNFCL) / B(SALB) = 6.00" in row["measured"]
    # 1.32 / 1.1 = 1.2 and 1.21 / 1.1 = 1.1: lower, but far from 6x / 4x
    near = {("tweet", 8): _cell(1.1, 2.0, 1.21, 1.32, 9.0, 9.0)}
    row = rc.salb_imbalance_at_8(_summary(near, "imbalance"))
    assert _verdict(row) == "direction only" and "cannot be reached" in row["note"]
    assert "B(gFCL) = 1.210 < 4" in row["note"] and "B(gNFCL) = 1.320 < 6" in row["note"]
    # gNFCL 6x (holds) but gFCL 1.0 / 1.1 < 1 (fails): partly
    mixed = {("tweet", 8): _cell(1.1, 2.0, 1.0, 6.6, 9.0, 9.0)}
    assert _verdict(rc.salb_imbalance_at_8(_summary(mixed, "imbalance"))) == "partly"
    # both below SALB's
    worse = {("tweet", 8): _cell(2.0, 2.0, 1.0, 1.5, 9.0, 9.0)}
    assert _verdict(rc.salb_imbalance_at_8(_summary(worse, "imbalance"))) == "fails"
    no8 = {("tweet", 16): _cell(1.1, 2.0, 4.4, 6.6, 9.0, 9.0)}
    assert _verdict(rc.salb_imbalance_at_8(_summary(no8, "imbalance"))) == "not comparable"


# --------------------------------------------------------------------------- gC / gFC


def test_gc_gfc_order_of_magnitude():
    # best contender 4.0; gC 0.4 -> 10x, gFC 0.2 -> 20x: the smaller gap 10x holds
    far = {("topic", 8): _cell(4.0, 2.0, 3.0, 3.0, 0.4, 0.2)}
    (row,) = rc.gc_gfc_not_contenders(_summary(far, "throughput"))
    assert _verdict(row) == "holds" and "the smaller: 10.0x" in row["measured"]
    assert "(topic)" in row["claim"]
    # gC 0.8 -> 5x (gFC 20x): worse, but not 10x
    near = {("topic", 8): _cell(4.0, 2.0, 3.0, 3.0, 0.8, 0.2)}
    (row,) = rc.gc_gfc_not_contenders(_summary(near, "throughput"))
    assert _verdict(row) == "direction only" and "gC 5.0x" in row["measured"]
    # gC 5.0 beats the best contender 4.0: gap 0.8
    above = {("tweet", 8): _cell(4.0, 2.0, 3.0, 3.0, 5.0, 0.2)}
    (row,) = rc.gc_gfc_not_contenders(_summary(above, "throughput"))
    assert _verdict(row) == "fails"


def test_gc_gfc_one_row_per_kind_and_split_note():
    cells = {
        ("topic", 8): _cell(4.0, 2.0, 3.0, 3.0, 0.4, 0.2),
        ("tweet", 8): _cell(4.0, 2.0, 3.0, 3.0, 2.0, 0.2),
    }
    gains = pd.DataFrame(
        [
            dict(kind="tweet", method="gC", n_matchers=8, fold=0, throughput_gain=3.0),
            dict(kind="tweet", method="gFC", n_matchers=8, fold=0, throughput_gain=1.5),
        ]
    )
    rows = rc.gc_gfc_not_contenders(_summary(cells, "throughput"), gains)
    assert [_verdict(r) for r in rows] == ["holds", "direction only"]
    assert "gC by 3.0x" in rows[1]["note"] and "may not have split" in rows[1]["note"]
    assert rows[0]["note"] == ""
    no_gfc = _summary({("topic", 8): GOOD}, "throughput")
    (row,) = rc.gc_gfc_not_contenders(no_gfc[no_gfc["method"] != "gFC"])
    assert _verdict(row) == "not comparable"


# --------------------------------------------------------------------------- spread


def test_load_aware_spread_holds_partly_fails():
    good = _cell(4.6, 4.8, 3.9, 3.8, 2.5, 2.4)  # max(3.9, 3.8) < min(4.6, 4.8)
    bad = _cell(1.5, 1.6, 1.55, 1.4, 1.2, 1.2)  # gFCL 1.55 > SALB 1.5
    row = rc.load_aware_graph_spread(_summary({("tweet", 8): good}, "spread_routed"))
    assert _verdict(row) == "holds"
    row = rc.load_aware_graph_spread(
        _summary({("tweet", 8): good, ("tweet", 2): bad}, "spread_routed")
    )
    assert _verdict(row) == "partly" and "tweet N=2" in row["note"]
    cells = {("tweet", 8): good, ("tweet", 2): bad, ("tweet", 4): bad}
    assert _verdict(rc.load_aware_graph_spread(_summary(cells, "spread_routed"))) == "fails"


# --------------------------------------------------------------------------- SALB vs hash


def _ratio_cells(kind, ratios):
    """Throughput cells with T(hash) = 1 and T(SALB) = ratio at N = 2, 4, ..."""
    return {(kind, 2 ** (i + 1)): _cell(r, 1.0, 1.0, 1.0, 0.1, 0.1) for i, r in enumerate(ratios)}


def test_salb_vs_hash_every_n():
    row = rc.salb_vs_hash_every_n(_summary(_ratio_cells("topic", [1.5, 2.0]), "throughput"))
    assert _verdict(row) == "holds" and "from 1.50 to 2.00" in row["measured"]
    row = rc.salb_vs_hash_every_n(_summary(_ratio_cells("topic", [0.9, 2.0]), "throughput"))
    assert _verdict(row) == "partly" and "topic N=2: 0.900" in row["note"]
    row = rc.salb_vs_hash_every_n(_summary(_ratio_cells("topic", [0.9, 1.0, 2.0]), "throughput"))
    assert _verdict(row) == "fails"  # 1/3: a ratio of exactly 1 is no win


def test_salb_vs_hash_up_to_sizes():
    # topic: largest ratio 2.4 over N; paper 2.50, band [2.0, 3.125]
    row = rc.salb_vs_hash_up_to(_summary(_ratio_cells("topic", [2.4, 1.5]), "throughput"), "topic")
    assert _verdict(row) == "holds" and "= 2.40 (at N = 2; +140%)" in row["measured"]
    assert "150%" in row["claim"]
    # tweet: 1.3 < 2.30 / 1.25 = 1.84, still > 1
    row = rc.salb_vs_hash_up_to(_summary(_ratio_cells("tweet", [1.1, 1.3]), "throughput"), "tweet")
    assert _verdict(row) == "direction only" and "grid's largest N = 4" in row["note"]
    row = rc.salb_vs_hash_up_to(_summary(_ratio_cells("tweet", [0.8, 0.9]), "throughput"), "tweet")
    assert _verdict(row) == "fails"
    row = rc.salb_vs_hash_up_to(_summary(_ratio_cells("tweet", [2.3]), "throughput"), "topic")
    assert _verdict(row) == "not comparable"


def _cv_at(n_by_fold):
    rows = []
    for n, folds in n_by_fold.items():
        for fold, (s, h) in enumerate(folds):
            for method, t in (("SALB", s), ("hash", h)):
                rows.append(
                    dict(
                        dataset="d",
                        kind="topic",
                        method=method,
                        n_matchers=n,
                        fold=fold,
                        throughput=t,
                    )
                )
    return pd.DataFrame(rows)


def test_salb_vs_hash_at_256():
    # folds 6/2 = 3.0 and 5/2.5 = 2.0: mean 2.50, within 1.25x of 2.56
    cv = _cv_at({64: [(6.0, 2.0), (5.0, 2.5)], 256: [(6.0, 2.0), (5.0, 2.5)]})
    row = rc.salb_vs_hash_at_256(cv)
    assert _verdict(row) == "holds" and "2.50" in row["measured"]
    # 3/2 = 1.5 and 2.5/2.5 = 1.0: mean 1.25 < 2.56 / 1.25 = 2.048
    row = rc.salb_vs_hash_at_256(_cv_at({256: [(3.0, 2.0), (2.5, 2.5)]}))
    assert _verdict(row) == "direction only" and "1.25x rather than" in row["note"]
    row = rc.salb_vs_hash_at_256(_cv_at({256: [(1.0, 2.0), (2.0, 2.5)]}))  # 0.5, 0.8
    assert _verdict(row) == "fails"
    row = rc.salb_vs_hash_at_256(cv[cv["n_matchers"] == 64])
    assert _verdict(row) == "not comparable" and "stops at N = 64" in row["note"]
    named = rc.salb_vs_hash_at_256(cv, hash_variant="hash without splitting")
    assert named["claim"].endswith(" [hash without splitting]")
    # a grid beyond 256 is graded at 256: 512's ratio 1.0 is ignored
    wide = _cv_at({256: [(6.0, 2.0), (5.0, 2.5)], 512: [(1.0, 1.0), (1.0, 1.0)]})
    assert _verdict(rc.salb_vs_hash_at_256(wide)) == "holds"


# --------------------------------------------------------------------------- corpus size


def _curve(curves):
    return pd.DataFrame(
        [
            dict(kind="topic", method=m, size=s, metric="throughput", mean=t, std=0.0)
            for m, t_by_size in curves.items()
            for s, t in t_by_size.items()
        ]
    )


# 125k -> 500k is two doublings, 500k -> 1M one
RISING = {125_000: 10.0, 500_000: 12.1, 1_000_000: 12.2}  # +10 %/doubling below, +0.8 % above
FLAT = {125_000: 10.0, 500_000: 10.2, 1_000_000: 10.25}  # +1 % below: no returns at all
STEEP = {125_000: 10.0, 500_000: 12.1, 1_000_000: 14.0}  # +15.7 % above


def test_corpus_size_holds_when_returns_diminish():
    row = rc.corpus_size_diminishing(_curve({"SALB": RISING}))
    assert _verdict(row) == "holds"
    assert "+10.0% per doubling below, +0.8% above" in row["measured"]


def test_corpus_size_fails_when_flat_everywhere():
    row = rc.corpus_size_diminishing(_curve({"SALB": FLAT}))
    assert _verdict(row) == "fails" and "flat at every size" in row["note"]


def test_corpus_size_fails_when_still_growing_and_partly():
    row = rc.corpus_size_diminishing(_curve({"SALB": STEEP}))
    assert _verdict(row) == "fails" and "still >= 5%" in row["note"]
    row = rc.corpus_size_diminishing(_curve({"SALB": RISING, "gFCL": FLAT}))
    assert _verdict(row) == "partly" and "gFCL/topic" in row["note"]
    # hash is not a learned method: its flat curve is ignored
    assert _verdict(rc.corpus_size_diminishing(_curve({"SALB": RISING, "hash": FLAT}))) == "holds"


def test_corpus_size_needs_the_knee():
    row = rc.corpus_size_diminishing(_curve({"SALB": {10_000: 10.0, 100_000: 14.0}}))
    assert _verdict(row) == "not comparable"


# --------------------------------------------------------------------------- splitting


def _gains(rows):
    """rows: (kind, N, T split, T no split) for SALB, one fold each."""
    return pd.DataFrame(
        [
            dict(
                kind=k,
                method="SALB",
                n_matchers=n,
                fold=0,
                throughput_split=s,
                throughput_nosplit=o,
                throughput_gain=s / o,
            )
            for k, n, s, o in rows
        ]
    )


def test_splitting_needed():
    row = rc.splitting_needed(_gains([("topic", 256, 30.0, 10.0), ("tweet", 256, 20.0, 10.0)]))
    assert _verdict(row) == "holds" and "topic: 3.00x, tweet: 2.00x" in row["measured"]
    row = rc.splitting_needed(_gains([("topic", 256, 30.0, 10.0), ("tweet", 256, 9.0, 10.0)]))
    assert _verdict(row) == "partly"
    row = rc.splitting_needed(_gains([("topic", 256, 9.0, 10.0), ("tweet", 256, 9.0, 10.0)]))
    assert _verdict(row) == "fails"


def test_no_split_stops_scaling():
    # no split: 10 -> 10.5 (1.05 <= 1.10); with split 12 -> 20
    row = rc.no_split_stops_scaling(
        _gains([("topic", 128, 12.0, 10.0), ("topic", 256, 20.0, 10.5)])
    )
    assert _verdict(row) == "holds" and "topic 1.05; with splitting: topic 1.67" in row["measured"]
    # no split: 10 -> 15 (1.5 > 1.10)
    row = rc.no_split_stops_scaling(
        _gains([("topic", 128, 12.0, 10.0), ("topic", 256, 20.0, 15.0)])
    )
    assert _verdict(row) == "fails"
    row = rc.no_split_stops_scaling(
        _gains(
            [
                ("topic", 128, 12.0, 10.0),
                ("topic", 256, 20.0, 10.5),
                ("tweet", 128, 12.0, 10.0),
                ("tweet", 256, 20.0, 15.0),
            ]
        )
    )
    assert _verdict(row) == "partly"
    row = rc.no_split_stops_scaling(_gains([("topic", 64, 12.0, 10.0), ("topic", 256, 2.0, 1.0)]))
    assert _verdict(row) == "not comparable"


# --------------------------------------------------------------------------- learning time


def _timing(slopes, repeats=3, noise=0.02, extra=None):
    """Times growing as size ** slope, ``repeats`` timings per (method, size), each off by a
    factor exp(+-noise) in turn (so the fitted slope is exactly ``slope`` and its interval
    has a width set by ``noise``)."""
    sizes = [1e4, 1e5, 1e6]
    rows = []
    for m, k in slopes.items():
        for s in sizes:
            for r in range(repeats):
                wobble = np.exp(noise * (r - (repeats - 1) / 2))
                rows.append(
                    dict(method=m, size=s, repeat=r, learn_wall_seconds=1e-5 * s**k * wobble)
                )
    frame = pd.DataFrame(rows)
    return frame.assign(**(extra or {}))


def _timing_row(slopes, **kw):
    row = rc.learning_time_trend(_timing(slopes, **kw))
    assert row["timing"] is True
    return row


def test_learning_time_holds_partly_fails():
    row = _timing_row({"SALB": 1.0, "gFCL": 2.0, "gC": 1.5})
    assert _verdict(row) == "holds" and "SALB 1.00 [" in row["measured"]
    assert row["verdict"].repeats == 3 and "(median of 3 timing(s))" in row["measured"]
    assert "lies above" not in row["note"]
    row = _timing_row({"SALB": 1.0, "gFCL": 2.0, "gC": 0.5})
    assert _verdict(row) == "partly" and "SALB's slope 1.00" in row["note"]  # 1/2
    assert "gC's 0.50" in row["note"]
    row = _timing_row({"SALB": 1.0, "gFCL": 0.9, "gC": 0.5, "gFC": 1.2})
    assert _verdict(row) == "fails"  # 1/3 < PARTLY_AT


def test_learning_time_inconclusive_when_the_intervals_overlap():
    # slopes 1.0 and 1.05 with timings off by +-20 %: the 95 % intervals overlap
    row = _timing_row({"SALB": 1.0, "gFCL": 1.05}, noise=0.4)
    assert _verdict(row) == "inconclusive" and "overlap" in row["verdict"].rule
    assert row["verdict"].repeats == 3


def test_learning_time_needs_repeated_timings():
    # one timing per point: a timing claim cannot rest on it
    row = _timing_row({"SALB": 1.0, "gFCL": 2.0}, repeats=1)
    assert _verdict(row) == "not comparable" and "1 timing(s) per (method, size)" in row["note"]
    row = _timing_row({"SALB": 1.0, "gFCL": 2.0}, repeats=2)
    assert _verdict(row) == "not comparable"
    assert (
        _verdict(
            rc.learning_time_trend(_timing({"SALB": 1.0, "gFCL": 2.0}, repeats=2), min_repeats=2)
        )
        == "holds"
    )


def test_learning_time_not_comparable():
    row = _timing_row({"gFCL": 2.0, "gC": 1.5})
    assert _verdict(row) == "not comparable"


def test_learning_time_note_follows_the_numbers():
    # SALB's times: 1e-5 s * size; gFCL's 1e-5 s * size**2 (slower at 1M posts)
    row = _timing_row({"SALB": 1.0, "gFCL": 2.0})
    assert "faster than the fastest METIS method (gFCL)" in row["note"]
    # gFCL 1e-5 * size**0.5 is faster at 1M posts, and SALB's slope is above its slope;
    # the word counts say why: occurrences grow with the posts, the vocabulary slowly
    extra = {"nnz": 0, "n_learned_words": 0}
    frame = _timing({"SALB": 1.0, "gFCL": 0.5}, extra=extra)
    frame["nnz"] = frame["size"] * 7
    frame["n_learned_words"] = frame["size"] ** 0.5
    row = rc.learning_time_trend(frame)
    assert _verdict(row) == "fails"
    assert "slower than the fastest METIS method (gFCL)" in row["note"]
    assert "occurrences grow with slope 1.00" in row["note"] and "slope 0.50" in row["note"]


def test_salb_vs_hash_rows_name_the_baseline():
    summary = _summary(_ratio_cells("topic", [1.5, 2.4]), "throughput")
    cv = _cv_at({256: [(6.0, 2.0), (5.0, 2.5)]})
    rows = rc.salb_vs_hash_rows(summary, cv, ["topic"], "hash without splitting")
    assert [_verdict(r) for r in rows] == ["holds", "holds", "holds"]
    assert all(r["claim"].endswith("[hash without splitting]") for r in rows)
    assert "up to 150%" in rows[1]["claim"] and "256 nodes" in rows[2]["claim"]


def test_best_throughput_tie_uses_the_std_of_the_method_compared_with():
    # gFCL ahead of SALB by 0.3: within gFCL's std 0.5 -> a tie (SALB still wins), even
    # though SALB's own std is 0.01
    cell = _cell(4.0, 2.0, 4.3, 3.0, 0.5, 0.4)
    cell["SALB"], cell["gFCL"] = (4.0, 0.01), (4.3, 0.5)
    row = rc.salb_best_throughput(_summary({("topic", 8): cell}, "throughput"))
    assert _verdict(row) == "holds" and row["note"] == ""
    # the same gap with the stds swapped: gFCL's std 0.01 < 0.3 -> SALB loses the cell,
    # although SALB's own std 0.5 would have called it a tie
    cell["SALB"], cell["gFCL"] = (4.0, 0.5), (4.3, 0.01)
    row = rc.salb_best_throughput(_summary({("topic", 8): cell}, "throughput"))
    assert _verdict(row) == "fails" and "topic N=8: gFCL 4.3 +- 0.01 vs SALB 4" in row["note"]


def test_lowest_imbalance_tie_uses_the_std_of_the_method_compared_with():
    # gFCL's imbalance 1.2 below SALB's 1.3: within gFCL's std 0.2 -> tie; SALB's std 0.01
    cell = _cell(1.3, 1.5, 1.2, 1.4, 5.0, 9.0, std=0.01)
    cell["gFCL"] = (1.2, 0.2)
    assert _verdict(rc.salb_lowest_imbalance(_summary({("topic", 8): cell}, "imbalance"))) == (
        "holds"
    )
    cell["gFCL"], cell["SALB"] = (1.2, 0.01), (1.3, 0.2)
    row = rc.salb_lowest_imbalance(_summary({("topic", 8): cell}, "imbalance"))
    assert _verdict(row) == "fails" and "topic N=8: gFCL 1.2" in row["note"]


def test_best_throughput_note_names_balance_when_the_winner_is_better_balanced():
    # lost cell: SALB spread 3.0 vs gFCL 3.2 (SALB lower), imbalance gFCL 1.0 vs SALB 1.5
    full = pd.concat(
        [
            _summary({("tweet", 2): LOST}, "throughput"),
            _summary({("tweet", 2): _cell(3.0, 4.1, 3.2, 3.3, 2.0, 2.0)}, "spread_routed"),
            _summary({("tweet", 2): _cell(1.5, 1.2, 1.0, 1.1, 3.0, 3.0)}, "imbalance"),
        ]
    )
    note = rc.salb_best_throughput(full, words_per_post=3.0)["note"]
    assert "balance, not spread, decides them" in note and "no more than its" in note
    # a holding row has no note at all
    assert rc.salb_best_throughput(_summary({("topic", 8): GOOD}, "throughput"))["note"] == ""


def test_imbalance_at_8_note_follows_the_numbers():
    # B(gFCL) = 5.0, B(gNFCL) = 7.0 could reach 4x / 6x, but B(SALB) = 2.0 keeps the ratios
    # at 2.5 / 3.5: direction only, and no "cannot be reached" explanation
    reachable = {("tweet", 8): _cell(2.0, 2.0, 5.0, 7.0, 9.0, 9.0)}
    row = rc.salb_imbalance_at_8(_summary(reachable, "imbalance"))
    assert _verdict(row) == "direction only" and row["note"] == ""
    holds = {("tweet", 8): _cell(1.1, 2.0, 4.4, 6.6, 9.0, 9.0)}
    assert rc.salb_imbalance_at_8(_summary(holds, "imbalance"))["note"] == ""


def test_splitting_notes_name_the_kinds():
    row = rc.splitting_needed(_gains([("topic", 256, 30.0, 10.0), ("tweet", 256, 9.0, 10.0)]))
    assert row["note"] == "splitting does not raise SALB's throughput for: tweet (0.90x)"
    row = rc.splitting_needed(_gains([("topic", 256, 30.0, 10.0), ("tweet", 256, 20.0, 10.0)]))
    assert row["note"] == ""
    rows = [("topic", 128, 12.0, 10.0), ("topic", 256, 20.0, 10.5)]
    assert rc.no_split_stops_scaling(_gains(rows))["note"] == ""
    rows += [("tweet", 128, 12.0, 10.0), ("tweet", 256, 20.0, 15.0)]
    note = rc.no_split_stops_scaling(_gains(rows))["note"]
    assert note == "without splitting SALB still speeds up from 128 to 256 for: tweet (1.50x)"


def test_gc_gfc_split_note_says_when_splitting_does_not_lift():
    cells = {("tweet", 8): _cell(4.0, 2.0, 3.0, 3.0, 2.0, 0.2)}
    gains = pd.DataFrame(
        [
            dict(kind="tweet", method="gC", n_matchers=8, fold=0, throughput_gain=0.9),
            dict(kind="tweet", method="gFC", n_matchers=8, fold=0, throughput_gain=1.0),
        ]
    )
    (row,) = rc.gc_gfc_not_contenders(_summary(cells, "throughput"), gains)
    assert _verdict(row) == "direction only" and "gC by 0.9x" in row["note"]
    assert "may not have split" not in row["note"]


def test_learning_time_below_the_papers_corpus_sizes_is_not_comparable():
    small = _timing({"SALB": 1.0, "gFCL": 2.0}).assign(size=lambda f: f["size"] / 100)
    row = rc.learning_time_trend(small)  # 100 .. 10,000 posts: milliseconds of learning
    assert _verdict(row) == "not comparable" and "10,000 posts" in row["verdict"].rule
