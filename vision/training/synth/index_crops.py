"""The index-crop renderer: the classifier's crops (64 x 64, or the size a classifier reads) drawn directly,
without rendering whole scenes.

A crop is one card corner as the reader cuts it out of a photo (``vision.crops.crop_index``): the rank and
suit as the deck prints them, at any corner and any turn, with what surrounds an index in a real spread
(the neighbours' edges and indices in squeezed, overlapping and fanned hands, their shadows, fingers, the
table), seen through the scene renderer's camera (light gradient, glare, white balance, gamma, defocus or
motion blur, noise, JPEG: ``scene.light_and_lens``), at the pixel size the index has in the photo (about 11
to 90 px), framed as the detector frames its boxes. "Not a card" crops come the same way from court
pictures, pips, card backs, printed pages, score pads and bare table.

The faces are the packaged training decks (never the held-out ones) and procedural decks
(``procedural_decks``: hundreds of typefaces). Only a small canvas around the index is ever drawn, so a
core renders several hundred crops a second (``benchmarks/index_crop_speed.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import CARD_CODES
from vision.crops import CROP_PADDING, CROP_SIZE, crop_index
from vision.detector import REJECT_CLASS  # the "not a card" class: one name, owned by the reader
from vision.training.synth import clutter, procedural_decks
from vision.training.synth.scene import HIDDEN_INDEX_LIMIT, light_and_lens
from vision.training.synth.surfaces import PHOTO_SHARE, PROCEDURAL, surface_window

NONE_SHARE = 0.08  # of the crops, "not a card"
PROCEDURAL_SHARE = 0.6  # of the card crops, from procedural decks (the rest: the packaged training decks)
INDEX_PIXELS = (11.0, 90.0)  # the index box's longer side in the photo, drawn log-uniformly
# How the shipped detector's boxes sit round labelled real indices (``benchmarks/detector_framing.py`` on
# real-val): the centre's offset sd as a fraction of the label's width and height, and the mean and sd of the
# log of each side's ratio to the label's (x, y). The renderer frames its crops as the detector does.
BOX_CENTRE_SD = (0.033, 0.022)
BOX_LOG_SIDE_MEAN = (0.069, -0.008)
BOX_LOG_SIDE_SD = (0.098, 0.086)
PROCEDURAL_DECK_POOL = 6  # procedural decks a worker holds; one is drawn anew every DECK_TURNOVER crops
DECK_TURNOVER = 150
TEXTURE_POOL = 6  # procedural table textures a worker holds (felt, wood, cloth, paper), one drawn anew every
TEXTURE_TURNOVER = 50  # crops; each crop's table is a window of one (drawing a texture per crop was an eighth
TEXTURE_SIDE = 192  # of the time); px, square: at least a large crop's canvas
SHEET_POOL = 4  # clutter sheets a worker holds for "not a card" crops, one drawn anew every SHEET_TURNOVER
SHEET_TURNOVER = 400
GLARE_SHARE = 0.25  # of the crops, those whose cards can catch the camera's glare (scene.light_and_lens)
CANVAS_MARGIN = 1.35  # the canvas drawn round an index, in crop windows: room for the framing's jitter
PLAIN_TABLE = (40, 100, 40)  # BGR: a green felt, for clean test renders
SKIN = ((140, 170, 220), (90, 130, 190), (60, 90, 140), (40, 60, 90))  # BGR


@dataclass
class Face:
    """A card face (BGRA) with its index boxes (face pixels) and a pyramid of halved copies (``depth`` levels,
    the face included), each halved copy made when first drawn from (most crops need one or two)."""

    image: np.ndarray
    boxes: list[tuple[int, int, int, int]]
    levels: list[np.ndarray]
    depth: int

    @classmethod
    def of(cls, image: np.ndarray, boxes) -> Face:
        depth, (h, w) = 1, image.shape[:2]
        while min(h, w) > 24:  # halved as cv2.pyrDown halves, until a side is 24 px or less
            h, w, depth = (h + 1) // 2, (w + 1) // 2, depth + 1
        return cls(image, [(int(b[0]), int(b[1]), int(b[2]), int(b[3])) for b in boxes], [image], depth)

    def level(self, k: int) -> np.ndarray:
        """The face halved ``k`` times (0 <= k < ``depth``)."""
        while len(self.levels) <= k:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[k]


Deck = dict[str, Face]


def deck_of(faces: dict[str, np.ndarray], boxes: dict[str, list]) -> Deck:
    return {code: Face.of(faces[code], boxes[code]) for code in CARD_CODES if boxes.get(code)}


def _rotation(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _translation(x: float, y: float) -> np.ndarray:
    return np.array([[1.0, 0.0, x], [0.0, 1.0, y], [0.0, 0.0, 1.0]])


def _project(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    homogeneous = np.hstack([points, np.ones((len(points), 1))]) @ matrix.T
    return homogeneous[:, :2] / homogeneous[:, 2:3]


def _corners(box) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def _warp(face: Face, matrix: np.ndarray, size: int) -> np.ndarray:
    """The face warped by ``matrix`` (face pixels to canvas) into a size x size BGRA canvas, drawn from the
    pyramid level that leaves at most a halving to the warp (no aliasing of thin strokes)."""
    scale = math.sqrt(abs(matrix[0, 0] * matrix[1, 1] - matrix[0, 1] * matrix[1, 0]))
    level = min(face.depth - 1, max(0, int(math.floor(math.log2(1.0 / max(scale, 1e-6))))))
    shrink = np.diag([2.0**level, 2.0**level, 1.0])
    return cv2.warpPerspective(
        face.level(level), matrix @ shrink, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )


def _over(canvas: np.ndarray, layer: np.ndarray) -> None:
    """``layer`` (BGRA) laid over ``canvas`` (BGR) by its alpha."""
    alpha = np.multiply(layer[:, :, 3], np.float32(1 / 255), dtype=np.float32)
    canvas[:] = cv2.blendLinear(cv2.cvtColor(layer, cv2.COLOR_BGRA2BGR), canvas, alpha, 1 - alpha)


def _shadow(canvas: np.ndarray, alpha: np.ndarray | None, rng: np.random.Generator, blur: float) -> None:
    """The shadow a card (its alpha) casts on what lies under it: offset, blurred, darkening (``alpha`` None:
    a card that misses the canvas, whose shadow's draws are drawn all the same)."""
    dx, dy = rng.normal(0, blur, 2)
    strength = rng.uniform(0.1, 0.4)
    if alpha is None:
        return
    shift = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)
    moved = cv2.warpAffine(alpha, shift, (alpha.shape[1], alpha.shape[0]))
    soft = cv2.GaussianBlur(np.divide(moved, np.float32(255.0), dtype=np.float32), (0, 0), max(0.5, blur))
    shade = cv2.cvtColor(1 - strength * soft, cv2.COLOR_GRAY2BGR)  # each channel its own copy: faster than [..., None]
    np.copyto(canvas, np.multiply(canvas, shade, dtype=np.float32), casting="unsafe")


def _finger(size: int, rng: np.random.Generator, scale: float) -> np.ndarray:
    """A fingertip (BGRA layer) reaching into the canvas from one side."""
    layer = np.zeros((size, size, 4), np.uint8)
    angle = rng.uniform(0, 2 * math.pi)
    tip = np.array([size / 2, size / 2]) + rng.uniform(0.3, 0.9) * size / 2 * np.array(
        [math.cos(angle), math.sin(angle)]
    )
    width = scale * rng.uniform(0.5, 1.0)
    colour = np.array(SKIN[rng.integers(len(SKIN))], np.float64) * rng.uniform(0.8, 1.15)
    axes = (int(width), int(width * 3))
    cv2.ellipse(
        layer, (int(tip[0]), int(tip[1])), axes, math.degrees(angle) + 90, 0, 360, (*colour.clip(0, 255), 255), -1
    )
    return layer


@dataclass
class Placement:
    """Where a card lies relative to the subject card: its face, a matrix (its face pixels to the subject's)
    and whether it lies over the subject."""

    face: Face
    to_subject: np.ndarray
    over: bool


def _neighbours(rng: np.random.Generator, deck: Deck, subject: Face) -> list[Placement]:
    """The cards around the subject in a spread, a fan or a pile: 0 to 3, over or under it."""
    count = int(rng.choice([0, 1, 2, 3], p=[0.25, 0.35, 0.25, 0.15]))
    h, w = subject.image.shape[:2]
    codes = list(deck)
    fanned = rng.random() < 0.3
    out = []
    for _ in range(count):
        face = deck[codes[rng.integers(len(codes))]]
        fh, fw = face.image.shape[:2]
        over = bool(rng.random() < 0.55)
        side = 1.0 if over else -1.0
        if rng.random() < 0.75:  # along the row, as a spread or a fan lies
            dx, dy = side * rng.uniform(0.1, 0.7) * w, rng.normal(0, 0.06) * h
        else:  # a cascade: down the column
            dx, dy = rng.normal(0, 0.1) * w, side * rng.uniform(0.12, 0.6) * h
        turn = rng.normal(0, math.radians(14)) if fanned else rng.normal(0, math.radians(2))
        if rng.random() < 0.1:
            turn += math.pi
        matrix = _translation(w / 2 + dx, h / 2 + dy) @ _rotation(turn) @ np.diag([w / fw, w / fw, 1.0])
        out.append(Placement(face, matrix @ _translation(-fw / 2, -fh / 2), over))
    return out


class CropRenderer:
    """Draws labelled index crops: ``crop(rng) -> (class name, size x size BGR crop)``; ``size`` is the input size
    of the classifier that learns from them (64, or 96 for crops-run10's kind)."""

    def __init__(
        self,
        packaged: list[Deck],
        photos: list[np.ndarray],
        backs: list[np.ndarray],
        procedural: bool = True,
        seed: int = 0,
        size: int = CROP_SIZE,
        index_pixels: tuple[float, float] = INDEX_PIXELS,
    ) -> None:
        self.size = size
        self.index_pixels = index_pixels  # the index box's longer side in the photo (low, high), log-uniform
        self.packaged = packaged
        self.photos = photos
        self.backs = [Face.of(back, []) for back in backs]
        for face in [face for deck in packaged for face in deck.values()] + self.backs:
            face.level(face.depth - 1)  # their pyramids whole at once: they serve the renderer's whole life
        self.procedural = procedural and bool(procedural_decks.index_fonts())
        self.rng = np.random.default_rng(seed)
        self.pool: list[Deck] = []
        self.sheets: list[Face] = []
        self.textures: list[np.ndarray] = []
        self.drawn = 0

    def _procedural_deck(self, rng: np.random.Generator) -> Deck:
        if len(self.pool) < PROCEDURAL_DECK_POOL or self.drawn % DECK_TURNOVER == 0:
            fonts, suits = procedural_decks.index_fonts(), procedural_decks.suit_fonts()
            _, faces, boxes = procedural_decks.random_deck(self.rng, fonts, suits)
            deck = deck_of(faces, boxes)
            if len(self.pool) < PROCEDURAL_DECK_POOL:
                self.pool.append(deck)
            else:
                self.pool[int(self.rng.integers(len(self.pool)))] = deck
            return deck
        return self.pool[int(rng.integers(len(self.pool)))]

    def _sheet(self, rng: np.random.Generator) -> Face:
        if len(self.sheets) < SHEET_POOL or self.drawn % SHEET_TURNOVER == 0:
            kind = ("newspaper", "envelope", "score_pad", "printed_box", "score_pad")[int(self.rng.integers(5))]
            sheet = clutter.make_sheet(self.rng, kind)
            face = Face.of(cv2.cvtColor(sheet, cv2.COLOR_RGBA2BGRA) if sheet.shape[2] == 4 else sheet, [])
            if len(self.sheets) < SHEET_POOL:
                self.sheets.append(face)
            else:
                self.sheets[int(self.rng.integers(len(self.sheets)))] = face
            return face
        return self.sheets[int(rng.integers(len(self.sheets)))]

    def _table(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """A size x size table under a crop: a window of a surface photo, or of a procedural texture from the pool."""
        if self.photos and rng.random() < PHOTO_SHARE:
            return surface_window(rng, self.photos[int(rng.integers(len(self.photos)))], (size, size))
        if len(self.textures) < TEXTURE_POOL or self.drawn % TEXTURE_TURNOVER == 0:
            make = PROCEDURAL[int(self.rng.integers(len(PROCEDURAL)))]
            texture = make(self.rng, (TEXTURE_SIDE, TEXTURE_SIDE))
            if len(self.textures) < TEXTURE_POOL:
                self.textures.append(texture)
            else:
                self.textures[int(self.rng.integers(len(self.textures)))] = texture
        return surface_window(rng, self.textures[int(rng.integers(len(self.textures)))], (size, size))

    def _deck(self, rng: np.random.Generator) -> Deck:
        if self.procedural and (not self.packaged or rng.random() < PROCEDURAL_SHARE):
            return self._procedural_deck(rng)
        return self.packaged[int(rng.integers(len(self.packaged)))]

    def crop(self, rng: np.random.Generator) -> tuple[str, np.ndarray]:
        self.drawn += 1
        deck = self._deck(rng)
        if rng.random() < NONE_SHARE:
            return REJECT_CLASS, self._not_a_card(rng, deck)
        code = CARD_CODES[int(rng.integers(len(CARD_CODES)))]
        while code not in deck:
            code = CARD_CODES[int(rng.integers(len(CARD_CODES)))]
        subject = deck[code]
        box = subject.boxes[int(rng.integers(len(subject.boxes)))]
        return code, self.render(rng, deck, subject, box, neighbours=True)

    def _not_a_card(self, rng: np.random.Generator, deck: Deck) -> np.ndarray:
        """A crop of about an index's size that holds no index: a face's middle (pips, a court picture), a back,
        print or a score pad, or the bare table by a card's edge. Drawn without neighbours, whose indices could
        fall inside it."""
        kind = rng.random()
        face = deck[CARD_CODES[int(rng.integers(len(CARD_CODES)))]]
        if kind >= 0.9:  # the bare table by a card's edge
            h, w = face.image.shape[:2]
            side = h * rng.uniform(0.1, 0.25)
            x = -side * rng.uniform(0.3, 1.2) if rng.random() < 0.5 else w + side * rng.uniform(-0.2, 0.3)
            y = rng.uniform(0, h - side)
            return self.render(rng, deck, face, (x, y, x + side * rng.uniform(0.5, 1.0), y + side), neighbours=False)
        if 0.5 <= kind < 0.65 and self.backs:
            face = self.backs[int(rng.integers(len(self.backs)))]
        elif kind >= 0.5:
            face = self._sheet(rng)
        h, w = face.image.shape[:2]
        for _ in range(20):
            side = min(h, w) * rng.uniform(0.08, 0.3)
            bw = side * float(np.exp(rng.normal(math.log(0.65), 0.3)))
            x, y = rng.uniform(0, max(1.0, w - bw)), rng.uniform(0, max(1.0, h - side))
            box = (x, y, x + bw, y + side)
            if not any(_overlap(box, index) > 0.1 for index in face.boxes):
                break
        return self.render(rng, deck, face, box, neighbours=False)

    def render(
        self,
        rng: np.random.Generator,
        deck: Deck,
        subject: Face,
        box,
        neighbours: bool,
        pixels: float | None = None,
        turn: float | None = None,
        clean: bool = False,
    ) -> np.ndarray:
        """The crop of ``box`` (subject face pixels) with the subject lying on a table among ``deck``'s cards,
        its index ``pixels`` high in the photo and turned by ``turn`` (radians; both drawn when None).
        ``clean``: on a plain table, with no neighbour, light, lens or framing error (for tests)."""
        if pixels is None:
            pixels = math.exp(rng.uniform(*np.log(self.index_pixels)))
        if turn is None:
            upright = rng.random() < 0.5
            turn = rng.uniform(0, 2 * math.pi) if upright else rng.integers(4) * math.pi / 2 + rng.normal(0, 0.15)
        tilt = (0.0, 0.0) if clean else tuple(rng.normal(0, 0.0015, 2) / max(box[3] - box[1], 1.0))
        local, quad = index_view(box, pixels, turn, tilt)
        side = float(np.max(quad.max(axis=0) - quad.min(axis=0)))
        window = side * (1 + 2 * CROP_PADDING)
        if not clean and window > self.size:  # a large index: drawn at the crop's size, as the crop would shrink it
            local, quad = index_view(box, pixels * self.size / window, turn, tilt)
            side = float(np.max(quad.max(axis=0) - quad.min(axis=0)))
        size = int(math.ceil(side * (1 + 2 * CROP_PADDING) * CANVAS_MARGIN)) + 4
        to_canvas = _translation(size / 2, size / 2) @ local
        if clean:
            canvas = np.full((size, size, 3), PLAIN_TABLE, np.uint8)
            _over(canvas, _warp(subject, to_canvas, size))
            return crop_index(canvas, label_box(quad, size / 2), size=self.size)
        placements = _neighbours(rng, deck, subject) if neighbours else []
        canvas = self._table(rng, size)
        # a neighbour that misses the canvas is not laid (an empty layer would change nothing; None)
        layers: list[np.ndarray | None] = []
        for placement in placements:
            layer: np.ndarray | None = _warp(placement.face, to_canvas @ placement.to_subject, size)
            if layer is not None and not layer[:, :, 3].any():
                layer = None
            if placement.over:
                layers.append(layer)
            elif layer is not None:
                _over(canvas, layer)
        subject_layer = _warp(subject, to_canvas, size)
        _shadow(canvas, subject_layer[:, :, 3], rng, side * 0.05)
        _over(canvas, subject_layer)
        if rng.random() < 0.08:
            layers.append(_finger(size, rng, side))
        covered = _lay_over(canvas, layers, _project(to_canvas, _corners(box)), rng, side)
        # glare falls on cards only (owner >= 0), and on a crop's few cards only as often as a scene's glare
        # blob meets one given index: the camera's glare would otherwise wash out a third of the crops
        if rng.random() < GLARE_SHARE:
            owner = np.where((covered > 0) | (subject_layer[:, :, 3] > 0), 0, -1).astype(np.int32)
        else:
            owner = np.full((size, size), -1, np.int32)
        canvas = light_and_lens(rng, canvas, owner, side * 4)
        return crop_index(canvas, framed_as_detected(label_box(quad, size / 2), rng), size=self.size)


def _lay_over(
    canvas: np.ndarray, layers: list[np.ndarray | None], index: np.ndarray, rng: np.random.Generator, side: float
):
    """Lay the cards and fingers over the subject, each with its shadow, but none that would hide more than
    ``HIDDEN_INDEX_LIMIT`` of the ``index`` quad (a box the detector is never taught); returns what they cover.
    A layer None is a card that misses the canvas: it hides nothing, and only its shadow's draws are drawn."""
    size = canvas.shape[0]
    covered = np.zeros((size, size), np.uint8)
    if all(layer is None for layer in layers):
        for _ in layers:
            _shadow(canvas, None, rng, side * 0.05)
        return covered
    index_mask = np.zeros((size, size), np.uint8)
    cv2.fillPoly(index_mask, [index.round().astype(np.int32)], 1)
    area = max(1, int(np.count_nonzero(index_mask)))
    for layer in layers:
        if layer is None:
            _shadow(canvas, None, rng, side * 0.05)
            continue
        hides = np.maximum(covered, layer[:, :, 3])
        if np.count_nonzero((hides > 127) & index_mask.view(bool)) > HIDDEN_INDEX_LIMIT * area:
            continue
        covered = hides
        _shadow(canvas, layer[:, :, 3], rng, side * 0.05)
        _over(canvas, layer)
    return covered


def framed_as_detected(
    label: tuple[float, float, float, float], rng: np.random.Generator
) -> tuple[float, float, float, float]:
    """The box the detector would give round an index labelled ``label``: off-centre and resized as the shipped
    detector's boxes are round real indices (``BOX_CENTRE_SD``, ``BOX_LOG_SIDE_MEAN``, ``BOX_LOG_SIDE_SD``)."""
    x0, y0, x1, y1 = label
    w, h = x1 - x0, y1 - y0
    z = rng.standard_normal(4).tolist()  # four draws at once: numpy's per-call cost was most of this step
    dx, dy = z[0] * BOX_CENTRE_SD[0] * w, z[1] * BOX_CENTRE_SD[1] * h
    sw = math.exp(BOX_LOG_SIDE_MEAN[0] + z[2] * BOX_LOG_SIDE_SD[0])
    sh = math.exp(BOX_LOG_SIDE_MEAN[1] + z[3] * BOX_LOG_SIDE_SD[1])
    cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
    return (float(cx - w * sw / 2), float(cy - h * sh / 2), float(cx + w * sw / 2), float(cy + h * sh / 2))


def index_view(
    box, pixels: float, turn: float, tilt: tuple[float, float] = (0.0, 0.0)
) -> tuple[np.ndarray, np.ndarray]:
    """The matrix from face pixels to a photo in which the index ``box`` is ``pixels`` high, turned by ``turn``
    and centred on the origin (``tilt``: the perspective row), and the index box's four corners there."""
    height = max(box[3] - box[1], 1.0)
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    local = _rotation(turn) @ np.diag([pixels / height, pixels / height, 1.0]) @ _translation(-centre[0], -centre[1])
    local[2, :2] += tilt
    return local, _project(local, _corners(box))


def label_box(quad: np.ndarray, offset: float) -> tuple[float, float, float, float]:
    """The axis-aligned box round an index's projected corners, as the scene renderer labels it."""
    x0, y0 = quad.min(axis=0) + offset
    x1, y1 = quad.max(axis=0) + offset
    return float(x0), float(y0), float(x1), float(y1)


def _overlap(box, other) -> float:
    """The share of ``other``'s area that ``box`` covers."""
    ix = max(0.0, min(box[2], other[2]) - max(box[0], other[0]))
    iy = max(0.0, min(box[3], other[3]) - max(box[1], other[1]))
    return ix * iy / max(1e-9, (other[2] - other[0]) * (other[3] - other[1]))


CHUNK = 2000  # crops per work item; chunk i of a seed is the same whatever the number of workers. Each chunk
# fills its procedural deck pool anew (PROCEDURAL_DECK_POOL decks of about 90 ms each), so a larger chunk
# spends less of its time drawing decks; the decks drawn anew every DECK_TURNOVER crops keep the variety.
_WORKER: dict = {}


def load_renderer(
    split: str,
    seed: int,
    deck_paths: tuple[Path, ...] = (),
    size: int = CROP_SIZE,
    index_pixels: tuple[float, float] = INDEX_PIXELS,
) -> CropRenderer:
    """A renderer over the packaged decks of ``split`` (``train``: the training decks and procedural decks;
    ``val``: the held-out decks alone, on procedural tables: what a deck never seen looks like), or over the
    deck folders ``deck_paths`` alone (a taught deck) in both; its crops are ``size`` px square, of indices
    ``index_pixels`` (low, high) px long in the photo."""
    from vision.training.synth import decks as deck_assets

    if deck_paths:
        decks = [deck_assets.load_deck(Path(folder)) for folder in deck_paths]
    else:
        decks = deck_assets.load_decks(split=split)
    packaged = [
        deck_of({code: cv2.cvtColor(face, cv2.COLOR_RGBA2BGRA) for code, face in deck.faces.items()}, deck.index_boxes)
        for deck in decks
    ]
    backs = [cv2.cvtColor(back, cv2.COLOR_RGBA2BGRA) for back in deck_assets.load_backs()]
    photos = deck_assets.load_surface_photos() if split == "train" else []
    return CropRenderer(
        packaged,
        photos,
        backs,
        procedural=split == "train" and not deck_paths,
        seed=seed,
        size=size,
        index_pixels=index_pixels,
    )


def _init_worker(
    seed: int, deck_paths: tuple[Path, ...], size: int, splits: tuple[str, ...], index_pixels: tuple[float, float]
) -> None:
    cv2.setNumThreads(1)
    # only the splits the set draws: loading a renderer (its decks' faces and pyramids) takes seconds
    _WORKER["renderers"] = {split: load_renderer(split, seed, deck_paths, size, index_pixels) for split in splits}


def _write_chunk(job: tuple[Path, str, int, int, int, bool]) -> int:
    out, split, seed, chunk, count, swap = job
    renderer: CropRenderer = _WORKER["renderers"][split]
    renderer.rng = np.random.default_rng([seed, chunk, 7])  # procedural decks too: same seed, same crops
    renderer.pool, renderer.sheets, renderer.textures, renderer.drawn = [], [], [], 0
    rng = np.random.default_rng([seed, chunk])
    for i in range(count):
        name, crop = renderer.crop(rng)
        if swap:
            crop = crop[..., ::-1]
        cv2.imwrite(str(out / split / name / f"c{seed}_{chunk:06d}_{i:03d}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return count


@dataclass(frozen=True)
class CropSet:
    """A set of crops to write under ``out/{train,val}/<class>/`` (the ultralytics classification layout; the
    classes: the 52 codes and ``none``)."""

    out: Path
    train: int  # crops of the training decks and procedural decks (or of ``decks``)
    val: int = 0  # crops of the held-out decks alone (or of ``decks``)
    seed: int = 0
    decks: tuple[Path, ...] = ()  # deck folders to draw alone, in both splits (a taught deck)
    bgr: bool = False  # red and blue swapped, for a classifier that reads BGR tensors (train.start_channel_order)
    size: int = CROP_SIZE  # px, square: the input size of the classifier that will learn from them
    # the index box's longer side in the photo, low and high (px, drawn log-uniformly); INDEX_PIXELS unless a run
    # measures another range (session 35: the reader's crops under 16 px are read only about half right after training)
    index_pixels: tuple[float, float] = INDEX_PIXELS


def generate_crops(crop_set: CropSet, workers: int = 0, progress=print) -> dict[str, float]:
    """Write ``crop_set`` with ``workers`` processes (0: one a core); returns the count and the seconds."""
    import multiprocessing as mp
    import os
    import time

    for split in ("train", "val"):
        for name in (*CARD_CODES, REJECT_CLASS):
            (crop_set.out / split / name).mkdir(parents=True, exist_ok=True)
    jobs = []
    for split, total, offset in (("train", crop_set.train, 0), ("val", crop_set.val, 1_000_000)):
        for start in range(0, total, CHUNK):
            chunk = offset + start // CHUNK
            jobs.append((crop_set.out, split, crop_set.seed, chunk, min(CHUNK, total - start), crop_set.bgr))
    started, done = time.time(), 0
    context = mp.get_context("spawn")
    splits = tuple(dict.fromkeys(job[1] for job in jobs))
    with context.Pool(
        min(workers or os.cpu_count() or 1, max(1, len(jobs))),
        _init_worker,
        (crop_set.seed, crop_set.decks, crop_set.size, splits, crop_set.index_pixels),
    ) as pool:
        for written in pool.imap_unordered(_write_chunk, jobs):
            done += written
            if progress and done % (CHUNK * 20) < CHUNK:
                progress(
                    f"{done} / {crop_set.train + crop_set.val} crops, {done / (time.time() - started):.0f} a second"
                )
    return {"crops": done, "seconds": round(time.time() - started, 1)}
