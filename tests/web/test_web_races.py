"""Saving twice stores once; a save that lost a race answers 404 or 409 (409 when its own token saved the hand), never 500."""

from __future__ import annotations

import concurrent.futures
import sqlite3

import pytest
from servers import ThreadServer
from sheet_helpers import ANN_GIN, BOB_LOSES, add_counts, new_game

from web import store

API = {"X-Requested-With": "t"}
TOKEN = "double-click-token-0001"


def hand_count(app, game_id: int) -> int:
    connection = sqlite3.connect(app.config["DATABASE"])
    try:
        return connection.execute("SELECT COUNT(*) FROM hand WHERE game_id = ?", (game_id,)).fetchone()[0]
    finally:
        connection.close()


def pending_photo(app, game_id: int) -> int:
    """A photo waiting for its hand, as an upload leaves it (no model needed)."""
    connection = sqlite3.connect(app.config["DATABASE"])
    try:
        cursor = connection.execute(
            "INSERT INTO photo (game_id, image, media_type, width, height, reading_json, source) "
            "VALUES (?, x'ffd8ffd9', 'image/jpeg', 800, 600, ?, 'upload')",
            (game_id, '{"image_size": [800, 600], "cards": [], "hands": [[], []]}'),
        )
        connection.commit()
        return cursor.lastrowid
    finally:
        connection.close()


def confirm_form(photo_id: int | None = None, token: str | None = TOKEN) -> dict:
    form = {"knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"}
    if photo_id is not None:
        form["photo_id"] = str(photo_id)
    if token:
        form["save_token"] = token
    return form


def test_the_same_form_saved_twice_stores_one_hand(app, client):
    game_id = new_game(client, target="500")
    photo_id = pending_photo(app, game_id)
    first = client.post(f"/games/{game_id}/review", data=confirm_form(photo_id))
    again = client.post(f"/games/{game_id}/review", data=confirm_form(photo_id), follow_redirects=True)
    assert first.status_code == 302 and again.status_code == 200 and b"saved already" in again.data
    assert hand_count(app, game_id) == 1
    counts = {"knocker": "0", "deadwood0": "4", "deadwood1": "30", "save_token": "counts-token-000000001"}
    assert client.post(f"/games/{game_id}/hands/counts", data=counts).status_code == 302
    assert client.post(f"/games/{game_id}/hands/counts", data=counts).status_code == 303
    void = {"save_token": "void-token-00000000001"}
    client.post(f"/games/{game_id}/hands/void", data=void)
    client.post(f"/games/{game_id}/hands/void", data=void)
    api = {"void": True, "save_token": "api-token-000000000001"}
    assert client.post(f"/api/games/{game_id}/hands", headers=API, json=api).status_code == 201
    repeated = client.post(f"/api/games/{game_id}/hands", headers=API, json=api)
    assert repeated.status_code == 409 and "saved already" in repeated.json["error"]
    assert hand_count(app, game_id) == 4


def test_pages_carry_a_one_time_token(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    for path in (f"/games/{game_id}", f"/games/{game_id}/hands/manual", f"/games/{game_id}/hands/1/edit"):
        page = client.get(path).data
        assert b'name="save_token"' in page and b"data-once" in page, path
    tokens = {client.get(f"/games/{game_id}").data.split(b'name="save_token" value="')[1][:24] for _ in range(3)}
    assert len(tokens) == 3


def test_a_photo_confirmed_twice_without_a_token_is_one_hand(app, client):
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id)
    assert client.post(f"/games/{game_id}/review", data=confirm_form(photo_id, token=None)).status_code == 302
    again = client.post(f"/games/{game_id}/review", data=confirm_form(photo_id, token=None))
    assert again.status_code in (404, 409) and hand_count(app, game_id) == 1


@pytest.mark.parametrize("with_token", [True, False])
def test_simultaneous_confirms_of_one_photo_store_one_hand(app, client, with_token):
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id)
    form = "&".join(
        f"{k}={v.replace(' ', '+')}" for k, v in confirm_form(photo_id, TOKEN if with_token else None).items()
    )
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    with ThreadServer(app, threads=10) as server, concurrent.futures.ThreadPoolExecutor(10) as pool:
        statuses = list(
            pool.map(lambda _: server.request("POST", f"/games/{game_id}/review", form.encode(), headers)[0], range(10))
        )
    assert hand_count(app, game_id) == 1
    assert statuses.count(302) == 1 and set(statuses) <= {302, 303, 404, 409}, statuses


def undo_meanwhile(app, monkeypatch, game_id: int) -> None:
    """The next hands check sees the sheet, then another device undoes the last hand."""
    real_get_hands = store.get_hands

    def then_undo(wanted: int):
        hands = real_get_hands(wanted)
        connection = sqlite3.connect(app.config["DATABASE"])
        connection.execute(
            "DELETE FROM hand WHERE game_id = ? AND position = (SELECT MAX(position) FROM hand WHERE game_id = ?)",
            (game_id, game_id),
        )
        connection.commit()
        connection.close()
        monkeypatch.setattr(store, "get_hands", real_get_hands)
        return hands

    monkeypatch.setattr(store, "get_hands", then_undo)


def test_editing_a_hand_that_was_undone_meanwhile_is_409(app, client, monkeypatch):
    app.testing = False
    game_id = new_game(client)
    for _ in range(3):
        add_counts(client, game_id, 0, 4, 30)
    undo_meanwhile(app, monkeypatch, game_id)
    page = client.post(f"/games/{game_id}/review", data={**confirm_form(token=None), "replace": "3"})
    assert page.status_code == 409 and b"no longer on the sheet" in page.data
    add_counts(client, game_id, 0, 4, 30)
    undo_meanwhile(app, monkeypatch, game_id)
    api = client.post(f"/api/games/{game_id}/hands", headers=API, json={"void": True, "replace": 3})
    assert api.status_code == 409 and "no longer on the sheet" in api.json["error"]
    add_counts(client, game_id, 0, 4, 30)
    undo_meanwhile(app, monkeypatch, game_id)
    counts = client.post(
        f"/games/{game_id}/hands/counts",
        data={"knocker": "0", "deadwood0": "4", "deadwood1": "30", "replace": "3"},
        follow_redirects=True,
    )
    assert counts.status_code == 200 and b"no longer on the sheet" in counts.data
    assert hand_count(app, game_id) == 2


def test_undo_pressed_twice_takes_back_one_hand(app, client):
    game_id = new_game(client)
    for _ in range(3):
        add_counts(client, game_id, 0, 4, 30)
    assert client.post(f"/games/{game_id}/undo", data={"position": "3"}).status_code == 302
    again = client.post(f"/games/{game_id}/undo", data={"position": "3"}, follow_redirects=True)
    assert b"undone already" in again.data and hand_count(app, game_id) == 2


def test_simultaneous_edits_and_undos_never_500(app, client):
    game_id = new_game(client)
    edit = {"knocker": "1", "deadwood0": "30", "deadwood1": "2"}
    with ThreadServer(app, threads=8) as server, concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = []
        for _ in range(8):
            while hand_count(app, game_id) < 4:
                add_counts(client, game_id, 0, 4, 30)
            jobs = [pool.submit(server.request, "POST", f"/api/games/{game_id}/undo", None, API)]
            jobs += [
                pool.submit(
                    server.request,
                    "POST",
                    f"/api/games/{game_id}/hands",
                    {"knocker": 1, "deadwood": [30, 2], "replace": 4},
                    API,
                )
                for _ in range(3)
            ]
            jobs += [
                pool.submit(
                    server.request,
                    "POST",
                    f"/games/{game_id}/hands/counts",
                    "&".join(f"{k}={v}" for k, v in {**edit, "replace": "4"}.items()).encode(),
                    {"Content-Type": "application/x-www-form-urlencoded"},
                )
            ]
            statuses += [job.result()[0] for job in jobs]
    assert 500 not in statuses and set(statuses) <= {200, 201, 302, 303, 404, 409}, statuses


def check_before_the_first_press_finished(monkeypatch) -> None:
    """The next token check answers as it would have before the first press saved its hand (then as it is)."""
    real = store.save_token_used
    calls = []

    def early(token):
        calls.append(token)
        return False if len(calls) == 1 else real(token)

    monkeypatch.setattr(store, "save_token_used", early)


def test_a_double_tap_whose_first_press_saves_between_the_seconds_checks_is_saved_already(app, client, monkeypatch):
    # the second press checked its token before the first one saved, and then found the photo gone: it is told the
    # hand was saved already (409, or the sheet), never that the photo does not exist (404)
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id)
    hand = {"knocker": 0, "cards": [ANN_GIN.split(), BOB_LOSES.split()], "photo_id": photo_id, "save_token": TOKEN}
    assert client.post(f"/api/games/{game_id}/hands", headers=API, json=hand).status_code == 201
    check_before_the_first_press_finished(monkeypatch)
    again = client.post(f"/api/games/{game_id}/hands", headers=API, json=hand)
    assert again.status_code == 409 and "saved already" in again.json["error"], again.json
    other = pending_photo(app, game_id)
    form_token = "double-tap-form-token-01"
    assert client.post(f"/games/{game_id}/review", data=confirm_form(other, form_token)).status_code == 302
    check_before_the_first_press_finished(monkeypatch)
    second = client.post(f"/games/{game_id}/review", data=confirm_form(other, form_token), follow_redirects=True)
    assert second.status_code == 200 and b"saved already" in second.data
    assert hand_count(app, game_id) == 2
