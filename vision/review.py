"""The reviews of a reading's cards: each card's calibrated confidence and the one review threshold
(``final_review``), and the rules of a showdown and of a hand as evidence (``showdown_review``,
``knock_review``, ``hand_size_review``). A review only adds reasons to check a card, never removes one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from engine.cards import cards_in_words
from engine.showdown import HAND_SIZE
from vision.detections import Detections
from vision.model_settings import DecisionSettings
from vision.reading import CardReading, PhotoReading, Reason
from vision.steps import ReadingContext


def review(detections: Detections, context: ReadingContext) -> Detections:
    """Step: the reading's cards with their calibrated confidences and the reason ``low_confidence`` below the
    review threshold (``final_review``)."""
    context.reading = replace(context.reading, cards=final_review(context.reading.cards, context.settings.decision))
    return detections


def review_showdown(detections: Detections, context: ReadingContext) -> Detections:
    """Step: the rules of a showdown as evidence (``showdown_review``)."""
    context.reading = showdown_review(context.reading)
    return detections


def calibrated_confidence(
    raw: float, boxes: int, calibration: Sequence[float], has_reason: bool = False, curve: Sequence[float] = ()
) -> float:
    """The estimated chance that a card is right, from its raw confidence (the corners' noisy-or), how
    many corner boxes showed it and whether an earlier step gave it a reason to check it:
    ``sigmoid(a + b * logit(raw) + c * (boxes >= 2) + d * has_reason)`` with ``calibration`` =
    (a, b, c, d) fitted on rendered held-out scenes (``vision.evaluation.calibration``); empty: the raw
    confidence. ``curve`` (x1, y1, x2, y2, ...): a monotone map of that logistic's output onto the share of
    cards right (isotonic, fitted with it), interpolated between its points.

    >>> calibrated_confidence(0.8, 1, ()), round(calibrated_confidence(0.8, 2, (0.0, 1.0, 1.0, -1.0)), 3)
    (0.8, 0.916)
    >>> round(calibrated_confidence(0.8, 1, (0.0, 1.0, 0.0, 0.0), curve=(0.5, 0.4, 0.9, 0.8)), 6)
    0.7
    """
    if not calibration:
        return float(raw)
    a, b, c, d = calibration
    clipped = min(max(raw, 1e-6), 1 - 1e-6)
    z = a + b * math.log(clipped / (1 - clipped)) + c * (boxes >= 2) + d * has_reason
    logistic = 1.0 / (1.0 + math.exp(-z))
    if not curve:
        return logistic
    return float(np.interp(logistic, curve[0::2], curve[1::2]))


def final_review(cards: Sequence[CardReading], settings: DecisionSettings) -> tuple[CardReading, ...]:
    """Each card with its calibrated confidence, and the reason ``low_confidence`` when that is below
    ``review_below``: the one threshold that makes a card "to check" by its number."""
    checked = []
    for card in cards:
        confidence = calibrated_confidence(
            card.confidence, len(card.boxes), settings.calibration, bool(card.review), settings.calibration_curve
        )
        card = replace(card, confidence=confidence)
        if confidence < settings.review_below:
            card = card.with_review(Reason("low_confidence", f"read {confidence:.0%} sure"))
        checked.append(card)
    return tuple(checked)


SIDES = {"horizontal": ("top", "bottom"), "vertical": ("left", "right")}
MOST_IN_A_HAND = HAND_SIZE + 1  # a big gin shows 11 cards


def showdown_review(reading: PhotoReading) -> PhotoReading:
    """The rules of a showdown as evidence: a spread holds 10 cards (11 with big gin). A spread with more
    gives its least sure extra cards the reason ``hand_count``, naming them ("the top spread has 12
    cards: check 2♦ and 6♣"); a spread with fewer is noted in ``conflicts`` (a card may be hidden)."""
    by_code = {card.card: card for card in reading.cards}
    sides = SIDES.get(reading.split_axis, ("first", "second"))
    notes = list(reading.conflicts)
    suspects: dict[str, Reason] = {}
    if not any(reading.hands):
        return reading
    for side, hand in zip(sides, reading.hands, strict=True):
        cards = [by_code[code] for code in hand if code in by_code]
        if len(cards) > MOST_IN_A_HAND:
            extra = sorted(cards, key=lambda card: card.confidence)[: len(cards) - HAND_SIZE]
            words = cards_in_words([card.card for card in sorted(extra, key=lambda card: -card.confidence)])
            reason = Reason(
                "hand_count",
                f"the {side} spread has {len(cards)} cards (a hand shows {HAND_SIZE}, {MOST_IN_A_HAND} with big "
                f"gin): check {words}",
                tuple(card.card for card in extra),
            )
            suspects.update({card.card: reason for card in extra})
        elif 0 < len(cards) < HAND_SIZE:
            notes.append(
                f"the {side} spread has {len(cards)} cards (a hand shows {HAND_SIZE}): a card may be hidden "
                "or missed; add it on the review page"
            )
    if not suspects and notes == list(reading.conflicts):
        return reading
    reviewed = tuple(card.with_review(suspects[card.card]) if card.card in suspects else card for card in reading.cards)
    return replace(reading, cards=reviewed, conflicts=tuple(notes))


KNOCK_SUSPECTS = 2  # how many of a knocker's unmelded cards a knock over the limit names


def _least_sure(reading: PhotoReading, codes: Sequence[str], count: int) -> tuple[str, ...]:
    """Of the cards ``codes`` that the photo shows, the ``count`` least sure, least sure first."""
    wanted = set(codes)
    shown = sorted((card for card in reading.cards if card.card in wanted), key=lambda card: card.confidence)
    return tuple(card.card for card in shown[: max(count, 0)])


def _flagged(reading: PhotoReading, reason: Reason) -> PhotoReading:
    """The reading with ``reason`` added to each card it names."""
    cards = tuple(card.with_review(reason) if card.card in reason.cards else card for card in reading.cards)
    return replace(reading, cards=cards)


def knock_review(
    reading: PhotoReading, unmelded: Sequence[str], who: str, deadwood: int, limit: int | None
) -> tuple[PhotoReading, tuple[str, ...]]:
    """The rule of a knock as evidence: a knocker holds at most the knock limit in deadwood. When the cards
    as read leave ``who`` (the knocker) ``deadwood`` over ``limit`` (None: gin only), a card read wrong is
    the likeliest why (or the wrong player was picked as the knocker), and it is one of the cards left out of
    melds (``unmelded``: a misread melded card would break its meld, which the user sees). The least sure
    ``KNOCK_SUSPECTS`` of them that the photo shows get the reason ``knock_limit``, naming them. Returns the
    reading and the suspects, least sure first (none: the photo shows none of those cards).

    >>> cards = (CardReading("9c", 0.95, ()), CardReading("5d", 0.6, ()), CardReading("Kh", 0.99, ()))
    >>> reading = PhotoReading((10, 10), cards, (("9c", "5d", "Kh"), ()), "horizontal", 1.0)
    >>> reviewed, suspects = knock_review(reading, ["9c", "5d", "2s"], "Ann", 14, 10)
    >>> suspects, [card.card for card in reviewed.cards if card.review]
    (('5d', '9c'), ['9c', '5d'])
    >>> reviewed.cards[1].review[0].text.split(": ")[1]
    "check 5♦ and 9♣, the least sure of Ann's unmelded cards as read"
    """
    suspects = _least_sure(reading, unmelded, KNOCK_SUSPECTS)
    if not suspects:
        return reading, ()
    limit_words = "gin only (ace upcard)" if limit is None else f"the knock limit of {limit}"
    reason = Reason(
        "knock_limit",
        f"{who} knocked with {deadwood} deadwood, over {limit_words}: check {cards_in_words(suspects)}, the least sure "
        f"of {who}'s unmelded cards as read",
        suspects,
    )
    return _flagged(reading, reason), suspects


def hand_size_review(
    reading: PhotoReading, hand: Sequence[str], who: str, most: int
) -> tuple[PhotoReading, tuple[str, ...]]:
    """The rule of a showdown's hand as evidence, once it is known who knocked: ``who`` shows at most ``most``
    cards (10; 11 for a knocker going big gin). When ``hand`` as read holds more, the extra ones are most
    likely a card read twice or something read as a card: its least sure cards, as many as are too many, get
    the reason ``hand_count``, naming them (``showdown_review`` does the same at reading time for a spread
    of more than 11, before anyone says who knocked). Returns the reading and the suspects, least sure first.

    >>> cards = tuple(CardReading(code, 0.9 - 0.01 * i, ()) for i, code in enumerate("As 2s 3s 4s 5h 5d 5c 9h 9d 9c Kc".split()))
    >>> reading = PhotoReading((10, 10), cards, ((), ()), "horizontal", 1.0)
    >>> reviewed, suspects = hand_size_review(reading, [card.card for card in cards], "Bob", 10)
    >>> suspects, reviewed.cards[-1].review[0].text
    (('Kc',), "Bob's hand has 11 cards, 10 at most: check K♣, the least sure of Bob's cards as read")
    """
    suspects = _least_sure(reading, hand, len(hand) - most)
    if not suspects:
        return reading, ()
    reason = Reason(
        "hand_count",
        f"{who}'s hand has {len(hand)} cards, {most} at most: check {cards_in_words(suspects)}, the least sure of "
        f"{who}'s cards as read",
        suspects,
    )
    return _flagged(reading, reason), suspects
