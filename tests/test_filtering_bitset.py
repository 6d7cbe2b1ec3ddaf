"""The bitset interval matcher (Rein/HEM idea) and the clustered matchers' bitset catch-all
stage: a hand example, the oracle on random predicates of every operator (missing values,
empty intervals, ``!=``), the readable reference, every bucket layout, updates between
matches, and the range workload's shape."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from routelab.filtering.bitset import BitsetIndex, BitsetMatcher, bitset_reference, rows_csr
from routelab.filtering.cluster_matcher import BITSET_MIN
from routelab.filtering.costmodel import EventStats
from routelab.filtering.matchers import build_matcher
from routelab.filtering.model import EQ, GE, GT, LE, LT, MISSING, Events, Subscriptions
from routelab.filtering.oracle import oracle_match
from routelab.filtering.workload import RANGES, RangeWorkload, range_events, range_subscriptions

OPS = ["<", "<=", "=", "!=", ">=", ">"]


def _rows(ptr: np.ndarray, ids: np.ndarray) -> list[list[int]]:
    return [ids[ptr[e] : ptr[e + 1]].tolist() for e in range(len(ptr) - 1)]


def _truth(subs: Subscriptions, events: Events) -> list[list[int]]:
    ptr, idx = oracle_match(subs, events)
    return [sorted(subs.ids[idx[ptr[e] : ptr[e + 1]]].tolist()) for e in range(len(ptr) - 1)]


def _random(seed: int, n: int = 1500, d: int = 6, n_ev: int = 120) -> tuple[Subscriptions, Events]:
    rng = np.random.default_rng(seed)
    subs = [
        [(int(rng.integers(0, d)), OPS[rng.integers(0, 6)], int(rng.integers(0, 25)))
         for _ in range(int(rng.integers(1, 6)))]
        for _ in range(n)
    ]  # fmt: skip
    values = rng.integers(0, 25, (n_ev, d))
    values[rng.random((n_ev, d)) < 0.1] = MISSING
    return Subscriptions.from_lists(subs, ids=list(range(100, 100 + n)), n_attrs=d), Events(values)


def test_by_hand() -> None:
    """s0: 10 <= a0 <= 20; s1: a0 > 20 and a1 != 3; s2: a0 < 10 and a0 > 12 (empty);
    s3: a1 = 3. Event (15, 3) matches s0 and s3; (21, 4) matches s1; (21, 3) nothing but
    s3; (a0 missing, 3) only s3 (a predicate on a missing attribute is false)."""
    subs = Subscriptions.from_lists(
        [[(0, ">=", 10), (0, "<=", 20)], [(0, ">", 20), (1, "!=", 3)],
         [(0, "<", 10), (0, ">", 12)], [(1, "=", 3)]], n_attrs=2,
    )  # fmt: skip
    events = Events(np.array([[15, 3], [21, 4], [21, 3], [MISSING, 3]]))
    want = [[0, 3], [1], [3], [3]]
    for buckets, step in [(2, 1), (4, 2), (512, 8)]:
        m = BitsetMatcher(subs, buckets=buckets, step=step)
        assert _rows(*m.match(events)) == want
    assert bitset_reference(subs, events) == want


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("buckets", "step"), [(512, 8), (8, 2), (16, 16), (64, 1)])
def test_equals_the_oracle_and_the_reference(seed: int, buckets: int, step: int) -> None:
    subs, events = _random(seed)
    got = _rows(*BitsetMatcher(subs, buckets=buckets, step=step).match(events))
    truth = _truth(subs, events)
    assert got == truth
    assert sum(map(len, truth)) > 50  # the check is not vacuous
    if seed == 0 and step == 8:
        assert bitset_reference(subs, events) == truth


@settings(max_examples=40, deadline=None)
@given(seed=hst.integers(0, 10_000), d=hst.integers(1, 5), n=hst.integers(1, 300))
def test_random_layouts_equal_the_oracle(seed: int, d: int, n: int) -> None:
    subs, events = _random(seed, n=n, d=d, n_ev=30)
    rng = np.random.default_rng(seed)
    step = int(2 ** rng.integers(0, 4))
    buckets = step * int(rng.integers(1, 9))
    if buckets < 2:
        buckets = 2 * step
    assert _rows(*BitsetMatcher(subs, buckets=buckets, step=step).match(events)) == _truth(
        subs, events
    )


def test_cell_bitsets_hold_what_a_cell_rules_out_and_the_memory_bound_widens_the_step() -> None:
    subs, events = _random(3, n=4000)
    t = subs.table
    idx = BitsetIndex(t.attr, t.op, t.value, subs.ptr, subs.preds, subs.n_attrs, 64, 2)
    # brute force: subscription k is in cell (a, c)'s bitset iff its interval on a has a
    # finite low bound in a later cell or a finite high bound in an earlier one
    lo_inf, hi_inf = np.iinfo(np.int64).min + 1, np.iinfo(np.int64).max
    expect = np.zeros((subs.n_attrs, 64 // 2, idx.words), dtype=np.uint64)
    for k in range(len(subs)):
        box: dict[int, list[int]] = {}
        for p in subs.predicates_of(k).tolist():
            a, o, v = int(t.attr[p]), int(t.op[p]), int(t.value[p])
            lo, hi = box.setdefault(a, [lo_inf, hi_inf])
            lo = max(lo, v if o in (EQ, GE) else v + 1 if o == GT else lo_inf)
            hi = min(hi, v if o in (EQ, LE) else v - 1 if o == LT else hi_inf)
            box[a] = [lo, hi]
        for a, (lo, hi) in box.items():
            cell_lo = int(np.searchsorted(idx.edges[a], lo, side="right")) // 2
            cell_hi = int(np.searchsorted(idx.edges[a], hi, side="right")) // 2
            for c in range(64 // 2):
                if (lo > lo_inf and cell_lo > c) or (hi < hi_inf and cell_hi < c):
                    expect[a, c, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    assert np.array_equal(idx.cells, expect)
    small = BitsetIndex(t.attr, t.op, t.value, subs.ptr, subs.preds, subs.n_attrs, 64, 2,
                        max_bytes=subs.n_attrs * 4 * idx.words * 8)  # fmt: skip
    assert small.step == 16 and small.cells.shape[1] == 64 // 16
    assert np.array_equal(small.match(events.values)[1], idx.match(events.values)[1])


def test_updates_between_matches() -> None:
    """New subscriptions are checked one by one until a rebuild, deleted ones are masked;
    after many changes the stage rebuilds. The answer is always the oracle's on the live
    set."""
    subs, events = _random(4, n=3000)
    m = BitsetMatcher(subs)
    extra, _ = _random(5, n=2000)
    live = {int(i): p for i, p in zip(subs.ids, subs.as_lists(), strict=True)}
    rng = np.random.default_rng(0)
    for step in range(4):
        for j in range(step * 100, step * 100 + 100):
            sid = 10_000 + j
            preds = extra.as_lists()[j]
            m.insert(sid, preds)
            live[sid] = preds
        for sid in rng.choice(sorted(live), 150, replace=False).tolist():
            m.delete(int(sid))
            del live[int(sid)]
        ids = sorted(live)
        now = Subscriptions.from_lists([live[i] for i in ids], ids=ids, n_attrs=subs.n_attrs)
        assert _rows(*m.match(events)) == _truth(now, events)
    assert m.stage.rebuilds >= 2  # 1,000 changes on 3,000: rebuilt along the way


@pytest.mark.parametrize("algorithm", ["propagation", "propagation_wp", "static", "dynamic"])
def test_catch_all_stage_equals_the_scan(algorithm: str) -> None:
    """Mixed subscriptions: half with an equality (clusters), half range-only (catch-all,
    above the stage's minimum). Bitset stage and the paper's scan give the same answers,
    also after inserting and deleting catch-all subscriptions."""
    rng = np.random.default_rng(7)
    n = 4 * BITSET_MIN
    subs_l = []
    for i in range(n):
        preds = [(int(a), ">=", int(rng.integers(0, 10))) for a in rng.choice(6, 2, replace=False)]
        if i % 2:
            preds.append((int(rng.integers(0, 6)), "=", int(rng.integers(0, 10))))
        subs_l.append(preds)
    subs = Subscriptions.from_lists(subs_l, n_attrs=6)
    events = Events(rng.integers(0, 10, (80, 6)))
    stats = EventStats.from_events(events)
    fast = build_matcher(algorithm, subs, stats=stats)
    slow = build_matcher(algorithm, subs, stats=stats, catch_all="scan")
    truth = _truth(subs, events)
    assert _rows(*fast.match(events)) == _rows(*slow.match(events)) == truth
    assert fast._stage is not None and slow._stage is None
    for m in (fast, slow):
        m.insert(99_999, [(0, "<=", 5)])
        m.delete(0)
    assert _rows(*fast.match(events)) == _rows(*slow.match(events))


def test_the_stage_is_skipped_below_its_minimum() -> None:
    subs = Subscriptions.from_lists([[(0, ">=", 3)], [(0, "=", 4)]], n_attrs=1)
    m = build_matcher("propagation", subs)
    events = Events(np.array([[4], [2]]))
    assert _rows(*m.match(events)) == [[0, 1], []]
    assert m._stage is None


def test_bad_layouts_and_stages_are_refused() -> None:
    subs, _ = _random(0, n=10)
    with pytest.raises(ValueError, match="multiple of step"):
        BitsetMatcher(subs, buckets=10, step=4)
    with pytest.raises(ValueError, match="catch_all"):
        build_matcher("propagation", subs, catch_all="magic")


def test_range_workload_shape() -> None:
    w = RANGES
    subs = range_subscriptions(w, 2000, seed=1)
    again = range_subscriptions(w, 2000, seed=1)
    assert np.array_equal(subs.preds, again.preds)
    assert np.all(subs.sizes() == 2 * w.k)
    t = subs.table
    for preds in subs.as_lists()[:50]:
        attrs = sorted({a for a, _, _ in preds})
        assert len(attrs) == w.k and attrs[-1] < w.d
        for a in attrs:
            lo = [v for b, o, v in preds if b == a and o == ">="]
            hi = [v for b, o, v in preds if b == a and o == "<="]
            assert hi[0] - lo[0] == int(w.domain * w.width) and 0 <= lo[0] < w.domain * (
                1 - w.width
            )
    assert set(np.unique(t.op).tolist()) <= {4, 1}  # >= and <= only
    ev = range_events(w, 100, seed=1)
    assert ev.values.shape == (100, w.d) and ev.values.min() >= 0 and ev.values.max() < w.domain
    with pytest.raises(ValueError):
        RangeWorkload(k=30)


def test_range_workload_every_algorithm_agrees() -> None:
    """On the range workload every matcher gives the oracle's answer (counting checks the
    40k predicates one by one; the clustered ones reach everything through the catch-all)."""
    from routelab.filtering import ALGORITHMS

    w = RangeWorkload(d=8, k=4, width=0.4, domain=1000)
    subs = range_subscriptions(w, 3000, seed=2)
    events = range_events(w, 60, seed=2)
    stats = EventStats.from_events(events)
    truth = _truth(subs, events)
    assert sum(map(len, truth)) > 20
    for name in ALGORITHMS:
        assert _rows(*build_matcher(name, subs, stats=stats).match(events)) == truth, name


def test_rows_csr_follows_inserted_rows() -> None:
    subs, _ = _random(0, n=20)
    m = BitsetMatcher(subs)
    m.insert(5000, [(1, "=", 2), (0, ">", 3)])
    reg = m.registry
    ptr, preds = rows_csr(reg, np.array([3, 20, 0]))
    assert preds[ptr[0] : ptr[1]].tolist() == reg.preds_of(3).tolist()
    assert preds[ptr[1] : ptr[2]].tolist() == reg.preds_of(20).tolist()
    assert preds[ptr[2] : ptr[3]].tolist() == reg.preds_of(0).tolist()


@settings(max_examples=60, deadline=None)
@given(
    built=hst.sets(hst.integers(0, 200), max_size=60),
    rows=hst.sets(hst.integers(0, 200), max_size=60),
)
def test_the_stage_diff_is_the_set_difference(built: set[int], rows: set[int]) -> None:
    from routelab.filtering.bitset import _sorted_diff

    b, r = np.array(sorted(built), dtype=np.int64), np.array(sorted(rows), dtype=np.int64)
    gone, new = _sorted_diff(b, r)
    assert np.array_equal(gone, ~np.isin(b, r))
    assert np.array_equal(new, np.setdiff1d(r, b))


@settings(max_examples=40, deadline=None)
@given(
    pairs=hst.lists(
        hst.tuples(hst.integers(0, 3), hst.integers(-50, 50), hst.booleans()), max_size=80
    ),
    cuts=hst.lists(hst.integers(-60, 60), min_size=7, max_size=7),
)
def test_bounds_are_listed_by_attribute_bucket_and_bound(
    pairs: list[tuple[int, int, bool]], cuts: list[int]
) -> None:
    from routelab.filtering.bitset import _bucket_lists

    att = np.array([a for a, _, _ in pairs], dtype=np.int64)
    val = np.array([v for _, v, _ in pairs], dtype=np.int64)
    finite = np.array([f for _, _, f in pairs], dtype=np.bool_)
    sub = np.arange(len(pairs), dtype=np.int64) * 7
    edges = np.tile(np.sort(np.array(cuts, dtype=np.int64)), (4, 1))  # 8 buckets each
    ptr, s, a, v, b = _bucket_lists(sub, att, val, finite, edges, 8)
    # a bucket is a range of one attribute's bounds: (attribute, bound) order, ties stable
    keep = np.flatnonzero(finite)
    order = keep[np.lexsort((val[keep], att[keep]))]
    assert np.array_equal(s, sub[order]) and np.array_equal(a, att[order])
    assert np.array_equal(v, val[order])
    expect_b = np.array(
        [np.searchsorted(edges[x], y, side="right") for x, y in zip(a, v, strict=True)]
    )
    assert np.array_equal(b, expect_b.astype(np.int64))
    assert np.array_equal(ptr, np.r_[0, np.cumsum(np.bincount(a * 8 + b, minlength=32))])
