"""``ginscore eval`` (measure the reader on a labelled folder) and ``ginscore calibrate`` (see web/cli.py for
the other commands)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from vision.cli import add_model_options, add_save_annotated, check_model_options
from vision.detector import load_detector
from vision.evaluation import calibration, evaluate


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore eval`` and ``ginscore calibrate``."""
    calibration.add_commands(commands)
    evaluate = commands.add_parser(
        "eval",
        help="measure the recogniser on labelled photos",
        description="Card-level recall/precision, photos read exactly, box mAP50, "
        "class-agnostic box recall and the most confused cards on a folder "
        "with images/, labels/ (YOLO txt) and classes.txt.",
    )
    evaluate.add_argument("folder", metavar="DIR", type=Path)
    add_save_annotated(evaluate, "OUT", "write each photo with the reading (and the labels in green) into OUT")
    evaluate.add_argument("--json", action="store_true", help="print the full result as JSON")
    evaluate.add_argument(
        "--zoom",
        metavar="Z,Z",
        type=_factors,
        help="also read each photo as if taken Z times closer (four crops of 1/Z of the side, "
        "scaled up), e.g. 2,3: prints the scale curve",
    )
    evaluate.add_argument(
        "--shrink",
        metavar="S,S",
        type=_factors,
        help="also read each photo shrunk to S of its size on a plain table (further away), e.g. 0.5,0.33",
    )
    add_model_options(evaluate)
    evaluate.set_defaults(run=run_eval)


def _factors(text: str) -> list[float]:
    """``"2,3"`` -> [2.0, 3.0], for --zoom and --shrink."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give numbers separated by commas, e.g. 2,3") from None
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r}: give positive numbers separated by commas, e.g. 2,3")
    return values


def run_eval(args: argparse.Namespace) -> int:
    """``ginscore eval``: measure on a labelled folder and print per-photo and total numbers."""
    check_model_options(args)
    if not args.folder.is_dir():
        raise FileNotFoundError(
            f"{args.folder} is not a folder; give a folder with images/, labels/ and classes.txt "
            f"(or images/ and a rank-only labels.csv)"
        )
    if args.shrink and any(s >= 1 for s in args.shrink):
        raise ValueError(f"--shrink {args.shrink}: each factor must be below 1 (e.g. 0.5,0.33)")
    if args.zoom and any(z <= 1 for z in args.zoom):
        raise ValueError(f"--zoom {args.zoom}: each factor must be above 1 (e.g. 2,3)")
    detector = load_detector(args.models)
    if evaluate.is_rank_folder(args.folder):
        if args.zoom or args.shrink:
            raise ValueError(
                "--zoom and --shrink need index-box labels (images/, labels/, classes.txt), not a rank-only labels.csv"
            )
        result = evaluate.evaluate_rank_folder(
            args.folder, detector=detector, imgsz=args.imgsz, conf=args.conf, save_annotated=args.save_annotated
        )
        print(json.dumps(result, indent=1) if args.json else evaluate.format_rank_report(result))
        if not args.json:
            print(reliability_of(result))
        return 0
    evaluate.check_eval_folder(args.folder)
    result = evaluate.evaluate_folder(
        args.folder,
        detector=detector,
        imgsz=args.imgsz,
        conf=args.conf,
        save_annotated=args.save_annotated,
        tiles=args.tiles,
    )
    if args.zoom or args.shrink:
        result["scale_curve"] = evaluate.evaluate_scale_curve(
            args.folder, args.zoom or [], args.shrink or [], detector=detector, imgsz=args.imgsz, conf=args.conf
        )
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(evaluate.format_report(result))
        print(reliability_of(result))
        if "scale_curve" in result:
            print("scale curve (the product's reading of each variant):")
            print(evaluate.format_scale_curve(result["scale_curve"]))
    return 0


def reliability_of(result: dict) -> str:
    """The reliability table of every card an evaluation read (its confidence bins against the share right)."""
    checks = [check for photo in result["photos"] for check in photo["card_checks"]]
    rows = calibration.reliability_table([c for c, _, _ in checks], [ok for _, ok, _ in checks])
    return "reliability (the cards' confidence against the share read right):\n" + calibration.format_reliability(rows)
