"""Webcam frames of a still table: a corner crop that looks as it did when it was read keeps its reading.

The live view reads up to 10 frames a second of a table that is mostly still. Classifying every corner
crop again costs more than the detector pass itself (56 crops of a 52-card deal, three classifiers). So in
frame mode (step ``remembered_readings``, in place of ``vision.crop_reading.read_crops``) a box keeps the classifiers' reading of the last
frame when, in this frame:

* it lies where a box of the last frame lay (``SAME_PLACE_IOU``), and
* its crop looks the same: cut in this frame where the remembered box lay, no pixel of its blurred
  16 x 16 grey thumbnail differs from the remembered crop's by more than ``SAME_CROP_LEVEL`` grey levels.
  The box kept is then the remembered one, whose crop the reading was made from: the detector's box of one
  still index often flips by a pixel or two between two sizes, and crops cut at each differ by 25-45
  levels (3 of the bench's 56 boxes were read afresh almost every frame so; the classifiers ran on 85 of
  100 still frames, now on 17).
  The thumbnails are of the crops as cut, before white balance: balancing is most of a crop's cost, and a
  frame balances only the crops it reads afresh. Measured on real-val's 377 labelled indices shrunk to
  640 px (a webcam's size; ``python3 benchmarks/frame_memory.py``): the same index in two frames (sensor
  noise of sigma 4, JPEG, boxes shifted by up to 0.7 px) differs by 10.9 levels at the median, and 80 % of
  such pairs lie within 16; of 2,944 pairs of different cards of the same rank or suit, the closest differ
  by 18.7 and 99 % by more than 54. At 16 no different card is taken for the same; at 20, one is.
  (Thumbnails of balanced crops measured the same: 79 %, 19.1, 55.)

The crop is compared with the crop the reading was made from, not with the last frame's: a table that
changes a little every frame (light fading, a card pushed a pixel at a time) cannot carry a reading across
a change bigger than ``SAME_CROP_LEVEL`` in all. No reading is kept for more than ``MOST_REUSES`` frames in
a row (about 5 s at 10 frames/s): every crop is read afresh at least that often. The detector's pass runs on
every frame, so a card that moves, appears or leaves is seen at once. Photos never use this memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.crop_reading import CropReadings, crop_readings, with_readings
from vision.crops import balance_white_all, crop_indices
from vision.detections import Detections, box_iou
from vision.steps import ReadingContext

SAME_PLACE_IOU = 0.8
SAME_CROP_LEVEL = 16.0
MOST_REUSES = 50
THUMBNAIL_SIDE = 16
THUMBNAIL_BLUR = 1.0


def crop_thumbnails(crops: Sequence[np.ndarray]) -> np.ndarray:
    """(N, 16, 16) float32: each BGR crop in grey, shrunk to 16 x 16 and blurred a little (sigma 1 px)."""
    if not len(crops):
        return np.zeros((0, THUMBNAIL_SIDE, THUMBNAIL_SIDE), dtype=np.float32)
    small = [
        cv2.resize(
            cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (THUMBNAIL_SIDE, THUMBNAIL_SIDE), interpolation=cv2.INTER_AREA
        ).astype(np.float32)
        for crop in crops
    ]
    return np.stack([cv2.GaussianBlur(s, (0, 0), THUMBNAIL_BLUR) for s in small])


@dataclass(frozen=True, eq=False)
class FrameMemory:
    """The last frame's boxes, the thumbnails of the crops their readings were made from, the readings
    (each array's row k belongs to box k), how many frames in a row each reading was kept, and what read
    them (``reader``: any value that changes when the classifiers or their settings do)."""

    reader: object
    xyxy: np.ndarray
    thumbnails: np.ndarray
    readings: tuple[np.ndarray, ...]
    reuses: np.ndarray

    def same_crops(self, reader: object, xyxy: np.ndarray, thumbnails: np.ndarray) -> np.ndarray:
        """For each box of this frame, the row of the last frame's box whose reading it keeps, or -1: the
        row at its place (``places``) whose thumbnail is within ``SAME_CROP_LEVEL`` of ``thumbnails``' (cut, for
        a box at a place, at the remembered box: ``kept_at``).

        >>> crop = np.full((16, 16), 200, np.float32)
        >>> memory = FrameMemory("r", np.array([[0.0, 0, 10, 10]]), crop[None], (np.array([7]),), np.zeros(1, int))
        >>> memory.same_crops("r", np.array([[0.5, 0, 10, 10], [50, 0, 60, 10]]), np.stack([crop + 5, crop])).tolist()
        [0, -1]
        >>> memory.same_crops("r", np.array([[0.5, 0, 10, 10]]), crop[None] - 60).tolist()
        [-1]
        >>> memory.same_crops("another reader", np.array([[0.0, 0, 10, 10]]), crop[None]).tolist()
        [-1]
        """
        return self.kept_at(self.places(reader, xyxy), thumbnails)

    def places(self, reader: object, xyxy: np.ndarray) -> np.ndarray:
        """For each box of this frame, the row of the last frame's box at its place (overlapping by at least
        ``SAME_PLACE_IOU``, its reading kept fewer than ``MOST_REUSES`` frames in a row, each row for one box),
        or -1 (another ``reader``: -1 for all)."""
        places = np.full(len(xyxy), -1, dtype=np.int64)
        if reader != self.reader or not len(xyxy) or not len(self.xyxy):
            return places
        overlaps = box_iou(np.asarray(xyxy, dtype=np.float64), self.xyxy)
        nearest = overlaps.argmax(axis=1)
        taken: set[int] = set()
        for i, j in enumerate(nearest.tolist()):
            if overlaps[i, j] >= SAME_PLACE_IOU and self.reuses[j] < MOST_REUSES and j not in taken:
                places[i] = j
                taken.add(j)
        return places

    def kept_at(self, places: np.ndarray, thumbnails: np.ndarray) -> np.ndarray:
        """``places`` with -1 where a box's thumbnail differs from its place's by more than ``SAME_CROP_LEVEL``
        at any pixel."""
        kept = np.array(places, dtype=np.int64, copy=True)
        at = np.flatnonzero(kept >= 0)
        if len(at):
            differences = np.abs(thumbnails[at] - self.thumbnails[kept[at]]).reshape(len(at), -1).max(axis=1)
            kept[at[differences > SAME_CROP_LEVEL]] = -1
        return kept


def remembered(
    memory: FrameMemory | None,
    kept: np.ndarray,
    fresh: tuple[np.ndarray, ...],
    reader: object,
    xyxy: np.ndarray,
    thumbnails: np.ndarray,
) -> FrameMemory:
    """This frame's memory: each box's reading is the last frame's where ``kept`` names a row of ``memory``
    (with the thumbnail it was read from and one more reuse), else the next row of ``fresh`` (the readings
    of the boxes not kept, in order; with this frame's thumbnail and no reuse).

    >>> memory = FrameMemory("r", np.zeros((2, 4)), np.array([1.0, 2.0]), (np.array([10, 11]),), np.array([0, 3]))
    >>> now = remembered(memory, np.array([1, -1, -1]), (np.array([20, 21]),), "r", np.ones((3, 4)), np.array([7.0, 8, 9]))
    >>> now.readings[0].tolist(), now.reuses.tolist(), now.thumbnails.tolist()
    ([11, 20, 21], [4, 0, 0], [2.0, 8.0, 9.0])
    """
    count = len(kept)
    new = np.flatnonzero(kept < 0)
    old = np.flatnonzero(kept >= 0)
    readings = []
    for k, fresh_values in enumerate(fresh):
        values = np.empty((count, *fresh_values.shape[1:]), dtype=fresh_values.dtype)
        values[new] = fresh_values
        if memory is not None and len(old):
            values[old] = memory.readings[k][kept[old]]
        readings.append(values)
    reuses = np.zeros(count, dtype=np.int64)
    read_from = np.array(thumbnails, copy=True)
    if memory is not None and len(old):
        reuses[old] = memory.reuses[kept[old]] + 1
        read_from[old] = memory.thumbnails[kept[old]]
    return FrameMemory(reader, np.asarray(xyxy, dtype=np.float64), read_from, tuple(readings), reuses)


class FrameMemories:
    """The memory of the last webcam frame read, kept from one frame to the next (one per camera)."""

    def __init__(self) -> None:
        self.last: FrameMemory | None = None

    @property
    def crops_kept(self) -> tuple[int, int]:
        """Of the last frame's crops: how many kept the reading of the frame before, and how many there were."""
        last = self.last
        return (int((last.reuses > 0).sum()), len(last.reuses)) if last is not None else (0, 0)


def remembered_readings(detections: Detections, context: ReadingContext) -> Detections:
    """Step (webcam frames): each box's reading, kept from the last frame where its crop looks as it did (the
    box then the remembered one), read afresh, white-balanced, in one batch otherwise. Every crop is cut,
    unbalanced, for its thumbnail; on a still table few are read."""
    if not len(detections):
        return Detections.empty()
    memories = context.memory if context.memory is not None else FrameMemories()
    memory, detector = memories.last, context.models
    reader = (context.settings.classifiers, context.rotations)
    xyxy = detections.xyxy
    places = memory.places(reader, xyxy) if memory is not None else np.full(len(xyxy), -1, dtype=np.int64)
    where = xyxy.copy()
    if memory is not None and (places >= 0).any():
        where[places >= 0] = memory.xyxy[places[places >= 0]]
    cut = crop_indices(context.pixels, where, size=detector.classifier_imgsz, balance=False)
    thumbnails = crop_thumbnails(cut)
    kept = memory.kept_at(places, thumbnails) if memory is not None else places
    new = np.flatnonzero(kept < 0)
    moved = new[places[new] >= 0]  # read afresh at this frame's box, not at the remembered one
    if len(moved):
        own = crop_indices(context.pixels, xyxy[moved], size=detector.classifier_imgsz, balance=False)
        for i, crop in zip(moved, own, strict=True):
            cut[i] = crop
        thumbnails[moved] = crop_thumbnails([cut[i] for i in moved])
    boxes = np.where((kept >= 0)[:, None], where, xyxy)  # a kept reading keeps the remembered box
    crops = list(balance_white_all(np.stack([cut[i] for i in new]))) if len(new) else []
    isolate = context.settings.classifiers.isolate
    size = detector.classifier_imgsz
    isolated = crop_indices(context.pixels, xyxy[new], size=size, isolate=isolate) if isolate > 0 else None
    fresh = crop_readings(detector, context.settings, crops, isolated, context.rotations)
    memories.last = remembered(memory, kept, tuple(fresh), reader, boxes, thumbnails)
    return with_readings(detections.with_boxes(boxes), CropReadings(*memories.last.readings))
