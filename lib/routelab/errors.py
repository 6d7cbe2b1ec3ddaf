"""Errors that routelab reports to users as one clear message (no traceback)."""

from __future__ import annotations


class RoutelabError(Exception):
    """Base class: an error caused by input, data or environment, with a readable message."""


class DatasetError(RoutelabError):
    """A dataset cannot be fetched, verified or prepared (names the package and the fix)."""


class BadInputError(RoutelabError):
    """User data cannot be read at all (names the file, line and reason)."""
