"""Bad input: each gets a clear message on the page (4xx) or in the API (4xx JSON), nothing stored changes."""

from __future__ import annotations

import io

import pytest
from sheet_helpers import ANN_GIN, BOB_LOSES, REAL_VAL, add_counts, db_dump, needs_model, new_game, png_bytes

from vision.reading import CardReading, PhotoReading
from web import recognition
from web.recognition import ReadingError

API = {"X-Requested-With": "test"}


@pytest.fixture
def game(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    return game_id


def upload(client, game_id, data: bytes, name="photo.jpg", api=False):
    files = {"photo": (io.BytesIO(data), name)}
    if api:
        return client.post(f"/api/games/{game_id}/photo", data=files, headers=API, content_type="multipart/form-data")
    return client.post(f"/games/{game_id}/photo", data=files, content_type="multipart/form-data")


def truncated_jpeg() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (400, 300), (200, 30, 30)).save(buffer, "JPEG")
    return buffer.getvalue()[:-600]


def bomb_png() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("1", (12_000, 12_000)).save(buffer, "PNG")  # 144 Mpx in a few kB
    return buffer.getvalue()


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"%PDF-1.4 this is not a photo", "not an image"),
        (truncated_jpeg(), "cut off"),
        (bomb_png(), "pixels"),
    ],
    ids=["empty", "pdf", "truncated", "bomb"],
)
@pytest.mark.parametrize("api", [False, True])
def test_bad_photos_are_refused_before_the_model(client, app, game, data, message, api):
    before = db_dump(app)
    response = upload(client, game, data, api=api)
    if api:
        assert response.status_code == 400 and message in response.json["error"]
    else:  # the page redirects (a refresh never sends the photo again) to the sheet, the error shown as one
        assert response.status_code == 303 and "/photo" not in response.headers["Location"]
        page = client.get(response.headers["Location"]).data.decode()
        assert message in page.split('class="error" role="alert">')[1].split("</p>")[0]
    assert db_dump(app) == before


def test_upload_over_the_size_limit_is_413(app, client, game):
    app.config["MAX_CONTENT_LENGTH"] = 100_000
    before = db_dump(app)
    big = png_bytes() + b"\0" * 200_000
    page = upload(client, game, big)
    assert page.status_code == 413 and b"larger than" in page.data
    assert upload(client, game, big, api=True).status_code == 413
    assert db_dump(app) == before


def test_no_photo_chosen(client, game):
    response = client.post(f"/games/{game}/photo", data={}, follow_redirects=True)
    assert b"Choose a photo first" in response.data


def reading_with(codes: list[str]) -> PhotoReading:
    cards = tuple(CardReading(code, 0.9, ((10.0 * i, 10.0, 10.0 * i + 8, 30.0),)) for i, code in enumerate(codes))
    return PhotoReading((800, 600), cards, (tuple(codes[: len(codes) // 2]), tuple(codes[len(codes) // 2 :])))


def test_readings_without_cards_or_with_too_many_are_refused():
    from engine import CARD_CODES

    with pytest.raises(ReadingError, match="No cards were found"):
        recognition.check_reading(reading_with([]))
    with pytest.raises(ReadingError, match="30 cards were found"):
        recognition.check_reading(reading_with(list(CARD_CODES[:30])))
    recognition.check_reading(reading_with(list(CARD_CODES[:20])))


@needs_model
def test_a_photo_with_no_cards_says_so(client, app, game):
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (640, 480), (30, 110, 60)).save(buffer, "JPEG")
    before = db_dump(app)
    page = upload(client, game, buffer.getvalue())
    assert page.status_code == 303 and b"No cards were found" in client.get(page.headers["Location"]).data
    assert upload(client, game, buffer.getvalue(), api=True).status_code == 422
    assert db_dump(app) == before


@needs_model
def test_a_whole_deck_photo_is_too_many_cards(client, app, game):
    data = (REAL_VAL / "images" / "deal5.jpg").read_bytes()  # all 52 cards on the table
    before = db_dump(app)
    page = upload(client, game, data)
    assert page.status_code == 303 and b"more than two hands can hold" in client.get(page.headers["Location"]).data
    assert db_dump(app) == before


@pytest.mark.parametrize(
    "cards0, cards1, message",
    [
        (ANN_GIN, ANN_GIN.split()[0] + " " + " ".join(BOB_LOSES.split()[1:]), "in both hands"),
        (" ".join(ANN_GIN.split()[:9]), BOB_LOSES, "has 9 cards"),
        (ANN_GIN + " Ts Js", BOB_LOSES, "has 12 cards"),
        (ANN_GIN, BOB_LOSES + " Tc Th", "has 12 cards"),
        (ANN_GIN, " ".join(BOB_LOSES.split()[:9]), "has 9 cards"),
        (ANN_GIN.replace("As", "Xs"), BOB_LOSES, "Write cards like"),
        (ANN_GIN.replace("2s", "As"), BOB_LOSES, "once"),
    ],
    ids=["both-hands", "knocker-9", "knocker-12", "defender-12", "defender-9", "bad-code", "twice"],
)
def test_impossible_hands_are_refused_on_the_page_and_in_the_api(client, app, game, cards0, cards1, message):
    before = db_dump(app)
    page = client.post(
        f"/games/{game}/review", data={"knocker": "0", "cards0": cards0, "cards1": cards1, "action": "confirm"}
    )
    assert page.status_code == 400 and message in page.data.decode()
    api = client.post(
        f"/api/games/{game}/hands", headers=API, json={"knocker": 0, "cards": [cards0.split(), cards1.split()]}
    )
    assert api.status_code == 400 and message in api.json["error"]
    assert db_dump(app) == before


def test_knocker_must_be_chosen_and_knock_limit_holds(client, app, game):
    before = db_dump(app)
    page = client.post(f"/games/{game}/review", data={"cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"})
    assert page.status_code == 400 and b"Choose who knocked" in page.data
    over_limit = client.post(
        f"/games/{game}/review", data={"knocker": "1", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"}
    )
    assert over_limit.status_code == 400
    assert db_dump(app) == before


@pytest.mark.parametrize(
    "data",
    [
        {"knocker": "0", "deadwood0": "four", "deadwood1": "20"},
        {"knocker": "0", "deadwood0": "4", "deadwood1": "-3"},
        {"knocker": "2", "deadwood0": "4", "deadwood1": "20"},
        {"knocker": "0", "deadwood0": "14", "deadwood1": "20"},
    ],
)
def test_bad_counts_are_refused(client, app, game, data):
    before = db_dump(app)
    response = client.post(f"/games/{game}/hands/counts", data=data)
    assert response.status_code == 400 and b'class="error" role="alert" id="counts-error"' in response.data
    assert db_dump(app) == before


@pytest.mark.parametrize(
    "body", [None, [], {"cards": "x"}, {"deadwood": 5}, {"knocker": 0, "cards": [[], []]}, {"replace": 7, "void": True}]
)
def test_bad_api_bodies_are_4xx(client, app, game, body):
    before = db_dump(app)
    response = client.post(
        f"/api/games/{game}/hands",
        headers=API,
        data="nonsense" if body is None else None,
        json=body if body is not None else None,
    )
    assert 400 <= response.status_code < 500 and "error" in response.json
    assert db_dump(app) == before


def test_api_writes_need_the_custom_header(client, app, game):
    response = client.post(f"/api/games/{game}/hands", json={"void": True})
    assert response.status_code == 400 and "X-Requested-With" in response.json["error"]


def test_api_game_lifecycle(client):
    created = client.post(
        "/api/games",
        headers=API,
        json={"players": ["Ann", "Bob"], "preset": "pagat", "rules": {"gin_bonus": 30}, "target": 60},
    )
    assert created.status_code == 201
    game_id = created.json["id"]
    assert created.json["rules"]["gin_bonus"] == 30 and created.json["target"] == 60
    added = client.post(
        f"/api/games/{game_id}/hands", headers=API, json={"knocker": 0, "cards": [ANN_GIN.split(), BOB_LOSES.split()]}
    )
    assert added.status_code == 201 and added.json["hand"]["kind"] == "gin" and added.json["hand"]["points"] == 85
    assert added.json["sheet"]["game_over"] is True
    assert client.post(f"/api/games/{game_id}/hands", headers=API, json={"void": True}).status_code == 409
    assert client.post(f"/api/games/{game_id}/undo", headers=API).json["sheet"]["totals"] == [0, 0]
    assert client.post(f"/api/games/{game_id}/undo", headers=API).status_code == 409
    counts = client.post(f"/api/games/{game_id}/hands", headers=API, json={"knocker": 1, "deadwood": [20, 3]})
    assert counts.json["sheet"]["totals"] == [0, 17]
    assert any(g["id"] == game_id for g in client.get("/api/games").json["games"])
    assert client.post("/api/games", headers=API, json={"players": ["Ann"]}).status_code == 400
