"""How the two-stage reading confidence rule was chosen, and how far to trust the choice.

A box's reading has confidence ``detector ** weight * classifier`` (``detector_weight`` in
models/model.json); boxes are proposed from detector confidence ``proposal_conf`` and readings kept
from ``conf``. This script reads every photo of a labelled folder once (detector proposals down to
0.003, the classifier's ranked cards per box), then for a grid of the three settings prints the
card recall and precision, and the leave-one-photo-out estimate: the settings chosen on all photos
but one (most right cards minus two per wrong card) read the one left out.

    python3 benchmarks/confidence_rule.py datasets/real/real-val
    python3 benchmarks/confidence_rule.py SYNTH_VAL_FOLDER --imgsz 640 --top 5

The folder has images/, labels/ (YOLO) and classes.txt, as for ``ginscore eval``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.decode import decode_image  # noqa: E402
from vision.detections import Detections, canonical_code, read_yolo_labels  # noqa: E402
from vision.detector import load_detector  # noqa: E402
from vision.evaluate import check_eval_folder  # noqa: E402
from vision.recognise import reading_from_detections  # noqa: E402

WEIGHTS = (1.0, 0.5, 0.0)
PROPOSALS = (0.25, 0.1, 0.05, 0.01, 0.003)
THRESHOLDS = (0.5, 0.4, 0.3, 0.25, 0.2, 0.15, 0.1)
SHIPPED_BEFORE = (1.0, 0.25, 0.25)  # detector x classifier, kept from 0.25


def read_folder(folder: Path, imgsz: int) -> list[dict]:
    """Per photo: proposals (photo pixels), detector scores, ranked cards and probabilities, labelled cards."""
    detector = load_detector()
    codes = [canonical_code(line) for line in (folder / "classes.txt").read_text().split()]
    photos = []
    for path in check_eval_folder(folder):
        image = decode_image(path, max_side=imgsz)
        xyxy, scores = detector.propose_boxes(image.pixels, imgsz, min(PROPOSALS))
        card_ids, probabilities = detector.read_boxes(image.pixels, xyxy)
        labels = read_yolo_labels(folder / "labels" / f"{path.stem}.txt", codes, image.original_size)
        photos.append({"name": path.name, "xyxy": xyxy * image.to_original, "scores": scores,
                       "card_ids": card_ids, "probabilities": probabilities,
                       "labelled": set(labels.codes), "size": image.original_size})
    return photos


def read_cards(photo: dict, weight: float, proposal: float, threshold: float) -> set[str]:
    near = photo["scores"] >= proposal
    confidence = photo["scores"][near, None] ** weight * photo["probabilities"][near]
    keep = confidence[:, 0] >= threshold
    if not keep.any():
        return set()
    ids = photo["card_ids"][near][keep]
    detections = Detections(photo["xyxy"][near][keep], ids[:, 0], confidence[keep, 0], ids[:, 1:], confidence[keep, 1:])
    return {card.card for card in reading_from_detections(detections, photo["size"]).cards}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--imgsz", type=int, default=1024)
    parser.add_argument("--top", type=int, default=12, help="grid rows to print, best first")
    args = parser.parse_args()
    photos = read_folder(args.folder, args.imgsz)
    grid = [(w, p, t) for w in WEIGHTS for p in PROPOSALS for t in THRESHOLDS]
    # counts[setting][photo] = (right, labelled, read)
    counts = {}
    for setting in grid:
        counts[setting] = []
        for photo in photos:
            read = read_cards(photo, *setting)
            counts[setting].append((len(read & photo["labelled"]), len(photo["labelled"]), len(read)))

    def total(setting, photos_in):
        right = sum(counts[setting][i][0] for i in photos_in)
        labelled = sum(counts[setting][i][1] for i in photos_in)
        read = sum(counts[setting][i][2] for i in photos_in)
        return right, labelled, read

    everyone = range(len(photos))

    def utility(setting, photos_in):
        right, _, read = total(setting, photos_in)
        return right - 2 * (read - right)

    print(f"{len(photos)} photos of {args.folder}; weight, proposal_conf, conf -> card recall, precision")
    for setting in sorted(grid, key=lambda s: (-utility(s, everyone), s != SHIPPED_BEFORE))[:args.top]:
        right, labelled, read = total(setting, everyone)
        print(f"  {setting}  recall {right}/{labelled} = {right / labelled:.4f}  precision {right}/{read} = "
              f"{right / max(read, 1):.4f}")
    settings = load_detector().settings
    in_use = (settings.detector_weight, settings.proposal_conf, settings.conf)
    for label, setting in (("detector x classifier from 0.25", SHIPPED_BEFORE), ("model.json's rule", in_use)):
        if setting not in counts:
            counts[setting] = [(len(read & p["labelled"]), len(p["labelled"]), len(read))
                               for p in photos for read in [read_cards(p, *setting)]]
        right, labelled, read = total(setting, everyone)
        print(f"  {label} {setting}: recall {right}/{labelled} = {right / labelled:.4f}, "
              f"precision {right}/{read} = {right / max(read, 1):.4f}")
    if len(photos) > 1:
        right = labelled = read = 0
        for left_out in everyone:
            others = [i for i in everyone if i != left_out]
            chosen = max(grid, key=lambda s: (utility(s, others), s == SHIPPED_BEFORE))
            r, n, k = counts[chosen][left_out]
            right, labelled, read = right + r, labelled + n, read + k
            print(f"  leave out {photos[left_out]['name']}: chose {chosen}, it reads {r}/{n} ({k} read)")
        print(f"leave-one-photo-out: recall {right}/{labelled} = {right / labelled:.4f}, "
              f"precision {right}/{read} = {right / max(read, 1):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
