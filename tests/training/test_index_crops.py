"""The index-crop renderer and procedural decks (vision/training/synth/index_crops.py, procedural_decks.py).

Only the fonts committed under datasets/fonts are used here: CI installs no font package."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from engine.cards import CARD_CODES
from vision.crops import CROP_SIZE, crop_index
from vision.detections import box_iou
from vision.training.synth import index_crops, procedural_decks
from vision.training.synth.index_crops import REJECT_CLASS, CropRenderer, Face, deck_of, index_view, label_box

COMMITTED = (procedural_decks.COMMITTED_FONT_DIR,)


def committed_fonts() -> tuple[tuple, tuple]:
    return procedural_decks.index_fonts(COMMITTED), procedural_decks.suit_fonts(COMMITTED)


def test_committed_fonts_letter_every_rank_but_no_handwriting_face():
    fonts, suits = committed_fonts()
    assert len(fonts) >= 5 and suits  # DejaVu and Liberation faces; DejaVu has the suit signs
    assert not any("dkg" in f.name.lower() or "dancing" in f.name.lower() for f in fonts)
    assert all(procedural_decks.legible(str(f)) for f in fonts)


def test_a_procedural_deck_has_52_faces_each_with_its_indices_inked_inside_the_face():
    fonts, suits = committed_fonts()
    rng = np.random.default_rng(3)
    for _ in range(4):
        style, faces, boxes = procedural_decks.random_deck(rng, fonts, suits)
        assert set(faces) == set(CARD_CODES)
        for code in CARD_CODES:
            face = faces[code]
            height, width = face.shape[:2]
            assert len(boxes[code]) == (4 if style.four_indices else 2)
            for x0, y0, x1, y1 in boxes[code]:
                assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
                ink = face[y0:y1, x0:x1, :3].astype(int)
                paper = np.array(style.paper)
                assert np.abs(ink - paper).sum(axis=2).max() > 100, f"{code}: nothing printed in its index box"


def test_court_letters_follow_the_deck_language():
    fonts, suits = committed_fonts()
    style = procedural_decks.random_style(np.random.default_rng(0), fonts, suits)
    french = procedural_decks.DeckStyle(**{**style.__dict__, "language": "french"})
    assert [french.rank_text(r) for r in "KQJA"] == ["R", "D", "V", "A"]
    assert style.__class__(**{**style.__dict__, "language": "german"}).rank_text("J") == "B"


def test_a_deck_may_print_its_bottom_index_upright_with_the_suit_over_the_rank():
    fonts, suits = committed_fonts()
    style = procedural_decks.random_style(np.random.default_rng(1), fonts, suits)
    style = style.__class__(**{**style.__dict__, "side_by_side": False, "four_indices": False})
    faces = {}
    for upright in (False, True):
        drawn = style.__class__(**{**style.__dict__, "bottom_upright": upright})
        faces[upright] = procedural_decks.draw_face(drawn, "6c", np.random.default_rng(2))
    (turned, boxes), (upright_face, same_boxes) = faces[False], faces[True]
    assert boxes == same_boxes
    (x0, y0, x1, y1), (u0, v0, u1, v1) = boxes
    assert np.array_equal(turned[y0:y1, x0:x1], upright_face[y0:y1, x0:x1])  # the top index is the same
    top = turned[y0:y1, x0:x1, :3].astype(int)
    assert np.abs(turned[v0:v1, u0:u1, :3].astype(int) - top[::-1, ::-1]).mean() < 8  # turned half round
    assert np.abs(upright_face[v0:v1, u0:u1, :3].astype(int) - top[::-1, ::-1]).mean() > 8  # printed upright


def small_renderer(seed: int = 0, size: int = CROP_SIZE) -> CropRenderer:
    fonts, suits = committed_fonts()
    _, faces, boxes = procedural_decks.random_deck(np.random.default_rng(seed), fonts, suits)
    return CropRenderer([deck_of(faces, boxes)], photos=[], backs=[], procedural=False, seed=seed, size=size)


@pytest.mark.parametrize("size", [CROP_SIZE, 96])
def test_crops_are_the_classifiers_input_and_the_same_seed_draws_the_same_crops(size):
    first = [small_renderer(size=size).crop(np.random.default_rng(1)) for _ in range(1)]
    renderer_a, renderer_b = small_renderer(size=size), small_renderer(size=size)
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    drawn_a = [renderer_a.crop(rng_a) for _ in range(40)]
    drawn_b = [renderer_b.crop(rng_b) for _ in range(40)]
    for (name_a, crop_a), (name_b, crop_b) in zip(drawn_a, drawn_b, strict=True):
        assert name_a == name_b and np.array_equal(crop_a, crop_b)
        assert crop_a.shape == (size, size, 3) and crop_a.dtype == np.uint8
        assert name_a in CARD_CODES or name_a == REJECT_CLASS
    assert first[0][1].std() > 5  # not a blank square


def test_the_renderer_draws_indices_of_the_sizes_it_is_given(monkeypatch):
    """``index_pixels`` (``ginscore crops --smallest-index``) is the range of index sizes drawn, in photo px."""
    drawn: list[float] = []
    view = index_crops.index_view

    def recording_view(box, pixels, turn, tilt=(0.0, 0.0)):
        drawn.append(pixels)
        return view(box, pixels, turn, tilt)

    monkeypatch.setattr(index_crops, "index_view", recording_view)
    fonts, suits = committed_fonts()
    _, faces, boxes = procedural_decks.random_deck(np.random.default_rng(0), fonts, suits)
    for low, high in ((16.0, 90.0), (30.0, 40.0)):
        renderer = CropRenderer([deck_of(faces, boxes)], [], [], procedural=False, size=96, index_pixels=(low, high))
        drawn.clear()
        rng = np.random.default_rng(4)
        for _ in range(60):
            renderer.crop(rng)
        assert drawn and low <= min(drawn) and max(drawn) <= high
    assert index_crops.INDEX_PIXELS[0] < 16  # the default draws smaller indices than the first range above


def camera_photo(face: np.ndarray, to_photo: np.ndarray, size: int, supersample: int = 4) -> np.ndarray:
    """A photo of the face on the plain table, drawn ``supersample`` times larger and shrunk as a camera's
    pixels average the light (no aliasing)."""
    big = size * supersample
    photo = np.full((big, big, 3), index_crops.PLAIN_TABLE, np.uint8)
    centre = (supersample - 1) / 2  # a photo pixel's centre among the big pixels it averages
    matrix = index_crops._translation(centre, centre) @ np.diag([supersample, supersample, 1.0]) @ to_photo
    index_crops._over(photo, cv2.warpPerspective(face, matrix, (big, big), flags=cv2.INTER_LINEAR))
    return cv2.resize(photo, (size, size), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("size", [CROP_SIZE, 96])
def test_the_clean_crop_of_a_card_is_the_readers_crop_of_the_same_card_in_a_photo(size):
    """The renderer's framing is the reader's: a face drawn into a photo and cut by ``crop_index`` round its
    labelled index gives the crop the renderer draws of it directly (mean difference 0.4 to 7 of 255 here,
    largest for the smallest index, whose few pixels the renderer's pyramid averages a little more softly than
    the supersampled camera does), and much closer than the crop of another card; at 64 px, and at 96 px as the
    reader cuts crops for a classifier trained at 96."""
    renderer = small_renderer(2, size)
    deck = renderer.packaged[0]
    for code, pixels, turn in (("Qh", 40.0, 0.0), ("Ts", 24.0, math.pi / 2), ("7d", 60.0, 2.5), ("As", 15.0, 0.4)):
        subject: Face = deck[code]
        box = subject.boxes[0]
        rendered = renderer.render(np.random.default_rng(0), deck, subject, box, False, pixels, turn, clean=True)
        local, quad = index_view(box, pixels, turn)
        photo_size = 900
        to_photo = index_crops._translation(photo_size / 2, photo_size / 2) @ local
        photo = camera_photo(subject.image, to_photo, photo_size)
        reader = crop_index(photo, label_box(quad, photo_size / 2), size=size)
        difference = np.abs(rendered.astype(int) - reader.astype(int)).mean()
        assert difference < 8, f"{code} at {pixels} px: mean difference {difference:.1f}"
        other = deck["8c" if code != "8c" else "9c"]
        other_crop = renderer.render(
            np.random.default_rng(0), deck, other, other.boxes[0], False, pixels, turn, clean=True
        )
        assert np.abs(other_crop.astype(int) - reader.astype(int)).mean() > 2 * difference


@pytest.mark.slow
def test_the_shipped_detector_boxes_the_index_the_renderer_frames():
    """On a photo of one card drawn as the renderer draws it, the reader's own detector finds the index box
    the renderer labels (IoU >= 0.5): the renderer frames what the reader will cut."""
    from vision.recognise import read_photo

    renderer = small_renderer(4)
    deck = renderer.packaged[0]
    subject = deck["9c"]
    height, width = subject.image.shape[:2]
    photo_size = 1024
    scale = 3.2
    to_photo = index_crops._translation(photo_size / 2 - width * scale / 2, photo_size / 2 - height * scale / 2)
    to_photo = to_photo @ np.diag([scale, scale, 1.0])
    photo = camera_photo(subject.image, to_photo, photo_size)
    reading = read_photo(photo)
    labels = [label_box(index_crops._project(to_photo, index_crops._corners(b)), 0.0) for b in subject.boxes]

    assert [card.card for card in reading.cards] == ["9c"]
    boxes = np.array([b for card in reading.cards for b in card.boxes], dtype=float)
    assert (box_iou(np.array(labels), boxes).max(axis=1) >= 0.5).all()


def test_ginscore_crops_writes_a_deck_s_crops_in_the_classifier_layout(tmp_path, capsys):
    from web.cli import main

    assert (
        main(
            [
                "crops",
                "--out",
                str(tmp_path),
                "--count",
                "40",
                "--val-count",
                "8",
                "--workers",
                "1",
                "--deck",
                "anglo",
                "--seed",
                "5",
                "--size",
                "96",
            ]
        )
        == 0
    )
    train = sorted((tmp_path / "crops" / "train").glob("*/*.jpg"))
    val = sorted((tmp_path / "crops" / "val").glob("*/*.jpg"))
    assert len(train) == 40 and len(val) == 8
    assert {p.parent.name for p in train} <= {*CARD_CODES, REJECT_CLASS}
    assert cv2.imread(str(train[0])).shape == (96, 96, 3)
    assert "48 crops" in capsys.readouterr().out


def test_ginscore_crops_says_what_is_wrong_with_a_deck_it_cannot_find(tmp_path, capsys):
    from web.cli import main

    assert main(["crops", "--out", str(tmp_path), "--count", "5", "--deck", "no_such_deck"]) == 2
    error = capsys.readouterr().err
    assert "no_such_deck" in error and "Traceback" not in error
    assert main(["crops", "--out", str(tmp_path), "--count", "-1"]) == 2
    assert "--count" in capsys.readouterr().err
    assert main(["crops", "--out", str(tmp_path), "--count", "5", "--size", "100"]) == 2
    error = capsys.readouterr().err
    assert "--size 100" in error and "multiple of 32" in error and "Traceback" not in error
    assert main(["crops", "--out", str(tmp_path), "--count", "5", "--smallest-index", "200"]) == 2
    error = capsys.readouterr().err
    assert "--smallest-index 200" in error and "Traceback" not in error
