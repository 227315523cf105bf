"""models/model.json: one typed schema, validated when it is loaded (vision/model_settings.py)."""

from __future__ import annotations

import json

import pytest

from vision.model_settings import (
    DecisionSettings,
    ModelError,
    read_model_settings,
    read_settings_document,
    write_settings_document,
)
from vision.paths import DEFAULT_MODELS_DIR


@pytest.fixture
def models(tmp_path):
    """A models folder with a detector file (its bytes are never loaded here)."""
    (tmp_path / "card_index_detector.pt").write_bytes(b"weights")
    return tmp_path


def write(folder, document):
    (folder / "model.json").write_text(json.dumps(document))


def test_the_shipped_model_json_is_in_the_nested_layout_and_loads():
    document = json.loads((DEFAULT_MODELS_DIR / "model.json").read_text())
    assert set(document) <= {"detector", "classifiers", "decision", "passes", "corners", "updated"}
    settings = read_model_settings(DEFAULT_MODELS_DIR)
    assert settings.decision.review_below == document["decision"]["review_below"]
    assert settings.detector.imgsz == document["detector"]["imgsz"]
    assert settings.classifiers.main is not None and settings.classifiers.main.exists()


def test_a_setting_the_file_leaves_out_takes_its_one_default(models):
    write(models, {"decision": {"conf": 0.3}})
    settings = read_model_settings(models)
    assert settings.decision.conf == 0.3
    assert settings.decision.review_below == DecisionSettings.review_below == 0.5
    assert settings.classifiers.main is None, "no classifier file in the folder: a 52-class detector"


def test_an_unknown_key_is_refused_naming_the_closest_one(models):
    write(models, {"decision": {"review_bellow": 0.4}})
    with pytest.raises(ModelError, match=r"unknown key decision\.review_bellow \(did you mean review_below\?\)"):
        read_model_settings(models)
    write(models, {"decisions": {}})
    with pytest.raises(ModelError, match=r"unknown key decisions \(did you mean decision\?\)"):
        read_model_settings(models)
    write(models, {"imgsz": 800, "confidence": 0.3})
    with pytest.raises(ModelError, match=r"unknown key confidence \(did you mean conf\?\)"):
        read_model_settings(models)


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ({"detector": {"imgsz": "big"}}, "detector.imgsz must be a whole number"),
        ({"detector": {"imgsz": 1.5}}, "detector.imgsz must be a whole number"),
        ({"decision": {"conf": -0.1}}, "decision.conf must be a number, 0 or more"),
        ({"decision": {"conf": True}}, "decision.conf must be a number"),
        ({"classifiers": {"channels": "grb"}}, "classifiers.channels must be one of bgr, rgb"),
        ({"classifiers": {"partners": "a.pt"}}, "classifiers.partners must be a list of file names"),
        ({"detector": {"weights": None}}, "detector.weights may not be null"),
        ({"decision": 0.5}, "decision must be an object of settings"),
        (
            {"decision": {"calibration": [0.1, 1.0]}},
            "decision.calibration must be a list of four numbers \\(or none\\)",
        ),
        ({"decision": {"calibration_curve": [0.1, 0.2, 0.3]}}, "calibration_curve must be a list of an even number"),
        ({"decision": {"flag_disagreement": 1}}, "decision.flag_disagreement must be true or false"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_a_value_of_the_wrong_type_is_a_clear_error(models, document, says):
    write(models, document)
    with pytest.raises(ModelError, match=says):
        read_model_settings(models)


def test_the_flat_layout_of_older_files_is_read_into_the_sections(models):
    (models / "b.pt").write_bytes(b"x")
    write(
        models,
        {
            "detector": "card_index_detector.pt",
            "classifier": None,
            "imgsz": 800,
            "conf": 0.4,
            "classifier_imgsz": 64,
            "partner_classifier": "b.pt",
            "far_imgsz": 1600,
        },
    )
    settings = read_model_settings(models)
    assert (settings.detector.imgsz, settings.decision.conf, settings.passes.far_imgsz) == (800, 0.4, 1600)
    assert settings.classifiers.main is None
    assert [p.name for p in settings.classifiers.partners] == ["b.pt"]


def test_writing_validates_and_stamps_the_file(models):
    path = write_settings_document(models, {"decision": {"conf": 0.2}})
    document = read_settings_document(models)
    assert document["decision"] == {"conf": 0.2} and document["updated"]
    assert path.read_text().endswith("\n")
    with pytest.raises(ModelError, match="unknown key decision.cnf"):
        write_settings_document(models, {"decision": {"cnf": 0.2}})
    assert read_settings_document(models)["decision"] == {"conf": 0.2}, "a refused write leaves the file alone"


def test_replace_changes_settings_by_section(models):
    settings = read_model_settings(models)
    changed = settings.replace(decision={"conf": 0.6}, passes={"far_imgsz": 0})
    assert (changed.decision.conf, changed.passes.far_imgsz) == (0.6, 0)
    assert changed.detector == settings.detector and settings.decision.conf == 0.25
