"""Readings across the systems (notebook 13, beyond the papers) pinned: the documented
defaults of the common stream and interests, and what the square's side means."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from routelab.compare.interests import make_interests
from routelab.compare.stream import common_stream
from routelab.spatial.grid import square_rect


def _default(func, name: str):
    return inspect.signature(func).parameters[name].default


def test_interests_are_400_km_squares_and_8_hour_windows() -> None:
    """One stream, one set of interests: PS2Stream's interest is a 400 km square around a
    metro, Fabret's an 8-hour window (defaults ``side_km=400``, ``hour_span=8``).

    At the equator a 400 km square spans 400 / 111.32 = 3.593 degrees each way (half
    1.7966); at latitude 60 its longitude span doubles (cos 60 = 1/2). The interests
    themselves need the corpus' topic model, so the defaults are pinned by value."""
    assert _default(make_interests, "side_km") == 400.0
    assert _default(make_interests, "hour_span") == 8
    rect = square_rect(np.array([10.0, 10.0]), np.array([0.0, 60.0]), np.array([400.0, 400.0]))
    assert rect[0].tolist() == pytest.approx([8.2034, -1.7966, 11.7966, 1.7966], abs=1e-4)
    assert rect[1, 2] - rect[1, 0] == pytest.approx(2 * 3.5932, abs=1e-3)


def test_week_by_week_is_twelve_equal_windows() -> None:
    """ "Week by week": the time order cut into ``windows`` = 12 equal windows (the
    stream is built from the bundled corpus, so the default is pinned by value); fewer
    than two windows are refused before any data is read."""
    assert _default(common_stream, "windows") == 12
    with pytest.raises(ValueError, match="windows must be >= 2"):
        common_stream(windows=1)
