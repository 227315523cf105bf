"""The ginscore web app: a score sheet for a real gin rummy table.

``create_app(test_config)`` builds the Flask app (see web/app.py). Flask is imported only when
an app is built, so the ``ginscore`` command line starts quickly.
"""

from __future__ import annotations

from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def _installed_version() -> str:
    """ginscore's version, written once in pyproject.toml (``0+unknown`` in a checkout that is not installed)."""
    try:
        return metadata.version("ginscore")
    except metadata.PackageNotFoundError:
        return "0+unknown"


__version__ = _installed_version()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app; ``test_config`` overrides the defaults (DATABASE, PIN, ...)."""
    from .app import create_app as build

    return build(test_config)
