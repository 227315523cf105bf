"""Where a table's own training material lives: the web app's instance folder.

::

    instance/examples/   photos the players corrected (``vision/examples.py``)
    instance/decks/      decks taught from photos of the players' own cards (``vision/teach_deck.py``)
    instance/retrain/    retraining runs, their status and reports (``vision/retrain.py``)

The instance folder is Flask's for the web app (``instance/`` beside ``web/``); ``$GINSCORE_INSTANCE``
or a command's ``--instance`` points elsewhere.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

INSTANCE_ENV = "GINSCORE_INSTANCE"
DEFAULT_INSTANCE = Path(__file__).resolve().parents[1] / "instance"
DECK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


def instance_dir(explicit: Path | str | None = None) -> Path:
    """The instance folder: ``explicit``, else ``$GINSCORE_INSTANCE``, else ``instance/`` of the repository."""
    return Path(explicit or os.environ.get(INSTANCE_ENV) or DEFAULT_INSTANCE)


def examples_dir(instance: Path | str | None = None) -> Path:
    return instance_dir(instance) / "examples"


def user_decks_dir(instance: Path | str | None = None) -> Path:
    return instance_dir(instance) / "decks"


def retrain_dir(instance: Path | str | None = None) -> Path:
    return instance_dir(instance) / "retrain"


def check_deck_name(name: str) -> str:
    """A deck name usable as a folder name (letters, digits, ``_`` and ``-``); ValueError otherwise."""
    if not DECK_NAME.fullmatch(name or ""):
        raise ValueError(f"deck name {name!r}: use 1-40 letters, digits, '_' or '-', starting with a letter "
                         f"or digit (e.g. my_deck)")
    return name


def find_deck_folder(name: str, instance: Path | str | None = None, datasets_root: Path | str | None = None) -> Path:
    """A deck by name: a taught deck of the instance folder first, then the library in ``datasets/decks``."""
    from vision.synth.decks import DATASETS

    check_deck_name(name)
    for folder in (user_decks_dir(instance) / name, Path(datasets_root or DATASETS) / "decks" / name):
        if (folder / "deck.json").is_file():
            return folder
    raise FileNotFoundError(f"no deck named {name!r} in {user_decks_dir(instance)} or "
                            f"{Path(datasets_root or DATASETS) / 'decks'}; teach one with 'ginscore deck add {name} PHOTOS...' "
                            f"or list the library with 'ginscore decks'")
