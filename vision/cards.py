"""Corner boxes → cards: the 2 (or 4) corner indices of one card become one ``CardReading``.

A deck holds each card once, so every box of one code belongs to one card, provided the boxes can
be corners of one card: no two of them further apart than a card's diagonal. The diagonal is
measured in index boxes: on the real photos of ``real-val`` the two corners of a card lie 3.3 to
5.3 times the long side of an index box apart (median 4.2), so boxes of one code within
``MAX_CORNER_SPAN`` index sizes are one card. The same code in two places further apart is a
second deck or a misread; it is reported as a conflict, never silently dropped.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.cards import CARD_CODES
from vision.detections import Detections
from vision.reading import Box, CardReading

# Corners of one card lie at most this many index-box long sides apart (real-val: at most 5.3).
MAX_CORNER_SPAN = 7.0
# A weaker duplicate reading becomes its runner-up card only if that is at least this sure. At 0.05
# a misread 8s became a wrong Ts at 0.09 in tests/test_end_to_end.py's showdown (now a reported
# conflict); real-val reads the same 340 cards with any value from 0.05 to 0.15, 339 at 0.2.
MIN_RUNNER_UP_CONFIDENCE = 0.1


@dataclass(frozen=True)
class MergedCards:
    """The cards read from a set of boxes, and the codes seen where one card cannot be."""

    cards: tuple[CardReading, ...]
    conflicts: tuple[str, ...]
    extra_readings: tuple[CardReading, ...] = ()  # the other places a conflicting code was seen


def card_confidence(box_confidences: "list[float] | np.ndarray") -> float:
    """One card's confidence from its corners': the chance that not every corner is wrong.

    Two corners that agree make a card surer than either alone (noisy-or).

    >>> round(card_confidence([0.9]), 3), round(card_confidence([0.9, 0.8]), 3)
    (0.9, 0.98)
    """
    values = np.clip(np.asarray(box_confidences, dtype=np.float64), 0.0, 1.0)
    return float(1.0 - np.prod(1.0 - values)) if len(values) else 0.0


def index_box_size(detections: Detections) -> float:
    """The typical long side of an index box in this photo (median), the unit of card distances."""
    return float(np.median(detections.long_sides)) if len(detections) else 0.0


def merge_corners(detections: Detections, max_corner_span: float = MAX_CORNER_SPAN) -> MergedCards:
    """Merge the boxes of each card code into one card; report a code seen where one card cannot be.

    For each code, boxes are grouped (most confident first) so that every two boxes of a group are
    within ``max_corner_span`` index sizes of each other. The most confident group is the card. Each
    other group becomes the likeliest of its boxes' next-best cards that was read nowhere else (a
    deck holds each card once); otherwise it is a conflict, listed in ``conflicts`` and kept in
    ``extra_readings``.
    """
    unit = index_box_size(detections)
    cards: list[CardReading] = []
    extras: list[CardReading] = []
    conflicts: list[str] = []
    weaker: list[tuple[CardReading, Detections]] = []
    for class_id in sorted(set(detections.class_id.tolist())):
        same_code = detections[detections.class_id == class_id]
        order = np.argsort(-same_code.confidence, kind="stable")
        centers = same_code.centers
        reach = max_corner_span * max(unit, float(same_code.long_sides.max()))
        groups: list[list[int]] = []
        for i in order:
            for group in groups:
                if all(np.hypot(*(centers[i] - centers[j])) <= reach for j in group):
                    group.append(int(i))
                    break
            else:
                groups.append([int(i)])
        readings = [
            CardReading(
                card=CARD_CODES[class_id],
                confidence=card_confidence(same_code.confidence[group]),
                boxes=tuple(_box(same_code.xyxy[j]) for j in group),
            )
            for group in groups
        ]
        order_of = {id(reading): group for reading, group in zip(readings, groups)}
        readings.sort(key=lambda reading: -reading.confidence)
        cards.append(readings[0])
        for reading in readings[1:]:
            weaker.append((reading, same_code[order_of[id(reading)]]))
    # A deck holds each card once: a weaker second reading of a code is most likely a misread of
    # the likeliest next-best card of its boxes that was not read anywhere else.
    read_codes = {card.card for card in cards}
    for reading, boxes in sorted(weaker, key=lambda item: -item[0].confidence):
        alternative, alternative_confidence = _best_unread_runner_up(boxes, read_codes)
        if alternative is not None and alternative_confidence >= MIN_RUNNER_UP_CONFIDENCE:
            cards.append(CardReading(card=alternative, confidence=alternative_confidence, boxes=reading.boxes))
            read_codes.add(alternative)
            continue
        extras.append(reading)
        same = [card for card in cards if card.card == reading.card] + [reading]
        places = ", ".join(_place(r) for r in same)
        conflicts.append(f"{reading.card} seen in {len(same)} places too far apart to be one card "
                         f"({places}): a second deck or a misread; check this card")
    cards.sort(key=lambda reading: CARD_CODES.index(reading.card))
    return MergedCards(cards=tuple(cards), conflicts=tuple(conflicts), extra_readings=tuple(extras))


def _best_unread_runner_up(boxes: Detections, read_codes: set[str]) -> tuple[str | None, float]:
    """Among the boxes' next-best cards not read anywhere, the likeliest and its confidence."""
    best_code, best_confidence = None, 0.0
    for card_id in set(boxes.runner_up_id.ravel().tolist()):
        code = CARD_CODES[card_id]
        if code in read_codes:
            continue
        confidence = card_confidence(boxes.runner_up_confidence[boxes.runner_up_id == card_id])
        if confidence > best_confidence:
            best_code, best_confidence = code, confidence
    return best_code, best_confidence


def card_center(card: CardReading) -> tuple[float, float]:
    """The centre of a card's corner boxes (the card's middle when both corners show)."""
    boxes = np.asarray(card.boxes, dtype=np.float64)
    return float((boxes[:, 0] + boxes[:, 2]).mean() / 2), float((boxes[:, 1] + boxes[:, 3]).mean() / 2)


def _box(row: np.ndarray) -> Box:
    return tuple(round(float(v), 1) for v in row)  # type: ignore[return-value]


def _place(reading: CardReading) -> str:
    x, y = card_center(reading)
    return f"at x={x:.0f} y={y:.0f} conf {reading.confidence:.2f}"
