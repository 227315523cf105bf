"""Several frames of a still table → one reading: the card vote (vision/frame_vote.py) and stillness."""

from __future__ import annotations

import numpy as np
import pytest

from vision.frame_vote import vote_cards
from vision.reading import CardReading, PhotoReading, Reason
from vision.recognise import still_table_reading
from vision.stillness import MOVING_SHARE, StillnessMeter, changed_share, signature
from vision.training.synth.showdown_video import noisy, still_frames


def frame(*cards: CardReading) -> PhotoReading:
    return PhotoReading((1000, 800), cards, ((), ()))


def card(code: str, x: float, y: float = 100.0, confidence: float = 0.9, *reasons: Reason) -> CardReading:
    return CardReading(code, confidence, ((x, y, x + 20, y + 30),), review=reasons)


def test_cards_every_frame_agrees_on_are_sure_with_their_mean_confidence():
    frames = [frame(card("Ts", 10, confidence=c), card("9h", 200)) for c in (0.8, 0.9, 1.0)]
    voted = vote_cards(frames)
    assert {c.card: c.to_check for c in voted.cards} == {"Ts": False, "9h": False}
    assert next(c for c in voted.cards if c.card == "Ts").confidence == pytest.approx(0.9)
    assert voted.notes == ()


def test_the_majority_name_wins_and_the_disagreement_is_a_reason_to_check():
    voted = vote_cards([frame(card("Ts", 10)), frame(card("Tc", 11)), frame(card("Ts", 9))])
    (only,) = voted.cards
    assert only.card == "Ts"
    assert [reason.kind for reason in only.review] == ["frames_disagree"]
    assert "2 read it 10♠; 1 read it 10♣" in only.review[0].text
    assert only.runner_ups[0] == "Tc"
    assert only.confidence == pytest.approx(0.9 * 2 / 3)


def test_a_card_one_frame_missed_is_kept_sure_but_checked_when_the_others_disagree():
    voted = vote_cards(
        [frame(card("Ts", 10), card("9h", 200)), frame(card("9h", 200)), frame(card("Ts", 10), card("9c", 200))]
    )
    ts = next(c for c in voted.cards if c.card == "Ts")
    assert not ts.to_check  # the frame that did not see it (a hand over it) casts no vote against it
    assert ts.confidence == pytest.approx(0.9)
    nine = next(c for c in voted.cards if c.card == "9h")
    assert nine.to_check and nine.review[0].text == "of 3 frames, 2 read it 9♥; 1 read it 9♣"


def test_a_card_seen_in_only_one_frame_is_left_out_and_named_in_the_notes():
    voted = vote_cards([frame(card("9h", 200), card("Kd", 500)), frame(card("9h", 200)), frame(card("9h", 200))])
    assert [c.card for c in voted.cards] == ["9h"]
    assert len(voted.notes) == 1 and "K♦ was seen in only 1 of 3 frames" in voted.notes[0]


def test_a_reason_any_frame_gave_the_winning_card_is_kept():
    doubted = Reason("not_a_card", "a classifier doubts it")
    voted = vote_cards([frame(card("Ts", 10)), frame(card("Ts", 10, 100, 0.9, doubted)), frame(card("Ts", 10))])
    assert [reason.kind for reason in voted.cards[0].review] == ["not_a_card"]


def test_one_frame_reading_two_corners_as_two_cards_still_gives_one_card():
    corners = [card("Ts", 10), card("Ts", 300)]
    both = CardReading("Ts", 0.95, (corners[0].boxes[0], corners[1].boxes[0]))
    voted = vote_cards([frame(both), frame(both), frame(corners[0], card("Tc", 300))])
    assert [c.card for c in voted.cards] == ["Ts"]


def test_a_still_table_reading_splits_the_voted_cards_into_two_spreads():
    top = [card(code, 100 + 40 * i, 50) for i, code in enumerate(["As", "2s", "3s"])]
    bottom = [card(code, 100 + 40 * i, 600) for i, code in enumerate(["Kh", "Qh", "Jh"])]
    reading = still_table_reading([frame(*top, *bottom)] * 3)
    assert [set(hand) for hand in reading.hands] == [{"As", "2s", "3s"}, {"Kh", "Qh", "Jh"}]
    with pytest.raises(ValueError):
        still_table_reading([])


@pytest.fixture(scope="module")
def table_picture() -> np.ndarray:
    rng = np.random.default_rng(1)
    picture = rng.integers(60, 200, (108, 192, 3)).astype(np.uint8)
    import cv2

    return cv2.resize(picture, (1280, 720), interpolation=cv2.INTER_LINEAR)


def test_camera_noise_and_drifting_light_are_still_a_passing_hand_is_not(table_picture):
    meter = StillnessMeter()
    calm = [meter.see(signature(f), t * 0.2) for t, f in enumerate(still_frames(table_picture, 20, light_drift=0.1))]
    assert calm[-1] == pytest.approx(19 * 0.2)  # still from the first frame to the last
    frames = list(still_frames(table_picture, 20, seed=2, hand_at=(5, 12)))
    shares = [changed_share(signature(a), signature(b)) for a, b in zip(frames, frames[1:], strict=False)]
    assert max(shares[:4]) <= MOVING_SHARE < min(shares[5:11])
    meter = StillnessMeter()
    still_for = [meter.see(signature(f), t * 0.2) for t, f in enumerate(frames)]
    assert still_for[12] < 0.5 and still_for[-1] == pytest.approx((19 - 13) * 0.2)


def test_a_frame_differs_from_the_picture_only_by_noise(table_picture):
    frame = noisy(table_picture, np.random.default_rng(0))
    assert frame.shape == table_picture.shape and 0 < np.abs(frame.astype(int) - table_picture).mean() < 6
