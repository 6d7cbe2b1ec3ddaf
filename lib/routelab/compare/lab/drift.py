"""The cost of adapting to the stream's drift, window by window.

For one router at N workers: the configuration learned once, on the first windows
(:func:`routelab.compare.routers.route`), against one re-learned before every window on
the window just before it (the stream cut to those two windows). Per window: both
imbalances and the seconds the re-learning took. A system whose adapter
``learns_online`` (key grouping: PKG, D-C, W-C and FISH adapt message by message) has
nothing to re-learn: its two series are the same run, and its row says so (``online``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.compare.interests import Interests
from routelab.compare.routers import SYSTEMS_BY_NAME, route, system_named

#: the router of each system whose adaptation is measured (each adapter's ``drift_router``)
DRIFT_ROUTERS = tuple((s.name, s.drift_router) for s in SYSTEMS_BY_NAME.values())


def drift_rows(
    system: str,
    router: str,
    n_workers: int,
    stream: pd.DataFrame,
    interests: Interests,
    *,
    train_windows: int = 3,
    seed: int = 0,
) -> list[dict]:
    """One row per window after the training ones: ``static`` (learned once),
    ``adapted`` (re-learned on the previous window), ``relearn_s``."""
    once = route(
        system, router, n_workers, stream, interests, train_windows=train_windows, seed=seed
    )
    online = system_named(system).learns_online
    static = once.window_imbalance()
    windows = len(static)
    rows = []
    for w in range(train_windows, windows):
        if online:
            adapted, secs = float(static[w]), 0.0
        else:
            part = stream[stream["window"].isin([w - 1, w])].copy()
            part["window"] = (part["window"] == w).astype(np.int64)
            again = route(system, router, n_workers, part.reset_index(drop=True), interests,
                          train_windows=1, seed=seed)  # fmt: skip
            adapted, secs = float(again.window_imbalance()[1]), again.learn_s
        rows.append({"system": system, "router": router, "n_workers": n_workers, "window": w,
                     "static": float(static[w]), "adapted": adapted, "relearn_s": secs,
                     "online": online})  # fmt: skip
    return rows
