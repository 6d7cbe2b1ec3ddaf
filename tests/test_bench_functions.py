"""Every ``make bench`` function runs on tiny sizes, so a bench that no
longer runs, or whose kernel stops agreeing with its baseline, is caught by ``make test``
rather than on the next benchmark day. Speeds are not asserted (benchmarks, not timed tests);
the rows' shape and the agreement flags are."""

from __future__ import annotations

import math

import pytest

ROW_KEYS = {"what", "value", "unit", "baseline", "ratio", "goal", "meets_goal"}


def _check_rows(rows: list[dict]) -> None:
    assert rows
    for row in rows:
        assert set(row) >= ROW_KEYS, row
        assert row["value"] > 0 and math.isfinite(row["value"]), row
        if row["baseline"] is not None:
            assert row["ratio"] == pytest.approx(
                row["value"] / row["baseline"]
                if row["unit"] not in ("s", "ms")  # a rate: faster is larger
                else row["baseline"] / row["value"]
            ), row
        if row["goal"] is not None:
            assert isinstance(row["meets_goal"], bool)


@pytest.mark.spark
def test_preprocess_bench_on_tiny_sizes(spark):
    from routelab.corpus.lab.bench import bench_rows

    rows = bench_rows(n_posts=300, include_bundled=False)
    _check_rows(rows)
    assert "300 posts" in rows[0]["what"] and rows[0]["unit"] == "posts/s"


def test_salb_bench_on_tiny_sizes():
    from routelab.s3tm.lab.routing.bench import bench_rows

    rows = bench_rows(n_posts=400, reference_posts=60)
    _check_rows(rows)
    # the kernel and the reference (Algorithm 1) give the same mapping on the subset
    assert "same mapping: True" in rows[1]["what"]
    assert rows[0]["goal"] is None  # the 10 s goal is about 1M posts, not judged on 400


def test_matching_benches_on_tiny_sizes():
    from routelab.s3tm.lab.matching.bench import bench_lasp, bench_matching

    m = bench_matching(300, 200, oracle_pubs=30, reference_pubs=50)
    assert m["kernel_agrees_with_oracle"] and m["n_subs"] == 300
    assert min(m["kernel_pubs_per_s"], m["reference_pubs_per_s"], m["oracle_pubs_per_s"]) > 0
    p = bench_lasp(300, 4, reference_subs=100)
    assert p["reference_agrees"] and p["kernel_subs_per_s"] > 0


def test_spatial_adjustment_bench_times_warm_moves_between_copies():
    """The selection and migration figures run (the migration: a compile call, then the best
    of 3 moves between fresh copies of two GI2 indexes)."""
    from routelab.spatial.lab.bench import adjustment_rows

    rows = adjustment_rows(quick=True)
    for row in rows:
        assert row["value"] > 0 and math.isfinite(row["value"]), row
    units = {r["unit"] for r in rows if r["what"].startswith("migration between GI2 indexes")}
    assert units == {"cells/s", "MB/s"}
    assert sum(r["what"].startswith("RA selection") for r in rows) == 2  # 100 and 1,000 cells
