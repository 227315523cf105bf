"""The one door from the web app to the card recogniser (vision/).

Every photo (upload, API, webcam capture) goes through ``check_image`` (cheap checks that need no
model: size, pixel count, not an image, truncated) and then ``recognise_photo``, which calls
``vision.recognise.read_photo`` under a process-wide lock: one loaded model per process, one
inference at a time (the CPU has few cores; parallel inferences only thrash).
"""
from __future__ import annotations

import io
import threading
from dataclasses import dataclass

from vision.reading import ImageError, PhotoReading

MODEL_LOCK = threading.Lock()

# What a gin showdown can hold: 10 cards a player, 11 for big gin, and maybe the upcard.
MOST_CARDS_IN_A_SHOWDOWN = 23

ACCEPTED_FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp",
                    "HEIF": "image/heic", "MPO": "image/jpeg"}


@dataclass(frozen=True)
class CheckedImage:
    """An upload that decoded fully: its media type and upright size (before EXIF rotation)."""
    media_type: str
    width: int
    height: int


def check_image(data: bytes, max_pixels: int) -> CheckedImage:
    """Refuse what is not a whole photo we can read; raise ImageError with what to do."""
    if not data:
        raise ImageError("The upload was empty; choose a photo (JPEG, PNG, WebP or HEIC).")
    from PIL import Image
    try:
        import pillow_heif
        pillow_heif.register_heif_opener()
    except ImportError:  # HEIC is optional; the other formats still work
        pass
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limit is checked below
            probe = Image.open(io.BytesIO(data))
        with probe:
            width, height = probe.size
            format_name = probe.format or ""
            if width * height > max_pixels:
                raise ImageError(
                    f"The image is {width} x {height} pixels, more than the {max_pixels:,} "
                    "this table accepts; send a normal camera photo.")
            if format_name not in ACCEPTED_FORMATS:
                raise ImageError(f"{format_name or 'This'} files are not accepted; "
                                 "send a JPEG, PNG, WebP or HEIC photo.")
            probe.load()  # decodes every byte: finds truncated files
    except ImageError:
        raise
    except Image.DecompressionBombError:
        raise ImageError("The image has far too many pixels to be a photo; send a normal camera photo.")
    except OSError as error:
        if "truncated" in str(error).lower() or "broken" in str(error).lower():
            raise ImageError("The photo is cut off (the file is incomplete); upload it again.") from error
        raise ImageError("That file is not an image we can read; send a JPEG, PNG, WebP or HEIC photo.") from error
    except Exception as error:  # Pillow raises assorted errors on garbage
        raise ImageError("That file is not an image we can read; send a JPEG, PNG, WebP or HEIC photo.") from error
    return CheckedImage(ACCEPTED_FORMATS[format_name], width, height)


def _detector(model_dir: str | None):
    """The detector of a models folder (None: vision's default, the shipped model); cached by vision."""
    if not model_dir:
        return None
    from vision.detector import load_detector
    return load_detector(model_dir)


class RecognitionUnavailable(ImageError):
    """No detector model is installed: photos cannot be read (manual entry still works)."""


def recognise_photo(data: bytes, model_dir: str | None = None) -> PhotoReading:
    """Read the cards in a photo with the shipped model (or the one in ``model_dir``); one call at a time."""
    from vision.detector import ModelError
    from vision.recognise import read_photo
    with MODEL_LOCK:
        try:
            return read_photo(data, detector=_detector(model_dir))
        except ModelError as error:
            raise RecognitionUnavailable(f"Photos cannot be read on this server: {str(error).rstrip('.')}. "
                                         "Enter the hand by hand meanwhile.") from error


class ReadingError(ImageError):
    """The photo was read but cannot be one showdown (no cards, far too many)."""


def check_reading(reading: PhotoReading) -> None:
    """Refuse readings that cannot be one showdown, with a message that says what to retake."""
    count = len(reading.cards)
    if count == 0:
        raise ReadingError("No cards were found in the photo. Spread both hands face up, in good light, "
                         "with the corner indices visible, and take it again from above.")
    if count > MOST_CARDS_IN_A_SHOWDOWN:
        raise ReadingError(f"{count} cards were found, more than two hands can hold (10 each, 11 for big gin). "
                         "Photograph only the two spread hands, or enter the hand by hand.")


def try_recognise_frame(frame, model_dir: str | None = None) -> PhotoReading | None:
    """Read a live webcam frame (BGR array) only if the model is free now (uploads come first)."""
    if not MODEL_LOCK.acquire(blocking=False):
        return None
    try:
        from vision.recognise import read_frame
        return read_frame(frame, detector=_detector(model_dir))
    except Exception:  # the live view keeps going without its overlay
        return None
    finally:
        MODEL_LOCK.release()
