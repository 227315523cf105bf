"""Sub-commands of ``ginscore`` for reading photos (see web/cli.py): ``detect``, ``score`` and ``export``.

Heavy imports (ultralytics, torch, OpenCV) happen inside the command functions only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine import Card, Rules, score_hand
from vision.annotate import save_annotated
from vision.detector import export_onnx, load_detector
from vision.hands import UNSURE_SPLIT
from vision.reading import ImageError
from vision.recognise import read_photo, recognise

KNOCKER_SIDES = ("top", "bottom", "left", "right")


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register this part's sub-commands on the ``ginscore`` parser."""
    detect = commands.add_parser(
        "detect",
        help="read the cards in photos (and split them into two hands)",
        description="Detect the cards in each photo and split them into the two spreads.",
    )
    detect.add_argument("photos", nargs="+", metavar="PHOTO", help="JPEG, PNG, WebP or HEIC photo")
    detect.add_argument("--json", action="store_true", help="print a JSON list, one object per photo")
    add_save_annotated(detect, "DIR", "write each photo with its boxes, codes and confidences drawn into DIR")
    detect.add_argument("--single", action="store_true", help="each photo shows ONE player's spread")
    add_model_options(detect)
    detect.set_defaults(run=run_detect)
    _add_score(commands)
    _add_export(commands)


def _add_score(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore score``."""
    score = commands.add_parser(
        "score",
        help="read a showdown photo and score the hand",
        description="Recognise both spreads in one photo and score the hand with the rules engine.",
    )
    score.add_argument("photo", metavar="PHOTO")
    score.add_argument(
        "--knocker",
        choices=KNOCKER_SIDES,
        help="where the knocker's spread lies in the photo (default: the top or left spread)",
    )
    score.add_argument("--rules", metavar="NAME", help="rules variant (default: the engine's standard rules)")
    score.add_argument("--upcard", metavar="C", help="the first upcard (used by variants such as Oklahoma)")
    score.add_argument("--json", action="store_true", help="print the reading and the result as JSON")
    add_model_options(score)
    score.set_defaults(run=run_score)


def _add_export(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore export``."""
    export = commands.add_parser(
        "export",
        help="export the detector to ONNX for faster CPU inference",
        description="Write card_index_detector.onnx beside the .pt detector; while it is "
        "not older than the .pt and onnxruntime is installed, detect/score/eval "
        "and the web app use it.",
    )
    export.add_argument("--models", metavar="DIR", type=Path, help="folder with the model files (default: models/)")
    export.set_defaults(run=run_export)


def add_save_annotated(parser: argparse.ArgumentParser, metavar: str, help_text: str) -> None:
    """The ``--save-annotated`` option of the commands that read photos."""
    parser.add_argument("--save-annotated", metavar=metavar, type=Path, help=help_text)


def add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--imgsz",
        type=int,
        help="detector input size in pixels (default: models/model.json, else vision.detector.DEFAULT_IMGSZ)",
    )
    parser.add_argument(
        "--conf",
        type=float,
        help="lowest confidence kept (default: models/model.json, else vision.detector.DEFAULT_CONF)",
    )
    parser.add_argument("--models", metavar="DIR", type=Path, help="folder with the model files (default: models/)")
    parser.add_argument(
        "--tiles",
        type=int,
        default=1,
        metavar="N",
        help="read the photo as N x N overlapping tiles, each at --imgsz (slower; for cards small in the frame)",
    )


def check_model_options(args: argparse.Namespace) -> None:
    if args.imgsz is not None and not 32 <= args.imgsz <= 4096:
        raise ValueError(f"--imgsz {args.imgsz} is out of range; use 32 to 4096 (e.g. 1024)")
    if args.conf is not None and not 0.0 <= args.conf <= 1.0:
        raise ValueError(f"--conf {args.conf} is out of range; use 0 to 1 (e.g. 0.25)")
    if not 1 <= args.tiles <= 4:
        raise ValueError(f"--tiles {args.tiles} is out of range; use 1 (whole photo) to 4")


def run_detect(args: argparse.Namespace) -> int:
    """``ginscore detect``: print the cards and hands of each photo; exit 2 if a photo could not be read."""

    check_model_options(args)
    detector = load_detector(args.models)
    results, failures = [], 0
    for photo in args.photos:
        try:
            recognition = recognise(
                photo,
                detector=detector,
                imgsz=args.imgsz,
                conf=args.conf,
                single_spread=args.single,
                name=photo,
                tiles=args.tiles,
            )
        except ImageError as error:
            print(f"ginscore detect: error: {error}", file=sys.stderr)
            failures += 1
            continue
        reading = recognition.reading
        if args.save_annotated:
            save_annotated(
                args.save_annotated / f"{Path(photo).stem}.jpg",
                recognition.image.pixels,
                reading,
                recognition.image.to_original,
            )
        if args.json:
            results.append({"image": photo, **reading.to_json()})
        else:
            print(_describe(photo, reading))
    if args.json:
        print(json.dumps(results, indent=1))
    return 2 if failures else 0


def _describe(photo: str, reading) -> str:
    first, second = ("top", "bottom") if reading.split_axis == "horizontal" else ("left", "right")
    lines = [f"{photo}: {len(reading.cards)} cards"]
    lines.append("  cards: " + " ".join(f"{card.card}({card.confidence:.2f})" for card in reading.cards))
    lines.append(f"  hand 1 ({first}): {' '.join(reading.hands[0]) or '-'}")
    lines.append(f"  hand 2 ({second}): {' '.join(reading.hands[1]) or '-'}")
    lines.append(f"  split: {reading.split_axis}, confidence {reading.split_confidence:.2f}")
    lines += [f"  conflict: {text}" for text in reading.conflicts]
    return "\n".join(lines)


def knocker_hand_index(knocker: str | None, split_axis: str) -> int:
    """Which of the two hands (0 = top/left, 1 = bottom/right) is the knocker's.

    >>> knocker_hand_index("bottom", "horizontal"), knocker_hand_index(None, "vertical")
    (1, 0)
    """
    if knocker is None:
        return 0
    sides = ("top", "bottom") if split_axis == "horizontal" else ("left", "right")
    if knocker not in sides:
        raise ValueError(
            f"--knocker {knocker}: the spreads in this photo lie {sides[0]} and {sides[1]}; "
            f"use --knocker {sides[0]} or --knocker {sides[1]}"
        )
    return sides.index(knocker)


def score_reading(reading, knocker: str | None = None, rules_name: str | None = None, upcard: str | None = None):
    """Score a recognised showdown with the engine: (knocker's cards, defender's cards, HandResult).

    Raises ``ValueError`` saying what to do when the photo does not hold two spreads the engine can score.
    """

    rules = Rules.preset(rules_name or "standard")
    first_upcard = None
    if upcard is not None:
        try:
            first_upcard = Card(upcard)
        except ValueError as error:
            raise ValueError(f"--upcard {upcard}: {error}") from None
    knocker_index = knocker_hand_index(knocker, reading.split_axis)
    knocker_cards = list(reading.hands[knocker_index])
    defender_cards = list(reading.hands[1 - knocker_index])
    if not knocker_cards or not defender_cards:
        raise ValueError(
            f"found {len(reading.cards)} cards but not two spreads ({len(knocker_cards)} and "
            f"{len(defender_cards)} cards); photograph both spreads, apart, with every corner "
            f"index visible"
        )
    try:
        result = score_hand(knocker_cards, defender_cards, rules, first_upcard)
    except ValueError as error:
        raise ValueError(
            f"{error} (read: knocker {' '.join(knocker_cards)} | defender {' '.join(defender_cards)}); "
            f"retake the photo with every corner index visible, or enter the hand by hand"
        ) from None
    return knocker_cards, defender_cards, result


def run_score(args: argparse.Namespace) -> int:
    """``ginscore score``: recognise a showdown photo and score it with the engine."""

    check_model_options(args)
    reading = read_photo(
        args.photo, detector=load_detector(args.models), imgsz=args.imgsz, conf=args.conf, tiles=args.tiles
    )
    for text in reading.conflicts:
        print(f"warning: {text}", file=sys.stderr)
    if reading.split_confidence < UNSURE_SPLIT:
        print(
            f"warning: the two spreads are not clearly apart (split confidence {reading.split_confidence:.2f}); "
            f"check which cards belong to whom",
            file=sys.stderr,
        )
    try:
        knocker_cards, defender_cards, result = score_reading(reading, args.knocker, args.rules, args.upcard)
    except ValueError as error:
        raise ValueError(f"{args.photo}: {error}") from None
    if args.json:
        print(
            json.dumps(
                {
                    "image": args.photo,
                    **reading.to_json(),
                    "knocker": knocker_cards,
                    "defender": defender_cards,
                    "result": result.to_dict(),
                },
                indent=1,
            )
        )
        return 0
    sides = ("top", "bottom") if reading.split_axis == "horizontal" else ("left", "right")
    knocker_index = knocker_hand_index(args.knocker, reading.split_axis)
    print(f"knocker ({sides[knocker_index]}): {' '.join(knocker_cards)}")
    print(f"defender ({sides[1 - knocker_index]}): {' '.join(defender_cards)}")
    print(result.explanation)
    return 0


def run_export(args: argparse.Namespace) -> int:
    """``ginscore export``: write the ONNX export of the detector beside it."""

    print(f"wrote {export_onnx(args.models)}")
    return 0
