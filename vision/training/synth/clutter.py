"""Things on a real table that are not cards: what the reader must learn to answer "not a card" to.

Every item is drawn as an RGBA sheet in table coordinates (card heights) and never gets a label box:

- ``newspaper``: columns of printed text in several fonts and scripts, headlines, a picture block;
- ``envelope``: an address block, a stamp, a printed sender line;
- ``score_pad``: a ruled pad with a "We / They" or players' column and handwritten scores, letters
  (K, Q, J, A) and tallies: the worst case at a gin table, since it sits right beside the cards;
- ``printed_box``: a cardboard box lid with big printed text and numbers;
- ``patterned_cloth``: a napkin or placemat of woven checks, motifs or repeated glyphs;
- ``pen`` and ``coin``: everyday objects, sometimes lying over the cards.

Fonts come from ``datasets/fonts`` (DejaVu and Liberation, copied from Debian's fonts-dejavu-core and
fonts-liberation; see datasets/NOTICE.md). Handwriting is drawn glyph by glyph, each sheared, turned and
wobbled, mostly in the handwriting fonts of ``datasets/fonts/handwriting`` (Breip, DKG handwriting,
Dancing Script, from Debian's fonts-breip, fonts-dkg-handwriting and fonts-dancingscript), sometimes in
OpenCV's Hershey faces (which OpenCV 5 draws as plain and italic sans).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.paths import DATASETS_DIR

FONTS_DIR = DATASETS_DIR / "fonts"
PIXELS_PER_CARD = 220  # resolution of a clutter sheet: pixels per card height

LATIN = "abcdefghijklmnopqrstuvwxyz"
CAPITALS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
GREEK = "αβγδεζηθικλμνξοπρστυφχψω"
CYRILLIC = "абвгдежзийклмнопрстуфхцчшщыэюя"
DIGITS = "0123456789"
CARD_LETTERS = "AKQJ"  # the letters of card indices, which a score pad is full of


@dataclass
class ClutterSheet:
    """One item: RGBA pixels, where it lies (table coordinates, card heights) and whether it lies over the cards."""

    kind: str
    rgba: np.ndarray
    x: float
    y: float
    angle: float
    height: float  # its height on the table in card heights
    over_cards: bool = False


@cache
def font_files() -> tuple[Path, ...]:
    """The TrueType fonts clutter text is printed in (empty when the folder is missing)."""
    return tuple(sorted(FONTS_DIR.glob("*.ttf"))) if FONTS_DIR.is_dir() else ()


@cache
def handwriting_font_files() -> tuple[Path, ...]:
    """The handwriting fonts score pads are written in (empty when the folder is missing)."""
    folder = FONTS_DIR / "handwriting"
    return tuple(sorted([*folder.glob("*.ttf"), *folder.glob("*.otf")])) if folder.is_dir() else ()


HERSHEY_HANDS = (
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
HANDWRITING_FONT_SHARE = 0.75  # of the writers on a pad, this share writes in a handwriting font


@lru_cache(maxsize=256)
def _font(path: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def _words(rng: np.random.Generator, n: int) -> list[str]:
    """Random words: mostly Latin, some Greek and Cyrillic, capitals, numbers and card letters."""
    out = []
    for _ in range(n):
        r = rng.random()
        alphabet = LATIN if r < 0.6 else GREEK if r < 0.7 else CYRILLIC if r < 0.8 else DIGITS if r < 0.9 else CAPITALS
        word = "".join(rng.choice(list(alphabet), size=int(rng.integers(1, 9))))
        if rng.random() < 0.15:
            word = word.capitalize() if alphabet not in (DIGITS,) else word
        if rng.random() < 0.05:
            word = str(rng.choice(list(CARD_LETTERS))) + str(rng.integers(2, 11))
        out.append(word)
    return out


def _colour(channels: Iterable[float]) -> tuple[int, int, int]:
    """Three channel values as an integer colour (each truncated, as ``int`` does)."""
    first, second, third = (int(v) for v in channels)
    return first, second, third


def _paper(rng: np.random.Generator, width: int, height: int, tone: tuple[float, float] = (215, 250)) -> np.ndarray:
    base = rng.uniform(*tone)
    tint = rng.normal(0, 6, 3)
    img = np.empty((height, width, 3), np.float32)
    img[:] = np.clip(base + tint, 0, 255)
    small = rng.random((max(2, height // 40), max(2, width // 40))).astype(np.float32)
    img *= (0.95 + 0.05 * cv2.resize(small, (width, height)))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _print_text(
    image: np.ndarray,
    rng: np.random.Generator,
    box: tuple[int, int, int, int],
    size: int,
    ink: tuple[int, int, int],
    bold_font: bool = False,
) -> None:
    """Fill ``box`` (x0, y0, x1, y1) of a BGR image with lines of printed words."""
    from PIL import Image, ImageDraw

    fonts = font_files()
    x0, y0, x1, y1 = box
    if x1 - x0 < 8 or y1 - y0 < 8:
        return
    region = Image.fromarray(image[y0:y1, x0:x1][..., ::-1].copy())
    draw = ImageDraw.Draw(region)
    line_height = int(size * rng.uniform(1.15, 1.5))
    y = 0
    font_path = str(fonts[rng.integers(len(fonts))]) if fonts else None
    colour = tuple(int(c) for c in ink[::-1])
    while y + size < y1 - y0:
        text = " ".join(_words(rng, int((x1 - x0) / max(size * 2.5, 1)) + 2))
        if font_path:
            draw.text((0, y), text, fill=colour, font=_font(font_path, size))
        else:
            cv2.putText(image, text, (x0, y0 + y + size), cv2.FONT_HERSHEY_SIMPLEX, size / 30, ink, 1, cv2.LINE_AA)
        y += line_height
    if font_path:
        image[y0:y1, x0:x1] = np.asarray(region)[..., ::-1]


def newspaper(rng: np.random.Generator) -> np.ndarray:
    """A printed page: headline, columns of text in one size, a picture block."""
    w, h = int(PIXELS_PER_CARD * rng.uniform(1.6, 3.2)), int(PIXELS_PER_CARD * rng.uniform(2.0, 3.5))
    img = _paper(rng, w, h, (185, 240))
    ink = _colour(rng.uniform(0, 60, 3))
    margin = int(w * 0.05)
    head = int(rng.uniform(18, 40))
    _print_text(img, rng, (margin, margin, w - margin, margin + int(head * 2.6)), head, ink)
    columns = int(rng.integers(2, 5))
    col_w = (w - 2 * margin) // columns
    size = int(rng.uniform(7, 16))
    top = margin + int(head * 2.8)
    for c in range(columns):
        cx0 = margin + c * col_w
        _print_text(img, rng, (cx0, top, cx0 + col_w - 6, h - margin), size, ink)
    if rng.random() < 0.6:  # a photo in the page
        px0, py0 = margin + int(rng.integers(0, max(1, w // 2))), top + int(rng.integers(0, max(1, h // 2)))
        pw, ph = int(w * rng.uniform(0.25, 0.45)), int(h * rng.uniform(0.15, 0.3))
        block = (rng.random((max(2, ph // 12), max(2, pw // 12), 3)) * 200).astype(np.uint8)
        img[py0 : py0 + ph, px0 : px0 + pw] = cv2.resize(block, (pw, ph))[: img.shape[0] - py0, : img.shape[1] - px0]
    return img


def envelope(rng: np.random.Generator) -> np.ndarray:
    """An envelope: address lines, a stamp, a printed sender and maybe a postmark."""
    w, h = int(PIXELS_PER_CARD * rng.uniform(1.8, 2.6)), int(PIXELS_PER_CARD * rng.uniform(0.9, 1.3))
    img = _paper(rng, w, h, (190, 250))
    ink = _colour(rng.uniform(0, 80, 3))
    _print_text(img, rng, (int(w * 0.05), int(h * 0.06), int(w * 0.5), int(h * 0.3)), int(rng.uniform(8, 13)), ink)
    _print_text(img, rng, (int(w * 0.35), int(h * 0.45), int(w * 0.95), int(h * 0.9)), int(rng.uniform(12, 22)), ink)
    sx0, sy0 = int(w * 0.78), int(h * 0.06)
    stamp = tuple(int(v) for v in rng.uniform(30, 230, 3))
    cv2.rectangle(img, (sx0, sy0), (int(w * 0.95), int(h * 0.38)), stamp, -1)
    cv2.putText(
        img,
        str(rng.integers(1, 200)),
        (sx0 + 4, int(h * 0.3)),
        cv2.FONT_HERSHEY_DUPLEX,
        rng.uniform(0.6, 1.2),
        (255, 255, 255),
        2,
        cv2.LINE_AA,
    )
    if rng.random() < 0.5:
        cv2.circle(img, (int(w * 0.72), int(h * 0.22)), int(h * 0.15), (60, 60, 60), 2, cv2.LINE_AA)
    return img


def _handwrite(
    image: np.ndarray,
    rng: np.random.Generator,
    text: str,
    origin: tuple[int, int],
    size: float,
    ink: tuple[int, int, int],
) -> int:
    """Write ``text`` by hand at ``origin`` (baseline, left): each glyph sheared, scaled and wobbled.
    Returns the x after the text."""
    x, y = origin
    hands = handwriting_font_files()
    if hands and rng.random() < HANDWRITING_FONT_SHARE:
        face: int | str = str(hands[int(rng.integers(len(hands)))])
    else:
        face = int(rng.choice(HERSHEY_HANDS))
    thickness = max(1, int(round(size * rng.uniform(1.2, 2.8))))
    slant = rng.normal(0.15, 0.12)
    for glyph in text:
        scale = size * rng.uniform(0.85, 1.2)
        tile, gw, gh, pad = _glyph_tile(glyph, face, scale, thickness)
        shear = slant + rng.normal(0, 0.08)
        m = np.asarray([[1, -shear, shear * (gh + pad)], [0, 1, 0]], dtype=np.float32)
        m[:, :2] = m[:, :2] @ cv2.getRotationMatrix2D((0, 0), rng.normal(0, 6), 1.0)[:, :2]
        tile = cv2.warpAffine(tile, m, (tile.shape[1], tile.shape[0]))
        ty, tx = y - gh - pad + int(rng.normal(0, size * 2)), x - pad
        H, W = image.shape[:2]
        a0, b0 = max(0, ty), max(0, tx)
        a1, b1 = min(H, ty + tile.shape[0]), min(W, tx + tile.shape[1])
        if a1 > a0 and b1 > b0:
            alpha = tile[a0 - ty : a1 - ty, b0 - tx : b1 - tx].astype(np.float32)[..., None] / 255.0
            region = image[a0:a1, b0:b1].astype(np.float32)
            image[a0:a1, b0:b1] = (region * (1 - alpha) + np.array(ink, np.float32) * alpha).astype(np.uint8)
        x += int(gw * rng.uniform(0.85, 1.15)) + int(size * 3)
    return x


def _glyph_tile(glyph: str, face: int | str, scale: float, thickness: int) -> tuple[np.ndarray, int, int, int]:
    """One glyph, white on black, its baseline at (pad, height + pad): (tile, width, height, pad).
    ``face``: a handwriting font file (suit signs, which it lacks, come from DejaVu Sans) or a Hershey id."""
    pad = thickness + 4
    if isinstance(face, int):
        (gw, gh), _ = cv2.getTextSize(glyph, face, scale, thickness)
        tile = np.zeros((gh * 2 + 2 * pad, gw * 2 + 2 * pad), np.uint8)
        cv2.putText(tile, glyph, (pad, gh + pad), face, scale, 255, thickness, cv2.LINE_AA)
        return tile, gw, gh, pad
    from PIL import Image, ImageDraw

    path = face if glyph.isascii() else str(FONTS_DIR / "DejaVuSans.ttf")
    font = _font(path, max(6, int(round(scale * 34))))
    left, top, right, bottom = font.getbbox(glyph, anchor="ls")
    gw, gh = max(1, right - left), max(1, -top)
    image = Image.new("L", (gw * 2 + 2 * pad, gh * 2 + 2 * pad + max(0, bottom)), 0)
    ImageDraw.Draw(image).text(
        (pad - left, gh + pad),
        glyph,
        font=font,
        fill=255,
        anchor="ls",
        stroke_width=max(0, thickness // 3),
        stroke_fill=255,
    )
    return np.asarray(image).copy(), gw, gh, pad


def _score_text(rng: np.random.Generator) -> str:
    r = rng.random()
    if r < 0.45:
        return str(int(rng.integers(0, 160)))
    if r < 0.6:
        return str(rng.choice(list(CARD_LETTERS))) + (str(rng.choice(list("♠♥♦♣shdc"))) if rng.random() < 0.3 else "")
    if r < 0.75:
        return str(int(rng.integers(2, 11))) + str(rng.choice(list(CARD_LETTERS + "shdc")))
    if r < 0.85:
        return "+" + str(int(rng.integers(10, 50)))
    return "".join(rng.choice(list(LATIN + CAPITALS), size=int(rng.integers(2, 6))))


def score_pad(rng: np.random.Generator) -> np.ndarray:
    """A gin score pad: ruled lines, two or three columns, handwritten running scores and letters."""
    w, h = int(PIXELS_PER_CARD * rng.uniform(0.9, 1.6)), int(PIXELS_PER_CARD * rng.uniform(1.3, 2.2))
    img = _paper(rng, w, h, (200, 252))
    if rng.random() < 0.3:  # yellow legal pad
        img = (img.astype(np.float32) * np.array([0.55, 0.95, 1.0], np.float32)).astype(np.uint8)
    rule = tuple(int(v) for v in (rng.uniform(150, 230), rng.uniform(120, 200), rng.uniform(80, 160)))
    step = int(rng.uniform(16, 30))
    for y in range(step * 2, h, step):
        cv2.line(img, (0, y), (w, y), rule, 1, cv2.LINE_AA)
    columns = int(rng.integers(2, 4))
    for c in range(1, columns):
        cv2.line(img, (w * c // columns, step), (w * c // columns, h), (90, 90, 170), 1, cv2.LINE_AA)
    ink = _colour(
        (rng.uniform(90, 200), rng.uniform(20, 80), rng.uniform(0, 40)) if rng.random() < 0.5 else rng.uniform(0, 50, 3)
    )
    size = step / 32 * rng.uniform(0.8, 1.2)
    for c in range(columns):
        _handwrite(
            img,
            rng,
            str(rng.choice(["We", "They", "Ann", "Bob", "ME", "YOU", "J", "K"])),
            (w * c // columns + 6, int(step * 1.6)),
            size * 1.1,
            ink,
        )
    for y in range(step * 3 - 4, h - 4, step):
        for c in range(columns):
            if rng.random() < 0.8:
                _handwrite(img, rng, _score_text(rng), (w * c // columns + int(rng.uniform(4, 20)), y), size, ink)
        if rng.random() < 0.1:  # a line struck through a total
            cv2.line(img, (4, y - step // 3), (w - 4, y - step // 3 + int(rng.normal(0, 3))), ink, 2, cv2.LINE_AA)
    return img


def printed_box(rng: np.random.Generator) -> np.ndarray:
    """A box lid with big printed words and numbers in colour."""
    w, h = int(PIXELS_PER_CARD * rng.uniform(1.0, 2.2)), int(PIXELS_PER_CARD * rng.uniform(0.8, 1.6))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = rng.uniform(20, 240, 3)
    ink = _colour(rng.uniform(0, 255, 3))
    _print_text(img, rng, (int(w * 0.05), int(h * 0.05), int(w * 0.95), int(h * 0.95)), int(rng.uniform(18, 60)), ink)
    return img


def patterned_cloth(rng: np.random.Generator) -> np.ndarray:
    """A napkin or placemat: woven checks, stripes, a knit, or a motif of shapes and glyphs."""
    w, h = int(PIXELS_PER_CARD * rng.uniform(1.5, 3.0)), int(PIXELS_PER_CARD * rng.uniform(1.5, 3.0))
    c1, c2 = rng.uniform(20, 240, 3), rng.uniform(20, 240, 3)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    kind = int(rng.integers(4))
    if kind == 0:  # woven: crossing threads
        p = rng.uniform(3, 9)
        m = 0.5 + 0.25 * np.sign(np.sin(x / p)) * np.sign(np.sin(y / p)) + 0.25 * np.sin((x + y) / (p / 2))
    elif kind == 1:  # tartan
        p1, p2 = rng.uniform(10, 40), rng.uniform(10, 40)
        m = 0.5 * ((np.sin(x / p1) > 0.3).astype(np.float32) + (np.sin(y / p2) > 0.3).astype(np.float32))
    elif kind == 2:  # knit: rows of small v shapes
        p = rng.uniform(4, 10)
        m = np.abs(np.sin(x / p + np.abs(np.sin(y / p)) * 2))
    else:  # motif: repeated glyphs and shapes (flowers, hearts, letters)
        motif = np.zeros((h, w), np.uint8)
        pitch = int(rng.uniform(20, 60))
        glyphs = list("♠♥♦♣✿❀*+oxXAKQ") if rng.random() < 0.5 else list("o*+x")
        for gy in range(0, h, pitch):
            for gx in range((gy // pitch) % 2 * pitch // 2, w, pitch):
                glyph = str(rng.choice(glyphs))
                cv2.putText(
                    motif,
                    glyph if ord(glyph) < 128 else "o",
                    (gx, gy + pitch // 2),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    pitch / 45,
                    255,
                    max(1, pitch // 15),
                    cv2.LINE_AA,
                )
                if rng.random() < 0.5:
                    cv2.circle(motif, (gx + pitch // 3, gy + pitch // 4), max(2, pitch // 8), 255, -1, cv2.LINE_AA)
        m = motif.astype(np.float32) / 255.0
    img = c1[None, None] * (1 - m[..., None]) + c2[None, None] * m[..., None]
    img += rng.standard_normal(img.shape).astype(np.float32) * 5
    return np.clip(img, 0, 255).astype(np.uint8)


def _as_rgba(img: np.ndarray, rounded: float = 0.0) -> np.ndarray:
    h, w = img.shape[:2]
    alpha = np.full((h, w), 255, np.uint8)
    if rounded > 0:
        r = int(rounded * min(w, h))
        alpha[:] = 0
        cv2.rectangle(alpha, (r, 0), (w - r, h), 255, -1)
        cv2.rectangle(alpha, (0, r), (w, h - r), 255, -1)
        for cx, cy in ((r, r), (w - r, r), (r, h - r), (w - r, h - r)):
            cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return np.dstack([img, alpha])


def pen(rng: np.random.Generator) -> np.ndarray:
    w, h = int(PIXELS_PER_CARD * rng.uniform(0.05, 0.09)), int(PIXELS_PER_CARD * rng.uniform(0.9, 1.5))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = rng.uniform(10, 230, 3)
    img[: h // 8] = (200, 200, 200)
    shade = np.linspace(0.6, 1.2, w, dtype=np.float32)[None, :, None]
    return _as_rgba(np.clip(img * shade, 0, 255).astype(np.uint8), rounded=0.45)


def coin(rng: np.random.Generator) -> np.ndarray:
    d = int(PIXELS_PER_CARD * rng.uniform(0.15, 0.3))
    img = np.empty((d, d, 3), np.uint8)
    img[:] = (40, 140, 190) if rng.random() < 0.5 else (180, 180, 180)
    cv2.putText(
        img,
        str(rng.choice([1, 2, 5, 10, 20, 50])),
        (d // 5, int(d * 0.65)),
        cv2.FONT_HERSHEY_DUPLEX,
        d / 70,
        (60, 60, 60),
        max(1, d // 30),
        cv2.LINE_AA,
    )
    alpha = np.zeros((d, d), np.uint8)
    cv2.circle(alpha, (d // 2, d // 2), d // 2 - 1, 255, -1, cv2.LINE_AA)
    return np.dstack([img, alpha])


MAKERS = {
    "newspaper": newspaper,
    "envelope": envelope,
    "score_pad": score_pad,
    "printed_box": printed_box,
    "patterned_cloth": patterned_cloth,
    "pen": pen,
    "coin": coin,
}
UNDER_WEIGHTS = {"newspaper": 0.22, "envelope": 0.14, "score_pad": 0.3, "printed_box": 0.12, "patterned_cloth": 0.22}


def make_sheet(rng: np.random.Generator, kind: str) -> np.ndarray:
    """The RGBA pixels of one clutter item of ``kind`` (a key of ``MAKERS``)."""
    img = MAKERS[kind](rng)
    return img if img.shape[2] == 4 else _as_rgba(img, rounded=0.03 if kind in ("score_pad", "printed_box") else 0.0)


def random_clutter(
    rng: np.random.Generator, centre: tuple[float, float], radius: float, amount: float = 1.0
) -> list[ClutterSheet]:
    """Items around (and partly under) a layout of ``radius`` card heights; ``amount`` scales how many."""
    sheets: list[ClutterSheet] = []
    names = list(UNDER_WEIGHTS)
    p = np.array([UNDER_WEIGHTS[n] for n in names])
    for _ in range(int(rng.poisson(1.4 * amount))):
        kind = names[rng.choice(len(names), p=p / p.sum())]
        rgba = make_sheet(rng, kind)
        distance = radius * rng.uniform(0.3, 1.3) + rng.uniform(0, 1.2)
        a = rng.uniform(0, 2 * np.pi)
        sheets.append(
            _sheet_at(
                kind, rgba, centre, distance, a, float(rng.normal(0, 20) if rng.random() < 0.7 else rng.uniform(0, 360))
            )
        )
    for _ in range(int(rng.poisson(0.5 * amount))):
        kind = "pen" if rng.random() < 0.5 else "coin"
        rgba = make_sheet(rng, kind)
        distance = radius * rng.uniform(0.0, 1.2)
        a = rng.uniform(0, 2 * np.pi)
        sheets.append(_sheet_at(kind, rgba, centre, distance, a, float(rng.uniform(0, 360)), rng.random() < 0.5))
    return sheets


def _sheet_at(
    kind: str, rgba: np.ndarray, centre: Any, distance: float, angle: float, rotation: float, over_cards: bool = False
) -> ClutterSheet:
    """A sheet ``distance`` card heights from ``centre`` at ``angle``, turned by ``rotation`` degrees."""
    x, y = centre[0] + distance * math.cos(angle), centre[1] + distance * math.sin(angle)
    return ClutterSheet(kind, rgba, x, y, rotation, rgba.shape[0] / PIXELS_PER_CARD, over_cards=over_cards)


def draw_contact_sheet(path: Path, seed: int = 0, rows: int = 3, tile: int = 150) -> Path:
    """Every clutter kind ``rows`` times, side by side (``ginscore synth --clutter-preview``)."""
    rng = np.random.default_rng(seed)
    kinds = list(MAKERS)
    tiles = [
        cv2.resize(make_sheet(rng, kind)[..., :3], (tile, tile), interpolation=cv2.INTER_AREA)
        for _ in range(rows)
        for kind in kinds
    ]
    sheet = np.vstack([np.hstack(tiles[r * len(kinds) : (r + 1) * len(kinds)]) for r in range(rows)])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return path
