"""Every registered benchmark resolves to a callable; rows render as a table."""

from __future__ import annotations

import importlib

from routelab.benchmarks import BENCHMARKS, format_rows


def test_every_benchmark_resolves():
    for name, (module, func, desc) in BENCHMARKS.items():
        assert callable(getattr(importlib.import_module(module), func)), name
        assert desc


def test_format_rows():
    text = format_rows(
        [
            {
                "bench": "x",
                "what": "w",
                "value": 2.0,
                "unit": "u",
                "baseline": 1.0,
                "ratio": 2.0,
                "goal": 1.5,
                "meets_goal": True,
            }
        ]
    )
    assert "ratio" in text and "2.00" in text
    assert format_rows([]) == "(no rows)"
