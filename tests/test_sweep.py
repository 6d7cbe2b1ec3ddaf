"""The sweep helper: grid expansion, Spark tasks, failure reporting."""

from __future__ import annotations

import pytest

from routelab.sweep import SweepError, grid, run_grid


def _square_task(params):
    return [{"y": params["a"] * params["b"]}, {"y": -params["a"]}]


def _failing_task(params):
    if params["a"] == 2:
        raise RuntimeError("bad point")
    return [{"y": 1}]


def test_grid_is_cartesian_product():
    points = grid(a=[1, 2], b=["x", "y", "z"])
    assert len(points) == 6 and points[0] == {"a": 1, "b": "x"} and points[-1] == {"a": 2, "b": "z"}


@pytest.mark.spark
def test_spark_and_local_runs_agree(spark):
    points = grid(a=[1, 2, 3], b=[10, 20])
    on_spark = run_grid(_square_task, points, spark=spark, progress=False)
    local = run_grid(_square_task, points, local=True, progress=False)
    cols = ["a", "b", "y"]
    assert on_spark[cols].equals(local[cols])
    assert len(on_spark) == 12 and set(on_spark["y"]) >= {10, 60, -3}


@pytest.mark.spark
def test_failure_names_the_point(spark):
    with pytest.raises(
        SweepError, match=r"1 of 3 grid points failed; first: \{'a': 2\}.*bad point"
    ):
        run_grid(_failing_task, grid(a=[1, 2, 3]), spark=spark, progress=False)


def _broadcast_task(params):
    return [{"y": sum(params["data"].value) * params["a"]}]


@pytest.mark.spark
def test_broadcast_values_in_params(spark):
    from routelab.sweep import broadcast

    data = broadcast([1, 2, 3], spark)
    out = run_grid(_broadcast_task, grid(a=[1, 2], data=[data]), spark=spark, progress=False)
    assert list(out["y"]) == [6, 12]
    assert out["data"].str.startswith("<broadcast").all()
