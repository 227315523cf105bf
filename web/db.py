"""The score sheet's SQLite store: connection per request, schema migrations kept in the code.

Every change to the schema is one entry in ``MIGRATIONS``; ``migrate`` applies the ones a
database has not seen yet and records its version in ``schema_version``. Writes go through
``transaction()`` so that a request that fails half-way leaves the database as it was.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import click
from flask import Flask, current_app, g

MIGRATIONS: tuple[str, ...] = (
    # 1: games, their hands, photos and their corrections, settings
    """
    CREATE TABLE game (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        player0 TEXT NOT NULL,
        player1 TEXT NOT NULL,
        rules_json TEXT NOT NULL,
        target INTEGER NOT NULL,
        first_dealer INTEGER NOT NULL DEFAULT 0,
        rematch_of INTEGER REFERENCES game(id) ON DELETE SET NULL,
        created TEXT NOT NULL DEFAULT (datetime('now')),
        finished TEXT
    );
    CREATE TABLE hand (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER NOT NULL REFERENCES game(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        entry TEXT NOT NULL CHECK (entry IN ('cards', 'counts', 'void')),
        knocker INTEGER CHECK (knocker IN (0, 1)),
        cards0 TEXT NOT NULL DEFAULT '',
        cards1 TEXT NOT NULL DEFAULT '',
        upcard TEXT,
        deadwood0 INTEGER,
        deadwood1 INTEGER,
        gin INTEGER NOT NULL DEFAULT 0,
        source TEXT NOT NULL DEFAULT 'manual',
        created TEXT NOT NULL DEFAULT (datetime('now')),
        UNIQUE (game_id, position)
    );
    CREATE TABLE photo (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER REFERENCES game(id) ON DELETE SET NULL,
        hand_id INTEGER REFERENCES hand(id) ON DELETE SET NULL,
        replaces_position INTEGER,
        image BLOB,
        media_type TEXT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        reading_json TEXT NOT NULL,
        corrected0 TEXT,
        corrected1 TEXT,
        source TEXT NOT NULL DEFAULT 'upload',
        created TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE setting (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: one-time tokens of the forms that save a hand (a double "Save hand" stores one hand)
    """
    CREATE TABLE save_token (
        token TEXT PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES game(id) ON DELETE CASCADE,
        created TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE INDEX photo_game ON photo (game_id);
    """,
    # 3: renames and merges of player names (the Players page), each with the seats it changed, for Undo
    """
    CREATE TABLE player_change (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL CHECK (kind IN ('rename', 'merge')),
        old_names_json TEXT NOT NULL,
        new_name TEXT NOT NULL,
        token TEXT UNIQUE,
        created TEXT NOT NULL DEFAULT (datetime('now')),
        undone TEXT
    );
    CREATE TABLE player_change_seat (
        change_id INTEGER NOT NULL REFERENCES player_change(id) ON DELETE CASCADE,
        game_id INTEGER NOT NULL REFERENCES game(id) ON DELETE CASCADE,
        seat INTEGER NOT NULL CHECK (seat IN (0, 1)),
        old_name TEXT NOT NULL,
        PRIMARY KEY (change_id, game_id, seat)
    );
    CREATE INDEX player_change_seat_game ON player_change_seat (game_id);
    """,
)


def connect(path: str) -> sqlite3.Connection:
    """Open the database file with the settings the app relies on."""
    connection = sqlite3.connect(
        path, timeout=30, detect_types=sqlite3.PARSE_DECLTYPES, isolation_level=None
    )  # explicit BEGIN/COMMIT in transaction()
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("PRAGMA busy_timeout = 30000")
    return connection


def schema_version(connection: sqlite3.Connection) -> int:
    """The number of migrations applied to this database (0 for a new file)."""
    connection.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(connection: sqlite3.Connection) -> int:
    """Apply the migrations this database lacks, each in its own transaction; return the version."""
    connection.execute("PRAGMA journal_mode = WAL")
    version = schema_version(connection)
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        statements = [s for s in script.split(";") if s.strip()]
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements:
                connection.execute(statement)
            connection.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
            connection.execute("COMMIT")
        except Exception:
            connection.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


def get_db() -> sqlite3.Connection:
    """The request's database connection (opened on first use)."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(error: BaseException | None = None) -> None:
    """Close the request's connection, if one was opened."""
    connection = g.pop("db", None)
    if connection is not None:
        connection.close()


@contextlib.contextmanager
def transaction() -> Iterator[sqlite3.Connection]:
    """All writes inside commit together or not at all (an exception rolls everything back)."""
    connection = get_db()
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


@click.command("init-db")
def init_db_command() -> None:
    """Create the database or bring its schema up to date."""
    connection = connect(current_app.config["DATABASE"])
    version = migrate(connection)
    connection.close()
    click.echo(f"Database {current_app.config['DATABASE']} at schema version {version}.")


def init_app(app: Flask) -> None:
    """Register the teardown and the CLI command, and migrate the database file."""
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    connection = connect(app.config["DATABASE"])
    try:
        migrate(connection)
    finally:
        connection.close()
