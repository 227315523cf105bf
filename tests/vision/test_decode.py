"""Decoding photos: formats, EXIF orientation, size limits and clear errors for bad files."""

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from vision.decode import MAX_PIXELS, decode_image
from vision.reading import ImageError

RED_BGR = (0, 0, 255)


def photo_bytes(size=(400, 200), orientation=None, file_format="JPEG", marker=True) -> bytes:
    """A grey photo with a red block in its stored top-left corner, optionally with an EXIF orientation."""
    image = Image.new("RGB", size, (128, 128, 128))
    if marker:
        image.paste((255, 0, 0), (0, 0, size[0] // 10, size[1] // 10))
    buffer = io.BytesIO()
    options = {}
    if orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = orientation
        options["exif"] = exif.tobytes()
    image.save(buffer, format=file_format, **options)
    return buffer.getvalue()


def is_red(pixel) -> bool:
    b, g, r = (int(v) for v in pixel)
    return r > 200 and g < 60 and b < 60


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims width x height pixels (its pixel data is nearly empty): a decompression bomb."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "orientation, marker_at",
    [
        (None, "top-left"),
        (1, "top-left"),
        (3, "bottom-right"),
        (6, "top-right"),
        (8, "bottom-left"),
    ],
)
def test_exif_orientation_is_applied(orientation, marker_at):
    decoded = decode_image(photo_bytes((400, 200), orientation))
    width, height = (200, 400) if orientation in (6, 8) else (400, 200)
    assert decoded.size == (width, height) and decoded.original_size == (width, height)
    x = 5 if "left" in marker_at else width - 6
    y = 5 if "top" in marker_at else height - 6
    assert is_red(decoded.pixels[y, x]), f"the stored top-left corner should appear {marker_at}"
    assert not is_red(decoded.pixels[height - 1 - y, width - 1 - x])


@pytest.mark.parametrize("file_format", ["PNG", "WEBP", "HEIF"])
def test_png_webp_and_heic_photos_are_read(file_format):
    decoded = decode_image(photo_bytes((120, 80), file_format=file_format))
    assert decoded.size == (120, 80)
    assert is_red(decoded.pixels[2, 2]) and not is_red(decoded.pixels[70, 110])


def test_png_with_transparency_is_read_on_white():
    image = Image.new("RGBA", (50, 40), (0, 0, 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    assert decode_image(buffer.getvalue()).pixels[10, 10].tolist() == [255, 255, 255]


def test_large_rotated_phone_photo_is_decoded_small_and_maps_back_to_photo_pixels():
    data = photo_bytes((4000, 3000), orientation=6)  # a 12 MP phone photo held upright
    decoded = decode_image(data, max_side=1024)
    assert decoded.original_size == (3000, 4000)
    assert decoded.size == (768, 1024)
    assert decoded.to_original == pytest.approx(3000 / 768)
    assert is_red(decoded.pixels[10, 760]), "stored top-left is shown top-right"
    red = np.argwhere([[is_red(p) for p in row] for row in decoded.pixels[::8, ::8]])
    right_edge_in_photo = (red[:, 1].min() * 8) * decoded.to_original
    assert right_edge_in_photo == pytest.approx(3000 - 300, abs=40), "the 300 px marker maps back to photo pixels"


def test_frames_from_a_webcam_are_taken_as_bgr_arrays():
    frame = np.zeros((480, 640, 3), dtype=np.uint8)
    frame[:10, :10] = RED_BGR
    decoded = decode_image(frame, max_side=320)
    assert decoded.size == (320, 240) and decoded.to_original == pytest.approx(2.0)
    assert is_red(decoded.pixels[1, 1])


def test_decompression_bomb_is_refused_with_a_message():
    with pytest.raises(ImageError, match="too many pixels"):
        decode_image(png_header_only(20_000, 20_000), name="bomb.png")


def test_photo_just_over_the_pixel_limit_is_refused():
    side = int((MAX_PIXELS * 1.05) ** 0.5)
    with pytest.raises(ImageError, match="too many pixels.*MP"):
        decode_image(png_header_only(side, side))


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"this is a text file, not a photo", "not an image"),
        (photo_bytes(file_format="GIF"), "GIF images are not supported"),
        (photo_bytes((640, 480))[:3000], "damaged or cut short"),
    ],
)
def test_bad_files_raise_image_error_saying_what_is_wrong(data, message):
    with pytest.raises(ImageError, match=message):
        decode_image(data, name="upload.jpg")


def test_missing_file_and_folder_are_reported(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        decode_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="folder"):
        decode_image(tmp_path)


def test_paths_and_file_objects_are_read(tmp_path):
    path = tmp_path / "photo.jpg"
    path.write_bytes(photo_bytes((90, 60)))
    assert decode_image(path).size == (90, 60)
    with path.open("rb") as handle:
        assert decode_image(handle).size == (90, 60)


def test_iphone_heic_with_exif_rotation_is_turned_upright_once():
    decoded = decode_image(photo_bytes((400, 200), orientation=6, file_format="HEIF"))
    assert decoded.size == (200, 400)
    assert is_red(decoded.pixels[5, 194]) and not is_red(decoded.pixels[5, 5])
