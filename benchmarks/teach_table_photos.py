"""``ginscore deck add`` on rendered photos of a deck's cards lying apart on a table, per table and resolution.

    python3 benchmarks/teach_table_photos.py [--deck kde_penguins] [--photos 4] [--models DIR]
                                             [--tables gimp_pine.jpg,gimp_burlap.jpg,digikam_fabric.jpg]
                                             [--sizes 1920x1080,4032x3024] [--gap 1,3] [--seed 0]

For every table surface and photo size, ``vision.training.synth.table_photo.render_table_photo`` lays
one suit's 13 cards of a held-out deck in two rows per photo (``--photos`` photos: suits in turn), and
the photos are taught as a deck, as ``ginscore deck add`` does, with a user who accepts every name
asked about. Printed per table and size: the faces found (of the cards in the photos), named right
without asking, asked about, and wrong without being asked (the failures that matter: a wrong name
taken silently), and the seconds per photo.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.detector import load_detector  # noqa: E402
from vision.training.synth.decks import DATASETS, load_deck  # noqa: E402
from vision.training.synth.table_photo import write_suit_photos  # noqa: E402
from vision.training.teach_deck import teach_deck  # noqa: E402


def score(result: dict, truth: list[tuple[Path, list[str], list]]) -> dict[str, int]:
    """Faces found, named right (not asked), asked about, and wrong without asking, of the rendered cards."""
    import numpy as np

    counts = {"cards": 0, "found": 0, "right": 0, "asked": 0, "wrong": 0}
    rows = result["faces_found"]
    for path, codes, quads in truth:
        for code, quad in zip(codes, quads, strict=True):
            counts["cards"] += 1
            centre = quad.mean(axis=0)
            height = float(np.linalg.norm(quad[3] - quad[0]))
            near = [
                row
                for row in rows
                if row["photo"] == str(path)
                and row["centre"] is not None
                and np.hypot(*(np.array(row["centre"]) - centre)) < 0.3 * height
            ]
            if not near:
                continue
            counts["found"] += 1
            row = near[0]
            if row["asked"]:
                counts["asked"] += 1
            elif row["written"] == code:
                counts["right"] += 1
            else:
                counts["wrong"] += 1
    return counts


def accepting_user():
    """A user who accepts the reader's name at every question (and leaves a face out when asked again)."""
    seen: set[str] = set()

    def ask(prompt: str) -> str:
        if prompt in seen:
            return "-"
        seen.add(prompt)
        return ""

    return ask


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="kde_penguins", help="a deck of datasets/decks (default: kde_penguins)")
    parser.add_argument("--tables", default="gimp_pine.jpg,gimp_burlap.jpg,digikam_fabric.jpg")
    parser.add_argument("--sizes", default="1920x1080,4032x3024")
    parser.add_argument("--photos", type=int, default=4, help="photos per table and size (one suit each)")
    parser.add_argument("--gap", default="1,3", help="gap between cards in cm: a range LOW,HIGH or one value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", type=Path, default=None)
    args = parser.parse_args()
    gap_values = [float(v) for v in args.gap.split(",")]
    gap = (gap_values[0], gap_values[-1])
    detector = load_detector(args.models)
    deck = load_deck(DATASETS / "decks" / args.deck)
    print(f"deck {args.deck}, {args.photos} photos of 13 cards each, gaps {gap[0]:g}-{gap[1]:g} cm")
    print(f"{'table':24s} {'size':>9s} {'found':>7s} {'right':>6s} {'asked':>6s} {'wrong':>6s} {'s/photo':>8s}")
    for table in args.tables.split(","):
        for size_text in args.sizes.split(","):
            width, height = (int(v) for v in size_text.split("x"))
            with tempfile.TemporaryDirectory() as tmp:
                truth = write_suit_photos(
                    deck, table, Path(tmp) / "photos", args.photos, (width, height), gap, seed=args.seed
                )
                started = time.perf_counter()
                result = teach_deck(
                    "bench",
                    [path for path, _, _ in truth],
                    instance=Path(tmp) / "instance",
                    detector=detector,
                    ask=accepting_user(),
                    out=io.StringIO(),
                )
                seconds = (time.perf_counter() - started) / args.photos
            counts = score(result, truth)
            print(
                f"{table:24s} {size_text:>9s} {counts['found']:3d}/{counts['cards']:<3d} {counts['right']:6d} "
                f"{counts['asked']:6d} {counts['wrong']:6d} {seconds:8.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
