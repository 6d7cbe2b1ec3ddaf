"""Run profiles: the parameters each notebook gets under ``smoke``, ``default``, ``paper``.

- ``smoke``: a minute or two per notebook, small samples; used by the test suite.
- ``default``: the bundled real data; all figures took 89 minutes on one 2-core machine and
  about 39 on another (times differ between machines; ``routelab figures`` estimates the
  time left from the last runs recorded here). The default profile *is* each notebook's
  ``parameters`` cell.
- ``paper``: paper scale (1M+ posts, 256 nodes, 10M subscriptions); hours, for a cluster.

A profile means the same thing however a notebook is run (JupyterLab, ``papermill -p profile
smoke``, ``routelab figures --profile smoke``): the cell right after ``parameters`` calls
:func:`apply_profile`, which replaces every parameter the profile overrides **unless it was
set explicitly** (a value different from the parameters cell's default wins), and prints
what it changed. The runner passes nothing but ``profile`` (and the user's own ``-p``).
Keys must be names defined in the notebook's ``parameters`` cell (a test checks this).
"""

from __future__ import annotations

from typing import Any

PROFILE_NAMES = ("smoke", "default", "paper")

OVERRIDES: dict[str, dict[str, dict[str, Any]]] = {
    "smoke": {
        "11_ps2stream_partitioning": {
            "n_objects": {"US": 8_000, "GB": 5_000},
            "mu": {"US": 400, "GB": 250},
            "g": {"US": 64, "GB": 32},
            "workers": 4,
            "scal_workers": [2],
            "n_dispatchers": 2,
            "grid_gb": [16, 32],
            "sample_min": 4_000,
            "seeds": [0],
        },
        "13_five_routers": {
            "max_posts": 4_000,
            "n_interests": 300,
            "n_topics": 20,
            "workers": [4, 8, 32],
            "windows": 6,
            "train_windows": 2,
        },
        "12_ps2stream_adjustment": {
            "n_objects": 10_000,
            "mus": [1_000, 3_000],
            "workers": 4,
            "period": 3_000,
            "flip_every": 1_000,
            "seeds": [0, 1, 2],
            "fig16_seeds": [0, 1, 2],
            "global_seeds": [0, 1, 2],
        },
        "10_fabret_adaptivity": {
            "n_live": 6_000,
            "tick_h": 1.0,
            "events_per_tick": 200,
            "churn_live": 5_000,
            "churn_rates": [100, 1_000, 10_000],
            "churn_seconds": 1,
            "churn_seeds": [0, 1, 2],
            "real_n": 2_000,
            "real_repeats": 3,
            "routing_n": 5_000,
            "routing_events": 300,
            "routing_partitions": [2, 4],
            "seeds": [0, 1, 2],
        },
        "09_fabret_matching": {
            "sizes": [2_000, 5_000, 10_000],
            "big_n": 0,
            "operator_sizes": [2_000, 5_000],
            "sweep_n": 2_000,
            "side_n": 3_000,
            "repeats": 3,
        },
        "08_fish": {
            "spread_seeds": [0, 1],
            "workers": [4, 8],
            "real_limit": 3000,
            "flights_limit": 5000,
            "zipf_messages": 10_000,
            "zipf_keys": 1000,
            "zipf_skews": [0.8, 1.4],
            "study_workers": [8],
            "decays": [0.0, 0.5, 1.0],
            "hot_thresholds": [1.0, 0.2],
            "event_workers": 8,
        },
        "01_corpus": {"max_posts": 3000, "synthetic_posts": 5000},
        "02_subscriptions": {
            "max_posts": 4000,
            "n_topics": 10,
            "n_subscriptions": 500,
            "lda_passes": 1,
        },
        "07_pkg": {
            "streams": ["tweet_words", "ln2"],
            "synthetic_messages": 20_000,
            "real_limit": 3000,
            "workers": [5, 50],
            "sources": [5],
            "timeline_streams": ["tweet_words", "flights_origins"],
            "timeline_workers": [10],
            "delays_ms": [0.1, 1.0],
            "aggregation_periods": [5, 20],
            "bins_sizes": [10, 100],
            "bins_seeds": 3,
        },
        "05_drift": {
            "n_windows": 4,
            "window_posts": 400,
            "n_topics": 5,
            "lda_passes": 1,
            "n_subscriptions": 500,
            "synthetic_window_posts": 400,
        },
        "06_shedding": {
            "max_posts": 3000,
            "n_subscriptions": 1000,
            "n_topics": 5,
            "lda_passes": 1,
            "max_threshold": 8,
        },
        "04_matching": {
            "max_posts": 3000,
            "sizes": [100, 1000, 5000],  # 5000 > the 3000 posts: crosses into synthetic
            "n_folds": 3,
            "folds": [0],
            "fig3_sizes": [30, 100, 300],
            "placement_sizes": [100, 1000],
            "dataflow_subs": 300,
            "dataflow_posts": 300,
            "stream_files": 2,
            "n_topics": 10,
            "lda_passes": 1,
        },
        "03_routing": {
            "max_posts": 3000,
            "n_folds": 3,
            "nodes": [2, 8, 32],
            "n_subscriptions": 500,
            "n_topics": 10,
            "lda_passes": 1,
            "synthetic_subscriptions": 300,
            "ablation_nodes": [32],
            "ablation_folds": 2,
            "curve_sizes": [1000, 3000],
            "curve_test_posts": 1000,
            "curve_nodes": 8,
            "curve_repeats": 2,
            "timing_sizes": [1000, 2000, 3000],
            "timing_nodes": 8,
            "source_folds": 2,
            "real_curve_sizes": [300, 1000],
            "real_timing_sizes": [500, 1000],
            "load_nodes": [8, 32],
            "load_cost_sizes": [30, 100, 300],
        },
    },
    "default": {},
    "paper": {
        "11_ps2stream_partitioning": {
            "n_objects": {"US": 2_000_000, "GB": 1_000_000},
            "mu": {"US": 1_000_000, "GB": 500_000},
            "scal_workers": [4, 12, 16, 20, 24],
            "seeds": [0, 1, 2, 3, 4],
        },
        "12_ps2stream_adjustment": {
            "n_objects": 2_000_000,
            "mus": [1_000_000, 5_000_000],
            "period": 200_000,
        },
        "10_fabret_adaptivity": {
            "n_live": 3_000_000,
            "tick_h": 0.1,
            "seeds": [0, 1, 2, 3, 4],
            "churn_live": 1_000_000,
            "churn_rates": [100, 1_000, 10_000, 100_000, 300_000, 1_000_000],
            "real_n": 200_000,
            "routing_n": 1_000_000,
            "routing_partitions": [2, 4, 8, 16],
        },
        "09_fabret_matching": {
            "sizes": [100_000, 500_000, 1_000_000, 2_000_000, 3_000_000, 4_000_000, 5_000_000],
            "operator_sizes": [500_000, 1_000_000, 2_000_000, 3_000_000],
            "sweep_n": 3_000_000,
        },
        "03_routing": {
            "n_folds": 10,
            "source_folds": 3,
            "timing_repeats": 5,
            "synthetic_dataset_posts": 1_000_000,
            "ablation_folds": 10,
            "lda_passes": 10,
            "curve_test_posts": 100_000,
            "curve_repeats": 5,
            "curve_sizes": [10_000, 30_000, 100_000, 300_000, 500_000, 1_000_000, 2_000_000],
            "timing_sizes": [62_500, 125_000, 250_000, 500_000, 1_000_000, 2_000_000],
        },
        "08_fish": {
            "zipf_messages": 10_000_000,
            "flights_limit": None,
            "study_workers": [16, 32, 64, 128],
            "decays": [0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 0.9, 1.0],
        },
        "01_corpus": {"synthetic_posts": 1_000_000},
        "02_subscriptions": {"n_subscriptions": 1_000_000, "lda_passes": 10},
        "07_pkg": {
            "synthetic_messages": 10_000_000,
            "sources": [5, 10, 15, 20],
            "bins_sizes": [10, 100, 1000, 10_000, 100_000],
            "bins_seeds": 100,
        },
        "05_drift": {"synthetic_window_posts": 100_000, "lda_passes": 10},
        "06_shedding": {"n_subscriptions": 1_000_000, "lda_passes": 10},
        "04_matching": {
            "sizes": [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000],
            "folds": list(range(10)),
            "placement_sizes": [10_000, 100_000, 1_000_000, 10_000_000],
            "dataflow_subs": 1_000_000,
            "dataflow_posts": None,
            "stream_files": 20,
            "lda_passes": 10,
        },
    },
}


def check_profile(profile: str) -> str:
    """``profile`` if it names a profile, else a ValueError listing the profiles."""
    if profile not in OVERRIDES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILE_NAMES)}")
    return profile


def parameters_for(profile: str, notebook: str) -> dict[str, Any]:
    """The papermill parameters the runner passes: only ``profile`` (the notebook's
    :func:`apply_profile` cell applies the profile's values itself)."""
    return {"profile": check_profile(profile)}


def profile_values(profile: str, notebook: str) -> dict[str, Any]:
    """The values ``profile`` gives ``notebook``'s parameters (its parameters cell's
    defaults, with the profile's overrides)."""
    return {**notebook_defaults(notebook), **OVERRIDES[check_profile(profile)].get(notebook, {})}


def notebook_defaults(notebook: str) -> dict[str, Any]:
    """The defaults of ``notebooks/<notebook>.ipynb``'s ``parameters`` cell (the default
    profile), read from the committed notebook."""
    import nbformat

    from routelab.paths import notebooks_dir

    path = notebooks_dir() / f"{notebook}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such notebook (to read its parameters cell)")
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ValueError(f"{path}: expected one cell tagged 'parameters', found {len(cells)}")
    namespace: dict[str, Any] = {}
    exec(compile(cells[0].source, f"{path}:parameters", "exec"), {}, namespace)  # noqa: S102
    return {k: v for k, v in namespace.items() if not k.startswith("_")}


class AppliedValues(dict):
    """The values :func:`apply_profile` applied. As a cell's last expression it shows nothing
    in a notebook: the printed line already says what was applied (no bare ``{}`` output)."""

    def _ipython_display_(self) -> None:
        return None


def apply_profile(
    notebook: str, namespace: dict[str, Any], *, quiet: bool = False
) -> AppliedValues:
    """Apply ``namespace["profile"]`` to a notebook's parameters, in place.

    Call it in the cell right after the ``parameters`` cell as
    ``apply_profile("NN_name", globals())``. Each parameter the profile overrides is replaced
    only if it still equals the parameters cell's default: a value set explicitly (in Lab, by
    ``papermill -p``, by ``routelab figures -p``) wins. (A value set explicitly *to* its
    default cannot be told apart and takes the profile's.) Returns the values applied.
    """
    profile = check_profile(str(namespace.get("profile", "default")))
    defaults = notebook_defaults(notebook)
    applied = AppliedValues()
    kept: dict[str, Any] = {}
    for key, value in OVERRIDES[profile].get(notebook, {}).items():
        if key not in defaults:
            raise KeyError(f"profile {profile!r} sets {key!r}, not a parameter of {notebook}")
        if key in namespace and namespace[key] != defaults[key]:
            kept[key] = namespace[key]
        else:
            namespace[key] = value
            applied[key] = value
    if not quiet:
        parts = [f"profile {profile!r}"]
        if applied:
            parts.append("applied " + ", ".join(f"{k}={v!r}" for k, v in applied.items()))
        if kept:
            parts.append("kept explicit " + ", ".join(f"{k}={v!r}" for k, v in kept.items()))
        if not applied and not kept:
            parts.append("the parameters cell's values")
        print("; ".join(parts))
    return applied
