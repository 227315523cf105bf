"""Through the Flask test client: undo and Restore, CSV deadwood, the margin, conflicts
flagged, the split warning, the webcam's steady spreads, one lay-off sentence, redirects."""

from __future__ import annotations

import csv
import io

from sheet_helpers import add_counts, insert_pending_photo, new_game, real_val_showdown, totals_on_page

from vision.reading import CardReading, PhotoReading
from web.camera_feed import CameraFeed


def test_undo_then_restore_puts_the_hand_back_once(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    add_counts(client, game_id, 0, 2, 12)
    client.post(f"/games/{game_id}/undo", data={"position": "2"})
    page = client.get(f"/games/{game_id}").data.decode()
    assert "Hand 2 removed" in page and totals_on_page(page) == (26, 0)
    restored = client.post(f"/games/{game_id}/restore", follow_redirects=True).data.decode()
    assert "Hand 2 restored" in restored and totals_on_page(restored) == (36, 0) and "Hand 2 removed" not in restored
    again = client.post(f"/games/{game_id}/restore", follow_redirects=True).data.decode()
    assert "no undone hand" in again and totals_on_page(again) == (36, 0)


def test_restore_refuses_when_a_hand_was_added_meanwhile(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    client.post(f"/games/{game_id}/undo", data={"position": "1"})
    add_counts(client, game_id, 1, 30, 4)
    assert "Hand 1 removed" not in client.get(f"/games/{game_id}").data.decode()
    page = client.post(f"/games/{game_id}/restore", follow_redirects=True).data.decode()
    assert 'class="error"' in page and "cannot be restored" in page and totals_on_page(page) == (0, 26)


def test_csv_has_deadwood_for_counts_and_cards(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 4, 30)
    client.post(
        f"/games/{game_id}/review",
        data={
            "knocker": "0",
            "cards0": "5s 6s 7s Ks Kc Kd 9c Tc Jc Jd",
            "cards1": "2s 8s 9s Ac 2c 7c 8c 2d 8d 2h",
            "action": "confirm",
        },
    )
    rows = list(csv.reader(io.StringIO(client.get(f"/games/{game_id}/export.csv").data.decode())))
    assert rows[0][9:12] == ["Ann deadwood", "Bob deadwood", "entered as"]
    assert rows[1][9:12] == ["4", "30", "counts"] and rows[2][9:12] == ["10", "9", "cards"]


def test_final_reckoning_states_the_margin(client):
    game_id = new_game(client)
    add_counts(client, game_id, 0, 0, 40, gin=True)
    add_counts(client, game_id, 0, 0, 40, gin=True)
    page = client.get(f"/games/{game_id}").data.decode()
    assert 'id="reckoning"' in page and "Ann wins by" in page and 'id="margin"' in page


def test_review_flags_conflicts_and_warns_about_the_split(app, client):
    game_id = new_game(client)
    jpeg, reading = real_val_showdown()
    photo_id = insert_pending_photo(app.config["DATABASE"], game_id, jpeg, reading)
    page = client.get(f"/games/{game_id}/review/{photo_id}").data.decode()
    assert "2 cards to check" in page and page.count(' flagged"') == 2
    assert 'id="split-warning"' in page and "not clearly apart" in page
    assert f"{len(reading.cards)} cards read" in page
    clear, sure = real_val_showdown(low_confidence=0.9, split_confidence=0.8)
    cards = tuple(CardReading(card.card, 0.9, card.boxes) for card in sure.cards)
    sure = PhotoReading(sure.image_size, cards, sure.hands, sure.split_axis, 0.8, ())
    photo_id = insert_pending_photo(app.config["DATABASE"], game_id, clear, sure)
    page = client.get(f"/games/{game_id}/review/{photo_id}").data.decode()
    assert "No card to check" in page and 'id="split-warning"' not in page


def test_lay_offs_are_explained_once(client):
    game_id = new_game(client)
    client.post(
        f"/games/{game_id}/review",
        data={
            "knocker": "0",
            "cards0": "5s 6s 7s Ks Kc Kd 9c Tc Jc Jd",
            "cards1": "2s 8s 9s Ac 2c 7c 8c 2d 8d 2h",
            "action": "confirm",
        },
    )
    page = client.get(f"/games/{game_id}").data.decode()
    assert page.count("lays off") == 1 and "Bob lays off 8s 9s on 5s 6s 7s; 8c 7c on 9c Tc Jc." in page


def test_upload_errors_redirect_and_the_xhr_upload_gets_json(client):
    game_id = new_game(client)
    response = client.post(
        f"/games/{game_id}/photo",
        data={"photo": (io.BytesIO(b"%PDF"), "x.pdf")},
        content_type="multipart/form-data",
        headers={"X-Upload-Progress": "1"},
    )
    assert (
        response.status_code == 200
        and response.json["error"]
        and response.json["location"].startswith(f"/games/{game_id}")
    )
    assert b"not an image" in client.get(f"/games/{game_id}").data


def reading(hands):
    cards = tuple(CardReading(code, 0.9, ((0, 0, 5, 5),)) for code in hands[0] + hands[1])
    return PhotoReading((100, 100), cards, (tuple(hands[0]), tuple(hands[1])))


def test_webcam_offers_the_capture_once_both_spreads_stay_the_same():
    feed = CameraFeed("0")
    assert feed.state(0.0)["steady"] is False
    feed.note_reading(reading((["As", "2s"], ["Kh"])), 10.0)
    feed.note_reading(reading((["2s", "As"], ["Kh"])), 10.5)
    assert feed.state(10.6)["steady"] is False  # only half a second
    feed.note_reading(reading((["As", "2s"], ["Kh"])), 11.1)
    state = feed.state(11.1)
    assert state["steady"] is True and state["hands"] == [["As", "2s"], ["Kh"]]
    feed.note_reading(reading((["As", "3s"], ["Kh"])), 11.5)  # a card changed: wait again
    assert feed.state(11.6)["steady"] is False


def test_camera_reading_json(app, client):
    app.config["CAMERA_SOURCE"] = "7"
    from web.camera_feed import feed_for

    with app.app_context():
        feed = feed_for("7")
    feed.note_reading(reading((["As"], ["Kh"])), 0.0)
    data = client.get("/camera/reading.json").json
    assert data["hands"] == [["As"], ["Kh"]] and data["cards"] == 2 and data["steady"] is False
