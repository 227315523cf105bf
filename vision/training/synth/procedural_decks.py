"""Procedural decks: card faces whose corner indices are set in any of hundreds of typefaces.

The classifier reads a card from its corner index, and a deck it has never seen is, above all, a typeface it
has never seen. These faces vary what printed decks vary: the rank's typeface, weight, width and size
(big-index decks too), the suit signs (a font's glyphs or drawn shapes), rank over suit or side by side,
two or four indices, "10" set narrow, red and black in many shades, four-colour decks, tinted card stock,
print registration errors, and the court letters of French, German and Italian decks (read as the ranks
they stand for). Pips and court pictures are only roughed in: they are context, and "not a card" material.

Typefaces come from Debian's font packages (``datasets/install_fonts.sh``; never committed, licences in
``datasets/NOTICE.md``); without them the fonts committed under ``datasets/fonts`` are used.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np

from engine.cards import CARD_CODES
from vision.paths import DATASETS_DIR

SYSTEM_FONT_DIR = Path("/usr/share/fonts")
COMMITTED_FONT_DIR = DATASETS_DIR / "fonts"
RANK_TEXT = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K", **{str(n): str(n) for n in range(2, 10)}}
# Court letters of other languages' decks, read as the ranks they stand for. Dutch decks (H, V, B) are left
# out: their V is a queen where a French deck's V is a jack, so reading them needs the deck's language.
COURT_LETTERS = {
    "english": {"K": "K", "Q": "Q", "J": "J"},
    "french": {"K": "R", "Q": "D", "J": "V"},
    "german": {"K": "K", "Q": "D", "J": "B"},
    "italian": {"K": "R", "Q": "D", "J": "F"},
}
LANGUAGE_WEIGHTS = {"english": 0.82, "french": 0.08, "german": 0.05, "italian": 0.05}
SUIT_SIGNS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
INDEX_GLYPHS = "0123456789AJQKRDVBF"  # every glyph a rank index needs, in any language above
# Script and handwriting faces letter score pads, the reader's "not a card" material: never an index.
NOT_INDEX_FAMILIES = ("dancing", "breip", "dkg", "kristi", "script", "handwriting", "lobster", "isabella")
FACE_HEIGHT = 280  # pixels; a procedural face is drawn this high (the packaged decks' faces are 300-400)
SUPERSAMPLE = 4  # glyph masks are drawn this many times larger, then shrunk to the face
# of the decks (rank over suit), those that print their bottom indices upright, the suit over the rank (as the
# Ancient Egyptians deck does): a 6 there is a 6 where a turned index shows a 9, and only the suit's way up tells
# them apart. 0.12 until crops-run15, 0.3 from its data on (session 33: the held-out Egyptians' 6/9 misreads)
BOTTOM_UPRIGHT_SHARE = 0.3


@cache
def _font_glyphs(path: Path) -> frozenset[int]:
    import logging

    from fontTools.ttLib import TTFont  # fonttools: a dependency of ultralytics' matplotlib

    logging.getLogger("fontTools").setLevel(logging.ERROR)  # odd tables in some Debian fonts are harmless
    try:
        with TTFont(str(path), fontNumber=0, lazy=True) as font:
            table = font.getBestCmap() or {}
            return frozenset(table)
    except Exception:  # a font file fontTools cannot read is simply not used
        return frozenset()


def _font_paths(folders: tuple[Path, ...]) -> list[Path]:
    paths: list[Path] = []
    for folder in folders:
        if folder.is_dir():
            paths += [p for p in folder.rglob("*") if p.suffix.lower() in (".ttf", ".otf")]
    return sorted(set(paths))


@cache
def index_fonts(folders: tuple[Path, ...] = (SYSTEM_FONT_DIR, COMMITTED_FONT_DIR)) -> tuple[Path, ...]:
    """The font files that can letter every rank index (no script or handwriting face)."""
    needed = {ord(c) for c in INDEX_GLYPHS}
    return tuple(
        path
        for path in _font_paths(folders)
        if not any(word in path.name.lower() for word in NOT_INDEX_FAMILIES) and needed <= _font_glyphs(path)
    )


@cache
def suit_fonts(folders: tuple[Path, ...] = (SYSTEM_FONT_DIR, COMMITTED_FONT_DIR)) -> tuple[Path, ...]:
    """The font files that have all four suit signs."""
    needed = {ord(c) for c in SUIT_SIGNS.values()}
    return tuple(path for path in _font_paths(folders) if needed <= _font_glyphs(path))


def typeface_family(path: Path) -> str:
    """A font file's family, as far as its name tells (``LiberationSerif-Bold.ttf`` -> ``liberationserif``)."""
    return path.stem.split("-")[0].lower()


@lru_cache(maxsize=4096)
def glyph_mask(text: str, font_file: str, height: int) -> np.ndarray:
    """A tight ink mask (uint8 0..255) of ``text`` in ``font_file``, about ``height`` x SUPERSAMPLE px high."""
    from PIL import Image, ImageDraw, ImageFont

    size = height * SUPERSAMPLE
    font = ImageFont.truetype(font_file, size)
    canvas = Image.new("L", (size * (len(text) + 2), size * 2), 0)
    ImageDraw.Draw(canvas).text((size // 2, size // 3), text, font=font, fill=255)
    ink = np.asarray(canvas)
    x, y, w, h = cv2.boundingRect((ink > 40).view(np.uint8))  # the inked pixels' box
    if not w:
        raise ValueError(f"{font_file} drew nothing for {text!r}")
    return np.ascontiguousarray(ink[y : y + h, x : x + w])


def drawn_suit_mask(suit: str, height: int, rng_value: float) -> np.ndarray:
    """A suit sign drawn from circles and polygons (uint8 mask ``height`` x SUPERSAMPLE px high); ``rng_value``
    in [0, 1) sets its proportions (a fat or a slim sign)."""
    h = height * SUPERSAMPLE
    w = int(h * (0.8 + 0.25 * rng_value))
    mask = np.zeros((h, w), np.uint8)
    cx = w / 2
    if suit == "d":
        pts = np.array([[cx, 0], [w, h / 2], [cx, h], [0, h / 2]], np.float32)
        cv2.fillPoly(mask, [pts.astype(np.int32)], 255)
        return mask
    if suit in "hs":
        r = w / 4.0
        lobes_y = h * (0.32 if suit == "h" else 0.55)
        body = h * (0.9 if suit == "h" else 0.75)
        cv2.circle(mask, (int(cx - r), int(lobes_y)), int(r), 255, -1)
        cv2.circle(mask, (int(cx + r), int(lobes_y)), int(r), 255, -1)
        tip_y = body if suit == "h" else 0
        cv2.fillPoly(
            mask,
            [np.array([[cx - 2 * r, lobes_y + r * 0.2], [cx + 2 * r, lobes_y + r * 0.2], [cx, tip_y]], np.int32)],
            255,
        )
        if suit == "s":
            cv2.fillPoly(mask, [np.array([[cx, lobes_y], [cx + r, h], [cx - r, h]], np.int32)], 255)
            return mask
        return mask[: int(body) + 1]
    r = w / 4.4  # clubs: three round leaves and a foot
    cv2.circle(mask, (int(cx), int(r + 1)), int(r), 255, -1)
    cv2.circle(mask, (int(cx - 1.05 * r), int(h * 0.55)), int(r), 255, -1)
    cv2.circle(mask, (int(cx + 1.05 * r), int(h * 0.55)), int(r), 255, -1)
    cv2.fillPoly(mask, [np.array([[cx, h * 0.4], [cx + r, h], [cx - r, h]], np.int32)], 255)
    return mask


LEGIBLE_OVERLAP = 0.92  # a typeface two of whose ranks' glyphs overlap more than this (IoU) is decoration


@cache
def legible(font_file: str) -> bool:
    """Whether a typeface draws every rank distinctly: decorative faces (snowflakes, stencils of one shape)
    teach nothing but noise."""
    texts = sorted({*RANK_TEXT.values(), *(t for letters in COURT_LETTERS.values() for t in letters.values())})
    try:
        shapes = [cv2.resize(glyph_mask(t, font_file, 16), (24, 32), interpolation=cv2.INTER_AREA) > 96 for t in texts]
    except (OSError, ValueError):
        return False
    for i, a in enumerate(shapes):
        if a.mean() > 0.85:  # a filled block: a missing glyph drawn as a box
            return False
        for b in shapes[i + 1 :]:
            if np.count_nonzero(a & b) > LEGIBLE_OVERLAP * max(1, int(np.count_nonzero(a | b))):
                return False
    return True


@cache
def draws_suits(font_file: str) -> bool:
    """Whether a typeface draws the four suit signs (some map them to an empty glyph)."""
    try:
        return all(glyph_mask(sign, font_file, 16).size for sign in SUIT_SIGNS.values())
    except (OSError, ValueError):
        return False


@dataclass(frozen=True)
class DeckStyle:
    """Everything one procedural deck's faces share."""

    rank_font: str
    suit_font: str  # "" = drawn suit signs
    language: str
    weight: float  # > 0 thickens, < 0 thins the strokes (a fraction of the glyph height)
    condense: float  # horizontal scale of the rank
    ten_condense: float  # extra horizontal scale of "10"
    rank_height: float  # of the face's height
    suit_ratio: float  # suit sign height / rank height
    side_by_side: bool
    four_indices: bool
    margin_x: float  # index's left edge from the card's, of the face's width
    margin_y: float
    aspect: float  # face width / height
    paper: tuple[int, int, int]  # BGR
    colours: dict[str, tuple[int, int, int]]  # suit -> BGR ink
    registration: tuple[int, int]  # pixels the colour ink is off its place
    border: bool  # a thin frame line round the face
    # the bottom indices printed upright, the suit over the rank (as some decks do: the Ancient Egyptians
    # deck), not the top index turned half round: a 6 there is a 6, where a turned index shows a 9
    bottom_upright: bool = False

    def rank_text(self, rank: str) -> str:
        return COURT_LETTERS[self.language].get(rank, RANK_TEXT[rank])


def _shade(rng: np.random.Generator, base: tuple[float, float, float], spread: float) -> tuple[int, int, int]:
    b, g, r = (float(np.clip(c + rng.normal(0, spread), 0, 255)) for c in base)
    return int(b), int(g), int(r)


def random_style(
    rng: np.random.Generator, rank_fonts: tuple[Path, ...], suit_font_files: tuple[Path, ...]
) -> DeckStyle:
    """A random deck design."""
    red = _shade(rng, (40, 30, 200), 30)
    black = _shade(rng, (25, 25, 25), 15)
    colours = {"s": black, "c": black, "h": red, "d": red}
    if rng.random() < 0.12:  # four-colour decks: green clubs, blue (or orange) diamonds
        colours["c"] = _shade(rng, (40, 140, 20), 25)
        colours["d"] = _shade(rng, (190, 90, 20) if rng.random() < 0.7 else (20, 120, 230), 25)
    tint = rng.normal(0, 6, 3) + np.array([0.0, 4.0, 8.0]) * rng.random()
    paper = tuple(int(np.clip(c, 170, 255)) for c in rng.uniform(222, 252) + tint)
    big = rng.random() < 0.15
    languages = list(LANGUAGE_WEIGHTS)
    rank_font = str(rank_fonts[rng.integers(len(rank_fonts))])
    for _ in range(50):
        if legible(rank_font):
            break
        rank_font = str(rank_fonts[rng.integers(len(rank_fonts))])
    side_by_side = bool(rng.random() < 0.15)
    suit_font = ""  # drawn suit signs
    if suit_font_files and rng.random() < 0.65:
        suit_font = str(suit_font_files[rng.integers(len(suit_font_files))])
        suit_font = suit_font if draws_suits(suit_font) else ""
    return DeckStyle(
        rank_font=rank_font,
        suit_font=suit_font,
        language=languages[rng.choice(len(languages), p=list(LANGUAGE_WEIGHTS.values()))],
        weight=float(rng.choice([0.0, rng.uniform(-0.02, -0.005), rng.uniform(0.005, 0.03)], p=[0.6, 0.15, 0.25])),
        condense=float(rng.uniform(0.7, 1.15)),
        ten_condense=float(rng.uniform(0.55, 1.0)),
        rank_height=float(rng.uniform(0.14, 0.22) if big else rng.uniform(0.075, 0.13)),
        suit_ratio=float(rng.uniform(0.5, 0.9)),
        side_by_side=side_by_side,
        four_indices=not side_by_side and bool(rng.random() < 0.25),
        margin_x=float(rng.uniform(0.03, 0.09)),
        margin_y=float(rng.uniform(0.025, 0.07)),
        aspect=float(rng.uniform(0.62, 0.74)),
        paper=(int(paper[0]), int(paper[1]), int(paper[2])),
        colours=colours,
        registration=(int(rng.integers(-2, 3)), int(rng.integers(-2, 3))) if rng.random() < 0.15 else (0, 0),
        border=bool(rng.random() < 0.2),
        bottom_upright=not side_by_side and bool(rng.random() < BOTTOM_UPRIGHT_SHARE),
    )


def _weighted(mask: np.ndarray, weight: float) -> np.ndarray:
    if not weight:
        return mask
    radius = max(1, round(abs(weight) * mask.shape[0]))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    return (cv2.dilate if weight > 0 else cv2.erode)(mask, kernel)


def _fit(mask: np.ndarray, width: float, height: float) -> np.ndarray:
    """The mask shrunk to ``width`` x ``height`` pixels, as a float 0..1 mask."""
    w, h = max(2, round(width)), max(2, round(height))
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def index_mask(
    style: DeckStyle, code: str, face_height: int, suit_shape: float, suit_first: bool = False
) -> np.ndarray:
    """The corner index of ``code`` (rank and suit) as a float 0..1 mask, upright, sized for the face;
    ``suit_first``: the suit over the rank (a deck's bottom index printed upright)."""
    rank_h = style.rank_height * face_height
    suit_h = rank_h * style.suit_ratio
    text = style.rank_text(code[0])
    rank = _weighted(glyph_mask(text, style.rank_font, max(8, round(rank_h))), style.weight)
    if style.suit_font:
        suit = glyph_mask(SUIT_SIGNS[code[1]], style.suit_font, max(8, round(suit_h)))
    else:
        suit = drawn_suit_mask(code[1], max(8, round(suit_h)), suit_shape)
    squeeze = style.condense * (style.ten_condense if text == "10" else 1.0)
    rank_w = rank.shape[1] * rank_h / rank.shape[0] * squeeze
    rank_w = min(rank_w, rank_h * 1.3)  # a wide 10 is squeezed to the column, as printed decks do
    suit_w = suit.shape[1] * suit_h / suit.shape[0]
    rank_f, suit_f = _fit(rank, rank_w, rank_h), _fit(suit, suit_w, suit_h)
    gap = max(1, round(rank_h * 0.08))
    if style.side_by_side:
        height = max(rank_f.shape[0], suit_f.shape[0])
        out = np.zeros((height, rank_f.shape[1] + gap + suit_f.shape[1]), np.float32)
        out[: rank_f.shape[0], : rank_f.shape[1]] = rank_f
        top = (height - suit_f.shape[0]) // 2
        out[top : top + suit_f.shape[0], rank_f.shape[1] + gap :] = suit_f
        return out
    width = max(rank_f.shape[1], suit_f.shape[1])
    out = np.zeros((rank_f.shape[0] + gap + suit_f.shape[0], width), np.float32)
    upper, lower = (suit_f, rank_f) if suit_first else (rank_f, suit_f)
    left = (width - upper.shape[1]) // 2
    out[: upper.shape[0], left : left + upper.shape[1]] = upper
    left = (width - lower.shape[1]) // 2
    out[upper.shape[0] + gap :, left : left + lower.shape[1]] = lower
    return out


def _paint(face: np.ndarray, mask: np.ndarray, x: int, y: int, colour: tuple[int, int, int]) -> None:
    h, w = mask.shape
    region = face[y : y + h, x : x + w, :3]
    alpha = mask[: region.shape[0], : region.shape[1], None]
    mixed = np.multiply(region, 1 - alpha, dtype=np.float32)
    mixed += np.array(colour, np.float32) * alpha
    mixed += 0.5
    np.copyto(region, mixed, casting="unsafe")


def _centre_art(face: np.ndarray, style: DeckStyle, code: str, rng: np.random.Generator, suit_shape: float) -> None:
    """Pips or a rough court picture in the face's middle: context, and "not a card" material."""
    h, w = face.shape[:2]
    colour = style.colours[code[1]]
    x0, x1, y0, y1 = int(w * 0.22), int(w * 0.78), int(h * 0.16), int(h * 0.84)
    if code[0] in "JQK":
        for _ in range(int(rng.integers(6, 14))):
            pts = np.column_stack([rng.uniform(x0, x1, 4), rng.uniform(y0, y1, 4)]).astype(np.int32)
            ink = tuple(int(c) for c in rng.integers(0, 230, 3))
            cv2.fillPoly(face, [pts], (*ink, 255))
        cv2.rectangle(face, (x0, y0), (x1, y1), (*colour, 255), max(1, w // 90))
        return
    count = 1 if code[0] == "A" else int(code[0]) if code[0].isdigit() else 10
    pip_h = int(h * (0.3 if count == 1 else rng.uniform(0.1, 0.14)))
    if style.suit_font:
        pip = glyph_mask(SUIT_SIGNS[code[1]], style.suit_font, max(8, pip_h))
    else:
        pip = drawn_suit_mask(code[1], max(8, pip_h), suit_shape)
    pip_f = _fit(pip, pip.shape[1] * pip_h / pip.shape[0], pip_h)
    columns = 1 if count <= 3 else 2 if count <= 8 else 3
    rows = int(np.ceil(count / columns))
    placed = 0
    for row in range(rows):
        for column in range(columns):
            if placed == count:
                return
            cx = x0 + (x1 - x0) * (column + 0.5) / columns
            cy = y0 + (y1 - y0) * (row + 0.5) / rows
            px, py = int(cx - pip_f.shape[1] / 2), int(cy - pip_f.shape[0] / 2)
            mask = pip_f if row < rows / 2 else pip_f[::-1, ::-1]
            if 0 <= px and px + mask.shape[1] <= w and 0 <= py and py + mask.shape[0] <= h:
                _paint(face, mask, px, py, colour)
            placed += 1


def draw_face(
    style: DeckStyle, code: str, rng: np.random.Generator
) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """One face (BGRA, transparent outside its rounded corners) and its index boxes (face pixels)."""
    h = FACE_HEIGHT
    w = round(h * style.aspect)
    face = np.zeros((h, w, 4), np.uint8)
    radius = max(3, round(w * rng.uniform(0.03, 0.07)))
    cv2.rectangle(face, (radius, 0), (w - 1 - radius, h - 1), (*style.paper, 255), -1)
    cv2.rectangle(face, (0, radius), (w - 1, h - 1 - radius), (*style.paper, 255), -1)
    for cx, cy in (
        (radius, radius),
        (w - 1 - radius, radius),
        (radius, h - 1 - radius),
        (w - 1 - radius, h - 1 - radius),
    ):
        cv2.circle(face, (cx, cy), radius, (*style.paper, 255), -1, lineType=cv2.LINE_AA)
    suit_shape = float(rng.random())
    if style.border:
        inset = round(w * 0.03)
        cv2.rectangle(face, (inset, inset), (w - 1 - inset, h - 1 - inset), (*style.colours[code[1]], 255), 1)
    _centre_art(face, style, code, rng, suit_shape)
    mask = index_mask(style, code, h, suit_shape)
    mh, mw = mask.shape
    x, y = round(style.margin_x * w), round(style.margin_y * h)
    if style.side_by_side:
        x = max(x, round(w * 0.04))
    x, y = min(x, w - mw - 1), min(y, h // 2 - mh)
    places = [(x, y, False), (w - x - mw, h - y - mh, True)]
    if style.four_indices:
        places += [(w - x - mw, y, False), (x, h - y - mh, True)]
    colour = style.colours[code[1]]
    dx, dy = style.registration
    boxes = []
    bottom = index_mask(style, code, h, suit_shape, suit_first=True) if style.bottom_upright else mask[::-1, ::-1]
    for px, py, turned in places:
        ink = bottom if turned else mask
        _paint(face, ink, min(max(0, px + dx), w - mw), min(max(0, py + dy), h - mh), colour)
        boxes.append((px, py, px + mw, py + mh))
    return face, boxes


def random_deck(
    rng: np.random.Generator, rank_fonts: tuple[Path, ...], suit_font_files: tuple[Path, ...]
) -> tuple[DeckStyle, dict[str, np.ndarray], dict[str, list[tuple[int, int, int, int]]]]:
    """A whole procedural deck: its style, its 52 faces (BGRA) and their index boxes."""
    style = random_style(rng, rank_fonts, suit_font_files)
    faces, boxes = {}, {}
    for code in CARD_CODES:
        faces[code], boxes[code] = draw_face(style, code, rng)
    return style, faces, boxes
