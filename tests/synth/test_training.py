"""A tiny end-to-end run: synth -> train (detector and classifier) -> models folder -> eval."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cards import CARD_CODES
from web.cli import main


@pytest.mark.slow
def test_train_and_eval_work_end_to_end(tmp_path: Path, capsys):
    data = tmp_path / "data"
    assert main(["synth", "--out", str(data), "--count", "6", "--imgsz", "160", "--seed", "2",
                 "--workers", "1", "--crops"]) == 0
    models = tmp_path / "models"
    assert main(["train", str(data), "--scratch", "--epochs", "1", "--imgsz", "160", "--batch", "4",
                 "--workers", "0", "--device", "cpu", "--project", str(tmp_path / "runs"),
                 "--models-dir", str(models)]) == 0
    info = json.loads((models / "model.json").read_text())
    assert (models / info["detector"]).stat().st_size > 100_000
    assert (models / info["classifier"]).stat().st_size > 100_000
    assert info["classifier_channels"] in ("bgr", "rgb")

    # A labelled folder in the real-val layout, made of the generated validation scenes.
    labelled = tmp_path / "labelled"
    (labelled / "images").mkdir(parents=True)
    shutil.copytree(data / "labels" / "val", labelled / "labels")
    for image in (data / "images" / "val").glob("*.jpg"):
        shutil.copy(image, labelled / "images" / image.name)
    (labelled / "classes.txt").write_text("\n".join(CARD_CODES) + "\n")
    capsys.readouterr()
    from vision.detector import load_detector
    from vision.evaluate import evaluate_folder

    result = evaluate_folder(labelled, detector=load_detector(models), imgsz=160)
    assert result["photos"] and 0.0 <= result["card_recall"] <= 1.0
    assert len(result["photos"]) == len(list((labelled / "images").glob("*.jpg")))


def test_train_without_a_dataset_says_what_to_do(tmp_path: Path, capsys):
    assert main(["train", str(tmp_path / "nothing")]) == 2
    error = capsys.readouterr().err
    assert "ginscore synth" in error and "Traceback" not in error
