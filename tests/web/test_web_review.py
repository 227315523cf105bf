"""The review page for a photo: boxes and labels, low-confidence cards, corrections kept (or not)."""

from __future__ import annotations

import io
import sqlite3

from sheet_helpers import ANN_GIN, BOB_LOSES, db_dump, new_game, real_val_crop

from vision.decision import final_review
from vision.model_settings import DecisionSettings
from vision.reading import CardReading, PhotoReading
from web import store
from web.db import transaction


def pending_photo(app, game_id: int, low_card: str = "9c", conflicts: tuple[str, ...] = ()) -> int:
    """Store a real-val crop with a reading as the recogniser would give it (one card unsure, one missed)."""
    image, _ = real_val_crop()
    from PIL import Image

    width, height = Image.open(io.BytesIO(image)).size
    codes = ANN_GIN.split() + BOB_LOSES.split()[:-1]  # 4d was missed
    cards = final_review(  # with the low-confidence reason, as the reader gives it
        [
            CardReading(code, 0.3 if code == low_card else 0.9, ((20.0 * i, 30.0, 20.0 * i + 15, 60.0),))
            for i, code in enumerate(codes)
        ],
        DecisionSettings(),
    )
    reading = PhotoReading(
        (width, height), cards, (tuple(ANN_GIN.split()), tuple(BOB_LOSES.split()[:-1])), "horizontal", 0.8, conflicts
    )
    with app.app_context(), transaction() as connection:
        return store.insert_photo(connection, game_id, image, "image/jpeg", width, height, reading, "upload")


def test_review_page_boxes_every_card_and_flags_unsure_ones(app, client):
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id)
    page = client.get(f"/games/{game_id}/review/{photo_id}").data.decode()
    assert page.count('<g class="box') == 19 and page.count(' flagged"') == 1  # one box a card
    assert "1 card to check" in page and "30% sure" in page and 'id="to-check"' in page
    assert "19 cards read" in page and "corners" not in page.split("cards read")[1][:20]
    assert f'value="{ANN_GIN}"' in page
    image = client.get(f"/photos/{photo_id}.jpg")
    assert image.mimetype == "image/jpeg" and image.data[:2] == b"\xff\xd8"


def test_review_page_says_what_the_photo_says_beyond_its_cards_once(app, client):
    # a code seen at two places is a conflict of the photo, on no card; a card's own reason is not repeated
    seen_twice = "A♠ seen in 2 places that cannot be one card (…): a second deck, or a card there misread as A♠"
    game_id = new_game(client)
    low_reason = "read 30% sure"
    photo_id = pending_photo(app, game_id, conflicts=(seen_twice, low_reason))
    page = client.get(f"/games/{game_id}/review/{photo_id}").data.decode()
    notes = page.split('id="photo-notes"')[1].split("</div>")[0]
    assert seen_twice in notes and low_reason not in notes
    plain = client.get(f"/games/{game_id}/review/{pending_photo(app, game_id)}").data.decode()
    assert 'id="photo-notes"' not in plain


def test_confirmed_photo_keeps_the_corrected_cards(app, client):
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id)
    missing = client.post(
        f"/games/{game_id}/review",
        data={
            "photo_id": photo_id,
            "knocker": "0",
            "cards0": ANN_GIN,
            "cards1": " ".join(BOB_LOSES.split()[:-1]),
            "action": "confirm",
        },
    )
    assert missing.status_code == 400 and b"Bob has 9 cards" in missing.data and b"<svg" in missing.data
    client.post(
        f"/games/{game_id}/review",
        data={"photo_id": photo_id, "knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"},
    )
    connection = sqlite3.connect(app.config["DATABASE"])
    hand_id, corrected1, image = connection.execute(
        "SELECT hand_id, corrected1, length(image) FROM photo WHERE id = ?", (photo_id,)
    ).fetchone()
    assert hand_id is not None and corrected1 == BOB_LOSES and image > 1000
    assert client.get(f"/games/{game_id}/review/{photo_id}").status_code == 404  # used up


def test_photos_are_dropped_when_keeping_is_off(app, client):
    client.post("/settings", data={"camera_source": ""})  # keep_photos unchecked
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id)
    client.post(
        f"/games/{game_id}/review",
        data={"photo_id": photo_id, "knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"},
    )
    connection = sqlite3.connect(app.config["DATABASE"])
    assert connection.execute("SELECT COUNT(*) FROM photo").fetchone()[0] == 0
    assert connection.execute("SELECT COUNT(*) FROM hand").fetchone()[0] == 1


def test_a_photo_of_another_game_cannot_be_used(app, client):
    first, second = new_game(client), new_game(client, "Cat", "Dan")
    photo_id = pending_photo(app, first)
    assert client.get(f"/games/{second}/review/{photo_id}").status_code == 404
    before = db_dump(app)
    response = client.post(
        f"/games/{second}/review",
        data={"photo_id": photo_id, "knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"},
    )
    assert response.status_code == 404 and db_dump(app) == before


def test_review_result_shows_melds_deadwood_and_layoffs():
    from engine import Rules, score_hand
    from web.scoring import explanation_lines

    result = score_hand("5s 6s 7s Ks Kc Kd 9c Tc Jc Jd", "2s 8s 9s Ac 2c 7c 8c 2d 8d 2h", Rules.preset("standard"))
    lines = explanation_lines(result, ("Ann", "Bob"))
    assert lines[0].startswith("Ann: ") and "deadwood Jd = 10" in lines[0]
    assert lines[1].startswith("Bob: 2s 2h 2d 2c")
    assert lines[2].startswith("Bob lays off ") and "9s on" in lines[2]
