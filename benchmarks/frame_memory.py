"""How alike two crops of one corner index are in two webcam frames, and how alike two different indices are.

    python3 benchmarks/frame_memory.py [--set datasets/real/real-val] [--side 640] [--noise 4] [--trials 3]

``vision.frame_memory`` keeps a crop's reading from the last frame when the crop's blurred 16 x 16 grey
thumbnail differs from the last frame's by at most ``SAME_CROP_LEVEL`` grey levels at every pixel. This
prints that difference for the labelled indices of a real set shrunk to a webcam's size: the same index in
two frames (sensor noise of ``--noise`` grey levels, JPEG at quality 80, boxes shifted by up to 0.7 px) and
two different cards' indices of the same rank or suit. The threshold must lie above the first and below the second.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.crops import crop_indices  # noqa: E402
from vision.detections import canonical_code, read_yolo_labels  # noqa: E402
from vision.frame_memory import SAME_CROP_LEVEL, crop_thumbnails  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=REPO / "datasets/real/real-val")
    parser.add_argument("--side", type=int, default=640)
    parser.add_argument("--noise", type=float, default=4.0)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    codes = [canonical_code(line) for line in (args.set / "classes.txt").read_text().split()]
    rng = np.random.default_rng(0)
    same: list[float] = []
    different: list[float] = []
    for image_path in sorted((args.set / "images").glob("*.jpg")):
        image = cv2.imread(str(image_path))
        scale = args.side / max(image.shape[:2])
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        labels = read_yolo_labels(args.set / "labels" / f"{image_path.stem}.txt", codes, image.shape[1::-1])
        first = crop_thumbnails(crop_indices(image, labels.xyxy, balance=False))  # as a frame cuts them
        for _ in range(args.trials):
            noisy = np.clip(image + rng.normal(0, args.noise, image.shape), 0, 255).astype(np.uint8)
            noisy = cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 80])[1], cv2.IMREAD_COLOR)
            shifted = labels.xyxy + rng.uniform(-0.7, 0.7, labels.xyxy.shape)
            again = crop_thumbnails(crop_indices(noisy, shifted, balance=False))
            same += list(np.abs(first - again).reshape(len(first), -1).max(axis=1))
        cards = [codes[c] for c in labels.class_id]
        for i, card in enumerate(cards):  # every other card of the same rank or suit in the photo: the hard pairs
            for j in range(i + 1, len(cards)):
                if cards[j] != card and (cards[j][0] == card[0] or cards[j][1] == card[1]):
                    different.append(float(np.abs(first[i] - first[j]).max()))
    same_values, different_values = np.array(same), np.array(different)
    for level in (16, 20, 24, 28):
        print(
            f"level {level}: same kept {(same_values <= level).mean():.1%}, different taken {(different_values <= level).sum()}"
        )
    print(f"{args.set.name} at {args.side} px, noise {args.noise}, SAME_CROP_LEVEL {SAME_CROP_LEVEL}")
    print(
        f"the same index in two frames ({len(same_values)} pairs): median {np.median(same_values):.1f}, 99th "
        f"percentile {np.percentile(same_values, 99):.1f}, largest {same_values.max():.1f}; kept (<= level): "
        f"{(same_values <= SAME_CROP_LEVEL).mean():.1%}"
    )
    print(
        f"two different cards' indices of the same rank or suit ({len(different_values)} pairs): smallest {different_values.min():.1f}, 1st "
        f"percentile {np.percentile(different_values, 1):.1f}, median {np.median(different_values):.1f}; taken "
        f"for the same (<= level): {(different_values <= SAME_CROP_LEVEL).sum()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
