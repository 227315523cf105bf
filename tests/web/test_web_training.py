"""Saved photo hands become training examples; the Training page lists them and starts a retrain."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from sheet_helpers import ANN_GIN, BOB_LOSES, new_game, real_val_crop

from vision.reading import CardReading, PhotoReading
from web import store, training
from web.db import transaction


def pending_photo(app, game_id: int) -> int:
    """A real-val crop with a reading: Ann's cards right, Bob's 4d read as 4h (runner-up 4d), his Kh missed."""
    image, _ = real_val_crop()
    from PIL import Image

    width, height = Image.open(io.BytesIO(image)).size
    bob = BOB_LOSES.split()
    read = ANN_GIN.split() + [c for c in bob if c not in ("4d", "Kh")] + ["4h"]
    cards = tuple(
        CardReading(
            code,
            0.3 if code == "4h" else 0.9,
            ((20.0 * i, 30.0, 20.0 * i + 15, 60.0),),
            ("4d",) if code == "4h" else (),
        )
        for i, code in enumerate(read)
    )
    reading = PhotoReading((width, height), cards, (tuple(ANN_GIN.split()), tuple(read[10:])), "horizontal", 0.8)
    with app.app_context(), transaction() as connection:
        return store.insert_photo(connection, game_id, image, "image/jpeg", width, height, reading, "upload")


def confirm(client, game_id: int, photo_id: int):
    return client.post(
        f"/games/{game_id}/review",
        data={"photo_id": photo_id, "knocker": "0", "cards0": ANN_GIN, "cards1": BOB_LOSES, "action": "confirm"},
    )


def test_a_saved_photo_hand_is_kept_as_a_training_example(app, client):
    game_id = new_game(client)
    assert confirm(client, game_id, pending_photo(app, game_id)).status_code == 302
    examples = Path(app.instance_path) / "examples"
    (label,) = (examples / "labels").glob("ex_*.txt")
    notes = json.loads((examples / "notes" / f"{label.stem}.json").read_text())
    assert notes["corrected"] == [["4h", "4d"]]  # the misread box is relabelled 4d
    assert notes["added_by_hand"] == ["Kh"] and not notes["detector_safe"]  # Kh has no box: classifier only
    assert len(label.read_text().splitlines()) == 19
    assert (examples / "images" / f"{label.stem}.jpg").read_bytes()[:2] == b"\xff\xd8"
    assert notes["source"]["game_id"] == game_id

    page = client.get("/training").data.decode()
    assert "1 photo:" in page and "19 corner indices" in page and "1 corrected" in page
    assert "added by hand: Kh" in page and "Training" in client.get("/").data.decode()


def test_collecting_is_off_with_its_setting_or_without_keeping_photos(app, client):
    client.post("/training/collect", data={})  # unchecked
    game_id = new_game(client)
    confirm(client, game_id, pending_photo(app, game_id))
    assert not (Path(app.instance_path) / "examples").exists()
    assert b"Learn from corrected photos" in client.get("/training").data

    client.post("/training/collect", data={"collect": "1"})
    client.post("/settings", data={"camera_source": ""})  # keep_photos off
    confirm(client, game_id, pending_photo(app, game_id))
    assert not (Path(app.instance_path) / "examples").exists()
    assert "Keep photos" in client.get("/training").data.decode()


def test_a_broken_reading_never_loses_the_hand(app, client):
    game_id = new_game(client)
    photo_id = pending_photo(app, game_id)
    with app.app_context(), transaction() as connection:
        connection.execute("UPDATE photo SET reading_json = ? WHERE id = ?", ("{not json", photo_id))
    assert confirm(client, game_id, photo_id).status_code == 302
    with app.app_context():
        assert len(store.get_hands(game_id)) == 1


def retrains_started(app, monkeypatch, models):
    """The commands of the retrains the page starts, from a models folder with a detector file."""
    started = []
    # the retrain's process: this one stands in (alive), as the real one takes seconds to hold its lock
    monkeypatch.setattr(training, "start_retrain", lambda command, folder: started.append(command) or os.getpid())
    models.mkdir()
    (models / "card_index_detector.pt").write_bytes(b"weights")
    app.config["MODEL_PATH"] = str(models)
    return started


def test_the_page_starts_one_retrain_in_the_background(app, client, monkeypatch, tmp_path):
    models = tmp_path / "models"
    started = retrains_started(app, monkeypatch, models)
    response = client.post("/training/retrain", data={"hours": "0.25", "part": "classifier"})
    assert response.status_code == 303 and len(started) == 1
    command = started[0]
    assert command[command.index("--hours") + 1] == "0.25" and "--no-clutter" in command
    assert command[command.index("--models-dir") + 1] == str(models)
    assert command[command.index("--instance") + 1] == app.instance_path
    page = client.get("/training").data.decode()
    assert "Retraining started" in page
    assert 'http-equiv="refresh"' in page and "<strong>Running:</strong> starting" in page, "shown running at once"
    assert client.post("/training/retrain", data={"hours": "99", "part": "classifier"}).status_code == 303
    assert len(started) == 1  # refused: not one of the choices


def test_the_page_starts_a_retrain_of_the_taught_decks_own_classifier(app, client, monkeypatch, tmp_path):
    started = retrains_started(app, monkeypatch, tmp_path / "models")
    assert "taught decks: their own reader" in client.get("/training").data.decode()
    response = client.post("/training/retrain", data={"hours": "0.17", "part": "taught", "clutter": "1"})
    assert response.status_code == 303 and len(started) == 1
    assert "--taught-partner" in started[0] and "--part" not in started[0] and "--no-clutter" not in started[0]


def test_the_page_shows_progress_and_the_last_report(app, client):
    from vision.training.retrain import write_json

    folder = Path(app.instance_path) / "retrain"
    write_json(
        folder / "status.json",
        {
            "state": "running",
            "fraction": 0.42,
            "message": "fine-tuning the classifier",
            "started": "now",
            "elapsed_s": 60,
            "pid": os.getpid(),
        },
    )
    (folder / "running.pid").write_text(str(os.getpid()))
    page = client.get("/training").data.decode()
    assert 'http-equiv="refresh"' in page and 'value="42.0"' in page and "fine-tuning the classifier" in page
    numbers = {
        "right": 340,
        "labelled": 345,
        "recall": 0.9855,
        "precision": 1.0,
        "photos_exact": 3,
        "photos": 7,
        "flagged": 4,
    }
    write_json(
        folder / "last.json",
        {
            "decision": "installed",
            "finished": "2026-11-30 13:00",
            "parts": ["classifier"],
            "minutes": 12.5,
            "scenes": 300,
            "taught_decks": ["mine"],
            "collected": {"photos": 2},
            "before": {"real-val": numbers},
            "after": {"real-val": {**numbers, "right": 343, "recall": 0.9942}},
            "in_words": ["taught deck mine: 18 -> 20 of 21 cards right, 2 -> 0 wrong", "real-val: 340 -> 343 of 345"],
        },
    )
    (folder / "running.pid").unlink()
    page = client.get("/training").data.decode()
    assert "Last retrain: installed" in page and "343/345" in page and "340/345" in page
    assert "<li>taught deck mine: 18 -&gt; 20 of 21 cards right, 2 -&gt; 0 wrong</li>" in page
    assert "Start retraining" in page and 'http-equiv="refresh"' not in page
    assert "300 new scenes (half with mine)" in page
    write_json(
        folder / "last.json",
        {
            "decision": "refused: real-clutter: 3 -> 4 false cards",
            "finished": "2026-12-04 18:37",
            "parts": ["taught deck classifier"],
            "minutes": 18.2,
            "scenes": 0,
            "data": {"taught_deck_crops": 30900},
            "taught_decks": ["mine"],
            "collected": {"photos": 0},
            "before": {"real-val": numbers},
            "after": {"real-val": numbers},
        },
    )
    page = client.get("/training").data.decode()
    assert "taught deck classifier · 18.2 min" in page and "30,900 index crops of mine" in page
    assert "new scenes" not in page


def test_the_page_rolls_back_a_retrain(app, client, tmp_path):
    models = tmp_path / "models"
    (models / "previous").mkdir(parents=True)
    for folder, text in ((models, "new"), (models / "previous", "old")):
        (folder / "card_index_detector.pt").write_text(text)
        (folder / "model.json").write_text(json.dumps({"detector": "card_index_detector.pt", "classifier": None}))
    app.config["MODEL_PATH"] = str(models)
    assert "Put the previous models back" in client.get("/training").data.decode()
    client.post("/training/rollback")
    assert (models / "card_index_detector.pt").read_text() == "old"
    assert (models / "previous" / "card_index_detector.pt").read_text() == "new"
    assert "previous models are back" in client.get("/training").data.decode()
