"""wrong_cards.py MODELS FOLDER...: session 37. Every card the reader reads wrong in rendered scenes (``ginscore synth``
folders, e.g. a held-out seed's deck folders), sorted into kinds by the labelled or hidden index its boxes sit on:
"rank" (an index of a card of the same suit), "suit" (the same rank), "both", "no index" (the boxes lie on no index:
pips, court art, a card's edge). Prints the counts of each kind, with how many were shown as sure (the calibrated
confidence and the reasons, as ``benchmarks/heldout_decks.py`` counts them), the commonest confusions, and the
wrong cards by index box size."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from vision.detections import HIDDEN_LABELS, box_overlap_of_smaller, read_yolo_labels  # noqa: E402
from vision.detector import load_detector  # noqa: E402
from vision.evaluation.calibration import (  # noqa: E402
    STRUCTURAL,
    CardOutcome,
    calibrated_of,
    counted_reasons,
    scene_images,
    scene_label_codes,
    uncalibrated,
)
from vision.recognise import recognise  # noqa: E402


def index_under(boxes: np.ndarray, labels, hidden) -> str | None:
    """The code of the labelled or hidden index the card's boxes overlap most (half the smaller box or more)."""
    best, code = 0.5, None
    for dets in (labels, hidden):
        if dets is None or len(dets) == 0:
            continue
        overlap = box_overlap_of_smaller(boxes, dets.xyxy).max(axis=0)
        i = int(overlap.argmax())
        if overlap[i] >= best:
            best, code = float(overlap[i]), dets.codes[i]
    return code


def kind_of(read: str, under: str | None) -> str:
    if under is None:
        return "no index"
    if read[1] == under[1]:
        return "rank"
    return "suit" if read[0] == under[0] else "both"


def main(models: Path, folders: list[Path]) -> None:
    detector = load_detector(models)
    settings = detector.settings
    raw = uncalibrated(settings)
    decision = settings.decision
    kinds_counted = counted_reasons(decision)
    rows, outcomes = [], []
    for folder in folders:
        codes = scene_label_codes(folder)
        for path in scene_images(folder):
            image = cv2.imread(str(path))
            size = (image.shape[1], image.shape[0])
            labels = read_yolo_labels(folder / "labels" / path.parent.name / f"{path.stem}.txt", codes, size)
            hidden_path = folder / HIDDEN_LABELS / path.parent.name / f"{path.stem}.txt"
            hidden = read_yolo_labels(hidden_path, codes, size) if hidden_path.is_file() else None
            for card in recognise(image, detector=detector, settings=raw).reading.cards:
                boxes = np.array(card.boxes, dtype=np.float64)
                under = index_under(boxes, labels, hidden)
                right = card.card in labels.codes or (under == card.card)
                reasons = tuple(r.kind for r in card.review if r.kind in STRUCTURAL)
                outcomes.append(CardOutcome(card.confidence, len(card.boxes), right, reasons))
                side = float(np.max(boxes[:, 2:] - boxes[:, :2]))
                rows.append((card.card, under, side, reasons))
    calibrated = calibrated_of(outcomes, decision.calibration, kinds_counted, decision.calibration_curve)
    kinds: Counter[str] = Counter()
    sure: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for (read, under, side, reasons), o, c in zip(rows, outcomes, calibrated, strict=True):
        if o.right:
            continue
        kind = kind_of(read, under)
        kinds[kind] += 1
        flagged = bool(set(reasons) & kinds_counted) or c < decision.review_below
        sure[kind] += not flagged
        pairs[f"{under or '-'}->{read}{'' if flagged else ' (sure)'}"] += 1
        sizes[f"{min(int(side) // 16 * 16, 96)}px"] += 1
    wrong = sum(kinds.values())
    print(f"{len(outcomes)} cards, {wrong} wrong ({100 * wrong / max(1, len(outcomes)):.1f} %)")
    for kind, n in kinds.most_common():
        print(f"  {kind}: {n} ({sure[kind]} shown as sure)")
    print("commonest: " + ", ".join(f"{p} x{n}" for p, n in pairs.most_common(30)))
    print("by box side: " + ", ".join(f"{k} {v}" for k, v in sorted(sizes.items(), key=lambda kv: int(kv[0][:-2]))))


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
