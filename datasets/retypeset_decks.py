"""Decks whose corner indices are set again in other typefaces: more index lettering for the classifier.

The classifier reads a card from its corner index alone, and every packaged deck letters its indices
in one of a few sans-serif faces. Photographed decks often use thin serif faces (real-val's deck: a
thin serif 3, 6, 8 and 10 that the reader confuses), so this stage takes a packaged deck, paints its
two corner indices out with the card's own paper colour and sets them again, rank over suit, in a
serif, condensed or stroke typeface, at a random weight. Pips and court pictures stay the base deck's.

Usage (from the repository root)::

    python3 datasets/build_assets.py retypeset        # writes datasets/decks/<base>_<typeface>/

Typefaces come from Debian's fonts-dejavu-core and fonts-liberation (``/usr/share/fonts``; the
committed copies under ``datasets/fonts`` are used first); the suit signs are DejaVu Sans's. The output faces are committed like every other deck (datasets/NOTICE.md).
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from engine.cards import CARD_CODES  # noqa: E402

DATASETS = REPO / "datasets"
FONT_FOLDERS = (
    DATASETS / "fonts",
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/truetype/liberation"),
    Path("/usr/share/fonts/truetype/liberation2"),
)
SUIT_FONT = "DejaVuSans.ttf"
SUIT_SIGNS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
RANK_TEXT = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K", **{str(n): str(n) for n in range(2, 10)}}
SUPERSAMPLE = 8  # glyphs are drawn this many times larger, then shrunk: smooth, thin strokes survive


@dataclass(frozen=True)
class Typeface:
    """How the ranks are lettered: a TrueType file, its weight changed or not, condensed or not."""

    name: str
    font_file: str
    weight: float = 0.0  # > 0 thickens, < 0 thins the strokes (a fraction of the glyph height)
    condense: float = 1.0  # horizontal scale of the rank (real decks squeeze their 10)
    license: str = ""


TYPEFACES = (
    Typeface("times", "LiberationSerif-Regular.ttf", license="OFL-1.1 (Liberation)"),
    Typeface("times_thin", "LiberationSerif-Regular.ttf", weight=-0.008, condense=0.85, license="OFL-1.1 (Liberation)"),
    Typeface("times_bold", "LiberationSerif-Bold.ttf", condense=0.9, license="OFL-1.1 (Liberation)"),
    Typeface(
        "serif_condensed", "DejaVuSerifCondensed.ttf", condense=0.9, license="Bitstream Vera / public domain (DejaVu)"
    ),
    Typeface(
        "serif_condensed_bold",
        "DejaVuSerifCondensed-Bold.ttf",
        condense=0.85,
        license="Bitstream Vera / public domain (DejaVu)",
    ),
    Typeface("sans_narrow", "LiberationSansNarrow-Regular.ttf", license="OFL-1.1 (Liberation)"),
)

# (base deck, typeface): base decks whose index corners sit on plain paper (no frame line to paint over)
RETYPESET = (
    ("anglo", "times"),
    ("neoclassical", "times"),
    ("kennard_2color", "times_thin"),
    ("younestouati", "times_thin"),
    ("anglo_poker", "times_bold"),
    ("anglo_modern", "times_bold"),
    ("pypokergui", "serif_condensed"),
    ("simplistic", "serif_condensed"),
    ("plastic", "serif_condensed_bold"),
    ("tigullio", "sans_narrow"),
)
RED = (196, 24, 36)  # RGB
BLACK = (24, 24, 28)


def font_path(name: str) -> Path:
    for folder in FONT_FOLDERS:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(
        f"font {name} not found in {', '.join(map(str, FONT_FOLDERS))}: "
        "install Debian's fonts-dejavu-core and fonts-liberation2"
    )


def ink_box(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask > 40)
    if not len(xs):
        raise ValueError("nothing was drawn")
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def glyph_mask(text: str, typeface: Typeface, height: int) -> np.ndarray:
    """A tight ink mask (uint8, 0..255) of ``text`` about ``height`` * SUPERSAMPLE px high."""
    from PIL import Image, ImageDraw, ImageFont

    big = height * SUPERSAMPLE
    font = ImageFont.truetype(str(font_path(typeface.font_file)), big)
    image = Image.new("L", (big * 2 * max(1, len(text)), big * 2), 0)
    ImageDraw.Draw(image).text((big // 2, big // 4), text, font=font, fill=255)
    canvas = np.asarray(image).copy()
    if typeface.weight:
        radius = max(1, round(abs(typeface.weight) * big))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
        canvas = (cv2.dilate if typeface.weight > 0 else cv2.erode)(canvas, kernel)
    x0, y0, x1, y1 = ink_box(canvas)
    return canvas[y0:y1, x0:x1]


def suit_mask(suit: str, height: int) -> np.ndarray:
    return glyph_mask(SUIT_SIGNS[suit], Typeface("suit", SUIT_FONT), height)


def index_patch(code: str, typeface: Typeface, box_w: int, box_h: int, rng: np.random.Generator) -> np.ndarray:
    """The index of ``code`` (rank over suit) as a float mask 0..1 fitting a box_w x box_h box."""
    rank_h = box_h * rng.uniform(0.5, 0.58)
    suit_h = box_h * rng.uniform(0.3, 0.36)
    gap = box_h * rng.uniform(0.03, 0.08)
    rank = glyph_mask(RANK_TEXT[code[0]], typeface, max(8, round(rank_h)))
    suit = suit_mask(code[1], max(8, round(suit_h)))
    scale = rank_h / rank.shape[0]
    rank_w = rank.shape[1] * scale * typeface.condense
    if rank_w > box_w:  # a wide 10: squeeze it to the box, as printed decks do
        rank_w = box_w
    suit_w = suit.shape[1] * suit_h / suit.shape[0]
    if suit_w > box_w:
        suit_h, suit_w = suit_h * box_w / suit_w, box_w
    width = int(np.ceil(max(rank_w, suit_w))) + 2
    height = int(np.ceil(rank_h + gap + suit_h)) + 2
    patch = np.zeros((height, width), np.float32)
    for mask, w, h, top in ((rank, rank_w, rank_h, 0.0), (suit, suit_w, suit_h, rank_h + gap)):
        w_px, h_px = max(2, round(w)), max(2, round(h))
        small = cv2.resize(mask, (w_px, h_px), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        left = (width - w_px) // 2
        top_px = round(top) + 1
        region = patch[top_px : top_px + h_px, left : left + w_px]
        np.maximum(region, small[: region.shape[0], : region.shape[1]], out=region)
    return patch


def paper_colour(face: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The median colour of the opaque pixels in a thin ring around ``box`` (the paper round the index)."""
    x0, y0, x1, y1 = box
    height, width = face.shape[:2]
    ring = np.zeros((height, width), bool)
    ring[max(0, y0 - 4) : min(height, y1 + 4), max(0, x0 - 4) : min(width, x1 + 4)] = True
    ring[max(0, y0) : min(height, y1), max(0, x0) : min(width, x1)] = False
    pixels = face[ring & (face[:, :, 3] > 200)][:, :3]
    if not len(pixels):
        return np.array([250, 250, 250], np.float32)
    # the paper is the bright part of the ring (a pip or a frame may touch it)
    bright = pixels[pixels.sum(axis=1) >= np.percentile(pixels.sum(axis=1), 50)]
    return np.median(bright, axis=0).astype(np.float32)


def retypeset_face(
    face: np.ndarray, code: str, regions: list[list[float]], typeface: Typeface, rng: np.random.Generator
) -> tuple[np.ndarray, list[list[float]]]:
    """``face`` (RGBA) with its two corner indices (top-left, bottom-right) painted out and set again."""
    height, width = face.shape[:2]
    out = face.astype(np.float32)
    boxes = [
        (int(np.floor(x0 * width)), int(np.floor(y0 * height)), int(np.ceil(x1 * width)), int(np.ceil(y1 * height)))
        for x0, y0, x1, y1 in regions
    ]
    top_left = min(boxes, key=lambda b: b[0] + b[1])
    for x0, y0, x1, y1 in boxes:
        grown = (max(0, x0 - 2), max(0, y0 - 2), min(width, x1 + 2), min(height, y1 + 2))
        colour = paper_colour(face, grown)
        out[grown[1] : grown[3], grown[0] : grown[2], :3] = colour
    x0, y0, x1, y1 = top_left
    patch = index_patch(code, typeface, x1 - x0, y1 - y0, rng)
    ph, pw = patch.shape
    left = int(round((x0 + x1) / 2 - pw / 2))
    top = y0
    colour = np.array(RED if code[1] in "hd" else BLACK, np.float32)
    new_regions = []
    for corner in ("tl", "br"):
        mask = patch if corner == "tl" else patch[::-1, ::-1]
        px, py = (left, top) if corner == "tl" else (width - left - pw, height - top - ph)
        px, py = max(0, min(width - pw, px)), max(0, min(height - ph, py))
        alpha = mask[:, :, None]
        target = out[py : py + ph, px : px + pw, :3]
        out[py : py + ph, px : px + pw, :3] = target * (1 - alpha) + colour * alpha
        ix0, iy0, ix1, iy1 = ink_box((mask * 255).astype(np.uint8))
        new_regions.append(
            [
                round((px + ix0) / width, 4),
                round((py + iy0) / height, 4),
                round((px + ix1) / width, 4),
                round((py + iy1) / height, 4),
            ]
        )
    return np.clip(out + 0.5, 0, 255).astype(np.uint8), new_regions


def build_retypeset_decks(save_png, pairs=RETYPESET) -> list[str]:
    """Write datasets/decks/<base>_<typeface>/ for each (base, typeface) pair; returns the deck ids."""
    typefaces = {t.name: t for t in TYPEFACES}
    built = []
    for base_id, typeface_name in pairs:
        typeface = typefaces[typeface_name]
        base = DATASETS / "decks" / base_id
        meta = json.loads((base / "deck.json").read_text())
        if meta["split"] != "train":
            raise ValueError(f"{base_id} is a held-out deck: retypeset only training decks")
        deck_id = f"{base_id}_{typeface_name}"
        folder = DATASETS / "decks" / deck_id
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        rng = np.random.default_rng(len(built) + 1)
        regions = {}
        for code in CARD_CODES:
            bgra = cv2.imread(str(base / f"{code}.png"), cv2.IMREAD_UNCHANGED)
            face = cv2.cvtColor(bgra, cv2.COLOR_BGRA2RGBA)
            if len(meta["index_regions"][code]) != 2:
                raise ValueError(f"{base_id} {code}: expected two corner indices")
            face, regions[code] = retypeset_face(face, code, meta["index_regions"][code], typeface, rng)
            save_png(face, folder / f"{code}.png")
        (folder / "deck.json").write_text(
            json.dumps(
                {
                    "name": f"{meta['name']}, indices set in {typeface_name.replace('_', ' ')}",
                    "source": f"decks/{base_id} (retypeset by datasets/retypeset_decks.py)",
                    "license": f"{meta['license']}; lettering: {typeface.license}",
                    "split": "train",
                    "corners": ["tl", "br"],
                    "index_regions": regions,
                },
                indent=1,
            )
            + "\n"
        )
        print(f"{deck_id:36s} from {base_id} in {typeface_name}", flush=True)
        built.append(deck_id)
    return built


def retypeset_notice(pairs=RETYPESET) -> list[str]:
    """datasets/NOTICE.md's lines for the retypeset decks."""
    typefaces = {t.name: t for t in TYPEFACES}
    lines = [
        "",
        "## Retypeset decks (`decks/<base>_<typeface>/`)",
        "",
        "A training deck's faces with both corner indices painted out and set again in another",
        "typeface by `datasets/retypeset_decks.py` (suit signs: DejaVu Sans). Each stays under its base",
        "deck's licence; the lettering's font is under its own (fonts-dejavu-core: Bitstream Vera",
        "licence with DejaVu's public-domain changes; fonts-liberation: SIL Open Font License 1.1).",
        "",
        "| deck | base deck | typeface | font file | split |",
        "|---|---|---|---|---|",
    ]
    for base_id, name in pairs:
        lines.append(
            f"| {base_id}_{name} | {base_id} | {name.replace('_', ' ')} | {typefaces[name].font_file} | train |"
        )
    return lines
