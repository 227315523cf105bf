"""Where a taught deck prints its corner indices, as the reader itself sees them on each straightened face.

A deck prints the same index layout on every face: at two opposite corners, at all four, or at one. The
reader's own detector reads each face (on a plain border, so that an index at the face's edge is whole) and
every box it finds near a corner is that corner's index: the detector learned to box the rank and suit, not
a pip or the picture. The corners where it finds an index on at least half of the faces are the deck's
layout; each face then gets one box at each of those corners:

- the box the reader found there, when it agrees with the deck's usual box at that corner (``confirmed``);
- else the deck's usual box (the median of the other faces' boxes at that corner), and the face is not
  confirmed at that corner: the teaching flow asks about it, and the preview draws the box in another colour.

The boxes are what the renderers label (``deck.json`` ``index_regions``): a taught deck's every printed
index is drawn, boxed and learned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from vision.detections import box_iou
from vision.training.synth.index_crops import BOX_LOG_SIDE_MEAN

Box = tuple[float, float, float, float]
CORNER_NAMES = ("tl", "tr", "bl", "br")
READ_MARGIN = 0.25  # of the face's height: the border of plain table a face is read on
BORDER_BGR = (88, 104, 92)  # the border's colour: a dull green cloth, like the tables the detector learned on
CORNER_ZONE = (0.42, 0.32)  # a box whose centre lies this share of the width / height from a corner is its index
LAYOUT_SHARE = 0.5  # a corner is the deck's when the reader finds an index there on this share of faces or more
# a face's own box this much smaller than the deck's usual one has boxed the rank without its suit: it is widened
# to hold the usual box too
SHORT = 0.75
# ... and one much larger is cut to the usual box widened by this share of its size on each side (a loose box, on
# the index and the paper around it; a "10" is up to 1.6 times as wide as the deck's usual index)
NEAR = 0.3
AGREES = 0.5  # IoU with the deck's usual box at a corner above which a face's own box is taken as its index
INDEX_DOUBT = "the reader did not find its"  # how an index doubt begins (the page draws those faces' boxes red)
CORNER_WORDS = {"tl": "top-left", "tr": "top-right", "bl": "bottom-left", "br": "bottom-right"}


@dataclass(frozen=True)
class DeckIndices:
    """Each face's index boxes (face pixels, one per corner of ``corners``), and the corners of each face where
    the reader did not confirm the box (it found none there, or one away from the deck's usual place)."""

    corners: tuple[str, ...]
    boxes: dict[str, list[Box]]
    unconfirmed: dict[str, tuple[str, ...]]

    def doubt(self, code: str) -> str | None:
        """Why a face's index boxes should be checked, in words (None: every box confirmed)."""
        corners = self.unconfirmed.get(code, ())
        if not corners:
            return None
        where = " and ".join(CORNER_WORDS[c] for c in corners)
        return f"{INDEX_DOUBT} {where} index where the deck's other faces print it; check its boxes"


def on_border(face: np.ndarray) -> tuple[np.ndarray, int]:
    """A face (BGR, or RGBA with transparent corners) as BGR on a plain border, and the border's width (px)."""
    import cv2

    if face.shape[2] == 4:
        alpha = face[..., 3:4].astype(np.float32) / 255.0
        colour = face[..., :3][..., ::-1].astype(np.float32)
        face = (colour * alpha + np.array(BORDER_BGR, np.float32) * (1 - alpha)).astype(np.uint8)
    margin = int(round(READ_MARGIN * face.shape[0]))
    return cv2.copyMakeBorder(face, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=BORDER_BGR), margin


def corner_of(box: Sequence[float], size: tuple[int, int]) -> str | None:
    """The corner (``tl``, ``tr``, ``bl``, ``br``) whose zone holds the box's centre, or None (mid-face).

    >>> corner_of((5, 8, 30, 60), (240, 340)), corner_of((210, 280, 235, 332), (240, 340))
    ('tl', 'br')
    >>> corner_of((100, 150, 140, 190), (240, 340)) is None
    True
    """
    width, height = size
    cx, cy = (box[0] + box[2]) / 2 / width, (box[1] + box[3]) / 2 / height
    across, along = CORNER_ZONE
    left, right, top, bottom = cx < across, cx > 1 - across, cy < along, cy > 1 - along
    if (left or right) and (top or bottom):
        return ("t" if top else "b") + ("l" if left else "r")
    return None


def as_label(box: Sequence[float]) -> Box:
    """A detector's box as the label of the same index would be: the same centre, the sides less the detector's
    mean framing (it frames real indices about 7 % wider than their labels: ``BOX_LOG_SIDE_MEAN``, measured by
    ``benchmarks/detector_framing.py``). A taught box is a label, which the renderers draw and frame again."""
    width_bias, height_bias = np.exp(BOX_LOG_SIDE_MEAN)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    half_w, half_h = (box[2] - box[0]) / 2 / width_bias, (box[3] - box[1]) / 2 / height_bias
    return (float(cx - half_w), float(cy - half_h), float(cx + half_w), float(cy + half_h))


def read_face_indices(detector, faces: Sequence[np.ndarray]) -> list[dict[str, Box]]:
    """The reader's corner-index boxes on each face (face pixels), by corner: the surest box at each corner."""
    from vision.recognise import detect

    found = []
    for face in faces:
        canvas, margin = on_border(face)
        detections = detect(canvas, detector)
        size = (face.shape[1], face.shape[0])
        by_corner: dict[str, tuple[float, Box]] = {}
        for xyxy, confidence in zip(detections.xyxy.tolist(), detections.confidence.tolist(), strict=True):
            x0, y0, x1, y1 = as_label(xyxy)
            box = (x0 - margin, y0 - margin, x1 - margin, y1 - margin)
            corner = corner_of(box, size)
            if corner is not None and confidence > by_corner.get(corner, (-1.0, box))[0]:
                by_corner[corner] = (
                    confidence,
                    (round(box[0], 1), round(box[1], 1), round(box[2], 1), round(box[3], 1)),
                )
        found.append({corner: box for corner, (_, box) in sorted(by_corner.items())})
    return found


def deck_indices(found: Mapping[str, Mapping[str, Box]], sizes: Mapping[str, tuple[int, int]]) -> DeckIndices:
    """The deck's layout and each face's boxes (``found``: code -> corner -> box, face pixels, as
    ``read_face_indices`` gives; ``sizes``: code -> (width, height))."""
    if not found:
        return DeckIndices((), {}, {})
    counts = {corner: sum(corner in boxes for boxes in found.values()) for corner in CORNER_NAMES}
    corners = tuple(c for c in CORNER_NAMES if counts[c] >= LAYOUT_SHARE * len(found))
    if not corners:  # the reader found no corner on most faces: take its likeliest one
        corners = (max(CORNER_NAMES, key=lambda c: counts[c]),) if max(counts.values()) else ()
    usual: dict[str, np.ndarray] = {}
    for corner in corners:
        fractions = [
            np.array(boxes[corner], dtype=np.float64) / np.tile(np.array(sizes[code], dtype=np.float64), 2)
            for code, boxes in found.items()
            if corner in boxes
        ]
        usual[corner] = np.median(np.array(fractions), axis=0)
    boxes_of: dict[str, list[Box]] = {}
    unconfirmed: dict[str, tuple[str, ...]] = {}
    for code, boxes in found.items():
        usual_here = {
            corner: tuple(float(v) for v in usual[corner] * np.tile(np.array(sizes[code], dtype=np.float64), 2))
            for corner in corners
        }
        kept: list[Box] = []
        doubted = []
        for corner in corners:
            own = boxes.get(corner)
            if own is not None and float(box_iou(np.array([own]), np.array([usual_here[corner]]))[0, 0]) >= AGREES:
                usual_box = usual_here[corner]
                box = own if area(own) >= SHORT * area(usual_box) else union(own, usual_box)
                kept.append(within(box, usual_box, NEAR))
            else:
                x0, y0, x1, y1 = (round(float(v), 4) for v in usual_here[corner])
                kept.append((x0, y0, x1, y1))
                doubted.append(corner)
        boxes_of[code] = kept
        if doubted:
            unconfirmed[code] = tuple(doubted)
    return DeckIndices(corners, boxes_of, unconfirmed)


def area(box: Sequence[float]) -> float:
    return max(float(box[2]) - float(box[0]), 0.0) * max(float(box[3]) - float(box[1]), 0.0)


def union(a: Sequence[float], b: Sequence[float]) -> Box:
    """The smallest box holding both.

    >>> union((0, 0, 2, 2), (1, 1, 3, 4))
    (0.0, 0.0, 3.0, 4.0)
    """
    return (
        float(min(a[0], b[0])),
        float(min(a[1], b[1])),
        float(max(a[2], b[2])),
        float(max(a[3], b[3])),
    )


def within(box: Sequence[float], usual: Sequence[float], near: float) -> Box:
    """``box`` cut to ``usual`` widened by ``near`` of its width and height on each side.

    >>> within((0, 0, 10, 10), (4, 4, 6, 6), 0.5)
    (3.0, 3.0, 7.0, 7.0)
    """
    dx, dy = near * (usual[2] - usual[0]), near * (usual[3] - usual[1])
    return (
        float(max(box[0], usual[0] - dx)),
        float(max(box[1], usual[1] - dy)),
        float(min(box[2], usual[2] + dx)),
        float(min(box[3], usual[3] + dy)),
    )


def as_fractions(corner_indices: Mapping[str, Sequence[float]], size: tuple[int, int]) -> dict[str, Box]:
    """Corner boxes in face pixels as fractions of the face (``size``: width, height), rounded to 1e-4.

    >>> as_fractions({"tl": (12, 17, 36, 85)}, (240, 340))
    {'tl': (0.05, 0.05, 0.15, 0.25)}
    """
    return {corner: box_fractions(box, size) for corner, box in corner_indices.items()}


def box_fractions(box: Sequence[float], size: tuple[int, int]) -> Box:
    """A box in face pixels as fractions of the face (``size``: width, height), rounded to 1e-4: deck.json's unit."""
    width, height = size
    x0, y0, x1, y1 = box
    return (round(x0 / width, 4), round(y0 / height, 4), round(x1 / width, 4), round(y1 / height, 4))


def index_doubts(new: Sequence[Mapping[str, Box]], known: Sequence[Mapping[str, Box]]) -> list[str | None]:
    """For each new face (its corner boxes as fractions of the face), why its index boxes should be checked
    (None: the reader confirmed every one), judged with the deck's faces ``known`` (fractions too)."""
    faces = {f"new{k}": dict(boxes) for k, boxes in enumerate(new)}
    faces.update({f"known{k}": dict(boxes) for k, boxes in enumerate(known)})
    layout = deck_indices(faces, {code: (1, 1) for code in faces})
    return [layout.doubt(f"new{k}") for k in range(len(new))]
