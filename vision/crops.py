"""Square crops around corner-index boxes: the classifier's input, the same in training and use."""

from __future__ import annotations

import cv2
import numpy as np

CROP_PADDING = 0.15  # fraction of the box's longer side added on every side
CROP_SIZE = 64  # pixels; the classifier's input size
WHITE_PERCENTILE = 90  # balance_white: the brightest tenth of a crop is the card's white paper
MAX_WHITE_GAIN = 2.0  # balance_white never scales a channel by more than this (or less than its inverse)


def crop_index(
    image: np.ndarray,
    box: tuple[float, float, float, float],
    padding: float = CROP_PADDING,
    size: int = CROP_SIZE,
    balance: bool = True,
    isolate: float = 0.0,
) -> np.ndarray:
    """A ``size`` x ``size`` BGR crop centred on ``box`` (x0, y0, x1, y1), square, padded, and
    (``balance``) white-balanced by ``balance_white``.

    Parts of the square outside the image are filled by replicating the border. ``isolate`` > 0 paints
    everything farther than ``isolate`` x ``size`` pixels outside the box with the crop's paper colour
    (``isolate_box``): a narrow index in a squeezed hand is then read without its neighbours.
    """
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0) * (1.0 + 2.0 * padding)
    side = max(side, 4.0)
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    # affine map: square in the image -> size x size output
    scale = size / side
    matrix = np.array([[scale, 0.0, size / 2.0 - cx * scale], [0.0, scale, size / 2.0 - cy * scale]], dtype=np.float64)
    interpolation = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(image, matrix, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE)
    if isolate > 0:
        inner = (
            (x0 - cx) * scale + size / 2.0,
            (y0 - cy) * scale + size / 2.0,
            (x1 - cx) * scale + size / 2.0,
            (y1 - cy) * scale + size / 2.0,
        )
        crop = isolate_box(crop, inner, isolate * size)
    return balance_white(crop) if balance else crop


def crop_indices(
    image: np.ndarray,
    boxes: np.ndarray,
    padding: float = CROP_PADDING,
    size: int = CROP_SIZE,
    isolate: float = 0.0,
    balance: bool = True,
) -> list[np.ndarray]:
    """``crop_index`` of each of the (N, 4) ``boxes``, white-balanced together in one step
    (``balance_white_all``): the same crops, in about a fifth of the time for a frame's 50 boxes.
    ``balance=False``: the crops as cut (balancing is most of the cost; a webcam frame balances only the
    crops it reads afresh).

    >>> image = np.random.default_rng(1).integers(0, 255, (40, 60, 3), dtype=np.uint8)
    >>> boxes = np.array([[5.0, 5.0, 15.0, 20.0], [30.0, 10.0, 50.0, 30.0]])
    >>> all(np.array_equal(a, crop_index(image, tuple(b))) for a, b in zip(crop_indices(image, boxes), boxes))
    True
    """
    raw = [crop_index(image, tuple(box), padding, size, balance=False, isolate=isolate) for box in boxes]
    if not raw or not balance:
        return raw
    return list(balance_white_all(np.stack(raw)))


def isolate_box(crop: np.ndarray, box: tuple[float, float, float, float], margin: float) -> np.ndarray:
    """The crop with everything more than ``margin`` pixels outside ``box`` (crop pixels) painted in the
    crop's paper colour (its ``WHITE_PERCENTILE``-th percentile per channel).

    >>> crop = np.zeros((8, 8, 3), np.uint8); crop[:, 4:] = 200
    >>> isolate_box(crop, (0, 0, 2, 8), 1)[0].tolist() == [[0, 0, 0]] * 3 + [[200, 200, 200]] * 5
    True
    """
    height, width = crop.shape[:2]
    x0, y0, x1, y1 = box
    left, top = max(0, int(np.floor(x0 - margin))), max(0, int(np.floor(y0 - margin)))
    right, bottom = min(width, int(np.ceil(x1 + margin))), min(height, int(np.ceil(y1 + margin)))
    paper = np.percentile(crop.reshape(-1, crop.shape[2]), WHITE_PERCENTILE, axis=0)
    out = np.empty_like(crop)
    out[:] = np.round(paper).astype(crop.dtype)
    out[top:bottom, left:right] = crop[top:bottom, left:right]
    return out


def balance_white_all(crops: np.ndarray) -> np.ndarray:
    """``balance_white`` of each crop of an (N, H, W, 3) uint8 stack, computed for all of them at once."""
    # in float32 throughout, as the crops the classifiers were trained on were balanced
    white = np.maximum(channel_percentile(crops, WHITE_PERCENTILE).astype(np.float32), np.float32(1.0))  # (N, 3)
    gains = np.clip(white.mean(axis=1, keepdims=True) / white, 1.0 / MAX_WHITE_GAIN, MAX_WHITE_GAIN)
    # channel by channel: numpy broadcasts a last axis of three (N, H, W, 3) x (N, 1, 1, 3) in loops of three
    # elements, several times slower than one plane at a time; the same float32 arithmetic, the same bytes
    balanced = np.empty(crops.shape, np.uint8)
    plane = np.empty(crops.shape[:3], np.float32)
    for channel in range(crops.shape[3]):
        np.multiply(crops[..., channel], gains[:, channel, None, None], out=plane, dtype=np.float32)
        plane += np.float32(0.5)
        np.clip(plane, 0, 255, out=plane)
        balanced[..., channel] = plane  # truncated as astype(np.uint8) truncates
    return balanced


def channel_percentile(crops: np.ndarray, percentile: float) -> np.ndarray:
    """The ``percentile`` of each channel of each crop of an (N, H, W, C) uint8 stack, (N, C): what
    ``np.percentile`` gives (linear interpolation), counted from one histogram per channel instead of sorting
    (OpenCV's histograms: about a quarter of the time of one ``np.bincount`` over the whole stack).

    >>> crops = np.random.default_rng(0).integers(0, 256, (3, 8, 8, 3), dtype=np.uint8)
    >>> expected = np.percentile(crops.reshape(3, -1, 3), 90, axis=1)
    >>> bool(np.array_equal(channel_percentile(crops, 90), expected))
    True
    """
    count, channels = len(crops), crops.shape[-1]
    histograms = np.empty((count, channels, 256), np.float64)
    for i in range(count):
        crop = np.ascontiguousarray(crops[i])  # once per crop, for all its channels
        for channel in range(channels):
            histograms[i, channel] = cv2.calcHist([crop], [channel], None, [256], [0, 256]).ravel()
    cumulative = histograms.cumsum(axis=2)
    position = percentile / 100.0 * (crops.shape[1] * crops.shape[2] - 1)
    low = int(np.floor(position))
    value_low = (cumulative <= low).sum(axis=2)  # the (low + 1)-th smallest value: low values lie below it
    if position == low:
        return value_low.astype(np.float64)
    value_high = (cumulative <= low + 1).sum(axis=2)
    return value_low + (position - low) * (value_high - value_low)


def balance_white(crop: np.ndarray) -> np.ndarray:
    """The crop with its colour cast removed: each channel is scaled so that the crop's bright pixels
    (its ``WHITE_PERCENTILE``-th percentile, the card's paper around an index) come out grey, keeping
    their mean brightness. Under warm or dim light a red index then stays red (what it fixed on real-val:
    docs/experiments/reading-settings-history.md).

    >>> tinted = np.dstack([np.full((4, 4), 100), np.full((4, 4), 150), np.full((4, 4), 200)]).astype(np.uint8)
    >>> balance_white(tinted)[0, 0].tolist()
    [150, 150, 150]
    >>> int(balance_white(np.zeros((4, 4, 3), np.uint8)).max())  # a black crop stays black, no division by zero
    0
    """
    return balance_white_all(crop[None])[0]
