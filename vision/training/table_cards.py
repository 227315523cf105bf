"""Finding the cards in a photo for ``ginscore deck add``: where each card lies, straightened to a face.

A photo is either one already straightened face, or cards lying apart on a table (one card or rows of
them; 1 to 3 cm apart is best, touching works). On a table the reader places the cards:

1. The detector finds the corner indices (photo mode). A card prints its index at its top-left and,
   turned half a turn, its bottom-right corner (some decks at all four corners), so two boxes a card's
   diagonal apart give the card's middle (exactly halfway between them), its size and its angle
   (``predict_from_corners``). Boxes of one code are paired first; the corners left over are paired by
   place, and a corner left alone is completed from the other cards' size and angle.
2. The outline refines each card where it shows: along each side of the predicted card, the colour
   steps from the card's paper to the table near the predicted border (``refine_outline``; a straight
   line through the steps of many scan lines). Where the table is too like the paper (white cards on
   light wood), the side stays where the indices put it, so low contrast loses no card.
3. The cards' own shape (width to height, where the index lies from the corner), measured on the
   cards whose outline showed all round, re-predicts the others.

Cards that overlap, that are cut off by the photo's edge, or corners that belong to no card are
reported in words (``PhotoCards.notes``) and left out; the clear cards are kept. Without a detector
(``detector=None``) or where it finds no index, the outlines alone are used: bright paper against the
table, an Otsu mask and an edge map, card-shaped four-sided contours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.cards import CARD_CODES
from vision.crop_reading import read_boxes
from vision.decode import decode_image
from vision.detections import Detections, box_overlap_of_smaller, surest_of_overlapping
from vision.model_settings import CornerSettings
from vision.reading import ImageError
from vision.recognise import detect
from vision.training.face_indices import read_face_indices

Box = tuple[float, float, float, float]

FACE_HEIGHT = 340  # px, like the card art's faces (datasets/build_assets.py CARD_HEIGHT)
CARD_RATIO = 63 / 88  # width / height of a poker card
RATIO_RANGE = (0.5, 0.9)  # short / long side of what may be a card (a face photo, an outline)
MIN_CARD_AREA = 0.004  # of the photo: smaller outlines are not cards
FACE_FILL = 0.6  # a card-shaped photo whose largest outline covers more is one face
FACE_DETAIL = 0.02  # ... or whose outlines are all smaller and in its corners (index glyphs)
DETECT_SIDE = 1200  # outlines are searched at this long side
WORK_SIDE = 1600  # outlines are refined at this long side (a card about 200 px high)
MAX_PHOTO_SIDE = 4096  # photos are decoded at most this big (a phone's 4032 x 3024 stays whole)
# a photo at most this big whose outline says it is one face is taken as one without the reader (a crop);
# a bigger one is read first: on a camera's photo the outline finder may take a light table for one card
SMALL_PHOTO = 1200

# the corner index's place on the card, in card heights, before the photo's own cards are measured: the
# library's decks put the outer corner of the index 0 to 0.05 from the card's edges (median 0.03 / 0.025)
DEFAULT_ASPECT = 0.70  # card width / height (poker 0.716, bridge 0.64; the library's faces 0.60 to 0.75)
DEFAULT_MARGIN = (0.025, 0.03)  # (across, along) the card
# two index boxes are the corners an outline is predicted from when they lie this many index sizes apart
# (wider than the reader's spans: vision/model_settings.py's corners section), and are of like sizes
OUTLINE_CORNER_SPAN = (1.5, 8.0)
LIKE_SIZES = (0.67, 1.5)  # the ratio of two index boxes' sizes, low and high
INDEX_HEIGHTS = (2.0, 7.5)  # a card is this many index sizes high (library decks: 2.6 to 5.6)

# refining an outline: the card is looked at REFINE_HEIGHT px high, each side searched SEARCH of the card
# height either way of where the indices put it, along SCANLINES scan lines
REFINE_HEIGHT = 200
REFINE_MARGIN = 0.2
SEARCH = 0.09
SCANLINES = 24
STEP = 5  # px either side of an edge the colours are averaged over
MIN_STEP = 0.5  # a scan line's colour step, as a share of the paper-to-table difference
MIN_COLOUR_DIFFERENCE = 3.0  # Lab units between paper and table under which a side shows no edge
SURE_SIDES = 3  # sides found for a card's outline to count as seen (it then teaches the photo's shape)
OVERLAP = 0.1  # of the smaller card: two outlines overlapping more are cards lying on each other (touching: < 0.05)
CUT_OFF = 0.03  # of a card's area outside the photo: it is cut off by the photo's edge
STRAY_CONFIDENCE = 0.4  # another index on a card read at least this surely: the cards overlap


# ------------------------------------------------------------------ what a photo gives

LAY_THEM_OUT = (
    "lay the cards face up and apart on the table and photograph them from above, or give already "
    "straightened faces (--faces)"
)


@dataclass(frozen=True, eq=False)
class FoundCard:
    """One straightened card: its face (BGR, upright portrait), where it came from, what the photo said of it.

    ``reading``: the card probabilities the detector gave its corner indices in the photo (code ->
    probability, the likeliest few; empty where no index of it was read); ``outline``: how its outline
    was found (``"edges"``: the card's edges on at least three sides, ``"indices"``: placed by its corner
    indices, ``"outline"``: by its outline alone; ``""`` for a photo that is one face); ``notes``: why
    its name should be checked."""

    face: np.ndarray
    photo: str
    number: int  # 1-based, in reading order within its photo
    quad: np.ndarray | None = None  # the outline in the photo (None: the photo was the face)
    reading: dict[str, float] = field(default_factory=dict)
    outline: str = ""
    notes: tuple[str, ...] = ()
    index_boxes: tuple[Box, ...] = ()  # the reader's corner-index boxes of it in the photo, on the face (face pixels)
    # the reader's boxes on the straightened face itself, by corner (tl, tr, bl, br; face pixels):
    # every index it prints (vision.training.face_indices)
    corner_indices: dict[str, Box] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{Path(self.photo).name} card {self.number}" if self.quad is not None else Path(self.photo).name


@dataclass(frozen=True, eq=False)
class PhotoCards:
    """The cards of one photo and what to tell the user about it (overlaps, cut-off cards, ...)."""

    cards: list[FoundCard]
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ straightening


def _order_quad(points: np.ndarray) -> np.ndarray:
    """Four points as top-left, top-right, bottom-right, bottom-left of an upright (portrait) card."""
    points = np.asarray(points, dtype=np.float32).reshape(4, 2)
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise in image coordinates, starting anywhere
    start = int(np.argmin(ordered.sum(axis=1)))  # the top-left-most point
    ordered = np.roll(ordered, -start, axis=0)
    top = np.linalg.norm(ordered[1] - ordered[0])
    side = np.linalg.norm(ordered[3] - ordered[0])
    if top > side:  # lying sideways: make it portrait
        ordered = np.roll(ordered, -1, axis=0)
    return ordered


def straightening(quad: np.ndarray, height: int = FACE_HEIGHT) -> tuple[np.ndarray, tuple[int, int]]:
    """The homography from photo pixels to the upright face of the card inside ``quad``, and the face's
    (width, height): ``height`` px high, of the card's own proportions."""
    import cv2

    tl, tr, br, bl = _order_quad(quad)
    width_px = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    height_px = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    ratio = float(np.clip(width_px / max(float(height_px), 1.0), *RATIO_RANGE))
    width = int(round(height * ratio))
    target = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], dtype=np.float32)
    return cv2.getPerspectiveTransform(np.array([tl, tr, br, bl], dtype=np.float32), target), (width, height)


def straighten(pixels: np.ndarray, quad: np.ndarray, height: int = FACE_HEIGHT) -> np.ndarray:
    """The card inside ``quad`` warped to an upright face ``height`` px high (its own proportions)."""
    import cv2

    matrix, size = straightening(quad, height)
    return cv2.warpPerspective(pixels, matrix, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def boxes_on_face(boxes: np.ndarray, matrix: np.ndarray, size: tuple[int, int]) -> tuple[Box, ...]:
    """Photo boxes (N x 4) as upright boxes on the straightened face (``straightening``'s matrix and size)."""
    found = []
    for x0, y0, x1, y1 in np.asarray(boxes, dtype=np.float64).reshape(-1, 4):
        corners = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]]) @ matrix.T
        points = corners[:, :2] / corners[:, 2:3]
        (fx0, fy0), (fx1, fy1) = np.clip(points.min(axis=0), 0, size), np.clip(points.max(axis=0), 0, size)
        found.append((round(float(fx0), 1), round(float(fy0), 1), round(float(fx1), 1), round(float(fy1), 1)))
    return tuple(found)


# ------------------------------------------------------------------ outlines alone


def _card_quads(mask: np.ndarray, min_area: float) -> list[tuple[np.ndarray, float]]:
    """Card-shaped four-sided outlines of a binary mask: (quad, area)."""
    import cv2

    height, width = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area or area > 0.97 * width * height:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
        if min(rw, rh) < 1 or not RATIO_RANGE[0] <= min(rw, rh) / max(rw, rh) <= RATIO_RANGE[1]:
            continue
        if area / (rw * rh) < 0.85:  # not a filled rectangle (rounded corners lose ~2 %)
            continue
        hull = cv2.convexHull(contour)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        quad = approx.reshape(-1, 2) if len(approx) == 4 else cv2.boxPoints(((cx, cy), (rw, rh), angle))
        found.append((np.asarray(quad, dtype=np.float32), float(area)))
    return found


def _inside(point: np.ndarray, quad: np.ndarray) -> bool:
    import cv2

    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2).astype(np.float32), tuple(float(v) for v in point), False) >= 0


def reading_order(quads: list[np.ndarray]) -> list[int]:
    """The order cards are numbered in: rows (by centre y, a row being within half a card's height), then x."""
    if not quads:
        return []
    card_height = float(np.median([max(np.ptp(q[:, 0]), np.ptp(q[:, 1])) for q in quads]))
    centres = [q.mean(axis=0) for q in quads]
    order = sorted(range(len(quads)), key=lambda i: (centres[i][1], centres[i][0]))
    rows: list[list[int]] = []
    for i in order:
        if rows and abs(centres[i][1] - np.mean([centres[j][1] for j in rows[-1]])) < card_height / 2:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda k: centres[k][0])]


def find_card_outlines(pixels: np.ndarray) -> list[np.ndarray]:
    """The outlines (4 x 2 points, photo pixels) of the cards lying apart in a photo, in reading order,
    from the outlines alone (no reader): bright paper on a darker table."""
    import cv2

    scale = min(1.0, DETECT_SIDE / max(pixels.shape[:2]))
    small = cv2.resize(pixels, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else pixels
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    height, width = gray.shape
    min_area = MIN_CARD_AREA * width * height
    kernel = np.ones((5, 5), np.uint8)
    _, bright = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(cv2.morphologyEx(bright, cv2.MORPH_OPEN, kernel), cv2.MORPH_CLOSE, kernel)
    edges = cv2.dilate(cv2.Canny(gray, 40, 120), np.ones((3, 3), np.uint8), iterations=2)
    filled = np.zeros_like(edges)
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 255, thickness=cv2.FILLED)
    filled = cv2.erode(filled, np.ones((3, 3), np.uint8), iterations=2)  # undo the dilation
    hsv = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2HSV)
    paper: np.ndarray = ((hsv[..., 1] < 60) & (hsv[..., 2] > 150)).astype(np.uint8) * 255  # white card stock
    paper = cv2.morphologyEx(cv2.morphologyEx(paper, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel)
    candidates = _card_quads(bright, min_area) + _card_quads(filled, min_area) + _card_quads(paper, min_area)
    centres = [quad.mean(axis=0) for quad, _ in candidates]
    # an outline around two or more others is a region of the table (a cloth, a tray), not a card
    candidates = [
        (quad, area)
        for quad, area in candidates
        if sum(_inside(c, quad) and a < 0.5 * area for c, (_, a) in zip(centres, candidates, strict=True)) < 2
    ]
    kept: list[tuple[np.ndarray, float]] = []
    for quad, area in sorted(candidates, key=lambda item: -item[1]):
        if any(_inside(quad.mean(axis=0), other) for other, _ in kept):
            continue  # the same card seen twice, or a glyph on a card
        kept.append((quad, area))
    quads = [quad / scale for quad, _ in kept]
    return [quads[i] for i in reading_order(quads)]


def is_single_face(pixels: np.ndarray, outlines: list[np.ndarray], boxes: np.ndarray | None = None) -> bool:
    """Whether a photo is itself one straightened face: card-shaped, and no smaller card in it.

    ``boxes``: the reader's corner-index boxes (N x 4), when it read the photo: a face shows its indices
    large and in its corners only; a table shows them small, or anywhere."""
    import cv2

    height, width = pixels.shape[:2]
    if not RATIO_RANGE[0] <= min(height, width) / max(height, width) <= RATIO_RANGE[1]:
        return False
    if boxes is not None and len(boxes):
        boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        in_corners = (np.minimum(centres[:, 0], width - centres[:, 0]) < 0.3 * width) & (
            np.minimum(centres[:, 1], height - centres[:, 1]) < 0.3 * height
        )
        long_sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        return bool(in_corners.all()) and float(np.median(long_sides)) >= 0.08 * max(height, width)
    if not outlines:
        return True
    areas = [cv2.contourArea(q.reshape(-1, 1, 2)) for q in outlines]
    if max(areas) > FACE_FILL * width * height:
        return True
    centres = np.array([q.mean(axis=0) for q in outlines])
    in_corners = (np.minimum(centres[:, 0], width - centres[:, 0]) < 0.25 * width) & (
        np.minimum(centres[:, 1], height - centres[:, 1]) < 0.2 * height
    )
    return bool(in_corners.all()) and max(areas) < FACE_DETAIL * width * height


# ------------------------------------------------------------------ a card from its corner indices


@dataclass(frozen=True)
class CardShape:
    """How a deck's cards look, in card heights: width, and where a corner index's outer corner lies from
    the card's corner (across and along the card). Measured on a photo's clearly outlined cards."""

    aspect: float = DEFAULT_ASPECT
    margin_x: float = DEFAULT_MARGIN[0]
    margin_y: float = DEFAULT_MARGIN[1]


@dataclass(frozen=True)
class PlacedCard:
    """A card placed in a photo: its middle, angle (degrees, its height's direction from the image's y
    axis, counter-clockwise as the image shows it), size (photo pixels), the boxes it was placed by."""

    centre: tuple[float, float]
    angle: float
    width: float
    height: float
    boxes: tuple[int, ...] = ()  # rows of the photo's Detections
    how: str = "indices"
    quad: np.ndarray | None = None  # the refined outline (None: the predicted one)
    sides: int = 0  # sides of the outline seen

    def predicted_quad(self) -> np.ndarray:
        """The rectangle of the prediction: top-left, top-right, bottom-right, bottom-left (card frame)."""
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * [self.width / 2, self.height / 2]
        turn = np.array([[c, -s], [s, c]])
        return np.asarray(self.centre) + half @ turn.T

    @property
    def outline(self) -> np.ndarray:
        return self.quad if self.quad is not None else self.predicted_quad()


def _normal_angle(angle: float) -> float:
    """An angle in degrees turned by half turns into (-90, 90]: a card and the card turned upside down
    have one outline."""
    angle = (angle + 90.0) % 180.0 - 90.0
    return 90.0 if angle == -90.0 else angle


def _index_size(box: np.ndarray, angle: float) -> tuple[float, float]:
    """The index's width and height along the card, from its upright box in the image at ``angle``."""
    bw, bh = float(box[2] - box[0]), float(box[3] - box[1])
    c, s = abs(math.cos(math.radians(angle))), abs(math.sin(math.radians(angle)))
    determinant = c * c - s * s
    if abs(determinant) < 0.35:  # near 45 degrees the two sides cannot be told apart: a usual index shape
        w = bw / (c + 1.7 * s)
        return w, 1.7 * w
    w = (bw * c - bh * s) / determinant
    h = (bh * c - bw * s) / determinant
    return max(w, 0.3 * min(bw, bh)), max(h, 0.3 * min(bw, bh))


def predict_from_corners(
    box_a: np.ndarray, box_b: np.ndarray, shape: CardShape = CardShape(), mirrored: bool = False
) -> PlacedCard | None:
    """The card whose two opposite corner indices are ``box_a`` and ``box_b`` (x0 y0 x1 y1, photo pixels):
    top-left and bottom-right (``mirrored``: top-right and bottom-left, as four-index decks also print).
    None when the boxes cannot be one card's corners (too near, too far, or of unlike sizes).

    >>> card = predict_from_corners(np.array([6, 8, 26, 48]), np.array([149, 202, 169, 242]))
    >>> [round(v) for v in (*card.centre, card.angle, card.width, card.height)]
    [88, 125, 0, 175, 249]
    """
    a, b = np.asarray(box_a, dtype=np.float64), np.asarray(box_b, dtype=np.float64)
    side_a, side_b = max(a[2] - a[0], a[3] - a[1]), max(b[2] - b[0], b[3] - b[1])
    if not LIKE_SIZES[0] <= side_a / max(side_b, 1e-6) <= LIKE_SIZES[1]:
        return None
    size = (side_a + side_b) / 2
    d = (b[:2] + b[2:]) / 2 - (a[:2] + a[2:]) / 2
    distance = float(np.hypot(*d))
    if not OUTLINE_CORNER_SPAN[0] * size <= distance <= OUTLINE_CORNER_SPAN[1] * size:
        return None
    across, along = shape.aspect - 2 * shape.margin_x, 1.0 - 2 * shape.margin_y
    angle, height = 0.0, 0.0
    for _ in range(3):
        sizes = np.array([_index_size(a, angle), _index_size(b, angle)]).mean(axis=0)
        w, h = float(sizes[0]), float(sizes[1])
        # |d| = |(across * H - w, along * H - h)|: the larger root of a quadratic in H
        qa, qb, qc = across**2 + along**2, -2 * (across * w + along * h), w * w + h * h - distance**2
        root = qb * qb - 4 * qa * qc
        if root < 0:
            return None
        height = (-qb + math.sqrt(root)) / (2 * qa)
        dx, dy = across * height - w, along * height - h
        if dx <= 0 or dy <= 0:
            return None
        if mirrored:
            dx = -dx
        angle = _normal_angle(math.degrees(math.atan2(d[1], d[0]) - math.atan2(dy, dx)))
    if not INDEX_HEIGHTS[0] * size <= height <= INDEX_HEIGHTS[1] * size:
        return None
    centre = (a[:2] + a[2:] + b[:2] + b[2:]) / 4
    return PlacedCard((float(centre[0]), float(centre[1])), angle, shape.aspect * height, height)


def _fits_box_shape(card: PlacedCard, boxes: np.ndarray) -> bool:
    """Whether the card's angle agrees with its index boxes' shape: an index is taller than wide along its
    card, so tall boxes belong to a card standing up, wide ones to a card lying sideways."""
    widths, heights = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    tallness = float(np.mean(heights / np.maximum(widths, 1e-6)))
    if tallness >= 1.2:
        return abs(card.angle) <= 50
    if tallness <= 1 / 1.2:
        return abs(card.angle) >= 40
    return True


def predict_from_one_corner(box: np.ndarray, height: float, angle: float, shape: CardShape, corner: int) -> PlacedCard:
    """The card of ``height`` at ``angle`` one of whose corner indices is ``box``: ``corner`` 0 to 3 says
    which (top-left, bottom-right, top-right, bottom-left of the card)."""
    w, h = _index_size(box, angle)
    dx = (shape.aspect - 2 * shape.margin_x) * height - w
    dy = (1.0 - 2 * shape.margin_y) * height - h
    sign_x, sign_y = ((1, 1), (-1, -1), (-1, 1), (1, -1))[corner]
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    offset = np.array([sign_x * dx / 2, sign_y * dy / 2])
    centre = (np.asarray(box[:2]) + np.asarray(box[2:])) / 2 + np.array([[c, -s], [s, c]]) @ offset
    return PlacedCard((float(centre[0]), float(centre[1])), angle, shape.aspect * height, height)


# ------------------------------------------------------------------ refining the outline


@dataclass(frozen=True)
class Refinement:
    quad: np.ndarray  # top-left, top-right, bottom-right, bottom-left of the card frame, photo pixels
    sides: int  # sides whose edge was seen
    moved: float  # how far the outline moved, in card heights (largest corner)


def _side_profiles(lab: np.ndarray, side: str, margin: int, width: int, height: int, reach: int) -> np.ndarray:
    """(SCANLINES, 2 * reach + 1, 3) colours along scan lines across one side of the card in its frame,
    from ``reach`` px inside (index 0) to ``reach`` px outside (last index)."""
    offsets = np.arange(-reach, reach + 1)
    if side in ("left", "right"):
        along = np.linspace(margin + 0.12 * height, margin + 0.88 * height, SCANLINES).round().astype(int)
        x = (margin - offsets) if side == "left" else (margin + width + offsets)
        return lab[along[:, None], x[None, :]]
    along = np.linspace(margin + 0.12 * width, margin + 0.88 * width, SCANLINES).round().astype(int)
    y = (margin - offsets) if side == "top" else (margin + height + offsets)
    return lab[y[None, :], along[:, None]]


def _fit_side(profiles: np.ndarray, search: int, along: np.ndarray) -> tuple[float, float] | None:
    """The edge across one side as offset = a + b * position (px outward from the predicted side), or None.

    Each scan line's edge is where its colour steps most from paper to table (projected on the paper's and
    the table's colours there); a straight line through most of them, found by trying every pair."""
    reach = (profiles.shape[1] - 1) // 2
    inner = profiles[:, : reach - search // 2].reshape(-1, 3)
    outer = profiles[:, reach + search // 2 :].reshape(-1, 3)
    paper, table = np.median(inner, axis=0), np.median(outer, axis=0)
    difference = paper - table
    contrast = float(np.linalg.norm(difference))
    if contrast < MIN_COLOUR_DIFFERENCE:
        return None
    f = ((profiles - table) @ difference) / contrast**2  # 1 on the paper, 0 on the table
    sums = np.concatenate([np.zeros((len(f), 1)), np.cumsum(f, axis=1)], axis=1)
    positions = np.arange(reach - search, reach + search + 1)
    inside = (sums[:, positions] - sums[:, positions - STEP]) / STEP
    outside = (sums[:, positions + STEP + 1] - sums[:, positions + 1]) / STEP
    step = inside - outside
    best = np.argmax(step, axis=1)
    rows = np.arange(len(f))
    strength = step[rows, best]
    valid = (strength >= MIN_STEP) & (inside[rows, best] >= 0.55) & (outside[rows, best] <= 0.45)
    offsets = (positions[best] - reach).astype(np.float64)
    # a little finer than a pixel: the top of a parabola through the step and its neighbours
    left = step[rows, np.clip(best - 1, 0, step.shape[1] - 1)]
    right = step[rows, np.clip(best + 1, 0, step.shape[1] - 1)]
    curvature = left - 2 * strength + right
    shift = np.where(curvature < -1e-6, 0.5 * (left - right) / np.where(curvature < -1e-6, curvature, -1), 0.0)
    offsets = offsets + np.clip(shift, -0.5, 0.5)
    points = np.flatnonzero(valid)
    if len(points) < max(6, SCANLINES * 0.45):
        return None
    best_line, best_inliers = None, np.zeros(0, dtype=np.int64)
    for k, i in enumerate(points):
        for j in points[k + 1 :]:
            slope = (offsets[j] - offsets[i]) / (along[j] - along[i])
            if abs(slope) > 0.14:  # steeper than 8 degrees off the predicted side
                continue
            line = offsets[i] + slope * (along - along[i])
            inliers = points[np.abs(offsets[points] - line[points]) <= 1.5]
            if len(inliers) > len(best_inliers):
                best_line, best_inliers = (i, j), inliers
    if best_line is None or len(best_inliers) < max(6, SCANLINES * 0.45):
        return None
    if np.ptp(along[best_inliers]) < 0.4 * np.ptp(along):
        return None
    slope, intercept = np.polyfit(along[best_inliers], offsets[best_inliers], 1)
    return float(intercept), float(slope)


def refine_outline(lab: np.ndarray, quad: np.ndarray, symmetric: bool = True) -> Refinement:
    """The card outline ``quad`` (top-left, top-right, bottom-right, bottom-left of the card, in ``lab``'s
    pixels) moved onto the card's edges where they show (``lab``: the photo in CIE Lab, float).

    A side whose edge does not show stays where it was, or, with ``symmetric`` (the outline's middle is
    sure, as between two corner indices), mirrors the opposite side's edge."""
    import cv2

    quad = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    side_px = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    height_px = float(np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    height = REFINE_HEIGHT
    width = int(round(height * side_px / max(height_px, 1.0)))
    margin = int(round(REFINE_MARGIN * height))
    canonical = np.array(
        [[margin, margin], [margin + width, margin], [margin + width, margin + height], [margin, margin + height]],
        dtype=np.float32,
    )
    to_frame = cv2.getPerspectiveTransform(quad.astype(np.float32), canonical)
    frame = cv2.warpPerspective(
        lab,
        to_frame,
        (width + 2 * margin, height + 2 * margin),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    search = int(round(SEARCH * height))
    reach = search + STEP + 1
    fits: dict[str, tuple[float, float] | None] = {}
    for side in ("left", "right", "top", "bottom"):
        length = height if side in ("left", "right") else width
        along = np.linspace(0.12 * length, 0.88 * length, SCANLINES)
        fits[side] = _fit_side(_side_profiles(frame, side, margin, width, height, reach), search, along)
    sides = sum(fit is not None for fit in fits.values())
    lines = {}
    for side, opposite in (("left", "right"), ("right", "left"), ("top", "bottom"), ("bottom", "top")):
        fit = fits[side] or (fits[opposite] if symmetric else None)
        intercept, slope = fit if fit is not None else (0.0, 0.0)
        if fit is not None and fits[side] is None:  # mirrored: the opposite side's line seen from this side
            length = height if side in ("left", "right") else width
            intercept, slope = intercept + slope * length, -slope
        lines[side] = (intercept, slope)

    # each side as n . p = c in the card's frame (positions measured from its margin)
    def line(side: str) -> tuple[np.ndarray, float]:
        a, b = lines[side]
        if side == "left":  # x = margin - (a + b (y - margin))
            return np.array([1.0, b]), margin - a + b * margin
        if side == "right":  # x = margin + width + a + b (y - margin)
            return np.array([1.0, -b]), margin + width + a - b * margin
        if side == "top":  # y = margin - (a + b (x - margin))
            return np.array([b, 1.0]), margin - a + b * margin
        return np.array([-b, 1.0]), margin + height + a - b * margin

    corners = []
    for first, second in (("left", "top"), ("right", "top"), ("right", "bottom"), ("left", "bottom")):
        (n1, c1), (n2, c2) = line(first), line(second)
        corners.append(np.linalg.solve(np.array([n1, n2]), np.array([c1, c2])))
    back = np.linalg.inv(to_frame)
    points = np.column_stack([np.array(corners), np.ones(4)]) @ back.T
    refined = points[:, :2] / points[:, 2:3]
    moved = float(np.max(np.linalg.norm(refined - quad, axis=1)) / max(height_px, 1.0))
    return Refinement(refined, sides, moved)


def _sane(refined: np.ndarray, predicted: np.ndarray) -> bool:
    """Whether a refined outline is still a card like the predicted one (convex, card-shaped, about as big)."""
    import cv2

    contour = refined.reshape(-1, 1, 2).astype(np.float32)
    if not cv2.isContourConvex(contour):
        return False
    area, predicted_area = cv2.contourArea(contour), cv2.contourArea(predicted.reshape(-1, 1, 2).astype(np.float32))
    if not 0.75 <= area / max(predicted_area, 1.0) <= 1.33:
        return False
    width = float(np.linalg.norm(refined[1] - refined[0]) + np.linalg.norm(refined[2] - refined[3])) / 2
    height = float(np.linalg.norm(refined[3] - refined[0]) + np.linalg.norm(refined[2] - refined[1])) / 2
    return RATIO_RANGE[0] <= min(width, height) / max(width, height, 1.0) <= RATIO_RANGE[1]


# ------------------------------------------------------------------ placing the cards of a photo


class _Photo:
    """One photo's pixels for placing cards: the Lab image outlines are refined on, at WORK_SIDE."""

    def __init__(self, pixels: np.ndarray) -> None:
        import cv2

        self.pixels = pixels
        self.scale = min(1.0, WORK_SIDE / max(pixels.shape[:2]))
        small = (
            cv2.resize(pixels, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
            if self.scale < 1
            else pixels
        )
        self.lab = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)

    def refine(self, card: PlacedCard, symmetric: bool = True) -> PlacedCard:
        """The card with its outline moved onto its edges where they show (twice: the second look starts
        from the first one's outline, squarer to the card)."""
        predicted = card.predicted_quad()
        quad = predicted
        sides = 0
        for _ in range(2):
            result = refine_outline(self.lab, quad * self.scale, symmetric)
            candidate = result.quad / self.scale
            if result.sides == 0 or not _sane(candidate, predicted):
                break
            quad, sides = candidate, result.sides
        if sides == 0:
            return replace(card, quad=None, sides=0)
        return replace(card, quad=quad, sides=sides, how="edges" if sides >= SURE_SIDES else card.how)


def measure_shape(cards: list[PlacedCard], detections: Detections) -> CardShape | None:
    """The photo's card shape (``CardShape``) measured on the cards whose outline showed all round."""
    import cv2

    aspects, across, along = [], [], []
    for card in cards:
        if card.quad is None or card.sides < SURE_SIDES or len(card.boxes) < 2:
            continue
        quad = card.quad
        width = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
        height = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
        aspects.append(width / height)
        frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
        to_card = cv2.getPerspectiveTransform(quad.astype(np.float32), frame)
        for row in card.boxes:
            x0, y0, x1, y1 = detections.xyxy[row]
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
            projective = np.column_stack([corners, np.ones(4)]) @ to_card.T
            mapped = projective[:, :2] / projective[:, 2:3]
            # the index's outer corner: the nearer card corner, whichever it is
            gap_x = min(mapped[:, 0].min(), width - mapped[:, 0].max())
            gap_y = min(mapped[:, 1].min(), height - mapped[:, 1].max())
            across.append(gap_x / height)
            along.append(gap_y / height)
    if len(aspects) < 2:
        return None
    return CardShape(
        aspect=float(np.clip(np.median(aspects), 0.55, 0.85)),
        margin_x=float(np.clip(np.median(across), 0.0, 0.08)),
        margin_y=float(np.clip(np.median(along), 0.0, 0.08)),
    )


def _related(a: str, b: str) -> bool:
    return a[0] == b[0] or a[1] == b[1]


def _centres(detections: Detections) -> np.ndarray:
    return detections.centers if len(detections) else np.zeros((0, 2))


def _strays(card: PlacedCard, detections: Detections) -> list[int]:
    """Boxes lying on the card that are not its own: another card's index, the cards overlap. A box unlike
    the card's own indices in size, or read unsurely, is left aside (the reader misreading the card's art)."""
    quad = card.outline
    centre = quad.mean(axis=0)
    shrunk = centre + 0.94 * (quad - centre)
    own = float(np.median(detections.long_sides[list(card.boxes)])) if card.boxes else 0.0
    return [
        row
        for row, point in enumerate(_centres(detections))
        if row not in card.boxes
        and _inside(point, shrunk)
        and detections.confidence[row] >= STRAY_CONFIDENCE
        and (not own or 0.6 <= detections.long_sides[row] / own <= 1.6)
    ]


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """The share of the smaller of two convex outlines that the other covers."""
    import cv2

    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    smaller = min(cv2.contourArea(a.astype(np.float32)), cv2.contourArea(b.astype(np.float32)))
    return float(area) / max(smaller, 1.0)


def _outside_share(quad: np.ndarray, size: tuple[int, int]) -> float:
    """The share of an outline's area that lies outside an image of ``size`` (width, height)."""
    import cv2

    width, height = size
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    inside, _ = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    return 1.0 - float(inside) / max(cv2.contourArea(quad.astype(np.float32)), 1.0)


def _where(point: np.ndarray) -> str:
    return f"x={point[0]:.0f} y={point[1]:.0f}"


def one_box_an_index(detections: Detections) -> Detections:
    """The boxes with each index once: of two boxes that mostly overlap (the reader's passes seeing one
    index twice, perhaps read as two cards), the surer stays. A second box of one index would otherwise
    look like another card's index lying on this card."""
    if len(detections) < 2:
        return detections
    same_index = CornerSettings().same_index_overlap  # of the smaller box: more is one index seen twice
    return detections[surest_of_overlapping(detections.xyxy, detections.confidence, same_index, box_overlap_of_smaller)]


def place_cards(pixels: np.ndarray, detections: Detections, detector=None) -> tuple[list[PlacedCard], list[str]]:
    """The cards lying in a photo, placed by their corner indices (``detections``, photo pixels) and refined
    on their outlines; and notes for the user on what was left out (overlapping cards, cut-off cards,
    corners of no card). ``detector`` (optional) reads where a lone corner's partner should be."""
    placer = _CardPlacer(pixels, one_box_an_index(detections))
    placer.place_by_code()
    placer.place_left_over_pairs()
    placer.place_lone_corners(detector)
    return _checked(placer.cards, placer.detections, (pixels.shape[1], pixels.shape[0]))


class _CardPlacer:
    """``place_cards``' work on one photo: the boxes, those used, and the cards placed so far."""

    def __init__(self, pixels: np.ndarray, detections: Detections) -> None:
        self.pixels = pixels
        self.photo = _Photo(pixels)
        self.detections = detections
        self.boxes = detections.xyxy
        self.codes = detections.codes
        self.centres = _centres(detections)
        self.sizes = detections.long_sides if len(detections) else np.zeros(0)
        self.usual_size = max(float(np.median(self.sizes)), 1e-6) if len(self.sizes) else 1.0
        self.used: set[int] = set()
        self.cards: list[PlacedCard] = []
        self.shape = CardShape()
        self.four_corners = False
        self.typical = 0.0  # the usual height of a placed card (after place_by_code)

    def claim(self, card: PlacedCard, rows: tuple[int, ...]) -> None:
        self.cards.append(replace(card, boxes=rows))
        self.used.update(rows)

    def members(self, card: PlacedCard, code: str | None) -> tuple[int, ...]:
        """The free boxes on the card that can be its corners (of its code, when given)."""
        quad = card.predicted_quad()
        return tuple(
            row
            for row in range(len(self.detections))
            if row not in self.used
            and (code is None or self.codes[row] == code)
            and _inside(self.centres[row], quad)
            and LIKE_SIZES[0] <= self.sizes[row] / self.usual_size <= LIKE_SIZES[1]
        )

    def apart(self, rows: tuple[int, int]) -> float:
        return float(np.hypot(*(self.centres[rows[0]] - self.centres[rows[1]])))

    def pair(self, i: int, j: int, allow_mirrored: bool) -> PlacedCard | None:
        options = []
        for mirrored in (False, True) if allow_mirrored else (False,):
            card = predict_from_corners(self.boxes[i], self.boxes[j], self.shape, mirrored)
            if card is not None and _fits_box_shape(card, self.boxes[[i, j]]):
                options.append(card)
        if not options:
            return None
        if len(options) == 1:
            return options[0]
        refined = [self.photo.refine(option) for option in options]
        return max(refined, key=lambda card: card.sides)

    def free_rows(self) -> list[int]:
        return [row for row in range(len(self.detections)) if row not in self.used]

    def overlaps_a_card(self, quad: np.ndarray) -> bool:
        return any(_overlap(quad, other.outline) > OVERLAP for other in self.cards)

    def place_by_code(self) -> None:
        """1. The boxes of one code: a card's two (or four) corners; then the cards re-predicted on the photo's
        own card shape, and cards of no outline and an unusual size given back."""
        by_code: dict[str, list[int]] = {}
        for row, code in enumerate(self.codes):
            by_code.setdefault(code, []).append(row)
        for code, rows in sorted(by_code.items(), key=lambda item: -len(item[1])):
            rows = [r for r in rows if r not in self.used]
            pairs = sorted(((i, j) for k, i in enumerate(rows) for j in rows[k + 1 :]), key=self.apart, reverse=True)
            for i, j in pairs:
                if i in self.used or j in self.used:
                    continue
                card = self.pair(i, j, allow_mirrored=len(rows) >= 3)
                if card is None:
                    continue
                own = self.members(card, code)
                if i not in own or j not in own:
                    continue
                self.four_corners = self.four_corners or len(own) >= 3
                self.claim(card, own)
        self.cards = [self.photo.refine(card) for card in self.cards]
        self.reshaped()
        heights = [card.height for card in self.cards if card.sides >= SURE_SIDES] or [c.height for c in self.cards]
        self.typical = float(np.median(heights)) if heights else 0.0
        # two boxes of one code on two cards (one of them misread) make a card of the wrong size: a card of no
        # outline whose size is not the photo's usual one gives its boxes back, to be paired by place below
        for card in [card for card in self.cards if card.sides < SURE_SIDES and not self.usual_height(card)]:
            self.cards.remove(card)
            self.used.difference_update(card.boxes)
        # the usual height again, of the cards kept: where every card placed by code was such a wrong pair (a deck
        # whose corners the reader misreads), their height is no card's, and no height is known yet
        heights = [card.height for card in self.cards if card.sides >= SURE_SIDES] or [c.height for c in self.cards]
        self.typical = float(np.median(heights)) if heights else 0.0

    def usual_height(self, card: PlacedCard) -> bool:
        return 0.85 <= card.height / self.typical <= 1.18

    def reshaped(self) -> None:
        """The photo's own card shape, where its cards show it: the cards whose outline did not show, again."""
        measured = measure_shape(self.cards, self.detections)
        if measured is None:
            return
        self.shape = measured
        for k, card in enumerate(self.cards):
            if card.sides < SURE_SIDES and len(card.boxes) >= 2:
                corners = ((a, b) for n, a in enumerate(card.boxes) for b in card.boxes[n + 1 :])
                i, j = max(corners, key=self.apart)
                again = self.pair(i, j, allow_mirrored=self.four_corners)
                if again is not None:
                    self.cards[k] = self.photo.refine(replace(again, boxes=card.boxes))

    def place_left_over_pairs(self) -> None:
        """2. Corners left over, paired by place: a misread corner of a card whose other corner read right."""
        left = self.free_rows()
        candidates = []
        for k, i in enumerate(left):
            for j in left[k + 1 :]:
                card = self.pair(i, j, allow_mirrored=self.four_corners)
                if card is None or (self.typical and not self.usual_height(card)):
                    continue
                if self.overlaps_a_card(card.predicted_quad()):
                    continue
                if [row for row in self.members(card, None) if row not in (i, j)]:
                    continue  # another free index on it: not one card's two corners
                refined = self.photo.refine(card)
                evidence = refined.sides + (2 if _related(self.codes[i], self.codes[j]) else 0)
                if evidence >= 3:
                    candidates.append((-evidence, i, j, refined))
        for _, i, j, card in sorted(candidates, key=lambda item: item[0]):
            if i in self.used or j in self.used or self.overlaps_a_card(card.outline):
                continue
            self.claim(card, (i, j))

    def place_lone_corners(self, detector: Any) -> None:
        """3. A corner alone: the card of the photo's usual size at its neighbours' angle, on whichever side its
        outline shows, or where the reader (``detector``) reads the same card at the other corner."""
        for row in self.free_rows():
            if not self.cards:
                break
            options, partners = self.lone_corner_options(row)
            if options and detector is not None:
                ids, probabilities = read_boxes(detector, self.pixels, np.array(partners))  # one batch for all
                for k, (row_ids, row_p) in enumerate(zip(ids.tolist(), probabilities.tolist(), strict=True)):
                    reads = dict(zip((CARD_CODES[c] for c in row_ids), row_p, strict=True))
                    options[k] = (options[k][0] + 3 * reads.get(self.codes[row], 0.0), options[k][1])
            if options:
                support, card = max(options, key=lambda item: item[0])
                if support >= 2.5:
                    self.claim(card, (row,))

    def lone_corner_options(self, row: int) -> tuple[list[tuple[float, PlacedCard]], list[np.ndarray]]:
        """The cards a lone corner could be of (with the sides of its outline that show), and where each one's
        opposite corner index would lie."""
        centre = self.centres[row]
        nearest = sorted(self.cards, key=lambda card: float(np.hypot(*(np.asarray(card.centre) - centre))))[:3]
        height = float(np.median([card.height for card in nearest]))
        base = float(np.median([card.angle for card in nearest]))
        options: list[tuple[float, PlacedCard]] = []
        partners: list[np.ndarray] = []
        size = (self.pixels.shape[1], self.pixels.shape[0])
        for angle in (base, _normal_angle(base + 90)):
            for corner in range(4 if self.four_corners else 2):
                card = predict_from_one_corner(self.boxes[row], height, angle, self.shape, corner)
                if not _fits_box_shape(card, self.boxes[[row]]):
                    continue
                quad = card.predicted_quad()
                if _outside_share(quad, size) > CUT_OFF or self.overlaps_a_card(quad):
                    continue
                if [r for r in self.members(card, None) if r != row]:
                    continue
                refined = self.photo.refine(card, symmetric=False)
                options.append((float(refined.sides), replace(refined, how=refined.how if refined.sides else "corner")))
                partners.append(_partner_box(self.boxes[row], card, corner))
        return options, partners


def _partner_box(box: np.ndarray, card: PlacedCard, corner: int) -> np.ndarray:
    """Where the opposite corner index of ``card`` lies, given that ``box`` is its index at ``corner``."""
    centre = np.asarray(card.centre)
    middle = (np.asarray(box[:2]) + np.asarray(box[2:])) / 2
    mirrored = 2 * centre - middle
    half = (np.asarray(box[2:]) - np.asarray(box[:2])) / 2
    return np.concatenate([mirrored - half, mirrored + half])


def _checked(
    cards: list[PlacedCard], detections: Detections, size: tuple[int, int]
) -> tuple[list[PlacedCard], list[str]]:
    """The cards that lie clear (not on or under another, not cut off), and notes on the others."""
    notes = []
    overlapping: set[int] = set()
    for k, card in enumerate(cards):
        if _strays(card, detections):
            overlapping.add(k)
        for m in range(k + 1, len(cards)):
            if _overlap(card.outline, cards[m].outline) > OVERLAP:
                overlapping.update((k, m))
    cut = {k for k, card in enumerate(cards) if k not in overlapping and _outside_share(card.outline, size) > CUT_OFF}
    kept = [card for k, card in enumerate(cards) if k not in overlapping and k not in cut]
    placed = {row for card in cards for row in card.boxes}
    unplaced = [row for row in range(len(detections)) if row not in placed]
    lost = unplaced + [row for k in overlapping for row in cards[k].boxes]
    lost_codes = sorted({detections.codes[row] for row in lost}, key=CARD_CODES.index)
    if overlapping or len(unplaced) >= 3:
        around = [cards[k].centre for k in overlapping] or [tuple(_centres(detections)[r]) for r in unplaced]
        middle = np.mean(np.array(around), axis=0)
        notes.append(
            f"cards overlap (around {_where(middle)}; their corners read {' '.join(lost_codes[:13])}"
            f"{' ...' if len(lost_codes) > 13 else ''}): only cards lying apart can be taught, so they are left "
            f"out and the {len(kept)} clear card{'s' if len(kept) != 1 else ''} kept; lay the cards 1-3 cm apart "
            "and photograph them again"
        )
    elif unplaced:
        notes.append(
            f"{len(unplaced)} corner {'index' if len(unplaced) == 1 else 'indices'} "
            f"({' '.join(detections.codes[r] for r in unplaced)}) belong to no card found; if a card is missing, "
            "photograph it again lying apart from the others"
        )
    for k in sorted(cut):
        notes.append(
            f"a card at {_where(np.asarray(cards[k].centre))} is cut off by the photo's edge and is left out; "
            "photograph it again with the whole card in the photo"
        )
    return kept, notes


# ------------------------------------------------------------------ one photo


def _box_reading(detections: Detections, rows: tuple[int, ...]) -> dict[str, float]:
    """Card probabilities of one card from its corner boxes' readings (averaged over its corners)."""
    scores: dict[str, float] = {}
    runner_up_id, runner_up_confidence = detections.runner_ups
    for row in rows:
        seen = {int(detections.class_id[row]): float(detections.confidence[row])}
        for card_id, p in zip(runner_up_id[row].tolist(), runner_up_confidence[row].tolist(), strict=True):
            seen[card_id] = max(seen.get(card_id, 0.0), float(p))
        for card_id, p in seen.items():
            scores[CARD_CODES[card_id]] = scores.get(CARD_CODES[card_id], 0.0) + p / len(rows)
    return dict(sorted(scores.items(), key=lambda item: -item[1])[:5])


def _box_notes(detections: Detections, rows: tuple[int, ...]) -> tuple[str, ...]:
    """The reader's reasons to check a card's corners, in words."""
    codes = sorted({detections.codes[row] for row in rows})
    notes = [reason.text for row in rows for reason in detections.reasons[row]]
    if len(codes) > 1:
        notes.append(f"its corners read {' and '.join(codes)}")
    if len(rows) == 1:
        notes.append("only one of its corner indices was read")
    return tuple(dict.fromkeys(notes))


def face_blur(face: np.ndarray) -> float:
    """How blurred a straightened face's top-left index is: the spread (px at the face's size) of its
    sharpest ink edges, from the edge's contrast over its steepest slope (a sharp print: about 1)."""
    import cv2

    height, width = face.shape[:2]
    zone = cv2.cvtColor(face[: int(0.36 * height), : int(0.3 * width)], cv2.COLOR_BGR2GRAY).astype(np.float32)
    low, high = np.percentile(zone, (2, 98))
    contrast = float(high - low)
    if contrast < 30:
        return float("inf")  # no ink at all
    gradient = np.hypot(cv2.Sobel(zone, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(zone, cv2.CV_32F, 0, 1, ksize=3)) / 8
    steepest = float(np.percentile(gradient, 99.5))
    return contrast / max(steepest * math.sqrt(2 * math.pi), 1e-6)


BLURRED = 3.2  # face_blur (px at FACE_HEIGHT) above which a face's index is too blurred to learn from


def _one_face(pixels: np.ndarray, path: Path | str, detections: Detections | None, detector) -> PhotoCards:
    """A photo that is one face, as a face ``FACE_HEIGHT`` px high (turned upright if it lies sideways)."""
    import cv2

    name = Path(path).name
    face = pixels if pixels.shape[0] >= pixels.shape[1] else cv2.rotate(pixels, cv2.ROTATE_90_CLOCKWISE)
    face = cv2.resize(
        face, (int(round(FACE_HEIGHT * face.shape[1] / face.shape[0])), FACE_HEIGHT), interpolation=cv2.INTER_AREA
    )
    reading: dict[str, float] = {}
    index_boxes: tuple[Box, ...] = ()
    if detector is not None:
        if face_blur(face) > BLURRED:
            raise ImageError(f"{name}: the photo is blurred; take it again, holding the camera still and in focus")
        if detections is None or not len(detections):
            from vision.training.corner_finder import find_corner_index, local_view

            rgba = cv2.cvtColor(face, cv2.COLOR_BGR2RGBA)
            if any(find_corner_index(local_view(rgba, corner), {}) is None for corner in ("tl", "br")):
                return PhotoCards(
                    [], [f"{name}: no card found (the reader read no corner index in it); {LAY_THEM_OUT}"]
                )
        else:
            reading = _box_reading(detections, tuple(range(len(detections))))
            if pixels.shape[0] >= pixels.shape[1]:  # upright as it was photographed: its boxes hold
                index_boxes = tuple(
                    (round(float(x0), 1), round(float(y0), 1), round(float(x1), 1), round(float(y1), 1))
                    for x0, y0, x1, y1 in detections.xyxy * (FACE_HEIGHT / pixels.shape[0])
                )
    corner_indices = read_face_indices(detector, [face])[0] if detector is not None else {}
    return PhotoCards(
        [FoundCard(face, str(path), 1, reading=reading, index_boxes=index_boxes, corner_indices=corner_indices)]
    )


def _outline_card(quad: np.ndarray) -> PlacedCard:
    return PlacedCard(
        (float(quad[:, 0].mean()), float(quad[:, 1].mean())), 0.0, 0.0, 0.0, (), "outline", _order_quad(quad), 4
    )


def photo_cards(path: Path | str, faces_only: bool = False, detector=None) -> PhotoCards:
    """The straightened cards of one photo (the photo itself when it is one face) and notes on what was
    left out; ImageError (a sentence: what was wrong, what to do) when the photo cannot be used.

    ``detector``: the reader whose corner indices place the cards (None: the outlines alone)."""
    import cv2

    from vision.training.corner_finder import find_corner_index, local_view

    name = Path(path).name
    pixels = decode_image(path, max_side=MAX_PHOTO_SIDE, name=str(path)).pixels
    if faces_only:
        return _one_face(pixels, path, None, None)
    outlines = find_card_outlines(pixels)
    if outlines and is_single_face(pixels, outlines) and (detector is None or max(pixels.shape[:2]) <= SMALL_PHOTO):
        return _one_face(pixels, path, None, None)  # a face crop, by its own outline or its index glyphs
    detections = detect(pixels, detector) if detector is not None else None
    if detections is not None and len(detections):
        if is_single_face(pixels, [], detections.xyxy):
            return _one_face(pixels, path, detections, detector)
    elif not outlines:
        if is_single_face(pixels, []):  # card-shaped, nothing in it: a face no one could read, or no card
            return _one_face(pixels, path, detections, detector)
        return PhotoCards([])
    notes: list[str] = []
    if detections is not None and len(detections):
        placed, notes = place_cards(pixels, detections, detector)
        quads = [card.outline for card in placed]
        # cards whose indices the reader missed: outlines that hold no index and lie on no placed card
        typical = float(np.median([card.width * card.height for card in placed])) if placed else 0.0
        for quad in outlines:
            area = float(cv2.contourArea(quad.reshape(-1, 1, 2).astype(np.float32)))
            if typical and not 0.6 * typical <= area <= 1.6 * typical:
                continue
            if any(_inside(point, quad) for point in detections.centers):
                continue
            if any(_overlap(quad, other) > OVERLAP for other in quads):
                continue
            placed.append(_outline_card(quad))
            quads.append(quad)
    else:
        placed = [_outline_card(quad) for quad in outlines]
    cards: list[FoundCard] = []
    blurred = 0
    unseen = 0
    for card in (placed[k] for k in reading_order([card.outline for card in placed])):
        matrix, size = straightening(card.outline)
        face = cv2.warpPerspective(pixels, matrix, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        index_boxes: tuple[Box, ...] = ()
        reading: dict[str, float] = {}
        card_notes: tuple[str, ...] = ()
        if detections is not None and card.boxes:
            index_boxes = boxes_on_face(detections.xyxy[list(card.boxes)], matrix, size)
            reading = _box_reading(detections, card.boxes)
            card_notes = _box_notes(detections, card.boxes)
        elif detector is not None:  # by its outline only: a card only if its corners show an index
            rgba = cv2.cvtColor(face, cv2.COLOR_BGR2RGBA)
            if any(find_corner_index(local_view(rgba, corner), {}) is None for corner in ("tl", "br")):
                continue
            card_notes = ("found by its outline only: the reader read none of its corner indices",)
        unseen += card.how not in ("edges", "outline")
        if detector is not None and face_blur(face) > BLURRED:
            blurred += 1
            card_notes += ("its index is blurred",)
        corner_indices = read_face_indices(detector, [face])[0] if detector is not None else {}
        cards.append(
            FoundCard(
                face,
                str(path),
                len(cards) + 1,
                card.outline,
                reading,
                card.how,
                card_notes,
                index_boxes,
                corner_indices,
            )
        )
    if cards and blurred > len(cards) / 2:
        raise ImageError(
            f"{name}: the photo is blurred ({blurred} of {len(cards)} cards' indices are not sharp); take it "
            "again, holding the camera still and in focus"
        )
    if unseen:
        notes.append(
            f"{unseen} card{'s' if unseen != 1 else ''}' outline did not show against the table; "
            f"{'they were' if unseen != 1 else 'it was'} cut out where the corner indices put "
            f"{'them' if unseen != 1 else 'it'} (check the faces in the preview)"
        )
    return PhotoCards(cards, [f"{name}: {note}" for note in notes])


def cards_in_photo(path: Path | str, faces_only: bool = False, detector=None) -> list[FoundCard]:
    """The straightened cards of one photo (the photo itself when it is one face); ImageError if unreadable.
    ``detector``: the reader whose corner indices place the cards (None: the outlines alone)."""
    return photo_cards(path, faces_only, detector).cards
