"""What one showdown may hold, checked before it is scored: the one place these rules live.

Hand sizes, no card in both hands, who knocked, the upcard the rules need, deadwood counts entered
by hand, and how many cards one showdown can show. Each check raises ``ValueError`` with a message
a player can act on (``WrongHandSize`` for a hand of too many or too few cards, saying whose and how many);
``names`` put the players' names in it instead of "the knocker".

>>> check_showdown((parse_cards("As 2s 3s 4s 5s 6s 7s 8s 9s Ts"), parse_cards("Ah 2h")), 0, Rules())
Traceback (most recent call last):
...
engine.showdown.WrongHandSize: the defender's hand has 2 cards (Ah 2h); the defender shows 10 cards. Add or remove cards.
>>> upcard_for(Rules.preset("oklahoma"), "6h"), upcard_for(Rules(), "6h")
(Card('6h'), None)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import Card, format_cards, parse_cards
from .rules import Rules

HAND_SIZE = 10
MOST_CARDS_IN_A_SHOWDOWN = 23  # 10 a player, 11 for big gin, and maybe the upcard
MOST_DEADWOOD = 100  # a deadwood count entered by hand is 0 to 100

__all__ = [
    "HAND_SIZE",
    "MOST_CARDS_IN_A_SHOWDOWN",
    "MOST_DEADWOOD",
    "check_hand_size",
    "check_knocker",
    "check_showdown",
    "check_deadwood",
    "WrongHandSize",
    "parse_deadwood",
    "upcard_for",
]


class WrongHandSize(ValueError):
    """A hand of a showdown with more or fewer cards than its player shows: ``player`` (0 or 1), its ``count``
    and the ``most`` it may hold (10, or 11 for a knocker going big gin or discarding)."""

    def __init__(self, message: str, player: int, count: int, most: int) -> None:
        super().__init__(message)
        self.player = player
        self.count = count
        self.most = most


def check_hand_size(cards: Sequence[Card]) -> None:
    """One player's hand: 10 cards, or 11 after drawing."""
    if len(cards) not in (HAND_SIZE, HAND_SIZE + 1):
        raise ValueError(f"a hand has 10 cards (11 after drawing), got {len(cards)}: {format_cards(cards)}")


def check_knocker(knocker: object) -> int:
    """Who knocked: player 0 or 1."""
    if knocker not in (0, 1):
        raise ValueError(f"knocker must be player 0 or 1, got {knocker!r}")
    return 0 if knocker == 0 else 1


def _allowed_sizes(rules: Rules, is_knocker: bool, knocker_may_discard: bool) -> tuple[tuple[int, ...], str]:
    if is_knocker and knocker_may_discard:
        return (10, 11), "10 cards (after discarding) or 11 (the best discard is chosen)"
    if is_knocker and rules.big_gin:
        return (10, 11), "10 cards (11 for big gin)"
    return (10,), "10 cards"


def check_showdown(
    hands: tuple[Sequence[Card], Sequence[Card]],
    knocker: int,
    rules: Rules,
    names: tuple[str, str] | None = None,
    *,
    knocker_may_discard: bool = False,
) -> None:
    """Both hands as shown (players 0 and 1): no card in both, 10 cards each, 11 for the knocker
    when he goes big gin (or, ``knocker_may_discard``, when the engine is to choose his discard)."""
    check_knocker(knocker)
    both = sorted(set(hands[0]) & set(hands[1]))
    if both:
        raise ValueError(
            f"{format_cards(both)} {'is' if len(both) == 1 else 'are'} in both hands; "
            "each card can be in one hand only. Move or remove it."
        )
    for player in (0, 1):
        count = len(hands[player])
        role = "the knocker" if player == knocker else "the defender"
        allowed, wanted = _allowed_sizes(rules, player == knocker, knocker_may_discard)
        if count not in allowed:
            who = names[player] if names else f"{role}'s hand"
            shown = "" if names else f" ({format_cards(hands[player])})"
            raise WrongHandSize(
                f"{who} has {count} card{'s' if count != 1 else ''}{shown}; {role} shows {wanted}. Add or remove cards.",
                player,
                count,
                max(allowed),
            )


def check_deadwood(value: object, whose: str = "the deadwood") -> int:
    """A deadwood count: a whole number from 0 to 100."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MOST_DEADWOOD:
        raise ValueError(f"{whose} must be a whole number from 0 to {MOST_DEADWOOD}, got {value!r}")
    return value


def parse_deadwood(text: str, whose: str = "the deadwood") -> int:
    """A deadwood count written in ASCII digits, 0 to 100 (``"٣"``, ``"1_0"``, ``"+4"`` are not counts).

    >>> parse_deadwood(" 12 ")
    12
    """
    text = str(text).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) > MOST_DEADWOOD:
        shown = f"not {text!r}" if text else "and it was left empty"
        raise ValueError(f"{whose} must be a whole number from 0 to {MOST_DEADWOOD}, {shown}")
    return int(text)


def upcard_for(rules: Rules, text: str | Card | None) -> Card | None:
    """The first upcard when the rules use it (Oklahoma: it sets the knock limit), else ``None``."""
    if not rules.needs_upcard:
        return None
    if text is None or not str(text).strip():
        raise ValueError("Oklahoma rules: choose the upcard (it sets the knock limit).")
    cards: Iterable[Card] = parse_cards(text) if isinstance(text, str) else (Card(text),)
    upcard = tuple(cards)
    if len(upcard) != 1:
        raise ValueError("The upcard is one card.")
    return upcard[0]
