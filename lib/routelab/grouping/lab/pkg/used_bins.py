"""PKG notebook 07, Sect. IV-A "used bins": the Spark task measuring how many of the two
choices are used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    pass


def used_bins_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Sect. IV-A: ``n`` uniform keys on ``n`` workers, over ``n_seeds`` seeds (one sweep
    point per ``n_workers``). Per seed: the fraction of workers that are a hash choice of
    some key (expected ``1 - (1 - 1/n)^(2n) ~ 1 - 1/e^2``), and PKG's final imbalance
    against the bound ``m/|B| - m/n`` that follows from all messages landing in ``B``."""
    from routelab.grouping.metrics import choice_coverage
    from routelab.grouping.schemes_kernel import pkg_global_kernel

    n = int(params["n_workers"])
    per_key = int(params.get("messages_per_key", 20))
    rows = []
    for seed in range(int(params.get("n_seeds", 10))):
        keys = np.random.default_rng([seed, n]).integers(0, n, size=n * per_key)
        used = choice_coverage(keys, n, 2, seed)
        loads = np.bincount(pkg_global_kernel(keys, None, n, seed=seed), minlength=n)
        m = keys.size
        rows.append(
            {
                "seed": seed,
                "used_fraction": used,
                "expected": 1.0 - (1.0 - 1.0 / n) ** (2 * n),
                "scaled_imbalance": (loads.max() - loads.mean()) * n / m,
                "scaled_bound": 1.0 / used - 1.0,
                "loaded_fraction": float(np.mean(loads > 0)),
            }
        )
    return rows
