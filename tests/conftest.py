"""Shared fixtures: one local[2] Spark session for the whole test run, UI off."""

from __future__ import annotations

import os

import pytest

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
