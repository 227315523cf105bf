"""Fixtures shared by every test folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from shipped_models import models_with_former_partners


@pytest.fixture
def partnered_models(tmp_path) -> Path:
    """A copy of the shipped reader with the former partner classifiers (``models_with_former_partners``), for a
    test to read with or to retrain into."""
    return models_with_former_partners(tmp_path / "partnered")
