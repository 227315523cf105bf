"""The first steps of a reading: the detector's index boxes, and a second pass at another size where the
first pass's boxes ask for one (close-ups and far shots). Each box's detector score goes in
``Detections.data["score"]``; which card it shows is read later (``vision.crop_reading``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision.detections import Detections, surest_of_overlapping
from vision.model_settings import ModelSettings
from vision.steps import PHOTO, ReadingContext, ReadingMode, check_mode, reading_context

if TYPE_CHECKING:
    from vision.detector import CardIndexDetector

UNREAD = 0  # the class id of a box no classifier has read yet


def proposed(context: ReadingContext, imgsz: int) -> Detections:
    """The detector's boxes in ``context.pixels`` read at ``imgsz``, from ``context.proposed_from``."""
    xyxy, scores = context.models.predict_boxes(context.pixels, imgsz, context.proposed_from)
    return Detections(xyxy, np.full(len(scores), UNREAD), scores, data={"score": scores})


def propose_boxes(detections: Detections, context: ReadingContext) -> Detections:
    """Step: the detector's index boxes at the context's size (``detections``, none yet, is not looked at)."""
    return proposed(context, context.imgsz)


def second_pass(detections: Detections, context: ReadingContext) -> Detections:
    """Step: the boxes with those of a second detector pass where ``second_pass_size`` asks for one (decided
    on the boxes from ``proposal_conf``); of boxes of both passes overlapping by more than the passes'
    ``merge_iou``, the surer stays."""
    size = second_pass_size(context, detections.xyxy[detections.confidence >= context.proposal_conf])
    if size is None:
        return detections
    both = Detections.concatenate([detections, proposed(context, size)])
    return both[surest_of_overlapping(both.xyxy, both.confidence, context.settings.passes.merge_iou)]


def second_pass_size(context: ReadingContext, xyxy: np.ndarray) -> int | None:
    """The input size of a second detector pass a photo read at ``context.imgsz`` needs, if any.

    * Close-up (``close_up_imgsz``, smaller): the indices are large (median side at least
      ``close_up_index_px`` at ``imgsz``) or few boxes were found (a card filling the frame gives
      the detector nothing of the size it knows).
    * Far (``far_imgsz``, larger; photos only, never webcam frames): the indices are small
      (median side below ``far_index_px`` at ``imgsz``).
    """
    passes, imgsz = context.settings.passes, context.imgsz
    sides = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]) * imgsz / max(context.pixels.shape[:2])
    median = float(np.median(sides)) if len(sides) else 0.0
    few = len(xyxy) < passes.close_up_min_boxes
    if passes.close_up_imgsz and passes.close_up_imgsz < imgsz and (few or median >= passes.close_up_index_px):
        return passes.close_up_imgsz
    if context.photo and passes.far_imgsz > imgsz and not few and median < passes.far_index_px:
        return passes.far_imgsz
    return None


def decode_side(settings: ModelSettings, imgsz: int, tiles: int = 1, mode: ReadingMode = PHOTO) -> int:
    """The long side a photo read at ``imgsz`` (as ``tiles`` x ``tiles`` tiles) is decoded to: big enough for
    the far pass too when that pass may run (photo mode)."""
    far = settings.passes.far_imgsz if check_mode(mode) == PHOTO else 0
    return max(imgsz * max(1, tiles), far)


def proposals_of(detector: CardIndexDetector, pixels: np.ndarray, imgsz: int, propose_from: float) -> Detections:
    """The boxes a photo's reading starts from (both steps above, the second pass decided as a reading decides
    it), proposed down to ``propose_from``: what the detector offers, before any classifier."""
    context = reading_context(
        detector, pixels, imgsz=imgsz, proposal_conf=detector.settings.detector.proposal_conf, propose_from=propose_from
    )
    return second_pass(propose_boxes(Detections.empty(), context), context)
