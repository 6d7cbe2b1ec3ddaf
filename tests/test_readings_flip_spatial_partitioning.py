"""PS2Stream's partitioning readings flipped for a whole run (``ROUTELAB_READING``): each
key's parameter is ours with the variable unset, the alternative where notebooks 11-13 take
it when set, and an explicit argument still wins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.profiles import notebook_defaults, profile_values
from routelab.readings import FLIP_ENV, FLIPS
from routelab.spatial.cost import CostParams
from routelab.spatial.engine import filter_stream, prepare, run_pipeline
from routelab.spatial.gi2 import make_index
from routelab.spatial.grid import BaseGrid
from routelab.spatial.gridt import dispatch_reference, use_hq_filter
from routelab.spatial.hybrid import HybridParams
from routelab.spatial.lab.partitioning.experiments import split_runs
from routelab.spatial.workload import random_workload

NB11 = "11_ps2stream_partitioning"
GRID = BaseGrid(-0.5, -0.5, 10.5, 10.5, 16)


def _setup(seed: int = 0):  # noqa: ANN202
    st = random_workload(seed)
    n_o, n_q = len(st.objects), len(st.queries)
    return prepare(st, GRID, np.arange(n_o // 2), np.arange(n_q // 2), seed=seed)


@pytest.fixture
def unset(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv(FLIP_ENV, raising=False)
    return monkeypatch


def test_the_keys_are_wired() -> None:
    for key in ("units", "basegrid", "gridt", "simkeys", "debiased", "gridgb", "purge", "posting"):
        assert key in FLIPS


def test_units_flip_calibrates_notebook_11s_costs(unset: pytest.MonkeyPatch) -> None:
    assert notebook_defaults(NB11)["cost_units"] == "spec"
    unset.setenv(FLIP_ENV, "units")
    assert notebook_defaults(NB11)["cost_units"] == "calibrated"
    assert profile_values("default", NB11)["cost_units"] == "calibrated"
    assert CostParams(c_m=2.0).c_m == 2.0 and CostParams().c_o == 10.0  # explicit wins


def test_basegrid_flip_gives_both_countries_256_cells_a_side(unset: pytest.MonkeyPatch) -> None:
    assert notebook_defaults(NB11)["g"] == {"US": 256, "GB": 64}
    unset.setenv(FLIP_ENV, "basegrid")
    assert profile_values("default", NB11)["g"] == {"US": 256, "GB": 256}
    assert profile_values("smoke", NB11)["g"] == {"US": 64, "GB": 32}  # a profile's value wins


def test_gridt_flip_routes_objects_with_h_o(unset: pytest.MonkeyPatch) -> None:
    setup = _setup()
    assert use_hq_filter() is True and filter_stream(setup)[0].use_filter is True
    unset.setenv(FLIP_ENV, "gridt")
    assert use_hq_filter() is False
    f, _ = filter_stream(setup)
    assert f.use_filter is False
    assert filter_stream(setup, use_filter=True)[0].use_filter is True  # explicit wins
    from routelab.spatial.engine import build_partition

    part, _ = build_partition(setup, "kd-tree", 2)
    res = run_pipeline(setup, part, filtered=(f, 0.0))  # the notebook's shared pass agrees
    assert res.info["discarded"] == 0
    st = setup.stream
    r = dispatch_reference(part, GRID.g, st.kind, st.ref, setup.obj_cell, st.objects,
                           st.queries, setup.q_range)  # fmt: skip
    assert r.discarded == 0


def test_similarity_flips_reach_hybrid_params_and_notebook_11(unset: pytest.MonkeyPatch) -> None:
    nb = notebook_defaults(NB11)
    assert (nb["query_terms"], nb["similarity"]) == ("all", "plugin")
    assert (HybridParams().query_terms, HybridParams().similarity) == ("all", "plugin")
    unset.setenv(FLIP_ENV, "simkeys")
    assert HybridParams().query_terms == "registering" and HybridParams().similarity == "plugin"
    assert notebook_defaults(NB11)["query_terms"] == "registering"
    assert HybridParams(query_terms="all").query_terms == "all"  # explicit wins
    unset.setenv(FLIP_ENV, "debiased")
    assert HybridParams().similarity == "debiased" and HybridParams().query_terms == "all"
    assert notebook_defaults(NB11)["similarity"] == "debiased"
    assert HybridParams(similarity="plugin").similarity == "plugin"  # explicit wins


def test_gridgb_flip_fixes_the_grid_baseline_at_32(unset: pytest.MonkeyPatch) -> None:
    assert notebook_defaults(NB11)["grid_gb"] == [16, 32, 64]
    unset.setenv(FLIP_ENV, "gridgb")
    assert profile_values("default", NB11)["grid_gb"] == [32]
    assert profile_values("smoke", NB11)["grid_gb"] == [16, 32]  # a profile's value wins


def test_purge_flip_never_sweeps(unset: pytest.MonkeyPatch) -> None:
    st = random_workload(0)
    cells = np.zeros(len(st.objects), dtype=np.int64)
    args = (st.objects, st.queries, cells, len(st.vocab))
    assert make_index("kernel", *args).purge_fraction == 0.1
    assert make_index("reference", *args).purge_fraction == 0.1
    unset.setenv(FLIP_ENV, "purge")
    assert make_index("kernel", *args).purge_fraction == float("inf")
    assert make_index("reference", *args).purge_fraction == float("inf")
    assert make_index("kernel", *args, purge_fraction=0.1).purge_fraction == 0.1  # explicit


def test_posting_flip_charges_updates_per_posting(unset: pytest.MonkeyPatch) -> None:
    c = CostParams()
    assert (c.update_unit, c.c_ins, c.c_del) == ("query", 10.0, 10.0)
    unset.setenv(FLIP_ENV, "posting")
    c = CostParams()
    assert (c.update_unit, c.c_ins, c.c_del) == ("posting", 1.0, 1.0)
    assert c.model == "gi2_checks" and c.c_o == 10.0
    assert CostParams(update_unit="query", c_ins=10.0).update_unit == "query"  # explicit wins
    assert _setup().stats.costs.per_posting  # notebook 13's setups take CostParams()
    # notebook 11: a run whose own rows are posting rows reads them as its main frame
    runs = pd.DataFrame({"units": ["posting"] * 2, "n_workers": [8, 4],
                         "query_set": ["Q1", "Q3"], "algorithm": ["hybrid", "kd-tree"],
                         "country": ["GB", "GB"]})  # fmt: skip
    frames = split_runs(runs, 8, ["GB"])
    assert len(frames.main) == 2 and len(frames.posting) == 0 and len(frames.at_n) == 1


def test_split_runs_unchanged_without_a_flip(unset: pytest.MonkeyPatch) -> None:
    runs = pd.DataFrame({"units": ["query", "posting"], "n_workers": [8, 8],
                         "query_set": ["Q3", "Q3"], "algorithm": ["hybrid", "hybrid"],
                         "country": ["GB", "GB"]})  # fmt: skip
    frames = split_runs(runs, 8, ["GB"])
    assert list(frames.main.units) == ["query"] and list(frames.posting.units) == ["posting"]
