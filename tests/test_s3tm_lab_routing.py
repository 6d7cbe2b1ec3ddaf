"""Cross-validated routing evaluation (routelab.s3tm.lab.routing.workloads, evaluate, aggregate) and
its figures (the claims are in test_s3tm_lab_routing_claims.py).

Folds partition the posts exactly and are seeded; the Spark grid reproduces the in-process
run and a direct learn-and-measure; relative throughput, geometric means and summaries are
checked on hand-made frames; the figures are built from a small grid.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routelab.claims import geometric_mean
from routelab.s3tm import learn_mapping, route_metrics
from routelab.s3tm.lab import shared
from routelab.s3tm.lab.routing import experiments as ev
from routelab.s3tm.lab.routing import figures as figs
from routelab.s3tm.lab.routing import summary as agg
from routelab.s3tm.lab.routing import workloads as wl

# --------------------------------------------------------------------------- folds


@settings(max_examples=40)
@given(
    n=st.integers(2, 300),
    k=st.integers(2, 12),
    seed=st.integers(0, 2**31),
    shuffle=st.booleans(),
)
def test_folds_partition_posts_exactly(n, k, seed, shuffle):
    if n < k:
        with pytest.raises(ValueError, match="cannot be split"):
            shared.kfold_assignment(np.arange(n), k, seed)
        return
    rng = np.random.default_rng(seed)
    ids = rng.choice(10 * n, size=n, replace=False)
    folds = shared.kfold_assignment(ids, k, seed, shuffle=shuffle)
    sizes = np.bincount(folds, minlength=k)
    assert len(sizes) == k and sizes.sum() == n and sizes.max() - sizes.min() <= 1
    splits = shared.kfold_splits(ids, k, seed, shuffle=shuffle)
    tests = np.concatenate([test for _, test in splits])
    assert np.array_equal(np.sort(tests), np.arange(n))  # every post held out exactly once
    for f, (train, test) in enumerate(splits):
        assert np.intersect1d(train, test).size == 0
        assert np.array_equal(np.union1d(train, test), np.arange(n))
        assert np.all(folds[test] == f)


def test_folds_are_seeded_and_follow_post_ids():
    ids = np.arange(1000, 3000, dtype=np.int64)
    a = shared.kfold_assignment(ids, 10, seed=7)
    assert np.array_equal(a, shared.kfold_assignment(ids, 10, seed=7))
    assert not np.array_equal(a, shared.kfold_assignment(ids, 10, seed=8))
    # a post keeps its fold when the rows are reordered
    perm = np.random.default_rng(0).permutation(len(ids))
    assert np.array_equal(shared.kfold_assignment(ids[perm], 10, seed=7), a[perm])
    # shuffled folds are not contiguous blocks of the input order
    assert np.count_nonzero(np.diff(a)) > 100


def test_unshuffled_folds_are_contiguous_blocks():
    folds = shared.kfold_assignment(np.arange(10), 3, shuffle=False)
    assert folds.tolist() == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_fold_input_errors():
    with pytest.raises(ValueError, match="n_folds must be >= 2"):
        shared.kfold_assignment(np.arange(10), 1)
    with pytest.raises(ValueError, match="unique"):
        shared.kfold_assignment(np.array([1, 2, 2, 3]), 2)


def test_seeded_order_is_a_stable_permutation():
    keys = np.array([5, 3, 9, 3_000_000_000, -4], dtype=np.int64)
    order = shared.seeded_order(keys, 3)
    assert sorted(order.tolist()) == list(range(5))
    assert np.array_equal(order, shared.seeded_order(keys, 3))


# --------------------------------------------------------------------------- aggregation


def test_geometric_mean_hand_examples():
    assert geometric_mean([1, 4, 16]) == pytest.approx(4.0)
    assert geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert geometric_mean([3.5]) == pytest.approx(3.5)
    assert math.isnan(geometric_mean([]))
    for bad in ([1.0, 0.0], [2.0, -1.0], [float("nan")]):
        with pytest.raises(ValueError, match="positive"):
            geometric_mean(bad)


def _frame(rows):
    cols = ["dataset", "kind", "method", "n_matchers", "fold", "throughput"]
    return pd.DataFrame(rows, columns=cols)


def test_relative_throughput_hand_example():
    frame = _frame(
        [
            ("d", "topic", "SALB", 8, 0, 4.0),
            ("d", "topic", "hash", 8, 0, 2.0),
            ("d", "topic", "SALB", 8, 1, 5.0),
            ("d", "topic", "hash", 8, 1, 10.0),
            ("d", "tweet", "SALB", 8, 0, 3.0),
            ("d", "tweet", "hash", 8, 0, 1.0),
        ]
    )
    rel = shared.add_relative_throughput(frame, agg.PAIR_KEYS).set_index(["kind", "method", "fold"])
    assert rel.loc[("topic", "hash", 0), "relative_throughput"] == 0.5
    assert rel.loc[("topic", "hash", 1), "relative_throughput"] == 2.0
    assert rel.loc[("tweet", "hash", 0), "relative_throughput"] == pytest.approx(1 / 3)
    assert (rel.xs("SALB", level="method")["relative_throughput"] == 1.0).all()
    with pytest.raises(ValueError, match="lack a SALB baseline"):
        shared.add_relative_throughput(frame[frame["kind"] == "topic"].iloc[1:], agg.PAIR_KEYS)


def test_across_datasets_is_a_fold_wise_geometric_mean():
    frame = _frame(
        [
            ("a", "topic", "hash", 8, 0, 2.0),
            ("b", "topic", "hash", 8, 0, 8.0),
            ("a", "topic", "hash", 8, 1, 1.0),
            ("b", "topic", "hash", 8, 1, 9.0),
        ]
    ).rename(columns={"throughput": "relative_throughput"})
    out = agg.across_datasets(frame).set_index("fold")
    assert out.loc[0, "relative_throughput"] == pytest.approx(4.0)
    assert out.loc[1, "relative_throughput"] == pytest.approx(3.0)
    assert set(out["dataset"]) == {"geomean(a, b)"}
    with pytest.raises(ValueError, match="same grid"):
        agg.across_datasets(frame.iloc[:3])


def test_summarize_mean_and_std_over_folds():
    frame = _frame(
        [
            ("d", "topic", "hash", 8, 0, 2.0),
            ("d", "topic", "hash", 8, 1, 4.0),
            ("d", "topic", "hash", 8, 2, 6.0),
            ("d", "topic", "SALB", 8, 0, 5.0),
        ]
    )
    out = shared.summarize(frame, ["throughput"]).set_index("method")
    assert out.loc["hash", "mean"] == 4.0 and out.loc["hash", "std"] == pytest.approx(2.0)
    assert out.loc["hash", "n"] == 3
    assert out.loc["SALB", "std"] == 0.0  # a single fold has no spread


def test_split_gain_pairs_settings():
    keys = dict(dataset="d", kind="topic", method="SALB", n_matchers=64, fold=0, seed=0)
    frame = pd.DataFrame(
        [
            {**keys, "split_hot": True, "throughput": 30.0, "imbalance": 1.2},
            {**keys, "split_hot": False, "throughput": 12.0, "imbalance": 3.0},
        ]
    )
    gain = agg.split_gain(frame)
    assert len(gain) == 1 and gain["throughput_gain"].iloc[0] == 2.5
    assert gain["imbalance_nosplit"].iloc[0] == 3.0


# --------------------------------------------------------------------------- grids


@pytest.fixture(scope="module")
def small_data():
    return wl.synthetic_cv_data(
        600,
        n_subscriptions=150,
        n_folds=3,
        seed=3,
        progress=False,
        vocab_size=3000,
        n_topics=12,
        topic_words=60,
    )


def _metrics(frame):
    cols = [*ev.CV_KEYS, "throughput", "spread", "imbalance", "n_hot", "n_train"]
    out = frame[cols].copy()
    out["loads"] = frame["loads"].map(tuple)
    return out


@pytest.mark.spark
def test_spark_grid_matches_local_run(spark, small_data):
    args = ([small_data], ["hash", "gFCL", "SALB"], [2, 8], shared.KINDS)
    on_spark = ev.run_cv(*args, spark=spark, progress=False)
    per_fold = ev.run_cv(*args, local=True, folds_per_task=1, progress=False)
    assert len(on_spark) == 3 * 2 * 2 * 3
    pd.testing.assert_frame_equal(_metrics(on_spark), _metrics(per_fold))
    # one row recomputed directly: learn on folds 1, 2 and measure on fold 0
    train, test = small_data.split("topic", 0)
    mapping = learn_mapping(train, 8, "gFCL", seed=0, split_hot=True)
    direct = route_metrics(mapping, test)
    row = on_spark.set_index(["kind", "method", "n_matchers", "fold"]).loc[("topic", "gFCL", 8, 0)]
    assert row["throughput"] == direct.throughput and row["loads"] == direct.loads.tolist()
    rel = shared.add_relative_throughput(on_spark, agg.PAIR_KEYS)
    assert (rel.loc[rel["method"] == "SALB", "relative_throughput"] == 1.0).all()


def test_skew_ablation_reuses_rows_and_pairs_settings(small_data):
    have = ev.run_cv([small_data], ["SALB"], [32], ["topic"], folds=[0], local=True, progress=False)
    ablation = ev.run_skew_ablation(
        [small_data], ["SALB"], [32], ["topic"], folds=[0], have=have, local=True, progress=False
    )
    assert sorted(ablation["split_hot"].tolist()) == [False, True]
    reused = ablation[ablation["split_hot"]].iloc[0]
    assert reused["throughput"] == have["throughput"].iloc[0]
    assert len(agg.split_gain(ablation)) == 1


def test_learning_rows_are_nested_and_disjoint_from_test():
    data = wl.synthetic_curve_data(
        900, 100, n_subscriptions=50, seed=1, progress=False, vocab_size=2000, topic_words=50
    )
    assert np.intersect1d(data.test_rows, data.pool_rows).size == 0
    assert len(data.test_rows) + len(data.pool_rows) == 1000
    small, big = data.learning_rows(200), data.learning_rows(500)
    assert set(small) <= set(big) and len(big) == 500
    other = data.learning_rows(200, repeat=1)
    assert len(other) == 200 and not np.array_equal(other, small)
    assert np.array_equal(other, data.learning_rows(200, repeat=1))
    with pytest.raises(ValueError, match="outside"):
        data.learning_rows(901)
    curve = ev.run_learning_curve(
        data, [200, 500], ["hash", "SALB"], 8, repeats=2, local=True, progress=False
    )
    assert len(curve) == 2 * 2 * 2 * 2 and set(curve["n_train"]) == {200, 500}
    timing = ev.run_learning_time(data, [200, 500], ["SALB", "gFCL"], 8, local=True, progress=False)
    assert (timing["learn_wall_seconds"] > 0).all() and len(timing) == 4


def test_shared_handle_detaches_off_the_driver():
    class DriverSide:
        _jbroadcast = object()
        value = "payload"

    class ExecutorSide:
        _jbroadcast = None
        value = "payload"

    assert shared.SharedData("d", DriverSide()).value == "payload"
    # the driver keeps the handle; an executor sends back an empty placeholder
    assert pickle.loads(pickle.dumps(shared.SharedData("d", ExecutorSide())))._handle is None
    with pytest.raises(RuntimeError, match="detached"):
        _ = pickle.loads(pickle.dumps(shared.SharedData("d", ExecutorSide()))).value


# --------------------------------------------------------------------------- figures


def test_figures_build_from_a_grid(small_data):
    cv = ev.run_cv(
        [small_data],
        ["hash", "SALB"],
        [2, 8],
        shared.KINDS,
        folds=[0, 1],
        local=True,
        progress=False,
    )
    summary = agg.fig5_summary(cv)
    fig = figs.fig5_mapping_metrics(summary, "topic")
    assert len(fig.data) == 2 * 4  # two methods x four panels
    loads = figs.extra_matcher_loads(cv, "tweet", "SALB", 8, fold=1)
    row = cv[(cv["kind"] == "tweet") & (cv["method"] == "SALB") & (cv["n_matchers"] == 8)]
    assert list(loads.data[0].y) == row[row["fold"] == 1]["loads"].iloc[0]
    with pytest.raises(ValueError, match="need exactly one"):
        figs.extra_matcher_loads(cv, "tweet", "SALB", 4)


# --------------------------------------------------------------------------- worked example


def test_worked_example_hand_computed():
    per_post, per_method = ev.worked_example()
    hash_, salb = (
        per_method.set_index("method").loc["hash"],
        per_method.set_index("method").loc["SALB"],
    )
    # the seeded string hash (seed 0, N = 3) and SALB's greedy choice, pinned
    assert hash_["mapping M"] == "flu->2, shot->0, vaccine->2, trump->2, vote->1, rally->1"
    assert salb["mapping M"] == "flu->0, shot->2, vaccine->0, trump->1, vote->1, rally->1"
    # hash, post by post (Eq. 1): {0,2} {2} {0,2} {0,2} {1,2} {1,2} {1} {1,2}
    assert list(per_post["K(P) hash"]) == [
        "{0, 2}",
        "{2}",
        "{0, 2}",
        "{0, 2}",
        "{1, 2}",
        "{1, 2}",
        "{1}",
        "{1, 2}",
    ]
    # L(0) = posts 1, 3, 4 = 3; L(1) = posts 5-8 = 4; L(2) = all but post 7 = 7
    assert [hash_["L(0)"], hash_["L(1)"], hash_["L(2)"], hash_["sum L"]] == [3, 4, 7, 14]
    assert hash_["spread R"] == pytest.approx(14 / 8, abs=1e-3)  # 1.75
    assert hash_["imbalance B"] == pytest.approx(7 / (14 / 3), abs=1e-3)  # 1.5
    assert hash_["throughput T"] == pytest.approx(8 / 7, abs=1e-3)  # 1.143
    # SALB: the health posts go to {0}, {0,2}; the politics posts all to {1}
    # L(0) = posts 1-4 = 4; L(1) = posts 5-8 = 4; L(2) = posts 1, 3, 4 = 3
    assert [salb["L(0)"], salb["L(1)"], salb["L(2)"], salb["sum L"]] == [4, 4, 3, 11]
    assert salb["spread R"] == pytest.approx(11 / 8, abs=1e-3)  # 1.375
    assert salb["imbalance B"] == pytest.approx(4 / (11 / 3), abs=1e-3)  # 12/11 = 1.091
    assert salb["throughput T"] == pytest.approx(8 / 4, abs=1e-3)  # 2.0


def test_swap_hash_pairs_the_other_setting_with_the_same_salb_runs(small_data):
    cv = ev.run_cv(
        [small_data], ["hash", "SALB"], [8], ["topic"], folds=[0, 1], local=True, progress=False
    )
    plain = ev.run_cv(
        [small_data],
        ["hash"],
        [8],
        ["topic"],
        folds=[0, 1],
        split_hot=False,
        local=True,
        progress=False,
    )
    swapped = agg.swap_hash(cv, plain)
    assert len(swapped) == len(cv) and set(swapped["split_hot"]) == {True}
    hash_rows = swapped[swapped["method"] == "hash"]
    assert list(hash_rows["hash_split_hot"]) == [False, False]
    assert sorted(hash_rows["throughput"]) == sorted(plain["throughput"])
    rel = shared.add_relative_throughput(swapped, agg.PAIR_KEYS).set_index(["method", "fold"])[
        "relative_throughput"
    ]
    salb = cv[cv["method"] == "SALB"].set_index("fold")["throughput"]
    for fold in (0, 1):
        t_plain = plain.set_index("fold")["throughput"][fold]
        assert rel[("hash", fold)] == pytest.approx(t_plain / salb[fold])
    with pytest.raises(ValueError, match="hash rows only"):
        agg.swap_hash(cv, cv)
    with pytest.raises(ValueError, match="mix split_hot"):
        agg.swap_hash(pd.concat([cv, plain]), plain)
    fig = figs.fig5_mapping_metrics(
        agg.fig5_summary(cv), "topic", hash_other=agg.fig5_summary(swapped), split_hot=True
    )
    names = [t.name for t in fig.data if t.showlegend]
    assert names == ["hash+split", "SALB", "hash"]
    dashed = [t for t in fig.data if t.name == "hash"]
    assert len(dashed) == 4 and all(t.line.dash == "dash" for t in dashed)


def test_skew_ablation_draws_ratios_as_lines_around_one():
    gains = pd.DataFrame(
        [
            dict(kind=k, method=m, n_matchers=n, fold=f, throughput_gain=g)
            for k in ("tweet", "topic")
            for m, g in (("hash", 1.2), ("SALB", 2.0))
            for n in (64, 256)
            for f in (0, 1)
        ]
    )
    fig = figs.extra_skew_ablation(gains)
    assert {type(t).__name__ for t in fig.data} == {"Scatter"}  # no bars on a log axis
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert [s.y0 for s in fig.layout.shapes] == [1, 1]  # the reference line in both panels
    assert list(fig.layout.xaxis.tickvals) == [64, 256]


def test_headline_table_formats_counts_and_ratios():
    table = agg.headline_table({"posts": 84021, "topic_salb_over_hash": 2.3149, "cv_grid_s": 533.1})
    assert list(table["value"]) == ["84,021", "2.31", "533"]
    assert list(table.index) == ["posts", "topic_salb_over_hash", "cv_grid_s"]
