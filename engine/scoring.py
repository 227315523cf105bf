"""Scoring one hand: knock, gin, big gin, undercut (and void), with the defender's lay-offs.

>>> result = score_hand("6s 7s 8s 2h 3h 4h Kd Kc Ks 3c", "9s Ts 5d 5h 8c 8d Qh Qd 2c Jc")
>>> print(result.kind, result.winner, result.points)
knock 0 50
>>> [str(layoff) for layoff in result.layoffs]
['5h on 2h 3h 4h', '9s on 6s 7s 8s', 'Ts on 6s 7s 8s']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any

from .cards import ALL_CARDS, Card, cards_mask, format_cards, mask_cards, parse_cards
from .melds import Arrangement, Meld, _arrangement_from_mask, _min_deadwood_mask, all_arrangements, best_arrangement
from .rules import Rules
from .showdown import check_deadwood, check_knocker, check_showdown


class HandKind(StrEnum):
    """How a hand ended. The value is the kind's name in JSON and stored results; ``words`` is how people read it.

    >>> HandKind("big_gin").words, HandKind.GIN == "gin"
    ('big gin', True)
    """

    KNOCK = "knock"
    GIN = "gin"
    BIG_GIN = "big_gin"
    UNDERCUT = "undercut"
    VOID = "void"

    @property
    def words(self) -> str:
        """The kind in words: its name with spaces (``big gin``)."""
        return self.value.replace("_", " ")


@dataclass(frozen=True)
class LayOff:
    """A defender's card laid off onto one of the knocker's melds (as the knocker laid it)."""

    card: Card
    meld: Meld

    def __str__(self) -> str:
        return f"{self.card} on {self.meld}"

    def to_dict(self) -> dict[str, Any]:
        return {"card": str(self.card), "meld": self.meld.to_list()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LayOff:
        return cls(Card(data["card"]), Meld(data["meld"]))


@dataclass(frozen=True)
class ExplanationLine:
    """One line of a hand's explanation, as data the command line and the web only render.

    ``topic`` is ``"arrangement"`` (a player's melds and deadwood), ``"layoffs"`` (the defender's
    cards laid off, by meld), ``"discard"``, ``"outcome"`` (who scores what, and why) or
    ``"doubling"`` (the Oklahoma spade upcard). ``role`` says whose line it is (``"knocker"``,
    ``"defender"`` or ``None``); ``text`` never names a player, so a page can put names before it.
    """

    topic: str
    role: str | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"topic": self.topic, "role": self.role, "text": self.text}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExplanationLine:
        return cls(str(data["topic"]), data.get("role"), str(data["text"]))


@dataclass(frozen=True)
class HandResult:
    """The outcome of one hand. Players are 0 and 1; ``knocker`` says who knocked.

    ``winner`` is the player who scores ``points`` (``None``: nobody scores). The arrangements
    are ``None`` for hands entered only as deadwood counts, and for void hands.
    """

    kind: HandKind
    knocker: int | None
    winner: int | None
    points: int
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None
    knocker_arrangement: Arrangement | None = None
    defender_arrangement: Arrangement | None = None
    layoffs: tuple[LayOff, ...] = ()
    discard: Card | None = None
    upcard: Card | None = None
    doubled: bool = False
    explanation: str = ""
    lines: tuple[ExplanationLine, ...] = ()
    """The explanation as structured lines: each player's arrangement, the lay-offs, the discard,
    the outcome and any doubling, in that order (``explanation`` is the same as prose)."""

    @property
    def defender(self) -> int | None:
        return None if self.knocker is None else 1 - self.knocker

    @property
    def winner_role(self) -> str | None:
        """``"knocker"``, ``"defender"`` or ``None`` (nobody scores)."""
        if self.winner is None:
            return None
        return "knocker" if self.winner == self.knocker else "defender"

    @property
    def is_void(self) -> bool:
        return self.kind == HandKind.VOID

    def score_for(self, player: int) -> int:
        """Signed points: ``+points`` for the winner, ``-points`` for the other player."""
        if self.winner is None:
            return 0
        return self.points if player == self.winner else -self.points

    def with_knocker(self, knocker: int) -> HandResult:
        """The same hand with the knocker being the given player (winner follows)."""
        if self.knocker is None or knocker == self.knocker:
            return self
        swap = {0: 1, 1: 0, None: None}
        data = self.to_dict()
        data["knocker"] = knocker
        data["winner"] = swap[self.winner]
        return HandResult.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "knocker": self.knocker,
            "winner": self.winner,
            "points": self.points,
            "knocker_deadwood": self.knocker_deadwood,
            "defender_deadwood": self.defender_deadwood,
            "knocker_arrangement": self.knocker_arrangement.to_dict() if self.knocker_arrangement else None,
            "defender_arrangement": self.defender_arrangement.to_dict() if self.defender_arrangement else None,
            "layoffs": [layoff.to_dict() for layoff in self.layoffs],
            "discard": str(self.discard) if self.discard is not None else None,
            "upcard": str(self.upcard) if self.upcard is not None else None,
            "doubled": self.doubled,
            "explanation": self.explanation,
            "lines": [line.to_dict() for line in self.lines],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandResult:
        if data.get("kind") not in tuple(HandKind):
            raise ValueError(f"unknown hand kind {data.get('kind')!r}")

        def arrangement(key: str) -> Arrangement | None:
            return Arrangement.from_dict(data[key]) if data.get(key) else None

        def card(key: str) -> Card | None:
            return Card(data[key]) if data.get(key) is not None else None

        return cls(
            kind=HandKind(data["kind"]),
            knocker=data.get("knocker"),
            winner=data.get("winner"),
            points=int(data.get("points", 0)),
            knocker_deadwood=data.get("knocker_deadwood"),
            defender_deadwood=data.get("defender_deadwood"),
            knocker_arrangement=arrangement("knocker_arrangement"),
            defender_arrangement=arrangement("defender_arrangement"),
            layoffs=tuple(LayOff.from_dict(x) for x in data.get("layoffs", ())),
            discard=card("discard"),
            upcard=card("upcard"),
            doubled=bool(data.get("doubled")),
            explanation=data.get("explanation", ""),
            lines=tuple(ExplanationLine.from_dict(x) for x in data.get("lines", ())),
        )


def void_hand() -> HandResult:
    """The stock ran down to two cards without a knock: nobody scores, the same dealer deals."""
    text = "Void hand: the stock ran down to two cards; nobody scores and the same dealer deals again."
    return HandResult(
        kind=HandKind.VOID,
        knocker=None,
        winner=None,
        points=0,
        explanation=text,
        lines=(ExplanationLine("outcome", None, text),),
    )


# ---------------------------------------------------------------------------------------------
# Lay-offs


def _layoff_candidates(knocker_melds: Iterable[Meld], defender_mask: int) -> int:
    """Mask of the defender's cards that could be laid off in some chain."""
    candidates = 0
    for meld in knocker_melds:
        cards = meld.cards
        if meld.kind == "set":
            if len(cards) == 3:
                rank = cards[0].rank
                for suit in range(4):
                    bit = 1 << (suit * 13 + rank)
                    if defender_mask & bit:
                        candidates |= bit
            continue
        suit = cards[0].suit
        for step, start in ((1, cards[-1].rank + 1), (-1, cards[0].rank - 1)):
            rank = start
            while 0 <= rank < 13 and defender_mask >> (suit * 13 + rank) & 1:
                candidates |= 1 << (suit * 13 + rank)
                rank += step
    return candidates


def _assign_layoffs(knocker_melds: tuple[Meld, ...], laid: int) -> list[LayOff] | None:
    """Which meld each laid-off card joins, in playing order; ``None`` if impossible."""
    layoffs: list[LayOff] = []
    remaining = laid
    # Runs first, chaining outward from the ends one card at a time.
    for meld in knocker_melds:
        if meld.kind != "run":
            continue
        suit = meld.cards[0].suit
        for step, start in ((1, meld.cards[-1].rank + 1), (-1, meld.cards[0].rank - 1)):
            rank = start
            while 0 <= rank < 13 and remaining >> (suit * 13 + rank) & 1:
                remaining ^= 1 << (suit * 13 + rank)
                layoffs.append(LayOff(ALL_CARDS[suit * 13 + rank], meld))
                rank += step
    for meld in knocker_melds:
        if meld.kind == "set" and len(meld.cards) == 3:
            rank = meld.cards[0].rank
            for suit in range(4):
                bit = 1 << (suit * 13 + rank)
                if remaining & bit:
                    remaining ^= bit
                    layoffs.append(LayOff(ALL_CARDS[suit * 13 + rank], meld))
    return None if remaining else layoffs


def legal_layoffs(knocker_melds: Iterable[Meld], cards: Iterable[Card | int | str] | str) -> tuple[LayOff, ...] | None:
    """The lay-offs that put all these cards onto the knocker's melds, or ``None`` if they can't.

    Runs take cards at either end, chained without limit; a 3-card set takes its 4th card.

    >>> [str(x) for x in legal_layoffs([Meld("6s 7s 8s")], "Js Ts 9s")]
    ['9s on 6s 7s 8s', 'Ts on 6s 7s 8s', 'Js on 6s 7s 8s']
    >>> legal_layoffs([Meld("6s 7s 8s")], "Js") is None
    True
    """
    layoffs = _assign_layoffs(tuple(knocker_melds), cards_mask(parse_cards(cards)))
    return None if layoffs is None else tuple(layoffs)


@dataclass(frozen=True)
class _Defence:
    deadwood: int
    arrangement: Arrangement
    layoffs: tuple[LayOff, ...]


def best_defence(knocker_melds: Iterable[Meld], defender_cards: Iterable[Card | int | str] | str) -> _Defence:
    """The defender's melds and lay-offs that leave him the least deadwood.

    He may break up his own melds to lay off; among equal results the fewest lay-offs win.
    """
    melds = tuple(knocker_melds)
    defender = parse_cards(defender_cards)
    defender_mask = cards_mask(defender)
    candidates = list(mask_cards(_layoff_candidates(melds, defender_mask)))
    best: tuple[Any, ...] | None = None
    for size in range(len(candidates) + 1):
        for subset in combinations(candidates, size):
            laid = cards_mask(subset)
            deadwood = _min_deadwood_mask(defender_mask & ~laid)
            if best is not None and deadwood >= best[0]:
                continue
            layoffs = _assign_layoffs(melds, laid)
            if layoffs is None:
                continue
            best = (deadwood, laid, layoffs)
    assert best is not None  # laying off nothing is always possible
    deadwood, laid, layoffs = best
    return _Defence(deadwood, _arrangement_from_mask(defender_mask & ~laid), tuple(layoffs))


# ---------------------------------------------------------------------------------------------
# Scoring


def _spade_doubles(rules: Rules, upcard: Card | None) -> bool:
    return bool(rules.oklahoma and rules.oklahoma_spade_doubles and upcard is not None and upcard.suit == 0)


def _limit_text(limit: int | None) -> str:
    return "gin only (ace upcard)" if limit is None else f"the knock limit of {limit}"


def can_knock(deadwood: int, limit: int | None) -> bool:
    """Whether a player with this much deadwood may knock: gin always, else up to the knock limit
    (``limit`` from ``Rules.knock_limit_for``; ``None`` is gin only).

    >>> can_knock(10, 10), can_knock(11, 10), can_knock(0, None), can_knock(1, None)
    (True, False, True, False)
    """
    return deadwood == 0 or (limit is not None and deadwood <= limit)


class OverKnockLimit(ValueError):
    """A knock with more deadwood than the rules allow. ``deadwood_cards``: the cards left out of melds in
    the knocker's best arrangement (empty when only counts were entered): where a misread card would be."""

    def __init__(self, message: str, deadwood: int, limit: int | None, deadwood_cards: tuple[Card, ...] = ()) -> None:
        super().__init__(message)
        self.deadwood = deadwood
        self.limit = limit
        self.deadwood_cards = deadwood_cards

    def with_message(self, message: str) -> OverKnockLimit:
        """The same knock, said in other words."""
        return OverKnockLimit(message, self.deadwood, self.limit, self.deadwood_cards)


def _check_knock(deadwood: int, limit: int | None, deadwood_cards: tuple[Card, ...] = ()) -> None:
    """``OverKnockLimit`` unless a player with this much deadwood may knock.

    >>> _check_knock(14, 10, (Card("9c"), Card("5d")))
    Traceback (most recent call last):
    ...
    engine.scoring.OverKnockLimit: cannot knock with 14 deadwood: over the knock limit of 10. Check the cards, or the rules/upcard in use.
    """
    if not can_knock(deadwood, limit):
        raise OverKnockLimit(
            f"cannot knock with {deadwood} deadwood: over {_limit_text(limit)}. "
            "Check the cards, or the rules/upcard in use.",
            deadwood,
            limit,
            deadwood_cards,
        )


@dataclass(frozen=True)
class _Outcome:
    """Who scores what for a hand, and why, before any doubling."""

    kind: HandKind
    winner: int | None
    points: int
    text: str


def _outcome(knocker_deadwood: int, defender_deadwood: int, kind: HandKind, rules: Rules, knocker: int) -> _Outcome:
    """The outcome of a gin or big gin (``kind``), else of a knock: a knock, a tie or an undercut."""
    defender = 1 - knocker
    if kind in (HandKind.GIN, HandKind.BIG_GIN):
        bonus = rules.gin_bonus if kind == HandKind.GIN else rules.big_gin_bonus
        points = bonus + defender_deadwood
        return _Outcome(
            kind,
            knocker,
            points,
            f"{kind.words.capitalize()}: {bonus} bonus + the defender's "
            f"{defender_deadwood} deadwood = {points} to the knocker (no lay-offs after gin).",
        )
    if defender_deadwood > knocker_deadwood:
        points = defender_deadwood - knocker_deadwood
        return _Outcome(
            HandKind.KNOCK,
            knocker,
            points,
            f"Knock: the knocker's {knocker_deadwood} is under the defender's "
            f"{defender_deadwood}, so the knocker scores {defender_deadwood} - "
            f"{knocker_deadwood} = {points}.",
        )
    if defender_deadwood == knocker_deadwood and rules.tie != "undercut":
        if rules.tie == "knocker":
            return _Outcome(
                HandKind.KNOCK,
                knocker,
                0,
                f"Tie at {knocker_deadwood}: by these rules the knocker wins the hand, scoring the difference, 0.",
            )
        return _Outcome(HandKind.KNOCK, None, 0, f"Tie at {knocker_deadwood}: by these rules nobody scores.")
    difference = knocker_deadwood - defender_deadwood
    points = difference + rules.undercut_bonus
    relation = "equals" if difference == 0 else "is under"
    return _Outcome(
        HandKind.UNDERCUT,
        defender,
        points,
        f"Undercut: the defender's {defender_deadwood} {relation} the knocker's "
        f"{knocker_deadwood}, so the defender scores {difference} + {rules.undercut_bonus} "
        f"bonus = {points}.",
    )


def _arrangement_text(arrangement: Arrangement) -> str:
    melds = " | ".join(str(meld) for meld in arrangement.melds) or "no melds"
    deadwood = format_cards(arrangement.deadwood) or "none"
    return f"{melds}; deadwood {deadwood} = {arrangement.deadwood_count}"


def _layoffs_text(layoffs: tuple[LayOff, ...]) -> str:
    """The lay-offs grouped by the meld they go on: ``8s 9s on 5s 6s 7s; 8c on 9c Tc Jc``."""
    groups: dict[Meld, list[str]] = {}
    for layoff in layoffs:
        groups.setdefault(layoff.meld, []).append(str(layoff.card))
    return "; ".join(f"{' '.join(cards)} on {meld}" for meld, cards in groups.items())


def _finish(outcome: _Outcome, rules: Rules, upcard: Card | None, **fields: Any) -> HandResult:
    """The result with its explanation lines; the prose explanation reads them in playing order."""
    points = outcome.points
    doubled = _spade_doubles(rules, upcard) and points > 0
    if doubled:
        points *= 2
    lines = [
        ExplanationLine("arrangement", role, _arrangement_text(arrangement))
        for role, arrangement in (
            ("knocker", fields.get("knocker_arrangement")),
            ("defender", fields.get("defender_arrangement")),
        )
        if arrangement is not None
    ]
    prose = []  # the explanation's sentences: discard, lay-offs, outcome, doubling
    if fields.get("layoffs"):
        lines.append(ExplanationLine("layoffs", "defender", _layoffs_text(fields["layoffs"])))
        prose.append(f"The defender lays off {lines[-1].text}.")
    if fields.get("discard") is not None:
        lines.append(ExplanationLine("discard", "knocker", f"Discarding {fields['discard']}."))
        prose.insert(0, lines[-1].text)
    lines.append(ExplanationLine("outcome", None, outcome.text))
    if doubled:
        lines.append(ExplanationLine("doubling", None, f"The spade upcard ({upcard}) doubles it: {points}."))
    explanation = " ".join(prose + [line.text for line in lines if line.topic in ("outcome", "doubling")])
    return HandResult(
        kind=outcome.kind,
        winner=outcome.winner,
        points=points,
        explanation=explanation,
        upcard=upcard,
        doubled=doubled,
        lines=tuple(lines),
        **fields,
    )


def _gin(
    kind: HandKind,
    knocker_arrangement: Arrangement,
    defender_hand: tuple[Card, ...],
    rules: Rules,
    upcard: Card | None,
    knocker: int,
    discard: Card | None = None,
) -> HandResult:
    """A gin or big gin of cards: the knocker's whole arrangement melded, the defender's best, no lay-offs."""
    defender_best = best_arrangement(defender_hand)
    return _finish(
        _outcome(0, defender_best.deadwood_count, kind, rules, knocker),
        rules,
        upcard,
        knocker_deadwood=0,
        defender_deadwood=defender_best.deadwood_count,
        knocker_arrangement=knocker_arrangement,
        defender_arrangement=defender_best,
        discard=discard,
        knocker=knocker,
    )


def score_hand(
    knocker_cards: Iterable[Card | int | str] | str,
    defender_cards: Iterable[Card | int | str] | str,
    rules: Rules | None = None,
    upcard: Card | str | None = None,
    knocker: int = 0,
) -> HandResult:
    """Score a hand from both players' cards.

    ``knocker_cards``: 10 cards (already discarded) or 11 (the best discard is chosen; all 11
    melded is big gin when the rules play it). ``defender_cards``: 10 cards. The knocker lays
    the arrangement of least deadwood that leaves him the best score; the defender melds and
    lays off to leave the least deadwood. Raises ``ValueError`` for a knock over the limit.
    """
    rules = rules or Rules()
    knocker_hand = parse_cards(knocker_cards)
    defender_hand = parse_cards(defender_cards)
    up = Card(upcard) if upcard is not None else None
    check_knocker(knocker)
    check_showdown((knocker_hand, defender_hand), 0, rules, knocker_may_discard=True)
    limit = rules.knock_limit_for(up)

    if len(knocker_hand) == 11 and rules.big_gin and _min_deadwood_mask(cards_mask(knocker_hand)) == 0:
        return _gin(HandKind.BIG_GIN, best_arrangement(knocker_hand), defender_hand, rules, up, knocker)

    # Every (discard, arrangement) of least deadwood the knocker could lay down.
    options: list[tuple[Card | None, Arrangement]] = []
    if len(knocker_hand) == 11:
        mask = cards_mask(knocker_hand)
        by_discard = {card: _min_deadwood_mask(mask & ~(1 << card)) for card in knocker_hand}
        least = min(by_discard.values())
        # Highest card first: among equally good discards the knocker throws the biggest.
        for card in sorted(knocker_hand, key=lambda c: (-c.value, -int(c))):
            if by_discard[card] == least:
                kept = [c for c in knocker_hand if c != card]
                options.extend((card, a) for a in all_arrangements(kept))
    else:
        options.extend((None, a) for a in all_arrangements(knocker_hand))
    knocker_deadwood = options[0][1].deadwood_count
    _check_knock(knocker_deadwood, limit, options[0][1].deadwood)

    if knocker_deadwood == 0:
        discard, arrangement = options[0]
        return _gin(HandKind.GIN, arrangement, defender_hand, rules, up, knocker, discard)

    best = None
    for discard, arrangement in options:
        defence = best_defence(arrangement.melds, defender_hand)
        outcome = _outcome(knocker_deadwood, defence.deadwood, HandKind.KNOCK, rules, knocker)
        net = 0 if outcome.winner is None else (outcome.points if outcome.winner == knocker else -outcome.points)
        key = (-net, len(defence.layoffs))
        if best is None or key < best[0]:
            best = (key, discard, arrangement, defence, outcome)
    assert best is not None, "a hand of 11 cards has a discard"
    _, discard, arrangement, defence, outcome = best
    return _finish(
        outcome,
        rules,
        up,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defence.deadwood,
        knocker_arrangement=arrangement,
        defender_arrangement=defence.arrangement,
        layoffs=defence.layoffs,
        discard=discard,
        knocker=knocker,
    )


def score_counts(
    knocker_deadwood: int,
    defender_deadwood: int,
    rules: Rules | None = None,
    gin: bool = False,
    big_gin: bool = False,
    upcard: Card | str | None = None,
    knocker: int = 0,
) -> HandResult:
    """Score a hand entered as counts only: who knocked, and both deadwood counts.

    ``defender_deadwood`` is after lay-offs for a knock, or the whole deadwood for (big) gin.

    >>> print(score_counts(3, 3).kind, score_counts(3, 3).winner, score_counts(3, 3).points)
    undercut 1 25
    """
    rules = rules or Rules()
    up = Card(upcard) if upcard is not None else None
    check_deadwood(knocker_deadwood, "knocker deadwood")
    check_deadwood(defender_deadwood, "defender deadwood")
    check_knocker(knocker)
    if big_gin and not rules.big_gin:
        raise ValueError("big gin is not played under these rules")
    if (gin or big_gin) and knocker_deadwood:
        raise ValueError(f"gin means 0 deadwood, but the knocker's deadwood is {knocker_deadwood}")
    kind = HandKind.BIG_GIN if big_gin else HandKind.GIN if gin or knocker_deadwood == 0 else HandKind.KNOCK
    if kind == HandKind.KNOCK:
        _check_knock(knocker_deadwood, rules.knock_limit_for(up))
    return _finish(
        _outcome(knocker_deadwood, defender_deadwood, kind, rules, knocker),
        rules,
        up,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defender_deadwood,
        knocker=knocker,
    )
