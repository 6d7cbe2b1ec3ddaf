"""Readings of Fabret et al., across the systems and of measurement flipped for a whole run
(``ROUTELAB_READING``): each key reaches the value its notebooks' code path takes, our
reading stays the default and an explicit argument still wins."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from routelab import timing
from routelab.filtering.costmodel import EventStats
from routelab.filtering.model import MISSING, Events
from routelab.readings import FLIP_ENV

_EVENTS = Events(np.array([[1, 4], [1, MISSING], [2, 4]], dtype=np.int64))


def test_smoothing_flips_event_statistics_to_plain_frequencies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(FLIP_ENV, raising=False)
    st = EventStats.from_events(_EVENTS)
    assert st.nu(0, 1) == pytest.approx(1 / 2) and st.nu(0, 9) == pytest.approx(1 / 6)
    monkeypatch.setenv(FLIP_ENV, "smoothing")
    raw = EventStats.from_events(_EVENTS)  # what every notebook's EventStats gets
    assert raw.nu(0, 1) == pytest.approx(2 / 3) and raw.nu(0, 9) == 0.0
    assert raw.mu([1]) == pytest.approx(2 / 3)  # mu is no smoothing's
    explicit = EventStats.from_events(_EVENTS, alpha=1.0)  # explicit wins
    assert explicit.nu(0, 9) == pytest.approx(1 / 6)


class _Stop(Exception):
    """Raised by a stand-in once the value the test wants is seen."""


class _ManySubs:
    """As many subscriptions as the greedy's sample needs to show (only their count)."""

    n_attrs = 3

    def __len__(self) -> int:
        return 250_001


def test_greedy_flips_to_every_subscription(monkeypatch: pytest.MonkeyPatch) -> None:
    import routelab.filtering.static as static

    seen: list[int] = []

    def rows_sampled(_: Any, rows: np.ndarray) -> None:
        seen.append(len(rows))
        raise _Stop

    monkeypatch.setattr(static, "equality_matrix", rows_sampled)
    stats = EventStats.uniform([10, 10, 10])
    monkeypatch.delenv(FLIP_ENV, raising=False)
    with pytest.raises(_Stop):
        static.greedy_configuration(_ManySubs(), stats)  # type: ignore[arg-type]
    monkeypatch.setenv(FLIP_ENV, "greedy")
    with pytest.raises(_Stop):
        static.greedy_configuration(_ManySubs(), stats)  # type: ignore[arg-type]
    with pytest.raises(_Stop):  # explicit wins
        static.greedy_configuration(_ManySubs(), stats, sample=1_000)  # type: ignore[arg-type]
    assert seen == [200_000, 250_001, 1_000]


def test_greedy_flip_reaches_notebook_09s_grid_points(monkeypatch: pytest.MonkeyPatch) -> None:
    import routelab.filtering.lab.matching.experiments as mx

    seen: list[int] = []

    def builder(*_: Any, greedy_sample: int, **__: Any) -> None:
        seen.append(greedy_sample)
        raise _Stop

    monkeypatch.setattr(mx, "build_matcher", builder)
    point = {"workload": "W0", "algorithm": "static", "n": 2_000, "repeats": 1}
    monkeypatch.delenv(FLIP_ENV, raising=False)
    for env, extra in ((None, {}), ("greedy", {}), ("greedy", {"sample": 500})):
        if env:
            monkeypatch.setenv(FLIP_ENV, env)
        with pytest.raises(_Stop):
            mx.measure_point({**point, **extra})
    assert seen == [100_000, 2_000, 500]  # 09's sample; every subscription; explicit wins


def test_interests_flip_draws_50_km_squares(monkeypatch: pytest.MonkeyPatch) -> None:
    import routelab.compare.lab.experiments as cx

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(cx, "common_stream", lambda *a, **k: _Frame())
    monkeypatch.setattr(cx, "make_interests", lambda *a, **k: calls.append(k) or _Interests())
    monkeypatch.setattr(cx, "post_topics", lambda *a: None)
    params = cx.data_params(None, 10, None, 3, 5, 0)
    monkeypatch.delenv(FLIP_ENV, raising=False)
    cx.load_data(params)
    assert "side_km" not in calls[-1]  # make_interests' own default, 400 km
    monkeypatch.setenv(FLIP_ENV, "interests")
    cx.load_data(params)
    assert calls[-1]["side_km"] == 50.0
    # make_interests' signature keeps our reading (an explicit argument always wins)
    import inspect

    from routelab.compare.interests import make_interests

    assert inspect.signature(make_interests).parameters["side_km"].default == 400.0


class _Frame:
    def assign(self, **_: Any) -> _Frame:
        return self


class _Interests:
    model = None


def test_weeks_flip_cuts_notebook_13s_stream_into_calendar_weeks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from routelab.compare.lab.experiments import data_params
    from routelab.profiles import notebook_defaults, profile_values

    assert notebook_defaults("13_five_routers")["windows"] is None  # resolved at run time
    assert profile_values("smoke", "13_five_routers")["windows"] == 6
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert data_params(None, 10, None, 3, 5, 0)["windows"] == 12
    monkeypatch.setenv(FLIP_ENV, "weeks")
    assert data_params(None, 10, None, 3, 5, 0)["windows"] == 440
    assert data_params(None, 10, 6, 2, 5, 0)["windows"] == 6  # explicit (smoke) wins


def test_clock_flip_reads_the_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    from routelab.spark import _stamp_task_env

    monkeypatch.delenv(timing.CLOCK_ENV, raising=False)
    monkeypatch.delenv(FLIP_ENV, raising=False)
    assert timing._clock_from_env() == "cpu"
    monkeypatch.setenv(FLIP_ENV, "clock")
    assert timing._clock_from_env() == "wall"
    monkeypatch.setenv(timing.CLOCK_ENV, "cpu")  # ROUTELAB_CLOCK, explicit, wins
    assert timing._clock_from_env() == "cpu"
    monkeypatch.setenv(timing.CLOCK_ENV, "wall")  # and keeps working alone
    monkeypatch.delenv(FLIP_ENV)
    assert timing._clock_from_env() == "wall"

    # a process started under the flip reads the wall clock, and Spark tasks are handed it
    monkeypatch.delenv(timing.CLOCK_ENV)
    monkeypatch.setenv(FLIP_ENV, "clock")
    monkeypatch.setattr(timing, "_clock", timing._clock_from_env())
    assert timing.clock_name() == "wall"

    class _Ctx:
        def __init__(self) -> None:
            self.environment: dict[str, str] = {}

    class _Spark:
        sparkContext = _Ctx()

    _stamp_task_env(_Spark())  # type: ignore[arg-type]
    assert _Spark.sparkContext.environment == {timing.CLOCK_ENV: "wall", FLIP_ENV: "clock"}
