"""How well the classifiers read real-val's labelled index boxes, crops as cut against white-balanced.

The detector is left out: every labelled corner-index box of real-val (the originals, and the zoom x2
and x3 crops of ``ginscore eval --zoom``) is cropped as the product crops it and read by the models
folder's classifiers as ``vision.crop_reading.read_boxes`` reads it (``gated_readings``). Prints, per variant, how
many boxes read as the right card, and lists the wrong ones (photo:labelled->read; ``none``: a crop the
reject gate turned away as not a card).

    python3 benchmarks/crop_reading.py [--models DIR] [--padding 0.15]

Session 5 used it to choose ``vision.crops.balance_white`` (models/MODEL_CARD.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine.cards import CARD_CODES  # noqa: E402
from vision.crop_reading import gated_readings  # noqa: E402
from vision.crops import CROP_PADDING, crop_index  # noqa: E402
from vision.decode import decode_image  # noqa: E402
from vision.detections import canonical_code, read_yolo_labels  # noqa: E402
from vision.detector import load_detector  # noqa: E402
from vision.evaluation.evaluate import check_eval_folder, zoom_variants  # noqa: E402
from vision.proposals import decode_side  # noqa: E402

REAL_VAL = REPO / "datasets" / "real" / "real-val"


def labelled_boxes(detector) -> dict[str, list[tuple[np.ndarray, np.ndarray, list[str], str]]]:
    """Per variant: (pixels, labelled boxes in those pixels, their codes, a name) of each image."""
    codes = [canonical_code(c) for c in (REAL_VAL / "classes.txt").read_text().split()]
    variants: dict[str, list] = {"original": [], "zoom x2": [], "zoom x3": []}
    for path in check_eval_folder(REAL_VAL):
        full = decode_image(path)
        labels = read_yolo_labels(REAL_VAL / "labels" / f"{path.stem}.txt", codes, full.original_size)
        photo = decode_image(path, max_side=decode_side(detector.settings, detector.settings.detector.imgsz))
        scale = photo.pixels.shape[1] / full.original_size[0]
        variants["original"].append((photo.pixels, labels.xyxy * scale, list(labels.codes), path.stem))
        for zoom in (2, 3):
            for k, (pixels, zoomed) in enumerate(zoom_variants(full.pixels, labels, zoom)):
                if len(zoomed):
                    variants[f"zoom x{zoom}"].append((pixels, zoomed.xyxy, list(zoomed.codes), f"{path.stem}q{k}"))
    return variants


def read(detector, pixels: np.ndarray, xyxy: np.ndarray, balance: bool, padding: float) -> list[str]:
    """The card each box reads as: the product's classifiers on crops cut as asked."""
    crops = [
        crop_index(pixels, tuple(box), padding=padding, size=detector.classifier_imgsz, balance=balance) for box in xyxy
    ]
    isolate = detector.settings.classifiers.isolate
    isolated = (
        [
            crop_index(
                pixels, tuple(box), padding=padding, size=detector.classifier_imgsz, balance=balance, isolate=isolate
            )
            for box in xyxy
        ]
        if isolate > 0
        else None
    )
    card_ids, probabilities = gated_readings(detector, crops, isolated)
    return [CARD_CODES[int(i)] if p > 0 else "none" for i, p in zip(card_ids[:, 0], probabilities[:, 0], strict=True)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, help="models folder (default: models/)")
    parser.add_argument("--padding", type=float, default=CROP_PADDING)
    args = parser.parse_args()
    detector = load_detector(args.models)
    variants = labelled_boxes(detector)
    for balance in (False, True):
        start = time.perf_counter()
        print(f"crops {'white-balanced' if balance else 'as cut'} (padding {args.padding}):")
        for name, images in variants.items():
            right, total, wrong = 0, 0, []
            for pixels, xyxy, codes, stem in images:
                for code, read_as in zip(codes, read(detector, pixels, xyxy, balance, args.padding), strict=True):
                    total += 1
                    right += read_as == code
                    if read_as != code:
                        wrong.append(f"{stem}:{code}->{read_as}")
            print(f"  {name:<9} {right}/{total} = {right / max(total, 1):.4f}  wrong: {' '.join(wrong) or '-'}")
        print(f"  ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
