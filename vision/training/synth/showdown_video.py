"""Rendered webcam videos of a showdown, for the hands-free camera's tests and its benchmark.

A video is an empty table, then two spreads of 10 cards put down and left still, seen by a fixed
camera from above: every frame is the same rendered picture with its own sensor noise, a sub-pixel
shake of the camera and the video's JPEG compression; on request a hand reaches in over the cards for
a moment and the light drifts. The truth (the two hands) comes with it. ``still_frames`` turns any
photo (a real-val photo) into such frames.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from engine import min_deadwood, parse_cards
from engine.cards import CARD_CODES
from vision.paths import DATASETS_DIR
from vision.training.synth.camera import Camera
from vision.training.synth.decks import load_deck, load_surface_photos
from vision.training.synth.layouts import CARD_WIDTH, Placement
from vision.training.synth.scene import render_scene

NOISE_SIGMA = 3.0  # grey levels of sensor noise per frame
SHAKE_PX = 0.3  # the camera's sub-pixel shake (standard deviation)


RANKS = "A23456789TJQK"
SUITS = "shdc"


def gin_and_other_hand(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    """A knocker's gin hand (a run of four, a run of three and a set of three, checked with the engine) and
    10 other cards: a showdown that can be saved (a random deal rarely holds a legal knock)."""
    while True:
        suits = rng.permutation(list(SUITS))
        long_start, short_start = rng.integers(0, len(RANKS) - 3), rng.integers(0, len(RANKS) - 2)
        rank = RANKS[int(rng.integers(len(RANKS)))]
        gin = (
            [RANKS[long_start + i] + suits[0] for i in range(4)]
            + [RANKS[short_start + i] + suits[1] for i in range(3)]
            + [rank + suit for suit in suits[1:]]
        )
        if len(set(gin)) == 10 and min_deadwood(parse_cards(" ".join(gin))) == 0:
            break
    rest = [str(code) for code in rng.permutation([code for code in CARD_CODES if code not in gin])[:10]]
    return [gin[i] for i in rng.permutation(10)], rest


@dataclass(frozen=True)
class ShowdownPictures:
    """The empty table, the same table with both spreads on it, and the two hands as dealt."""

    empty: np.ndarray  # BGR
    showdown: np.ndarray  # BGR
    hands: tuple[tuple[str, ...], tuple[str, ...]]


def showdown_pictures(
    seed: int, deck: str = "kde_penguins", size: tuple[int, int] = (1920, 1080), surface: str | None = None
) -> ShowdownPictures:
    """A still showdown of two 10-card spreads of ``deck`` (the first a gin hand) (a folder of ``datasets/decks``; the default is
    a held-out deck) on a table surface photo (``surface``: a file of ``datasets/surfaces``, else random),
    seen from above by a webcam of ``size``, and the same table without the cards."""
    rng = np.random.default_rng(seed)
    gin, other = gin_and_other_hand(rng)
    cards = gin + other
    art = load_deck(DATASETS_DIR / "decks" / deck)
    faces = replace(art, faces={code: cv2.cvtColor(face, cv2.COLOR_RGBA2BGRA) for code, face in art.faces.items()})
    photos = load_surface_photos()
    if surface:
        chosen = cv2.imread(str(DATASETS_DIR / "surfaces" / surface))
        if chosen is None:
            raise FileNotFoundError(f"no surface photo {surface!r} in datasets/surfaces")
        photos = [np.asarray(chosen)]
    placements = showdown_layout(rng, cards)
    points = np.array([[p.x, p.y] for p in placements])
    centre = points.mean(axis=0)
    radius = float(np.max(np.linalg.norm(points - centre, axis=1))) + 0.6
    camera = Camera(
        tilt=float(rng.uniform(0, 12)),
        yaw=float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 4)),
        roll=0.0,
        card_pixels=0.95 * min(size) / (2 * radius),
        image_size=size,
        target=(float(centre[0]), float(centre[1])),
    )
    scene_seed = int(rng.integers(2**31))
    table = render_scene(
        np.random.default_rng(scene_seed), faces, [], photos, size, [], camera, effects=False, clutter=0
    )
    spreads = render_scene(
        np.random.default_rng(scene_seed), faces, [], photos, size, placements, camera, effects=False, clutter=0
    )
    return ShowdownPictures(table.image, spreads.image, (tuple(gin), tuple(other)))


def showdown_layout(rng: np.random.Generator, cards: list[str]) -> list[Placement]:
    """Two spreads of 10 (``cards[:10]`` and ``cards[10:]``) facing each other across the table, each a
    row of overlapping cards in groups of three or four, every corner index showing (as players spread
    their hands at a showdown: ``layouts.spread`` also renders the squeezed and stacked spreads a reader
    must survive)."""
    distance = float(rng.uniform(1.4, 2.0))
    placements: list[Placement] = []
    for side, hand in ((-1, cards[:10]), (1, cards[10:])):
        step, gap = float(rng.uniform(0.17, 0.26)), float(rng.uniform(0.15, 0.35))
        breaks = {3, 7} if rng.random() < 0.5 else {4, 7}
        xs, x = [], 0.0
        for index in range(len(hand)):
            if index in breaks:
                x += CARD_WIDTH - step + gap
            xs.append(x)
            x += step
        shift = (xs[-1] + CARD_WIDTH) / 2
        facing = 180.0 if side < 0 and rng.random() < 0.5 else 0.0
        for code, x in zip(hand, xs, strict=True):
            placements.append(
                Placement(
                    code, x - shift + float(rng.normal(0, 0.01)), side * distance / 2, facing + float(rng.normal(0, 2))
                )
            )
    return placements


def _hand_over(frame: np.ndarray, progress: float, rng: np.random.Generator) -> None:
    """A hand-like blob reaching in from the bottom edge (``progress`` 0..1: in and out again)."""
    height, width = frame.shape[:2]
    reach = math.sin(math.pi * progress)
    centre = (int(width * (0.3 + 0.4 * progress)), int(height * (1.05 - 0.55 * reach)))
    axes = (int(width * 0.07), int(height * 0.22))
    colour = tuple(int(v) for v in (90 + rng.normal(0, 3), 140 + rng.normal(0, 3), 200 + rng.normal(0, 3)))
    cv2.ellipse(frame, centre, axes, 15, 0, 360, colour, -1, cv2.LINE_AA)
    cv2.line(frame, centre, (centre[0] + width // 10, height), colour, int(width * 0.09), cv2.LINE_AA)  # the arm


def noisy(picture: np.ndarray, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """One camera frame of a still picture: a sub-pixel shake, sensor noise and the light's ``gain``."""
    height, width = picture.shape[:2]
    shift = np.array([[1, 0, rng.normal(0, SHAKE_PX)], [0, 1, rng.normal(0, SHAKE_PX)]], dtype=np.float32)
    frame = cv2.warpAffine(picture, shift, (width, height), borderMode=cv2.BORDER_REFLECT)
    noise = rng.normal(0, NOISE_SIGMA, frame.shape)
    return np.clip(frame.astype(np.float32) * gain + noise, 0, 255).astype(np.uint8)


def still_frames(
    picture: np.ndarray,
    count: int,
    seed: int = 0,
    hand_at: tuple[int, int] | None = None,
    light_drift: float = 0.0,
) -> Iterator[np.ndarray]:
    """``count`` camera frames of a still picture; ``hand_at`` (first, last frame): a hand passes over it
    then; ``light_drift``: the light rises and falls by this share over the frames."""
    rng = np.random.default_rng(seed)
    for index in range(count):
        gain = 1.0 + light_drift * math.sin(2 * math.pi * index / max(count, 1))
        frame = noisy(picture, rng, gain)
        if hand_at is not None and hand_at[0] <= index <= hand_at[1]:
            span = hand_at[1] - hand_at[0]
            _hand_over(frame, (index - hand_at[0]) / span if span else 0.5, rng)  # one frame: reaching furthest
        yield frame


def write_video(path: Path, frames: Iterator[np.ndarray], fps: float) -> Path:
    """Frames to a Motion-JPEG AVI (what a webcam's stream looks like to OpenCV)."""
    writer: cv2.VideoWriter | None = None
    try:
        for frame in frames:
            if writer is None:
                height, width = frame.shape[:2]
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (width, height))
                if not writer.isOpened():
                    raise OSError(f"cannot write a video to {path}")
            writer.write(frame)
    finally:
        if writer is not None:
            writer.release()
    return path


def write_showdown_video(
    path: Path,
    pictures: ShowdownPictures,
    fps: float = 5.0,
    empty_s: float = 3.0,
    still_s: float = 30.0,
    seed: int = 0,
    hand_at_s: tuple[float, float] | None = None,
    light_drift: float = 0.0,
) -> Path:
    """The empty table for ``empty_s``, then the still showdown for ``still_s`` (a hand passing over it
    between ``hand_at_s`` seconds after it appears, if given), as an MJPEG AVI at ``fps``."""
    hand = None if hand_at_s is None else (round(hand_at_s[0] * fps), round(hand_at_s[1] * fps))

    def frames() -> Iterator[np.ndarray]:
        yield from still_frames(pictures.empty, round(empty_s * fps), seed)
        yield from still_frames(pictures.showdown, round(still_s * fps), seed + 1, hand, light_drift)

    return write_video(path, frames(), fps)
