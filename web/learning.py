"""web's one door to learning: ``vision.evaluation`` and ``vision.training`` are imported here only.

The Training page (``web/training.py``), teaching a deck (``web/teaching.py`` through ``web/services.py``),
saving a hand (``web/services.py``) and the command line (``web/cli.py``) reach the retrain loop, the collected
examples and the taught decks through this module.
"""

from __future__ import annotations

import argparse
import os
import shutil
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from vision.evaluation import cli as evaluation_cli
from vision.reading import PhotoReading
from vision.training import cli as training_cli
from vision.training import deck_check, examples, retrain, teach_deck, teaching, userdata

PREVIOUS = retrain.PREVIOUS
RetrainError = retrain.RetrainError
TeachingUpload = teaching.Upload
TaughtPhoto = teaching.PhotoRead


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


def decks_overview(instance: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every taught deck and deck being taught on the Training page, with the faces found and not saved."""
    return teaching.decks_overview(Path(instance))


# ---------------------------------------------------------------- teaching a deck from the web page


def check_teaching_name(instance: str | os.PathLike[str], name: str) -> str:
    """A name a deck can be taught under (``teach_deck.check_new_deck_name``); ValueError says why not."""
    if not name.strip():
        raise ValueError("give the deck a name (letters, digits, _ and -, e.g. my_deck)")
    return teach_deck.check_new_deck_name(name, Path(instance))


def valid_deck_name(name: str) -> bool:
    """Whether ``name`` can be a deck's name at all (a page address with another is no deck's)."""
    return bool(userdata.DECK_NAME.fullmatch(name))


def keep_teaching_photos(
    instance: str | os.PathLike[str], name: str, uploads: list[teaching.Upload], token: str | None
) -> list[str] | None:
    """Store checked photos of a deck being taught, to be read; None when this upload came before."""
    return teaching.keep_photos(name, uploads, Path(instance), token)


def read_teaching_photo(
    instance: str | os.PathLike[str], name: str, photo_id: str, detector: Any, lock: AbstractContextManager[Any]
) -> teaching.PhotoRead | None:
    """Find and name the cards of one kept photo, ``lock`` held meanwhile (None: read already)."""
    return teaching.read_photo(name, photo_id, detector, Path(instance), lock)


def unread_teaching_photos(instance: str | os.PathLike[str], name: str) -> list[str]:
    """The kept photos whose reading was cut short (the server stopped), to read again."""
    return teaching.unread_photos(name, Path(instance))


DamagedTeaching = teaching.DamagedTeaching  # a deck's teaching record cannot be read


def start_teaching_again(instance: str | os.PathLike[str], name: str) -> int:
    """Start a deck whose teaching record is damaged again from its kept photos (the damaged file is kept
    aside); how many photos wait to be read."""
    return teaching.start_again(name, Path(instance))


def teaching_view(instance: str | os.PathLike[str], name: str) -> dict[str, Any] | None:
    """The teaching page's content of a deck; None when it is neither taught nor being taught."""
    return teaching.teaching_view(name, Path(instance))


def change_taught_face(
    instance: str | os.PathLike[str], name: str, face_id: str, action: str, code: str | None = None
) -> dict[str, Any]:
    """Name, confirm, leave out or put back a face found (``teaching.change_face``)."""
    return teaching.change_face(name, face_id, action, code, Path(instance))


def save_taught_faces(instance: str | os.PathLike[str], name: str) -> dict[str, Any]:
    """Write the named faces into the taught deck with the writer of ``ginscore deck add``."""
    return teaching.save_faces(name, Path(instance))


def read_check_photo(
    instance: str | os.PathLike[str],
    name: str,
    data: bytes,
    label: str,
    detector: Any,
    lock: AbstractContextManager[Any],
) -> dict[str, Any]:
    """Read a spread of a taught deck (``lock`` held meanwhile) and keep it until its cards are confirmed."""
    with lock:
        return deck_check.read_check_photo(name, data, detector=detector, instance=Path(instance), label=label)


def pending_check(instance: str | os.PathLike[str], name: str, pending_id: str) -> dict[str, Any] | None:
    """A check photo read and waiting for its cards to be confirmed (None: no such one)."""
    return deck_check.pending_check(name, pending_id, Path(instance))


def confirm_check_photo(
    instance: str | os.PathLike[str], name: str, pending_id: str, answers: list[str], missed: list[str]
) -> dict[str, Any]:
    """Keep a check photo with the cards the user confirmed; what retrain then judges the deck by."""
    return deck_check.confirm_check_photo(name, pending_id, answers, missed, Path(instance))


def pending_check_image(instance: str | os.PathLike[str], name: str, pending_id: str) -> Path:
    """The photo of a check photo waiting to be confirmed, as the page shows it (its cards numbered)."""
    return deck_check.check_folder(name, Path(instance)) / deck_check.PENDING / pending_id / deck_check.SHOWN


def check_photo_count(instance: str | os.PathLike[str], name: str) -> int:
    """How many confirmed check photos a taught deck has."""
    return deck_check.check_photos(userdata.user_decks_dir(Path(instance)) / name)


def taught_face_image(instance: str | os.PathLike[str], name: str, face_id: str, small: bool) -> Path | None:
    """The image file of a face found (``small``: the page's copy); None: no such face."""
    return teaching.face_image(name, face_id, small, Path(instance))


def retrain_folder(instance: str | os.PathLike[str]) -> Path:
    """Where an instance folder's retraining runs keep their status, log and report."""
    return userdata.retrain_dir(Path(instance))


def mark_retrain_started(instance: str | os.PathLike[str], pid: int) -> None:
    """Say that a retrain was started in process ``pid``, so the page shows it running at once."""
    retrain.write_starting_status(retrain_folder(instance), pid)


def retrain_status(instance: str | os.PathLike[str]) -> dict[str, Any]:
    """The state of the latest retrain (running, done or failed, with its progress message)."""
    folder = retrain_folder(instance)
    status = retrain.read_json(folder / retrain.STATUS_FILE) or {}
    pid = retrain.running_pid(folder) or retrain.starting_pid(folder)
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
