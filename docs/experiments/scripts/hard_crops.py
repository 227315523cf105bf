"""Hard-example mining for a crops mix (session 38): read every training crop of MIX with the run's start
weights, as the reader reads a crop (``vision.detector.classify_crops``, upright), and link each crop it reads
wrong, or right but less surely than --below, --copies more times into its class folder (``h1_<name>``, ...), so
that an epoch shows the crops the start still gets wrong more often than those it already reads.

    python3 docs/experiments/scripts/hard_crops.py WEIGHTS MIX [--below 0.6] [--copies 2]

MIX: a folder assembled by ``assemble_mix.py`` (MIX/crops/train/<code>/*.jpg and *.png, stored with red and blue swapped, as
``ginscore crops --channels bgr`` writes them; they are swapped back here, to the reader's order). Prints how many
crops were read, and how many were hard, of the drawn crops and of the reader's (``r_``) crops.
"""

import argparse
import os
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
    parser.add_argument("--below", type=float, default=0.6, help="a right crop read less surely than this is hard")
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
    counts = {"drawn": [0, 0, 0], "reader": [0, 0, 0]}  # read, wrong, unsure
    hard: list[Path] = []
    for start in range(0, len(files), BATCH):
        batch = files[start : start + BATCH]
        crops = [np.ascontiguousarray(cv2.imread(str(f))[:, :, ::-1]) for f in batch]
        probabilities = classify_crops(model, crops_for(model, crops), "bgr", 1)
        for f, row in zip(batch, probabilities, strict=True):
            kind = "reader" if f.name.startswith("r_") else "drawn"
            truth = index_of[f.parent.name]
            first = int(row.argmax())
            counts[kind][0] += 1
            if first != truth:
                counts[kind][1] += 1
                hard.append(f)
            elif row[truth] < args.below:
                counts[kind][2] += 1
                hard.append(f)
    seconds = time.perf_counter() - started
    for kind, (read, wrong, unsure) in counts.items():
        if read:
            print(f"{kind}: {read} crops, {wrong} wrong ({wrong / read:.1%}), {unsure} right below {args.below}")
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
