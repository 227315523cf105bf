"""A game to the target: running totals, boxes, dealer, game/box bonuses, shutout, Hollywood.

The game keeps only its list of hands; every total is recomputed from it, so undoing or editing
a hand is always consistent.

>>> game = Game(["Ann", "Bob"])
>>> game.add_hand(score_counts(4, 30, knocker=0))
>>> game.add_hand(score_counts(0, 20, gin=True, knocker=1))
>>> game.totals, game.boxes, game.dealer
([26, 45], [1, 1], 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rules import Rules, ShutoutRule
from .scoring import HandResult, score_counts, void_hand  # noqa: F401  (doctest, re-export)

HOLLYWOOD_GAMES = 3


@dataclass
class GameScore:
    """One score column: the whole game, or one of the three Hollywood games."""

    number: int
    target: int
    totals: list[int] = field(default_factory=lambda: [0, 0])
    boxes: list[int] = field(default_factory=lambda: [0, 0])
    hands: list[int] = field(default_factory=list)  # indices of the hands scored here
    winner: int | None = None
    shutout: bool = False
    hand_points: list[int] = field(default_factory=lambda: [0, 0])
    game_bonus: list[int] = field(default_factory=lambda: [0, 0])
    box_bonus: list[int] = field(default_factory=lambda: [0, 0])
    final: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def margin(self) -> int:
        """Final winner's score minus the loser's (0 while the game is on)."""
        if self.winner is None:
            return 0
        return self.final[self.winner] - self.final[1 - self.winner]

    def add(self, index: int, result: HandResult) -> None:
        self.hands.append(index)
        if result.winner is not None:
            self.totals[result.winner] += result.points
            self.boxes[result.winner] += 1

    def close(self, winner: int, rules: Rules) -> None:
        """The winner reached the target: apply game bonus, boxes and shutout."""
        loser = 1 - winner
        self.winner = winner
        self.shutout = self.totals[loser] == 0
        rule: ShutoutRule = rules.shutout if self.shutout else "none"
        self.hand_points = list(self.totals)
        if rule == "double_hand_points":
            self.hand_points[winner] *= 2
        self.game_bonus = [0, 0]
        self.game_bonus[winner] = rules.game_bonus * (2 if rule == "double_game_bonus" else 1)
        self.box_bonus = [rules.box_bonus * boxes for boxes in self.boxes]
        self.final = [self.hand_points[p] + self.game_bonus[p] + self.box_bonus[p] for p in (0, 1)]
        if rule == "double_total":
            self.final[winner] *= 2

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "target": self.target,
            "totals": self.totals,
            "boxes": self.boxes,
            "hands": self.hands,
            "over": self.over,
            "winner": self.winner,
            "shutout": self.shutout,
            "hand_points": self.hand_points,
            "game_bonus": self.game_bonus,
            "box_bonus": self.box_bonus,
            "final": self.final,
            "margin": self.margin,
        }


class Game:
    """A game between players 0 and 1 under some rules, played to a target.

    ``rules.hollywood`` scores three games at once (``scores`` has three columns): a player's
    win goes into every open game up to the first open game in which he has not yet won a
    hand (so his 1st win counts in game 1, his 2nd in games 1-2, later ones in all three).
    """

    def __init__(
        self,
        players: Sequence[str] = ("Player 1", "Player 2"),
        rules: Rules | None = None,
        target: int | None = None,
        first_dealer: int = 0,
        hands: Iterable[HandResult] = (),
    ) -> None:
        names = [str(name).strip() for name in players]
        if len(names) != 2 or not all(names):
            raise ValueError(f"a game needs two player names, got {list(players)!r}")
        if first_dealer not in (0, 1):
            raise ValueError(f"first dealer must be player 0 or 1, got {first_dealer!r}")
        self.players: list[str] = names
        self.rules: Rules = rules or Rules()
        self.target: int = self.rules.target if target is None else int(target)
        if self.target < 1:
            raise ValueError(f"the target must be at least 1, got {self.target}")
        self.first_dealer: int = first_dealer
        self.hands: list[HandResult] = []
        for result in hands:
            self.add_hand(result)

    # -- changing the game ------------------------------------------------------------------
    def add_hand(self, result: HandResult) -> None:
        """Add a scored hand (or a void hand). Raises ``ValueError`` once the game is over."""
        self._check(self.hands + [result])
        self.hands.append(result)

    def add_void_hand(self) -> None:
        """Add a void hand (stock down to two cards): nobody scores, same dealer again."""
        self.add_hand(void_hand())

    def undo(self) -> HandResult:
        """Remove and return the last hand."""
        if not self.hands:
            raise ValueError("there is no hand to undo")
        return self.hands.pop()

    def replace_hand(self, index: int, result: HandResult) -> None:
        """Replace hand ``index`` (0-based); totals are recomputed from all hands."""
        if not 0 <= index < len(self.hands):
            raise ValueError(f"no hand {index + 1}: the game has {len(self.hands)} hands")
        hands = list(self.hands)
        hands[index] = result
        self._check(hands)
        self.hands = hands

    # -- the score ---------------------------------------------------------------------------
    def _check(self, hands: list[HandResult]) -> None:
        for result in hands:
            if not isinstance(result, HandResult):
                raise ValueError(f"not a hand result: {result!r}")
            if result.winner not in (None, 0, 1) or result.knocker not in (None, 0, 1):
                raise ValueError("players are 0 and 1")
        self._replay(hands)

    def _replay(self, hands: list[HandResult]) -> tuple[list[GameScore], int]:
        columns = [
            GameScore(number + 1, self.target) for number in range(HOLLYWOOD_GAMES if self.rules.hollywood else 1)
        ]
        dealer = self.first_dealer
        for index, result in enumerate(hands):
            open_columns = [c for c in columns if not c.over]
            if not open_columns:
                raise ValueError(f"hand {index + 1} comes after the game ended")
            if result.winner is None:
                targets = open_columns
            elif self.rules.hollywood:
                targets = []
                for column in open_columns:
                    targets.append(column)
                    if column.boxes[result.winner] == 0:
                        break
            else:
                targets = open_columns
            for column in targets:
                column.add(index, result)
                if result.winner is not None and column.totals[result.winner] >= column.target:
                    column.close(result.winner, self.rules)
            dealer = self._next_dealer(dealer, result)
        return columns, dealer

    def _next_dealer(self, dealer: int, result: HandResult) -> int:
        if result.is_void:
            return dealer
        if self.rules.next_dealer == "alternate":
            return 1 - dealer
        if result.winner is None:
            return dealer
        return result.winner if self.rules.next_dealer == "winner" else 1 - result.winner

    @property
    def scores(self) -> list[GameScore]:
        """The score columns: one, or three under Hollywood scoring."""
        return self._replay(self.hands)[0]

    def running_totals(self) -> list[list[int]]:
        """Both players' hand-point totals after each hand (first column under Hollywood)."""
        column = self.scores[0]
        totals = [0, 0]
        rows = []
        included = set(column.hands)
        for index, result in enumerate(self.hands):
            if index in included and result.winner is not None:
                totals[result.winner] += result.points
            rows.append(list(totals))
        return rows

    @property
    def totals(self) -> list[int]:
        """Running hand points of players 0 and 1 (first column under Hollywood)."""
        return list(self.scores[0].totals)

    @property
    def boxes(self) -> list[int]:
        """Hands won by players 0 and 1 (first column under Hollywood)."""
        return list(self.scores[0].boxes)

    @property
    def dealer(self) -> int:
        """Who deals the next hand."""
        return self._replay(self.hands)[1]

    @property
    def is_over(self) -> bool:
        return all(column.over for column in self.scores)

    @property
    def winner(self) -> int | None:
        """The game's winner once over; under Hollywood the bigger total of the three finals."""
        columns = self.scores
        if not all(c.over for c in columns):
            return None
        if len(columns) == 1:
            return columns[0].winner
        grand = self.final_scores
        return None if grand[0] == grand[1] else (0 if grand[0] > grand[1] else 1)

    @property
    def final_scores(self) -> list[int]:
        """Final scores with bonuses, summed over the columns that are over."""
        return [sum(c.final[p] for c in self.scores if c.over) for p in (0, 1)]

    # -- storage -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (``from_dict`` restores the game)."""
        return {
            "players": list(self.players),
            "rules": self.rules.to_dict(),
            "target": self.target,
            "first_dealer": self.first_dealer,
            "hands": [result.to_dict() for result in self.hands],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """A game from ``to_dict`` data; ``ValueError`` if the data is not a stored game."""
        if not isinstance(data, dict) or "players" not in data:
            raise ValueError("not a stored game: expected a dict with players, rules, hands")
        return cls(
            players=data["players"],
            rules=Rules.from_dict(data.get("rules", {})),
            target=data.get("target"),
            first_dealer=data.get("first_dealer", 0),
            hands=[HandResult.from_dict(h) for h in data.get("hands", ())],
        )

    def summary(self) -> dict[str, Any]:
        """Everything a score sheet shows, as plain data."""
        return {
            "players": list(self.players),
            "target": self.target,
            "totals": self.totals,
            "boxes": self.boxes,
            "dealer": self.dealer,
            "running_totals": self.running_totals(),
            "over": self.is_over,
            "winner": self.winner,
            "final_scores": self.final_scores,
            "scores": [column.to_dict() for column in self.scores],
        }

    def __repr__(self) -> str:
        return f"Game(players={self.players!r}, hands={len(self.hands)}, totals={self.totals}, over={self.is_over})"
