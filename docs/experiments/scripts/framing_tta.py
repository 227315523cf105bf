"""framing_tta.py MODELS SEEDROOT OUT.jsonl (session 41): dump_cards.py with the main classifier's reading of every
crop averaged (geometric mean, as the turns are) over more framings of its box: cut at the paddings TTA_PADS (the
reader cuts at vision.crops.CROP_PADDING, 0.15) and, with TTA_SHIFT set, shifted diagonally by that share of the box's
long side four ways."""

import os
import runpy
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "/work/main")
import vision.crop_reading as crop_reading
import vision.detector as detector_module
from vision.crops import CROP_PADDING, crop_indices

PADS = [float(x) for x in os.environ.get("TTA_PADS", "0.08,0.24").split(",") if x]
SHIFT = float(os.environ.get("TTA_SHIFT", "0"))
STASH: dict[int, tuple[list, list]] = {}  # id of the crops as cut -> (them, the crops of every other framing)
cut_crops = crop_reading.crops_of
read_crops = detector_module.CardIndexDetector.classify


def framings(xyxy: np.ndarray) -> list[tuple[float, np.ndarray]]:
    out = [(pad, xyxy) for pad in PADS]
    if SHIFT:
        side = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])[:, None] * SHIFT
        for dx, dy in ((1, 1), (-1, -1), (1, -1), (-1, 1)):
            out.append((CROP_PADDING, xyxy + np.hstack([side * dx, side * dy, side * dx, side * dy])))
    return out


def crops_of(detector, pixels, xyxy, classifiers):
    crops, isolated = cut_crops(detector, pixels, xyxy, classifiers)
    boxes = np.asarray(xyxy, float).reshape(-1, 4)
    size = detector.classifier_imgsz
    STASH[id(crops)] = (crops, [crop_indices(pixels, b, padding=p, size=size) for p, b in framings(boxes)])
    return crops, isolated


def classify(self, classifier, crops, rotations, other_turns_below=1.0):
    as_cut = read_crops(self, classifier, crops, rotations, other_turns_below)
    stashed = STASH.pop(id(crops), None)
    if stashed is None or stashed[0] is not crops or classifier is not self.classifier or not len(crops):
        return as_cut
    others = [read_crops(self, classifier, framed, rotations, other_turns_below) for framed in stashed[1]]
    return detector_module.combine_turns([as_cut, *others])


crop_reading.crops_of = crops_of
detector_module.CardIndexDetector.classify = classify
sys.argv = ["dump_cards.py", *sys.argv[1:]]
runpy.run_path(str(Path(__file__).with_name("dump_cards.py")), run_name="__main__")
