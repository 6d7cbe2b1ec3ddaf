"""FISH building blocks on hand-computed examples (Sects. 4.1.1, 4.1.2, 4.2; fish_params)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from routelab.grouping.dchoices_rule import choose_d
from routelab.grouping.fish_kernel import topk_counts
from routelab.grouping.fish_params import FishParams, hot_key_workers, hot_min_workers
from routelab.grouping.fish_reference import (
    ALL_WORKERS,
    EpochTopK,
    FishRouter,
    WorkerStateEstimator,
    classify_hot_keys,
)


def _reference_topk(keys: list[int], capacity: int, epoch_size: int, decay: float) -> EpochTopK:
    topk = EpochTopK(capacity)
    for i, k in enumerate(keys):
        topk.offer(k)
        if (i + 1) % epoch_size == 0:
            topk.decay(decay)
    return topk


# ----------------------------------------------------------------------------- Sect. 4.1.1


def test_intra_epoch_counting_replaces_min_with_its_count_plus_one() -> None:
    # capacity 2, keys 7 7 8 9 5:
    #   7 -> {7:1}; 7 -> {7:2}; 8 -> {7:2, 8:1}
    #   9: full, least is 8 (1) -> 9 gets 1 + 1 = 2: {7:2, 9:2}
    #   5: full, 7 and 9 tie at 2; 7 was updated least recently -> 5 gets 3: {9:2, 5:3}
    keys = [7, 7, 8, 9, 5]
    ref = _reference_topk(keys, capacity=2, epoch_size=100, decay=0.5)
    assert ref.count == {9: 2.0, 5: 3.0}
    assert ref.total == 5.0 == sum(ref.count.values())
    fast, total = topk_counts(np.array(keys), capacity=2, epoch_size=100, decay=0.5)
    assert fast == {9: 2.0, 5: 3.0}
    assert total == 5.0


def test_inter_epoch_decay_multiplies_every_counter() -> None:
    # capacity 3, epochs of 4, alpha 0.5
    # epoch 1: 1 1 2 3 -> {1:2, 2:1, 3:1}, N 4; decay -> {1:1, 2:.5, 3:.5}, N 2
    # epoch 2: 4 evicts 2 (ties with 3 at .5, updated earlier) -> 4 gets 1.5;
    #          1 -> 2, 1 -> 3, 4 -> 2.5: {1:3, 3:.5, 4:2.5}, N 6; decay -> {1:1.5, 3:.25, 4:1.25}
    keys = [1, 1, 2, 3, 4, 1, 1, 4]
    ref = _reference_topk(keys, capacity=3, epoch_size=4, decay=0.5)
    assert ref.count == {1: 1.5, 3: 0.25, 4: 1.25}
    assert ref.total == 3.0
    assert ref.frequencies() == {1: 0.5, 3: 0.25 / 3.0, 4: 1.25 / 3.0}
    fast, total = topk_counts(np.array(keys), capacity=3, epoch_size=4, decay=0.5)
    assert fast == ref.count
    assert total == 3.0


@pytest.mark.parametrize(("capacity", "epoch", "decay"), [(1, 7, 0.5), (8, 16, 0.0), (32, 50, 0.9)])
def test_reference_and_kernel_topk_agree_on_random_streams(
    capacity: int, epoch: int, decay: float
) -> None:
    rng = np.random.default_rng(capacity)
    keys = rng.zipf(1.3, 3000) % 200
    ref = _reference_topk(keys.tolist(), capacity, epoch, decay)
    fast, total = topk_counts(keys, capacity, epoch, decay)
    assert fast == ref.count
    assert total == ref.total
    assert math.isclose(sum(fast.values()), total)  # the counters always sum to N


def test_decay_forgets_a_key_that_stopped_only_with_epoch_counting() -> None:
    """Fig. 14's mechanism: key 1 is hot, then only key 2 arrives. With decay its recent
    frequency vanishes within a few epochs; lifetime counting keeps it hot."""
    stream = [1] * 1000 + [2] * 1000
    hot_after: dict[str, set[int]] = {}
    for counting in ("epoch", "lifetime"):
        params = FishParams(epoch_size=100, decay=0.5, capacity=4, counting=counting)
        router = FishRouter(params, np.ones(4))
        for i, k in enumerate(stream):
            router.route(k, float(i), 4, lambda key, d: list(range(d)))
        hot_after[counting] = set(router.hot)
    # epoch: f_1 = 100 * (1 + .5 + ...) * .5^10 / N, far below theta = .2 / 4 = 0.05
    assert hot_after["epoch"] == {2}
    # lifetime: f_1 = 1000 / 2000 = 0.5
    assert hot_after["lifetime"] == {1, 2}


# ----------------------------------------------------------------------------- Sect. 4.1.2


# n = 10, theta = 1/10. Hot: f > theta strictly, so key 4 (f = 0.1) is not hot.
FREQS = {1: 0.33, 2: 0.14, 3: 0.11, 4: 0.1, 5: 0.02}
# p_H = 0.58, |H| = 3: d_min = ceil(ln(0.42) / (3 ln(0.9))) = ceil(2.745) = 3


def test_chk_hand_example_relative() -> None:
    p = FishParams(hot_threshold=1.0)
    # ceil(10 f / 0.33): 10, ceil(4.24) = 5, ceil(3.33) = 4
    assert classify_hot_keys(FREQS, 10, p, {}) == {1: 10, 2: 5, 3: 4}
    assert hot_min_workers(0.58, 3, 10, 2) == 3


def test_chk_hand_example_share_respects_the_minimum() -> None:
    p = FishParams(hot_threshold=1.0, workers_formula="share")
    # ceil(10 f): 4, 2 -> d_min 3, 2 -> d_min 3
    assert classify_hot_keys(FREQS, 10, p, {}) == {1: 4, 2: 3, 3: 3}
    p5 = FishParams(hot_threshold=1.0, workers_formula="share", min_workers=5)
    assert classify_hot_keys(FREQS, 10, p5, {}) == {1: 5, 2: 5, 3: 5}


def test_chk_never_shrinks_while_hot_and_forgets_cold_keys() -> None:
    p = FishParams(hot_threshold=1.0)
    previous = {2: 8, 3: 1, 4: 9, 1: 12}
    # key 2 keeps 8 > 5; key 3 grows to 4; key 4 is no longer hot; key 1 clamped to n
    assert classify_hot_keys(FREQS, 10, p, previous) == {1: 10, 2: 8, 3: 4}


def test_chk_ablation_policies() -> None:
    wc = classify_hot_keys(FREQS, 10, FishParams(hot_threshold=1.0, hot_policy="wc"), {})
    assert wc == {1: ALL_WORKERS, 2: ALL_WORKERS, 3: ALL_WORKERS}
    dc = classify_hot_keys(FREQS, 10, FishParams(hot_threshold=1.0, hot_policy="dc"), {})
    d = choose_d(0.33, 0.33 + 0.14 + 0.11, 3, 10)
    assert dc == {1: d, 2: d, 3: d}
    assert 2 <= d <= 10


def test_no_hot_keys_gives_an_empty_table() -> None:
    assert classify_hot_keys({1: 0.01, 2: 0.02}, 10, FishParams(hot_threshold=1.0), {3: 4}) == {}


@pytest.mark.parametrize("seed", range(5))
def test_chk_gives_more_workers_to_hotter_keys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 129))
    f = rng.dirichlet(np.full(40, 0.3))
    freqs = dict(enumerate(f.tolist()))
    for formula in ("relative", "share"):
        p = FishParams(workers_formula=formula)
        table = classify_hot_keys(freqs, n, p, {})
        hot = [k for k, v in freqs.items() if v > p.theta(n)]
        assert sorted(table) == sorted(hot)
        ordered = sorted(table, key=lambda k: freqs[k])
        ds = [table[k] for k in ordered]
        assert ds == sorted(ds)  # monotone in frequency
        assert all(2 <= d <= n for d in ds)
        if formula == "relative" and hot:
            assert ds[-1] == n  # the hottest key may use every worker


def test_formula_edges() -> None:
    assert hot_min_workers(1.0, 4, 16, 2) == 16  # all load is hot: every worker
    assert hot_min_workers(0.5, 3, 1, 2) == 1  # one worker only
    assert hot_min_workers(0.01, 50, 100, 2) == 2  # the minimum
    assert hot_key_workers(0.2, 0.2, 8, True) == 8
    assert hot_key_workers(0.001, 0.2, 8, True) == 1
    assert hot_key_workers(0.26, 0.3, 10, False) == 3


# ----------------------------------------------------------------------------- Sect. 4.2


def _paper_example() -> WorkerStateEstimator:
    """Sect. 4.2.3 / Fig. 7: capacities 2, 2, 1, 1; at t = 500 the workers were sent 400,
    440, 280, 180 tuples and their estimated waits are 50, 40, 100, 60."""
    est = WorkerStateEstimator(np.array([2.0, 2.0, 1.0, 1.0]), interval=500.0)
    est.observe_clock(0.0)
    for w, n in enumerate([300, 360, 180, 120]):  # done by t = 500 (150, 180, 180, 120 s)
        for _ in range(n):
            est.record(w)
    est.observe_clock(250.0)  # within the interval: no refresh
    est.observe_clock(500.0)  # refresh: everything sent so far is estimated processed
    for w, n in enumerate([100, 80, 100, 60]):  # still pending at t = 500
        for _ in range(n):
            est.record(w)
    return est


def test_worker_state_estimation_matches_the_paper_example() -> None:
    est = _paper_example()
    assert est.sent == [400, 440, 280, 180]
    assert [est.waiting_time(w, 500.0) for w in range(4)] == [50.0, 40.0, 100.0, 60.0]
    assert [est.unprocessed(w, 500.0) for w in range(4)] == [100.0, 80.0, 100.0, 60.0]
    assert [est.waiting_time(w, 545.0) for w in range(4)] == [5.0, 0.0, 55.0, 15.0]


def test_heuristic_picks_shortest_wait_load_count_picks_fewest_sent() -> None:
    est = _paper_example()
    assert est.select([0, 1, 2, 3], 500.0, heuristic=True) == 1  # wait 40
    assert est.select([0, 1, 2, 3], 500.0, heuristic=False) == 3  # 180 tuples
    assert est.select([2, 0], 500.0, heuristic=True) == 0
    # at t = 560 workers 0, 1, 3 are idle: ties go to the smaller load sum(1/C)
    # (0: 400 / 2 = 200, 1: 220, 3: 180)
    assert est.select([0, 1, 3], 560.0, heuristic=True) == 3
    assert est.select([1, 0], 560.0, heuristic=True) == 0


def test_equal_candidates_go_to_the_first() -> None:
    est = WorkerStateEstimator(np.ones(3), interval=10.0)
    est.observe_clock(0.0)
    assert est.select([2, 0, 1], 0.0, heuristic=True) == 2
    assert est.select([1, 2], 0.0, heuristic=False) == 1


def test_reset_worker_starts_idle_at_its_join_time() -> None:
    est = _paper_example()
    est.reset_worker(2, 500.0)
    assert est.waiting_time(2, 500.0) == 0.0
    assert est.sent[2] == 0
    # one tuple later it has a wait of one service time (1 / C = 1): it is not credited with
    # idle capacity from before it joined
    est.record(2)
    assert est.waiting_time(2, 500.0) == 1.0


# ----------------------------------------------------------------------------- parameters


def test_params_defaults_and_validation() -> None:
    d = FishParams().as_dict()
    assert d["epoch_size"] == 1000 and d["hot_policy"] == "chk"
    assert FishParams.from_params(decay=0.2).decay == 0.2
    assert FishParams(counting="lifetime", decay=0.3).effective_decay == 1.0
    with pytest.raises(ValueError, match="unknown FISH parameter.*bogus.*valid"):
        FishParams.from_params(bogus=1)
    with pytest.raises(ValueError, match="decay"):
        FishParams(decay=1.5)
    with pytest.raises(ValueError, match="hot_policy must be one of chk, wc, dc"):
        FishParams(hot_policy="x")
    with pytest.raises(ValueError, match="epoch_size"):
        FishParams(epoch_size=0)
    with pytest.raises(ValueError, match="interval"):
        FishParams(interval=-1.0)
