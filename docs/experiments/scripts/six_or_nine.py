"""six_or_nine.py OUT.json SCENES...: every 6 or 9 the shipped reader reads in rendered held-out scenes (session
31: the seed-40 check scenes), with whether it is right, its confidence, whether it is flagged, and the classifier's
four-turn probability of the code read and of its 6<->9 counterpart, per box."""

import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "/work/main")
from engine.cards import CARD_CODES
from vision.crop_reading import crops_of
from vision.detector import load_detector
from vision.evaluation.calibration import scene_images, scene_label_codes, scene_truth
from vision.recognise import recognise

detector = load_detector()
ids = detector.classifier_card_ids
rows = []
for folder in map(Path, sys.argv[2:]):
    codes = scene_label_codes(folder)
    for path in scene_images(folder):
        image = cv2.imread(str(path))
        truth = scene_truth(path, codes, (image.shape[1], image.shape[0]))
        for card in recognise(image, detector=detector).reading.cards:
            if card.card[0] not in "69":
                continue
            other = ("9" if card.card[0] == "6" else "6") + card.card[1]
            crops, isolated = crops_of(detector, image, np.array(card.boxes), detector.settings.classifiers)
            read = detector.classify(detector.classifier, isolated if isolated is not None else crops, 4)
            rows.append(
                {
                    "deck": folder.name,
                    "card": card.card,
                    "right": truth.is_right(card),
                    "truth_has_other": other in truth.codes,
                    "conf": card.confidence,
                    "flagged": bool(card.review),
                    "p_read": read[:, ids == CARD_CODES.index(card.card)].sum(axis=1).tolist(),
                    "p_other": read[:, ids == CARD_CODES.index(other)].sum(axis=1).tolist(),
                }
            )
Path(sys.argv[1]).write_text(json.dumps(rows))
print(len(rows))
