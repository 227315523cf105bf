"""Per photo: a taught classifier's median "my deck" share over the crops the main classifier reads as cards
(session 34). Usage: taught_mine_share.py MODELS_WITH_TAUGHT FOLDER... (folders with images/)."""

import sys
from pathlib import Path

import numpy as np

from vision.crop_reading import VOTES_AS_A_CARD_BELOW, crops_of, not_a_card_probability
from vision.decode import decode_image
from vision.detector import load_detector
from vision.proposals import decode_side, proposals_of

models = Path(sys.argv[1])
det = load_detector(models)
s = det.settings
taught, taught_ids = det.taught
for folder in sys.argv[2:]:
    paths = sorted((Path(folder) / "images").glob("*.*"))
    for p in paths:
        image = decode_image(p, max_side=decode_side(s, s.detector.imgsz))
        prop = proposals_of(det, image.pixels, s.detector.imgsz, s.detector.proposal_conf)
        if not len(prop):
            continue
        crops, _ = crops_of(det, image.pixels, prop.xyxy, s.classifiers)
        turns = (s.classifiers.rotations, s.classifiers.other_turns_below)
        main = det.classify(det.classifier, crops, *turns)
        rej_main = not_a_card_probability(main, det.classifier_card_ids)
        tr = det.classify(taught, crops, *turns)
        mine = 1 - not_a_card_probability(tr, taught_ids)
        cardlike = rej_main < VOTES_AS_A_CARD_BELOW  # the crops that vote in crop_reading.taught_deck_in_photo
        m = mine[cardlike]
        print(
            f"{Path(folder).name:14s} {p.name:28s} n={cardlike.sum():3d} mean={m.mean():.3f} median={np.median(m):.3f} "
            f"q25={np.quantile(m, 0.25):.3f} max_crop_nonmine>0.5={np.mean(m > 0.5):.2f}",
            flush=True,
        )
