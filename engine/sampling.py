"""Random hands for tests and benchmarks: uniform, and meld-dense (many overlapping melds)."""

from __future__ import annotations

import random

from .cards import ALL_CARDS, Card

DENSE_WINDOW = 4
"""Meld-dense hands are drawn from the 16 cards of 4 consecutive ranks (all suits)."""


def random_hand(rng: random.Random, size: int = 10) -> list[Card]:
    """``size`` distinct cards drawn uniformly from the deck."""
    return [ALL_CARDS[i] for i in rng.sample(range(52), size)]


def meld_dense_hand(rng: random.Random, size: int = 10, window: int = DENSE_WINDOW) -> list[Card]:
    """``size`` distinct cards from ``window`` consecutive ranks in all suits: melds overlap."""
    if not 0 < size <= 4 * window <= 52:
        raise ValueError(f"cannot draw {size} cards from {window} ranks")
    low = rng.randrange(0, 13 - window + 1)
    pool = [suit * 13 + rank for suit in range(4) for rank in range(low, low + window)]
    return [ALL_CARDS[i] for i in rng.sample(pool, size)]
