"""Helpers for vision tests: realistic corner boxes of cards laid out on a table (pixels).

Proportions follow a poker card (63 x 88 mm) photographed from above: a card is 126 x 176 px and
its index box (rank over suit) 16 x 40 px, so the two corner indices of one card lie about 4.2
index-box lengths apart, as on the real photos of real-val.
"""

from __future__ import annotations

from vision.detections import Detections

CARD_W, CARD_H = 126, 176
INDEX_W, INDEX_H = 16, 40


def corner_boxes(x: float, y: float, both_corners: bool = True) -> list[tuple[float, float, float, float]]:
    """The index boxes of an upright card whose top-left corner is at (x, y)."""
    boxes = [(x + 4, y + 4, x + 4 + INDEX_W, y + 4 + INDEX_H)]
    if both_corners:
        boxes.append((x + CARD_W - 4 - INDEX_W, y + CARD_H - 4 - INDEX_H, x + CARD_W - 4, y + CARD_H - 4))
    return boxes


def spread(
    codes: list[str], x: float, y: float, step: float = 40.0, confidence: float = 0.9, vertical: bool = False
) -> list[tuple[str, tuple, float]]:
    """Rows for Detections.from_cards: cards overlapping by ``step`` px (along x, or y when vertical).

    Only the last card shows its bottom-right corner fully; the others show both corners too (the
    spread overlaps the card faces, not the indices, as players do).
    """
    rows = []
    for i, code in enumerate(codes):
        cx, cy = (x, y + i * step) if vertical else (x + i * step, y)
        rows += [(code, box, confidence) for box in corner_boxes(cx, cy)]
    return rows


def detections(rows) -> Detections:
    return Detections.from_cards(rows)
