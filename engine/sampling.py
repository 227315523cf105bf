"""Random hands for tests and benchmarks: uniform, and meld-dense (many overlapping melds)."""
from __future__ import annotations

import random

from .cards import ALL_CARDS, Card

DENSE_WINDOW = 4
"""Meld-dense hands are drawn from the 16 cards of 4 consecutive ranks (all suits)."""


def random_hand(rng: random.Random, size: int = 10) -> list[Card]:
    """``size`` distinct cards drawn uniformly from the deck."""
    return [ALL_CARDS[i] for i in rng.sample(range(52), size)]


def meld_dense_hand(rng: random.Random, size: int = 10) -> list[Card]:
    """``size`` distinct cards from 4 consecutive ranks in all suits: sets and runs overlap."""
    low = rng.randrange(0, 13 - DENSE_WINDOW + 1)
    pool = [suit * 13 + rank for suit in range(4) for rank in range(low, low + DENSE_WINDOW)]
    return [ALL_CARDS[i] for i in rng.sample(pool, size)]
