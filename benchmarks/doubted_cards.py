"""What doubted cards (model.json ``doubted_proposal_conf``, ``doubted_reject_gate``) do on labelled scenes.

    python3 benchmarks/doubted_cards.py FOLDER [FOLDER ...] [--models DIR]

Each FOLDER is a dataset written by ``ginscore synth`` (``images/*/*.jpg`` with YOLO labels and
``data.yaml``), for example 120 held-out scenes of one deck:

    ginscore synth --out /tmp/bonded --count 120 --imgsz 1280 --deck bonded --seed 4242

Every scene is read through the product path twice, without and with doubted cards, and the script
prints per folder: cards right, wrong (and how many of those are flagged for review), photos read
exactly, and right cards flagged. The real sets are measured by ``ginscore eval`` and
``benchmarks/confidence_rule.py``; this is the check on scenes the thresholds were not chosen on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.detections import canonical_code, read_yolo_labels  # noqa: E402
from vision.detector import load_detector  # noqa: E402
from vision.recognise import PHOTO_STEPS, recognise  # noqa: E402


def label_codes(folder: Path) -> list[str]:
    import yaml

    names = yaml.safe_load((folder / "data.yaml").read_text())["names"]
    return (
        [canonical_code(names[i]) for i in sorted(names)]
        if isinstance(names, dict)
        else [canonical_code(name) for name in names]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", help="datasets written by 'ginscore synth'")
    parser.add_argument("--models", type=Path, help="models folder (default: models/)")
    args = parser.parse_args()
    import cv2

    detector = load_detector(args.models)
    with_doubt = detector.settings
    if with_doubt.decision.doubted_proposal_conf <= 0:
        print("model.json sets no doubted cards (doubted_proposal_conf); nothing to compare", file=sys.stderr)
        return 2
    readers = {
        "without": with_doubt.replace(decision={"doubted_proposal_conf": 0.0}),
        "with": with_doubt,
    }
    for folder in args.folders:
        codes = label_codes(folder)
        totals = {
            name: {"right": 0, "wrong": 0, "wrong_flagged": 0, "exact": 0, "right_flagged": 0} for name in readers
        }
        labelled = scenes = 0
        for image_path in sorted(folder.glob("images/*/*.jpg")):
            image = cv2.imread(str(image_path))
            height, width = image.shape[:2]
            label_path = folder / "labels" / image_path.parent.name / f"{image_path.stem}.txt"
            wanted = set(read_yolo_labels(label_path, codes, (width, height)).codes)
            labelled += len(wanted)
            scenes += 1
            for name, reader in readers.items():
                cards = recognise(image, detector=detector, settings=reader, steps=PHOTO_STEPS).reading.cards
                tally = totals[name]
                read = {card.card for card in cards}
                tally["right"] += len(read & wanted)
                tally["wrong"] += len(read - wanted)
                tally["wrong_flagged"] += sum(c.to_check for c in cards if c.card not in wanted)
                tally["right_flagged"] += sum(c.to_check for c in cards if c.card in wanted)
                tally["exact"] += read == wanted
        for name, tally in totals.items():
            print(
                f"{folder.name}: {scenes} scenes, {labelled} cards; {name} doubted cards: right {tally['right']}, "
                f"wrong {tally['wrong']} (flagged {tally['wrong_flagged']}), exact {tally['exact']}, "
                f"right cards flagged {tally['right_flagged']}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
