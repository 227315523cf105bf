"""bysize.py FOLDERS -- W...: accuracy of each classifier on reader crops by box size (name ends _NNpx)."""

import re
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "/work/main")
from vision.detector import classify_crops, prepare_ultralytics

prepare_ultralytics()
from ultralytics import YOLO

i = sys.argv.index("--")
folders, weights = sys.argv[1:i], sys.argv[i + 1 :]
files = sorted(f for d in folders for f in Path(d).glob("*/*/*.png"))
labels = [f.parent.name for f in files]
sizes = np.array([float(re.search(r"_(\d+)px", f.name).group(1)) for f in files])
crops = [cv2.imread(str(f)) for f in files]
edges = [0, 14, 18, 22, 28, 36, 48, 1e9]
print(
    "size".ljust(10)
    + "".join(f"{a:>4.0f}-{b if b < 1e9 else 'up':<4}" for a, b in zip(edges, edges[1:], strict=False)),
    "all",
)
print(
    "crops".ljust(10)
    + "".join(f"{((sizes >= a) & (sizes < b)).sum():>9}" for a, b in zip(edges, edges[1:], strict=False)),
    len(files),
)
for w in weights:
    m = YOLO(w, task="classify")
    names = [m.names[k] for k in sorted(m.names)]
    p = classify_crops(m, crops, "bgr", 4)
    right = np.array([names[k] == label for k, label in zip(p.argmax(1), labels, strict=False)])
    print(
        Path(w).name[:10].ljust(10)
        + "".join(f"{right[(sizes >= a) & (sizes < b)].mean():>9.3f}" for a, b in zip(edges, edges[1:], strict=False)),
        f"{right.mean():.3f}",
    )
