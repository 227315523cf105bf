"""How the reading confidence rule and the review flag were chosen, and how far to trust the choice.

A box's reading has confidence ``detector ** weight * classifier`` (``detector_weight`` in
models/model.json; with a "not a card" class the classifier's card probability already excludes what
it rejects); boxes are proposed from detector confidence ``proposal_conf`` and readings kept from
``conf``. A card below ``review_below`` is flagged on the review page for the user to check.

This script reads every photo of real-val (corner-index labels) and real-clutter (rank labels,
whole-card boxes) once through the product's proposals (the close-up pass included) and the
classifier's ranked cards per box, then for a grid of (proposal_conf, conf):

* prints right and wrong cards on each set (a wrong card on real-val: a code not in the photo; on
  real-clutter: a card whose rank is not that of the labelled card under its index);
* chooses the setting on both sets together (the most right cards among the settings whose
  precision is at least ``PRECISION_GOAL``) and reports leave-one-photo-out: the setting chosen on
  all photos but one reads the one left out;
* chooses ``review_below``, the lowest flag under which every wrong card of the chosen setting lies,
  and reports how many right cards it flags, also leaving one photo out;
* chooses the second way in with them (``sure_proposal_conf``, ``sure_classifier``: a box the
  detector is unsure of, kept when the classifiers are sure; "off" is one of the choices);
* and doubted cards (``doubted_proposal_conf``, ``doubted_reject_gate``: a box the detector is sure of
  that a classifier calls "not a card" below the doubted gate is read all the same, always flagged;
  "off" is one of the choices).

    python3 benchmarks/confidence_rule.py [--models DIR] [--sets real-val,real-clutter]

(the script runs this module's ``main``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.crop_reading import CropReadings, crop_readings, crops_of
from vision.decision import BoxEvidence, decide_boxes, one_reading_each
from vision.decode import decode_image
from vision.detections import Detections, canonical_code, read_yolo_labels
from vision.detector import CardIndexDetector, load_detector
from vision.evaluation.evaluate import check_eval_folder, match_rank_readings, read_rank_labels
from vision.model_settings import DecisionSettings, ModelSettings
from vision.paths import DATASETS_DIR
from vision.proposals import decode_side, proposals_of
from vision.recognise import reading_from_detections
from vision.steps import PHOTO

REAL = DATASETS_DIR / "real"
PROPOSALS = (0.2, 0.1, 0.05, 0.02)
THRESHOLDS = (0.6, 0.5, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1)
PRECISION_GOAL = 0.99  # of the cards read on both sets together, at least this share right (issue: >= 0.99)
# the second way in (model.json sure_proposal_conf, sure_classifier): boxes the detector is unsure of,
# kept when the classifiers are sure; chosen together with (proposal_conf, conf)
NO_SURE_TIER = (0.0, 1.0)
NO_DOUBT = (0.0, 1.0)  # (doubted_proposal_conf, doubted_reject_gate): no doubted cards
SURE_TIERS = (NO_SURE_TIER, *((p, c) for p in (0.1, 0.05, 0.03, 0.02) for c in (0.9, 0.95, 0.97, 0.99)))
# doubted cards (model.json doubted_proposal_conf, doubted_reject_gate): boxes the detector is sure of,
# dropped only when a classifier says "not a card" at least this surely; read otherwise, always flagged
DOUBT_TIERS = (NO_DOUBT, *((p, g) for p in (0.5, 0.6, 0.7) for g in (0.5, 0.75, 0.9)))


def read_sets(detector, sets: list[str], imgsz: int) -> list[dict]:
    """Per photo: proposals (photo pixels), detector scores, ranked cards and probabilities, labels."""
    photos = []
    for name in sets:
        folder = REAL / name
        rank_labels = read_rank_labels(folder / "labels.csv") if (folder / "labels.csv").exists() else None
        codes = None if rank_labels else [canonical_code(c) for c in (folder / "classes.txt").read_text().split()]
        paths = [folder / "images" / f for f in sorted(rank_labels)] if rank_labels else check_eval_folder(folder)
        for path in paths:
            image = decode_image(path, max_side=decode_side(detector.settings, imgsz))  # as the product decodes
            xyxy, scores, (card_ids, probabilities, rejected, _) = proposals_read(detector, image.pixels, imgsz)
            photo = {
                "set": name,
                "name": path.name,
                "xyxy": xyxy * image.to_original,
                "scores": scores,
                "card_ids": card_ids,
                "probabilities": probabilities,
                "rejected": rejected,
                "size": image.original_size,
                "corners": detector.settings.corners,  # how its boxes become cards (model.json's "corners")
            }
            if rank_labels:
                photo["ranks"] = rank_labels[path.name]
            else:
                assert codes is not None  # a folder without labels.csv has classes.txt
                photo["labelled"] = set(
                    read_yolo_labels(folder / "labels" / f"{path.stem}.txt", codes, image.original_size).codes
                )
            photos.append(photo)
    return photos


def proposals_read(
    detector: CardIndexDetector, pixels: np.ndarray, imgsz: int
) -> tuple[np.ndarray, np.ndarray, CropReadings]:
    """The boxes a photo's reading starts from, down to the lowest proposal threshold measured (with the second
    pass as the product decides it), their detector scores, and the classifiers' readings before the gate."""
    settings = detector.settings
    proposals = proposals_of(detector, pixels, imgsz, min(PROPOSALS + tuple(p for p, _ in SURE_TIERS if p)))
    crops, isolated = crops_of(detector, pixels, proposals.xyxy, settings.classifiers)
    readings = crop_readings(detector, settings, crops, isolated, settings.classifiers.rotations)
    return proposals.xyxy, proposals.confidence, readings


def read_cards(
    photo: dict,
    weight: float,
    proposal: float,
    threshold: float,
    review_below: float,
    sure: tuple[float, float] = NO_SURE_TIER,
    reject_gate: float = 0.0,
    doubt: tuple[float, float] = NO_DOUBT,
    base: DecisionSettings | None = None,
) -> list[tuple[float, bool, bool]]:
    """(confidence, right, to check) of each card the setting reads in the photo, decided as
    ``CardIndexDetector.detect`` decides it (``vision.decision.decide_boxes``, photo mode; ``threshold``
    plays model.json's conf) and reviewed as the product reviews it. ``sure``: (sure_proposal_conf,
    sure_classifier), the second way in; ``doubt``: (doubted_proposal_conf, doubted_reject_gate)."""
    settings = replace(
        base or DecisionSettings(),
        conf=threshold,
        detector_weight=weight,
        review_below=review_below,
        reject_gate=reject_gate,
        sure_proposal_conf=sure[0],
        sure_classifier=sure[1],
        doubted_proposal_conf=doubt[0],
        doubted_reject_gate=doubt[1],
    )
    evidence = BoxEvidence(photo["scores"], photo["card_ids"], photo["probabilities"], photo["rejected"])
    decided = decide_boxes(evidence, settings, PHOTO, proposal_conf=proposal)
    keep = decided.keep
    if not keep.any():
        return []
    # many settings keep the same readings of a photo: read those into cards once (the card review depends
    # only on the readings and on the calibration and review_below, which the grid does not vary)
    seen = photo.setdefault("read", {})
    review_key = (settings.calibration, settings.calibration_curve, settings.review_below)
    key = (keep.tobytes(), decided.confidence[keep].tobytes(), tuple(decided.review[keep]), review_key)
    if key not in seen:
        seen[key] = cards_of(photo, keep, decided.confidence, decided.review, settings)
    return seen[key]


def cards_of(
    photo: dict, keep: np.ndarray, confidence: np.ndarray, review: np.ndarray, settings: DecisionSettings
) -> list[tuple[float, bool, bool]]:
    """(confidence, right, to check) of each card the kept readings make (``reading_from_detections``)."""
    ids = photo["card_ids"][keep]
    detections = one_reading_each(
        Detections(photo["xyxy"][keep], ids[:, 0], confidence[keep, 0], ids[:, 1:], confidence[keep, 1:], review[keep]),
        settings,
    )
    cards = reading_from_detections(detections, photo["size"], decision=settings, corners=photo["corners"]).cards
    if "ranks" in photo:
        right = match_rank_readings([(c.card[0], c.confidence, c.boxes) for c in cards], photo["ranks"])
    else:
        right = [c.card in photo["labelled"] for c in cards]
    return [(c.confidence, ok, c.to_check) for c, ok in zip(cards, right, strict=True)]


def labelled_count(photo: dict) -> int:
    return len(photo["ranks"]) if "ranks" in photo else len(photo["labelled"])


def describe(setting) -> str:
    proposal, conf, sure, doubt = setting
    return (
        f"proposal_conf {proposal}, conf {conf}, "
        + ("no second way in" if sure == NO_SURE_TIER else f"second way in from {sure[0]} at classifier {sure[1]}")
        + (", no doubted cards" if doubt == NO_DOUBT else f", doubted cards from {doubt[0]} below reject {doubt[1]}")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, help="models folder (default: models/)")
    parser.add_argument("--sets", default="real-val,real-clutter")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    result = choose_and_check(load_detector(args.models), args.sets.split(","))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


def choose_and_check(
    detector: CardIndexDetector, sets: Sequence[str] = ("real-val", "real-clutter"), say: Callable[[str], None] = print
) -> dict:
    """Read ``sets`` once, choose the setting and review flag on all their photos, and leave one photo out.
    Returns the numbers (``result["sets"][name]["leave_one_out"]["right"]``: the cards of a set read right when
    each photo is read with the setting chosen on the others); ``say`` gets the lines that ``main`` prints."""
    start = time.perf_counter()
    photos = read_sets(detector, list(sets), detector.settings.detector.imgsz)
    say(f"read {len(photos)} photos in {time.perf_counter() - start:.0f} s")
    grid = _Grid(photos, detector.settings.decision, say)
    grid.print_best(in_model_json(detector.settings))
    result = grid.chosen_report(detector.settings.decision.review_below)
    grid.leave_one_photo_out(result)
    return result


def in_model_json(settings: ModelSettings) -> tuple:
    """model.json's (proposal_conf, conf, second way in, doubted cards), as a setting of the grid."""
    decision = settings.decision
    sure = (decision.sure_proposal_conf, decision.sure_classifier) if decision.sure_proposal_conf > 0 else NO_SURE_TIER
    doubt = (
        (decision.doubted_proposal_conf, decision.doubted_reject_gate)
        if decision.doubted_proposal_conf > 0
        else NO_DOUBT
    )
    return (settings.detector.proposal_conf, decision.conf, sure, doubt)


class _Grid:
    """Every setting of (proposal_conf, conf, second way in, doubted cards) read on every photo: the cards each
    reads, and the choice among them."""

    def __init__(self, photos: list[dict], decision: DecisionSettings, say: Callable[[str], None] = print) -> None:
        self.photos = photos
        self.say = say
        # a second way in only from below proposal_conf
        self.grid = [
            (p, t, sure, doubt)
            for p in PROPOSALS
            for t in THRESHOLDS
            for sure in SURE_TIERS
            for doubt in DOUBT_TIERS
            if sure == NO_SURE_TIER or sure[0] < p
        ]
        weight, review_below, reject_gate = decision.detector_weight, decision.review_below, decision.reject_gate
        self.cards = {
            setting: [
                read_cards(
                    photo,
                    weight,
                    setting[0],
                    setting[1],
                    review_below,
                    setting[2],
                    reject_gate,
                    setting[3],
                    base=decision,
                )
                for photo in photos
            ]
            for setting in self.grid
        }
        self.rights = {s: np.array([sum(ok for _, ok, _ in read) for read in self.cards[s]]) for s in self.grid}
        self.wrongs = {s: np.array([sum(not ok for _, ok, _ in read) for read in self.cards[s]]) for s in self.grid}
        self.everyone = list(range(len(photos)))
        self.sets = sorted({p["set"] for p in photos})
        self.by_set = {s: [i for i in self.everyone if photos[i]["set"] == s] for s in self.sets}

    def counts(self, setting, which) -> tuple[int, int]:
        return int(self.rights[setting][which].sum()), int(self.wrongs[setting][which].sum())

    def utility(self, setting, which) -> tuple:
        """Most right cards among the settings whose precision reaches the goal (else the most precise),
        then the fewest wrong; ties go to the higher thresholds, to no second way in and to no doubted cards."""
        right, wrong = self.counts(setting, which)
        precision = right / max(right + wrong, 1)
        proposal, conf, sure, doubt = setting
        return (
            precision >= PRECISION_GOAL,
            right if precision >= PRECISION_GOAL else precision,
            -wrong,
            proposal,
            conf,
            sure == NO_SURE_TIER,
            sure[1],
            sure[0],
            doubt == NO_DOUBT,
            doubt[0],
            -doubt[1],
        )

    def review_flag(self, setting, which) -> float:
        """The lowest flag under which every wrong card without another reason lies (cards exactly at it are
        not flagged)."""
        wrong = [c for i in which for c, ok, checked in self.cards[setting][i] if not ok and not checked]
        return float(np.nextafter(max(wrong), 1.0)) if wrong else 0.5

    def best(self, which) -> tuple:
        return max(self.grid, key=lambda s: self.utility(s, which))

    def labelled(self, which) -> int:
        return sum(labelled_count(self.photos[i]) for i in which)

    def print_best(self, in_model: tuple) -> None:
        """The twelve best settings on all photos (and model.json's), each set's right and wrong cards."""
        self.say(
            f"{'proposal':>8} {'conf':>5} {'second way in':>13} {'doubted':>8}  "
            + "  ".join(f"{s + ' right/wrong':>26}" for s in self.sets)
        )
        shown = sorted(self.grid, key=lambda s: self.utility(s, self.everyone), reverse=True)[:12]
        for setting in shown + ([in_model] if in_model in self.cards and in_model not in shown else []):
            row = []
            for s in self.sets:
                right, wrong = self.counts(setting, self.by_set[s])
                row.append(f"{right:>5}/{self.labelled(self.by_set[s]):<5} right, {wrong:>4} wrong")
            sure = "-" if setting[2] == NO_SURE_TIER else f"{setting[2][0]}/{setting[2][1]}"
            doubt = "-" if setting[3] == NO_DOUBT else f"{setting[3][0]}/{setting[3][1]}"
            self.say(
                f"{setting[0]:>8} {setting[1]:>5} {sure:>13} {doubt:>8}  "
                + "  ".join(f"{r:>26}" for r in row)
                + ("   <- model.json" if setting == in_model else "")
            )

    def chosen_report(self, in_use: float) -> dict:
        """The setting chosen on all photos and its review flag, with each set's numbers (printed), and with
        model.json's review flag ``in_use``."""
        chosen = self.best(self.everyone)
        flag = self.review_flag(chosen, self.everyone)
        result: dict = {
            "chosen": {
                "proposal_conf": chosen[0],
                "conf": chosen[1],
                "sure_tier": list(chosen[2]),
                "doubt_tier": list(chosen[3]),
                "review_below": round(flag, 4),
            },
            "sets": {},
        }
        self.say(f"chosen on both sets: {describe(chosen)}; review flag below {flag:.3f}")
        cards = self.cards[chosen]
        for s in self.sets:
            right, wrong = self.counts(chosen, self.by_set[s])
            flagged_right = sum(c < flag or checked for i in self.by_set[s] for c, ok, checked in cards[i] if ok)
            labelled = self.labelled(self.by_set[s])
            self.say(f"  {s}: {right}/{labelled} right, {wrong} wrong; right cards flagged {flagged_right}/{right}")
            result["sets"][s] = {"right": right, "labelled": labelled, "wrong": wrong, "right_flagged": flagged_right}
        for s in self.sets:
            wrong_flagged = sum(checked for i in self.by_set[s] for c, ok, checked in cards[i] if not ok)
            right_flagged = sum(checked for i in self.by_set[s] for c, ok, checked in cards[i] if ok)
            right, wrong = self.counts(chosen, self.by_set[s])
            self.say(
                f"  with model.json's review flag ({in_use}): {s}: wrong cards flagged {wrong_flagged}/{wrong}, "
                f"right cards flagged {right_flagged}/{right}"
            )
            result["sets"][s]["model_json_flag"] = {
                "review_below": in_use,
                "wrong_flagged": wrong_flagged,
                "right_flagged": right_flagged,
            }
        self.chosen = chosen
        return result

    def leave_one_photo_out(self, result: dict) -> None:
        """Leave one photo out: choose (setting, flag) on the others, read the one left out (printed, and added
        to ``result``)."""
        loo: dict[str, Counter[str]] = {s: Counter() for s in self.sets}
        for left_out in self.everyone:
            others = np.array([i for i in self.everyone if i != left_out])
            setting = self.best(others)
            flag = self.review_flag(setting, others)
            tally = loo[self.photos[left_out]["set"]]
            tally["same_as_chosen"] += setting == self.chosen
            for confidence, ok, checked in self.cards[setting][left_out]:
                tally["right" if ok else "wrong"] += 1
                tally["right_flagged" if ok else "wrong_flagged"] += checked or confidence < flag
            tally["labelled"] += labelled_count(self.photos[left_out])
        for s in self.sets:
            t = loo[s]
            self.say(
                f"leave-one-photo-out {s}: {t['right']}/{t['labelled']} right = {t['right'] / max(t['labelled'], 1):.4f}, "
                f"{t['wrong']} wrong (precision {t['right'] / max(t['right'] + t['wrong'], 1):.4f}); wrong cards "
                f"flagged {t['wrong_flagged']}/{t['wrong']}, right cards flagged {t['right_flagged']}/{t['right']}; "
                f"the choice was the all-photo one for {t['same_as_chosen']}/{len(self.by_set[s])} left-out photos"
            )
            result["sets"][s]["leave_one_out"] = dict(t)


if __name__ == "__main__":
    raise SystemExit(main())
