"""Fixtures for the web app: an app on a temporary SQLite file, a client, helpers to fill games."""
from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path

import pytest

from web import create_app

REPO = Path(__file__).resolve().parents[2]
REAL_VAL = REPO / "datasets" / "real" / "real-val"

# A gin hand for Ann (knocker) against Bob: Ann melds everything, Bob has 55 deadwood.
ANN_GIN = "As 2s 3s 4s 5h 5d 5c 9h 9d 9c"
BOB_LOSES = "Kh Kd Qh Qd Jc Jd 8s 7c 6h 4d"


def model_available() -> bool:
    """True when a detector model is installed (models/ or $GINSCORE_MODELS)."""
    try:
        from vision.detector import ModelError, read_model_settings
        read_model_settings(None)
        return True
    except Exception:
        return False


needs_model = pytest.mark.skipif(not model_available(),
                                 reason="no detector model in models/ yet (vision ships it)")


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "sheet.sqlite"), "TESTING": True, "WTF_CSRF_ENABLED": False,
                      "SECRET_KEY": "test"})
    app.instance_path = str(tmp_path)
    yield app


@pytest.fixture
def client(app):
    return app.test_client()


class FakeClock:
    """A monotonic clock that moves only when told (for the PIN throttle)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def fake_pin_clock(app) -> FakeClock:
    """Give the app's PIN throttle a clock the test moves."""
    clock = FakeClock()
    throttle = app.extensions["pin_throttle"]
    throttle.clock = clock
    throttle._table_updated = clock()
    return clock


def new_game(client, player0="Ann", player1="Bob", **fields) -> int:
    data = {"player0": player0, "player1": player1, "preset": "standard", "target": "100", **fields}
    response = client.post("/games/new", data=data)
    assert response.status_code == 302, response.data
    return int(response.headers["Location"].rsplit("/", 1)[1])


def add_counts(client, game_id: int, knocker: int, deadwood0: int, deadwood1: int, gin: bool = False):
    data = {"knocker": str(knocker), "deadwood0": str(deadwood0), "deadwood1": str(deadwood1)}
    if gin:
        data["gin"] = "1"
    return client.post(f"/games/{game_id}/hands/counts", data=data)


def db_dump(app) -> list:
    """Every row of every table, to compare the database before and after a request."""
    connection = sqlite3.connect(app.config["DATABASE"])
    try:
        tables = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return [(table, connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()) for table in tables]
    finally:
        connection.close()


def totals_on_page(html: str) -> tuple[int, int]:
    found = dict(re.findall(r'id="total(\d)">(-?\d+)<', html))
    return int(found["0"]), int(found["1"])


def png_bytes(width: int = 64, height: int = 48, colour=(30, 110, 60)) -> bytes:
    from PIL import Image
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, "PNG")
    return buffer.getvalue()


def real_val_crop(min_cards: int = 12, max_cards: int = 22) -> tuple[bytes, set[str]]:
    """A JPEG crop of a real-val photo holding between min and max whole-labelled cards, and those codes."""
    from PIL import Image
    codes = (REAL_VAL / "classes.txt").read_text().split()
    for image_path in sorted((REAL_VAL / "images").glob("*.jpg")):
        labels = image_path.parents[1] / "labels" / (image_path.stem + ".txt")
        boxes = []
        for line in labels.read_text().splitlines():
            class_id, cx, cy, w, h = line.split()
            boxes.append((codes[int(class_id)], float(cx), float(cy)))
        with Image.open(image_path) as image:
            width, height = image.size
            for x0, y0, x1, y1 in ((0, 0, .5, 1), (.5, 0, 1, 1), (0, 0, 1, .5), (0, .5, 1, 1),
                                   (.25, 0, .75, 1), (0, .25, 1, .75)):
                inside = {code for code, cx, cy in boxes if x0 + .03 < cx < x1 - .03 and y0 + .03 < cy < y1 - .03}
                if min_cards <= len(inside) <= max_cards:
                    crop = image.crop((int(x0 * width), int(y0 * height), int(x1 * width), int(y1 * height)))
                    buffer = io.BytesIO()
                    crop.convert("RGB").save(buffer, "JPEG", quality=92)
                    return buffer.getvalue(), inside
    raise LookupError("no real-val crop with that many cards")
