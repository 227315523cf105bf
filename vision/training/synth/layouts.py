"""Where the cards lie on the table: the arrangements seen at a gin rummy table.

Every layout returns placements in table coordinates (card heights), bottom card first. A
placement with ``code=None`` is a face-down card (its back shows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.cards import CARD_CODES

CARD_WIDTH = 0.7  # card widths are about 0.7 card heights (63 x 88 mm)
TIGHT_SPREAD_SHARE = 0.45  # spreads squeezed so that little more than each card's index column shows


@dataclass(frozen=True)
class Placement:
    code: str | None  # None: face down
    x: float
    y: float
    angle: float  # degrees, counter-clockwise in the image when the camera looks straight down


def _rotate(x: float, y: float, angle: float) -> tuple[float, float]:
    a = math.radians(angle)
    return x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)


def _place(
    placements: list[Placement],
    code: str | None,
    x: float,
    y: float,
    angle: float,
    origin: tuple[float, float],
    base_angle: float,
) -> None:
    rx, ry = _rotate(x, y, base_angle)
    placements.append(Placement(code, origin[0] + rx, origin[1] + ry, angle + base_angle))


def spread(
    rng: np.random.Generator, codes: list[str], origin: tuple[float, float], base_angle: float
) -> list[Placement]:
    """One player's hand laid face up: meld groups of overlapping cards, side by side."""
    out: list[Placement] = []
    n = len(codes)
    groups: list[list[str]] = []
    i = 0
    while i < n:
        size = int(rng.choice([1, 2, 3, 3, 4, 4, 5])) if rng.random() < 0.8 else n - i
        groups.append(codes[i : i + size])
        i += size
    # overlap: how much of each card shows. Real hands are often squeezed until only the index column
    # of each card shows: on real-val half the indices have a neighbour within 0.125 card heights
    # (docs/experiments/reading-settings-history.md), so about half the spreads are that tight.
    step = rng.uniform(0.07, 0.13) if rng.random() < TIGHT_SPREAD_SHARE else rng.uniform(0.12, 0.32)
    gap = rng.uniform(0.15, 0.6) if rng.random() < 0.8 else step
    cascade = rng.random() < 0.15  # cards stepped downward instead of sideways
    drift = rng.normal(0, 0.03)  # rows not quite straight
    two_rows = len(groups) > 2 and rng.random() < 0.3
    row_gap = rng.uniform(0.5, 1.3)
    y = 0.0
    total_width = sum(len(g) - 1 for g in groups) * step + (len(groups) - 1) * (gap + CARD_WIDTH)
    x = -total_width / 2 if not two_rows else -total_width / 4
    start_x = x
    for gi, group in enumerate(groups):
        if two_rows and gi == (len(groups) + 1) // 2:
            x, y = start_x, y + row_gap
        for card in group:
            jitter = rng.normal(0, 2.5)
            if cascade:
                _place(out, card, x * 0.3, y + (x - start_x) * 0.9, jitter, origin, base_angle)
            else:
                _place(out, card, x, y + drift * x + rng.normal(0, 0.01), jitter, origin, base_angle)
            x += step
        x += gap + CARD_WIDTH - step
    return out


def showdown(rng: np.random.Generator, codes: list[str]) -> list[Placement]:
    """Both players' hands spread face up, one on each side of the table."""
    half = len(codes) // 2 + int(rng.integers(0, 2)) if len(codes) > 1 else len(codes)
    base = rng.uniform(0, 360)
    distance = rng.uniform(1.15, 2.6)
    facing = 180.0 if rng.random() < 0.4 else 0.0
    a = spread(rng, codes[:half], _rotate(0, -distance / 2, base), base)
    b = spread(rng, codes[half:], _rotate(rng.normal(0, 0.3), distance / 2, base), base + facing)
    return a + b


def four_spreads(rng: np.random.Generator, codes: list[str]) -> list[Placement]:
    """A whole deal laid out in four hands (a dense table, like a bridge deal photo)."""
    base = rng.uniform(0, 360)
    quarters = np.array_split(np.array(codes, dtype=object), 4)
    r = rng.uniform(1.2, 1.8)
    out: list[Placement] = []
    for k, quarter in enumerate(quarters):
        ox, oy = _rotate(0, r, base + 90 * k)
        angle = base + 90 * k + (180 if rng.random() < 0.5 else 0)
        if k % 2 == 1:
            ox, oy = ox * 1.3, oy * 1.3
        out += spread(rng, list(quarter), (ox, oy), angle)
    return out


def fan(
    rng: np.random.Generator,
    codes: list[str],
    origin: tuple[float, float] = (0.0, 0.0),
    base_angle: float | None = None,
) -> list[Placement]:
    """A hand fanned in the fingers: cards turning about a point near their lower corner."""
    base = rng.uniform(0, 360) if base_angle is None else base_angle
    n = len(codes)
    spread_angle = min(rng.uniform(6, 14) * max(n - 1, 1), 160)
    radius = rng.uniform(0.45, 0.8)
    out: list[Placement] = []
    for i, code in enumerate(codes):
        t = (i / max(n - 1, 1) - 0.5) * spread_angle
        x, y = _rotate(0, -radius, t)
        _place(out, code, x, y, t, origin, base)
    return out


def pile(rng: np.random.Generator, codes: list[str]) -> list[Placement]:
    """Cards dropped loosely on top of each other."""
    radius = rng.uniform(0.3, 1.6)
    out: list[Placement] = []
    for c in codes:
        x, y = rng.normal(0, radius / 2, 2)
        out.append(Placement(c, x, y, rng.uniform(0, 360)))
    return out


def singles(rng: np.random.Generator, codes: list[str]) -> list[Placement]:
    """A few cards lying apart."""
    n = len(codes)
    cols = max(1, int(math.ceil(math.sqrt(n))))
    base = rng.uniform(0, 360)
    out: list[Placement] = []
    for i, c in enumerate(codes):
        x = (i % cols - cols / 2) * rng.uniform(0.8, 1.3) + rng.normal(0, 0.1)
        y = (i // cols - cols / 2) * rng.uniform(1.1, 1.5) + rng.normal(0, 0.1)
        _place(out, c, x, y, rng.normal(0, 20) if rng.random() < 0.7 else rng.uniform(0, 360), (0, 0), base)
    return out


def stock_and_discard(
    rng: np.random.Generator, codes: list[str], origin: tuple[float, float] = (0.0, 0.0)
) -> list[Placement]:
    """The face-down stock and the discard pile beside it (only the top discard shows well)."""
    base = rng.uniform(0, 360)
    out: list[Placement] = []
    for k in range(int(rng.integers(3, 12))):
        _place(out, None, rng.normal(0, 0.015), -k * 0.004, rng.normal(0, 3), origin, base)
    dx = rng.uniform(0.8, 1.3)
    for code in codes:
        _place(out, code, dx + rng.normal(0, 0.06), rng.normal(0, 0.06), rng.normal(0, 12), origin, base)
    return out


LAYOUT_WEIGHTS = {
    "showdown": 0.36,
    "four_spreads": 0.10,
    "fan": 0.18,
    "pile": 0.10,
    "singles": 0.08,
    "stock_and_discard": 0.12,
    "empty": 0.06,
}


def random_layout(rng: np.random.Generator) -> tuple[str, list[Placement]]:
    """A layout name and its placements, with distinct random cards of one deck."""
    names = list(LAYOUT_WEIGHTS)
    p = np.array([LAYOUT_WEIGHTS[n] for n in names])
    name = names[rng.choice(len(names), p=p / p.sum())]
    deck = list(rng.permutation(CARD_CODES))
    if name == "showdown":
        n = int(rng.integers(14, 23)) if rng.random() < 0.8 else int(rng.integers(2, 14))
        placements = showdown(rng, deck[:n])
        if rng.random() < 0.3:  # the stock and discard still on the table
            far = rng.uniform(1.6, 2.4)
            placements = (
                stock_and_discard(rng, deck[n : n + int(rng.integers(1, 3))], (far * rng.choice([-1, 1]), 0.0))
                + placements
            )
        return name, placements
    if name == "four_spreads":
        return name, four_spreads(rng, deck[: int(rng.integers(28, 53))])
    if name == "fan":
        n = int(rng.integers(3, 12))
        placements = fan(rng, deck[:n])
        if rng.random() < 0.35:  # the other player's fan too
            placements += fan(rng, deck[n : n + int(rng.integers(3, 12))], (rng.uniform(1.5, 2.5), rng.normal(0, 0.5)))
        return name, placements
    if name == "pile":
        return name, pile(rng, deck[: int(rng.integers(2, 16))])
    if name == "singles":
        return name, singles(rng, deck[: int(rng.integers(1, 9))])
    if name == "stock_and_discard":
        return name, stock_and_discard(rng, deck[: int(rng.integers(1, 6))])
    placements = [] if rng.random() < 0.5 else stock_and_discard(rng, [])
    return name, placements
