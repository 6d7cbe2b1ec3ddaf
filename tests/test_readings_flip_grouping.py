"""Readings of PKG and FISH flipped for a whole run (``ROUTELAB_READING``, routelab.readings):
each flip reaches the default the notebooks take (07_pkg, 08_fish, 13_five_routers), and an
explicit argument still wins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.grouping.fish_params import FishParams
from routelab.grouping.schemes import get_scheme
from routelab.readings import FLIP_ENV

#: key -> (FishParams field, ours, alternative, an explicit value that must win)
FISH_FLIPS = {
    "epoch": ("epoch_size", 1000, 200, 1000),
    "topk": ("capacity", 1000, 100, 1000),
    "decay": ("counting", "epoch", "lifetime", "epoch"),
    "hotkey": ("hot_threshold", 0.5, 0.2, 0.5),
    "dmin": ("min_workers", 2, 1, 2),
    "dk": ("workers_formula", "relative", "share", "relative"),
    "cold": ("cold_choices", 2, 1, 2),
    "ring": ("placement", "ring", "mod", "ring"),
    "unprocessed": ("interval", 10.0, 0.0, 10.0),
    "waittime": ("assignment", "heuristic", "load_count", "heuristic"),
}


@pytest.mark.parametrize("key", sorted(FISH_FLIPS))
def test_a_fish_flip_reaches_the_params_and_the_registry(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, ours, alternative, explicit = FISH_FLIPS[key]
    fish = get_scheme("fish")
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert getattr(FishParams(), name) == ours
    assert fish.check_params({})[name] == ours
    monkeypatch.setenv(FLIP_ENV, key)
    assert getattr(FishParams(), name) == alternative
    # simulate() takes the registry's defaults: resolved per call, not at import
    assert fish.check_params({})[name] == alternative
    assert getattr(FishParams.from_params(**fish.check_params({})), name) == alternative
    assert getattr(FishParams(**{name: explicit}), name) == explicit  # explicit wins
    assert fish.check_params({name: explicit})[name] == explicit
    others = {n for k, (n, *_) in FISH_FLIPS.items() if k != key}
    assert all(getattr(FishParams(), n) == FISH_FLIPS[k][1]
               for k, (n, *_) in FISH_FLIPS.items() if n in others)  # fmt: skip


def test_the_decay_flip_counts_over_the_lifetime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert FishParams().effective_decay == 0.6
    monkeypatch.setenv(FLIP_ENV, "decay")
    assert FishParams().effective_decay == 1.0
    assert FishParams().decay == 1.0  # notebook 08's defaults check reads alpha = 1 too
    assert FishParams(decay=0.4).effective_decay == 1.0  # the notebook's sweep: lifetime too
    assert FishParams(counting="epoch", decay=0.4).effective_decay == 0.4


def _study(knob: str, settings: list, best) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    rows = [
        {"case": c, "n_workers": 16, knob: s, "exec_x_sg": 1.0 if s == best else 1.5,
         "memory_normalized": 1.0}
        for c in ("a", "b") for s in settings
    ]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("key", "knob", "settings", "ours", "alternative"),
    [
        ("decay", "decay", [0.0, 0.6, 1.0], 0.6, 1.0),
        ("hotkey", "hot_threshold", [1.0, 0.5, 0.2], 0.5, 0.2),
        ("dk", "workers_formula", ["relative", "share"], "relative", "share"),
    ],
)
def test_notebook_08s_study_choice_takes_the_flipped_reading(
    key: str, knob: str, settings: list, ours, alternative, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from routelab.grouping.lab.fish.experiments import choose_setting

    frame = _study(knob, settings, ours)
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert choose_setting(frame, knob).chosen == ours
    monkeypatch.setenv(FLIP_ENV, key)
    choice = choose_setting(frame, knob)
    assert choice.chosen == alternative
    assert choice.table.loc[choice.table["chosen"], "setting"].tolist() == [alternative]
    assert choice.describe().startswith(f"{knob} = {alternative}")
    monkeypatch.setenv(FLIP_ENV, "topk")  # another reading: the study decides
    assert choose_setting(frame, knob).chosen == ours


def test_the_probe_flip_resets_to_each_sources_share(monkeypatch: pytest.MonkeyPatch) -> None:
    from routelab.grouping import schemes_kernel as kern
    from routelab.grouping import schemes_reference as ref

    spec = get_scheme("pkg_probe")
    keys = np.array([0, 1, 0, 2, 0, 3, 0, 1] * 8, dtype=np.int64)
    sources = np.arange(keys.size, dtype=np.int64) % 3
    call = {"seed": 0, "probe_interval": 4.0}
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert spec.defaults["probe_reset"] == "actual"
    assert spec.check_params({})["probe_reset"] == "actual"
    assert ref.probe_divisor(None, 3) == 1
    actual = ref.pkg_probe_reference(keys, sources, 4, **call, probe_reset="actual")
    share = ref.pkg_probe_reference(keys, sources, 4, **call, probe_reset="share")
    assert np.array_equal(ref.pkg_probe_reference(keys, sources, 4, **call), actual)
    monkeypatch.setenv(FLIP_ENV, "probe")
    assert spec.check_params({})["probe_reset"] == "share"
    assert spec.check_params({"probe_reset": "actual"})["probe_reset"] == "actual"
    assert ref.probe_divisor(None, 3) == 3 and ref.probe_divisor("actual", 3) == 1
    assert np.array_equal(ref.pkg_probe_reference(keys, sources, 4, **call), share)
    assert np.array_equal(kern.pkg_probe_kernel(keys, sources, 4, **call), share)
    assert np.array_equal(  # explicit wins
        ref.pkg_probe_reference(keys, sources, 4, **call, probe_reset="actual"), actual
    )


def test_the_dchoices_flip_lets_hash_choices_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    from routelab.grouping import schemes_reference as ref

    spec = get_scheme("dchoices")
    keys = np.array([0, 1] * 40 + list(range(2, 42)), dtype=np.int64)
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert spec.defaults["distinct"] is True and spec.check_params({})["distinct"] is True
    distinct = ref.dchoices_reference(keys, None, 4, distinct=True)
    colliding = ref.dchoices_reference(keys, None, 4, distinct=False)
    assert np.array_equal(ref.dchoices_reference(keys, None, 4), distinct)
    monkeypatch.setenv(FLIP_ENV, "dchoices")
    assert spec.check_params({})["distinct"] is False
    assert spec.check_params({"distinct": True})["distinct"] is True  # explicit wins
    assert np.array_equal(ref.dchoices_reference(keys, None, 4), colliding)
    assert np.array_equal(ref.dchoices_reference(keys, None, 4, distinct=True), distinct)
    assert get_scheme("wchoices").check_params({}) == get_scheme("wchoices").defaults


def test_a_simulated_run_records_the_flipped_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    from routelab.grouping.simulator import simulate

    keys = np.array([0, 1, 0, 2, 0, 3] * 10, dtype=np.int64)
    monkeypatch.setenv(FLIP_ENV, "ring,probe,dchoices")
    fish = simulate(keys, "fish", 4, 2, implementation="reference")
    assert fish.params["placement"] == "mod" and fish.params["capacity"] == 1000
    probe = simulate(keys, "pkg_probe", 4, 2, implementation="reference")
    assert probe.summary()["param_probe_reset"] == "share"
    dc = simulate(keys, "dchoices", 4, 2, implementation="reference", distinct=True)
    assert dc.params["distinct"] is True


def test_the_lognormal_flip_draws_weights_over_a_fixed_key_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from routelab.datasets.synthetic import key_spec, lognormal_spec
    from routelab.grouping.lab.streams import ln1

    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert key_spec("ln1").model == "values" and lognormal_spec("LN2").n_keys is None
    monkeypatch.setenv(FLIP_ENV, "lognormal")
    spec = key_spec("ln1")
    assert spec.model == "frequencies" and spec.n_keys == 16_000
    assert lognormal_spec("LN2").model == "frequencies"
    assert lognormal_spec("LN1", model="values").model == "values"  # explicit wins
    keys = ln1(2_000).keys  # notebook 07's LN1 stream
    assert keys.min() >= 1 and keys.max() <= 16_000


def test_the_zfshift_flip_shifts_the_lab_zf_by_half_the_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from routelab.grouping.lab.streams import time_evolving_zipf

    monkeypatch.delenv(FLIP_ENV, raising=False)
    redrawn = time_evolving_zipf(200, 10, 1.0)
    assert redrawn.meta["offset"] is None
    monkeypatch.setenv(FLIP_ENV, "zfshift")
    shifted = time_evolving_zipf(200, 10, 1.0)
    assert shifted.meta["offset"] == 5
    assert np.array_equal(shifted.keys[:160], redrawn.keys[:160])  # period 0: the identity
    assert time_evolving_zipf(200, 10, 1.0, offset=3).meta["offset"] == 3  # explicit wins


def test_the_stream_cache_is_keyed_by_the_flipped_readings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from routelab.grouping.lab.tasks import cached_stream

    monkeypatch.delenv(FLIP_ENV, raising=False)
    ours = cached_stream("time_evolving_zipf", n_messages=200, n_keys=10)
    monkeypatch.setenv(FLIP_ENV, "zfshift")
    flipped = cached_stream("time_evolving_zipf", n_messages=200, n_keys=10)
    assert ours.meta["offset"] is None and flipped.meta["offset"] == 5
