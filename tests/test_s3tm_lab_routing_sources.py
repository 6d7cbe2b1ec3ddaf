"""Notebook 03's per-source datasets and real-data curves:
routelab.s3tm.lab.routing.workloads (source_subscriptions, source_cv_data, real_cv_from_frame,
curve_from_cv), routing_summary.geomean_of_means / fig5_summary(combine=...) and the
two-dataset Figs. 6 and 9, on hand-made inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from routelab.s3tm.lab import shared
from routelab.s3tm.lab.routing import experiments as ev
from routelab.s3tm.lab.routing import figures as figs
from routelab.s3tm.lab.routing import summary as agg
from routelab.s3tm.lab.routing import workloads as wl

# --------------------------------------------------------------------------- per-source data


def test_source_subscriptions_keep_the_union_ratio():
    # 10k subscriptions for the 84,021 bundled posts; the health-news source has 63,317
    assert wl.source_subscriptions(10_000, 63_317, 84_021) == 7536  # 7535.9 rounded
    assert wl.source_subscriptions(10_000, 20_704, 84_021) == 2464  # 2464.1 rounded
    assert wl.source_subscriptions(100, 3, 1000) == 1  # never zero subscriptions
    assert wl.source_subscriptions(10, 50, 50) == 10
    for bad in ((10, 0, 5), (10, 6, 5), (10, 1, 0)):
        with pytest.raises(ValueError, match="out of a union"):
            wl.source_subscriptions(*bad)


def _posts():
    """40 posts from source ``a`` (words x*, y*) and 20 from ``b`` (words u*, v*)."""
    rows = []
    for i in range(60):
        src = "a" if i < 40 else "b"
        words = ["x", f"x{i % 5}", f"y{i % 3}"] if src == "a" else ["u", f"v{i % 4}"]
        rows.append({"post_id": 1000 + i, "ts": i, "words": words, "source": src})
    return pd.DataFrame(rows)


def test_source_cv_data_makes_one_dataset_per_source():
    frame = _posts()
    data = wl.source_cv_data(
        frame, n_subscriptions=30, n_folds=4, kinds=("tweet",), seed=2, progress=False
    )
    assert [d.name for d in data] == ["tweets:a", "tweets:b"]
    a, b = data
    assert a.corpora["tweet"].n_posts == 40 and b.corpora["tweet"].n_posts == 20
    assert a.n_folds == b.n_folds == 4 and len(np.unique(b.folds)) == 4
    # 30 subscriptions for 60 posts: 20 for a's 40 posts, 10 for b's 20
    assert a.info["n_subscriptions"] == 20 and b.info["n_subscriptions"] == 10
    assert a.info["data_source"] == "a" and b.info["data_source"] == "b"
    # a source's posts hold only that source's words
    assert set(np.asarray(b.corpora["tweet"].vocab)[b.corpora["tweet"].indices]) <= {
        "u",
        "v0",
        "v1",
        "v2",
        "v3",
    }
    only_b = wl.source_cv_data(frame, ["b"], n_subscriptions=30, kinds=("tweet",), n_folds=2)
    assert [d.name for d in only_b] == ["tweets:b"]
    with pytest.raises(ValueError, match=r"no posts from source\(s\) \['c'\]"):
        wl.source_cv_data(frame, ["a", "c"], kinds=("tweet",))


def test_real_cv_from_frame_keeps_all_words_on_request():
    frame = _posts()
    plain = wl.real_cv_from_frame(frame, "d", kinds=("tweet",), n_subscriptions=3, n_folds=3)
    assert plain.kinds == ("tweet",)
    full = wl.real_cv_from_frame(
        frame, "d", kinds=("tweet",), n_subscriptions=3, n_folds=3, all_words=True
    )
    assert full.kinds == ("tweet", wl.ALL_WORDS)
    everything = full.corpora[wl.ALL_WORDS]
    assert everything.nnz == sum(len(w) for w in frame["words"])
    # three tweet subscriptions subscribe fewer words than all of them
    assert full.corpora["tweet"].nnz < everything.nnz


def test_curve_from_cv_holds_out_one_fold_and_pools_the_rest():
    data = wl.real_cv_from_frame(
        _posts(), "d", kinds=("tweet",), n_subscriptions=10, n_folds=5, all_words=True, seed=4
    )
    curve = wl.curve_from_cv(data, test_fold=2)
    assert np.array_equal(curve.test_rows, np.flatnonzero(data.folds == 2))
    assert np.intersect1d(curve.test_rows, curve.pool_rows).size == 0
    assert curve.max_size == 48 and len(curve.test_rows) == 12
    assert np.array_equal(np.sort(curve.pool_rows), np.flatnonzero(data.folds != 2))
    small, big = curve.learning_rows(10), curve.learning_rows(48)
    assert set(small) <= set(big) and np.array_equal(big, np.flatnonzero(data.folds != 2))
    assert curve.corpora[wl.ALL_WORDS] is data.corpora[wl.ALL_WORDS]
    assert curve.info["test_fold"] == 2 and curve.name == "d"
    with pytest.raises(ValueError, match="outside"):
        wl.curve_from_cv(data, test_fold=5)
    rows = ev.run_learning_curve(curve, [10, 48], ["hash", "SALB"], 4, ["tweet"],
                                 repeats=2, local=True, progress=False)  # fmt: skip
    assert len(rows) == 2 * 2 * 2 and set(rows["n_train"]) == {10, 48}
    timing = ev.run_learning_time(curve, [10, 48], ["SALB"], 4, local=True, progress=False)
    assert list(timing["nnz"]) == [int(data.corpora[wl.ALL_WORDS].subset(
        curve.learning_rows(s)).nnz) for s in (10, 48)]  # fmt: skip


# --------------------------------------------------------------------------- summaries


def _rel(rows):
    cols = ["dataset", "kind", "method", "n_matchers", "fold", "relative_throughput"]
    return pd.DataFrame(rows, columns=cols)


def test_geomean_of_means_combines_datasets_with_different_folds():
    frame = _rel(
        [
            ("a", "topic", "hash", 8, 0, 1.0),
            ("a", "topic", "hash", 8, 1, 3.0),  # a: mean 2, std sqrt(2)
            ("b", "topic", "hash", 8, 0, 8.0),  # b: one fold, mean 8, std 0
            ("u", "topic", "hash", 8, 0, 100.0),  # not combined
        ]
    )
    out = agg.geomean_of_means(frame, ["a", "b"])
    assert len(out) == 1
    row = out.iloc[0]
    assert row["dataset"] == "geomean(a, b)" and row["metric"] == "relative_throughput"
    assert row["mean"] == pytest.approx(4.0)  # sqrt(2 * 8)
    assert row["std"] == pytest.approx(4.0 * (math.sqrt(2) / 2) / 2)  # delta method
    assert row["n"] == 1
    single = agg.geomean_of_means(frame, ["a"]).iloc[0]
    assert single["dataset"] == "a" and single["mean"] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="same grid"):
        agg.geomean_of_means(
            pd.concat([frame, _rel([("a", "tweet", "hash", 8, 0, 1.0)])]), ["a", "b"]
        )
    with pytest.raises(ValueError, match="have no rows"):
        agg.geomean_of_means(frame, ["a", "z"])
    with pytest.raises(ValueError, match="no datasets"):
        agg.geomean_of_means(frame, [])


def test_fig5_summary_combines_only_the_named_datasets():
    rows = []
    for dataset, folds, hash_t in (("u", 3, 1.0), ("a", 2, 2.0), ("b", 2, 8.0)):
        for fold in range(folds):
            for method, t in (("SALB", 4.0), ("hash", hash_t)):
                rows.append(
                    {
                        "dataset": dataset, "kind": "tweet", "method": method, "n_matchers": 4,
                        "fold": fold, "split_hot": True, "throughput": t, "spread_routed": 1.0,
                        "imbalance": 1.0,
                    }
                )  # fmt: skip
    cv = pd.DataFrame(rows)
    summary = agg.fig5_summary(cv, main_dataset="u", combine=["a", "b"])
    rel = summary[summary["metric"] == "relative_throughput"].set_index("method")
    assert set(rel["dataset"]) == {"geomean(a, b)"}
    assert rel.loc["hash", "mean"] == pytest.approx(1.0)  # sqrt(0.5 * 2)
    other = summary[summary["metric"] == "throughput"]
    assert set(other["dataset"]) == {"u"}
    # without combine the folds are paired: datasets differ in folds, so it refuses
    with pytest.raises(ValueError, match="same grid"):
        agg.fig5_summary(cv, main_dataset="u")


# --------------------------------------------------------------------------- figures


def test_fig6_and_fig9_draw_real_and_synthetic_as_line_styles():
    summary = pd.DataFrame(
        [
            (d, k, m, s, "throughput", 10.0 + s / 1000, 0.5, 2)
            for d in ("synthetic", "tweets")
            for k in ("tweet", "topic")
            for m in ("hash", "SALB")
            for s in (1000, 10_000)
        ],
        columns=["dataset", "kind", "method", "size", "metric", "mean", "std", "n"],
    )
    fig = figs.fig6_learning_curve(summary, 64)
    assert len(fig.data) == 2 * 2 * 2  # kinds x methods x datasets
    names = {t.name: t.line.dash for t in fig.data}
    assert names == {
        "hash (synthetic)": "solid",
        "hash (real)": "dash",
        "SALB (synthetic)": "solid",
        "SALB (real)": "dash",
    }
    colours = {t.name: t.line.color for t in fig.data}
    assert colours["SALB (real)"] == colours["SALB (synthetic)"]
    assert colours["SALB (real)"] != colours["hash (real)"]
    one = figs.fig6_learning_curve(summary[summary["dataset"] == "synthetic"], 64)
    assert {t.name for t in one.data} == {"hash", "SALB"}
    timing = pd.DataFrame(
        [
            (d, m, s, r, 0.01 * s / 1000 * (r + 1))
            for d in ("synthetic", "tweets")
            for m in ("SALB", "gFCL")
            for s in (1000, 8000)
            for r in (0, 1)
        ],
        columns=["dataset", "method", "size", "repeat", "learn_wall_seconds"],
    )
    fig9 = figs.fig9_learning_time(timing, 64)
    assert len(fig9.data) == 4
    salb_real = next(t for t in fig9.data if t.name == "SALB (real)")
    assert salb_real.line.dash == "dash"
    assert list(salb_real.y) == pytest.approx([0.015, 0.12])  # mean over the two repeats
    assert figs.dataset_label("synthetic") == "synthetic"
    assert figs.dataset_label("tweets:healthtweets") == "real"


def test_relative_by_dataset_tabulates_each_dataset():
    rows = [
        (d, k, m, n, f, t)
        for d, k, m, n, f, t in [
            ("u", "topic", "SALB", 8, 0, 4.0),
            ("u", "topic", "hash", 8, 0, 2.0),
            ("u", "topic", "SALB", 8, 1, 4.0),
            ("u", "topic", "hash", 8, 1, 1.0),
            ("a", "topic", "SALB", 8, 0, 5.0),
            ("a", "topic", "hash", 8, 0, 5.0),
            ("a", "tweet", "SALB", 8, 0, 5.0),
            ("a", "tweet", "hash", 8, 0, 1.0),
        ]
    ]
    cv = pd.DataFrame(
        rows, columns=["dataset", "kind", "method", "n_matchers", "fold", "throughput"]
    )
    table = agg.relative_by_dataset(cv, "topic", ["hash"])
    assert table.loc[("u", "hash"), 8] == pytest.approx(0.375)  # mean of 0.5 and 0.25
    assert table.loc[("a", "hash"), 8] == pytest.approx(1.0)
    assert len(table) == 2
    with pytest.raises(ValueError, match="no"):
        agg.relative_by_dataset(cv, "topic", ["gC"])


# --------------------------------------------------------------------------- Fig. 5 run


def test_run_fig5_combines_the_sources_and_keeps_the_union_for_claims():
    from routelab.s3tm.lab.routing import fig5 as f5

    frame = _posts()
    args = dict(kinds=("tweet",), seed=1, progress=False)
    union = wl.real_cv_from_frame(frame, "tweets", n_subscriptions=20, n_folds=3, **args)
    sources = wl.source_cv_data(frame, n_subscriptions=20, n_folds=2, **args)
    run = f5.run_fig5(
        [union], sources, ["hash", "SALB"], [2, 4], ["tweet"], local=True, progress=False
    )
    assert set(run.cv["dataset"]) == {"tweets"} and len(run.cv) == 2 * 2 * 3
    assert set(run.cv_sources["dataset"]) == {"tweets:a", "tweets:b"}
    assert len(run.cv_sources) == 2 * 2 * 2 * 2  # sources x methods x N x folds
    assert run.combine == ["tweets:a", "tweets:b"] and run.headline_dataset == "tweets"
    assert set(run.hash_rows["split_hot"]) == {False} and len(run.hash_rows) == 2 * 3 + 2 * 2 * 2
    assert {"cv_grid_s", "cv_sources_s", "cv_hash_other_s"} <= set(run.clock)
    fig_summary = run.figure_summary()
    rel = fig_summary[fig_summary["metric"] == "relative_throughput"]
    assert set(rel["dataset"]) == {"geomean(tweets:a, tweets:b)"}
    # the combined value is the geometric mean of the two sources' fold means
    means = []
    for name in ("tweets:a", "tweets:b"):
        part = shared.add_relative_throughput(run.cv_sources, agg.PAIR_KEYS)
        sel = part[(part["dataset"] == name) & (part["method"] == "hash")]
        means.append(sel[sel["n_matchers"] == 4]["relative_throughput"].mean())
    got = rel[(rel["method"] == "hash") & (rel["n_matchers"] == 4)]["mean"].iloc[0]
    assert got == pytest.approx(math.sqrt(means[0] * means[1]))
    claims = run.claims_summary()
    assert set(claims["dataset"]) == {"tweets"}
    other = run.claims_summary(other_hash=True)
    assert set(other["dataset"]) == {"tweets"}
    assert run.figure_summary(other_hash=True) is not None
    assert set(run.claims_cv()["dataset"]) == {"tweets"}
    assert len(run.all_rows()) == len(run.cv) + len(run.cv_sources) + len(run.hash_rows)
    alone = f5.run_fig5([union], [], ["hash", "SALB"], [2], ["tweet"], hash_both_ways=False,
                        local=True, progress=False)  # fmt: skip
    assert alone.combine == [] and alone.hash_rows is None
    assert alone.claims_summary(other_hash=True) is None
    assert set(alone.figure_summary()["dataset"]) == {"tweets"}
    with pytest.raises(ValueError, match="headline"):
        f5.run_fig5([], sources, ["hash"], [2], ["tweet"], local=True)


def test_sizes_up_to_ends_with_the_whole_pool():
    assert wl.sizes_up_to([1000, 3000, 10_000, 100_000], 75_618) == [1000, 3000, 10_000, 75_618]
    assert wl.sizes_up_to([3000, 1000, 3000], 3000) == [1000, 3000]
    assert wl.sizes_up_to([], 50) == [50]
    with pytest.raises(ValueError, match="positive"):
        wl.sizes_up_to([0, 10], 50)
    with pytest.raises(ValueError, match="positive"):
        wl.sizes_up_to([10], 0)


def test_fig5_data_note_names_every_dataset_and_its_folds():
    from routelab.s3tm.lab.routing import fig5 as f5

    frame = _posts()
    args = dict(kinds=("tweet",), progress=False)
    union = wl.real_cv_from_frame(frame, "tweets", n_subscriptions=6, n_folds=5, **args)
    sources = wl.source_cv_data(frame, n_subscriptions=6, n_folds=2, **args)
    note = f5.data_note([union], sources)
    assert note == (
        "real: bundled tweets (60 posts, 5 folds); (a, e): geomean over 2 sources"
        " (2 folds each; fewer: time budget)"
    )
    assert f5.data_note([union], []) == "real: bundled tweets (60 posts, 5 folds)"
    same = wl.source_cv_data(frame, n_subscriptions=6, n_folds=5, **args)
    assert "fewer" not in f5.data_note([union], same)
    three = wl.real_cv_from_frame(frame, "tweets", n_subscriptions=6, n_folds=3, **args)
    assert "(60 posts, 3 folds)" in f5.data_note([three], [])  # the folds that ran
