"""Portrait uploads: whitelisted formats, size limits, orientation, no metadata, crops."""

import io
import struct
import zlib

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from cards.printing import layout
from cards.printing.portraits import (
    PRINT_SIZE,
    THUMB_SIZE,
    crop_box,
)
from tests.conftest import make_memeyori, set_portrait, stored_files

pytestmark = pytest.mark.usefixtures("media_storage")


def media_files(settings=None) -> list[str]:
    return stored_files()


def upload(data: bytes, name="portrait.png", content_type="image/png"):
    return SimpleUploadedFile(name, data, content_type=content_type)


def image_bytes(size=(400, 200), fmt="JPEG", exif=None, colour=(200, 30, 30), **save) -> bytes:
    image = Image.new("RGB", size, colour)
    # Left half red, right half blue, so orientation can be checked.
    image.paste((30, 30, 200), (size[0] // 2, 0, size[0], size[1]))
    out = io.BytesIO()
    if exif is not None:
        save["exif"] = exif
    image.save(out, format=fmt, **save)
    return out.getvalue()


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def huge_png_header(width=50_000, height=50_000) -> bytes:
    """A few hundred bytes that claim to be a 50,000 x 50,000 PNG (2.5 gigapixels)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", idat)
        + png_chunk(b"IEND", b"")
    )


@pytest.fixture
def pup(alice, types):
    return make_memeyori(alice, types["Blaze"])


BAD_UPLOADS = {
    "text named .png": (b"just some words, not a picture\n" * 10, "not a PNG, JPEG or WebP"),
    "GIF": (b"GIF89a" + image_bytes(fmt="GIF")[6:], "GIF images are not accepted"),
    "50,000 x 50,000 PNG": (huge_png_header(), "at most 16 megapixels"),
    "over 10 MB": (b"\x89PNG\r\n\x1a\n" + b"\x00" * (10 * 1024 * 1024), "at most 10 MB"),
    "empty": (b"", "empty"),
    "BMP": (image_bytes(fmt="BMP"), "not a PNG, JPEG or WebP"),
}


@pytest.mark.parametrize("case", BAD_UPLOADS)
def test_it_refuses_a_bad_upload_and_stores_nothing(settings, pup, case):
    data, message = BAD_UPLOADS[case]
    before = media_files(settings)
    with pytest.raises(ValidationError) as error:
        set_portrait(pup, upload=upload(data))
    assert message in error.value.messages[0]
    assert media_files(settings) == before
    pup.refresh_from_db()
    assert not pup.portrait and not pup.portrait_print and not pup.portrait_thumb


def test_it_refuses_a_17_megapixel_image_cheaply(settings, pup):
    with pytest.raises(ValidationError, match="at most 16 megapixels"):
        set_portrait(pup, upload=upload(huge_png_header(17_000, 1_000)))
    assert media_files(settings) == []


def test_an_image_damaged_past_its_header_is_refused_by_the_task_and_stores_nothing(settings, pup):
    # The header is fine, so the request takes it; the one decode, in the task, refuses it.
    set_portrait(pup, upload=upload(image_bytes((800, 600))[:1500], "p.jpg", "image/jpeg"))
    assert "damaged or incomplete" in pup.portrait_error
    assert not pup.portrait and not pup.portrait_pending
    assert media_files(settings) == []


def test_it_ignores_the_name_and_content_type_it_was_given(settings, pup):
    data = image_bytes(fmt="WEBP")
    set_portrait(pup, upload=upload(data, "evil.gif.exe", "text/html"))
    pup.refresh_from_db()
    assert pup.portrait.name.endswith(".jpg") and "evil" not in pup.portrait.name


def test_a_valid_upload_is_oriented_stripped_and_sized(settings, pup):
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90 degrees clockwise to display
    exif[0x010F] = "SecretCam"  # Make
    exif[0x0131] = "Editor 1.0"  # Software
    data = image_bytes((400, 200), exif=exif.tobytes(), icc_profile=b"\x00" * 128)
    set_portrait(pup, upload=upload(data, "photo.jpg", "image/jpeg"))
    pup.refresh_from_db()
    assert len(media_files(settings)) == 3

    with Image.open(default_storage.open(pup.portrait.name)) as kept:
        assert kept.format == "JPEG"
        # Turned upright: 200 wide, 400 tall, red (the old left half) on top.
        assert kept.size == (200, 400)
        top, bottom = kept.getpixel((100, 20)), kept.getpixel((100, 380))
        assert top[0] > 150 > top[2] and bottom[2] > 150 > bottom[0]
    for field, size in ((pup.portrait_print, PRINT_SIZE), (pup.portrait_thumb, THUMB_SIZE)):
        with Image.open(default_storage.open(field.name)) as stored:
            assert stored.size == size
            assert not stored.getexif()
            assert "exif" not in stored.info and "icc_profile" not in stored.info
            assert b"SecretCam" not in field.read()
    with Image.open(default_storage.open(pup.portrait_print.name)) as printed:
        # At least 300 DPI over the card's 22 x 28 mm portrait window.
        assert printed.width / (layout.PORTRAIT_W / 25.4) >= 300
        assert printed.height / (layout.PORTRAIT_H / 25.4) >= 300


def test_moving_the_focal_point_recrops_without_a_new_upload(
    settings, pup, django_capture_on_commit_callbacks
):
    # A wide image: the crop window can slide from the red left to the blue right.
    set_portrait(pup, upload=upload(image_bytes((1000, 300), fmt="PNG")))
    with django_capture_on_commit_callbacks(execute=True):
        set_portrait(pup, focus_x=1.0, focus_y=0.5)
    pup.refresh_from_db()
    assert (pup.portrait_focus_x, pup.portrait_focus_y) == (1.0, 0.5)
    with Image.open(default_storage.open(pup.portrait_print.name)) as printed:
        r, g, b = printed.getpixel((printed.width // 2, printed.height // 2))
        assert b > 150 > r
    # The old print and thumbnail files were replaced, not left behind.
    assert len(media_files(settings)) == 3


def test_a_focal_point_outside_the_image_is_refused(pup):
    with pytest.raises(ValidationError, match="from 0 to 1"):
        set_portrait(pup, upload=upload(image_bytes()), focus_x=1.5)


@pytest.mark.parametrize("focus", [(0.0, 0.0), (0.5, 0.5), (1.0, 1.0), (0.9, 0.1)])
def test_the_crop_keeps_the_card_aspect_inside_the_image(focus):
    for size in ((1000, 300), (300, 1000), (220, 280), (1, 1)):
        left, top, right, bottom = crop_box(size, 22 / 28, *focus)
        assert 0 <= left < right <= size[0] and 0 <= top < bottom <= size[1]
        if min(size) > 10:
            assert (right - left) / (bottom - top) == pytest.approx(22 / 28, rel=0.02)
