"""Pinned readings of the measurement section of READINGS.md: the clock of timed regions."""

from __future__ import annotations

import time

import pytest

from routelab import timing


@pytest.fixture
def restore_clock():
    before = timing.clock_name()
    yield
    timing.use_clock(before)


def _region_with_a_wait(seconds: float) -> float:
    """A timed region that works for a moment and then waits ``seconds`` (as a region does
    while another process holds its core): what the clock charges it."""
    t0 = timing.now()
    sum(range(20_000))
    time.sleep(seconds)
    return timing.now() - t0


def test_a_timed_region_is_charged_its_cpu_time_not_its_wait(restore_clock) -> None:
    assert timing.clock_name() == "cpu"  # the default reading
    # hand-checked: a 200 ms wait around ~1 ms of work; the CPU clock charges the work only
    assert _region_with_a_wait(0.2) < 0.05
    timing.use_clock("wall")
    assert timing.clock_name() == "wall"
    assert _region_with_a_wait(0.2) >= 0.2  # the alternative charges the wait too


def test_clock_names_are_checked(restore_clock, monkeypatch) -> None:
    with pytest.raises(ValueError, match="unknown clock 'sundial'"):
        timing.use_clock("sundial")
    monkeypatch.setenv(timing.CLOCK_ENV, "sundial")
    with pytest.raises(ValueError, match="ROUTELAB_CLOCK='sundial'"):
        timing._clock_from_env()


def test_spark_tasks_read_the_drivers_clock(spark, restore_clock) -> None:
    from routelab.spark import get_spark

    def _task_clock(_: object) -> list[str]:  # defined here: shipped by value, not by name
        from routelab.timing import clock_name

        return [clock_name()]

    sc = get_spark().sparkContext
    assert sc.parallelize([0], 1).mapPartitions(_task_clock).collect() == ["cpu"]
    timing.use_clock("wall")
    sc = get_spark().sparkContext  # the factory hands the clock to the jobs built after it
    assert sc.parallelize([0], 1).mapPartitions(_task_clock).collect() == ["wall"]
    timing.use_clock("cpu")
    sc = get_spark().sparkContext
    assert sc.parallelize([0], 1).mapPartitions(_task_clock).collect() == ["cpu"]
