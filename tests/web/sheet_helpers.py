"""Helpers for the web tests: hands to enter, filling a game, reading totals off a page, comparing the database,
real-val photos to upload. (The fixtures are in conftest.py.)"""

from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL_VAL = REPO / "datasets" / "real" / "real-val"

# A gin hand for Ann (knocker) against Bob: Ann melds everything, Bob has 55 deadwood.
ANN_GIN = "As 2s 3s 4s 5h 5d 5c 9h 9d 9c"
BOB_LOSES = "Kh Kd Qh Qd Jc Jd 8s 7c 6h 4d"


def model_available() -> bool:
    """True when a detector model is installed (models/ or $GINSCORE_MODELS)."""
    try:
        from vision.model_settings import read_model_settings

        read_model_settings(None)
        return True
    except Exception:
        return False


needs_model = pytest.mark.skipif(not model_available(), reason="no detector model in models/ yet (vision ships it)")


class FakeClock:
    """A monotonic clock that moves only when told (for the PIN throttle)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def fake_pin_clock(app) -> FakeClock:
    """Give the app a fresh PIN throttle (a full budget) on a clock the test moves."""
    from web.pin_throttle import PinThrottle

    clock = FakeClock()
    app.extensions["pin_throttle"] = PinThrottle(clock=clock)
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
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
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
            for x0, y0, x1, y1 in (
                (0, 0, 0.5, 1),
                (0.5, 0, 1, 1),
                (0, 0, 1, 0.5),
                (0, 0.5, 1, 1),
                (0.25, 0, 0.75, 1),
                (0, 0.25, 1, 0.75),
            ):
                inside = {code for code, cx, cy in boxes if x0 + 0.03 < cx < x1 - 0.03 and y0 + 0.03 < cy < y1 - 0.03}
                if min_cards <= len(inside) <= max_cards:
                    crop = image.crop((int(x0 * width), int(y0 * height), int(x1 * width), int(y1 * height)))
                    buffer = io.BytesIO()
                    crop.convert("RGB").save(buffer, "JPEG", quality=92)
                    return buffer.getvalue(), inside
    raise LookupError("no real-val crop with that many cards")


def real_val_showdown(low_confidence: float = 0.3, split_confidence: float = 0.2):
    """A real-val crop and a reading of it built from its hand labels (no model): every card with its
    labelled corner boxes, the two spreads split at the widest gap, one card read at ``low_confidence``
    and one named in a corner conflict. Returns (jpeg bytes, PhotoReading)."""
    from PIL import Image

    from vision.model_settings import DecisionSettings
    from vision.reading import CardReading, PhotoReading, Reason
    from vision.review import final_review

    codes = (REAL_VAL / "classes.txt").read_text().split()
    image_path = REAL_VAL / "images" / "deal4.jpg"  # this crop holds melds in both groups
    labels = (REAL_VAL / "labels" / "deal4.txt").read_text().splitlines()
    with Image.open(image_path) as image:
        width, height = image.size
        x0, y0, x1, y1 = int(0.2 * width), int(0.05 * height), int(0.6 * width), int(0.8 * height)
        crop = image.crop((x0, y0, x1, y1)).convert("RGB")
    boxes: dict[str, list] = {}
    for line in labels:
        class_id, cx, cy, w, h = line.split()
        cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        if x0 + w < cx < x1 - w and y0 + h < cy < y1 - h:
            boxes.setdefault(codes[int(class_id)], []).append(
                (cx - w / 2 - x0, cy - h / 2 - y0, cx + w / 2 - x0, cy + h / 2 - y0)
            )
    order = sorted(boxes, key=lambda code: min(b[0] for b in boxes[code]))
    hands = (tuple(order[:10]), tuple(order[10:]))
    low, conflicted = hands[0][1], hands[1][2]
    other = next(code for code in codes if code[0] == conflicted[0] and code not in boxes)
    conflicts = (f"{conflicted} or {other}: its two corners read differently (near the middle); check this card",)
    disagree = Reason("corners_disagree", conflicts[0], (conflicted, other))
    cards = tuple(
        CardReading(
            code,
            low_confidence if code == low else 0.45 if code == conflicted else 0.93,
            tuple(boxes[code]),
            runner_ups=(other,) if code == conflicted else (),
            review=(disagree,) if code == conflicted else (),
        )
        for code in sorted(boxes, key=codes.index)
    )
    cards = final_review(cards, DecisionSettings())  # the low-confidence reasons, as the reader gives them
    buffer = io.BytesIO()
    crop.save(buffer, "JPEG", quality=90)
    return buffer.getvalue(), PhotoReading(crop.size, cards, hands, "vertical", split_confidence, conflicts)


def insert_pending_photo(database: str, game_id: int, jpeg: bytes, reading) -> int:
    """Store a photo and its reading as an upload waiting for review (in any app's database file)."""
    from web import create_app, store
    from web.db import transaction

    app = create_app({"DATABASE": database, "TESTING": True, "SECRET_KEY": "test"})
    with app.app_context(), transaction() as connection:
        return store.insert_photo(
            connection,
            game_id,
            jpeg,
            "image/jpeg",
            reading.image_size[0],
            reading.image_size[1],
            reading,
            "upload",
        )
