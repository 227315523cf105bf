"""The review page for a photo: boxes and labels, low-confidence cards, corrections kept (or not)."""

from __future__ import annotations

import io
import sqlite3

from sheet_helpers import ANN_GIN, BOB_LOSES, db_dump, new_game, real_val_crop

from vision.model_settings import DecisionSettings
from vision.reading import CardReading, PhotoReading
from vision.review import final_review
from web import store
from web.db import transaction


def pending_photo(
    app,
    game_id: int,
    low_card: str = "9c",
    conflicts: tuple[str, ...] = (),
    cards0: str = ANN_GIN,
    confidence: dict[str, float] | None = None,
    cards1: str = " ".join(BOB_LOSES.split()[:-1]),  # 4d was missed
) -> int:
    """Store a real-val crop with a reading as the recogniser would give it (one card unsure, one missed):
    Ann's cards ``cards0`` and Bob's ``cards1``, each read 0.9 sure unless ``confidence`` says otherwise."""
    image, _ = real_val_crop()
    from PIL import Image

    width, height = Image.open(io.BytesIO(image)).size
    codes = cards0.split() + cards1.split()
    sure = {code: 0.9 for code in codes} | {low_card: 0.3} | (confidence or {})
    cards = final_review(  # with the low-confidence reason, as the reader gives it
        [CardReading(code, sure[code], ((20.0 * i, 30.0, 20.0 * i + 15, 60.0),)) for i, code in enumerate(codes)],
        DecisionSettings(),
    )
    reading = PhotoReading(
        (width, height), cards, (tuple(cards0.split()), tuple(cards1.split())), "horizontal", 0.8, conflicts
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


def test_a_knock_over_the_limit_names_and_flags_the_least_sure_of_the_knockers_unmelded_cards(app, client):
    # the photo read Ann's 9c as Kc, surely enough to show it as sure: her deadwood becomes 9 + 9 + 10 = 28
    misread = "As 2s 3s 4s 5h 5d 5c 9h 9d Kc"
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id, low_card="", cards0=misread, confidence={"Kc": 0.81, "9d": 0.88, "9h": 0.97})
    form = {"photo_id": photo_id, "knocker": "0", "cards0": misread, "cards1": BOB_LOSES}
    before = client.get(f"/games/{game_id}/review/{photo_id}").data.decode()
    assert before.count(' flagged"') == 0, "read as sure"

    refused = client.post(f"/games/{game_id}/review", data={**form, "action": "confirm"})
    page = refused.data.decode()
    assert refused.status_code == 400 and "Ann cannot knock with 28 deadwood" in page
    assert "unmelded cards as read: K♣ and 9♦." in page, "the two least sure of 9h 9d Kc, least sure first"
    assert page.count(' flagged"') == 2 and "Ann knocked with 28 deadwood, over the knock limit of 10: check K♣" in page
    assert store_hands(app, game_id) == 0, "nothing saved"
    checked = client.get(f"/games/{game_id}/review/check", query_string=form).data.decode()
    assert "K♣ and 9♦" in checked and checked.count(' flagged"') == 2

    api = api_hand(client, game_id, misread, BOB_LOSES, photo_id)
    assert api.status_code == 400 and "K♣ and 9♦" in api.get_json()["error"]
    typed = client.post(f"/games/{game_id}/review", data={**form, "photo_id": "", "action": "confirm"})
    assert typed.status_code == 400 and b"cannot knock with 28" in typed.data and b"The least sure" not in typed.data

    right = client.post(
        f"/games/{game_id}/review", data={**form, "cards0": "As 2s 3s 4s 5h 5d 5c 9h 9d 9c", "action": "confirm"}
    )
    assert right.status_code == 302 and store_hands(app, game_id) == 1, "fixed, it saves"


def test_a_hand_of_too_many_cards_names_and_flags_its_least_sure_cards(app, client):
    # the photo read a 2c on Bob's side that is not his (a coin, a card of the stock): 11 cards, the defender shows 10
    extra = BOB_LOSES + " 2c"
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id, low_card="", cards1=extra, confidence={"2c": 0.74, "7c": 0.8})
    form = {"photo_id": photo_id, "knocker": "0", "cards0": ANN_GIN, "cards1": extra, "action": "confirm"}
    refused = client.post(f"/games/{game_id}/review", data=form)
    page = refused.data.decode()
    assert refused.status_code == 400 and "Bob has 11 cards" in page
    assert "The least sure of Bob&#39;s cards as read: 2♣." in page and page.count(' flagged"') == 1
    api = api_hand(client, game_id, ANN_GIN, extra, photo_id)
    assert api.status_code == 400 and "Bob's cards as read: 2♣." in api.get_json()["error"]
    short = client.post(f"/games/{game_id}/review", data={**form, "cards1": " ".join(BOB_LOSES.split()[:-1])})
    assert short.status_code == 400 and b"Bob has 9 cards" in short.data and b"The least sure" not in short.data
    assert store_hands(app, game_id) == 0


def api_hand(client, game_id: int, cards0: str, cards1: str, photo_id: int):
    """Ann knocked: the hand sent to the JSON API with the photo it was read from."""
    return client.post(
        f"/api/games/{game_id}/hands",
        json={"knocker": 0, "cards": [cards0.split(), cards1.split()], "photo_id": photo_id},
        headers={"X-Requested-With": "fetch"},
    )


def store_hands(app, game_id: int) -> int:
    with app.app_context():
        return len(store.get_hands(game_id))


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
    from web.sheet_view import explanation_lines

    result = score_hand("5s 6s 7s Ks Kc Kd 9c Tc Jc Jd", "2s 8s 9s Ac 2c 7c 8c 2d 8d 2h", Rules.preset("standard"))
    lines = explanation_lines(result, ("Ann", "Bob"))
    assert lines[0].startswith("Ann: ") and "deadwood Jd = 10" in lines[0]
    assert lines[1].startswith("Bob: 2s 2h 2d 2c")
    assert lines[2].startswith("Bob lays off ") and "9s on" in lines[2]
