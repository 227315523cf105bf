"""Fixtures of the training tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vision.paths import DEFAULT_MODELS_DIR


@pytest.fixture(scope="module")
def models_copy(tmp_path_factory) -> Path:
    """The shipped reader, copied: tests never write into models/."""
    folder = tmp_path_factory.mktemp("models")
    for path in DEFAULT_MODELS_DIR.iterdir():
        if path.is_file() and path.suffix in (".pt", ".json"):
            shutil.copy2(path, folder / path.name)
    return folder
