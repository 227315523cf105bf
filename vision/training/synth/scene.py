"""Render one synthetic table scene: surface, cards under a camera, light, lens and sensor.

The labels are one box per corner index that a person could still read: an index region more than
``HIDDEN_INDEX_LIMIT`` hidden (under another card, an object, or outside the photo) gets no box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from engine.cards import CARD_CODES
from vision.training.synth.camera import Camera, project
from vision.training.synth.clutter import PIXELS_PER_CARD, ClutterSheet, random_clutter
from vision.training.synth.layouts import Placement, random_layout
from vision.training.synth.surfaces import random_surface

HIDDEN_INDEX_LIMIT = 0.35  # an index more than 35 % covered (or cut off) is not labelled
MIN_BOX_PIXELS = 5  # boxes smaller than this (either side) are not labelled
CLOSE_UP_SHARE = 0.12  # scenes shot close: cards 0.5 to 1.5 times the image's long side
FAR_SHARE = 0.08  # scenes shot from far: cards 0.045 to 0.1 times the long side
CLUTTER_SHARE = 0.5  # scenes with text, a score pad, patterned cloth or objects on the table
NEGATIVES_PER_SCENE = 8  # "not a card" boxes sampled per scene (clutter, card pictures, table)
CODE_TO_CLASS = {code: i for i, code in enumerate(CARD_CODES)}


@dataclass
class IndexLabel:
    code: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 pixels
    visible: float  # fraction of the index region visible


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    labels: list[IndexLabel] = field(default_factory=list)
    layout: str = ""
    deck_id: str = ""
    hidden: list[str] = field(default_factory=list)  # codes of indices dropped as unreadable
    # the indices dropped as unreadable, with where they lie: a card read there is the card lying there
    hidden_labels: list[IndexLabel] = field(default_factory=list)
    # every index region of a drawn card (labelled or hidden), x0 y0 x1 y1: never a negative example
    index_regions: list[tuple[float, float, float, float]] = field(default_factory=list)
    # boxes that are surely not an index (clutter, card pictures and pips, the table): "not a card" crops
    negatives: list[tuple[float, float, float, float]] = field(default_factory=list)
    clutter: list[str] = field(default_factory=list)  # kinds of clutter items drawn


def random_camera(
    rng: np.random.Generator, image_size: tuple[int, int], layout_radius: float, close_up_share: float = CLOSE_UP_SHARE
) -> Camera:
    w, h = image_size
    tilt = float(min(abs(rng.normal(0, 22)), 52))
    # Card sizes in pixels match what the detector sees at inference (a photo read at 1024 px):
    # a training image is then like a 640 px window of such a photo, and may cut the layout.
    fit = 0.92 * min(w, h) / (2 * layout_radius + 1.0)
    card_pixels = float(np.exp(rng.uniform(np.log(0.1 * max(w, h)), np.log(0.5 * max(w, h)))))
    distance_kind = rng.random()
    if distance_kind < close_up_share:
        # any distance: a close-up of one spread up to a single card filling the frame
        card_pixels = float(np.exp(rng.uniform(np.log(0.5 * max(w, h)), np.log(1.5 * max(w, h)))))
    elif distance_kind < close_up_share + FAR_SHARE:
        # the whole table from a chair: indices down to about 8 pixels
        card_pixels = float(np.exp(rng.uniform(np.log(0.045 * max(w, h)), np.log(0.1 * max(w, h)))))
    elif rng.random() < 0.35:
        card_pixels = max(min(card_pixels, fit), 0.08 * max(w, h))
    elif rng.random() < 0.7:
        card_pixels = max(min(card_pixels, 1.6 * fit), 0.08 * max(w, h))
    return Camera(
        tilt=tilt,
        yaw=float(rng.uniform(0, 360)),
        roll=float(rng.normal(0, 3)),
        card_pixels=card_pixels,
        image_size=image_size,
        shift=(float(rng.normal(0, 0.06 * w)), float(rng.normal(0, 0.06 * h))),
        distance=float(rng.uniform(4, 14)),
    )


def _face_to_table(face_shape: tuple[int, int], p: Placement) -> np.ndarray:
    """Affine 3x3 from face pixels to table coordinates (card height = 1)."""
    fh, fw = face_shape
    s = 1.0 / fh
    a = math.radians(p.angle)
    c, si = math.cos(a), math.sin(a)
    centre = np.array([[1, 0, -fw / 2], [0, 1, -fh / 2], [0, 0, 1]], dtype=np.float64)
    scale = np.diag([s, s, 1.0])
    rot = np.array([[c, -si, 0], [si, c, 0], [0, 0, 1]], dtype=np.float64)
    move = np.array([[1, 0, p.x], [0, 1, p.y], [0, 0, 1]], dtype=np.float64)
    return move @ rot @ scale @ centre


def as_bgra(image: np.ndarray) -> np.ndarray:
    """Any 8-bit image as BGRA (opaque where it had no alpha channel)."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    return image


def _warp_into(
    canvas: np.ndarray,
    owner: np.ndarray,
    rgba: np.ndarray,
    h: np.ndarray,
    owner_id: int,
    shadow: tuple[float, float, float] | None,
) -> tuple[int, int, int, int] | None:
    """Warp an RGBA image onto the canvas with homography ``h``; returns the ROI drawn (x0,y0,x1,y1)."""
    H, W = canvas.shape[:2]
    rgba = as_bgra(rgba)
    fh, fw = rgba.shape[:2]
    corners = project(h, np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], dtype=np.float64))
    pad = 12
    x0 = int(max(0, math.floor(corners[:, 0].min()) - pad))
    y0 = int(max(0, math.floor(corners[:, 1].min()) - pad))
    x1 = int(min(W, math.ceil(corners[:, 0].max()) + pad))
    y1 = int(min(H, math.ceil(corners[:, 1].max()) + pad))
    if x1 <= x0 or y1 <= y0:
        return None
    t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64) @ h
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(
        rgba, t, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)
    )
    alpha = warped[..., 3:4].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    if shadow is not None:
        dx, dy, strength = shadow
        m = np.asarray([[1, 0, dx], [0, 1, dy]], dtype=np.float32)
        sh = cv2.warpAffine(alpha[..., 0], m, size)
        k = max(3, int(abs(dx) + abs(dy)) * 2 + 1) | 1
        sh = cv2.GaussianBlur(sh, (k, k), 0)
        roi *= (1.0 - strength * sh)[..., None]
    roi = roi * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha
    canvas[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    owner[y0:y1, x0:x1][alpha[..., 0] > 0.5] = owner_id
    return x0, y0, x1, y1


def _visible_fraction(owner: np.ndarray, polygon: np.ndarray, owner_id: int) -> float:
    """Fraction of the polygon's pixels owned by ``owner_id`` (outside the image counts hidden)."""
    H, W = owner.shape
    x0, y0 = np.floor(polygon.min(axis=0)).astype(int)
    x1, y1 = np.ceil(polygon.max(axis=0)).astype(int)
    bw, bh = x1 - x0 + 1, y1 - y0 + 1
    if bw <= 0 or bh <= 0:
        return 0.0
    mask = np.zeros((bh, bw), np.uint8)
    cv2.fillPoly(mask, [np.round(polygon - [x0, y0]).astype(np.int32)], 1)
    total = int(mask.sum())
    if total == 0:
        return 0.0
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1 + 1, W), min(y1 + 1, H)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0.0
    sub_mask = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0]
    seen = int(((owner[cy0:cy1, cx0:cx1] == owner_id) & (sub_mask > 0)).sum())
    return seen / total


def _draw_occluders(
    rng: np.random.Generator,
    canvas: np.ndarray,
    owner: np.ndarray,
    card_pixels: float,
    hint: tuple[float, float] | None,
) -> None:
    """Fingers, a cup, a phone: things that lie over cards at a real table."""
    H, W = canvas.shape[:2]
    overlay = canvas.copy()
    mask = np.zeros((H, W), np.uint8)
    kind = rng.choice(["fingers", "cup", "phone"], p=[0.6, 0.2, 0.2])
    if kind == "fingers":
        skin = np.array([rng.uniform(60, 170), rng.uniform(100, 190), rng.uniform(150, 235)])
        cx, cy = hint if hint is not None else (rng.uniform(0, W), rng.uniform(0, H))
        base = rng.uniform(0, 2 * np.pi)
        fw = card_pixels * rng.uniform(0.12, 0.2)
        for k in range(int(rng.integers(1, 5))):
            a = base + rng.normal(0, 0.25)
            length = card_pixels * rng.uniform(0.5, 1.0)
            ox, oy = cx + k * fw * 0.9 * math.cos(base + np.pi / 2), cy + k * fw * 0.9 * math.sin(base + np.pi / 2)
            p1 = (int(ox), int(oy))
            p2 = (int(ox + length * math.cos(a)), int(oy + length * math.sin(a)))
            cv2.line(mask, p1, p2, 1, int(fw))
            cv2.circle(mask, p2, int(fw / 2), 1, -1)
        colour = skin
    elif kind == "cup":
        r = int(card_pixels * rng.uniform(0.3, 0.5))
        c = (int(rng.uniform(0, W)), int(rng.uniform(0, H)))
        cv2.circle(mask, c, r, 1, -1)
        colour = rng.uniform(30, 250, 3)
    else:
        w, h = card_pixels * rng.uniform(0.6, 0.9), card_pixels * rng.uniform(1.2, 1.7)
        centre = (rng.uniform(0, W), rng.uniform(0, H))
        box = cv2.boxPoints(((centre[0], centre[1]), (w, h), rng.uniform(0, 180)))
        cv2.fillPoly(mask, [box.astype(np.int32)], 1)
        colour = rng.uniform(10, 60, 3)
    shade = 0.75 + 0.25 * cv2.GaussianBlur(mask.astype(np.float32), (0, 0), max(2.0, card_pixels * 0.05))
    overlay = (colour[None, None, :] * shade[..., None]).astype(np.float32)
    m = mask.astype(bool)
    canvas[m] = np.clip(overlay[m], 0, 255).astype(np.uint8)
    owner[m] = -2


@lru_cache(maxsize=256)
def _light_axis(n: int) -> np.ndarray:
    """``n`` points from -1 to 1 across an image side (float32): where the light's gain field is drawn."""
    axis = np.linspace(-1, 1, n, dtype=np.float32)
    axis.flags.writeable = False
    return axis


_LEVELS = np.arange(256) / 255.0  # the 8-bit levels as fractions: the gamma's lookup table is drawn from them


def sensor_noise(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """Gaussian noise of sd ``sigma`` in every channel, float32, from OpenCV's generator seeded from ``rng`` (the
    same scene, the same noise; a third of numpy's time)."""
    noise = np.empty(shape, np.float32)
    channels = shape[2] if len(shape) == 3 else 1
    cv2.setRNGSeed(int(rng.integers(2**31)))
    cv2.randn(noise, np.zeros(channels), np.full(channels, float(sigma)))  # per channel: a bare number fills one
    return noise


def light_and_lens(rng: np.random.Generator, img: np.ndarray, owner: np.ndarray, card_pixels: float) -> np.ndarray:
    H, W = img.shape[:2]
    # uneven light: a smooth gain field 1 + a x + b y + c (x^2 + y^2), summed from a row and a column
    x, y = _light_axis(W), _light_axis(H)
    a, b = rng.normal(0, 0.25, 2)
    c = rng.normal(0, 0.15)
    row = (1.0 + a * x + c * (x * x)).astype(np.float32)
    column = (b * y + c * (y * y)).astype(np.float32)
    gain = row[None, :] + column[:, None]
    # a soft shadow (a hand, a head over the table)
    if rng.random() < 0.3:
        cx, cy, r = rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.3, 0.9)
        d = np.sqrt(((x - cx) ** 2)[None, :] + ((y - cy) ** 2)[:, None])
        gain *= 1 - rng.uniform(0.2, 0.55) * np.clip(1 - d / r, 0, 1) ** 0.7
    np.clip(gain, 0.3, 1.6, out=gain)
    # glare on glossy cards (the blob is drawn only where a glossy pixel will show it)
    glare = None
    if rng.random() < 0.3:
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        sx, sy = card_pixels * rng.uniform(0.2, 1.0), card_pixels * rng.uniform(0.1, 0.5)
        ang = rng.uniform(0, np.pi)
        strength = rng.uniform(60, 200)
        glossy = owner >= 0
        if glossy.any():
            xs, ys = np.arange(W, dtype=np.float32)[None, :] - cx, np.arange(H, dtype=np.float32)[:, None] - cy
            xr = xs * math.cos(ang) + ys * math.sin(ang)
            yr = -xs * math.sin(ang) + ys * math.cos(ang)
            blob = np.exp(-(xr**2 / (2 * sx**2) + yr**2 / (2 * sy**2))).astype(np.float32)
            blob *= glossy
            glare = strength * blob
    # white balance and exposure, then gamma through a lookup table
    balance = rng.uniform(0.8, 1.2, 3).astype(np.float32) * np.float32(rng.uniform(0.65, 1.3))
    # per-channel factors as whole planes (cv2.merge): numpy broadcasts a last axis of three in loops of three
    # elements, several times slower; the same float32 products
    if glare is None:
        f = np.multiply(img, cv2.merge([gain * balance[k] for k in range(3)]), dtype=np.float32)
    else:
        f = np.multiply(img, cv2.cvtColor(gain, cv2.COLOR_GRAY2BGR), dtype=np.float32)
        f += cv2.cvtColor(glare, cv2.COLOR_GRAY2BGR)
        f *= cv2.merge([np.full((H, W), balance[k], np.float32) for k in range(3)])
    np.clip(f, 0, 255, out=f)
    out: np.ndarray = f.astype(np.uint8)
    gamma = rng.uniform(0.7, 1.4)
    lut = np.clip(255.0 * _LEVELS**gamma, 0, 255).astype(np.uint8)
    out = cv2.LUT(out, lut)
    # lens: defocus or motion blur
    r = rng.random()
    if r < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.6))
    elif r < 0.45:
        n = int(rng.integers(3, 10))
        k: np.ndarray = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
        k = np.asarray(cv2.warpAffine(k, rot, (n, n)), dtype=np.float32)
        k /= max(k.sum(), 1e-6)
        out = cv2.filter2D(out, -1, k)
    # sensor noise
    sigma = rng.uniform(0, 9)
    if sigma > 1:
        noise = sensor_noise(rng, out.shape, sigma)
        noise += out
        np.clip(noise, 0, 255, out=noise)
        out = noise.astype(np.uint8)
    # JPEG artefacts
    q = int(rng.integers(35, 96))
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    decoded = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    assert decoded is not None  # the JPEG was just encoded
    return decoded


def _sheet_to_table(sheet: ClutterSheet) -> np.ndarray:
    """Affine 3x3 from a clutter sheet's pixels to table coordinates."""
    fh, fw = sheet.rgba.shape[:2]
    s = 1.0 / PIXELS_PER_CARD
    a = math.radians(sheet.angle)
    c, si = math.cos(a), math.sin(a)
    centre = np.array([[1, 0, -fw / 2], [0, 1, -fh / 2], [0, 0, 1]], dtype=np.float64)
    rot = np.array([[c, -si, 0], [si, c, 0], [0, 0, 1]], dtype=np.float64)
    move = np.array([[1, 0, sheet.x], [0, 1, sheet.y], [0, 0, 1]], dtype=np.float64)
    return move @ rot @ np.diag([s, s, 1.0]) @ centre


CLUTTER_OWNER = -3  # owner map value of clutter pixels


def _box_of(points: np.ndarray) -> tuple[float, float, float, float]:
    return (float(points[:, 0].min()), float(points[:, 1].min()), float(points[:, 0].max()), float(points[:, 1].max()))


def overlaps_a_region(box, regions: np.ndarray, fraction: float) -> bool:
    """Whether ``box`` (x0, y0, x1, y1) covers more than ``fraction`` of any of ``regions`` (N, 4), or any
    of them covers more than ``fraction`` of it: such a box shows part of a corner index."""
    if not len(regions):
        return False
    ix = np.clip(np.minimum(box[2], regions[:, 2]) - np.maximum(box[0], regions[:, 0]), 0, None)
    iy = np.clip(np.minimum(box[3], regions[:, 3]) - np.maximum(box[1], regions[:, 1]), 0, None)
    areas = np.minimum(
        (regions[:, 2] - regions[:, 0]) * (regions[:, 3] - regions[:, 1]), (box[2] - box[0]) * (box[3] - box[1])
    )
    return bool(np.any(ix * iy > fraction * areas))


def _sample_negatives(
    rng: np.random.Generator,
    scene: Scene,
    owner: np.ndarray,
    sources: list[tuple[np.ndarray, tuple[int, int], float]],
    index_side: float,
    count: int,
) -> None:
    """Boxes of about an index's size inside clutter items, card pictures and pips, or anywhere, that
    overlap no index region: what the classifier must answer "not a card" to."""
    H, W = owner.shape
    regions = np.array(scene.index_regions, dtype=np.float64).reshape(-1, 4)
    tries = 0
    while len(scene.negatives) < count and tries < count * 6:
        tries += 1
        side = index_side * float(np.exp(rng.uniform(np.log(0.6), np.log(2.2))))
        aspect = float(np.exp(rng.normal(np.log(0.6), 0.35)))
        bw, bh = (side * aspect, side) if rng.random() < 0.7 else (side, side * aspect)
        if sources and rng.random() < 0.85:
            h, (fw, fh), inset = sources[rng.integers(len(sources))]
            point = project(h, np.array([[rng.uniform(inset, 1 - inset) * fw, rng.uniform(inset, 1 - inset) * fh]]))[0]
        else:
            point = np.array([rng.uniform(0, W), rng.uniform(0, H)])
        box = (point[0] - bw / 2, point[1] - bh / 2, point[0] + bw / 2, point[1] + bh / 2)
        if box[0] < 0 or box[1] < 0 or box[2] > W or box[3] > H or min(bw, bh) < MIN_BOX_PIXELS:
            continue
        if overlaps_a_region(box, regions, 0.1):
            continue
        scene.negatives.append((float(box[0]), float(box[1]), float(box[2]), float(box[3])))


def render_scene(
    rng: np.random.Generator,
    deck,
    backs: list[np.ndarray],
    surface_photos: list[np.ndarray],
    image_size: tuple[int, int],
    placements: list[Placement] | None = None,
    camera: Camera | None = None,
    effects: bool = True,
    clutter: float | None = None,
    clutter_sheets: list[ClutterSheet] | None = None,
    close_up_share: float | None = None,
) -> Scene:
    """One scene with cards of ``deck`` (a vision.training.synth.decks.Deck).

    Random unless ``placements`` (and ``camera``) are given; ``effects=False`` leaves out
    occluders, light, lens and sensor effects (for tests that compare pixels). ``clutter``: how much
    clutter (``vision.training.synth.clutter``) lies on the table, 0 for none; by default, random in a
    ``CLUTTER_SHARE`` of the scenes with effects; ``clutter_sheets`` gives the items instead.
    ``close_up_share``: the share of random cameras shot close (default ``CLOSE_UP_SHARE``).
    """
    W, H = image_size
    if placements is None:
        layout, placements = random_layout(rng)
    else:
        layout = "given"
    centre, radius = _layout_circle(placements)
    cam = camera or random_camera(rng, image_size, radius, CLOSE_UP_SHARE if close_up_share is None else close_up_share)
    if camera is None:
        cam = Camera(**{**cam.__dict__, "target": (float(centre[0]), float(centre[1]))})
    hcam = cam.homography()
    canvas = _table_canvas(rng, image_size, cam, centre, radius, surface_photos)
    owner = np.full((H, W), -1, np.int32)

    if clutter is None:
        clutter = float(rng.uniform(0.5, 2.0)) if effects and rng.random() < CLUTTER_SHARE else 0.0
    if clutter_sheets is not None:
        sheets = list(clutter_sheets)
    else:
        sheets = random_clutter(rng, (float(centre[0]), float(centre[1])), radius, clutter) if clutter > 0 else []
    negative_sources: list[tuple[np.ndarray, tuple[int, int], float]] = []
    for sheet in (s for s in sheets if not s.over_cards):
        h = hcam @ _sheet_to_table(sheet)
        if _warp_into(canvas, owner, sheet.rgba, h, CLUTTER_OWNER, None) is not None:
            negative_sources.append((h, (sheet.rgba.shape[1], sheet.rgba.shape[0]), 0.03))
    drawn = _draw_cards(rng, canvas, owner, deck, backs, placements, sheets, hcam, cam.card_pixels)

    if effects:  # fingers holding a card, now and then a cup or a phone
        if drawn and rng.random() < 0.25:
            i, p, h = drawn[rng.integers(len(drawn))]
            fh, fw = deck.faces[p.code].shape[:2]
            hint = tuple(project(h, np.array([[fw * rng.uniform(0, 1), fh * rng.uniform(0.5, 1)]]))[0])
            _draw_occluders(rng, canvas, owner, cam.card_pixels, hint)
        elif rng.random() < 0.1:
            _draw_occluders(rng, canvas, owner, cam.card_pixels, None)

    scene = Scene(
        image=canvas, layout=layout, deck_id=getattr(deck, "deck_id", ""), clutter=[sheet.kind for sheet in sheets]
    )
    index_sides = _label_indices(scene, deck, drawn, owner, negative_sources)
    scene.image = light_and_lens(rng, canvas, owner, cam.card_pixels) if effects else canvas
    if effects:
        index_side = float(np.median(index_sides)) if index_sides else 0.2 * cam.card_pixels
        _sample_negatives(
            np.random.default_rng(rng.integers(2**63)), scene, owner, negative_sources, index_side, NEGATIVES_PER_SCENE
        )
    return scene


def _layout_circle(placements: list[Placement]) -> tuple[np.ndarray, float]:
    """The middle of the cards laid out, and the radius (in card heights) that holds them all."""
    if not placements:
        return np.zeros(2), 1.0
    pts = np.array([[p.x, p.y] for p in placements])
    centre = pts.mean(axis=0)
    return centre, float(np.max(np.linalg.norm(pts - centre, axis=1))) + 0.5


def _table_canvas(
    rng: np.random.Generator,
    image_size: tuple[int, int],
    cam: Camera,
    centre: np.ndarray,
    radius: float,
    surface_photos: list[np.ndarray],
) -> np.ndarray:
    """The table surface, drawn in table coordinates and seen through the camera (a floor colour beyond it)."""
    W, H = image_size
    tex_size = 640
    extent = max(radius + 1.0, 1.3 * max(W, H) / cam.card_pixels / max(math.cos(math.radians(cam.tilt)), 0.5))
    tex = random_surface(rng, (tex_size, tex_size), surface_photos)
    tex_to_table = np.array(
        [[2 * extent / tex_size, 0, centre[0] - extent], [0, 2 * extent / tex_size, centre[1] - extent], [0, 0, 1]]
    )
    floor = tuple(float(v) for v in rng.uniform(10, 90, 3))
    return cv2.warpPerspective(
        tex,
        cam.homography() @ tex_to_table,
        (W, H),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=floor,
    )


def _draw_cards(
    rng: np.random.Generator,
    canvas: np.ndarray,
    owner: np.ndarray,
    deck,
    backs: list[np.ndarray],
    placements: list[Placement],
    sheets: list[ClutterSheet],
    hcam: np.ndarray,
    card_pixels: float,
) -> list[tuple[int, Placement, np.ndarray]]:
    """The cards (faces, or backs) drawn with their shadows, then the clutter lying over them; the face-up cards
    drawn, with their placement's index and face-to-image homography."""
    back = backs[rng.integers(len(backs))] if backs else None
    light_dir = rng.uniform(0, 2 * np.pi)
    shadow_len = rng.uniform(0, 0.04) * card_pixels
    shadow_strength = rng.uniform(0.1, 0.5)
    shadow = (shadow_len * math.cos(light_dir), shadow_len * math.sin(light_dir), shadow_strength)
    drawn: list[tuple[int, Placement, np.ndarray]] = []
    for i, p in enumerate(placements):
        rgba = deck.faces[p.code] if p.code is not None else back
        if rgba is None:
            continue
        h = hcam @ _face_to_table(rgba.shape[:2], p)
        if _warp_into(canvas, owner, rgba, h, i, shadow) is not None and p.code is not None:
            drawn.append((i, p, h))
    for sheet in (s for s in sheets if s.over_cards):
        _warp_into(canvas, owner, sheet.rgba, hcam @ _sheet_to_table(sheet), CLUTTER_OWNER, shadow)
    return drawn


def _label_indices(
    scene: Scene,
    deck,
    drawn: list[tuple[int, Placement, np.ndarray]],
    owner: np.ndarray,
    negative_sources: list[tuple[np.ndarray, tuple[int, int], float]],
) -> list[float]:
    """Each drawn card's index boxes as labels (or hidden ones) of ``scene``, its middle a source of "not a card"
    crops; returns the indices' sides in pixels."""
    H, W = owner.shape
    index_sides: list[float] = []
    for i, p, h in drawn:
        assert p.code is not None  # only face-up cards are drawn
        fh, fw = deck.faces[p.code].shape[:2]
        negative_sources.append((h, (fw, fh), 0.22))  # a card's middle: court pictures and pips
        for box in deck.index_boxes[p.code]:
            x0, y0, x1, y1 = box
            poly = project(h, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64))
            scene.index_regions.append(_box_of(poly))
            index_sides.append(float(max(np.ptp(poly[:, 0]), np.ptp(poly[:, 1]))))
            visible = _visible_fraction(owner, poly, i)
            bx0, by0 = np.clip(poly.min(axis=0), 0, [W, H])
            bx1, by1 = np.clip(poly.max(axis=0), 0, [W, H])
            label = IndexLabel(p.code, (float(bx0), float(by0), float(bx1), float(by1)), visible)
            if visible >= 1.0 - HIDDEN_INDEX_LIMIT and min(bx1 - bx0, by1 - by0) >= MIN_BOX_PIXELS:
                scene.labels.append(label)
            else:
                scene.hidden.append(p.code)
                if bx1 > bx0 and by1 > by0:
                    scene.hidden_labels.append(label)
    return index_sides
