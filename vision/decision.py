"""The decision stage: which proposed boxes are read as cards, and which cards the user must check.

In: per box, the evidence (``BoxEvidence``: the detector's score, the classifiers' ranked cards and
probabilities, the "not a card" probability). Out: the kept boxes with their reading confidences and
their reasons (``BoxDecision``). The rules are one ordered list, in ``decide_boxes``; their thresholds
are ``models/model.json``'s ``decision`` section (``vision.model_settings.DecisionSettings``: typed,
validated, one default each). The caller says the mode, photo or webcam frame; it is never guessed.

Later steps only add reasons: merging corners (``vision.cards``), the rules of a showdown
(``showdown_review``) and the final check (``final_review``: the calibrated confidence and the one
review threshold). A card is shown to the user to check exactly when it carries a reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from engine.cards import CARD_CODES, card_label, cards_in_words
from engine.showdown import HAND_SIZE
from vision.model_settings import DecisionSettings
from vision.reading import CardReading, PhotoReading, Reason

ReadingMode = Literal["photo", "frame"]
PHOTO: ReadingMode = "photo"  # an uploaded photo: every pass, the second way in, doubted cards
FRAME: ReadingMode = "frame"  # a webcam frame: the next frame reads the table again, so no extra ways in
READING_MODES = (PHOTO, FRAME)


def check_mode(mode: str) -> ReadingMode:
    """``mode`` if it is a reading mode; ValueError naming the modes otherwise."""
    if mode == PHOTO:
        return PHOTO
    if mode == FRAME:
        return FRAME
    raise ValueError(f"reading mode {mode!r}: use {' or '.join(READING_MODES)}")


@dataclass(frozen=True, eq=False)
class BoxEvidence:
    """What is known of each of N proposed boxes before deciding."""

    scores: np.ndarray  # (N,) the detector's confidence
    card_ids: np.ndarray  # (N, K) the classifiers' likeliest cards (CARD_CODES indices), best first
    probabilities: np.ndarray  # (N, K) their combined card probabilities
    rejected: np.ndarray  # (N,) the probability the surest-rejecting classifier gives "not a card"
    # (N,) a card another classifier reads first where it differs from the combined first card, else -1
    dissent: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class BoxDecision:
    """Per box: kept or not, the ranked reading confidences (N, K), and the reasons to check it."""

    keep: np.ndarray
    confidence: np.ndarray
    review: np.ndarray  # (N,) object array of tuples of Reason


def decide_boxes(
    evidence: BoxEvidence,
    settings: DecisionSettings,
    mode: ReadingMode,
    *,
    proposal_conf: float,
    conf: float | None = None,
) -> BoxDecision:
    """Keep, drop or flag each box, by these rules in this order:

    1. **Not a card.** A box that a classifier calls "not a card" with at least ``reject_gate`` is
       dropped (``reject_gate`` 0: no gate). In photo mode a box the detector proposed from
       ``doubted_proposal_conf`` is dropped only from ``doubted_reject_gate``; rejected between the two
       gates it is read all the same, with the reason ``not_a_card`` (a doubted card).
    2. **Reading confidence** = detector score ** ``detector_weight`` x card probability.
    3. **Kept** when the detector proposed it from ``proposal_conf`` and the confidence reaches ``conf``
       (default: the settings' ``conf``).
    4. **The second way in** (photo mode): a box proposed from ``sure_proposal_conf`` (below
       ``proposal_conf``) that the classifiers read as one card with at least ``sure_classifier`` is
       kept too (from ``conf``), its confidence raised to the settings' ``conf``. It gets no reason of its
       own: on rendered held-out scenes such cards were right as often as the others (0.77 % of right cards,
       0.9 % of wrong ones), so the calibrated number alone says whether to check it.
    5. **Classifiers that disagree** (``flag_disagreement``): a kept box that one classifier reads as
       another card than the combined reading gets the reason ``classifiers_disagree``, naming both.

    >>> evidence = BoxEvidence(np.array([0.9, 0.1, 0.9]), np.array([[0], [1], [2]]),
    ...                        np.array([[0.9], [0.99], [0.8]]), np.array([0.0, 0.0, 0.5]))
    >>> settings = DecisionSettings(detector_weight=0.5, reject_gate=0.15, sure_proposal_conf=0.05,
    ...                             sure_classifier=0.97, doubted_proposal_conf=0.6, doubted_reject_gate=0.75)
    >>> decided = decide_boxes(evidence, settings, PHOTO, proposal_conf=0.2)
    >>> decided.keep.tolist(), [[r.kind for r in reasons] for reasons in decided.review]
    ([True, True, True], [[], [], ['not_a_card']])
    >>> decide_boxes(evidence, settings, FRAME, proposal_conf=0.2).keep.tolist()
    [True, False, False]
    """
    photo = check_mode(mode) == PHOTO
    conf = settings.conf if conf is None else conf
    scores, probabilities, rejected = evidence.scores, evidence.probabilities, evidence.rejected
    count = len(scores)
    reasons: list[list[Reason]] = [[] for _ in range(count)]
    # 1. not a card (and doubted cards, photos only)
    if settings.reject_gate > 0:
        gate = np.full(count, settings.reject_gate)
        doubting = photo and settings.doubted_proposal_conf > 0 and settings.doubted_reject_gate > settings.reject_gate
        if doubting:
            gate[scores >= settings.doubted_proposal_conf] = settings.doubted_reject_gate
        probabilities = probabilities * (rejected < gate)[:, None]
        if doubting:
            doubted = (
                (scores >= settings.doubted_proposal_conf) & (rejected >= settings.reject_gate) & (rejected < gate)
            )
            for i in np.flatnonzero(doubted):
                reasons[i].append(
                    Reason("not_a_card", f"a classifier says this may not be a card ({rejected[i]:.0%} sure)")
                )
    # 2. reading confidence
    confidence = scores[:, None] ** settings.detector_weight * probabilities
    # 3. kept from proposal_conf and conf
    keep = (scores >= proposal_conf) & (confidence[:, 0] >= conf)
    # 4. the second way in (photos only)
    if photo and settings.sure_proposal_conf > 0:
        extra = ~keep & (scores >= settings.sure_proposal_conf) & (probabilities[:, 0] >= settings.sure_classifier)
        # raised to model.json's conf (whatever lower conf the caller reads down to), then kept by the
        # caller's conf like any reading
        confidence[extra, 0] = np.maximum(confidence[extra, 0], settings.conf)
        extra &= confidence[:, 0] >= conf
        keep |= extra
    # 5. classifiers that disagree
    if settings.flag_disagreement and evidence.dissent is not None:
        for i in np.flatnonzero(keep & (evidence.dissent >= 0)):
            first, other = CARD_CODES[int(evidence.card_ids[i, 0])], CARD_CODES[int(evidence.dissent[i])]
            reasons[i].append(
                Reason(
                    "classifiers_disagree",
                    f"one classifier reads it as {card_label(other)}, the others as {card_label(first)}",
                    (first, other),
                )
            )
    review = np.empty(count, dtype=object)
    review[:] = [tuple(r) for r in reasons]
    return BoxDecision(keep=keep, confidence=confidence, review=review)


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
