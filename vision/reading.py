"""What the recogniser tells the rest of the product about one photo.

These types are the contract between vision/ and web/: ``vision.recognise.read_photo`` returns a
``PhotoReading``; nothing from ultralytics or OpenCV crosses this line.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the upright (EXIF-applied) photo


class ImageError(ValueError):
    """A photo that cannot be read: the message says what was wrong and what to do."""


@dataclass(frozen=True)
class CardReading:
    card: str                # canonical code, e.g. "Ts"
    confidence: float        # 0..1
    boxes: tuple[Box, ...]   # the corner indices that showed this card


@dataclass(frozen=True)
class PhotoReading:
    image_size: tuple[int, int]                       # (width, height)
    cards: tuple[CardReading, ...]
    hands: tuple[tuple[str, ...], tuple[str, ...]]    # two spreads by position: top/left first
    split_axis: str = "horizontal"                    # "horizontal" = top/bottom, "vertical" = left/right
    split_confidence: float = 0.0                     # 0..1, how clearly the cards fall into two groups
    conflicts: tuple[str, ...] = field(default=())    # e.g. one code seen in two places that cannot be one card
