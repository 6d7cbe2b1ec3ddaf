"""PS2Stream's workload, claim and adjustment readings flipped for a whole run
(``ROUTELAB_READING``, :mod:`routelab.readings`): unset, each parameter is our reading;
flipped, the value the notebook's code path takes is the alternative; an explicit value
still wins."""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np
import pandas as pd
import pytest

from routelab.readings import FLIP_ENV, FLIPS

NB11, NB12 = "11_ps2stream_partitioning", "12_ps2stream_adjustment"


@pytest.fixture
def unset(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv(FLIP_ENV, raising=False)
    return monkeypatch


def test_the_keys_are_flips_of_the_notebooks_they_reach() -> None:
    reach = {"ratio": {NB11, NB12}, "q2rare": {NB11, NB12}, "speed": {NB11}, "fig11": {NB11},
             "similar": {NB11}, "phase1": {NB12}, "gamma": {NB12}, "cpaper": {NB11, NB12}}  # fmt: skip
    for key, books in reach.items():
        assert set(FLIPS[key].notebooks) == books, key


def test_ratio_flip_reads_five_per_update_kind(unset: pytest.MonkeyPatch) -> None:
    from routelab.spatial.lab.workload import WorkloadParams
    from routelab.spatial.workload import queries_for_ratio

    assert WorkloadParams().obj_update_ratio == 5.0
    assert queries_for_ratio(10_000) == 1_000
    unset.setenv(FLIP_ENV, "ratio")
    # notebooks 11 and 12 build WorkloadParams without the ratio (run_algorithms, adjust_point)
    assert WorkloadParams(country="GB", n_objects=10, mu=1).obj_update_ratio == 2.5
    assert queries_for_ratio(10_000) == 2_000
    assert WorkloadParams(obj_update_ratio=5.0).obj_update_ratio == 5.0  # explicit wins
    assert queries_for_ratio(10_000, 5.0) == 1_000
    # the in-process stream cache is keyed by the whole WorkloadParams
    assert WorkloadParams() != WorkloadParams(obj_update_ratio=5.0)


def _objects(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(300)]
    p = 1.0 / np.arange(1, len(vocab) + 1)
    words = [list(rng.choice(vocab, size=4, p=p / p.sum())) for _ in range(n)]
    return pd.DataFrame({"id": np.arange(n), "lon": rng.uniform(-100, -90, n),
                         "lat": rng.uniform(30, 40, n), "words": words})  # fmt: skip


def test_q2rare_flip_draws_one_rare_keyword(unset: pytest.MonkeyPatch) -> None:
    from routelab.profiles import notebook_defaults
    from routelab.spatial.lab.workload import WorkloadParams, make_queries_frame

    objects = _objects()
    ours = make_queries_frame(objects, 200, WorkloadParams(query_set="Q2"))
    assert WorkloadParams().q2_rare == "all"
    assert notebook_defaults(NB11)["q2_rare"] == "all"
    unset.setenv(FLIP_ENV, "q2rare")
    assert notebook_defaults(NB11)["q2_rare"] == "one"  # notebook 11 passes its parameter
    assert WorkloadParams().q2_rare == "one"  # notebook 12's Q3 streams take the default
    flipped = make_queries_frame(objects, 200, WorkloadParams(query_set="Q2"))
    one = make_queries_frame(objects, 200, WorkloadParams(query_set="Q2", q2_rare="one"))
    assert flipped.dnf.tolist() == one.dnf.tolist() != ours.dnf.tolist()
    assert WorkloadParams(q2_rare="all").q2_rare == "all"  # explicit wins


def test_speed_flip_measures_latency_at_half_the_capacity(unset: pytest.MonkeyPatch) -> None:
    from routelab.spatial.lab.partitioning.experiments import latency_load

    assert latency_load({}) == 0.6
    unset.setenv(FLIP_ENV, "speed")
    assert latency_load({"country": "GB"}) == 0.5  # notebook 11's points carry no key
    assert latency_load({"latency_load": 0.6}) == 0.6  # explicit wins


def test_fig11_flip_reads_panel_b_as_uk_q3(unset: pytest.MonkeyPatch) -> None:
    from routelab.spatial.lab.partitioning import claims as sc

    cols = ["country", "query_set", "algorithm", "n_workers", "seed", "throughput_runs"]
    empty = pd.DataFrame(columns=cols)
    ours = sc.fig11_worst_rows(empty)[1]
    assert "does not run UK-Q2" in ours["verdict"].rule
    unset.setenv(FLIP_ENV, "fig11")
    other = sc.fig11_worst_rows(empty)[1]
    assert "does not run UK-Q3" in other["verdict"].rule
    assert other["claim"] == ours["claim"]  # one row under both readings: record compares it
    assert "UK-Q2" in sc.fig11_worst_rows(empty, sc.FIG11_PANELS)[1]["verdict"].rule


def _tol_in_rows(monkeypatch: pytest.MonkeyPatch) -> float:
    """The ``tol`` notebook 11's table (``claims._rows``, graded at every cost) hands C9,
    every other row stubbed."""
    from routelab.spatial.lab.partitioning import claims as sc

    tree = ast.parse(textwrap.dedent(inspect.getsource(sc._rows)))
    called = {n.func.id for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}  # fmt: skip
    seen: list[float] = []
    for name in called - {"c9_metric_latency", "pick"}:
        monkeypatch.setattr(sc, name, lambda *a, **k: [])
    monkeypatch.setattr(sc, "c9_metric_latency", lambda fig7, tol=sc.C9_TOL: seen.append(tol))
    e = pd.DataFrame()
    sc._rows(e, e, e)
    (tol,) = seen
    return tol


def test_similar_flip_widens_c9_to_one_and_a_half(unset: pytest.MonkeyPatch) -> None:
    from routelab.spatial.lab.partitioning import claims as sc

    assert _tol_in_rows(unset) == 1.25
    unset.setenv(FLIP_ENV, "similar")
    assert _tol_in_rows(unset) == 1.5
    assert inspect.signature(sc.c9_metric_latency).parameters["tol"].default == 1.25


def test_phase1_flip_runs_phase_two_alone(unset: pytest.MonkeyPatch) -> None:
    from routelab.spatial.adjustment import AdjustParams

    assert AdjustParams().k_hot == 5
    unset.setenv(FLIP_ENV, "phase1")
    assert AdjustParams(period=100, sigma=1.2, selector="GR").k_hot == 0  # as adjust_point
    assert AdjustParams(k_hot=5).k_hot == 5  # explicit wins


def test_gamma_flip_repartitions_on_any_improvement(unset: pytest.MonkeyPatch) -> None:
    from routelab.spatial.adjustment import AdjustParams
    from routelab.spatial.global_adjust import GlobalParams

    assert GlobalParams(every=10).gamma == 0.1
    unset.setenv(FLIP_ENV, "gamma")
    assert GlobalParams(every=10).gamma == 0.0  # adjust_point's global scenario
    assert AdjustParams().global_params.gamma == 0.0
    assert GlobalParams(every=10, gamma=0.1).gamma == 0.1  # explicit wins


def test_cpaper_flip_grades_at_fifty_microseconds(unset: pytest.MonkeyPatch) -> None:
    from routelab.profiles import notebook_defaults
    from routelab.spatial.lab import regime as rg

    assert notebook_defaults(NB11)["c_paper"] == notebook_defaults(NB12)["c_paper"] == 29.9
    assert rg.C_PAPER_US == 29.9
    unset.setenv(FLIP_ENV, "cpaper")
    # both notebooks pass their parameter to the claims (all_rows, rows) and figures
    assert notebook_defaults(NB11)["c_paper"] == notebook_defaults(NB12)["c_paper"] == 50.0
    assert rg.C_GRID_US[rg.check_cost(50.0)] == 50.0  # a cost every run measures latency at
    assert rg.C_PAPER_US == 29.9  # the library's constant (and explicit values) unchanged
