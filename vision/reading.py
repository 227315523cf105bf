"""What the recogniser tells the rest of the product about one photo.

These types are the contract between vision/ and web/: ``vision.recognise.read_photo`` returns a
``PhotoReading``; nothing from ultralytics or OpenCV crosses this line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the upright (EXIF-applied) photo


class ImageError(ValueError):
    """A photo that cannot be read: the message says what was wrong and what to do."""


# Why a card is shown to the user to check. Each kind has one rule that gives it (vision/decision.py,
# vision/cards.py and vision/frame_vote.py); the text says it in words, naming cards as people write them.
REASON_KINDS = {
    "low_confidence": "read less surely than the review threshold",
    "not_a_card": "a classifier says the box may show no card index (a doubted card)",
    "corners_disagree": "the two corners of one card read as two cards",
    "classifiers_disagree": "one crop classifier reads the index as another card than the others",
    "more_corners": "read at more places than a card has corners: a neighbour may be misread as it",
    "hand_count": "a spread holds more cards than a showdown hand",
    "knock_limit": "the knocker's deadwood as read is over the knock limit: one of its least sure cards may be misread",
    "frames_disagree": "the camera's frames of a still table read the card differently, or not in all of them",
}
# Kinds that earlier versions gave and stored readings may still carry: read back, never given now
# (as flags they were as common on right cards as on wrong ones: docs/experiments/reading-settings-history.md).
RETIRED_REASON_KINDS = {
    "weak_box": "the detector barely found the index; the classifiers read it surely (the second way in)",
    "seen_twice": "one card seen in places that cannot be one card",
}


@dataclass(frozen=True)
class Reason:
    """One reason to check a card: a kind of ``REASON_KINDS``, the words shown to people, the cards it names."""

    kind: str
    text: str
    cards: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in REASON_KINDS and self.kind not in RETIRED_REASON_KINDS:
            raise ValueError(f"unknown review reason {self.kind!r}; known: {', '.join(REASON_KINDS)}")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "cards": list(self.cards)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Reason:
        return cls(str(data["kind"]), str(data["text"]), tuple(data.get("cards", ())))


@dataclass(frozen=True)
class CardReading:
    """One physical card read in a photo. ``review`` holds the reasons to check it (empty: the card is
    sure); every step after the decision stage may add reasons, none removes one (``with_review``)."""

    card: str  # canonical code, e.g. "Ts"
    confidence: float  # 0..1, the estimated chance that the card is right
    boxes: tuple[Box, ...]  # the corner indices that showed this card
    runner_ups: tuple[str, ...] = ()  # the next-likeliest cards its corners could show, likeliest first
    review: tuple[Reason, ...] = ()

    @property
    def to_check(self) -> bool:
        """Whether the card is shown to the user to check (it carries a reason)."""
        return bool(self.review)

    def with_review(self, *reasons: Reason) -> CardReading:
        """This card with more reasons to check it (a reason it already carries is not repeated).

        >>> card = CardReading("Ts", 0.9, ()).with_review(Reason("corners_disagree", "x", ("Ts", "Tc")))
        >>> [r.kind for r in card.with_review(card.review[0]).review]
        ['corners_disagree']
        """
        added = tuple(reason for reason in dict.fromkeys(reasons) if reason not in self.review)
        return replace(self, review=self.review + added) if added else self

    def to_json(self) -> dict[str, Any]:
        """``{"card", "confidence", "boxes", "runner_ups"}`` with plain lists and rounded numbers."""
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 4),
            "boxes": [[round(float(v), 1) for v in box] for box in self.boxes],
            "runner_ups": list(self.runner_ups),
            "review": [reason.to_json() for reason in self.review],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CardReading:
        """The card ``to_json`` wrote (``runner_ups`` and ``review`` may be missing in older stored readings).

        >>> CardReading.from_json({"card": "Ts", "confidence": 0.9, "boxes": [[1, 2, 3, 4]]})
        CardReading(card='Ts', confidence=0.9, boxes=((1.0, 2.0, 3.0, 4.0),), runner_ups=(), review=())
        """
        boxes = tuple(_box(box) for box in data.get("boxes", []))
        return cls(
            str(data["card"]),
            float(data["confidence"]),
            boxes,
            tuple(data.get("runner_ups", ())),
            tuple(Reason.from_json(reason) for reason in data.get("review", ())),
        )


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
            cards = tuple(CardReading.from_json(card) for card in data.get("cards", []))
            if any("review" not in card for card in data.get("cards", [])):
                cards = _reasons_of_older_reading(cards, tuple(data.get("conflicts", ())))
            return cls(
                image_size=(int(width), int(height)),
                cards=cards,
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


OLDER_REVIEW_BELOW = 0.5  # the review threshold of readings stored before cards carried their reasons
OLDER_CONFLICT = re.compile(r"^([2-9TJQKA][shdc])(?: or ([2-9TJQKA][shdc]))?\b")


def _reasons_of_older_reading(cards: tuple[CardReading, ...], conflicts: tuple[str, ...]) -> tuple[CardReading, ...]:
    """A reading stored before cards carried reasons (December 2026) flagged a card by its confidence and
    by the conflicts that name it: the same cards get those as reasons, so none is taken silently."""
    named: dict[str, list[str]] = {}
    for text in conflicts:
        match = OLDER_CONFLICT.match(text)
        for code in match.groups() if match else ():
            if code:
                named.setdefault(code, []).append(text)
    reviewed = []
    for card in cards:
        reasons = [Reason("corners_disagree", text, (card.card,)) for text in named.get(card.card, [])]
        if card.confidence < OLDER_REVIEW_BELOW:
            reasons.append(Reason("low_confidence", f"read {card.confidence:.0%} sure"))
        reviewed.append(card.with_review(*reasons))
    return tuple(reviewed)
