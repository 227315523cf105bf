"""A photo a player takes to teach a deck: cards lying apart in rows on a table, seen by a webcam or a phone.

``render_table_photo`` lays the given cards in rows (``gap_cm`` apart: 1 to 3 cm by default; 0 touching,
below 0 overlapping like a spread), each turned a few degrees, on a table surface (a photo of wood,
cloth, ...), and photographs them with mild perspective, uneven light, a little blur, sensor noise and
JPEG compression. It returns the photo and where each card's corners lie in it, for the tests of
``ginscore deck add`` (``tests/training/test_teach_table_photos.py``) and
``benchmarks/teach_table_photos.py``.

Units: the table is measured in card heights (a card is 1.0 = 88 mm tall), as in
``vision.training.synth.camera``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.training.synth.camera import Camera, project
from vision.training.synth.decks import DATASETS, Deck
from vision.training.synth.scene import as_bgra

CARD_HEIGHT_CM = 8.8
WEBCAM = (1920, 1080)
PHONE = (4032, 3024)


def surface_photo(name: str | Path) -> np.ndarray:
    """A table surface photo (BGR) by file name in ``datasets/surfaces`` (``gimp_pine.jpg``) or by path."""
    path = Path(name)
    if not path.is_file():
        path = DATASETS / "surfaces" / path.name
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"no surface photo {name!r} (looked for {path})")
    return image


def _gap(rng: np.random.Generator, gap_cm: float | tuple[float, float]) -> float:
    """One gap between neighbouring cards, in card heights."""
    low, high = (gap_cm, gap_cm) if isinstance(gap_cm, (int, float)) else gap_cm
    return float(rng.uniform(low, high)) / CARD_HEIGHT_CM


def lay_out_rows(
    rng: np.random.Generator,
    count: int,
    card_width: float,
    rows: int = 2,
    gap_cm: float | tuple[float, float] = (1.0, 3.0),
    angle_sd: float = 3.0,
    upside_down_share: float = 0.3,
    row_gaps: Sequence[float | tuple[float, float]] | None = None,
) -> list[tuple[float, float, float]]:
    """(x, y, angle in degrees) of ``count`` cards in ``rows`` rows, centred on (0, 0), card heights.

    Cards that lie apart are turned only as far as their gap allows (they never touch); a card is turned
    half a turn (upside down) with ``upside_down_share``. ``row_gaps``: each row's own gap (else
    ``gap_cm``), as for one row of cards spread overlapping beside a row lying apart."""
    per_row = math.ceil(count / rows)
    spots: list[tuple[float, float, float]] = []
    y = 0.0
    row_ys = []
    for row in range(rows):
        in_row = min(per_row, count - row * per_row)
        if in_row <= 0:
            break
        in_gap = row_gaps[row] if row_gaps is not None and row < len(row_gaps) else gap_cm
        gaps = [_gap(rng, in_gap) for _ in range(in_row - 1)]
        x = -(in_row * card_width + sum(gaps)) / 2 + card_width / 2
        for k in range(in_row):
            near = min(gaps[max(k - 1, 0)] if gaps else 1.0, gaps[k] if k < len(gaps) else 1.0)
            # a turn by a moves the card's corners sideways by about 0.5 * sin(a) card heights
            if near > 0:
                limit = math.degrees(math.asin(min(1.0, near / 1.2)))
                angle = float(np.clip(rng.normal(0, angle_sd), -limit, limit))
            else:  # touching: square to each other; overlapping: as a hand spreads them
                angle = 0.0 if near == 0 else float(rng.normal(0, 1.5))
            if rng.random() < upside_down_share:
                angle += 180.0
            spots.append((x, y + float(rng.normal(0, 0.01)), angle))
            x += card_width + (gaps[k] if k < len(gaps) else 0.0)
        row_ys.append(y)
        y += 1.0 + max(_gap(rng, gap_cm), 0.1)
    middle = (row_ys[0] + row_ys[-1]) / 2 if row_ys else 0.0
    return [(x, y - middle, angle) for x, y, angle in spots]


def _face_to_table(face_size: tuple[int, int], x: float, y: float, angle: float) -> np.ndarray:
    """Affine 3x3 from face pixels ((width, height)) to table coordinates (card height 1)."""
    width, height = face_size
    scale = 1.0 / height
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    centre = np.array([[1, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]], dtype=np.float64)
    turn = np.array([[c * scale, -s * scale, 0], [s * scale, c * scale, 0], [0, 0, 1]], dtype=np.float64)
    move = np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], dtype=np.float64)
    return move @ turn @ centre


def _draw_card(canvas: np.ndarray, rgba: np.ndarray, h: np.ndarray, shadow: tuple[float, float, float]) -> None:
    """Composite one RGBA face through homography ``h`` (face pixels -> image), with a soft shadow."""
    height, width = canvas.shape[:2]
    fh, fw = rgba.shape[:2]
    corners = project(h, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], dtype=np.float64))
    pad = int(abs(shadow[0]) + abs(shadow[1])) * 3 + 8
    x0, y0 = (max(0, int(math.floor(v)) - pad) for v in corners.min(axis=0))
    x1 = min(width, int(math.ceil(corners[:, 0].max())) + pad)
    y1 = min(height, int(math.ceil(corners[:, 1].max())) + pad)
    if x1 <= x0 or y1 <= y0:
        return
    to_roi = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64) @ h
    bgra = cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA) if rgba.ndim == 3 and rgba.shape[2] == 4 else as_bgra(rgba)
    warped = cv2.warpPerspective(bgra, to_roi, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = warped[..., 3].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    dx, dy, strength = shadow
    cast = cv2.warpAffine(alpha, np.array([[1, 0, dx], [0, 1, dy]], dtype=np.float32), (x1 - x0, y1 - y0))
    k = max(3, int(2 * (abs(dx) + abs(dy))) | 1)
    cast = cv2.GaussianBlur(cast, (k, k), 0)
    roi *= (1.0 - strength * cast)[..., None]
    roi = roi * (1 - alpha[..., None]) + warped[..., :3].astype(np.float32) * alpha[..., None]
    canvas[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def render_table_photo(
    deck: Deck,
    card_codes: Sequence[str],
    surface: np.ndarray | str | Path,
    size: tuple[int, int] = WEBCAM,
    gap_cm: float | tuple[float, float] = (1.0, 3.0),
    seed: int = 0,
    *,
    rows: int = 2,
    row_gaps: Sequence[float | tuple[float, float]] | None = None,
    angle_sd: float = 3.0,
    fill: float = 0.86,
    tilt: float | None = None,
    surface_cm: float = 60.0,
    blur: float | None = None,
    noise: float = 2.5,
    jpeg_quality: int = 85,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """A photo (BGR, ``size`` = (width, height)) of ``card_codes`` of ``deck`` lying in ``rows`` rows on
    ``surface`` (a BGR photo, or a file name in ``datasets/surfaces``), and each card's outline in it:
    (4, 2) pixels of the face's top-left, top-right, bottom-right and bottom-left corners, in the order
    of ``card_codes``.

    ``gap_cm``: the gap between neighbouring cards (a range: each gap drawn from it; below 0 they overlap;
    ``row_gaps``: each row's own, see ``lay_out_rows``); no cards: an empty table; ``fill``: the share
    of the frame the cards span; ``tilt``: the camera's tilt from straight down in degrees (default: 2 to
    9, drawn); ``surface_cm``: how wide the surface photo is on the table (it repeats, mirrored);
    ``blur``: the lens blur's sigma in pixels (default: 0.5 to 1.1, drawn)."""
    rng = np.random.default_rng(seed)
    width, height = size
    codes = list(card_codes)
    table = surface_photo(surface) if not isinstance(surface, np.ndarray) else surface
    face_w, face_h = deck.face_size
    card_width = face_w / face_h
    spots = lay_out_rows(rng, len(codes), card_width, rows, gap_cm, angle_sd, row_gaps=row_gaps)
    xs = np.array([x for x, _, _ in spots] or [0.0])
    ys = np.array([y for _, y, _ in spots] or [0.0])
    extent_x = float(xs.max() - xs.min()) + card_width + 0.1
    extent_y = float(ys.max() - ys.min()) + 1.1
    tilt = float(rng.uniform(2, 9)) if tilt is None else float(tilt)
    camera = Camera(
        tilt=tilt,
        yaw=float(rng.normal(0, 1.5) + (180 if rng.random() < 0.5 else 0)),
        roll=float(rng.normal(0, 1.0)),
        card_pixels=fill * min(width / extent_x, height / extent_y),
        image_size=size,
        target=(float(rng.normal(0, 0.05)), float(rng.normal(0, 0.05))),
        distance=float(rng.uniform(6, 10)),
    )
    to_image = camera.homography()
    # the table: the surface photo, surface_cm wide on the table, repeated (mirrored) beyond its edges
    table_scale = surface_cm / CARD_HEIGHT_CM / table.shape[1]
    offset = rng.uniform(0, 1, 2) * np.array(table.shape[1::-1]) * table_scale
    surface_to_table = np.array(
        [[table_scale, 0, -offset[0]], [0, table_scale, -offset[1]], [0, 0, 1]], dtype=np.float64
    )
    canvas = cv2.warpPerspective(
        table, to_image @ surface_to_table, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    light = rng.uniform(0, 2 * math.pi)
    shadow_px = 0.012 * camera.card_pixels
    shadow = (shadow_px * math.cos(light), shadow_px * math.sin(light), float(rng.uniform(0.15, 0.35)))
    quads = []
    for code, (x, y, angle) in zip(codes, spots, strict=True):
        rgba = deck.faces[code]
        h = to_image @ _face_to_table((rgba.shape[1], rgba.shape[0]), x, y, angle)
        _draw_card(canvas, rgba, h, shadow)
        fh, fw = rgba.shape[:2]
        quads.append(project(h, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], dtype=np.float64)))
    return _webcam_look(rng, canvas, blur, noise, jpeg_quality), quads


def _webcam_look(
    rng: np.random.Generator, image: np.ndarray, blur: float | None, noise: float, jpeg_quality: int
) -> np.ndarray:
    """Uneven light, white balance, lens blur, sensor noise and JPEG compression."""
    height, width = image.shape[:2]
    gx, gy = np.meshgrid(np.linspace(-1, 1, width, dtype=np.float32), np.linspace(-1, 1, height, dtype=np.float32))
    a, b = rng.normal(0, 0.08, 2)
    gain = 1.0 + a * gx + b * gy - 0.08 * (gx**2 + gy**2)  # a lamp off centre, a little vignetting
    balance = rng.uniform(0.94, 1.06, 3).astype(np.float32) * np.float32(rng.uniform(0.9, 1.05))
    out = np.clip(image.astype(np.float32) * gain[..., None] * balance[None, None, :], 0, 255).astype(np.uint8)
    sigma = float(rng.uniform(0.5, 1.1)) if blur is None else float(blur)
    if sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if noise > 0:
        out = np.clip(out + rng.standard_normal(out.shape, dtype=np.float32) * np.float32(noise), 0, 255)
        out = out.astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else None
    assert decoded is not None  # just encoded
    return decoded


SUITS = "shdc"
RANKS = "A23456789TJQK"


def write_suit_photos(
    deck: Deck,
    surface: np.ndarray | str | Path,
    folder: Path,
    count: int = 4,
    size: tuple[int, int] = WEBCAM,
    gap_cm: float | tuple[float, float] = (1.0, 3.0),
    seed: int = 0,
    **options,
) -> list[tuple[Path, list[str], list[np.ndarray]]]:
    """``count`` photos (JPEG, in ``folder``) of one suit's 13 cards each, the suits in turn, as a player
    photographs a deck to teach it: (path, the cards in it, their outlines) per photo. ``options``: more
    arguments of ``render_table_photo``."""
    folder.mkdir(parents=True, exist_ok=True)
    photos = []
    for k in range(count):
        codes = [rank + SUITS[k % 4] for rank in RANKS]
        image, quads = render_table_photo(deck, codes, surface, size, gap_cm, seed=seed + k, **options)
        path = folder / f"table_{k + 1}.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        photos.append((path, codes, quads))
    return photos
