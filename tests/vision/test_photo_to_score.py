"""Photo to score: a rendered showdown of a deck the model never trained on, read and scored."""

from __future__ import annotations

import numpy as np
import pytest

from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR

pytestmark = pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/")

KNOCKER = "As 2s 3s 7c 7d 7h Kd Qd Jd 4c".split()
DEFENDER = "5h 6h 7s 8s 9s Tc Jc Qc 2d 3h".split()


def render_showdown(tmp_path):
    """Both hands spread in meld groups, knocker at the top, on a photo surface, camera tilted 15°."""
    import cv2

    from vision.training.synth.camera import Camera
    from vision.training.synth.dataset import load_synth_assets
    from vision.training.synth.layouts import Placement
    from vision.training.synth.scene import render_scene

    assets = load_synth_assets(None)
    deck = next(d for d in assets["val"] if d.deck_id == "bonded")
    rng = np.random.default_rng(5)
    placements = []
    for row, cards in ((-0.75, KNOCKER), (0.75, DEFENDER)):
        x = -1.6
        for i, code in enumerate(cards):
            placements.append(Placement(code, x, row + rng.normal(0, 0.01), rng.normal(0, 2)))
            x += 0.28 if i not in (2, 5) else 0.75
    camera = Camera(tilt=15, yaw=0, roll=0, card_pixels=330, image_size=(2000, 1500))
    scene = render_scene(
        rng, deck, [], assets["photos"][3:4], (2000, 1500), placements=placements, camera=camera, effects=False
    )
    path = tmp_path / "showdown.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return path


@pytest.mark.slow
def test_a_showdown_photo_of_an_unseen_deck_is_read_into_two_hands_and_scored(tmp_path):
    from engine import Rules, score_hand
    from vision.recognise import read_photo

    reading = read_photo(render_showdown(tmp_path))
    top, bottom = (set(hand) for hand in reading.hands)
    assert reading.split_axis == "horizontal" and reading.split_confidence > 0.5
    # every card read lies in its player's hand
    assert top <= set(KNOCKER) and bottom <= set(DEFENDER)
    # the reading is complete: every card of both hands, nothing missed
    assert (sorted(set(KNOCKER) - top), sorted(set(DEFENDER) - bottom)) == ([], [])
    # and the hands as read score as the table would
    result = score_hand(reading.hands[0], reading.hands[1], Rules.preset("standard"))
    assert (result.kind, result.points, result.knocker_deadwood, result.defender_deadwood) == ("knock", 12, 4, 16)
