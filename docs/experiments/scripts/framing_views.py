"""framing_views.py WEIGHTS: session 36. How one classifier reads the reader's 96-px crops of 100 held-out scenes of
seed 41 (/work/data/rc-hd41-96) at four turns: as cut (padding 0.15), zoomed in (1.1, 1.2: a centre crop resized
back) or shifted by 4 px, alone and combined (geometric mean, as the turns are), and combined only for the crops read
less surely than 0.95 as cut. Prints the share read right of each."""

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/main/benchmarks")
from heldout_crops import read_folder  # noqa: E402

from vision.detector import classify_crops, combine_turns, crops_for, prepare_ultralytics, use_all_cores  # noqa: E402

VIEWS = {  # zoom, shift x, shift y
    "orig": (1.0, 0, 0),
    "z1.1": (1.1, 0, 0),
    "z1.2": (1.2, 0, 0),
    "sx+4": (1.1, 4, 0),
    "sy+4": (1.1, 0, 4),
    "sx-4": (1.1, -4, 0),
    "sy-4": (1.1, 0, -4),
}


def view(crop: np.ndarray, zoom: float, dx: int, dy: int) -> np.ndarray:
    side = crop.shape[0]
    window = int(round(side / zoom))
    x0 = min(max((side - window) // 2 + dx, 0), side - window)
    y0 = min(max((side - window) // 2 + dy, 0), side - window)
    return cv2.resize(crop[y0 : y0 + window, x0 : x0 + window], (side, side), interpolation=cv2.INTER_LINEAR)


def main() -> None:
    prepare_ultralytics()
    use_all_cores()
    from ultralytics import YOLO

    model = YOLO(sys.argv[1], task="classify")
    readings: dict[str, list[np.ndarray]] = {name: [] for name in VIEWS}
    labels: list[str] = []
    for folder in sorted(Path("/work/data/rc-hd41-96").iterdir()):
        codes, crops = read_folder(folder, 100000)
        crops = crops_for(model, crops)
        labels += codes
        for name, framing in VIEWS.items():
            readings[name].append(classify_crops(model, [view(c, *framing) for c in crops], "bgr", 4))
    truth = np.array(labels)
    read = {name: np.concatenate(parts) for name, parts in readings.items()}

    def right(probabilities: np.ndarray) -> float:
        return float((np.array([model.names[int(i)] for i in probabilities.argmax(1)]) == truth).mean())

    for name in VIEWS:
        print(f"{name}: {right(read[name]):.4f}")
    combos = [("orig", "z1.1"), ("orig", "z1.2"), ("orig", "z1.1", "z1.2"), ("orig", "sx+4", "sy+4", "sx-4", "sy-4")]
    for combo in [*combos, tuple(VIEWS)]:
        print(f"{'+'.join(combo)}: {right(combine_turns([read[k] for k in combo])):.4f}")
    unsure = read["orig"].max(1) < 0.95
    print(f"unsure share {unsure.mean():.3f}")
    for combo in [("orig", "z1.1"), ("orig", "z1.1", "z1.2"), tuple(VIEWS)]:
        mixed = read["orig"].copy()
        mixed[unsure] = combine_turns([read[k][unsure] for k in combo])
        print(f"unsure only, {'+'.join(combo)}: {right(mixed):.4f}")


if __name__ == "__main__":
    main()
