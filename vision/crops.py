"""Square crops around corner-index boxes: the classifier's input, the same in training and use."""
from __future__ import annotations

import cv2
import numpy as np

CROP_PADDING = 0.15  # fraction of the box's longer side added on every side
CROP_SIZE = 64       # pixels; the classifier's input size
WHITE_PERCENTILE = 90  # balance_white: the brightest tenth of a crop is the card's white paper
MAX_WHITE_GAIN = 2.0   # balance_white never scales a channel by more than this (or less than its inverse)


def crop_index(image: np.ndarray, box: tuple[float, float, float, float],
               padding: float = CROP_PADDING, size: int = CROP_SIZE, balance: bool = True) -> np.ndarray:
    """A ``size`` x ``size`` BGR crop centred on ``box`` (x0, y0, x1, y1), square, padded, and
    (``balance``) white-balanced by ``balance_white``.

    Parts of the square outside the image are filled by replicating the border.
    """
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0) * (1.0 + 2.0 * padding)
    side = max(side, 4.0)
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    # affine map: square in the image -> size x size output
    scale = size / side
    matrix = np.array([[scale, 0.0, size / 2.0 - cx * scale],
                       [0.0, scale, size / 2.0 - cy * scale]], dtype=np.float64)
    interpolation = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(image, matrix, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE)
    return balance_white(crop) if balance else crop


def balance_white(crop: np.ndarray) -> np.ndarray:
    """The crop with its colour cast removed: each channel is scaled so that the crop's bright pixels
    (its ``WHITE_PERCENTILE``-th percentile, the card's paper around an index) come out grey, keeping
    their mean brightness. Under warm or dim light a red index then stays red: on real-val's darkest
    photo an unbalanced 6d read as 6s and a Kd as Ks (models/MODEL_CARD.md, session 5).

    >>> tinted = np.dstack([np.full((4, 4), 100), np.full((4, 4), 150), np.full((4, 4), 200)]).astype(np.uint8)
    >>> balance_white(tinted)[0, 0].tolist()
    [150, 150, 150]
    >>> int(balance_white(np.zeros((4, 4, 3), np.uint8)).max())  # a black crop stays black, no division by zero
    0
    """
    pixels = crop.reshape(-1, 3).astype(np.float32)
    white = np.maximum(np.percentile(pixels, WHITE_PERCENTILE, axis=0), 1.0)
    gains = np.clip(white.mean() / white, 1.0 / MAX_WHITE_GAIN, MAX_WHITE_GAIN)
    return np.clip(crop.astype(np.float32) * gains + 0.5, 0, 255).astype(np.uint8)
