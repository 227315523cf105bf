"""The one door from the web app to the card recogniser (vision/).

Every photo (upload, API, webcam capture) goes through ``check_image`` (vision's one photo check,
``vision.decode.check_photo``: the header only, size, pixel count, format), then ``bounded_copy`` (one decode, at a reduced scale for JPEG, to the JPEG
the app keeps and shows; truncated files fail here) and then ``recognise_photo`` on that copy's pixels,
which calls ``vision.recognise.read_photo`` under the models' one lock (``vision.detector.MODEL_LOCK``):
one loaded model per process, one inference at a time (the CPU has few cores; parallel inferences only thrash).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import MOST_CARDS_IN_A_SHOWDOWN
from vision.decode import BoundedJpeg, PhotoHeader, PhotoSource, bounded_jpeg, check_photo
from vision.detector import MODEL_LOCK, CardIndexDetector, load_detector
from vision.model_settings import ModelError
from vision.reading import ImageError, PhotoReading
from vision.recognise import read_frame, read_photo, recognise, still_table_reading

if TYPE_CHECKING:
    from cv2.typing import MatLike


def check_image(data: bytes, max_pixels: int) -> PhotoHeader:
    """Refuse what is not a whole photo we can read (``vision.decode.check_photo``); ImageError says what to do."""
    return check_photo(data, max_pixels)


def bounded_copy(data: bytes, longest_side: int) -> BoundedJpeg:
    """The one copy of a photo the app keeps, shows and reads: ``vision.decode.bounded_jpeg`` (one
    decode, upright, at most ``longest_side`` pixels, JPEG at reduced scale)."""
    return bounded_jpeg(data, longest_side)


def _detector(model_dir: str | None) -> CardIndexDetector | None:
    """The detector of a models folder (None: vision's default, the shipped model); cached by vision."""
    if not model_dir:
        return None
    return load_detector(model_dir)


class ServerBusy(ImageError):
    """Every photo-decoding slot stayed taken: try again shortly (503)."""


class RecognitionUnavailable(ImageError):
    """No detector model is installed: photos cannot be read (manual entry still works)."""


def recognise_photo(data: PhotoSource, model_dir: str | None = None) -> PhotoReading:
    """Read the cards in a photo with the shipped model (or the one in ``model_dir``); one call at a time."""
    with MODEL_LOCK:
        try:
            return read_photo(data, detector=_detector(model_dir))
        except ModelError as error:
            raise RecognitionUnavailable(
                f"Photos cannot be read on this server: {str(error).rstrip('.')}. Enter the hand by hand meanwhile."
            ) from error


def teaching_detector(model_dir: str | None = None) -> CardIndexDetector:
    """The reader that finds and names the cards of a deck being taught (the shipped one, or the one in
    ``model_dir``); ``RecognitionUnavailable`` when no model is installed. Use it under ``MODEL_LOCK``."""
    try:
        return load_detector(model_dir or None)
    except ModelError as error:
        raise RecognitionUnavailable(
            f"Photos cannot be read on this server: {str(error).rstrip('.')}. A deck cannot be taught without the reader."
        ) from error


class ReadingError(ImageError):
    """The photo was read but cannot be one showdown (no cards, far too many)."""


def check_reading(reading: PhotoReading) -> None:
    """Refuse readings that cannot be one showdown, with a message that says what to retake."""
    count = len(reading.cards)
    if count == 0:
        raise ReadingError(
            "No cards were found in the photo. Spread both hands face up, in good light, "
            "with the corner indices visible, and take it again from above."
        )
    if count > MOST_CARDS_IN_A_SHOWDOWN:
        raise ReadingError(
            f"{count} cards were found, more than two hands can hold (10 each, 11 for big gin). "
            "Photograph only the two spread hands, or enter the hand by hand."
        )


def try_recognise_frame(frame: MatLike, model_dir: str | None = None) -> PhotoReading | None:
    """Read a live webcam frame (BGR array) only if the model is free now (uploads come first)."""
    if not MODEL_LOCK.acquire(blocking=False):
        return None
    try:
        return read_frame(frame, detector=_detector(model_dir))
    except Exception:  # the live view keeps going without its overlay
        return None
    finally:
        MODEL_LOCK.release()


def read_still_table(frames: list[MatLike], model_dir: str | None = None) -> PhotoReading:
    """Read frames of a still showdown, each at photo quality, and vote card by card
    (``vision.recognise.still_table_reading``). The model lock is taken for one frame at a time, so a photo
    upload waits for at most one frame's reading."""
    readings = []
    for frame in frames:
        with MODEL_LOCK:
            try:
                readings.append(recognise(frame, detector=_detector(model_dir)).reading)
            except ModelError as error:
                raise RecognitionUnavailable(
                    f"Photos cannot be read on this server: {str(error).rstrip('.')}."
                ) from error
    return still_table_reading(readings)
