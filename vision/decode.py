"""Photo decoding: bytes or a file → upright BGR pixels no larger than the detector needs.

Handles JPEG, PNG, WebP and HEIC/HEIF (iPhone photos, through pillow-heif), applies the EXIF
orientation, refuses anything else with an ``ImageError`` that says what was wrong, and never
decodes a huge photo at full size when the detector needs less: JPEGs are decoded at 1/2, 1/4 or
1/8 scale by the codec itself (Pillow's ``draft``), everything else is reduced right after loading.
``DecodedImage.to_original`` maps boxes found in the small image back to the photo's pixels.

The one photo check lives here too: ``check_photo`` (an upload's header: empty, not an image, format,
pixel count) and ``bounded_jpeg`` (the upright JPEG a server keeps of an upload, decoded once).
"""

from __future__ import annotations

import io
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vision.reading import ImageError

try:  # HEIC/HEIF (iPhone) support registers itself as a Pillow opener
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF_SUPPORTED = True
except ImportError:  # pragma: no cover - pillow-heif is a dependency
    HEIF_SUPPORTED = False

# A 108 MP phone sensor gives 12000 x 9000 = 108 M pixels; anything far beyond is refused before decoding.
MAX_PIXELS = 150_000_000
SUPPORTED_FORMATS = {"JPEG": "JPEG", "MPO": "JPEG", "PNG": "PNG", "WEBP": "WebP", "HEIF": "HEIC", "AVIF": "AVIF"}
# What a photo upload may be (the web app's check): the formats above but AVIF, by media type.
UPLOAD_MEDIA_TYPES = {
    "JPEG": "image/jpeg",
    "MPO": "image/jpeg",
    "PNG": "image/png",
    "WEBP": "image/webp",
    "HEIF": "image/heic",
}
NOT_AN_IMAGE = "That file is not an image we can read; send a JPEG, PNG, WebP or HEIC photo."
CUT_OFF = "The photo is cut off (the file is incomplete); upload it again."

PhotoSource = str | Path | bytes | bytearray | BinaryIO | Image.Image | np.ndarray


@dataclass(frozen=True, eq=False)
class DecodedImage:
    """Upright pixels (``pixels``: H x W x 3 uint8 BGR, OpenCV order) of a photo of ``original_size``."""

    pixels: np.ndarray
    original_size: tuple[int, int]  # (width, height) of the upright photo at full resolution
    to_original: float  # multiply a box in ``pixels`` by this to get photo pixels
    name: str = ""  # file name when known, for messages

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of ``pixels``."""
        return self.pixels.shape[1], self.pixels.shape[0]


@dataclass(frozen=True)
class PhotoHeader:
    """What a photo's header says: its format's media type and its size (before EXIF rotation)."""

    media_type: str
    width: int
    height: int


def check_photo(data: bytes, max_pixels: int = MAX_PIXELS) -> PhotoHeader:
    """The one check of an uploaded photo's bytes, from the header only (nothing is decoded):
    refuse an empty file, a file that is not an image, an unaccepted format or more than
    ``max_pixels``, with an ``ImageError`` that says what to send instead."""
    if not data:
        raise ImageError("The upload was empty; choose a photo (JPEG, PNG, WebP or HEIC).")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # max_pixels is checked below
            probe = _pillow_open()(io.BytesIO(data))
        with probe:
            width, height = probe.size
            format_name = probe.format or ""
    except Image.DecompressionBombError:
        raise ImageError("The image has far too many pixels to be a photo; send a normal camera photo.") from None
    except Exception as error:  # noqa: BLE001 - Pillow raises assorted errors on garbage
        raise photo_error(error) from error
    if width * height > max_pixels:
        raise ImageError(
            f"The image is {width} x {height} pixels, more than the {max_pixels:,} "
            "this table accepts; send a normal camera photo."
        )
    if format_name not in UPLOAD_MEDIA_TYPES:
        raise ImageError(f"{format_name or 'This'} files are not accepted; send a JPEG, PNG, WebP or HEIC photo.")
    return PhotoHeader(UPLOAD_MEDIA_TYPES[format_name], width, height)


def photo_error(error: Exception) -> ImageError:
    """What to tell the sender when Pillow fails on a photo's bytes: cut off, or not an image."""
    text = str(error).lower()
    if isinstance(error, OSError) and ("truncated" in text or "broken" in text):
        return ImageError(CUT_OFF)
    return ImageError(NOT_AN_IMAGE)


@dataclass(frozen=True)
class BoundedJpeg:
    """A photo made small enough to keep: upright JPEG bytes, their size, and the pixels they were encoded from
    (BGR, for the reader: the photo is decoded once)."""

    jpeg: bytes
    width: int
    height: int
    pixels: np.ndarray = field(repr=False, compare=False)


def bounded_jpeg(data: bytes, longest_side: int) -> BoundedJpeg:
    """Decode once, upright, at most ``longest_side`` pixels: the JPEG kept, shown and read.

    A JPEG is decoded straight at 1/2, 1/4 or 1/8 scale (``draft``), so a big photo never fills
    memory; other formats decode whole (their pixel count was checked from the header).
    """
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format in ("JPEG", "MPO"):
                image.draft("RGB", (longest_side, longest_side))
            image.load()
            turned = image.getexif().get(0x0112, 1) not in (None, 1)  # exif_transpose copies even when not
            upright = _as_rgb(ImageOps.exif_transpose(image) if turned else image, longest_side)
    except Exception as error:  # Pillow raises assorted errors on damaged data
        raise photo_error(error) from error
    upright.thumbnail((longest_side, longest_side), Image.Resampling.LANCZOS, reducing_gap=3.0)
    buffer = io.BytesIO()
    upright.save(buffer, "JPEG", quality=88)
    pixels = np.ascontiguousarray(np.asarray(upright.convert("RGB"))[:, :, ::-1])
    return BoundedJpeg(buffer.getvalue(), upright.width, upright.height, pixels)


def _as_rgb(image, longest_side: int):
    """8-bit RGB from any mode: 16-bit and float images are scaled to their brightest pixel."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        if max(image.size) > longest_side:  # shrink first: no full-size copy in numpy
            scale = longest_side / max(image.size)
            image = image.resize(
                (max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.Resampling.NEAREST
            )
        values = np.asarray(image).astype(np.float32)
        top = float(values.max()) or 1.0
        return Image.fromarray(np.clip(values * (255.0 / top), 0, 255).astype(np.uint8)).convert("RGB")
    if image.mode == "RGB":
        return image
    if "A" in image.getbands() or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        return Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")
    return image.convert("RGB")


def decode_image(source: PhotoSource, max_side: int | None = None, name: str = "") -> DecodedImage:
    """Read a photo (path, bytes, binary file, PIL image or BGR array) upright, at most ``max_side`` px.

    Raises ``ImageError`` for a missing, empty, truncated, unsupported or overly large file.
    """
    if isinstance(source, np.ndarray):
        return _decode_array(source, max_side, name or "frame")
    if isinstance(source, Image.Image):
        return _decode_pil(source, max_side, name or "image")
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = name or str(path)
        if not path.exists():
            raise ImageError(f"{name}: no such file; check the path")
        if path.is_dir():
            raise ImageError(f"{name}: is a folder, not a photo")
        data = path.read_bytes()
    elif isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    elif hasattr(source, "read"):
        data = source.read()
        name = name or getattr(source, "name", "") or "upload"
    else:
        raise TypeError(f"cannot read a photo from {type(source).__name__}")
    name = name or "photo"
    if not data:
        raise ImageError(f"{name}: the file is empty; upload a JPEG, PNG, WebP or HEIC photo")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # MAX_PIXELS is checked below
            image = _pillow_open()(io.BytesIO(data))
    except Image.DecompressionBombError as error:
        raise ImageError(
            f"{name}: too many pixels to be a photo ({error}); "
            f"send a photo of at most {MAX_PIXELS // 1_000_000} megapixels"
        ) from None
    except UnidentifiedImageError:
        raise ImageError(f"{name}: not an image Pillow can read; send a JPEG, PNG, WebP or HEIC photo") from None
    except Exception as error:  # noqa: BLE001 - any decoder failure is the file's fault
        raise ImageError(f"{name}: cannot read this image ({error}); send a JPEG, PNG, WebP or HEIC photo") from None
    return _decode_pil(image, max_side, name)


def _pillow_open():
    """Pillow's own ``Image.open``: ultralytics replaces it with one that tries to install a package
    when Pillow cannot identify a file, which must never happen here."""
    patches = sys.modules.get("ultralytics.utils.patches")
    return getattr(patches, "_image_open", Image.open) if patches is not None else Image.open


def _decode_pil(image: Image.Image, max_side: int | None, name: str) -> DecodedImage:
    file_format = image.format
    if file_format is not None and file_format not in SUPPORTED_FORMATS:
        raise ImageError(f"{name}: {file_format} images are not supported; send a JPEG, PNG, WebP or HEIC photo")
    width, height = image.size
    if width <= 0 or height <= 0:
        raise ImageError(f"{name}: the image has no pixels ({width} x {height})")
    if width * height > MAX_PIXELS:
        raise ImageError(
            f"{name}: too many pixels to be a photo ({width} x {height} = "
            f"{width * height / 1e6:.0f} MP, at most {MAX_PIXELS // 1_000_000} MP); send a smaller photo"
        )
    try:
        orientation = image.getexif().get(0x0112, 1)
    except Exception:  # noqa: BLE001 - a broken EXIF block only loses the orientation
        orientation = 1
    if max_side and file_format in ("JPEG", "MPO") and max(width, height) > max_side:
        # The JPEG codec decodes at 1/2, 1/4 or 1/8 scale directly: big photos never fill memory.
        target = (
            max(1, round(width * max_side / max(width, height))),
            max(1, round(height * max_side / max(width, height))),
        )
        image.draft("RGB", target)
    try:
        image.load()
        if orientation in (2, 3, 4, 5, 6, 7, 8):
            image = ImageOps.exif_transpose(image)
    except Exception as error:  # noqa: BLE001 - truncated or corrupt data
        raise ImageError(f"{name}: the image data is damaged or cut short ({error}); send the photo again") from None
    upright_full = (width, height) if orientation not in (5, 6, 7, 8) else (height, width)
    pixels = _to_bgr(image)
    return _fit(pixels, upright_full, max_side, name)


def _decode_array(array: np.ndarray, max_side: int | None, name: str) -> DecodedImage:
    if array.ndim == 2:
        array = np.repeat(array[:, :, None], 3, axis=2)
    if array.ndim != 3 or array.shape[2] not in (3, 4) or array.shape[0] == 0 or array.shape[1] == 0:
        raise ImageError(f"{name}: expected an H x W x 3 BGR frame, got an array of shape {array.shape}")
    if array.dtype != np.uint8:
        raise ImageError(f"{name}: expected 8-bit pixels, got {array.dtype}")
    array = np.ascontiguousarray(array[:, :, :3])
    return _fit(array, (array.shape[1], array.shape[0]), max_side, name)


def _to_bgr(image: Image.Image) -> np.ndarray:
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        values = np.asarray(image, dtype=np.float64)
        top = values.max() or 1.0
        gray = np.clip(values * (255.0 / top), 0, 255).astype(np.uint8)
        return np.repeat(gray[:, :, None], 3, axis=2)
    if image.mode != "RGB":
        if "A" in image.getbands() or image.mode == "P" and "transparency" in image.info:
            rgba = image.convert("RGBA")
            background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            image = Image.alpha_composite(background, rgba)
        image = image.convert("RGB")
    import cv2

    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)  # the channels reversed, 4x faster than numpy's copy


def _fit(pixels: np.ndarray, upright_full: tuple[int, int], max_side: int | None, name: str) -> DecodedImage:
    """Shrink ``pixels`` so the longer side is at most ``max_side``; remember the factor back to full size."""
    height, width = pixels.shape[:2]
    if max_side and max(width, height) > max_side:
        import cv2

        factor = max_side / max(width, height)
        size = max(1, round(width * factor)), max(1, round(height * factor))
        pixels = cv2.resize(pixels, size, interpolation=cv2.INTER_AREA)
    to_original = upright_full[0] / pixels.shape[1]
    return DecodedImage(pixels=pixels, original_size=upright_full, to_original=to_original, name=name)
