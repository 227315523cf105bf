"""A pinhole camera over the table: the homography from table coordinates to image pixels.

Table coordinates are in card heights (a card is 1.0 tall), the table plane is z = 0. The camera
looks at the point ``target`` from ``distance`` card heights away, tilted ``tilt`` degrees from
straight down, turned ``yaw`` degrees about the table's normal and rolled ``roll`` degrees about
its own axis. Straight down with no yaw maps table x to image x and table y to image y.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    tilt: float  # degrees from looking straight down, 0..~55
    yaw: float  # degrees, any
    roll: float  # degrees, small
    card_pixels: float  # height in pixels of a card at the target point
    image_size: tuple[int, int]  # (width, height)
    target: tuple[float, float] = (0.0, 0.0)  # table point seen at the image centre (+ shift)
    shift: tuple[float, float] = (0.0, 0.0)  # principal point offset in pixels
    distance: float = 8.0  # card heights from the target

    def homography(self) -> np.ndarray:
        """3x3 matrix mapping homogeneous table points (x, y, 1) to image pixels."""
        tilt, yaw, roll = (math.radians(a) for a in (self.tilt, self.yaw, self.roll))
        rz = _rotation_z(yaw)
        rx = _rotation_x(tilt)
        rr = _rotation_z(roll)
        rotation = rr @ rx @ rz  # world -> camera
        # camera placed so that the target lies on the optical axis at `distance`
        t = np.array([0.0, 0.0, self.distance]) - rotation @ np.array([*self.target, 0.0])
        focal = self.card_pixels * self.distance
        width, height = self.image_size
        k = np.array(
            [[focal, 0.0, width / 2.0 + self.shift[0]], [0.0, focal, height / 2.0 + self.shift[1]], [0.0, 0.0, 1.0]]
        )
        extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1], t])
        h = k @ extrinsic
        return h / h[2, 2]


def _rotation_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rotation_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply homography ``h`` to an (N, 2) array of points."""
    pts = np.column_stack([points, np.ones(len(points))]) @ h.T
    return pts[:, :2] / pts[:, 2:3]
