"""How the shipped detector's boxes sit around real corner indices: the framing the crop renderer samples.

Reads the labelled real photos (default real-val) with the product's reader and pairs every labelled index
box with the reader's box of the same card that overlaps it most (IoU >= 0.3). For each pair it measures the
detector box's centre offset (a fraction of the label's width and height) and its sides' log ratio to the
label's, and prints their mean and standard deviation, beside the renderer's settings
(``vision.training.synth.index_crops.BOX_CENTRE_SD``, ``BOX_LOG_SIDE_MEAN``, ``BOX_LOG_SIDE_SD``)::

    python3 benchmarks/detector_framing.py [FOLDER ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine.cards import CARD_CODES  # noqa: E402
from vision.detections import box_iou  # noqa: E402
from vision.recognise import read_photo  # noqa: E402
from vision.training.synth.index_crops import BOX_CENTRE_SD, BOX_LOG_SIDE_MEAN, BOX_LOG_SIDE_SD  # noqa: E402


def label_boxes(label_file: Path, names: list[str], width: int, height: int) -> list[tuple[str, np.ndarray]]:
    out = []
    for line in label_file.read_text().split("\n"):
        if not line.strip():
            continue
        cls, cx, cy, w, h = line.split()[:5]
        x, y, bw, bh = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        out.append((names[int(cls)], np.array([x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2])))
    return out


def framing(folder: Path) -> np.ndarray:
    """(N, 5): centre offset x, y (of the label's size), log width and height ratio, IoU, per matched box."""
    names = (folder / "classes.txt").read_text().split()
    if set(names) - set(CARD_CODES):
        raise ValueError(f"{folder}: classes.txt names {sorted(set(names) - set(CARD_CODES))}, not card codes")
    rows = []
    for image_path in sorted((folder / "images").iterdir()):
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        height, width = image.shape[:2]
        reading = read_photo(image)
        found = [(card.card, np.array(box)) for card in reading.cards for box in card.boxes]
        for code, label in label_boxes(folder / "labels" / f"{image_path.stem}.txt", names, width, height):
            same = [box for read, box in found if read == code]
            if not same:
                continue
            overlaps = box_iou(label[None], np.array(same))[0]
            best, overlap = same[int(overlaps.argmax())], float(overlaps.max())
            if overlap < 0.3:
                continue
            lw, lh = label[2] - label[0], label[3] - label[1]
            bw, bh = best[2] - best[0], best[3] - best[1]
            rows.append(
                (
                    ((best[0] + best[2]) - (label[0] + label[2])) / 2 / lw,
                    ((best[1] + best[3]) - (label[1] + label[3])) / 2 / lh,
                    np.log(bw / lw),
                    np.log(bh / lh),
                    overlap,
                )
            )
    return np.array(rows).reshape(-1, 5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[REPO / "datasets" / "real" / "real-val"])
    args = parser.parse_args()
    for folder in args.folders:
        rows = framing(folder)
        if not len(rows):
            print(f"{folder.name}: no labelled index matched a box of the reader")
            continue
        mean, sd = rows.mean(axis=0), rows.std(axis=0)
        print(
            f"{folder.name}: {len(rows)} labelled indices matched (IoU >= 0.3), median IoU {np.median(rows[:, 4]):.3f}"
        )
        for i, name in enumerate(("centre x / width", "centre y / height", "log width ratio", "log height ratio")):
            print(f"  {name:18s} mean {mean[i]:+.3f}  sd {sd[i]:.3f}")
    print(f"renderer: centre sd {BOX_CENTRE_SD}, log side ratio mean {BOX_LOG_SIDE_MEAN} sd {BOX_LOG_SIDE_SD} (x, y)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
