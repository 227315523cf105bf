"""Corrected photos as training data: what the players confirmed on the review page, kept for ``retrain``.

When a photo hand is saved, the photo and what the players said about it are written to
``instance/examples`` in the ultralytics layout (the same as ``datasets/real/real-val``)::

    classes.txt          the 52 card codes; a label's class is its card's line
    images/<name>.jpg    the photo as the app stored it (upright, at most 2048 px)
    labels/<name>.txt    YOLO boxes: every index box the reader found, with the card the players kept
    notes/<name>.json    what else is known: the boxes the players removed ("none" crops), boxes
                         whose card is unknown, cards added by hand, whether the photo may teach the
                         detector, and whether it is held out for measuring

How each box of the reading is labelled, from the cards read and the cards saved:

* a card read and kept: its boxes are that card;
* a card read but not kept, with a card added by hand that it was most likely a misreading of (the
  added card is its reader's runner-up, or the only added card sharing its rank or suit, and the
  other way round): its boxes are the added card;
* a card read but not kept when nothing is left added by hand: its boxes showed no card (the
  classifier's "none");
* otherwise (cards removed *and* cards added that cannot be paired) the removed boxes are unknown
  and are not used.

A card added by hand has no box: its index is somewhere in the photo, unlabelled. Such a photo
never teaches the detector (an unlabelled index would teach it "background"); its boxes still give
the classifier crops. The detector learns only from photos where every card saved has its boxes.
One photo in five of those (by a hash of the photo, so it never changes) is held out: ``retrain``
measures on them and never trains on them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.cards import CARD_CODES
from vision.crops import crop_index
from vision.detections import canonical_code
from vision.detector import REJECT_CLASS
from vision.training.userdata import examples_dir

HELD_OUT_EVERY = 5  # one detector-safe photo in this many is held out for measuring
CROP_COPIES = 4  # crops per labelled box (jittered like a detector's boxes)


def _canonical(codes: Iterable[str]) -> list[str]:

    out = []
    for code in codes:
        try:
            out.append(canonical_code(str(code)))
        except ValueError:
            continue
    return out


def _related(removed: str, added: str, runner_ups: list[str]) -> bool:
    return added in runner_ups or removed[0] == added[0] or removed[1] == added[1]


def label_reading(reading: dict[str, Any], saved_cards: Iterable[str]) -> dict[str, Any]:
    """How the boxes of a reading are labelled, given the cards the players saved (see the module doc).

    Returns ``boxes`` [(code, box)], ``negatives`` [box], ``unknown`` [box], ``added_by_hand`` [code],
    ``corrected`` [(read, saved)], ``removed`` [code] and ``detector_safe``.
    """
    saved = list(dict.fromkeys(_canonical(saved_cards)))
    read: dict[str, dict[str, Any]] = {}
    for card in reading.get("cards", []):
        codes = _canonical([card.get("card", "")])
        card_boxes = [tuple(float(v) for v in box) for box in card.get("boxes", []) if len(box) == 4]
        if codes and card_boxes:
            entry = read.setdefault(codes[0], {"boxes": [], "runner_ups": []})
            entry["boxes"] += card_boxes
            entry["runner_ups"] += _canonical(card.get("runner_ups", []))
    removed = [code for code in read if code not in saved]
    added = [code for code in saved if code not in read]
    # pair a removed reading with the card added in its place
    pairs: dict[str, str] = {}
    for code in removed:
        first = read[code]["runner_ups"][:1]
        if first and first[0] in added and first[0] not in pairs.values():
            pairs[code] = first[0]
    open_removed = [code for code in removed if code not in pairs]
    open_added = [code for code in added if code not in pairs.values()]
    for code in open_removed:
        options = [a for a in open_added if _related(code, a, read[code]["runner_ups"])]
        if len(options) != 1:
            continue
        rivals = [r for r in open_removed if _related(r, options[0], read[r]["runner_ups"])]
        if rivals == [code]:  # the only pairing either way
            pairs[code] = options[0]
    still_added = [code for code in added if code not in pairs.values()]
    boxes = [(code, box) for code in read if code in saved for box in read[code]["boxes"]]
    boxes += [(pairs[code], box) for code in pairs for box in read[code]["boxes"]]
    unpaired = [code for code in removed if code not in pairs]
    negatives = [box for code in unpaired for box in read[code]["boxes"]] if not still_added else []
    unknown = [box for code in unpaired for box in read[code]["boxes"]] if still_added else []
    return {
        "boxes": boxes,
        "negatives": negatives,
        "unknown": unknown,
        "added_by_hand": still_added,
        "corrected": sorted(pairs.items()),
        "removed": unpaired,
        "detector_safe": not still_added and not unknown and bool(boxes),
    }


def yolo_line(code: str, box: Sequence[float], width: int, height: int) -> str:
    """One YOLO label line (class = the code's line in ``classes.txt``) of a box in pixels, clipped to the image."""
    x0, y0, x1, y1 = (
        max(0.0, min(float(v), limit)) for v, limit in zip(box, (width, height, width, height), strict=True)
    )
    return (
        f"{CARD_CODES.index(code)} {(x0 + x1) / 2 / width:.6f} {(y0 + y1) / 2 / height:.6f} "
        f"{(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}"
    )


def collect_example(
    instance: Path | str | None,
    image: bytes,
    reading: dict[str, Any],
    saved_cards: Iterable[str],
    source: dict[str, Any] | None = None,
) -> Path | None:
    """Keep one saved photo as a training example; returns its label file (None: nothing to learn from it)."""
    labelled = label_reading(reading, saved_cards)
    if not labelled["boxes"] and not labelled["negatives"]:
        return None
    size = reading.get("image_size") or []
    if len(size) != 2 or not image:
        return None
    width, height = int(size[0]), int(size[1])
    digest = hashlib.sha1(image).hexdigest()
    name = f"ex_{digest[:16]}"
    folder = examples_dir(instance)
    for part in ("images", "labels", "notes"):
        (folder / part).mkdir(parents=True, exist_ok=True)
    classes = folder / "classes.txt"
    if not classes.exists():
        classes.write_text("\n".join(CARD_CODES) + "\n")
    held_out = labelled["detector_safe"] and int(digest[:8], 16) % HELD_OUT_EVERY == 0
    notes = {
        "created": time.strftime("%Y-%m-%d %H:%M:%S"),
        "image_size": [width, height],
        "split": "held_out" if held_out else "train",
        "detector_safe": labelled["detector_safe"],
        "negatives": [list(b) for b in labelled["negatives"]],
        "unknown": [list(b) for b in labelled["unknown"]],
        "added_by_hand": labelled["added_by_hand"],
        "corrected": [list(p) for p in labelled["corrected"]],
        "removed": labelled["removed"],
        "cards": sorted({code for code, _ in labelled["boxes"]}, key=CARD_CODES.index),
        "source": source or {},
    }
    (folder / "images" / f"{name}.jpg").write_bytes(image)
    label_path = folder / "labels" / f"{name}.txt"
    label_path.write_text("".join(yolo_line(code, box, width, height) + "\n" for code, box in labelled["boxes"]))
    (folder / "notes" / f"{name}.json").write_text(json.dumps(notes, indent=1) + "\n")
    return label_path


# ------------------------------------------------------------------ reading the collection back


def load_examples(instance: Path | str | None = None) -> list[dict[str, Any]]:
    """Every collected example: name, paths, notes and its labelled boxes [(code, x0, y0, x1, y1)] in pixels."""
    folder = examples_dir(instance)
    examples = []
    for notes_path in sorted((folder / "notes").glob("ex_*.json")) if (folder / "notes").is_dir() else []:
        name = notes_path.stem
        image = folder / "images" / f"{name}.jpg"
        label = folder / "labels" / f"{name}.txt"
        if not image.is_file() or not label.is_file():
            continue
        try:
            notes = json.loads(notes_path.read_text())
            width, height = notes["image_size"]
            boxes = []
            for line in label.read_text().splitlines():
                if not line.strip():
                    continue
                class_id, cx, cy, w, h = line.split()
                cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
                boxes.append((CARD_CODES[int(class_id)], cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
        except (ValueError, KeyError, IndexError, json.JSONDecodeError):
            continue  # a damaged example is skipped, never fatal
        examples.append({"name": name, "image": image, "label": label, "notes": notes, "boxes": boxes})
    return examples


def summary(instance: Path | str | None = None) -> dict[str, Any]:
    """Counts of what has been collected (for ``ginscore examples`` and the Training page)."""
    examples = load_examples(instance)
    return {
        "folder": str(examples_dir(instance)),
        "photos": len(examples),
        "detector_photos": sum(
            e["notes"].get("detector_safe", False) and e["notes"].get("split") == "train" for e in examples
        ),
        "held_out": sum(e["notes"].get("split") == "held_out" for e in examples),
        "boxes": sum(len(e["boxes"]) for e in examples),
        "corrected": sum(len(e["notes"].get("corrected", [])) for e in examples),
        "negatives": sum(len(e["notes"].get("negatives", [])) for e in examples),
        "added_by_hand": sum(len(e["notes"].get("added_by_hand", [])) for e in examples),
        "examples": [
            {
                "name": e["name"],
                "created": e["notes"].get("created", ""),
                "boxes": len(e["boxes"]),
                "cards": len(e["notes"].get("cards", [])),
                "split": e["notes"].get("split", "train"),
                "detector": bool(e["notes"].get("detector_safe")),
                "corrected": [f"{a}->{b}" for a, b in e["notes"].get("corrected", [])],
                "negatives": len(e["notes"].get("negatives", [])),
                "added_by_hand": e["notes"].get("added_by_hand", []),
            }
            for e in examples
        ],
    }


def write_held_out_folder(instance: Path | str | None, out: Path) -> Path | None:
    """The held-out examples as an evaluation folder (images/, labels/, classes.txt); None if there are none."""
    held = [e for e in load_examples(instance) if e["notes"].get("split") == "held_out"]
    if not held:
        return None
    if out.exists():
        shutil.rmtree(out)
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    (out / "classes.txt").write_text("\n".join(CARD_CODES) + "\n")
    for example in held:
        shutil.copyfile(example["image"], out / "images" / example["image"].name)
        shutil.copyfile(example["label"], out / "labels" / example["label"].name)
    return out


def add_to_dataset(
    instance: Path | str | None,
    dataset: Path,
    *,
    detector: bool = True,
    crops: bool = True,
    copies: int = CROP_COPIES,
    max_side: int = 1280,
    seed: int = 0,
) -> dict[str, int]:
    """Write the training examples into a ``ginscore synth`` dataset: detector-safe photos into
    ``images/train`` + ``labels/train``, and jittered crops of every labelled box (and the "none" boxes)
    into ``crops/train/<code>`` and ``crops/train/none``. Held-out examples are left out."""
    import cv2
    import numpy as np

    rng = np.random.default_rng(seed)
    counts = {"photos": 0, "detector_photos": 0, "crops": 0, "none_crops": 0}
    for example in load_examples(instance):
        notes = example["notes"]
        if notes.get("split") == "held_out":
            continue
        pixels = cv2.imread(str(example["image"]))
        if pixels is None:
            continue
        counts["photos"] += 1
        if detector and notes.get("detector_safe"):
            height, width = pixels.shape[:2]
            scale = min(1.0, max_side / max(height, width))
            small = cv2.resize(pixels, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else pixels
            (dataset / "images" / "train").mkdir(parents=True, exist_ok=True)
            (dataset / "labels" / "train").mkdir(parents=True, exist_ok=True)
            cv2.imwrite(
                str(dataset / "images" / "train" / f"{example['name']}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 92]
            )
            lines = [yolo_line(code, box, width, height) for code, *box in example["boxes"]]
            (dataset / "labels" / "train" / f"{example['name']}.txt").write_text("".join(f"{line}\n" for line in lines))
            counts["detector_photos"] += 1
        if not crops:
            continue
        wanted = [(code, box) for code, *box in example["boxes"]]
        wanted += [(REJECT_CLASS, tuple(box)) for box in notes.get("negatives", [])]
        for k, (code, box) in enumerate(wanted):
            folder = dataset / "crops" / "train" / code
            folder.mkdir(parents=True, exist_ok=True)
            x0, y0, x1, y1 = box
            w, h = x1 - x0, y1 - y0
            for copy in range(copies):
                dx, dy = (rng.normal(0, 0.07, 2) * (w, h)) if copy else (0.0, 0.0)
                sw, sh = np.exp(rng.normal(0, 0.08, 2)) if copy else (1.0, 1.0)
                cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
                crop = crop_index(pixels, (cx - w * sw / 2, cy - h * sh / 2, cx + w * sw / 2, cy + h * sh / 2))
                cv2.imwrite(str(folder / f"{example['name']}_{k}_{copy}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
                counts["none_crops" if code == REJECT_CLASS else "crops"] += 1
    return counts


# ------------------------------------------------------------------ command line

EXAMPLES_DESCRIPTION = (
    "List what the web app has collected from saved photo hands (instance/examples): photos, labelled index "
    "boxes, corrections, 'not a card' boxes, cards added by hand, and which photos teach the detector or are "
    "held out for measuring. 'ginscore retrain' learns from them."
)


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``ginscore examples``."""
    help_text = "list the corrected photos collected for retraining"
    parser = commands.add_parser("examples", help=help_text, description=EXAMPLES_DESCRIPTION)
    parser.add_argument(
        "--instance", type=Path, default=None, help="instance folder (default: $GINSCORE_INSTANCE or instance/)"
    )
    parser.add_argument("--json", action="store_true", help="print the listing as JSON")
    parser.set_defaults(run=run_examples)


def run_examples(args: argparse.Namespace) -> int:
    info = summary(args.instance)
    if args.json:
        print(json.dumps(info, indent=1))
        return 0
    if not info["photos"]:
        print(
            f"no examples collected yet in {info['folder']}: save photo hands in the web app "
            f"(with 'Keep photos' on in Settings and collecting on in Training)"
        )
        return 0
    print(f"{'example':<20} {'saved':<19} {'boxes':>5} {'cards':>5}  {'use':<22} corrections")
    for e in info["examples"]:
        use = (
            "held out (measuring)"
            if e["split"] == "held_out"
            else ("detector + classifier" if e["detector"] else "classifier only")
        )
        notes = ", ".join(e["corrected"])
        if e["negatives"]:
            notes += (", " if notes else "") + f"{e['negatives']} 'none' box{'es' if e['negatives'] != 1 else ''}"
        if e["added_by_hand"]:
            notes += (", " if notes else "") + "added by hand: " + " ".join(e["added_by_hand"])
        print(f"{e['name']:<20} {e['created']:<19} {e['boxes']:>5} {e['cards']:>5}  {use:<22} {notes or '-'}")
    print(
        f"{info['photos']} photos ({info['detector_photos']} teach the detector, {info['held_out']} held out), "
        f"{info['boxes']} labelled index boxes, {info['corrected']} corrected readings, {info['negatives']} "
        f"'none' boxes, {info['added_by_hand']} cards added by hand -> {info['folder']}"
    )
    return 0
