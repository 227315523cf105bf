"""Copies of the shipped reader for tests that read with other settings or retrain: tests never write into models/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from vision.paths import CANDIDATES_DIR, DEFAULT_MODELS_DIR

# The partner classifiers the reader shipped with until session 30 (52 codes + "not a card", and 52 codes), kept
# in models/candidates/: the partner mechanics (model.json classifiers.partners) are tested on real weights.
FORMER_PARTNERS = ("card_index_partner_classifier.pt", "card_index_partner_classifier_52.pt")


def copy_shipped_models(folder: Path) -> Path:
    """``folder`` (made if missing) holding a copy of models/' weights and model.json."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in DEFAULT_MODELS_DIR.iterdir():
        if path.is_file() and path.suffix in (".pt", ".json"):
            shutil.copy2(path, folder / path.name)
    return folder


def models_with_former_partners(folder: Path) -> Path:
    """A copy of the shipped reader in ``folder`` with the two former partner classifiers beside its main one,
    read as they were shipped (weighed 0.34, asked below 0.98)."""
    copy_shipped_models(folder)
    for name in FORMER_PARTNERS:
        shutil.copy2(CANDIDATES_DIR / name, folder / name)
    settings = json.loads((folder / "model.json").read_text())
    settings["classifiers"].update(partners=list(FORMER_PARTNERS), mix=0.34, partners_below=0.98)
    (folder / "model.json").write_text(json.dumps(settings, indent=2))
    return folder
