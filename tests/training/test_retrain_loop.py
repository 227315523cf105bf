"""The whole loop on a tiny budget: rendered photos -> read -> corrected and saved -> retrain -> the new
models installed or refused by the rule -> rollback. Models live in a temporary copy; models/ is only read."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from shipped_models import copy_shipped_models

from engine.cards import CARD_CODES
from vision.model_settings import CLASSIFIER_FILE, DETECTOR_FILE, read_model_settings
from vision.paths import CANDIDATES_DIR, DATASETS_DIR, DEFAULT_MODELS_DIR
from vision.training.retrain import EvalSet, RetrainConfig, decide, render_training_data, retrain
from vision.training.train import KeepWhatItReads, classifier_classes
from web.cli import main

needs_model = pytest.mark.skipif(
    not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"
)


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def render_photos(count: int, seed: int, imgsz: int = 960):
    """Rendered table photos (BGR) with their labelled index boxes, like a phone would see them."""
    from vision.training.synth.dataset import SynthConfig, load_synth_assets, make_scene

    config = SynthConfig(out=Path("unused"), count=count + 1, imgsz=imgsz, seed=seed)
    assets = load_synth_assets(None)
    return [make_scene(config, assets, i)[1] for i in range(count)]


def write_measuring_set(folder: Path, scenes) -> Path:
    """Rendered photos with their labelled index boxes in real-val's layout (images/, labels/, classes.txt)."""
    import cv2

    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    (folder / "classes.txt").write_text("\n".join(CARD_CODES) + "\n")
    for k, scene in enumerate(scenes):
        height, width = scene.image.shape[:2]
        cv2.imwrite(str(folder / "images" / f"p{k}.jpg"), scene.image)
        (folder / "labels" / f"p{k}.txt").write_text(
            "".join(
                f"{CARD_CODES.index(label.code)} {(label.box[0] + label.box[2]) / 2 / width:.5f} "
                f"{(label.box[1] + label.box[3]) / 2 / height:.5f} {(label.box[2] - label.box[0]) / width:.5f} "
                f"{(label.box[3] - label.box[1]) / height:.5f}\n"
                for label in scene.labels
            )
        )
    return folder


def numbers(right, labelled, read):
    return {"right": right, "labelled": labelled, "read": read, "recall": right / labelled, "precision": right / read}


def test_the_rule_installs_only_what_is_not_worse():
    before = {"real-val": numbers(340, 345, 340), "real-clutter": numbers(500, 900, 520)}
    assert decide(before, {"real-val": numbers(343, 345, 343), "real-clutter": numbers(500, 900, 520)}) == (True, [])
    assert decide(before, before)[0], "the same numbers are not worse"
    worse, reasons = decide(before, {"real-val": numbers(343, 345, 343), "real-clutter": numbers(480, 900, 500)})
    assert not worse and "real-clutter: recall" in reasons[0]
    fewer, reasons = decide(before, {"real-val": numbers(339, 345, 339), "real-clutter": numbers(500, 900, 520)})
    assert not fewer and "fewer cards read right" in reasons[0]
    assert not decide({}, {})[0]


@needs_model
@pytest.mark.slow
def test_corrected_photos_retrain_and_the_rule_decides(tmp_path, capsys, monkeypatch, partnered_models):
    import cv2

    from vision.detector import load_detector
    from vision.recognise import read_photo
    from vision.training.examples import collect_example, summary

    models = partnered_models  # the shipped reader with two partner classifiers: a retrain fine-tunes them all
    shipped = digests(models)
    instance = tmp_path / "instance"
    reader = load_detector(models)
    # a few photos read by the shipped reader and "corrected" by the player to what they show
    for scene in render_photos(4, seed=21):
        image = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
        reading = read_photo(image, detector=reader, imgsz=640)
        truth = sorted({label.code for label in scene.labels}, key=CARD_CODES.index)
        collect_example(instance, image, reading.to_json(), truth, source={"test": True})
    collected = summary(instance)
    assert collected["photos"] >= 3 and collected["boxes"] > 10

    # the measuring set: two more rendered photos with their labels (real-val's layout)
    measuring = write_measuring_set(tmp_path / "measure", render_photos(2, seed=22))

    config = RetrainConfig(
        models_dir=models,
        instance=instance,
        hours=0.0015,
        part="both",
        scenes=10,
        synth_imgsz=160,
        imgsz=160,
        batch=4,
        workers=1,
        seed=3,
        progress_bar=False,
        eval_sets=(EvalSet("rendered", measuring, "labelled"),),
        eval_imgsz=640,
        step=0.5,
    )  # the default recipe: every classifier fine-tuned, each held to what it read before (--distill 1)
    held_batches: list[int] = []  # the batches trained with KeepWhatItReads as the loss (it still runs as it is)
    keep = KeepWhatItReads.__call__
    monkeypatch.setattr(KeepWhatItReads, "__call__", lambda self, p, b: held_batches.append(1) or keep(self, p, b))
    report = retrain(config)
    assert report["parts"] == ["detector", "classifier"]
    # with partners, every classifier that reads the crops is fine-tuned, each keeping its own classes (the
    # 52-card one learns no "none")
    partners = [path.name for path in read_model_settings(models).classifiers.partners]
    assert partners and report["partners_trained"] == partners
    assert report["distill"] == 1.0 and held_batches, "the classifiers were held to their start outputs"
    candidate = Path(report["work_dir"]) / "candidate"
    for name in partners:
        assert digests(candidate)[name] != shipped[name], f"{name} was not retrained"
        assert classifier_classes(candidate / name) == classifier_classes(CANDIDATES_DIR / name)
    # each classifier went half the way from where it started to where its fine-tune took it
    assert report["step"] == 0.5
    runs = Path(report["work_dir"]) / "runs"
    assert digests(candidate)[CLASSIFIER_FILE] not in (
        shipped[CLASSIFIER_FILE],
        digests(runs / "classifier" / "weights")["best.pt"],
    )
    assert (runs / "classifier-step.pt").is_file()
    assert report["data"]["examples"]["crops"] > 0
    # the hard "not a card" cases the shipped classifier learned from: no-card tables read by the installed reader
    assert report["data"]["no_card_table_crops"] > 0 and "mined_none_crops" in report["data"]
    assert (
        len(list((Path(report["work_dir"]) / "data" / "crops").glob("*/none/table_*.jpg")))
        == (report["data"]["no_card_table_crops"])
    )
    status = json.loads((instance / "retrain" / "status.json").read_text())
    assert status["state"] == "done" and status["fraction"] == 1.0
    assert json.loads((instance / "retrain" / "last.json").read_text())["decision"] == report["decision"]
    before, after = report["before"], report["after"]
    assert set(before) >= {"rendered"} and set(before) == set(after)
    assert report["installed"] == decide(before, after, config.tolerance)[0]
    if report["installed"]:
        assert digests(models) != shipped and (models / "previous" / "model.json").exists()
        assert main(["retrain", "--rollback", "--models-dir", str(models)]) == 0
        assert digests(models) == shipped, "rollback puts the shipped models back"
    else:
        assert digests(models) == shipped, "refused: the installed models are untouched"
        assert report["decision"].startswith("refused")
    assert not (DEFAULT_MODELS_DIR / "previous").exists()


def test_retrain_says_what_is_wrong(tmp_path, capsys):
    assert main(["retrain", "--rollback", "--models-dir", str(tmp_path)]) == 2
    assert "nothing to roll back" in capsys.readouterr().err
    assert main(["retrain", "--models-dir", str(tmp_path), "--instance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no detector model" in err and "Traceback" not in err
    assert main(["retrain", "--hours", "0", "--models-dir", str(tmp_path)]) == 2
    assert "--hours" in capsys.readouterr().err
    assert main(["retrain", "--distill", "-1", "--models-dir", str(tmp_path)]) == 2
    assert "--distill -1.0: give a weight from 0 (off)" in capsys.readouterr().err
    assert main(["retrain", "--step", "0", "--models-dir", str(tmp_path)]) == 2
    assert "--step 0.0: give a fraction above 0 and at most 1" in capsys.readouterr().err
    assert main(["retrain", "--taught-crops", "-5", "--models-dir", str(tmp_path)]) == 2
    assert "--taught-crops -5: give 0 to 2000000 crops" in capsys.readouterr().err


def test_a_retrain_draws_the_taught_deck_s_crops_directly_beside_its_scenes(tmp_path):
    config = RetrainConfig(models_dir=tmp_path, hours=0.5, hard_negatives=False, taught_crops=60, workers=1, seed=3)
    deck = DATASETS_DIR / "decks" / "anglo"
    counts = render_training_data(config, tmp_path / "data", 4, [deck], crops=True)
    assert counts["taught_deck_crops"] == 60 and counts["taught_scenes"] == 2
    direct = list((tmp_path / "data" / "crops" / "train").glob("*/c5_*.jpg"))  # named by their seed, 3 + 2
    assert len(direct) == 60
    none = RetrainConfig(models_dir=tmp_path, hard_negatives=False, taught_crops=0, workers=1, seed=3)
    assert "taught_deck_crops" not in render_training_data(none, tmp_path / "other", 2, [deck], crops=True)


@needs_model
def test_a_taught_deck_classifier_needs_a_taught_deck_and_says_so(tmp_path, capsys):
    models = copy_shipped_models(tmp_path / "models")
    argv = ["retrain", "--taught-partner", "--models-dir", str(models), "--instance", str(tmp_path / "instance")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--taught-partner teaches the taught decks" in err and "ginscore deck add" in err
    assert "Traceback" not in err
    assert read_model_settings(models).classifiers.taught is None  # nothing installed


def test_a_taught_deck_classifier_learns_from_the_deck_s_own_crops_in_the_reader_s_channel_order(tmp_path):
    from vision.training.retrain import RetrainError, draw_taught_crops

    deck = DATASETS_DIR / "decks" / "anglo"
    config = RetrainConfig(models_dir=tmp_path, taught_crops=1000, workers=1, seed=3)
    counts = draw_taught_crops(config, tmp_path / "data", [deck], "bgr")
    assert counts["taught_deck_crops"] == 1000 + 200  # and a val split of the same deck that only picks the epoch
    # and other decks' crops, every one labelled "not a card" (its "not my deck")
    assert counts["other_deck_crops"] == 400 + 80
    crops = tmp_path / "data" / "crops"
    others = list(crops.glob("*/none/other_*"))
    assert len(others) == 480 and len(list(crops.glob("val/none/other_*"))) == 80
    assert len({path.name.split("_")[1] for path in others}) >= 45  # cards of every code, and their "not a card"
    train_crops = [path for path in crops.glob("train/*/*.jpg") if not path.name.startswith("other_")]
    assert len(train_crops) == 1000
    assert len({path.parent.name for path in train_crops}) >= 45  # the deck's codes, and its own "not a card"
    assert len([path for path in crops.glob("val/*/*.jpg") if not path.name.startswith("other_")]) == 200
    assert not (tmp_path / "data" / "other-decks").exists()
    with pytest.raises(RetrainError, match="--taught-crops 500: a taught deck's own classifier needs 1000"):
        draw_taught_crops(replace(config, taught_crops=500), tmp_path / "more", [deck], "bgr")


@pytest.mark.slow
@needs_model
def test_a_taught_deck_s_own_classifier_is_taught_measured_and_decided_leaving_the_others_as_they_are(tmp_path):

    from vision.training.retrain import TAUGHT_PARTNER_FILE

    models = copy_shipped_models(tmp_path / "models")
    shipped = digests(models)
    instance = tmp_path / "instance"
    shutil.copytree(DATASETS_DIR / "decks" / "anglo", instance / "decks" / "mine")  # a deck of 52 faces
    measuring = write_measuring_set(tmp_path / "measure", render_photos(1, seed=22))
    config = RetrainConfig(
        models_dir=models,
        instance=instance,
        hours=0.002,
        taught_partner=True,
        taught_crops=1000,
        workers=1,
        seed=3,
        progress_bar=False,
        eval_sets=(EvalSet("rendered", measuring, "labelled"),),
        eval_imgsz=640,
    )
    report = retrain(config)
    assert report["parts"] == ["taught deck classifier"] and report["partners_trained"] == []
    assert report["scenes"] == 0 and report["data"]["taught_deck_crops"] == 1200 and report["taught_decks"] == ["mine"]
    candidate = Path(report["work_dir"]) / "candidate"
    assert read_model_settings(candidate).classifiers.taught == candidate / TAUGHT_PARTNER_FILE
    assert classifier_classes(candidate / TAUGHT_PARTNER_FILE) == classifier_classes(models / CLASSIFIER_FILE)
    after = digests(candidate)
    assert all(after[name] == digest for name, digest in shipped.items() if name.endswith(".pt")), "none moved"
    assert report["installed"] == decide(report["before"], report["after"], config.tolerance)[0]
    if report["installed"]:
        assert read_model_settings(models).classifiers.taught == models / TAUGHT_PARTNER_FILE
        assert main(["retrain", "--rollback", "--models-dir", str(models)]) == 0
        assert read_model_settings(models).classifiers.taught is None
    else:
        assert digests(models) == shipped, "refused: the installed models are untouched"


def test_the_command_line_s_default_budget_is_ten_minutes_for_a_taught_deck_s_own_classifier(tmp_path, monkeypatch):
    """``ginscore retrain``'s --hours: DEFAULT_HOURS for a fine-tune, TAUGHT_PARTNER_HOURS with --taught-partner."""
    import argparse

    from vision.training import retrain as retrain_module

    configs = []  # the configs the command line would retrain with (the retrain itself is tested above)
    monkeypatch.setattr(retrain_module, "retrain", lambda config: configs.append(config) or {})
    monkeypatch.setattr(retrain_module, "format_report", lambda report: "")
    parser = argparse.ArgumentParser()
    retrain_module.add_commands(parser.add_subparsers())
    for extra in ([], ["--taught-partner"], ["--taught-partner", "--hours", "0.25"]):
        args = parser.parse_args(["retrain", "--models-dir", str(tmp_path), *extra])
        assert retrain_module.run_retrain(args) == 0
    assert [config.hours for config in configs] == [
        retrain_module.DEFAULT_HOURS,
        retrain_module.TAUGHT_PARTNER_HOURS,
        0.25,
    ]
    assert retrain_module.TAUGHT_PARTNER_HOURS * 60 == pytest.approx(10, abs=0.5)


@needs_model
def test_a_retrain_fine_tunes_each_classifier_at_the_size_it_was_trained_at(tmp_path: Path, monkeypatch):
    # the reader cuts a classifier's crops at its trained size, so a retrain that fine-tuned a 96 px main
    # classifier at 64 px would install a different reader; the partners keep their own 64 px
    from vision.training import retrain as retrain_module
    from vision.training import train
    from vision.training.retrain import Progress

    models = copy_shipped_models(tmp_path / "models")
    at_96 = CANDIDATES_DIR / "crops-run10.pt"  # trained at 96 px
    shutil.copy2(at_96, models / CLASSIFIER_FILE)
    partner = CANDIDATES_DIR / "card_index_partner_classifier.pt"  # trained at 64 px
    sizes = {}

    def record(crops, run, **_):
        sizes[run.name] = run.imgsz
        return run.weights or models / CLASSIFIER_FILE

    monkeypatch.setattr(train, "train_classifier", record)
    config = RetrainConfig(models_dir=models, hours=0.01, workers=1, seed=3)
    retrain_module._train_classifiers(
        config, tmp_path, tmp_path / "runs", models, (partner,), 0.01, Progress([("classifier", 1.0)], None, False)
    )
    assert sizes == {"classifier": 96, "partner-1": train.CROP_SIZE}
