"""What every step of a reading gets: the ``Detections`` so far and a ``ReadingContext``.

A reading is a line of small steps (``vision.recognise`` lists them), each a function
``step(detections, context) -> detections``: the box steps work in the decoded pixels and leave new
columns in ``Detections.data``; the card steps (from merging the corners on) build ``context.reading``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from vision.detections import Detections
from vision.model_settings import ModelSettings
from vision.reading import PhotoReading

if TYPE_CHECKING:
    from vision.detector import CardIndexDetector
    from vision.frame_memory import FrameMemories

ReadingMode = Literal["photo", "frame"]
PHOTO: ReadingMode = "photo"  # an uploaded photo: every pass, the second way in, doubted cards
FRAME: ReadingMode = "frame"  # a webcam frame: the next frame reads the table again, so no extra ways in
READING_MODES = (PHOTO, FRAME)


def check_mode(mode: str) -> ReadingMode:
    """``mode`` if it is a reading mode; ValueError naming the modes otherwise."""
    if mode == PHOTO:
        return PHOTO
    if mode == FRAME:
        return FRAME
    raise ValueError(f"reading mode {mode!r}: use {' or '.join(READING_MODES)}")


@dataclass
class ReadingContext:
    """One reading's models, settings, pixels and mode, and what its card steps have built so far.

    ``conf``: the lowest confidence kept; ``proposal_conf``: the detector's own threshold for a box's
    reading to count (``vision.decision.decide_boxes``); ``rotations``: quarter turns each crop is read at.
    ``settings`` may differ from the detector's (a measurement deciding or reading another way)."""

    detector: CardIndexDetector | None  # None: only the card steps run (they ask no model)
    settings: ModelSettings
    pixels: np.ndarray
    mode: ReadingMode
    imgsz: int
    conf: float
    proposal_conf: float
    rotations: int
    proposed_from: float  # the detector's threshold for the boxes it proposes (``reading_context`` says which)
    image_size: tuple[int, int] = (0, 0)  # the photo's (width, height), for the card steps
    image_to_photo: float = 1.0  # the factor from the decoded pixels to the photo's own
    single_spread: bool = False  # one player's spread: every card to the first hand
    memory: FrameMemories | None = None  # webcam frames: the readings of the frames before
    reading: PhotoReading = field(default_factory=lambda: PhotoReading((0, 0), (), ((), ())))

    @property
    def models(self) -> CardIndexDetector:
        """The loaded models, for the box steps."""
        if self.detector is None:
            raise ValueError("the box steps read pixels: give the reading's context the loaded models")
        return self.detector

    @property
    def photo(self) -> bool:
        """Whether this is a photo (every pass, the second way in, doubted cards), not a webcam frame."""
        return self.mode == PHOTO

    def with_pixels(self, pixels: np.ndarray) -> ReadingContext:
        """The same reading of other pixels (one tile of a photo)."""
        return ReadingContext(**{**self.__dict__, "pixels": pixels})


Step = Callable[[Detections, ReadingContext], Detections]


def reading_context(
    detector: CardIndexDetector | None,
    pixels: np.ndarray,
    mode: ReadingMode = PHOTO,
    *,
    settings: ModelSettings | None = None,
    imgsz: int | None = None,
    conf: float | None = None,
    proposal_conf: float | None = None,
    rotations: int | None = None,
    propose_from: float | None = None,
    image_size: tuple[int, int] = (0, 0),
    image_to_photo: float = 1.0,
    single_spread: bool = False,
    memory: FrameMemories | None = None,
) -> ReadingContext:
    """A context with each setting left out taken from ``settings`` (default: the detector's model.json; one of
    the two is needed).

    ``proposal_conf`` defaults to model.json's, or ``conf`` where that is lower; ``propose_from`` (the
    detector's threshold for the boxes it proposes) to ``proposal_conf``, or the second way in's lower
    ``sure_proposal_conf`` (photos only)."""
    if settings is None:
        if detector is None:
            raise ValueError("a reading's context needs the loaded models or the settings")
        settings = detector.settings
    mode = check_mode(mode)
    conf = settings.decision.conf if conf is None else float(conf)
    proposal_conf = min(conf, settings.detector.proposal_conf) if proposal_conf is None else float(proposal_conf)
    if propose_from is None:
        sure = settings.decision.sure_proposal_conf if mode == PHOTO else 0.0
        propose_from = min(proposal_conf, sure) if sure > 0 else proposal_conf
    return ReadingContext(
        detector=detector,
        settings=settings,
        pixels=pixels,
        mode=mode,
        imgsz=int(imgsz or settings.detector.imgsz),
        conf=conf,
        proposal_conf=proposal_conf,
        rotations=rotations or settings.classifiers.rotations,
        proposed_from=propose_from,
        image_size=image_size,
        image_to_photo=image_to_photo,
        single_spread=single_spread,
        memory=memory,
    )
