"""The committed card art: every deck complete, index boxes on real ink, val decks held out."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.cards import CARD_CODES
from vision.training.synth.decks import DATASETS, Deck, draw_contact_sheet, load_backs, load_decks, load_surface_photos
from web.cli import main as ginscore

# corner -> (right half?, bottom half?); "top": rank top-left and suit top-right, one box
CORNER_QUADRANT = {"tl": (0, 0), "tr": (1, 0), "bl": (0, 1), "br": (1, 1), "top": (None, 0)}


@pytest.fixture(scope="module")
def decks() -> list[Deck]:
    return load_decks()


def deck_meta(deck_id: str) -> dict:
    return json.loads((DATASETS / "decks" / deck_id / "deck.json").read_text())


def paper_colour(face: np.ndarray) -> np.ndarray:
    """Most common colour of the opaque pixels of the card's top third."""
    top = face[: face.shape[0] // 3]
    opaque = top[top[:, :, 3] > 200][:, :3] // 16
    keys = opaque[:, 0].astype(int) * 256 + opaque[:, 1] * 16 + opaque[:, 2]
    paper_key = np.bincount(keys).argmax()
    return np.array([paper_key // 256, paper_key // 16 % 16, paper_key % 16]) * 16 + 8


def test_there_are_at_least_25_decks_with_all_52_faces(decks):
    assert len(decks) >= 25
    for deck in decks:
        assert sorted(deck.faces) == sorted(CARD_CODES), deck.deck_id


def test_faces_of_a_deck_share_one_size_between_320_and_360_px_high(decks):
    for deck in decks:
        sizes = {face.shape for face in deck.faces.values()}
        assert len(sizes) == 1, (deck.deck_id, sizes)
        height, width, channels = sizes.pop()
        assert channels == 4 and 320 <= height <= 360 and 0.55 < width / height < 0.85, deck.deck_id


def test_faces_are_cropped_to_the_card(decks):
    for deck in decks:
        for code, face in deck.faces.items():
            alpha = face[:, :, 3]
            height, width = alpha.shape
            assert alpha[height // 2, width // 2] == 255, (deck.deck_id, code)
            # every border row/column touches the card somewhere (tight crop)
            assert alpha[0].max() > 0 and alpha[-1].max() > 0, (deck.deck_id, code)
            assert alpha[:, 0].max() > 0 and alpha[:, -1].max() > 0, (deck.deck_id, code)
            # rounded corners: transparent in the very corners
            corners = [alpha[0, 0], alpha[0, -1], alpha[-1, 0], alpha[-1, -1]]
            assert max(corners) < 16, (deck.deck_id, code, corners)


def test_every_face_has_one_index_box_per_printed_corner_inside_the_card(decks):
    for deck in decks:
        meta = deck_meta(deck.deck_id)
        corners = meta["corners"]
        for code, boxes in meta["index_regions"].items():
            assert len(boxes) == len(corners), (deck.deck_id, code, boxes)
            for corner, (x0, y0, x1, y1) in zip(corners, boxes, strict=True):
                assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1, (deck.deck_id, code)
                # a corner index is small and lies in the quadrant of its corner
                right, bottom = CORNER_QUADRANT[corner]
                assert y1 - y0 < 0.5, (deck.deck_id, code, corner)
                centre_x, centre_y = (x0 + x1) / 2, (y0 + y1) / 2
                if right is not None:
                    assert x1 - x0 < 0.4, (deck.deck_id, code, corner)
                    assert (centre_x > 0.5) == bool(right), (deck.deck_id, code, corner)
                assert (centre_y > 0.5) == bool(bottom), (deck.deck_id, code, corner)


def test_every_index_box_contains_ink(decks):
    for deck in decks:
        for code, face in deck.faces.items():
            paper = paper_colour(face)
            for x0, y0, x1, y1 in deck.index_boxes[code]:
                region = face[y0:y1, x0:x1]
                ink = np.abs(region[:, :, :3].astype(int) - paper).max(axis=2) > 80
                assert ink.mean() > 0.08, (deck.deck_id, code, (x0, y0, x1, y1), ink.mean())


def test_index_boxes_of_a_deck_sit_at_the_same_place(decks):
    """Boxes of one corner agree across a deck's faces (a stray box means a detection error)."""
    for deck in decks:
        meta = deck_meta(deck.deck_id)
        boxes = np.array([meta["index_regions"][code] for code in CARD_CODES])  # 52 x corners x 4
        centres = (boxes[:, :, :2] + boxes[:, :, 2:]) / 2
        median = np.median(centres, axis=0)
        worst = np.abs(centres - median).max()
        assert worst < 0.08, (deck.deck_id, worst)


def test_held_out_val_decks_exist_and_are_disjoint_from_train(decks):
    train = {d.deck_id for d in load_decks(split="train")}
    val = {d.deck_id for d in load_decks(split="val")}
    assert 4 <= len(val) <= 8
    assert not train & val
    assert train | val == {d.deck_id for d in decks}


def test_unknown_split_is_refused():
    with pytest.raises(ValueError, match="unknown split"):
        load_decks(split="test")


def test_backs_and_surface_photos_load():
    backs = load_backs()
    assert len(backs) >= 5
    assert all(back.ndim == 3 and back.shape[2] == 4 and 320 <= back.shape[0] <= 360 for back in backs)
    photos = load_surface_photos()
    assert 20 <= len(photos) <= 40
    assert all(photo.ndim == 3 and photo.shape[2] == 3 and max(photo.shape[:2]) <= 1280 for photo in photos)


def test_every_committed_picture_is_in_the_notice():
    notice = (DATASETS / "NOTICE.md").read_text()
    names = [path.name for path in (DATASETS / "decks").iterdir() if path.is_dir()]
    names += [path.name for path in (DATASETS / "backs").glob("*.png")]
    names += [path.name for path in (DATASETS / "surfaces").glob("*.jpg")]
    missing = [name for name in names if f"| {name} |" not in notice]
    assert not missing


def test_datasets_folder_stays_small():
    """The assets that make training data (decks, backs, surfaces, fonts) stay small; the real photo
    sets under datasets/real (measured on, never trained on) have their own budget."""
    files = [
        path
        for path in DATASETS.rglob("*")
        if path.is_file() and "generated" not in path.parts and not path.parts[-2].startswith("synth")
    ]
    assets = sum(path.stat().st_size for path in files if path.relative_to(DATASETS).parts[0] != "real")
    real_sets = sum(path.stat().st_size for path in files if path.relative_to(DATASETS).parts[0] == "real")
    assert assets < 35 * 2**20, assets / 2**20
    assert real_sets < 40 * 2**20, real_sets / 2**20


def test_contact_sheet_draws_the_decks(tmp_path, decks):
    out = draw_contact_sheet(decks[:2], tmp_path / "sheet.png")
    from PIL import Image

    with Image.open(out) as sheet:
        assert sheet.width > 500 and sheet.height > 300


def test_decks_command_lists_decks_and_writes_sheet(tmp_path, capsys):
    sheet = tmp_path / "val.png"
    assert ginscore(["decks", "--split", "val", "--contact-sheet", str(sheet)]) == 0
    out = capsys.readouterr().out
    for deck in load_decks(split="val"):
        assert deck.deck_id in out
    assert sheet.is_file()


def test_decks_command_explains_a_missing_folder(tmp_path, capsys):
    assert ginscore(["decks", "--root", str(tmp_path / "nowhere")]) == 2
    assert "build_assets.py" in capsys.readouterr().err


def retypeset_deck_ids() -> list[str]:
    """Decks made by datasets/retypeset_decks.py: their deck.json names the base deck as its source."""
    return sorted(
        path.name
        for path in (DATASETS / "decks").iterdir()
        if (path / "deck.json").is_file() and deck_meta(path.name)["source"].startswith("decks/")
    )


def test_retypeset_decks_change_only_the_corner_indices(decks):
    """A retypeset deck is its base deck with new lettering in the two corners: the pips and court
    pictures are the base's, the index boxes hold new ink in the suit's colour."""
    by_id = {deck.deck_id: deck for deck in decks}
    retypeset = retypeset_deck_ids()
    assert len(retypeset) >= 8
    for deck_id in retypeset:
        base_id = deck_meta(deck_id)["source"].split()[0].split("/")[1]
        deck, base = by_id[deck_id], by_id[base_id]
        assert deck.split == "train" and base.split == "train", deck_id
        for code in ("3h", "8c", "Ts", "Kd"):
            new, old = deck.faces[code].astype(int), base.faces[code].astype(int)
            changed = np.abs(new[:, :, :3] - old[:, :, :3]).max(axis=2) > 40  # palette noise stays below
            near_index = np.zeros(changed.shape, bool)
            for x0, y0, x1, y1 in (*deck.index_boxes[code], *base.index_boxes[code]):
                near_index[max(0, y0 - 3) : y1 + 3, max(0, x0 - 3) : x1 + 3] = True
            assert changed[near_index].mean() > 0.05, (deck_id, code)
            assert changed[~near_index].mean() < 0.002, (deck_id, code, changed[~near_index].mean())
            for x0, y0, x1, y1 in deck.index_boxes[code]:
                region = new[y0:y1, x0:x1, :3]
                ink = region[region.sum(axis=2) < 450]
                red = (ink[:, 0] - ink[:, 1] > 80).mean()
                assert (red > 0.5) == (code[1] in "hd"), (deck_id, code, red)
