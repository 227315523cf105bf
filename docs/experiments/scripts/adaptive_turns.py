"""adaptive_turns.py WEIGHTS [READER_CROPS]: a crop's other turns read only when its first reading is unsure,
simulated on the reader's own 96-px crops of 100 seed-41 held-out scenes (gen12.sh's rc-hd41-96): one turn (or
turns 0 and 2) first, all four where the first reading's top probability is below tau (session 31)."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/main/benchmarks")
from heldout_crops import read_folder

from vision.detector import classify_crops, prepare_ultralytics, use_all_cores

prepare_ultralytics()
use_all_cores()
from ultralytics import YOLO

model = YOLO(sys.argv[1], task="classify")
labels, crops = [], []
for folder in sorted(Path(sys.argv[2] if len(sys.argv) > 2 else "/work/data/rc-hd41-96").iterdir()):
    codes, images = read_folder(folder, 1000)
    labels += codes
    crops += images
truth = np.array(labels)
one, two, four = (classify_crops(model, crops, "bgr", turns) for turns in (1, 2, 4))


def share_right(probabilities):
    return (np.array([model.names[int(i)] for i in probabilities.argmax(1)]) == truth).mean()


print(f"{len(truth)} crops; 1 turn {share_right(one):.4f}, 2 turns {share_right(two):.4f}, 4 {share_right(four):.4f}")
for first, reading, cost in (("1 turn", one, 1), ("2 turns", two, 2)):
    for tau in (0.9, 0.95, 0.98, 0.99, 0.995):
        again = reading.max(1) < tau
        mixed = np.where(again[:, None], four, reading)
        share = (cost * len(crops) + 4 * again.sum()) / (4 * len(crops))
        print(f"{first} first, all four below {tau}: {share_right(mixed):.4f}, turns read {share:.2f} of four's")
