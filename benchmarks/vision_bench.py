"""Speed of the recogniser on this machine: a 12 MP phone photo → scored hands, and webcam frames.

    nice python3 benchmarks/vision_bench.py [--photos 5] [--frames 30] [--imgsz N] [--webcam-imgsz N]
                                            [--models DIR] [--threads N] [--partners [NAME ...]] [--rotations N]

Prints seconds per photo (decode / detect / cards+hands / engine, and the total) and webcam frames
per second, of a still table (each frame with its own noise; ``vision.frame_memory`` keeps the readings of
unchanged crops) and of a moving one (every crop read afresh). The photo is a showdown of about 20 cards (a crop of a real-val deal, datasets/real/real-val)
pasted on a 4032 x 3024 table, saved as a JPEG like a phone's; without real-val a plain table photo is
used. Beside each time it prints, from the same run, a bare ultralytics predict of the detector on the
same pixels (the decoded photo at the photo size, the frame at the webcam size) and the ratio: what
everything beyond one detector pass costs. Goals on the 2-core CI machine: <= 0.5 s per photo, >= 8
webcam frames/s; issue 24: at most 2.0x (photo) and 1.3x (frame) the bare predict. ``--partners`` (file
names; none: the main classifier alone), ``--rotations`` and ``--partners-below`` time other choices of classifiers and turns than
model.json's (``benchmarks/classifier_choice.py`` measures what each choice reads).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
REAL_VAL = REPO / "datasets" / "real" / "real-val"

TOP = "As 2s 3s 4s 9h 9d 9c Kd Qd Jd".split()
BOTTOM = "5h 6h 7h 8h Tc Ts Th 2c 3d 4c".split()


def phone_photo_bytes(size=(4032, 3024)) -> bytes:
    """A 12 MP JPEG: a showdown of about 20 cards (a crop of a real-val deal) filling the height of a table
    photo (or a bare table)."""
    canvas = Image.new("RGB", size, (34, 96, 58))
    deal = REAL_VAL / "images" / "deal4.jpg"
    if deal.exists():
        photo = Image.open(deal).convert("RGB")
        width, height = photo.size
        showdown = photo.crop((int(0.2 * width), int(0.05 * height), int(0.6 * width), int(0.8 * height)))
        scale = size[1] / showdown.height
        showdown = showdown.resize((round(showdown.width * scale), size[1]), Image.Resampling.BICUBIC)
        canvas.paste(showdown, ((size[0] - showdown.width) // 2, 0))
    buffer = io.BytesIO()
    canvas.save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def webcam_frame() -> np.ndarray:
    """A 640 x 480 BGR frame of the same deal."""
    deal = REAL_VAL / "images" / "deal5.jpg"
    image = (
        Image.open(deal).convert("RGB").resize((640, 640)).crop((0, 80, 640, 560))
        if deal.exists()
        else Image.new("RGB", (640, 480), (34, 96, 58))
    )
    return np.ascontiguousarray(np.asarray(image)[:, :, ::-1])


def camera_frame(frame: np.ndarray, rng: np.random.Generator, noise: float = 3.0) -> np.ndarray:
    """The frame as a webcam delivers it: with its own sensor noise (sigma ``noise`` grey levels) and JPEG."""
    import cv2

    noisy = np.clip(frame + rng.normal(0.0, noise, frame.shape), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=5)
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--imgsz", type=int, help="photo detector size (default: model.json)")
    parser.add_argument("--webcam-imgsz", type=int, help="webcam detector size (default: model.json)")
    parser.add_argument("--models", type=Path, help="models folder (default: models/)")
    parser.add_argument("--threads", type=int, help="torch threads (default: all cores)")
    parser.add_argument("--partners", nargs="*", help="partner classifiers' file names (default: model.json's)")
    parser.add_argument("--rotations", type=int, help="photo quarter turns per crop (default: model.json's)")
    parser.add_argument(
        "--partners-below",
        type=float,
        help="partners read crops the main one reads less surely (default: model.json's)",
    )
    args = parser.parse_args()

    from vision.cards import merge_corners
    from vision.crop_reading import with_classifiers
    from vision.decode import decode_image
    from vision.detector import MODEL_LAYOUT, load_detector
    from vision.frame_memory import FrameMemories
    from vision.hands import split_hands
    from vision.proposals import decode_side
    from vision.recognise import detect

    detector = load_detector(args.models)
    settings = detector.settings
    if args.partners is not None or args.rotations or args.partners_below is not None:
        chosen = settings.classifiers.partners
        if args.partners is not None:
            chosen = tuple(path for path in chosen if path.name in args.partners)
        settings = with_classifiers(
            settings, chosen, args.rotations or settings.classifiers.rotations, args.partners_below
        )
    if args.threads:
        import torch

        os.environ["OMP_NUM_THREADS"] = str(args.threads)
        torch.set_num_threads(args.threads)
        import vision.detector as detector_module

        detector_module.use_all_cores = lambda: None  # keep the requested thread count
    imgsz = args.imgsz or settings.detector.imgsz
    webcam_imgsz = args.webcam_imgsz or settings.detector.webcam_imgsz
    import torch

    print(
        f"model: {settings.detector.weights.name} ({MODEL_LAYOUT}); photo imgsz {imgsz}, webcam imgsz "
        f"{webcam_imgsz}; partners {[p.name for p in settings.classifiers.partners]}, "
        f"{settings.classifiers.rotations} turn(s), asked below {settings.classifiers.partners_below}; torch threads {torch.get_num_threads()}, cores {os.cpu_count()}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )

    from engine import Rules, score_hand
    from vision.detector import prepare_ultralytics

    prepare_ultralytics()
    from ultralytics import YOLO

    # the baseline: one bare ultralytics predict of the same detector weights on the same pixels
    bare = YOLO(str(settings.detector.weights), task="detect")
    bare_conf = settings.detector.proposal_conf

    def bare_predict(pixels: np.ndarray, size: int) -> float:
        start = time.perf_counter()
        bare.predict(pixels, imgsz=size, conf=bare_conf, verbose=False)
        return time.perf_counter() - start

    data = phone_photo_bytes()
    stages: dict[str, list[float]] = {"decode": [], "detect": [], "cards+hands": [], "engine": [], "total": []}
    bare_photo: list[float] = []
    for run in range(args.photos + 1):  # the first run warms up
        t0 = time.perf_counter()
        image = decode_image(data, max_side=decode_side(settings, imgsz))  # as recognise decodes
        t1 = time.perf_counter()
        detections = detect(image.pixels, detector, settings=settings, imgsz=imgsz).scaled(image.to_original)
        t2 = time.perf_counter()
        merged = merge_corners(detections)
        split = split_hands(merged.cards)
        t3 = time.perf_counter()
        knocker, defender = list(split.hands[0]), list(split.hands[1])
        if not (len(knocker) in (10, 11) and len(defender) == 10):
            knocker, defender = TOP, BOTTOM  # a real-val deal shows 52 cards: score a typical hand instead
        score_hand(knocker, defender, Rules.preset("standard"))
        t4 = time.perf_counter()
        bare_seconds = bare_predict(image.pixels, imgsz)
        if run:
            bare_photo.append(bare_seconds)
            for name, seconds in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0), strict=True):
                stages[name].append(seconds)
    print(
        f"12 MP photo (4032 x 3024 JPEG, {len(data) / 1e6:.1f} MB), {len(merged.cards)} cards read, "
        f"median of {args.photos}:"
    )
    for name, values in stages.items():
        print(f"  {name:<12} {statistics.median(values):.3f} s")
    total, baseline = statistics.median(stages["total"]), statistics.median(bare_photo)
    print(
        f"  bare ultralytics predict of the detector on the decoded photo at {imgsz}: {baseline:.3f} s; "
        f"the whole reading is {total / baseline:.2f}x that"
    )

    # webcam frames as read_frame reads them: a still table (each frame with its own sensor noise and JPEG,
    # as a camera delivers them: vision.frame_memory keeps the readings of unchanged crops), and a table
    # where everything moves (each frame shifted 4 px from the last: every crop is read afresh)
    rng = np.random.default_rng(0)
    base = webcam_frame()
    for label, shift in (("still table", 0), ("moving table", 4)):
        frames = [camera_frame(np.roll(base, shift * k, axis=1), rng) for k in range(args.frames + 3)]
        memory = FrameMemories()
        for frame in frames[:3]:
            detect(frame, detector, mode="frame", memory=memory, settings=settings, imgsz=webcam_imgsz, rotations=1)
            bare_predict(frame, webcam_imgsz)
        elapsed = bare_elapsed = 0.0
        for frame in frames[3:]:
            start = time.perf_counter()
            image = decode_image(frame, max_side=webcam_imgsz)
            detections = detect(
                image.pixels, detector, mode="frame", memory=memory, settings=settings, imgsz=webcam_imgsz, rotations=1
            ).scaled(image.to_original)  # as read_frame
            split_hands(merge_corners(detections).cards)
            elapsed += time.perf_counter() - start
            bare_elapsed += bare_predict(frame, webcam_imgsz)
        print(
            f"webcam 640 x 480, {label}: {args.frames / elapsed:.1f} frames/s ({elapsed / args.frames * 1000:.0f} "
            f"ms/frame, {len(detections)} boxes in the last frame, of its crops {memory.crops_kept[0]} of "
            f"{memory.crops_kept[1]} kept their reading); bare ultralytics predict "
            f"{bare_elapsed / args.frames * 1000:.0f} ms/frame: {elapsed / bare_elapsed:.2f}x that"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
