"""Run profiles: the parameters each notebook gets under ``smoke``, ``default``, ``paper``.

- ``smoke``: seconds per notebook, small samples; used by the test suite.
- ``default``: the bundled real data; all figures in about 30 minutes on 2 cores. A
  notebook's ``parameters`` cell holds exactly these values, so running it by hand in
  JupyterLab gives the default profile.
- ``paper``: paper scale (1M+ posts, 256 nodes, 10M subscriptions); hours, for a cluster.

The runner passes ``profile`` plus the notebook's entry below as papermill parameters;
a notebook absent from a profile gets only ``profile``.
"""

from __future__ import annotations

from typing import Any

PROFILE_NAMES = ("smoke", "default", "paper")

PROFILES: dict[str, dict[str, dict[str, Any]]] = {
    "smoke": {
        "01_corpus": {"max_posts": 3000},
        "02_subscriptions": {
            "max_posts": 3000,
            "n_topics": 10,
            "n_subscriptions": 500,
            "lda_passes": 1,
        },
    },
    "default": {
        "01_corpus": {"max_posts": None},
        "02_subscriptions": {
            "max_posts": None,
            "n_topics": 100,
            "n_subscriptions": 10000,
            "lda_passes": 5,
        },
    },
    "paper": {
        "01_corpus": {"max_posts": None, "synthetic_posts": 1_000_000},
        "02_subscriptions": {
            "max_posts": None,
            "n_topics": 100,
            "n_subscriptions": 1_000_000,
            "lda_passes": 10,
        },
    },
}


def parameters_for(profile: str, notebook: str) -> dict[str, Any]:
    """The papermill parameters of ``notebook`` under ``profile`` (always incl. ``profile``)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILE_NAMES)}")
    return {"profile": profile, **PROFILES[profile].get(notebook, {})}
