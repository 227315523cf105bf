"""The hands-free showdown's vote against one frame: rendered showdown videos and real-val photos as frames.

    nice python3 benchmarks/showdown_vote.py [--seeds 8] [--offers 3] [--real-val DIR] [--json FILE]

For each still table it reads the frame a phone would upload (the first frame as a JPEG, ``read_photo``)
and five camera frames at photo quality (``recognise``), reads each of them alone ("each frame": the five single-frame readings, averaged per table: what
a photo of a random moment gets), and votes over the first 3 and over all 5
(``vision.recognise.still_table_reading``). Rendered tables: two 10-card spreads of the five held-out
decks in turn (``vision.training.synth.showdown_video``) with camera noise and shake, and: light drifting by 10 % over
the frames; a hand over the cards in the second frame; both. Real tables: each real-val photo at
webcam size (1920 px wide) played as frames with the same noise. Per way of reading it prints recall,
precision, wrong cards, wrong cards shown as sure (no reason) and right cards flagged.

Then, with ``--offers N``, it serves N rendered videos (3 s of empty table, then the still showdown, a hand
passing over it for the videos after the first) to the app's own table watcher and prints the seconds
from the spreads' appearance to the offer on the sheet, and whether the offer held the 20 cards.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.detector import load_detector  # noqa: E402
from vision.reading import PhotoReading  # noqa: E402
from vision.recognise import read_photo, recognise, still_table_reading  # noqa: E402
from vision.training.synth.showdown_video import (  # noqa: E402
    showdown_pictures,
    still_frames,
    write_showdown_video,
)

REAL_VAL = REPO / "datasets" / "real" / "real-val"
FRAMES = 5
WEBCAM_WIDTH = 1920
HELD_OUT_DECKS = ("kde_penguins", "bonded", "atlasnye", "kde_ancient_egyptians", "kde_jolly_royal")  # split "val"
WAYS = ("photo upload", "one frame", "each frame", "vote of 3", "vote of 5")


def score(reading: PhotoReading, truth: set[str]) -> dict[str, int]:
    read = {card.card: card for card in reading.cards}
    wrong = [card for code, card in read.items() if code not in truth]
    return {
        "truth": len(truth),
        "read": len(read),
        "right": len(set(read) & truth),
        "wrong": len(wrong),
        "wrong_sure": sum(not card.to_check for card in wrong),
        "right_flagged": sum(card.to_check for code, card in read.items() if code in truth),
    }


def read_table(detector, frames: list[np.ndarray], truth: set[str]) -> dict[str, dict[str, int]]:
    ok, jpeg = cv2.imencode(".jpg", frames[0], [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    readings = [recognise(frame, detector=detector).reading for frame in frames]
    each = [score(still_table_reading([reading]), truth) for reading in readings]
    return {
        "photo upload": score(read_photo(jpeg.tobytes(), detector=detector), truth),
        "one frame": each[0],
        "each frame": {key: sum(counts[key] for counts in each) for key in each[0]},  # all 5, one at a time
        "vote of 3": score(still_table_reading(readings[:3]), truth),
        "vote of 5": score(still_table_reading(readings), truth),
    }


def add(total: dict[str, dict[str, int]], one: dict[str, dict[str, int]]) -> None:
    for way, counts in one.items():
        for key, value in counts.items():
            total.setdefault(way, {}).setdefault(key, 0)
            total[way][key] += value


def report(title: str, total: dict[str, dict[str, float]], tables: int) -> None:
    print(f"\n{title} ({tables} tables)")
    print(f"  {'':14} {'recall':>7} {'precision':>9} {'wrong':>6} {'wrong sure':>10} {'right flagged':>13}")
    for way in WAYS:
        c = total[way]
        if way == "each frame":  # five single-frame readings of every table: per table, on average
            c = {key: value / FRAMES for key, value in c.items()}
        recall = c["right"] / max(c["truth"], 1)
        precision = c["right"] / max(c["read"], 1)
        print(
            f"  {way:14} {recall:7.3f} {precision:9.3f} {c['wrong']:6g} {c['wrong_sure']:10g} "
            f"{c['right_flagged']:6g} / {c['right']:g}"
        )


def rendered_tables() -> dict[str, Callable[[np.ndarray, int], list[np.ndarray]]]:
    return {
        "noise and shake": lambda picture, seed: list(still_frames(picture, FRAMES, seed)),
        "light drifting 10 %": lambda picture, seed: list(still_frames(picture, FRAMES, seed, light_drift=0.1)),
        "a hand over the cards in frame 2": lambda picture, seed: list(
            still_frames(picture, FRAMES, seed, hand_at=(1, 1))
        ),
    }


def real_val_truth(image: Path) -> set[str]:
    codes = (REAL_VAL / "classes.txt").read_text().split()
    labels = REAL_VAL / "labels" / (image.stem + ".txt")
    return {codes[int(line.split()[0])] for line in labels.read_text().splitlines() if line.strip()}


def seconds_to_offers(count: int) -> list[tuple[float | None, int, bool]]:
    """Serve rendered videos to the app's table watcher: (seconds from the spreads appearing to the offer,
    cards offered, the offer's cards are the dealt ones)."""
    from web import create_app

    results = []
    for index in range(count):
        with tempfile.TemporaryDirectory() as folder:
            pictures = showdown_pictures(seed=100 + index)
            hand = None if index == 0 else (0.5, 1.5)
            video = write_showdown_video(
                Path(folder) / "table.avi", pictures, fps=5, empty_s=3, still_s=40, hand_at_s=hand
            )
            db = Path(folder) / "sheet.sqlite"
            app = create_app({"DATABASE": str(db), "CAMERA_SOURCE": str(video), "WATCH_TABLE": True})
            client = app.test_client()
            answer = client.post("/api/games", json={"players": ["Ann", "Bob"]}, headers={"X-Requested-With": "b"})
            assert answer.status_code in (200, 201), answer.data
            created = time.monotonic()
            offered, cards, right = None, 0, False
            while time.monotonic() - created < 60:
                with sqlite3.connect(db) as connection:
                    row = connection.execute("SELECT reading_json FROM photo WHERE source = 'camera'").fetchone()
                if row:
                    offered = time.monotonic() - created - 3.0  # the video shows the spreads after 3 s
                    reading = PhotoReading.from_json(json.loads(row[0]))
                    cards = len(reading.cards)
                    right = {card.card for card in reading.cards} == set(pictures.hands[0] + pictures.hands[1])
                    break
                time.sleep(0.2)
            app.extensions["table_watcher"].stop()
            results.append((offered, cards, right))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=8, help="rendered showdowns per condition (default 8)")
    parser.add_argument("--offers", type=int, default=3, help="videos served to the table watcher (default 3)")
    parser.add_argument("--real-val", type=Path, default=REAL_VAL, help="real-val folder (skipped when missing)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args()
    detector = load_detector()
    numbers: dict[str, object] = {}

    conditions = rendered_tables()
    totals: dict[str, dict[str, dict[str, int]]] = {condition: {} for condition in conditions}
    for seed in range(args.seeds):
        pictures = showdown_pictures(seed, deck=HELD_OUT_DECKS[seed % len(HELD_OUT_DECKS)])
        truth = set(pictures.hands[0] + pictures.hands[1])
        for condition, make_frames in conditions.items():
            add(totals[condition], read_table(detector, make_frames(pictures.showdown, seed), truth))
    for condition, total in totals.items():
        report(f"rendered showdowns of the held-out decks, {condition}", total, args.seeds)
        numbers[f"rendered: {condition}"] = total

    images = sorted((args.real_val / "images").glob("*.jpg")) if args.real_val.exists() else []
    if images:
        total: dict[str, dict[str, int]] = {}
        for seed, image in enumerate(images):
            picture = cv2.imread(str(image))
            height, width = picture.shape[:2]
            picture = cv2.resize(
                picture, (WEBCAM_WIDTH, round(height * WEBCAM_WIDTH / width)), interpolation=cv2.INTER_AREA
            )
            add(total, read_table(detector, list(still_frames(picture, FRAMES, seed)), real_val_truth(image)))
        report("real-val photos at 1920 px as camera frames (noise and shake)", total, len(images))
        numbers["real-val frames"] = total

    if args.offers:
        print("\nthe table watcher on rendered videos (3 s empty, then the still showdown):")
        offers = seconds_to_offers(args.offers)
        for index, (seconds, cards, right) in enumerate(offers):
            passing = "a hand passing over it" if index else "nothing moving"
            when = f"{seconds:.1f} s" if seconds is not None else "no offer in 60 s"
            print(f"  video {index + 1} ({passing}): offered after {when}, {cards} cards, all dealt cards: {right}")
        numbers["offers"] = offers
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
