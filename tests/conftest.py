"""Shared fixtures: one local[2] Spark session for the whole test run, UI off."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# property tests draw the same examples on every machine (a CI run is reproducible);
# HYPOTHESIS_PROFILE=explore draws fresh ones for a local bug hunt
settings.register_profile("routelab", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "routelab"))

os.environ.setdefault("ROUTELAB_SPARK_MASTER", "local[2]")
os.environ.setdefault("ROUTELAB_SPARK_UI", "0")
os.environ.setdefault("ROUTELAB_SHUFFLE_PARTITIONS", "4")
os.environ.setdefault("ROUTELAB_DRIVER_MEMORY", "2g")


@pytest.fixture(scope="session")
def spark():
    """The one Spark session of this test run (``local[2]``, UI off)."""
    from routelab.spark import get_spark

    session = get_spark(master="local[2]", app_name="routelab-tests")
    yield session
    session.stop()
