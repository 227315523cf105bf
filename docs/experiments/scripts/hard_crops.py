"""Hard-example mining for a crops mix (session 38): read every training crop of MIX with the run's start
weights, as the reader reads a crop (``vision.detector.classify_crops``, four turns when the upright one is under
0.95), and link each crop it reads as another card with at least --sure, --copies more times into its class folder
(``h1_<name>``, ...), so that an epoch shows the start's confusions more often than what it already reads.
A card crop read as "not a card" is not mined, nor a reader's crop of a box under --min-px: most of those are
illegible (tiny or blurred to nothing; a sample of run 20's wrong crops in session 38), and "I cannot read this"
is the answer they should get, not one learned by heart.

    python3 docs/experiments/scripts/hard_crops.py WEIGHTS MIX [--sure 0.3] [--min-px 16] [--copies 2]

MIX: a folder assembled by ``assemble_mix.py`` (MIX/crops/train/<code>/*.jpg and *.png, stored with red and blue swapped, as
``ginscore crops --channels bgr`` writes them; they are swapped back here, to the reader's order). Prints how many
crops were read, and how many were hard, of the drawn crops and of the reader's (``r_``) crops.
"""

import argparse
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.detector import classify_crops, crops_for, prepare_ultralytics, use_all_cores  # noqa: E402

BATCH = 512


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", type=Path)
    parser.add_argument("mix", type=Path)
    parser.add_argument("--sure", type=float, default=0.3, help="a crop read as another card this surely is hard")
    parser.add_argument("--min-px", type=int, default=16, help="the reader's crops of smaller boxes are not mined")
    parser.add_argument("--copies", type=int, default=2, help="extra links of each hard crop")
    parser.add_argument("--limit", type=int, default=0, help="read only this many crops (a check of the channels)")
    args = parser.parse_args()
    prepare_ultralytics()
    use_all_cores()
    from ultralytics import YOLO

    model = YOLO(str(args.weights), task="classify")
    index_of = {name: i for i, name in model.names.items()}
    files = sorted(
        f for f in (args.mix / "crops" / "train").glob("*/*") if f.suffix in (".png", ".jpg") and f.name[0] != "h"
    )
    if args.limit:
        files = list(np.random.default_rng(0).permutation(np.array(files, dtype=object))[: args.limit])
    started = time.perf_counter()
    counts = {"drawn": [0, 0, 0], "reader": [0, 0, 0]}  # read, wrong, hard
    hard: list[Path] = []
    for start in range(0, len(files), BATCH):
        batch = files[start : start + BATCH]
        crops = [np.ascontiguousarray(cv2.imread(str(f))[:, :, ::-1]) for f in batch]
        probabilities = classify_crops(model, crops_for(model, crops), "bgr", 4, 0.95)
        for f, row in zip(batch, probabilities, strict=True):
            kind = "reader" if f.name.startswith("r_") else "drawn"
            first = int(row.argmax())
            counts[kind][0] += 1
            if first == index_of[f.parent.name]:
                continue
            counts[kind][1] += 1
            px = re.search(r"_(\d+)px$", f.stem)
            too_small = px is not None and int(px.group(1)) < args.min_px
            if first != index_of["none"] and row[first] >= args.sure and not too_small:
                counts[kind][2] += 1
                hard.append(f)
    seconds = time.perf_counter() - started
    for kind, (read, wrong, mined) in counts.items():
        if read:
            print(f"{kind}: {read} crops, {wrong} read wrong ({wrong / read:.1%}), {mined} of them hard")
    print(f"{len(files)} crops read in {seconds:.0f} s ({len(files) / max(seconds, 1e-9):.0f} a second)")
    if args.limit:
        return 0
    for f in hard:
        for copy in range(1, args.copies + 1):
            os.link(f, f.parent / f"h{copy}_{f.name}")
    print(f"{len(hard)} hard crops linked {args.copies} more times")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
