"""The rules of gin rummy: cards, melds, deadwood, lay-offs, hand scoring and the game to 100.

Pure standard-library Python; imports nothing from vision/ or web/.
"""

from .cards import ALL_CARDS, CARD_CODES, RANK_VALUES, RANKS, SUITS, Card, format_cards, parse_card, parse_cards
from .game import Game, GameScore
from .melds import (
    Arrangement,
    BestDiscard,
    Meld,
    all_arrangements,
    all_melds,
    best_arrangement,
    best_discard,
    is_big_gin,
    min_deadwood,
    min_deadwood_after_discard,
)
from .rules import OPTIONS, PRESETS, Option, Rules
from .scoring import (
    ExplanationLine,
    HandResult,
    LayOff,
    OverKnockLimit,
    best_defence,
    can_knock,
    legal_layoffs,
    score_counts,
    score_hand,
    void_hand,
)
from .showdown import (
    MOST_CARDS_IN_A_SHOWDOWN,
    MOST_DEADWOOD,
    check_deadwood,
    check_hand_size,
    check_knocker,
    check_showdown,
    parse_deadwood,
    upcard_for,
)

__all__ = [
    "OPTIONS",
    "PRESETS",
    "Option",
    "Rules",
    "ExplanationLine",
    "HandResult",
    "LayOff",
    "OverKnockLimit",
    "best_defence",
    "can_knock",
    "legal_layoffs",
    "score_counts",
    "score_hand",
    "void_hand",
    "Game",
    "GameScore",
    "MOST_CARDS_IN_A_SHOWDOWN",
    "MOST_DEADWOOD",
    "check_deadwood",
    "check_hand_size",
    "check_knocker",
    "check_showdown",
    "parse_deadwood",
    "upcard_for",
    "ALL_CARDS",
    "CARD_CODES",
    "RANK_VALUES",
    "RANKS",
    "SUITS",
    "Card",
    "format_cards",
    "parse_card",
    "parse_cards",
    "Arrangement",
    "BestDiscard",
    "Meld",
    "all_arrangements",
    "all_melds",
    "best_arrangement",
    "best_discard",
    "is_big_gin",
    "min_deadwood",
    "min_deadwood_after_discard",
]
