"""Notebook 13's grid as Spark sweep tasks (:func:`routelab.sweep.run_grid`).

The driver builds the common stream and the topic model once (:func:`load_data`: both
cached on disk, the stream given its posts' topics); each task reads them back, draws the interests (seeded) and runs one
router at one N (:func:`router_point`) or one router's window-by-window adaptation
(:func:`drift_point`). On a cluster the prepared data directory must be shared.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from routelab.compare.interests import Interests, make_interests, post_topics
from routelab.compare.lab.drift import DRIFT_ROUTERS, drift_rows
from routelab.compare.routers import ROUTERS, route
from routelab.compare.stream import common_stream
from routelab.readings import pick

#: the data parameters every task receives (:func:`data_params`)
DATA_KEYS = ("max_posts", "n_interests", "windows", "train_windows", "n_topics", "seed")

#: "week by week" (READINGS.md): the time order cut into 12 equal windows (our reading), or,
#: under ``ROUTELAB_READING=weeks``, into as many as the calendar weeks the bundled tweets
#: span (440, a week's posts each on average)
WINDOWS, CALENDAR_WEEKS = 12, 440


def data_params(
    max_posts: int | None,
    n_interests: int,
    windows: int | None,
    train_windows: int,
    n_topics: int,
    seed: int,
) -> dict[str, Any]:
    """The data parameters of one notebook run; ``windows`` None is the reading's
    (:data:`WINDOWS`, or :data:`CALENDAR_WEEKS` under ``ROUTELAB_READING=weeks``)."""
    windows = pick("weeks", WINDOWS, CALENDAR_WEEKS) if windows is None else windows
    if not 1 <= train_windows < windows:
        raise ValueError(f"need 1 <= train_windows < windows, got {train_windows}, {windows}")
    return {"max_posts": max_posts, "n_interests": n_interests, "windows": windows,
            "train_windows": train_windows, "n_topics": n_topics, "seed": seed}  # fmt: skip


def load_data(params: dict[str, Any], spark: Any = None) -> tuple[pd.DataFrame, Interests]:
    """The stream and the interests of ``params`` (built and cached on first use); the
    stream carries each post's topic (``topic``, :func:`post_topics`), computed once here
    for every router and window that reads it. PS2Stream's square is
    :func:`make_interests`' (400 km), or 50 km under ``ROUTELAB_READING=interests`` (the
    largest of PS2Stream's own Q1 squares, Sect. VI-A)."""
    stream = common_stream(spark, params.get("max_posts"), seed=int(params["seed"]),
                           windows=int(params["windows"]))  # fmt: skip
    square = pick("interests", {}, {"side_km": 50.0})
    interests = make_interests(stream, int(params["n_interests"]), seed=int(params["seed"]),
                               n_topics=int(params["n_topics"]), **square)  # fmt: skip
    return stream.assign(topic=post_topics(stream, interests.model)), interests


def router_point(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One router at one N (a Spark task)."""
    stream, interests = load_data(params)
    r = route(params["system"], params["router"], int(params["n_workers"]), stream, interests,
              train_windows=int(params["train_windows"]), seed=int(params["seed"]))  # fmt: skip
    return [r.row()]


def drift_point(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One router's window-by-window adaptation at one N (a Spark task)."""
    stream, interests = load_data(params)
    return drift_rows(params["system"], params["router"], int(params["n_workers"]), stream,
                      interests, train_windows=int(params["train_windows"]),
                      seed=int(params["seed"]))  # fmt: skip


def router_points(data: dict[str, Any], workers: list[int]) -> list[dict[str, Any]]:
    """Every router of :data:`ROUTERS` at every N."""
    return [{**data, "system": s, "router": r, "n_workers": n}
            for s, routers in ROUTERS.items() for r in routers for n in workers]  # fmt: skip


def drift_points(data: dict[str, Any], n_workers: int) -> list[dict[str, Any]]:
    """The adaptation of each system's router of :data:`DRIFT_ROUTERS` at one N."""
    return [{**data, "system": s, "router": r, "n_workers": n_workers} for s, r in DRIFT_ROUTERS]


def run(
    task: Any,
    points: list[dict[str, Any]],
    *,
    spark: Any = None,
    local: bool = False,
    desc: str = "routers",
) -> pd.DataFrame:
    """``points`` through ``task`` as Spark tasks; the data parameters dropped."""
    from routelab.sweep import run_grid

    frame = run_grid(task, points, spark=spark, local=local, desc=desc)
    return frame.drop(columns=[c for c in DATA_KEYS if c in frame.columns])
