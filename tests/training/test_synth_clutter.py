"""Clutter on the table: text, a score pad, cloth and objects are drawn, never labelled, and give
"not a card" examples that touch no corner index."""

from __future__ import annotations

import numpy as np
import pytest

from vision.training.synth import clutter
from vision.training.synth.camera import Camera
from vision.training.synth.decks import load_decks
from vision.training.synth.layouts import Placement
from vision.training.synth.scene import render_scene


@pytest.fixture(scope="module")
def deck():
    return load_decks(split="train")[0]


@pytest.mark.parametrize("kind", sorted(clutter.MAKERS))
def test_every_clutter_kind_draws_an_opaque_rgba_sheet_with_content(kind):
    sheet = clutter.make_sheet(np.random.default_rng(3), kind)
    assert sheet.dtype == np.uint8 and sheet.ndim == 3 and sheet.shape[2] == 4
    opaque = sheet[..., 3] > 128
    assert opaque.mean() > 0.5
    assert sheet[..., :3][opaque].std() > 5, f"{kind} is a flat colour: nothing printed or woven on it"


def test_the_fonts_for_printed_clutter_are_in_the_repository():
    assert len(clutter.font_files()) >= 5, "datasets/fonts should hold the TrueType fonts clutter is printed in"


def test_a_score_pad_carries_handwriting_in_ink():
    pad = clutter.score_pad(np.random.default_rng(0))
    paper = np.median(pad.reshape(-1, 3), axis=0)
    ink = np.abs(pad.astype(int) - paper).sum(axis=2) > 120
    assert 0.005 < ink.mean() < 0.3, "a pad is mostly paper with some writing on it"


def test_handwriting_is_written_in_handwriting_fonts_and_keeps_suit_signs():
    """Score pads are written mostly in real handwriting fonts (datasets/fonts/handwriting): OpenCV 5
    draws its Hershey "script" ids as an italic sans, which the reader had learned to ignore."""
    hands = clutter.handwriting_font_files()
    assert len(hands) >= 3
    for face in (str(hands[0]), clutter.HERSHEY_HANDS[0]):
        for glyph in ("K", "7", "\u2665"):  # a suit sign comes from DejaVu Sans when the hand lacks it
            tile, width, height, pad = clutter._glyph_tile(glyph, face, 1.0, 2)
            assert tile.dtype == np.uint8 and width > 3 and height > 8, (face, glyph)
            assert (tile > 128).mean() > 0.01, (face, glyph)
    # two fonts, two different Ks
    k = [clutter._glyph_tile("K", str(path), 1.0, 2)[0] for path in hands[:2]]
    assert k[0].shape != k[1].shape or np.abs(k[0].astype(int) - k[1]).mean() > 5


def _scene_with_clutter(deck, seed=1):
    sheets = [
        clutter.ClutterSheet(
            "score_pad", clutter.make_sheet(np.random.default_rng(seed), "score_pad"), -1.2, 0.0, 10.0, 1.5
        ),
        clutter.ClutterSheet(
            "newspaper", clutter.make_sheet(np.random.default_rng(seed + 1), "newspaper"), 1.3, 0.2, -5.0, 2.5
        ),
    ]
    placements = [Placement(code, -0.3 + 0.3 * i, 0.0, 0.0) for i, code in enumerate(["7h", "8h", "9h"])]
    camera = Camera(tilt=0.0, yaw=0.0, roll=0.0, card_pixels=200.0, image_size=(1000, 700))
    return render_scene(
        np.random.default_rng(seed),
        deck,
        [],
        [],
        (1000, 700),
        placements=placements,
        camera=camera,
        effects=True,
        clutter_sheets=sheets,
    )


def test_clutter_is_drawn_but_never_labelled(deck):
    scene = _scene_with_clutter(deck)
    assert scene.clutter == ["score_pad", "newspaper"]
    assert {label.code for label in scene.labels} <= {"7h", "8h", "9h"}
    assert scene.labels, "the cards' indices are still labelled"


def test_not_a_card_examples_touch_no_index(deck):
    scene = _scene_with_clutter(deck)
    assert len(scene.negatives) >= 4
    regions = np.array(scene.index_regions)
    for x0, y0, x1, y1 in scene.negatives:
        ix = np.clip(np.minimum(x1, regions[:, 2]) - np.maximum(x0, regions[:, 0]), 0, None)
        iy = np.clip(np.minimum(y1, regions[:, 3]) - np.maximum(y0, regions[:, 1]), 0, None)
        areas = np.minimum((regions[:, 2] - regions[:, 0]) * (regions[:, 3] - regions[:, 1]), (x1 - x0) * (y1 - y0))
        assert np.all(ix * iy <= 0.1 * areas), "a negative example overlaps a corner index"
