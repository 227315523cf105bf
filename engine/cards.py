"""Playing cards: ranks, suits and the canonical card order used everywhere.

The canonical order (``CARD_CODES``) is the class order of the detector, the labels written by
the scene generator and the web app's card picker: suits spades, hearts, diamonds, clubs; ranks
ace to king within each suit.

A :class:`Card` is an ``int`` (its index in ``CARD_CODES``) that prints as its code:

>>> Card("Ts")
Card('Ts')
>>> str(Card("10♥")), int(Card("Ah")), Card("Kc").value
('Th', 13, 10)
>>> parse_cards("Ts, Ah 9c")
(Card('Ts'), Card('Ah'), Card('9c'))
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Sequence

RANKS = "A23456789TJQK"
SUITS = "shdc"
CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
RANK_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
"""Deadwood value of each rank index: ace 1, 2-10 face value, J/Q/K 10."""

_SUIT_ALIASES = {"s": 0, "h": 1, "d": 2, "c": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3, "♤": 0, "♡": 1, "♢": 2, "♧": 3}
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)}
_RANK_ALIASES.update({"10": 9, "1": 0})


class Card(int):
    """One of the 52 cards; an ``int`` 0-51 (index in ``CARD_CODES``) that prints as ``Ts``.

    ``Card("Ts")``, ``Card("10♠")`` and ``Card(9)`` are the same card. Cards are immutable,
    hashable and sort in the canonical order.
    """

    __slots__ = ()

    def __new__(cls, card: int | str) -> Card:
        if isinstance(card, Card):
            return card
        if isinstance(card, str):
            return parse_card(card)
        if not isinstance(card, bool):
            try:
                index = operator.index(card)  # ints, and numpy integers from the detector
            except TypeError:
                index = -1
            if 0 <= index < 52:
                return ALL_CARDS[index]
        raise ValueError(f"not a card: {card!r} (use a code like Ts, Ah, 9c or an index 0-51)")

    @property
    def rank(self) -> int:
        """Rank index 0 (ace) to 12 (king)."""
        return int(self) % 13

    @property
    def suit(self) -> int:
        """Suit index 0-3 in ``SUITS`` order (spades, hearts, diamonds, clubs)."""
        return int(self) // 13

    @property
    def value(self) -> int:
        """Deadwood value: ace 1, 2-10 face value, J/Q/K 10."""
        return RANK_VALUES[int(self) % 13]

    @property
    def code(self) -> str:
        """Canonical code such as ``Ts``."""
        return CARD_CODES[int(self)]

    @property
    def name(self) -> str:
        """Plain English, e.g. ``10 of spades``."""
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return CARD_CODES[int(self)]

    def __repr__(self) -> str:
        return f"Card({CARD_CODES[int(self)]!r})"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


ALL_CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(52))
"""The 52 cards in canonical order (``ALL_CARDS[i]`` has code ``CARD_CODES[i]``)."""

_TOKEN_RE = re.compile(r"^(10|[AaJjQqKkTt2-9])([shdcSHDC♠♥♦♣♤♡♢♧])$")


def parse_card(token: str) -> Card:
    """The card written as ``token`` (``Ts``, ``10s``, ``TS``, ``t♠``, ``9♦``); the one place card
    codes are read. ``ValueError`` names the token and the notation.

    >>> parse_card("10♥"), parse_card(" qS ")
    (Card('Th'), Card('Qs'))
    """
    text = token.strip()
    match = _TOKEN_RE.match(text)
    if not match:
        raise ValueError(
            f"unknown card {token!r}: write rank then suit, e.g. Ts, 10s, Ah, 9c, Q♦ "
            "(ranks A 2-9 T/10 J Q K, suits s h d c)"
        )
    rank_text, suit_text = match.groups()
    rank = _RANK_ALIASES[rank_text.upper()]
    suit = _SUIT_ALIASES[suit_text.lower()]
    return ALL_CARDS[suit * 13 + rank]


def parse_cards(text: str | Iterable[str | int | Card]) -> tuple[Card, ...]:
    """Parse cards written as ``"Ts Ah 9c"`` (commas, ``10s``, ``10♠``, ``TS`` also accepted).

    Also accepts an iterable of codes, indices or cards. Raises ``ValueError`` naming the token
    for an unknown or repeated card.

    >>> parse_cards("As 2s 3s")
    (Card('As'), Card('2s'), Card('3s'))
    """
    if isinstance(text, str):
        tokens: list[str | int | Card] = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    else:
        tokens = list(text)
    cards: list[Card] = []
    seen: set[int] = set()
    for token in tokens:
        card = Card(token)
        if card in seen:
            raise ValueError(f"duplicate card {str(token)!r} ({card}): each card may appear once")
        seen.add(card)
        cards.append(card)
    return tuple(cards)


SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


def card_label(code: str) -> str:
    """A card as people write it: ``Ts`` -> ``10♠`` (the canonical code stays in forms, JSON and labels).

    >>> card_label("Ts"), card_label("Ah"), card_label("9c")
    ('10♠', 'A♥', '9♣')
    """
    rank = "10" if code[:1] == "T" else code[:1]
    return rank + SUIT_SYMBOLS.get(code[1:2], code[1:2])


def in_words(words: Sequence[str]) -> str:
    """A list as people say it: ``"Ann"``, ``"Ann and Bob"``, ``"Ann, Bob and Cat"`` (none: ``""``).

    >>> in_words([]), in_words(["Ann"]), in_words(["Ann", "Bob", "Cat"])
    ('', 'Ann', 'Ann, Bob and Cat')
    """
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def cards_in_words(codes: Iterable[str]) -> str:
    """Cards named as people write them: ``"7♦"``, ``"7♦ and 9♣"``, ``"7♦, 9♣ and K♠"``.

    >>> cards_in_words(["7d", "9c", "Ks"])
    '7♦, 9♣ and K♠'
    """
    return in_words([card_label(code) for code in codes])


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as canonical space-separated text, e.g. ``Ts Ah 9c``."""
    return " ".join(str(Card(c)) for c in cards)


def cards_mask(cards: Iterable[int]) -> int:
    """Bit mask with bit ``i`` set for each card index ``i``."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a bit mask, in canonical order."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(ALL_CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(cards)
