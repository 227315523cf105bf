"""Trust in the shipped reader: no card read where there is none, every card at any distance, and
floors on the real photo sets (datasets/real) that a retrained model must not lose.

The floors are set from measured numbers of the shipped model (models/MODEL_CARD.md), a little below
them so that noise-free re-runs pass and a real regression fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"),
]

REAL = DEFAULT_MODELS_DIR.parent / "datasets" / "real"

# Measured with the shipped model (models/MODEL_CARD.md, `ginscore eval datasets/real/real-clutter`):
# rank precision 0.996, rank recall 0.994, 292 of 296 photos exact (session 7; sessions 5 and 6: 0.992, 0.994, 290;
# session 4: 0.991, 0.994, 289; session 3: 0.985, 0.987, 284; before the "not a card" class: 0.787, 0.977, 212).
RANK_PRECISION_FLOOR = 0.98
RANK_RECALL_FLOOR = 0.98
EXACT_PHOTOS_FLOOR = 283
# `ginscore eval datasets/real/real-val --zoom 2,3 --shrink 0.5,0.33`: recall 0.983 original, 0.981 zoom x2,
# 0.973 zoom x3, 0.980 shrink 0.33 (session 8; session 7: 0.980, 0.978, 0.973, 0.977; session 6: 0.983, 0.975,
# 0.964, 0.977; before the close-up and far passes: 0.986, 0.926, 0.370, 0.919).
SCALE_FLOORS = {"original": 0.975, "zoom x2": 0.97, "zoom x3": 0.95, "shrink 0.33": 0.97}
# A zoomed crop cuts cards whose index is still read (counted as false here), hence the lower floor.
SCALE_PRECISION_FLOORS = {"original": 0.99, "zoom x2": 0.85, "zoom x3": 0.75, "shrink 0.33": 0.99}


def _val_deck(assets, deck_id="bonded"):
    return next(d for d in assets["val"] if d.deck_id == deck_id)


# Rendered tables with a handwritten score pad and a newspaper page and no card. Session 3's reader read
# a false card on two of them (seed 1: a struck-through "5q" as 4c at 0.73; seed 4: 2c). Since session 7 the pads
# are written in real handwriting fonts (datasets/fonts/handwriting), and session 6's reader read 3 false cards on
# seeds 1 to 12 (seed 2: 2s, seed 5: Qc, seed 7: 6s); the shipped one, trained on the detector's proposals on
# such pads (`ginscore synth --mine-tables`), read none (models/MODEL_CARD.md, "Session 7"). Session 30's reader
# (crops-run10 alone) reads two, both flagged: seed 7, a scribble as 10♦ at 62 %; seed 12, as J♣ at 62 %. A false
# card may be asked about; it must never be shown as sure (on 100 random no-card tables: 3 false, all flagged).
@pytest.mark.parametrize("seed", range(1, 13))
def test_a_table_with_a_score_pad_and_a_newspaper_and_no_cards_shows_no_card_as_sure(seed):
    from vision.recognise import read_photo
    from vision.training.synth import clutter
    from vision.training.synth.camera import Camera
    from vision.training.synth.dataset import load_synth_assets
    from vision.training.synth.scene import render_scene

    assets = load_synth_assets(None)
    rng = np.random.default_rng(seed)
    sheets = [
        clutter.ClutterSheet("score_pad", clutter.make_sheet(rng, "score_pad"), -0.9, 0.1, 4.0, 1.8),
        clutter.ClutterSheet("newspaper", clutter.make_sheet(rng, "newspaper"), 1.2, -0.2, -8.0, 2.6),
    ]
    camera = Camera(tilt=10.0, yaw=0.0, roll=0.0, card_pixels=380.0, image_size=(1600, 1200))
    scene = render_scene(
        rng,
        _val_deck(assets),
        [],
        assets["photos"][2:3],
        (1600, 1200),
        placements=[],
        camera=camera,
        effects=False,
        clutter_sheets=sheets,
    )
    reading = read_photo(scene.image)
    sure = [card.card for card in reading.cards if not card.review]
    assert not sure, f"seed {seed}: read {sure} as sure on a table with no card"
    assert len(reading.cards) <= 1, f"seed {seed}: read {[c.card for c in reading.cards]} on a table with no card"


def test_a_close_up_of_one_spread_reads_every_card():
    from vision.recognise import read_spread
    from vision.training.synth.camera import Camera
    from vision.training.synth.dataset import load_synth_assets
    from vision.training.synth.layouts import Placement
    from vision.training.synth.scene import render_scene

    assets = load_synth_assets(None)
    hand = ["4h", "5h", "6h", "9c", "9d", "9s", "Kd"]
    placements = [Placement(code, -0.75 + 0.25 * i, 0.0, 0.0) for i, code in enumerate(hand)]
    # the spread fills the frame: index corners about a fifth of the image height
    camera = Camera(tilt=8.0, yaw=0.0, roll=0.0, card_pixels=1050.0, image_size=(2400, 1600))
    scene = render_scene(
        np.random.default_rng(7),
        _val_deck(assets),
        [],
        assets["photos"][3:4],
        (2400, 1600),
        placements=placements,
        camera=camera,
        effects=False,
    )
    assert min(label.box[3] - label.box[1] for label in scene.labels) > 0.1 * 1600, "not a close-up"
    reading = read_spread(scene.image)
    assert sorted(c.card for c in reading.cards) == sorted(hand)


def test_a_half_hidden_ten_the_detector_is_sure_of_is_shown_for_review_not_dropped():
    """real-val deal5: the next card hides half of a 10♠'s "10". The detector proposes it at 0.66; the
    main classifier of sessions 7 to 29 called it "not a card" (0.71). A box the detector is that sure of is a
    doubted card (model.json doubted_proposal_conf, doubted_reject_gate): read all the same and flagged for the
    user, never silently dropped. Session 30's classifier reads it as 10♠ at 0.86, and it is shown to check for
    another reason (the spread holds more cards than a hand: its least sure ones are named)."""
    import cv2

    from vision.detector import load_detector
    from vision.recognise import read_photo

    detector = load_detector()
    reading = read_photo(cv2.imread(str(REAL / "real-val" / "images" / "deal5.jpg")), detector=detector)
    ten = [card for card in reading.cards if card.card == "Ts"]
    assert ten, f"10♠ not read: {sorted(c.card for c in reading.cards)}"
    assert ten[0].review, "the half-hidden 10♠ is shown to check (a card is flagged exactly when it has a reason)"


def test_real_clutter_floors(readings_now):
    # real-clutter as `ginscore eval` reads it, read once for this and the golden readings (conftest.py)
    result = readings_now["eval real-clutter"]
    assert result["rank_precision"] >= RANK_PRECISION_FLOOR, result["rank_precision"]
    assert result["rank_recall"] >= RANK_RECALL_FLOOR, result["rank_recall"]
    assert result["photos_exact"] >= EXACT_PHOTOS_FLOOR, result["photos_exact"]


def test_real_val_scale_curve_floors():
    from vision.evaluation.evaluate import evaluate_scale_curve

    rows = {row["variant"]: row for row in evaluate_scale_curve(REAL / "real-val", [2.0, 3.0], [0.33])}
    for variant, floor in SCALE_FLOORS.items():
        assert rows[variant]["recall"] >= floor, (variant, rows[variant])
        assert rows[variant]["precision"] >= SCALE_PRECISION_FLOORS[variant], (variant, rows[variant])
