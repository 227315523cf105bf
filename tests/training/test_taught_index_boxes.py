"""Teaching a deck boxes every index it prints, on the index: each of the five held-out decks taught from four
rendered webcam photos (one suit each, on a light wooden table, a dark cloth or a patterned cloth) with the
shipped reader (copied), and a four-index deck from one 12 MP phone photo. The taught boxes are checked against
the library's own ``index_regions`` of the same faces (IoU >= 0.5); a four-index deck (bonded) gets four boxes
on every face, a two-index deck two."""

from __future__ import annotations

import io
import json

import cv2
import numpy as np
import pytest

from vision.detections import box_iou
from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR
from vision.training.synth.decks import DATASETS, load_deck
from vision.training.synth.table_photo import PHONE, render_table_photo, write_suit_photos

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"),
]

LIGHT_WOOD, DARK_CLOTH, PATTERNED_CLOTH = "gimp_pine.jpg", "gimp_burlap.jpg", "digikam_fabric.jpg"
# each held-out deck on a table, the three tables in turn; bonded prints an index in all four corners
TAUGHT = [
    ("bonded", LIGHT_WOOD, 4),
    ("kde_penguins", DARK_CLOTH, 2),
    ("kde_ancient_egyptians", PATTERNED_CLOTH, 2),
    ("atlasnye", LIGHT_WOOD, 2),
    ("kde_jolly_royal", DARK_CLOTH, 2),
]


@pytest.fixture(scope="module")
def reader(models_copy):
    from vision.detector import load_detector

    return load_detector(models_copy)


def library_fractions(deck, code: str) -> np.ndarray:
    height, width = deck.faces[code].shape[:2]
    return np.array(deck.index_boxes[code], dtype=np.float64) / np.array([width, height, width, height])


def misplaced_boxes(deck, regions: dict[str, list[list[float]]]) -> list[tuple[str, list[float]]]:
    """The taught faces with a library index no taught box covers at IoU >= 0.5 (code, best IoU of each)."""
    misplaced = []
    for code, boxes in regions.items():
        best = box_iou(library_fractions(deck, code), np.array(boxes, dtype=np.float64)).max(axis=1)
        if (best < 0.5).any():
            misplaced.append((code, best.round(2).tolist()))
    return misplaced


@pytest.mark.parametrize(("deck_id", "table", "corners"), TAUGHT)
def test_deck_add_boxes_every_printed_index_on_the_index(tmp_path, reader, deck_id, table, corners):
    from vision.training.teach_deck import teach_deck

    deck = load_deck(DATASETS / "decks" / deck_id)
    assert deck.split == "val" and all(len(boxes) == corners for boxes in deck.index_boxes.values())
    write_suit_photos(deck, table, tmp_path / "photos", 4, seed=10)
    out = io.StringIO()
    result = teach_deck("mine", [tmp_path / "photos"], instance=tmp_path, detector=reader, ask=None, out=out)
    meta = json.loads((tmp_path / "decks" / "mine" / "deck.json").read_text())
    assert meta["faces"] >= 48, out.getvalue()  # the rest: faces the reader doubts as another deck's, left out
    assert len(meta["corners"]) == corners
    assert all(len(boxes) == corners for boxes in meta["index_regions"].values())
    assert misplaced_boxes(deck, meta["index_regions"]) == []
    # no surely read card is left out
    assert [row["label"] for row in result["faces_found"] if row["sure"] and row["written"] is None] == []
    # the boxes the reader did not confirm are named, and drawn in the preview
    assert set(meta["unconfirmed_indices"]) <= set(meta["index_regions"])
    assert (tmp_path / "decks" / "mine" / "preview.png").is_file()


def test_a_phone_photo_of_a_four_index_deck_gives_four_boxes_on_every_face(tmp_path, reader):
    from vision.training.face_indices import as_fractions, deck_indices
    from vision.training.table_cards import photo_cards

    deck = load_deck(DATASETS / "decks" / "bonded")
    clubs = [rank + "c" for rank in "A23456789TJQK"]
    image, quads = render_table_photo(deck, clubs, PATTERNED_CLOTH, size=PHONE, seed=6)
    path = tmp_path / "phone.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    found = photo_cards(path, detector=reader)
    assert len(found.cards) == 13, found.notes
    centres = np.array([quad.mean(axis=0) for quad in quads])
    codes = [clubs[int(np.argmin(np.hypot(*(centres - card.quad.mean(axis=0)).T)))] for card in found.cards]
    on_faces = {
        code: as_fractions(card.corner_indices, (card.face.shape[1], card.face.shape[0]))
        for code, card in zip(codes, found.cards, strict=True)
    }
    layout = deck_indices(on_faces, dict.fromkeys(on_faces, (1, 1)))
    assert layout.corners == ("tl", "tr", "bl", "br")
    regions = {code: [list(box) for box in boxes] for code, boxes in layout.boxes.items()}
    assert all(len(boxes) == 4 for boxes in regions.values())
    assert misplaced_boxes(deck, regions) == []
