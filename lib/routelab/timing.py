"""Timing on a shared machine: one timed region at a time.

Sweeps run their grid points as Spark tasks, two at once on a 2-core machine; a kernel timed
while another task is timing its own would measure the contention, not the algorithm.
:func:`timing_lock` serialises the timed regions of every process on this machine (an
exclusive ``flock``); generating workloads and building indexes still run in parallel.
"""

from __future__ import annotations

import contextlib
import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = "routelab-timing.lock"


def lock_path() -> Path:
    """The lock file every routelab process on this machine shares."""
    return Path(tempfile.gettempdir()) / LOCK_NAME


@contextlib.contextmanager
def timing_lock() -> Iterator[None]:
    """Hold the machine's timing lock for the ``with`` block (blocks until it is free)."""
    with lock_path().open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
