"""PKG notebook 07: the worked example of Sect. III-A (10 messages, 3 workers, by hand) and
the interactive demo's skewed stream and loads."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    pass


EXAMPLE_STREAM = "AABACABADA"
"""The worked example's 10 messages: key A is hot (p1 = 0.6), B, C, D are rare."""
EXAMPLE_WORKERS = 3
EXAMPLE_SEED = 0


def _key_id(label: str) -> int:
    """Key ``"A"`` is 1, ``"B"`` 2, ...: small stable integer keys for the hash choices."""
    return ord(label) - ord("A") + 1


def two_choice_example(
    stream: str = EXAMPLE_STREAM, n_workers: int = EXAMPLE_WORKERS, seed: int = EXAMPLE_SEED
) -> pd.DataFrame:
    """Hashing (KG) vs PKG message by message (Sect. III-A), small enough to check by hand.

    One row per message: its key, the key's two hash choices ``H1``, ``H2`` (KG always takes
    ``H1``), PKG's loads before routing it, PKG's choice (the less loaded of ``H1``, ``H2``;
    ties to ``H1``, as :func:`routelab.grouping.schemes_reference.least_loaded`) and hashing's.
    """
    from routelab.grouping.schemes_reference import hash_choice, least_loaded

    loads = [0] * n_workers
    rows = []
    for i, label in enumerate(stream, start=1):
        key = _key_id(label)
        h1, h2 = (hash_choice(key, j, n_workers, seed) for j in (0, 1))
        before = "/".join(str(x) for x in loads)
        chosen = least_loaded([h1, h2], loads)
        loads[chosen] += 1
        rows.append(
            {
                "msg": i,
                "key": label,
                "H1": h1,
                "H2": h2,
                "PKG loads before": before,
                "PKG sends to": chosen,
                "hashing sends to": h1,
            }
        )
    return pd.DataFrame(rows).set_index("msg")


def example_loads(example: pd.DataFrame, n_workers: int = EXAMPLE_WORKERS) -> pd.DataFrame:
    """Final load per worker under hashing and PKG for :func:`two_choice_example`, with the
    imbalance ``max - mean`` (Sect. II) in the last column."""
    out = {}
    for name, col in (("hashing", "hashing sends to"), ("PKG", "PKG sends to")):
        loads = np.bincount(example[col].to_numpy(), minlength=n_workers)
        out[name] = {f"worker {w}": int(x) for w, x in enumerate(loads)}
        out[name]["imbalance"] = round(float(loads.max() - loads.mean()), 2)
    return pd.DataFrame.from_dict(out, orient="index")


def skewed_demo_stream(
    n_messages: int = 20_000, n_keys: int = 1000, exponent: float = 0.9, seed: int = 0
) -> np.ndarray:
    """A small Zipf(``exponent``) key stream for the interactive demo (key 0 the hottest;
    with the defaults p1 ~ 0.095, so 1/p1 ~ 10.5)."""
    p = np.arange(1, n_keys + 1, dtype=np.float64) ** -exponent
    rng = np.random.default_rng([seed, n_keys, n_messages])
    return rng.choice(n_keys, size=n_messages, p=p / p.sum()).astype(np.int64)


def demo_loads(keys: np.ndarray, n_workers: int, seed: int = 0) -> pd.DataFrame:
    """Worker loads of hashing and PKG (global load, one source) on ``keys``: columns
    ``worker``, ``scheme``, ``load``."""
    from routelab.grouping.schemes_kernel import kg_kernel, pkg_global_kernel

    rows = []
    for name, route in (("hashing", kg_kernel), ("PKG", pkg_global_kernel)):
        loads = np.bincount(route(keys, None, n_workers, seed=seed), minlength=n_workers)
        rows += [{"worker": w, "scheme": name, "load": int(x)} for w, x in enumerate(loads)]
    return pd.DataFrame(rows)
