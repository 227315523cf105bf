"""The crops the reader itself cuts in rendered scenes of the held-out decks, labelled, for measuring classifiers.

    python3 benchmarks/reader_crops.py SCENES --out DIR [--models DIR]

SCENES: a folder of ``ginscore synth`` datasets, one a deck (as ``benchmarks/heldout_decks.py --out`` keeps them:
``seed39-scenes100-1280px-photos/<deck>/``). Each scene is read by the product's first steps (the detector's
proposals and its second pass, ``vision.recognise``); every proposed box that lies on a labelled index (IoU 0.5 or
more) is cut as the reader cuts it (``vision.crop_reading.crops_of``) and written, lossless, to
``DIR/<deck>/val/<code>/`` (each name ends with the box's long side in the photo, in px). Then ``python3 benchmarks/heldout_crops.py W... --folders DIR/* --rotations 4``
reads them as the reader would: the classifier's share of the crops that decide the held-out scenes' cards.
Crops of held-out scenes are for evaluation only: never train on them. Crops of scenes of the training decks
(``ginscore synth --out S/train --count N --imgsz 1280``, then this script on ``S``) are the reader's own kind of
crop for training: crops-run4 learned from 20,986 of them (``models/TRAINING_LEDGER.md``; swap red and blue for
a classifier that reads BGR). ``--nones`` also writes the proposals that touch no index, labelled or hidden, as
``none`` crops: the reader's own "not a card" (a pip, a court picture, a score pad's writing, a card back's print),
for training only; crops-run5 learned from 10,491 of them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

MATCH_IOU = 0.5
# --nones: a proposal that touches no index, labelled or hidden (overlap of the smaller box below this), is the
# reader's own kind of "not a card" crop: a pip, a court picture, a card's edge or the table's print
NONE_OVERLAP = 0.1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", type=Path, help="a folder of ginscore synth datasets, one a deck")
    parser.add_argument("--out", type=Path, required=True, help="where the labelled crops are written")
    parser.add_argument("--models", type=Path, default=None, help="the reader whose boxes cut the crops")
    parser.add_argument(
        "--nones",
        action="store_true",
        help="also write proposals that touch no index, labelled or hidden, to <deck>/val/none/ (training data)",
    )
    args = parser.parse_args()
    if not args.scenes.is_dir():
        parser.error(f"{args.scenes}: no such folder")

    import cv2
    import numpy as np

    from vision.crop_reading import crops_of
    from vision.detections import HIDDEN_LABELS, box_iou, box_overlap_of_smaller, read_yolo_labels
    from vision.detector import load_detector
    from vision.evaluation.calibration import scene_images, scene_label_codes
    from vision.proposals import propose_boxes, second_pass
    from vision.recognise import recognise

    detector = load_detector(args.models)
    started = time.perf_counter()
    for deck in sorted(path for path in args.scenes.iterdir() if (path / "data.yaml").is_file()):
        codes = scene_label_codes(deck)
        written = boxes = nones = 0
        for image_path in scene_images(deck):
            image = cv2.imread(str(image_path))
            size = (image.shape[1], image.shape[0])
            labels = read_yolo_labels(deck / "labels" / image_path.parent.name / f"{image_path.stem}.txt", codes, size)
            proposed = recognise(image, detector=detector, steps=(propose_boxes, second_pass)).detections
            boxes += len(labels)
            if args.nones and len(proposed):
                hidden_path = deck / HIDDEN_LABELS / image_path.parent.name / f"{image_path.stem}.txt"
                hidden = read_yolo_labels(hidden_path, codes, size) if hidden_path.is_file() else None
                indices = [found.xyxy for found in (labels, hidden) if found is not None and len(found)]
                touching = np.zeros(len(proposed), dtype=bool)
                for xyxy in indices:
                    touching |= box_overlap_of_smaller(proposed.xyxy, xyxy).max(axis=1) >= NONE_OVERLAP
                away = ~touching
                if away.any():
                    folder = args.out / deck.name / "val" / "none"
                    folder.mkdir(parents=True, exist_ok=True)
                    crops, _ = crops_of(detector, image, proposed.xyxy[away], detector.settings.classifiers)
                    for k, (crop, side) in enumerate(zip(crops, proposed.long_sides[away], strict=True)):
                        cv2.imwrite(str(folder / f"{image_path.stem}_n{k:02d}_{side:.0f}px.png"), crop)
                        nones += 1
            if not len(labels) or not len(proposed):
                continue
            overlap = box_iou(proposed.xyxy, labels.xyxy)
            on_index = overlap.max(axis=1) >= MATCH_IOU
            crops, _ = crops_of(detector, image, proposed.xyxy[on_index], detector.settings.classifiers)
            sides = proposed.long_sides[on_index]
            for k, (row, crop) in enumerate(zip(overlap[on_index].argmax(axis=1), crops, strict=True)):
                folder = args.out / deck.name / "val" / labels.codes[row]
                folder.mkdir(parents=True, exist_ok=True)
                # the name ends with the box's long side in the photo, px: the measure of legibility
                cv2.imwrite(str(folder / f"{image_path.stem}_{k:02d}_{sides[k]:.0f}px.png"), crop)
                written += 1
        elsewhere = f", {nones} on no index" if args.nones else ""
        print(f"{deck.name}: {written} crops of proposals on {boxes} labelled indices{elsewhere}", flush=True)
    print(f"{time.perf_counter() - started:.0f} s; read them with benchmarks/heldout_crops.py --folders {args.out}/*")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
