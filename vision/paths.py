"""Where the product's files live: the repository's models and datasets folders (one place for each)."""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
DATASETS_DIR = REPOSITORY / "datasets"
DEFAULT_MODELS_DIR = REPOSITORY / "models"
# trained weights kept beside the shipped ones, not read by the product
CANDIDATES_DIR = DEFAULT_MODELS_DIR / "candidates"
MODELS_DIR_ENV = "GINSCORE_MODELS"  # overrides the models folder
INSTANCE_ENV = "GINSCORE_INSTANCE"  # overrides the instance folder
DEFAULT_INSTANCE = REPOSITORY / "instance"


def models_dir() -> Path:
    """The folder holding the shipped models (``$GINSCORE_MODELS`` or ``models/`` in the repository)."""
    return Path(os.environ.get(MODELS_DIR_ENV) or DEFAULT_MODELS_DIR)


def instance_dir(explicit: Path | str | None = None) -> Path:
    """The app's own folder for what a table makes (its database, photos, examples, taught decks, retrains,
    ultralytics' settings): ``explicit``, else ``$GINSCORE_INSTANCE``, else ``instance/`` of the repository."""
    return Path(explicit or os.environ.get(INSTANCE_ENV) or DEFAULT_INSTANCE)


def ultralytics_settings_dir() -> Path:
    """Where ultralytics keeps its settings file: in the app's own folder, never the user's home."""
    return instance_dir() / "ultralytics"
