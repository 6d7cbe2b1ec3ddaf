"""PS2Stream core: model, oracle, GI2 (reference vs kernel), gridt, partitioners, merger."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from routelab.errors import BadInputError
from routelab.spatial import int_table as tb
from routelab.spatial.cost import CostParams
from routelab.spatial.engine import PARTITIONERS, build_partition, merge, prepare, run_pipeline
from routelab.spatial.gi2 import GI2Kernel, GI2Reference, WorkerTuples
from routelab.spatial.grid import BaseGrid
from routelab.spatial.gridt import DispatcherState, dispatch, dispatch_reference
from routelab.spatial.hybrid import HybridParams, compute_number_partitions
from routelab.spatial.model import (
    DEL,
    INS,
    OBJ,
    Stream,
    Vocabulary,
    assign_keys,
    make_objects,
    make_queries,
    parse_expression,
    satisfies,
    term_frequencies,
    validate_stream,
)
from routelab.spatial.oracle import oracle_pairs
from routelab.spatial.workload import interleave, queries_for_ratio, random_workload

GRID = BaseGrid(-0.5, -0.5, 10.5, 10.5, 32)


def _setup(seed: int, **kw):
    st = random_workload(seed, **kw)
    n_o, n_q = len(st.objects), len(st.queries)
    return prepare(st, GRID, np.arange(n_o // 2), np.arange(n_q // 2), seed=seed)


# --------------------------------------------------------------------------- model


def test_parse_expression_dnf() -> None:
    assert parse_expression("a AND b") == [["a", "b"]]
    assert parse_expression("a OR b") == [["a"], ["b"]]
    assert parse_expression("a b or C") == [["a", "b"], ["c"]]
    assert parse_expression("(a OR b) AND c") == [["a", "c"], ["b", "c"]]
    assert parse_expression("a AND a OR a") == [["a"]]
    for bad in ("", "a AND", "(a OR b", "OR a", "a )"):
        with pytest.raises(BadInputError):
            parse_expression(bad)


def test_registering_keys_least_frequent_per_conjunct() -> None:
    """Hand example: f(a)=3, f(b)=1, f(c)=2, f(d)=2."""
    v = Vocabulary()
    objs = make_objects(
        [1, 2, 3], [0, 0, 0], [0, 0, 0], [["a", "b", "c"], ["a", "c", "d"], ["a", "d", "e"]], v
    )
    v.add("d")
    qs = make_queries(
        [1, 2, 3, 4],
        [[0, 0, 1, 1]] * 4,
        [[["a", "b"]], [["a"], ["c"]], [["c", "d"]], [["a", "c"], ["a", "b"]]],
        v,
    )
    f = term_frequencies(objs, len(v))
    assign_keys(qs, f)
    keys = [sorted(v.terms[t] for t in qs.keys_of(i)) for i in range(4)]
    # c and d tie at 2 -> smaller term id (c was added first)
    assert keys == [["b"], ["a", "c"], ["c"], ["b", "c"]]


@pytest.mark.parametrize("seed", range(4))
def test_registering_keys_are_complete(seed: int) -> None:
    """Every object matching a query contains one of its keys (routing by RK is complete)."""
    st = random_workload(seed)
    assign_keys(st.queries, term_frequencies(st.objects, len(st.vocab)))
    q, o = st.queries, st.objects
    for i in range(len(q)):
        keys = set(q.keys_of(i).tolist())
        for j in range(len(o)):
            terms = set(o.terms_of(j).tolist())
            if satisfies(q.dnf(i), terms):
                assert keys & terms


def test_stream_validation() -> None:
    st = random_workload(0)
    validate_stream(st)
    bad = Stream(st.objects, st.queries, np.array([DEL, INS], np.int8), np.array([0, 0]), st.vocab)
    with pytest.raises(BadInputError, match="deleted at tuple 0 before"):
        validate_stream(bad)


def test_interleave_ratio_and_lifetimes() -> None:
    n_q = queries_for_ratio(10_000)
    assert n_q == 1_000  # 10 objects per insertion -> 5 per insertion or deletion
    kind, ref = interleave(10_000, n_q, mu=100, seed=3)
    assert (kind == OBJ).sum() == 10_000 and (kind == INS).sum() == 1_000
    ratio = (kind == OBJ).sum() / (kind != OBJ).sum()
    assert 5.0 <= ratio <= 5.0 * 1_000 / 900  # deletions after the last insertion are dropped
    live = np.cumsum(np.where(kind == INS, 1, np.where(kind == DEL, -1, 0)))
    first_obj = int(np.argmax(kind == OBJ))
    assert 80 <= live[first_obj] <= 100  # registered before the first object
    assert abs(np.median(live[first_obj:]) - 100) <= 10  # about mu alive (Sect. VI-A)
    # objects keep their order
    assert np.array_equal(ref[kind == OBJ], np.arange(10_000))


# --------------------------------------------------------------------------- GI2


def test_gi2_hand_example() -> None:
    """Two queries in cell 0: q0 'flu AND shot' on [0,1]^2, q1 'flu OR cold' on [0,2]^2.
    o0 'flu shot' at (0.5, 0.5) matches both; o1 'cold' at (1.5, 1.5) matches q1 (q0's
    list is not scanned: 'cold' is not q0's key); after DEL q1, o2 'cold' matches nothing
    and q1's posting under 'cold' is dropped by the scan (lazy deletion)."""
    v = Vocabulary()
    objs = make_objects(
        [10, 11, 12], [0.5, 1.5, 1.5], [0.5, 1.5, 1.5], [["flu", "shot"], ["cold"], ["cold"]], v
    )
    qs = make_queries(
        [1, 2], [[0, 0, 1, 1], [0, 0, 2, 2]], [[["flu", "shot"]], [["flu"], ["cold"]]], v
    )
    assign_keys(qs, np.array([10, 1, 5]))  # f(flu)=10, f(shot)=1, f(cold)=5
    assert [v.terms[t] for t in qs.keys_of(0)] == ["shot"]
    assert sorted(v.terms[t] for t in qs.keys_of(1)) == ["cold", "flu"]
    cells = np.zeros(3, dtype=np.int64)
    flu, shot, cold = (v.index[w] for w in ("flu", "shot", "cold"))
    tuples = WorkerTuples(
        np.array([INS, INS, OBJ, OBJ, DEL, OBJ], np.int8),
        np.array([0, 1, 0, 1, 1, 2]),
        np.array([0, 1, 3, 3, 3, 3, 3]),
        np.array([0, 0, 0]),
        np.array([shot, flu, cold], np.int32),
    )
    for index in (
        GI2Reference(objs, qs, cells, purge_fraction=10.0),
        GI2Kernel(objs, qs, cells, len(v), purge_fraction=10.0),
    ):
        r = index.replay(tuples)
        got = sorted(zip(r.match_query.tolist(), r.match_object.tolist(), strict=True))
        assert got == [(0, 0), (1, 0), (1, 1)]
        # o0 scans 'flu' (q1) and 'shot' (q0); o1 scans 'cold' (q1); o2 meets deleted q1
        assert r.checks.tolist() == [1, 2, 2, 1, 0, 1]
        assert r.live_postings == 2  # q0's 'shot' + q1's 'flu' (waits for a scan or a purge)
        assert r.pending_deletions == 1


@pytest.mark.parametrize("seed", range(6))
def test_gi2_kernel_equals_reference(seed: int) -> None:
    setup = _setup(seed, n_objects=500, n_queries=120)
    p, _ = build_partition(setup, "kd-tree", 3)
    for purge in (0.05, 10.0):
        runs = []
        for impl in ("reference", "kernel"):
            r = run_pipeline(setup, p, impl)
            runs.append(r)
        a, b = runs
        assert a.pairs == b.pairs
        for wa, wb in zip(a.workers, b.workers, strict=True):
            assert np.array_equal(wa.checks, wb.checks)
            assert wa.peak_postings == wb.peak_postings
        del purge


def test_gi2_postings_return_to_zero_after_all_deletions() -> None:
    st = random_workload(5, n_objects=200, n_queries=80, mu=10)
    assign_keys(st.queries, term_frequencies(st.objects, len(st.vocab)))
    q = st.queries
    n = len(q)
    cells = GRID.cell_ranges(q.rect)
    posts_c, posts_k, ptr = [], [], [0]
    for i in range(n):
        x0, y0, x1, y1 = cells[i]
        for cy, cx in itertools.product(range(y0, y1 + 1), range(x0, x1 + 1)):
            for k in q.keys_of(i).tolist():
                posts_c.append(cy * 32 + cx)
                posts_k.append(k)
        ptr.append(len(posts_c))
    ptr_all = np.array(ptr + [ptr[-1]] * n)
    tuples = WorkerTuples(
        np.array([INS] * n + [DEL] * n, np.int8),
        np.r_[np.arange(n), np.arange(n)],
        ptr_all,
        np.array(posts_c),
        np.array(posts_k, np.int32),
    )
    obj_cell = GRID.cell(st.objects.lon, st.objects.lat)
    for index in (
        GI2Reference(st.objects, q, obj_cell),
        GI2Kernel(st.objects, q, obj_cell, len(st.vocab)),
    ):
        r = index.replay(tuples)
        assert r.peak_postings == len(posts_c)
        assert r.live_postings == 0 and r.pending_deletions == 0


# --------------------------------------------------------------------------- routing


@pytest.mark.parametrize("algorithm", PARTITIONERS)
@pytest.mark.parametrize("n_workers", [1, 2, 5])
def test_every_partitioner_delivers_exactly_the_oracle(algorithm: str, n_workers: int) -> None:
    for seed in (11, 12):
        setup = _setup(seed)
        truth = oracle_pairs(setup.stream)
        assert truth  # the workload has matches
        p, _ = build_partition(
            setup, algorithm, n_workers, hybrid=HybridParams(min_objects=20), grid_gb=8
        )
        p.validate(GRID.g, len(setup.stream.vocab))
        res = run_pipeline(setup, p, "kernel")
        assert res.pairs == truth
        unfiltered = run_pipeline(setup, p, "kernel", use_filter=False)
        assert unfiltered.pairs == truth
        assert len(unfiltered.routed) >= len(res.routed)


@pytest.mark.parametrize("algorithm", ["hybrid", "grid", "metric"])
def test_kdt_routing_equals_gridt_routing(algorithm: str) -> None:
    setup = _setup(21)
    p, _ = build_partition(setup, algorithm, 4, hybrid=HybridParams(min_objects=20), grid_gb=8)
    from routelab.spatial.engine import make_gridt

    gt = make_gridt(setup, p)
    rng = np.random.default_rng(0)
    for c, t in zip(
        rng.integers(0, GRID.n_cells, 3000),
        rng.integers(0, len(setup.stream.vocab), 3000),
        strict=True,
    ):
        assert gt.owner(int(c), int(t)) == p.route_cell_term(
            int(c) % GRID.g, int(c) // GRID.g, int(t)
        )
    st = setup.stream
    ref = dispatch_reference(
        p, GRID.g, st.kind, st.ref, setup.obj_cell, st.objects, st.queries, setup.q_range
    )
    ker = dispatch(
        gt,
        DispatcherState(),
        st.kind,
        st.ref,
        setup.obj_cell,
        st.objects,
        st.queries,
        setup.q_range,
    )
    for f in ("tup", "worker", "post_ptr", "post_cell", "post_key"):
        assert np.array_equal(getattr(ref, f), getattr(ker, f)), f
    assert (ref.discarded, ref.hq_peak, ref.hq_final) == (ker.discarded, ker.hq_peak, ker.hq_final)


def test_hq_refcounts_return_to_zero() -> None:
    st = random_workload(7, n_objects=100, n_queries=60, mu=5)
    # delete every query that is still alive at the end
    alive = np.setdiff1d(np.arange(len(st.queries)), st.ref[st.kind == DEL])
    st = Stream(
        st.objects,
        st.queries,
        np.r_[st.kind, np.full(len(alive), DEL, np.int8)],
        np.r_[st.ref, alive],
        st.vocab,
    )
    setup = prepare(st, GRID, np.arange(50), np.arange(30))
    p, _ = build_partition(setup, "hybrid", 3, hybrid=HybridParams(min_objects=20))
    from routelab.spatial.engine import make_gridt

    state = DispatcherState()
    r = dispatch(
        make_gridt(setup, p),
        state,
        st.kind,
        st.ref,
        setup.obj_cell,
        st.objects,
        st.queries,
        setup.q_range,
    )
    assert r.hq_peak > 0 and r.hq_final == 0 and tb.to_dict(state.ref) == {}


def test_merger_removes_duplicates() -> None:
    """An OR query 'a OR b' replicated on two workers delivers (q, o) up to 4 times."""
    from routelab.spatial.engine import WorkerRun

    runs = [
        WorkerRun(
            w, 0, 0, 0.0, np.zeros(0), np.zeros(0), np.array([1, 1, 2]), np.array([7, 7, 7]), 0, 0
        )
        for w in range(2)
    ]
    pairs, dups = merge(runs)
    assert pairs == {(1, 7), (2, 7)} and dups == 4


# --------------------------------------------------------------------------- hybrid


def test_compute_number_partitions_equals_exhaustive() -> None:
    rng = np.random.default_rng(1)
    for _ in range(30):
        m = int(rng.integers(1, 5))
        n = int(rng.integers(m, 8))
        costs = rng.uniform(1, 10, (m, n - m + 1))
        best, ks = compute_number_partitions(costs, n)
        brute = min(
            (sum(costs[i, k - 1] for i, k in enumerate(combo)), combo)
            for combo in itertools.product(range(1, n - m + 2), repeat=m)
            if sum(combo) == n
        )
        assert best == pytest.approx(brute[0])
        assert sum(ks) == n and sum(costs[i, k - 1] for i, k in enumerate(ks)) == pytest.approx(
            best
        )


def test_hybrid_balances_and_covers() -> None:
    setup = _setup(31, n_objects=600, n_queries=100)
    p, _ = build_partition(setup, "hybrid", 4, hybrid=HybridParams(min_objects=30, sigma=1.5))
    p.validate(GRID.g, len(setup.stream.vocab))
    loads = p.worker_loads(setup.stats)
    assert loads.min() > 0
    assert p.info["balance"] == pytest.approx(loads.max() / loads.min())


def test_cost_models_give_different_loads() -> None:
    st = random_workload(2)
    loads = {}
    for model in ("gi2_checks", "pairs_unit", "pairs_literal"):
        s = prepare(st, GRID, np.arange(150), np.arange(30), CostParams(model=model))
        p, _ = build_partition(s, "kd-tree", 2)
        loads[model] = p.worker_loads(s.stats)
    # literal >= per-unit pairs (one unit per worker here: equal); checks <= pairs
    assert np.allclose(loads["pairs_unit"], loads["pairs_literal"])
    assert np.all(loads["gi2_checks"] <= loads["pairs_unit"])
    with pytest.raises(ValueError, match="cost model"):
        CostParams(model="nope")


def test_kd_cut_is_the_exact_load_median() -> None:
    from routelab.spatial.baselines import exact_cut
    from routelab.spatial.kdt import Node, space_children

    setup = _setup(41, n_objects=800, n_queries=150)
    s = setup.stats
    root = Node(0, 0, GRID.g, GRID.g)
    for dim in (0, 1):
        cut = exact_cut(s, root, dim, 0.5)

        def frac(c: int, dim: int = dim) -> float:
            a, b = space_children(root, dim, c)
            la, lb = s.load([a.unit]), s.load([b.unit])
            return la / (la + lb)

        best = min(range(1, GRID.g), key=lambda c: abs(frac(c) - 0.5))
        assert abs(frac(cut) - 0.5) == pytest.approx(abs(frac(best) - 0.5))


def test_merge_rules() -> None:
    """'max' never lets a part exceed the largest single leaf plus LPT's slack; sigma_avg
    fills parts up to sigma * avg."""
    from routelab.spatial.baselines import space_split
    from routelab.spatial.hybrid import merge_nodes
    from routelab.spatial.kdt import Node

    setup = _setup(42, n_objects=800, n_queries=150)
    s = setup.stats
    root = Node(0, 0, GRID.g, GRID.g)
    leaves = space_split(s, root, 24)
    loads = np.array([s.load([n.unit]) for n in leaves])
    for rule in ("max", "sigma_avg"):
        parts = merge_nodes(s, leaves, 4, 1.2, rule)
        assert sorted(id(n) for p in parts for n in p.nodes) == sorted(id(n) for n in leaves)
        got = np.array([p.load for p in parts])
        assert np.allclose(got, [s.load([n.unit for n in p.nodes]) for p in parts])
        if rule == "max":
            assert got.max() <= loads.sum() / 4 + loads.max() + 1e-9
    with pytest.raises(ValueError, match="merge rule"):
        merge_nodes(s, leaves, 4, 1.2, "nope")


def test_calibrated_costs_are_positive_ratios() -> None:
    from routelab.spatial.cost import calibrate_costs

    c = calibrate_costs(n_queries=2000, n_objects=2000)
    assert c.c_m == 1.0 and c.c_o > 0 and c.c_ins > 0 and c.c_del > 0


def test_queries_take_keeps_dnf_and_keys() -> None:
    st = random_workload(8)
    assign_keys(st.queries, term_frequencies(st.objects, len(st.vocab)))
    idx = np.array([5, 0, 17, 5])
    sub = st.queries.take(idx)
    for j, i in enumerate(idx.tolist()):
        assert sub.ids[j] == st.queries.ids[i] and np.array_equal(sub.rect[j], st.queries.rect[i])
        assert [c.tolist() for c in sub.dnf(j)] == [c.tolist() for c in st.queries.dnf(i)]
        assert np.array_equal(sub.keys_of(j), st.queries.keys_of(i))


def test_term_sets_equal_each_lists_vocabulary_ids() -> None:
    """make_objects / make_queries build every term set in one sort: the same CSR and the
    same vocabulary order as one Vocabulary.ids per list (the readable reference)."""
    import random

    from routelab.spatial.model import Vocabulary, term_sets

    rng = random.Random(3)
    lists = [[f"w{rng.randint(0, 40)}" for _ in range(rng.randint(0, 7))] for _ in range(3000)]
    fast, ref = Vocabulary(), Vocabulary()
    for v in (fast, ref):  # a vocabulary that already holds words keeps their ids
        v.add("w7"), v.add("unused")
    ptr, terms = term_sets(iter(lists), fast)  # any iterable of lists
    want_ptr, want = [0], []
    for ws in lists:
        want += ref.ids(ws).tolist()
        want_ptr.append(len(want))
    assert fast.terms == ref.terms
    assert ptr.tolist() == want_ptr and terms.tolist() == want
    assert term_sets([], Vocabulary())[0].tolist() == [0]


def _ring_hypergraph(n: int) -> tuple[list[list[int]], list[int], list[int]]:
    """Two dense halves joined by one light net: the KM1 optimum cuts only that net."""
    half = n // 2
    edges = [[i, (i + 1) % half] for i in range(half)]
    edges += [[half + i, half + (i + 1) % half] for i in range(half)]
    edges.append([0, half])
    return edges, [1] * n, [5] * (len(edges) - 1) + [1]


@pytest.mark.parametrize("preset", ["default", "deterministic"])
def test_km1_partition_is_repeatable_balanced_and_finds_the_obvious_cut(preset: str) -> None:
    from routelab.spatial.baselines import km1_partition

    edges, node_w, net_w = _ring_hypergraph(40)
    a, km1_a = km1_partition(40, edges, node_w, net_w, 2, 0.03, seed=3, preset=preset)
    b, km1_b = km1_partition(40, edges, node_w, net_w, 2, 0.03, seed=3, preset=preset)
    assert np.array_equal(a, b) and km1_a == km1_b  # the seed decides the partition
    assert sorted(np.bincount(a, minlength=2).tolist()) == [20, 20]  # balanced (eps 3 %)
    assert km1_a == 1  # only the light net between the halves is cut (KM1 = its weight)
    assert len(set(a[:20].tolist())) == 1 and len(set(a[20:].tolist())) == 1


def test_km1_partition_names_an_unknown_preset() -> None:
    from routelab.spatial.baselines import km1_partition

    with pytest.raises(ValueError, match="unknown Mt-KaHyPar preset 'fast'"):
        km1_partition(4, [[0, 1]], [1] * 4, [1], 2, 0.03, seed=0, preset="fast")


@pytest.mark.parametrize("impl", ["kernel", "reference"])
def test_an_index_copy_replays_like_the_index_it_copies(impl: str) -> None:
    """A snapshot after the registration replays the rest exactly as a freshly built index
    does, and replaying the copy leaves the original untouched."""
    from routelab.spatial.engine import worker_tuples
    from routelab.spatial.gi2 import make_index

    st = random_workload(11, n_objects=300, n_queries=120, mu=40)
    setup = prepare(st, GRID, np.arange(100), np.arange(60))
    part, _ = build_partition(setup, "hybrid", 2, hybrid=HybridParams(min_objects=20))
    res = run_pipeline(setup, part)
    tuples = worker_tuples(st, res.routed, 0)
    head, body = tuples.split(len(tuples) // 3)

    def fresh():
        idx = make_index(impl, st.objects, st.queries, setup.obj_cell, len(st.vocab))
        idx.replay(head)
        return idx

    built = fresh()
    copied = built.copy().replay(body)
    want = fresh().replay(body)
    again = built.replay(body)  # the original still holds only the registration
    for got in (copied, again):
        assert got.checks.tolist() == want.checks.tolist()
        assert sorted(zip(got.match_query.tolist(), got.match_object.tolist(), strict=True)) == (
            sorted(zip(want.match_query.tolist(), want.match_object.tolist(), strict=True))
        )


def test_best_of_replays_change_the_clock_not_the_answer() -> None:
    st = random_workload(12, n_objects=300, n_queries=120, mu=40)
    setup = prepare(st, GRID, np.arange(100), np.arange(60))
    part, _ = build_partition(setup, "kd-tree", 3)
    one = run_pipeline(setup, part, repeats=2)
    best = run_pipeline(setup, part, repeats=2, best_of=3)
    assert best.pairs == one.pairs == oracle_pairs(st)
    for a, b in zip(one.workers, best.workers, strict=True):
        assert a.checks.tolist() == b.checks.tolist() and len(b.busy_runs) == 2
        assert b.busy_s == min(b.busy_runs)
    with pytest.raises(ValueError, match="best_of must be at least 1"):
        run_pipeline(setup, part, best_of=0)


def test_overlap_mask_equals_the_array_expression_on_random_ranges():
    from routelab.spatial.cost import overlap_mask

    rng = np.random.default_rng(5)
    for trial in range(20):
        g = int(rng.integers(2, 70))
        lo = rng.integers(0, g, (300, 2))
        r = np.concatenate([lo, np.minimum(lo + rng.integers(0, 6, (300, 2)), g - 1)], axis=1)
        x0, y0 = (int(v) for v in rng.integers(0, g, 2))
        x1, y1 = x0 + int(rng.integers(1, g)), y0 + int(rng.integers(1, g))
        ref = (r[:, 0] < x1) & (r[:, 2] >= x0) & (r[:, 1] < y1) & (r[:, 3] >= y0)
        assert np.array_equal(overlap_mask(r, x0, y0, x1, y1), ref), trial
    # by hand: a query on cells x 2..3, y 0..0 meets the block [3, 5) x [0, 1), not [4, 5) x ...
    one = np.array([[2, 0, 3, 0]])
    assert overlap_mask(one, 3, 0, 5, 1).tolist() == [True]
    assert overlap_mask(one, 4, 0, 5, 1).tolist() == [False]
    assert overlap_mask(one, 0, 1, 5, 2).tolist() == [False]


def test_sorted_member_equals_isin():
    from routelab.uniques import sorted_member

    rng = np.random.default_rng(8)
    for n_keys in (0, 1, 7, 500):
        keys = np.unique(rng.integers(0, 1000, n_keys))
        values = rng.integers(-5, 1010, 300)
        assert np.array_equal(sorted_member(values, keys), np.isin(values, keys))
    assert sorted_member(np.array([3, 4, 9]), np.array([1, 3, 9])).tolist() == [True, False, True]


@pytest.mark.parametrize("use_filter", [True, False])
def test_one_hq_pass_serves_every_partitioner_of_a_stream(use_filter: bool) -> None:
    """The ``H_q`` pass is partition-independent: routing each partitioner from one shared
    pass gives exactly the copies, postings and counts of a fresh dispatch per
    partitioner, and the shared pipeline's answer is the oracle's."""
    from routelab.spatial.engine import filter_stream, make_gridt

    setup = _setup(31, n_objects=400, n_queries=150, mu=50)
    st = setup.stream
    shared = filter_stream(setup, use_filter)
    assert shared[1] > 0 and len(shared[0].ptr) == len(st.kind) + 1
    for alg in ("hybrid", "kd-tree", "metric"):
        p, _ = build_partition(setup, alg, 3, hybrid=HybridParams(min_objects=20))
        fresh = dispatch(
            make_gridt(setup, p), DispatcherState(), st.kind, st.ref, setup.obj_cell,
            st.objects, st.queries, setup.q_range, use_filter=use_filter,
        )  # fmt: skip
        res = run_pipeline(setup, p, use_filter=use_filter, filtered=shared)
        for f in ("tup", "worker", "post_ptr", "post_cell", "post_key"):
            assert np.array_equal(getattr(res.routed, f), getattr(fresh, f)), (alg, f)
        assert (res.routed.discarded, res.routed.hq_peak) == (fresh.discarded, fresh.hq_peak)
        assert res.dispatch_s >= shared[1]  # the shared pass plus this gridt's owners' pass
        assert res.pairs == oracle_pairs(st)
    with pytest.raises(ValueError, match="use_filter"):
        run_pipeline(setup, p, use_filter=not use_filter, filtered=shared)


def test_hq_pass_in_pieces_equals_one_pass() -> None:
    """``filter_tuples`` keeps ``H_q`` in its state: a stream filtered in three pieces keeps
    the same terms per object as one pass (and without the filter, every term)."""
    from routelab.spatial.gridt import filter_tuples

    setup = _setup(32, n_objects=300, n_queries=120, mu=40)
    st = setup.stream
    args = (setup.obj_cell, st.objects, st.queries, setup.q_range, GRID.g, len(st.vocab))
    whole = filter_tuples(DispatcherState(), st.kind, st.ref, *args)
    state, cuts = DispatcherState(), [0, len(st.kind) // 3, 2 * len(st.kind) // 3, len(st.kind)]
    parts = [
        filter_tuples(state, st.kind, st.ref, *args, lo, hi)
        for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    for i in range(len(st.kind)):
        part = next(p for p in parts if p.lo <= i < p.hi)
        j = i - part.lo
        got = part.terms[part.ptr[j] : part.ptr[j + 1]].tolist()
        assert got == whole.terms[whole.ptr[i] : whole.ptr[i + 1]].tolist()
    assert (parts[-1].hq_peak, parts[-1].hq_final) == (whole.hq_peak, whole.hq_final)
    kept = whole.ptr[-1]
    every = filter_tuples(DispatcherState(), st.kind, st.ref, *args, use_filter=False)
    obj = st.kind == OBJ
    n_terms = np.diff(st.objects.term_ptr)[st.ref[obj]].sum()
    assert every.ptr[-1] == n_terms and 0 < kept < n_terms


def test_kd_tree_keeps_a_cell_per_leaf_when_the_load_is_packed() -> None:
    """Load packed into one corner of a wide box: the load-median cuts alone leave a region
    of one cell to hold two leaves (a short split); the kd-tree's cuts keep a cell per leaf,
    so it gets its N leaves, every one of them non-empty and the leaves tiling the grid."""
    from routelab.spatial.baselines import space_split
    from routelab.spatial.kdt import Node

    wide = BaseGrid(-0.5, -0.5, 330.5, 330.5, 32)  # the workload's [0, 10] box: one cell
    st = random_workload(43)
    n_o, n_q = len(st.objects), len(st.queries)
    s = prepare(st, wide, np.arange(n_o // 2), np.arange(n_q // 2), seed=43)
    assert len(space_split(s.stats, Node(0, 0, 32, 32), 8)) < 8
    part, _ = build_partition(s, "kd-tree", 8)
    leaves = part.leaves()
    assert len(leaves) == 8 and sorted(leaf.worker for leaf in leaves) == list(range(8))
    assert sum((n.x1 - n.x0) * (n.y1 - n.y0) for n in leaves) == 32 * 32
    part.validate(32, len(s.term_hash))


def test_kd_fill_cuts_the_other_dimension_when_the_longer_cannot_hold_the_leaves() -> None:
    """A 3 x 2 region into 6 leaves: along x one side would need 2 of the 3 columns for 3
    leaves, the other 2 as well; along y each side is a 3 x 1 strip of 3 cells: 6 leaves of
    one cell each."""
    from routelab.spatial.baselines import space_split
    from routelab.spatial.kdt import Node

    s = _setup(47, n_objects=400, n_queries=80).stats
    leaves = space_split(s, Node(0, 0, 3, 2), 6, fill=True)
    assert sorted(n.rect for n in leaves) == sorted(
        (x, y, x + 1, y + 1) for x in range(3) for y in range(2)
    )
    assert len(space_split(s, Node(0, 0, 3, 2), 7, fill=True)) == 6  # more leaves than cells


@pytest.mark.parametrize("seed", [44, 45, 46])
@pytest.mark.parametrize("k", [2, 5, 16])
def test_kd_fill_changes_no_split_that_comes_back_whole(seed: int, k: int) -> None:
    """Where the load-median cuts give ``k`` leaves, keeping a cell per leaf cuts at the
    same lines (``fill`` only moves cuts that would come back short)."""
    from routelab.spatial.baselines import space_split
    from routelab.spatial.kdt import Node

    s = _setup(seed, n_objects=600, n_queries=120).stats
    plain = space_split(s, Node(0, 0, GRID.g, GRID.g), k)
    filled = space_split(s, Node(0, 0, GRID.g, GRID.g), k, fill=True)
    assert len(plain) == k
    assert [n.rect for n in plain] == [n.rect for n in filled]
