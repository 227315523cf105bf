"""The one door from the web app to the card recogniser (vision/).

Every photo (upload, API, webcam capture) goes through ``check_image`` (the header only: size,
pixel count, format), then ``bounded_copy`` (one decode, at a reduced scale for JPEG, to the JPEG
the app keeps and shows; truncated files fail here) and then ``recognise_photo`` on that copy,
which calls ``vision.recognise.read_photo`` under a process-wide lock: one loaded model per
process, one inference at a time (the CPU has few cores; parallel inferences only thrash).
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
    """An upload whose header was read: its media type and size (before EXIF rotation)."""
    media_type: str
    width: int
    height: int


@dataclass(frozen=True)
class StoredCopy:
    """The one copy of a photo the app keeps: upright JPEG bytes and their size."""
    jpeg: bytes
    width: int
    height: int


def _register_heif() -> None:
    try:
        import pillow_heif
        pillow_heif.register_heif_opener()
    except ImportError:  # HEIC is optional; the other formats still work
        pass


def check_image(data: bytes, max_pixels: int) -> CheckedImage:
    """Refuse what is not a whole photo we can read; raise ImageError with what to do."""
    if not data:
        raise ImageError("The upload was empty; choose a photo (JPEG, PNG, WebP or HEIC).")
    from PIL import Image
    _register_heif()
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


def bounded_copy(data: bytes, longest_side: int) -> StoredCopy:
    """Decode once, upright, at most ``longest_side`` pixels: the JPEG kept, shown and read.

    A JPEG is decoded straight at 1/2, 1/4 or 1/8 scale (``draft``), so a big photo never fills
    memory; other formats decode whole (their pixel count was checked from the header).
    """
    from PIL import Image, ImageOps
    _register_heif()
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format in ("JPEG", "MPO"):
                image.draft("RGB", (longest_side, longest_side))
            image.load()
            turned = image.getexif().get(0x0112, 1) not in (None, 1)   # exif_transpose copies even when not
            upright = _as_rgb(ImageOps.exif_transpose(image) if turned else image, longest_side)
    except OSError as error:
        if "truncated" in str(error).lower() or "broken" in str(error).lower():
            raise ImageError("The photo is cut off (the file is incomplete); upload it again.") from error
        raise ImageError("That file is not an image we can read; send a JPEG, PNG, WebP or HEIC photo.") from error
    except Exception as error:  # Pillow raises assorted errors on damaged data
        raise ImageError("That file is not an image we can read; send a JPEG, PNG, WebP or HEIC photo.") from error
    upright.thumbnail((longest_side, longest_side), Image.Resampling.LANCZOS, reducing_gap=3.0)
    buffer = io.BytesIO()
    upright.save(buffer, "JPEG", quality=88)
    return StoredCopy(buffer.getvalue(), upright.width, upright.height)


def _as_rgb(image, longest_side: int):
    """8-bit RGB from any mode: 16-bit and float images are scaled to their brightest pixel."""
    from PIL import Image
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        import numpy as np
        if max(image.size) > longest_side:                   # shrink first: no full-size copy in numpy
            scale = longest_side / max(image.size)
            image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                                 Image.Resampling.NEAREST)
        values = np.asarray(image).astype(np.float32)
        top = float(values.max()) or 1.0
        return Image.fromarray(np.clip(values * (255.0 / top), 0, 255).astype(np.uint8)).convert("RGB")
    if image.mode == "RGB":
        return image
    if "A" in image.getbands() or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        return Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")
    return image.convert("RGB")


def _detector(model_dir: str | None):
    """The detector of a models folder (None: vision's default, the shipped model); cached by vision."""
    if not model_dir:
        return None
    from vision.detector import load_detector
    return load_detector(model_dir)


class ServerBusy(ImageError):
    """Every photo-decoding slot stayed taken: try again shortly (503)."""


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
