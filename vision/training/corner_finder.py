"""The corner-index finder of card faces, and the PNG helpers of card art.

Finds the box of a face's printed corner index (rank and suit) by its ink, for the card art library
(``datasets/build_assets.py`` records every deck's index boxes in its deck.json) and for decks taught
from photos (``vision.training.teach_deck``).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

PALETTE_COLOURS = 256  # colours of a saved face PNG


def round_corners(image: np.ndarray, radius: int) -> np.ndarray:
    """Make an RGBA image transparent outside a rounded rectangle (anti-aliased)."""
    height, width = image.shape[:2]
    scale = 4  # draw large, shrink: smooth edge
    mask = np.zeros((height * scale, width * scale), np.uint8)
    r = radius * scale
    cv2.rectangle(mask, (r, 0), (width * scale - r - 1, height * scale - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width * scale - 1, height * scale - r - 1), 255, -1)
    for cx, cy in (
        (r, r),
        (width * scale - r - 1, r),
        (r, height * scale - r - 1),
        (width * scale - r - 1, height * scale - r - 1),
    ):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    mask = cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA)
    rounded = image.copy()
    rounded[:, :, 3] = (image[:, :, 3].astype(np.uint16) * mask // 255).astype(np.uint8)
    return rounded


def save_png(image: np.ndarray, path: Path) -> None:
    """Write an RGBA image as a small PNG (palette-quantised: pngquant when present, else Pillow)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), cv2.cvtColor(image, cv2.COLOR_RGBA2BGRA), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if shutil.which("pngquant"):
        subprocess.run(
            [
                "pngquant",
                "--force",
                "--skip-if-larger",
                "--speed",
                "1",
                "--output",
                str(path),
                str(PALETTE_COLOURS),
                "--",
                str(path),
            ],
            capture_output=True,
        )
    else:  # Pillow's own palette: a little coarser than pngquant, as small
        from PIL import Image

        with Image.open(path) as full:
            paletted = full.quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE)
        colours = paletted.getpalette("RGBA")
        assert colours is not None  # a quantized image always has a palette
        for alpha_at in range(3, len(colours), 4):  # the card stays opaque, the corners clear
            alpha = colours[alpha_at]
            colours[alpha_at] = 255 if alpha >= 248 else 0 if alpha <= 8 else alpha
        paletted.putpalette(colours, "RGBA")
        paletted.save(path, optimize=True)


# ------------------------------------------------------------------ corner indices
CORNER_FLIPS = {"tl": (False, False), "tr": (True, False), "bl": (False, True), "br": (True, True)}


def ink_mask(face: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Pixels that differ clearly from the card's paper colour, away from the card's outline.

    Returns the mask, the same mask with the strip along the card's edge (its printed outline,
    measured at mid-height of the left edge, plus a little) left out, and that strip's width.
    """
    rgb = face[:, :, :3].astype(np.int16)
    opaque = face[:, :, 3] > 200
    height, width = opaque.shape
    zone = opaque.copy()
    zone[height // 3 :, :] = False
    quantised = (rgb[zone] // 16).astype(np.int32)
    keys = quantised[:, 0] * 256 + quantised[:, 1] * 16 + quantised[:, 2]
    paper_key = np.bincount(keys).argmax()
    paper = rgb[zone][keys == paper_key].mean(axis=0)
    difference = np.abs(rgb - paper).max(axis=2)
    ink = difference > 70
    thicknesses = []
    for row in range(int(height * 0.4), int(height * 0.6), 4):
        columns = np.flatnonzero(opaque[row])
        if len(columns) == 0:
            continue
        run = 0
        for column in range(columns[0], min(columns[0] + width // 10, width)):
            if not ink[row, column]:
                break
            run += 1
        thicknesses.append(run)
    outline = int(np.median(thicknesses)) if thicknesses else 0
    border = max(2, round(width * 0.01), outline + 2)
    # keep clear of the card's outline: erode the card shape by `border` pixels
    inside = cv2.erode(opaque.astype(np.uint8), np.ones((2 * border + 1, 2 * border + 1), np.uint8))
    return ink, ink & inside.astype(bool), border


def find_corner_index(face: np.ndarray, options: dict) -> tuple[int, int, int, int] | None:
    """Box (pixels) of the rank + suit index nearest the top-left corner of an upright face.

    Ink near the corner is split into connected components. The rank is the tall-enough
    component nearest the corner, widened by the components beside it ("10"); the suit is the
    components right below the rank row. Options (per-deck overrides): zone_w/zone_h (corner
    area searched), max_w/max_h (largest index), min_glyph (smallest rank height), gap (largest
    rank-to-suit gap), all as fractions of the card (gap: of the rank height).
    """
    height, width = face.shape[:2]
    zone_w = round(width * options.get("zone_w", 0.30))
    zone_h = round(height * options.get("zone_h", 0.36))
    all_ink, ink, border = ink_mask(face)
    ink = ink[:zone_h, :zone_w].astype(np.uint8)
    split = options.get("erode", 0)  # px: parts the art touches the index glyphs
    if split:
        ink = cv2.erode(ink, np.ones((2 * split + 1, 2 * split + 1), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    max_w = width * options.get("max_w", 0.22)
    max_h = height * options.get("max_h", 0.30)
    parts = []
    for x, y, w, h, area in stats[1:count]:
        if area < 3 or w > max_w or h > max_h:
            continue
        if x + w >= zone_w or y + h >= zone_h:  # runs out of the zone: centre art
            continue
        parts.append((int(x), int(y), int(x + w), int(y + h)))
    # the rank glyph: tall enough, and not a sliver (shading along the card's edge)
    seeds = [
        p
        for p in parts
        if p[3] - p[1] >= height * options.get("min_glyph", 0.035) and p[2] - p[0] >= max(3, 0.12 * (p[3] - p[1]))
    ]
    if not seeds:
        return None
    seed = min(seeds, key=lambda p: p[0] + p[1])
    glyph_h = seed[3] - seed[1]
    box = list(seed)
    used = {seed}

    def fits(part: tuple[int, int, int, int]) -> bool:
        return (
            max(box[2], part[2]) - min(box[0], part[0]) <= max_w
            and max(box[3], part[3]) - min(box[1], part[1]) <= max_h
        )

    def add(part: tuple[int, int, int, int]) -> None:
        box[:] = [min(box[0], part[0]), min(box[1], part[1]), max(box[2], part[2]), max(box[3], part[3])]
        used.add(part)

    def grow(joins: Callable[[tuple[int, int, int, int]], bool]) -> None:  # add the parts that join, until none does
        grown = True
        while grown:
            grown = False
            for part in parts:
                if part not in used and fits(part) and joins(part):
                    add(part)
                    grown = True

    def in_rank_row(part: tuple[int, int, int, int]) -> bool:  # beside the rank glyph, overlapping it ("10")
        overlap = min(part[3], seed[3]) - max(part[1], seed[1])
        gap_x = max(part[0] - box[2], box[0] - part[2], 0)
        inside = part[0] >= box[0] and part[2] <= box[2] and part[1] >= box[1] and part[3] <= box[3]
        return inside or (overlap >= 0.5 * min(part[3] - part[1], glyph_h) and gap_x <= 0.35 * glyph_h)

    grow(in_rank_row)
    row_x0, row_x1 = box[0], box[2]
    gap = options.get("gap", 0.45) * glyph_h

    def under_rank_row(part: tuple[int, int, int, int]) -> bool:  # the suit: below the rank row, centred under it
        centre_x = (part[0] + part[2]) / 2
        below = part[1] >= seed[1] + 0.5 * glyph_h
        centred = abs(centre_x - (row_x0 + row_x1) / 2) <= 0.3 * (row_x1 - row_x0) + 0.2 * glyph_h
        return below and centred and max(part[1] - box[3], 0) <= gap

    grow(under_rank_row)
    x0, y0, x1, y1 = box[0] - split, box[1] - split, box[2] + split, box[3] + split
    # a glyph cut by the ignored outline strip continues to the card's edge
    if x0 <= border + 1 or (x0 > 0 and all_ink[max(y0, 0) : y1, x0 - 1].any()):
        x0 = 0
    if y0 <= border + 1 or (y0 > 0 and all_ink[y0 - 1, max(x0, 0) : x1].any()):
        y0 = 0
    return x0, y0, x1, y1


def local_view(face: np.ndarray, corner: str) -> np.ndarray:
    """The face flipped so that `corner` is its top-left (an index reads top-down from there)."""
    flip_x, flip_y = CORNER_FLIPS[corner]
    return np.ascontiguousarray(face[:: -1 if flip_y else 1, :: -1 if flip_x else 1])


def to_face_box(box: tuple[int, int, int, int], corner: str, width: int, height: int) -> tuple[int, int, int, int]:
    """Map a box found in local_view(face, corner) back to face pixels."""
    x0, y0, x1, y1 = box
    flip_x, flip_y = CORNER_FLIPS[corner]
    if flip_x:
        x0, x1 = width - x1, width - x0
    if flip_y:
        y0, y1 = height - y1, height - y0
    return x0, y0, x1, y1


def find_deck_indices(
    faces: dict[str, np.ndarray], corners: tuple[str, ...], options: dict, margin: int = 2
) -> dict[str, list[tuple[int, int, int, int]]]:
    """Pixel boxes of every face's corner indices, one per printed corner.

    Corners are "tl", "tr", "bl", "br", or "top": a rank printed top-left with its suit
    top-right (one box over both). A box much shorter than the deck's usual index (the suit
    merged into the picture and was dropped) is extended to the usual height, since the index
    layout is the same on every face of a deck.
    """
    local: dict[str, dict[str, tuple[int, int, int, int] | None]] = {}
    for code, face in faces.items():
        local[code] = {}
        for corner in corners:
            if corner == "top":
                left = find_corner_index(local_view(face, "tl"), options)
                right = find_corner_index(local_view(face, "tr"), options)
                if left and right:
                    x0, y0, x1, y1 = to_face_box(right, "tr", face.shape[1], face.shape[0])
                    local[code][corner] = (left[0], min(left[1], y0), x1, max(left[3], y1))
                else:
                    local[code][corner] = None
            else:
                local[code][corner] = find_corner_index(local_view(face, corner), options)
    boxes: dict[str, list[tuple[int, int, int, int]]] = {code: [] for code in faces}
    for corner in corners:
        found = [b for b in (local[code][corner] for code in faces) if b]
        usual_height = np.median([b[3] - b[1] for b in found]) if found else 0
        for code, face in faces.items():
            box = local[code][corner]
            # the same rank of the other suits sits at the same place: a box far from theirs
            # (glyph merged into the art) or a missing one is replaced by theirs
            mates = [m for m in (local[c][corner] for c in faces if c[0] == code[0] and c != code) if m]
            if len(mates) >= 2:
                rx0, ry0, rx1, ry1 = (int(v) for v in np.median(np.array(mates), axis=0))
                reference = (rx0, ry0, rx1, ry1)
                tolerance = 0.25 * (reference[3] - reference[1])
                if box is None or abs(box[0] - reference[0]) > tolerance or abs(box[1] - reference[1]) > tolerance:
                    box = reference
            if box is None:
                continue
            x0, y0, x1, y1 = box
            if corner != "top" and y1 - y0 < 0.8 * usual_height:
                y1 = y0 + int(round(usual_height))
            height, width = face.shape[:2]
            if corner != "top":
                x0, y0, x1, y1 = to_face_box((x0, y0, x1, y1), corner, width, height)
            boxes[code].append(
                (max(0, x0 - margin), max(0, y0 - margin), min(width, x1 + margin), min(height, y1 + margin))
            )
    return boxes
