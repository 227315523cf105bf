"""Square crops around corner-index boxes: the classifier's input, the same in training and use."""
from __future__ import annotations

import cv2
import numpy as np

CROP_PADDING = 0.15  # fraction of the box's longer side added on every side
CROP_SIZE = 64       # pixels; the classifier's input size


def crop_index(image: np.ndarray, box: tuple[float, float, float, float],
               padding: float = CROP_PADDING, size: int = CROP_SIZE) -> np.ndarray:
    """A ``size`` x ``size`` BGR crop centred on ``box`` (x0, y0, x1, y1), square, padded.

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
    return cv2.warpAffine(image, matrix, (size, size), flags=interpolation,
                          borderMode=cv2.BORDER_REPLICATE)
