"""The webcam over the table: a live MJPEG view with the cards found drawn on it, and capture.

The source is an OpenCV ``VideoCapture`` source: a device index (``0``), a stream URL or a video
file (played in a loop). It comes from the settings page or ``ginscore serve --camera``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, abort, current_app, flash, jsonify, redirect, render_template, url_for

from vision.annotate import annotate_reading  # the one annotator (photos, eval, live view)
from vision.reading import ImageError, PhotoReading

from . import recognition
from .scoring import sentence
from .services import current_camera_source, load_game_or_404, store_photo_for_review

if TYPE_CHECKING:
    import cv2  # imported inside the functions that read or encode a frame: OpenCV is slow to load
    from cv2.typing import MatLike as Frame  # a BGR picture

bp = Blueprint("camera", __name__)

FRAME_INTERVAL_S = 0.2  # about 5 frames a second on the live view
DETECT_INTERVAL_S = 1.0  # the detector runs on a live frame at most this often (CPU is scarce; it
# skips frames while a photo upload holds the model)
STEADY_S = 1.0  # both spreads unchanged this long: the page offers the capture


class CameraError(ImageError):
    """The camera source cannot be opened or gives no frame."""


class CameraFeed:
    """One opened ``cv2.VideoCapture``, shared by every viewer of the same source."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._capture: cv2.VideoCapture | None = None
        self._lock = threading.Lock()
        self.last_reading: PhotoReading | None = None
        self.last_detect_time = 0.0
        self.steady_since: float | None = None  # when the two spreads last changed (monotonic)
        self.same_readings = 0  # readings in a row with the same two spreads

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
        return capture

    def read_frame(self) -> Frame:
        """The next frame as a BGR array; a video file starts again at its end."""
        import cv2

        with self._lock:
            capture = self._capture
            if capture is None:
                capture = self._capture = self._open()
            ok, frame = capture.read()
            if not ok:  # end of a video file, or a dropped stream: try once from the start
                capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, frame = capture.read()
            if not ok:
                capture.release()
                self._capture = None
                raise CameraError(f"The camera {self.source!r} gave no picture; check that it is connected.")
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


def annotated_frames(feed: CameraFeed, model_path: str | None, limit: int | None = None) -> Iterator[bytes]:
    """JPEG frames for the live view, with the latest detections drawn on them."""
    sent = 0
    while limit is None or sent < limit:
        try:
            frame = feed.read_frame()
        except CameraError:
            return
        now = time.monotonic()
        if now - feed.last_detect_time >= DETECT_INTERVAL_S:
            feed.last_detect_time = now
            reading = recognition.try_recognise_frame(frame.copy(), model_path)
            if reading is not None:
                feed.note_reading(reading, now)
        if feed.last_reading is not None:
            frame = annotate_reading(frame, feed.last_reading)
        yield encode_jpeg(frame)
        sent += 1
        time.sleep(FRAME_INTERVAL_S)


def require_source() -> str:
    source = current_camera_source()
    if not source:
        abort(404)
    return source


@bp.route("/games/<int:game_id>/camera")
def page(game_id: int):
    """The live view and the capture button."""
    game = load_game_or_404(game_id)
    return render_template("camera/camera.html", game=game, source=require_source())


@bp.route("/camera/stream")
def stream():
    """multipart/x-mixed-replace MJPEG of the camera with the detected cards drawn."""
    feed = feed_for(require_source())
    model_path = current_app.config.get("MODEL_PATH")
    limit = current_app.config.get("CAMERA_STREAM_FRAMES")  # tests stop the stream after a few frames

    def parts() -> Iterator[bytes]:
        for jpeg in annotated_frames(feed, model_path, limit):
            yield (
                b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                + str(len(jpeg)).encode()
                + b"\r\n\r\n"
                + jpeg
                + b"\r\n"
            )

    return Response(
        parts(), mimetype="multipart/x-mixed-replace; boundary=frame", headers={"Cache-Control": "no-store"}
    )


@bp.route("/camera/reading.json")
def reading_state():
    """The cards the live view reads now, and whether both spreads have stayed the same about a second."""
    feed = feed_for(require_source())
    return jsonify(feed.state(time.monotonic())), 200, {"Cache-Control": "no-store"}


@bp.route("/camera/frame.jpg")
def still():
    """One current frame, no drawing (for a browser that cannot show MJPEG)."""
    feed = feed_for(require_source())
    try:
        return Response(encode_jpeg(feed.read_frame()), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
    except CameraError as error:
        return Response(str(error), status=503, mimetype="text/plain")


@bp.route("/games/<int:game_id>/camera/capture", methods=("POST",))
def capture(game_id: int):
    """Take the current frame as the hand's photo and go to the review page."""
    game = load_game_or_404(game_id)
    feed = feed_for(require_source())
    try:
        photo_id = store_photo_for_review(game, encode_jpeg(feed.read_frame()), "webcam")
    except ImageError as error:
        flash(sentence(error), "error")
        return redirect(url_for("camera.page", game_id=game_id), 303)
    return redirect(url_for("hands.review_photo", game_id=game_id, photo_id=photo_id), 303)
