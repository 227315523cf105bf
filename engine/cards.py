"""Playing cards: ranks, suits and the canonical card order used everywhere.

The canonical order (``CARD_CODES``) is the class order of the detector, the labels written by
the scene generator and the web app's card picker: suits spades, hearts, diamonds, clubs; ranks
ace to king within each suit.
"""

RANKS = "A23456789TJQK"
SUITS = "shdc"
CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
