"""(temporary loader until the assets branch lands; replaced by it)"""
from __future__ import annotations
import argparse, json, os
from dataclasses import dataclass
from pathlib import Path
import cv2
import numpy as np
from engine.cards import CARD_CODES

DATASETS = Path(os.environ.get("GINSCORE_DATASETS", Path(__file__).resolve().parents[2] / "datasets"))

@dataclass
class Deck:
    deck_id: str
    name: str
    split: str
    license: str
    faces: dict
    index_boxes: dict

def load_decks(root=None, split=None):
    root = Path(root or DATASETS)
    out = []
    for d in sorted((root / "decks").glob("*/deck.json")):
        meta = json.loads(d.read_text())
        if split and meta.get("split", "train") != split:
            continue
        faces, boxes = {}, {}
        for code in CARD_CODES:
            img = cv2.imread(str(d.parent / f"{code}.png"), cv2.IMREAD_UNCHANGED)
            faces[code] = img
            h, w = img.shape[:2]
            boxes[code] = [(x0 * w, y0 * h, x1 * w, y1 * h) for x0, y0, x1, y1 in meta["index_regions"][code]]
        out.append(Deck(d.parent.name, meta["name"], meta.get("split", "train"), meta.get("license", ""), faces, boxes))
    return out

def load_backs(root=None):
    root = Path(root or DATASETS)
    return [cv2.imread(str(p), cv2.IMREAD_UNCHANGED) for p in sorted((root / "backs").glob("*.png"))]

def load_surface_photos(root=None):
    root = Path(root or DATASETS)
    return sorted((root / "surfaces").glob("*.jpg"))

def add_commands(commands: "argparse._SubParsersAction") -> None:
    pass
