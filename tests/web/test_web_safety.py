"""CSRF, the table PIN, atomic writes, the webcam and the serve command."""

from __future__ import annotations

import re

import pytest
from sheet_helpers import ANN_GIN, BOB_LOSES, add_counts, db_dump, fake_pin_clock, new_game

from web import create_app


@pytest.fixture
def csrf_client(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite"), "TESTING": True, "SECRET_KEY": "test"})
    return app.test_client()


def token_from(page: bytes) -> str:
    return re.search(rb'name="csrf_token" value="([^"]+)"', page).group(1).decode()


def test_forms_without_the_csrf_token_are_refused(csrf_client):
    response = csrf_client.post("/games/new", data={"player0": "Ann", "player1": "Bob", "preset": "standard"})
    assert response.status_code == 400 and b"reload the page" in response.data
    token = token_from(csrf_client.get("/games/new").data)
    ok = csrf_client.post(
        "/games/new", data={"player0": "Ann", "player1": "Bob", "preset": "standard", "csrf_token": token}
    )
    assert ok.status_code == 302
    # the API needs no token but a header no other site can send without a CORS preflight
    api = csrf_client.post("/api/games", json={"players": ["Cat", "Dan"]}, headers={"X-Requested-With": "t"})
    assert api.status_code == 201
    assert csrf_client.post("/api/games", json={"players": ["Cat", "Dan"]}).status_code == 400


def test_table_pin_is_needed_once_before_changes(tmp_path):
    app = create_app(
        {
            "DATABASE": str(tmp_path / "p.sqlite"),
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "SECRET_KEY": "test",
            "PIN": "4321",
        }
    )
    client = app.test_client()
    clock = fake_pin_clock(app)
    assert client.get("/").status_code == 200  # reading is open
    refused = client.post("/games/new", data={"player0": "Ann", "player1": "Bob", "preset": "standard"})
    assert refused.status_code == 302 and "/pin" in refused.headers["Location"]
    api = client.post("/api/games", json={"players": ["Ann", "Bob"]}, headers={"X-Requested-With": "t"})
    assert api.status_code == 403
    with_pin = client.post(
        "/api/games", json={"players": ["Ann", "Bob"]}, headers={"X-Requested-With": "t", "X-Table-Pin": "4321"}
    )
    assert with_pin.status_code == 201
    wrong = client.post("/pin", data={"pin": "0000"})
    assert wrong.status_code == 403 and b"wrong" in wrong.data
    clock.advance(1)  # the first wrong PIN costs a second
    assert client.post("/pin", data={"pin": "4321", "next": "https://evil.example/x"}).headers["Location"] == "/"
    assert new_game(client) == 2
    other_browser = app.test_client()
    assert other_browser.post("/games/2/hands/void").status_code == 302
    assert client.get("/games/2").data.count(b">void<") == 0


def test_a_crash_while_scoring_leaves_the_sheet_as_it_was(app, client, monkeypatch):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    # take a photo-less hand through review so a hand row is written before the crash
    before = db_dump(app)
    from web import sheet_view

    real_build_sheet = sheet_view.build_sheet

    def crash_after_the_insert(game, hands):
        if len(hands) == 2:
            raise RuntimeError("simulated crash in the middle of scoring")
        return real_build_sheet(game, hands)

    monkeypatch.setattr(sheet_view, "build_sheet", crash_after_the_insert)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    app.testing = False
    response = client.post(
        f"/games/{game_id}/review", data={"knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"}
    )
    assert response.status_code == 500 and b"nothing was changed" in response.data
    assert db_dump(app) == before
    api = client.post(f"/api/games/{game_id}/hands", headers={"X-Requested-With": "t"}, json={"void": True})
    assert api.status_code == 500 and db_dump(app) == before


def write_video(path, frames: int = 6):
    import cv2
    import numpy as np

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (320, 240))
    for index in range(frames):
        frame = np.full((240, 320, 3), (40, 120 + index * 10, 60), np.uint8)
        cv2.putText(frame, f"frame {index}", (20, 120), cv2.FONT_HERSHEY_SIMPLEX, 1, (255, 255, 255), 2)
        writer.write(frame)
    writer.release()


def test_webcam_stream_and_still_from_a_video_file(app, client, tmp_path):
    video = tmp_path / "table.avi"
    write_video(video)
    game_id = new_game(client)
    assert client.get(f"/games/{game_id}/camera").status_code == 404  # no camera configured
    app.config["CAMERA_SOURCE"] = str(video)  # ginscore serve --camera FILE
    assert b"Webcam" in client.get(f"/games/{game_id}").data
    assert b"Capture" in client.get(f"/games/{game_id}/camera").data
    app.config["CAMERA_STREAM_FRAMES"] = 8  # longer than the video: it loops
    stream = client.get("/camera/stream")
    assert stream.mimetype == "multipart/x-mixed-replace"
    body = stream.get_data()
    assert body.count(b"Content-Type: image/jpeg") == 8 and body.count(b"\xff\xd8") >= 8
    still = client.get("/camera/frame.jpg")
    assert still.mimetype == "image/jpeg" and still.data[:2] == b"\xff\xd8"


def test_webcam_that_cannot_open_says_so(app, client, tmp_path):
    app.config["CAMERA_SOURCE"] = str(tmp_path / "missing.avi")
    game_id = new_game(client)
    assert client.get("/camera/frame.jpg").status_code == 503
    before = db_dump(app)
    response = client.post(f"/games/{game_id}/camera/capture")
    assert response.status_code == 303 and b"cannot be opened" in client.get(response.headers["Location"]).data
    assert db_dump(app) == before


def test_serve_options(tmp_path):
    import argparse

    from web.serve_cli import serve_config

    args = argparse.Namespace(
        db=str(tmp_path / "x.sqlite"), port=5001, host="0.0.0.0", camera="0", pin="12", model=None
    )
    config = serve_config(args)
    assert config["LAN_URL"].endswith(":5001/") and config["PIN"] == "12" and config["CAMERA_SOURCE"] == "0"
    with pytest.raises(ValueError):
        serve_config(argparse.Namespace(**{**vars(args), "port": 70000}))
    with pytest.raises(FileNotFoundError):
        serve_config(argparse.Namespace(**{**vars(args), "model": str(tmp_path / "nope")}))


def test_lan_page_shows_a_qr_code(tmp_path):
    app = create_app(
        {"DATABASE": str(tmp_path / "q.sqlite"), "LAN_URL": "http://192.168.1.20:5000/", "SECRET_KEY": "t"}
    )
    page = app.test_client().get("/").data
    assert b"http://192.168.1.20:5000/" in page and b"<svg" in page
