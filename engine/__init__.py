"""The rules of gin rummy: cards, melds, deadwood, lay-offs, hand scoring and the game to 100.

Pure standard-library Python; imports nothing from vision/ or web/.
"""
from .cards import (ALL_CARDS, CARD_CODES, RANK_VALUES, RANKS, SUITS, Card, format_cards,
                    parse_cards)
from .melds import (Arrangement, BestDiscard, Meld, all_arrangements, all_melds,
                    best_arrangement, best_discard, is_big_gin, min_deadwood,
                    min_deadwood_after_discard)

__all__ = [
    "ALL_CARDS", "CARD_CODES", "RANK_VALUES", "RANKS", "SUITS", "Card", "format_cards",
    "parse_cards", "Arrangement", "BestDiscard", "Meld", "all_arrangements", "all_melds",
    "best_arrangement", "best_discard", "is_big_gin", "min_deadwood",
    "min_deadwood_after_discard",
]
