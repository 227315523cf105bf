"""The webcam over the table: a live MJPEG view with the cards found drawn on it, and capture.

The camera itself (``web.camera_feed``) is shared with ``web.table_watcher``, which scores a still
showdown hands-free.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import Blueprint, Response, abort, current_app, flash, jsonify, redirect, render_template, url_for

from vision.annotate import annotate_reading  # the one annotator (photos, eval, live view)
from vision.reading import ImageError

from . import recognition
from .camera_feed import CameraError, CameraFeed, encode_jpeg, feed_for
from .forms import sentence
from .services import current_camera_source, load_game_or_404, store_photo_for_review

bp = Blueprint("camera", __name__)

FRAME_INTERVAL_S = 0.1  # at most 10 frames a second on the live view
DETECT_INTERVAL_S = 1.0  # the detector runs on a live frame at most this often (CPU is scarce; it
# skips frames while a photo upload holds the model)


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
        time.sleep(max(0.0, FRAME_INTERVAL_S - (time.monotonic() - now)))


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
