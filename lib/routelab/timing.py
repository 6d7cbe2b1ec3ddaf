"""Timing on a shared machine: one timed region at a time.

Sweeps run their grid points as Spark tasks, two at once on a 2-core machine; a kernel timed
while another task is timing its own would measure the contention, not the algorithm.
:func:`timing_lock` serialises the timed regions of every process on this machine (an
exclusive ``flock``); generating workloads and building indexes still run in parallel.

**The clock** (READINGS.md, "The clock of a timed region"). Every timed region a claim grades
reads :func:`now`: by default the CPU time of the calling thread (``time.thread_time``,
user + system), not the wall clock. Neither paper names its clock; where nothing else
runs, a single-threaded region's CPU time and its wall time agree; on a shared 2-core machine the
wall clock also counts the time a region waited for a core that another process held (a
notebook beside it, Spark's JVM, the host), which is the machine's load, not the algorithm's
work. The lock above keeps two timed regions apart; the CPU clock keeps untimed work out of
a timed region. What CPU time still carries from the machine is the contention for caches
and memory bandwidth. Every timed region is single-threaded (numba kernels without
``parallel``, numpy without BLAS); a region that waits for another process (a Spark job timed
from the driver, a notebook's wall time) reads ``time.perf_counter`` directly.
``use_clock("wall")`` (or ``ROUTELAB_CLOCK=wall`` in the environment, or the reading flipped
for a whole run, ``ROUTELAB_READING=clock``) switches back to the wall clock, for this process
and, from the next ``get_spark`` call, its Spark tasks (handed ``ROUTELAB_CLOCK``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from routelab.paths import file_lock
from routelab.readings import pick

LOCK_NAME = "routelab-timing.lock"

#: the clocks a timed region can read: seconds, differences only
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.thread_time, "wall": time.perf_counter}
CLOCK_ENV = "ROUTELAB_CLOCK"


def _clock_from_env() -> str:
    """The clock named by ``ROUTELAB_CLOCK``; without it, "cpu" (our reading) or "wall"
    when the reading is flipped for the run (``ROUTELAB_READING=clock``)."""
    name = os.environ.get(CLOCK_ENV) or pick("clock", "cpu", "wall")
    if name not in CLOCKS:
        raise ValueError(f"{CLOCK_ENV}={name!r}: choose one of {', '.join(CLOCKS)}")
    return name


_clock = _clock_from_env()
_read = CLOCKS[_clock]


def now() -> float:
    """The clock of timed regions, in seconds (differences only): the calling thread's CPU
    time unless :func:`use_clock` chose the wall clock."""
    return _read()


def clock_name() -> str:
    """Which clock :func:`now` reads: "cpu" or "wall" (results.json records it)."""
    return _clock


def use_clock(name: str = "cpu") -> None:
    """Read ``name`` ("cpu", the default, or "wall") from now on in this process. Spark
    tasks follow from the next :func:`routelab.spark.get_spark` call on: it hands
    ``ROUTELAB_CLOCK`` to the tasks of jobs built after it (a session started later inherits
    the variable this call sets)."""
    global _clock, _read
    if name not in CLOCKS:
        raise ValueError(f"unknown clock {name!r}: choose one of {', '.join(CLOCKS)}")
    _clock, _read = name, CLOCKS[name]
    os.environ[CLOCK_ENV] = name


def lock_path() -> Path:
    """The lock file every routelab process on this machine shares."""
    return Path(tempfile.gettempdir()) / LOCK_NAME


@contextlib.contextmanager
def timing_lock() -> Iterator[None]:
    """Hold the machine's timing lock for the ``with`` block (blocks until it is free)."""
    with file_lock(lock_path()):
        yield
