"""``ginscore deck add NAME PHOTOS...``: teach the reader the players' own deck from photos of its cards.

1. Each photo is either an already straightened face (the card fills a card-shaped image) or cards
   lying apart on a table (one card, or rows of cards, not overlapping). The card outlines are found
   (bright paper against the table: an Otsu mask and an edge map, card-shaped four-sided contours)
   and each card is straightened to an upright face, 340 px high like the library's.
2. The current reader names each face: ``vision.training.corner_finder`` boxes its two
   corner indices and the classifier reads them; faces and cards are then matched one to one (a
   deck holds each card once).
3. The user confirms or corrects every name (or ``--yes`` accepts the reader's).
4. The faces are written as a deck in the ``datasets/decks`` format (52 RGBA PNGs with rounded
   corners + ``deck.json`` with the index boxes found by the same corner finder) into
   ``instance/decks/NAME``; ``ginscore synth --deck NAME`` renders scenes with it and
   ``ginscore retrain`` mixes it into its scenes. A deck can be taught in several runs (faces of the
   same name are replaced); it is used once it has all 52 faces.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Set
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.cards import CARD_CODES
from vision.decode import decode_image
from vision.detections import canonical_code
from vision.detector import load_detector
from vision.reading import ImageError
from vision.training.corner_finder import (
    find_corner_index,
    find_deck_indices,
    local_view,
    round_corners,
    save_png,
    to_face_box,
)
from vision.training.userdata import check_deck_name, find_deck_folder, user_decks_dir

FACE_HEIGHT = 340  # px, like the card art's faces (datasets/build_assets.py CARD_HEIGHT)
CARD_RATIO = 63 / 88  # width / height of a poker card
RATIO_RANGE = (0.5, 0.9)  # short / long side of what may be a card (a face photo, an outline)
MIN_CARD_AREA = 0.004  # of the photo: smaller outlines are not cards
FACE_FILL = 0.6  # a card-shaped photo whose largest outline covers more is one face
FACE_DETAIL = 0.02  # ... or whose outlines are all smaller and in its corners (index glyphs)
DETECT_SIDE = 1200  # outlines are searched at this long side
CORNERS = ("tl", "br")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif", ".bmp")


# ------------------------------------------------------------------ finding and straightening cards


@dataclass(frozen=True, eq=False)
class FoundCard:
    """One straightened card: its face (BGR, upright portrait), where it came from."""

    face: np.ndarray
    photo: str
    number: int  # 1-based, in reading order within its photo
    quad: np.ndarray | None = None  # the outline in the photo (None: the photo was the face)

    @property
    def label(self) -> str:
        return f"{Path(self.photo).name} card {self.number}" if self.quad is not None else Path(self.photo).name


def _order_quad(points: np.ndarray) -> np.ndarray:
    """Four points as top-left, top-right, bottom-right, bottom-left of an upright (portrait) card."""
    points = np.asarray(points, dtype=np.float32).reshape(4, 2)
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise in image coordinates, starting anywhere
    start = int(np.argmin(ordered.sum(axis=1)))  # the top-left-most point
    ordered = np.roll(ordered, -start, axis=0)
    top = np.linalg.norm(ordered[1] - ordered[0])
    side = np.linalg.norm(ordered[3] - ordered[0])
    if top > side:  # lying sideways: make it portrait
        ordered = np.roll(ordered, -1, axis=0)
    return ordered


def straighten(pixels: np.ndarray, quad: np.ndarray, height: int = FACE_HEIGHT) -> np.ndarray:
    """The card inside ``quad`` warped to an upright face ``height`` px high (its own proportions)."""
    import cv2

    tl, tr, br, bl = _order_quad(quad)
    width_px = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    height_px = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    ratio = float(np.clip(width_px / max(float(height_px), 1.0), *RATIO_RANGE))
    width = int(round(height * ratio))
    target = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(np.array([tl, tr, br, bl], dtype=np.float32), target)
    return cv2.warpPerspective(pixels, matrix, (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def _card_quads(mask: np.ndarray, min_area: float) -> list[tuple[np.ndarray, float]]:
    """Card-shaped four-sided outlines of a binary mask: (quad, area)."""
    import cv2

    height, width = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area or area > 0.97 * width * height:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
        if min(rw, rh) < 1 or not RATIO_RANGE[0] <= min(rw, rh) / max(rw, rh) <= RATIO_RANGE[1]:
            continue
        if area / (rw * rh) < 0.85:  # not a filled rectangle (rounded corners lose ~2 %)
            continue
        hull = cv2.convexHull(contour)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        quad = approx.reshape(-1, 2) if len(approx) == 4 else cv2.boxPoints(((cx, cy), (rw, rh), angle))
        found.append((np.asarray(quad, dtype=np.float32), float(area)))
    return found


def find_card_outlines(pixels: np.ndarray) -> list[np.ndarray]:
    """The outlines (4 x 2 points, photo pixels) of the cards lying apart in a photo, in reading order."""
    import cv2

    scale = min(1.0, DETECT_SIDE / max(pixels.shape[:2]))
    small = cv2.resize(pixels, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else pixels
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    height, width = gray.shape
    min_area = MIN_CARD_AREA * width * height
    kernel = np.ones((5, 5), np.uint8)
    _, bright = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(cv2.morphologyEx(bright, cv2.MORPH_OPEN, kernel), cv2.MORPH_CLOSE, kernel)
    edges = cv2.dilate(cv2.Canny(gray, 40, 120), np.ones((3, 3), np.uint8), iterations=2)
    filled = np.zeros_like(edges)
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 255, thickness=cv2.FILLED)
    filled = cv2.erode(filled, np.ones((3, 3), np.uint8), iterations=2)  # undo the dilation
    hsv = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2HSV)
    paper: np.ndarray = ((hsv[..., 1] < 60) & (hsv[..., 2] > 150)).astype(np.uint8) * 255  # white card stock
    paper = cv2.morphologyEx(cv2.morphologyEx(paper, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel)
    candidates = _card_quads(bright, min_area) + _card_quads(filled, min_area) + _card_quads(paper, min_area)

    def inside(point: np.ndarray, quad: np.ndarray) -> bool:
        return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), tuple(float(v) for v in point), False) >= 0

    centres = [quad.mean(axis=0) for quad, _ in candidates]
    # an outline around two or more others is a region of the table (a cloth, a tray), not a card
    candidates = [
        (quad, area)
        for quad, area in candidates
        if sum(inside(c, quad) and a < 0.5 * area for c, (_, a) in zip(centres, candidates, strict=True)) < 2
    ]
    kept: list[tuple[np.ndarray, float]] = []
    for quad, area in sorted(candidates, key=lambda item: -item[1]):
        if any(inside(quad.mean(axis=0), other) for other, _ in kept):
            continue  # the same card seen twice, or a glyph on a card
        kept.append((quad, area))
    quads = [quad / scale for quad, _ in kept]
    if not quads:
        return []
    # reading order: rows (by centre y, a row being within half a card's height), then x
    card_height = float(np.median([max(np.ptp(q[:, 0]), np.ptp(q[:, 1])) for q in quads]))
    centres = [q.mean(axis=0) for q in quads]
    order = sorted(range(len(quads)), key=lambda i: (centres[i][1], centres[i][0]))
    rows: list[list[int]] = []
    for i in order:
        if rows and abs(centres[i][1] - np.mean([centres[j][1] for j in rows[-1]])) < card_height / 2:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [quads[i] for row in rows for i in sorted(row, key=lambda k: centres[k][0])]


def is_single_face(pixels: np.ndarray, outlines: list[np.ndarray]) -> bool:
    """Whether a photo is itself one straightened face: card-shaped, and no smaller card in it."""
    import cv2

    height, width = pixels.shape[:2]
    if not RATIO_RANGE[0] <= min(height, width) / max(height, width) <= RATIO_RANGE[1]:
        return False
    if not outlines:
        return True
    areas = [cv2.contourArea(q.reshape(-1, 1, 2)) for q in outlines]
    if max(areas) > FACE_FILL * width * height:
        return True
    centres = np.array([q.mean(axis=0) for q in outlines])
    in_corners = (np.minimum(centres[:, 0], width - centres[:, 0]) < 0.25 * width) & (
        np.minimum(centres[:, 1], height - centres[:, 1]) < 0.2 * height
    )
    return bool(in_corners.all()) and max(areas) < FACE_DETAIL * width * height


def cards_in_photo(path: Path | str, faces_only: bool = False) -> list[FoundCard]:
    """The straightened cards of one photo (the photo itself when it is one face); ImageError if unreadable."""
    import cv2

    pixels = decode_image(path, max_side=4096, name=str(path)).pixels
    outlines = [] if faces_only else find_card_outlines(pixels)
    if faces_only or is_single_face(pixels, outlines):
        face = pixels if pixels.shape[0] >= pixels.shape[1] else cv2.rotate(pixels, cv2.ROTATE_90_CLOCKWISE)
        face = cv2.resize(
            face, (int(round(FACE_HEIGHT * face.shape[1] / face.shape[0])), FACE_HEIGHT), interpolation=cv2.INTER_AREA
        )
        return [FoundCard(face, str(path), 1)]
    return [FoundCard(straighten(pixels, quad), str(path), number, quad) for number, quad in enumerate(outlines, 1)]


def to_rgba_face(face_bgr: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A BGR face as the library stores it: RGBA of ``size`` (width, height), corners rounded off."""
    import cv2

    width, height = size
    if face_bgr.shape[:2] != (height, width):
        face_bgr = cv2.resize(face_bgr, (width, height), interpolation=cv2.INTER_AREA)
    rgba = cv2.cvtColor(face_bgr, cv2.COLOR_BGR2RGBA)
    return round_corners(rgba, radius=max(2, round(0.05 * width)))


# ------------------------------------------------------------------ naming faces with the reader


@dataclass(frozen=True)
class Naming:
    """The reader's names for a face: its likeliest cards, best first, with probabilities."""

    codes: tuple[str, ...]
    probabilities: tuple[float, ...]

    @property
    def best(self) -> str | None:
        return self.codes[0] if self.codes else None


def index_boxes_of(face_rgba: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The corner-index boxes (face pixels) the corner finder sees on one face, top-left and bottom-right."""
    height, width = face_rgba.shape[:2]
    boxes = []
    for corner in CORNERS:
        box = find_corner_index(local_view(face_rgba, corner), {})
        if box is not None:
            boxes.append(to_face_box(box, corner, width, height))
    return boxes


def read_face(detector, face_bgr: np.ndarray) -> dict[str, float]:
    """Card probabilities (code -> probability, the likeliest few) of one straightened face."""
    import cv2

    rgba = cv2.cvtColor(face_bgr, cv2.COLOR_BGR2RGBA)
    boxes = index_boxes_of(rgba)
    scores: dict[str, float] = {}
    if boxes and detector.layout == "index detector + classifier":
        ids, probabilities = detector.read_boxes(face_bgr, np.array(boxes, dtype=np.float64))
        for row_ids, row_p in zip(ids, probabilities, strict=True):
            for card_id, p in zip(row_ids.tolist(), row_p.tolist(), strict=True):
                code = CARD_CODES[card_id]
                scores[code] = scores.get(code, 0.0) + p / len(boxes)
    if not scores or max(scores.values()) < 0.3:
        # the corner finder missed: let the detector find the indices on the face, padded onto a table
        pad = face_bgr.shape[0] // 3
        canvas = cv2.copyMakeBorder(face_bgr, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(60, 90, 50))
        found = detector.detect(canvas, imgsz=640, conf=0.05)
        for card_id, confidence in zip(found.class_id.tolist(), found.confidence.tolist(), strict=True):
            code = CARD_CODES[card_id]
            scores[code] = max(scores.get(code, 0.0), float(confidence))
    return scores


def name_faces(detector, faces: list[np.ndarray], taken: Set[str] = frozenset()) -> list[Naming]:
    """The reader's names for faces of one deck, matched one to one (no card twice, none of ``taken``)."""
    from scipy.optimize import linear_sum_assignment

    readings = [read_face(detector, face) for face in faces]
    free = [code for code in CARD_CODES if code not in taken]
    if not readings or not free:
        return [Naming((), ()) for _ in faces]
    matrix = np.array([[reading.get(code, 0.0) for code in free] for reading in readings])
    rows, columns = linear_sum_assignment(-np.log(matrix + 1e-6))
    assigned = {int(r): free[int(c)] for r, c in zip(rows, columns, strict=True)}
    namings = []
    for i, reading in enumerate(readings):
        ranked = sorted(reading, key=lambda code: -reading[code])
        first = assigned.get(i)
        codes = ([first] if first else []) + [code for code in ranked if code != first]
        namings.append(Naming(tuple(codes[:5]), tuple(round(reading.get(code, 0.0), 3) for code in codes[:5])))
    return namings


# ------------------------------------------------------------------ asking the user


def confirm_names(
    cards: list[FoundCard],
    namings: list[Naming],
    ask: Callable[[str], str] | None,
    taken: Set[str] = frozenset(),
    out=None,
) -> dict[int, str]:
    """Face number -> card code, confirmed or corrected by the user (``ask`` None: accept the reader's).

    At each prompt: Enter accepts the reader's name, a card code (``Th``, ``10h``) corrects it, ``-``
    leaves the face out. A code given twice is asked again."""

    out = out or sys.stdout
    chosen: dict[int, str] = {}
    for i, (card, naming) in enumerate(zip(cards, namings, strict=True)):
        suggestion = naming.best
        if ask is None:
            if suggestion is not None and suggestion not in chosen.values():
                chosen[i] = suggestion
            continue
        others = ", ".join(f"{c} {p:.2f}" for c, p in zip(naming.codes[1:4], naming.probabilities[1:4], strict=True))
        said = (
            f"reads {suggestion} ({naming.probabilities[0]:.2f})" + (f"; else {others}" if others else "")
            if suggestion
            else "could not read it"
        )
        while True:
            answer = ask(
                f"[{i + 1}/{len(cards)}] {card.label}: {said}. Enter = "
                f"{suggestion or 'skip'}, or type the card (e.g. Th), '-' to leave it out: "
            ).strip()
            if answer == "-" or (not answer and suggestion is None):
                break
            try:
                code = suggestion if not answer else canonical_code(answer)
            except ValueError as error:
                print(f"  {error}", file=out)
                continue
            assert code is not None  # an empty answer without a suggestion left the loop above
            if code in chosen.values():
                print(f"  {code} is already given to another face; type another card or '-'", file=out)
                continue
            chosen[i] = code
            break
    return chosen


def stdin_ask(prompt: str) -> str:
    """One answer from the terminal (EOFError when there is no one to answer)."""
    return input(prompt)


# ------------------------------------------------------------------ writing the deck


def _read_face_png(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA")).copy()


def write_deck(folder: Path, name: str, faces: dict[str, np.ndarray], sources: dict[str, str]) -> dict:
    """Add RGBA faces (code -> face) to a taught deck folder; (re)write its deck.json; return the json."""
    folder.mkdir(parents=True, exist_ok=True)
    meta_path = folder / "deck.json"
    old = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    for code, face in faces.items():
        save_png(face, folder / f"{code}.png")
    present = {
        code: _read_face_png(folder / f"{code}.png") for code in CARD_CODES if (folder / f"{code}.png").is_file()
    }
    boxes = find_deck_indices(present, CORNERS, {})
    regions = {}
    for code, face in present.items():
        height, width = face.shape[:2]
        regions[code] = [
            [round(x0 / width, 4), round(y0 / height, 4), round(x1 / width, 4), round(y1 / height, 4)]
            for x0, y0, x1, y1 in boxes[code]
        ]
    photo_of = {**old.get("photos", {}), **sources}
    meta = {
        "name": name,
        "source": "photographs of the players' own cards (ginscore deck add)",
        "license": "the players' own photos; not for redistribution",
        "split": "train",
        "taught": True,
        "faces": len(present),
        "missing": [code for code in CARD_CODES if code not in present],
        "updated": time.strftime("%Y-%m-%d %H:%M"),
        "corners": list(CORNERS),
        "index_regions": regions,
        "photos": {code: photo_of[code] for code in CARD_CODES if code in photo_of and code in present},
    }
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def deck_face_size(folder: Path, new_faces: list[np.ndarray]) -> tuple[int, int]:
    """(width, height) every face of a deck gets: the existing faces' size, else the new faces' median."""
    existing = sorted(folder.glob("*.png")) if folder.is_dir() else []
    for path in existing:
        if path.stem in CARD_CODES:
            face = _read_face_png(path)
            return face.shape[1], face.shape[0]
    widths = [face.shape[1] * FACE_HEIGHT / face.shape[0] for face in new_faces]
    return int(round(np.median(widths))) if widths else int(round(FACE_HEIGHT * CARD_RATIO)), FACE_HEIGHT


def complete_deck_folder(
    name: str, instance: Path | str | None = None, datasets_root: Path | str | None = None
) -> Path:
    """The folder of a deck with all 52 faces (taught or from the library); a clear error otherwise."""
    folder = find_deck_folder(name, instance, datasets_root)
    missing = [code for code in CARD_CODES if not (folder / f"{code}.png").is_file()]
    if missing:
        raise ValueError(
            f"deck {name!r} has {52 - len(missing)} of 52 faces (missing {' '.join(missing[:8])}"
            f"{' ...' if len(missing) > 8 else ''}); add them with 'ginscore deck add {name} PHOTOS...'"
        )
    return folder


def list_taught_decks(instance: Path | str | None = None) -> list[dict]:
    """The taught decks of an instance folder: name, faces, missing cards, when updated."""
    root = user_decks_dir(instance)
    decks = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        meta_path = folder / "deck.json"
        if not meta_path.is_file():
            continue
        try:
            meta = json.loads(meta_path.read_text())
        except json.JSONDecodeError:
            continue
        faces = sum((folder / f"{code}.png").is_file() for code in CARD_CODES)
        decks.append(
            {
                "name": folder.name,
                "faces": faces,
                "complete": faces == 52,
                "folder": str(folder),
                "missing": [c for c in CARD_CODES if not (folder / f"{c}.png").is_file()],
                "updated": meta.get("updated", ""),
            }
        )
    return decks


def write_preview(folder: Path, columns: int = 13) -> Path:
    """``preview.png`` in the deck folder: every face with its name and index boxes, to check by eye."""
    import cv2

    meta = json.loads((folder / "deck.json").read_text())
    tiles = []
    for code in CARD_CODES:
        path = folder / f"{code}.png"
        tile = np.full((190, 130, 3), 40, np.uint8)
        if path.is_file():
            face = cv2.cvtColor(_read_face_png(path), cv2.COLOR_RGBA2BGR)
            height, width = face.shape[:2]
            scale = 170 / height
            small = cv2.resize(face, (int(width * scale), 170), interpolation=cv2.INTER_AREA)
            for x0, y0, x1, y1 in meta["index_regions"].get(code, []):
                cv2.rectangle(
                    small,
                    (int(x0 * small.shape[1]), int(y0 * 170)),
                    (int(x1 * small.shape[1]) - 1, int(y1 * 170) - 1),
                    (0, 200, 255),
                    1,
                )
            tile[:170, : min(130, small.shape[1])] = small[:, :130]
        cv2.putText(tile, code, (4, 186), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(tile)
    rows = [np.hstack(tiles[r : r + columns]) for r in range(0, len(tiles), columns)]
    path = folder / "preview.png"
    cv2.imwrite(str(path), np.vstack(rows))
    return path


def teach_deck(
    name: str,
    photos: list[Path],
    *,
    instance: Path | str | None = None,
    detector=None,
    ask: Callable[[str], str] | None = None,
    faces_only: bool = False,
    out=None,
    models: Path | str | None = None,
) -> dict:
    """Find, straighten, name (reader + user) and store the cards of ``photos`` in taught deck ``name``
    (``detector``: the reader, else the one in ``models``, else the installed one)."""

    check_deck_name(name)
    out = out or sys.stdout
    folder = user_decks_dir(instance) / name
    if not photos:
        raise ValueError("give at least one photo of the cards")
    cards: list[FoundCard] = []
    unreadable = []
    files = 0
    for photo in photos:
        photo = Path(photo)
        if photo.is_dir():
            inner = sorted(p for p in photo.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not inner:
                raise FileNotFoundError(f"{photo} holds no photos ({', '.join(IMAGE_SUFFIXES)})")
        else:
            inner = [photo]
        for path in inner:
            files += 1
            if not path.exists():
                raise FileNotFoundError(f"{path}: no such photo")
            try:
                found = cards_in_photo(path, faces_only)
            except ImageError as error:
                unreadable.append(f"{path}: {error}")
                continue
            if not found:
                print(
                    f"{path}: no card outline found; lay the cards apart on a plain, darker surface, or give "
                    f"already straightened faces (--faces)",
                    file=out,
                )
            cards.extend(found)
    for message in unreadable:
        print(message, file=out)
    if not cards:
        raise ValueError(
            "no cards found in the photos; lay the cards apart (not overlapping) on a plain, darker "
            "surface and photograph them from above, or give straightened faces with --faces"
        )
    print(
        f"found {len(cards)} card{'s' if len(cards) != 1 else ''} in {files} "
        f"photo{'s' if files != 1 else ''}; naming them with the current reader...",
        file=out,
    )
    detector = detector or load_detector(models)
    namings = name_faces(detector, [card.face for card in cards])
    chosen = confirm_names(cards, namings, ask, out=out)
    if not chosen:
        raise ValueError("no face was named; nothing written")
    size = deck_face_size(folder, [cards[i].face for i in chosen])
    faces = {code: to_rgba_face(cards[i].face, size) for i, code in chosen.items()}
    sources = {code: cards[i].label for i, code in chosen.items()}
    meta = write_deck(folder, name, faces, sources)
    preview = write_preview(folder)
    reader_right = sum(namings[i].best == code for i, code in chosen.items())
    return {
        "deck": name,
        "folder": str(folder),
        "added": len(faces),
        "faces": meta["faces"],
        "missing": meta["missing"],
        "reader_agreed": reader_right,
        "preview": str(preview),
        "left_out": len(cards) - len(chosen),
    }


# ------------------------------------------------------------------ command line


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "deck",
        help="teach the reader your own deck from photos of its cards",
        description="Teach the reader the players' own deck: 'ginscore deck add NAME PHOTOS...' finds the "
        "cards in the photos, straightens them, names them with the current reader and asks you "
        "to confirm; the deck then renders synthetic scenes ('ginscore synth --deck NAME') and "
        "'ginscore retrain' learns from it.",
    )
    actions = parser.add_subparsers(dest="deck_action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add",
        help="add cards to a taught deck from photos",
        description="Photos: single cards or rows of cards lying apart on a table, "
        "or already straightened faces (a folder of them works too).",
    )
    add.add_argument("name", help="the deck's name (letters, digits, _ and -)")
    add.add_argument("photos", nargs="+", type=Path, metavar="PHOTO")
    add.add_argument("--yes", action="store_true", help="accept the reader's names without asking")
    add.add_argument("--faces", action="store_true", help="every photo is one already straightened face")
    add.add_argument("--models", type=Path, default=None, help="models folder of the reader (default: models/)")
    add.add_argument(
        "--instance", type=Path, default=None, help="instance folder (default: $GINSCORE_INSTANCE or instance/)"
    )
    add.set_defaults(run=run_deck_add)
    listing = actions.add_parser("list", help="list the taught decks")
    listing.add_argument("--instance", type=Path, default=None)
    listing.set_defaults(run=run_deck_list)


def run_deck_add(args: argparse.Namespace) -> int:
    check_deck_name(args.name)
    ask = None if args.yes else stdin_ask
    try:
        result = teach_deck(
            args.name, args.photos, instance=args.instance, models=args.models, ask=ask, faces_only=args.faces
        )
    except EOFError:
        raise ValueError(
            "no answer to the question (input ended); run it in a terminal, or add --yes to accept the reader's names"
        ) from None
    print(
        f"deck {result['deck']}: {result['added']} face{'s' if result['added'] != 1 else ''} written "
        f"({result['reader_agreed']} as the reader named them), {result['faces']}/52 faces -> {result['folder']}"
    )
    print(f"check the faces and their index boxes: {result['preview']}")
    if result["missing"]:
        print(f"missing: {' '.join(result['missing'])}; add them with 'ginscore deck add {args.name} PHOTOS...'")
    else:
        print(f"complete: 'ginscore synth --deck {args.name}' renders scenes with it; 'ginscore retrain' learns it")
    return 0


def run_deck_list(args: argparse.Namespace) -> int:
    decks = list_taught_decks(args.instance)
    if not decks:
        print(f"no taught decks in {user_decks_dir(args.instance)}; teach one with 'ginscore deck add NAME PHOTOS...'")
        return 0
    for deck in decks:
        state = (
            "complete"
            if deck["complete"]
            else f"missing {' '.join(deck['missing'][:8])}{' ...' if len(deck['missing']) > 8 else ''}"
        )
        print(f"{deck['name']:24s} {deck['faces']:2d}/52 faces  {state}  ({deck['updated']})")
    return 0
