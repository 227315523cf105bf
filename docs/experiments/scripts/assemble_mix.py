"""Assemble run 4's classifier data: D/crops/train = drawn crops (already BGR-swapped) + the reader's own crops
cut in rendered training scenes (swapped here); D/crops/val = the reader's own crops of 100 held-out scenes
(swapped), with 'none' and any missing code from drawn held-out val crops. An optional sixth argument MIN_PX leaves
out the reader's training card crops (not its "not a card") of boxes shorter than MIN_PX (their names end with
the box's long side, _NNpx)."""

import os
import re
import sys
from pathlib import Path

import cv2

drawn, reader_train, reader_val, drawn_val, out = map(Path, sys.argv[1:6])
min_px = int(sys.argv[6]) if len(sys.argv) > 6 else 0
train, val = out / "crops" / "train", out / "crops" / "val"
codes = sorted(p.name for p in (drawn / "train").iterdir())
n = {"drawn": 0, "reader": 0, "val": 0, "val_drawn": 0, "reader_too_small": 0}
for code in codes:
    (train / code).mkdir(parents=True, exist_ok=True)
    (val / code).mkdir(parents=True, exist_ok=True)
    for f in (drawn / "train" / code).iterdir():
        os.link(f, train / code / f.name)
        n["drawn"] += 1
    for folder, dest, key in ((reader_train, train, "reader"), (reader_val, val, "val")):
        for f in sorted(folder.glob(f"*/val/{code}/*.png")):
            px = re.search(r"_(\d+)px$", f.stem)
            if key == "reader" and code != "none" and px and int(px.group(1)) < min_px:
                n["reader_too_small"] += 1
                continue
            img = cv2.imread(str(f))
            cv2.imwrite(str(dest / code / f"r_{f.parent.parent.parent.name}_{f.stem}.png"), img[:, :, ::-1])
            n[key] += 1
    if code == "none" or not any((val / code).iterdir()):
        for f in sorted((drawn_val / "val" / code).iterdir())[:300]:
            os.link(f, val / code / f.name)
            n["val_drawn"] += 1
print(n)
