"""How fast the index-crop renderer draws the classifier's crops, beside the scene renderer's crops.

Prints crops a second: one process drawing crops in memory, ``ginscore crops`` writing them with all cores,
and, for scale, whole synthetic scenes (``ginscore synth --crops``) and the crops they yield::

    python3 benchmarks/index_crop_speed.py [--crops 3000] [--written 20000] [--scenes 60] [--size 96]

A worker spends a few seconds loading the decks before its first crop: that start-up is printed apart, and the
written rate is given with it and without it (what a long ``ginscore crops`` run approaches).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.crops import CROP_SIZE  # noqa: E402
from vision.training.synth.dataset import SynthConfig, generate  # noqa: E402
from vision.training.synth.index_crops import CropSet, generate_crops, load_renderer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crops", type=int, default=3000, help="crops to draw in each measurement")
    parser.add_argument("--written", type=int, default=20000, help="crops for ginscore crops to write")
    parser.add_argument("--scenes", type=int, default=60, help="whole scenes to render for comparison")
    parser.add_argument("--size", type=int, default=CROP_SIZE, help="the crops' side in px (ginscore crops --size)")
    args = parser.parse_args()
    started = time.perf_counter()
    renderer = load_renderer("train", seed=1, size=args.size)
    start_up = time.perf_counter() - started
    print(f"start-up: {start_up:.1f} s to load the training decks (each worker does it once)")
    rng = np.random.default_rng(2)
    for _ in range(200):  # fill the procedural deck and clutter pools first
        renderer.crop(rng)
    started = time.perf_counter()
    for _ in range(args.crops):
        renderer.crop(rng)
    one = args.crops / (time.perf_counter() - started)
    print(f"one process, in memory, {args.size} px: {one:.0f} crops a second")
    with tempfile.TemporaryDirectory() as folder:
        result = generate_crops(CropSet(Path(folder), args.written, seed=3, size=args.size), progress=None)
        print(
            f"ginscore crops, {result['crops']} crops, all cores, written as JPEG: "
            f"{result['crops'] / result['seconds']:.0f} crops a second, "
            f"{result['crops'] / max(result['seconds'] - start_up, 1e-6):.0f} after the start-up"
        )
        started = time.perf_counter()
        generate(SynthConfig(out=Path(folder) / "scenes", count=args.scenes, seed=4, crops=True), progress=False)
        seconds = time.perf_counter() - started
        crops = len(list((Path(folder) / "scenes" / "crops").glob("*/*/*.jpg")))
        print(
            f"ginscore synth --crops, all cores: {args.scenes / seconds:.1f} scenes, {crops / seconds:.0f} crops a second"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
