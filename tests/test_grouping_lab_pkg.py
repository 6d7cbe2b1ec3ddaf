"""PKG experiments (notebook 07_pkg): hand-checked reductions, invariants, figures and the
worked example (the claims rules: tests/test_grouping_lab_pkg_claims.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.grouping.lab import pkg as xp
from routelab.grouping.lab.bench import GOALS, bench_rows
from routelab.grouping.lab.pkg import figures as fp
from routelab.grouping.lab.tasks import simulate_task
from routelab.grouping.schemes_kernel import kg_kernel, pkg_global_kernel
from routelab.sweep import run_grid


def skewed_keys(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.zipf(1.4, size=n) % 500).astype(np.int64)


def case(name: str = "zipf", **params) -> xp.StreamCase:
    return xp.StreamCase(name, params, 1000, 10, 0.1, 100.0, "synthetic", "test")


# ----------------------------------------------------------------------------- Sect. IV-A


def test_p1_and_the_lower_bound_by_hand():
    assert xp.max_key_probability([1, 1, 2, 3]) == 0.5
    with pytest.raises(ValueError, match="empty"):
        xp.max_key_probability([])
    assert xp.imbalance_lower_bound(0.5, 10) == pytest.approx(0.15)
    assert xp.imbalance_lower_bound(0.1, 10) == 0.0  # p1/2 < 1/W: no bound
    c = case()
    assert c.boundary == pytest.approx(20.0) and c.probe_interval(50) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="n_probes"):
        c.probe_interval(0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("route", [pkg_global_kernel, kg_kernel])
def test_no_scheme_beats_the_p1_bound(route, seed):
    keys = skewed_keys(5000, seed)
    w = 40
    loads = np.bincount(route(keys, None, w, seed=seed), minlength=w)
    bound = xp.imbalance_lower_bound(xp.max_key_probability(keys), w)
    assert bound > 0  # the stream is skewed enough for the bound to bite
    assert (loads.max() - loads.mean()) / keys.size >= bound - 1e-12


def test_used_bins_task_invariants():
    rows = xp.used_bins_task({"n_workers": 10, "n_seeds": 5, "messages_per_key": 8})
    assert [r["seed"] for r in rows] == list(range(5))
    for r in rows:
        assert r["expected"] == pytest.approx(1 - 0.9**20)
        assert r["loaded_fraction"] <= r["used_fraction"]  # PKG only uses hash choices
        assert r["scaled_imbalance"] >= r["scaled_bound"] - 1e-12
    # one worker: every key's two choices are worker 0; no imbalance, a zero bound
    (one,) = xp.used_bins_task({"n_workers": 1, "n_seeds": 1, "messages_per_key": 5})
    assert (one["used_fraction"], one["scaled_bound"], one["scaled_imbalance"]) == (1.0, 0.0, 0.0)


def test_routing_overlap_by_hand():
    out = xp.routing_overlap(np.array([0, 1, 2, 3]), np.array([0, 1, 0, 0]))
    assert out == {"agreement": 0.5, "jaccard": pytest.approx(1 / 3)}
    assert xp.routing_overlap(np.arange(5), np.arange(5))["jaccard"] == 1.0
    with pytest.raises(ValueError, match="equally long"):
        xp.routing_overlap(np.arange(3), np.arange(4))


# ----------------------------------------------------------------------------- Fig. 5


def test_saturation_rate_by_hand():
    one_key = np.zeros(10, dtype=np.int64)
    assert xp.saturation_rate(one_key, "kg", 4, 0.001) == pytest.approx(1000.0)
    assert xp.saturation_rate(np.arange(8), "sg", 4, 0.001) == pytest.approx(4000.0)
    with pytest.raises(ValueError, match="cpu_delay"):
        xp.saturation_rate(one_key, "kg", 4, 0.0)


def test_flushed_counters_by_hand():
    keys = np.array([1, 1, 2, 1])
    workers = np.array([0, 1, 0, 0])
    times = np.array([0.0, 1.0, 2.0, 3.0])
    flushed, memory = xp.flushed_counters(keys, workers, times, 2.0, 3)
    # window 0: w0 {1}, w1 {1}; window 1: w0 {2, 1}
    np.testing.assert_array_equal(flushed, [3, 1, 0])
    assert memory == 2.0
    with pytest.raises(ValueError, match="period"):
        xp.flushed_counters(keys, workers, times, 0.0, 3)


def test_aggregation_tradeoff_model():
    keys = skewed_keys(3000, 1)
    times = np.arange(keys.size) / 100.0
    free = xp.aggregation_tradeoff(keys, times, 6, [1.0, 5.0], 0.001, 0.0)
    paid = xp.aggregation_tradeoff(keys, times, 6, [1.0, 5.0], 0.001, 0.001)
    kg = free[free["scheme"] == "kg"].iloc[0]
    loads = np.bincount(kg_kernel(keys, None, 6), minlength=6)
    assert kg["throughput"] == pytest.approx(keys.size / (loads.max() * 0.001))
    assert kg["memory"] == np.unique(keys).size
    sg = free[free["scheme"] == "sg"]
    assert sg["throughput"].tolist() == pytest.approx([keys.size / (500 * 0.001)] * 2)
    assert (paid["throughput"] <= free["throughput"] + 1e-9).all()
    pkg = paid[paid["scheme"] == "pkg_local"].set_index("period")
    assert pkg.loc[5.0, "throughput"] > pkg.loc[1.0, "throughput"]  # fewer flushes
    assert pkg.loc[5.0, "memory"] > pkg.loc[1.0, "memory"]  # more counters held


# ----------------------------------------------------------------------------- grids


def test_stream_params_pick_size_or_limit():
    assert xp.stream_params("ln1", 500, 20) == {"stream_n_messages": 500}
    assert xp.stream_params("flights_origins", 500, 20) == {"stream_limit": 20}
    assert xp.stream_params("flights_origins", 500, None) == {}


def test_stream_case_of_a_synthetic_stream():
    c = xp.stream_case("zipf", {"stream_n_messages": 3000, "stream_z": 1.2})
    keys = xp.load_case("zipf", c.params).keys
    assert c.n_messages == 3000 and c.n_keys == np.unique(keys).size
    assert c.p1 == xp.max_key_probability(keys) and c.data == "synthetic"
    assert xp.cases_table([c]).loc["zipf", "2/p1"] == pytest.approx(2 / c.p1)


def test_stream_cases_reuse_known_cases():
    known = case("ln1", stream_n_messages=500)
    again = xp.stream_cases(["ln1"], n_messages=500, known=[known])
    assert again[0] is known  # not rebuilt (its made-up statistics survive)
    fresh = xp.stream_cases(["ln1"], n_messages=400, known=[known])[0]
    assert fresh.n_messages == 400


def test_data_kinds_groups_streams_by_kind():
    cases = [case("a"), xp.StreamCase("b", {}, 1, 1, 1.0, 0.0, "real", "x"), case("c")]
    assert xp.data_kinds(cases) == "synthetic: a, c; real: b"
    named = [xp.StreamCase("tweet_words", {}, 1, 1, 1.0, 0.0, "real", "x"), case("ln1")]
    assert xp.data_kinds(named, short=True) == "real: TW; synthetic: LN1 stand-ins"


def test_drift_summary_by_hand():
    out = xp.drift_summary(np.array([1, 1, 2, 2]), np.arange(4.0), 2.0)
    assert out["slices"] == 2 and out["distinct_top_keys"] == 2
    assert out["tv_median"] == 1.0 and out["p1_min"] == 1.0  # disjoint slices
    same = xp.drift_summary(np.array([1, 2, 1, 2, 1, 2]), np.arange(6.0), 2.0)
    assert same["tv_max"] == 0.0 and same["p1_max"] == 0.5 and same["slices"] == 3
    with pytest.raises(ValueError, match="period"):
        xp.drift_summary(np.array([1]), np.zeros(1), 0.0)


def test_imbalance_points_cover_table2_and_fig2():
    pts = xp.imbalance_points([case(), case("ln1")], [5, 10], [2, 4], n_probes=10)
    assert len(pts) == 2 * 2 * (len(xp.TABLE2_SCHEMES) + 2 * 2)
    probes = [p for p in pts if p["scheme"] == "pkg_probe"]
    assert len(probes) == 8 and all(p["probe_interval"] == 10.0 for p in probes)
    assert all("probe_interval" not in p for p in pts if p["scheme"] != "pkg_probe")
    assert {p["n_sources"] for p in pts if p["scheme"] in xp.TABLE2_SCHEMES} == {1}
    timeline = xp.timeline_points([case()], [10], 5)
    names = [xp.variant(p["scheme"], p["n_sources"], p.get("probe_reset")) for p in timeline]
    assert names == ["H", "G", "L5", "L5P", "L5P/S"]
    assert all(p["output"] == "timeline" for p in timeline)


def test_variant_names():
    assert [xp.variant(s, 5) for s in ("kg", "pkg_global", "pkg_local", "pkg_probe")] == [
        "H",
        "G",
        "L5",
        "L5P",
    ]
    assert xp.variant("off_greedy", 1) == "Off-Greedy"
    assert xp.variant("pkg_probe", 5, "share") == "L5P/S"
    assert xp.variant("pkg_probe", 5, "actual") == "L5P"


def summary_rows() -> pd.DataFrame:
    """Hand-made grid rows: two worker counts, Table II schemes plus L/LP at S=2."""
    rows = []
    for w, (kg, pkg, off) in {5: (0.1, 0.001, 0.01), 50: (0.2, 0.1, 0.1)}.items():
        for scheme, f in {
            "kg": kg,
            "pkg_global": pkg,
            "off_greedy": off,
            "on_greedy": off,
            "potc": kg,
        }.items():
            rows.append(
                {
                    "stream": "tweet_words",
                    "scheme": scheme,
                    "n_workers": w,
                    "n_sources": 1,
                    "avg_imbalance_fraction": f,
                    "avg_imbalance": f * 1000,
                    "final_imbalance_fraction": 2 * f,
                }
            )
        for scheme, f in {"pkg_local": 4 * pkg, "pkg_probe": 2 * pkg}.items():
            rows.append(
                {
                    "stream": "tweet_words",
                    "scheme": scheme,
                    "n_workers": w,
                    "n_sources": 2,
                    "avg_imbalance_fraction": f,
                    "avg_imbalance": f * 1000,
                    "final_imbalance_fraction": 2 * f,
                }
            )
    return pd.DataFrame(rows)


def test_table2_gain_and_local_ratios_by_hand():
    rows = summary_rows()
    t2 = xp.table2(rows)
    assert t2.loc[("tweet_words", "PKG"), 5] == pytest.approx(1.0)
    assert t2.loc[("tweet_words", "Hashing"), 50] == pytest.approx(200.0)
    assert list(t2.index.get_level_values("method")) == list(xp.TABLE2_SCHEMES.values())
    c = xp.StreamCase(
        "tweet_words", {}, 1000, 10, 0.05, 1.0, "synthetic", "test"
    )  # 1/p1=20, 2/p1=40
    gain = xp.splitting_gain(rows, [c])
    assert gain.loc[("tweet_words", 5), "gain"] == pytest.approx(100.0)
    assert (
        gain.loc[("tweet_words", 5), "below_1/p1"]
        and not gain.loc[("tweet_words", 50), "below_1/p1"]
    )
    assert gain.loc[("tweet_words", 50), "above_2/p1"]
    assert gain.loc[("tweet_words", 50), "lower_bound_final"] == pytest.approx(0.025 - 0.02)
    ratios = xp.local_global_frame(rows)
    assert ratios["L_over_G"].tolist() == pytest.approx([4.0, 4.0])
    assert ratios["LP_over_L"].tolist() == pytest.approx([0.5, 0.5])
    summary = xp.gain_summary(gain)
    assert summary.loc["tweet_words", ["W < 1/p1", "W > 2/p1"]].tolist() == [1, 1]
    assert summary.loc["tweet_words", "median gain"] == pytest.approx(100.0)
    assert summary.loc["tweet_words", "PKG above bound"] == pytest.approx(
        gain.loc[("tweet_words", 50), "pkg_final"] - 0.005
    )
    local = xp.local_global_summary(ratios).loc["tweet_words"]
    assert local[["points", "max L/G", "geo. mean LP/L"]].tolist() == pytest.approx([2, 4, 0.5])
    assert xp.table2(rows, streams=["nothing"]).empty
    assert xp.table2(rows, streams=["tweet_words"]).shape == xp.table2(rows).shape


@pytest.mark.spark
def test_grid_on_spark_matches_in_process(spark):
    c = xp.stream_case("ln2", {"stream_n_messages": 4000})
    pts = xp.imbalance_points([c], [6], [3], n_probes=20, n_checkpoints=20)
    rows = xp.with_labels(run_grid(simulate_task, pts, spark=spark, progress=False), [c])
    assert len(rows) == len(pts)
    assert set(rows["variant"]) == {"G", "H", "L3", "L3P", "Off-Greedy", "On-Greedy", "PoTC"}
    assert set(rows["stream_label"]) == {"ln2 (LN2)"}
    local = [simulate_task(p)[0]["avg_imbalance"] for p in pts[:3]]
    assert rows["avg_imbalance"].iloc[:3].tolist() == pytest.approx(local)
    assert xp.table2(rows).shape == (len(xp.TABLE2_SCHEMES), 1)


def test_bench_rows_shape():
    rows = bench_rows(n_messages=2000, n_reference=200, schemes=["kg", "potc"])
    assert [r["goal"] for r in rows] == [GOALS["kg"], None]
    assert rows[1]["meets_goal"] is None
    assert rows[0]["meets_goal"] == (rows[0]["value"] >= rows[0]["goal"])
    for r in rows:
        assert set(r) == {"what", "value", "unit", "baseline", "ratio", "goal", "meets_goal"}
        assert r["ratio"] == pytest.approx(r["value"] / r["baseline"])
        assert r["unit"] == "msg/s" and r["value"] > 0


def test_worked_example_loads_by_hand():
    """The notebook's table: A's choices are workers 2 and 0, B's 0 and 1, C's 1 and 0, D's
    1 and 1 (seed 0). Routing AABACABADA by hand (ties to H1): PKG sends A to 2, 0, 2, 0, 2,
    2 and ends at loads 3/3/4; hashing sends every A to 2 and ends at 2/2/6."""
    ex = xp.two_choice_example()
    assert ex["key"].str.cat() == "AABACABADA"
    firsts = ex.drop_duplicates("key").set_index("key")
    assert firsts[["H1", "H2"]].to_dict("index") == {
        "A": {"H1": 2, "H2": 0},
        "B": {"H1": 0, "H2": 1},
        "C": {"H1": 1, "H2": 0},
        "D": {"H1": 1, "H2": 1},
    }
    assert ex["PKG sends to"].tolist() == [2, 0, 1, 2, 1, 0, 0, 2, 1, 2]
    assert ex["PKG loads before"].iloc[-1] == "3/3/3"
    assert (ex["hashing sends to"] == ex["H1"]).all()
    loads = xp.example_loads(ex)
    assert loads.loc["hashing", ["worker 0", "worker 1", "worker 2"]].tolist() == [2, 2, 6]
    assert loads.loc["PKG", ["worker 0", "worker 1", "worker 2"]].tolist() == [3, 3, 4]
    assert loads["imbalance"].tolist() == pytest.approx([6 - 10 / 3, 4 - 10 / 3], abs=0.01)
    # the table routes exactly as the PKG kernel does
    keys = np.array([ord(k) - ord("A") + 1 for k in "AABACABADA"])
    assert pkg_global_kernel(keys, None, 3, seed=0).tolist() == ex["PKG sends to"].tolist()
    assert kg_kernel(keys, None, 3, seed=0).tolist() == ex["hashing sends to"].tolist()


def test_demo_stream_and_loads():
    keys = xp.skewed_demo_stream(4000, 100, 1.0, seed=1)
    assert keys.size == 4000 and keys.min() >= 0 and keys.max() < 100
    assert np.array_equal(keys, xp.skewed_demo_stream(4000, 100, 1.0, seed=1))
    assert xp.max_key_probability(keys) == pytest.approx(0.193, abs=0.02)  # 1 / H_100
    loads = xp.demo_loads(keys, 4)
    assert loads.groupby("scheme")["load"].sum().tolist() == [4000, 4000]
    wide = loads.pivot(index="worker", columns="scheme", values="load")
    # W = 4 < 1/p1 ~ 5.2: PKG far more even than hashing
    assert wide["PKG"].max() - 1000 < (wide["hashing"].max() - 1000) / 5
    fig = fp.extra_two_choice_demo(keys, 4)
    assert [t.type for t in fig.data] == ["bar", "bar"]
    assert "W < 1/p1" in fig.layout.title.text
    assert "W > 2/p1" in fp.extra_two_choice_demo(keys, 30).layout.title.text


def test_throughput_frame_latency_in_ms():
    rows = pd.DataFrame({"cpu_delay": [0.0004], "latency_mean": [0.0025]})
    out = xp.throughput_frame(rows)
    assert out["delay_ms"].iloc[0] == pytest.approx(0.4)
    assert out["latency_ms"].iloc[0] == pytest.approx(2.5)


def _log_axes(fig):
    layout = fig.layout.to_plotly_json()
    return {
        k: v for k, v in layout.items() if k[:5] in ("xaxis", "yaxis") and v.get("type") == "log"
    }


def test_figures_label_decades_and_keep_key_lines_visible():
    tp = pd.DataFrame(
        {
            "delay_ms": [0.1, 1.0] * 3,
            "scheme": ["sg"] * 2 + ["pkg_local"] * 2 + ["kg"] * 2,
            "throughput": [100, 63, 100, 63, 100, 40],
            "latency_ms": [1, 3, 1, 3, 1, 9],
        }
    )
    fig = fp.fig5a_throughput_vs_delay(tp, 100.0)
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert names == ["KG", "PKG", "SG"]  # SG drawn last, over PKG
    sg = [t for t in fig.data if t.name == "SG"][0]
    assert sg.line.dash == "dash" and sg.marker.symbol == "circle-open"
    axes = _log_axes(fig)
    assert list(axes) == ["yaxis2"] and axes["yaxis2"]["dtick"] == 1
    assert axes["yaxis2"]["title"]["text"] == "ms"
    timeline = pd.DataFrame(
        {
            "stream": "s",
            "n_workers": 10,
            "variant": ["L5P/S", "L5P", "L5", "H"] * 2,
            "messages": [1, 1, 1, 1, 2, 2, 2, 2],
            "imbalance_fraction": [1e-3, 1e-3, 1e-3, 0.1] * 2,
        }
    )
    c = xp.StreamCase("s", {}, 2, 2, 0.05, 1.0, "synthetic", "x")
    fig = fp.fig3_imbalance_through_time(timeline, [c], 10)
    assert [t.name for t in fig.data] == ["H", "L5", "L5P", "L5P/S"]  # solid, dash, dot
    colours = {t.name: t.line.color for t in fig.data}
    assert colours["L5P/S"] != colours["L5"] == colours["L5P"]
    assert all(a["dtick"] == 1 for a in _log_axes(fig).values())
    # a panel whose data lie within one decade gets explicit labels (log_axis would show none)
    narrow = timeline.assign(imbalance_fraction=[0.02, 0.02, 0.03, 0.04] * 2)
    axis = fp.fig3_imbalance_through_time(narrow, [c], 10).layout.yaxis
    assert list(axis.tickvals) == [0.02, 0.03, 0.05] and list(axis.ticktext) == [
        "0.02",
        "0.03",
        "0.05",
    ]
    assert (
        fp.fig3_imbalance_through_time(timeline, [c], 10).layout.yaxis.tickvals is None
    )  # 1e-3..0.1
    skew = pd.DataFrame(
        {
            "n_sources": 5,
            "split": ["skewed", "uniform"] * 2,
            "n_workers": [5, 5, 50, 50],
            "avg_imbalance_fraction": [2e-5, 3e-5, 1e-4, 2e-4],
        }
    )
    assert list(fp.fig4_skewed_sources(skew).layout.yaxis.ticktext) == [
        "2e-05",
        "3e-05",
        "5e-05",
        "0.0001",
        "0.0002",
        "0.0003",
    ]
