"""PS2Stream in the paper's regime: the stream's steady state, untimed registration, the
cost model against the clock, the grid chosen on the model, what Algorithm 1's threshold
sees (notebook 11's claims rules: ``test_spatial_lab_claims.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.spatial.cost import CostParams
from routelab.spatial.engine import (
    build_partition,
    first_object,
    make_gridt,
    prepare,
    run_pipeline,
)
from routelab.spatial.gi2 import WorkerTuples
from routelab.spatial.grid import BaseGrid
from routelab.spatial.lab import regime as rg
from routelab.spatial.lab.partitioning import cost_clock as cc
from routelab.spatial.lab.partitioning import experiments as sx
from routelab.spatial.lab.partitioning.text_split import probe_summary, similarity_probe
from routelab.spatial.lab.workload import (
    WorkloadParams,
    make_queries_frame,
    place_tweets,
    tweet_stream,
)
from routelab.spatial.model import DEL, INS, OBJ
from routelab.spatial.oracle import oracle_pairs
from routelab.spatial.workload import random_workload

GRID = BaseGrid(-0.5, -0.5, 10.5, 10.5, 32)


def test_the_stream_keeps_mu_queries_alive_and_the_update_ratio_after_registration():
    st = tweet_stream(WorkloadParams(country="GB", n_objects=6000, mu=2000, seed=3))
    first = first_object(st)
    assert first == 2000 and (st.kind[:first] != OBJ).all()  # the opening registration
    steady = st.kind[first:]
    n_obj, n_upd = int((steady == OBJ).sum()), int((steady != OBJ).sum())
    assert n_obj == 6000
    assert 4.0 < n_obj / n_upd < 6.5  # objects : (INS + DEL) = 5
    alive = np.cumsum(np.where(st.kind == INS, 1, np.where(st.kind == DEL, -1, 0)))
    assert abs(np.median(alive[first:]) - 2000) < 200  # ~mu live queries all along


def test_q2_draws_every_keyword_outside_the_top_percent_by_default():
    objects = place_tweets(WorkloadParams(n_objects=3000, seed=2))
    counts: dict[str, int] = {}
    for ws in objects.words:
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
    top = set(sorted(counts, key=lambda w: (-counts[w], w))[: int(np.ceil(0.01 * len(counts)))])
    q = make_queries_frame(objects, 400, WorkloadParams(query_set="Q2", seed=2))
    assert q.dnf.map(lambda d: all(w not in top for c in d for w in c)).all()
    one = make_queries_frame(objects, 400, WorkloadParams(query_set="Q2", q2_rare="one", seed=2))
    assert one.dnf.map(lambda d: any(w not in top for c in d for w in c)).all()
    assert not one.dnf.map(lambda d: all(w not in top for c in d for w in c)).all()
    with pytest.raises(ValueError, match="q2_rare"):
        make_queries_frame(objects, 10, WorkloadParams(query_set="Q2", q2_rare="some"))


def test_worker_tuples_split_keeps_every_posting():
    t = WorkerTuples(
        np.array([INS, INS, OBJ, INS], np.int8), np.array([0, 1, 0, 2]),
        np.array([0, 2, 3, 3, 5]), np.arange(5), np.arange(5, dtype=np.int32),
    )  # fmt: skip
    head, tail = t.split(2)
    assert len(head) == 2 and len(tail) == 2
    assert head.post_cell.tolist() == [0, 1, 2] and head.post_ptr.tolist() == [0, 2, 3]
    assert tail.post_cell.tolist() == [3, 4] and tail.post_ptr.tolist() == [0, 0, 2]
    assert len(t.split(0)[0]) == 0 and len(t.split(99)[1]) == 0


def test_the_registration_is_replayed_untimed_and_matches_are_unchanged():
    st = random_workload(5, n_objects=400, n_queries=90, mu=30)
    setup = prepare(st, GRID, np.arange(200), np.arange(40))
    part, _ = build_partition(setup, "kd-tree", 3)
    res = run_pipeline(setup, part, repeats=2)
    assert res.pairs == oracle_pairs(st)
    first = first_object(st)
    for w in res.workers:
        assert w.warm == int((w.tup < first).sum())
        assert w.timed_tuples == w.tuples - w.warm
        assert len(w.busy_runs) == 2 and w.busy_s == min(w.busy_runs)
    m = sx.measure(setup, res, 2, CostParams())
    assert m["tuples"] == len(st.kind) - first
    counts = sum(np.array(m[c]) for c in ("w_objects", "w_ins", "w_del"))
    assert counts.sum() == sum(w.timed_tuples for w in res.workers)
    loads = CostParams()
    want = [
        loads.c_m * c + loads.c_o * o + loads.c_ins * i + loads.c_del * d
        for c, o, i, d in zip(m["w_checks"], m["w_objects"], m["w_ins"], m["w_del"], strict=True)
    ]
    assert m["w_load"] == pytest.approx(want)


def test_grid_granularity_is_chosen_on_the_sample_model():
    st = random_workload(6, n_objects=500, n_queries=100, mu=40)
    setup = prepare(st, GRID, np.arange(250), np.arange(50))
    part, _, gb = sx.grid_on_model(setup, 3, [2, 4, 8])
    peaks = {
        k: float(build_partition(setup, "grid", 3, grid_gb=k)[0].worker_loads(setup.stats).max())
        for k in (2, 4, 8)
    }
    assert gb == min(peaks, key=peaks.get)
    assert float(part.worker_loads(setup.stats).max()) == pytest.approx(peaks[gb])
    with pytest.raises(ValueError, match="granularity"):
        sx.grid_on_model(setup, 3, [])


def _workers(costs_ns: dict[str, float], noise: float = 0.0, seed: int = 0) -> pd.DataFrame:
    """Runs whose busy time is exactly ``costs_ns`` per count (plus noise)."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in ("Q1", "Q2"):
        for a in ("hybrid", "kd-tree"):
            n = 6
            cols = {
                "w_checks": rng.integers(10_000, 200_000, n).astype(float),
                "w_objects": rng.integers(1_000, 20_000, n).astype(float),
                "w_ins": rng.integers(100, 4_000, n).astype(float),
                "w_del": rng.integers(100, 4_000, n).astype(float),
            }
            busy = sum(costs_ns[k] * 1e-9 * cols[c] for k, c in cc.KINDS.items())
            busy = busy * (1 + noise * rng.normal(size=n))
            rows.append({"country": "US", "query_set": q, "algorithm": a, "seed": 0,
                         "n_workers": n, **{c: list(v) for c, v in cols.items()},
                         "w_busy": list(busy), "w_postings": [0.0] * n})  # fmt: skip
    return pd.DataFrame(rows)


def test_calibration_recovers_known_unit_costs_and_the_fit_says_how_good_the_model_is():
    truth = {"check": 20.0, "object": 300.0, "insertion": 2000.0, "deletion": 100.0}
    workers = cc.worker_frame(_workers(truth))
    assert len(workers) == 2 * 2 * 6
    units = cc.calibrate(workers)
    for k, v in truth.items():
        assert units[f"{k}_ns"].tolist() == pytest.approx([v, v], rel=1e-6)
    assert units["insertion_per_check"].tolist() == pytest.approx([100.0, 100.0])
    # the partitioners' ratios (1 / 10 / 10 / 10) misprice insertions 10x here
    spec = CostParams()
    fit = cc.fit_table(workers, units, spec)
    assert (fit.r2_calibrated > 0.999).all()
    assert (fit.r2_balanced < fit.r2_calibrated).all()
    exact = CostParams(c_m=1.0, c_o=15.0, c_ins=100.0, c_del=5.0)  # the true ratios
    assert (cc.fit_table(workers, units, exact).r2_balanced > 0.999).all()
    errors = cc.kind_errors(workers, units, spec)
    by_kind = errors.groupby("kind").error_share.mean()
    assert by_kind["insertion"] < 0 < by_kind["check"]  # insertions under-charged
    assert cc.kind_errors(workers, units, exact).error_share.abs().max() < 1e-6
    # busy time that follows postings, not queries: the posting fit explains it
    per_posting = _workers(truth).assign(
        w_postings=lambda f: [list(np.array(i) * 7.0) for i in f.w_ins]
    )
    w2 = cc.worker_frame(per_posting)
    w2["w_busy"] = 20e-9 * w2.w_checks + 300e-9 * w2.w_objects + 1e-6 * w2.w_postings
    pf = cc.posting_fit(w2)
    assert (pf.r2_postings > 0.999).all() and pf.posting_ns.iloc[0] == pytest.approx(1000, rel=1e-6)
    clock = cc.against_the_clock(_workers(truth), exact)
    assert clock.workers.predicted.to_numpy() == pytest.approx(clock.workers.w_busy.to_numpy())
    assert {"r2_balanced", "r2_calibrated", "r2_postings"} <= set(clock.fit.columns)
    assert len(clock.errors) == 2 * len(cc.KINDS)
    noisy = cc.calibrate(cc.worker_frame(_workers(truth, noise=0.3, seed=1)))
    assert (noisy.r2 < 0.99).all()
    with pytest.raises(ValueError, match="per-worker"):
        cc.worker_frame(pd.DataFrame({"algorithm": ["x"]}))


def test_similarity_estimators_and_the_probe():
    st = random_workload(7, n_objects=600, n_queries=150, mu=100)
    setup = prepare(st, GRID, np.arange(600), np.arange(150))
    stats = setup.stats
    plug = stats.similarity(0, 0, 32, 32)
    deb = stats.similarity(0, 0, 32, 32, estimator="debiased")
    assert 0 < plug <= 1 and 0 <= deb <= 1
    with pytest.raises(ValueError, match="estimator"):
        stats.similarity(0, 0, 32, 32, estimator="other")
    probe = similarity_probe(stats, depth=2)
    assert probe.depth.tolist().count(0) == 1 and probe.depth.max() == 2
    root = probe.iloc[0]
    assert root.similarity == pytest.approx(plug) and root.objects == 600
    kids = probe[probe.depth == 1]
    assert kids.objects.sum() == 600  # the children tile the root
    summary = probe_summary(probe, theta=2.0)
    assert summary["probe_below_theta"] == 1.0 and summary["root_similarity"] == plug
    assert probe_summary(probe, theta=-1.0)["probe_below_theta"] == 0.0


def test_debiased_cosine_by_hand():
    from routelab.spatial.cost import SampleStats
    from routelab.spatial.model import (
        Vocabulary,
        assign_keys,
        make_objects,
        make_queries,
        term_frequencies,
    )

    vocab = Vocabulary()
    objs = make_objects(np.arange(3), np.full(3, 1.0), np.full(3, 1.0),
                        [["a"], ["a"], ["b"]], vocab)  # fmt: skip
    qs = make_queries(np.arange(2), np.array([[0, 0, 2, 2], [0, 0, 2, 2]], float),
                      [[["a"]], [["b"]]], vocab)  # fmt: skip
    assign_keys(qs, term_frequencies(objs, len(vocab)))
    stats = SampleStats(GRID, objs, qs, len(vocab))
    # objects (a: 2, b: 1), queries (a: 1, b: 1)
    assert stats.similarity(0, 0, 32, 32) == pytest.approx(3 / (np.sqrt(5) * np.sqrt(2)))
    # debiased: |vo|^2 - sum = 5 - 3 = 2, |vq|^2 - sum = 2 - 2 = 0 -> no repeated keyword: 0
    assert stats.similarity(0, 0, 32, 32, estimator="debiased") == 0.0


def test_counting_merge_equals_the_set_merge():
    from routelab.spatial.engine import merge, merge_count

    st = random_workload(8, n_objects=400, n_queries=90, mu=30)
    setup = prepare(st, GRID, np.arange(200), np.arange(40))
    part, _ = build_partition(setup, "metric", 3)  # text partitioning: duplicates happen
    kept = run_pipeline(setup, part)
    pairs, dups = merge(kept.workers)
    assert merge_count(kept.workers) == (len(pairs), dups)
    counted = run_pipeline(setup, part, keep_pairs=False)
    assert counted.info["distinct_pairs"] == len(oracle_pairs(st)) and counted.pairs == set()
    assert counted.duplicates == kept.duplicates
    skipped = run_pipeline(setup, part, keep_pairs=False, count_pairs=False)
    assert (skipped.info["distinct_pairs"], skipped.duplicates) == (-1, -1)
    assert skipped.info["copies"] == counted.info["copies"]  # the same routing and replays


def test_stats_read_with_other_costs_equal_stats_built_with_them():
    """The posting-unit builds reuse the sample's statistics (``with_costs``) instead of
    rebuilding them: every load and every partition equals a fresh build's."""
    st = random_workload(5, n_objects=500, n_queries=120, mu=40)
    posting = CostParams(update_unit="posting")
    plain = prepare(st, GRID, np.arange(250), np.arange(60))
    fresh = prepare(st, GRID, np.arange(250), np.arange(60), posting)
    reread = plain.stats.with_costs(posting)
    assert reread.costs == posting and plain.stats.costs == CostParams()
    for rect in [(0, 0, 32, 32), (3, 5, 17, 30), (10, 10, 11, 11)]:
        assert np.allclose(reread.term_loads(*rect), fresh.stats.term_loads(*rect))
        assert np.allclose(reread.cell_loads(*rect), fresh.stats.cell_loads(*rect))
    # the query-unit reading is not changed by the copy
    assert not np.allclose(plain.stats.term_loads(0, 0, 32, 32), reread.term_loads(0, 0, 32, 32))
    from dataclasses import replace

    for alg in ("hybrid", "kd-tree", "metric"):
        a, _ = build_partition(replace(plain, stats=reread), alg, 3)
        b, _ = build_partition(fresh, alg, 3)
        ga, gb = make_gridt(fresh, a), make_gridt(fresh, b)  # who gets each (cell, term)
        assert np.array_equal(ga.cell_owner, gb.cell_owner), alg
        assert np.array_equal(ga.tables, gb.tables), alg


def test_one_stream_serves_several_worker_counts():
    params = {"country": "GB", "query_set": "Q2", "n_workers": [3, 2], "seed": 1,
              "algorithms": ("kd-tree", "hybrid", "grid"), "scal_algorithms": ("kd-tree", "hybrid"),
              "n_objects": 3000, "mu": 200, "g": 32, "sample_min": 1500, "n_dispatchers": 2,
              "repeats": 1, "grid_gb": [4, 8]}  # fmt: skip
    rows = sx.run_algorithms(params)
    got = sorted((r["n_workers"], r["algorithm"]) for r in rows)
    assert got == [(2, "hybrid"), (2, "kd-tree"), (3, "grid"), (3, "hybrid"), (3, "kd-tree")]
    assert {r["tuples"] for r in rows} == {rows[0]["tuples"]}  # the same stream
    grid = next(r for r in rows if r["algorithm"] == "grid")
    assert grid["grid_gb"] in (4, 8)
    hybrid = next(r for r in rows if r["algorithm"] == "hybrid")
    assert {"ns", "nt", "root_similarity", "probe_similarities"} <= set(hybrid)
    assert all(len(r["w_busy"]) == r["n_workers"] and r["peak_rss_mb"] > 0 for r in rows)
    # no claim reads the merger's counts: skipped unless asked for, then every partitioner's
    # workers together deliver the same distinct pairs
    assert {(r["pairs"], r["duplicates"]) for r in rows} == {(-1, -1)}
    counted = sx.run_algorithms({**params, "n_workers": [3], "count_pairs": True})
    assert len({r["pairs"] for r in counted}) == 1 and counted[0]["pairs"] > 0
    # latency is modelled only where Fig. 8 reads it: the compared three at the first N
    modelled = {(r["n_workers"], r["algorithm"]) for r in rows if r["latency_runs"]}
    assert modelled == {(3, "hybrid"), (3, "kd-tree")}
    for r in rows:
        if (r["n_workers"], r["algorithm"]) in modelled:
            assert r["latency_us"] > 0 and all(len(g) == 1 for g in r["latency_runs_grid"])
        else:
            assert np.isnan(r["latency_us"]) and r["latency_runs_grid"] == [[]] * len(rg.C_GRID_US)
    # the frame as notebook 11 cuts it, and a cost per message over the unmodelled rows
    frames = sx.split_runs(
        pd.DataFrame(rows).assign(units="query", country="GB", query_set="Q2"), 3, ["GB"]
    )
    assert sorted(frames.fig6.algorithm) == ["grid", "kd-tree"]
    assert sorted(frames.fig7.algorithm) == ["hybrid", "kd-tree"]
    assert len(frames.fig11) == 4 and frames.posting.empty
    paid = rg.at_cost(pd.DataFrame(rows), rg.C_PAPER_US)
    assert paid.latency_us.isna().sum() == 3 and (paid.latency_us.dropna() > 0).all()


def test_split_runs_names_a_frame_that_is_not_notebook_11s():
    with pytest.raises(ValueError, match="no column.*units"):
        sx.split_runs(pd.DataFrame({"country": ["GB"], "query_set": ["Q1"], "algorithm": ["grid"],
                                    "n_workers": [8]}), 8, ["GB"])  # fmt: skip


def _edge_stream(seed: int = 11):
    """Queries on random boxes; objects on every corner and edge midpoint of every box,
    and a hair outside each edge: a boundary slip in any spatial kernel changes a match."""
    from routelab.spatial.model import Stream, Vocabulary, make_objects, make_queries
    from routelab.spatial.workload import interleave

    rng = np.random.default_rng(seed)
    vocab = Vocabulary()
    n_q = 40
    x0 = rng.uniform(0, 8, n_q)
    y0 = rng.uniform(0, 8, n_q)
    rects = np.stack([x0, y0, x0 + rng.uniform(0.3, 2, n_q), y0 + rng.uniform(0.3, 2, n_q)], 1)
    w = GRID.cell_width  # 11/32: grid lines are exact binary fractions
    line = lambda v: GRID.min_lon + np.round((v - GRID.min_lon) / w) * w  # noqa: E731
    rects[::5, 0], rects[::5, 1] = line(rects[::5, 0]), line(rects[::5, 1])  # lower edges on lines
    rects[1::5, 2], rects[1::5, 3] = line(rects[1::5, 2]), line(rects[1::5, 3])  # upper edges
    terms = ["a", "b", "c"]
    dnfs = [
        [[terms[i % 3]]] if i % 2 else [[terms[i % 3]], [terms[(i + 1) % 3]]] for i in range(n_q)
    ]
    queries = make_queries(np.arange(n_q), rects, dnfs, vocab)
    pts = []
    for a, b, c, d in rects:
        mx, my = (a + c) / 2, (b + d) / 2
        pts += [(a, b), (c, b), (a, d), (c, d), (a, my), (c, my), (mx, b), (mx, d)]
        pts += [(np.nextafter(a, -1), my), (np.nextafter(c, 99), my),
                (mx, np.nextafter(b, -1)), (mx, np.nextafter(d, 99))]  # fmt: skip
    pts = np.array(pts)
    n_o = len(pts)
    words = [[terms[i % 3], terms[(i + 2) % 3]] for i in range(n_o)]
    objects = make_objects(np.arange(n_o) + 10_000, pts[:, 0], pts[:, 1], words, vocab)
    kind, ref = interleave(n_o, n_q, n_q, seed=seed)
    return Stream(objects, queries, kind, ref, vocab, {"kind": "edges"})


@pytest.mark.parametrize("algorithm", ["kd-tree", "metric", "hybrid"])
def test_objects_on_every_edge_and_corner_match_as_the_oracle(algorithm):
    st = _edge_stream()
    truth = oracle_pairs(st)
    on_edge = {o for _, o in truth}
    assert len(on_edge) > 100  # corners and edges do match (closed rectangles)
    setup = prepare(st, GRID, np.arange(len(st.objects)), np.arange(len(st.queries)))
    part, _ = build_partition(setup, algorithm, 3)
    for impl in ("kernel", "reference"):
        assert run_pipeline(setup, part, impl=impl).pairs == truth, impl


def test_figure_points_share_streams_between_figures():
    pts = sx.figure_points(["US", "GB"], ["GB"], 8, [4, 8], [0, 1], n_objects={"US": 10, "GB": 10},
                           mu={"US": 1, "GB": 1}, g={"US": 64, "GB": 32})  # fmt: skip
    assert len(pts) == 2 * 3 * 2 and pts[0]["country"] == "GB"  # the longest first
    gb_q1 = next(p for p in pts if p["country"] == "GB" and p["query_set"] == "Q1")
    assert gb_q1["n_workers"] == (8, 4) and "grid" in gb_q1["algorithms"] and gb_q1["g"] == 32
    us_q3 = next(p for p in pts if p["country"] == "US" and p["query_set"] == "Q3")
    assert us_q3["n_workers"] == (8,) and us_q3["algorithms"] == sx.COMPARED


def test_term_counts_equal_a_counting_loop():
    from routelab.spatial.lab.workload import term_counts

    rng = np.random.default_rng(3)
    vocab = np.array([f"w{i}" for i in range(40)])
    words = pd.Series([vocab[rng.integers(0, 40, rng.integers(0, 6))] for _ in range(500)])
    counts: dict[str, int] = {}
    for ws in words:
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
    ref = sorted(counts, key=lambda w: (-counts[w], w))  # most frequent first, ties by word
    terms, freq = term_counts(words)
    assert terms.tolist() == ref and freq.tolist() == [float(counts[w]) for w in ref]
    by_hand = term_counts(pd.Series([["b", "a"], ["a"], [], ["c", "b"]]))
    assert by_hand[0].tolist() == ["a", "b", "c"] and by_hand[1].tolist() == [2.0, 2.0, 1.0]
    assert term_counts(pd.Series([[], []]))[0].size == 0


def test_merge_count_by_hand_and_with_ids_too_wide_for_one_key():
    from types import SimpleNamespace

    from routelab.spatial.engine import merge_count

    def run(pairs):
        q, o = zip(*pairs, strict=True) if pairs else ((), ())
        return SimpleNamespace(
            match_query=np.array(q, np.int64), match_object=np.array(o, np.int64)
        )

    # (1, 5) reaches two workers: 3 distinct pairs, 1 duplicate removed
    assert merge_count([run([(1, 5), (2, 5)]), run([(1, 5), (3, 7)])]) == (3, 1)
    assert merge_count([run([]), run([])]) == (0, 0)
    wide = 2**40
    got = merge_count([run([(wide, wide), (0, 0)]), run([(wide, wide), (0, wide)])])
    assert got == (3, 1)


def test_a_saved_runs_frame_reads_back_for_grading(tmp_path):
    runs = pd.DataFrame({"country": ["GB"] * 2, "query_set": ["Q3"] * 2, "units": ["query"] * 2,
                         "algorithm": ["hybrid", "metric"], "n_workers": [2, 2], "seed": [0, 0],
                         "tuples": [100, 100], "w_msgs": [[50, 60], [80, 90]],
                         "w_busy_runs": [[[0.5], [0.6]], [[0.7], [0.4]]],
                         "throughput_runs": [[100 / 0.6], [100 / 0.7]]})  # fmt: skip
    runs.to_parquet(tmp_path / "runs.parquet")
    back = sx.split_runs(pd.read_parquet(tmp_path / "runs.parquet"), 2, ["GB"])
    assert back.fig7.w_busy_runs.iloc[0] == [[0.5], [0.6]]
    paid = rg.at_cost(back.fig7, 10.0)  # 10 µs per message: hybrid max(0.5 + 5e-4, 0.6 + 6e-4)
    assert paid.throughput.iloc[0] == pytest.approx(100 / 0.6006)


def test_posting_builds_cost_one_per_posting_as_the_posting_flip_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Notebook 11's posting-unit builds beside the paper's units charge c_ins = c_del = 1
    per posting (READINGS.md, "Updates per query or per posting"): the costs a whole run
    under ROUTELAB_READING=posting takes, not the paper's 10 per query moved to postings."""
    from routelab.readings import FLIP_ENV

    monkeypatch.delenv(FLIP_ENV, raising=False)
    seen: list[CostParams] = []
    run_at = sx._run_at

    def spy(setup, params, algs, n_w, hp, costs, *rest, **kw):
        seen.append(costs)
        return run_at(setup, params, algs, n_w, hp, costs, *rest, **kw)

    monkeypatch.setattr(sx, "_run_at", spy)
    params = {"country": "GB", "query_set": "Q3", "n_workers": [2], "seed": 3,
              "algorithms": ("kd-tree",), "posting_algorithms": ("kd-tree",),
              "n_objects": 2000, "mu": 150, "g": 32, "sample_min": 1000, "n_dispatchers": 1,
              "repeats": 1}  # fmt: skip
    rows = sx.run_algorithms(params)
    assert [r["units"] for r in rows] == ["query", "posting"]
    paper, posting = seen
    assert (paper.update_unit, paper.c_ins, paper.c_del) == ("query", 10.0, 10.0)
    assert (posting.update_unit, posting.c_ins, posting.c_del) == ("posting", 1.0, 1.0)
    assert (posting.model, posting.c_m, posting.c_o) == (paper.model, paper.c_m, paper.c_o)
    monkeypatch.setenv(FLIP_ENV, "posting")
    assert CostParams() == posting
