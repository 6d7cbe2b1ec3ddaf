"""Run profiles: the parameters each notebook gets under ``smoke``, ``default``, ``paper``.

- ``smoke``: seconds per notebook, small samples; used by the test suite.
- ``default``: the bundled real data; all figures in about 30 minutes on 2 cores. The
  default profile *is* each notebook's ``parameters`` cell: running a notebook by hand in
  JupyterLab gives it, and the runner injects nothing but ``profile``.
- ``paper``: paper scale (1M+ posts, 256 nodes, 10M subscriptions); hours, for a cluster.

The runner passes ``profile`` plus the notebook's overrides below as papermill parameters.
Keys must be names defined in the notebook's ``parameters`` cell (a test checks this).
"""

from __future__ import annotations

from typing import Any

PROFILE_NAMES = ("smoke", "default", "paper")

OVERRIDES: dict[str, dict[str, dict[str, Any]]] = {
    "smoke": {
        "01_corpus": {"max_posts": 3000, "synthetic_posts": 5000},
        "02_subscriptions": {"max_posts": 4000, "n_topics": 10, "n_subscriptions": 500,
                             "lda_passes": 1},
    },
    "default": {},
    "paper": {
        "01_corpus": {"synthetic_posts": 1_000_000},
        "02_subscriptions": {"n_subscriptions": 1_000_000, "lda_passes": 10},
    },
}


def parameters_for(profile: str, notebook: str) -> dict[str, Any]:
    """The papermill parameters of ``notebook`` under ``profile`` (always incl. ``profile``)."""
    if profile not in OVERRIDES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILE_NAMES)}")
    return {"profile": profile, **OVERRIDES[profile].get(notebook, {})}
