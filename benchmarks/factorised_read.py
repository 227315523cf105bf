"""The factorised read against the 52-card classifier (issue 39, item 3): rank with "not a card", plus suit.

A factorised read is two small classifiers over the same crop: one says the rank (A, 2 ... K, or ``none``), the
other the suit (c, d, h, s). A card's probability is then P(rank) x P(suit), and "not a card" is P(none). What
it might buy: a rank learned from every suit's crops, and a suit from every rank's, so a deck's unusual
glyph for one card borrows from the other 51.

    python3 benchmarks/factorised_read.py split CROPS OUT
        CROPS: a crops dataset (``CROPS/crops/{train,val}/<code>/``); writes OUT/rank and OUT/suit, the same
        files hard-linked by rank (with ``none``) and by suit (cards only), each ready for ``ginscore train
        OUT/rank --part classifier``.
    python3 benchmarks/factorised_read.py start WEIGHTS OUT
        Writes OUT/rank-start.pt and OUT/suit-start.pt: the 52-card classifier WEIGHTS with its last layer
        folded to ranks and to suits (a rank's row the mean of its four cards' rows, a suit's the mean of its
        thirteen), so both begin from everything WEIGHTS learned.
    python3 benchmarks/factorised_read.py read --cards W... --rank R --suit S --folders F... [--rotations 4]
        Reads labelled crops (``benchmarks/reader_crops.py`` writes the reader's own) with each 52-card
        classifier W and with the factorised pair, as the reader reads a crop; prints per folder and over all
        the share of crops read as the right card, and the share of right ranks and right suits.

Train the pair and a 52-card control on the same crops for the same epochs (``ginscore train ... --epochs N
--lr0 0.0002 --crops-channels bgr``), then ``read`` them side by side; docs/experiments says what was measured.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.detector import classify_crops, prepare_ultralytics, use_all_cores  # noqa: E402

NONE = "none"


def rank_of(code: str) -> str:
    return NONE if code == NONE else code[:-1]


def suit_of(code: str) -> str | None:
    return None if code == NONE else code[-1]


def split(crops: Path, out: Path) -> None:
    """Hard links of every crop, by rank (with ``none``) and by suit (cards only)."""
    source = crops / "crops"
    if not (source / "train").is_dir():
        raise SystemExit(f"{source}/train: no such folder (a crops dataset has crops/train/<code>/)")
    counts = {"rank": 0, "suit": 0}
    for split_dir in sorted(p for p in source.iterdir() if p.is_dir()):
        for code_dir in sorted(p for p in split_dir.iterdir() if p.is_dir()):
            targets = {"rank": rank_of(code_dir.name), "suit": suit_of(code_dir.name)}
            for kind, label in targets.items():
                if label is None:
                    continue
                folder = out / kind / "crops" / split_dir.name / label
                folder.mkdir(parents=True, exist_ok=True)
                for crop in code_dir.iterdir():
                    os.link(crop, folder / f"{code_dir.name}_{crop.name}")
                    counts[kind] += 1
    print(f"{out}/rank: {counts['rank']} crops; {out}/suit: {counts['suit']} crops")


def folded_start(weights: Path, out: Path) -> None:
    """The 52-card classifier with its last layer folded to ranks and to suits."""
    import torch

    prepare_ultralytics()
    from ultralytics import YOLO

    out.mkdir(parents=True, exist_ok=True)
    for kind, label_of in (("rank", rank_of), ("suit", suit_of)):
        model = YOLO(str(weights), task="classify")
        network: Any = model.model
        names = [network.names[i] for i in sorted(network.names)]
        labels = sorted({label for label in map(label_of, names) if label is not None})
        head = network.model[-1].linear
        folded = torch.nn.Linear(head.in_features, len(labels)).to(head.weight.dtype)
        with torch.no_grad():
            for row, label in enumerate(labels):
                members = [i for i, name in enumerate(names) if label_of(name) == label]
                folded.weight[row] = head.weight[members].mean(dim=0)
                folded.bias[row] = head.bias[members].mean()
        network.model[-1].linear = folded
        network.names = dict(enumerate(labels))
        network.yaml["nc"] = len(labels)
        network.nc = len(labels)
        model.save(str(out / f"{kind}-start.pt"))
        print(out / f"{kind}-start.pt", labels)


def labelled_crops(folder: Path) -> tuple[list[str], list[np.ndarray]]:
    import cv2

    files = sorted(f for f in folder.glob("*/*/*") if f.suffix in (".jpg", ".png"))
    if not files:
        raise SystemExit(f"{folder}: no crops (<split>/<code>/*.png) found")
    crops = [cv2.imread(str(f)) for f in files]
    unreadable = [str(f) for f, crop in zip(files, crops, strict=True) if crop is None]
    if unreadable:
        raise SystemExit(f"cannot read {unreadable[0]} (and {len(unreadable) - 1} more)")
    return [f.parent.name for f in files], [crop for crop in crops if crop is not None]


def class_names(model: Any) -> list[str]:
    return [model.names[i] for i in sorted(model.names)]


def factorised_cards(
    rank_p: np.ndarray, rank_names: list[str], suit_p: np.ndarray, suit_names: list[str]
) -> tuple[np.ndarray, list[str]]:
    """P(card) = P(rank) x P(suit) for the 52 cards, P(none) = P(rank none); returns (probabilities, names)."""
    names = [rank + suit for rank in rank_names if rank != NONE for suit in suit_names]
    columns = [rank_p[:, rank_names.index(rank_of(n))] * suit_p[:, suit_names.index(n[-1])] for n in names]
    if NONE in rank_names:
        names.append(NONE)
        columns.append(rank_p[:, rank_names.index(NONE)])
    return np.stack(columns, axis=1), names


def shares(read: list[str], labels: list[str]) -> tuple[int, int, int]:
    cards = sum(a == b for a, b in zip(read, labels, strict=True))
    ranks = sum(rank_of(a) == rank_of(b) for a, b in zip(read, labels, strict=True))
    suits = sum(suit_of(a) == suit_of(b) for a, b in zip(read, labels, strict=True) if b != NONE)
    return cards, ranks, suits


def read(args: argparse.Namespace) -> None:
    prepare_ultralytics()
    use_all_cores()
    from ultralytics import YOLO

    folders = {folder: labelled_crops(folder) for folder in args.folders}
    readers: dict[str, Any] = {str(w)[-40:]: YOLO(str(w), task="classify") for w in args.cards}
    rank_model, suit_model = YOLO(str(args.rank), task="classify"), YOLO(str(args.suit), task="classify")
    print("reader".ljust(42) + "".join(Path(f).name[:12].rjust(13) for f in folders) + "   all: card  rank  suit")
    rows: dict[str, list[list[str]]] = {name: [] for name in [*readers, "factorised"]}
    totals = {name: [0, 0, 0, 0, 0] for name in rows}  # cards, ranks, suits, crops, card crops
    for _labels, crops in folders.values():
        for name, model in readers.items():
            p = classify_crops(model, crops, args.channels, args.rotations)
            read_as = [class_names(model)[int(i)] for i in p.argmax(axis=1)]
            rows[name].append(read_as)
        rank_p = classify_crops(rank_model, crops, args.channels, args.rotations)
        suit_p = classify_crops(suit_model, crops, args.channels, args.rotations)
        p, names = factorised_cards(rank_p, class_names(rank_model), suit_p, class_names(suit_model))
        rows["factorised"].append([names[int(i)] for i in p.argmax(axis=1)])
    for name, per_folder in rows.items():
        line = name.ljust(42)
        for (labels, _crops), read_as in zip(folders.values(), per_folder, strict=True):
            cards, ranks, suits = shares(read_as, labels)
            line += f"{cards / len(labels):13.3f}"
            total = totals[name]
            total[0] += cards
            total[1] += ranks
            total[2] += suits
            total[3] += len(labels)
            total[4] += sum(label != NONE for label in labels)
        total = totals[name]
        print(line + f"   {total[0] / total[3]:.3f} {total[1] / total[3]:.3f} {total[2] / max(1, total[4]):.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    split_parser = commands.add_parser("split", help="hard-link a crops dataset by rank and by suit")
    split_parser.add_argument("crops", type=Path)
    split_parser.add_argument("out", type=Path)
    start_parser = commands.add_parser("start", help="fold a 52-card classifier's last layer to ranks and suits")
    start_parser.add_argument("weights", type=Path)
    start_parser.add_argument("out", type=Path)
    read_parser = commands.add_parser("read", help="read labelled crops with 52-card and factorised classifiers")
    read_parser.add_argument("--cards", nargs="*", type=Path, default=[], help="52-card classifier weights")
    read_parser.add_argument("--rank", type=Path, required=True)
    read_parser.add_argument("--suit", type=Path, required=True)
    read_parser.add_argument("--folders", nargs="+", type=Path, required=True)
    read_parser.add_argument("--rotations", type=int, choices=[1, 2, 4], default=4)
    read_parser.add_argument("--channels", choices=["bgr", "rgb"], default="bgr")
    args = parser.parse_args()
    if args.command == "split":
        split(args.crops, args.out)
    elif args.command == "start":
        folded_start(args.weights, args.out)
    else:
        read(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
