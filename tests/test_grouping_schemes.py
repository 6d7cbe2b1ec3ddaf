"""The PKG-side schemes: reference == kernel, hand examples, and PKG's properties (PKG IV)."""

from __future__ import annotations

import numpy as np
import pytest

from routelab.grouping import schemes_kernel as kernels
from routelab.grouping import schemes_reference as reference
from routelab.grouping.events import WorkerEvent
from routelab.grouping.metrics import choice_coverage
from routelab.grouping.schemes import SCHEMES, get_scheme
from routelab.hashing import bucket, choice_seed

D1_SCHEMES = [name for name in SCHEMES if name != "fish"]


def skewed_stream(seed: int, n: int = 2500, n_sources: int = 3):
    """Zipf-ish keys incl. negative and huge ones, random sources, increasing times."""
    rng = np.random.default_rng(seed)
    keys = rng.zipf(1.3, size=n).astype(np.int64) % 500
    keys[rng.random(n) < 0.1] *= -(10**12)
    sources = rng.integers(0, n_sources, size=n)
    times = np.cumsum(rng.exponential(0.05, size=n))
    return keys, sources, times


PARAMS = {
    "potc": [{}, {"d": 3}],
    "pkg_global": [{}, {"d": 3}],
    "pkg_local": [{}, {"d": 1}],
    "pkg_probe": [{"probe_interval": 5.0}, {"probe_interval": 0.5, "d": 3}],
    "dchoices": [{}, {"capacity": 10, "d_refresh": 1}, {"theta": 0.01, "epsilon": 0.05}],
    "wchoices": [{}, {"capacity": 5, "theta": 0.02}],
}


@pytest.mark.parametrize("name", D1_SCHEMES)
@pytest.mark.parametrize("seed,n_workers,n_sources", [(0, 2, 1), (1, 7, 3), (2, 33, 4)])
def test_reference_equals_kernel(name, seed, n_workers, n_sources):
    keys, sources, times = skewed_stream(seed, n_sources=n_sources)
    spec = get_scheme(name)
    for params in PARAMS.get(name, [{}]):
        ref = spec.reference(keys, sources, n_workers, seed=seed, times=times, **params)
        fast = spec.kernel(keys, sources, n_workers, seed=seed, times=times, **params)
        assert ref.dtype == fast.dtype == np.int32
        np.testing.assert_array_equal(ref, fast, err_msg=f"{name} {params}")


@pytest.mark.parametrize("name", list(SCHEMES))
def test_every_scheme_conserves_messages(name):
    keys, sources, times = skewed_stream(7, n=4000)
    out = get_scheme(name).kernel(keys, sources, 9, seed=3, times=times)
    assert out.shape == keys.shape
    assert out.min() >= 0 and out.max() < 9
    # every message is routed to a real worker, and no scheme leaves a worker idle on this
    # 500-key stream (a scheme collapsing onto a few workers fails here)
    assert (np.bincount(out, minlength=9) > 0).all()


def test_empty_stream_routes_nothing():
    for name in D1_SCHEMES:
        spec = get_scheme(name)
        for impl in (spec.reference, spec.kernel):
            assert impl(np.zeros(0, dtype=np.int64), None, 4).size == 0


def test_kg_is_the_first_hash_choice():
    keys, _, _ = skewed_stream(1)
    np.testing.assert_array_equal(
        kernels.kg_kernel(keys, None, 13, seed=5), bucket(keys, 13, choice_seed(5, 0))
    )


def test_choice_seeds_are_independent_across_run_seeds():
    """With ``seed + i`` choice 1 of seed s was choice 0 of seed s + 1, so
    every key kept one of its two PKG workers from one seed to the next. Now the share of
    keys whose seed-(s+1) choices repeat a seed-s choice is what independent hashes give,
    1 - (1 - 2/W)^2, within three binomial standard deviations."""
    from routelab.grouping.schemes_reference import hash_choice

    keys = np.arange(1, 20_001)
    for w in (10, 50):
        for s in (0, 1, 7):
            a = {(k, hash_choice(k, i, w, s)) for k in keys.tolist() for i in (0, 1)}
            b = {(k, hash_choice(k, i, w, s + 1)) for k in keys.tolist() for i in (0, 1)}
            shared = len({k for k, _ in a & b}) / len(keys)
            p = 1 - (1 - 2 / w) ** 2
            sd = (p * (1 - p) / len(keys)) ** 0.5
            assert abs(shared - p) < 3 * sd + 2 / w**2, (w, s, shared, p)
    assert len({choice_seed(s, i) for s in range(50) for i in range(4)}) == 200


def test_sg_is_round_robin_per_source():
    sources = np.array([0, 1, 0, 0, 1, 0])
    out = kernels.sg_kernel(np.zeros(6, dtype=np.int64), sources, 3, seed=2)
    for s in (0, 1):
        seq = out[sources == s]
        assert np.all(np.diff(seq) % 3 == 1)  # each source cycles 0,1,2,0,...
    keys = np.arange(3000)
    loads = np.bincount(kernels.sg_kernel(keys, keys % 4, 7), minlength=7)
    assert loads.max() - loads.min() <= 4  # at most one extra per source


def first_key_with_distinct_choices(n_workers: int, seed: int) -> int:
    return next(
        k
        for k in range(1000)
        if bucket(k, n_workers, choice_seed(seed, 0)) != bucket(k, n_workers, choice_seed(seed, 1))
    )


@pytest.mark.parametrize("name", ["pkg_global", "pkg_local", "pkg_probe"])
def test_pkg_one_key_alternates_between_its_two_choices(name):
    n, seed = 10, 4
    key = first_key_with_distinct_choices(n, seed)
    c1, c2 = int(bucket(key, n, choice_seed(seed, 0))), int(bucket(key, n, choice_seed(seed, 1)))
    sources = np.arange(12) % 3
    out = get_scheme(name).kernel(np.full(12, key), sources, n, seed=seed)
    if name == "pkg_global":  # one shared load vector: the stream alternates
        assert out.tolist() == [c1, c2] * 6
        return
    for s in range(3):
        # local counts, ties to the first choice: c1, c2, c1, c2 at every source
        assert out[sources == s].tolist() == [c1, c2, c1, c2]


def test_pkg_key_never_uses_more_than_its_two_choices():
    keys, sources, times = skewed_stream(3, n=6000)
    for name in ("pkg_global", "pkg_local", "pkg_probe"):
        out = get_scheme(name).kernel(keys, sources, 17, seed=8, times=times)
        allowed = {(int(k), int(bucket(k, 17, choice_seed(8, 0)))) for k in keys} | {
            (int(k), int(bucket(k, 17, choice_seed(8, 1)))) for k in keys
        }
        assert {(int(k), int(w)) for k, w in zip(keys, out, strict=True)} <= allowed


@pytest.mark.parametrize("impl", ["reference", "kernel"])
def test_pkg_with_one_choice_is_key_grouping(impl):
    keys, sources, times = skewed_stream(5)
    kg = get_scheme("kg").kernel(keys, sources, 11, seed=2)
    for name in ("pkg_global", "pkg_local", "pkg_probe"):
        out = getattr(get_scheme(name), impl)(keys, sources, 11, seed=2, times=times, d=1)
        np.testing.assert_array_equal(out, kg)


def test_uniform_keys_with_two_choices_use_about_1_minus_e_minus_2_of_bins():
    # PKG Sect. IV-A: n uniform keys over n bins with d = 2 reach n - n(1 - 1/n)^(2n) bins
    n = 2000
    expected = 1 - (1 - 1 / n) ** (2 * n)  # 0.8647, ~ 1 - 1/e^2
    used = []
    for seed in range(5):
        keys = np.random.default_rng(seed).permutation(np.tile(np.arange(n), 5))
        loads = np.bincount(kernels.pkg_global_kernel(keys, None, n, seed=seed), minlength=n)
        fraction = float((loads > 0).mean())
        coverage = choice_coverage(keys, n, d=2, seed=seed)
        assert fraction <= coverage  # a used bin is always some key's choice
        assert fraction >= coverage - 0.005  # keys seen 5 times use both choices
        used.append(fraction)
    assert abs(np.mean(used) - expected) < 0.015
    # one choice: 1 - (1 - 1/n)^n ~ 1 - 1/e = 0.632 (sanity of the same measurement)
    assert abs(choice_coverage(np.arange(n), n, d=1) - (1 - 1 / np.e)) < 0.03


def test_off_greedy_hand_example():
    # frequencies: key 4 x4, key 1 x3, key 2 x2, key 3 x1; W = 2
    # sorted: 4, 1, 2, 3 -> 4 to w0 [4,0]; 1 to w1 [4,3]; 2 to w1 [4,5]; 3 to w0 [5,5]
    keys = np.array([1, 1, 2, 3, 4, 4, 1, 2, 4, 4])
    expected = [1, 1, 1, 0, 0, 0, 1, 1, 0, 0]
    assert reference.off_greedy_reference(keys, None, 2).tolist() == expected
    assert kernels.off_greedy_kernel(keys, None, 2).tolist() == expected
    # equal frequencies: smaller key first -> key 5 to w0, key 6 to w1
    assert kernels.off_greedy_kernel(np.array([6, 5]), None, 2).tolist() == [1, 0]


def test_on_greedy_hand_example():
    # 7 new -> w0 [1,0]; 8 new -> w1 [1,1]; 7 -> w0 [2,1]; 9 new -> w1 [2,2]; 9, 9 -> w1
    # [2,4]; 10 new -> w0 [3,4]
    keys = np.array([7, 8, 7, 9, 9, 9, 10])
    expected = [0, 1, 0, 1, 1, 1, 0]
    assert reference.on_greedy_reference(keys, None, 2).tolist() == expected
    assert kernels.on_greedy_kernel(keys, None, 2).tolist() == expected


def test_potc_binds_each_key_to_one_of_its_choices():
    keys, _, _ = skewed_stream(9, n=3000)
    out = kernels.potc_kernel(keys, None, 12, seed=1)
    for k in np.unique(keys):
        workers = set(out[keys == k].tolist())
        assert len(workers) == 1
        assert workers <= {
            int(bucket(k, 12, choice_seed(1, 0))),
            int(bucket(k, 12, choice_seed(1, 1))),
        }


def test_probing_resets_local_estimates_to_true_load_share():
    # one key with choices (c1, c2), S = 2. Source 0 sends 3 messages at t = 0, 1, 2 -> c1,
    # c2, c1; true loads (c1: 2, c2: 1). Before source 1's message at t = 10 a probe
    # (interval 5) sets every estimate to the actual loads (2, 1) (the paper) so it goes to
    # c2; with the "share" variant to true // S = (1, 0): also c2; pure local estimation has
    # (0, 0) at source 1 and sends it to c1 (tie to the first choice).
    n, seed = 10, 4
    key = first_key_with_distinct_choices(n, seed)
    c1, c2 = int(bucket(key, n, choice_seed(seed, 0))), int(bucket(key, n, choice_seed(seed, 1)))
    keys = np.full(4, key)
    sources = np.array([0, 0, 0, 1])
    times = np.array([0.0, 1.0, 2.0, 10.0])
    for reset in ("actual", "share"):
        probe = kernels.pkg_probe_kernel(
            keys, sources, n, seed=seed, times=times, probe_interval=5, probe_reset=reset
        )
        assert probe.tolist() == [c1, c2, c1, c2]
        ref = reference.pkg_probe_reference(
            keys, sources, n, seed=seed, times=times, probe_interval=5, probe_reset=reset
        )
        assert ref.tolist() == probe.tolist()
    local = kernels.pkg_local_kernel(keys, sources, n, seed=seed, times=times)
    assert local.tolist() == [c1, c2, c1, c1]


def test_probe_reset_readings_differ():
    """S = 3: sources 0, 2, 0 send c1, c1, c2 (true loads 2, 1). The probe
    at t = 10 sets source 1's estimate to (2, 1) ("actual", the paper: its two messages go
    to c2 then c1) or to (2 // 3, 1 // 3) = (0, 0) ("share": c1 then c2)."""
    n, seed = 10, 4
    key = first_key_with_distinct_choices(n, seed)
    c1, c2 = int(bucket(key, n, choice_seed(seed, 0))), int(bucket(key, n, choice_seed(seed, 1)))
    keys = np.full(5, key)
    sources = np.array([0, 2, 0, 1, 1])
    times = np.array([0.0, 0.5, 1.0, 10.0, 11.0])
    expected = {"actual": [c1, c1, c2, c2, c1], "share": [c1, c1, c2, c1, c2]}
    for reset, want in expected.items():
        for impl in (reference.pkg_probe_reference, kernels.pkg_probe_kernel):
            out = impl(
                keys, sources, n, seed=seed, times=times, probe_interval=5, probe_reset=reset
            )
            assert out.tolist() == want, (impl.__name__, reset)
    with pytest.raises(ValueError, match="probe_reset"):
        kernels.pkg_probe_kernel(keys, sources, n, times=times, probe_reset="half")


def test_wchoices_spreads_a_hot_key_over_all_workers_and_dchoices_over_fewer():
    rng = np.random.default_rng(0)
    n_msg, n = 20_000, 20
    keys = np.where(rng.random(n_msg) < 0.3, 0, rng.integers(1, 50_000, size=n_msg))
    wc = kernels.wchoices_kernel(keys, None, n, seed=1)
    dc = kernels.dchoices_kernel(keys, None, n, seed=1)
    pkg = kernels.pkg_local_kernel(keys, None, n, seed=1)
    assert len(np.unique(wc[keys == 0])) == n
    assert 2 < len(np.unique(dc[keys == 0])) <= n
    assert len(np.unique(pkg[keys == 0])) <= 2
    for out in (wc, dc):  # rare keys keep two choices
        rare = keys == keys[np.flatnonzero(keys != 0)[0]]
        assert len(np.unique(out[rare])) <= 2
    loads = [np.bincount(out, minlength=n) for out in (pkg, dc, wc)]
    imbalance = [lo.max() - lo.mean() for lo in loads]
    assert imbalance[1] < imbalance[0] and imbalance[2] < imbalance[0]


def test_scheme_parameter_errors():
    keys = np.arange(10)
    with pytest.raises(ValueError, match="positive integer"):
        kernels.pkg_global_kernel(keys, None, 3, d=0)
    with pytest.raises(ValueError, match="probe_interval"):
        reference.pkg_probe_reference(keys, None, 3, probe_interval=0)
    with pytest.raises(ValueError, match="theta"):
        kernels.dchoices_kernel(keys, None, 3, theta=1.5)
    with pytest.raises(ValueError, match="capacity"):
        kernels.wchoices_kernel(keys, None, 3, capacity=0)
    with pytest.raises(ValueError, match="d_refresh"):
        reference.dchoices_reference(keys, None, 3, d_refresh=0)
    with pytest.raises(ValueError, match="pkg_local does not support"):
        kernels.pkg_local_kernel(keys, None, 3, events=[WorkerEvent(2, "add", 3)])


def test_registry():
    assert set(SCHEMES) == {
        "kg", "sg", "potc", "on_greedy", "off_greedy", "pkg_global", "pkg_local",
        "pkg_probe", "dchoices", "wchoices", "fish",
    }  # fmt: skip
    spec = get_scheme("pkg_probe")
    assert spec.defaults == {"d": 2, "probe_interval": 60.0, "probe_reset": "actual"}
    assert spec.check_params({"d": 3}) == {"d": 3, "probe_interval": 60.0, "probe_reset": "actual"}
    with pytest.raises(ValueError, match="its parameters: d, probe_interval"):
        spec.check_params({"theta": 0.1})
    with pytest.raises(ValueError, match="choose from kg, sg"):
        get_scheme("hash")
    assert get_scheme("fish").supports_events and not get_scheme("kg").supports_events
    assert spec.implementation("reference") is spec.reference
    with pytest.raises(ValueError, match="implementation"):
        spec.implementation("gpu")


def test_probing_without_times_counts_one_message_per_time_unit():
    keys, sources, _ = skewed_stream(11, n=2000)
    ref = reference.pkg_probe_reference(keys, sources, 6, probe_interval=50)
    fast = kernels.pkg_probe_kernel(keys, sources, 6, probe_interval=50)
    np.testing.assert_array_equal(ref, fast)
    explicit = kernels.pkg_probe_kernel(
        keys, sources, 6, probe_interval=50, times=np.arange(keys.size, dtype=float)
    )
    np.testing.assert_array_equal(fast, explicit)


def test_distinct_choices_hand_example():
    """Colliding hash choices move to the next worker id."""
    from routelab.grouping.schemes_reference import distinct_choices, hash_choice

    n, seed = 5, 3
    for key in range(200):
        raw = [hash_choice(key, j, n, seed) for j in range(4)]
        got = distinct_choices(key, 4, n, seed)
        assert len(set(got)) == 4 and got[0] == raw[0]
        if len(set(raw)) == 4:
            assert got == raw
    key = next(k for k in range(1000) if hash_choice(k, 1, n, seed) == hash_choice(k, 0, n, seed))
    c = hash_choice(key, 0, n, seed)
    assert distinct_choices(key, 2, n, seed)[:2] == [c, (c + 1) % n]
    assert sorted(distinct_choices(key, 9, n, seed)) == list(range(n))


@pytest.mark.parametrize("distinct", [True, False])
def test_dchoices_kernel_equals_reference_with_and_without_distinct_choices(distinct):
    keys, sources, times = skewed_stream(5, n=4000)
    ref = get_scheme("dchoices").reference(keys, sources, 7, seed=2, distinct=distinct, d_refresh=1)
    ker = get_scheme("dchoices").kernel(keys, sources, 7, seed=2, distinct=distinct, d_refresh=1)
    np.testing.assert_array_equal(ref, ker)


def test_distinct_choices_change_dchoices_routing():
    keys, sources, _ = skewed_stream(5, n=4000)
    spec = get_scheme("dchoices")
    a = spec.kernel(keys, sources, 7, seed=0, distinct=True, d_refresh=1)
    b = spec.kernel(keys, sources, 7, seed=0, distinct=False, d_refresh=1)
    assert (a != b).sum() > 100  # the hot keys' colliding choices were resolved
