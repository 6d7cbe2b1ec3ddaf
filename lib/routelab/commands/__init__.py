"""Subcommands of the ``routelab`` CLI, one module each, each with ``register(subparsers)``."""
