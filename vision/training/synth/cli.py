"""``ginscore synth``: generate a synthetic training dataset of table scenes."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from vision.crops import CROP_SIZE
from vision.training.synth.clutter import draw_contact_sheet
from vision.training.synth.dataset import SynthConfig, draw_preview, generate
from vision.training.synth.index_crops import INDEX_PIXELS
from vision.training.synth.mining import mine_no_card_tables, mine_scenes
from vision.training.synth.scene import FAR_SHARE
from vision.training.teach_deck import complete_deck_folder


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "synth",
        help="generate synthetic table scenes (an ultralytics detection dataset)",
        description="Render synthetic photos of cards on tables with one box per readable corner "
        "index. Decks marked 'val' appear only in the validation split.",
    )
    _where_how_many(parser, "output folder (created)", 1000, "number of scenes")
    parser.add_argument("--imgsz", type=int, default=640, help="long side of each image in pixels (default 640)")
    parser.add_argument(
        "--crops", action="store_true", help="also write index crops per card code for the card classifier"
    )
    parser.add_argument(
        "--clutter",
        type=float,
        default=None,
        metavar="SHARE",
        help="share of scenes with clutter on the table, 0 to 1 (default 0.5)",
    )
    parser.add_argument(
        "--close-ups",
        type=float,
        default=None,
        metavar="SHARE",
        help="share of scenes shot close (one spread or one card filling the frame), 0 to 1 (default 0.12)",
    )
    parser.add_argument(
        "--isolate-crops",
        type=float,
        default=0.0,
        metavar="MARGIN",
        help="with --crops: paint everything farther than MARGIN (a fraction of the crop side, "
        "e.g. 0.08) outside the index box as paper, for a classifier that reads isolated "
        "crops (model.json classifier_isolate)",
    )
    parser.add_argument(
        "--mine",
        type=int,
        default=0,
        metavar="N",
        help="with --crops: then run the shipped detector over the first N scenes and add its "
        "proposals as crops (those on no index to the 'none' class: hard negatives)",
    )
    parser.add_argument(
        "--mine-tables",
        type=int,
        default=0,
        metavar="N",
        help="with --crops: also read N random tables with a handwritten score pad and printed "
        "paper and no card, as the product reads a photo, and add every proposal as a "
        "'none' crop (the hardest hard negatives: handwriting)",
    )
    parser.add_argument(
        "--mine-only",
        action="store_true",
        help="render no scenes: only --mine (an existing dataset of the same --out/--count/--seed) and --mine-tables",
    )
    parser.add_argument(
        "--procedural-decks",
        type=int,
        default=0,
        metavar="N",
        help="also draw N procedural decks (fonts from datasets/install_fonts.sh) in the training scenes, beside "
        "the library's training decks; the same N and --seed, the same decks (default 0)",
    )
    parser.add_argument(
        "--preview",
        type=Path,
        metavar="PNG",
        help="write a contact sheet of the first scenes with boxes and codes, then stop",
    )
    parser.add_argument("--preview-count", type=int, default=16)
    parser.add_argument(
        "--clutter-preview",
        type=Path,
        metavar="IMAGE",
        help="write a contact sheet of the clutter items (text, score pads, cloth, objects), then stop",
    )
    parser.add_argument(
        "--datasets",
        type=Path,
        default=None,
        help="folder holding decks/, backs/, surfaces/ (default: the repository's datasets/)",
    )
    parser.add_argument(
        "--deck",
        action="append",
        default=[],
        metavar="NAME",
        help="draw only this deck (repeatable): one taught with 'ginscore deck add' or one of "
        "'ginscore decks'; used in both splits",
    )
    parser.add_argument(
        "--instance",
        type=Path,
        default=None,
        help="instance folder holding taught decks (default: $GINSCORE_INSTANCE or instance/)",
    )
    parser.set_defaults(run=run_synth)
    add_crops_command(commands)


def _where_how_many(parser: argparse.ArgumentParser, out_help: str, count: int, count_help: str) -> None:
    """The options ``synth`` and ``crops`` share: where to write, how many, the seed and the processes."""
    parser.add_argument("--out", type=Path, required=True, help=out_help)
    parser.add_argument("--count", type=int, default=count, help=f"{count_help} (default {count})")
    parser.add_argument("--seed", type=int, default=0, help="random seed; same seed, same bytes")
    parser.add_argument("--workers", type=int, default=0, help="processes (default: all cores)")


def add_crops_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "crops",
        help="render the card classifier's index crops directly (fast; hundreds of typefaces)",
        description="Render index crops (64 x 64, or --size), one folder per card code and 'none', without whole scenes: "
        "the training decks and procedural decks (fonts from datasets/install_fonts.sh) in train/, the held-out "
        "decks alone in val/. Train on them with 'ginscore train OUT --part classifier'.",
    )
    _where_how_many(parser, "output folder; crops go to OUT/crops/{train,val}", 100_000, "training crops")
    parser.add_argument("--val-count", type=int, default=5_000, help="held-out-deck crops (default 5000)")
    parser.add_argument(
        "--channels",
        choices=["rgb", "bgr"],
        default="rgb",
        help="bgr: write red and blue swapped, to fine-tune a classifier that reads BGR (default rgb)",
    )
    parser.add_argument(
        "--deck",
        action="append",
        default=[],
        metavar="NAME",
        help="crops of this deck only (a taught deck, 'ginscore deck add', or a library deck); repeatable",
    )
    parser.add_argument("--instance", type=Path, default=None, help="the app's instance folder (taught decks)")
    parser.add_argument(
        "--size",
        type=int,
        default=CROP_SIZE,
        help=f"the crops' side in px: the input size of the classifier that will learn from them, as "
        f"'ginscore train --classifier-imgsz' (default {CROP_SIZE})",
    )
    parser.add_argument(
        "--smallest-index",
        type=float,
        default=INDEX_PIXELS[0],
        metavar="PX",
        help=f"the smallest index drawn, its box's longer side in the photo in px (default {INDEX_PIXELS[0]:g}; "
        f"sizes are drawn log-uniformly up to {INDEX_PIXELS[1]:g})",
    )
    parser.set_defaults(run=run_crops)


def run_crops(args: argparse.Namespace) -> int:
    from vision.training.synth.index_crops import CropSet, generate_crops
    from vision.training.train import check_classifier_size

    if args.count < 0 or args.val_count < 0:
        raise ValueError("--count and --val-count take a number of crops, 0 or more")
    check_classifier_size(args.size, "--size")
    if not 4 <= args.smallest_index < INDEX_PIXELS[1]:
        raise ValueError(
            f"--smallest-index {args.smallest_index:g}: give an index size in px from 4 to below {INDEX_PIXELS[1]:g} "
            f"(the largest drawn), e.g. {INDEX_PIXELS[0]:g}"
        )
    decks = tuple(complete_deck_folder(name, args.instance) for name in args.deck)
    crop_set = CropSet(
        args.out / "crops",
        args.count,
        args.val_count,
        args.seed,
        decks,
        args.channels == "bgr",
        args.size,
        (args.smallest_index, INDEX_PIXELS[1]),
    )
    result = generate_crops(crop_set, args.workers)
    print(f"{result['crops']} crops in {result['seconds']} s under {args.out / 'crops'}")
    return 0


def run_synth(args: argparse.Namespace) -> int:

    if args.count < 1:
        raise ValueError(f"--count must be at least 1, got {args.count}")
    if not 64 <= args.imgsz <= 4096:
        raise ValueError(f"--imgsz must be between 64 and 4096 pixels, got {args.imgsz}")
    deck_paths: tuple[Path, ...] = ()
    if getattr(args, "deck", None):
        deck_paths = tuple(
            complete_deck_folder(name, getattr(args, "instance", None), args.datasets) for name in args.deck
        )
    close_ups = getattr(args, "close_ups", None)
    config = SynthConfig(
        out=args.out,
        count=args.count,
        imgsz=args.imgsz,
        seed=args.seed,
        crops=args.crops,
        workers=args.workers,
        datasets_root=args.datasets,
        deck_paths=deck_paths,
        clutter_share=args.clutter,
        close_up_share=close_ups,
        crop_isolate=getattr(args, "isolate_crops", 0.0) or 0.0,
        procedural_decks=getattr(args, "procedural_decks", 0) or 0,
    )
    if config.procedural_decks < 0:
        raise ValueError(f"--procedural-decks {config.procedural_decks}: give 0 or more decks")
    if not 0.0 <= config.crop_isolate < 0.5:
        raise ValueError(
            f"--isolate-crops {config.crop_isolate}: give a margin from 0 to 0.5 of the crop side, e.g. 0.08"
        )
    if args.clutter is not None and not 0.0 <= args.clutter <= 1.0:
        raise ValueError(f"--clutter {args.clutter}: give a share from 0 to 1, e.g. 0.9")
    if close_ups is not None and not 0.0 <= close_ups <= 1.0 - FAR_SHARE:
        raise ValueError(
            f"--close-ups {close_ups}: give a share from 0 to {1.0 - FAR_SHARE:g} "
            f"(the far shots take {FAR_SHARE:g}), e.g. 0.3"
        )
    if args.clutter_preview:
        print(f"clutter preview written to {draw_contact_sheet(args.clutter_preview, args.seed)}")
        return 0
    if args.preview:
        path = draw_preview(config, min(args.preview_count, args.count), args.preview)
        print(f"preview written to {path}")
        return 0
    if (args.mine or getattr(args, "mine_tables", 0)) and not args.crops:
        raise ValueError("--mine and --mine-tables write classifier crops; add --crops")
    if not args.mine_only:
        start = time.perf_counter()
        stats = generate(config)
        seconds = time.perf_counter() - start
        print(
            f"{stats['scenes']} scenes ({stats['train']} train, {stats['val']} val), "
            f"{stats['boxes']} index boxes, {stats['hidden']} hidden indices dropped, "
            f"{seconds:.1f} s = {stats['scenes'] / seconds:.1f} scenes/s -> {args.out / 'data.yaml'}"
        )
    if args.mine:
        start = time.perf_counter()
        mined = mine_scenes(config, args.mine)
        print(
            f"mined {mined['scenes']} scenes in {time.perf_counter() - start:.1f} s: {mined['negatives']} "
            f"'none' crops, {mined['positives']} card crops as the detector frames them"
        )
    if getattr(args, "mine_tables", 0):
        start = time.perf_counter()
        mined = mine_no_card_tables(args.out, args.mine_tables, args.seed, datasets_root=args.datasets)
        print(
            f"read {mined['scenes']} no-card tables in {time.perf_counter() - start:.1f} s: "
            f"{mined['negatives']} 'none' crops"
        )
    return 0
