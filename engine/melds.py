"""Melds, arrangements and the exact minimum deadwood of a hand.

The search is exact and fast: runs live inside one suit, so every 13-bit suit row has its best
run packing precomputed (``_ROW_DEADWOOD``); only the ranks that hold three or four cards can form
sets, and only the set choices that could interact with a run are tried. A 10-card hand with no
possible set costs four table look-ups.

>>> best = best_arrangement(parse_cards("As 2s 3s 7c 7d 7h Kd Qd Jd 4c"))
>>> best.deadwood_count, [str(m) for m in best.melds], format_cards(best.deadwood)
(4, ['As 2s 3s', '7h 7d 7c', 'Jd Qd Kd'], '4c')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from .cards import ALL_CARDS, RANK_VALUES, Card, cards_mask, format_cards, mask_cards, parse_cards

__all__ = [
    "Meld",
    "Arrangement",
    "BestDiscard",
    "best_arrangement",
    "best_discard",
    "min_deadwood",
    "min_deadwood_after_discard",
    "deadwood_value",
    "is_big_gin",
    "all_melds",
    "all_arrangements",
    "parse_cards",
    "format_cards",
]

_ROW = 0x1FFF
_ALL = (1 << 52) - 1
_INF = 1 << 30
_HAS_FOUR = 1 << 60  # flag carried in a set-removal mask: it holds a 4-card set


# ---------------------------------------------------------------------------------------------
# Per-suit tables (13-bit rows, bit r = rank r of that suit)


def _build_row_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    deadwood = [0] * 8192
    choice = [0] * 8192  # run (13-bit) laid from the lowest card, or 0 if that card is deadwood
    for row in range(1, 8192):
        low = row & -row
        r = low.bit_length() - 1
        best = RANK_VALUES[r] + deadwood[row ^ low]
        best_choice = 0
        run = low
        length = 1
        while r + length < 13 and row >> (r + length) & 1:
            run |= 1 << (r + length)
            length += 1
            if length >= 3:
                value = deadwood[row ^ run]
                if value < best:
                    best, best_choice = value, run
        deadwood[row] = best
        choice[row] = best_choice
    drop_delta = [_INF] * 8192  # best (deadwood after removing one card) - deadwood
    for row in range(1, 8192):
        rest = row
        best = _INF
        while rest:
            low = rest & -rest
            rest ^= low
            value = deadwood[row ^ low]
            if value < best:
                best = value
        drop_delta[row] = best - deadwood[row]
    run_cards = [0] * 8192  # cards of the row that belong to some 3-card run of the row
    for row in range(8192):
        starts = row & (row >> 1) & (row >> 2)
        run_cards[row] = starts | starts << 1 | starts << 2
    return deadwood, choice, drop_delta, run_cards


_ROW_DEADWOOD, _ROW_CHOICE, _ROW_DROP_DELTA, _ROW_RUN_CARDS = _build_row_tables()


def _row_runs(row: int) -> list[int]:
    """Runs (13-bit masks) of an optimal run packing of a suit row."""
    runs = []
    while row:
        run = _ROW_CHOICE[row]
        if run:
            runs.append(run)
            row ^= run
        else:
            row ^= row & -row
    return runs


_COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39  # the four cards of one rank, shifted to rank 0


def _build_set_options() -> dict[int, tuple[int, ...]]:
    """Useful set choices for one rank, keyed by (cards present, cards that fit a run).

    Key: ``present | in_runs << 1`` with both as column masks at rank 0. Value: the column masks
    of the cards to put into the set (0 = no set), bit 60 flagging a 4-card set. A card that
    fits no run of its suit always goes into its rank's set, so choices that leave it out are
    never better and are not listed.
    """
    table: dict[int, tuple[int, ...]] = {}
    for present in range(16):
        count = bin(present).count("1")
        if count < 3:
            continue
        suits = [s for s in range(4) if present >> s & 1]
        column = sum(1 << (13 * s) for s in suits)
        for fits in range(16):
            if fits & ~present:
                continue
            fit_bits = [1 << (13 * s) for s in range(4) if fits >> s & 1]
            key = column | sum(fit_bits) << 1
            whole = column | _HAS_FOUR if count == 4 else column
            if not fit_bits:
                table[key] = (whole,)
                continue
            options = [whole]
            if count - len(fit_bits) < 3:
                options.append(0)
            if count == 4:
                options.extend(column ^ bit for bit in fit_bits)
            table[key] = tuple(options)
    return table


_SET_OPTIONS = _build_set_options()


class _MaskSearch(Protocol):
    def __call__(self, mask: int, after_discard: bool = False) -> int: ...


def _make_search() -> tuple[
    Callable[[int, int, int, int, int, int], tuple[int, list[int]]],
    _MaskSearch,
    Callable[[Iterable[int]], int],
    Callable[[Iterable[int]], int],
]:
    """The hot search functions, with their tables bound as closure cells (fast look-ups)."""
    dw = _ROW_DEADWOOD
    delta = _ROW_DROP_DELTA
    fit = _ROW_RUN_CARDS
    table = _SET_OPTIONS
    column = _COLUMN
    inf = _INF

    def set_choices(mask: int, a: int, b: int, c: int, d: int, set_ranks: int) -> tuple[int, list[int]]:
        """(cards that always go into sets, the alternative set choices) as 52-bit masks.

        Bits at 60 and above flag a 4-card set among the removed cards.
        """
        in_runs = fit[a] | fit[b] << 13 | fit[c] << 26 | fit[d] << 39
        forced = 0
        choices = [0]
        while set_ranks:
            low = set_ranks & -set_ranks
            set_ranks ^= low
            r = low.bit_length() - 1
            options = table[(mask >> r & column) | (in_runs >> r & column) << 1]
            if len(options) == 1:
                forced |= options[0] << r
            else:
                choices = [x | o << r for x in choices for o in options]
        return forced, choices

    def min_deadwood_mask(mask: int, after_discard: bool = False) -> int:
        """Exact minimum deadwood of the cards in ``mask``; ``after_discard``: of 11 cards, over every discard."""
        a = mask & 8191
        b = mask >> 13 & 8191
        c = mask >> 26 & 8191
        d = mask >> 39 & 8191
        set_ranks = (a & b & (c | d)) | (c & d & (a | b))
        if not set_ranks:
            value = dw[a] + dw[b] + dw[c] + dw[d]
            return value + min(delta[a], delta[b], delta[c], delta[d]) if after_discard else value
        forced, choices = set_choices(mask, a, b, c, d, set_ranks)
        mask &= ~forced
        best = inf
        for removed in choices:
            m = mask & ~removed
            a = m & 8191
            b = m >> 13 & 8191
            c = m >> 26 & 8191
            d = m >> 39 & 8191
            value = dw[a] + dw[b] + dw[c] + dw[d]
            if after_discard:
                drop = min(delta[a], delta[b], delta[c], delta[d])
                if drop > 0 and (removed | forced) >> 60:  # no suit cards left: a 4-set's 4th goes
                    drop = 0
                value += drop
            if value < best:
                best = value
                if not value:
                    break
        return best

    bit = tuple(1 << i for i in range(52)).__getitem__

    def min_deadwood(cards: Iterable[int]) -> int:
        """Exact minimum deadwood count of distinct cards (no discard); the fast path.

        >>> min_deadwood(parse_cards("As 2s 3s 7c 7d 7h Kd Qd Jd 4c"))
        4
        """
        mask = sum(map(bit, cards))
        a = mask & 8191
        b = mask >> 13 & 8191
        c = mask >> 26 & 8191
        d = mask >> 39 & 8191
        if (a & b & (c | d)) | (c & d & (a | b)):
            return min_deadwood_mask(mask)
        return dw[a] + dw[b] + dw[c] + dw[d]

    def min_deadwood_after_discard(cards: Iterable[int]) -> int:
        """Exact minimum deadwood of 11 distinct cards after the best of the 11 discards.

        >>> min_deadwood_after_discard(parse_cards("5s 6s 7s 8s 5c 6c 7c 8c 5d 7d 8h"))
        5
        """
        mask = sum(map(bit, cards))
        if mask.bit_count() != 11:
            return min(min_deadwood_mask(mask & ~(1 << c)) for c in mask_cards(mask))
        return min_deadwood_mask(mask, True)

    return (set_choices, min_deadwood_mask, min_deadwood, min_deadwood_after_discard)


(_set_choices, _min_deadwood_mask, min_deadwood, min_deadwood_after_discard) = _make_search()


# ---------------------------------------------------------------------------------------------
# Public types


@dataclass(frozen=True)
class Meld:
    """A set (3-4 cards of one rank) or a run (3+ consecutive cards of one suit, ace low).

    >>> Meld(parse_cards("9h 7h 8h"))
    Meld('7h 8h 9h')
    >>> Meld("7s 7h 7c").kind
    'set'
    """

    cards: tuple[Card, ...]

    def __init__(self, cards: Iterable[Card | int | str] | str) -> None:
        parsed = parse_cards(cards)
        kind = _meld_kind(parsed)
        if kind is None:
            raise ValueError(
                f"not a meld: {format_cards(parsed)!r} (a set is 3-4 cards of one "
                "rank, a run 3+ consecutive cards of one suit, ace low)"
            )
        if kind == "run":
            ordered = tuple(sorted(parsed, key=lambda card: card.rank))
        else:
            ordered = tuple(sorted(parsed, key=lambda card: card.suit))
        object.__setattr__(self, "cards", ordered)

    @property
    def kind(self) -> str:
        """``"set"`` or ``"run"``."""
        return "set" if len({card.rank for card in self.cards}) == 1 else "run"

    @property
    def mask(self) -> int:
        return cards_mask(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __contains__(self, card: object) -> bool:
        return card in self.cards

    def __str__(self) -> str:
        return format_cards(self.cards)

    def __repr__(self) -> str:
        return f"Meld({str(self)!r})"

    def to_list(self) -> list[str]:
        return [str(card) for card in self.cards]


def _meld_kind(cards: tuple[Card, ...]) -> str | None:
    if len(cards) < 3:
        return None
    ranks = {card.rank for card in cards}
    if len(ranks) == 1:
        return "set" if len(cards) <= 4 else None
    suits = {card.suit for card in cards}
    if len(suits) != 1:
        return None
    ordered = sorted(card.rank for card in cards)
    if ordered == list(range(ordered[0], ordered[0] + len(ordered))):
        return "run"
    return None


def deadwood_value(cards: Iterable[int]) -> int:
    """Sum of the deadwood values of cards (ace 1, faces 10)."""
    return sum(RANK_VALUES[card % 13] for card in cards)


@dataclass(frozen=True)
class Arrangement:
    """Melds laid down plus the deadwood cards left over."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]

    @property
    def deadwood_count(self) -> int:
        """Sum of the deadwood cards' values."""
        return deadwood_value(self.deadwood)

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(sorted([c for m in self.melds for c in m] + list(self.deadwood)))

    @property
    def is_gin(self) -> bool:
        return not self.deadwood

    def __str__(self) -> str:
        parts = [f"[{m}]" for m in self.melds]
        parts.append(f"deadwood {format_cards(self.deadwood) or '-'} = {self.deadwood_count}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "melds": [m.to_list() for m in self.melds],
            "deadwood": [str(c) for c in self.deadwood],
            "deadwood_count": self.deadwood_count,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Arrangement:
        return cls(tuple(Meld(m) for m in data["melds"]), parse_cards(data["deadwood"]))


class BestDiscard(NamedTuple):
    """The discard that leaves the least deadwood, and the arrangement of the 10 cards kept."""

    discard: Card
    arrangement: Arrangement


def _sort_melds(melds: Iterable[Meld]) -> tuple[Meld, ...]:
    return tuple(sorted(melds, key=lambda m: (min(c.rank for c in m), m.kind, m.cards)))


def _arrangement_from_mask(mask: int) -> Arrangement:
    """An arrangement of minimum deadwood (deterministic)."""
    a = mask & _ROW
    b = mask >> 13 & _ROW
    c = mask >> 26 & _ROW
    d = mask >> 39 & _ROW
    set_ranks = (a & b & (c | d)) | (c & d & (a | b))
    best_value, best_removed = _INF, 0
    forced, choices = _set_choices(mask, a, b, c, d, set_ranks) if set_ranks else (0, [0])
    for removed in choices:
        removed = (removed | forced) & _ALL
        m = mask & ~removed
        value = sum(_ROW_DEADWOOD[m >> (13 * s) & _ROW] for s in range(4))
        if value < best_value:
            best_value, best_removed = value, removed
    melds: list[Meld] = []
    ranks: dict[int, list[Card]] = {}
    for card in mask_cards(best_removed):
        ranks.setdefault(card.rank, []).append(card)
    melds.extend(Meld(cards) for cards in ranks.values())
    rest = mask & ~best_removed
    deadwood_mask = 0
    for suit in range(4):
        row = rest >> (13 * suit) & _ROW
        for run in _row_runs(row):
            melds.append(Meld(mask_cards(run << (13 * suit))))
            row ^= run
        deadwood_mask |= row << (13 * suit)
    return Arrangement(_sort_melds(melds), mask_cards(deadwood_mask))


def _mask_of(cards: Iterable[Card | int | str] | str) -> tuple[tuple[Card, ...], int]:
    parsed = parse_cards(cards)
    return parsed, cards_mask(parsed)


def best_arrangement(cards: Iterable[Card | int | str] | str) -> Arrangement:
    """An arrangement of the cards (any number, usually 10) with the exact minimum deadwood.

    >>> best_arrangement("7c 7d 7h 7s 8s 9s Kd Qd Jd 4c").deadwood_count
    4
    """
    _, mask = _mask_of(cards)
    return _arrangement_from_mask(mask)


def best_discard(cards: Iterable[Card | int | str] | str) -> BestDiscard:
    """For 11 cards: the discard leaving the least deadwood, over all 11 discards (exact).

    Among equally good discards the highest-value card is discarded (ties: the later card in
    canonical order). If all 11 are melded (big gin) the discard still leaves gin.

    >>> best = best_discard("5s 6s 7s 8s 5c 6c 7c 8c 5d 7d 8h")
    >>> str(best.discard), best.arrangement.deadwood_count
    ('7d', 5)
    """
    parsed, mask = _mask_of(cards)
    if len(parsed) != 11:
        raise ValueError(f"best_discard needs 11 cards, got {len(parsed)}")
    best_key, best_card = None, None
    for card in parsed:
        key = (_min_deadwood_mask(mask & ~(1 << card)), -card.value, -int(card))
        if best_key is None or key < best_key:
            best_key, best_card = key, card
    assert best_card is not None
    return BestDiscard(best_card, _arrangement_from_mask(mask & ~(1 << best_card)))


def is_big_gin(cards: Iterable[Card | int | str] | str) -> bool:
    """True when 11 cards are all melded (big gin), without discarding."""
    parsed, mask = _mask_of(cards)
    return len(parsed) == 11 and _min_deadwood_mask(mask) == 0


# ---------------------------------------------------------------------------------------------
# Exhaustive enumeration (scoring needs every best arrangement, not just one)


def all_melds(cards: Iterable[Card | int | str] | str) -> list[Meld]:
    """Every meld that can be made from the cards (sub-runs and 3-card subsets included)."""
    parsed, mask = _mask_of(cards)
    melds: list[Meld] = []
    for rank in range(13):
        same = [ALL_CARDS[s * 13 + rank] for s in range(4) if mask >> (s * 13 + rank) & 1]
        if len(same) >= 3:
            if len(same) == 4:
                melds.append(Meld(same))
            for skip in range(len(same) if len(same) == 4 else 1):
                subset = same[:skip] + same[skip + 1 :] if len(same) == 4 else same
                melds.append(Meld(subset))
    for suit in range(4):
        row = mask >> (13 * suit) & _ROW
        for start in range(13):
            end = start
            while end < 13 and row >> end & 1:
                end += 1
                if end - start >= 3:
                    melds.append(Meld([ALL_CARDS[suit * 13 + r] for r in range(start, end)]))
    return melds


def all_arrangements(cards: Iterable[Card | int | str] | str, max_deadwood: int | None = None) -> list[Arrangement]:
    """Every arrangement of the cards whose deadwood is at most ``max_deadwood``.

    With ``max_deadwood=None`` only the arrangements of minimum deadwood are returned.
    """
    parsed, mask = _mask_of(cards)
    limit = _min_deadwood_mask(mask) if max_deadwood is None else max_deadwood
    melds = all_melds(parsed)
    by_low: dict[int, list[tuple[int, Meld]]] = {}
    for meld in melds:
        m = meld.mask
        by_low.setdefault((m & -m).bit_length() - 1, []).append((m, meld))
    found: list[Arrangement] = []

    def search(rest: int, chosen: list[Meld], deadwood: int, dead_value: int) -> None:
        if dead_value > limit:
            return
        if not rest:
            found.append(Arrangement(_sort_melds(chosen), mask_cards(deadwood)))
            return
        low = rest & -rest
        index = low.bit_length() - 1
        for m, meld in by_low.get(index, ()):
            if m & rest == m:
                chosen.append(meld)
                search(rest ^ m, chosen, deadwood, dead_value)
                chosen.pop()
        search(rest ^ low, chosen, deadwood | low, dead_value + RANK_VALUES[index % 13])

    search(mask, [], 0, 0)
    return found
