"""Does more of the reader's own evidence make a better confidence? Session 17's measurement (not shipped).

    python3 benchmarks/calibration_features.py read OUT.jsonl SCENES...   # read rendered scenes, one line a card
    python3 benchmarks/calibration_features.py fit FIT.jsonl CHECK.jsonl   # compare feature sets

``read`` reads ``ginscore synth`` folders through the product (as ``ginscore calibrate`` does, raw confidences)
and keeps, per card, the evidence of its boxes: the detector's score, the combined classifiers' first and second
probability, the "not a card" probability, whether a classifier dissents, the box's size against the photo's
median and its aspect, and the photo's card count and conflicts. ``fit`` fits logistic regressions of "right" on
the shipped calibration's features (logit of the corners' noisy-or, two corner boxes, a reason) and on each
addition, on the FIT cards, and prints the wrong cards shown as sure on the CHECK cards at 3 % and 6.8 % of the
right cards flagged (only the ranking matters there, so no isotonic curve is fitted).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

STRUCTURAL = {"not_a_card", "corners_disagree", "more_corners", "hand_count"}
FEATURE_SETS = {
    "shipped (raw, 2 boxes, reason)": [],
    "+ classifier and detector apart": ["logit_p1", "logit_det"],
    "+ runner-up ratio": ["log_ratio"],
    "+ not a card": ["logit_none"],
    "+ a classifier dissents": ["dissent"],
    "+ box size against the photo's": ["log_size", "abs_log_size"],
    "+ box aspect": ["aspect"],
    "+ cards in the photo, conflicts": ["log_ncards", "conflicts"],
    "all of them": [
        "logit_p1",
        "logit_det",
        "log_ratio",
        "logit_none",
        "dissent",
        "log_size",
        "abs_log_size",
        "aspect",
        "log_ncards",
        "conflicts",
    ],
}


def read(out: Path, folders: list[Path]) -> None:
    import cv2

    from vision.crop_reading import read_crops
    from vision.detector import load_detector
    from vision.evaluation.calibration import scene_images, scene_label_codes, scene_truth, uncalibrated
    from vision.recognise import SPREAD_STEPS, recognise

    boxes: dict[tuple[float, ...], dict] = {}

    def keep_evidence(detections, context):  # a step after read_crops: the evidence of every box, by its place
        for row, box in enumerate(detections.xyxy):
            p = np.concatenate([detections.confidence[row : row + 1], detections.runner_ups[1][row]])
            boxes[tuple(round(float(v), 1) for v in box)] = {
                "det": float(detections.data["score"][row]),
                "p1": float(p[0]),
                "p2": float(p[1]) if len(p) > 1 else 0.0,
                "none": float(detections.data["rejected"][row]),
                "dissent": bool(detections.data["dissent"][row] >= 0),
                "w": float(box[2] - box[0]),
                "h": float(box[3] - box[1]),
            }
        return detections

    at = SPREAD_STEPS.index(read_crops) + 1
    steps = (*SPREAD_STEPS[:at], keep_evidence, *SPREAD_STEPS[at:])
    shipped = load_detector()
    raw = uncalibrated(shipped.settings)
    with out.open("w") as lines:
        for folder in folders:
            codes = scene_label_codes(folder)
            for image_path in scene_images(folder):
                image = cv2.imread(str(image_path))
                truth = scene_truth(image_path, codes, (image.shape[1], image.shape[0]))
                boxes.clear()
                # 1280-px scenes: read at their own pixels
                reading = recognise(image, detector=shipped, settings=raw, steps=steps).reading
                sides = [max(b[2] - b[0], b[3] - b[1]) for card in reading.cards for b in card.boxes]
                for card in reading.cards:
                    row = {
                        "right": truth.is_right(card),
                        "raw": card.confidence,
                        "boxes": len(card.boxes),
                        "reasons": [r.kind for r in card.review],
                        "median_side": float(np.median(sides)),
                        "ncards": len(reading.cards),
                        "conflicts": len(reading.conflicts),
                        "box_feats": [boxes[tuple(float(v) for v in b)] for b in card.boxes],
                    }
                    lines.write(json.dumps(row) + "\n")


def logit(values) -> np.ndarray:
    clipped = np.clip(np.asarray(values, dtype=np.float64), 1e-6, 1 - 1e-6)
    return np.log(clipped / (1 - clipped))


def features(rows: list[dict], extra: list[str]) -> np.ndarray:
    best = [max(r["box_feats"], key=lambda f: f["det"] ** 0.5 * f["p1"]) for r in rows]
    size = np.array([max(b["w"], b["h"]) / max(r["median_side"], 1.0) for b, r in zip(best, rows, strict=True)])
    columns = {
        "logit_p1": logit([b["p1"] for b in best]),
        "logit_det": logit([b["det"] for b in best]),
        "log_ratio": np.log(np.array([b["p2"] / max(b["p1"], 1e-9) for b in best]) + 1e-6),
        "logit_none": logit([b["none"] + 1e-7 for b in best]),
        "dissent": np.array([any(f["dissent"] for f in r["box_feats"]) for r in rows], dtype=np.float64),
        "log_size": np.log(size),
        "abs_log_size": np.abs(np.log(size)),
        "aspect": np.array([min(b["w"], b["h"]) / max(b["w"], b["h"]) for b in best]),
        "log_ncards": np.log([r["ncards"] for r in rows]),
        "conflicts": np.array([r["conflicts"] > 0 for r in rows], dtype=np.float64),
    }
    shipped = [
        np.ones(len(rows)),
        logit([r["raw"] for r in rows]),
        np.array([r["boxes"] >= 2 for r in rows], dtype=np.float64),
        np.array([bool(set(r["reasons"]) & STRUCTURAL) for r in rows], dtype=np.float64),
    ]
    return np.column_stack(shipped + [columns[name] for name in extra])


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-2) -> np.ndarray:
    weights = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(x @ weights)))
        step = np.linalg.solve(
            x.T @ (x * (p * (1 - p))[:, None]) + ridge * np.eye(len(weights)), x.T @ (y - p) - ridge * weights
        )
        weights += step
        if np.abs(step).max() < 1e-9:
            break
    return weights


def sure_wrong(score: np.ndarray, rows: list[dict], flagged_share: float) -> tuple[int, float]:
    """Wrong cards with no reason when the threshold on ``score`` flags ``flagged_share`` of the right cards."""
    right = np.array([r["right"] for r in rows])
    reason = np.array([bool(set(r["reasons"]) & STRUCTURAL) for r in rows])
    unflagged_right = np.sort(score[right & ~reason])
    more = int(flagged_share * right.sum()) - int((reason & right).sum())
    threshold = unflagged_right[more] if more > 0 else -np.inf
    count = int((~(reason | (score < threshold)) & ~right).sum())
    return count, 2000 * count / len(rows)


def compare(fit_path: Path, check_path: Path) -> None:
    fit_rows = [json.loads(line) for line in fit_path.open()]
    check_rows = [json.loads(line) for line in check_path.open()]
    y = np.array([r["right"] for r in fit_rows], dtype=np.float64)
    print(
        f"fit: {len(fit_rows)} cards, {int(len(y) - y.sum())} wrong; check: {len(check_rows)} cards, "
        f"{sum(not r['right'] for r in check_rows)} wrong"
    )
    for share in (0.03, 0.068):
        print(f"wrong cards shown as sure on the check cards, {share:.1%} of the right ones flagged:")
        for name, extra in FEATURE_SETS.items():
            weights = fit_logistic(features(fit_rows, extra), y)
            count, per_2000 = sure_wrong(features(check_rows, extra) @ weights, check_rows, share)
            print(f"  {name:34s} {count:4d} ({per_2000:5.1f} per 2,000)")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "read":
        read(Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]])
    elif len(sys.argv) == 4 and sys.argv[1] == "fit":
        compare(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        raise SystemExit(__doc__)
