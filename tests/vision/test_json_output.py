"""Machine-readable output is only JSON, even on a machine where ultralytics never ran (a fresh HOME)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR, REPOSITORY

PHOTO = REPOSITORY / "datasets" / "real" / "real-val" / "images" / "deal2.jpg"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"),
]


def run_fresh(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ginscore ARGS`` with a new, empty HOME and instance folder, and no ultralytics settings anywhere."""
    home, instance = tmp_path / "home", tmp_path / "instance"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("YOLO_", "XDG_"))}
    env.update(HOME=str(home), GINSCORE_INSTANCE=str(instance))
    return subprocess.run(
        [sys.executable, "-m", "web.cli", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600
    )


def test_detect_json_on_a_fresh_home_is_only_json_and_leaves_the_home_alone(tmp_path):
    done = run_fresh(tmp_path, "detect", str(PHOTO), "--json")
    assert done.returncode == 0, done.stderr
    readings = json.loads(done.stdout)  # fails on any banner or log line on standard output
    assert readings[0]["image"] == str(PHOTO) and len(readings[0]["cards"]) >= 20
    assert list((tmp_path / "home").rglob("*")) == [], "nothing is written into the user's home"
    assert (tmp_path / "instance" / "ultralytics").is_dir(), "ultralytics' settings live in the app's own folder"


def test_score_json_that_cannot_score_prints_nothing_on_standard_output(tmp_path):
    """deal2 holds 45 cards of a deal, not a showdown: the error goes to standard error, stdout stays empty."""
    done = run_fresh(tmp_path, "score", str(PHOTO), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert "ginscore score: error:" in done.stderr and "Traceback" not in done.stderr
