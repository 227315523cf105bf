"""Teaching a deck from the photos a player takes: one suit's 13 cards lying apart in two rows on a table.

The photos are rendered (``vision.training.synth.table_photo``) with a held-out deck on a light wooden
table, a dark cloth and a patterned cloth, at a webcam's 1920 x 1080 and a phone's 4032 x 3024. The
geometry is tested without the reader (index boxes from the rendering); ``deck add`` with the shipped
reader, copied: models/ is only read.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from vision.model_settings import DETECTOR_FILE
from vision.paths import DEFAULT_MODELS_DIR
from vision.training.synth.decks import DATASETS, load_deck
from vision.training.synth.table_photo import PHONE, render_table_photo, write_suit_photos
from vision.training.table_cards import _order_quad, photo_cards, place_cards, predict_from_corners
from web.cli import main

needs_model = pytest.mark.skipif(
    not (DEFAULT_MODELS_DIR / DETECTOR_FILE).exists(), reason="no shipped model in models/"
)

DECK = "kde_penguins"  # held out: split "val" in its deck.json, never trained on
LIGHT_WOOD, DARK_CLOTH, PATTERNED_CLOTH = "gimp_pine.jpg", "gimp_burlap.jpg", "digikam_fabric.jpg"
TABLES = (LIGHT_WOOD, DARK_CLOTH, PATTERNED_CLOTH)
SPADES = [rank + "s" for rank in "A23456789TJQK"]


@pytest.fixture(scope="module")
def deck():
    deck = load_deck(DATASETS / "decks" / DECK)
    assert deck.split == "val"
    return deck


@pytest.fixture(scope="module")
def reader(models_copy):
    from vision.detector import load_detector

    return load_detector(models_copy)


def index_detections(deck, codes, quads) -> Detections:
    """The boxes a perfect reader gives: each card's corner indices (deck.json) where the rendering put them,
    but those lying under a card laid later."""
    rows = []
    for k, (code, quad) in enumerate(zip(codes, quads, strict=True)):
        height, width = deck.faces[code].shape[:2]
        face = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
        to_photo = cv2.getPerspectiveTransform(face, quad.astype(np.float32))
        for x0, y0, x1, y1 in deck.index_boxes[code]:
            corners = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]], dtype=np.float64) @ to_photo.T
            points = corners[:, :2] / corners[:, 2:3]
            centre = tuple(float(v) for v in points.mean(axis=0))
            if not any(cv2.pointPolygonTest(later.astype(np.float32), centre, False) >= 0 for later in quads[k + 1 :]):
                rows.append((code, (*points.min(axis=0), *points.max(axis=0)), 0.95))
    return Detections.from_cards(rows)


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """The largest distance between two outlines' corners, in card heights."""
    height = float(np.linalg.norm(truth[3] - truth[0]))
    return float(np.max(np.linalg.norm(_order_quad(found) - _order_quad(truth), axis=1))) / height


def matched(cards_quads, truth_quads, error=0.06) -> int:
    """How many true cards have a found outline within ``error`` card heights at every corner."""
    return sum(any(corner_error(found, truth) <= error for found in cards_quads) for truth in truth_quads)


# ---------------------------------------------------------------- the rendered photos


def test_a_rendered_table_photo_lays_the_cards_apart_in_two_rows(deck):
    image, quads = render_table_photo(deck, SPADES, LIGHT_WOOD, seed=1, gap_cm=(1.0, 3.0))
    assert image.shape == (1080, 1920, 3) and len(quads) == 13
    centres = np.array([q.mean(axis=0) for q in quads])
    heights = [np.linalg.norm(q[3] - q[0]) for q in quads]
    rows = np.unique(np.round((centres[:, 1] - centres[:, 1].min()) / np.median(heights)))
    assert len(rows) == 2  # two rows, a card's height and a gap apart
    for k, quad in enumerate(quads):  # inside the photo, overlapping no other card
        assert quad.min() >= 0 and quad[:, 0].max() < 1920 and quad[:, 1].max() < 1080
        for other in quads[k + 1 :]:
            area, _ = cv2.intersectConvexConvex(quad.astype(np.float32), other.astype(np.float32))
            assert area == 0
    again, _ = render_table_photo(deck, SPADES, LIGHT_WOOD, seed=1, gap_cm=(1.0, 3.0))
    assert np.array_equal(image, again)  # one seed, one photo


# ---------------------------------------------------------------- placing cards by their corner indices


def test_two_corner_indices_give_a_cards_middle_size_and_angle():
    # a card 250 px high and 175 wide, standing up, its 20 x 40 px indices 6.25 and 7.5 px from its corners
    card = predict_from_corners(np.array([6.25, 7.5, 26.25, 47.5]), np.array([148.75, 202.5, 168.75, 242.5]))
    assert card is not None and card.centre == (87.5, 125.0) and card.angle == pytest.approx(0.0)
    assert (card.width, card.height) == pytest.approx((175.0, 250.0))
    upside_down = predict_from_corners(np.array([148.75, 202.5, 168.75, 242.5]), np.array([6.25, 7.5, 26.25, 47.5]))
    assert upside_down is not None and upside_down.centre == card.centre and upside_down.angle == pytest.approx(0.0)
    assert predict_from_corners(np.array([10, 10, 30, 50]), np.array([40, 10, 60, 50])) is None  # neighbours


@pytest.mark.parametrize("table", TABLES)
def test_cards_apart_are_placed_by_their_indices_and_fitted_to_their_outline(deck, table):
    image, quads = render_table_photo(deck, SPADES, table, seed=2)
    placed, notes = place_cards(image, index_detections(deck, SPADES, quads))
    assert len(placed) == 13 and notes == []
    assert matched([card.outline for card in placed], quads, error=0.04) == 13


def test_cards_on_a_table_as_white_as_they_are_are_placed_by_their_indices_alone(deck):
    white = np.full((600, 800, 3), 247, np.uint8)
    image, quads = render_table_photo(deck, SPADES, white, seed=3)
    placed, _ = place_cards(image, index_detections(deck, SPADES, quads))
    assert len(placed) == 13 and matched([card.outline for card in placed], quads, error=0.08) == 13


def test_touching_cards_are_each_placed(deck):
    image, quads = render_table_photo(deck, SPADES, DARK_CLOTH, seed=4, gap_cm=0.0)
    placed, notes = place_cards(image, index_detections(deck, SPADES, quads))
    assert len(placed) == 13 and notes == []
    assert matched([card.outline for card in placed], quads, error=0.06) == 13


def test_an_overlapping_row_is_said_so_and_the_clear_cards_are_kept(deck):
    image, quads = render_table_photo(deck, SPADES, LIGHT_WOOD, seed=3, row_gaps=[-4.5, (1.0, 3.0)])
    placed, notes = place_cards(image, index_detections(deck, SPADES, quads))
    assert len(notes) == 1 and "overlap" in notes[0] and "lay the cards 1-3 cm apart" in notes[0]
    # the row lying apart (8s..Ks) and the top card of the spread (7s, wholly seen) are kept
    assert matched([card.outline for card in placed], quads[6:], error=0.05) == 7 and len(placed) == 7


# ---------------------------------------------------------------- deck add with the reader


def accepting_user(prompts: list[str]):
    """A user who accepts the reader's name at every question (and leaves a face out if asked again)."""

    def ask(prompt: str) -> str:
        answer = "-" if prompt in prompts else ""
        prompts.append(prompt)
        return answer

    return ask


def faces_named_right_or_asked(result: dict, photos) -> tuple[int, int, int]:
    """Of the rendered cards: faces found, found and named right or asked about, asked about."""
    found = right_or_asked = asked = 0
    for path, codes, quads in photos:
        for code, quad in zip(codes, quads, strict=True):
            height = float(np.linalg.norm(quad[3] - quad[0]))
            rows = [
                row
                for row in result["faces_found"]
                if row["photo"] == str(path) and np.hypot(*(np.array(row["centre"]) - quad.mean(axis=0))) < 0.3 * height
            ]
            if rows:
                found += 1
                right_or_asked += rows[0]["asked"] or rows[0]["written"] == code
                asked += rows[0]["asked"]
    return found, right_or_asked, asked


@needs_model
@pytest.mark.slow
@pytest.mark.parametrize("table", TABLES)
def test_deck_add_finds_and_names_the_52_cards_of_four_webcam_photos(tmp_path, deck, reader, table):
    from vision.training.teach_deck import teach_deck

    photos = write_suit_photos(deck, table, tmp_path / "photos", 4, seed=10)
    prompts: list[str] = []
    out = io.StringIO()
    result = teach_deck(
        "mine", [tmp_path / "photos"], instance=tmp_path, detector=reader, ask=accepting_user(prompts), out=out
    )
    found, right_or_asked, asked = faces_named_right_or_asked(result, photos)
    assert found >= 51 and right_or_asked >= 51, (found, right_or_asked, out.getvalue())
    assert asked == len(prompts) <= 13  # only the names the reader is unsure of are asked about
    meta = json.loads((tmp_path / "decks" / "mine" / "deck.json").read_text())
    assert meta["faces"] >= 51 and len(meta["reader_index_regions"]) >= 51


@needs_model
@pytest.mark.slow
def test_a_phone_photo_of_13_cards_gives_13_faces_named_right_or_doubted(tmp_path, deck, reader):
    from vision.training.face_names import name_faces

    image, quads = render_table_photo(deck, SPADES, LIGHT_WOOD, size=PHONE, seed=5)
    path = tmp_path / "phone.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    found = photo_cards(path, detector=reader)
    assert len(found.cards) == 13 and matched([card.quad for card in found.cards], quads, error=0.05) == 13
    namings = name_faces(
        reader,
        [card.face for card in found.cards],
        photo_readings=[card.reading for card in found.cards],
        notes=[card.notes for card in found.cards],
        index_boxes=[card.index_boxes for card in found.cards],
    )
    centres = np.array([quad.mean(axis=0) for quad in quads])
    for card, naming in zip(found.cards, namings, strict=True):
        code = SPADES[int(np.argmin(np.hypot(*(centres - card.quad.mean(axis=0)).T)))]
        assert naming.best == code or not naming.sure, (card.label, code, naming)


# ---------------------------------------------------------------- bad input: said in words, nothing lost


@pytest.fixture(scope="module")
def bad_photos(tmp_path_factory, deck):
    """A good photo of the spades, and photos that go wrong in the ways photos do."""
    folder = tmp_path_factory.mktemp("bad")
    other = load_deck(DATASETS / "decks" / "atlasnye")  # another deck: its index smaller, its card narrower
    photos = {
        "spades": render_table_photo(deck, SPADES, DARK_CLOTH, seed=20)[0],
        "no_card": render_table_photo(deck, [], LIGHT_WOOD, seed=21)[0],
        "blurred": render_table_photo(deck, ["2h", "3h", "4h"], DARK_CLOTH, seed=22, blur=6.0)[0],
        "spread": render_table_photo(
            deck, [r + "d" for r in "A23456789"], DARK_CLOTH, seed=23, row_gaps=[-4.5, (1.0, 3.0)]
        )[0],
        "again": render_table_photo(deck, ["As", "Kc"], DARK_CLOTH, seed=24)[0],  # As is in "spades" too
        "other_deck": render_table_photo(other, ["5c", "6c", "7c"], DARK_CLOTH, seed=25)[0],
    }
    paths = {}
    for name, image in photos.items():
        paths[name] = folder / f"{name}.jpg"
        cv2.imwrite(str(paths[name]), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return paths


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory, bad_photos, models_copy, reader):
    """``deck add --yes`` on all of them, into a deck that already holds a face taught before."""
    from vision.training.teach_deck import to_rgba_face, write_deck

    instance = tmp_path_factory.mktemp("instance")
    folder = instance / "decks" / "mine"
    taught_before = to_rgba_face(np.full((340, 240, 3), 200, np.uint8), (240, 340))
    write_deck(folder, "mine", {"Kc": taught_before, "Qh": taught_before}, {"Kc": "earlier", "Qh": "earlier"})
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(
            [
                "deck",
                "add",
                "mine",
                *map(str, bad_photos.values()),
                "--yes",
                "--instance",
                str(instance),
                "--models",
                str(models_copy),
            ]
        )
    meta = json.loads((folder / "deck.json").read_text())
    return code, out.getvalue(), meta, folder


@needs_model
@pytest.mark.slow
def test_a_photo_with_no_card_is_said_so(bad_run):
    code, out, meta, _ = bad_run
    assert code == 0 and "no_card.jpg: no card found" in out


@needs_model
@pytest.mark.slow
def test_a_blurred_photo_is_said_so_and_its_cards_left_out(bad_run):
    _, out, meta, _ = bad_run
    assert "blurred.jpg: the photo is blurred" in out and "holding the camera still" in out
    assert not {"2h", "3h", "4h"} & set(meta["photos"])


@needs_model
@pytest.mark.slow
def test_an_overlapping_spread_is_said_so_and_its_clear_cards_kept(bad_run):
    _, out, meta, _ = bad_run
    assert "spread.jpg: cards overlap" in out
    assert {"6d", "7d", "8d", "9d"} <= set(meta["photos"])  # the row lying apart
    assert not {"Ad", "2d", "3d"} & set(meta["photos"])  # under the others


@needs_model
@pytest.mark.slow
def test_two_cards_of_one_name_keep_one_and_say_so(bad_run):
    _, out, meta, _ = bad_run
    said = [line for line in out.splitlines() if "two cards of one name" in line]
    assert len(said) == 1 and said[0].startswith("left out") and " As " in said[0]
    assert "As" in meta["photos"]


@needs_model
@pytest.mark.slow
def test_cards_of_another_deck_are_reported(bad_run):
    _, out, meta, _ = bad_run
    assert out.count("a card of another deck?") >= 2
    assert sum(label.startswith("other_deck.jpg") for label in meta["photos"].values()) <= 1


@needs_model
@pytest.mark.slow
def test_a_face_taught_before_is_kept_when_replaced_and_nothing_else_is_lost(bad_run):
    _, out, meta, folder = bad_run
    assert "deck mine already has 2/52 faces" in out
    assert meta["photos"]["Qh"] == "earlier" and meta["photos"]["Kc"].startswith("again.jpg")
    assert "replaced 1 face taught before (Kc)" in out and len(list((folder / "replaced").rglob("Kc.png"))) == 1
    assert all(meta["photos"][code].startswith("spades.jpg") for code in SPADES if code != "As")


def test_a_deck_named_like_a_library_deck_is_refused(tmp_path, capsys):
    assert main(["deck", "add", "bonded", str(tmp_path), "--yes", "--instance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "taken by a deck of the card art library" in err and "Traceback" not in err


def test_the_card_finders_docstring_examples_hold():
    import doctest

    import vision.training.table_cards

    failures, tried = doctest.testmod(vision.training.table_cards)
    assert tried > 0 and failures == 0


@needs_model
@pytest.mark.slow
def test_two_cards_of_one_name_are_both_asked_about_when_someone_answers(tmp_path, bad_photos, reader):
    from vision.training.teach_deck import teach_deck

    prompts: list[str] = []
    photos = [bad_photos["spades"], bad_photos["again"]]
    teach_deck("mine", photos, instance=tmp_path, detector=reader, ask=accepting_user(prompts), out=io.StringIO())
    about_as = [prompt for prompt in prompts if "reads As" in prompt and "two cards of one name" in prompt]
    assert any("again.jpg card" in prompt for prompt in about_as)
    assert any("spades.jpg card" in prompt and "reads As too" in prompt for prompt in prompts)
