"""How the product reads rendered scenes of the held-out decks on surfaces no training used.

    python3 benchmarks/heldout_decks.py --seed S [--scenes N] [--models DIR] [--out DIR] [--workers K]

The held-out decks are those whose ``datasets/decks/*/deck.json`` says ``"split": "val"`` (bonded,
kde_penguins, kde_ancient_egyptians, atlasnye, kde_jolly_royal). The script builds the ``HELDOUT`` folder of
earlier sessions in a temporary folder: ``decks/`` (links to the held-out decks), ``backs/`` (a link to
``datasets/backs``) and ``surfaces/``: six photos bundled inside scikit-image's wheel (brick, grass, gravel,
coffee, rocket, motorcycle; ``pip install -e .[bench]``), nothing downloaded. Without scikit-image the
surfaces are only the renderer's procedural textures, which training also drew, and the output says so.
The renderer draws a procedural texture instead of a photo for some scenes either way
(``vision.training.synth.surfaces.random_surface``).

N scenes (default 800) are shared out among the decks, and each deck's scenes are rendered as
``ginscore synth --out OUT/... --count n --imgsz 1280 --seed 10 * S + k --datasets HELDOUT --deck <deck k>``
would render them (``vision.training.synth.dataset.generate``): the same seed gives the same scenes. They
are kept under ``--out`` (default: ``ginscore-heldout-decks`` in the temporary folder), so a second run,
with other models, reads the same scenes without rendering them again.

Every scene is read through the product's path (``vision.evaluation.calibration.read_scenes``) with the
models of ``--models`` (default ``models/``); the confidence is then calibrated and the cards flagged as
model.json says (``decision.calibration``, ``calibration_curve``, ``review_below``, ``flag_disagreement``),
as ``ginscore calibrate`` counts them: a card is flagged when its calibrated confidence is below
``review_below`` or it carries a reason of ``STRUCTURAL`` (the reasons of a whole hand, such as
``hand_count``, are not counted). Per deck and overall it prints: cards, the share read wrong, wrong cards
shown as sure (no reason to check them) per 2,000 cards, the share of right cards flagged, the right cards
against the cards with a labelled index (the shares are of the cards read, which a higher ``conf`` shortens),
and the reliability table (bins of the calibrated confidence; ``<<`` marks a bin of 50 cards or more whose share
right and mean confidence lie more than 0.05 apart). The last line is

    held-out decks: N cards, wrong W %, silent S per 2,000, right flagged F %

5,000 cards take 430 to 560 scenes: 60 scenes of seed 7 held 705 cards (11.8 a scene, from 6.8 for kde_penguins
to 15.6 for kde_ancient_egyptians), the model card's 800 check scenes 7,190 (9.0). Reading took 1.9 to 3.4 s a scene on two
busy cores (rendering 0.35 s): 800 scenes, 25 to 45 minutes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.training.synth.decks import deck_folders  # noqa: E402

DATASETS = REPO / "datasets"
IMGSZ = 1280
DEFAULT_SCENES = 800
# the six scikit-image photos of earlier sessions' HELDOUT folder: the name there, the file in skimage/data
SKIMAGE_SURFACES = {
    "brick": "brick.png",
    "grass": "grass.png",
    "gravel": "gravel.png",
    "coffee": "coffee.png",
    "rocket": "rocket.jpg",
    "motorcycle": "motorcycle_left.png",
}
MARK_CARDS = 50
MARK_GAP = 0.05


def heldout_decks(datasets: Path = DATASETS) -> list[str]:
    """The ids of the library's decks marked ``"split": "val"`` (never trained on), sorted."""
    return [folder.name for folder in deck_folders(datasets, split="val")]


def scenes_per_deck(scenes: int, decks: int) -> list[int]:
    """``scenes`` shared out as evenly as the count allows, the first decks taking the remainder.

    >>> scenes_per_deck(12, 5)
    [3, 3, 2, 2, 2]
    """
    return [scenes // decks + (k < scenes % decks) for k in range(decks)]


def skimage_surfaces() -> tuple[dict[str, Path], str]:
    """The bundled scikit-image photos by name, and a line saying what they are; ``({}, why)`` without them."""
    try:
        skimage = importlib.import_module("skimage")
    except ImportError:
        return {}, "scikit-image is not installed (pip install -e .[bench])"
    folder = Path(skimage.__file__ or ".").parent / "data"
    found = {name: folder / file for name, file in SKIMAGE_SURFACES.items() if (folder / file).is_file()}
    if not found:
        return {}, f"scikit-image {skimage.__version__} bundles none of {', '.join(SKIMAGE_SURFACES.values())}"
    missing = sorted(set(SKIMAGE_SURFACES) - set(found))
    return found, f"scikit-image {skimage.__version__}'s bundled photos" + (
        f" (not bundled, left out: {', '.join(missing)})" if missing else ""
    )


def build_heldout_folder(root: Path, decks: Sequence[str], surfaces: dict[str, Path]) -> Path:
    """``root``/HELDOUT as ``ginscore synth --datasets`` reads it: decks and backs linked, the surfaces as JPEG."""
    import cv2

    folder = root / "HELDOUT"
    (folder / "decks").mkdir(parents=True)
    (folder / "surfaces").mkdir()
    for deck in decks:
        (folder / "decks" / deck).symlink_to((DATASETS / "decks" / deck).resolve(), target_is_directory=True)
    (folder / "backs").symlink_to((DATASETS / "backs").resolve(), target_is_directory=True)
    for name, path in surfaces.items():
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)  # the grey photos become three equal channels
        if image is None:
            raise ValueError(f"{path}: scikit-image's photo is not readable")
        cv2.imwrite(str(folder / "surfaces" / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return folder


def render_decks(
    out: Path, seed: int, counts: dict[str, int], surfaces: dict[str, Path], workers: int
) -> dict[str, Path]:
    """The scenes of each deck under ``out``: rendered once, then read from there (a key file says how)."""
    from vision.training.synth.dataset import SynthConfig, generate

    kind = "photos" if surfaces else "procedural"
    run = out / f"seed{seed}-scenes{sum(counts.values())}-{IMGSZ}px-{kind}"
    folders: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="heldout-") as scratch:
        heldout = None
        for k, (deck, count) in enumerate(counts.items()):
            if count == 0:
                continue
            folder, deck_seed = run / deck, 10 * seed + k
            key = {"deck": deck, "count": count, "seed": deck_seed, "imgsz": IMGSZ, "surfaces": sorted(surfaces)}
            key_path = folder / "heldout.json"
            if key_path.is_file() and json.loads(key_path.read_text()) == key:
                print(f"{deck}: {count} scenes rendered before, in {folder}", flush=True)
                folders[deck] = folder
                continue
            if folder.exists():  # a render cut short, or of other settings: render it again
                shutil.rmtree(folder)
            if heldout is None:
                heldout = build_heldout_folder(Path(scratch), list(counts), surfaces)
            start = time.perf_counter()
            config = SynthConfig(
                out=folder,
                count=count,
                imgsz=IMGSZ,
                seed=deck_seed,
                workers=workers,
                datasets_root=heldout,
                deck_paths=(heldout / "decks" / deck,),
            )
            stats = generate(config, progress=False)
            key_path.write_text(json.dumps(key))
            print(
                f"{deck}: rendered {stats['scenes']} scenes (seed {deck_seed}) in "
                f"{time.perf_counter() - start:.0f} s -> {folder}",
                flush=True,
            )
            folders[deck] = folder
    return folders


def labelled_cards(folder: Path) -> int:
    """The cards of a ``ginscore synth`` dataset with at least one labelled index (the cards to read): a raised
    ``conf`` shortens the list of cards read, and so its share wrong, so the right cards are also counted
    against these."""
    return sum(
        len({line.split()[0] for line in path.read_text().splitlines() if line.strip()})
        for path in (folder / "labels").glob("*/*.txt")
    )


def right_of_labelled(outcomes: Sequence[Any]) -> int:
    """The cards (``CardOutcome``) read right at a labelled index: those counted against ``labelled_cards`` (a card
    read right only where its index was too hidden to label is right, but not one of them)."""
    return sum(1 for outcome in outcomes if outcome.right and outcome.labelled)


def deck_report(name: str, outcomes: Sequence[Any], decision: Any, kinds: frozenset[str]) -> dict[str, Any]:
    """The review numbers of ``outcomes`` (``CardOutcome``) as model.json's ``decision`` flags them, printed."""
    from vision.evaluation.calibration import calibrated_of, format_reliability, reliability_table, review_numbers

    calibration, curve = tuple(decision.calibration), tuple(decision.calibration_curve)
    numbers = review_numbers(outcomes, calibration, decision.review_below, kinds, curve)
    cards = max(numbers["cards"], 1)
    numbers["wrong_share"] = numbers["wrong"] / cards
    rows = reliability_table(calibrated_of(outcomes, calibration, kinds, curve), [o.right for o in outcomes])
    lines = format_reliability(rows).split("\n")
    for i, row in enumerate(rows, start=1):
        if row["cards"] >= MARK_CARDS and abs(row["accuracy"] - row["mean_confidence"]) > MARK_GAP:
            lines[i] += "  <<"
    print(
        f"\n{name}: {numbers['cards']} cards, wrong {numbers['wrong_share']:.1%} ({numbers['wrong']}), "
        f"silent {numbers['wrong_shown_as_sure_per_2000']:.1f} per 2,000 ({numbers['wrong_shown_as_sure']} wrong "
        f"cards shown as sure), right flagged {numbers['right_flagged_share']:.1%} "
        f"({numbers['right_flagged']}/{numbers['right']})"
    )
    print("\n".join(lines))
    return numbers


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, required=True, help="rendering seed (0 or more): same seed, same scenes")
    parser.add_argument(
        "--scenes",
        type=int,
        default=DEFAULT_SCENES,
        help=f"scenes in all, shared among the decks (default {DEFAULT_SCENES})",
    )
    parser.add_argument("--models", type=Path, help="models folder: weights and model.json (default: models/)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(tempfile.gettempdir()) / "ginscore-heldout-decks",
        help="where the rendered scenes are kept and found again (default: ginscore-heldout-decks in the temp folder)",
    )
    parser.add_argument("--workers", type=int, default=1, help="rendering processes (default 1)")
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed {args.seed}: give a seed of 0 or more")
    if args.scenes < 1:
        parser.error(f"--scenes {args.scenes}: give 1 scene or more")
    if args.workers < 1:
        parser.error(f"--workers {args.workers}: give 1 process or more")
    if args.models is not None and not args.models.is_dir():
        parser.error(f"--models {args.models}: no such folder")

    from vision.detector import load_detector
    from vision.evaluation.calibration import counted_reasons, read_scenes

    start = time.perf_counter()
    decks = heldout_decks()
    if not decks:
        print(f'no deck of {DATASETS / "decks"} is marked "split": "val"', file=sys.stderr)
        return 2
    surfaces, about = skimage_surfaces()
    if surfaces:
        print(f"surfaces: {', '.join(surfaces)} ({about}), and the renderer's procedural textures")
    else:
        print(
            f"surfaces: PROCEDURAL ONLY, the textures training also drew, not held out ({about}); "
            "these numbers are not those of held-out surfaces"
        )
    counts = dict(zip(decks, scenes_per_deck(args.scenes, len(decks)), strict=True))
    print(f"decks: {', '.join(f'{deck} ({n} scenes)' for deck, n in counts.items())}; seed {args.seed}", flush=True)
    folders = render_decks(args.out, args.seed, counts, surfaces, args.workers)
    rendered = time.perf_counter()

    detector = load_detector(args.models)
    decision = detector.settings.decision
    kinds = counted_reasons(decision)
    print(
        f"models: {args.models or 'models/'} ({detector.settings.detector.weights.name}); review below "
        f"{decision.review_below}, reasons counted: {', '.join(sorted(kinds))}",
        flush=True,
    )
    every, labelled = [], 0
    for deck, folder in folders.items():
        outcomes = read_scenes([folder], detector)
        every += outcomes
        in_scenes = labelled_cards(folder)
        labelled += in_scenes
        numbers = deck_report(f"{deck} ({counts[deck]} scenes)", outcomes, decision, kinds)
        print(f"read right: {right_of_labelled(outcomes)} of the {in_scenes} cards with a labelled index")
    numbers = deck_report(f"all held-out decks ({args.scenes} scenes)", every, decision, kinds)
    right = right_of_labelled(every)
    print(f"read right: {right} of the {labelled} cards with a labelled index ({right / max(1, labelled):.1%})")
    print(
        f"\nrendering {rendered - start:.0f} s, reading {time.perf_counter() - rendered:.0f} s "
        f"({(time.perf_counter() - rendered) / args.scenes:.2f} s a scene)"
    )
    print(
        f"held-out decks: {numbers['cards']} cards, wrong {100 * numbers['wrong_share']:.1f} %, "
        f"silent {numbers['wrong_shown_as_sure_per_2000']:.1f} per 2,000, "
        f"right flagged {100 * numbers['right_flagged_share']:.1f} %"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
