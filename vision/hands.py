"""Cards → the two players' spreads, by where the cards lie on the table.

At a showdown each player spreads their cards in front of them, so the two hands are two groups
of cards on opposite sides of the table: apart along the vertical axis (players top and bottom of
the photo) or the horizontal one (left and right). For each axis the cards' centres are split in
two by 1-D 2-means (the split with the least within-group spread, always a cut between two
neighbours in sorted order); the axis whose cut is clearer wins.

``split_confidence`` says how clear the cut is: 1 − (largest gap between neighbours inside either
group) / (gap at the cut), clipped to 0..1. Two spreads a card-length apart whose cards overlap
give values near 1; a table of evenly strewn cards gives 0, and the app should ask the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from vision.cards import card_center
from vision.detections import Detections
from vision.reading import CardReading
from vision.steps import ReadingContext

HORIZONTAL = "horizontal"  # the cut is a horizontal line: players at the top and bottom
VERTICAL = "vertical"  # the cut is a vertical line: players on the left and right
UNSURE_SPLIT = 0.3  # below this split confidence the commands and the review page warn the hands may be mixed up


@dataclass(frozen=True)
class HandSplit:
    """Two spreads by position (top or left first), the cut's orientation and how clear it is."""

    hands: tuple[tuple[str, ...], tuple[str, ...]]
    axis: str
    confidence: float


def split_hands(cards: Sequence[CardReading]) -> HandSplit:
    """Split a showdown photo's cards into the two players' spreads by position."""
    if len(cards) < 2:
        return HandSplit(hands=(tuple(c.card for c in cards), ()), axis=HORIZONTAL, confidence=0.0)
    centers = np.array([card_center(card) for card in cards])
    best: tuple[float, float, str, np.ndarray] | None = None
    for axis, coordinate in ((HORIZONTAL, centers[:, 1]), (VERTICAL, centers[:, 0])):
        first_group, confidence, gap = _two_means_cut(coordinate)
        candidate = (confidence, gap, axis, first_group)
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    assert best is not None
    confidence, _, axis, first_group = best
    first = tuple(card.card for card, is_first in zip(cards, first_group, strict=True) if is_first)
    second = tuple(card.card for card, is_first in zip(cards, first_group, strict=True) if not is_first)
    return HandSplit(hands=(first, second), axis=axis, confidence=round(confidence, 4))


def one_spread(cards: Sequence[CardReading]) -> HandSplit:
    """A photo of one player's spread: every card in the first hand, nothing to split."""
    return HandSplit(hands=(tuple(card.card for card in cards), ()), axis=HORIZONTAL, confidence=1.0)


def _two_means_cut(values: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Best 2-means cut of 1-D values: (mask of the low group, clarity 0..1, gap at the cut)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    n = len(ordered)
    prefix = np.concatenate([[0.0], np.cumsum(ordered)])
    prefix_sq = np.concatenate([[0.0], np.cumsum(ordered**2)])
    best_cost, best_k = np.inf, 1
    for k in range(1, n):  # low group = ordered[:k]
        low_cost = prefix_sq[k] - prefix[k] ** 2 / k
        high_cost = (prefix_sq[n] - prefix_sq[k]) - (prefix[n] - prefix[k]) ** 2 / (n - k)
        cost = low_cost + high_cost
        if cost < best_cost - 1e-9:
            best_cost, best_k = cost, k
    steps = np.diff(ordered)
    gap = float(steps[best_k - 1])
    inside = np.concatenate([steps[: best_k - 1], steps[best_k:]])
    largest_inside = float(inside.max()) if len(inside) else 0.0
    clarity = 0.0 if gap <= 0 else float(np.clip(1.0 - largest_inside / gap, 0.0, 1.0))
    mask = np.zeros(n, dtype=bool)
    mask[order[:best_k]] = True
    return mask, clarity, gap


def split_spreads(detections: Detections, context: ReadingContext) -> Detections:
    """Step: the reading's cards split into the two players' spreads (one spread: all in the first)."""
    reading = context.reading
    split = one_spread(reading.cards) if context.single_spread else split_hands(reading.cards)
    context.reading = replace(reading, hands=split.hands, split_axis=split.axis, split_confidence=split.confidence)
    return detections
