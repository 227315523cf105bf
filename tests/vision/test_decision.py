"""The decision stage and the steps after it: reasons to check a card are added, never removed."""

from __future__ import annotations

import json

import numpy as np
import pytest
from card_layout import corner_boxes, detections, spread

from vision.cards import merge_corners
from vision.decision import BoxEvidence, decide_boxes
from vision.detections import Detections
from vision.model_settings import DecisionSettings
from vision.reading import CardReading, PhotoReading, Reason
from vision.recognise import reading_from_detections
from vision.review import calibrated_confidence, showdown_review
from vision.steps import FRAME, PHOTO, check_mode

DOUBTED = Reason("not_a_card", "a classifier says this may not be a card (40% sure)")


def flagged_boxes(rows, reason=DOUBTED) -> Detections:
    """Detections of (code, box, confidence) rows, every box carrying ``reason`` from the decision stage."""
    plain = detections(rows)
    review = np.empty(len(plain), dtype=object)
    review[:] = [(reason,)] * len(plain)
    return Detections(plain.xyxy, plain.class_id, plain.confidence, review=review)


def kinds(card: CardReading) -> list[str]:
    return [reason.kind for reason in card.review]


def test_two_flagged_corners_merge_into_a_flagged_card():
    """Two corners held for review at 0.49 each once merged into a card at 0.74 that nobody was asked about."""
    boxes = flagged_boxes([("7d", box, 0.49) for box in corner_boxes(100, 100)])
    (card,) = reading_from_detections(boxes, (1000, 1000)).cards
    assert card.confidence == pytest.approx(1 - 0.51 * 0.51), "two corners are two pieces of evidence"
    assert card.confidence > 0.5 and kinds(card) == ["not_a_card"] and card.to_check


def test_one_index_seen_by_two_boxes_is_one_piece_of_evidence_and_stays_flagged():
    """A 7d seen by two overlapping boxes at 0.40 each came back as one card at 0.64 with nothing to check."""
    x0, y0, x1, y1 = corner_boxes(100, 100)[0]
    rows = [("7d", (x0, y0, x1, y1), 0.40), ("7d", (x0 + 1, y0 + 1, x1 + 1, y1 + 1), 0.40)]
    (card,) = reading_from_detections(detections(rows), (1000, 1000)).cards
    assert card.confidence == pytest.approx(0.40)
    assert kinds(card) == ["low_confidence"] and card.review[0].text == "read 40% sure"


def test_corners_that_disagree_make_one_card_whose_reason_names_both_readings():
    (top_left, bottom_right) = corner_boxes(100, 100)
    merged = merge_corners(detections([("Ts", top_left, 0.9), ("Tc", bottom_right, 0.6)]))
    (card,) = merged.cards
    assert card.card == "Ts" and card.confidence == pytest.approx(0.9), "the number is not clamped"
    (reason,) = card.review
    assert reason.kind == "corners_disagree" and reason.cards == ("Ts", "Tc")
    assert "its two corners read 10♠ and 10♣" in reason.text


def test_a_later_step_adds_reasons_and_never_removes_one():
    card = CardReading("Ts", 0.9, (), review=(DOUBTED,))
    later = card.with_review(Reason("hand_count", "the top spread has 12 cards: check 10♠", ("Ts",)), DOUBTED)
    assert kinds(later) == ["not_a_card", "hand_count"]
    reading = PhotoReading((10, 10), (later,), (("Ts",), ()))
    assert PhotoReading.from_json(json.loads(json.dumps(reading.to_json()))) == reading


def test_a_spread_with_more_cards_than_a_hand_names_its_least_sure_cards():
    top = ["As", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs"]
    bottom = ["Ah", "2h", "3h", "4h", "5h", "6h", "7h", "8h", "9h", "Th"]
    rows = spread(top, 60, 60) + spread(bottom, 60, 700)
    confidence = {"2s": 0.6, "Js": 0.7}  # the two least sure cards of the top spread
    rows = [(code, box, confidence.get(code, 0.95)) for code, box, _ in rows]
    reading = showdown_review(reading_from_detections(detections(rows), (1200, 1000)))
    suspects = [card for card in reading.cards if "hand_count" in kinds(card)]
    assert sorted(card.card for card in suspects) == ["2s", "Js"]
    assert suspects[0].review[-1].text.startswith("the top spread has 12 cards (a hand shows 10, 11 with big gin)")
    assert "check J♠ and 2♠" in suspects[0].review[-1].text
    assert not any(card.to_check for card in reading.cards if card.card[1] == "h"), "the 10-card spread is fine"


def test_a_spread_with_fewer_cards_than_a_hand_is_noted_and_a_showdown_that_fits_is_left_alone():
    top = ["As", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s"]
    bottom = ["Ah", "2h", "3h", "4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh"]
    reading = showdown_review(
        reading_from_detections(detections(spread(top, 60, 60) + spread(bottom, 60, 700)), (1200, 1000))
    )
    assert any("the top spread has 9 cards" in note for note in reading.conflicts)
    assert not any(card.to_check for card in reading.cards), "11 cards is a big gin, not a misread"
    fits = reading_from_detections(
        detections(spread(top + ["Ts"], 60, 60) + spread(bottom[:10], 60, 700)), (1200, 1000)
    )
    assert showdown_review(fits) == fits


def test_the_decision_stage_keeps_drops_and_flags_by_one_ordered_set_of_rules():
    evidence = BoxEvidence(
        scores=np.array([0.9, 0.1, 0.9, 0.9, 0.01]),
        card_ids=np.array([[0], [1], [2], [3], [4]]),
        probabilities=np.array([[0.9], [0.99], [0.8], [0.8], [0.99]]),
        rejected=np.array([0.0, 0.0, 0.5, 0.9, 0.0]),
    )
    settings = DecisionSettings(
        detector_weight=0.5,
        reject_gate=0.15,
        sure_proposal_conf=0.05,
        sure_classifier=0.97,
        doubted_proposal_conf=0.6,
        doubted_reject_gate=0.75,
    )
    photo = decide_boxes(evidence, settings, PHOTO, proposal_conf=0.2)
    assert photo.keep.tolist() == [True, True, True, False, False]
    # the second way in (box 1) gives no reason of its own: its confidence, raised to conf, is left to the
    # calibrated number and the one review threshold
    assert [[r.kind for r in reasons] for reasons in photo.review[:3]] == [[], [], ["not_a_card"]]
    assert photo.confidence[0, 0] == pytest.approx(0.9**0.5 * 0.9)
    frame = decide_boxes(evidence, settings, FRAME, proposal_conf=0.2)
    assert frame.keep.tolist() == [True, False, False, False, False], "webcam frames take no extra ways in"
    with pytest.raises(ValueError, match="reading mode 'webcam': use photo or frame"):
        check_mode("webcam")


def test_a_card_of_the_second_way_in_is_kept_only_from_the_callers_conf():
    """Its confidence is raised to model.json's conf; a caller reading from a higher conf does not keep it."""
    evidence = BoxEvidence(np.array([0.1]), np.array([[0]]), np.array([[0.99]]), np.zeros(1))
    settings = DecisionSettings(detector_weight=0.5, conf=0.25, sure_proposal_conf=0.05, sure_classifier=0.97)
    assert decide_boxes(evidence, settings, PHOTO, proposal_conf=0.2).keep.tolist() == [True]
    assert decide_boxes(evidence, settings, PHOTO, proposal_conf=0.2, conf=0.5).keep.tolist() == [False]
    low = decide_boxes(evidence, settings, PHOTO, proposal_conf=0.2, conf=0.01)
    assert low.keep.tolist() == [True] and low.confidence[0, 0] == pytest.approx(
        0.25 if 0.1**0.5 * 0.99 < 0.25 else 0.1**0.5 * 0.99
    )


def test_the_calibration_maps_the_raw_confidence_and_is_monotone():
    calibration = (0.3, 1.4, 0.5, -1.0)
    values = [calibrated_confidence(raw, 1, calibration) for raw in (0.1, 0.3, 0.5, 0.7, 0.9)]
    assert values == sorted(values) and all(0 < v < 1 for v in values)
    assert calibrated_confidence(0.7, 2, calibration) > calibrated_confidence(0.7, 1, calibration)
    assert calibrated_confidence(0.7, 1, calibration, has_reason=True) < calibrated_confidence(0.7, 1, calibration)
    assert calibrated_confidence(0.7, 1, ()) == 0.7


def test_classifiers_that_disagree_give_a_reason_naming_both_cards_when_model_json_asks():
    evidence = BoxEvidence(
        np.array([0.9, 0.9]), np.array([[0], [1]]), np.array([[0.9], [0.9]]), np.zeros(2), dissent=np.array([-1, 14])
    )
    off = decide_boxes(evidence, DecisionSettings(), PHOTO, proposal_conf=0.2)
    assert [list(r) for r in off.review] == [[], []]
    on = decide_boxes(evidence, DecisionSettings(flag_disagreement=True), FRAME, proposal_conf=0.2)
    assert on.review[0] == () and on.review[1][0].kind == "classifiers_disagree"
    assert on.review[1][0].cards == ("2s", "2h") and "as 2♥, the others as 2♠" in on.review[1][0].text


def test_a_part_of_an_index_read_again_inside_a_surer_reading_is_one_reading_with_one_index_inside():
    from engine.cards import CARD_CODES
    from vision.decision import one_reading_each

    # real-clutter IMG_2622: the whole K♠ index, and its lower half read again as K♣ (IoU 0.46, 0.87 of it inside);
    # beside them a neighbour's index that overlaps the K♠ a little (a squeezed spread)
    boxes = [[258, 394, 280, 444], [259, 418, 280, 448], [274, 396, 296, 446]]
    found = Detections(boxes, [CARD_CODES.index(c) for c in ("Ks", "Kc", "7h")], [0.99, 0.62, 0.95])
    by_iou_alone = one_reading_each(found, DecisionSettings(one_index_iou=0.5))
    assert len(by_iou_alone) == 3  # the half index survives the IoU rule
    kept = one_reading_each(found, DecisionSettings(one_index_iou=0.5, one_index_inside=0.8))
    assert sorted(CARD_CODES[i] for i in kept.class_id) == ["7h", "Ks"]


def test_a_box_round_a_surer_index_on_the_pips_beside_it_is_no_reading_with_around_surer_index():
    from engine.cards import CARD_CODES
    from vision.decision import one_reading_each

    # real-clutter IMG_2581: a 9♣'s pips read as 4♣ in a box 4.9 times the area of the 9♣ index beside them, which
    # lies 0.66 inside it; and a squeezed spread's neighbour index, of the same size as the 9♣'s, half over it
    boxes = [[195, 120, 252, 182], [236, 141, 261, 170], [248, 150, 272, 179]]
    found = Detections(boxes, [CARD_CODES.index(c) for c in ("4c", "9c", "Tc")], [0.62, 1.0, 0.9])
    shipped_rules = DecisionSettings(one_index_iou=0.5, one_index_inside=0.8)
    assert len(one_reading_each(found, shipped_rules)) == 3
    kept = one_reading_each(found, DecisionSettings(one_index_iou=0.5, one_index_inside=0.8, around_surer_index=2.0))
    assert sorted(CARD_CODES[i] for i in kept.class_id) == ["9c", "Tc"]
