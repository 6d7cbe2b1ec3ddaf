"""Subcommands of the ``routelab`` CLI, one module each, each with ``register(subparsers)``.

``datasets.py`` (list, fetch, prepare the pinned real data), ``preprocess.py`` (posts -> word
sets), ``stats.py`` (S3-TM Table 1), ``subscriptions.py`` (tweet/topic subscriptions),
``generate.py`` (synthetic posts and key streams), ``figures.py`` (run the notebooks),
``claims.py`` (every notebook's claims table), ``filtering.py`` (Fabret et al.'s matchers on
neutral CSV files),
``bench.py`` (benchmarks). :mod:`routelab.cli` lists the modules it loads.
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
