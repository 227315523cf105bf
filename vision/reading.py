"""What the recogniser tells the rest of the product about one photo.

These types are the contract between vision/ and web/: ``vision.recognise.read_photo`` returns a
``PhotoReading``; nothing from ultralytics or OpenCV crosses this line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the upright (EXIF-applied) photo


class ImageError(ValueError):
    """A photo that cannot be read: the message says what was wrong and what to do."""


@dataclass(frozen=True)
class CardReading:
    card: str  # canonical code, e.g. "Ts"
    confidence: float  # 0..1
    boxes: tuple[Box, ...]  # the corner indices that showed this card
    runner_ups: tuple[str, ...] = ()  # the next-likeliest cards its corners could show, likeliest first

    def to_json(self) -> dict[str, Any]:
        """``{"card", "confidence", "boxes", "runner_ups"}`` with plain lists and rounded numbers."""
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 4),
            "boxes": [[round(float(v), 1) for v in box] for box in self.boxes],
            "runner_ups": list(self.runner_ups),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CardReading:
        """The card ``to_json`` wrote (``runner_ups`` may be missing in readings stored before they were kept).

        >>> CardReading.from_json({"card": "Ts", "confidence": 0.9, "boxes": [[1, 2, 3, 4]]})
        CardReading(card='Ts', confidence=0.9, boxes=((1.0, 2.0, 3.0, 4.0),), runner_ups=())
        """
        boxes = tuple(_box(box) for box in data.get("boxes", []))
        return cls(str(data["card"]), float(data["confidence"]), boxes, tuple(data.get("runner_ups", ())))


@dataclass(frozen=True)
class PhotoReading:
    image_size: tuple[int, int]  # (width, height)
    cards: tuple[CardReading, ...]
    hands: tuple[tuple[str, ...], tuple[str, ...]]  # two spreads by position: top/left first
    split_axis: str = "horizontal"  # "horizontal" = top/bottom, "vertical" = left/right
    split_confidence: float = 0.0  # 0..1, how clearly the cards fall into two groups
    conflicts: tuple[str, ...] = field(default=())  # e.g. one code seen in two places that cannot be one card

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: cards with confidences and boxes, the two hands, the split and conflicts
        (the one serializer: ``ginscore detect --json``, and the reading the web app keeps with a photo)."""
        return {
            "image_size": list(self.image_size),
            "cards": [card.to_json() for card in self.cards],
            "hands": [list(self.hands[0]), list(self.hands[1])],
            "split_axis": self.split_axis,
            "split_confidence": round(float(self.split_confidence), 4),
            "conflicts": list(self.conflicts),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PhotoReading:
        """The reading ``to_json`` wrote (as the web app keeps it with a photo); ``ValueError`` when it is not one.

        >>> reading = PhotoReading((10, 20), (CardReading("Ts", 0.9, ((1, 2, 3, 4),)),), (("Ts",), ()))
        >>> PhotoReading.from_json(reading.to_json()) == reading
        True
        """
        try:
            width, height = data["image_size"]
            first, second = data.get("hands", ([], []))
            return cls(
                image_size=(int(width), int(height)),
                cards=tuple(CardReading.from_json(card) for card in data.get("cards", [])),
                hands=(tuple(first), tuple(second)),
                split_axis=str(data.get("split_axis", "horizontal")),
                split_confidence=float(data.get("split_confidence", 0.0)),
                conflicts=tuple(data.get("conflicts", ())),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a photo reading ({error!r}): expected PhotoReading.to_json()'s fields") from None

    def confidence_of(self, card: str) -> float:
        """The confidence of one card read in this photo (0 when it was not read)."""
        return next((reading.confidence for reading in self.cards if reading.card == card), 0.0)


def _box(values: Any) -> Box:
    x0, y0, x1, y1 = (float(v) for v in values)
    return (x0, y0, x1, y1)
