"""Whether the table under the camera is still: a small blurred grey copy of each frame, compared.

A frame's ``signature`` is a 160 px wide grey copy, blurred so that sensor noise and JPEG blocks
average out. Two signatures differ by the share of their pixels whose grey level moved more than
``CHANGED_LEVEL``: a hand reaching in, a card put down or picked up changes a few per cent of the
picture; camera noise and slowly changing light change none.
"""

from __future__ import annotations

import numpy as np

SIGNATURE_WIDTH = 160  # px
CHANGED_LEVEL = 24  # grey levels (of 255) a pixel must move to count as changed
MOVING_SHARE = 0.003  # more than this share of the picture changed between two frames: something moves


def signature(frame: np.ndarray) -> np.ndarray:
    """A small blurred grey copy of a BGR (or grey) frame, to compare frames cheaply."""
    import cv2

    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    height, width = grey.shape[:2]
    small = cv2.resize(
        grey, (SIGNATURE_WIDTH, max(1, round(height * SIGNATURE_WIDTH / width))), interpolation=cv2.INTER_AREA
    )
    return cv2.GaussianBlur(small, (5, 5), 0)


def changed_share(first: np.ndarray, second: np.ndarray) -> float:
    """The share (0..1) of pixels that changed between two signatures (1.0 when their sizes differ).

    >>> calm = np.full((90, 160), 120, np.uint8)
    >>> moved = calm.copy(); moved[:9, :16] = 200
    >>> changed_share(calm, calm), changed_share(calm, moved)
    (0.0, 0.01)
    """
    if first.shape != second.shape:
        return 1.0
    moved = np.abs(first.astype(np.int16) - second.astype(np.int16)) > CHANGED_LEVEL
    return float(moved.mean())


class StillnessMeter:
    """How long the frames it is shown have stayed the same (within ``MOVING_SHARE``)."""

    def __init__(self, moving_share: float = MOVING_SHARE) -> None:
        self.moving_share = moving_share
        self.last: np.ndarray | None = None
        self.still_since: float | None = None

    def see(self, frame_signature: np.ndarray, now: float) -> float:
        """Take the next frame's signature; return the seconds the picture has been still."""
        if self.last is None or changed_share(self.last, frame_signature) > self.moving_share:
            self.still_since = now
        self.last = frame_signature
        assert self.still_since is not None
        return now - self.still_since

    def reset(self) -> None:
        self.last = None
        self.still_since = None
