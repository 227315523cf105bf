"""web's one door to learning: ``vision.evaluation`` and ``vision.training`` are imported here only.

The Training page (``web/training.py``), saving a hand (``web/services.py``) and the command line
(``web/cli.py``) reach the retrain loop, the collected examples and the taught decks through this module.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path
from typing import Any

from vision.evaluation import cli as evaluation_cli
from vision.reading import PhotoReading
from vision.training import cli as training_cli
from vision.training import examples, retrain, teach_deck, userdata

PREVIOUS = retrain.PREVIOUS
RetrainError = retrain.RetrainError


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore eval`` and the learning sub-commands."""
    evaluation_cli.add_commands(commands)
    training_cli.add_commands(commands)


def keep_example(
    instance: str | os.PathLike[str], image: bytes, reading: PhotoReading, cards: list[str], source: dict[str, Any]
) -> None:
    """Keep a saved, corrected photo hand as a training example (``vision.training.examples``)."""
    examples.collect_example(Path(instance), image, reading.to_json(), cards, source=source)


def examples_summary(instance: str | os.PathLike[str]) -> dict[str, Any]:
    """What the table has collected for training (photos, cards, ...)."""
    return examples.summary(Path(instance))


def delete_examples(instance: str | os.PathLike[str]) -> None:
    """Delete every collected training example of an instance folder."""
    folder = userdata.examples_dir(Path(instance))
    if folder.is_dir():
        shutil.rmtree(folder)


def taught_decks(instance: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The decks taught from the players' photos (``ginscore deck add``)."""
    return teach_deck.list_taught_decks(Path(instance))


def retrain_folder(instance: str | os.PathLike[str]) -> Path:
    """Where an instance folder's retraining runs keep their status, log and report."""
    return userdata.retrain_dir(Path(instance))


def retrain_status(instance: str | os.PathLike[str]) -> dict[str, Any]:
    """The state of the latest retrain (running, done or failed, with its progress message)."""
    folder = retrain_folder(instance)
    status = retrain.read_json(folder / retrain.STATUS_FILE) or {}
    pid = retrain.running_pid(folder)
    if status.get("state") == "running" and pid is None:
        status = {
            **status,
            "state": "failed" if status.get("fraction", 0) < 1 else "done",
            "message": status.get("message", "") + " (the retrain process ended)",
        }
    status["running"] = pid is not None
    return status


def retrain_report(instance: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The before/after report of the latest retrain that measured, if any."""
    report = retrain.read_json(retrain_folder(instance) / retrain.REPORT_FILE)
    return report if isinstance(report, dict) else None


def retrain_running(instance: str | os.PathLike[str]) -> bool:
    """Whether a retrain process of this instance folder is running."""
    return retrain.running_pid(retrain_folder(instance)) is not None


def roll_back(models: Path) -> list[str]:
    """Put back the models the last retrain replaced; ``RetrainError`` when there are none."""
    return retrain.rollback(models)
