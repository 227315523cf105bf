"""The camera over the table: one shared ``cv2.VideoCapture`` per source, read by the live view
(``web.camera``) and the hands-free watcher (``web.table_watcher``).

The source is an OpenCV ``VideoCapture`` source: a device index (``0``), a stream URL or a video
file (played in a loop at its own frame rate, as a camera would give it). It comes from the settings
page or ``ginscore serve --camera``.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any

from vision.reading import ImageError, PhotoReading

if TYPE_CHECKING:
    import cv2  # imported inside the functions that read or encode a frame: OpenCV is slow to load
    from cv2.typing import MatLike as Frame  # a BGR picture

STEADY_S = 1.0  # both spreads unchanged this long: the live view's page offers the capture


class CameraError(ImageError):
    """The camera source cannot be opened or gives no frame."""


class CameraFeed:
    """One opened ``cv2.VideoCapture``, shared by every viewer of the same source."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._capture: cv2.VideoCapture | None = None
        self._lock = threading.Lock()
        self._video: tuple[float, int, float] | None = None  # a video file's (frame rate, frames, start time)
        self.last_reading: PhotoReading | None = None
        self.last_detect_time = 0.0
        self.steady_since: float | None = None  # when the two spreads last changed (monotonic)
        self.same_readings = 0  # readings in a row with the same two spreads
        self.lost_since: float | None = None  # time.time() of the first failure since a picture came
        self.problem = ""  # what went wrong then, in words for the sheet

    def note_reading(self, reading: PhotoReading | None, now: float) -> None:
        """Keep the latest reading and how long both spreads have stayed the same."""
        previous = self.last_reading
        same = (
            previous is not None
            and reading is not None
            and reading.cards
            and [sorted(h) for h in previous.hands] == [sorted(h) for h in reading.hands]
        )
        if same:
            self.same_readings += 1
        else:
            self.same_readings = 1 if reading is not None and reading.cards else 0
            self.steady_since = now
        self.last_reading = reading

    def state(self, now: float) -> dict[str, Any]:
        """What the live view's page shows: the two spreads read, and whether they are steady."""
        reading = self.last_reading
        if reading is None:
            return {"hands": [[], []], "cards": 0, "steady": False, "steady_for": 0.0}
        steady_for = now - self.steady_since if self.steady_since is not None else 0.0
        return {
            "hands": [list(reading.hands[0]), list(reading.hands[1])],
            "cards": len(reading.cards),
            "unsure": sorted(card.card for card in reading.cards if card.to_check),
            "steady": self.same_readings >= 2 and steady_for >= STEADY_S,
            "steady_for": round(steady_for, 1),
        }

    def _open(self) -> cv2.VideoCapture:
        import cv2

        target: int | str = int(self.source) if self.source.isdigit() else self.source
        capture = cv2.VideoCapture(target)
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"The camera {self.source!r} cannot be opened; check the source in Settings.")
        frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if os.path.isfile(self.source) and frames > 0:
            self._video = (float(capture.get(cv2.CAP_PROP_FPS) or 0) or 10.0, frames, time.monotonic())
        return capture

    def _keep_video_time(self, capture: cv2.VideoCapture) -> None:
        """A video file plays in real time, like a camera: skip to the frame of this moment (in a loop)."""
        import cv2

        if self._video is None:
            return
        rate, frames, started = self._video
        due = int((time.monotonic() - started) * rate) % frames
        position = int(capture.get(cv2.CAP_PROP_POS_FRAMES))
        if abs(due - position) > rate:  # looped, or far behind: seek (a frame or two ahead is fine)
            capture.set(cv2.CAP_PROP_POS_FRAMES, due)
        else:
            for _ in range(due - position):
                capture.grab()

    def read_frame(self) -> Frame:
        """The next frame as a BGR array; a video file starts again at its end. ``CameraError`` when the
        camera gives no picture: it is opened again at the next call (an unplugged camera, a dropped stream),
        and ``lost_since`` and ``problem`` say so until a picture comes."""
        import cv2

        with self._lock:
            try:
                capture = self._capture
                if capture is None:
                    capture = self._capture = self._open()
                self._keep_video_time(capture)
                ok, frame = capture.read()
                if not ok:  # end of a video file, or a dropped stream: try once from the start
                    capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    ok, frame = capture.read()
                if not ok:
                    capture.release()
                    self._capture = None
                    raise CameraError(f"The camera {self.source!r} gave no picture; check that it is connected.")
            except CameraError as error:
                if self.lost_since is None:
                    self.lost_since, self.problem = time.time(), str(error)
                raise
            self.lost_since, self.problem = None, ""
            return frame

    def close(self) -> None:
        with self._lock:
            if self._capture is not None:
                self._capture.release()
                self._capture = None


_FEEDS: dict[str, CameraFeed] = {}
_FEEDS_LOCK = threading.Lock()


def feed_for(source: str) -> CameraFeed:
    """The process's one feed for this source (opened on first use)."""
    with _FEEDS_LOCK:
        if source not in _FEEDS:
            _FEEDS[source] = CameraFeed(source)
        return _FEEDS[source]


def encode_jpeg(frame: Frame) -> bytes:
    import cv2

    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 88])
    if not ok:
        raise CameraError("A camera frame could not be encoded.")
    return encoded.tobytes()
