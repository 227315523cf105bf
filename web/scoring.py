"""The web app's glue to the rules engine: rules forms, checking entered hands, the sheet.

No rule of gin rummy lives here: every score, total, box and bonus comes from ``engine``. This
module turns form fields into engine calls and engine results into what the pages show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, overload

import engine
from engine import (
    CARD_CODES,
    Arrangement,
    Game,
    GameScore,
    HandResult,
    LayOff,
    Option,
    OverKnockLimit,
    Rules,
    check_showdown,
    parse_cards,
    parse_deadwood,
    upcard_for,
)
from engine.cards import card_label

from .store import GameRecord, HandEntry

__all__ = [
    "CARD_CODES",
    "card_label",
    "Sheet",
    "SheetRow",
    "HandView",
    "build_sheet",
    "score_entry",
    "showdown_entry",
    "counts_entry",
    "rules_from_form",
    "rule_fields",
    "explanation_lines",
]


MOST_DIGITS = 9  # every number a form takes (points, ids, positions) fits in 9 digits


def whole_number(text: object, negative: bool = False) -> int | None:
    """The whole number written in ASCII digits, else None: "٣", "²", "1_000", "+4", " 4" are not numbers here."""
    text = str(text)
    digits = text[1:] if negative and text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > MOST_DIGITS:
        return None
    return int(text)


# ---------------------------------------------------------------- rules


@dataclass(frozen=True)
class RuleField:
    """One rule option as the new-game form shows it."""

    name: str
    label: str
    kind: str  # "bool", "int" or "choice"
    value: Any
    choices: tuple = ()


class Form(Protocol):
    """What is read like a form: ``request.form``, a dict, or a ``FormView``."""

    @overload
    def get(self, key: str, /) -> Any: ...
    @overload
    def get(self, key: str, default: str, /) -> Any: ...


class FormView:
    """A dict of form fields plus raw rule values (the JSON API), read like a form."""

    def __init__(self, fields: dict[str, str], rules: dict[str, Any]) -> None:
        self.fields = dict(fields)
        for name, value in rules.items():
            self.fields[f"rule_{name}"] = ("1" if value else "") if isinstance(value, bool) else str(value)
            self.fields[f"rule_{name}__present"] = "1"

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def preset_names() -> list[str]:
    return list(Rules.presets())


def _option_rows() -> list[dict]:
    # "target" is asked for on its own line of the form, not among the rules.
    return [option for option in Rules.options() if option["name"] != "target"]


def rule_fields(form: Form) -> list[RuleField]:
    """The rule options for the form, filled from ``form`` (or its preset's defaults)."""
    try:
        rules = rules_from_form(form)
    except ValueError:
        rules = Rules.preset(form.get("preset") or "standard") if form.get("preset") in Rules.presets() else Rules()
    return [
        RuleField(
            option["name"],
            option["description"],
            option["type"],
            getattr(rules, option["name"]),
            tuple(option["choices"]) if option["type"] == "choice" else (),
        )
        for option in _option_rows()
    ]


def rules_from_form(form: Form) -> Rules:
    """The preset named in the form with each ``rule_<name>`` field applied; ValueError on a bad value."""
    preset = form.get("preset") or "standard"
    changes: dict[str, Any] = {}
    try:
        rules = Rules.preset(preset)
        for row in _option_rows():
            option = Option.named(row["name"])
            key = f"rule_{option.name}"
            raw = form.get(key)
            if option.type == "bool":
                if form.get(f"{key}__present"):  # an unticked box sends nothing
                    changes[option.name] = option.parse(raw or "false")
            elif raw is not None and str(raw).strip() != "":
                changes[option.name] = option.parse(raw)
        return rules.replace(**changes)
    except ValueError as error:
        raise ValueError(f"Rules: {error}.") from None


def preset_target(preset: str | None) -> int:
    """The target of a named preset (the standard one for an unknown name)."""
    return (Rules.presets().get(preset or "standard") or Rules()).target


def default_target(rules: Rules) -> int:
    return rules.target


def with_target(rules: Rules, target: int) -> Rules:
    return rules.replace(target=target)


def needs_upcard(rules: Rules) -> bool:
    return rules.needs_upcard


def rules_summary(rules: Rules) -> str:
    return rules.describe_changes()


# ---------------------------------------------------------------- checking entered hands


def parse_hand_text(text: str, whose: str) -> tuple[str, ...]:
    """Card codes from text like ``Ts Ah 9c`` (also ``10s``, ♠♥♦♣); ValueError names the bad or
    repeated card (the engine's ``parse_cards``)."""
    try:
        cards = parse_cards(text)
    except ValueError as error:
        raise ValueError(f"{whose}'s cards: {error}. Write cards like Ts Ah 9c.") from None
    return tuple(str(card) for card in cards)


def parse_knocker(text: str, players: tuple[str, str]) -> int:
    if text not in ("0", "1"):
        raise ValueError("Choose who knocked.")
    return int(text)


def showdown_entry(
    cards_text: tuple[str, str],
    knocker_text: str,
    upcard_text: str,
    rules: Rules,
    players: tuple[str, str],
    source: str = "manual",
) -> HandEntry:
    """A hand entered as cards, checked by the engine: who knocked, 10 cards a hand (11 for big gin),
    no card twice, the upcard when the rules need it."""
    hands = tuple(parse_hand_text(cards_text[i], players[i]) for i in (0, 1))
    knocker = parse_knocker(knocker_text, players)
    check_showdown((parse_cards(hands[0]), parse_cards(hands[1])), knocker, rules, players)
    return HandEntry(
        entry="cards",
        knocker=knocker,
        cards=(hands[0], hands[1]),
        upcard=parse_upcard(upcard_text, rules),
        source=source,
    )


def parse_upcard(upcard_text: str, rules: Rules) -> str | None:
    """The Oklahoma upcard (required under Oklahoma rules, ignored otherwise: engine.upcard_for)."""
    upcard = upcard_for(rules, upcard_text)
    return None if upcard is None else str(upcard)


def counts_entry(
    knocker_text: str,
    deadwood0: str,
    deadwood1: str,
    gin: bool,
    rules: Rules,
    players: tuple[str, str],
    upcard_text: str = "",
) -> HandEntry:
    """A hand entered as deadwood counts (the defender's after lay-offs), checked."""
    knocker = parse_knocker(knocker_text, players)
    try:
        counts = [
            parse_deadwood(text, f"{players[player]}'s deadwood") for player, text in enumerate((deadwood0, deadwood1))
        ]
    except ValueError as error:
        raise ValueError(sentence(error)) from None
    return HandEntry(
        entry="counts",
        knocker=knocker,
        deadwood=(counts[0], counts[1]),
        gin=gin,
        upcard=parse_upcard(upcard_text, rules),
    )


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

    kind: str  # knock, gin, big gin, undercut, void
    winner: int | None  # player 0 or 1, None for a void or no score
    points: int
    summary: str
    explanation: tuple[str, ...]
    groups: tuple[tuple[CardGroup, ...], tuple[CardGroup, ...]] = ((), ())
    deadwood: tuple[int | None, int | None] = (None, None)  # each player's deadwood as scored

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
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
    if entry.entry == "cards":
        knocker = knocker_of(entry)
        return engine.score_hand(
            entry.cards[knocker],
            entry.cards[1 - knocker],
            rules,
            upcard=entry.upcard,
            knocker=knocker,
        )
    if entry.entry == "counts":
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


def sentence(message: object) -> str:
    """An error for people: starts with a capital, ends with a full stop."""
    text = str(message).strip()
    if not text:
        return "That did not work."
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _deadwood_by_player(result: HandResult, entry: HandEntry) -> tuple[int | None, int | None]:
    if result.knocker is None:
        return (None, None)
    values: list[int | None] = [None, None]
    values[result.knocker] = result.knocker_deadwood
    values[1 - result.knocker] = result.defender_deadwood
    return values[0], values[1]


def view_of(result: HandResult, entry: HandEntry, players: tuple[str, str]) -> HandView:
    winner = result.winner
    kind = str(result.kind).replace("_", " ")
    points = int(getattr(result, "points", 0) or 0)
    if kind == "void":
        summary = "Void hand: nobody scores."
    elif winner is None:
        summary = f"{players[knocker_of(entry)]} knocked: {kind}, no score."
    else:
        summary = f"{players[knocker_of(entry)]} knocked: {kind}; {players[winner]} scores {points}."
    groups = card_groups(entry.cards, result) if entry.entry == "cards" else ((), ())
    return HandView(
        kind, winner, points, summary, explanation_lines(result, players), groups, _deadwood_by_player(result, entry)
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


def score_entry(entry: HandEntry, rules: Rules, players: tuple[str, str]) -> HandView:
    """Score one entered hand; ValueError (a sentence for people) when the engine says the hand is impossible."""
    try:
        result = engine_result(entry, rules)
    except ValueError as error:
        message = sentence(error)
        if entry.entry == "counts":
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
    entry: str
    kind: str
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
                    "kind": r.kind,
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
        rules_summary(rules),
        hollywood,
        tuple(row.totals for row in rows),
    )
