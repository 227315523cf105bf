"""Photo → ``PhotoReading``: decode, detect the corner indices, merge them into cards, split the hands.

The web app calls ``read_photo`` (an uploaded photo of both spreads), ``read_spread`` (a photo of
one player's spread), ``read_frame`` (a webcam frame, read at the smaller webcam size) or
``read_still_table`` (several frames of a still table, each read like a photo, voted card by card).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.cards import merge_corner_boxes
from vision.crop_reading import read_crops
from vision.decision import decide, one_reading_each, one_reading_per_index
from vision.decode import DecodedImage, PhotoSource, decode_image
from vision.detections import Detections
from vision.detector import CardIndexDetector, load_detector
from vision.frame_memory import FrameMemories, remembered_readings
from vision.frame_vote import vote_cards
from vision.hands import split_hands, split_spreads
from vision.model_settings import CornerSettings, DecisionSettings, ModelSettings
from vision.proposals import decode_side, propose_boxes, second_pass
from vision.reading import PhotoReading
from vision.review import review, review_showdown, showdown_review
from vision.steps import FRAME, PHOTO, ReadingContext, ReadingMode, Step, reading_context

# A photo's trip: boxes (in the decoded pixels), their crops read, kept or dropped; then cards, hands, reviews.
PHOTO_STEPS: tuple[Step, ...] = (
    propose_boxes,  # vision.proposals: the detector's index boxes
    second_pass,  # vision.proposals: a close-up or far pass where the boxes ask for one
    read_crops,  # vision.crop_reading: which card each box's crop shows
    decide,  # vision.decision: keep, drop or flag each box
    one_reading_per_index,  # vision.decision: of overlapping readings, the surest
    merge_corner_boxes,  # vision.cards: the corners of one card become one card
    split_spreads,  # vision.hands: the two players' spreads
    review,  # vision.review: calibrated confidences, the review threshold
    review_showdown,  # vision.review: the rules of a showdown as evidence
)
# A webcam frame's: the same, except that unchanged crops keep the last frame's readings, and no showdown review.
FRAME_STEPS: tuple[Step, ...] = (
    propose_boxes,
    second_pass,
    remembered_readings,  # vision.frame_memory: in place of read_crops
    decide,
    one_reading_per_index,
    merge_corner_boxes,
    split_spreads,
    review,
)
# the steps from this one on work on cards, in the photo's own pixels; those before it on boxes, in the
# decoded pixels (each tile's, where a photo is read in tiles)
FIRST_CARD_STEP = merge_corner_boxes
# a photo read as one spread, or as one frame of a still table: the photo's steps without the showdown review
SPREAD_STEPS = PHOTO_STEPS[:-1]

# the frame memory of each loaded detector's webcam (read_frame's default)
_FRAME_MEMORIES: weakref.WeakKeyDictionary[CardIndexDetector, FrameMemories] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, eq=False)
class Recognition:
    """Everything one pass produced: the reading, the raw boxes (photo pixels) and the decoded image."""

    reading: PhotoReading
    detections: Detections
    image: DecodedImage


def run_steps(steps: Sequence[Step], context: ReadingContext, tiles: int = 1) -> Detections:
    """Run a reading's steps in order; the box steps on each of ``tiles`` x ``tiles`` tiles (``boxes_of_tiles``).
    Returns the boxes, in the photo's pixels (``context.image_to_photo``); the reading is ``context.reading``."""
    box_steps, card_steps = split_steps(steps)
    detections = boxes_read(box_steps, context, tiles).scaled(context.image_to_photo)
    for step in card_steps:
        detections = step(detections, context)
    return detections


def split_steps(steps: Sequence[Step]) -> tuple[Sequence[Step], Sequence[Step]]:
    """The box steps of a line of steps, and its card steps (from ``FIRST_CARD_STEP`` on)."""
    first_card_step = list(steps).index(FIRST_CARD_STEP) if FIRST_CARD_STEP in steps else len(steps)
    return steps[:first_card_step], steps[first_card_step:]


def boxes_read(box_steps: Sequence[Step], context: ReadingContext, tiles: int = 1) -> Detections:
    """The boxes the box steps find in ``context.pixels``, read whole or as ``tiles`` x ``tiles`` tiles."""
    return boxes_of_tiles(box_steps, context, tiles) if tiles > 1 else run_box_steps(box_steps, context)


def run_box_steps(steps: Sequence[Step], context: ReadingContext) -> Detections:
    """The boxes the box steps find in ``context.pixels``."""
    detections = Detections.empty()
    for step in steps:
        detections = step(detections, context)
    return detections


def boxes_of_tiles(steps: Sequence[Step], context: ReadingContext, grid: int) -> Detections:
    """The box steps run on a ``grid`` x ``grid`` of overlapping tiles, each read at ``context.imgsz``: small
    indices in a big photo keep more pixels. Boxes cut by an inner tile edge are dropped (the overlap holds
    them whole in the neighbouring tile), and of boxes overlapping across tiles the surest stays."""
    pixels, settings = context.pixels, context.settings.detector
    height, width = pixels.shape[:2]
    margin = settings.tile_edge_margin
    parts = []
    for top, bottom in tile_spans(height, grid, settings.tile_overlap):
        for left, right in tile_spans(width, grid, settings.tile_overlap):
            found = run_box_steps(steps, context.with_pixels(pixels[top:bottom, left:right]))
            x0, y0, x1, y1 = found.xyxy.T if len(found) else (np.zeros(0),) * 4
            whole = (
                ((left == 0) | (x0 > margin))
                & ((top == 0) | (y0 > margin))
                & ((right == width) | (x1 < right - left - margin))
                & ((bottom == height) | (y1 < bottom - top - margin))
            )
            parts.append(found[whole].shifted(left, top))
    return one_reading_each(Detections.concatenate(parts), context.settings.decision)


def tile_spans(length: int, grid: int, overlap: float) -> list[tuple[int, int]]:
    """``grid`` spans covering 0..length, neighbours overlapping by ``overlap`` of a span."""
    span = length / (grid - (grid - 1) * overlap)
    step = span * (1 - overlap)
    return [(int(round(i * step)), min(length, int(round(i * step + span)))) for i in range(grid)]


def reading_from_detections(
    detections: Detections,
    image_size: tuple[int, int],
    single_spread: bool = False,
    decision: DecisionSettings | None = None,
    corners: CornerSettings | None = None,
) -> PhotoReading:
    """Merge corner boxes (photo pixels) into cards, split them into two hands (or one spread), and give each
    card its calibrated confidence and the reasons to check it (with ``decision`` and ``corners``, a models
    folder's sections; default: the schema's defaults): the card steps of ``SPREAD_STEPS``."""
    settings = ModelSettings(decision=decision or DecisionSettings(), corners=corners or CornerSettings())
    no_pixels = np.zeros((0, 0, 3), dtype=np.uint8)
    context = reading_context(None, no_pixels, settings=settings, image_size=image_size, single_spread=single_spread)
    for step in split_steps(SPREAD_STEPS)[1]:
        detections = step(detections, context)
    return context.reading


def recognise(
    source: PhotoSource,
    *,
    detector: CardIndexDetector | None = None,
    settings: ModelSettings | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    single_spread: bool = False,
    name: str = "",
    tiles: int = 1,
    rotations: int | None = None,
    mode: ReadingMode = PHOTO,
    steps: Sequence[Step] = SPREAD_STEPS,
    memory: FrameMemories | None = None,
) -> Recognition:
    """Decode a photo at the detector's size and read it with ``steps`` (boxes in photo pixels). ``mode``:
    ``"photo"`` or ``"frame"`` (a webcam frame), whatever ``imgsz`` is; ``settings``: other settings than the
    detector's model.json (a measurement deciding or reading another way).

    ``tiles`` > 1 reads the photo at ``tiles`` times the size, as a ``tiles`` x ``tiles`` grid of
    overlapping tiles (slower by about tiles², for photos where the cards fill little of the frame).
    """
    detector = detector or load_detector()
    settings = settings or detector.settings
    imgsz = int(imgsz or settings.detector.imgsz)
    image = decode_image(source, max_side=decode_side(settings, imgsz, tiles, mode), name=name)
    pixels = image.pixels
    context = reading_context(detector, pixels, mode, settings=settings, imgsz=imgsz, conf=conf, rotations=rotations)
    context.image_size, context.image_to_photo = image.original_size, image.to_original
    context.single_spread, context.memory = single_spread, memory
    detections = run_steps(steps, context, tiles)
    return Recognition(reading=context.reading, detections=detections, image=image)


def read_photo(
    source: PhotoSource,
    *,
    detector: CardIndexDetector | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    tiles: int = 1,
) -> PhotoReading:
    """Read a showdown photo of both players' spreads: the cards and the two hands by position, with the
    rules of a showdown as evidence (``vision.review.showdown_review``: a spread of more cards than a
    hand names its suspects).

    ``source`` is a path, bytes, a binary file, a PIL image or a BGR array. Raises ``ImageError``
    for a file that is not a readable photo.
    """
    return recognise(source, detector=detector, imgsz=imgsz, conf=conf, tiles=tiles, steps=PHOTO_STEPS).reading


def read_spread(source: PhotoSource, **options: Any) -> PhotoReading:
    """Read a photo of ONE player's spread (``options``: those of ``read_photo``): every card goes to
    ``hands[0]``, and no rule of a showdown is looked at."""
    return recognise(source, single_spread=True, **options).reading


def read_frame(
    frame, *, detector: CardIndexDetector | None = None, conf: float | None = None, single_spread: bool = False
) -> PhotoReading:
    """Read a webcam frame (BGR array or encoded image) at the webcam size from ``model.json``; the crops
    that look as in the frame before keep their readings (``vision.frame_memory``, one memory per detector)."""
    detector = detector or load_detector()
    return recognise(
        frame,
        detector=detector,
        imgsz=detector.settings.detector.webcam_imgsz,
        conf=conf,
        single_spread=single_spread,
        rotations=1,
        mode=FRAME,
        steps=FRAME_STEPS,
        memory=frame_memories(detector),
    ).reading


def frame_memories(detector: CardIndexDetector) -> FrameMemories:
    """The memory of the webcam frames ``detector`` read last (``read_frame``'s)."""
    return _FRAME_MEMORIES.setdefault(detector, FrameMemories())


def still_table_reading(readings: Sequence[PhotoReading]) -> PhotoReading:
    """One reading of a still showdown from readings of several of its frames (each read like a photo:
    ``recognise``): one vote per card (``vision.frame_vote``: a card counts when most frames agree, a card
    they disagree on gets the reason ``frames_disagree``), the voted cards split into the two spreads and
    checked with the rules of a showdown (``showdown_review``)."""
    if not readings:
        raise ValueError("a still table's reading needs at least one frame's")
    voted = vote_cards(readings)
    split = split_hands(voted.cards)
    return showdown_review(
        PhotoReading(
            image_size=readings[0].image_size,
            cards=voted.cards,
            hands=split.hands,
            split_axis=split.axis,
            split_confidence=split.confidence,
            conflicts=readings[voted.most_agreeing_frame].conflicts + voted.notes,
        )
    )


def read_still_table(frames: Sequence[PhotoSource], *, detector: CardIndexDetector | None = None) -> PhotoReading:
    """Read several frames of one still showdown (the camera over the table), each at photo quality (full
    resolution, every pass ``read_photo`` uses), voted card by card: ``still_table_reading``."""
    detector = detector or load_detector()
    return still_table_reading([recognise(frame, detector=detector).reading for frame in frames])


def detect(
    pixels: np.ndarray,
    detector: CardIndexDetector | None = None,
    *,
    mode: ReadingMode = PHOTO,
    tiles: int = 1,
    memory: FrameMemories | None = None,
    settings: ModelSettings | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    proposal_conf: float | None = None,
    rotations: int | None = None,
) -> Detections:
    """The kept corner-index boxes of BGR ``pixels`` (in their coordinates), each with its card, confidence
    and reasons: the box steps of a photo's (or, ``mode="frame"``, a webcam frame's) reading."""
    detector = detector or load_detector()
    steps = FRAME_STEPS if mode == FRAME else PHOTO_STEPS
    context = reading_context(
        detector, pixels, mode, settings=settings, imgsz=imgsz, conf=conf, proposal_conf=proposal_conf
    )
    context.rotations, context.memory = rotations or context.rotations, memory
    return boxes_read(split_steps(steps)[0], context, tiles)
