"""The Training page: what the table has collected, a retrain in the background, its before/after numbers.

Saved photo hands become training examples here (``collect_example``, called by ``hands.save_hand``
after the hand is stored) when "Keep photos" (Settings) and "Learn from corrected photos" (this page)
are both on. A retrain runs as its own process (``ginscore retrain``, niced), so the score sheet stays
responsive; its progress and report are files in ``instance/retrain`` that this page reads.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from . import store

bp = Blueprint("training", __name__)

COLLECT_SETTING = "collect_examples"
RETRAIN_HOURS = ("0.25", "0.5", "1", "2")
RETRAIN_PARTS = ("auto", "classifier", "both")
_models_seen: dict[str, float] = {}


def collecting() -> bool:
    """Whether saved photo hands are kept as training examples (both settings on)."""
    return collect_setting_on() and store.get_setting("keep_photos") == "1"


def collect_setting_on() -> bool:
    return store.get_setting(COLLECT_SETTING) == "1"


def collect_example(game, entry, photo, hand_id: int | None = None) -> None:
    """Keep a saved photo hand as a training example (never fails the save: problems are logged)."""
    if photo is None or entry.entry != "cards" or photo["image"] is None:
        return
    try:
        if not collecting():
            return
        from vision.examples import collect_example as collect

        collect(current_app.instance_path, bytes(photo["image"]), json.loads(photo["reading_json"]),
                [*entry.cards[0], *entry.cards[1], *([entry.upcard] if entry.upcard else [])],  # the upcard is a card too
                source={"game_id": game["id"], "hand_id": hand_id, "photo_id": photo["id"], "from": photo["source"]})
    except Exception:   # a full disk or a damaged reading must not lose the hand
        current_app.logger.exception("could not keep photo %s as a training example", photo["id"])


def models_folder() -> Path:
    from vision.detector import models_dir

    return Path(current_app.config.get("MODEL_PATH") or models_dir())


def reload_models_if_changed() -> None:
    """before_app_request: when a retrain (another process) installed new models, load them afresh."""
    card = models_folder() / "model.json"
    try:
        mtime = card.stat().st_mtime
    except OSError:
        return
    key = str(card)
    if key in _models_seen and _models_seen[key] != mtime:
        from vision.detector import _load
        _load.cache_clear()
    _models_seen[key] = mtime


bp.before_app_request(reload_models_if_changed)


def retrain_command(hours: str, part: str, clutter: bool) -> list[str]:
    """The background command of a retrain started here."""
    command = [sys.executable, "-m", "web.cli", "retrain", "--quiet", "--instance", current_app.instance_path,
               "--models-dir", str(models_folder()), "--hours", hours, "--part", part]
    if not clutter:
        command.append("--no-clutter")
    command += list(current_app.config.get("RETRAIN_EXTRA_ARGS", ()))
    if shutil.which("nice"):
        command = ["nice", "-n", "10", *command]
    return command


def start_retrain(command: list[str], folder: Path) -> int:
    """Start the retrain process (detached from this request); returns its process id."""
    folder.mkdir(parents=True, exist_ok=True)
    log = open(folder / "retrain.log", "ab")
    try:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   cwd=str(Path(__file__).resolve().parents[1]), start_new_session=True)
    finally:
        log.close()
    return process.pid


def _state(folder: Path) -> dict:
    from vision.retrain import STATUS_FILE, read_json, running_pid

    status = read_json(folder / STATUS_FILE) or {}
    pid = running_pid(folder)
    if status.get("state") == "running" and pid is None:
        status = {**status, "state": "failed" if status.get("fraction", 0) < 1 else "done",
                  "message": status.get("message", "") + " (the retrain process ended)"}
    status["running"] = pid is not None
    return status


@bp.route("/training")
def page():
    from vision import examples
    from vision.retrain import PREVIOUS, REPORT_FILE, read_json
    from vision.teach_deck import list_taught_decks
    from vision.userdata import retrain_dir

    instance = current_app.instance_path
    folder = retrain_dir(instance)
    status = _state(folder)
    report = read_json(folder / REPORT_FILE)
    models = models_folder()
    info = read_json(models / "model.json") or {}
    return render_template(
        "training.html", collected=examples.summary(instance), decks=list_taught_decks(instance),
        status=status, report=report, collect_on=collect_setting_on(),
        keep_photos=_keep_photos(), models=str(models), models_updated=info.get("updated", ""),
        can_rollback=(models / PREVIOUS / "model.json").exists(), hours_choices=RETRAIN_HOURS,
        part_choices=RETRAIN_PARTS)


def _keep_photos() -> bool:
    return store.get_setting("keep_photos") == "1"


@bp.route("/training/collect", methods=("POST",))
def set_collecting():
    value = "1" if request.form.get("collect") == "1" else "0"
    store.save_settings({COLLECT_SETTING: value})
    flash("Corrected photos are kept for training." if value == "1" else
          "Corrected photos are no longer kept for training (those kept stay until deleted).")
    return redirect(url_for("training.page"), 303)


@bp.route("/training/retrain", methods=("POST",))
def retrain():
    from vision.retrain import running_pid
    from vision.userdata import retrain_dir

    folder = retrain_dir(current_app.instance_path)
    hours = request.form.get("hours", "0.5")
    part = request.form.get("part", "auto")
    if hours not in RETRAIN_HOURS or part not in RETRAIN_PARTS:
        flash("Choose a training time and what to train from the lists.")
        return redirect(url_for("training.page"), 303)
    if running_pid(folder) is not None:
        flash("A retrain is already running; its progress is below.")
        return redirect(url_for("training.page"), 303)
    try:
        from vision.detector import read_model_settings
        read_model_settings(models_folder())
    except Exception as error:
        flash(f"Retraining starts from the installed models, and there are none: {error}")
        return redirect(url_for("training.page"), 303)
    start_retrain(retrain_command(hours, part, request.form.get("clutter") == "1"), folder)
    flash(f"Retraining started ({hours} h of training, then measuring); this page shows its progress. "
          "The score sheet keeps working meanwhile.")
    return redirect(url_for("training.page"), 303)


@bp.route("/training/rollback", methods=("POST",))
def rollback():
    from vision.retrain import RetrainError, rollback as put_back, running_pid
    from vision.userdata import retrain_dir

    if running_pid(retrain_dir(current_app.instance_path)) is not None:
        flash("A retrain is running; roll back after it ends.")
        return redirect(url_for("training.page"), 303)
    try:
        names = put_back(models_folder())
    except RetrainError as error:
        flash(str(error))
        return redirect(url_for("training.page"), 303)
    flash(f"The previous models are back ({', '.join(names)}); rolling back again undoes this.")
    return redirect(url_for("training.page"), 303)


@bp.route("/training/examples/delete", methods=("POST",))
def delete_examples():
    from vision.userdata import examples_dir

    folder = examples_dir(current_app.instance_path)
    if folder.is_dir():
        shutil.rmtree(folder)
    flash("The collected photos were deleted.")
    return redirect(url_for("training.page"), 303)


def status_json(instance: str | os.PathLike) -> dict:
    """The retrain status of an instance folder (what the page shows), for tests and scripts."""
    from vision.userdata import retrain_dir
    return _state(retrain_dir(instance))
