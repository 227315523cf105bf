"""What the forms and the API's bodies send, read into the engine's values: whole numbers, the new game's
rules, and a hand entered as cards or as deadwood counts (checked by the engine); the sentences that say
what was wrong.

No rule of gin rummy lives here: the engine parses the cards, checks the showdown and knows the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, overload

from engine import Option, Rules, check_showdown, parse_cards, parse_deadwood, upcard_for

from .store import EnteredAs, GameRecord, HandEntry

MOST_DIGITS = 9  # every number a form takes (points, ids, positions) fits in 9 digits


def whole_number(text: object, negative: bool = False) -> int | None:
    """The whole number written in ASCII digits, else None: "٣", "²", "1_000", "+4", " 4" are not numbers here."""
    text = str(text)
    digits = text[1:] if negative and text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > MOST_DIGITS:
        return None
    return int(text)


def sentence(message: object) -> str:
    """An error for people: starts with a capital, ends with a full stop."""
    text = str(message).strip()
    if not text:
        return "That did not work."
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


# ---------------------------------------------------------------- the new game's rules


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


# ---------------------------------------------------------------- a hand entered


def parse_hand_text(text: str, whose: str) -> tuple[str, ...]:
    """Card codes from text like ``Ts Ah 9c`` (also ``10s``, ♠♥♦♣); ValueError names the bad or
    repeated card (the engine's ``parse_cards``)."""
    try:
        cards = parse_cards(text)
    except ValueError as error:
        raise ValueError(f"{whose}'s cards: {error}. Write cards like Ts Ah 9c.") from None
    return tuple(str(card) for card in cards)


def parse_knocker(text: str) -> int:
    """Who knocked: player ``0`` or ``1``."""
    if text not in ("0", "1"):
        raise ValueError("Choose who knocked.")
    return int(text)


def parse_upcard(upcard_text: str, rules: Rules) -> str | None:
    """The Oklahoma upcard (required under Oklahoma rules, ignored otherwise: engine.upcard_for)."""
    upcard = upcard_for(rules, upcard_text)
    return None if upcard is None else str(upcard)


def showdown_entry(
    game: GameRecord, cards_text: tuple[str, str], knocker_text: str, upcard_text: str, source: str = "manual"
) -> HandEntry:
    """A hand of ``game`` entered as cards, checked by the engine: who knocked, 10 cards a hand (11 for
    big gin), no card twice, the upcard when the rules need it."""
    rules, players = game.rules, game.players
    hands = (parse_hand_text(cards_text[0], players[0]), parse_hand_text(cards_text[1], players[1]))
    knocker = parse_knocker(knocker_text)
    check_showdown((parse_cards(hands[0]), parse_cards(hands[1])), knocker, rules, players)
    upcard = parse_upcard(upcard_text, rules)
    return HandEntry(EnteredAs.CARDS, knocker, cards=hands, upcard=upcard, source=source)


def counts_entry(
    game: GameRecord, knocker_text: str, deadwood_text: tuple[str, str], gin: bool, upcard_text: str = ""
) -> HandEntry:
    """A hand of ``game`` entered as both players' deadwood counts (the defender's after lay-offs), checked."""
    knocker = parse_knocker(knocker_text)
    players = game.players
    try:
        counts = (
            parse_deadwood(deadwood_text[0], f"{players[0]}'s deadwood"),
            parse_deadwood(deadwood_text[1], f"{players[1]}'s deadwood"),
        )
    except ValueError as error:
        raise ValueError(sentence(error)) from None
    upcard = parse_upcard(upcard_text, game.rules)
    return HandEntry(EnteredAs.COUNTS, knocker, deadwood=counts, gin=gin, upcard=upcard)
