"""Players across games through the Flask test client, on a real SQLite file: the Players page, rename,
merge (asks first) and undo, the record of two players, the CSV of every game, and bad input.

The record's numbers are worked out by hand from the rule book (/work/shared/docs/rules.md, standard
rules: gin bonus 25, undercut bonus 25, a tie after lay-offs is an undercut, game bonus 100, doubled
for a shutout, box bonus 25 a hand won, to 100), not by the engine.
"""

from __future__ import annotations

import csv
import html
import io
import re
import sqlite3

import pytest
from sheet_helpers import add_counts, db_dump, new_game

from web import create_app, store
from web.db import MIGRATIONS, connect, transaction

# (knocker, seat 0's deadwood, seat 1's deadwood, gin) for each hand, as the counts form takes them
GAME_1 = [  # Ann v Bob
    (0, 0, 30, True),  # Ann gin: 25 + 30 = 55                                  Ann 55
    (1, 3, 5, False),  # Bob knocks with 5, Ann has 3: Ann undercuts, 2 + 25 = 27  Ann 82
    (0, 2, 40, False),  # Ann knocks: 40 - 2 = 38                                 Ann 120, Bob 0: Ann wins
]  # final: Ann 120 + 200 (game bonus doubled: Bob scored nothing) + 3 boxes x 25 = 395, Bob 0
GAME_2 = [  # Bob v Ann: Bob sits first
    (0, 0, 45, True),  # Bob gin: 25 + 45 = 70                                  Bob 70
    (1, 12, 2, False),  # Ann knocks with 2 against 12: 10                        Ann 10
    (1, 4, 4, False),  # Ann knocks with 4, Bob has 4: a tie is Bob's undercut, 0 + 25   Bob 95
    (0, 1, 20, False),  # Bob knocks: 19                                          Bob 114: Bob wins
]  # final: Bob 114 + 100 + 3 x 25 = 289, Ann 10 + 1 x 25 = 35
GAME_3 = [  # Ann v Bob, left in progress
    (0, 6, 16, False),  # Ann knocks: 10                                          Ann 10
    (0, 9, 3, False),  # Ann knocks with 9, Bob has 3: Bob undercuts, 6 + 25 = 31   Bob 31
    (0, 0, 10, True),  # Ann gin: 25 + 10 = 35                                  Ann 45
]
# Ann: games won 1, hands won 3 + 1 + 2 = 6, gins 2, undercuts 1, biggest hand 55 (game 1, hand 1)
# Bob: games won 1, hands won 3 + 1 = 4, gins 1, undercuts 2, biggest hand 70 (game 2, hand 1)


def play(client, players: tuple[str, str], hands) -> int:
    game_id = new_game(client, *players)
    for knocker, deadwood0, deadwood1, gin in hands:
        assert add_counts(client, game_id, knocker, deadwood0, deadwood1, gin).status_code == 302
    return game_id


@pytest.fixture
def games(client) -> dict[str, int]:
    """The three games of Ann and Bob, and Robert v Cat (no hands yet)."""
    return {
        "g1": play(client, ("Ann", "Bob"), GAME_1),
        "g2": play(client, ("Bob", "Ann"), GAME_2),
        "g3": play(client, ("Ann", "Bob"), GAME_3),
        "g4": new_game(client, "Robert", "Cat"),
    }


def names_in_db(app) -> dict[int, tuple[str, str]]:
    connection = sqlite3.connect(app.config["DATABASE"])
    try:
        return {row[0]: (row[1], row[2]) for row in connection.execute("SELECT id, player0, player1 FROM game")}
    finally:
        connection.close()


def insert_raw_game(app, players: tuple[str, str]) -> int:
    """A game stored with the names exactly as given (an older database, or another client)."""
    from engine import Rules

    with app.app_context(), transaction() as connection:
        return store.insert_game(connection, players, Rules(), 100)


def row_cells(page: str, row_id: str) -> list[str]:
    row = re.search(rf'<tr[^>]*id="{row_id}"[^>]*>(.*?)</tr>', page, re.S)
    assert row, f"no row {row_id}"
    return [re.sub(r"<[^>]+>", " ", cell).split()[0] for cell in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)]


def player_line(page: str, name: str) -> str:
    item = re.search(rf'<li class="player" data-name="{re.escape(name)}">(.*?)</li>', page, re.S)
    assert item, f"{name} is not listed"
    return " ".join(re.sub(r"<[^>]+>", " ", item.group(1)).split())


def text_of(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def token(n: int) -> str:
    return f"test-token-{n:08d}"


# ---------------------------------------------------------------- the players page


def test_players_page_lists_every_name_with_games_played_and_won(client, games):
    page = client.get("/players").data.decode()
    assert player_line(page, "Ann").startswith("Ann Rename 3 games · 1 won · 1 in progress")
    assert player_line(page, "Bob").startswith("Bob Rename 3 games · 1 won · 1 in progress")
    assert "1 game · 0 won · 1 in progress" in player_line(page, "Robert")
    assert "v Bob (3)" in player_line(page, "Ann") and "v Cat (1)" in player_line(page, "Robert")
    assert 'href="/players/record?a=Ann&amp;b=Bob"' in page


def test_the_games_page_links_to_players_and_the_sheet_to_the_record_of_its_two(client, games):
    assert 'href="/players"' in client.get("/").data.decode()
    assert 'href="/players/record?a=Bob&amp;b=Ann"' in client.get(f"/games/{games['g2']}").data.decode()


def test_names_match_trimmed_and_case_insensitively(client, app, games):
    insert_raw_game(app, ("bob ", "ANN"))
    page = client.get("/players").data.decode()
    assert "4 games" in player_line(page, "Bob") and "also written “bob ”" in player_line(page, "Bob")
    assert "4 games" in player_line(page, "Ann") and "also written “ANN”" in player_line(page, "Ann")
    record = client.get("/players/record?a=%20ann&b=BOB").data.decode()
    assert row_cells(record, "games-won") == ["1", "1"]
    assert 'id="record-count">4 games · 2 in progress' in record


def test_renaming_to_the_same_name_writes_every_spelling_one_way(client, app, games):
    odd = insert_raw_game(app, ("bob ", "ANN"))
    response = client.post("/players/rename", data={"name": "BOB", "new": "Bob", "change_token": token(1)})
    assert response.status_code == 303
    assert names_in_db(app)[odd] == ("Bob", "ANN")
    assert "also written" not in player_line(client.get("/players").data.decode(), "Bob")


# ---------------------------------------------------------------- rename


def test_rename_changes_the_name_in_every_game_once(client, app, games):
    response = client.post("/players/rename", data={"name": "Ann", "new": "  Annie  Hall ", "change_token": token(1)})
    assert response.status_code == 303 and response.headers["Location"] == "/players"
    names = names_in_db(app)
    assert names[games["g1"]] == ("Annie Hall", "Bob") and names[games["g2"]] == ("Bob", "Annie Hall")
    assert names[games["g3"]] == ("Annie Hall", "Bob") and names[games["g4"]] == ("Robert", "Cat")
    page = client.get("/players").data.decode()
    assert "Ann is now Annie Hall in 3 games." in page and 'data-name="Ann"' not in page
    before = db_dump(app)
    again = client.post("/players/rename", data={"name": "Ann", "new": "Annie Hall", "change_token": token(1)})
    assert again.status_code == 303 and db_dump(app) == before, "the same form twice renames once"
    assert "done already" in client.get("/players").data.decode()
    same = client.post("/players/rename", data={"name": "Annie Hall", "new": "Annie Hall", "change_token": token(2)})
    assert same.status_code == 303 and db_dump(app) == before
    assert "nothing changed" in client.get("/players").data.decode()


def test_rename_refuses_bad_input_with_a_message_and_changes_nothing(client, app, games):
    before = db_dump(app)
    for data, status, message in (
        ({"name": "Ann", "new": "   "}, 400, "The new name is blank"),
        ({"name": "Ann", "new": "A" * 41}, 400, "longer than 40 characters"),
        ({"name": "Zed", "new": "Zoe"}, 404, "No game has a player called “Zed”"),
        ({"name": "", "new": "Zoe"}, 400, "Choose a player to rename"),
        ({"name": "Ann", "new": "bob"}, 400, "There is already a player called “Bob”"),
        ({"name": "Robert", "new": "CAT"}, 400, "There is already a player called “Cat”"),
    ):
        response = client.post("/players/rename", data=data)
        page = response.data.decode()
        assert response.status_code == status, (data, page)
        assert message in page and 'class="error"' in page, (data, page)
    assert db_dump(app) == before
    page = client.post("/players/rename", data={"name": "Robert", "new": "Bob"}).data.decode()
    assert 'href="/players/merge?a=Robert&amp;b=Bob"' in page, "a name taken by another player offers a merge"
    assert client.get("/players/rename?name=Zed").status_code == 404
    assert (
        client.post("/players/rename", data={"name": "Ann", "new": "X", "change_token": "bad token!"}).status_code
        == 400
    )
    assert db_dump(app) == before


# ---------------------------------------------------------------- merge and undo


def test_merge_asks_first_then_merges_and_undo_puts_every_name_back(client, app, games):
    before = db_dump(app)
    ask = client.get("/players/merge?a=robert&b=Bob")
    page = ask.data.decode()
    assert ask.status_code == 200 and "Merge Robert into Bob?" in page
    assert "Robert's 1 game and Bob's 3 games become the 4 games of one player." in text_of(page)
    assert db_dump(app) == before, "asking changes nothing"
    done = client.post("/players/merge", data={"a": "Robert", "b": "Bob", "keep": "Bob", "change_token": token(1)})
    assert done.status_code == 303
    assert names_in_db(app)[games["g4"]] == ("Bob", "Cat")
    page = client.get("/players").data.decode()
    assert "Robert and Bob are now one player, Bob: 4 games." in page
    assert "4 games · 1 won · 2 in progress" in player_line(page, "Bob") and 'data-name="Robert"' not in page
    assert "Bob and Robert merged into Bob" in page and 'id="undo-change"' in page
    after = db_dump(app)
    again = client.post("/players/merge", data={"a": "Robert", "b": "Bob", "keep": "Bob", "change_token": token(1)})
    assert again.status_code == 303 and db_dump(app) == after, "the same form twice merges once"
    change = re.search(r'name="change" value="(\d+)"', page).group(1)
    assert client.post("/players/undo", data={"change": change}).status_code == 303
    assert names_in_db(app) == names_in_db_of(before)
    page = client.get("/players").data.decode()
    assert "Undone: Bob and Robert merged into Bob (1 game back as they were)." in page
    assert 'data-name="Robert"' in page and 'id="undo-change"' not in page
    undone = db_dump(app)
    assert client.post("/players/undo", data={"change": change}).status_code == 303
    assert db_dump(app) == undone and "undone already" in client.get("/players").data.decode()


def names_in_db_of(dump: list) -> dict[int, tuple[str, str]]:
    rows = dict(dump)["game"]
    return {row[0]: (row[1], row[2]) for row in rows}


def test_merge_under_a_new_name_and_undo_of_an_older_change_waits_for_the_later_one(client, app, games):
    client.post("/players/merge", data={"a": "Robert", "b": "Bob", "keep": "Bobby", "change_token": token(1)})
    names = names_in_db(app)
    assert names[games["g1"]] == ("Ann", "Bobby") and names[games["g4"]] == ("Bobby", "Cat")
    first = store_changes(app)[-1]
    client.post("/players/rename", data={"name": "Cat", "new": "Kat", "change_token": token(2)})
    before = db_dump(app)
    client.post("/players/undo", data={"change": str(first)})
    assert db_dump(app) == before
    assert "undo that one first" in client.get("/players").data.decode()
    client.post("/players/undo", data={"change": str(first + 1)})
    client.post("/players/undo", data={"change": str(first)})
    assert names_in_db(app)[games["g4"]] == ("Robert", "Cat") and names_in_db(app)[games["g1"]] == ("Ann", "Bob")


def store_changes(app) -> list[int]:
    connection = sqlite3.connect(app.config["DATABASE"])
    try:
        return [row[0] for row in connection.execute("SELECT id FROM player_change ORDER BY id")]
    finally:
        connection.close()


def test_a_game_started_after_a_merge_keeps_its_name_when_the_merge_is_undone(client, app, games):
    client.post("/players/merge", data={"a": "Robert", "b": "Bob", "change_token": token(1)})
    later = new_game(client, "Bob", "Dan")
    client.post("/players/undo", data={"change": str(store_changes(app)[-1])})
    assert names_in_db(app)[later] == ("Bob", "Dan") and names_in_db(app)[games["g4"]] == ("Robert", "Cat")


def test_merge_refuses_bad_input_with_a_message_and_changes_nothing(client, app, games):
    before = db_dump(app)
    for data, status, message in (
        ({"a": "Bob", "b": " bob"}, 400, "one player already"),
        ({"a": "Zed", "b": "Bob"}, 404, "No game has a player called “Zed”"),
        ({"a": "Ann", "b": "Bob"}, 400, "Ann and Bob played each other (game 1, 2, 3)"),
        ({"a": "Robert", "b": "Bob", "keep": " "}, 400, "The name to keep is blank"),
        ({"a": "Robert", "b": "Bob", "keep": "B" * 41}, 400, "longer than 40 characters"),
        ({"a": "Robert", "b": "Bob", "keep": "ann"}, 400, "“ann” is a third player's name"),
        ({"a": "", "b": "Bob"}, 400, "The first player is blank"),
        ({"a": "Robert", "b": "R" * 41}, 400, "The second player is longer than 40 characters"),
    ):
        for method in ("GET", "POST"):
            response = (
                client.get("/players/merge", query_string=data)
                if method == "GET"
                else client.post("/players/merge", data=data)
            )
            page = html.unescape(response.data.decode())
            assert response.status_code == status, (method, data, page)
            assert message in page and 'class="error"' in page, (method, data, page)
            assert 'id="merge-confirm"' not in page
    assert db_dump(app) == before
    assert client.post("/players/undo", data={"change": "999"}).status_code == 303
    assert client.post("/players/undo", data={"change": "x"}).status_code == 303
    assert db_dump(app) == before
    assert "no such rename or merge" in client.get("/players").data.decode()


def test_every_players_change_needs_the_table_pin(tmp_path):
    app = create_app(
        {
            "DATABASE": str(tmp_path / "pin.sqlite"),
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "SECRET_KEY": "test",
            "PIN": "4321",
        }
    )
    app.instance_path = str(tmp_path)
    insert_raw_game(app, ("Ann", "Bob"))
    insert_raw_game(app, ("Robert", "Cat"))
    client = app.test_client()
    before = db_dump(app)
    for path, data in (
        ("/players/rename", {"name": "Ann", "new": "Annie"}),
        ("/players/merge", {"a": "Robert", "b": "Bob"}),
        ("/players/undo", {"change": "1"}),
    ):
        response = client.post(path, data=data)
        assert response.status_code == 302 and response.headers["Location"].startswith("/pin"), path
    assert db_dump(app) == before
    assert client.get("/players").status_code == 200 and client.get("/players/record?a=Ann&b=Bob").status_code == 200
    client.post("/pin", data={"pin": "4321"})
    assert client.post("/players/rename", data={"name": "Ann", "new": "Annie"}).status_code == 303
    assert names_in_db(app)[1] == ("Annie", "Bob")


# ---------------------------------------------------------------- the record of two players


def test_record_of_two_players_counts_games_boxes_gins_undercuts_and_the_biggest_hand(client, games):
    page = client.get("/players/record?a=Ann&b=Bob").data.decode()
    assert row_cells(page, "games-won") == ["1", "1"]
    assert row_cells(page, "hands-won") == ["6", "4"]
    assert row_cells(page, "gins") == ["2", "1"]
    assert row_cells(page, "undercuts") == ["1", "2"]
    assert row_cells(page, "biggest") == ["55", "70"]
    assert f'href="/games/{games["g1"]}#hand-1"' in page and f'href="/games/{games["g2"]}#hand-1"' in page
    text = text_of(page)
    assert "3 games · 1 in progress" in text
    assert "Ann 395–0 Bob Ann won · 3 hands" in text  # the final reckoning, with the shutout's doubled bonus
    assert "Ann 35–289 Bob Bob won · 4 hands" in text
    assert "Ann 45–31 Bob in progress · 3 hands" in text
    other_way = client.get("/players/record?a=Bob&b=Ann").data.decode()
    assert row_cells(other_way, "hands-won") == ["4", "6"] and row_cells(other_way, "biggest") == ["70", "55"]


def test_record_chart_is_inline_svg_with_one_point_per_game(client, games):
    page = client.get("/players/record?a=Ann&b=Bob").data.decode()
    svg = re.search(r'<svg class="chart" id="head-to-head".*?</svg>', page, re.S).group(0)
    points = re.findall(r'<circle class="game-point" data-game="(\d)"( data-winner="(\d)")?', svg)
    assert [(game, winner) for game, _, winner in points] == [("1", "0"), ("2", "1"), ("3", "")]
    assert "Game 1 (" in svg and "Ann won 395–0" in svg and "Bob won 289–35" in svg and "in progress 45–31" in svg
    assert "<script" not in page.split("</main>")[0]


def test_record_refuses_bad_input_with_a_message(client, games):
    for query, status, message in (
        ("a=Zed&b=Bob", 404, "No game has a player called “Zed”"),
        ("a=Ann&b=", 400, "The second player is blank"),
        ("a=Ann", 400, "The second player is blank"),
        ("a=Ann&b=%20ann", 400, "are one player"),
        ("a=Ann&b=" + "x" * 41, 400, "longer than 40 characters"),
        ("a=Ann&b=Cat", 404, "Ann and Cat have not played each other yet"),
    ):
        response = client.get(f"/players/record?{query}")
        page = response.data.decode()
        assert response.status_code == status, (query, page)
        assert message in page and 'class="error"' in page and 'id="record-table"' not in page, (query, page)
    chooser = client.get("/players/record")
    assert chooser.status_code == 200 and 'id="record-form"' in chooser.data.decode()


def test_record_of_names_that_look_like_markup_is_escaped(client):
    play(client, ("<b>Ann</b>", "Bob & Co"), [(0, 0, 30, True)])
    page = client.get("/players/record", query_string={"a": "<b>Ann</b>", "b": "Bob & Co"}).data.decode()
    assert "<b>Ann</b>" not in page and "&lt;b&gt;Ann&lt;/b&gt;" in page
    assert "<b>Ann</b>" not in client.get("/players").data.decode()


# ---------------------------------------------------------------- the CSV of every game


def test_csv_of_all_games_has_one_row_per_game(client, games):
    response = client.get("/games/export.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert 'filename="ginscore-games.csv"' in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.data.decode())))
    assert rows[0] == [
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
    ]
    by_id = {int(row[0]): row for row in rows[1:]}
    assert len(rows) == 5 and [int(row[0]) for row in rows[1:]] == sorted(by_id, reverse=True)
    g1, g2, g3, g4 = (by_id[games[key]] for key in ("g1", "g2", "g3", "g4"))
    assert g1[2:9] == ["Ann", "Bob", "100", "395", "0", "Ann", "3"] and g1[9]
    assert g2[2:9] == ["Bob", "Ann", "100", "289", "35", "Bob", "4"] and g2[9]
    assert g3[2:10] == ["Ann", "Bob", "100", "45", "31", "", "3", ""]
    assert g4[2:10] == ["Robert", "Cat", "100", "0", "0", "", "0", ""]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", g1[1])


def test_csv_of_all_games_is_safe_against_formulas(client):
    game_id = play(client, ('=HYPERLINK("http://x")', "@SUM(A1)"), [(1, 30, 0, True)])
    rows = list(csv.reader(io.StringIO(client.get("/games/export.csv").data.decode())))
    row = next(row for row in rows if row[0] == str(game_id))
    assert row[2] == '\'=HYPERLINK("http://x")' and row[3] == "'@SUM(A1)"
    for cell in row:
        assert cell[:1] not in ("=", "+", "-", "@"), row


# ---------------------------------------------------------------- the schema


def test_a_database_from_before_the_players_pages_is_brought_up_to_date(tmp_path):
    path = str(tmp_path / "old.sqlite")
    connection = connect(path)
    connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for number, script in enumerate(MIGRATIONS[:2], start=1):
        for statement in (s for s in script.split(";") if s.strip()):
            connection.execute(statement)
        connection.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
    from engine import Rules

    connection.execute(
        "INSERT INTO game (player0, player1, rules_json, target) VALUES ('Ann', 'Bob', ?, 100)", (Rules().to_json(),)
    )
    connection.close()
    app = create_app({"DATABASE": path, "TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test"})
    app.instance_path = str(tmp_path)
    client = app.test_client()
    assert client.post("/players/rename", data={"name": "Ann", "new": "Annie"}).status_code == 303
    assert names_in_db(app) == {1: ("Annie", "Bob")}
