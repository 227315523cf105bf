"""benchmarks/factorised_read.py: the rank-and-suit read's arithmetic, its data split, and its folded start."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "factorised_read.py"


def load_script():
    spec = importlib.util.spec_from_file_location("factorised_read", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_card_is_its_rank_times_its_suit_and_none_is_the_rank_classifier_s_none():
    script = load_script()
    ranks, suits = ["2", "A", "none"], ["c", "h"]
    rank_p = np.array([[0.6, 0.3, 0.1], [0.0, 0.2, 0.8]])
    suit_p = np.array([[0.25, 0.75], [0.5, 0.5]])
    p, names = script.factorised_cards(rank_p, ranks, suit_p, suits)
    assert names == ["2c", "2h", "Ac", "Ah", "none"]
    assert np.allclose(p[0], [0.15, 0.45, 0.075, 0.225, 0.1]) and np.allclose(p.sum(axis=1), 1.0)
    assert names[int(p[1].argmax())] == "none"
    assert script.shares(["2h", "Ah", "none", "2c"], ["2h", "2h", "none", "none"]) == (
        2,
        2,
        2,
    )  # the suit is counted on labelled cards only


def test_the_split_links_every_card_by_rank_and_by_suit_and_none_by_rank_alone(tmp_path):
    script = load_script()
    for split, code, name in (("train", "Th", "a.png"), ("train", "none", "b.png"), ("val", "Ts", "c.png")):
        folder = tmp_path / "src" / "crops" / split / code
        folder.mkdir(parents=True)
        (folder / name).write_bytes(b"crop")
    script.split(tmp_path / "src", tmp_path / "out")
    linked = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*.png"))
    assert linked == [
        "rank/crops/train/T/Th_a.png",
        "rank/crops/train/none/none_b.png",
        "rank/crops/val/T/Ts_c.png",
        "suit/crops/train/h/Th_a.png",
        "suit/crops/val/s/Ts_c.png",
    ]


def test_the_folded_start_reads_a_crop_s_rank_as_the_52_card_classifier_ranks_it(tmp_path):
    from vision.detector import classify_crops, prepare_ultralytics
    from vision.paths import DEFAULT_MODELS_DIR

    prepare_ultralytics()
    from ultralytics import YOLO

    script = load_script()
    script.folded_start(DEFAULT_MODELS_DIR / "card_index_classifier.pt", tmp_path)
    rank_model = YOLO(str(tmp_path / "rank-start.pt"), task="classify")
    suit_model = YOLO(str(tmp_path / "suit-start.pt"), task="classify")
    assert script.class_names(rank_model)[-1] == "none" and len(script.class_names(rank_model)) == 14
    assert script.class_names(suit_model) == ["c", "d", "h", "s"]
    crops = [np.random.default_rng(k).integers(0, 255, (64, 64, 3), dtype=np.uint8) for k in range(3)]
    for model in (rank_model, suit_model):
        p = classify_crops(model, crops)
        assert p.shape == (3, len(model.names)) and np.allclose(p.sum(axis=1), 1.0, atol=1e-4)
