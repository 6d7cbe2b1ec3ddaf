"""Argument checks shared by every module: one clear ``ValueError`` naming the argument.

Generators, workloads and algorithm parameters validate their numbers here, so a wrong
value fails at the call with the argument's name rather than deep inside a kernel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def check_int(name: str, value: Any, minimum: int) -> int:
    """``value`` as an ``int`` >= ``minimum``, else a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_float(
    name: str, value: Any, minimum: float | None = None, *, inclusive: bool = True
) -> float:
    """``value`` as a finite ``float`` (>= or > ``minimum``), else a ValueError."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if minimum is None:
        return number
    if number < minimum or (not inclusive and number == minimum):
        sign = ">=" if inclusive else ">"
        raise ValueError(f"{name} must be a finite number {sign} {minimum}, got {value!r}")
    return number


def check_seed(seed: Any) -> int:
    """A seed: a non-negative integer (``numpy.random.SeedSequence`` needs one)."""
    return check_int("seed", seed, 0)


def check_choice(name: str, value: Any, options: tuple[str, ...]) -> str:
    """``value`` if it is one of ``options``, else a ValueError listing them."""
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)}; got {value!r}")
    return value
