"""dump_cards.py MODELS SEEDROOT OUT.jsonl (session 40): every card read (raw settings, uncalibrated) in the held-out
scenes of one seed (SEEDROOT: what heldout_decks.py --out rendered), one JSON line each: its deck, photo, card, raw
confidence, boxes and their sizes, reasons, runner-ups, and whether it is right and among the photo's labelled cards."""

import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, "/work/main")
from vision.detector import load_detector
from vision.evaluation.calibration import STRUCTURAL, scene_images, scene_label_codes, scene_truth, uncalibrated
from vision.recognise import recognise

detector = load_detector(Path(sys.argv[1]))
raw = uncalibrated(detector.settings)
with open(sys.argv[3], "w") as out:
    for folder in sorted(p for p in Path(sys.argv[2]).glob("*/*") if (p / "data.yaml").is_file()):
        codes = scene_label_codes(folder)
        for img_path in scene_images(folder):
            img = cv2.imread(str(img_path))
            truth = scene_truth(img_path, codes, (img.shape[1], img.shape[0]))
            for card in recognise(img, detector=detector, settings=raw).reading.cards:
                sides = [min(b[2] - b[0], b[3] - b[1]) for b in card.boxes]
                longs = [max(b[2] - b[0], b[3] - b[1]) for b in card.boxes]
                row = {
                    "deck": folder.name,
                    "img": img_path.name,
                    "card": card.card,
                    "raw": card.confidence,
                    "boxes": len(card.boxes),
                    "min_side": min(sides),
                    "max_long": max(longs),
                    "reasons": [r.kind for r in card.review if r.kind in STRUCTURAL],
                    "all_reasons": [r.kind for r in card.review],
                    "right": truth.is_right(card),
                    "labelled": card.card in truth.codes,
                    "runner_ups": list(card.runner_ups),
                }
                out.write(json.dumps(row) + "\n")
