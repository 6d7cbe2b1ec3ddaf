"""Notebook 09's experiments on tiny sizes, the cost-model calibration and the worked
example (its claims rules: ``test_filtering_lab_claims.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.filtering.lab.matching import experiments as fx
from routelab.timing import timing_lock


def test_measure_point_and_worked_example():
    rows = fx.run_points(
        [
            {"algorithm": a, "workload": "W0", "n": 500, "repeats": 3, "sample": 500}
            for a in ("counting", "static")
        ],
        local=True,
    )
    assert set(rows["algorithm"]) == {"counting", "static"}
    assert (rows["ms_per_100"] > 0).all() and (rows["index_mb"] > 0).all()
    # one row per timed batch; the two phases add up to the whole time
    assert sorted(rows["batch"]) == [0, 0, 1, 1, 2, 2]
    whole_minus_p1 = (rows["ms_per_100"] - rows["phase1_ms"]).clip(lower=0.0)
    assert np.allclose(rows["match_ms"], whole_minus_p1, rtol=1e-9)  # never negative
    assert (rows["phase1_ms"] > 0).all()
    with pytest.raises(ValueError, match="repeats"):
        fx.measure_point({"algorithm": "static", "workload": "W0", "n": 100, "repeats": 0})
    points = fx.scalability_points(["a", "b"], [10, 20], 60, ["b"], seeds=[0, 1], repeats=4)
    assert len(points) == 5 and {p["repeats"] for p in points if p["n"] < 60} == {4}
    assert [p["repeats"] for p in points if p["n"] == 60] == [8]  # 4 batches x 2 seeds
    assert [p["seed"] for p in points if p["n"] == 60] == [0]  # the big N: first seed only
    assert [p["algorithms"] for p in points if p["n"] == 60] == [["b"]]
    bigger = fx.scalability_points(["a"], [10], 60, ["a"], seeds=[0, 1], repeats=4, big_repeats=45)
    assert [p["repeats"] for p in bigger] == [4, 4, 45]  # the big N's own batch count
    with pytest.raises(ValueError, match="big_repeats"):
        fx.scalability_points(["a"], [10], 60, ["a"], big_repeats=0)
    # one point times every algorithm interleaved on the same batches
    grouped = fx.run_points(
        [{"algorithms": ["counting", "static"], "workload": "W0", "n": 500, "repeats": 2,
          "sample": 500}], local=True)  # fmt: skip
    assert "algorithms" not in grouped.columns
    assert sorted(zip(grouped["batch"], grouped["algorithm"], strict=True)) == [
        (0, "counting"), (0, "static"), (1, "counting"), (1, "static")]  # fmt: skip
    assert list(grouped["algorithm"][grouped["batch"] == 1]) == ["static", "counting"]  # rotated
    same = grouped.groupby("batch")["matches_per_event"].nunique()
    assert (same == 1).all()  # the same events: the same matches for every algorithm
    # workloads of one comparison share a point: every (workload, algorithm) timed in turn
    both = fx.run_points(fx.operator_points([400], ["static"], seeds=[3], repeats=2), local=True)
    assert "workloads" not in both.columns
    assert sorted(zip(both["batch"], both["workload"], strict=True)) == [
        (0, "W1op"), (0, "W2op"), (1, "W1op"), (1, "W2op")]  # fmt: skip
    assert list(both["workload"][both["batch"] == 1]) == ["W2op", "W1op"]  # rotated
    sweeps = fx.sweep_points(300, ["propagation"], seeds=[0, 1], repeats=1)
    assert len(sweeps) == 4 and all(len(p["workloads"]) == 6 for p in sweeps)
    axis = fx.sweep_axis(fx.run_points(sweeps[:1], local=True))
    assert sorted(axis["x"]) == [10, 30, 50, 70, 90, 100]
    example = fx.worked_example()
    assert list(example["events"]["matches"]) == ["1, 2, 3", "4"]
    assert list(example["events"]["subscriptions checked"]) == [4, 1]
    assert example["subscriptions"]["access predicate"].tolist() == [
        "type = 747",
        "dest = 6",
        "dest = 6",
        "none (catch-all)",
    ]


@pytest.mark.parametrize("workload", ["W0", "W1op", "W2op", "W0-dom10", "W0-np14"])
def test_every_named_workload_runs(workload):
    rows = fx.measure_point(
        {"algorithm": "propagation", "workload": workload, "n": 300, "repeats": 1}
    )
    assert rows[0]["checks_per_event"] >= 0


def test_bench_runs_on_tiny_sizes():
    from routelab.filtering.lab.bench import bench_rows

    rows = bench_rows(quick=True)
    times = [
        r for r in rows if r["unit"] == "ms" and "W0" in r["what"] and "per 100 events" in r["what"]
    ]
    assert len(times) == 5 and all(r["value"] > 0 for r in times)
    ranges = [r for r in rows if "range-only" in r["what"]]
    assert {r["what"].split(",")[0] for r in ranges} == {"bitset", "propagation", "counting"}
    assert all(r["baseline"] > 0 and r["ratio"] == r["baseline"] / r["value"] for r in ranges)
    prefetch = next(r for r in rows if r["what"].startswith("prefetching"))
    assert prefetch["value"] > 0 and prefetch["goal"] is None  # a goal only at 6M
    churn = next(r for r in rows if "per subscription change" in r["what"])
    assert churn["value"] > 0 and churn["baseline"] > 0  # beside the cost per event
    counting = next(r for r in times if r["what"].startswith("counting"))
    # every algorithm is compared with counting measured in the same run
    assert all(r["baseline"] == counting["value"] for r in times)
    assert any(r["what"].startswith("oracle") for r in rows)


def test_calibration_recovers_known_constants():
    frame = pd.DataFrame(
        {
            "algorithm": ["propagation"] * 3 + ["static"] * 3,
            "n": [1, 2, 3] * 2,
            "checks_per_event": [1000.0, 2000.0, 4000.0, 10.0, 20.0, 40.0],
        }
    )
    frame["ms_per_100"] = (500 + 2.0 * frame["checks_per_event"]) * 100 / 1e6
    consts, table = fx.calibrate(frame)
    assert consts["K_c_ns"] == pytest.approx(2.0) and consts["fixed_ns"] == pytest.approx(500)
    assert consts["r2"] == pytest.approx(1.0)
    assert np.allclose(table["measured_ns"], table["predicted_ns"])


def test_timing_lock_is_exclusive(tmp_path, monkeypatch):
    """The lock excludes another holder while held and is free after. On a private lock file:
    the machine's own may be held at any moment by another process's timed region (a
    parallel test worker, a notebook run), which would make "free again" flaky."""
    import fcntl

    from routelab import timing

    assert timing.lock_path().name == timing.LOCK_NAME  # the shared file, in the temp dir
    path = tmp_path / "timing.lock"
    monkeypatch.setattr(timing, "lock_path", lambda: path)
    with timing_lock(), path.open("a") as other, pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with path.open("a") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free again
        fcntl.flock(other, fcntl.LOCK_UN)


def test_builds_are_timed_under_the_lock_only_where_asked(monkeypatch):
    from contextlib import contextmanager

    taken = []

    @contextmanager
    def counting_lock():
        taken.append(1)
        yield

    monkeypatch.setattr(fx, "timing_lock", counting_lock)
    point = {"algorithms": ["counting", "static"], "workload": "W0", "n": 300, "repeats": 1}
    fx.measure_point(point)
    assert len(taken) == 1  # the timed batches only
    fx.measure_point({**point, "time_builds": True})
    assert len(taken) == 1 + 3  # and each of the two builds
    assert all(p["time_builds"] for p in fx.scalability_points(["a"], [10], None, []))
