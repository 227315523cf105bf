"""Rule variants (docs/rules.md, "Variants"): one immutable ``Rules`` value with named presets.

>>> Rules().gin_bonus, Rules.preset("pagat").gin_bonus
(25, 20)
>>> Rules.from_dict(Rules.preset("oklahoma").to_dict()) == Rules.preset("oklahoma")
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args

# The values of the "choice" options, as JSON, the database and the forms name them.
TieRule = Literal["undercut", "knocker", "none"]  # equal deadwood: an undercut, the knocker wins 0, nobody scores
ShutoutRule = Literal["double_game_bonus", "double_total", "double_hand_points", "none"]
NextDealer = Literal["winner", "loser", "alternate"]
OklahomaAce = Literal["gin", "one"]  # an ace upcard: gin only, or knock with 1
OptionType = Literal["int", "bool", "choice"]
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
MOST_DIGITS = 9  # a rule's whole number fits in 9 digits (bigger is a typo, never a rule)


@dataclass(frozen=True)
class Option:
    """How the web form shows one rule option."""

    name: str
    type: OptionType
    default: Any
    description: str
    choices: tuple[Any, ...] = ()  # allowed values for "choice" (a Literal's values); suggested values for "int"
    minimum: int | None = None
    maximum: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["choices"] = list(self.choices)
        return data

    def parse(self, text: str) -> Any:
        """This option's value written as text: a whole number in ASCII digits (``-`` allowed),
        true/false (also yes/no, on/off, 1/0), or a choice (checked by ``Rules``).

        >>> OPTIONS[0].parse(" 20 "), Option("big_gin", "bool", True, "").parse("off")
        (20, False)
        """
        text = str(text).strip()
        if self.type == "int":
            digits = text[1:] if text.startswith("-") else text
            if not (digits.isascii() and digits.isdigit()) or len(digits) > MOST_DIGITS:
                raise ValueError(f"rule {self.name} needs a whole number, got {text!r}")
            return int(text)
        if self.type == "bool":
            if text.lower() not in TRUE_WORDS + FALSE_WORDS:
                raise ValueError(f"rule {self.name} needs true or false, got {text!r}")
            return text.lower() in TRUE_WORDS
        return text

    @staticmethod
    def named(name: str) -> Option:
        """The option called ``name`` (``-`` may stand for ``_``); ValueError lists the options."""
        key = name.strip().replace("-", "_")
        if key not in _OPTION_BY_NAME:
            raise ValueError(f"unknown rule option {name.strip()!r}: choose one of {', '.join(_OPTION_BY_NAME)}")
        return _OPTION_BY_NAME[key]


OPTIONS: tuple[Option, ...] = (
    Option("gin_bonus", "int", 25, "Bonus for going gin (plus the defender's whole deadwood).", (25, 20), 0, 1000),
    Option("undercut_bonus", "int", 25, "Bonus to the defender for an undercut.", (25, 20, 10), 0, 1000),
    Option(
        "tie",
        "choice",
        "undercut",
        "Equal deadwood after lay-offs: undercut, knocker wins 0, or no score.",
        get_args(TieRule),
    ),
    Option("big_gin", "bool", True, "Play big gin: all 11 cards melded without discarding."),
    Option("big_gin_bonus", "int", 31, "Bonus for big gin (plus the defender's whole deadwood).", (31, 50), 0, 1000),
    Option("knock_limit", "int", 10, "Most deadwood a player may knock with (not Oklahoma).", (10,), 0, 10),
    Option("oklahoma", "bool", False, "Oklahoma: the knock limit is the first upcard's value (faces 10)."),
    Option(
        "oklahoma_ace",
        "choice",
        "gin",
        "Oklahoma with an ace upcard: gin only, or knock with 1.",
        get_args(OklahomaAce),
    ),
    Option("oklahoma_spade_doubles", "bool", False, "Oklahoma: a spade upcard doubles the hand's score."),
    Option("target", "int", 100, "Points that end the game.", (100, 125, 150, 250), 1, 10000),
    Option("game_bonus", "int", 100, "Bonus to the player who reaches the target.", (100, 0, 200), 0, 10000),
    Option(
        "box_bonus", "int", 25, "Bonus per hand won, added at game end (not toward the target).", (25, 20, 0), 0, 1000
    ),
    Option(
        "shutout",
        "choice",
        "double_game_bonus",
        "Loser scored nothing: double the game bonus, the winner's whole total, or the hand points; or no extra.",
        get_args(ShutoutRule),
    ),
    Option("next_dealer", "choice", "winner", "Who deals the next hand.", get_args(NextDealer)),
    Option(
        "hollywood", "bool", False, "Hollywood: three games scored at once (1st win in game 1, 2nd in 1-2, then all)."
    ),
)
_OPTION_BY_NAME = {option.name: option for option in OPTIONS}


@dataclass(frozen=True)
class Rules:
    """Every rule variant with the defaults of docs/rules.md (the modern majority)."""

    gin_bonus: int = 25
    undercut_bonus: int = 25
    tie: TieRule = "undercut"
    big_gin: bool = True
    big_gin_bonus: int = 31
    knock_limit: int = 10
    oklahoma: bool = False
    oklahoma_ace: OklahomaAce = "gin"
    oklahoma_spade_doubles: bool = False
    target: int = 100
    game_bonus: int = 100
    box_bonus: int = 25
    shutout: ShutoutRule = "double_game_bonus"
    next_dealer: NextDealer = "winner"
    hollywood: bool = False

    def __post_init__(self) -> None:
        for option in OPTIONS:
            value = getattr(self, option.name)
            if option.type == "bool":
                if not isinstance(value, bool):
                    raise ValueError(f"rule {option.name} must be true or false, got {value!r}")
            elif option.type == "int":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ValueError(f"rule {option.name} must be a whole number, got {value!r}")
                if (
                    option.minimum is not None
                    and value < option.minimum
                    or option.maximum is not None
                    and value > option.maximum
                ):
                    raise ValueError(
                        f"rule {option.name} must be between {option.minimum} and {option.maximum}, got {value}"
                    )
            elif value not in option.choices:
                raise ValueError(f"rule {option.name} must be one of {', '.join(option.choices)}, got {value!r}")

    # -- presets and the form description --------------------------------------------------
    @staticmethod
    def presets() -> dict[str, Rules]:
        """The named presets, by name."""
        return dict(PRESETS)

    @staticmethod
    def preset(name: str) -> Rules:
        """A named preset (``standard``, ``pagat``, ``oklahoma``, ``hollywood``)."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown rules preset {name!r}: choose one of {', '.join(PRESETS)}") from None

    @staticmethod
    def preset_descriptions() -> dict[str, str]:
        """One line per preset, for a menu."""
        return dict(PRESET_DESCRIPTIONS)

    @staticmethod
    def options() -> list[dict[str, Any]]:
        """Each option's name, type, allowed values, default and one-line description."""
        return [option.to_dict() for option in OPTIONS]

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed."""
        unknown = set(changes) - set(_OPTION_BY_NAME)
        if unknown:
            raise ValueError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
        return replace(self, **changes)

    def with_settings(self, settings: Iterable[str]) -> Rules:
        """A copy with ``name=value`` settings applied, each value parsed by its option.

        >>> Rules().with_settings(["gin_bonus=20", "big-gin=no"]).describe_changes()
        'gin_bonus=20, big_gin=False'
        """
        changes = {}
        for setting in settings:
            name, sep, text = setting.partition("=")
            if not sep or name.strip().replace("-", "_") not in _OPTION_BY_NAME:
                raise ValueError(
                    f"bad rule setting {setting!r}: write OPTION=VALUE with OPTION one of {', '.join(_OPTION_BY_NAME)}"
                )
            option = Option.named(name)
            changes[option.name] = option.parse(text)
        return self.replace(**changes)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_json(self) -> str:
        """The rules as JSON text (sorted keys), as a game stores them."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Rules:
        """The inverse of ``to_json``: a game's stored rules."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules from a dict; missing options take their defaults, unknown ones are an error."""
        unknown = set(data) - set(_OPTION_BY_NAME)
        if unknown:
            raise ValueError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    @property
    def needs_upcard(self) -> bool:
        """Whether a hand needs its first upcard to be scored (Oklahoma: it sets the knock limit)."""
        return self.oklahoma

    def knock_limit_for(self, upcard: int | None) -> int | None:
        """The knock limit for this hand; ``None`` means gin only (Oklahoma ace)."""
        if not self.oklahoma:
            return self.knock_limit
        if upcard is None:
            raise ValueError("Oklahoma rules need the upcard (e.g. --upcard 6h) to know the knock limit")
        rank = int(upcard) % 13
        if rank == 0:
            return None if self.oklahoma_ace == "gin" else 1
        return min(rank + 1, 10)

    def describe_changes(self) -> str:
        """The options that differ from the defaults, as ``name=value`` text."""
        default = Rules()
        changed = [
            f"{o.name}={getattr(self, o.name)}" for o in OPTIONS if getattr(self, o.name) != getattr(default, o.name)
        ]
        return ", ".join(changed) or "standard"


PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    # Pagat's main rules and Bicycle: gin 20, undercut 10, 20 a box, shutout doubles the game
    # bonus; big gin is not part of them.
    "pagat": Rules(gin_bonus=20, undercut_bonus=10, box_bonus=20, big_gin=False),
    # Oklahoma gin (Bicycle): knock limit from the upcard, ace = gin only, spades double; to 150.
    "oklahoma": Rules(oklahoma=True, oklahoma_spade_doubles=True, target=150),
    "hollywood": Rules(hollywood=True),
}

PRESET_DESCRIPTIONS: dict[str, str] = {
    "standard": "Modern majority: gin 25, undercut 25, big gin 31, game 100, boxes 25.",
    "pagat": "Pagat and Bicycle: gin 20, undercut 10, boxes 20, no big gin.",
    "oklahoma": "Oklahoma: the upcard sets the knock limit (ace = gin only), spades double; to 150.",
    "hollywood": "Standard hands, scored as three games at once (Hollywood).",
}
