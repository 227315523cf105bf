"""The rules of gin rummy: cards, melds, deadwood, lay-offs, hand scoring and the game to 100.

Pure standard-library Python; imports nothing from vision/ or web/.
"""
from .cards import (ALL_CARDS, CARD_CODES, RANK_VALUES, RANKS, SUITS, Card, format_cards,
                    parse_cards)
from .melds import (Arrangement, BestDiscard, Meld, all_arrangements, all_melds,
                    best_arrangement, best_discard, is_big_gin, min_deadwood,
                    min_deadwood_after_discard)
from .rules import OPTIONS, PRESETS, Option, Rules
from .scoring import HandResult, LayOff, best_defence, legal_layoffs, score_counts, score_hand, void_hand
from .game import Game, GameScore

__all__ = [
    "OPTIONS", "PRESETS", "Option", "Rules", "HandResult", "LayOff", "best_defence", "legal_layoffs",
    "score_counts", "score_hand", "void_hand", "Game", "GameScore",
    "ALL_CARDS", "CARD_CODES", "RANK_VALUES", "RANKS", "SUITS", "Card", "format_cards",
    "parse_cards", "Arrangement", "BestDiscard", "Meld", "all_arrangements", "all_melds",
    "best_arrangement", "best_discard", "is_big_gin", "min_deadwood",
    "min_deadwood_after_discard",
]
