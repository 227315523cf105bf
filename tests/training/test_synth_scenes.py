"""The scene generator: labels lie on the cards' indices, hidden indices get none, seeds repeat."""

from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detections import HIDDEN_LABELS
from vision.training.synth.camera import Camera
from vision.training.synth.dataset import SynthConfig, generate
from vision.training.synth.decks import load_decks
from vision.training.synth.layouts import Placement
from vision.training.synth.scene import HIDDEN_INDEX_LIMIT, render_scene, sensor_noise


@pytest.fixture(scope="module")
def deck():
    decks = load_decks(split="train")
    assert decks, "no committed training decks"
    return next(d for d in decks if len(d.index_boxes["7h"]) >= 2)


def _straight_camera(size=(640, 480), card_pixels=300.0) -> Camera:
    return Camera(tilt=0.0, yaw=0.0, roll=0.0, card_pixels=card_pixels, image_size=size)


def _index_similarity(scene_image, box, deck, code, index_box) -> float:
    """Correlation between the labelled box in the scene and the deck's own index image."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    seen = cv2.cvtColor(scene_image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    face = deck.faces[code]
    fx0, fy0, fx1, fy1 = (int(round(v)) for v in index_box)
    truth = cv2.cvtColor(face[fy0:fy1, fx0:fx1, :3], cv2.COLOR_BGR2GRAY).astype(np.float32)
    truth = cv2.resize(truth, (seen.shape[1], seen.shape[0]), interpolation=cv2.INTER_AREA)
    return float(np.corrcoef(seen.ravel(), truth.ravel())[0, 1])


def test_labelled_boxes_lie_on_the_card_indices(deck):
    scene = render_scene(
        np.random.default_rng(0),
        deck,
        [],
        [],
        (640, 480),
        placements=[Placement("7h", 0.0, 0.0, 0.0)],
        camera=_straight_camera(),
        effects=False,
    )
    assert [label.code for label in scene.labels] == ["7h"] * len(deck.index_boxes["7h"])
    # Upright camera, upright card: the first index is the top-left one, unrotated.
    top_left = min(scene.labels, key=lambda label: label.box[0] + label.box[1])
    first_index = min(deck.index_boxes["7h"], key=lambda b: b[0] + b[1])
    assert _index_similarity(scene.image, top_left.box, deck, "7h", first_index) > 0.8
    # A box elsewhere on the card does not look like the index.
    x0, y0, x1, y1 = top_left.box
    shifted = (x0 + 60, y0 + 90, x1 + 60, y1 + 90)
    assert _index_similarity(scene.image, shifted, deck, "7h", first_index) < 0.8


def test_index_hidden_under_another_card_gets_no_box(deck):
    # The 8s lies exactly on the 7h: every index of the 7h is covered.
    scene = render_scene(
        np.random.default_rng(0),
        deck,
        [],
        [],
        (640, 480),
        placements=[Placement("7h", 0.0, 0.0, 0.0), Placement("8s", 0.0, 0.0, 0.0)],
        camera=_straight_camera(),
        effects=False,
    )
    codes = [label.code for label in scene.labels]
    assert "7h" not in codes and "8s" in codes
    assert scene.hidden.count("7h") == len(deck.index_boxes["7h"])
    # where each hidden index lies is kept: a reader that reads a 7h there read the card lying there
    hidden_boxes = [label.box for label in scene.hidden_labels if label.code == "7h"]
    assert len(hidden_boxes) == len(deck.index_boxes["7h"])
    eight_boxes = [label.box for label in scene.labels if label.code == "8s"]
    assert np.allclose(sorted(hidden_boxes), sorted(eight_boxes), atol=4.0), "under the 8s's own indices"


def test_overlapping_spread_keeps_the_visible_left_index(deck):
    # 8s shifted right by a quarter card width: the 7h's top-left index still shows,
    # its bottom-right index is under the 8s.
    scene = render_scene(
        np.random.default_rng(0),
        deck,
        [],
        [],
        (640, 480),
        placements=[Placement("7h", -0.1, 0.0, 0.0), Placement("8s", 0.08, 0.0, 0.0)],
        camera=_straight_camera(card_pixels=250),
        effects=False,
    )
    seven = [label for label in scene.labels if label.code == "7h"]
    assert len(seven) >= 1
    assert all(label.visible >= 1 - HIDDEN_INDEX_LIMIT for label in scene.labels)
    assert "7h" in scene.hidden


def _dataset_bytes(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "synth.json"
    }


@pytest.mark.slow
def test_same_seed_same_bytes_different_seed_different_scene(tmp_path):
    a = SynthConfig(out=tmp_path / "a", count=4, imgsz=256, seed=3, workers=2, crops=True)
    b = SynthConfig(out=tmp_path / "b", count=4, imgsz=256, seed=3, workers=1, crops=True)
    c = SynthConfig(out=tmp_path / "c", count=4, imgsz=256, seed=4, workers=1)
    for config in (a, b, c):
        generate(config, progress=False)
    bytes_a, bytes_b = _dataset_bytes(a.out), _dataset_bytes(b.out)
    images_a = {k: v for k, v in bytes_a.items() if k.startswith("images")}
    assert len(images_a) == 4
    assert {k: v for k, v in bytes_a.items() if k != "data.yaml"} == {
        k: v for k, v in bytes_b.items() if k != "data.yaml"
    }
    images_c = {k.replace("_4_", "_3_"): v for k, v in _dataset_bytes(c.out).items() if k.startswith("images")}
    assert images_c.keys() == images_a.keys()
    assert all(images_c[k] != images_a[k] for k in images_a)


def test_dataset_is_an_ultralytics_detection_dataset(tmp_path):
    from ultralytics.data.utils import check_det_dataset

    config = SynthConfig(out=tmp_path / "d", count=10, imgsz=256, seed=1, workers=1)
    stats = generate(config, progress=False)
    assert stats["train"] == 9 and stats["val"] == 1
    data = check_det_dataset(str(config.out / "data.yaml"))
    assert data["nc"] == 52 and data["names"][9] == "Ts"
    hidden_lines = 0
    for label_file in [*(config.out / "labels").rglob("*.txt"), *(config.out / HIDDEN_LABELS).rglob("*.txt")]:
        for line in label_file.read_text().splitlines():
            cls, *xywh = line.split()
            assert 0 <= int(cls) < 52
            assert all(0.0 <= float(v) <= 1.0 for v in xywh)
            hidden_lines += HIDDEN_LABELS in label_file.parts
    assert len(list((config.out / HIDDEN_LABELS).rglob("*.txt"))) == 10, "one hidden-index file per scene"
    assert 0 < hidden_lines <= stats["hidden"], "the hidden indices that lie in the picture"


def test_the_close_up_share_sets_how_many_random_cameras_shoot_close():
    from vision.training.synth.scene import random_camera

    rng = np.random.default_rng(5)
    size = (640, 480)

    def close_share(share: float) -> float:
        cameras = [random_camera(rng, size, 2.0, close_up_share=share) for _ in range(300)]
        # a close-up's card is at least half the long side; no other camera draws one that big
        return sum(camera.card_pixels >= 0.5 * 640 for camera in cameras) / len(cameras)

    assert close_share(0.0) == 0.0
    assert 0.22 <= close_share(0.3) <= 0.38
    assert close_share(0.92) >= 0.85


def test_synth_refuses_a_close_up_share_it_cannot_give(tmp_path, capsys):
    from web.cli import main

    assert main(["synth", "--out", str(tmp_path / "d"), "--count", "2", "--close-ups", "0.97"]) == 2
    err = capsys.readouterr().err
    assert "--close-ups 0.97" in err and "Traceback" not in err
    assert not (tmp_path / "d" / "images").exists()


def test_spreads_are_often_squeezed_to_the_index_column():
    """Real hands are squeezed until only each card's index column shows (real-val: half the indices
    have a neighbour within 0.125 card heights): many synthetic spreads must be as tight."""
    from vision.training.synth.layouts import spread

    rng = np.random.default_rng(5)
    smallest_steps = []
    for _ in range(300):
        placements = spread(rng, ["As", "2s", "3s", "4s", "5s", "6s"], (0.0, 0.0), 0.0)
        steps = [np.hypot(b.x - a.x, b.y - a.y) for a, b in itertools.pairwise(placements)]
        smallest_steps.append(min(steps))
    smallest_steps = np.array(smallest_steps)
    assert smallest_steps.min() >= 0.05  # never so tight that the index hides
    assert 0.2 < (smallest_steps < 0.11).mean() < 0.6  # tight spreads are common, not the rule


@pytest.mark.slow
def test_isolated_crops_show_the_index_on_plain_paper(tmp_path):
    """--isolate-crops: a crop's border (beyond the margin around its index box) is one flat colour."""
    plain = SynthConfig(out=tmp_path / "plain", count=3, imgsz=320, seed=8, workers=1, crops=True)
    isolated = SynthConfig(
        out=tmp_path / "isolated", count=3, imgsz=320, seed=8, workers=1, crops=True, crop_isolate=0.05
    )
    corner_spread = {}
    for config in (plain, isolated):
        generate(config, progress=False)
        files = sorted((config.out / "crops").glob("*/*/*.jpg"))
        assert files
        # the top-left 4 x 4 pixels lie outside every index box (box + 15 % padding + 5 % margin)
        corners = [cv2.imread(str(path))[:4, :4].astype(int) for path in files]
        corner_spread[config.out.name] = np.median([np.ptp(corner, axis=(0, 1)).max() for corner in corners])
    assert corner_spread["isolated"] <= 3 < corner_spread["plain"]


def test_procedural_decks_join_the_training_scenes_the_same_for_the_same_seed():
    from vision.training.synth.dataset import load_synth_assets, make_scene, procedural_scene_decks

    first, again, other = procedural_scene_decks(2, 7), procedural_scene_decks(2, 7), procedural_scene_decks(2, 8)
    assert [d.deck_id for d in first] == ["procedural-7-0", "procedural-7-1"]
    assert all(np.array_equal(a.faces["Qh"], b.faces["Qh"]) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0].faces["Qh"], other[0].faces["Qh"])
    for deck in first:
        assert len(deck.faces) == 52 and deck.split == "train"
        height, width = deck.faces["7c"].shape[:2]
        assert deck.faces["7c"].shape[2] == 4  # BGRA, as the scene renderer draws faces
        for x0, y0, x1, y1 in deck.index_boxes["7c"]:
            assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
    assert procedural_scene_decks(0, 7) == []

    plain, with_procedural = load_synth_assets(None), load_synth_assets(None, procedural=5, seed=11)
    assert len(with_procedural["train"]) == len(plain["train"]) + 5
    assert len(with_procedural["val"]) == len(plain["val"])  # held-out scenes stay the held-out decks alone
    config = SynthConfig(out=Path("unused"), count=40, imgsz=320, seed=11, procedural_decks=5)
    drawn = [make_scene(config, with_procedural, i) for i in range(30)]
    procedural = [(split, scene) for split, scene in drawn if scene.deck_id.startswith("procedural-11-")]
    assert procedural and {split for split, _ in procedural} == {"train"}
    assert sum(len(scene.labels) for _, scene in procedural) > 0


def test_the_sensor_noise_falls_on_every_channel_alike_and_repeats_with_its_seed():
    noise = sensor_noise(np.random.default_rng(3), (200, 200, 3), 6.0)
    assert noise.dtype == np.float32
    assert np.allclose(noise.reshape(-1, 3).std(axis=0), 6.0, rtol=0.05)  # OpenCV given one sd fills one channel
    assert np.allclose(noise.reshape(-1, 3).mean(axis=0), 0.0, atol=0.2)
    assert np.array_equal(noise, sensor_noise(np.random.default_rng(3), (200, 200, 3), 6.0))
    assert not np.array_equal(noise, sensor_noise(np.random.default_rng(4), (200, 200, 3), 6.0))
