"""The score sheet through the Flask test client: games, hands, undo, edit, delete, CSV, rematch."""

from __future__ import annotations

import csv
import io

from sheet_helpers import ANN_GIN, BOB_LOSES, add_counts, db_dump, new_game, totals_on_page

from web import create_app


def test_index_lists_games_in_progress_and_finished(client):
    assert b"No game in progress" in client.get("/").data
    first = new_game(client)
    second = new_game(client, "Cat", "Dan", target="20")
    add_counts(client, second, 0, 0, 30, gin=True)  # 55 points: over 20
    page = client.get("/").data.decode()
    in_progress, finished = page.split("<h2>Finished</h2>")
    assert f"/games/{first}" in in_progress and f"/games/{second}" in finished


def test_new_game_form_shows_every_rule_option(client):
    from engine import Rules

    page = client.get("/games/new").data.decode()
    for option in Rules.options():
        if option["name"] != "target":
            assert f'name="rule_{option["name"]}"' in page


def test_new_game_stores_preset_and_changed_options(client, app):
    game_id = new_game(client, preset="pagat", rule_gin_bonus="30", target="150")
    with app.app_context():
        from web import store

        rules = store.get_game(game_id).rules
    assert rules.gin_bonus == 30 and rules.undercut_bonus == 10 and rules.target == 150


def test_new_game_refuses_bad_input_with_a_message(client, app):
    before = db_dump(app)
    for data, message in (
        ({"player0": "", "player1": "Bob"}, b"Player 1 needs a name"),
        ({"player0": "Ann", "player1": "ann"}, b"different names"),
        ({"player0": "Ann", "player1": "Bob", "target": "ten"}, b"not a whole number"),
        ({"player0": "Ann", "player1": "Bob", "rule_gin_bonus": "-5"}, b"gin_bonus"),
        ({"player0": "A" * 41, "player1": "Bob"}, b"longer than 40"),
    ):
        response = client.post("/games/new", data={"preset": "standard", **data})
        assert response.status_code == 400 and message in response.data
    assert db_dump(app) == before


def test_player_names_are_escaped_everywhere(client):
    game_id = new_game(client, "<script>alert(1)</script>", "Bob & Co")
    add_counts(client, game_id, 0, 2, 20)
    for url in ("/", f"/games/{game_id}", f"/games/{game_id}/hands/manual", f"/games/{game_id}/delete"):
        page = client.get(url).data
        assert b"<script>alert(1)" not in page and b"&lt;script&gt;" in page


def test_counts_hand_updates_totals_boxes_and_dealer(client):
    game_id = new_game(client)
    assert add_counts(client, game_id, 0, 4, 30).status_code == 302
    page = client.get(f"/games/{game_id}").data.decode()
    assert totals_on_page(page) == (26, 0)
    assert "Ann deals." in page
    add_counts(client, game_id, 1, 5, 8)  # Bob knocks with 8, Ann has 5: undercut, 3 + 25
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (54, 0)


def test_manual_cards_preview_shows_the_explanation_then_confirm_stores(client):
    game_id = new_game(client)
    form = {"knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES}
    preview = client.post(f"/games/{game_id}/review", data={**form, "action": "preview"})
    assert preview.status_code == 303 and "/review/check?" in preview.headers["Location"]  # a GET: safe to reload
    preview = client.get(preview.headers["Location"])
    assert preview.status_code == 200 and b"Gin" in preview.data and b"55" in preview.data
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (0, 0)  # nothing stored yet
    client.post(f"/games/{game_id}/review", data={**form, "action": "confirm"})
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (80, 0)


def test_card_picker_checkboxes_and_swap(client):
    game_id = new_game(client)
    data = {"knocker": "1", "pick0": BOB_LOSES.split(), "pick1": ANN_GIN.split(), "action": "confirm"}
    client.post(f"/games/{game_id}/review", data=data)
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (0, 80)
    swapped = {"knocker": "0", "cards0": BOB_LOSES, "cards1": ANN_GIN, "swap": "1", "action": "confirm"}
    client.post(f"/games/{game_id}/review", data=swapped)
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (80, 80)


def test_void_hand_scores_nothing_and_keeps_the_dealer(client):
    game_id = new_game(client)
    add_counts(client, game_id, 1, 20, 3)
    client.post(f"/games/{game_id}/hands/void")
    page = client.get(f"/games/{game_id}").data.decode()
    assert totals_on_page(page) == (0, 17) and "Bob deals." in page and ">void<" in page


def test_undo_removes_the_last_hand_and_recomputes(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    add_counts(client, game_id, 0, 2, 12)
    client.post(f"/games/{game_id}/undo")
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (26, 0)
    client.post(f"/games/{game_id}/undo")
    response = client.post(f"/games/{game_id}/undo", follow_redirects=True)
    assert b"no hand to undo" in response.data


def test_edit_a_middle_hand_recomputes_the_totals(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    add_counts(client, game_id, 1, 10, 0, gin=True)
    edit_page = client.get(f"/games/{game_id}/hands/1/edit")
    assert edit_page.status_code == 200 and b'value="30"' in edit_page.data
    client.post(
        f"/games/{game_id}/hands/counts", data={"knocker": "0", "deadwood0": "1", "deadwood1": "11", "replace": "1"}
    )
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (10, 35)
    assert client.get(f"/games/{game_id}/hands/9/edit").status_code == 404


def test_edit_a_cards_hand_goes_to_the_review_page(client):
    game_id = new_game(client)
    client.post(
        f"/games/{game_id}/review", data={"knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"}
    )
    page = client.get(f"/games/{game_id}/hands/1/edit").data.decode()
    assert ANN_GIN in page and 'name="replace" value="1"' in page
    client.post(
        f"/games/{game_id}/review",
        data={"knocker": "1", "cards0": ANN_GIN, "cards1": BOB_LOSES, "replace": "1", "action": "confirm"},
    )
    # Bob knocked with 55 deadwood: the engine refuses, nothing changes
    assert totals_on_page(client.get(f"/games/{game_id}").data.decode()) == (80, 0)


def test_game_over_shows_final_reckoning_and_rematch(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 0, 60, gin=True)  # 85
    add_counts(client, game_id, 1, 9, 5)  # Bob 4
    add_counts(client, game_id, 0, 0, 10, gin=True)  # Ann 120: game over
    page = client.get(f"/games/{game_id}").data.decode()
    assert 'id="reckoning"' in page and "Ann wins" in page and "Game bonus" in page
    assert 'id="add-hand"' not in page
    blocked = add_counts(client, game_id, 0, 2, 30)
    assert blocked.status_code == 303
    response = client.post(f"/games/{game_id}/rematch")
    rematch_id = int(response.headers["Location"].rsplit("/", 1)[1])
    rematch = client.get(f"/games/{rematch_id}").data.decode()
    assert totals_on_page(rematch) == (0, 0) and "Bob deals." in rematch  # the loser deals first


def test_hollywood_game_shows_three_columns(client):
    game_id = new_game(client, preset="hollywood")
    add_counts(client, game_id, 0, 4, 30)
    add_counts(client, game_id, 0, 4, 20)
    page = client.get(f"/games/{game_id}").data.decode()
    assert all(f">G{n}</th>" in page for n in (1, 2, 3))
    assert "Game 3" in page


def test_delete_asks_first_then_removes_the_game(client, app):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    assert b"Delete the game" in client.get(f"/games/{game_id}/delete").data
    client.post(f"/games/{game_id}/delete", data={})  # no confirmation: kept
    assert client.get(f"/games/{game_id}").status_code == 200
    client.post(f"/games/{game_id}/delete", data={"confirm": "yes"})
    assert client.get(f"/games/{game_id}").status_code == 404
    with app.app_context():
        from web.db import get_db

        assert get_db().execute("SELECT COUNT(*) FROM hand").fetchone()[0] == 0


def test_csv_export_has_each_hand_and_the_reckoning(client):
    game_id = new_game(client, "=cmd()", "Bob", target="50")
    add_counts(client, game_id, 0, 4, 30)
    add_counts(client, game_id, 0, 0, 40, gin=True)
    response = client.get(f"/games/{game_id}/export.csv")
    assert response.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(response.data.decode())))
    assert rows[0][5] == "'=cmd() total"  # no formula in a spreadsheet
    assert rows[1][:7] == ["1", "'=cmd()", "knock", "'=cmd()", "26", "26", "0"]
    assert rows[2][5] == "91" and any(row and row[0] == "reckoning" for row in rows)


def test_chart_is_inline_svg_with_both_players(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    page = client.get(f"/games/{game_id}").data.decode()
    assert '<svg class="chart"' in page and "Ann: 26" in page and "Bob: 0" in page


def test_everything_survives_a_restart(app, client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    restarted = create_app(
        {"DATABASE": app.config["DATABASE"], "TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test"}
    ).test_client()
    assert totals_on_page(restarted.get(f"/games/{game_id}").data.decode()) == (26, 0)


def test_unknown_pages_are_404_with_a_message(client):
    assert client.get("/games/99").status_code == 404
    response = client.get("/api/games/99")
    assert response.status_code == 404 and "no such" in response.json["error"]


def test_settings_turn_photo_keeping_off(client, app):
    client.post("/settings", data={"camera_source": "0"})
    with app.app_context():
        from web import store

        assert store.get_setting("keep_photos") == "0" and store.get_setting("camera_source") == "0"
    assert b"checked" not in client.get("/settings").data.split(b"keep_photos")[1][:40]


def test_database_has_a_schema_version(app):
    import sqlite3

    from web.db import MIGRATIONS

    connection = sqlite3.connect(app.config["DATABASE"])
    assert connection.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == len(MIGRATIONS)
