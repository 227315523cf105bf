"""Table surfaces: procedural felt, wood, cloth and paper, and photos from datasets/surfaces."""

from __future__ import annotations

import cv2
import numpy as np


def _smooth_noise(rng: np.random.Generator, size: tuple[int, int], scale: float) -> np.ndarray:
    """Noise in [0, 1] with features about ``scale`` pixels across."""
    h, w = size
    small = rng.random((max(2, int(h / scale)) + 1, max(2, int(w / scale)) + 1)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big, 0.0, 1.0)


def _random_colour(rng: np.random.Generator, palette: list[tuple[int, int, int]]) -> np.ndarray:
    base = np.array(palette[rng.integers(len(palette))], dtype=np.float32)
    return np.clip(base + rng.normal(0, 12, 3), 0, 255).astype(np.float32)


FELT = [(40, 110, 30), (30, 80, 20), (90, 60, 20), (30, 30, 120), (60, 60, 60), (20, 20, 20)]  # BGR
WOOD = [(40, 80, 140), (30, 60, 110), (60, 110, 170), (20, 40, 70), (80, 130, 190)]
CLOTH = [(200, 200, 200), (180, 140, 90), (60, 60, 160), (90, 150, 90), (150, 150, 200), (50, 50, 50)]
PAPER = [(235, 240, 240), (210, 225, 230), (200, 200, 190)]


def felt(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    colour = _random_colour(rng, FELT)
    n = 0.75 + 0.25 * _smooth_noise(rng, size, rng.uniform(20, 80))
    grain = rng.standard_normal(size, dtype=np.float32) * rng.uniform(3, 10)
    img = colour[None, None, :] * n[..., None] + grain[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def wood(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    h, w = size
    colour = _random_colour(rng, WOOD)
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    warp = _smooth_noise(rng, size, rng.uniform(60, 200)) * rng.uniform(10, 60)
    period = rng.uniform(6, 30)
    rings = 0.5 + 0.5 * np.sin((y + warp + 0.02 * x) / period * 2 * np.pi)
    streak = _smooth_noise(rng, (h, max(2, w // 8)), 4)
    streak = cv2.resize(streak, (w, h))
    shade = 0.7 + 0.2 * rings + 0.15 * streak
    img = colour[None, None, :] * shade[..., None]
    # planks
    if rng.random() < 0.5:
        plank = rng.uniform(60, 200)
        seams = (np.mod(y, plank) < 2).astype(np.float32)
        img *= (1 - 0.5 * seams)[..., None]
    img = img + rng.standard_normal(img.shape, dtype=np.float32) * 3
    if rng.random() < 0.5:
        img = np.ascontiguousarray(np.transpose(img, (1, 0, 2)))
        img = cv2.resize(img, (w, h))
    return np.clip(img, 0, 255).astype(np.uint8)


def cloth(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    h, w = size
    c1, c2 = _random_colour(rng, CLOTH), _random_colour(rng, CLOTH)
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    kind = rng.integers(3)
    if kind == 0:  # checks / tablecloth
        p = rng.uniform(15, 60)
        m = ((np.floor(x / p) + np.floor(y / p)) % 2).astype(np.float32)
    elif kind == 1:  # stripes
        p = rng.uniform(8, 40)
        m = (0.5 + 0.5 * np.sin(x / p * 2 * np.pi)) * np.ones_like(y)
    else:  # weave
        p = rng.uniform(2, 5)
        m = 0.5 + 0.25 * np.sin(x / p) + 0.25 * np.sin(y / p)
    m = m * rng.uniform(0.3, 1.0)
    img = c1[None, None, :] * (1 - m[..., None]) + c2[None, None, :] * m[..., None]
    img = img * (0.85 + 0.15 * _smooth_noise(rng, size, 50))[..., None]
    img = img + rng.standard_normal(img.shape, dtype=np.float32) * 4
    return np.clip(img, 0, 255).astype(np.uint8)


def paper(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    colour = _random_colour(rng, PAPER)
    n = 0.9 + 0.1 * _smooth_noise(rng, size, rng.uniform(5, 40))
    img = colour[None, None, :] * n[..., None] + rng.standard_normal((*size, 1), dtype=np.float32) * 2
    return np.clip(img, 0, 255).astype(np.uint8)


PROCEDURAL = (felt, wood, cloth, paper)


PHOTO_SHARE = 0.55  # of the tables, those cut from a photo of a real surface (when there are photos)


def random_surface(rng: np.random.Generator, size: tuple[int, int], photos: list[np.ndarray]) -> np.ndarray:
    """A (h, w) BGR table surface: a random crop of a photo, or a procedural texture."""
    if photos and rng.random() < PHOTO_SHARE:
        return surface_window(rng, photos[rng.integers(len(photos))], size)
    make = PROCEDURAL[rng.integers(len(PROCEDURAL))]
    return make(rng, size)


def surface_window(rng: np.random.Generator, surface: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A (h, w) window of a surface image at a random place and zoom (0.5 to 1.5), half the time turned half round."""
    h, w = size
    ph, pw = surface.shape[:2]
    zoom = rng.uniform(0.5, 1.5)
    cw, ch = min(pw, int(w / zoom)), min(ph, int(h / zoom))
    x0 = rng.integers(0, pw - cw + 1)
    y0 = rng.integers(0, ph - ch + 1)
    img = cv2.resize(surface[y0 : y0 + ch, x0 : x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        img = cv2.rotate(img, cv2.ROTATE_180)
    return img
