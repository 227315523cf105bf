"""Where a table's own training material lives: the web app's instance folder.

::

    instance/examples/   photos the players corrected (``vision/training/examples.py``)
    instance/decks/      decks taught from photos of the players' own cards (``vision/training/teach_deck.py``)
    instance/teaching/   decks being taught from the web app: photos, faces found, names (``teaching.py``)
    instance/retrain/    retraining runs, their status and reports (``vision/training/retrain.py``)

The instance folder is Flask's for the web app (``instance/`` beside ``web/``); ``$GINSCORE_INSTANCE``
or a command's ``--instance`` points elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from vision.paths import instance_dir
from vision.training.synth.decks import DATASETS

DECK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


def examples_dir(instance: Path | str | None = None) -> Path:
    return instance_dir(instance) / "examples"


def user_decks_dir(instance: Path | str | None = None) -> Path:
    return instance_dir(instance) / "decks"


def teaching_dir(instance: Path | str | None = None) -> Path:
    return instance_dir(instance) / "teaching"


def retrain_dir(instance: Path | str | None = None) -> Path:
    return instance_dir(instance) / "retrain"


def check_deck_name(name: str) -> str:
    """A deck name usable as a folder name (letters, digits, ``_`` and ``-``); ValueError otherwise."""
    if not DECK_NAME.fullmatch(name or ""):
        raise ValueError(
            f"deck name {name!r}: use 1-40 letters, digits, '_' or '-', starting with a letter or digit (e.g. my_deck)"
        )
    return name


def find_deck_folder(name: str, instance: Path | str | None = None, datasets_root: Path | str | None = None) -> Path:
    """A deck by name: a taught deck of the instance folder first, then the library in ``datasets/decks``."""

    check_deck_name(name)
    for folder in (user_decks_dir(instance) / name, Path(datasets_root or DATASETS) / "decks" / name):
        if (folder / "deck.json").is_file():
            return folder
    raise FileNotFoundError(
        f"no deck named {name!r} in {user_decks_dir(instance)} or "
        f"{Path(datasets_root or DATASETS) / 'decks'}; teach one with 'ginscore deck add {name} PHOTOS...' "
        f"or list the library with 'ginscore decks'"
    )
