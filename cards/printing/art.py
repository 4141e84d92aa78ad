"""Default art for a character without a portrait: drawn from its Type and its code, so
the same character always gets the same picture, on screen and on paper. Pure Python,
SVG with presentation attributes only (the CSP refuses style attributes)."""

import hashlib
import re

HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _mix(colour: str, amount: float, towards: int = 255) -> str:
    """`colour` moved `amount` of the way towards white (255) or black (0)."""
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(c + (towards - c) * amount) for c in channels]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def default_art_svg(code, colour: str) -> str:
    """A 22 x 28 (the Mastercard's portrait window) picture: a Type-tinted field, shapes
    placed by the code's hash, a medallion in the middle. No text: the card's Type band
    names the Type, and a PDF's words stay the card's own. Decorative, so hidden from
    screen readers: the name beside it says whose it is."""
    colour = colour if HEX.match(colour or "") else "#888888"
    digest = hashlib.sha256(str(code).encode()).digest()
    light, dark = _mix(colour, 0.8), _mix(colour, 0.35, towards=0)
    shapes = []
    for i in range(5):
        b = digest[i * 4 : i * 4 + 4]
        x, y = 2 + b[0] % 19, 2 + b[1] % 25
        r = 2 + b[2] % 7
        fill = colour if b[3] % 2 else dark
        opacity = f"{0.25 + (b[3] % 5) / 10:.2f}"
        if b[3] % 3 == 0:
            points = f"{x},{y - r} {x + r},{y + r} {x - r},{y + r}"
            shapes.append(f'<polygon points="{points}" fill="{fill}" opacity="{opacity}"/>')
        else:
            shapes.append(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" opacity="{opacity}"/>')
    return (
        f'<svg class="default-art" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 22 28" '
        'aria-hidden="true" preserveAspectRatio="xMidYMid slice">'
        f'<rect width="22" height="28" fill="{light}"/>{"".join(shapes)}'
        f'<circle cx="11" cy="14" r="6" fill="#ffffff" opacity="0.85"/>'
        f'<polygon points="11,9.5 15,14 11,18.5 7,14" fill="{dark}"/></svg>'
    )
