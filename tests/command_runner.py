"""Run one ``routelab`` subcommand through its own ``register()``/handler, as routelab.cli
does, but print a handled error to stdout (``error: ...``) and return exit code 2."""

from __future__ import annotations

import argparse
import importlib

from routelab.errors import RoutelabError


def run_command(module: str, argv: list[str]) -> int:
    """``module`` is the command module's short name (``generate``, ``subscriptions``)."""
    command = importlib.import_module(f"routelab.commands.{module}")
    parser = argparse.ArgumentParser(prog="routelab")
    command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RoutelabError as exc:
        print(f"error: {exc}")
        return 2
