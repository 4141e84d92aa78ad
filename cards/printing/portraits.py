"""Portrait uploads (Pillow): check, clean, crop around a focal point, store three sizes.

Never trusts the file name or the client's content type: the bytes are opened with a
format whitelist. Every check runs before anything is written, so a refused upload
stores nothing.
"""

import io
import secrets
import warnings

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from PIL import Image, ImageOps, UnidentifiedImageError

from cards.media import delete_on_commit
from cards.models import Character

from . import layout

MAX_BYTES = 10 * 1024 * 1024
MAX_PIXELS = 40_000_000
FORMATS = ["PNG", "JPEG", "WEBP"]
# Pillow warns above MAX_IMAGE_PIXELS and refuses above twice that; warnings are turned
# into errors while opening an upload (below), so nothing above 40 megapixels is decoded.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

# The cleaned upload is kept (so the focal point can move later) but never larger than this.
KEEP_LONGEST_SIDE = 2400
# The Mastercard's portrait window at 300 DPI (layout.PORTRAIT_W x PORTRAIT_H mm).
PRINT_SIZE = (layout.px_at_dpi(layout.PORTRAIT_W), layout.px_at_dpi(layout.PORTRAIT_H))
THUMB_SIZE = (88, 112)
JPEG_QUALITY = 90


def _refuse(message: str):
    raise ValidationError(message, code="portrait")


def portrait_open(upload) -> Image.Image:
    """Read an uploaded file into a plain RGB image with its orientation applied and no
    metadata at all; raise ValidationError with a message for the user otherwise."""
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_BYTES:
        _refuse(f"The file is {size / 1024 / 1024:.1f} MB; a portrait can be at most 10 MB.")
    upload.seek(0)
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        _refuse("The file is over 10 MB; a portrait can be at most 10 MB.")
    if not data:
        _refuse("The file is empty.")
    if data[:6] in (b"GIF87a", b"GIF89a"):
        _refuse("GIF images are not accepted: upload a PNG, JPEG or WebP image.")
    too_big = "The image is too large: a portrait can be at most 40 megapixels."
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=FORMATS)
            width, height = image.size
            if width * height > MAX_PIXELS:
                _refuse(
                    f"The image is {width} x {height} pixels "
                    f"({width * height / 1e6:.0f} megapixels); "
                    "a portrait can be at most 40 megapixels."
                )
            image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        _refuse(too_big)
    except UnidentifiedImageError:
        _refuse("This file is not a PNG, JPEG or WebP image.")
    except (OSError, SyntaxError, ValueError, EOFError):
        _refuse("The image file is damaged or incomplete; try saving it again.")
    try:
        image = ImageOps.exif_transpose(image)
        if image.mode in ("RGBA", "LA", "P", "PA"):
            image = image.convert("RGBA")
            flat = Image.new("RGB", image.size, (255, 255, 255))
            flat.paste(image, mask=image.getchannel("A"))
        else:
            flat = image.convert("RGB")
    except (OSError, ValueError):
        _refuse("The image file is damaged or incomplete; try saving it again.")
    # A new image from the pixels alone: no EXIF, XMP, ICC or text chunks come along.
    clean = Image.new("RGB", flat.size)
    clean.paste(flat)
    if max(clean.size) > KEEP_LONGEST_SIDE:
        clean.thumbnail((KEEP_LONGEST_SIDE, KEEP_LONGEST_SIDE), Image.Resampling.LANCZOS)
    return clean


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
    except (TypeError, ValueError):
        _refuse(f"The focal point's {name} must be a number from 0 to 1.")
    if not 0.0 <= value <= 1.0:
        _refuse(f"The focal point's {name} must be from 0 to 1.")
    return value


def character_set_portrait(
    *, character: Character, upload=None, focus_x=None, focus_y=None
) -> None:
    """Store a new portrait (if `upload`) and/or move its focal point; re-make the print
    crop and the thumbnail. Raises ValidationError (nothing stored) on bad input."""
    fx = character.portrait_focus_x if focus_x is None else _check_focus(focus_x, "x")
    fy = character.portrait_focus_y if focus_y is None else _check_focus(focus_y, "y")
    if upload is not None:
        image = portrait_open(upload)
    elif character.portrait:
        with character.portrait.open("rb") as stored, Image.open(stored, formats=["JPEG"]) as im:
            image = im.convert("RGB")
    else:
        _refuse("Upload a portrait first.")
    aspect = layout.PORTRAIT_W / layout.PORTRAIT_H
    cropped = image.crop(crop_box(image.size, aspect, fx, fy))
    printed = cropped.resize(PRINT_SIZE, Image.Resampling.LANCZOS)
    thumb = cropped.resize(THUMB_SIZE, Image.Resampling.LANCZOS)

    stem = f"{character.code}-{secrets.token_hex(6)}"
    old = [
        f.name
        for f in (character.portrait, character.portrait_print, character.portrait_thumb)
        if f
    ]
    written = []
    try:
        with transaction.atomic():
            fields = ["portrait_focus_x", "portrait_focus_y", "portrait_print", "portrait_thumb"]
            if upload is not None:
                character.portrait.save(f"{stem}.jpg", ContentFile(_jpeg(image)), save=False)
                written.append(character.portrait)
                fields.append("portrait")
            character.portrait_print.save(f"{stem}.jpg", ContentFile(_jpeg(printed)), save=False)
            written.append(character.portrait_print)
            character.portrait_thumb.save(f"{stem}.jpg", ContentFile(_jpeg(thumb)), save=False)
            written.append(character.portrait_thumb)
            character.portrait_focus_x, character.portrait_focus_y = fx, fy
            character.save(update_fields=[*fields, "updated"])
            keep = {
                f.name
                for f in (character.portrait, character.portrait_print, character.portrait_thumb)
            }
            delete_on_commit([name for name in old if name not in keep])
    except BaseException:
        # Fresh names of our own: no other row can name them.
        for field in written:
            field.storage.delete(field.name)
        raise
