"""The server on the LAN: redirects stay local, the Host is checked, the webcam source is not a URL,
security headers, cookies and CSRF expiry, and every bad input is a 4xx with a sentence for people."""

from __future__ import annotations

import argparse
import re
import sqlite3

import pytest
from sheet_helpers import add_counts, db_dump, new_game

from web import create_app

API = {"X-Requested-With": "t"}
PYTHON_TEXT = re.compile(
    r"invalid literal|Traceback|Error\(|Exception|werkzeug|The browser \(or proxy\)|"
    r"could not understand|<title>\d{3} ",
    re.IGNORECASE,
)


def make_app(tmp_path, **config):
    return create_app(
        {
            "DATABASE": str(tmp_path / "h.sqlite"),
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "SECRET_KEY": "test",
            **config,
        }
    )


# ---------------------------------------------------------------- redirects only to local paths


@pytest.mark.parametrize(
    "target",
    [
        "////evil.example/",
        "//evil.example/x",
        "/\\evil.example",
        "/\\/evil.example",
        "https://evil.example/",
        "http:evil.example",
        "evil.example",
        "/\r\nLocation: http://evil.example",
        "/\t/evil.example",
        " //evil.example",
    ],
)
def test_pin_next_never_leaves_the_site(tmp_path, target):
    open_table = make_app(tmp_path).test_client()
    assert open_table.get("/pin", query_string={"next": target}).headers["Location"] == "/"
    with_pin = make_app(tmp_path, PIN="4321").test_client()
    answer = with_pin.post("/pin", data={"pin": "4321", "next": target})
    assert answer.status_code == 302 and answer.headers["Location"] == "/"


def test_pin_next_keeps_a_local_path(tmp_path):
    client = make_app(tmp_path, PIN="4321").test_client()
    assert client.post("/pin", data={"pin": "4321", "next": "/games/3?x=1"}).headers["Location"] == "/games/3?x=1"
    refused = client.application.test_client().post("/games/new", headers={"Referer": "http://evil.example/games/9"})
    assert refused.headers["Location"] == "/pin?next=/"


# ---------------------------------------------------------------- the Host allow-list


def test_other_host_names_are_refused(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    before = db_dump(app)
    rebound = client.post("/api/games", json={"players": ["Ann", "Bob"]}, headers={**API, "Host": "evil.example"})
    assert rebound.status_code == 400 and "answers only at its own addresses" in rebound.json["error"]
    page = client.get("/", headers={"Host": "evil.example:5000"})
    assert page.status_code == 400 and b"answers only at its own addresses" in page.data
    assert db_dump(app) == before
    for host in ("localhost", "localhost:5000", "127.0.0.1:5000", "[::1]:5000"):
        assert client.get("/", headers={"Host": host}).status_code == 200, host
    lan = make_app(tmp_path, ALLOWED_HOSTS=("192.168.1.20",)).test_client()
    assert lan.get("/", headers={"Host": "192.168.1.20:5000"}).status_code == 200
    assert lan.get("/", headers={"Host": "192.168.1.21:5000"}).status_code == 400


def test_serve_allows_its_lan_address_and_host_names(tmp_path, monkeypatch):
    from web import serve_cli

    monkeypatch.setattr(serve_cli, "lan_address", lambda: "192.168.1.20")
    args = argparse.Namespace(
        db=str(tmp_path / "x.sqlite"),
        port=5001,
        host="0.0.0.0",
        camera=None,
        pin=None,
        model=None,
        allow_host=["Gin.local"],
    )
    assert set(serve_cli.serve_config(args)["ALLOWED_HOSTS"]) == {"192.168.1.20", "gin.local"}
    named = argparse.Namespace(**{**vars(args), "host": "table.lan", "allow_host": []})
    assert serve_cli.serve_config(named)["ALLOWED_HOSTS"] == ("table.lan",)


# ---------------------------------------------------------------- the webcam source


@pytest.mark.parametrize(
    "source", ["http://127.0.0.1:9/x.mjpg", "/etc/hosts", "rtsp://cam/", "../x.avi", "٣", "64", "0 ", "-1"]
)
def test_settings_take_only_a_device_number(tmp_path, source):
    app = make_app(tmp_path)
    client = app.test_client()
    answer = client.post("/settings", data={"camera_source": source, "keep_photos": "1"})
    if source.strip() == "0":
        assert answer.status_code == 302
        return
    assert answer.status_code == 400 and b"device number" in answer.data
    assert "camera_source" not in str(db_dump(app))


def test_a_url_left_in_old_settings_is_not_opened(app, client):
    connection = sqlite3.connect(app.config["DATABASE"])
    connection.execute("INSERT INTO setting (name, value) VALUES ('camera_source', 'http://127.0.0.1:9/a')")
    connection.commit()
    connection.close()
    game_id = new_game(client)
    assert client.get(f"/games/{game_id}/camera").status_code == 404
    assert client.get("/camera/frame.jpg").status_code == 404
    client.post("/settings", data={"camera_source": "2"})
    with app.test_request_context():
        from web.services import current_camera_source

        assert current_camera_source() == "2"


# ---------------------------------------------------------------- headers, cookies, CSRF expiry


def test_security_headers_on_pages_api_and_errors(client):
    for path in ("/", "/api/games", "/no/such/page", "/static/app.js"):
        headers = client.get(path).headers
        assert (
            "default-src 'self'" in headers["Content-Security-Policy"]
            and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        ), path
        assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff", path


def test_session_cookie_is_samesite_lax(tmp_path):
    client = make_app(tmp_path, PIN="4321").test_client()
    cookie = client.post("/pin", data={"pin": "4321"}).headers["Set-Cookie"]
    assert "SameSite=Lax" in cookie and "HttpOnly" in cookie


def test_csrf_tokens_expire(tmp_path, monkeypatch):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite"), "TESTING": True, "SECRET_KEY": "test"})
    client = app.test_client()
    token = re.search(rb'name="csrf_token" value="([^"]+)"', client.get("/games/new").data).group(1).decode()
    import itsdangerous.timed

    real_time = itsdangerous.timed.time.time
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: real_time() + 13 * 3600)
    expired = client.post("/games/new", data={"player0": "A", "player1": "B", "csrf_token": token})
    assert expired.status_code == 400 and b"reload the page" in expired.data
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: real_time() + 11 * 3600)
    assert client.post("/games/new", data={"player0": "A", "player1": "B", "csrf_token": token}).status_code == 302


# ---------------------------------------------------------------- bad input: a 4xx with a sentence, never Python


@pytest.fixture
def game(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    add_counts(client, game_id, 0, 5, 30)
    return game_id


def bad_requests(game: int):
    """(method, path, keyword arguments for the test client) of inputs people and scripts send."""
    counts = f"/games/{game}/hands/counts"
    return [
        ("post", counts, {"data": {"knocker": "0", "deadwood0": "٣", "deadwood1": "20"}}),
        ("post", counts, {"data": {"knocker": "0", "deadwood0": "²", "deadwood1": "20"}}),
        ("post", counts, {"data": {"knocker": "0", "deadwood0": "1_0", "deadwood1": "20"}}),
        ("post", counts, {"data": {"knocker": "0", "deadwood0": "9" * 400, "deadwood1": "20"}}),
        ("post", counts, {"data": {"knocker": "٠", "deadwood0": "3", "deadwood1": "20"}}),
        ("post", counts, {"data": {"knocker": "0", "deadwood0": "3", "deadwood1": "20", "replace": "²"}}),
        ("post", counts, {"data": {"knocker": "0", "deadwood0": "3", "deadwood1": "20", "save_token": "<x>"}}),
        ("post", f"/games/{game}/review", {"data": {"photo_id": "²", "action": "preview"}}),
        ("post", f"/games/{game}/review", {"data": {"photo_id": "9" * 30, "action": "preview"}}),
        ("post", f"/games/{game}/review", {"data": {"replace": "٢", "action": "preview"}}),
        ("post", f"/games/{game}/undo", {"data": {"position": "²"}}),
        ("post", "/games/new", {"data": {"player0": "A", "player1": "B", "target": "٣٠٠"}}),
        ("post", "/games/new", {"data": {"player0": "A", "player1": "B", "rule_gin_bonus": "٢٥"}}),
        ("post", "/games/new", {"data": {"player0": "A", "player1": "B", "preset": "nope"}}),
        ("get", "/games/" + "9" * 30, {}),
        ("get", f"/games/{game}/hands/{'9' * 30}/edit", {}),
        ("get", "/photos/" + "9" * 30 + ".jpg", {}),
        ("get", f"/games/{game}/hands/manual?replace=٣", {}),
        ("put", f"/games/{game}", {}),
        ("get", f"/games/{game}/hands/void", {}),
        ("post", "/api/games", {"json": {"players": ["A", "B"], "rules": {"gin_bonnus": 30}}, "headers": API}),
        ("post", "/api/games", {"json": {"players": ["A", "B"], "target": "٣٠٠"}, "headers": API}),
        ("post", "/api/games", {"data": b"{not json", "content_type": "application/json", "headers": API}),
        (
            "post",
            f"/api/games/{game}/hands",
            {"json": {"knocker": 0, "cards": [[], []], "photo_id": "abc"}, "headers": API},
        ),
        (
            "post",
            f"/api/games/{game}/hands",
            {"json": {"knocker": 0, "cards": [[], []], "photo_id": 9**40}, "headers": API},
        ),
        ("post", f"/api/games/{game}/hands", {"json": {"void": True, "replace": True}, "headers": API}),
        ("post", f"/api/games/{game}/hands", {"json": {"knocker": 0, "deadwood": ["٣", 20]}, "headers": API}),
        ("post", f"/api/games/{game}/hands", {"json": {"void": True, "save_token": 7}, "headers": API}),
        ("delete", f"/api/games/{game}", {"headers": API}),
        ("get", "/api/games/" + "9" * 30, {}),
    ]


def test_every_bad_input_gets_a_sentence_and_changes_nothing(app, client, game):
    before = db_dump(app)
    app.testing = False  # a crash would be a 500 page here, not an exception
    for method, path, arguments in bad_requests(game):
        answer = getattr(client, method)(path, **arguments)
        text = answer.get_data(as_text=True)
        assert 400 <= answer.status_code < 500, (method, path, arguments, answer.status_code, text[:300])
        if answer.is_json:
            message = answer.json["error"]
        else:
            found = re.search(r'class="(?:error|flash)"[^>]*>([^<]+)<', text)
            assert found, (path, arguments, text[:400])
            message = found.group(1)
        assert len(message) > 10 and not PYTHON_TEXT.search(text), (path, arguments, message)
        assert db_dump(app) == before, (path, arguments)


def test_arabic_indic_digits_are_not_numbers(client, game):
    answer = add_counts(client, game, 0, "٣", 20)
    assert answer.status_code == 400 and "whole number from 0 to 100" in answer.get_data(as_text=True)


def test_unknown_rule_names_in_the_api_are_an_error(client):
    answer = client.post("/api/games", headers=API, json={"players": ["A", "B"], "rules": {"gin_bonnus": 30}})
    assert answer.status_code == 400 and "gin_bonnus" in answer.json["error"] and "gin_bonus" in answer.json["error"]
