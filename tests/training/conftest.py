"""Fixtures of the training tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from shipped_models import copy_shipped_models


@pytest.fixture(scope="module")
def models_copy(tmp_path_factory) -> Path:
    """The shipped reader, copied: tests never write into models/."""
    return copy_shipped_models(tmp_path_factory.mktemp("models"))
