"""Which classifiers, at how many quarter turns, the reader needs: each choice measured on its own.

    python3 benchmarks/classifier_choice.py --fit D5101 D5103 --check D5102 D5104 [--cache FILE]
                                            [--real-val DIR] [--real-clutter DIR] [--models DIR] [--json OUT]

The reader reads every corner crop with the main classifier and model.json's partners, each at
``classifiers.rotations`` quarter turns (issue 24, item 5: fewer classifiers or rotations if the fitted
confidence keeps the numbers). For every choice (no partner, each partner alone, both; 1, 2 or 4 turns)
this script:

1. reads the rendered held-out scenes (``ginscore synth`` folders of decks and surfaces never trained on,
   as ``ginscore calibrate`` reads them) through the product's path with that choice;
2. fits the confidence calibration on the ``--fit`` scenes, as ``ginscore calibrate`` does, and counts on
   the ``--check`` scenes the wrong cards shown as sure and the right cards flagged (model.json's
   ``review_below``);
3. reads real-val and real-clutter with that choice and its own calibration: cards right, wrong cards,
   flagged right and wrong cards.

Every detector pass and every classifier pass at every turn is computed once and kept (``--cache``), so
the choices differ only in how the same network outputs are combined: the first run reads everything
(about 25 minutes here), a rerun takes minutes. Speed is measured by ``benchmarks/vision_bench.py
--partners ... --rotations N``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.crop_reading import with_classifiers  # noqa: E402
from vision.detector import CardIndexDetector, classify_crops, combine_turns, quarter_turns, turned  # noqa: E402
from vision.evaluation.calibration import (  # noqa: E402
    STRUCTURAL,
    calibrated_of,
    fit_calibration,
    fit_curve,
    format_reliability,
    read_scenes,
    reliability_table,
    review_numbers,
)
from vision.evaluation.evaluate import evaluate_folder, evaluate_rank_folder  # noqa: E402
from vision.model_settings import ModelSettings, read_model_settings  # noqa: E402


def digest(*arrays: np.ndarray) -> bytes:
    hasher = hashlib.blake2b(digest_size=16)
    for array in arrays:
        hasher.update(str(array.shape).encode())
        hasher.update(np.ascontiguousarray(array).tobytes())
    return hasher.digest()


class RememberingDetector(CardIndexDetector):
    """The product's detector, remembering each detector pass and each classifier pass at each turn (keyed
    by the pixels), so that choices of classifiers and turns are compared on the same network outputs."""

    def __init__(self, settings: Any, memory: dict) -> None:
        super().__init__(settings)
        self.memory = memory
        self.names = {id(self.classifier): settings.classifiers.main.name}
        for path, (partner, _) in self.partners.items():
            self.names[id(partner)] = path.name

    def predict_boxes(self, pixels: np.ndarray, imgsz: int, conf: float) -> tuple[np.ndarray, np.ndarray]:
        key = ("propose", digest(pixels), imgsz, round(conf, 6))
        if key not in self.memory:
            self.memory[key] = super().predict_boxes(pixels, imgsz, conf)
        return self.memory[key]

    def classify(self, classifier: Any, crops: list[np.ndarray], rotations: int) -> np.ndarray:
        batch_key = digest(np.stack(crops))
        readings = []
        for turn in quarter_turns(rotations):
            key = ("classify", self.names[id(classifier)], turn, batch_key)
            if key not in self.memory:
                self.memory[key] = classify_crops(
                    classifier, turned(crops, turn), self.settings.classifiers.channels
                ).astype(np.float32)
            readings.append(self.memory[key].astype(np.float64))
        return combine_turns(readings)


def measure(
    detector: CardIndexDetector, settings: ModelSettings, args: argparse.Namespace, kinds: frozenset[str]
) -> dict[str, Any]:
    decision = settings.decision
    fit_cards, check_cards = read_scenes(args.fit, detector, settings), read_scenes(args.check, detector, settings)
    calibration = fit_calibration(fit_cards, kinds)
    curve = fit_curve(calibrated_of(fit_cards, calibration, kinds), [o.right for o in fit_cards])
    row: dict[str, Any] = {
        "calibration": calibration,
        "calibration_curve": curve,
        "check": review_numbers(check_cards, calibration, decision.review_below, kinds, curve),
        "check_reliability": reliability_table(
            calibrated_of(check_cards, calibration, kinds, curve), [o.right for o in check_cards]
        ),
        "check_at": {
            str(t): review_numbers(check_cards, calibration, t, kinds, curve)["wrong_shown_as_sure_per_2000"]
            for t in (0.5, 0.7, 0.9)
        },
    }
    calibrated = replace(settings, decision=replace(decision, calibration=calibration, calibration_curve=curve))
    if args.real_val:
        result = evaluate_folder(args.real_val, detector=detector, settings=calibrated)
        photos = result["photos"]
        row["real_val"] = {
            "right": sum(p["cards_right"] for p in photos),
            "labelled": sum(p["cards_labelled"] for p in photos),
            "read": sum(p["cards_read"] for p in photos),
            "exact": result["photos_exact"],
            "flagged_right": sum(p["flagged_right"] for p in photos),
            "flagged_wrong": sum(p["flagged_wrong"] for p in photos),
        }
    if args.real_clutter:
        result = evaluate_rank_folder(args.real_clutter, detector=detector, settings=calibrated)
        row["real_clutter"] = {
            key: result[key]
            for key in (
                "rank_recall",
                "rank_precision",
                "photos_exact",
                "false_cards",
                "wrong_cards",
                "wrong_cards_flagged",
                "right_cards",
                "right_cards_flagged",
            )
        }
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", nargs="+", type=Path, required=True)
    parser.add_argument("--check", nargs="+", type=Path, required=True)
    parser.add_argument("--real-val", type=Path, default=REPO / "datasets/real/real-val")
    parser.add_argument("--real-clutter", type=Path, default=REPO / "datasets/real/real-clutter")
    parser.add_argument("--models", type=Path)
    parser.add_argument("--cache", type=Path, help="keep every network output here (pickle) for the next run")
    parser.add_argument("--rotations", type=int, nargs="+", default=[4, 2, 1])
    parser.add_argument(
        "--partners-below",
        type=float,
        nargs="+",
        default=[1.0],
        help="the partners read only the crops the main classifier reads less surely than this (1: all)",
    )
    parser.add_argument("--reliability", action="store_true", help="print each choice's check-scene reliability table")
    parser.add_argument("--only-all-partners", action="store_true", help="skip the choices with fewer partners")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    for folder in (args.real_val, args.real_clutter):
        if folder and not folder.is_dir():
            print(f"{folder}: not here; that set is skipped", file=sys.stderr)
    args.real_val = args.real_val if args.real_val and args.real_val.is_dir() else None
    args.real_clutter = args.real_clutter if args.real_clutter and args.real_clutter.is_dir() else None

    memory: dict = {}
    if args.cache and args.cache.is_file():
        memory = pickle.loads(args.cache.read_bytes())
    settings = read_model_settings(args.models)
    detector = RememberingDetector(settings, memory)
    partners = settings.classifiers.partners
    choices = [tuple(partners)] + ([] if args.only_all_partners else [(p,) for p in partners] + [()])
    kinds = frozenset(STRUCTURAL) - {"classifiers_disagree"}
    rows = []
    for rotations in args.rotations:
        every = [(chosen, below) for chosen in choices for below in (args.partners_below if chosen else [1.0])]
        for chosen, below in every:
            start = time.perf_counter()
            row = {
                "partners": [p.name for p in chosen],
                "rotations": rotations,
                "partners_below": below,
                **measure(detector, with_classifiers(settings, chosen, rotations, below), args, kinds),
            }
            rows.append(row)
            if args.cache:
                args.cache.write_bytes(pickle.dumps(memory))
            check, val, clutter = row["check"], row.get("real_val", {}), row.get("real_clutter", {})
            print(
                f"main + {len(chosen)} partner(s) {row['partners']}, {rotations} turn(s), partners asked below "
                f"{below} "
                f"[{time.perf_counter() - start:.0f} s]\n"
                f"  check scenes: {check['cards']} cards, {check['wrong']} wrong, sure-wrong "
                f"{check['wrong_shown_as_sure_per_2000']} per 2,000 (at 0.5/0.7/0.9: {row['check_at']}), "
                f"right flagged {check['right_flagged_share']:.1%}\n"
                f"  real-val: {val.get('right')}/{val.get('labelled')} right of {val.get('read')} read, "
                f"{val.get('exact')} exact, flagged right {val.get('flagged_right')}, wrong {val.get('flagged_wrong')}\n"
                f"  real-clutter: recall {clutter.get('rank_recall')}, precision {clutter.get('rank_precision')}, "
                f"false {clutter.get('false_cards')}, wrong flagged {clutter.get('wrong_cards_flagged')}/"
                f"{clutter.get('wrong_cards')}, right flagged {clutter.get('right_cards_flagged')}/"
                f"{clutter.get('right_cards')}",
                flush=True,
            )
            if args.reliability:
                print(format_reliability(row["check_reliability"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
