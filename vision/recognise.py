"""Photo → ``PhotoReading``: decode, detect the corner indices, merge them into cards, split the hands.

The web app calls ``read_photo`` (an uploaded photo of both spreads), ``read_spread`` (a photo of
one player's spread), ``read_frame`` (a webcam frame, read at the smaller webcam size) or
``read_still_table`` (several frames of a still table, each read like a photo, voted card by card).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vision.cards import merge_corners
from vision.decision import FRAME, PHOTO, ReadingMode, final_review, showdown_review
from vision.decode import DecodedImage, PhotoSource, decode_image
from vision.detections import Detections
from vision.detector import CardIndexDetector, load_detector
from vision.frame_vote import vote_cards
from vision.hands import HandSplit, one_spread, split_hands
from vision.model_settings import DecisionSettings
from vision.reading import PhotoReading


@dataclass(frozen=True, eq=False)
class Recognition:
    """Everything one pass produced: the reading, the raw boxes (photo pixels) and the decoded image."""

    reading: PhotoReading
    detections: Detections
    image: DecodedImage


def reading_from_detections(
    detections: Detections,
    image_size: tuple[int, int],
    single_spread: bool = False,
    decision: DecisionSettings | None = None,
) -> PhotoReading:
    """Merge corner boxes into cards, give each its calibrated confidence and the reasons to check it
    (``vision.decision.final_review`` with ``decision``, default: the schema's defaults), and split them
    into two hands (or one spread)."""
    merged = merge_corners(detections)
    cards = final_review(merged.cards, decision or DecisionSettings())
    split: HandSplit = one_spread(cards) if single_spread else split_hands(cards)
    return PhotoReading(
        image_size=image_size,
        cards=cards,
        hands=split.hands,
        split_axis=split.axis,
        split_confidence=split.confidence,
        conflicts=merged.conflicts,
    )


def recognise(
    source: PhotoSource,
    *,
    detector: CardIndexDetector | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    single_spread: bool = False,
    name: str = "",
    tiles: int = 1,
    rotations: int | None = None,
    mode: ReadingMode = PHOTO,
) -> Recognition:
    """Decode a photo at the detector's size, detect, and build its reading (boxes in photo pixels).
    ``mode``: ``"photo"`` or ``"frame"`` (a webcam frame), whatever ``imgsz`` is.

    ``tiles`` > 1 reads the photo at ``tiles`` times the size, as a ``tiles`` x ``tiles`` grid of
    overlapping tiles (slower by about tiles², for photos where the cards fill little of the frame).
    """
    detector = detector or load_detector()
    imgsz = int(imgsz or detector.settings.detector.imgsz)
    image = decode_image(source, max_side=detector.photo_decode_side(imgsz, tiles, mode), name=name)
    detections = detector.detect_tiled(
        image.pixels, tiles, imgsz=imgsz, conf=conf, rotations=rotations, mode=mode
    ).scaled(image.to_original)
    reading = reading_from_detections(
        detections, image.original_size, single_spread=single_spread, decision=detector.settings.decision
    )
    return Recognition(reading=reading, detections=detections, image=image)


def read_photo(
    source: PhotoSource,
    *,
    detector: CardIndexDetector | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    tiles: int = 1,
) -> PhotoReading:
    """Read a showdown photo of both players' spreads: the cards and the two hands by position, with the
    rules of a showdown as evidence (``vision.decision.showdown_review``: a spread of more cards than a
    hand names its suspects).

    ``source`` is a path, bytes, a binary file, a PIL image or a BGR array. Raises ``ImageError``
    for a file that is not a readable photo.
    """
    return showdown_review(recognise(source, detector=detector, imgsz=imgsz, conf=conf, tiles=tiles).reading)


def read_spread(
    source: PhotoSource,
    *,
    detector: CardIndexDetector | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    tiles: int = 1,
) -> PhotoReading:
    """Read a photo of ONE player's spread: every card goes to ``hands[0]``."""
    return recognise(source, detector=detector, imgsz=imgsz, conf=conf, single_spread=True, tiles=tiles).reading


def read_frame(
    frame, *, detector: CardIndexDetector | None = None, conf: float | None = None, single_spread: bool = False
) -> PhotoReading:
    """Read a webcam frame (BGR array or encoded image) at the webcam size from ``model.json``."""
    detector = detector or load_detector()
    return recognise(
        frame,
        detector=detector,
        imgsz=detector.settings.detector.webcam_imgsz,
        conf=conf,
        single_spread=single_spread,
        rotations=1,
        mode=FRAME,
    ).reading


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
