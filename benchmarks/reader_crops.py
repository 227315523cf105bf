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
a classifier that reads BGR).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

MATCH_IOU = 0.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", type=Path, help="a folder of ginscore synth datasets, one a deck")
    parser.add_argument("--out", type=Path, required=True, help="where the labelled crops are written")
    parser.add_argument("--models", type=Path, default=None, help="the reader whose boxes cut the crops")
    args = parser.parse_args()
    if not args.scenes.is_dir():
        parser.error(f"{args.scenes}: no such folder")

    import cv2

    from vision.crop_reading import crops_of
    from vision.detections import box_iou, read_yolo_labels
    from vision.detector import load_detector
    from vision.evaluation.calibration import scene_images, scene_label_codes
    from vision.proposals import propose_boxes, second_pass
    from vision.recognise import recognise

    detector = load_detector(args.models)
    started = time.perf_counter()
    for deck in sorted(path for path in args.scenes.iterdir() if (path / "data.yaml").is_file()):
        codes = scene_label_codes(deck)
        written = boxes = 0
        for image_path in scene_images(deck):
            image = cv2.imread(str(image_path))
            size = (image.shape[1], image.shape[0])
            labels = read_yolo_labels(deck / "labels" / image_path.parent.name / f"{image_path.stem}.txt", codes, size)
            proposed = recognise(image, detector=detector, steps=(propose_boxes, second_pass)).detections
            boxes += len(labels)
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
        print(f"{deck.name}: {written} crops of proposals on {boxes} labelled indices", flush=True)
    print(f"{time.perf_counter() - started:.0f} s; read them with benchmarks/heldout_crops.py --folders {args.out}/*")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
