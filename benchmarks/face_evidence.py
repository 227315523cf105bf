"""Can a card's face (its pip count, or a picture) check its index? Session 17's measurement (not shipped).

    python3 benchmarks/face_evidence.py art [--width 100]      # the face counter on every deck's art
    python3 benchmarks/face_evidence.py scenes SCENES...       # on rendered scenes, through the product

The face of a card read at its two opposite corners is taken as the field between the corners' centres (the
card's axis from the corners' offset and the decks' mean angle, 51 degrees), warped to 64 x 96 px; ink is what
differs from the paper by more than Otsu's level (at least 45); the connected blobs of about one size are its
pips. ``art`` reads each deck's faces with their own index boxes (``deck.json``), so it measures the counter
alone; ``scenes`` reads rendered scenes through the product and counts, for right and wrong cards, whether the
face could be read (two corners, no other index on the face) and whether it agrees with the index.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

RANKS = "A23456789TJQK"
CORNER_ANGLE = 51.0  # degrees between a card's x axis and the line from one index centre to the other


def face_field(image: np.ndarray, p, q, out=(64, 96), u=(0.14, 0.86), v=(-0.06, 1.06)) -> np.ndarray:
    """The pip field between index centres ``p`` and ``q`` (image pixels), upright, ``out`` pixels."""
    import cv2

    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    d = q - p
    angle = np.arctan2(d[1], d[0]) - np.radians(CORNER_ANGLE)
    e1, e2 = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])
    along, across = d @ e1, d @ e2

    def at(a: float, b: float) -> np.ndarray:
        return p + a * along * e1 + b * across * e2

    source = np.float32([at(u[0], v[0]), at(u[1], v[0]), at(u[0], v[1])])
    target = np.float32([[0, 0], [out[0], 0], [0, out[1]]])
    matrix = cv2.getAffineTransform(source, target)
    return cv2.warpAffine(image, matrix, out, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def read_face(field: np.ndarray) -> tuple[str, int]:
    """("pips", n) for n from 2 to 10 blobs of about one size, ("picture", 0), or ("unclear", 0)."""
    import cv2

    pixels = field.astype(np.float32)
    brightness = pixels.mean(axis=2)
    paper = np.array([np.median(pixels[..., c][brightness >= np.percentile(brightness, 60)]) for c in range(3)])
    distance = np.clip(np.abs(pixels - paper).max(axis=2), 0, 255).astype(np.uint8)
    level, _ = cv2.threshold(distance, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ink = (distance > max(level, 45)).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    total, coverage = ink.size, float(ink.mean())
    blobs = areas[areas >= 0.002 * total]
    if len(blobs) == 0:
        return "unclear", 0
    if blobs.max() > 0.08 * total or (coverage > 0.15 and len(blobs) == 1):
        return "picture", 0
    one = float(np.median(blobs))
    pips = blobs[(blobs >= 0.35 * one) & (blobs <= 3.5 * one)]
    count = int(sum(max(1, round(a / one)) for a in pips))
    other = float(blobs.sum() - pips.sum() + areas[areas < 0.002 * total].sum())
    if other < 0.6 * one and 2 <= count <= 10 and len(pips) >= 0.6 * count:
        return "pips", count
    return ("picture", 0) if coverage > 0.15 else ("unclear", 0)


def verdict(code: str, kind: str, pips: int) -> str:
    """Whether a face agrees with the index read as ``code`` ("agree", "disagree", "unclear" or "ace")."""
    rank = code[0]
    if rank == "A":
        return "ace"
    if kind == "unclear":
        return "unclear"
    if rank in "JQK":
        return "disagree" if kind == "pips" else "agree"
    return "agree" if kind == "pips" and pips == RANKS.index(rank) + 1 else "disagree"


def on_art(width: int) -> None:
    import cv2

    outcomes: Counter[str] = Counter()
    for deck_file in sorted((REPO / "datasets" / "decks").glob("*/deck.json")):
        regions = json.loads(deck_file.read_text())["index_regions"]
        for code, boxes in regions.items():
            face = cv2.imread(str(deck_file.parent / f"{code}.png"), cv2.IMREAD_UNCHANGED)
            if face is None or len(boxes) < 2:
                continue
            if face.shape[2] == 4:
                alpha = face[..., 3:4] / 255.0
                face = (face[..., :3] * alpha + 200 * (1 - alpha)).astype(np.uint8)
            face = cv2.resize(face, (width, round(face.shape[0] * width / face.shape[1])), interpolation=cv2.INTER_AREA)
            height = face.shape[0]
            centres = [((b[0] + b[2]) / 2 * width, (b[1] + b[3]) / 2 * height) for b in boxes]
            p, q = min(centres, key=sum), max(centres, key=sum)
            outcomes[verdict(code, *read_face(face_field(face, p, q)))] += 1
    print(f"deck art at {width} px wide: {dict(outcomes)}")


def on_scenes(folders: list[Path]) -> None:
    import cv2

    from vision.detector import load_detector
    from vision.evaluation.calibration import scene_images, scene_label_codes, scene_truth
    from vision.recognise import recognise

    detector = load_detector()
    outcomes: Counter[tuple[str, str]] = Counter()
    for folder in folders:
        codes = scene_label_codes(folder)
        for image_path in scene_images(folder):
            image = cv2.imread(str(image_path))
            truth = scene_truth(image_path, codes, (image.shape[1], image.shape[0]))
            reading = recognise(image, detector=detector).reading
            centres = [
                (i, np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]))
                for i, c in enumerate(reading.cards)
                for b in c.boxes
            ]
            for i, card in enumerate(reading.cards):
                outcomes[
                    (
                        "right" if truth.is_right(card) else "wrong",
                        face_of(card, image, [c for j, c in centres if j != i]),
                    )
                ] += 1
    for key in sorted(outcomes):
        print(key, outcomes[key])


def face_of(card, image: np.ndarray, others: list[np.ndarray]) -> str:
    """The face's verdict on a card read at two opposite corners with no other index on its face."""
    if len(card.boxes) != 2:
        return "one corner"
    p, q = (np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]) for b in card.boxes)
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in card.boxes]
    d = q - p
    apart = np.linalg.norm(d) / np.mean(sides)
    if not 1.5 <= apart <= 6.5 or max(sides) / min(sides) > 1.5 or min(abs(d[0]), abs(d[1])) < 0.25 * np.linalg.norm(d):
        return "not opposite corners"
    angle = np.arctan2(d[1], d[0]) - np.radians(CORNER_ANGLE)
    e1, e2 = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])
    for other in others:
        a, b = ((other - p) @ e1) / (d @ e1), ((other - p) @ e2) / (d @ e2)
        if -0.25 <= a <= 1.25 and -0.25 <= b <= 1.25:
            return "face covered"
    return verdict(card.card, *read_face(face_field(image, p, q)))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "art":
        on_art(int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--width" else 100)
    elif len(sys.argv) >= 3 and sys.argv[1] == "scenes":
        on_scenes([Path(p) for p in sys.argv[2:]])
    else:
        raise SystemExit(__doc__)
