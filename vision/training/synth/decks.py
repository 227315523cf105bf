"""The card art the scene generator draws from: decks, card backs and table photos.

Assets live in the repository's ``datasets/`` folder (rebuilt by ``datasets/build_assets.py``):

- ``decks/<deck_id>/<code>.png``: the 52 faces of a deck (RGBA, cropped to the card,
  transparent outside its rounded corners), plus ``deck.json`` with the name, source, licence,
  split (``train`` or held-out ``val``) and the corner-index boxes as fractions of the card.
- ``backs/<name>.png``: card backs (hard negatives), RGBA like the faces.
- ``surfaces/<name>.jpg``: table-surface photos.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.cards import CARD_CODES
from vision.paths import DATASETS_DIR

DATASETS = DATASETS_DIR
SPLITS = ("train", "val")

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Deck:
    """One deck design: 52 RGBA faces and, per face, the boxes of its printed corner indices."""

    deck_id: str
    name: str
    split: str
    license: str
    source: str = ""
    faces: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    index_boxes: dict[str, list[Box]] = field(default_factory=dict, repr=False)

    @property
    def face_size(self) -> tuple[int, int]:
        """(width, height) of the faces in pixels."""
        height, width = next(iter(self.faces.values())).shape[:2]
        return width, height

    def __repr__(self) -> str:
        return (
            f"Deck({self.deck_id!r}, split={self.split!r}, faces={len(self.faces)}, "
            f"size={self.face_size if self.faces else None})"
        )


def _read_rgba(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGBA")).copy()


def load_deck(folder: Path) -> Deck:
    """Load one deck folder (52 PNG faces + deck.json)."""
    meta_path = folder / "deck.json"
    if not meta_path.is_file():
        raise FileNotFoundError(f"{meta_path} is missing: rebuild with datasets/build_assets.py")
    meta = json.loads(meta_path.read_text())
    faces: dict[str, np.ndarray] = {}
    boxes: dict[str, list[Box]] = {}
    for code in CARD_CODES:
        face_path = folder / f"{code}.png"
        if not face_path.is_file():
            raise FileNotFoundError(f"deck {folder.name} lacks {face_path.name}")
        face = _read_rgba(face_path)
        height, width = face.shape[:2]
        faces[code] = face
        boxes[code] = [
            (round(x0 * width), round(y0 * height), round(x1 * width), round(y1 * height))
            for x0, y0, x1, y1 in meta["index_regions"].get(code, [])
        ]
    return Deck(folder.name, meta["name"], meta["split"], meta["license"], meta.get("source", ""), faces, boxes)


def deck_folders(root: Path | str | None = None, split: str | None = None) -> list[Path]:
    """Deck folders under ``<root>/decks`` (sorted by deck id), optionally only those of one split (train / val)."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: use one of {', '.join(SPLITS)}")
    decks_root = Path(root or DATASETS) / "decks"
    if not decks_root.is_dir():
        raise FileNotFoundError(f"no deck folder at {decks_root}: run datasets/build_assets.py")
    folders = sorted(path for path in decks_root.iterdir() if (path / "deck.json").is_file())
    if split is None:
        return folders
    return [folder for folder in folders if json.loads((folder / "deck.json").read_text())["split"] == split]


def load_decks(root: Path | str | None = None, split: str | None = None) -> list[Deck]:
    """All decks under ``<root>/decks``, optionally only those of one split (train / val)."""
    return [load_deck(folder) for folder in deck_folders(root, split)]


def load_backs(root: Path | str | None = None) -> list[np.ndarray]:
    """Card backs (RGBA uint8), one per design."""
    return [_read_rgba(path) for path in sorted((Path(root or DATASETS) / "backs").glob("*.png"))]


def surface_photo_paths(root: Path | str | None = None) -> list[Path]:
    """Paths of the table-surface photos."""
    return sorted((Path(root or DATASETS) / "surfaces").glob("*.jpg"))


def load_surface_photos(root: Path | str | None = None) -> list[np.ndarray]:
    """Table-surface photos as BGR uint8 arrays (OpenCV order)."""
    import cv2

    photos = []
    for path in surface_photo_paths(root):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"cannot read surface photo {path}")
        photos.append(image)
    return photos


SHEET_CODES = ("As", "Th", "7c", "Qd", "Ks", "Jh")


def draw_contact_sheet(
    decks: list[Deck], out_path: Path | str, codes: tuple[str, ...] = SHEET_CODES, card_height: int = 170
) -> Path:
    """Write a PNG showing a few faces of every deck with their index boxes drawn on."""
    from PIL import Image, ImageDraw

    if not decks:
        raise ValueError("no decks to draw")
    label_w, pad = 190, 6
    card_w = round(card_height * 0.75)
    sheet = Image.new(
        "RGB", (label_w + len(codes) * (card_w + pad) + pad, len(decks) * (card_height + pad) + pad), (40, 90, 60)
    )
    draw = ImageDraw.Draw(sheet)
    for row, deck in enumerate(decks):
        top = pad + row * (card_height + pad)
        draw.text((pad, top + 4), deck.deck_id, fill=(255, 255, 255))
        draw.text((pad, top + 20), f"{deck.split}  {deck.license[:28]}", fill=(220, 220, 150))
        for column, code in enumerate(codes):
            face = Image.fromarray(deck.faces[code], "RGBA")
            scale = card_height / face.height
            face = face.resize((round(face.width * scale), card_height), Image.Resampling.LANCZOS)
            face_draw = ImageDraw.Draw(face)
            for x0, y0, x1, y1 in deck.index_boxes[code]:
                face_draw.rectangle(
                    [x0 * scale, y0 * scale, x1 * scale - 1, y1 * scale - 1], outline=(0, 200, 255, 255), width=1
                )
            sheet.paste(face, (label_w + pad + column * (card_w + pad), top), face)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out_path)
    return out_path


def run_decks(args: argparse.Namespace) -> int:
    """``ginscore decks``: list the decks, optionally write a contact sheet."""
    decks = load_decks(args.root, args.split)
    if not decks:
        raise ValueError(
            f"no decks found under {args.root or DATASETS}" + (f" with split {args.split}" if args.split else "")
        )
    print(f"{'deck':30s} {'split':5s} {'faces':>5s} {'size':>9s}  licence")
    for deck in decks:
        width, height = deck.face_size
        print(f"{deck.deck_id:30s} {deck.split:5s} {len(deck.faces):5d} {width:4d}x{height:<4d}  {deck.license}")
    print(
        f"{len(decks)} decks, {len(load_backs(args.root))} backs, {len(surface_photo_paths(args.root))} surface photos"
    )
    if args.contact_sheet:
        path = draw_contact_sheet(decks, args.contact_sheet)
        print(f"contact sheet: {path}")
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore decks`` on the ``ginscore`` parser."""
    parser = commands.add_parser(
        "decks",
        help="list the card decks used for synthetic data",
        description="List the deck designs (card art) and optionally draw a contact sheet with their index boxes.",
    )
    parser.add_argument(
        "--contact-sheet", metavar="OUT.png", help="write a PNG with a few faces of every deck and their index boxes"
    )
    parser.add_argument("--split", choices=SPLITS, help="only decks of this split")
    parser.add_argument("--root", help="datasets folder (default: the repository's datasets/)")
    parser.set_defaults(run=run_decks)
