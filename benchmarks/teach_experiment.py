"""Teach a held-out deck from rendered table photos, as a player would: the first half of issue 25's experiment.

    python3 benchmarks/teach_experiment.py --deck kde_ancient_egyptians --instance DIR [--photos DIR]
                                           [--surface gimp_pine.jpg] [--seed 2502]

Renders 4 table photos (one suit's 13 cards each, lying 1-3 cm apart on ``--surface``, 1920x1080 like a
webcam; ``vision.training.synth.table_photo``), then teaches them as deck ``<deck>_taught`` into the
instance folder with ``teach_deck``, answering every question the way a player who knows the cards
would (the rendered truth); it prints the faces found, the names asked about and the faces written
with a wrong name. ``--check-photo``: then one more photo, a spread of 13 cards overlapping as in play (never used to teach;
``--check-cards`` names cards it must hold, such as the deck's repeated misreads), kept as the deck's check photo (``ginscore deck check``), each card confirmed
or fixed as that player would. Then run, as the Training page does:

    ginscore retrain --hours 0.5 --instance DIR --models-dir MODELS --deck <deck>_taught \\
        --eval HELD_OUT_PHOTOS --eval datasets/real/real-val --eval datasets/real/real-clutter

where HELD_OUT_PHOTOS are other photos of the deck (``ginscore synth --deck <deck> --seed ...``), never
used to teach. The retrain prints and keeps its before/after numbers (``instance/retrain/report.json``).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.detector import load_detector  # noqa: E402
from vision.training.synth.decks import DATASETS, load_deck  # noqa: E402
from vision.training.synth.table_photo import write_suit_photos  # noqa: E402
from vision.training.table_cards import photo_cards  # noqa: E402
from vision.training.teach_deck import teach_deck  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="kde_ancient_egyptians", help="a held-out deck of datasets/decks")
    parser.add_argument("--instance", type=Path, required=True, help="instance folder to teach the deck into")
    parser.add_argument("--photos", type=Path, help="where the table photos go (default: a temporary folder)")
    parser.add_argument("--surface", default="gimp_pine.jpg", help="table surface of datasets/surfaces")
    parser.add_argument("--seed", type=int, default=2502)
    parser.add_argument("--check-photo", action="store_true", help="also keep a spread of the deck as its check photo")
    parser.add_argument(
        "--check-cards",
        default="",
        help="cards the check photo must hold (comma-separated codes, e.g. the deck's repeated misreads: Td,6s); "
        "the rest of its 13 drawn at random",
    )
    args = parser.parse_args()
    folder = args.photos or Path(tempfile.mkdtemp(prefix="ginscore-teach-"))
    deck = load_deck(DATASETS / "decks" / args.deck)
    rendered = write_suit_photos(deck, args.surface, folder, seed=args.seed)
    detector = load_detector()

    truth: dict[str, str] = {}  # a face's label ("table_1.jpg card 3") -> the card it shows
    for path, codes, quads in rendered:
        centres = np.array([quad.mean(axis=0) for quad in quads])
        for card in photo_cards(path, detector=detector).cards:
            if card.quad is not None:
                nearest = int(np.argmin(np.linalg.norm(centres - card.quad.mean(axis=0), axis=1)))
                truth[card.label] = codes[nearest]
    asked: list[str] = []

    def player(prompt: str) -> str:
        label = re.sub(r"^\[\d+/\d+\] ", "", prompt).split(":")[0]
        asked.append(label)
        return truth.get(label, "-")

    result = teach_deck(
        f"{args.deck}_taught", [path for path, _, _ in rendered], instance=args.instance, detector=detector, ask=player
    )
    rows = result["faces_found"]
    wrong = [row for row in rows if row["written"] and row["written"] != truth.get(row["label"])]
    print(
        f"\n{len(rows)} faces found of {sum(len(codes) for _, codes, _ in rendered)} cards in {len(rendered)} photos; "
        f"{len(asked)} names asked about; {len(wrong)} faces written with a wrong name"
    )
    if args.check_photo:
        keep_check_photo(deck, f"{args.deck}_taught", args, folder, detector)
    return 0


def keep_check_photo(deck, name: str, args: argparse.Namespace, folder: Path, detector) -> None:
    """A spread of the deck in play (two overlapping rows of mixed suits), kept as its check photo with every card
    answered as the rendered truth says (a card on no rendered card: "no card")."""
    import cv2

    from vision.training.deck_check import confirm_check_photo, read_check_photo
    from vision.training.synth.table_photo import render_table_photo

    rng = np.random.default_rng(args.seed + 7)
    chosen = [code for code in args.check_cards.split(",") if code]
    unknown = [code for code in chosen if code not in deck.faces]
    if unknown or len(chosen) > 13:
        raise SystemExit(
            f"--check-cards: give at most 13 of the deck's card codes (not {', '.join(unknown) or chosen})"
        )
    others = [code for code in sorted(deck.faces) if code not in chosen]
    codes = chosen + [str(code) for code in rng.choice(others, 13 - len(chosen), replace=False)]
    codes = [codes[k] for k in rng.permutation(13)]  # the hard cards anywhere in the spread
    image, quads = render_table_photo(deck, codes, args.surface, seed=args.seed + 7, row_gaps=[-4.0, -4.0])
    path = folder / "check_spread.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    pending = read_check_photo(name, path, detector=detector, instance=args.instance)
    answers = []
    for card in pending["cards"]:
        # the card whose outline holds the card's corner boxes: the one laid last (on top) of those that hold them
        centres = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for b in card["boxes"]])
        holding = [
            k
            for k, quad in enumerate(quads)
            if all(cv2.pointPolygonTest(quad.astype(np.float32), (float(x), float(y)), False) >= 0 for x, y in centres)
        ]
        answers.append(codes[holding[-1]] if holding else "")
    read = [card["card"] for card in pending["cards"]]
    missed = [code for code in codes if code not in answers]
    kept = confirm_check_photo(name, pending["id"], answers, missed, args.instance)
    print(
        f"check photo {path.name}: {len(codes)} cards laid, {len(read)} read, {len(kept['fixed'])} fixed "
        f"({', '.join(f'{a} -> {b}' for a, b in kept['fixed']) or 'none'}), missed {' '.join(kept['missed']) or 'none'}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
