"""Portrait images (Pillow): check, clean, crop around a focal point, in three sizes.
Taking an upload onto a character's row is portrait_uploads.py's; the decode and the crops
run in cards.tasks.process_portrait.

Never trusts the file name or the client's content type: the bytes are opened with a
format whitelist. A request checks only what the header shows (format, size, pixels) and
stores the upload as pending; the one decode runs in cards.tasks.process_portrait, after
the commit and outside any transaction (issue 11.4).
"""

import io
import warnings
from contextlib import contextmanager

from django.core.exceptions import ValidationError
from PIL import ExifTags, Image, UnidentifiedImageError

from . import layout

MAX_BYTES = 10 * 1024 * 1024
# The card's portrait window is 22 x 28 mm: 260 x 331 pixels at 300 DPI, and the kept copy
# is at most 2400 pixels a side so the focal point can move. 16 megapixels still takes a
# 12-megapixel phone photo (4032 x 3024); a 40-megapixel PNG of a few hundred KB cost a
# worker 600 MB and seconds of CPU (issue 11.4).
MAX_PIXELS = 16_000_000
MEGAPIXELS = MAX_PIXELS // 1_000_000
FORMATS = ["PNG", "JPEG", "WEBP"]
# Pillow warns above MAX_IMAGE_PIXELS and refuses above twice that; warnings are turned
# into errors while opening an upload (below), so nothing above the cap is decoded.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

# The cleaned upload is kept (so the focal point can move later) but never larger than this.
KEEP_LONGEST_SIDE = 2400
# The Mastercard's portrait window at 300 DPI (layout.PORTRAIT_W x PORTRAIT_H mm).
PRINT_SIZE = (layout.px_at_dpi(layout.PORTRAIT_W), layout.px_at_dpi(layout.PORTRAIT_H))
THUMB_SIZE = (88, 112)
JPEG_QUALITY = 90
TOO_BIG = f"The image is too large: a portrait can be at most {MEGAPIXELS} megapixels."
DAMAGED = "The image file is damaged or incomplete; try saving it again."


def _refuse(message: str):
    raise ValidationError(message, code="portrait")


def _read(upload) -> bytes:
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_BYTES:
        _refuse(f"The file is {size / 1024 / 1024:.1f} MB; a portrait can be at most 10 MB.")
    upload.seek(0)
    data = upload.read(MAX_BYTES + 1)
    upload.seek(0)
    if len(data) > MAX_BYTES:
        _refuse("The file is over 10 MB; a portrait can be at most 10 MB.")
    if not data:
        _refuse("The file is empty.")
    if data[:6] in (b"GIF87a", b"GIF89a"):
        _refuse("GIF images are not accepted: upload a PNG, JPEG or WebP image.")
    return data


@contextmanager
def _opened(data: bytes):
    """Open (not decode) an image from its header, mapping every failure to a message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=FORMATS) as image:
                width, height = image.size
                if width * height > MAX_PIXELS:
                    _refuse(
                        f"The image is {width} x {height} pixels "
                        f"({width * height / 1e6:.0f} megapixels); "
                        f"a portrait can be at most {MEGAPIXELS} megapixels."
                    )
                yield image
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        _refuse(TOO_BIG)
    except UnidentifiedImageError:
        _refuse("This file is not a PNG, JPEG or WebP image.")
    except (OSError, SyntaxError, ValueError, EOFError):
        _refuse(DAMAGED)


def portrait_check(upload) -> tuple[bytes, str]:
    """The checks a request can afford: size, format and pixel count from the header alone,
    nothing decoded. Returns the bytes and the format; raises ValidationError."""
    data = _read(upload)
    with _opened(data) as image:
        return data, image.format


def portrait_decode(data: bytes) -> Image.Image:
    """The one decode of an upload: a plain RGB image, upright, no metadata at all, at most
    KEEP_LONGEST_SIDE a side. Raises ValidationError with a message for the player."""
    with _opened(data) as image:
        if image.format == "JPEG":
            # JPEG can decode at 1/2, 1/4 or 1/8 scale straight away: less memory and CPU.
            image.draft("RGB", (KEEP_LONGEST_SIDE, KEEP_LONGEST_SIDE))
        image.load()
        orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
        if image.mode not in ("RGB", "RGBA", "L"):
            image = image.convert("RGBA")
        # Shrink first, in the file's own mode, so every later copy is the small one (and a
        # new image: the opened one is closed when this block ends).
        width, height = image.size
        scale = min(1.0, KEEP_LONGEST_SIDE / max(width, height))
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    try:
        transpose = ORIENTATIONS.get(orientation)
        if transpose is not None:
            image = image.transpose(transpose)
        if image.mode == "RGBA":
            flat = Image.new("RGB", image.size, (255, 255, 255))
            flat.paste(image, mask=image.getchannel("A"))
        else:
            flat = image.convert("RGB")
    except (OSError, ValueError):
        _refuse(DAMAGED)
    # A new image from the pixels alone: no EXIF, XMP, ICC or text chunks come along.
    clean = Image.new("RGB", flat.size)
    clean.paste(flat)
    return clean


# EXIF orientation -> the transpose that shows the image upright (as ImageOps.exif_transpose).
ORIENTATIONS = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def crop_box(
    size: tuple[int, int], aspect: float, focus_x: float, focus_y: float
) -> tuple[int, int, int, int]:
    """The largest box of `aspect` (width / height) inside `size`, centred on the focal
    point as far as the edges allow."""
    width, height = size
    if width / height > aspect:
        box_w, box_h = max(1, round(height * aspect)), height
    else:
        box_w, box_h = width, max(1, round(width / aspect))
    left = min(max(0, round(focus_x * width - box_w / 2)), width - box_w)
    top = min(max(0, round(focus_y * height - box_h / 2)), height - box_h)
    return left, top, left + box_w, top + box_h


def _jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    return out.getvalue()


def _check_focus(value, name: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError, OverflowError):
        _refuse(f"The focal point's {name} must be a number from 0 to 1.")
    if not 0.0 <= value <= 1.0:  # NaN fails this too
        _refuse(f"The focal point's {name} must be from 0 to 1.")
    return value


def crops(image: Image.Image, focus_x: float, focus_y: float) -> tuple[bytes, bytes]:
    """The print crop and the thumbnail, as JPEG bytes."""
    aspect = layout.PORTRAIT_W / layout.PORTRAIT_H
    cropped = image.crop(crop_box(image.size, aspect, focus_x, focus_y))
    printed = cropped.resize(PRINT_SIZE, Image.Resampling.LANCZOS)
    thumb = cropped.resize(THUMB_SIZE, Image.Resampling.LANCZOS)
    return _jpeg(printed), _jpeg(thumb)
