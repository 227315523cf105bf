"""Measure the recogniser on labelled photos (``images/``, ``labels/`` YOLO txt, ``classes.txt``).

Labels are mapped to cards by the code in ``classes.txt``, never by class id, so a folder may use
any class order. What is measured:

* card level (what a player sees): the set of cards read vs the set labelled, per photo and in
  total (micro-averaged recall and precision), and how many photos were read exactly;
* box level: mAP50 over the 52 cards (101-point interpolated AP per labelled card, averaged),
  class-agnostic mAP50 and box recall (did the detector find the index at all, whatever it read);
* the most frequent confusions (a labelled index found, IoU >= 0.5, but read as another card).

Detection runs once per photo at a low confidence floor (``MAP_CONF``) for the AP curves; the
card-level numbers use the boxes at or above ``conf``.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.cards import CARD_CODES
from vision.annotate import save_annotated as save
from vision.crop_reading import read_boxes
from vision.decode import decode_image
from vision.detections import Detections, box_iou, canonical_code, read_yolo_labels
from vision.detector import MODEL_LAYOUT, CardIndexDetector, load_detector
from vision.model_settings import ModelSettings
from vision.proposals import decode_side
from vision.reading import PhotoReading
from vision.recognise import detect, reading_from_detections, recognise

MAP_CONF = 0.01
IOU_MATCH = 0.5
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")


def evaluate_folder(
    folder: Path | str,
    *,
    detector: CardIndexDetector | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    save_annotated: Path | str | None = None,
    tiles: int = 1,
    settings: ModelSettings | None = None,
) -> dict[str, Any]:
    """Read every labelled photo of ``folder`` and measure the readings against the labels (see module doc)."""
    folder = Path(folder)
    image_paths = check_eval_folder(folder)
    class_codes = [canonical_code(line) for line in (folder / "classes.txt").read_text().split()]
    detector = detector or load_detector()
    settings = settings or detector.settings
    imgsz = int(imgsz or settings.detector.imgsz)
    conf = settings.decision.conf if conf is None else float(conf)
    tally = _Tally()
    for image_path in image_paths:
        start = time.perf_counter()
        # decoded as the product decodes a photo, so the numbers are its own
        image = decode_image(image_path, max_side=decode_side(settings, imgsz, tiles))
        # every reading down to MAP_CONF (for mAP), from the same detector proposals as in use
        predictions = detect(
            image.pixels,
            detector,
            tiles=tiles,
            settings=settings,
            imgsz=imgsz,
            conf=min(conf, MAP_CONF),
            proposal_conf=min(conf, settings.detector.proposal_conf),
        ).scaled(image.to_original)
        kept = predictions.with_confidence_at_least(conf)
        reading = reading_from_detections(
            kept, image.original_size, decision=settings.decision, corners=settings.corners
        )
        tally.seconds += time.perf_counter() - start
        label_path = folder / "labels" / f"{image_path.stem}.txt"
        labels = (
            read_yolo_labels(label_path, class_codes, image.original_size)
            if label_path.exists()
            else Detections.empty()
        )
        if len(labels):
            card_ids, probabilities = read_boxes(detector, image.pixels, labels.xyxy / image.to_original, settings)
            # a crop the classifiers call "not a card" (probability 0 after the gate) is not read right
            tally.crops_right += int(((card_ids[:, 0] == labels.class_id) & (probabilities[:, 0] > 0)).sum())
        tally.add(image_path.name, predictions, kept, reading, labels)
        if save_annotated:
            save(Path(save_annotated) / f"{image_path.stem}.jpg", image.pixels, reading, image.to_original, labels)
    summary = {"folder": str(folder), "imgsz": imgsz, "tiles": tiles, "conf": conf, "model": MODEL_LAYOUT}
    return {**summary, "model_file": settings.detector.weights.name, **tally.summary()}


@dataclass
class _Tally:
    """What ``evaluate_folder`` counts over a folder's photos."""

    photos: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[Detections] = field(default_factory=list)
    labels: list[Detections] = field(default_factory=list)
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)
    misread_photos: Counter[tuple[str, str]] = field(default_factory=Counter)  # photos with each card misread
    missed_cards: Counter[str] = field(default_factory=Counter)
    extra_cards: Counter[str] = field(default_factory=Counter)
    agnostic_found: int = 0
    labelled_boxes: int = 0
    crops_right: int = 0
    seconds: float = 0.0

    def add(
        self, name: str, predictions: Detections, kept: Detections, reading: PhotoReading, labels: Detections
    ) -> None:
        """One photo: its readings down to ``MAP_CONF``, those kept, its reading and its labels."""
        self.predictions.append(predictions)
        self.labels.append(labels)
        labelled, read = set(labels.codes), {card.card for card in reading.cards}
        hits = labelled & read
        flagged = [card.card for card in reading.cards if card.to_check]
        self.missed_cards.update(labelled - read)
        self.extra_cards.update(read - labelled)
        found, photo_confusions = _agnostic_matches(kept, labels)
        self.confusions.update(photo_confusions)
        misread = card_misreads(reading, labels)
        self.misread_photos.update(set(misread))
        self.agnostic_found += found
        self.labelled_boxes += len(labels)
        self.photos.append(
            {
                "image": name,
                "cards_labelled": len(labelled),
                "cards_read": len(read),
                "cards_right": len(hits),
                "recall": _ratio(len(hits), len(labelled)),
                "precision": _ratio(len(hits), len(read)),
                "exact": labelled == read,
                "missed": sorted(labelled - read, key=CARD_CODES.index),
                "extra": sorted(read - labelled, key=CARD_CODES.index),
                "boxes_labelled": len(labels),
                "boxes_found_agnostic": found,
                "conflicts": list(reading.conflicts),
                "misread": [list(pair) for pair in misread],
                # cards the review page flags (a reason to check each), right and wrong ones
                "flagged_right": sum(code in labelled for code in flagged),
                "flagged_wrong": sum(code not in labelled for code in flagged),
                # (confidence, right, to check) of every card read: the reliability table's data
                "card_checks": [(round(c.confidence, 4), c.card in labelled, c.to_check) for c in reading.cards],
            }
        )

    def summary(self) -> dict[str, Any]:
        """The folder's numbers."""
        photos = self.photos
        total_right = sum(p["cards_right"] for p in photos)
        return {
            "photos": photos,
            "n_photos": len(photos),
            "card_recall": _ratio(total_right, sum(p["cards_labelled"] for p in photos)),
            "card_precision": _ratio(total_right, sum(p["cards_read"] for p in photos)),
            "photos_exact": sum(p["exact"] for p in photos),
            "map50": mean_average_precision(self.predictions, self.labels),
            "agnostic_map50": mean_average_precision(self.predictions, self.labels, class_agnostic=True),
            "box_recall_agnostic": _ratio(self.agnostic_found, self.labelled_boxes),
            # the classifier alone, on crops around the labelled index boxes
            "classifier_accuracy_on_labelled_boxes": _ratio(self.crops_right, self.labelled_boxes),
            "confusions": [{"labelled": a, "read": b, "count": n} for (a, b), n in self.confusions.most_common(10)],
            # a card read as another in two or more photos: what a deck's reader gets wrong again and again
            "repeated_misreads": [
                {"labelled": a, "read": b, "photos": n} for (a, b), n in self.misread_photos.most_common() if n > 1
            ],
            "most_missed": [{"card": c, "count": n} for c, n in self.missed_cards.most_common(10)],
            "most_extra": [{"card": c, "count": n} for c, n in self.extra_cards.most_common(10)],
            "seconds_per_photo": round(self.seconds / len(photos), 3),
        }


def check_eval_folder(folder: Path) -> list[Path]:
    """The photos of an evaluation folder; ``FileNotFoundError`` saying what is missing."""
    images_dir = folder / "images"
    for needed in (images_dir, folder / "labels", folder / "classes.txt"):
        if not needed.exists():
            raise FileNotFoundError(f"{needed} is missing: an evaluation folder holds images/, labels/ and classes.txt")
    image_paths = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not image_paths:
        raise FileNotFoundError(f"{images_dir} holds no photos ({', '.join(IMAGE_SUFFIXES)})")
    return image_paths


def format_report(result: dict[str, Any]) -> str:
    """The evaluation as a short human-readable table."""
    lines = [
        f"{'photo':<20} {'labelled':>8} {'read':>5} {'right':>5} {'recall':>7} {'precision':>9} "
        f"{'boxes found':>11}  exact"
    ]
    for p in result["photos"]:
        lines.append(
            f"{p['image']:<20} {p['cards_labelled']:>8} {p['cards_read']:>5} {p['cards_right']:>5} "
            f"{p['recall']:>7.3f} {p['precision']:>9.3f} {p['boxes_found_agnostic']:>5}/{p['boxes_labelled']:<5}"
            f"  {'yes' if p['exact'] else 'no'}"
        )
    lines += [
        f"total: card recall {result['card_recall']:.3f}, card precision {result['card_precision']:.3f}, "
        f"photos read exactly {result['photos_exact']}/{result['n_photos']}",
        f"boxes: mAP50 {result['map50']:.3f}, class-agnostic mAP50 {result['agnostic_map50']:.3f}, "
        f"class-agnostic box recall {result['box_recall_agnostic']:.3f} "
        f"(imgsz {result['imgsz']}, tiles {result['tiles']}, conf {result['conf']}, {result['model_file']}: {result['model']}, "
        f"{result['seconds_per_photo']} s/photo)",
    ]
    wrong = sum(p["cards_read"] - p["cards_right"] for p in result["photos"])
    right = sum(p["cards_right"] for p in result["photos"])
    wrong_flagged = sum(p["flagged_wrong"] for p in result["photos"])
    lines.append(
        f"cards to check (each with a reason): wrong cards flagged {wrong_flagged}/{wrong} "
        f"({wrong - wrong_flagged} shown as sure), right cards flagged "
        f"{sum(p['flagged_right'] for p in result['photos'])}/{right}"
    )
    if result.get("classifier_accuracy_on_labelled_boxes") is not None:
        lines.append(
            f"classifier alone: {result['classifier_accuracy_on_labelled_boxes']:.3f} of the labelled "
            f"index boxes read as the right card"
        )
    if result["confusions"]:
        lines.append(
            "most confused (labelled -> read): "
            + ", ".join(f"{c['labelled']}->{c['read']} x{c['count']}" for c in result["confusions"])
        )
    if result.get("repeated_misreads") is not None:
        lines.append(
            "cards misread in 2 or more photos: "
            + (
                ", ".join(f"{c['labelled']}->{c['read']} in {c['photos']}" for c in result["repeated_misreads"])
                or "none"
            )
        )
    if result["most_missed"]:
        lines.append("most missed: " + ", ".join(f"{c['card']} x{c['count']}" for c in result["most_missed"]))
    return "\n".join(lines)


def mean_average_precision(
    predictions: list[Detections],
    labels: list[Detections],
    iou_threshold: float = IOU_MATCH,
    class_agnostic: bool = False,
) -> float:
    """mAP at one IoU over the labelled classes (COCO-style 101-point interpolation), across photos."""
    scores: dict[int, list[float]] = {}
    hits: dict[int, list[bool]] = {}
    label_counts: Counter[int] = Counter()
    for predicted, labelled in zip(predictions, labels, strict=True):
        pred_classes = np.zeros(len(predicted), dtype=np.int64) if class_agnostic else predicted.class_id
        label_classes = np.zeros(len(labelled), dtype=np.int64) if class_agnostic else labelled.class_id
        label_counts.update(label_classes.tolist())
        for class_id in set(pred_classes.tolist()):
            mine = np.flatnonzero(pred_classes == class_id)
            mine = mine[np.argsort(-predicted.confidence[mine], kind="stable")]
            truth = np.flatnonzero(label_classes == class_id)
            ious = box_iou(predicted.xyxy[mine], labelled.xyxy[truth]) if len(truth) else np.zeros((len(mine), 0))
            taken = np.zeros(len(truth), dtype=bool)
            for row, index in enumerate(mine):
                hit = False
                if len(truth):
                    candidates = np.where(taken, -1.0, ious[row])
                    best = int(candidates.argmax())
                    if candidates[best] >= iou_threshold:
                        taken[best] = hit = True
                scores.setdefault(class_id, []).append(float(predicted.confidence[index]))
                hits.setdefault(class_id, []).append(hit)
    if not label_counts:
        return 0.0
    precisions = []
    for class_id, n_labels in label_counts.items():
        class_scores = np.asarray(scores.get(class_id, []))
        class_hits = np.asarray(hits.get(class_id, []), dtype=bool)
        precisions.append(_average_precision(class_scores, class_hits, n_labels))
    return round(float(np.mean(precisions)), 4)


def _average_precision(scores: np.ndarray, is_hit: np.ndarray, n_labels: int) -> float:
    if len(scores) == 0 or n_labels == 0:
        return 0.0
    order = np.argsort(-scores, kind="stable")
    true_positives = np.cumsum(is_hit[order])
    recall = true_positives / n_labels
    precision = true_positives / np.arange(1, len(order) + 1)
    envelope = np.maximum.accumulate(precision[::-1])[::-1]  # best precision at this recall or beyond
    points = np.linspace(0, 1, 101)
    index = np.searchsorted(recall, points, side="left")
    return float(np.mean(np.where(index < len(envelope), envelope[np.minimum(index, len(envelope) - 1)], 0.0)))


def _agnostic_matches(predicted: Detections, labelled: Detections) -> tuple[int, Counter[tuple[str, str]]]:
    """How many labelled boxes some prediction covers (IoU >= 0.5, one to one), and the misreadings among them."""
    confusions: Counter[tuple[str, str]] = Counter()
    if not len(predicted) or not len(labelled):
        return 0, confusions
    ious = box_iou(predicted.xyxy, labelled.xyxy)
    taken = np.zeros(len(labelled), dtype=bool)
    found = 0
    for row in np.argsort(-predicted.confidence, kind="stable"):
        candidates = np.where(taken, -1.0, ious[row])
        best = int(candidates.argmax())
        if candidates[best] >= IOU_MATCH:
            taken[best] = True
            found += 1
            label_code, read_code = CARD_CODES[labelled.class_id[best]], CARD_CODES[predicted.class_id[row]]
            if label_code != read_code:
                confusions[(label_code, read_code)] += 1
    return found, confusions


def card_misreads(reading: PhotoReading, labelled: Detections) -> list[tuple[str, str]]:
    """The cards read as another card: (labelled, read) for each card read that is not in the photo but whose
    boxes lie on labelled indices of one that is (IoU >= 0.5; the code most of its boxes lie on). A card's corners
    count once, so a four-index card misread in one photo is one misread, not four.

    >>> from vision.reading import CardReading
    >>> td = CARD_CODES.index("Td")
    >>> labels = Detections(np.array([[0, 0, 10, 10], [50, 0, 60, 10.0]]), np.array([td, td]), np.ones(2))
    >>> read = PhotoReading((99, 99), (CardReading("Th", 0.9, ((0, 0, 10, 10), (50, 0, 60, 10))),), ((), ()))
    >>> card_misreads(read, labels)
    [('Td', 'Th')]
    """
    if not len(labelled):
        return []
    codes = set(labelled.codes)
    pairs = []
    for card in reading.cards:
        if card.card in codes or not card.boxes:
            continue
        ious = box_iou(np.array(card.boxes, dtype=float), labelled.xyxy)
        under = Counter(CARD_CODES[labelled.class_id[k]] for k in ious.argmax(axis=1)[ious.max(axis=1) >= IOU_MATCH])
        if under:
            pairs.append((under.most_common(1)[0][0], card.card))
    return pairs


def _ratio(numerator: int, denominator: int) -> float:
    """numerator / denominator, 0 when there is nothing to divide (a photo with nothing read has precision 0)."""
    return round(numerator / denominator, 4) if denominator else 0.0


# ---------------------------------------------------------------------------------------------
# The scale curve (``ginscore eval --zoom 2,3 --shrink 0.5,0.33``): the same photos as if taken
# closer (quadrant crops scaled up) or further away (shrunk onto a plain table).

ZOOM_SIDE = 1200  # a zoomed crop is scaled to this long side, like the 1200 px real-val photos


def zoom_variants(pixels: np.ndarray, labels: Detections, zoom: float) -> list[tuple[np.ndarray, Detections]]:
    """Four crops of ``1/zoom`` of each side, centred on the photo's quadrants, scaled up to ``ZOOM_SIDE``:
    a phone held ``zoom`` times closer. Only labelled boxes wholly inside a crop are kept."""
    import cv2

    height, width = pixels.shape[:2]
    crop_w, crop_h = width / zoom, height / zoom
    out = []
    for fx in (0.25, 0.75):
        for fy in (0.25, 0.75):
            x0 = int(round(min(max(fx * width - crop_w / 2, 0), width - crop_w)))
            y0 = int(round(min(max(fy * height - crop_h / 2, 0), height - crop_h)))
            x1, y1 = x0 + int(round(crop_w)), y0 + int(round(crop_h))
            factor = ZOOM_SIDE / max(x1 - x0, y1 - y0)
            crop = cv2.resize(
                pixels[y0:y1, x0:x1],
                (int(round((x1 - x0) * factor)), int(round((y1 - y0) * factor))),
                interpolation=cv2.INTER_CUBIC,
            )
            inside = (
                (labels.xyxy[:, 0] >= x0)
                & (labels.xyxy[:, 1] >= y0)
                & (labels.xyxy[:, 2] <= x1)
                & (labels.xyxy[:, 3] <= y1)
            )
            out.append((crop, labels[inside].shifted(-x0, -y0).scaled(factor)))
    return out


def shrink_variant(pixels: np.ndarray, labels: Detections, shrink: float) -> tuple[np.ndarray, Detections]:
    """The photo shrunk by ``shrink`` in the middle of a plain table of the photo's size (its border
    colour with a little noise): the whole table seen from further away."""
    import cv2

    height, width = pixels.shape[:2]
    border = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
    canvas = np.empty_like(pixels)
    canvas[:] = np.median(border, axis=0).astype(np.uint8)
    noise = np.random.default_rng(0).normal(0, 3, canvas.shape)
    canvas = np.clip(canvas + noise, 0, 255).astype(np.uint8)
    small_w, small_h = int(round(width * shrink)), int(round(height * shrink))
    small = cv2.resize(pixels, (small_w, small_h), interpolation=cv2.INTER_AREA)
    x0, y0 = (width - small_w) // 2, (height - small_h) // 2
    canvas[y0 : y0 + small_h, x0 : x0 + small_w] = small
    return canvas, labels.scaled(shrink).shifted(x0, y0)


def evaluate_scale_curve(
    folder: Path | str,
    zooms: list[float],
    shrinks: list[float],
    *,
    detector: CardIndexDetector | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
) -> list[dict[str, Any]]:
    """Card recall and precision of the product's reading (``recognise``) on the original photos and on
    each zoom and shrink variant. A card counts as labelled in a variant when one of its boxes is whole there."""

    folder = Path(folder)
    image_paths = check_eval_folder(folder)
    class_codes = [canonical_code(line) for line in (folder / "classes.txt").read_text().split()]
    detector = detector or load_detector()
    variants: list[tuple[str, float]] = (
        [("original", 1.0)] + [(f"zoom x{z:g}", z) for z in zooms] + [(f"shrink {s:g}", s) for s in shrinks]
    )
    rows = []
    for name, factor in variants:
        labelled_total = right_total = read_total = 0
        seconds, images = 0.0, 0
        for image_path in image_paths:
            photo = decode_image(image_path)
            labels = read_yolo_labels(folder / "labels" / f"{image_path.stem}.txt", class_codes, photo.original_size)
            if name.startswith("zoom"):
                pieces = zoom_variants(photo.pixels, labels, factor)
            elif name.startswith("shrink"):
                pieces = [shrink_variant(photo.pixels, labels, factor)]
            else:
                pieces = [(photo.pixels, labels)]
            for pixels, piece_labels in pieces:
                start = time.perf_counter()
                reading = recognise(pixels, detector=detector, imgsz=imgsz, conf=conf).reading
                seconds += time.perf_counter() - start
                images += 1
                labelled, read = set(piece_labels.codes), {card.card for card in reading.cards}
                labelled_total += len(labelled)
                read_total += len(read)
                right_total += len(labelled & read)
        rows.append(
            {
                "variant": name,
                "images": images,
                "cards_labelled": labelled_total,
                "cards_read": read_total,
                "cards_right": right_total,
                "recall": _ratio(right_total, labelled_total),
                "precision": _ratio(right_total, read_total),
                "seconds_per_image": round(seconds / max(images, 1), 3),
            }
        )
    return rows


def format_scale_curve(rows: list[dict[str, Any]]) -> str:
    lines = [
        f"{'variant':<14} {'images':>6} {'labelled':>8} {'right':>6} {'read':>5} {'recall':>7} {'precision':>9} {'s/image':>8}"
    ]
    for r in rows:
        lines.append(
            f"{r['variant']:<14} {r['images']:>6} {r['cards_labelled']:>8} {r['cards_right']:>6} {r['cards_read']:>5} "
            f"{r['recall']:>7.3f} {r['precision']:>9.3f} {r['seconds_per_image']:>8.3f}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Rank-labelled sets (real-clutter: ``labels.csv`` with whole-card boxes and ranks only).

RANK_WORDS = {
    "ace": "A",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "T",
    "jack": "J",
    "queen": "Q",
    "king": "K",
}


def read_rank_labels(csv_path: Path) -> dict[str, list[tuple[str, tuple[float, float, float, float]]]]:
    """``labels.csv`` rows by file name: (rank letter, whole-card box)."""
    import csv

    photos: dict[str, list[tuple[str, tuple[float, float, float, float]]]] = {}
    with open(csv_path, newline="") as handle:
        for line_number, row in enumerate(csv.DictReader(handle), 2):
            try:
                rank = RANK_WORDS[row["class"].strip().lower()]
                box = tuple(float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
            except (KeyError, ValueError):
                raise ValueError(
                    f"{csv_path}:{line_number}: expected filename,width,height,class,xmin,ymin,xmax,ymax "
                    f"with a rank word as class, got {dict(row)}"
                ) from None
            photos.setdefault(row["filename"], []).append((rank, box))  # type: ignore[arg-type]
    return photos


def is_rank_folder(folder: Path) -> bool:
    """Whether a folder is rank-labelled (``labels.csv`` beside ``images/``) rather than YOLO-labelled."""
    return (Path(folder) / "labels.csv").exists() and (Path(folder) / "images").is_dir()


def match_rank_readings(
    cards: list[tuple[str, float, tuple[tuple[float, float, float, float], ...]]],
    labelled: list[tuple[str, tuple[float, float, float, float]]],
) -> list[bool]:
    """For each card read (rank, confidence, its index boxes), whether it is right: its rank is that of a
    labelled card whose whole-card box holds the centre of one of its index boxes (one to one, surest first)."""
    taken = [False] * len(labelled)
    right = [False] * len(cards)
    for i in sorted(range(len(cards)), key=lambda k: -cards[k][1]):
        rank, _, boxes = cards[i]
        for j, (label_rank, (x0, y0, x1, y1)) in enumerate(labelled):
            if taken[j] or label_rank != rank:
                continue
            pad = 0.05 * max(x1 - x0, y1 - y0)
            if any(
                x0 - pad <= (b[0] + b[2]) / 2 <= x1 + pad and y0 - pad <= (b[1] + b[3]) / 2 <= y1 + pad for b in boxes
            ):
                taken[j] = right[i] = True
                break
    return right


def evaluate_rank_folder(
    folder: Path | str,
    *,
    detector: CardIndexDetector | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    save_annotated: Path | str | None = None,
    settings: ModelSettings | None = None,
    keep_readings: dict[str, PhotoReading] | None = None,
) -> dict[str, Any]:
    """Read every photo of a rank-labelled folder through the product path and measure, per the set's README:
    rank recall and precision (multisets of ranks), exact photos, false cards per photo; and by position,
    how many wrong cards the review page would flag (a reason to check each) and how many right ones.
    ``keep_readings`` (a dict) receives each photo's reading by its file name: what else looks at the same
    readings need not read the photos again (the golden readings' test does, for the floors beside it)."""

    folder = Path(folder)
    labels = read_rank_labels(folder / "labels.csv")
    detector = detector or load_detector()
    photos: list[dict[str, Any]] = []
    seconds = 0.0
    for name in sorted(labels):
        path = folder / "images" / name
        start = time.perf_counter()
        recognition = recognise(path, detector=detector, settings=settings, imgsz=imgsz, conf=conf, name=name)
        seconds += time.perf_counter() - start
        reading = recognition.reading
        if keep_readings is not None:
            keep_readings[name] = reading
        labelled = Counter(rank for rank, _ in labels[name])
        read = Counter(card.card[0] for card in reading.cards)
        right_multiset = sum((labelled & read).values())
        placed = match_rank_readings([(c.card[0], c.confidence, c.boxes) for c in reading.cards], labels[name])
        photos.append(
            {
                "image": name,
                "cards_labelled": sum(labelled.values()),
                "cards_read": sum(read.values()),
                "cards_right": right_multiset,
                "false_cards": sum(read.values()) - right_multiset,
                "exact": labelled == read,
                "read": [f"{c.card}:{c.confidence:.2f}" for c in reading.cards],
                "labelled": sorted(labelled.elements()),
                "wrong_confidences": [
                    round(c.confidence, 4) for c, ok in zip(reading.cards, placed, strict=True) if not ok
                ],
                "right_confidences": [
                    round(c.confidence, 4) for c, ok in zip(reading.cards, placed, strict=True) if ok
                ],
                "card_checks": [
                    (round(c.confidence, 4), bool(ok), c.to_check) for c, ok in zip(reading.cards, placed, strict=True)
                ],
            }
        )
        if save_annotated:
            save(
                Path(save_annotated) / f"{Path(name).stem}.jpg",
                recognition.image.pixels,
                reading,
                recognition.image.to_original,
            )
    n_labelled = sum(p["cards_labelled"] for p in photos)
    n_read = sum(p["cards_read"] for p in photos)
    n_right = sum(p["cards_right"] for p in photos)
    checks = [check for p in photos for check in p["card_checks"]]
    return {
        "folder": str(folder),
        "n_photos": len(photos),
        "photos": photos,
        "rank_recall": _ratio(n_right, n_labelled),
        "rank_precision": _ratio(n_right, n_read),
        "photos_exact": sum(p["exact"] for p in photos),
        "false_cards": n_read - n_right,
        "false_cards_per_photo": round((n_read - n_right) / max(len(photos), 1), 3),
        "wrong_cards_flagged": sum(flagged for _, ok, flagged in checks if not ok),
        "wrong_cards": sum(not ok for _, ok, _ in checks),
        "right_cards_flagged": sum(flagged for _, ok, flagged in checks if ok),
        "right_cards": sum(ok for _, ok, _ in checks),
        "seconds_per_photo": round(seconds / max(len(photos), 1), 3),
    }


def format_rank_report(result: dict[str, Any]) -> str:
    lines = [f"{'photo':<24} {'labelled':>8} {'read':>5} {'right':>5} {'false':>5}  exact  read"]
    for p in result["photos"]:
        if not p["exact"]:
            lines.append(
                f"{p['image']:<24} {p['cards_labelled']:>8} {p['cards_read']:>5} {p['cards_right']:>5} "
                f"{p['false_cards']:>5}  {'yes' if p['exact'] else 'no ':<5}  {' '.join(p['read'])} "
                f"(labelled {' '.join(p['labelled'])})"
            )
    lines.append("(only photos not read exactly are listed)")
    lines.append(
        f"total: rank recall {result['rank_recall']:.3f}, rank precision {result['rank_precision']:.3f}, "
        f"photos exact {result['photos_exact']}/{result['n_photos']}, false cards {result['false_cards']} "
        f"({result['false_cards_per_photo']:.2f} per photo), {result['seconds_per_photo']} s/photo"
    )
    lines.append(
        f"cards to check (each with a reason): wrong cards flagged "
        f"{result['wrong_cards_flagged']}/{result['wrong_cards']}, right cards flagged "
        f"{result['right_cards_flagged']}/{result['right_cards']}"
    )
    return "\n".join(lines)
