"""Players across games and their record: names matched over games, rename and merge (with Undo),
the record of two players against each other, and the CSV of every game.

A player is a name written in games: the same name trimmed and compared case-insensitively
(``name_key``) is the same player, however it was spelt. Every number here comes from the engine's
scoring of the stored hands (``sheet_view.build_sheet``, as the score sheet does); nothing here is a
rule of the game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine import HandKind
from engine.cards import in_words

from . import sheet_view, store
from .db import get_db, transaction
from .services import MAX_NAME_LENGTH
from .spreadsheet import spreadsheet_safe
from .store import GameRecord, PlayerChange, Seat


class UnknownPlayer(LookupError):
    """No game has a player by that name, or the two players never played each other (404)."""


class AlreadyDone(ValueError):
    """The form's one-time token was used: the rename or merge is done already."""


# ---------------------------------------------------------------- names


def clean_name(text: object) -> str:
    """The name as stored: inner runs of spaces made one, trimmed (as the new-game form does)."""
    return " ".join(str(text or "").split())


def name_key(name: str) -> str:
    """What two spellings of one player share: "Bob", " bob " and "BOB" give "bob"."""
    return clean_name(name).casefold()


def check_name(text: object, what: str = "The new name") -> str:
    """A name a player may be given (cleaned); ValueError says what is wrong with it."""
    name = clean_name(text)
    if not name:
        raise ValueError(f"{what} is blank: write a name.")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"{what} is longer than {MAX_NAME_LENGTH} characters.")
    return name


# ---------------------------------------------------------------- games, scored once


@dataclass(frozen=True)
class ScoredGame:
    """A stored game with its sheet (None when its stored hands cannot be scored as one game)."""

    game: GameRecord
    sheet: sheet_view.Sheet | None

    @property
    def over(self) -> bool:
        return self.sheet is not None and self.sheet.game_over

    @property
    def winner(self) -> int | None:
        """The seat that won the finished game (None: in progress, a tie or unscorable)."""
        return self.sheet.winner if self.sheet is not None and self.sheet.game_over else None

    @property
    def scores(self) -> tuple[int, int] | None:
        """Seat 0's and seat 1's score: the final reckoning (bonuses in) once over, else the running totals."""
        if self.sheet is None:
            return None
        if self.sheet.game_over and self.sheet.reckoning:
            final = self.sheet.reckoning[-1].amounts
            return final[0], final[1]
        return self.sheet.totals

    def seat_of(self, key: str) -> int | None:
        for seat in (0, 1):
            if name_key(self.game.players[seat]) == key:
                return seat
        return None


def score_game(game: GameRecord, hands: list[store.HandEntry]) -> ScoredGame:
    try:
        return ScoredGame(game, sheet_view.build_sheet(game, hands))
    except ValueError:  # damaged stored hands: the game is listed, its numbers are not counted
        return ScoredGame(game, None)


def scored_games(games: Iterable[GameRecord] | None = None) -> list[ScoredGame]:
    """The games (every stored game by default), oldest first, each scored by the engine."""
    if games is None:
        hands = store.all_hands()
        return [score_game(game, hands.get(game.id, [])) for game in sorted(store.list_games(), key=game_order)]
    return [score_game(game, store.get_hands(game.id)) for game in sorted(games, key=game_order)]


def game_order(game: GameRecord) -> int:
    return game.id


# ---------------------------------------------------------------- the players page


@dataclass(frozen=True)
class PlayerName:
    """One player as the games name them: the spelling shown, every spelling, how many games."""

    name: str
    key: str
    spellings: tuple[str, ...]  # every spelling in the games, the shown one first
    played: int

    @property
    def other_spellings(self) -> tuple[str, ...]:
        return self.spellings[1:]


@dataclass(frozen=True)
class PlayerSummary(PlayerName):
    """One player over every game: besides the names, games won and in progress, and the opponents."""

    won: int = 0
    in_progress: int = 0
    opponents: tuple[tuple[str, int], ...] = ()  # (opponent's shown name, games together), most games first


def shown_names(seats: Sequence[Seat]) -> dict[str, str]:
    """Player key -> the spelling to show: the one written in most games, the latest game's on a tie."""
    counts: dict[str, Counter[str]] = {}
    latest: dict[tuple[str, str], int] = {}
    for seat in seats:
        key = name_key(seat.name)
        counts.setdefault(key, Counter())[seat.name] += 1
        latest[(key, seat.name)] = max(latest.get((key, seat.name), 0), seat.game_id)
    return {
        key: max(spellings, key=lambda name: (spellings[name], latest[(key, name)]))
        for key, spellings in counts.items()
    }


def seats_of(games: Sequence[GameRecord]) -> list[Seat]:
    return [Seat(game.id, seat, game.players[seat]) for game in games for seat in (0, 1)]


def player_names(seats: Sequence[Seat] | None = None) -> list[PlayerName]:
    """Every player named in the games (no scoring needed), most games first, then by name."""
    seats = store.player_seats() if seats is None else seats
    shown = shown_names(seats)
    spellings: dict[str, set[str]] = {}
    games: dict[str, set[int]] = {}
    for seat in seats:
        key = name_key(seat.name)
        spellings.setdefault(key, set()).add(seat.name)
        games.setdefault(key, set()).add(seat.game_id)  # a game's two seats with one name count once
    names = [
        PlayerName(
            shown[key],
            key,
            (shown[key], *sorted(spelling for spelling in spellings[key] if spelling != shown[key])),
            len(games[key]),
        )
        for key in shown
    ]
    return sorted(names, key=lambda player: (-player.played, player.key))


def player_summaries(scored: Sequence[ScoredGame]) -> list[PlayerSummary]:
    """Every player named in the games with games won, in progress and opponents; most games first."""
    names = player_names(seats_of([item.game for item in scored]))
    shown = {player.key: player.name for player in names}
    won: Counter[str] = Counter()
    on: Counter[str] = Counter()
    against: dict[str, Counter[str]] = {}
    for item in scored:
        keys = [name_key(name) for name in item.game.players]
        for place, key in enumerate(dict.fromkeys(keys)):  # a game's two seats with one name count once
            if not item.over:
                on[key] += 1
            elif item.winner is not None and keys[item.winner] == key:
                won[key] += 1
            if keys[0] != keys[1]:
                against.setdefault(key, Counter())[keys[1 - place]] += 1
    return [
        PlayerSummary(
            player.name,
            player.key,
            player.spellings,
            player.played,
            won=won[player.key],
            in_progress=on[player.key],
            opponents=tuple(
                (shown[other], count)
                for other, count in sorted(
                    against.get(player.key, Counter()).items(), key=lambda kv: (-kv[1], shown[kv[0]])
                )
            ),
        )
        for player in names
    ]


def player_key(shown: dict[str, str], name: str) -> str:
    """The key of the player of that name (any spelling); UnknownPlayer says so when no game has one."""
    key = name_key(name)
    if key not in shown:
        raise UnknownPlayer(f"No game has a player called “{clean_name(name)}”.")
    return key


# ---------------------------------------------------------------- the record of two players


@dataclass(frozen=True)
class Tally:
    """One player's side of a record."""

    name: str
    games_won: int = 0
    hands_won: int = 0  # boxes
    gins: int = 0  # gin and big gin
    undercuts: int = 0  # hands won by undercutting the knocker
    biggest_hand: int | None = None  # most points in one hand won
    biggest_where: tuple[int, int] | None = None  # (game id, hand number) of that hand


@dataclass(frozen=True)
class RecordGame:
    """One game between the two, seen from the record's side: ``a`` is 0 and ``b`` is 1."""

    game: GameRecord
    scores: tuple[int, int] | None  # a's and b's (None: the hands cannot be scored)
    winner: int | None  # 0: a won, 1: b won, None: in progress (or a tie)
    finished: bool
    hands: int
    wins_after: tuple[int, int]  # games won by a and b after this one

    @property
    def in_progress(self) -> bool:
        return not self.finished


@dataclass(frozen=True)
class Record:
    """Two players against each other over all their games, oldest game first."""

    names: tuple[str, str]
    tallies: tuple[Tally, Tally]
    games: tuple[RecordGame, ...]

    @property
    def finished(self) -> int:
        return sum(1 for game in self.games if game.finished)

    @property
    def in_progress(self) -> int:
        return sum(1 for game in self.games if game.in_progress)

    @property
    def unscored(self) -> int:
        return sum(1 for game in self.games if game.scores is None)


def record_of(a: str, b: str) -> Record:
    """The record of ``a`` against ``b`` (any spelling); ValueError when they are one player,
    UnknownPlayer when no game has one of them or they never played each other."""
    shown = shown_names(store.player_seats())
    keys = (player_key(shown, a), player_key(shown, b))
    if keys[0] == keys[1]:
        raise ValueError(f"“{clean_name(a)}” and “{clean_name(b)}” are one player: choose two different players.")
    together = [game for game in store.list_games() if {name_key(name) for name in game.players} == set(keys)]
    if not together:
        raise UnknownPlayer(f"{shown[keys[0]]} and {shown[keys[1]]} have not played each other yet.")
    scored = scored_games(together)
    tallies = [Tally(shown[keys[0]]), Tally(shown[keys[1]])]
    counts = [{"games": 0, "hands": 0, "gins": 0, "undercuts": 0} for _ in (0, 1)]
    biggest: list[tuple[int, tuple[int, int]] | None] = [None, None]
    games: list[RecordGame] = []
    wins = [0, 0]
    for item in scored:
        seats = (item.seat_of(keys[0]), item.seat_of(keys[1]))
        if seats[0] is None or seats[1] is None:
            continue
        side_of_seat = {seats[0]: 0, seats[1]: 1}
        winner = side_of_seat[item.winner] if item.winner is not None else None
        if winner is not None:
            wins[winner] += 1
            counts[winner]["games"] += 1
        for row in item.sheet.rows if item.sheet is not None else ():
            if row.winner_name is None:
                continue
            side = side_of_seat[item.game.players.index(row.winner_name)]
            counts[side]["hands"] += 1
            counts[side]["gins"] += int(row.kind in (HandKind.GIN, HandKind.BIG_GIN))
            counts[side]["undercuts"] += int(row.kind == HandKind.UNDERCUT)
            best = biggest[side]
            if best is None or row.points > best[0]:
                biggest[side] = (row.points, (item.game.id, row.position))
        scores = item.scores
        games.append(
            RecordGame(
                game=item.game,
                scores=None if scores is None else (scores[seats[0]], scores[seats[1]]),
                winner=winner,
                finished=item.over,
                hands=len(item.sheet.rows) if item.sheet is not None else item.game.hand_count or 0,
                wins_after=(wins[0], wins[1]),
            )
        )
    for side in (0, 1):
        best = biggest[side]
        tallies[side] = Tally(
            tallies[side].name,
            games_won=counts[side]["games"],
            hands_won=counts[side]["hands"],
            gins=counts[side]["gins"],
            undercuts=counts[side]["undercuts"],
            biggest_hand=best[0] if best is not None else None,
            biggest_where=best[1] if best is not None else None,
        )
    return Record((shown[keys[0]], shown[keys[1]]), (tallies[0], tallies[1]), tuple(games))


def chart_labels(record: Record) -> list[str]:
    """One line per game for the chart's points: "Game 12 (2026-12-03): Ann won 395–0"."""
    labels = []
    for number, line in enumerate(record.games, start=1):
        score = f" {line.scores[0]}–{line.scores[1]}" if line.scores is not None else ""
        if line.winner is not None and line.scores is not None:
            outcome = f"{record.names[line.winner]} won {line.scores[line.winner]}–{line.scores[1 - line.winner]}"
        elif line.winner is not None:
            outcome = f"{record.names[line.winner]} won"
        elif line.finished:
            outcome = f"a tie{score}"
        else:
            outcome = f"in progress{score}"
        labels.append(f"Game {number} ({line.game.created[:10]}): {outcome}")
    return labels


# ---------------------------------------------------------------- the CSV of every game

CSV_HEADER = (
    "game",
    "date",
    "player 1",
    "player 2",
    "target",
    "player 1 score",
    "player 2 score",
    "winner",
    "hands",
    "finished",
)


def games_csv_rows(scored: Sequence[ScoredGame]) -> list[list[object]]:
    """The header, then one row per game (newest first, as the games page lists them); scores are the
    final reckoning once a game is over, else the running totals; "finished" is when it ended."""
    rows: list[list[object]] = [list(CSV_HEADER)]
    for item in sorted(scored, key=lambda item: -item.game.id):
        game, scores = item.game, item.scores
        winner = game.players[item.winner] if item.winner is not None else ""
        rows.append(
            [
                game.id,
                game.created,
                spreadsheet_safe(game.player0),
                spreadsheet_safe(game.player1),
                game.target,
                "" if scores is None else scores[0],
                "" if scores is None else scores[1],
                spreadsheet_safe(winner),
                len(item.sheet.rows) if item.sheet is not None else game.hand_count or 0,
                (game.finished or "") if item.over else "",
            ]
        )
    return rows


# ---------------------------------------------------------------- rename, merge, undo


@dataclass(frozen=True)
class ChangeDone:
    """What a rename or merge did: the change kept for Undo (None: nothing needed changing)."""

    change: PlayerChange | None
    message: str


def done_already(token: str | None) -> bool:
    """Whether a rename or merge was done with this form's one-time token (the form was sent twice)."""
    return store.player_change_token_used(get_db(), token)


def _player_seats(seats: Sequence[Seat], key: str) -> list[Seat]:
    return [seat for seat in seats if name_key(seat.name) == key]


def _games_phrase(count: int) -> str:
    return f"{count} game{'' if count == 1 else 's'}"


def rename_player(old: str, new: object, token: str | None = None) -> ChangeDone:
    """Write ``new`` for ``old`` (any spelling) in every game, in one transaction.

    ValueError for a bad new name or one that another player has (that is a merge, which asks
    first); UnknownPlayer when no game has ``old``; AlreadyDone when the token was used.
    """
    new_name = check_name(new)
    old_key = name_key(old)
    with transaction() as connection:
        if store.player_change_token_used(connection, token):
            raise AlreadyDone("That rename was done already (the button was pressed twice).")
        seats = store.player_seats(connection)
        shown = shown_names(seats)
        if old_key not in shown:
            raise UnknownPlayer(f"No game has a player called “{clean_name(old)}”.")
        new_key = name_key(new_name)
        if new_key != old_key and new_key in shown:
            raise ValueError(
                f"There is already a player called “{shown[new_key]}”. To put {shown[old_key]}'s games "
                f"under {shown[new_key]}, merge the two players."
            )
        changed = [seat for seat in _player_seats(seats, old_key) if seat.name != new_name]
        if not changed:
            return ChangeDone(None, f"{new_name} is written that way in every game already; nothing changed.")
        for seat in changed:
            store.set_player_name(connection, seat.game_id, seat.seat, new_name)
        old_names = sorted({seat.name for seat in changed})
        change_id = store.insert_player_change(connection, "rename", old_names, new_name, token, changed)
        change = store.get_player_change(change_id, connection)
    return ChangeDone(change, f"{shown[old_key]} is now {new_name} in {_games_phrase(len(changed))}.")


@dataclass(frozen=True)
class MergePlan:
    """What merging two players would do, shown before it is done."""

    names: tuple[str, str]  # the two players' shown names
    games: tuple[int, int]  # each one's games
    together: tuple[int, ...]  # ids of the games they played against each other (then no merge)
    keep: str  # the name the merged player will have

    @property
    def refusal(self) -> str | None:
        """Why the merge cannot be done (None: it can)."""
        if not self.together:
            return None
        ids = ", ".join(str(game_id) for game_id in self.together[:5])
        return (
            f"{self.names[0]} and {self.names[1]} played each other (game {ids}): they are two people, "
            "so they cannot be merged. Rename one of them instead."
        )


def merge_plan(a: str, b: str, keep: object | None = None, seats: Sequence[Seat] | None = None) -> MergePlan:
    """Check a merge of ``a`` into ``b`` (keeping the name ``keep``, ``b``'s by default) without doing it.

    ValueError when it cannot be done (one player already, a bad name to keep, a third player's
    name, the two played each other); UnknownPlayer when no game has one of them.
    """
    a, b = check_name(a, "The first player"), check_name(b, "The second player")
    seats = store.player_seats() if seats is None else seats
    shown = shown_names(seats)
    keys = (name_key(a), name_key(b))
    for name, key in zip((a, b), keys, strict=True):
        if key not in shown:
            raise UnknownPlayer(f"No game has a player called “{clean_name(name)}”.")
    if keys[0] == keys[1]:
        raise ValueError(
            f"“{clean_name(a)}” and “{clean_name(b)}” are one player already: choose two different players "
            "(to change how the name is written, rename it)."
        )
    keep_name = check_name(shown[keys[1]] if keep is None else keep, "The name to keep")
    keep_key = name_key(keep_name)
    if keep_key not in keys and keep_key in shown:
        raise ValueError(
            f"“{keep_name}” is a third player's name; keep {shown[keys[0]]} or {shown[keys[1]]}, or a new name."
        )
    games = [{seat.game_id for seat in _player_seats(seats, key)} for key in keys]
    return MergePlan(
        (shown[keys[0]], shown[keys[1]]),
        (len(games[0]), len(games[1])),
        tuple(sorted(games[0] & games[1])),
        keep_name,
    )


def merge_players(a: str, b: str, keep: object | None = None, token: str | None = None) -> ChangeDone:
    """Make ``a`` and ``b`` one player called ``keep`` in every game, in one transaction.

    Refused (ValueError) when they played each other: they are two people. AlreadyDone when the
    token was used; UnknownPlayer when no game has one of them.
    """
    with transaction() as connection:
        if store.player_change_token_used(connection, token):
            raise AlreadyDone("That merge was done already (the button was pressed twice).")
        seats = store.player_seats(connection)
        plan = merge_plan(a, b, keep, seats)
        if plan.refusal is not None:
            raise ValueError(plan.refusal)
        keys = {name_key(a), name_key(b)}
        changed = [seat for seat in seats if name_key(seat.name) in keys and seat.name != plan.keep]
        for seat in changed:
            store.set_player_name(connection, seat.game_id, seat.seat, plan.keep)
        old_names = sorted({seat.name for seat in seats if name_key(seat.name) in keys})
        change_id = store.insert_player_change(connection, "merge", old_names, plan.keep, token, changed)
        change = store.get_player_change(change_id, connection)
    return ChangeDone(
        change,
        f"{plan.names[0]} and {plan.names[1]} are now one player, {plan.keep}: "
        f"{_games_phrase(plan.games[0] + plan.games[1])}.",
    )


def undo_change(change_id: int) -> str:
    """Put back the names a rename or merge changed (the latest one only, so undos go back in order).

    A game that was renamed again since keeps its new name. AlreadyDone when it is undone already;
    ValueError when it is not the latest change; UnknownPlayer when there is no such change.
    """
    with transaction() as connection:
        change = store.get_player_change(change_id, connection)
        if change is None:
            raise UnknownPlayer("There is no such rename or merge to undo.")
        if change.undone is not None:
            raise AlreadyDone(f"That {change.kind} was undone already.")
        latest = store.latest_player_change(connection)
        if latest is None or latest.id != change.id:
            raise ValueError("A later rename or merge changed the players since; undo that one first.")
        current = {(seat.game_id, seat.seat): seat.name for seat in store.player_seats(connection)}
        new_key = name_key(change.new_name)
        restored = 0
        for seat in store.player_change_seats(connection, change.id):
            name = current.get((seat.game_id, seat.seat))
            if name is not None and name_key(name) == new_key:
                store.set_player_name(connection, seat.game_id, seat.seat, seat.name)
                restored += 1
        store.mark_player_change_undone(connection, change.id)
    return f"Undone: {describe_change(change)} ({_games_phrase(restored)} back as they were)."


def describe_change(change: PlayerChange) -> str:
    """The change in words: "Robert and Bob merged into Bob", "Ann renamed Annie"."""
    names = in_words(change.old_names)
    if change.kind == "merge":
        return f"{names} merged into {change.new_name}"
    return f"{names} renamed {change.new_name}"
