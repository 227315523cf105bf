"""Drawing a reading on its photo: boxes, card codes and confidences (kept apart from the logic).

Cards of the first hand (top/left) are drawn in blue, the second hand in orange, cards to check
(with a review reason) in red; labelled boxes (evaluation) can be drawn as thin green outlines underneath.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.detections import Detections
from vision.reading import PhotoReading

FIRST_HAND_BGR = (220, 120, 20)
SECOND_HAND_BGR = (20, 140, 250)
CONFLICT_BGR = (40, 40, 230)
LABEL_BGR = (60, 200, 60)


def annotate_reading(
    pixels: np.ndarray, reading: PhotoReading, to_original: float = 1.0, labels: Detections | None = None
) -> np.ndarray:
    """A copy of ``pixels`` with every card's boxes, code and confidence drawn.

    ``to_original`` is the factor from ``pixels`` to the reading's photo coordinates (boxes are
    divided by it); ``labels`` (photo coordinates) are drawn as thin green boxes for comparison.
    """
    import cv2

    canvas = np.ascontiguousarray(pixels.copy())
    scale = 1.0 / to_original
    thickness = max(1, round(max(canvas.shape[:2]) / 600))
    font_scale = max(0.4, max(canvas.shape[:2]) / 1800)
    if labels is not None:
        for box in labels.xyxy * scale:
            x0, y0, x1, y1 = (int(round(v)) for v in box)
            cv2.rectangle(canvas, (x0, y0), (x1, y1), LABEL_BGR, 1)
    first_hand = set(reading.hands[0])
    for card in reading.cards:
        colour = CONFLICT_BGR if card.to_check else FIRST_HAND_BGR if card.card in first_hand else SECOND_HAND_BGR
        for box in card.boxes:
            x0, y0, x1, y1 = (int(round(v * scale)) for v in box)
            cv2.rectangle(canvas, (x0, y0), (x1, y1), colour, thickness)
            text = f"{card.card} {card.confidence:.2f}"
            (width, height), baseline = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
            top = max(0, y0 - height - baseline - 2)
            cv2.rectangle(canvas, (x0, top), (x0 + width + 2, top + height + baseline + 2), colour, -1)
            cv2.putText(
                canvas,
                text,
                (x0 + 1, top + height + 1),
                cv2.FONT_HERSHEY_SIMPLEX,
                font_scale,
                (255, 255, 255),
                thickness,
                cv2.LINE_AA,
            )
    return canvas


def save_annotated(
    path: Path, pixels: np.ndarray, reading: PhotoReading, to_original: float = 1.0, labels: Detections | None = None
) -> Path:
    """Draw a reading and write it as a JPEG (or PNG, by the suffix) at ``path``."""
    import cv2

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), annotate_reading(pixels, reading, to_original, labels)):
        raise ValueError(f"could not write the annotated image {path}; check the folder is writable")
    return path
