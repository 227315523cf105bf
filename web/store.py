"""Reading and writing games, hands, photos and settings in the SQLite store: all the app's SQL.

Hands are stored as what the players entered (cards, or deadwood counts, or a void); the sheet
(scores, totals, boxes, reckoning) is always recomputed from them by the engine, so undoing or
editing a hand can never leave stale totals behind. A game is read as a ``GameRecord`` whose rules
are already the engine's ``Rules`` (parsed from the stored JSON here, once), a hand as a
``HandEntry`` and a photo as a ``PhotoRecord`` (its reading: ``PhotoRecord.reading()``).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine import Rules
from vision.reading import PhotoReading

from .db import get_db, transaction

SETTING_DEFAULTS = {"keep_photos": "1", "camera_source": "", "collect_examples": "1"}
LARGEST_ID = 2**63 - 1  # SQLite's biggest integer: a bigger id in a URL is simply not there


class SaveConflict(ValueError):
    """The save cannot happen as asked because another request changed the game meanwhile (409)."""


class AlreadySaved(SaveConflict):
    """This form's one-time token was used: the hand is stored already."""


@dataclass(frozen=True)
class GameRecord:
    """One stored game: players, the engine ``Rules`` it is played by, target, first dealer.

    Reads like the row it came from too (``game["player0"]``), for templates and older callers.
    """

    id: int
    player0: str
    player1: str
    rules: Rules
    target: int
    first_dealer: int = 0
    rematch_of: int | None = None
    created: str = ""
    finished: str | None = None
    hand_count: int | None = None  # filled by list_games

    @property
    def players(self) -> tuple[str, str]:
        return self.player0, self.player1

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> GameRecord:
        keys = row.keys()
        return cls(
            id=row["id"],
            player0=row["player0"],
            player1=row["player1"],
            rules=Rules.from_json(row["rules_json"]),
            target=row["target"],
            first_dealer=row["first_dealer"],
            rematch_of=row["rematch_of"],
            created=row["created"],
            finished=row["finished"],
            hand_count=row["hand_count"] if "hand_count" in keys else None,
        )


class EnteredAs(StrEnum):
    """How a hand was entered: its cards, the deadwood counts, or a void hand. The value is what the
    ``hand.entry`` column and the JSON hold."""

    CARDS = "cards"
    COUNTS = "counts"
    VOID = "void"


@dataclass(frozen=True)
class HandEntry:
    """One hand as entered; players are 0 and 1."""

    entry: EnteredAs
    knocker: int | None = None
    cards: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    upcard: str | None = None
    deadwood: tuple[int | None, int | None] = (None, None)
    gin: bool = False
    source: str = "manual"

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> HandEntry:
        return cls(
            entry=EnteredAs(row["entry"]),
            knocker=row["knocker"],
            cards=(tuple(row["cards0"].split()), tuple(row["cards1"].split())),
            upcard=row["upcard"],
            deadwood=(row["deadwood0"], row["deadwood1"]),
            gin=bool(row["gin"]),
            source=row["source"],
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandEntry:
        """The inverse of ``to_dict`` (KeyError/TypeError/ValueError on damaged data)."""
        if data["entry"] not in tuple(EnteredAs):
            raise ValueError(f"unknown entry {data['entry']!r}")
        cards = data.get("cards") or [[], []]
        deadwood = data.get("deadwood") or [None, None]
        return cls(
            entry=EnteredAs(data["entry"]),
            knocker=data.get("knocker"),
            cards=(tuple(map(str, cards[0])), tuple(map(str, cards[1]))),
            upcard=data.get("upcard"),
            deadwood=(deadwood[0], deadwood[1]),
            gin=bool(data.get("gin")),
            source=str(data.get("source") or "manual"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "knocker": self.knocker,
            "cards": [list(c) for c in self.cards],
            "upcard": self.upcard,
            "deadwood": list(self.deadwood),
            "gin": self.gin,
            "source": self.source,
        }


@dataclass(frozen=True)
class PhotoRecord:
    """One stored photo: the bounded JPEG as uploaded, the reading kept with it, its hand once saved."""

    id: int
    game_id: int | None  # None once its game is deleted (the photo goes at the next sweep)
    hand_id: int | None  # None while it waits for its hand (a pending photo)
    replaces_position: int | None  # the hand it is to replace (editing), if any
    image: bytes | None
    media_type: str
    width: int
    height: int
    reading_json: str  # PhotoReading.to_json() as JSON text
    source: str  # "upload", "api", "webcam" (Capture) or "camera" (the hands-free watcher's offer)
    corrected0: str | None = None  # the cards as saved, once confirmed
    corrected1: str | None = None
    created: str = ""

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> PhotoRecord:
        return cls(
            id=row["id"],
            game_id=row["game_id"],
            hand_id=row["hand_id"],
            replaces_position=row["replaces_position"],
            image=None if row["image"] is None else bytes(row["image"]),
            media_type=row["media_type"],
            width=row["width"],
            height=row["height"],
            reading_json=row["reading_json"],
            source=row["source"],
            corrected0=row["corrected0"],
            corrected1=row["corrected1"],
            created=row["created"],
        )

    def reading(self) -> PhotoReading:
        """The reading kept with the photo (``ValueError`` when the stored JSON is not one)."""
        return PhotoReading.from_json(json.loads(self.reading_json))


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The id of the row an INSERT just added."""
    if cursor.lastrowid is None:
        raise RuntimeError("the INSERT added no row")
    return cursor.lastrowid


def get_game(game_id: int) -> GameRecord | None:
    if not 0 < game_id <= LARGEST_ID:
        return None
    row = get_db().execute("SELECT * FROM game WHERE id = ?", (game_id,)).fetchone()
    return GameRecord.from_row(row) if row is not None else None


def sheet_version(game_id: int) -> str | None:
    """A digest of everything a game's sheet shows (the game, its hands, a rematch of it): it changes with
    every saved hand, undo, restore, edit, void hand, game over and rematch. None: no such game."""
    db = get_db()
    game = db.execute(
        "SELECT player0, player1, rules_json, target, first_dealer, finished FROM game WHERE id = ?", (game_id,)
    ).fetchone()
    if game is None:
        return None
    hands = db.execute(
        "SELECT id, position, entry, knocker, cards0, cards1, upcard, deadwood0, deadwood1, gin FROM hand "
        "WHERE game_id = ? ORDER BY position",
        (game_id,),
    ).fetchall()
    rematch = db.execute("SELECT MAX(id) FROM game WHERE rematch_of = ?", (game_id,)).fetchone()
    state = json.dumps([list(game), [list(hand) for hand in hands], rematch[0]], default=str)
    return hashlib.sha1(state.encode()).hexdigest()[:16]


def list_games() -> list[GameRecord]:
    rows = (
        get_db()
        .execute(
            "SELECT game.*, (SELECT COUNT(*) FROM hand WHERE hand.game_id = game.id) AS hand_count "
            "FROM game ORDER BY game.id DESC"
        )
        .fetchall()
    )
    return [GameRecord.from_row(row) for row in rows]


def all_hands() -> dict[int, list[HandEntry]]:
    """Every game's hands in order, by game id, in one query (games without hands are absent)."""
    hands: dict[int, list[HandEntry]] = {}
    for row in get_db().execute("SELECT * FROM hand ORDER BY game_id, position").fetchall():
        hands.setdefault(row["game_id"], []).append(HandEntry.from_row(row))
    return hands


def get_hands(game_id: int, connection: sqlite3.Connection | None = None) -> list[HandEntry]:
    """The game's hands in order (read inside ``connection``'s transaction when given)."""
    rows = (
        (connection or get_db())
        .execute("SELECT * FROM hand WHERE game_id = ? ORDER BY position", (game_id,))
        .fetchall()
    )
    return [HandEntry.from_row(row) for row in rows]


def hand_count(connection: sqlite3.Connection, game_id: int) -> int:
    return int(connection.execute("SELECT COUNT(*) FROM hand WHERE game_id = ?", (game_id,)).fetchone()[0])


def last_hand(connection: sqlite3.Connection, game_id: int) -> tuple[HandEntry, int | None] | None:
    """The game's latest hand and the id of the photo kept with it (None: no hands)."""
    row = connection.execute(
        "SELECT * FROM hand WHERE game_id = ? ORDER BY position DESC LIMIT 1", (game_id,)
    ).fetchone()
    if row is None:
        return None
    photo = connection.execute("SELECT id FROM photo WHERE hand_id = ?", (row["id"],)).fetchone()
    return HandEntry.from_row(row), (photo["id"] if photo is not None else None)


def insert_game(
    connection: sqlite3.Connection,
    players: tuple[str, str],
    rules: Rules,
    target: int,
    first_dealer: int = 0,
    rematch_of: int | None = None,
) -> int:
    cursor = connection.execute(
        "INSERT INTO game (player0, player1, rules_json, target, first_dealer, rematch_of) VALUES (?, ?, ?, ?, ?, ?)",
        (players[0], players[1], rules.to_json(), target, first_dealer, rematch_of),
    )
    return inserted_id(cursor)


def write_hand(
    connection: sqlite3.Connection, game_id: int, hand: HandEntry, position: int | None = None
) -> tuple[int, int]:
    """Append the hand, or replace the one at ``position``; return (hand id, position)."""
    values = (
        hand.entry,
        hand.knocker,
        " ".join(hand.cards[0]),
        " ".join(hand.cards[1]),
        hand.upcard,
        hand.deadwood[0],
        hand.deadwood[1],
        int(hand.gin),
        hand.source,
    )
    if position is None:
        row = connection.execute(
            "SELECT COALESCE(MAX(position), 0) + 1 FROM hand WHERE game_id = ?", (game_id,)
        ).fetchone()
        position = int(row[0])
        cursor = connection.execute(
            "INSERT INTO hand (game_id, position, entry, knocker, cards0, cards1, upcard, deadwood0, "
            "deadwood1, gin, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, position, *values),
        )
        return inserted_id(cursor), position
    existing = connection.execute(
        "SELECT id FROM hand WHERE game_id = ? AND position = ?", (game_id, position)
    ).fetchone()
    if existing is None:
        raise SaveConflict(
            f"Hand {position} is no longer on the sheet (it was undone meanwhile); reload the sheet and add it again."
        )
    connection.execute(
        "UPDATE hand SET entry = ?, knocker = ?, cards0 = ?, cards1 = ?, upcard = ?, deadwood0 = ?, "
        "deadwood1 = ?, gin = ?, source = ? WHERE id = ?",
        (*values, existing["id"]),
    )
    return int(existing["id"]), position


def delete_last_hand(connection: sqlite3.Connection, game_id: int, expected_position: int | None = None) -> int | None:
    """Remove the game's latest hand; return its position, or None when there is none (or when the
    latest is not ``expected_position``: a repeated undo removes nothing more)."""
    row = connection.execute(
        "SELECT id, position FROM hand WHERE game_id = ? ORDER BY position DESC LIMIT 1", (game_id,)
    ).fetchone()
    if row is None or (expected_position is not None and row["position"] != expected_position):
        return None
    connection.execute("DELETE FROM hand WHERE id = ?", (row["id"],))
    return int(row["position"])


def set_finished(connection: sqlite3.Connection, game_id: int, finished: bool) -> None:
    connection.execute(
        "UPDATE game SET finished = CASE WHEN ? THEN COALESCE(finished, datetime('now')) ELSE NULL END WHERE id = ?",
        (int(finished), game_id),
    )


def get_setting(name: str) -> str:
    row = get_db().execute("SELECT value FROM setting WHERE name = ?", (name,)).fetchone()
    return row["value"] if row else SETTING_DEFAULTS[name]


def save_settings(values: dict[str, str]) -> None:
    with transaction() as connection:
        for name, value in values.items():
            connection.execute(
                "INSERT INTO setting (name, value) VALUES (?, ?) "
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                (name, value),
            )


def insert_photo(
    connection: sqlite3.Connection,
    game_id: int,
    image: bytes,
    media_type: str,
    width: int,
    height: int,
    reading: PhotoReading,
    source: str,
    replaces_position: int | None = None,
) -> int:
    """Keep a photo and its reading (``PhotoReading.to_json()``) as an upload waiting for its hand."""
    cursor = connection.execute(
        "INSERT INTO photo (game_id, image, media_type, width, height, reading_json, source, replaces_position) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, image, media_type, width, height, json.dumps(reading.to_json()), source, replaces_position),
    )
    return inserted_id(cursor)


def get_photo(photo_id: int) -> PhotoRecord | None:
    if not 0 < photo_id <= LARGEST_ID:
        return None
    row = get_db().execute("SELECT * FROM photo WHERE id = ?", (photo_id,)).fetchone()
    return PhotoRecord.from_row(row) if row is not None else None


def kept_photo(game_id: int, position: int) -> PhotoRecord | None:
    """The photo kept with a stored hand (None when it was entered by hand or photos are not kept)."""
    row = (
        get_db()
        .execute(
            "SELECT photo.* FROM photo JOIN hand ON photo.hand_id = hand.id WHERE hand.game_id = ? AND hand.position = ? "
            "AND photo.image IS NOT NULL ORDER BY photo.id DESC LIMIT 1",
            (game_id, position),
        )
        .fetchone()
    )
    return PhotoRecord.from_row(row) if row is not None else None


def kept_photo_ids(game_id: int) -> dict[int, int]:
    """Hand position -> id of the photo kept with it, for the sheet's hand details."""
    rows = (
        get_db()
        .execute(
            "SELECT hand.position, MAX(photo.id) AS photo_id FROM photo JOIN hand ON photo.hand_id = hand.id "
            "WHERE hand.game_id = ? AND photo.image IS NOT NULL GROUP BY hand.position",
            (game_id,),
        )
        .fetchall()
    )
    return {row["position"]: row["photo_id"] for row in rows}


def delete_game(connection: sqlite3.Connection, game_id: int) -> None:
    """The game, its hands, its save tokens and every photo taken for it."""
    connection.execute("DELETE FROM photo WHERE game_id = ?", (game_id,))
    connection.execute("DELETE FROM game WHERE id = ?", (game_id,))


def claim_save_token(connection: sqlite3.Connection, game_id: int, token: str | None) -> None:
    """Use up a form's one-time token inside the saving transaction; AlreadySaved when it was used."""
    if token is None:
        return
    cursor = connection.execute("INSERT OR IGNORE INTO save_token (token, game_id) VALUES (?, ?)", (token, game_id))
    if cursor.rowcount == 0:
        raise AlreadySaved("That hand was saved already (the button was pressed twice); here is the sheet.")


def save_token_used(token: str | None) -> bool:
    return (
        token is not None
        and get_db().execute("SELECT 1 FROM save_token WHERE token = ?", (token,)).fetchone() is not None
    )


def attach_photo(
    connection: sqlite3.Connection, photo_id: int, hand_id: int, corrected: tuple[tuple[str, ...], tuple[str, ...]]
) -> None:
    """Keep a confirmed photo with its hand and the cards as corrected."""
    connection.execute(
        "UPDATE photo SET hand_id = ?, corrected0 = ?, corrected1 = ? WHERE id = ?",
        (hand_id, " ".join(corrected[0]), " ".join(corrected[1]), photo_id),
    )


def reattach_photo(connection: sqlite3.Connection, game_id: int, photo_id: int, hand_id: int) -> None:
    """A restored hand takes back its photo (if the photo still waits for a hand of this game)."""
    connection.execute(
        "UPDATE photo SET hand_id = ? WHERE id = ? AND game_id = ? AND hand_id IS NULL", (hand_id, photo_id, game_id)
    )


def delete_photo(connection: sqlite3.Connection, photo_id: int) -> None:
    connection.execute("DELETE FROM photo WHERE id = ?", (photo_id,))


def delete_stale(connection: sqlite3.Connection, unconfirmed_seconds: float, token_days: int) -> int:
    """Unconfirmed uploads older than ``unconfirmed_seconds``, photos of no game and save tokens older
    than ``token_days``; return how many photos went."""
    cursor = connection.execute(
        "DELETE FROM photo WHERE game_id IS NULL "
        "OR (hand_id IS NULL AND corrected0 IS NULL AND created < datetime('now', ?))",
        (f"-{unconfirmed_seconds:.0f} seconds",),
    )
    connection.execute("DELETE FROM save_token WHERE created < datetime('now', ?)", (f"-{token_days} days",))
    return cursor.rowcount


def claim_pending_photo(connection: sqlite3.Connection, game_id: int, photo_id: int) -> None:
    """Inside the saving transaction: the photo must still wait for its hand (SaveConflict otherwise)."""
    row = connection.execute("SELECT game_id, hand_id FROM photo WHERE id = ?", (photo_id,)).fetchone()
    if row is None or row["game_id"] != game_id or row["hand_id"] is not None:
        raise SaveConflict(
            "This photo's hand was saved already (or the photo was deleted); reload the sheet to see it."
        )


# ---------------------------------------------------------------- the hands-free camera's offers

CAMERA_OFFER_SOURCE = "camera"  # a photo the table watcher read by itself and offers on the sheet


def watched_game_id() -> int | None:
    """The game the table camera scores for: the unfinished game played (or started) last."""
    row = (
        get_db()
        .execute(
            "SELECT game.id FROM game LEFT JOIN hand ON hand.game_id = game.id WHERE game.finished IS NULL "
            "GROUP BY game.id ORDER BY MAX(COALESCE(MAX(hand.created), game.created), game.created) DESC, game.id DESC "
            "LIMIT 1"
        )
        .fetchone()
    )
    return int(row[0]) if row is not None else None


def current_offer(game_id: int) -> PhotoRecord | None:
    """The hands-free camera's latest showdown reading for this game, while no hand was saved since and
    nobody dismissed it (a dismissed offer is deleted)."""
    row = (
        get_db()
        .execute(
            "SELECT * FROM photo WHERE game_id = ? AND hand_id IS NULL AND source = ? AND created >= "
            "COALESCE((SELECT MAX(created) FROM hand WHERE game_id = ?), '') ORDER BY id DESC LIMIT 1",
            (game_id, CAMERA_OFFER_SOURCE, game_id),
        )
        .fetchone()
    )
    return PhotoRecord.from_row(row) if row is not None else None


# ---------------------------------------------------------------- player names across games


@dataclass(frozen=True)
class Seat:
    """One place at one game: ``seat`` 0 or 1 (``player0``/``player1``) and the name written there."""

    game_id: int
    seat: int
    name: str


@dataclass(frozen=True)
class PlayerChange:
    """One rename or merge of player names, kept so that it can be undone."""

    id: int
    kind: str  # "rename" or "merge"
    old_names: tuple[str, ...]  # every spelling that was changed
    new_name: str
    created: str
    undone: str | None
    seat_count: int  # how many seats (one per game) it changed

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> PlayerChange:
        return cls(
            id=row["id"],
            kind=row["kind"],
            old_names=tuple(str(name) for name in json.loads(row["old_names_json"])),
            new_name=row["new_name"],
            created=row["created"],
            undone=row["undone"],
            seat_count=row["seat_count"],
        )


SEAT_UPDATES = (
    "UPDATE game SET player0 = ? WHERE id = ?",
    "UPDATE game SET player1 = ? WHERE id = ?",
)
CHANGE_COLUMNS = (
    "player_change.*, (SELECT COUNT(*) FROM player_change_seat WHERE change_id = player_change.id) AS seat_count"
)


def player_seats(connection: sqlite3.Connection | None = None) -> list[Seat]:
    """Both seats of every game, oldest game first (read inside ``connection``'s transaction when given)."""
    rows = (connection or get_db()).execute("SELECT id, player0, player1 FROM game ORDER BY id").fetchall()
    return [Seat(row["id"], seat, row[f"player{seat}"]) for row in rows for seat in (0, 1)]


def set_player_name(connection: sqlite3.Connection, game_id: int, seat: int, name: str) -> None:
    connection.execute(SEAT_UPDATES[seat], (name, game_id))


def player_change_token_used(connection: sqlite3.Connection, token: str | None) -> bool:
    """Whether a rename or merge was already done with this form's one-time token."""
    return (
        token is not None
        and connection.execute("SELECT 1 FROM player_change WHERE token = ?", (token,)).fetchone() is not None
    )


def insert_player_change(
    connection: sqlite3.Connection,
    kind: str,
    old_names: list[str],
    new_name: str,
    token: str | None,
    changed: list[Seat],
) -> int:
    """Record a rename or merge and the seats it changed (``Seat.name``: the name before)."""
    change_id = inserted_id(
        connection.execute(
            "INSERT INTO player_change (kind, old_names_json, new_name, token) VALUES (?, ?, ?, ?)",
            (kind, json.dumps(old_names), new_name, token),
        )
    )
    connection.executemany(
        "INSERT INTO player_change_seat (change_id, game_id, seat, old_name) VALUES (?, ?, ?, ?)",
        [(change_id, seat.game_id, seat.seat, seat.name) for seat in changed],
    )
    return change_id


def get_player_change(change_id: int, connection: sqlite3.Connection | None = None) -> PlayerChange | None:
    if not 0 < change_id <= LARGEST_ID:
        return None
    row = (
        (connection or get_db())
        .execute(f"SELECT {CHANGE_COLUMNS} FROM player_change WHERE id = ?", (change_id,))
        .fetchone()
    )
    return PlayerChange.from_row(row) if row is not None else None


def latest_player_change(connection: sqlite3.Connection | None = None) -> PlayerChange | None:
    """The newest rename or merge that is not undone (the one Undo takes back)."""
    row = (
        (connection or get_db())
        .execute(f"SELECT {CHANGE_COLUMNS} FROM player_change WHERE undone IS NULL ORDER BY id DESC LIMIT 1")
        .fetchone()
    )
    return PlayerChange.from_row(row) if row is not None else None


def player_change_seats(connection: sqlite3.Connection, change_id: int) -> list[Seat]:
    """The seats a change renamed, each with the name it had before."""
    rows = connection.execute(
        "SELECT game_id, seat, old_name FROM player_change_seat WHERE change_id = ? ORDER BY game_id, seat",
        (change_id,),
    ).fetchall()
    return [Seat(row["game_id"], row["seat"], row["old_name"]) for row in rows]


def mark_player_change_undone(connection: sqlite3.Connection, change_id: int) -> None:
    connection.execute("UPDATE player_change SET undone = datetime('now') WHERE id = ?", (change_id,))
