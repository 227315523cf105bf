"""Corner boxes → cards: the 2 (or 4) corner indices of one card become one ``CardReading``.

A deck holds each card once, so every box of one code belongs to one card, provided the boxes can
be corners of one card: no two of them further apart than a card's diagonal, nor side by side like
two neighbouring indices of a spread unless they are one index seen twice. Distances are measured in
index boxes: on the real photos of ``real-val`` the two corners of a card lie 3.3 to 5.3 times the
long side of an index box apart (median 4.2), so boxes of one code ``corners.same_card_span`` index
sizes apart can be one card (``models/model.json``'s ``corners`` section holds every number here). The same code anywhere else is a second
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
from vision.model_settings import CornerSettings
from vision.reading import Box, CardReading, PhotoReading, Reason
from vision.steps import ReadingContext


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


def merge_corners(detections: Detections, corners: CornerSettings = CornerSettings()) -> MergedCards:
    """Merge the boxes of each card code into one card; report a code seen where one card cannot be.

    For each code, boxes are grouped (most confident first) so that every two boxes of a group can be
    one card's (``corners.same_card_span``). The most confident group is the card. Each
    other group becomes the likeliest of its boxes' next-best cards that was read nowhere else (a
    deck holds each card once); otherwise it is a conflict, listed in ``conflicts`` and kept in
    ``extra_readings``.
    """
    unit = index_box_size(detections)
    grouped = [_grouped(class_id, same_code, unit, corners) for class_id, same_code in _by_code(detections)]
    # a card surely read at three or more places shows that this deck prints four corner indices
    four_corners = any(
        len(places) >= 3 and min(places) >= corners.unsure_corner for group in grouped for places in group.places
    )
    cards: list[CardReading] = []
    weaker: list[tuple[CardReading, Detections]] = []
    conflicts: list[str] = []
    for group in grouped:
        readings = [
            _group_reading(group, members, places, four_corners, conflicts)
            for members, places in zip(group.groups, group.places, strict=True)
        ]
        order = sorted(range(len(readings)), key=lambda k: -readings[k].confidence)
        cards.append(readings[order[0]])
        weaker += [(readings[k], group.boxes[group.groups[k]]) for k in order[1:]]
    extras = _weaker_readings_placed(cards, weaker, conflicts, corners.min_runner_up_confidence)
    cards, corner_conflicts = pair_opposite_corners(cards, unit, corners)
    conflicts.extend(corner_conflicts)
    cards.sort(key=lambda reading: CARD_CODES.index(reading.card))
    return MergedCards(cards=tuple(cards), conflicts=tuple(conflicts), extra_readings=tuple(extras))


@dataclass(frozen=True)
class _CodeGroups:
    """One code's boxes, grouped into the places one card can be (rows of ``boxes``), and each group's
    distinct places as the surest confidence read at each."""

    class_id: int
    boxes: Detections
    groups: list[list[int]]
    places: list[list[float]]
    corners: CornerSettings


def _by_code(detections: Detections) -> list[tuple[int, Detections]]:
    """The boxes of each card code, codes ascending, each code's boxes in order."""
    by_code = np.argsort(detections.class_id, kind="stable")
    class_ids, starts = np.unique(detections.class_id[by_code], return_index=True)
    rows_of = np.split(by_code, starts[1:]) if len(by_code) else []
    return [(class_id, detections[rows]) for class_id, rows in zip(class_ids.tolist(), rows_of, strict=True)]


def _grouped(class_id: int, same_code: Detections, unit: float, corners: CornerSettings) -> _CodeGroups:
    """One code's boxes grouped (most confident first) so that every two boxes of a group can share a card."""
    if len(same_code) == 1:  # most codes of a photo: one box, one group, one place
        return _CodeGroups(class_id, same_code, [[0]], [same_code.confidence.tolist()], corners)
    order = np.argsort(-same_code.confidence, kind="stable")
    size = max(unit, float(same_code.long_sides.max()))
    low, high = corners.same_card_span
    spans = (corners.same_index_span * size, low * size, high * size)
    groups: list[list[int]] = []
    for i in order:
        for group in groups:
            if all(_can_share_card(same_code.xyxy[i], same_code.xyxy[j], *spans, corners) for j in group):
                group.append(int(i))
                break
        else:
            groups.append([int(i)])
    places = [_places(same_code[group], spans[0], corners.same_index_overlap) for group in groups]
    return _CodeGroups(class_id, same_code, groups, places, corners)


def _group_reading(
    group: _CodeGroups, members: list[int], places: list[float], four_corners: bool, conflicts: list[str]
) -> CardReading:
    """The card one group of a code's boxes reads as; at three or more places, the least sure read unsurely
    (and the deck not one of four corner indices), with the reason ``more_corners``, also added to ``conflicts``."""
    boxes = group.boxes
    # one index seen by two boxes is one piece of evidence: the confidence counts places, not boxes
    reading = CardReading(
        card=CARD_CODES[group.class_id],
        confidence=card_confidence(places),
        boxes=tuple(_box(boxes.xyxy[j]) for j in members),
        runner_ups=_runner_up_codes(
            boxes if len(boxes) == 1 else boxes[members], group.class_id, group.corners.runner_up_floor
        ),
        review=tuple(dict.fromkeys(reason for j in members for reason in boxes.reasons[j])),
    )
    if len(places) >= 3 and min(places) < group.corners.unsure_corner and not four_corners:
        label = card_label(reading.card)
        reason = Reason(
            "more_corners",
            f"{label} is read at {len(places)} places, more corners than a card has ({_place(reading)}): "
            f"a card beside it may be misread as {label}; check the cards around it",
            (reading.card,),
        )
        reading = reading.with_review(reason)
        conflicts.append(reason.text)
    return reading


def _weaker_readings_placed(
    cards: list[CardReading], weaker: list[tuple[CardReading, Detections]], conflicts: list[str], least: float
) -> list[CardReading]:
    """A deck holds each card once: a weaker second reading of a code is most likely a misread of the likeliest
    next-best card of its boxes that was not read anywhere else (at least ``least`` sure); it is added to
    ``cards`` as that card, or else
    said in ``conflicts``, and returned among the extra readings."""
    read_codes = {card.card for card in cards}
    extras = []
    for reading, boxes in sorted(weaker, key=lambda item: -item[0].confidence):
        alternative, alternative_confidence = _best_unread_runner_up(boxes, read_codes)
        if alternative is not None and alternative_confidence >= least:
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
    return extras


# Two single-corner readings that disagree are the two index corners of ONE card when they lie a card's
# diagonal apart, with the offset running along both of the card's sides (not along one row of a spread),
# boxes of about one size, and readings that share the rank or the suit (one corner misread) or name each
# other as next-best (``corners.disagreeing_corner_*``, ``diagonal_share``, ``face_radius``).


def _could_be_opposite_corners(a: CardReading, b: CardReading, unit: float, corners: CornerSettings) -> float | None:
    """How far (in index sizes) two one-box readings lie apart if they can be one card's two corners."""
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.boxes[0], b.boxes[0]
    size_a, size_b = max(ax1 - ax0, ay1 - ay0), max(bx1 - bx0, by1 - by0)
    smallest, largest = corners.disagreeing_corner_sizes
    if not smallest <= size_a / max(size_b, 1e-6) <= largest:
        return None
    size = max(unit, (size_a + size_b) / 2)
    dx = abs((ax0 + ax1) - (bx0 + bx1)) / 2 / size
    dy = abs((ay0 + ay1) - (by0 + by1)) / 2 / size
    distance = float(np.hypot(dx, dy))
    low, high = corners.disagreeing_corner_span
    if not low <= distance <= high:
        return None
    if min(dx, dy) < corners.diagonal_share * distance:  # along one side only: neighbours in a row, not a diagonal
        return None
    related = a.card[0] == b.card[0] or a.card[1] == b.card[1] or b.card in a.runner_ups or a.card in b.runner_ups
    return distance if related else None


def _indices_on_faces(pairs: list[tuple[Box, Box]], centres: np.ndarray, face_radius: float) -> list[bool]:
    """For each pair of boxes ``a``, ``b``: whether another index (of ``centres``) lies on the face they would
    be the corners of (the disc around their midpoint, of ``face_radius`` times their distance): then they are two cards of a fan or a spread, whose
    other cards show their indices there. On real-val's fans every disagreeing pair of the right size and
    direction had other indices there; the two corners of a card lying alone have none.

    >>> centres = np.array([[5.0, 5], [45, 45], [25, 25], [105, 5], [145, 45]])
    >>> _indices_on_faces([((0, 0, 10, 10), (40, 40, 50, 50)), ((100, 0, 110, 10), (140, 40, 150, 50))], centres, 0.75)
    [True, False]
    """
    if not pairs:
        return []
    boxes = np.array(pairs, dtype=np.float64)  # (P, 2, 4)
    start = (boxes[:, 0, :2] + boxes[:, 0, 2:]) / 2
    end = (boxes[:, 1, :2] + boxes[:, 1, 2:]) / 2
    middle, radius = (start + end) / 2, np.hypot(*(end - start).T) * face_radius

    def distance_to(points: np.ndarray) -> np.ndarray:  # (P, C): each pair's point to every centre
        return np.hypot(*(centres[None, :, :] - points[:, None, :]).transpose(2, 0, 1))

    others = (distance_to(start) > 1e-6) & (distance_to(end) > 1e-6)
    return np.any(others & (distance_to(middle) < radius[:, None]), axis=1).tolist()


def _pairs_near_a_diagonal_apart(
    cards: list[CardReading], singles: list[int], unit: float, corners: CornerSettings
) -> list[tuple[int, int]]:
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
    (smallest, largest), (low, high) = corners.disagreeing_corner_sizes, corners.disagreeing_corner_span
    across = offsets.min(axis=2) >= corners.diagonal_share * distance * 0.99  # along both sides, not along one row
    near = (ratio >= smallest * 0.99) & (ratio <= largest * 1.01) & (distance >= low * 0.99) & (distance <= high * 1.01)
    near &= across
    return [(singles[k], singles[m]) for k, m in zip(*np.nonzero(np.triu(near, 1)), strict=True)]


def pair_opposite_corners(
    cards: list[CardReading], unit: float, corners: CornerSettings = CornerSettings()
) -> tuple[list[CardReading], list[str]]:
    """One physical card, one card: two single-corner readings that disagree but sit at one card's two
    index corners become one card with both boxes, the surer reading's code and confidence, and the reason
    ``corners_disagree`` naming both readings, for the user to settle (``_could_be_opposite_corners`` says
    when)."""
    singles = [i for i, card in enumerate(cards) if len(card.boxes) == 1]
    centres = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for card in cards for b in card.boxes]).reshape(-1, 2)
    possible = []
    for i, j in _pairs_near_a_diagonal_apart(cards, singles, unit, corners):
        distance = _could_be_opposite_corners(cards[i], cards[j], unit, corners)
        if distance is not None:
            possible.append((abs(distance - corners.typical_diagonal), i, j))
    pairs = [(cards[i].boxes[0], cards[j].boxes[0]) for _, i, j in possible]
    faces = _indices_on_faces(pairs, centres, corners.face_radius)
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


def _places(boxes: Detections, same_index: float, overlap: float) -> list[float]:
    """The distinct places of one card's boxes (boxes that are not one index seen twice), as the surest
    confidence read at each, surest first."""
    places: list[tuple[np.ndarray, float]] = []
    for box, confidence in sorted(zip(boxes.xyxy, boxes.confidence.tolist(), strict=True), key=lambda item: -item[1]):
        if not any(_one_index(box, other, same_index, overlap) for other, _ in places):
            places.append((box, confidence))
    return [confidence for _, confidence in places]


def _centre_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The distance between two (x0, y0, x1, y1) boxes' centres, in pixels."""
    return float(np.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2))


def _one_index(a: np.ndarray, b: np.ndarray, same_index: float, overlap: float) -> bool:
    """Whether two boxes are one index seen twice (``overlap`` of the smaller inside the larger, or centres
    within ``same_index`` pixels)."""
    return _centre_distance(a, b) <= same_index or box_overlap_of_smaller(a, b)[0, 0] >= overlap


def _can_share_card(
    a: np.ndarray, b: np.ndarray, same_index: float, min_span: float, max_span: float, corners: CornerSettings
) -> bool:
    """Whether two boxes read as one code can belong to one card: one index seen twice (overlapping, or
    centres within ``same_index`` pixels), or two corners ``min_span`` to ``max_span`` pixels apart."""
    return _one_index(a, b, same_index, corners.same_index_overlap) or min_span <= _centre_distance(a, b) <= max_span


def _runner_up_codes(boxes: Detections, own_id: int, floor: float) -> tuple[str, ...]:
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


def merge_corner_boxes(detections: Detections, context: ReadingContext) -> Detections:
    """Step: the reading's cards from its corner boxes (``merge_corners``), with the conflicts it finds."""
    merged = merge_corners(detections, context.settings.corners)
    context.reading = PhotoReading(context.image_size, merged.cards, ((), ()), conflicts=merged.conflicts)
    return detections
