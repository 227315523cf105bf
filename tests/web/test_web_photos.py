"""Photos: one bounded upright JPEG kept per upload and served as is, decoding capped, retention.

The recogniser is replaced by a stand-in that records what it was given (the model's own tests
live with vision/); everything else is the real upload path.
"""

from __future__ import annotations

import concurrent.futures
import io
import sqlite3
import threading
import time

import numpy as np
import pytest
from sheet_helpers import new_game

from vision.reading import CardReading, PhotoReading
from web import recognition

API = {"X-Requested-With": "t"}


def jpeg(width: int, height: int, orientation: int | None = None) -> bytes:
    from PIL import Image

    image = Image.new("RGB", (width, height), (30, 110, 60))
    image.paste((200, 20, 20), (0, 0, width // 4, height // 8))  # a red mark at the top left
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=80, exif=exif.tobytes())
    return buffer.getvalue()


@pytest.fixture
def seen(monkeypatch):
    """The bytes the recogniser got, one entry per call; it finds three cards."""
    calls: list[np.ndarray] = []

    def fake_recognise(data: np.ndarray, model_dir=None) -> PhotoReading:
        calls.append(data)
        size = (data.shape[1], data.shape[0])
        cards = tuple(
            CardReading(code, 0.9, ((10.0 * i, 10.0, 10.0 * i + 8, 30.0),)) for i, code in enumerate(("As", "2s", "3s"))
        )
        return PhotoReading(size, cards, (("As", "2s"), ("3s",)))

    monkeypatch.setattr(recognition, "recognise_photo", fake_recognise)
    return calls


def upload(client, game_id: int, data: bytes):
    return client.post(
        f"/api/games/{game_id}/photo",
        headers=API,
        content_type="multipart/form-data",
        data={"photo": (io.BytesIO(data), "table.jpg")},
    )


def stored(app, photo_id: int) -> sqlite3.Row:
    connection = sqlite3.connect(app.config["DATABASE"])
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute("SELECT * FROM photo WHERE id = ?", (photo_id,)).fetchone()
    finally:
        connection.close()


def test_a_big_photo_is_kept_once_bounded_upright_and_served_as_stored(app, client, seen, monkeypatch):
    from PIL import Image

    game_id = new_game(client)
    original = jpeg(4800, 3600, orientation=6)  # a phone held upright
    answer = upload(client, game_id, original)
    assert answer.status_code == 201
    photo_id = answer.json["photo_id"]
    row = stored(app, photo_id)
    kept = Image.open(io.BytesIO(row["image"]))
    assert kept.format == "JPEG" and kept.size == (1536, 2048) and (row["width"], row["height"]) == kept.size
    assert kept.getexif().get(0x0112) in (None, 1)  # turned, not just labelled
    assert kept.getpixel((1536 - 20, 20))[0] > 150  # the mark is now top right
    # the reader read the pixels the kept JPEG was made from: the photo was decoded once
    assert len(seen) == 1 and seen[0].shape == (2048, 1536, 3) and answer.json["reading"]["image_size"] == [1536, 2048]
    decoded = np.asarray(kept.convert("RGB"))[:, :, ::-1].astype(int)
    assert np.abs(decoded - seen[0]).mean() < 3  # the same picture, but for the JPEG's loss

    def no_decoding(*args, **kwargs):
        raise AssertionError("a photo was decoded to be served")

    monkeypatch.setattr(Image, "open", no_decoding)
    served = client.get(f"/photos/{photo_id}.jpg")
    assert served.status_code == 200 and served.mimetype == "image/jpeg" and served.data == row["image"]


def test_a_jpeg_is_decoded_at_reduced_scale(app, client, seen, monkeypatch):
    from PIL import JpegImagePlugin

    scales = []
    real_draft = JpegImagePlugin.JpegImageFile.draft

    def spy(self, mode, size):
        result = real_draft(self, mode, size)
        scales.append(result[1][2] if result else None)
        return result

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", spy)
    assert upload(client, new_game(client), jpeg(6000, 4000)).status_code == 201
    assert scales and scales[0] is not None and scales[0] > 1  # decoded at 1/2 scale (3000 x 2000)


def test_a_16_bit_png_is_bounded_too(app, client, seen):
    import numpy as np
    from PIL import Image

    values = np.zeros((3000, 4000), np.uint16)
    values[:, 2000:] = 60000
    buffer = io.BytesIO()
    Image.fromarray(values).save(buffer, "PNG")
    answer = upload(client, new_game(client), buffer.getvalue())
    assert answer.status_code == 201
    kept = Image.open(io.BytesIO(stored(app, answer.json["photo_id"])["image"]))
    assert max(kept.size) <= 2048 and kept.getpixel((kept.width - 5, 5))[0] > 200


def test_decoding_waits_for_a_free_slot(app, client, seen, monkeypatch):
    from servers import ThreadServer, multipart

    from web import services

    app.extensions["photo_decode_slots"] = threading.BoundedSemaphore(1)
    busy, most = [0], [0]
    lock = threading.Lock()
    real_copy = recognition.bounded_copy

    def counting_copy(data, longest_side):
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        time.sleep(0.05)
        try:
            return real_copy(data, longest_side)
        finally:
            with lock:
                busy[0] -= 1

    monkeypatch.setattr(recognition, "bounded_copy", counting_copy)
    game_id = new_game(client)
    body, content_type = multipart("photo", "t.jpg", jpeg(1200, 900))
    with ThreadServer(app, threads=8) as server, concurrent.futures.ThreadPoolExecutor(6) as pool:
        statuses = list(
            pool.map(
                lambda _: server.request(
                    "POST", f"/api/games/{game_id}/photo", body, {**API, "Content-Type": content_type}
                )[0],
                range(6),
            )
        )
    assert statuses == [201] * 6 and most[0] == 1

    monkeypatch.setattr(services, "PHOTO_SLOT_WAIT_S", 0.05)
    app.extensions["photo_decode_slots"].acquire()  # every slot taken
    answer = upload(client, game_id, jpeg(640, 480))
    assert answer.status_code == 503 and "busy" in answer.json["error"]


def test_unconfirmed_uploads_go_after_a_day_and_photos_go_with_their_game(app, client, seen):
    game_id = new_game(client)
    old = upload(client, game_id, jpeg(640, 480)).json["photo_id"]
    confirmed = upload(client, game_id, jpeg(640, 480)).json["photo_id"]
    saved = client.post(
        f"/games/{game_id}/review",
        data={
            "photo_id": str(confirmed),
            "knocker": "0",
            "action": "confirm",
            "cards0": "As 2s 3s 4s 5s 6s 7s 8s 9s Ts",
            "cards1": "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th",
        },
    )
    assert saved.status_code == 302
    connection = sqlite3.connect(app.config["DATABASE"])
    connection.execute("UPDATE photo SET created = datetime('now', '-25 hours')")
    connection.commit()
    fresh = upload(client, game_id, jpeg(640, 480)).json["photo_id"]  # each upload sweeps
    assert stored(app, old) is None
    assert stored(app, confirmed) is not None and stored(app, fresh) is not None
    other_game = new_game(client, "Cat", "Dan")
    other_photo = upload(client, other_game, jpeg(640, 480)).json["photo_id"]
    assert client.post(f"/games/{game_id}/delete", data={"confirm": "yes"}).status_code == 302
    assert stored(app, confirmed) is None and stored(app, fresh) is None
    assert stored(app, other_photo) is not None
    assert connection.execute("SELECT COUNT(*) FROM photo").fetchone()[0] == 1
    connection.close()
