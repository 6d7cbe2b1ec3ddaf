"""Subcommands of the ``routelab`` CLI, one module each, each with ``register(subparsers)``.

``datasets.py`` (list, fetch, prepare the pinned real data), ``preprocess.py`` (posts -> word
sets), ``stats.py`` (S3-TM Table 1), ``subscriptions.py`` (tweet/topic subscriptions),
``generate.py`` (synthetic posts and key streams), ``figures.py`` (run the notebooks),
``claims.py`` (every notebook's claims table), ``filtering.py`` (Fabret et al.'s matchers on
neutral CSV files), ``group.py`` (grouping schemes over a user's key stream),
``spatial.py`` (PS2Stream on a user's objects and queries), ``bench.py`` (benchmarks). :mod:`routelab.cli` lists the modules it loads.
"""

from __future__ import annotations

import argparse


def add_master_option(parser: argparse.ArgumentParser) -> None:
    """``--master``: the Spark master URL every Spark-backed command accepts."""
    parser.add_argument(
        "--master",
        default=None,
        help="Spark master URL (default: $ROUTELAB_SPARK_MASTER or local[*])",
    )


def check_output_dir(path: str | None, overwrite: bool) -> None:
    """One policy for every command writing an output directory, checked before Spark
    starts: ``--out`` naming a file is an error; an existing non-empty directory is refused
    unless ``--overwrite``."""
    from pathlib import Path

    from routelab.errors import BadInputError

    if path is None:
        return
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise BadInputError(f"--out {out} is an existing file; give a directory to write")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise BadInputError(
            f"--out {out} already exists and is not empty; add --overwrite to replace it"
        )
