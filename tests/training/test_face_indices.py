"""A taught deck's index boxes as the reader sees them on each straightened face (``vision.training.face_indices``):
the deck's layout by the majority of its faces, and a face's box that the reader did not confirm replaced by
the deck's usual one and doubted. No model: the boxes are given."""

from __future__ import annotations

import pytest

from vision.training.face_indices import corner_of, deck_indices, index_doubts

SIZE = (240, 340)
TL, BR = (10.0, 10.0, 40.0, 80.0), (200.0, 260.0, 230.0, 330.0)
TR, BL = (200.0, 10.0, 230.0, 80.0), (10.0, 260.0, 40.0, 330.0)


def test_the_corner_of_a_box_is_the_zone_its_centre_lies_in():
    assert [corner_of(box, SIZE) for box in (TL, TR, BL, BR)] == ["tl", "tr", "bl", "br"]
    assert corner_of((100, 150, 140, 190), SIZE) is None  # a pip in the middle of the face


def test_a_two_index_deck_gets_two_boxes_on_every_face_and_a_stray_corner_is_ignored():
    found = {f"f{k}": {"tl": TL, "br": BR} for k in range(6)}
    found["f0"] = {"tl": TL, "br": BR, "tr": TR}  # one face: a court picture read at the top-right
    layout = deck_indices(found, dict.fromkeys(found, SIZE))
    assert layout.corners == ("tl", "br")
    assert all(boxes == [TL, BR] for boxes in layout.boxes.values())
    assert layout.unconfirmed == {}


def test_a_four_index_deck_gets_four_boxes_and_a_face_missing_one_is_doubted():
    found = {f"f{k}": {"tl": TL, "tr": TR, "bl": BL, "br": BR} for k in range(5)}
    found["f5"] = {"tl": TL, "tr": TR, "br": BR}
    layout = deck_indices(found, dict.fromkeys(found, SIZE))
    assert layout.corners == ("tl", "tr", "bl", "br")
    assert all(len(boxes) == 4 for boxes in layout.boxes.values())
    assert layout.boxes["f5"][2] == pytest.approx(BL)  # the deck's usual box where the reader found none
    assert layout.unconfirmed == {"f5": ("bl",)}
    assert "bottom-left" in (layout.doubt("f5") or "") and layout.doubt("f0") is None


def test_a_box_on_a_pip_or_the_picture_is_replaced_by_the_decks_usual_box():
    found = {f"f{k}": {"tl": TL, "br": BR} for k in range(5)}
    on_a_pip = (30.0, 70.0, 70.0, 120.0)  # near the corner, but below and beside the index
    found["court"] = {"tl": on_a_pip, "br": BR}
    layout = deck_indices(found, dict.fromkeys(found, SIZE))
    assert layout.boxes["court"][0] == pytest.approx(TL)
    assert layout.unconfirmed == {"court": ("tl",)}


def test_faces_of_other_sizes_share_one_layout_in_fractions():
    found = {"small": {"tl": (5.0, 5.0, 20.0, 40.0)}, "big": {"tl": TL}, "big2": {"tl": TL}}
    sizes = {"small": (120, 170), "big": SIZE, "big2": SIZE}
    layout = deck_indices(found, sizes)
    assert layout.unconfirmed == {}
    assert layout.boxes["small"] == [(5.0, 5.0, 20.0, 40.0)]


def test_a_new_face_is_judged_against_the_faces_taught_before():
    known = [{"tl": (0.04, 0.03, 0.17, 0.24), "br": (0.83, 0.76, 0.96, 0.97)} for _ in range(4)]
    right = {"tl": (0.04, 0.03, 0.17, 0.24), "br": (0.83, 0.76, 0.96, 0.97)}
    half = {"tl": (0.04, 0.03, 0.17, 0.24)}
    assert index_doubts([right, half], known) == [None, index_doubts([half], known)[0]]
    assert "bottom-right" in (index_doubts([half], known)[0] or "")


def test_no_face_gives_no_layout():
    assert deck_indices({}, {}).corners == ()
