"""How well each classifier reads index crops of the five held-out decks: the quick measure for choosing one.

Draws ``--crops`` crops of each held-out deck with the crop renderer (``ginscore crops --deck``: on procedural
tables, framed as the detector frames real indices; seeded, the same crops for every classifier) and reads
them with each weights file as the reader reads a crop (``vision.detector.classify_crops``, at ``--rotations``
quarter turns, resized to the size the classifier was trained at: ``vision.detector.crops_for``). Prints, per deck
and over all, the share read as the right card, beside each file::

    python3 benchmarks/heldout_crops.py models/card_index_classifier.pt runs/crops-run1/weights/best.pt

``--folders F...`` reads crops already written instead: each F a crops dataset of one held-out deck
(``<split>/<code>/*.jpg``, as ``ginscore synth --crops`` or ``ginscore crops`` write it; ``--crops`` of each,
sorted by name). Crops of the scene renderer against those of the crop renderer is issue 39's check that the
two agree.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.detector import classify_crops, crops_for, prepare_ultralytics, use_all_cores  # noqa: E402
from vision.paths import DATASETS_DIR  # noqa: E402
from vision.training.synth.decks import deck_folders  # noqa: E402
from vision.training.synth.index_crops import load_renderer  # noqa: E402


def draw(folder: Path, count: int, seed: int) -> tuple[list[str], list[np.ndarray]]:
    renderer = load_renderer("val", seed, (folder,))
    rng = np.random.default_rng(seed)
    names, crops = [], []
    for _ in range(count):
        name, crop = renderer.crop(rng)
        names.append(name)
        crops.append(crop)
    return names, crops


def read_folder(folder: Path, count: int) -> tuple[list[str], list[np.ndarray]]:
    """Up to ``count`` crops of a written crops dataset, as the reader holds them (BGR), with their codes."""
    import cv2

    files = sorted(f for f in folder.glob("*/*/*") if f.suffix in (".jpg", ".png"))[:count]
    if not files:
        raise SystemExit(f"{folder}: no crops (<split>/<code>/*.jpg) found")
    return [f.parent.name for f in files], [cv2.imread(str(f)) for f in files]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", nargs="+", type=Path, help="classifier weights files")
    parser.add_argument("--crops", type=int, default=1000, help="crops per held-out deck (default 1000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rotations", type=int, choices=[1, 2, 4], default=1, help="quarter turns read (default 1)")
    parser.add_argument("--channels", choices=["bgr", "rgb"], default="bgr", help="the order the classifiers read")
    parser.add_argument("--folders", nargs="+", type=Path, help="read these crops datasets instead of drawing crops")
    args = parser.parse_args()
    missing = [str(w) for w in args.weights if not w.is_file()]
    if missing:
        parser.error(f"no such weights file: {', '.join(missing)}")
    prepare_ultralytics()
    use_all_cores()
    from ultralytics import YOLO

    started = time.perf_counter()
    if args.folders:
        decks = {str(folder): read_folder(folder, args.crops) for folder in args.folders}
    else:
        decks = {folder.name: draw(folder, args.crops, args.seed) for folder in deck_folders(DATASETS_DIR, split="val")}
    print(f"{args.crops} crops of each of {len(decks)} held-out decks ready in {time.perf_counter() - started:.0f} s")
    labels = [Path(name).parent.name if Path(name).name == "crops" else Path(name).name for name in decks]
    header = "classifier".ljust(48) + "".join(label[:12].rjust(13) for label in labels) + "all".rjust(8)
    print(header)
    for weights in args.weights:
        model = YOLO(str(weights), task="classify")
        names = model.names
        right, total, row = 0, 0, []
        for labels, crops in decks.values():
            # at the size the classifier was trained at, as the reader gives a classifier its crops
            probabilities = classify_crops(model, crops_for(model, crops), args.channels, args.rotations)
            read = [names[int(i)] for i in probabilities.argmax(axis=1)]
            hits = sum(a == b for a, b in zip(read, labels, strict=True))
            row.append(hits / len(labels))
            right, total = right + hits, total + len(labels)
        label = str(weights)[-48:].ljust(48)
        print(label + "".join(f"{share:13.3f}" for share in row) + f"{right / total:8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
