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
    within ``max_corner_span`` index sizes of each other. The most confident group is the card; each
    other group is a conflict, listed in ``conflicts`` and kept in ``extra_readings``.
    """
    unit = index_box_size(detections)
    cards: list[CardReading] = []
    extras: list[CardReading] = []
    conflicts: list[str] = []
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
        readings.sort(key=lambda reading: -reading.confidence)
        cards.append(readings[0])
        if len(readings) > 1:
            extras.extend(readings[1:])
            places = ", ".join(_place(reading) for reading in readings)
            conflicts.append(f"{CARD_CODES[class_id]} seen in {len(readings)} places too far apart to be one card "
                             f"({places}): a second deck or a misread; check this card")
    cards.sort(key=lambda reading: CARD_CODES.index(reading.card))
    return MergedCards(cards=tuple(cards), conflicts=tuple(conflicts), extra_readings=tuple(extras))


def card_center(card: CardReading) -> tuple[float, float]:
    """The centre of a card's corner boxes (the card's middle when both corners show)."""
    boxes = np.asarray(card.boxes, dtype=np.float64)
    return float((boxes[:, 0] + boxes[:, 2]).mean() / 2), float((boxes[:, 1] + boxes[:, 3]).mean() / 2)


def _box(row: np.ndarray) -> Box:
    return tuple(round(float(v), 1) for v in row)  # type: ignore[return-value]


def _place(reading: CardReading) -> str:
    x, y = card_center(reading)
    return f"at x={x:.0f} y={y:.0f} conf {reading.confidence:.2f}"
