"""A tiny end-to-end run: synth -> train (detector and classifier) -> models folder -> eval."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cards import CARD_CODES
from vision.paths import CANDIDATES_DIR, DEFAULT_MODELS_DIR
from web.cli import main


@pytest.mark.slow
def test_train_and_eval_work_end_to_end(tmp_path: Path, capsys):
    data = tmp_path / "data"
    assert (
        main(
            ["synth", "--out", str(data), "--count", "6", "--imgsz", "160", "--seed", "2", "--workers", "1", "--crops"]
        )
        == 0
    )
    models = tmp_path / "models"
    assert (
        main(
            [
                "train",
                str(data),
                "--scratch",
                "--epochs",
                "1",
                "--imgsz",
                "160",
                "--batch",
                "4",
                "--workers",
                "0",
                "--device",
                "cpu",
                "--project",
                str(tmp_path / "runs"),
                "--models-dir",
                str(models),
            ]
        )
        == 0
    )
    info = json.loads((models / "model.json").read_text())
    assert (models / info["detector"]["weights"]).stat().st_size > 100_000
    assert (models / info["classifiers"]["main"]).stat().st_size > 100_000
    assert info["classifiers"]["channels"] in ("bgr", "rgb")

    # A labelled folder in the real-val layout, made of the generated validation scenes.
    labelled = tmp_path / "labelled"
    (labelled / "images").mkdir(parents=True)
    shutil.copytree(data / "labels" / "val", labelled / "labels")
    for image in (data / "images" / "val").glob("*.jpg"):
        shutil.copy(image, labelled / "images" / image.name)
    (labelled / "classes.txt").write_text("\n".join(CARD_CODES) + "\n")
    capsys.readouterr()
    from vision.detector import load_detector
    from vision.evaluation.evaluate import evaluate_folder

    result = evaluate_folder(labelled, detector=load_detector(models), imgsz=160)
    photos = result["photos"]
    assert len(photos) == len(list((labelled / "images").glob("*.jpg"))) > 0
    # the evaluation counts each photo's labelled cards, and its recall is the cards read right out of them
    for photo in photos:
        label = labelled / "labels" / f"{Path(photo['image']).stem}.txt"
        lines = label.read_text().splitlines() if label.exists() else []
        codes = {CARD_CODES[int(line.split()[0])] for line in lines if line.strip()}
        assert photo["cards_labelled"] == len(codes)
        assert photo["cards_right"] == len(codes) - len(photo["missed"]) <= photo["cards_read"]
    labelled_cards = sum(photo["cards_labelled"] for photo in photos)
    assert labelled_cards > 0
    right = sum(photo["cards_right"] for photo in photos)
    assert result["card_recall"] == pytest.approx(right / labelled_cards, abs=1e-4)


def test_train_without_a_dataset_says_what_to_do(tmp_path: Path, capsys):
    assert main(["train", str(tmp_path / "nothing")]) == 2
    error = capsys.readouterr().err
    assert "ginscore synth" in error and "Traceback" not in error
    assert main(["train", str(tmp_path), "--part", "classifier", "--distill", "-1"]) == 2
    assert "--distill -1.0: give a weight of 0 (off) or more" in capsys.readouterr().err
    assert main(["train", str(tmp_path), "--part", "classifier", "--classifier-imgsz", "80"]) == 2
    assert "--classifier-imgsz 80: give a multiple of 32" in capsys.readouterr().err


def test_the_classifier_trains_at_the_input_size_asked_for_else_at_its_start_s_own(tmp_path: Path, monkeypatch):
    # the reader cuts its crops at the size the classifier was trained at (detector.trained_imgsz), so the size
    # asked for on the command line must reach the training run; without one, a fine-tune keeps its start's
    # size (the shipped classifier's 96 px, a 64-px candidate's 64) and a run from scratch takes 64
    from vision.training import train

    (tmp_path / "crops" / "train").mkdir(parents=True)
    runs = []
    monkeypatch.setattr(train, "train_classifier", lambda crops, run, **_: runs.append(run))
    at_64 = str(CANDIDATES_DIR / "former-main-classifier.pt")
    for extra in (["--classifier-imgsz", "96"], ["--classifier-imgsz", "64"], [], ["--classifier-weights", at_64]):
        assert main(["train", str(tmp_path), "--part", "classifier", "--no-install", *extra]) == 0
    assert main(["train", str(tmp_path), "--part", "classifier", "--no-install", "--scratch"]) == 0
    assert [run.imgsz for run in runs] == [96, 64, 96, 64, train.CLASSIFIER_RUN.imgsz]


def test_fine_tuning_a_bgr_classifier_trains_on_red_and_blue_swapped_crops(tmp_path: Path):
    import cv2
    import numpy as np

    from vision.training.train import CLASSIFIER_FILE, crops_with_red_and_blue_swapped, start_channel_order

    crops = tmp_path / "crops"
    (crops / "train" / "Ah").mkdir(parents=True)
    red = np.zeros((64, 64, 3), np.uint8)
    red[..., 2] = 200  # BGR: a red crop
    cv2.imwrite(str(crops / "train" / "Ah" / "a.jpg"), red, [cv2.IMWRITE_JPEG_QUALITY, 95])
    swapped = cv2.imread(str(crops_with_red_and_blue_swapped(crops, tmp_path / "bgr") / "train" / "Ah" / "a.jpg"))
    assert swapped[..., 0].mean() > 190 and swapped[..., 2].mean() < 10, "red became blue"

    models = tmp_path / "models"
    models.mkdir()
    (models / CLASSIFIER_FILE).write_bytes(b"weights")
    (models / "model.json").write_text(json.dumps({"classifier_channels": "bgr"}))
    assert start_channel_order(str(models / CLASSIFIER_FILE), models) == "bgr"
    assert start_channel_order(str(tmp_path / "other.pt"), models) == "rgb", "other weights: ultralytics' RGB"
    (models / "model.json").write_text(json.dumps({"classifier_channels": "rgb"}))
    assert start_channel_order(str(models / CLASSIFIER_FILE), models) == "rgb"


def test_resuming_a_classifier_run_that_never_ran_says_so(tmp_path: Path, capsys):
    (tmp_path / "data" / "crops" / "train").mkdir(parents=True)
    assert (
        main(
            [
                "train",
                str(tmp_path / "data"),
                "--part",
                "classifier",
                "--resume",
                "--device",
                "cpu",
                "--project",
                str(tmp_path / "runs"),
                "--no-install",
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert "no interrupted classifier run" in error and "Traceback" not in error


def test_keep_what_it_reads_holds_only_the_crops_the_start_model_reads_right():
    import torch
    import torch.nn.functional as F

    from vision.detector import prepare_ultralytics
    from vision.training.train import CLASSIFIER_FILE, KeepWhatItReads

    prepare_ultralytics()
    from ultralytics import YOLO

    weights = str(DEFAULT_MODELS_DIR / CLASSIFIER_FILE)
    criterion = KeepWhatItReads(YOLO(weights, task="classify").model, weight=1.0)
    student = YOLO(weights, task="classify").model.float().eval()
    images = torch.rand((6, 3, 64, 64), generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        logits = student(images)[1]
    read = logits.argmax(1)
    right = {"img": images, "cls": read}  # the start model reads every crop "right"
    wrong = {"img": images, "cls": (read + 1) % logits.shape[1]}  # and none

    def loss_and_ce(batch, preds):
        return criterion(preds, batch)[0].item(), F.cross_entropy(preds, batch["cls"]).item()

    loss, ce = loss_and_ce(right, logits)
    assert loss == pytest.approx(ce, abs=1e-5), "the start model's own outputs are kept at no cost"
    with torch.no_grad():
        for parameter in student.parameters():
            parameter.add_(torch.randn(parameter.shape, generator=torch.Generator().manual_seed(6)) * 0.05)
        moved = student(images)[1]
    loss, ce = loss_and_ce(right, moved)
    assert loss > ce + 1e-3, "a model that moved away from the start model's readings pays for it"
    loss, ce = loss_and_ce(wrong, moved)
    assert loss == pytest.approx(ce, abs=1e-6), "crops the start model misreads are learned from the labels alone"
    assert all(not p.requires_grad for p in criterion.start_model.parameters())


def test_a_step_toward_a_fine_tune_lies_between_it_and_the_start(tmp_path: Path):
    import torch

    from vision.detector import prepare_ultralytics
    from vision.training.train import CLASSIFIER_FILE, step_toward

    prepare_ultralytics()
    from ultralytics import YOLO

    start = DEFAULT_MODELS_DIR / CLASSIFIER_FILE
    tuned = tmp_path / "tuned.pt"  # a stand-in fine-tune: the start's weights, every one moved
    checkpoint = torch.load(str(start), map_location="cpu", weights_only=False)
    with torch.no_grad():
        for k, parameter in enumerate(checkpoint["model"].parameters()):
            parameter.add_(torch.randn(parameter.shape, generator=torch.Generator().manual_seed(k)).half() * 0.05)
    torch.save(checkpoint, str(tuned))

    def weights(path: Path) -> torch.Tensor:
        network = YOLO(str(path), task="classify").model
        return torch.cat([p.detach().float().flatten() for p in network.parameters()])

    first, last = weights(start), weights(tuned)
    halfway = weights(step_toward(start, tuned, 0.5, tmp_path / "half.pt"))
    assert torch.allclose(halfway, (first + last) / 2, atol=2e-3), "every weight moved half the way"
    assert not torch.allclose(halfway, first, atol=2e-3) and not torch.allclose(halfway, last, atol=2e-3)
    assert torch.equal(weights(step_toward(start, tuned, 1.0, tmp_path / "all.pt")), last)
    assert torch.equal(weights(step_toward(start, tuned, 0.0, tmp_path / "none.pt")), first)
    images = torch.rand((2, 3, 64, 64), generator=torch.Generator().manual_seed(1))
    assert YOLO(str(tmp_path / "half.pt"), task="classify").model.float().eval()(images)[1].shape == (2, 53)

    with pytest.raises(ValueError, match="read different classes"):  # the 52-card partner has no "none"
        step_toward(start, CANDIDATES_DIR / "card_index_partner_classifier_52.pt", 0.5, tmp_path / "x.pt")
    with pytest.raises(ValueError, match="give a fraction"):
        step_toward(start, tuned, 1.5, tmp_path / "x.pt")
