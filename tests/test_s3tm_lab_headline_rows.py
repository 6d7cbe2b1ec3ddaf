"""The headline rows added to the claims tables of notebooks 01 and 03-06, on hand-made
frames: each rule's verdicts, and notes that change with the verdict."""

from __future__ import annotations

import math

import pandas as pd

from routelab.corpus.lab import claims as cc
from routelab.s3tm.lab.drift import claims as dc
from routelab.s3tm.lab.matching import claims as mc
from routelab.s3tm.lab.routing import claims as rc
from routelab.s3tm.lab.shedding import claims as sc


def _v(row):
    return row["verdict"].verdict


# --------------------------------------------------------------------------- 01 (Sect. 6.1)


def test_word_pairs_not_comparable_with_the_size_from_the_numbers():
    row = cc.word_pairs_row({"posts": 84_021, "word_pairs": 500_000})
    assert _v(row) == "not comparable" and "12x fewer" in row["verdict"].rule
    assert row["measured"] == "500,000 pairs in 84,021 posts (5.95 per post)"
    big = cc.word_pairs_row({"posts": 2_000_000, "word_pairs": 9_000_000})
    assert _v(big) == "not comparable" and "another corpus" in big["verdict"].rule


def test_stemming_check_each_verdict():
    assert _v(cc.stemming_row({"stem": True, "stem_mode": "original"})) == "holds"
    assert _v(cc.stemming_row({"stem": True, "stem_mode": "martin"})) == "direction only"
    assert _v(cc.stemming_row({"stem": False})) == "fails"
    assert _v(cc.stemming_row({})) == "not comparable"
    assert cc.stemming_row({})["kind"] == "check"


def test_stop_words_check_each_verdict():
    row = cc.stop_words_row({"stopwords": "default"})
    assert _v(row) == "not comparable" and "Mallet's list is not redistributable" in (
        row["verdict"].rule
    )
    assert _v(cc.stop_words_row({"stopwords": "custom (0)"})) == "fails"
    assert "custom (40)" in cc.stop_words_row({"stopwords": "custom (40)"})["measured"]
    assert _v(cc.stop_words_row({})) == "not comparable"


# --------------------------------------------------------------------------- 03 (Fig. 5)


def _summary(values, metric):
    """Tidy summary rows from {(kind, N): {method: mean}}."""
    return pd.DataFrame(
        [
            dict(dataset="d", kind=k, method=m, n_matchers=n, metric=metric, mean=mu, std=0.0)
            for (k, n), cell in values.items()
            for m, mu in cell.items()
        ]
    )


def _tp(salb, gfcl, gnfcl, hash_, gc=0.1, gfc=0.1):
    return dict(SALB=salb, gFCL=gfcl, gNFCL=gnfcl, hash=hash_, gC=gc, gFC=gfc)


def test_salb_over_graph_at_256():
    ok = {("topic", 256): _tp(2.2, 1.0, 1.0, 0.9)}
    assert _v(rc.salb_over_graph_at_256(_summary(ok, "throughput"))) == "holds"
    small = {("topic", 256): _tp(1.2, 1.0, 1.0, 0.9)}
    row = rc.salb_over_graph_at_256(_summary(small, "throughput"))
    assert _v(row) == "direction only" and "outside the paper's 2.2x" in row["note"]
    worse = {("topic", 256): _tp(0.8, 1.0, 1.0, 0.9)}
    assert _v(rc.salb_over_graph_at_256(_summary(worse, "throughput"))) == "fails"
    short = {("topic", 32): _tp(2.2, 1.0, 1.0, 0.9)}
    row = rc.salb_over_graph_at_256(_summary(short, "throughput"))
    assert _v(row) == "not comparable" and "the grid stops at N = 32" in row["note"]


def test_throughput_order():
    ok = {("tweet", 8): _tp(4, 3, 2.5, 1), ("topic", 8): _tp(4, 3, 2.5, 1)}
    row = rc.throughput_order(_summary(ok, "throughput"))
    assert _v(row) == "holds" and row["note"] == ""
    half = {("tweet", 8): _tp(4, 3, 2.5, 1), ("topic", 8): _tp(4, 2.5, 3, 1)}
    row = rc.throughput_order(_summary(half, "throughput"))
    assert _v(row) == "partly" and "gNFCL ahead of gFCL" in row["note"]
    bad = {("tweet", 8): _tp(4, 1, 2, 3)}
    assert _v(rc.throughput_order(_summary(bad, "throughput"))) == "fails"
    assert _v(rc.throughput_order(_summary(bad, "imbalance"))) == "not comparable"


def _curve(values, kind="tweet"):
    """{N: {method: T}} -> cells of one kind."""
    return {(kind, n): cell for n, cell in values.items()}


def test_near_linear_and_drop_after_128():
    lin = _curve({2: _tp(1, 1, 1, 1), 128: _tp(64, 64, 64, 64), 256: _tp(70, 60, 60, 60)})
    s = _summary(lin, "throughput")
    assert _v(rc.near_linear_to_128(s)) == "holds"
    assert _v(rc.drop_after_128(s)) == "holds"
    slow = _curve({2: _tp(1, 1, 1, 1), 128: _tp(64, 64, 4, 4), 256: _tp(50, 70, 60, 60)})
    s = _summary(slow, "throughput")
    row = rc.near_linear_to_128(s)
    assert _v(row) == "partly" and "gNFCL/tweet" in row["note"]
    row = rc.drop_after_128(s)  # SALB falls, gFCL rises, gNFCL / hash rise: 0/4... hash 15x
    assert _v(row) == "fails" and "SALB/tweet" in row["note"]
    flat = _curve({2: _tp(1, 1, 1, 1), 128: _tp(1, 1, 1, 1)})
    assert _v(rc.near_linear_to_128(_summary(flat, "throughput"))) == "fails"
    short = _summary(_curve({2: _tp(1, 1, 1, 1), 32: _tp(9, 9, 9, 9)}), "throughput")
    assert _v(rc.near_linear_to_128(short)) == "not comparable"
    row = rc.drop_after_128(short)
    assert _v(row) == "not comparable" and "stops at N = 32" in row["note"]


def test_topic_gain_lasts_longer():
    # tweet ratio 2.0 -> 1.0 (keeps 50 %), topic 2.0 -> 1.8 (90 %)
    cells = {
        **_curve({8: _tp(2, 1, 1, 1), 256: _tp(1, 1, 1, 1)}, "tweet"),
        **_curve({8: _tp(2, 1, 1, 1), 256: _tp(1.8, 1, 1, 1)}, "topic"),
    }
    row = rc.topic_gain_lasts_longer(_summary(cells, "throughput"))
    assert _v(row) == "holds" and row["note"] == ""
    swapped = {("tweet" if k == "topic" else "topic", n): c for (k, n), c in cells.items()}
    row = rc.topic_gain_lasts_longer(_summary(swapped, "throughput"))
    assert _v(row) == "fails" and "tweet-based gain keeps more" in row["note"]
    rising = {
        **_curve({8: _tp(1, 1, 1, 1), 256: _tp(2, 1, 1, 1)}, "tweet"),
        **_curve({8: _tp(1, 1, 1, 1), 256: _tp(2, 1, 1, 1)}, "topic"),
    }
    assert _v(rc.topic_gain_lasts_longer(_summary(rising, "throughput"))) == "not comparable"


def test_spread_rows():
    good = {
        ("tweet", 8): _tp(4.6, 3.9, 3.8, 4.8, 2.0, 2.1),
        ("topic", 8): _tp(1.5, 1.4, 1.4, 1.51, 1.1, 1.1),
    }
    s = _summary(good, "spread_routed")
    assert _v(rc.gc_gfc_lowest_spread(s)) == "holds"
    assert _v(rc.salb_spread_slightly_below_hash(s)) == "holds"
    assert _v(rc.topic_spread_below_2(s)) == "holds"
    bad = {
        ("tweet", 8): _tp(5.0, 3.9, 3.8, 4.0, 4.5, 2.1),
        ("topic", 8): _tp(1.5, 1.4, 1.4, 3.0, 1.1, 2.5),
    }
    s = _summary(bad, "spread_routed")
    row = rc.gc_gfc_lowest_spread(s)
    assert _v(row) == "fails" and "not lowest in" in row["note"]
    row = rc.salb_spread_slightly_below_hash(s)
    assert _v(row) == "partly" and "not below hash's" in row["note"]
    row = rc.topic_spread_below_2(s)
    assert _v(row) == "partly" and "reaches 3.00" in row["note"]
    far = {("tweet", 8): _tp(2.0, 1.9, 1.8, 4.0)}
    assert _v(rc.salb_spread_slightly_below_hash(_summary(far, "spread_routed"))) == "partly"
    assert _v(rc.topic_spread_below_2(_summary(far, "spread_routed"))) == "not comparable"


def test_imbalance_rows():
    # SALB 1.1 < hash 1.5 < gFCL/gNFCL at 8 and 32 (2/3 cells); hash passes them at 256
    cells = {
        ("tweet", 8): _tp(1.1, 2.0, 2.2, 1.5),
        ("tweet", 32): _tp(1.1, 2.0, 2.2, 1.5),
        ("tweet", 256): _tp(1.5, 2.5, 2.6, 3.0),
    }
    row = rc.hash_imbalance_passes_graph(_summary(cells, "imbalance"))
    assert _v(row) == "holds" and row["note"] == ""
    never = {("tweet", 8): _tp(1.1, 2.0, 2.2, 1.5), ("tweet", 256): _tp(1.5, 2.5, 2.6, 2.0)}
    assert _v(rc.hash_imbalance_passes_graph(_summary(never, "imbalance"))) == "partly"
    short = {("tweet", 8): _tp(1.1, 2.0, 2.2, 1.5), ("tweet", 32): _tp(1.1, 2.0, 2.2, 1.5)}
    row = rc.hash_imbalance_passes_graph(_summary(short, "imbalance"))
    assert _v(row) == "holds" and "not judged: the grid stops at N = 32" in row["note"]
    assert "not comparable: the grid stops" in row["verdict"].rule
    outside = {("tweet", 8): _tp(3.0, 2.0, 2.2, 1.5), ("tweet", 32): _tp(3.0, 2.0, 2.2, 1.5)}
    assert _v(rc.hash_imbalance_passes_graph(_summary(outside, "imbalance"))) == "fails"
    order = {("tweet", 8): _tp(1, 2.0, 2.2, 1.5), ("topic", 8): _tp(1, 2.3, 2.2, 1.5)}
    assert _v(rc.graph_imbalance_order(_summary(order, "imbalance"))) == "holds"
    half = {("tweet", 8): _tp(1, 2.0, 2.2, 1.5), ("topic", 8): _tp(1, 2.0, 2.2, 1.5)}
    row = rc.graph_imbalance_order(_summary(half, "imbalance"))
    assert _v(row) == "partly" and "reversed in: topic N=8" in row["note"]


def _gains(t):
    """{(kind, N): T without splitting} -> SALB rows of split_gain."""
    return pd.DataFrame(
        [
            dict(
                kind=k,
                method="SALB",
                n_matchers=n,
                fold=0,
                throughput_nosplit=v,
                throughput_split=v,
                throughput_gain=1.0,
            )
            for (k, n), v in t.items()
        ]
    )


def test_no_split_linear_to_64():
    good = _gains({("tweet", 16): 1.0, ("tweet", 64): 4.0, ("tweet", 128): 5.0})
    assert _v(rc.no_split_linear_to_64(good)) == "holds"
    linear = _gains({("tweet", 16): 1.0, ("tweet", 64): 4.0, ("tweet", 128): 8.0})
    assert _v(rc.no_split_linear_to_64(linear)) == "partly"
    bad = _gains({("tweet", 16): 1.0, ("tweet", 64): 1.2, ("tweet", 128): 2.4})
    assert _v(rc.no_split_linear_to_64(bad)) == "fails"
    ablation = _gains({("tweet", 64): 4.0, ("tweet", 128): 5.0, ("tweet", 256): 5.0})
    row = rc.no_split_linear_to_64(ablation)
    assert _v(row) == "holds" and "none below 64" in row["verdict"].rule
    assert _v(rc.no_split_linear_to_64(_gains({("tweet", 32): 1.0}))) == "not comparable"


def test_fig5_headline_rows_lists_the_crossover_as_not_comparable():
    s = pd.concat(
        [
            _summary({("topic", 8): _tp(2, 1, 1, 1)}, "throughput"),
            _summary({("topic", 8): _tp(1.5, 1.4, 1.4, 1.5, 1.1, 1.1)}, "spread_routed"),
            _summary({("topic", 8): _tp(1.1, 2, 2, 1.5)}, "imbalance"),
        ]
    )
    rows = rc.fig5_headline_rows(s, _gains({("topic", 64): 1.0}))
    assert len(rows) == 12
    assert rows[-1]["claim"].startswith("SALB's learning time drops below")
    assert _v(rows[-1]) == "not comparable" and "numba" in rows[-1]["verdict"].rule


# --------------------------------------------------------------------------- 04 (Fig. 3, 7)


def _fig7(values, metric):
    """{(kind, n_subs): {method: mean}} -> Fig. 7 summary rows."""
    return pd.DataFrame(
        [
            dict(kind=k, n_subs=n, method=m, metric=metric, mean=v, std=0.0, n=2)
            for (k, n), cell in values.items()
            for m, v in cell.items()
        ]
    )


def test_fig3_linear():
    line = pd.DataFrame(
        {"unique_words": [1, 2, 3, 4], "ops_per_pub": [2, 4, 6, 8.1], "kind": "tweet"}
    )
    row = mc.fig3_linear(line)
    assert _v(row) == "holds" and "a line explains less" not in row["note"]
    noise = pd.DataFrame(
        {"unique_words": [1, 2, 3, 4], "ops_per_pub": [5, 1, 6, 1], "kind": "tweet"}
    )
    row = mc.fig3_linear(noise)
    assert _v(row) == "fails" and "a line explains less" in row["note"]
    assert _v(mc.fig3_linear(line.head(2))) == "not comparable"


def _m(salb, gfcl, gnfcl, hash_):
    return dict(SALB=salb, gFCL=gfcl, gNFCL=gnfcl, hash=hash_)


def test_tweet_and_topic_gains():
    ok = {("tweet", 1000): _m(1.15, 1.0, 1.0, 0.5), ("tweet", 100_000): _m(1.05, 1.0, 1.0, 0.5)}
    # gFCL up to 100k: geomean(1.15, 1.05) = 1.099
    assert _v(mc.tweet_gains(_fig7(ok, "throughput"))) == "holds"
    big = {("tweet", 1000): _m(2.0, 1.0, 1.0, 0.5)}
    row = mc.tweet_gains(_fig7(big, "throughput"))
    assert _v(row) == "direction only"
    assert "not comparable" not in row["verdict"].rule  # 1000 is below both bounds
    worse = {("tweet", 1000): _m(0.9, 1.0, 1.0, 0.5)}
    assert _v(mc.tweet_gains(_fig7(worse, "throughput"))) == "fails"
    none = {("tweet", 1_000_000): _m(1.15, 1.0, 1.0, 0.5)}
    assert _v(mc.tweet_gains(_fig7(none, "throughput"))) == "not comparable"
    topic = {("topic", 1000): _m(1.42, 1.2, 1.16, 1.0)}
    assert _v(mc.topic_gains(_fig7(topic, "throughput"))) == "holds"
    mixed = {("topic", 1000): _m(1.42, 1.2, 1.16, 1.42)}  # hash part fails
    assert _v(mc.topic_gains(_fig7(mixed, "throughput"))) == "partly"
    assert _v(mc.topic_gains(_fig7(ok, "throughput"))) == "not comparable"


def test_salb_over_hash_size_and_gap_shape():
    cells = {
        ("tweet", 100): _m(1, 1, 1, 1),
        ("tweet", 1000): _m(5, 1, 1, 1),
        ("tweet", 10_000): _m(4.5, 1, 1, 1.0),
        ("topic", 100): _m(1, 1, 1, 1),
        ("topic", 1000): _m(1.5, 1, 1, 1),
        ("topic", 10_000): _m(1.5, 1, 1, 1),
    }
    s = _fig7(cells, "throughput")
    assert _v(mc.salb_over_hash_size(s)) == "holds"
    row = mc.hash_gap_shape(s)  # tweet narrows 5 -> 4.5: fails; topic stable: holds
    assert _v(row) == "partly"
    cells[("tweet", 10_000)] = _m(9, 1, 1, 1)  # still growing at our largest size
    s = _fig7(cells, "throughput")
    assert (
        "not comparable: tweet T(SALB) / T(hash) still grows"
        in mc.salb_over_hash_size(s)["verdict"].rule
    )
    assert _v(mc.hash_gap_shape(s)) == "holds"
    low = {("topic", 100): _m(1.1, 1, 1, 1), ("topic", 1000): _m(1.0, 1, 1, 1)}
    assert _v(mc.salb_over_hash_size(_fig7(low, "throughput"))) == "direction only"
    worse = {("topic", 100): _m(0.5, 1, 1, 1), ("topic", 1000): _m(0.4, 1, 1, 1)}
    assert _v(mc.salb_over_hash_size(_fig7(worse, "throughput"))) == "fails"
    assert _v(mc.hash_gap_shape(_fig7({("tweet", 100): _m(1, 1, 1, 1)}, "throughput"))) == (
        "not comparable"
    )


def test_imbalance_advantage_and_graph_spread():
    cells = {("tweet", 100): _m(1.0, 2, 2, 3.3), ("tweet", 1000): _m(1.0, 2, 2, 2.0)}
    row = mc.imbalance_advantage(_fig7(cells, "imbalance"))
    assert _v(row) == "holds" and row["note"] == ""
    cells[("tweet", 1000)] = _m(2.5, 2, 2, 2.0)
    row = mc.imbalance_advantage(_fig7(cells, "imbalance"))
    assert _v(row) == "partly" and "lowest elsewhere: tweet 1,000" in row["note"]
    grows = {("topic", 100): _m(1.0, 2, 2, 1.2), ("topic", 1000): _m(1.0, 2, 2, 1.7)}
    row = mc.imbalance_advantage(_fig7(grows, "imbalance"))
    assert _v(row) == "holds" and "still grows" in row["verdict"].rule
    sp = {("tweet", 100): _m(2.0, 1.5, 1.6, 2.1), ("topic", 100): _m(1.5, 1.4, 1.4, 1.5)}
    assert _v(mc.graph_spread_below_salb(_fig7(sp, "spread"))) == "holds"
    sp[("topic", 100)] = _m(1.3, 1.4, 1.4, 1.5)
    row = mc.graph_spread_below_salb(_fig7(sp, "spread"))
    assert _v(row) == "partly" and "not lower at: topic 100" in row["note"]
    assert _v(mc.graph_spread_below_salb(_fig7(sp, "imbalance"))) == "not comparable"


def test_matching_headline_rows():
    s = pd.concat(
        [_fig7({("tweet", 100): _m(1, 1, 1, 1)}, m) for m in ("throughput", "spread", "imbalance")]
    )
    curve = pd.DataFrame({"unique_words": [1, 2, 3], "ops_per_pub": [1, 2, 3], "kind": "tweet"})
    rows = mc.headline_rows(s, curve, synthetic_from=50)
    assert len(rows) == 7 and all(r["kind"] == "claim" for r in rows)
    assert "tweet-based 100: 50 real posts" in rows[1]["note"]


# --------------------------------------------------------------------------- 05 (Sect. 6.4)


def _trends(drops):
    return pd.DataFrame(
        {
            "dataset": "tweets",
            "learn_on": "all",
            "method": list(drops),
            "drop": list(drops.values()),
        }
    )


def _windows(values):
    """{method: [(spread, imbalance) per window]} -> drift frame rows."""
    return pd.DataFrame(
        [
            dict(
                dataset="tweets",
                learn_on="all",
                method=m,
                window=w,
                spread_routed=s,
                imbalance=b,
                throughput=1.0,
            )
            for m, ws in values.items()
            for w, (s, b) in enumerate(ws)
        ]
    )


GOOD_DRIFT = {
    "hash": [(2.0, 2.0), (2.1, 2.2), (2.1, 2.2)],
    "gFCL": [(1.5, 1.5), (1.6, 1.8), (1.6, 1.8)],
    "gNFCL": [(1.5, 1.6), (1.6, 1.9), (1.6, 1.9)],
    "SALB": [(1.7, 1.0), (1.8, 1.4), (1.8, 1.4)],
}


def test_drift_headline_rows_hold():
    rows = dc.headline_rows(_trends({"gFCL": 2.0, "gNFCL": 1.9, "SALB": 2.2}), _windows(GOOD_DRIFT))
    assert [_v(r) for r in rows] == ["holds", "holds", "holds"]
    assert "outside" not in rows[0]["note"] and rows[1]["note"] == "" and rows[2]["note"] == ""


def test_drift_headline_rows_other_verdicts():
    bad = {m: list(ws) for m, ws in GOOD_DRIFT.items()}
    bad["SALB"] = [(1.7, 1.0), (1.6, 1.1), (1.6, 1.1)]  # spread falls, imbalance rises least
    bad["gFCL"] = [(1.5, 1.5), (1.4, 1.4), (1.4, 1.4)]
    rows = dc.headline_rows(_trends({"gFCL": 1.2, "gNFCL": 2.0, "SALB": 0.9}), _windows(bad))
    assert [_v(r) for r in rows] == ["partly", "partly", "partly"]
    assert "outside 2x within 1.25x: gFCL x1.20, SALB x0.90" in rows[0]["note"]
    assert "not both rising for: gFCL, SALB" in rows[1]["note"]
    assert "the steepest rise is gNFCL's" in rows[2]["note"]
    small = dc.headline_rows(_trends({"gFCL": 1.3, "gNFCL": 1.3, "SALB": 1.3}), _windows(bad))
    assert _v(small[0]) == "direction only"
    rows = dc.headline_rows(_trends({}), _windows({"hash": GOOD_DRIFT["hash"]}), label="x")
    assert [_v(r) for r in rows] == ["not comparable"] * 3 and rows[0]["claim"].endswith("(x)")


# --------------------------------------------------------------------------- 06 (Sect. 6.5)


def _shed(acc, method="subscription"):
    return pd.DataFrame({"method": method, "m": [math.inf, 3.0, 2.0, 1.0], "accuracy": acc})


def test_accuracy_shape_row():
    row = sc.accuracy_shape_row({"tweet": _shed([1.0, 0.98, 0.95, 0.7])})
    assert _v(row) == "holds" and "not faster" not in row["note"]
    both = {"tweet": _shed([1.0, 0.98, 0.95, 0.7]), "topic": _shed([1.0, 0.7, 0.5, 0.45])}
    row = sc.accuracy_shape_row(both)
    assert (
        _v(row) == "partly" and "not faster at small thresholds: topic/subscription" in row["note"]
    )
    fails = sc.accuracy_shape_row({"tweet": _shed([1.0, 0.7, 0.5, 0.45])})
    assert _v(fails) == "fails"
    two = pd.DataFrame({"method": "subscription", "m": [2.0, 1.0], "accuracy": [1.0, 0.9]})
    assert _v(sc.accuracy_shape_row({"tweet": two})) == "not comparable"


def test_peak_level_row():
    def rep(levels):
        rates = [16_000, 32_000, 2_000]
        return pd.DataFrame({"input_rate": rates, "level_start": [0] * 3, "level_end": levels})

    assert _v(sc.peak_level_row(rep([3, 7, 0]), 8)) == "holds"
    row = sc.peak_level_row(rep([3, 8, 0]), 8)
    assert _v(row) == "direction only" and "needs the top level" in row["note"]
    row = sc.peak_level_row(rep([3, 5, 0]), 8)
    assert _v(row) == "direction only" and "needs the top level" not in row["note"]
    assert _v(sc.peak_level_row(rep([5, 5, 0]), 8)) == "fails"
    assert _v(sc.peak_level_row(pd.DataFrame(columns=["input_rate"]), 8)) == "not comparable"
