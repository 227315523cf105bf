"""Several readings of one still table → one reading: a card counts when most frames agree on it.

The camera over the table sees a still showdown many times a second. Each frame is read at photo
quality (``vision.recognise.recognise`` in photo mode), and the readings are matched card by card by
where their corner boxes lie (the table is still, so one physical card's boxes lie in the same place in
every frame). For each physical card the name most frames read wins when it has a majority of all the
frames; a card the frames disagree on (another name in some frames, or not seen in some) keeps the
reason ``frames_disagree`` so that it is checked; a card seen by fewer than half of the frames (a hand
passing, a glint) is left out and named in the reading's notes. Every reason a frame gave a card it
won is kept: voting adds reasons, never removes one.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from engine.cards import card_label
from vision.detections import box_iou
from vision.reading import Box, CardReading, PhotoReading, Reason

SAME_PLACE_OVERLAP = 0.3  # two boxes of two frames are one index when their overlap (IoU) is at least this


@dataclass(frozen=True)
class VotedCards:
    """The cards the frames agree on (in reading order) and notes on the cards left out."""

    cards: tuple[CardReading, ...]
    notes: tuple[str, ...]
    frames: int
    most_agreeing_frame: int  # the frame whose cards most often won: its conflicts are the reading's


@dataclass
class _Place:
    """One physical card: what each frame read there."""

    reads: dict[int, CardReading] = field(default_factory=dict)
    boxes: list[Box] = field(default_factory=list)


def _overlap(place: _Place, card: CardReading) -> float:
    """The largest overlap (IoU) of a box of the place with a box of the card."""
    if not place.boxes or not card.boxes:
        return 0.0
    return float(box_iou(np.array(place.boxes), np.array(card.boxes)).max())


def _places(readings: Sequence[PhotoReading]) -> list[_Place]:
    places: list[_Place] = []
    for frame, reading in enumerate(readings):
        for card in reading.cards:
            free = [place for place in places if frame not in place.reads]
            best = max(free, key=lambda place: _overlap(place, card), default=None)
            if best is None or _overlap(best, card) < SAME_PLACE_OVERLAP:
                best = _Place()
                places.append(best)
            best.reads[frame] = card
            best.boxes.extend(card.boxes)
    return places


def _one_of_each_kind(reasons: Sequence[Reason]) -> tuple[Reason, ...]:
    """The reasons, the first of each kind (frames word the same reason with their own numbers)."""
    kept: dict[str, Reason] = {}
    for reason in reasons:
        kept.setdefault(reason.kind, reason)
    return tuple(kept.values())


def _how_frames_read(names: Counter[str], missing: int) -> str:
    parts = [f"{count} read it {card_label(name)}" for name, count in names.most_common()]
    if missing:
        parts.append(f"{missing} did not see it")
    return "; ".join(parts)


def vote_cards(readings: Sequence[PhotoReading]) -> VotedCards:
    """The cards most of ``readings`` (frames of one still table) agree on; see the module's text.

    >>> from vision.reading import CardReading as C, PhotoReading as P
    >>> frame = lambda *cards: P((100, 100), cards, ((), ()))
    >>> ts, tc = C("Ts", 0.9, ((0, 0, 10, 10),)), C("Tc", 0.8, ((1, 0, 11, 10),))
    >>> voted = vote_cards([frame(ts), frame(ts), frame(tc)])
    >>> [(card.card, [reason.text for reason in card.review]) for card in voted.cards]
    [('Ts', ['of 3 frames, 2 read it 10♠; 1 read it 10♣'])]
    """
    frames = len(readings)
    if frames == 0:
        return VotedCards((), (), 0, 0)
    won_by_frame: Counter[int] = Counter()
    by_code: dict[str, CardReading] = {}
    notes: list[str] = []
    for place in _places(readings):
        names = Counter(card.card for card in place.reads.values())
        winner, votes = names.most_common(1)[0]
        seen = len(place.reads)
        if 2 * votes <= frames and 2 * seen <= frames:
            notes.append(
                f"{card_label(winner)} was seen in only {seen} of {frames} frames (a hand passing?) and was left out; "
                "add it on the review page if it is on the table"
            )
            continue
        won = [card for card in place.reads.values() if card.card == winner]
        won_by_frame.update(frame for frame, card in place.reads.items() if card.card == winner)
        shown = max(won, key=lambda card: (len(card.boxes), card.confidence))
        reasons = list(_one_of_each_kind([reason for card in won for reason in card.review]))
        if votes < seen:  # another name in some frame (a frame that did not see it, say a hand over it, is no vote)
            reasons.append(
                Reason(
                    "frames_disagree",
                    f"of {frames} frames, {_how_frames_read(names, frames - seen)}",
                    tuple(names),
                )
            )
        others = tuple(name for name, _ in names.most_common() if name != winner)
        card = replace(
            shown,
            confidence=statistics.fmean(card.confidence for card in won) * votes / seen,
            runner_ups=tuple(dict.fromkeys(others + shown.runner_ups)),
            review=(),
        ).with_review(*reasons)
        if winner in by_code:  # one card read as two at its two corners in some frame: one card again
            earlier = by_code[winner]
            card = replace(
                earlier,
                boxes=earlier.boxes + card.boxes,
                confidence=max(earlier.confidence, card.confidence),
            ).with_review(*card.review)
        by_code[winner] = card
    most_agreeing = max(range(frames), key=lambda frame: (won_by_frame[frame], -frame))
    return VotedCards(tuple(by_code.values()), tuple(notes), frames, most_agreeing)
