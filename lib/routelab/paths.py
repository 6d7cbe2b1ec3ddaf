"""Where routelab reads and writes: repository root, datasets, figures, papermill runs.

Every location can be overridden with an environment variable so tests and batch runs
can redirect output without touching the checkout:

- ``ROUTELAB_HOME``: the repository root (default: found from this file's location).
- ``ROUTELAB_DATA_DIR``: fetched and prepared datasets (default ``<home>/datasets``).
- ``ROUTELAB_FIGURES_DIR``: generated figures (default ``<home>/figures``).
- ``ROUTELAB_RUNS_DIR``: executed notebooks and run logs (default ``<home>/papermill_runs``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) for the ``with`` block,
    across every process of this machine (``flock``; blocks until it is free)."""
    with Path(path).open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def repo_root() -> Path:
    """The repository root: ``$ROUTELAB_HOME`` or the directory holding ``lib/routelab``."""
    env = os.environ.get("ROUTELAB_HOME")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2]


def _dir(env: str, default: str) -> Path:
    value = os.environ.get(env)
    path = Path(value).resolve() if value else repo_root() / default
    return path


def data_dir() -> Path:
    """Root of fetched and prepared data (``datasets/``)."""
    return _dir("ROUTELAB_DATA_DIR", "datasets")


def cache_dir() -> Path:
    """Downloaded registry packages, checked by sha256 (``datasets/cache``)."""
    return data_dir() / "cache"


def prepared_dir() -> Path:
    """Prepared Parquet files (``datasets/prepared``)."""
    return data_dir() / "prepared"


def figures_dir() -> Path:
    """Generated figures, one folder per notebook (``figures/``)."""
    return _dir("ROUTELAB_FIGURES_DIR", "figures")


def runs_dir() -> Path:
    """Executed notebooks and run logs (``papermill_runs/``)."""
    return _dir("ROUTELAB_RUNS_DIR", "papermill_runs")


def notebooks_dir() -> Path:
    """The committed notebooks (``notebooks/``)."""
    return repo_root() / "notebooks"


@lru_cache(maxsize=1)
def git_commit() -> str:
    """Short git commit of the checkout (``+dirty`` when modified), or ``unknown``."""
    try:
        root = repo_root()
        sha = subprocess.run(
            ["git", "rev-parse", "--short=10", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return sha + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
