"""A confidence that means what it says: fit it on rendered held-out scenes, check it with a reliability table.

    ginscore calibrate FIT_SCENES [FIT_SCENES ...] --check CHECK_SCENES [...] [--write] [--json OUT]

Each folder is a dataset written by ``ginscore synth`` (``images/*/*.jpg``, YOLO labels, ``data.yaml``),
rendered with decks and surfaces the models never trained on (``models/MODEL_CARD.md`` names them). Every
scene is read through the product's path (``vision.recognise.recognise``, photo mode). A card is right
when the scene holds it. The calibration of
``vision.review.calibrated_confidence``, ``sigmoid(a + b * logit(raw) + c * (boxes >= 2) + d * has_reason)``,
is fitted by logistic regression on the ``FIT`` scenes; the
reliability table (confidence bins against the share of right cards) and the review numbers are printed
for the ``--check`` scenes, which were not used to fit. ``--write`` records (a, b, c) in model.json's
``decision.calibration``. Classifier disagreement (``decision.flag_disagreement``) is read for every
scene and its reasons are counted with and without it, so one run measures what that evidence buys.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.cli import add_model_options
from vision.detections import HIDDEN_LABELS, Detections, box_overlap_of_smaller, canonical_code, read_yolo_labels
from vision.detector import CardIndexDetector, load_detector
from vision.model_settings import DecisionSettings, ModelSettings, read_settings_document, write_settings_document
from vision.reading import CardReading
from vision.recognise import recognise
from vision.review import calibrated_confidence

BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0000001)
STRUCTURAL = ("not_a_card", "corners_disagree", "more_corners", "classifiers_disagree")


@dataclass(frozen=True)
class CardOutcome:
    """One card read in a labelled scene: its raw confidence, how many corner boxes showed it, whether it is
    right, the reasons other than a low confidence that the reader gave it, and whether the scene labels one of
    its indices (a card read right only at an index too hidden to label is right, but not one of the labelled
    cards a benchmark counts against)."""

    raw: float
    boxes: int
    right: bool
    reasons: tuple[str, ...]
    labelled: bool = True


def scene_label_codes(folder: Path) -> list[str]:
    """The card code of each class id of a ``ginscore synth`` dataset (its data.yaml names)."""
    import yaml

    names = yaml.safe_load((folder / "data.yaml").read_text())["names"]
    ordered = [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)
    return [canonical_code(name) for name in ordered]


@dataclass(frozen=True, eq=False)
class SceneTruth:
    """What a rendered scene holds: the codes of its labelled indices, and where its hidden indices lie."""

    codes: frozenset[str]
    hidden: Detections | None

    def is_right(self, card: CardReading) -> bool:
        """A card is right when the scene shows it at a labelled index, or where one of its hidden indices lies."""
        return card.card in self.codes or (self.hidden is not None and read_at_hidden_index(card, self.hidden))


def scene_truth(image_path: Path, codes: Sequence[str], size: tuple[int, int]) -> SceneTruth:
    """The truth of one scene of a ``ginscore synth`` dataset (``images/<split>/<scene>.jpg``), ``size`` its pixels."""
    folder, split, stem = image_path.parents[2], image_path.parent.name, image_path.stem
    labels = read_yolo_labels(folder / "labels" / split / f"{stem}.txt", codes, size)
    hidden_path = folder / HIDDEN_LABELS / split / f"{stem}.txt"
    return SceneTruth(
        frozenset(labels.codes), read_yolo_labels(hidden_path, codes, size) if hidden_path.is_file() else None
    )


def scene_images(folder: Path) -> list[Path]:
    """The scenes of a ``ginscore synth`` dataset, every split."""
    return sorted(folder.glob("images/*/*.jpg"))


def counted_reasons(decision: DecisionSettings) -> frozenset[str]:
    """The structural reasons the review counts with ``decision``: classifier disagreement only when it is flagged."""
    return frozenset(kind for kind in STRUCTURAL if kind != "classifiers_disagree" or decision.flag_disagreement)


def uncalibrated(settings: ModelSettings) -> ModelSettings:
    """``settings`` reading raw confidences: no calibration, no review threshold, every classifier's dissent kept as a
    reason (the calibration is fitted and applied afterwards, on the cards read)."""
    return settings.replace(
        decision={"calibration": (), "calibration_curve": (), "review_below": 0.0, "flag_disagreement": True}
    )


def read_scenes(
    folders: Sequence[Path], detector: CardIndexDetector, settings: ModelSettings | None = None
) -> list[CardOutcome]:
    """Every card the product reads in the scenes, with the raw (uncalibrated) confidence (``settings``
    otherwise as ``detector``'s model.json)."""
    import cv2

    raw = uncalibrated(settings or detector.settings)
    outcomes = []
    for folder in folders:
        codes = scene_label_codes(folder)
        for image_path in scene_images(folder):
            image = cv2.imread(str(image_path))
            if image is None:
                raise ValueError(f"{image_path}: not a readable image")
            truth = scene_truth(image_path, codes, (image.shape[1], image.shape[0]))
            reading = recognise(image, detector=detector, settings=raw).reading
            outcomes += [
                CardOutcome(
                    card.confidence,
                    len(card.boxes),
                    truth.is_right(card),
                    tuple(r.kind for r in card.review if r.kind in STRUCTURAL),
                    card.card in truth.codes,
                )
                for card in reading.cards
            ]
    return outcomes


def read_at_hidden_index(card: CardReading, hidden: Detections) -> bool:
    """Whether one of the card's boxes and an index of that card that the renderer left unlabelled as too
    hidden overlap by half the smaller of them or more: the reader read a half-covered index right.

    >>> from dataclasses import replace
    >>> hidden = Detections.from_cards([("7h", (100, 100, 120, 140), 1.0)])
    >>> seen = CardReading("7h", 0.9, ((104, 120, 120, 140),))
    >>> read_at_hidden_index(seen, hidden), read_at_hidden_index(replace(seen, card="7d"), hidden)
    (True, False)
    """
    same = np.array([code == card.card for code in hidden.codes], dtype=bool)
    if not same.any():
        return False
    return bool((box_overlap_of_smaller(np.array(card.boxes, dtype=np.float64), hidden.xyxy[same]) >= 0.5).any())


def _features(outcomes: Sequence[CardOutcome], kinds: frozenset[str]) -> np.ndarray:
    raw = np.clip(np.array([o.raw for o in outcomes], dtype=np.float64), 1e-6, 1 - 1e-6)
    boxes = np.array([o.boxes >= 2 for o in outcomes], dtype=np.float64)
    reasons = np.array([bool(set(o.reasons) & kinds) for o in outcomes], dtype=np.float64)
    return np.column_stack([np.ones(len(outcomes)), np.log(raw / (1 - raw)), boxes, reasons])


def fit_calibration(
    outcomes: Sequence[CardOutcome], kinds: frozenset[str] = frozenset(STRUCTURAL), ridge: float = 1e-3
) -> tuple[float, float, float, float]:
    """(a, b, c, d) of the logistic regression of "right" on (1, logit(raw), boxes >= 2, a reason of
    ``kinds``), by Newton's method with a little ridge (so that a set with no wrong card still gives
    finite numbers).

    >>> rng = np.random.default_rng(0)
    >>> raw = rng.uniform(0.05, 0.99, 4000)
    >>> truth = rng.random(4000) < raw ** 2          # the raw confidence is too high
    >>> fitted = fit_calibration([CardOutcome(float(r), 1, bool(t), ()) for r, t in zip(raw, truth, strict=True)])
    >>> calibrated_confidence(0.5, 1, fitted) < 0.4
    True
    """
    if not outcomes:
        raise ValueError("no cards to fit the calibration on: read some labelled scenes first")
    x = _features(outcomes, kinds)
    y = np.array([o.right for o in outcomes], dtype=np.float64)
    weights = np.array([0.0, 1.0, 0.0, 0.0])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ weights)))
        gradient = x.T @ (y - p) - ridge * weights
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + ridge * np.eye(4)
        step = np.linalg.solve(hessian, gradient)
        weights = weights + step
        if float(np.abs(step).max()) < 1e-9:
            break
    a, b, c, d = (float(round(w, 4)) for w in weights)
    return a, b, c, d


def reliability_table(confidence: Sequence[float], right: Sequence[bool]) -> list[dict[str, Any]]:
    """Confidence bins (``BINS``) against the share of right cards in each: count, mean confidence, accuracy.

    >>> rows = reliability_table([0.05, 0.95, 0.97], [False, True, True])
    >>> [(row["bin"], row["cards"], row["accuracy"]) for row in rows]
    [('0.00-0.10', 1, 0.0), ('0.95-1.00', 2, 1.0)]
    """
    values = np.asarray(confidence, dtype=np.float64)
    truth = np.asarray(right, dtype=bool)
    rows = []
    for low, high in zip(BINS[:-1], BINS[1:], strict=True):
        inside = (values >= low) & (values < high)
        if inside.any():
            rows.append(
                {
                    "bin": f"{low:.2f}-{min(high, 1.0):.2f}",
                    "cards": int(inside.sum()),
                    "mean_confidence": round(float(values[inside].mean()), 4),
                    "accuracy": round(float(truth[inside].mean()), 4),
                }
            )
    return rows


def fit_curve(scores: Sequence[float], right: Sequence[bool], points: int = 40) -> tuple[float, ...]:
    """A monotone map of scores onto the share right (isotonic regression, pool-adjacent-violators, on
    ``points`` groups of equally many cards), as (x1, y1, x2, y2, ...) for ``calibrated_confidence``.
    Most cards are read surely, so the groups crowd at the top: 40 groups keep the low end's bins near their
    share right where 20 did not (docs/experiments/reading-settings-history.md).

    >>> fit_curve([0.1, 0.2, 0.8, 0.9], [False, True, False, True], points=4)
    (0.1, 0.0, 0.5, 0.5, 0.9, 1.0)
    """
    order = np.argsort(np.asarray(scores, dtype=np.float64), kind="stable")
    values = np.asarray(scores, dtype=np.float64)[order]
    truth = np.asarray(right, dtype=np.float64)[order]
    blocks = [
        [float(x.mean()), float(y.mean()), float(len(x))]
        for x, y in zip(np.array_split(values, points), np.array_split(truth, points), strict=True)
        if len(x)
    ]
    pooled: list[list[float]] = []
    for x, y, w in blocks:
        pooled.append([x * w, y * w, w])
        while len(pooled) > 1 and pooled[-2][1] / pooled[-2][2] >= pooled[-1][1] / pooled[-1][2]:
            last = pooled.pop()
            pooled[-1] = [pooled[-1][i] + last[i] for i in range(3)]
    return tuple(float(round(v, 4)) for x, y, w in pooled for v in (x / w, y / w))


def calibrated_of(
    outcomes: Sequence[CardOutcome], calibration: Sequence[float], kinds: frozenset[str], curve: Sequence[float] = ()
) -> list[float]:
    return [calibrated_confidence(o.raw, o.boxes, calibration, bool(set(o.reasons) & kinds), curve) for o in outcomes]


def review_numbers(
    outcomes: Sequence[CardOutcome],
    calibration: Sequence[float],
    review_below: float,
    kinds: frozenset[str],
    curve: Sequence[float] = (),
) -> dict:
    """What the review page shows with this calibration and threshold, counting the reasons of ``kinds``:
    right and wrong cards, the wrong ones without any reason (shown as sure), the right ones flagged."""
    calibrated = calibrated_of(outcomes, calibration, kinds, curve)
    flagged = [bool(set(o.reasons) & kinds) or c < review_below for o, c in zip(outcomes, calibrated, strict=True)]
    right = sum(o.right for o in outcomes)
    wrong = len(outcomes) - right
    sure_wrong = sum(not f and not o.right for o, f in zip(outcomes, flagged, strict=True))
    right_flagged = sum(f and o.right for o, f in zip(outcomes, flagged, strict=True))
    return {
        "cards": len(outcomes),
        "right": right,
        "wrong": wrong,
        "wrong_shown_as_sure": sure_wrong,
        "wrong_shown_as_sure_per_2000": round(2000 * sure_wrong / max(len(outcomes), 1), 2),
        "right_flagged": right_flagged,
        "right_flagged_share": round(right_flagged / max(right, 1), 4),
    }


def format_reliability(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'confidence':>10} {'cards':>6} {'mean conf':>9} {'right':>6}  gap"]
    for row in rows:
        gap = row["accuracy"] - row["mean_confidence"]
        lines.append(
            f"{row['bin']:>10} {row['cards']:>6} {row['mean_confidence']:>9.3f} {row['accuracy']:>6.3f}  {gap:+.3f}"
        )
    return "\n".join(lines)


def read_or_cached(
    args: argparse.Namespace, detector: CardIndexDetector
) -> tuple[list[CardOutcome], list[CardOutcome]]:
    """The cards of the fit and check scenes: read through the product, or from ``--cache`` when it holds
    the same folders."""
    key = {"fit": [str(f.resolve()) for f in args.fit], "check": [str(f.resolve()) for f in args.check]}
    if args.cache is not None and args.cache.is_file():
        cached = json.loads(args.cache.read_text())
        if cached.get("key") == key:
            fit_rows, check_rows = (
                [CardOutcome(o[0], o[1], o[2], tuple(o[3])) for o in cached[p]] for p in ("fit", "check")
            )
            return fit_rows, check_rows
    fit_cards, check_cards = read_scenes(args.fit, detector), read_scenes(args.check, detector)
    if args.cache is not None:
        rows = {
            part: [[o.raw, o.boxes, o.right, list(o.reasons)] for o in cards]
            for part, cards in (("fit", fit_cards), ("check", check_cards))
        }
        args.cache.write_text(json.dumps({"key": key, **rows}))
    return fit_cards, check_cards


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore calibrate``."""
    parser = commands.add_parser(
        "calibrate",
        help="fit the confidence calibration on rendered held-out scenes and print its reliability table",
        description=__doc__.split("\n\n")[0],
    )
    parser.add_argument("fit", nargs="+", type=Path, metavar="FIT_SCENES", help="'ginscore synth' datasets to fit on")
    parser.add_argument(
        "--check",
        nargs="+",
        type=Path,
        required=True,
        metavar="SCENES",
        help="'ginscore synth' datasets to check on (not used to fit)",
    )
    parser.add_argument("--write", action="store_true", help="record the calibration in model.json")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the numbers here")
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="FILE",
        help="keep the cards read from the scenes in FILE and read them from there next time "
        "(refitting then takes seconds; delete it when the scenes or the models change)",
    )
    add_model_options(parser)
    parser.set_defaults(run=run_calibrate)


def run_calibrate(args: argparse.Namespace) -> int:
    for folder in [*args.fit, *args.check]:
        if not (folder / "data.yaml").is_file():
            raise FileNotFoundError(
                f"{folder} holds no data.yaml: make the scenes with 'ginscore synth --out {folder}'"
            )
    detector = load_detector(args.models)
    decision: DecisionSettings = detector.settings.decision
    fit_cards, check_cards = read_or_cached(args, detector)
    in_use = counted_reasons(decision)
    variants = {
        "model_json": in_use,
        "with_disagreement": frozenset(STRUCTURAL),
        "without_disagreement": frozenset(STRUCTURAL) - {"classifiers_disagree"},
    }
    result: dict[str, Any] = {"review_below": decision.review_below}
    for variant, kinds in variants.items():
        calibration = fit_calibration(fit_cards, kinds)
        curve = fit_curve(calibrated_of(fit_cards, calibration, kinds), [o.right for o in fit_cards])
        result[variant] = {"calibration": list(calibration), "calibration_curve": list(curve), "kinds": sorted(kinds)}
        print(f"\n=== reasons counted: {variant} ({', '.join(sorted(kinds))})")
        print(f"fitted on {len(fit_cards)} cards: calibration (a, b, c, d) = {calibration}, curve {curve}")
        for name, cards in (("fit", fit_cards), ("check", check_cards)):
            for label, used, used_curve in (("raw", (), ()), ("calibrated", calibration, curve)):
                rows = reliability_table(calibrated_of(cards, used, kinds, used_curve), [o.right for o in cards])
                numbers = review_numbers(cards, used, decision.review_below, kinds, used_curve)
                result[variant][f"{name}_{label}"] = {"reliability": rows, "review": numbers}
                if name == "fit" and label == "raw":
                    continue
                print(f"\n{name} scenes, {label} confidence ({len(cards)} cards):")
                print(format_reliability(rows))
                print(
                    f"review below {decision.review_below}: {numbers['wrong']} wrong cards, "
                    f"{numbers['wrong_shown_as_sure']} shown as sure ({numbers['wrong_shown_as_sure_per_2000']} "
                    f"per 2,000 cards); {numbers['right_flagged']}/{numbers['right']} right cards flagged "
                    f"({numbers['right_flagged_share']:.1%})"
                )
        thresholds = []
        for threshold in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95):
            thresholds.append(
                {"review_below": threshold, **review_numbers(check_cards, calibration, threshold, kinds, curve)}
            )
        result[variant]["check_thresholds"] = thresholds
        print("\ncheck scenes, calibrated, by review threshold:")
        for row in thresholds:
            print(
                f"  below {row['review_below']:.2f}: wrong shown as sure {row['wrong_shown_as_sure']} "
                f"({row['wrong_shown_as_sure_per_2000']} per 2,000), right flagged {row['right_flagged_share']:.1%}"
            )
    calibration = tuple(result["model_json"]["calibration"])
    curve = tuple(result["model_json"]["calibration_curve"])
    if args.write:
        folder = args.models or detector.settings.detector.weights.parent
        document = read_settings_document(folder)
        document.setdefault("decision", {}).update(calibration=list(calibration), calibration_curve=list(curve))
        print(f"\nwrote {write_settings_document(folder, document)}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    if not all(math.isfinite(v) for v in calibration):
        raise ValueError(f"the calibration did not converge: {calibration}")
    return 0
