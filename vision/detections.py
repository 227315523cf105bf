"""``Detections``: the one value passed between the detector and the rest of the recogniser.

Like roboflow/supervision's type of the same name: parallel numpy arrays, one row per corner-index
box. ``class_id`` indexes ``engine.cards.CARD_CODES``, so a class id means the same card everywhere
(model, labels, JSON) whatever order a model file or a label folder uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.cards import CARD_CODES, parse_card

CARD_INDEX: dict[str, int] = {code: i for i, code in enumerate(CARD_CODES)}


@dataclass(frozen=True, eq=False)
class Detections:
    """Corner-index boxes in pixels: ``xyxy`` (N, 4) float, ``class_id`` (N,) int, ``confidence`` (N,) float.

    ``runner_up_id`` / ``runner_up_confidence`` (optional, (N,) or (N, K)) hold each box's next-best
    cards and their confidences, best first, where the model gives them (the crop classifier does):
    when a deck's single card is read in two places, the weaker reading may be one of those.
    ``review`` (optional, (N,) of tuples of ``Reason``): why the decision stage wants each box's card
    checked (``vision.decision.decide_boxes``); the cards made of a box carry its reasons on.
    ``data``: more columns by name, each an array with one row per box (supervision's ``data``): what one
    step of the reading leaves for a later one (the detector's score, the "not a card" probability, ...).
    """

    xyxy: np.ndarray
    class_id: np.ndarray
    confidence: np.ndarray
    runner_up_id: np.ndarray | None = None
    runner_up_confidence: np.ndarray | None = None
    review: np.ndarray | None = None
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float64).reshape(-1, 4)
        class_id = np.asarray(self.class_id, dtype=np.int64).reshape(-1)
        confidence = np.asarray(self.confidence, dtype=np.float64).reshape(-1)
        if self.runner_up_id is None or self.runner_up_confidence is None:
            runner_up_id, runner_up_confidence = class_id.reshape(-1, 1).copy(), np.zeros((len(class_id), 1))
        else:
            runner_up_id = np.asarray(self.runner_up_id, dtype=np.int64)
            runner_up_confidence = np.asarray(self.runner_up_confidence, dtype=np.float64)
            width = runner_up_id.shape[-1] if runner_up_id.ndim == 2 else 1
            runner_up_id = runner_up_id.reshape(len(class_id), width)
            runner_up_confidence = runner_up_confidence.reshape(len(class_id), width)
        if runner_up_id.shape != runner_up_confidence.shape:
            raise ValueError("Detections runner-up arrays differ in length from the boxes")
        if not len(xyxy) == len(class_id) == len(confidence):
            raise ValueError(
                f"Detections arrays differ in length: {len(xyxy)} boxes, {len(class_id)} class ids, "
                f"{len(confidence)} confidences"
            )
        if len(class_id) and (class_id.min() < 0 or class_id.max() >= len(CARD_CODES)):
            raise ValueError(f"class ids must index CARD_CODES (0..{len(CARD_CODES) - 1}), got {class_id.tolist()}")
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "class_id", class_id)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "runner_up_id", runner_up_id)
        object.__setattr__(self, "runner_up_confidence", runner_up_confidence)
        review = np.empty(len(class_id), dtype=object)
        review[:] = [()] * len(class_id) if self.review is None else [tuple(r) for r in self.review]
        object.__setattr__(self, "review", review)
        for name, column in self.data.items():
            if len(column) != len(class_id):
                raise ValueError(f"Detections data {name!r} has {len(column)} rows for {len(class_id)} boxes")

    @classmethod
    def empty(cls) -> Detections:
        """No boxes."""
        return cls(np.zeros((0, 4)), np.zeros(0, dtype=np.int64), np.zeros(0))

    @classmethod
    def from_cards(cls, rows: Iterable[tuple[str, Sequence[float], float]]) -> Detections:
        """Build from ``(card code, (x0, y0, x1, y1), confidence)`` rows; handy in tests and tools.

        >>> len(Detections.from_cards([("Ts", (0, 0, 10, 20), 0.9)]))
        1
        """
        rows = list(rows)
        if not rows:
            return cls.empty()
        return cls(
            np.array([box for _, box, _ in rows], dtype=np.float64),
            np.array([card_index(code) for code, _, _ in rows]),
            np.array([conf for _, _, conf in rows], dtype=np.float64),
        )

    @classmethod
    def concatenate(cls, parts: Sequence[Detections]) -> Detections:
        """All boxes of several Detections, in order."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        width = max(p.runner_ups[0].shape[1] for p in parts)

        def widened(p: Detections) -> tuple[np.ndarray, np.ndarray]:
            runner_up_id, runner_up_confidence = p.runner_ups
            pad = width - runner_up_id.shape[1]
            ids = np.hstack([runner_up_id, np.repeat(p.class_id.reshape(-1, 1), pad, axis=1)])
            return ids, np.hstack([runner_up_confidence, np.zeros((len(p), pad))])

        runner_ups = [widened(p) for p in parts]
        return cls(
            np.concatenate([p.xyxy for p in parts]),
            np.concatenate([p.class_id for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([ids for ids, _ in runner_ups]),
            np.concatenate([confidences for _, confidences in runner_ups]),
            np.concatenate([p.reasons for p in parts]),
            {name: np.concatenate([p.data[name] for p in parts]) for name in parts[0].data},
        )

    def __len__(self) -> int:
        return len(self.class_id)

    def __getitem__(self, index: int | slice | np.ndarray | list[int]) -> Detections:
        """A subset: a boolean mask, index array or slice (an int keeps one row as Detections)."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        runner_up_id, runner_up_confidence = self.runner_ups
        # rows of arrays __post_init__ already checked: set them as they are (merging a frame's corners takes
        # a subset per code and per group, and checking each again cost a third of it)
        subset = object.__new__(Detections)
        for name, values in (
            ("xyxy", self.xyxy[index]),
            ("class_id", self.class_id[index]),
            ("confidence", self.confidence[index]),
            ("runner_up_id", runner_up_id[index]),
            ("runner_up_confidence", runner_up_confidence[index]),
            ("review", self.reasons[index]),
            ("data", {name: column[index] for name, column in self.data.items()}),
        ):
            object.__setattr__(subset, name, values)
        return subset

    def __repr__(self) -> str:
        return f"Detections({len(self)} boxes: {' '.join(self.codes)})"

    @property
    def runner_ups(self) -> tuple[np.ndarray, np.ndarray]:
        """``(runner_up_id, runner_up_confidence)``, both (N, K): never None once built."""
        assert self.runner_up_id is not None and self.runner_up_confidence is not None  # set by __post_init__
        return self.runner_up_id, self.runner_up_confidence

    @property
    def reasons(self) -> np.ndarray:
        """(N,) object array: each box's tuple of review reasons (empty when the box's card is sure)."""
        assert self.review is not None  # set by __post_init__
        return self.review

    @property
    def codes(self) -> list[str]:
        """The card code of each box."""
        return [CARD_CODES[i] for i in self.class_id]

    @property
    def centers(self) -> np.ndarray:
        """(N, 2) box centres."""
        return (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2

    @property
    def long_sides(self) -> np.ndarray:
        """(N,) the longer side of each box."""
        return np.maximum(self.xyxy[:, 2] - self.xyxy[:, 0], self.xyxy[:, 3] - self.xyxy[:, 1])

    def scaled(self, factor: float) -> Detections:
        """Boxes multiplied by ``factor`` (map between a resized image and the original)."""
        return self.with_boxes(self.xyxy * factor)

    def shifted(self, dx: float, dy: float) -> Detections:
        """Boxes moved by ``(dx, dy)`` (map a tile's boxes into the whole image)."""
        return self.with_boxes(self.xyxy + np.array([dx, dy, dx, dy]))

    def with_boxes(self, xyxy: np.ndarray) -> Detections:
        """The same readings at other boxes (one row per box, in order)."""
        return Detections(
            xyxy, self.class_id, self.confidence, self.runner_up_id, self.runner_up_confidence, self.reasons, self.data
        )

    def with_confidence_at_least(self, threshold: float) -> Detections:
        """Only the boxes with ``confidence >= threshold``."""
        return self[self.confidence >= threshold]


def card_index(code: str) -> int:
    """The class id of a card code (canonical ``Ts`` form; ``10s``, upper case and ♠♥♦♣ accepted).

    >>> card_index("As"), card_index("10H"), card_index("K♣")
    (0, 22, 51)
    """
    return CARD_INDEX[canonical_code(code)]


def canonical_code(text: str) -> str:
    """The canonical ``rank+suit`` code of a card written loosely (``10s``, ``TS``, ``t♠``), read by
    the engine's ``parse_card`` (the one reader of card codes).

    >>> canonical_code("10s"), canonical_code("qH"), canonical_code("9♦")
    ('Ts', 'Qh', '9d')
    """
    text = text.strip()
    try:
        return parse_card(text).code
    except ValueError:
        raise ValueError(f"not a card: {text!r} (write rank and suit, e.g. Ts, Ah, 9c)") from None


# A rendered dataset's hidden-labels/<split>/<scene>.txt (``ginscore synth``): the indices of face-up cards too
# hidden to label, as YOLO lines like labels/. A card read there is right (vision.evaluation.calibration),
# though no detector is taught to find it.
HIDDEN_LABELS = "hidden-labels"


def read_yolo_labels(label_path: Path, class_codes: Sequence[str], image_size: tuple[int, int]) -> Detections:
    """Boxes of a YOLO txt label file (``class cx cy w h``, relative), mapped by card code.

    ``class_codes[i]`` is the card code of class ``i`` in that file (e.g. a ``classes.txt``);
    ``image_size`` is (width, height) in pixels. Confidence is 1 for every labelled box.
    """
    width, height = image_size
    rows = []
    for line_number, line in enumerate(Path(label_path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 5:
            raise ValueError(f"{label_path}:{line_number}: expected 'class cx cy w h', got {line!r}")
        class_number, cx, cy, w, h = int(parts[0]), *map(float, parts[1:])
        box = ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)
        rows.append((class_codes[class_number], box, 1.0))
    return Detections.from_cards(rows)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) intersection over union of two sets of xyxy boxes."""
    intersection, area_a, area_b = _intersections(a, b)
    union = area_a[:, None] + area_b[None, :] - intersection
    return np.where(union > 0, intersection / np.maximum(union, 1e-12), 0.0)


def box_overlap_of_smaller(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) fraction of the smaller box of each pair that lies inside the other: 1 for a box
    wholly inside another, however much smaller (``box_iou`` would be small).

    >>> box_overlap_of_smaller([[0, 0, 10, 10]], [[5, 0, 7, 10], [5, 0, 15, 10], [20, 0, 30, 10]]).tolist()
    [[1.0, 0.5, 0.0]]
    """
    intersection, area_a, area_b = _intersections(a, b)
    smaller = np.minimum(area_a[:, None], area_b[None, :])
    return np.where(smaller > 0, intersection / np.maximum(smaller, 1e-12), 0.0)


def _intersections(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(len(a), len(b)) intersection areas of two sets of xyxy boxes, and each set's areas."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    top_left = np.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = np.minimum(a[:, None, 2:], b[None, :, 2:])
    intersection = np.prod(np.clip(bottom_right - top_left, 0, None), axis=2)
    return intersection, np.prod(a[:, 2:] - a[:, :2], axis=1), np.prod(b[:, 2:] - b[:, :2], axis=1)


def surest_of_overlapping(
    xyxy: np.ndarray, scores: np.ndarray, iou: float, overlap: Callable[[np.ndarray, np.ndarray], np.ndarray] = box_iou
) -> np.ndarray:
    """Greedy class-agnostic non-maximum suppression: the indices (ascending) of the boxes kept when, of
    boxes overlapping by more than ``iou`` (measured by ``overlap``: ``box_iou``, or ``box_overlap_of_smaller``),
    only the surest stays.

    >>> surest_of_overlapping(np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10]]), np.array([0.5, 0.9, 0.1]), 0.5).tolist()
    [1, 2]
    """
    order = np.argsort(-scores, kind="stable")
    overlaps = overlap(xyxy, xyxy)
    keep: list[int] = []
    for i in order:
        if all(overlaps[i, j] <= iou for j in keep):
            keep.append(int(i))
    return np.array(sorted(keep), dtype=np.int64)


def suppress_duplicates(detections: Detections, iou: float) -> Detections:
    """Of boxes overlapping by more than ``iou``, only the surest (class-agnostic non-maximum suppression)."""
    return detections[surest_of_overlapping(detections.xyxy, detections.confidence, iou)]
