"""The score sheet and each scored hand as the pages show them, from the engine's answers.

No rule of gin rummy lives here: every score, total, box and bonus comes from ``engine``; this module
only puts the players' names in and groups the cards as the engine arranged them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import engine
from engine import Arrangement, Game, GameScore, HandKind, HandResult, LayOff, OverKnockLimit, Rules
from engine.cards import card_label

from .forms import sentence
from .store import EnteredAs, GameRecord, HandEntry

# ---------------------------------------------------------------- scoring through the engine


@dataclass(frozen=True)
class CardGroup:
    """Cards that go together on the review page: a meld, the lay-offs onto one meld, or deadwood."""

    kind: str  # "meld", "layoff" or "deadwood"
    cards: tuple[str, ...]
    colour: int | None  # the meld's colour number (a lay-off takes its meld's); None: deadwood
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": list(self.cards), "colour": self.colour, "label": self.label}


CardGroups = tuple[tuple[CardGroup, ...], tuple[CardGroup, ...]]  # each player's melds, lay-offs, deadwood


def _codes(cards) -> tuple[str, ...]:
    return tuple(str(card) for card in cards)


def _label_cards(cards) -> str:
    return " ".join(card_label(code) for code in cards)


def card_groups(
    hands: tuple[tuple[str, ...], tuple[str, ...]], result: HandResult | None = None, knocker: int | None = None
) -> CardGroups:
    """Each hand's cards as the engine arranged them: melds, then lay-offs, then deadwood.

    With a scored ``result`` its arrangements and lay-offs are used; otherwise each hand's best
    arrangement (engine.best_arrangement). Every meld gets its own colour number, numbered across
    both hands; a lay-off has the colour of the meld it goes on. Unreadable hands give no groups.
    """
    arrangements: list[Arrangement | None] = [None, None]
    layoffs: tuple[LayOff, ...] = ()
    defender = 1
    if result is not None and result.knocker is not None and result.knocker_arrangement is not None:
        arrangements[result.knocker] = result.knocker_arrangement
        arrangements[1 - result.knocker] = result.defender_arrangement
        layoffs = result.layoffs
        defender = 1 - result.knocker
    for player in (0, 1):
        if arrangements[player] is None and hands[player]:
            try:
                arrangements[player] = engine.best_arrangement(hands[player])
            except ValueError:
                arrangements[player] = None
    groups: list[list[CardGroup]] = [[], []]
    colour_of: dict[tuple[str, ...], int] = {}
    colour = 0
    order = (result.knocker, 1 - result.knocker) if result is not None and result.knocker is not None else (0, 1)
    for player in order:
        arrangement = arrangements[player]
        if arrangement is None:
            continue
        for meld in arrangement.melds:
            codes = _codes(meld.cards)
            colour_of[codes] = colour
            groups[player].append(CardGroup("meld", codes, colour, f"{meld.kind.capitalize()} {_label_cards(codes)}"))
            colour += 1
    if layoffs:
        by_meld: dict[tuple[str, ...], list[str]] = {}
        for layoff in layoffs:
            by_meld.setdefault(_codes(layoff.meld.cards), []).append(str(layoff.card))
        for meld_codes, cards in by_meld.items():
            groups[defender].append(
                CardGroup("layoff", tuple(cards), colour_of.get(meld_codes), f"Laid off on {_label_cards(meld_codes)}")
            )
    for player in order:
        arrangement = arrangements[player]
        if arrangement is not None and arrangement.deadwood:
            codes = _codes(arrangement.deadwood)
            groups[player].append(CardGroup("deadwood", codes, None, f"Deadwood {arrangement.deadwood_count}"))
    return tuple(groups[0]), tuple(groups[1])


@dataclass(frozen=True)
class HandView:
    """One scored hand as the pages show it."""

    kind: HandKind
    winner: int | None  # player 0 or 1, None for a void or no score
    points: int
    summary: str
    explanation: tuple[str, ...]
    groups: tuple[tuple[CardGroup, ...], tuple[CardGroup, ...]] = ((), ())
    deadwood: tuple[int | None, int | None] = (None, None)  # each player's deadwood as scored

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.words,
            "winner": self.winner,
            "points": self.points,
            "summary": self.summary,
            "explanation": list(self.explanation),
        }


def knocker_of(entry: HandEntry) -> int:
    """Who knocked in a hand of cards or counts (ValueError for a stored hand without a knocker)."""
    if entry.knocker is None:
        raise ValueError(f"The hand entered as {entry.entry} does not say who knocked")
    return entry.knocker


def engine_result(entry: HandEntry, rules: Rules) -> HandResult:
    """The engine's HandResult for an entered hand (ValueError for an impossible hand)."""
    if entry.entry == EnteredAs.CARDS:
        knocker = knocker_of(entry)
        return engine.score_hand(
            entry.cards[knocker],
            entry.cards[1 - knocker],
            rules,
            upcard=entry.upcard,
            knocker=knocker,
        )
    if entry.entry == EnteredAs.COUNTS:
        knocker = knocker_of(entry)
        knocker_count, defender_count = entry.deadwood[knocker], entry.deadwood[1 - knocker]
        if knocker_count is None or defender_count is None:
            raise ValueError("The hand entered as counts lacks a deadwood count")
        return engine.score_counts(
            knocker_count,
            defender_count,
            rules,
            gin=entry.gin,
            upcard=entry.upcard,
            knocker=knocker,
        )
    return engine.void_hand()


def _deadwood_by_player(result: HandResult) -> tuple[int | None, int | None]:
    if result.knocker is None:
        return (None, None)
    values: list[int | None] = [None, None]
    values[result.knocker] = result.knocker_deadwood
    values[1 - result.knocker] = result.defender_deadwood
    return values[0], values[1]


def view_of(result: HandResult, entry: HandEntry, players: tuple[str, str]) -> HandView:
    kind, winner, points = result.kind, result.winner, result.points
    if kind == HandKind.VOID:
        summary = "Void hand: nobody scores."
    elif winner is None:
        summary = f"{players[knocker_of(entry)]} knocked: {kind.words}, no score."
    else:
        summary = f"{players[knocker_of(entry)]} knocked: {kind.words}; {players[winner]} scores {points}."
    groups = card_groups(entry.cards, result) if entry.entry == EnteredAs.CARDS else ((), ())
    return HandView(
        kind, winner, points, summary, explanation_lines(result, players), groups, _deadwood_by_player(result)
    )


def explanation_lines(result: HandResult, players: tuple[str, str]) -> tuple[str, ...]:
    """The engine's explanation lines (``HandResult.lines``) with the players' names put in:
    each player's melds and deadwood, the lay-offs, then the discard and the outcome."""
    names = (
        {} if result.knocker is None else {"knocker": players[result.knocker], "defender": players[1 - result.knocker]}
    )
    rendered = []
    for line in result.lines:
        whose = line.role or ""  # arrangement and lay-off lines always say whose they are
        if line.topic == "arrangement":
            rendered.append(f"{names[whose]}: {line.text}.")
        elif line.topic == "layoffs":
            rendered.append(f"{names[whose]} lays off {line.text}.")
        else:
            rendered.append(line.text)
    return tuple(rendered)


def score_entry(game: GameRecord, entry: HandEntry) -> HandView:
    """Score one hand entered in ``game``; ValueError (a sentence for people) when the engine says the hand is
    impossible."""
    players = game.players
    try:
        result = engine_result(entry, game.rules)
    except ValueError as error:
        message = sentence(error)
        if entry.entry == EnteredAs.COUNTS:
            message = message.replace("Check the cards", "Check the counts")
        if entry.knocker is not None:
            message = message.replace("Cannot knock", f"{players[entry.knocker]} cannot knock", 1)
        if isinstance(error, OverKnockLimit):  # the review page names the cards that may be misread
            raise error.with_message(message) from None
        raise ValueError(message) from None
    return view_of(result, entry, players)


# ---------------------------------------------------------------- the sheet


@dataclass(frozen=True)
class SheetRow:
    position: int
    entry: EnteredAs
    kind: HandKind
    knocker_name: str | None
    winner_name: str | None
    points: int
    totals: tuple[int, int]
    cards: tuple[tuple[str, ...], tuple[str, ...]]
    explanation: tuple[str, ...]
    hollywood: tuple[tuple[int, int], ...] = ()
    deadwood: tuple[int | None, int | None] = (None, None)


@dataclass(frozen=True)
class ReckoningLine:
    label: str
    amounts: tuple[int, int]


@dataclass(frozen=True)
class HollywoodColumn:
    totals: tuple[int, int]
    over: bool
    winner: int | None


@dataclass(frozen=True)
class Sheet:
    players: tuple[str, str]
    rows: tuple[SheetRow, ...]
    totals: tuple[int, int]
    boxes: tuple[int, int]
    next_dealer: int
    game_over: bool
    winner: int | None
    reckoning: tuple[ReckoningLine, ...]
    rules_summary: str
    hollywood: tuple[HollywoodColumn, ...] = ()
    running_totals: tuple[tuple[int, int], ...] = field(default=())

    @property
    def next_dealer_name(self) -> str:
        return self.players[self.next_dealer]

    @property
    def margin(self) -> int | None:
        """By how many points the winner won: the difference of the reckoning's last line."""
        if not self.reckoning or self.winner is None:
            return None
        final = self.reckoning[-1].amounts
        return final[self.winner] - final[1 - self.winner]

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [
                {
                    "position": r.position,
                    "entry": r.entry,
                    "kind": r.kind.words,
                    "knocker": r.knocker_name,
                    "winner": r.winner_name,
                    "points": r.points,
                    "totals": list(r.totals),
                    "deadwood": list(r.deadwood),
                    "cards": [list(r.cards[0]), list(r.cards[1])],
                    "explanation": list(r.explanation),
                }
                for r in self.rows
            ],
            "totals": list(self.totals),
            "boxes": list(self.boxes),
            "next_dealer": self.next_dealer_name,
            "game_over": self.game_over,
            "margin": self.margin,
            "winner": self.players[self.winner] if self.winner is not None else None,
            "reckoning": [{"label": line.label, "amounts": list(line.amounts)} for line in self.reckoning],
            "hollywood": [
                {
                    "totals": list(c.totals),
                    "over": c.over,
                    "winner": self.players[c.winner] if c.winner is not None else None,
                }
                for c in self.hollywood
            ],
        }


def build_sheet(game: GameRecord, hands: list[HandEntry]) -> Sheet:
    """Replay the stored hands through the engine's Game: totals, boxes, dealer, reckoning.

    ValueError when the hands cannot be one game (a hand after the game ended).
    """
    players, rules = game.players, game.rules
    engine_game = Game(players, rules, target=game.target, first_dealer=game.first_dealer)
    rows = []
    for position, entry in enumerate(hands, start=1):
        result = engine_result(entry, rules)
        try:
            engine_game.add_hand(result)
        except ValueError as error:
            raise ValueError(f"Hand {position} cannot be added: the game is over ({error}).") from None
        columns = engine_game.scores
        view = view_of(result, entry, players)
        rows.append(
            SheetRow(
                position,
                entry.entry,
                view.kind,
                players[entry.knocker] if entry.knocker is not None else None,
                players[view.winner] if view.winner is not None else None,
                view.points,
                (columns[0].totals[0], columns[0].totals[1]),
                entry.cards,
                view.explanation,
                tuple((c.totals[0], c.totals[1]) for c in columns) if len(columns) > 1 else (),
                view.deadwood,
            )
        )
    return _sheet_from_game(engine_game, players, rules, tuple(rows))


def _column_reckoning(column: GameScore, prefix: str = "") -> list[ReckoningLine]:
    lines = [ReckoningLine(f"{prefix}Points", (column.hand_points[0], column.hand_points[1]))]
    lines.append(
        ReckoningLine(
            f"{prefix}Game bonus" + (" (shutout)" if column.shutout else ""),
            (column.game_bonus[0], column.game_bonus[1]),
        )
    )
    lines.append(
        ReckoningLine(
            f"{prefix}Boxes ({column.boxes[0]} v {column.boxes[1]})", (column.box_bonus[0], column.box_bonus[1])
        )
    )
    lines.append(ReckoningLine(f"{prefix}Final", (column.final[0], column.final[1])))
    return lines


def _sheet_from_game(engine_game: Game, players: tuple[str, str], rules: Rules, rows: tuple[SheetRow, ...]) -> Sheet:
    columns = engine_game.scores
    over = engine_game.is_over
    reckoning: list[ReckoningLine] = []
    if over:
        if len(columns) == 1:
            reckoning = _column_reckoning(columns[0])
        else:
            for column in columns:
                reckoning.append(
                    ReckoningLine(
                        f"Game {column.number} final" + (" (shutout)" if column.shutout else ""),
                        (column.final[0], column.final[1]),
                    )
                )
            final = engine_game.final_scores
            reckoning.append(ReckoningLine("Grand total", (final[0], final[1])))
    hollywood = (
        tuple(HollywoodColumn((c.totals[0], c.totals[1]), c.over, c.winner) for c in columns)
        if len(columns) > 1
        else ()
    )
    totals, boxes = engine_game.totals, engine_game.boxes
    return Sheet(
        players,
        rows,
        (totals[0], totals[1]),
        (boxes[0], boxes[1]),
        engine_game.dealer,
        over,
        engine_game.winner if over else None,
        tuple(reckoning),
        rules.describe_changes(),
        hollywood,
        tuple(row.totals for row in rows),
    )
