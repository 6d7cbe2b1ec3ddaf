"""PKG readings of READINGS.md pinned: each default gives the documented answer on a small
hand-checked case and the alternative the other (Nasir et al., partial key grouping)."""

from __future__ import annotations

import math

import numpy as np

from routelab.datasets.synthetic import LOGNORMAL_PARAMS, lognormal_spec
from routelab.grouping.schemes_reference import (
    hash_choice,
    pkg_local_reference,
    pkg_probe_reference,
)


def _key(n: int, want: tuple[int, int]) -> int:
    """The first key whose two hash choices among ``n`` workers are ``want`` (setup only)."""
    return next(
        k for k in range(10_000) if (hash_choice(k, 0, n, 0), hash_choice(k, 1, n, 0)) == want
    )


def test_local_grouping_alternates_one_key_between_its_two_choices() -> None:
    """Reference grouping (Sect. III), fixed: two hash choices, the smaller local count
    wins, ties to the first choice. Key K with choices (0, 1), one source: counts [0, 0]
    -> tie -> 0; [1, 0] -> 1; [1, 1] -> 0; ... so K alternates 0, 1, 0, 1."""
    k = _key(2, (0, 1))
    assert pkg_local_reference(np.array([k] * 4), None, 2).tolist() == [0, 1, 0, 1]


def test_probing_resets_to_the_actual_loads_by_default_share_as_switch() -> None:
    """Probing, LP (Sect. V-B): a probe sets each source's estimate to the actual loads
    (default ``probe_reset="actual"``); ``"share"`` to actual // S.

    n = 2, S = 2. Key A has both choices on worker 0, key K choices (0, 1). Source 0 sends
    A at t = 0..3 (actual loads [4, 0]). Source 1 sends K at t = 10, 11, 12; the probe
    interval is 5, so before t = 10 (10 > 0 + 5) source 1's estimate is reset:
    actual: [4, 0] -> K to 1 ([4, 1]), 1 ([4, 2]), 1 ([4, 3]);
    share: [4 // 2, 0] = [2, 0] -> 1 ([2, 1]), 1 ([2, 2]), then a tie -> first choice 0."""
    a, k = _key(2, (0, 0)), _key(2, (0, 1))
    keys = np.array([a] * 4 + [k] * 3)
    sources = np.array([0] * 4 + [1] * 3)
    times = np.array([0.0, 1, 2, 3, 10, 11, 12])
    kw = {"times": times, "probe_interval": 5.0}
    actual = pkg_probe_reference(keys, sources, 2, **kw)
    share = pkg_probe_reference(keys, sources, 2, probe_reset="share", **kw)
    assert actual.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert share.tolist() == [0, 0, 0, 0, 1, 1, 0]


def test_stream_time_is_one_message_per_unit_without_timestamps() -> None:
    """Stream time without timestamps (Sect. IV), fixed: message i happens at time i.

    Same stream as the probing case without times, probe interval 3.5: the probe comes
    before the first message with t > 0 + 3.5, i.e. message 4 (t = 4), exactly where the
    explicit times 0..6 put it: actual loads [4, 0] -> K goes 1, 1, 1."""
    a, k = _key(2, (0, 0)), _key(2, (0, 1))
    keys = np.array([a] * 4 + [k] * 3)
    sources = np.array([0] * 4 + [1] * 3)
    got = pkg_probe_reference(keys, sources, 2, probe_interval=3.5)
    assert got.tolist() == [0, 0, 0, 0, 1, 1, 1]
    # interval 4.5: no probe before message 4 (t = 4), so source 1's own empty counts
    # send K to its first choice 0; the probe before message 5 (t = 5 > 4.5) sets the
    # estimate to the actual [5, 0]: K goes 1, then 1 ([5, 1])
    got = pkg_probe_reference(keys, sources, 2, probe_interval=4.5)
    assert got.tolist() == [0, 0, 0, 0, 0, 1, 1]


def test_lognormal_keys_are_rounded_samples_by_default_frequencies_as_switch() -> None:
    """Log-normal streams LN1/LN2 (Sect. V-A, Table I): default ``model="values"``, each
    key a rounded log-normal sample; ``model="frequencies"`` draws among 16k keys with
    log-normal weights.

    LN1 (mu 1.789, sigma 2.366): P(round(X) = 0) = P(X < 0.5) =
    Phi((ln 0.5 - 1.789) / 2.366) = Phi(-1.049) = 0.1471 (Table I's p1 = 14.71%). On 20,000
    draws the share of key 0 is 0.1471 +- 0.0025 (one sd). The frequencies model has keys
    1..16,000 only, never 0."""
    mu, sigma = LOGNORMAL_PARAMS["LN1"]
    p0 = 0.5 * math.erfc(-(math.log(0.5) - mu) / sigma / math.sqrt(2))
    assert abs(p0 - 0.1471) < 5e-4
    spec = lognormal_spec("LN1")
    assert spec.model == "values" and spec.n_keys is None
    seq = np.arange(20_000)
    keys = spec.draw(np.random.default_rng(1), seq, 1)
    assert abs((keys == 0).mean() - p0) < 0.015
    freq = lognormal_spec("LN1", model="frequencies")
    assert freq.n_keys == 16_000
    keys = freq.draw(np.random.default_rng(1), seq, 1)
    assert keys.min() >= 1 and keys.max() <= 16_000
