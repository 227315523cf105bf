"""subset.py SRC OUT N SEED: N crops of SRC/crops/train drawn at random (hard links), SRC/crops/val whole."""

import os
import random
import sys
from pathlib import Path

src, out, n, seed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
files = sorted((src / "crops" / "train").glob("*/*"))
random.Random(seed).shuffle(files)
for f in files[:n]:
    d = out / "crops" / "train" / f.parent.name
    d.mkdir(parents=True, exist_ok=True)
    os.link(f, d / f.name)
for f in (src / "crops" / "val").glob("*/*"):
    d = out / "crops" / "val" / f.parent.name
    d.mkdir(parents=True, exist_ok=True)
    os.link(f, d / f.name)
print(out, min(n, len(files)))
