"""Concept drift (S3-TM Sect. 6.4, Fig. 7i-l): windows, the learn-on-week-0 experiment, and
the trend test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from routelab.s3tm.lab.drift import claims as drift_claims
from routelab.s3tm.lab.drift import experiments as drift
from routelab.s3tm.mappings import learn_mapping
from routelab.s3tm.metrics import route_metrics
from routelab.s3tm.wordsets import Corpus

# --------------------------------------------------------------------------- windows


def test_equal_count_windows_by_hand():
    ts = pd.to_datetime(
        [
            "2013-01-05",
            "2012-12-31",
            "2013-01-02",
            "2013-01-01",
            "2013-01-03",
            "2013-01-02",
            "2013-01-04",
            "2013-02-01",
        ]
    )
    ids = np.array([70, 10, 40, 20, 50, 30, 60, 80])
    # in range [2013-01-01, 2013-02-01): rows 3 (01-01), 5 (01-02, id 30), 2 (01-02, id 40),
    # 4 (01-03), 6 (01-04), 0 (01-05); 2 windows of 3
    got = drift.equal_count_windows(ts, 2, start="2013-01-01", end="2013-02-01", post_ids=ids)
    assert got.tolist() == [1, -1, 0, 0, 1, 0, 1, -1]
    # windows of 2: the first 4 posts in time order (rows 3, 5 | 2, 4), the rest left out
    got = drift.equal_count_windows(ts, 2, start="2013-01-01", window_posts=2, post_ids=ids)
    assert got.tolist() == [-1, -1, 1, 0, 1, 0, -1, -1]


def test_equal_count_windows_errors():
    ts = pd.date_range("2013-01-01", periods=5, freq="D")
    with pytest.raises(ValueError, match="cannot fill"):
        drift.equal_count_windows(ts, 6)
    with pytest.raises(ValueError, match="cannot fill"):
        drift.equal_count_windows(ts, 2, window_posts=3)
    with pytest.raises(ValueError, match="n_windows"):
        drift.equal_count_windows(ts, 0)


# --------------------------------------------------------------------------- trend test


def test_slope_test_by_hand():
    # y = 1, 2, 4 at x = 1, 2, 3: slope 1.5, residuals 1/6, -1/3, 1/6, SSR = 1/6,
    # se = sqrt(SSR / (n - 2) / Sxx) = sqrt(1/12), t = 1.5 / sqrt(1/12) = 5.196
    t = drift.slope_test([1, 2, 3], [1, 2, 4])
    assert t.slope == pytest.approx(1.5)
    assert t.stderr == pytest.approx(np.sqrt(1 / 12))
    assert t.t == pytest.approx(5.196152, rel=1e-6)
    assert t.p_decreasing == pytest.approx(stats.t.cdf(5.196152, 1), rel=1e-6)
    assert not t.decreasing()


@pytest.mark.parametrize("seed", range(5))
def test_slope_test_agrees_with_scipy(seed):
    rng = np.random.default_rng(seed)
    x = np.arange(12, dtype=float)
    y = 3 - 0.1 * x + rng.normal(0, 0.5, len(x))
    ours = drift.slope_test(x, y)
    ref = stats.linregress(x, y)
    assert ours.slope == pytest.approx(ref.slope)
    assert ours.stderr == pytest.approx(ref.stderr)
    # scipy's two-sided p is twice our one-sided p when the slope is negative
    if ours.slope < 0:
        assert 2 * ours.p_decreasing == pytest.approx(ref.pvalue)


def test_slope_test_edge_cases():
    exact = drift.slope_test([1, 2, 3, 4], [4, 3, 2, 1])
    assert exact.stderr == 0 and exact.p_decreasing == 0.0 and exact.decreasing()
    flat = drift.slope_test([1, 2, 3], [2, 2, 2])
    assert np.isnan(flat.p_decreasing) and not flat.decreasing()
    with pytest.raises(ValueError):
        drift.slope_test([1, 2], [1, 2])
    with pytest.raises(ValueError):
        drift.slope_test([1, 1, 1], [1, 2, 3])


def _trend_frame(values: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        {"dataset": "d", "learn_on": "all", "method": m, "window": w, "throughput": v}
        for m, vs in values.items()
        for w, v in enumerate(vs)
    ]
    return pd.DataFrame(rows)


def test_trend_tests_drop_then_flat_vs_decay():
    frame = _trend_frame(
        {
            "SALB": [10, 6, 6.2, 5.9, 6.1, 6.0, 5.8, 6.2],  # drop, then noise
            "gFCL": [10, 9, 8, 7, 6, 5, 4, 3],  # steady decay
        }
    )
    out = drift.trend_tests(frame).set_index("method")
    assert out.loc["SALB", "drop"] == pytest.approx(10 / np.mean([6, 6.2, 5.9, 6.1, 6.0, 5.8, 6.2]))
    assert not out.loc["SALB", "decreasing"] and out.loc["gFCL", "decreasing"]
    assert out.loc["gFCL", "slope"] == pytest.approx(-1.0)
    assert out.loc["SALB", "windows_tested"] == 7


def _trend_rows(rel_slopes, rel_se, drops=(1.0, 1.5, 1.4, 1.3), decreasing=(False,) * 4):
    """Rows of ``trend_tests`` for hash, gFCL, gNFCL, SALB (later mean 100, 7 windows)."""
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
            "p_decreasing": [0.5, 0.2, 0.5, 0.8],
            "decreasing": list(decreasing),
            "windows_tested": 7,
        }
    )


def test_drift_claims_verdicts():
    """The absence of a decrease is shown (a decrease beyond 2 %/window ruled out by
    the slope's one-sided 95 % bound), not read from a t-test that fails to reject."""
    v = lambda row: row["verdict"].verdict  # noqa: E731
    flat = _trend_rows([0.0, -0.002, 0.0, 0.002], [0.001] * 4)
    rows = drift_claims.drift_claims(flat, flat)
    assert [v(r) for r in rows] == ["holds", "holds"]
    assert "ruled out" in rows[0]["verdict"].rule
    # a flat estimate with a wide CI (se 3 %/window): not significant, yet not shown absent
    noisy = _trend_rows([0.0, 0.0, 0.0, 0.0], [0.03] * 4)
    row = drift_claims.drift_claims(noisy, flat)[0]
    assert v(row) == "inconclusive" and "not ruled out" in row["verdict"].rule
    # rising by 5 %/window is no decrease
    rising = _trend_rows([0.05] * 4, [0.005] * 4)
    assert v(drift_claims.drift_claims(rising, flat)[0]) == "holds"
    # gFCL decays 5 %/window, the others are flat: partly; hash declines too (note)
    decay = _trend_rows(
        [-0.05, -0.05, 0.0, 0.0], [0.005] * 4, decreasing=(True, True, False, False)
    )
    row = drift_claims.drift_claims(decay, flat)[0]
    assert v(row) == "partly" and "gFCL" in row["note"] and "hash" in row["note"]
    # every learned method decays: fails
    assert v(drift_claims.drift_claims(_trend_rows([-0.05] * 4, [0.005] * 4), flat)[0]) == "fails"
    # no drop after week 0 but no decrease either: half of the sentence (partly)
    nodrop = _trend_rows([0.0] * 4, [0.001] * 4, drops=(1.0, 0.9, 0.8, 0.95))
    assert v(drift_claims.drift_claims(nodrop, flat)[0]) == "partly"
    assert (
        drift_claims.no_trend_verdict(
            pd.Series(
                {"windows_tested": 2, "later_mean": 1.0, "slope_se": 0.1, "relative_slope": 0.0}
            )
        ).verdict
        == "not comparable"
    )


def test_advantage_claim_names_the_windows_lost():
    frame = _trend_frame({"SALB": [5, 4, 3, 4], "hash": [3, 3, 3.5, 2]}).assign(dataset="tweets")
    row = drift_claims.advantage_claim(frame)
    assert row["verdict"].verdict == "partly" and "2 of 3" in row["measured"]
    assert "window 2: hash" in row["note"]
    assert drift_claims.advantage_claim(frame[frame["window"] != 2])["verdict"].verdict == "holds"
    behind = _trend_frame({"SALB": [5, 2, 2, 2], "hash": [3, 3, 3.5, 3]}).assign(dataset="tweets")
    assert drift_claims.advantage_claim(behind)["verdict"].verdict == "fails"
    labelled = drift_claims.advantage_claim(frame, label="one source")
    assert labelled["claim"].endswith("(one source)") and not row["claim"].endswith(")")


# --------------------------------------------------------------------------- experiment


@pytest.fixture(scope="module")
def tiny():
    """Synthetic drifting posts in 4 windows; W^s_w = the 40 most frequent words of window w."""
    from routelab.datasets.synthetic import topic_tweets_pandas

    frame = topic_tweets_pandas(
        1600, seed=5, weeks=4.0, vocab_size=500, topic_words=60, n_topics=8, drift=1.0
    )
    win = drift.equal_count_windows(frame["ts"], 4, post_ids=frame["post_id"].to_numpy())
    frame = frame.assign(window=win).sort_values(["ts", "post_id"], ignore_index=True)
    corpus = Corpus.from_frame(frame[["post_id", "words"]])
    subscribed = []
    for w in range(4):
        counts = frame.loc[frame["window"] == w, "words"].explode().value_counts()
        subscribed.append(frozenset(counts.index[:40]))
    table = pd.DataFrame({"window": range(4), "first": frame.groupby("window")["ts"].min()})
    return drift.DriftData("tiny", corpus, frame["window"].to_numpy(), tuple(subscribed), table)


@pytest.mark.parametrize("learn_on", drift.LEARN_ON)
def test_drift_task_learns_on_window0_and_measures_each_window(tiny, learn_on):
    params = {
        "data": tiny,
        "method": "SALB",
        "n_matchers": 4,
        "learn_on": learn_on,
        "split_hot": False,
        "seed": 0,
    }
    rows = drift.drift_task(params)
    assert [r["window"] for r in rows] == [0, 1, 2, 3]
    train = tiny.window(0, restrict=learn_on == "subscribed")
    mapping = learn_mapping(train, 4, "SALB", seed=0)
    if learn_on == "subscribed":
        assert set(mapping.assignment) <= tiny.subscribed[0]
    else:
        assert len(set(mapping.assignment) - tiny.subscribed[0]) > 0
    for w, row in enumerate(rows):
        window_posts = tiny.window(w)
        assert set(window_posts.vocab[j] for j in window_posts.indices) <= tiny.subscribed[w]
        expected = route_metrics(mapping, window_posts)
        assert row["throughput"] == pytest.approx(expected.throughput)
        assert row["n_posts"] == 400


def test_run_drift_local_adds_relative_and_gain(tiny):
    frame = drift.run_drift([tiny], ("hash", "SALB"), 4, local=True, progress=False)
    assert len(frame) == 2 * 2 * 4  # variants x methods x windows
    salb = frame[frame["method"] == "SALB"]
    assert np.allclose(salb["relative_throughput"], 1.0)
    gain = drift.add_gain_over_hash(frame)
    assert np.allclose(gain.loc[gain["method"] == "hash", "gain_over_hash"], 1.0)
    # hash learns nothing: both variants give the same numbers
    h = frame[frame["method"] == "hash"].pivot_table(
        index="window", columns="learn_on", values="throughput"
    )
    assert np.allclose(h["all"], h["subscribed"])


@pytest.mark.spark
def test_run_drift_on_spark_equals_local(tiny, spark):
    local = drift.run_drift(
        [tiny], ("hash", "gFCL", "SALB"), 4, ("all",), local=True, progress=False
    )
    remote = drift.run_drift(
        [tiny], ("hash", "gFCL", "SALB"), 4, ("all",), spark=spark, progress=False
    )
    cols = ["method", "window", "throughput", "spread_routed", "imbalance"]
    pd.testing.assert_frame_equal(local[cols], remote[cols])


def test_drift_data_fits_topics_per_window():
    from routelab.datasets.synthetic import topic_tweets_pandas

    frame = topic_tweets_pandas(600, seed=2, weeks=3.0, vocab_size=300, topic_words=40, n_topics=5)
    data = drift.drift_data(
        "s", frame, 3, n_subscriptions=200, n_topics=3, lda_passes=1, local=True, progress=False
    )
    assert data.n_windows == 3 and data.table["posts"].tolist() == [200, 200, 200]
    assert data.table["overlap_with_w0"].iloc[0] == 1.0
    for w in range(3):
        posts = data.window(w, restrict=False)
        words = {posts.vocab[j] for j in posts.indices}
        assert data.subscribed[w] and data.subscribed[w] <= words  # topics of that window
    again = drift.drift_data(
        "s", frame, 3, n_subscriptions=200, n_topics=3, lda_passes=1, local=True, progress=False
    )
    assert again.subscribed == data.subscribed  # seeded


# --------------------------------------------------------------------------- worked example


def test_top_k_ties_alphabetical():
    from routelab.s3tm.lab.drift.example import top_k

    assert top_k({"b": 2, "a": 2, "c": 3, "d": 1}, 2) == ["c", "a"]
    with pytest.raises(ValueError):
        top_k({"a": 1}, 0)


def test_turnover_on_a_hand_made_stream():
    from routelab.s3tm.lab.drift.example import top_word_turnover, window_counts

    # window 0: a in 5 posts, b in 4, c in 3, d in 1; window 1: a 2, c 6, d 4, e 4;
    # window 2: c 3, e 5, a 1
    w0 = [["a", "b", "c"]] * 3 + [["a", "b"]] + [["a", "d"]]
    w1 = [["c", "d", "e"]] * 4 + [["c", "a"]] * 2
    w2 = [["c", "e"]] * 3 + [["e", "a"]] + [["e"]]
    posts = w0 + w1 + w2
    windows = np.array([0] * len(w0) + [1] * len(w1) + [2] * len(w2))
    counts = window_counts(Corpus.from_word_lists(posts), windows)
    assert counts[0] == {"a": 5, "b": 4, "c": 3, "d": 1}
    assert counts[1] == {"a": 2, "c": 6, "d": 4, "e": 4}
    assert counts[2] == {"a": 1, "c": 3, "e": 5}
    table = top_word_turnover(counts, k=2)
    # top-2: (a, b) -> (c, d) [d before e on the tie] -> (e, c)
    assert list(table["entering"]) == ["c (6), d (4)", "e (5)"]
    assert list(table["leaving"]) == ["a (5), b (4)", "d (4)"]
    assert list(table["kept"]) == [0, 1]
    assert list(table["from"]) == ["0", "1"] and list(table["to"]) == ["1", "2"]


def test_window_counts_ignores_posts_outside_windows():
    from routelab.s3tm.lab.drift.example import window_counts

    corpus = Corpus.from_word_lists([["a"], ["b"], ["a", "b"]])
    assert window_counts(corpus, np.array([0, -1, 0])) == [{"a": 2, "b": 1}]
    with pytest.raises(ValueError):
        window_counts(corpus, np.array([0, 0]))


def test_trend_summary_joins_throughput_and_gain():
    from routelab.s3tm.lab.drift.figures import trend_summary

    keys = {"dataset": "tweets", "learn_on": "all"}
    trends = pd.DataFrame(
        [
            {**keys, "method": m, "drop": d, "relative_slope": s, "p_decreasing": p}
            for m, d, s, p in (("SALB", 1.3, -0.01, 0.2), ("hash", 1.0, 0.0, 0.5))
        ]
    )
    gains = trends.assign(drop=[1.2, 1.0], relative_slope=[0.01, 0.0])
    table = trend_summary(trends, gains)
    assert list(table["method"]) == ["hash", "SALB"]
    salb = table.set_index("method").loc["SALB"]
    assert salb["throughput drop"] == 1.3 and salb["gain drop"] == 1.2
    assert salb["gain slope/window"] == 0.01
    assert pd.isna(table.set_index("method").loc["hash", "gain drop"])
