"""FISH readings of READINGS.md pinned: each default gives the documented answer on a small
hand-checked case and the alternative the other (Zhang et al., time-evolving streams; and
the D-Choices / W-Choices baselines of Nasir et al. ICDE'16)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from routelab.datasets.synthetic import TimeEvolvingZipfSpec
from routelab.grouping.consistent_hash import build_ring, ring_candidates_reference
from routelab.grouping.dchoices_rule import choose_d
from routelab.grouping.fish_params import FishParams, prepare_fish_run
from routelab.grouping.fish_reference import (
    FishRouter,
    WorkerStateEstimator,
    classify_hot_keys,
    fish_reference,
)
from routelab.grouping.schemes_reference import dchoices_reference, distinct_choices, hash_choice
from routelab.hashing import py_mix64


def _first(k: int, d: int) -> list[int]:
    """Candidates of every key: workers 0..d-1 (placement is not under test here)."""
    return list(range(d))


def _feed(router: FishRouter, keys: list[int], n_live: int) -> None:
    for i, k in enumerate(keys):
        router.route(k, float(i), n_live, _first)


def _router(n: int, **kw) -> FishRouter:
    return FishRouter(FishParams(**kw), np.ones(n))


# --------------------------------------------------------------------------- Sect. 4.1.1


def test_epoch_is_1000_tuples_of_one_source() -> None:
    """Epoch size (Sect. 4.1.1): E = 1000. Key 7 only, n = 4: no classification before the
    1000th tuple (the first epoch has no hot keys); at its end f = 1 > theta and
    d = ceil(4 x 1 / 1) = 4. With ``epoch_size=500`` the table exists after 500."""
    r = _router(4)
    _feed(r, [7] * 999, 4)
    assert r.hot == {}
    _feed(r, [7], 4)
    assert r.hot == {7: 4}
    r = _router(4, epoch_size=500)
    _feed(r, [7] * 500, 4)
    assert r.hot == {7: 4}


def test_top_k_capacity_1000_sees_keys_top_100_evicts() -> None:
    """Top-K capacity (Sects. 2.3, 4.1.1): K = 1000; alternative 100.

    One epoch of 1000 tuples: keys 0..199 in round-robin, 5 times each; n = 128, so
    theta = 0.5 / 128 = 0.0039. K = 1000 counts exactly: f = 5 / 1000 = 0.005 > theta,
    all 200 keys hot. K = 100: keys 0..99 fill the set; 100..199 each evict the least
    recently updated count-1 key and get 2. In every later round keys 0..99 evict
    100..199 (count c -> c + 1), then 100..199 evict them (c + 2): after round r keys
    100..199 hold 2r (each offer adds 1 to the sum: 1000 = 100 x 10). Only 100..199 are
    stored (f = 10 / 1000 > theta): keys 0..99 are invisible."""
    stream = list(range(200)) * 5
    r = _router(128)
    _feed(r, stream, 128)
    assert sorted(r.hot) == list(range(200))
    r = _router(128, capacity=100)
    _feed(r, stream, 128)
    assert sorted(r.hot) == list(range(100, 200))
    assert r.topk.count[150] == pytest.approx(10.0 * 0.6)  # decayed after classification


def test_decay_06_forgets_a_key_lifetime_counting_keeps_it() -> None:
    """Decay factor (Sects. 4.1.1, 6.3): alpha = 0.6 at each epoch end; alternative
    lifetime counting (``counting="lifetime"``, alpha treated as 1).

    n = 2 (theta = 0.25); epoch 1: key 1 x 1000; epochs 2, 3: key 2 x 1000 each.
    alpha 0.6 at the end of epoch 3 (before its decay): c_1 = 1000 x 0.6 x 0.6 = 360,
    c_2 = 1000 x 0.6 + 1000 = 1600, N = 1960: f_1 = 0.184 < 0.25, only key 2 is hot.
    lifetime: c_1 = 1000, c_2 = 2000, f_1 = 1/3 > 0.25: both hot."""
    stream = [1] * 1000 + [2] * 2000
    r = _router(2)
    _feed(r, stream, 2)
    assert sorted(r.hot) == [2]
    assert r.topk.count[1] == 360.0 * 0.6  # decayed once more after classification
    r = _router(2, counting="lifetime")
    _feed(r, stream, 2)
    assert sorted(r.hot) == [1, 2]
    r = _router(2, decay=1.0)
    _feed(r, stream, 2)
    assert sorted(r.hot) == [1, 2]


def test_replace_min_ties_evict_the_least_recently_updated() -> None:
    """Replacing the least counted key (Sect. 4.1.1), fixed: capacity 2, keys 7 7 8 9 5:
    9 evicts 8 (count 1) and gets 2; 5 finds 7 and 9 tied at 2, 7 updated earlier is
    evicted, 5 gets 3."""
    r = _router(2, capacity=2)
    _feed(r, [7, 7, 8, 9, 5], 2)
    assert r.topk.count == {9: 2.0, 5: 3.0}


# --------------------------------------------------------------------------- Sect. 4.1.2


def test_hot_threshold_half_over_n_by_default() -> None:
    """Hot threshold (Sect. 6.3): theta n = 0.5; D-C's 1/(5n) (theta n = 0.2) as the
    starting value. n = 4: theta = 0.125; f = {1: 0.1, 2: 0.9}: only key 2 is hot;
    with theta = 0.2 / 4 = 0.05 key 1 is hot too."""
    freqs = {1: 0.1, 2: 0.9}
    assert sorted(classify_hot_keys(freqs, 4, FishParams(), {})) == [2]
    assert sorted(classify_hot_keys(freqs, 4, FishParams(hot_threshold=0.2), {})) == [1, 2]


def test_workers_per_hot_key_relative_by_default_share_as_switch() -> None:
    """Workers per hot key, Alg. 2 lines 1-4 (Sect. 4.1.2): d_k = ceil(n f_k / f_max);
    alternative ``workers_formula="share"``, d_k = ceil(n f_k).

    n = 10 (theta = 0.05), f = {1: 0.09, 2: 0.06}, p_H = 0.15. d_min:
    ln(1 - 0.15) / (2 ln(0.9)) = -0.1625 / -0.2107 = 0.77 -> 1, raised to min_workers 2.
    relative: key 1 ceil(10) = 10, key 2 ceil(10 x 0.06 / 0.09) = ceil(6.67) = 7.
    share: key 1 ceil(0.9) = 1, key 2 ceil(0.6) = 1, both raised to d_min = 2."""
    freqs = {1: 0.09, 2: 0.06}
    assert classify_hot_keys(freqs, 10, FishParams(), {}) == {1: 10, 2: 7}
    assert classify_hot_keys(freqs, 10, FishParams(workers_formula="share"), {}) == {1: 2, 2: 2}


def test_min_workers_two_by_default() -> None:
    """Minimum workers d_min (Sect. 4.1.2): never below ``min_workers`` = 2. Same case as
    the share formula above (d_min's formula gives 1, every d_k = 1): default 2 each;
    ``min_workers=1`` leaves 1 each."""
    freqs = {1: 0.09, 2: 0.06}
    share = FishParams(workers_formula="share")
    assert classify_hot_keys(freqs, 10, share, {}) == {1: 2, 2: 2}
    one = FishParams(workers_formula="share", min_workers=1)
    assert classify_hot_keys(freqs, 10, one, {}) == {1: 1, 2: 1}


def test_never_shrinks_while_hot_and_forgets_when_cold() -> None:
    """Never shrinking while hot (Sect. 4.1.2), fixed: previous M_1 = 9 > d = 7 keeps 9;
    a key that left the hot set is forgotten (key 3 not in the table)."""
    freqs = {1: 0.06, 2: 0.09}
    got = classify_hot_keys(freqs, 10, FishParams(), {1: 9, 3: 5})
    assert got == {1: 9, 2: 10}


def test_cold_keys_get_two_choices() -> None:
    """Non-hot keys (Sects. 2.2, 4.2): two choices, as PKG. A cold key sent twice at
    t = 0 to candidates [0, 1]: the first goes to 0 (all idle: the earlier candidate), the
    second to 1 (worker 0 now waits 1 s). ``cold_choices=1``: both to 0."""
    r = _router(2)
    assert [r.route(5, 0.0, 2, _first) for _ in range(2)] == [0, 1]
    r = _router(2, cold_choices=1)
    assert [r.route(5, 0.0, 2, _first) for _ in range(2)] == [0, 0]


# --------------------------------------------------------------------------- Sects. 4.2, 5


def test_unprocessed_tuples_refresh_every_10_seconds() -> None:
    """Unprocessed tuples (Sect. 4.2.1): the source refreshes its estimate every T = 10 s
    and counts what it sent in between; ``interval=0`` is an exact queue.

    Capacity 1; first tuple at t = 0 (a refresh: B_0 = 0). At t = 5 the source sends 3
    tuples to worker 0. T = 10: no refresh at 5, B_0 = 0 + 3 = 3, so U_0(5) =
    max(0, 3 - 5) = 0 (the idle 5 s are credited). interval 0: refresh at 5, B_0 = 5 + 3,
    U_0 = 3."""
    assert FishParams().interval == 10.0
    for interval, expected in ((FishParams().interval, 0.0), (0.0, 3.0)):
        est = WorkerStateEstimator(np.ones(2), interval)
        est.observe_clock(0.0)
        est.observe_clock(5.0)
        for _ in range(3):
            est.record(0)
        assert est.unprocessed(0, 5.0) == expected


def test_waiting_time_heuristic_by_default_load_count_as_switch() -> None:
    """Waiting time and ties (Sects. 4.2.2-4.2.3): shortest W = U / C; alternative
    ``assignment="load_count"`` (fewest tuples sent).

    Candidates [0, 1], capacities 1 and 4, three tuples at t = 0.
    heuristic: 0 (both idle) -> waits 1 and 0 -> 1 -> waits 1 and 0.25 -> 1.
    load_count: 0 -> sent 1, 0 -> 1 -> sent 1, 1: tie -> earlier candidate 0."""
    caps = np.array([1.0, 4.0])
    r = FishRouter(FishParams(), caps)
    assert [r.route(5, 0.0, 2, _first) for _ in range(3)] == [0, 1, 1]
    r = FishRouter(FishParams(assignment="load_count"), caps)
    assert [r.route(5, 0.0, 2, _first) for _ in range(3)] == [0, 1, 0]


def test_ring_placement_with_100_vnodes_by_default_mod_as_switch() -> None:
    """Placement on the ring (Sect. 5): a key's workers are the first distinct workers
    clockwise on a ring of 100 virtual nodes per worker; ``placement="mod"`` takes
    ``live[(h(k) + i) mod n]``. One tuple of key k (all workers idle) goes to its first
    candidate: the ring owner, or ``live[h(k) mod 4]`` under mod. Adding a fifth worker
    moves a key under mod unless h mod 4 = h mod 5 (about 1 key in 5 stays), under the
    ring only the keys the new worker's arcs take (about 1 in 5 moves)."""
    assert FishParams().vnodes == 100
    run = prepare_fish_run(np.array([1]), None, 4)
    assert run.rings[0].positions.size == 4 * 100
    ring4, ring5 = build_ring(range(4), 100, 0), build_ring(range(5), 100, 0)
    keys = range(400)
    ring_first = [ring_candidates_reference(ring4, k, 1)[0] for k in keys]
    mod_first = [py_mix64(k, 0) % 4 for k in keys]
    for k in (0, 1, 2, 3):
        assert fish_reference(np.array([k]), None, 4).tolist() == [ring_first[k]]
        assert fish_reference(np.array([k]), None, 4, placement="mod").tolist() == [mod_first[k]]
    assert ring_first != mod_first
    ring_moved = np.mean([ring_candidates_reference(ring5, k, 1)[0] != ring_first[k] for k in keys])
    mod_moved = np.mean([py_mix64(k, 0) % 5 != mod_first[k] for k in keys])
    assert ring_moved < 0.35 and mod_moved > 0.65


# --------------------------------------------------------------------------- Sect. 6.1


def test_time_evolving_zipf_redraws_by_default_shift_with_offset() -> None:
    """Time-evolving Zipf, ZF (Sect. 6.1): ``offset`` given shifts ranks cyclically,
    key = (r - 1 + p offset) mod n + 1; ``offset=None`` (TimeEvolvingZipfSpec's default, and what the
    FISH lab's ZF cases use) re-draws the hot keys by a seeded affine map.

    n = 10, offset 3, period 2: (a, b) = (1, 6); rank 1 -> key (0 + 6) mod 10 + 1 = 7.
    Period 0 is the identity under both."""
    shifted = TimeEvolvingZipfSpec(10, 1.0, 100, offset=3)
    assert shifted.period_map(0, 0) == (1, 0) and shifted.period_map(2, 0) == (1, 6)
    assert TimeEvolvingZipfSpec(10, 1.0, 100).offset is None
    redrawn = TimeEvolvingZipfSpec(10, 1.0, 100)
    maps = {redrawn.period_map(p, 0) for p in (1, 2, 3, 4)}
    assert redrawn.period_map(0, 0) == (1, 0)
    assert maps != {(1, 3), (1, 6), (1, 9), (1, 2)}  # not the cyclic shift
    assert all(a in (1, 3, 7, 9) for a, _ in maps)  # a coprime with 10


# --------------------------------------------------------------------------- D-C / W-C


def test_dchoices_theta_one_fifth_over_n_by_default() -> None:
    """D-Choices / W-Choices baselines (Sect. 2.2), theta = 1/(5n) by default.

    Keys A = 0 (choices 3, 1) and B = 1 (choices 0, 1), alternating, n = 4, one source.
    Default theta 0.05: both keys stay hot (counts m/2 > 0.05 m) and the tail is empty
    (p_T = 0), so condition (a) needs 1 - (3/4)^(2d) >= 0.999, no d < 4 does: d = n, all
    workers, least loaded with ties to the lowest id: round robin 0, 1, 2, 3, ...
    theta = 0.9: only the first message is hot (1 > 0.9); afterwards counts m/2 < 0.9 m,
    every key uses its two hash choices."""
    a, b = 0, 1
    assert [hash_choice(a, j, 4, 0) for j in (0, 1)] == [3, 1]
    assert [hash_choice(b, j, 4, 0) for j in (0, 1)] == [0, 1]
    keys = np.array([a, b] * 10)
    assert dchoices_reference(keys, None, 4).tolist() == [0, 1, 2, 3] * 5
    out = dchoices_reference(keys, None, 4, theta=0.9)
    assert out[0] == 0
    assert set(out[2::2].tolist()) <= {3, 1} and set(out[1::2].tolist()) <= {0, 1}


def test_dchoices_summary_of_100_counters_by_default() -> None:
    """D-C's SpaceSaving summary has 100 counters by default. Same alternating stream,
    theta = 0.7: with 100 counters the counts are exact: A's count at m = 2j + 1 is
    j + 1 <= 0.7 m for j >= 1 and B's j at m = 2j is below 1.4 j, so only the first
    message is hot; the others use two hash choices. With 1 counter each new key takes it
    over with count m (estimate m > 0.7 m): always hot with p1 = 1, d = n: round robin."""
    assert inspect.signature(dchoices_reference).parameters["capacity"].default == 100
    assert inspect.signature(dchoices_reference).parameters["d_refresh"].default == 1000
    keys = np.array([0, 1] * 10)
    out = dchoices_reference(keys, None, 4, theta=0.7)
    assert set(out[2::2].tolist()) <= {3, 1} and set(out[1::2].tolist()) <= {0, 1}
    one = dchoices_reference(keys, None, 4, theta=0.7, capacity=1)
    assert one.tolist() == [0, 1, 2, 3] * 5


def test_dchoices_rule_starts_at_two_choices() -> None:
    """D-C's d starts at ``d_min`` = 2, not round(p1 n). p1 = p_H = 0.01, |H| = 1, n = 10:
    round(0.1) = 0; d = 1 satisfies (a): 0.01 + 0.99 x 0.1^2 = 0.0199 <= 0.1 + 0.001 and
    (b): b = 0.1, 0.01 + 0 + 0.99 x 0.01 = 0.0199 <= 0.101. So d_min = 1 gives 1; the
    default gives 2 (which satisfies both as well: 0.0457 <= 0.191)."""
    assert choose_d(0.01, 0.01, 1, 10) == 2
    assert choose_d(0.01, 0.01, 1, 10, 1e-3, 1) == 1


def test_dchoices_choices_are_distinct_workers_by_default() -> None:
    """D-C's d choices are distinct workers (default ``distinct=True``); ``False`` takes d
    hash functions that may collide.

    n = 8, summary of 1000 counters (exact). Key K = 5000 every 4th message among
    distinct tail keys: from m >= 40 the tail keys (count 1 <= 0.025 m) are cold and the
    head is {K} with p1 = p_H ~ 1/4: d = 3 fails (a) (0.25 + 0.75 x 0.330^2 = 0.332 >
    0.331), d = 4 passes both. K's 4 hash choices are 2, 6, 7, 6 (a collision):
    distinct moves the repeated 6 on to 7, then 0 -> {2, 6, 7, 0}; without it K only
    reaches {2, 6, 7}. Checked on K's messages from index 100 on (d recomputed at m = 65)."""
    k = 5000
    assert [hash_choice(k, j, 8, 0) for j in range(4)] == [2, 6, 7, 6]
    assert distinct_choices(k, 4, 8, 0) == [2, 6, 7, 0]
    keys = np.array([k if i % 4 == 0 else 100_000 + i for i in range(400)])
    late = np.arange(400) >= 100
    out = dchoices_reference(keys, None, 8, capacity=1000)
    assert set(out[(keys == k) & late].tolist()) == {0, 2, 6, 7}
    out = dchoices_reference(keys, None, 8, capacity=1000, distinct=False)
    assert set(out[(keys == k) & late].tolist()) == {2, 6, 7}
