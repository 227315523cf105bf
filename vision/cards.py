"""Corner boxes → cards: the 2 (or 4) corner indices of one card become one ``CardReading``.

A deck holds each card once, so every box of one code belongs to one card, provided the boxes can
be corners of one card: no two of them further apart than a card's diagonal, nor side by side like
two neighbouring indices of a spread unless they are one index seen twice. Distances are measured in
index boxes: on the real photos of ``real-val`` the two corners of a card lie 3.3 to 5.3 times the
long side of an index box apart (median 4.2), so boxes of one code from ``MIN_CORNER_SPAN`` to
``MAX_CORNER_SPAN`` index sizes apart can be one card. The same code anywhere else is a second
deck or a misread (in a squeezed spread, a half-hidden neighbour read as this card): it becomes its
next-best card when that was read nowhere else, or it is reported as a conflict; it is never
silently dropped.

Every step here adds reasons to check a card (``CardReading.review``) and never removes one: a card
carries the reasons of every box it is made of, and merging, pairing and conflicts add their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.cards import CARD_CODES, card_label
from vision.detections import Detections, box_overlap_of_smaller
from vision.reading import Box, CardReading, Reason

# Corners of one card lie at most this many index-box long sides apart (real-val: at most 5.3).
MAX_CORNER_SPAN = 7.0
# ... and at least this many: real-val's at least 3.3, but the synthetic decks' two corners lie 1.8 (big
# indices: openclipart, kde_nicu_white) to 5.7 index sizes apart, and a photo's perspective shortens that.
# Two boxes of one code nearer than this that are not one index seen twice are two indices side by side,
# as in a squeezed spread: one of them is a misread (real-val deal4: a half-hidden K read J beside the J,
# 0.4 index sizes away), never a second corner.
MIN_CORNER_SPAN = 1.0
# Two boxes are one index seen twice (two passes, or NMS leftovers) when this much of the smaller lies
# inside the larger, or their centres are nearer than SAME_INDEX_SPAN index sizes.
SAME_INDEX_OVERLAP = 0.5
SAME_INDEX_SPAN = 0.3
# One card's boxes at three or more places, the least sure read below this: unless another card of the
# photo is read surely at three or more places (a deck printed with four corner indices, such as bonded),
# the card is flagged with a conflict: a neighbour misread as it is likelier than a third corner
# (real-val deal1: a 3h read 8h at 0.43 beside both corners of the real 8h). Splitting that box off
# instead cost 11-44 conflicts on 120 rendered scenes of bonded.
UNSURE_CORNER = 0.5
# A weaker duplicate reading becomes its runner-up card only if that is at least this sure. At 0.05
# a misread 8s became a wrong Ts at 0.09 in tests/vision/test_photo_to_score.py's showdown (now a reported
# conflict). Real-val reads 340 cards from 0.05 to 0.1, 339 from 0.105 (deal4's K♦ comes in as a misread J♦'s
# runner-up at 0.1045: the first card a retrained classifier loses, session 18), 338 at 0.2.
MIN_RUNNER_UP_CONFIDENCE = 0.1


@dataclass(frozen=True)
class MergedCards:
    """The cards read from a set of boxes, and the codes seen where one card cannot be."""

    cards: tuple[CardReading, ...]
    conflicts: tuple[str, ...]
    extra_readings: tuple[CardReading, ...] = ()  # the other places a conflicting code was seen


def card_confidence(box_confidences: list[float] | np.ndarray) -> float:
    """One card's confidence from its corners': the chance that not every corner is wrong.

    Two corners that agree make a card surer than either alone (noisy-or).

    >>> round(card_confidence([0.9]), 3), round(card_confidence([0.9, 0.8]), 3)
    (0.9, 0.98)
    """
    if not len(box_confidences):
        return 0.0
    return 1.0 - math.prod(1.0 - min(max(float(value), 0.0), 1.0) for value in box_confidences)


def index_box_size(detections: Detections) -> float:
    """The typical long side of an index box in this photo (median), the unit of card distances."""
    return float(np.median(detections.long_sides)) if len(detections) else 0.0


def merge_corners(detections: Detections, max_corner_span: float = MAX_CORNER_SPAN) -> MergedCards:
    """Merge the boxes of each card code into one card; report a code seen where one card cannot be.

    For each code, boxes are grouped (most confident first) so that every two boxes of a group are
    within ``max_corner_span`` index sizes of each other. The most confident group is the card. Each
    other group becomes the likeliest of its boxes' next-best cards that was read nowhere else (a
    deck holds each card once); otherwise it is a conflict, listed in ``conflicts`` and kept in
    ``extra_readings``.
    """
    unit = index_box_size(detections)
    cards: list[CardReading] = []
    extras: list[CardReading] = []
    conflicts: list[str] = []
    weaker: list[tuple[CardReading, Detections]] = []
    grouped = []
    by_code = np.argsort(detections.class_id, kind="stable")  # each code's rows in order, codes ascending
    class_ids, starts = np.unique(detections.class_id[by_code], return_index=True)
    for class_id, rows in zip(class_ids.tolist(), np.split(by_code, starts[1:]) if len(by_code) else [], strict=True):
        same_code = detections[rows]
        if len(rows) == 1:  # most codes of a photo: one box, one group, one place
            grouped.append((class_id, same_code, [[0]], [same_code.confidence.tolist()]))
            continue
        order = np.argsort(-same_code.confidence, kind="stable")
        size = max(unit, float(same_code.long_sides.max()))
        spans = (SAME_INDEX_SPAN * size, MIN_CORNER_SPAN * size, max_corner_span * size)
        groups: list[list[int]] = []
        for i in order:
            for group in groups:
                if all(_can_share_card(same_code.xyxy[i], same_code.xyxy[j], *spans) for j in group):
                    group.append(int(i))
                    break
            else:
                groups.append([int(i)])
        grouped.append((class_id, same_code, groups, [_places(same_code[group], spans[0]) for group in groups]))
    # a card surely read at three or more places shows that this deck prints four corner indices
    four_corners = any(
        len(places) >= 3 and min(places) >= UNSURE_CORNER
        for *_, places_of_groups in grouped
        for places in places_of_groups
    )
    for class_id, same_code, groups, places_of_groups in grouped:
        readings = []
        for group, places in zip(groups, places_of_groups, strict=True):
            # one index seen by two boxes is one piece of evidence: the confidence counts places, not boxes
            reading = CardReading(
                card=CARD_CODES[class_id],
                confidence=card_confidence(places),
                boxes=tuple(_box(same_code.xyxy[j]) for j in group),
                runner_ups=_runner_up_codes(same_code if len(same_code) == 1 else same_code[group], class_id),
                review=tuple(dict.fromkeys(reason for j in group for reason in same_code.reasons[j])),
            )
            if len(places) >= 3 and min(places) < UNSURE_CORNER and not four_corners:
                label = card_label(reading.card)
                reason = Reason(
                    "more_corners",
                    f"{label} is read at {len(places)} places, more corners than a card has ({_place(reading)}): "
                    f"a card beside it may be misread as {label}; check the cards around it",
                    (reading.card,),
                )
                reading = reading.with_review(reason)
                conflicts.append(reason.text)
            readings.append(reading)
        order_of = {id(reading): group for reading, group in zip(readings, groups, strict=True)}
        readings.sort(key=lambda reading: -reading.confidence)
        cards.append(readings[0])
        for reading in readings[1:]:
            weaker.append((reading, same_code[order_of[id(reading)]]))
    # A deck holds each card once: a weaker second reading of a code is most likely a misread of
    # the likeliest next-best card of its boxes that was not read anywhere else.
    read_codes = {card.card for card in cards}
    for reading, boxes in sorted(weaker, key=lambda item: -item[0].confidence):
        alternative, alternative_confidence = _best_unread_runner_up(boxes, read_codes)
        if alternative is not None and alternative_confidence >= MIN_RUNNER_UP_CONFIDENCE:
            cards.append(
                CardReading(
                    card=alternative, confidence=alternative_confidence, boxes=reading.boxes, review=reading.review
                )
            )
            read_codes.add(alternative)
            continue
        extras.append(reading)
        # Said as a conflict of the photo, not as a reason on the card kept: on rendered held-out scenes the
        # card kept was right as often as any other (1.35 % of right cards carried it, 1.5 % of wrong ones).
        # What it tells is that a card there may be misread and left out: the conflict says where.
        same = [card for card in cards if card.card == reading.card] + [reading]
        seen_at = ", ".join(_place(r) for r in same)
        conflicts.append(
            f"{card_label(reading.card)} seen in {len(same)} places that cannot be one card ({seen_at}): a second "
            f"deck, or a card there misread as {card_label(reading.card)} and left out; check the cards there"
        )
    cards, corner_conflicts = pair_opposite_corners(cards, unit)
    conflicts.extend(corner_conflicts)
    cards.sort(key=lambda reading: CARD_CODES.index(reading.card))
    return MergedCards(cards=tuple(cards), conflicts=tuple(conflicts), extra_readings=tuple(extras))


# Two single-corner readings are the two index corners of ONE card when they lie a card's diagonal
# apart: on real-val's photos 3.3 to 5.3 index sizes (median 4.2), with the offset running along both
# of the card's sides (not along one row of a spread), boxes of about one size, and readings that
# share the rank or the suit (one corner misread) or name each other as next-best.
OPPOSITE_CORNER_SPAN = (3.0, 6.0)
# ... and their boxes are of about one size: the larger at most 1.5 times the smaller.
OPPOSITE_CORNER_SIZE_RATIO = (0.67, 1.5)
# No other index may lie within this fraction of the corners' distance from their midpoint.
FACE_RADIUS = 0.75


def _could_be_opposite_corners(a: CardReading, b: CardReading, unit: float) -> float | None:
    """How far (in index sizes) two one-box readings lie apart if they can be one card's two corners."""
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.boxes[0], b.boxes[0]
    size_a, size_b = max(ax1 - ax0, ay1 - ay0), max(bx1 - bx0, by1 - by0)
    if not OPPOSITE_CORNER_SIZE_RATIO[0] <= size_a / max(size_b, 1e-6) <= OPPOSITE_CORNER_SIZE_RATIO[1]:
        return None
    size = max(unit, (size_a + size_b) / 2)
    dx = abs((ax0 + ax1) - (bx0 + bx1)) / 2 / size
    dy = abs((ay0 + ay1) - (by0 + by1)) / 2 / size
    distance = float(np.hypot(dx, dy))
    if not OPPOSITE_CORNER_SPAN[0] <= distance <= OPPOSITE_CORNER_SPAN[1]:
        return None
    if min(dx, dy) < 0.35 * distance:  # along one side only: neighbours in a row, not a card's diagonal
        return None
    related = a.card[0] == b.card[0] or a.card[1] == b.card[1] or b.card in a.runner_ups or a.card in b.runner_ups
    return distance if related else None


def _indices_on_faces(pairs: list[tuple[Box, Box]], centres: np.ndarray) -> list[bool]:
    """For each pair of boxes ``a``, ``b``: whether another index (of ``centres``) lies on the face they would
    be the corners of (the disc around their midpoint): then they are two cards of a fan or a spread, whose
    other cards show their indices there. On real-val's fans every disagreeing pair of the right size and
    direction had other indices there; the two corners of a card lying alone have none.

    >>> centres = np.array([[5.0, 5], [45, 45], [25, 25], [105, 5], [145, 45]])
    >>> _indices_on_faces([((0, 0, 10, 10), (40, 40, 50, 50)), ((100, 0, 110, 10), (140, 40, 150, 50))], centres)
    [True, False]
    """
    if not pairs:
        return []
    boxes = np.array(pairs, dtype=np.float64)  # (P, 2, 4)
    start = (boxes[:, 0, :2] + boxes[:, 0, 2:]) / 2
    end = (boxes[:, 1, :2] + boxes[:, 1, 2:]) / 2
    middle, radius = (start + end) / 2, np.hypot(*(end - start).T) * FACE_RADIUS

    def distance_to(points: np.ndarray) -> np.ndarray:  # (P, C): each pair's point to every centre
        return np.hypot(*(centres[None, :, :] - points[:, None, :]).transpose(2, 0, 1))

    others = (distance_to(start) > 1e-6) & (distance_to(end) > 1e-6)
    return np.any(others & (distance_to(middle) < radius[:, None]), axis=1).tolist()


def _pairs_near_a_diagonal_apart(cards: list[CardReading], singles: list[int], unit: float) -> list[tuple[int, int]]:
    """The pairs (i < j) of one-box cards whose box sizes and distance could make them one card's corners
    (``_could_be_opposite_corners``'s first three tests, for all pairs at once, with a little margin): that
    function, which decides, then looks only at these instead of at every pair of a frame's 50 boxes."""
    if len(singles) < 2:
        return []
    boxes = np.array([cards[i].boxes[0] for i in singles], dtype=np.float64)
    sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    ratio = sizes[:, None] / np.maximum(sizes[None, :], 1e-6)
    size = np.maximum(unit, (sizes[:, None] + sizes[None, :]) / 2)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    offsets = np.abs(centres[:, None, :] - centres[None, :, :]) / size[:, :, None]  # (N, N, 2): dx, dy
    distance = np.hypot(offsets[..., 0], offsets[..., 1])
    (smallest, largest), (low, high) = OPPOSITE_CORNER_SIZE_RATIO, OPPOSITE_CORNER_SPAN
    across = offsets.min(axis=2) >= 0.35 * distance * 0.99  # along both sides, not along one row
    near = (ratio >= smallest * 0.99) & (ratio <= largest * 1.01) & (distance >= low * 0.99) & (distance <= high * 1.01)
    near &= across
    return [(singles[k], singles[m]) for k, m in zip(*np.nonzero(np.triu(near, 1)), strict=True)]


def pair_opposite_corners(cards: list[CardReading], unit: float) -> tuple[list[CardReading], list[str]]:
    """One physical card, one card: two single-corner readings that disagree but sit at one card's two
    index corners become one card with both boxes, the surer reading's code and confidence, and the reason
    ``corners_disagree`` naming both readings, for the user to settle (``_could_be_opposite_corners`` says
    when)."""
    singles = [i for i, card in enumerate(cards) if len(card.boxes) == 1]
    centres = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for card in cards for b in card.boxes]).reshape(-1, 2)
    possible = []
    for i, j in _pairs_near_a_diagonal_apart(cards, singles, unit):
        distance = _could_be_opposite_corners(cards[i], cards[j], unit)
        if distance is not None:
            possible.append((abs(distance - 4.2), i, j))
    faces = _indices_on_faces([(cards[i].boxes[0], cards[j].boxes[0]) for _, i, j in possible], centres)
    candidates = [candidate for candidate, on_face in zip(possible, faces, strict=True) if not on_face]
    used: set[int] = set()
    merged: dict[int, CardReading] = {}
    conflicts = []
    for _, i, j in sorted(candidates):
        if i in used or j in used:
            continue
        used.update((i, j))
        surer, other = (cards[i], cards[j]) if cards[i].confidence >= cards[j].confidence else (cards[j], cards[i])
        reason = Reason(
            "corners_disagree",
            f"its two corners read {card_label(surer.card)} and {card_label(other.card)} ({_place(surer)}); "
            "check this card",
            (surer.card, other.card),
        )
        merged[i] = CardReading(
            card=surer.card,
            confidence=surer.confidence,
            boxes=surer.boxes + other.boxes,
            runner_ups=(other.card,),
            review=tuple(dict.fromkeys(surer.review + other.review)),
        ).with_review(reason)
        conflicts.append(reason.text)
    return [merged.get(i, card) for i, card in enumerate(cards) if i not in used or i in merged], conflicts


def _places(boxes: Detections, same_index: float) -> list[float]:
    """The distinct places of one card's boxes (boxes that are not one index seen twice), as the surest
    confidence read at each, surest first."""
    places: list[tuple[np.ndarray, float]] = []
    for box, confidence in sorted(zip(boxes.xyxy, boxes.confidence.tolist(), strict=True), key=lambda item: -item[1]):
        if not any(_one_index(box, other, same_index) for other, _ in places):
            places.append((box, confidence))
    return [confidence for _, confidence in places]


def _centre_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The distance between two (x0, y0, x1, y1) boxes' centres, in pixels."""
    return float(np.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2))


def _one_index(a: np.ndarray, b: np.ndarray, same_index: float) -> bool:
    """Whether two boxes are one index seen twice (overlapping, or centres within ``same_index`` pixels)."""
    return _centre_distance(a, b) <= same_index or box_overlap_of_smaller(a, b)[0, 0] >= SAME_INDEX_OVERLAP


def _can_share_card(a: np.ndarray, b: np.ndarray, same_index: float, min_span: float, max_span: float) -> bool:
    """Whether two boxes read as one code can belong to one card: one index seen twice (overlapping, or
    centres within ``same_index`` pixels), or two corners ``min_span`` to ``max_span`` pixels apart."""
    return _one_index(a, b, same_index) or min_span <= _centre_distance(a, b) <= max_span


def _runner_up_codes(boxes: Detections, own_id: int, floor: float = 0.05) -> tuple[str, ...]:
    """The other cards the boxes could show with at least ``floor`` confidence, likeliest first."""
    best: dict[int, float] = {}
    runner_up_id, runner_up_confidence = boxes.runner_ups
    for card_id, confidence in zip(runner_up_id.ravel().tolist(), runner_up_confidence.ravel().tolist(), strict=True):
        if card_id != own_id and confidence >= floor:
            best[card_id] = max(best.get(card_id, 0.0), confidence)
    return tuple(CARD_CODES[i] for i in sorted(best, key=lambda i: -best[i]))


def _best_unread_runner_up(boxes: Detections, read_codes: set[str]) -> tuple[str | None, float]:
    """Among the boxes' next-best cards not read anywhere, the likeliest and its confidence."""
    best_code, best_confidence = None, 0.0
    runner_up_id, runner_up_confidence = boxes.runner_ups
    for card_id in set(runner_up_id.ravel().tolist()):
        code = CARD_CODES[card_id]
        if code in read_codes:
            continue
        confidence = card_confidence(runner_up_confidence[runner_up_id == card_id])
        if confidence > best_confidence:
            best_code, best_confidence = code, confidence
    return best_code, best_confidence


def card_center(card: CardReading) -> tuple[float, float]:
    """The centre of a card's corner boxes (the card's middle when both corners show)."""
    boxes = np.asarray(card.boxes, dtype=np.float64)
    return float((boxes[:, 0] + boxes[:, 2]).mean() / 2), float((boxes[:, 1] + boxes[:, 3]).mean() / 2)


def _box(row: np.ndarray) -> Box:
    return tuple(round(float(v), 1) for v in row)  # type: ignore[return-value]


def _place(reading: CardReading) -> str:
    x, y = card_center(reading)
    return f"at x={x:.0f} y={y:.0f} conf {reading.confidence:.2f}"
