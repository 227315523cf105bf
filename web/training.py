"""The Training page: what the table has collected, a retrain in the background, its before/after numbers.

Saved photo hands become training examples (``services.collect_example``, called by ``services.save_hand``
after the hand is stored) when "Keep photos" (Settings) and "Learn from corrected photos" (this page)
are both on. A retrain runs as its own process (``ginscore retrain``, niced), so the score sheet stays
responsive; its progress and report are files in ``instance/retrain`` that this page reads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from vision.detector import reload_models
from vision.model_settings import ModelError, read_model_settings, read_settings_document, settings_path
from vision.paths import REPOSITORY, models_dir

from . import learning, store
from .services import COLLECT_SETTING, collect_setting_on, keep_photos_on

bp = Blueprint("training", __name__)

DEFAULT_HOURS = f"{learning.retrain.DEFAULT_HOURS:g}"  # the retrain's default budget
TAUGHT_HOURS = f"{learning.retrain.TAUGHT_PARTNER_HOURS:g}"  # a taught deck's own classifier's default budget
RETRAIN_HOURS = tuple(sorted({"0.17", "0.25", "0.5", "1", "2", DEFAULT_HOURS, TAUGHT_HOURS}, key=float))
# what a retrain teaches: "taught" is the taught decks' own classifier (``ginscore retrain --taught-partner``)
RETRAIN_PARTS = ("auto", "classifier", "both", "taught")
_models_seen: dict[str, float] = {}


def models_folder() -> Path:
    return Path(current_app.config.get("MODEL_PATH") or models_dir())


def reload_models_if_changed() -> None:
    """before_app_request: when a retrain (another process) installed new models, load them afresh."""
    card = settings_path(models_folder())
    try:
        mtime = card.stat().st_mtime
    except OSError:
        return
    key = str(card)
    if key in _models_seen and _models_seen[key] != mtime:
        reload_models()
    _models_seen[key] = mtime


bp.before_app_request(reload_models_if_changed)


@bp.app_context_processor
def default_retrain_budget() -> dict[str, Any]:
    """The retrain's default budgets, for every page that starts one: the Training page's (every classifier) and a
    taught deck's page's (its own classifier, ``ginscore retrain --taught-partner``)."""
    return {
        "default_hours": DEFAULT_HOURS,
        "default_minutes": round(learning.retrain.DEFAULT_HOURS * 60),
        "taught_hours": TAUGHT_HOURS,
        "taught_minutes": round(learning.retrain.TAUGHT_PARTNER_HOURS * 60),
    }


def retrain_command(hours: str, part: str, clutter: bool) -> list[str]:
    """The background command of a retrain started here."""
    command = [
        sys.executable,
        "-m",
        "web.cli",
        "retrain",
        "--quiet",
        "--instance",
        current_app.instance_path,
        "--models-dir",
        str(models_folder()),
        "--hours",
        hours,
        *(["--taught-partner"] if part == "taught" else ["--part", part]),
    ]
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
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=str(REPOSITORY),
            start_new_session=True,
        )
    finally:
        log.close()
    # reaped when it ends, so that a finished retrain is never taken for a running one (a zombie answers kill 0)
    threading.Thread(target=process.wait, daemon=True).start()
    return process.pid


@bp.route("/training")
def page():
    instance = current_app.instance_path
    status = learning.retrain_status(instance)
    report = learning.retrain_report(instance)
    models = models_folder()
    try:
        updated = read_settings_document(models).get("updated", "")
    except ModelError:
        updated = ""
    return render_template(
        "training/training.html",
        collected=learning.examples_summary(instance),
        decks=learning.decks_overview(instance),
        deck_name=request.args.get("deck", "")[:40],
        status=status,
        report=report,
        collect_on=collect_setting_on(),
        keep_photos=keep_photos_on(),
        models=str(models),
        models_updated=updated,
        can_rollback=settings_path(models / learning.PREVIOUS).exists(),
        hours_choices=RETRAIN_HOURS,
        part_choices=RETRAIN_PARTS,
    )


@bp.route("/training/collect", methods=("POST",))
def set_collecting():
    value = "1" if request.form.get("collect") == "1" else "0"
    store.save_settings({COLLECT_SETTING: value})
    flash(
        "Corrected photos are kept for training."
        if value == "1"
        else "Corrected photos are no longer kept for training (those kept stay until deleted)."
    )
    return redirect(url_for("training.page"), 303)


@bp.route("/training/retrain", methods=("POST",))
def retrain():
    folder = learning.retrain_folder(current_app.instance_path)
    hours = request.form.get("hours", DEFAULT_HOURS)
    part = request.form.get("part", "auto")
    if hours not in RETRAIN_HOURS or part not in RETRAIN_PARTS:
        flash("Choose a training time and what to train from the lists.")
        return redirect(url_for("training.page"), 303)
    if learning.retrain_running(current_app.instance_path):
        flash("A retrain is already running; its progress is below.")
        return redirect(url_for("training.page"), 303)
    try:
        read_model_settings(models_folder())
    except Exception as error:
        flash(f"Retraining starts from the installed models, and there are none: {error}")
        return redirect(url_for("training.page"), 303)
    pid = start_retrain(retrain_command(hours, part, request.form.get("clutter") == "1"), folder)
    learning.mark_retrain_started(current_app.instance_path, pid)
    flash(
        f"Retraining started ({hours} h of training, then measuring); this page shows its progress. "
        "The score sheet keeps working meanwhile."
    )
    return redirect(url_for("training.page"), 303)


@bp.route("/training/rollback", methods=("POST",))
def rollback():
    if learning.retrain_running(current_app.instance_path):
        flash("A retrain is running; roll back after it ends.")
        return redirect(url_for("training.page"), 303)
    try:
        names = learning.roll_back(models_folder())
    except learning.RetrainError as error:
        flash(str(error))
        return redirect(url_for("training.page"), 303)
    flash(f"The previous models are back ({', '.join(names)}); rolling back again undoes this.")
    return redirect(url_for("training.page"), 303)


@bp.route("/training/examples/delete", methods=("POST",))
def delete_examples():
    learning.delete_examples(current_app.instance_path)
    flash("The collected photos were deleted.")
    return redirect(url_for("training.page"), 303)


def status_json(instance: str | os.PathLike[str]) -> dict[str, Any]:
    """The retrain status of an instance folder (what the page shows), for tests and scripts."""
    return learning.retrain_status(instance)
