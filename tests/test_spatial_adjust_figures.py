"""Notebook 12's figures drawn from a small frame with the experiments' shape: what each
draws (not only that it exists): Fig. 12's selection time from the same snapshots, its
colours distinct, Figs. 13-15 with migration time and without DP where it ran out of
memory."""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.spatial.lab.adjustment import figures as jf


def _frame() -> pd.DataFrame:
    rows = []
    for mu in (1_000, 5_000):
        for s in range(3):
            for sel, (own_ms, snap_ms, mb, ms) in {
                "DP": (5.0, 50.0, 1.0, 2.0), "GR": (0.2, 0.2, 1.0, 1.0),
                "SI": (0.1, 0.1, 2.0, 3.0), "RA": (0.1, 0.1, 3.0, 4.0),
            }.items():  # fmt: skip
                oom = int(sel == "DP" and mu == 5_000)
                rows.append({"level": "run", "scenario": "drift", "mu": mu, "seed": s,
                             "selector": sel, "select_ms_mean": own_ms,
                             "p2_bytes_mean": mb * 2**20 * (1 + (mu > 1_000)),
                             "p2_migration_ms_mean": ms, "lat_fast": 0.9, "lat_mid": 0.08,
                             "lat_slow": 0.02, "oom": oom})  # fmt: skip
                rows.append({"level": "selection", "scenario": "drift", "mu": mu, "seed": s,
                             "selector": sel, "select_ms_mean": snap_ms, "oom": oom})  # fmt: skip
    return pd.DataFrame(rows)


def test_fig12_draws_the_snapshots_and_distinct_colours() -> None:
    fig = jf.fig12_selection(_frame(), 1_000)
    sel = fig.data[0]
    assert list(sel.x) == ["DP", "GR", "SI", "RA"]
    assert list(sel.y) == [50.0, 0.2, 0.1, 0.1]  # the snapshots' times, not each run's own
    size, time = fig.data[1], fig.data[2]
    assert list(size.y) == [1.0, 1.0, 2.0, 3.0] and list(time.y) == [2.0, 1.0, 3.0, 4.0]
    colours = [size.marker.color] + [t.marker.color for t in fig.data[3:]]
    assert len(set(colours)) == len(colours) == 4  # MB and every latency bucket apart
    assert fig.layout.yaxis3.nticks == 5  # the ms axis: a few round ticks


def test_fig13_15_leave_out_dp_where_it_ran_out_of_memory() -> None:
    fig = jf.fig13_15_query_counts(_frame())
    titles = [a.text for a in fig.layout.annotations]
    assert "ms per migration" in titles  # Fig. 14's migration time
    dp = [t for t in fig.data if t.name == "DP"]
    assert len(dp) == 4
    for t in dp:  # drawn at 1,000, not at 5,000 where it gave up
        y = np.asarray(t.y, dtype=float)
        assert not np.isnan(y[0]) and np.isnan(y[1])
    note = next(a.text for a in fig.layout.annotations if a.text.startswith("DP: out of memory"))
    assert note == "DP: out of memory at 5,000 queries (not drawn)"
    gr = next(t for t in fig.data if t.name == "GR")
    assert list(gr.y) == [0.2, 0.2]  # selection time from the snapshots


def test_fig13_15_selection_time_at_every_count_from_the_snapshots() -> None:
    f = _frame()
    # at the larger count only GR ran in full; its snapshots timed all four
    f = f[~((f.level == "run") & (f.mu == 5_000) & (f.selector != "GR"))]
    fig = jf.fig13_15_query_counts(f)
    si = [t for t in fig.data if t.name == "SI"]
    assert list(si[0].x) == [1_000, 5_000] and list(si[0].y) == [0.1, 0.1]
    assert list(si[1].x) == [1_000]  # its migration size: where it ran in full
