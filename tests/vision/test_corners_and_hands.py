"""Corner merging, duplicate reporting and hand splitting on constructed Detections."""

import numpy as np
import pytest
from card_layout import CARD_H, CARD_W, corner_boxes, detections, spread

from vision.cards import card_confidence, merge_corners
from vision.detections import Detections, box_iou, canonical_code, card_index
from vision.evaluation.evaluate import mean_average_precision
from vision.hands import HORIZONTAL, VERTICAL, one_spread, split_hands
from vision.model_settings import CornerSettings
from vision.recognise import reading_from_detections

MAX_CORNER_SPAN = CornerSettings().same_card_span[1]
TOP = ["As", "2s", "3s", "4s", "9h", "9d", "9c", "Kd", "Qd", "Jd"]
BOTTOM = ["5h", "6h", "7h", "8h", "Tc", "Ts", "Th", "2c", "3d", "4c"]


def test_two_corners_of_one_card_become_one_card_surer_than_either():
    merged = merge_corners(
        detections([("Ts", box, conf) for box, conf in zip(corner_boxes(100, 100), (0.8, 0.7), strict=True)])
    )
    assert [card.card for card in merged.cards] == ["Ts"]
    assert len(merged.cards[0].boxes) == 2
    assert merged.cards[0].confidence == pytest.approx(1 - 0.2 * 0.3)
    assert merged.conflicts == ()


def test_four_corner_deck_gives_one_card():
    x, y = 300, 200
    boxes = corner_boxes(x, y) + [
        (x + CARD_W - 20, y + 4, x + CARD_W - 4, y + 44),
        (x + 4, y + CARD_H - 44, x + 20, y + CARD_H - 4),
    ]
    merged = merge_corners(detections([("7d", box, 0.6) for box in boxes]))
    assert len(merged.cards) == 1 and len(merged.cards[0].boxes) == 4
    assert merged.conflicts == ()


def test_same_code_far_apart_is_reported_not_dropped():
    rows = [("Qh", box, 0.9) for box in corner_boxes(100, 100)] + [("Qh", corner_boxes(900, 700, False)[0], 0.5)]
    merged = merge_corners(detections(rows))
    assert [card.card for card in merged.cards] == ["Qh"]
    assert len(merged.cards[0].boxes) == 2, "the surer place (two corners) is the card"
    assert len(merged.conflicts) == 1 and merged.conflicts[0].startswith("Q♥ seen in 2 places")
    assert [extra.boxes for extra in merged.extra_readings] == [(corner_boxes(900, 700, False)[0],)]


def test_same_code_just_beyond_a_card_length_is_a_conflict_and_just_within_is_not():
    index_long_side = 40
    near = (100 + (MAX_CORNER_SPAN - 0.5) * index_long_side, 100)
    far = (100 + (MAX_CORNER_SPAN + 0.5) * index_long_side, 100)
    for (x, y), expected in ((near, 0), (far, 1)):
        rows = [("5c", (100, 100, 116, 140), 0.9), ("5c", (x, y, x + 16, y + 40), 0.9)]
        assert len(merge_corners(detections(rows)).conflicts) == expected


def test_different_cards_next_to_each_other_stay_apart():
    merged = merge_corners(detections(spread(TOP, 50, 50)))
    assert sorted(card.card for card in merged.cards) == sorted(TOP)
    assert all(len(card.boxes) == 2 for card in merged.cards)


def test_card_confidence_is_noisy_or_of_corners():
    assert card_confidence([0.5, 0.5]) == pytest.approx(0.75)
    assert card_confidence([]) == 0.0


def test_showdown_with_players_top_and_bottom_splits_horizontally():
    rows = spread(TOP, 80, 60) + spread(BOTTOM, 120, 700)
    reading = reading_from_detections(detections(rows), (1000, 1000))
    assert reading.split_axis == HORIZONTAL
    assert set(reading.hands[0]) == set(TOP) and set(reading.hands[1]) == set(BOTTOM)
    assert reading.split_confidence > 0.8


def test_showdown_with_players_left_and_right_splits_vertically():
    rows = spread(BOTTOM, 900, 50, vertical=True) + spread(TOP, 60, 90, vertical=True)
    split = split_hands(reading_from_detections(detections(rows), (1200, 800)).cards)
    assert split.axis == VERTICAL
    assert set(split.hands[0]) == set(TOP), "the left spread comes first"
    assert set(split.hands[1]) == set(BOTTOM)
    assert split.confidence > 0.8


def test_cards_strewn_evenly_give_an_unsure_split():
    codes = TOP + BOTTOM
    rows = []
    for i, code in enumerate(codes):
        rows += [(code, box, 0.9) for box in corner_boxes(60 + (i % 5) * 180, 60 + (i // 5) * 200)]
    split = split_hands(reading_from_detections(detections(rows), (1000, 900)).cards)
    assert split.confidence < 0.3


def test_melds_spread_in_groups_still_split_by_player():
    top_groups = spread(TOP[:4], 50, 50) + spread(TOP[4:7], 450, 70) + spread(TOP[7:], 800, 40)
    bottom_groups = spread(BOTTOM[:4], 60, 650) + spread(BOTTOM[4:], 520, 640)
    split = split_hands(reading_from_detections(detections(top_groups + bottom_groups), (1200, 900)).cards)
    assert (set(split.hands[0]), set(split.hands[1])) == (set(TOP), set(BOTTOM))


def test_photo_of_one_spread_puts_every_card_in_the_first_hand():
    reading = reading_from_detections(detections(spread(TOP, 50, 50)), (800, 400), single_spread=True)
    assert set(reading.hands[0]) == set(TOP) and reading.hands[1] == ()
    assert one_spread(reading.cards).hands == reading.hands


def test_no_cards_and_one_card_read_without_error():
    assert reading_from_detections(Detections.empty(), (10, 10)).hands == ((), ())
    reading = reading_from_detections(detections([("Ac", (0, 0, 10, 20), 0.9)]), (10, 10))
    assert reading.hands == (("Ac",), ()) and reading.split_confidence == 0.0


def test_reading_json_has_cards_hands_and_conflicts():
    rows = spread(TOP, 80, 60) + spread(BOTTOM, 120, 700) + [("As", (900, 900, 916, 940), 0.4)]
    data = reading_from_detections(detections(rows), (1000, 1000)).to_json()
    assert {c["card"] for c in data["cards"]} == set(TOP + BOTTOM)
    assert all(len(c["boxes"]) >= 1 and 0 < c["confidence"] <= 1 for c in data["cards"])
    assert len(data["hands"]) == 2 and data["conflicts"] and data["conflicts"][0].startswith("A♠ seen in 2 places")
    (ace,) = [c for c in data["cards"] if c["card"] == "As"]
    # the photo's conflict says where a card may be misread and left out; the ace kept is left to its number
    assert "misread as A♠ and left out" in data["conflicts"][0] and ace["review"] == []
    assert all(c["review"] == [] for c in data["cards"]), "every card is sure by its own evidence"


def test_detections_refuse_mismatched_arrays_and_bad_class_ids():
    with pytest.raises(ValueError):
        Detections(np.zeros((2, 4)), np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError):
        Detections(np.zeros((1, 4)), np.array([52]), np.ones(1))


def test_card_codes_accept_loose_notation():
    assert canonical_code("10s") == "Ts" and canonical_code("AH") == "Ah" and canonical_code("Q♣") == "Qc"
    assert card_index("Kc") == 51
    with pytest.raises(ValueError):
        canonical_code("1x")


def test_map50_is_one_for_perfect_boxes_and_drops_for_a_misread():
    labels = detections(spread(TOP, 80, 60))
    assert mean_average_precision([labels], [labels]) == pytest.approx(1.0)
    misread = Detections(
        labels.xyxy, np.where(labels.class_id == card_index("9h"), card_index("9d"), labels.class_id), labels.confidence
    )
    assert mean_average_precision([misread], [labels]) < 1.0
    assert mean_average_precision([misread], [labels], class_agnostic=True) == pytest.approx(1.0)


def test_box_iou():
    assert box_iou([[0, 0, 10, 10]], [[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]]).tolist() == [
        [1.0, pytest.approx(1 / 3), 0.0]
    ]


@pytest.mark.parametrize(
    "module_name",
    [
        "vision.detections",
        "vision.cards",
        "vision.cli",
        "vision.crop_reading",
        "vision.probabilities",
        "vision.crops",
        "vision.decision",
        "vision.review",
        "vision.reading",
        "vision.model_settings",
        "vision.evaluation.calibration",
        "vision.frame_vote",
        "vision.stillness",
        "vision.frame_memory",
    ],
)
def test_docstring_examples_hold(module_name):
    import doctest
    import importlib

    failures, tried = doctest.testmod(importlib.import_module(module_name))
    assert tried > 0 and failures == 0


def _two_places(runner_up: str, runner_up_confidence: float) -> Detections:
    """5h read at the left (0.9) and, weaker, at the far right (0.6), where 3h ranks second."""
    boxes = np.array([[0, 0, 20, 30], [1000, 0, 1020, 30]], dtype=np.float64)
    return Detections(
        boxes,
        [card_index("5h"), card_index("5h")],
        [0.9, 0.6],
        [card_index("6h"), card_index(runner_up)],
        [0.05, runner_up_confidence],
    )


def test_a_weaker_second_reading_becomes_its_runner_up_card_when_that_card_is_unread():
    merged = merge_corners(_two_places("3h", 0.3))
    assert [card.card for card in merged.cards] == ["3h", "5h"]
    assert merged.conflicts == ()
    three = merged.cards[0]
    assert three.boxes == ((1000.0, 0.0, 1020.0, 30.0),) and three.confidence == pytest.approx(0.3)


def test_a_second_reading_stays_a_conflict_when_its_runner_up_was_read_elsewhere_or_is_unsure():
    already = Detections.concatenate(
        [_two_places("3h", 0.3), Detections.from_cards([("3h", (500, 500, 520, 530), 0.9)])]
    )
    assert len(merge_corners(already).conflicts) == 1
    unsure = merge_corners(_two_places("3h", 0.01))
    assert [card.card for card in unsure.cards] == ["5h"] and len(unsure.conflicts) == 1


def test_reading_from_detections_places_a_runner_up_by_the_corner_settings_it_is_given():
    # what `ginscore eval` and benchmarks/confidence_rule.py read a models folder's "corners" section with
    boxes = _two_places("3h", 0.08)
    assert [card.card for card in reading_from_detections(boxes, (1100, 100)).cards] == ["5h"]
    looser = CornerSettings(min_runner_up_confidence=0.05)
    assert sorted(card.card for card in reading_from_detections(boxes, (1100, 100), corners=looser).cards) == [
        "3h",
        "5h",
    ]


def test_a_weaker_reading_takes_the_likeliest_unread_card_among_several_runner_ups():
    boxes = np.array([[0, 0, 20, 30], [1000, 0, 1020, 30]], dtype=np.float64)
    # the far reading's next-best cards: 5s (read elsewhere), then 3h and 8h
    detections = Detections.concatenate(
        [
            Detections(
                boxes,
                [card_index("5h"), card_index("5h")],
                [0.9, 0.6],
                [
                    [card_index("6h"), card_index("4h"), card_index("2h")],
                    [card_index("5s"), card_index("3h"), card_index("8h")],
                ],
                [[0.05, 0.01, 0.01], [0.2, 0.15, 0.1]],
            ),
            Detections.from_cards([("5s", (500, 500, 520, 530), 0.9)]),
        ]
    )
    merged = merge_corners(detections)
    assert [card.card for card in merged.cards] == ["5s", "3h", "5h"] and merged.conflicts == ()


# One physical card, one card: the two index corners of one card that read differently.


def _single(code, box, confidence):
    return (code, box, confidence)


def test_two_corners_of_one_card_that_disagree_are_one_card_with_a_conflict():
    top_left, bottom_right = corner_boxes(200, 150)
    merged = merge_corners(detections([("Ts", top_left, 0.9), ("Tc", bottom_right, 0.7)]))
    assert [card.card for card in merged.cards] == ["Ts"], "one card, the surer corner's reading"
    assert len(merged.cards[0].boxes) == 2
    assert merged.cards[0].to_check, "a card whose corners disagree is flagged for review"
    assert len(merged.conflicts) == 1 and "its two corners read 10♠ and 10♣" in merged.conflicts[0]


def test_corners_of_different_cards_in_a_row_stay_two_cards():
    # two cards side by side in one spread: their top-left indices lie along the row, not a diagonal
    rows = [("Ts", corner_boxes(100, 100, False)[0], 0.9), ("Tc", corner_boxes(100 + 4.2 * 40, 100, False)[0], 0.8)]
    merged = merge_corners(detections(rows))
    assert sorted(card.card for card in merged.cards) == ["Tc", "Ts"]
    assert merged.conflicts == ()


def test_unrelated_cards_at_a_diagonal_stay_two_cards():
    top_left, bottom_right = corner_boxes(200, 150)
    merged = merge_corners(detections([("Ts", top_left, 0.9), ("4h", bottom_right, 0.8)]))
    assert sorted(card.card for card in merged.cards) == ["4h", "Ts"], "no shared rank or suit: two cards"


def test_a_fan_of_one_suit_is_not_paired_across_the_cards_between():
    # a spread sorted by suit: the cards between two far same-suit indices show their own indices
    rows = []
    for i, code in enumerate(["2h", "3h", "4h", "5h", "6h"]):
        rows.append((code, corner_boxes(100 + 30 * i, 100 + 36 * i, False)[0], 0.9))
    merged = merge_corners(detections(rows))
    assert sorted(card.card for card in merged.cards) == ["2h", "3h", "4h", "5h", "6h"]
    assert merged.conflicts == ()


def test_corners_too_close_or_too_far_for_one_card_stay_two_cards():
    box = corner_boxes(100, 100, False)[0]
    for offset in (1.5 * 40, 8 * 40):
        far = tuple(v + offset * 0.7 for v in box)
        merged = merge_corners(detections([("9d", box, 0.9), ("9c", far, 0.8)]))
        assert len(merged.cards) == 2, offset


# A misread neighbour is not a second corner: same-code boxes that cannot be one card's corners.


def _read_as(code, box, confidence, runner_up, runner_up_confidence):
    return Detections(
        np.array([box], dtype=np.float64),
        [card_index(code)],
        [confidence],
        [card_index(runner_up)],
        [runner_up_confidence],
    )


def test_a_half_hidden_neighbour_read_as_the_same_card_becomes_its_runner_up():
    # a squeezed spread: the Kd's index peeks out under the Jd's, 0.4 index sizes to its left, and reads Jd
    # (real-val deal4)
    jack = (120, 100, 136, 140)
    king = (104, 104, 120, 144)
    merged = merge_corners(
        Detections.concatenate([_read_as("Jd", jack, 0.95, "Qd", 0.01), _read_as("Jd", king, 0.6, "Kd", 0.3)])
    )
    assert [card.card for card in merged.cards] == ["Jd", "Kd"]
    king_card = merged.cards[1]
    assert king_card.boxes == (king,) and king_card.confidence == pytest.approx(0.3)
    assert king_card.confidence < 0.5, "a card read from a runner-up is flagged for review"


def test_a_neighbour_misread_without_an_unread_runner_up_is_a_conflict_not_a_second_corner():
    jack, king = (120, 100, 136, 140), (104, 104, 120, 144)
    merged = merge_corners(
        Detections.concatenate([_read_as("Jd", jack, 0.95, "Qd", 0.01), _read_as("Jd", king, 0.6, "Kd", 0.02)])
    )
    assert [card.card for card in merged.cards] == ["Jd"] and merged.cards[0].boxes == (jack,)
    assert len(merged.conflicts) == 1 and merged.conflicts[0].startswith("J♦ seen in 2 places")


@pytest.mark.parametrize(
    "second",
    [
        (122, 103, 135, 138),  # a slightly smaller box inside the first
        (129, 100, 145, 140),
    ],
)  # shifted across: under half of it overlaps
def test_one_index_seen_twice_is_one_card(second):
    # two passes over one index, or two boxes the detector's suppression kept
    merged = merge_corners(detections([("Jd", (120, 100, 136, 140), 0.9), ("Jd", second, 0.7)]))
    assert [card.card for card in merged.cards] == ["Jd"] and len(merged.cards[0].boxes) == 2
    assert merged.conflicts == ()


def _eight_of_hearts_and_a_stray(stray_confidence):
    # both corners of the 8h, and a neighbour's index read 8h (unsurely) a little way from them
    top_left, bottom_right = corner_boxes(400, 100)
    stray = tuple(np.array(top_left) + (-80, 110, -80, 110))
    return detections([("8h", top_left, 0.93), ("8h", bottom_right, 0.92), ("8h", stray, stray_confidence)]), stray


def test_a_card_at_more_corners_than_it_has_one_unsure_is_flagged_with_a_conflict():
    # real-val deal1: a 3h read 8h at 0.43 beside both corners of the real 8h used to vanish into it
    rows, stray = _eight_of_hearts_and_a_stray(0.43)
    merged = merge_corners(rows)
    assert [card.card for card in merged.cards] == ["8h"] and stray in merged.cards[0].boxes
    assert merged.cards[0].to_check and merged.cards[0].review[0].kind == "more_corners", "flagged for review"
    assert len(merged.conflicts) == 1 and "more corners than a card has" in merged.conflicts[0]


def test_three_sure_corners_are_one_card_and_show_a_deck_printed_with_four():
    rows, _ = _eight_of_hearts_and_a_stray(0.9)
    merged = merge_corners(rows)
    assert merged.conflicts == () and merged.cards[0].confidence > 0.9
    # on such a deck an unsure third corner of another card is no sign of a misread neighbour
    x, y = 700, 100
    four = corner_boxes(x, y) + [(x + CARD_W - 20, y + 4, x + CARD_W - 4, y + 44)]
    unsure, _ = _eight_of_hearts_and_a_stray(0.43)
    both = Detections.concatenate([unsure, detections([("7d", box, 0.8) for box in four])])
    assert merge_corners(both).conflicts == ()
