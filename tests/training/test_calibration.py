"""``ginscore calibrate``: fit the confidence on rendered held-out scenes, write it, read it back."""

from __future__ import annotations

import json
import shutil

import pytest

from vision.model_settings import DETECTOR_FILE, read_model_settings
from vision.paths import DEFAULT_MODELS_DIR
from web.cli import main

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"),
]


def test_calibrate_fits_on_one_set_checks_on_another_and_writes_model_json(tmp_path, capsys):
    for name, seed in (("fit", 11), ("check", 12)):
        args = [
            "synth",
            "--out",
            str(tmp_path / name),
            "--count",
            "6",
            "--imgsz",
            "960",
            "--seed",
            str(seed),
            "--deck",
            "bonded",
            "--workers",
            "1",
            "--clutter",
            "0",
        ]
        assert main(args) == 0
    models = tmp_path / "models"
    shutil.copytree(DEFAULT_MODELS_DIR, models, ignore=shutil.ignore_patterns("history", "*.md", "previous"))
    out = tmp_path / "calibration.json"
    assert (
        main(
            [
                "calibrate",
                str(tmp_path / "fit"),
                "--check",
                str(tmp_path / "check"),
                "--models",
                str(models),
                "--json",
                str(out),
                "--write",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "check scenes, calibrated confidence" in printed and "wrong shown as sure" in printed
    result = json.loads(out.read_text())
    check = result["model_json"]["check_calibrated"]
    assert sum(row["cards"] for row in check["reliability"]) == check["review"]["cards"] > 0
    assert all(0.0 <= row["accuracy"] <= 1.0 for row in check["reliability"])
    assert read_model_settings(models).decision.calibration == tuple(result["model_json"]["calibration"])


def test_calibrate_says_what_to_do_for_a_folder_without_scenes(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path), "--check", str(tmp_path)]) == 2
    assert "make the scenes with 'ginscore synth" in capsys.readouterr().err
