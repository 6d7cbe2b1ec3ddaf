"""The headline-claim rows of notebooks 07_pkg (PKG Sect. V) and 08_fish (FISH Sect. 6):
each rule on hand-made frames with the columns its builder reads, one test per verdict it
can give, and its note following the verdict."""

from __future__ import annotations

import pandas as pd

from routelab.grouping.lab import pkg as xp
from routelab.grouping.lab.fish import claims as cf
from routelab.grouping.lab.pkg import claims as pc

KEYS = {"claim", "paper", "paper_value", "measured", "verdict", "note", "kind", "timing"}


def _by(rows: list[dict], start: str) -> dict:
    hits = [r for r in rows if r["claim"].startswith(start)]
    assert len(hits) == 1, (start, [r["claim"] for r in rows])
    assert set(hits[0]) == KEYS and hits[0]["kind"] == "claim" and hits[0]["paper_value"]
    return hits[0]


def _v(row: dict) -> str:
    return row["verdict"].verdict


# ================================================================= PKG (notebook 07)

TW = xp.StreamCase("tweet_words", {}, 1000, 10, 0.0267, 1.0, "real", "TW")  # the paper's p1
WP = xp.StreamCase("unigram_sample", {}, 1000, 10, 0.0932, 1.0, "semi", "WP")
WORKERS = (5, 10, 50, 100)


def _gain(pkg: dict[str, list[float]], cases=(TW, WP)) -> pd.DataFrame:
    """A splitting_gain frame: PKG's fraction per stream at W = 5, 10, 50, 100."""
    p1 = {c.name: c.p1 for c in cases}
    rows = [
        {"stream": s, "n_workers": w, "hashing": 0.1, "pkg": v, "off_greedy": v,
         "pkg_final": 0.0, "lower_bound_final": 0.0}
        for s, vs in pkg.items() for w, v in zip(WORKERS, vs, strict=True)
    ]  # fmt: skip
    f = pd.DataFrame(rows).set_index(["stream", "n_workers"])
    f["gain"] = f["hashing"] / f["pkg"]
    w = f.index.get_level_values("n_workers")
    s = f.index.get_level_values("stream")
    f["p1"] = [p1[x] for x in s]
    f["below_1/p1"] = w < 1 / f["p1"].to_numpy()
    f["above_2/p1"] = w > 2 / f["p1"].to_numpy()
    return f


# TW 1/p1 = 37, 2/p1 = 75: W = 5, 10 below, 100 beyond; WP 1/p1 = 11, 2/p1 = 21: 5, 10 / 50, 100
PAPER_LIKE = {"tweet_words": [1e-7, 1e-7, 1e-7, 1e-2], "unigram_sample": [1e-7, 1e-7, 1e-2, 1e-2]}


def test_binary_behaviour_holds_partly_fails_not_comparable():
    row = _by(pc.table2_claims(_gain(PAPER_LIKE), [TW, WP]), "PKG's balance is binary")
    assert _v(row) == "holds" and row["note"] == ""
    half = dict(PAPER_LIKE, tweet_words=[1e-4, 1e-4, 1e-4, 1e-3])  # TW jumps 10x only
    row = _by(pc.table2_claims(_gain(half), [TW, WP]), "PKG's balance is binary")
    assert _v(row) == "partly" and "tweet_words (x10)" in row["note"]
    flat = {s: [1e-3] * 4 for s in PAPER_LIKE}
    assert _v(_by(pc.table2_claims(_gain(flat), [TW, WP]), "PKG's balance is binary")) == "fails"
    low = xp.StreamCase("tweet_words", {}, 1000, 10, 0.001, 1.0, "real", "TW")  # 1/p1 = 1000
    only = _gain({"tweet_words": [1e-7] * 4}, [low])
    assert _v(_by(pc.table2_claims(only, [low]), "PKG's balance is binary")) == "not comparable"


def test_transition_workers_holds_partly_fails():
    row = _by(pc.table2_claims(_gain(PAPER_LIKE), [TW, WP]), "The transition happens")
    assert _v(row) == "holds"  # TW jumps into W = 100, WP into W = 50
    early = dict(PAPER_LIKE, tweet_words=[1e-7, 1e-7, 1e-2, 1e-2])  # TW already at 50
    assert _v(_by(pc.table2_claims(_gain(early), [TW, WP]), "The transition happens")) == "partly"
    wrong = {"tweet_words": [1e-7, 1e-2, 1e-2, 1e-2], "unigram_sample": [1e-7, 1e-2, 1e-2, 1e-2]}
    assert _v(_by(pc.table2_claims(_gain(wrong), [TW, WP]), "The transition happens")) == "fails"


def test_transition_not_comparable_when_the_stand_in_p1_differs():
    tw = xp.StreamCase("tweet_words", {}, 1000, 10, 0.0088, 1.0, "real", "TW")  # ours: 0.88%
    wp = xp.StreamCase("unigram_sample", {}, 1000, 10, 0.0395, 1.0, "semi", "WP")
    gain = _gain(PAPER_LIKE, [tw, wp])
    row = _by(pc.table2_claims(gain, [tw, wp]), "The transition happens")
    assert _v(row) == "not comparable"
    assert "0.88% vs the paper's 2.67%" in row["verdict"].rule and "2/p1 = 227" in row["measured"]
    # one stand-in graded, the other listed in the note
    row = _by(pc.table2_claims(_gain(PAPER_LIKE, [tw, WP]), [tw, WP]), "The transition happens")
    assert _v(row) == "holds" and "TW stand-in p1 = 0.88%" in row["note"]


def _imbalance(potc: list[float], on: list[float], streams=("tweet_words",)) -> pd.DataFrame:
    """Simulator rows, one source: hashing 1.0 and Off-Greedy 0.01 at every W."""
    rows = []
    for s in streams:
        for i, w in enumerate(WORKERS):
            for scheme, v in (("kg", 1.0), ("off_greedy", 0.01), ("potc", potc[i]),
                              ("on_greedy", on[i]), ("pkg_global", 0.001)):  # fmt: skip
                rows.append({"stream": s, "n_workers": w, "n_sources": 1, "scheme": scheme,
                             "avg_imbalance_fraction": v})  # fmt: skip
    rows.append({"stream": "tweet_words", "n_workers": 5, "n_sources": 5,
                 "scheme": "pkg_local", "avg_imbalance_fraction": 9.0})  # fmt: skip
    return pd.DataFrame(rows)


def _methods(potc, on, **kw) -> list[dict]:
    return pc.table2_claims(_gain(PAPER_LIKE), [TW, WP], imbalance=_imbalance(potc, on, **kw))


def test_potc_below_hashing_holds_partly_fails():
    row = _by(_methods([0.5] * 4, [0.01] * 4), "PoTC (without key splitting)")
    assert _v(row) == "holds" and row["note"] == ""
    row = _by(_methods([0.5, 0.5, 1.0, 1.2], [0.01] * 4), "PoTC (without key splitting)")
    assert _v(row) == "partly" and "tweet_words W=50, tweet_words W=100" in row["note"]
    assert _v(_by(_methods([1.5] * 4, [0.01] * 4), "PoTC (without key")) == "fails"


def test_on_greedy_close_to_off_greedy_holds_partly_fails():
    row = _by(_methods([0.5] * 4, [0.015] * 4), "On-Greedy performs very close")
    assert _v(row) == "holds" and row["note"] == ""
    row = _by(_methods([0.5] * 4, [0.1, 0.1, 0.015, 0.01]), "On-Greedy performs very close")
    assert _v(row) == "partly" and "W=5 (10x)" in row["note"]  # like the paper's own table
    assert _v(_by(_methods([0.5] * 4, [0.5] * 4), "On-Greedy performs very close")) == "fails"


def test_table2_methods_not_comparable_without_the_runs():
    rows = pc.table2_claims(_gain(PAPER_LIKE), [TW, WP])
    for start in ("PoTC (without key splitting)", "On-Greedy performs very close"):
        row = _by(rows, start)
        assert _v(row) == "not comparable" and "not given" in row["verdict"].rule
    no_potc = _imbalance([0.5] * 4, [0.01] * 4)
    no_potc = no_potc[no_potc["scheme"] != "potc"]
    row = _by(pc.table2_claims(_gain(PAPER_LIKE), [TW, WP], imbalance=no_potc), "PoTC (without")
    assert _v(row) == "not comparable" and "no potc" in row["verdict"].rule
    other = _imbalance([0.5] * 4, [0.01] * 4, streams=("ln1",))
    row = _by(pc.table2_claims(_gain(PAPER_LIKE), [TW, WP], imbalance=other), "On-Greedy")
    assert _v(row) == "not comparable" and "no TW or WP" in row["verdict"].rule


def _ratios(l_values: dict[int, list[float]]) -> pd.DataFrame:
    """local_global_frame rows on tweet_words at W = 5, 10 for each S."""
    rows = [
        {"stream": "tweet_words", "n_sources": s, "n_workers": w, "L": v, "LP": v,
         "G": v / 2, "L_over_G": 2.0, "LP_over_L": 1.0}
        for s, vs in l_values.items() for w, v in zip((5, 10), vs, strict=True)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _local(l_values, gain=None) -> list[dict]:
    overlap = {"agreement": 0.6, "jaccard": 0.45}
    return pc.local_claims(_ratios(l_values), overlap, True, "here", gain=gain)


def test_local_below_hashing_holds_partly_fails_not_comparable():
    gain = _gain(PAPER_LIKE)  # hashing 0.1 everywhere
    many = {s: [1e-3, 1e-3] for s in range(1, 11)}  # 20 points
    row = _by(_local(many, gain), "PKG with local estimation (L) has a lower")
    assert _v(row) == "holds" and row["note"] == ""
    many[10] = [1e-3, 0.2]  # 1 of 20 points above H: 95%
    row = _by(_local(many, gain), "PKG with local estimation (L) has a lower")
    assert _v(row) == "partly" and "S=10 W=10" in row["note"]
    row = _by(_local({5: [0.2, 0.2]}, gain), "PKG with local estimation (L) has a lower")
    assert _v(row) == "fails"
    row = _by(_local({5: [1e-3, 1e-3]}), "PKG with local estimation (L) has a lower")
    assert _v(row) == "not comparable" and "not given" in row["verdict"].rule


def test_robust_to_sources_holds_partly_fails_not_comparable():
    row = _by(_local({5: [1e-4, 1e-4], 20: [3e-4, 5e-4]}), "Local estimation's balance is robust")
    assert _v(row) == "holds" and row["note"] == ""
    # 20 (stream, W) points, one 20x apart: 95% within an order
    frame = pd.concat(
        [_ratios({5: [1e-4, 1e-4], 20: [2e-4, 2e-4]}).assign(stream=f"s{i}") for i in range(10)],
        ignore_index=True,
    )
    frame.loc[(frame["stream"] == "s0") & (frame["n_sources"] == 20), "L"] = [2e-3, 2e-4]
    row = _by(pc.local_claims(frame, {"agreement": 0.6, "jaccard": 0.45}, True, "here"),
              "Local estimation's balance is robust")  # fmt: skip
    assert _v(row) == "partly" and "s0 W=5" in row["note"]
    row = _by(_local({5: [1e-4, 1e-4], 20: [5e-3, 5e-3]}), "Local estimation's balance is robust")
    assert _v(row) == "fails"
    row = _by(_local({5: [1e-4, 1e-4]}), "Local estimation's balance is robust")
    assert _v(row) == "not comparable" and "one value (S = 5)" in row["verdict"].rule


def _skew(values: dict[tuple[int, int], float]) -> pd.DataFrame:
    """Fig. 4 rows: the same fraction on both splits at each (S, W)."""
    return pd.DataFrame(
        [{"split": sp, "n_sources": s, "n_workers": w, "avg_imbalance_fraction": v}
         for sp in ("skewed", "uniform") for (s, w), v in values.items()]
    )  # fmt: skip


SHARES = pd.DataFrame({"n_sources": [5], "max_source_share": [0.3], "uniform_share": [0.2]})


def _rise(values) -> dict:
    return _by(pc.skew_claims(_skew(values), SHARES), "The imbalance increases slightly")


def test_imbalance_rises_with_sources_and_workers():
    row = _rise({(5, 5): 1e-5, (5, 10): 2e-5, (10, 5): 2e-5, (10, 10): 3e-5})
    assert _v(row) == "holds" and row["note"] == ""
    row = _rise({(5, 5): 1e-5, (5, 10): 2e-5, (10, 5): 2e-5, (10, 10): 1.5e-5})
    assert _v(row) == "partly" and "S=10 W=5->10" in row["note"]
    row = _rise({(5, 5): 3e-5, (5, 10): 2e-5, (10, 5): 2e-5, (10, 10): 1e-5})
    assert _v(row) == "fails"
    row = _rise({(5, 5): 1e-5, (5, 10): 2e-5})  # one S: only the W part is judged
    assert _v(row) == "holds" and "one value" in row["verdict"].rule
    assert _v(_rise({(5, 5): 1e-5})) == "not comparable"


def _tp(kg_hi: float, pkg_hi: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "delay_ms": [0.1, 1.0] * 3,
            "scheme": ["kg"] * 2 + ["sg"] * 2 + ["pkg_local"] * 2,
            "throughput": [100, kg_hi, 100, pkg_hi, 100, pkg_hi],
            "latency_ms": [1, 14, 1, 10, 1, 10],
            "memory_normalized": [1.0, 1.0, 2.48, 2.48, 1.24, 1.24],
        }
    )


def test_throughput_gain_over_kg_holds_direction_only_fails():
    row = _by(pc.throughput_claims(_tp(40, 63), 100.0), "PKG improves throughput over KG")
    assert _v(row) == "holds" and row["note"] == ""  # +57.5%
    row = _by(pc.throughput_claims(_tp(40, 47), 100.0), "PKG improves throughput over KG")
    assert _v(row) == "direction only" and "our model keeps 47% and 40%" in row["note"]
    assert _v(_by(pc.throughput_claims(_tp(60, 47), 100.0), "PKG improves throughput")) == "fails"


def test_aggregation_latency_not_comparable_with_the_models_columns():
    agg = pd.DataFrame(
        {"scheme": ["kg", "pkg_local", "sg"], "period": [float("nan"), 5.0, 5.0],
         "memory": [10.0, 12.0, 20.0], "throughput": [5.0, 6.0, 5.5]}
    )  # fmt: skip
    tp = _tp(40, 63)
    row = _by(pc.memory_claims(tp, agg), "For every aggregation period PKG and SG have similar")
    assert _v(row) == "not comparable"
    assert "period, memory, throughput per period" in row["verdict"].rule


# ================================================================= FISH (notebook 08)

ZF = ("ZF z=0.8", "ZF z=1.4")


def _main(
    pkg: tuple[float, float] = (1.5, 2.5),
    dc: float = 1.2,
    base_mem: float = 1.8,
    fish_mem: float = 1.5,
    sg_mem: float = 45.0,
    workers: tuple[int, ...] = (16, 128),
) -> pd.DataFrame:
    """Main-grid rows on a real case and two ZF skews: ``pkg`` is PKG / SG at the lowest and
    highest skew, D-C / SG ``dc``, W-C and FISH just above SG (latency and throughput follow
    the execution time, so the frame also serves :func:`deployment_claims`)."""
    rows = []
    cases = [("tweet words (MT)", "real", None), (ZF[0], "synthetic", 0.8),
             (ZF[1], "synthetic", 1.4)]  # fmt: skip
    for c, data, z in cases:
        for n in workers:
            p = pkg[0] if z in (None, 0.8) else pkg[1]
            spec = {"FISH": (1.05, fish_mem), "SG": (1.0, sg_mem), "PKG": (p, base_mem),
                    "D-C": (dc, base_mem), "W-C": (1.1, base_mem), "FG": (3.0, 1.0)}  # fmt: skip
            for v, (t, m) in spec.items():
                rows.append({"case": c, "data": data, "stream_z": z, "n_workers": n,
                             "variant": v, "exec_x_sg": t, "memory_normalized": m,
                             "latency_mean": 0.01 * t, "latency_p50": 0.007 * t,
                             "latency_p99": 0.5 * t, "throughput": 1.0 / t})  # fmt: skip
    return pd.DataFrame(rows)


def test_pkg_worst_on_zf_and_worse_with_skew():
    row = _by(cf.overall_claims(_main()), "PKG is the worst of PKG")
    assert _v(row) == "holds" and row["note"] == ""
    row = _by(cf.overall_claims(_main(pkg=(2.5, 1.5))), "PKG is the worst of PKG")
    assert _v(row) == "partly"  # the slowest, but less so at the higher skew
    row = _by(cf.overall_claims(_main(pkg=(1.1, 1.1), dc=1.2)), "PKG is the worst of PKG")
    assert _v(row) == "fails" and "not the slowest at ZF z=0.8 (16 workers)" in row["note"]
    real_only = _main().query("data == 'real'")
    row = _by(cf.overall_claims(real_only), "PKG is the worst of PKG")
    assert _v(row) == "not comparable" and "no time-evolving Zipf" in row["verdict"].rule


def test_baseline_memory_close_to_fg():
    row = _by(cf.deployment_claims(_main(base_mem=1.8)), "PKG's, D-C's and W-C's memory is close")
    assert _v(row) == "holds" and row["note"] == ""
    half = _main()
    half.loc[(half["variant"] == "PKG") & (half["case"] != "tweet words (MT)"),
             "memory_normalized"] = 10.0  # fmt: skip
    row = _by(cf.deployment_claims(half), "PKG's, D-C's and W-C's memory is close")
    assert _v(row) == "partly" and "PKG on ZF z=0.8 (10.00x)" in row["note"]  # 7/9
    row = _by(cf.deployment_claims(_main(base_mem=8.0)), "PKG's, D-C's and W-C's memory is close")
    assert _v(row) == "fails"
    no_base = _main().query("variant not in ['PKG', 'D-C', 'W-C']")
    assert _v(cf._fig11_baseline_memory_rows(no_base)[0]) == "not comparable"


def test_fish_memory_vs_sg_direction_and_size():
    rows = cf.deployment_claims(_main(fish_mem=1.5, sg_mem=45.0))  # cut 96.7%, SG / FISH 30x
    assert _v(_by(rows, "FISH needs far less memory than SG")) == "holds"
    assert _v(_by(rows, "FISH vs SG memory, ZF")) == "holds"
    rows = cf.deployment_claims(_main(fish_mem=1.5, sg_mem=6.0))  # 4x: less, far from 30x
    assert _v(_by(rows, "FISH vs SG memory, ZF")) == "direction only"
    assert _by(rows, "FISH needs far less memory than SG")["note"] == ""
    rows = cf.deployment_claims(_main(fish_mem=3.0, sg_mem=2.0))
    row = _by(rows, "FISH needs far less memory than SG")
    assert _v(row) == "fails" and "tweet words (MT)" in row["note"]
    assert _v(_by(rows, "FISH vs SG memory, ZF")) == "fails"


def test_fish_memory_vs_sg_not_comparable_below_the_papers_scale():
    row = _by(cf.deployment_claims(_main(workers=(4, 8))), "FISH vs SG memory, ZF")
    assert _v(row) == "not comparable"
    assert "at most 87.5%" in row["verdict"].rule  # 1 - 1/8
    real_only = _main().query("data == 'real'")
    row = _by(cf.deployment_claims(real_only), "FISH vs SG memory, ZF")
    assert _v(row) == "not comparable" and "no time-evolving Zipf" in row["verdict"].rule
    no_sg = _main(workers=(128,)).query("variant != 'SG'")
    assert [_v(r) for r in cf._sg_memory_rows(no_sg)] == ["not comparable"] * 2


def _study(mem_by_threshold: dict[float, float]) -> tuple:
    decay, threshold = [], []
    for z in (0.8, 1.4):
        for n in (16, 128):
            base = {"case": f"ZF z={z:g}", "data": "synthetic", "stream_z": z, "n_workers": n}
            for a in (0.0, 0.6, 1.0):
                decay.append(dict(base, decay=a, exec_x_sg=1.0, memory_normalized=1.0))
            for h, m in mem_by_threshold.items():
                mem = m if (z, n) == (0.8, 128) else 1.0
                threshold.append(dict(base, hot_threshold=h, exec_x_sg=1.0, memory_normalized=mem))
    choices = {"decay": 0.6, "hot_threshold": 0.5, "workers_formula": "relative"}
    return pd.DataFrame(decay), pd.DataFrame(threshold), choices, 0.005


def test_memory_changes_little_with_the_threshold():
    row = _by(cf.study_claims(*_study({0.05: 1.2, 0.5: 1.0, 1.0: 1.0})), "FISH's memory changes")
    assert _v(row) == "holds" and row["note"] == ""
    row = _by(cf.study_claims(*_study({0.05: 2.0, 0.5: 1.0, 1.0: 1.0})), "FISH's memory changes")
    assert _v(row) == "partly" and "ZF z=0.8 (128 workers, 2.00x)" in row["note"]  # 3/4
    decay, threshold, choices, tol = _study({0.05: 2.0, 0.5: 1.0, 1.0: 1.0})
    threshold.loc[threshold["hot_threshold"] == 0.05, "memory_normalized"] = 2.0
    row = _by(cf.study_claims(decay, threshold, choices, tol), "FISH's memory changes")
    assert _v(row) == "fails"


def _deploy(fish_p50=1.1, fish_p99=1.2, tp=None, p50=True) -> pd.DataFrame:
    tp = tp or {"FG": 0.3, "PKG": 0.5, "D-C": 0.7, "W-C": 0.75, "SG": 1.0, "FISH": 0.99}
    rows = []
    for c in ("MovieLens movies (AM)", "tweet words (MT)"):
        for v, t in tp.items():
            r = {
                "case": c,
                "data": "real",
                "n_workers": 128,
                "variant": v,
                "throughput": t,
                "latency_mean": 0.01,
                "latency_p99": 0.5 * (fish_p99 if v == "FISH" else 1.0),
            }
            if p50:
                r["latency_p50"] = 0.007 * (fish_p50 if v == "FISH" else 1.0)
            rows.append(r)  # fmt: skip
    return pd.DataFrame(rows)


def test_latency_almost_sgs():
    row = _by(cf.deployment_claims(_deploy()), "FISH's median and 99th-percentile latency")
    assert _v(row) == "holds" and "more than" not in row["note"]
    row = _by(cf.deployment_claims(_deploy(fish_p99=3.0)), "FISH's median and 99th-percentile")
    assert _v(row) == "partly" and "more than 1.5x SG's" in row["note"]
    row = _by(cf.deployment_claims(_deploy(2.0, 3.0)), "FISH's median and 99th-percentile")
    assert _v(row) == "fails"
    row = _by(cf.deployment_claims(_deploy(p50=False)), "FISH's median and 99th-percentile")
    assert _v(row) == "holds" and "no p50" in row["verdict"].rule  # p99 judged alone


def test_throughput_order_fg_pkg_dc_wc_sg():
    row = _by(cf.deployment_claims(_deploy()), "Throughput order")
    assert _v(row) == "holds" and "out of order" not in row["note"]
    swapped = {"FG": 0.3, "PKG": 0.8, "D-C": 0.7, "W-C": 0.75, "SG": 1.0, "FISH": 0.99}
    row = _by(cf.deployment_claims(_deploy(tp=swapped)), "Throughput order")
    assert _v(row) == "partly" and "PKG >= D-C on" in row["note"]  # 3/5 pairs per case
    reversed_ = {"FG": 1.0, "PKG": 0.8, "D-C": 0.7, "W-C": 0.6, "SG": 0.5, "FISH": 0.99}
    assert _v(_by(cf.deployment_claims(_deploy(tp=reversed_)), "Throughput order")) == "fails"
    no_fg = {"PKG": 0.5, "D-C": 0.7, "W-C": 0.75, "SG": 1.0, "FISH": 0.99}
    row = _by(cf.deployment_claims(_deploy(tp=no_fg)), "Throughput order")
    assert _v(row) == "not comparable" and "no FG" in row["verdict"].rule
