"""Subcommands of the ``routelab`` CLI, one module each, each with ``register(subparsers)``."""

from __future__ import annotations

import argparse


def add_master_option(parser: argparse.ArgumentParser) -> None:
    """``--master``: the Spark master URL every Spark-backed command accepts."""
    parser.add_argument(
        "--master",
        default=None,
        help="Spark master URL (default: $ROUTELAB_SPARK_MASTER or local[*])",
    )
