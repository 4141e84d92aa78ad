"""The cards' pictures: default art for a character without a portrait (drawn from its
Type and its code, so the same character always gets the same picture, on screen and on
paper) and the card back. Pure Python, SVG with presentation attributes only (the CSP
refuses style attributes)."""

import hashlib
import math
import re

HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _mix(colour: str, amount: float, towards: int = 255) -> str:
    """`colour` moved `amount` of the way towards white (255) or black (0)."""
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(c + (towards - c) * amount) for c in channels]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def default_art_svg(code, colour: str) -> str:
    """A 22 x 28 (the Mastercard's art window) picture: a field in the Type's colour, a
    few shapes placed by the code's hash, a medallion in the middle. Solid colours mixed
    in advance, no opacity: a transparency group costs the renderer on every card. No
    text: the card's Type line names the Type, and a PDF's words stay the card's own.
    Decorative, so hidden from screen readers: the name beside it says whose it is."""
    colour = colour if HEX.match(colour or "") else "#888888"
    digest = hashlib.sha256(str(code).encode()).digest()
    field, light, dark = _mix(colour, 0.55), _mix(colour, 0.3), _mix(colour, 0.35, towards=0)
    shapes = []
    for i in range(4):
        b = digest[i * 4 : i * 4 + 4]
        x, y = 2 + b[0] % 19, 2 + b[1] % 25
        r = 3 + b[2] % 7
        fill = colour if i == 0 else (colour, light, dark)[b[3] % 3]
        if b[3] % 2 == 0:
            points = f"{x},{y - r} {x + r},{y + r} {x - r},{y + r}"
            shapes.append(f'<polygon points="{points}" fill="{fill}"/>')
        else:
            shapes.append(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}"/>')
    return (
        f'<svg class="default-art" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 22 28" '
        'aria-hidden="true" preserveAspectRatio="xMidYMid slice">'
        f'<rect width="22" height="28" fill="{field}"/>{"".join(shapes)}'
        f'<circle cx="11" cy="14" r="6.5" fill="#ffffff" stroke="{dark}" stroke-width="0.6"/>'
        f'<polygon points="11,9.5 15,14 11,18.5 7,14" fill="{dark}"/></svg>'
    )


# The card back's box (inside its 0.8 mm frame), in tenths of a millimetre.
BACK_W, BACK_H = 614, 864


def back_svg(colours: list[str], *, solid: bool = False) -> str:
    """The card back: the game's mark (static/icons/icon.svg's card and diamond) ringed by
    a dot of every Type's colour, on a lattice of small diamonds in the same colours. The
    same for every card, so a hand cannot be read from behind; ink-light (lines and small
    dots on white) unless `solid`. Colours are checked; nothing else comes from data."""
    colours = [c for c in colours if HEX.match(c or "")] or ["#888888"]
    ink, paper = ("#ffffff", "#1d1b22") if solid else ("#1d1b22", "#ffffff")
    cx, cy = BACK_W // 2, 340
    parts = [f'<rect width="{BACK_W}" height="{BACK_H}" fill="{paper}"/>']
    parts.append(
        f'<rect x="22" y="22" width="{BACK_W - 44}" height="{BACK_H - 44}" rx="22" '
        f'fill="none" stroke="{ink}" stroke-width="4"/>'
    )
    # The lattice: one path per colour, diamonds on a diagonal grid, clear of the middle.
    paths: dict[str, list[str]] = {}
    step = 56
    for row, y in enumerate(range(70, BACK_H - 40, step)):
        for col, x in enumerate(range(60 + (row % 2) * step // 2, BACK_W - 40, step)):
            if 150 < y < 680 and 110 < x < BACK_W - 110:
                continue
            colour = colours[(row * 3 + col) % len(colours)]
            paths.setdefault(colour, []).append(f"M{x} {y - 9}l9 9l-9 9l-9 -9z")
    parts += [
        f'<path d="{"".join(d)}" fill="{colour}" opacity="{0.9 if solid else 0.55}"/>'
        for colour, d in paths.items()
    ]
    # A ring of every Type's colour around the mark.

    for i, colour in enumerate(colours):
        angle = 2 * math.pi * i / len(colours) - math.pi / 2
        x, y = cx + 150 * math.cos(angle), cy + 150 * math.sin(angle)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="14" fill="{colour}"/>')
    parts.append(
        f'<circle cx="{cx}" cy="{cy}" r="118" fill="none" stroke="{ink}" stroke-width="3"/>'
    )
    # The game's mark: a card with a diamond and a dot (static/icons/icon.svg).
    parts.append(
        f'<rect x="{cx - 52}" y="{cy - 80}" width="104" height="160" rx="16" fill="#5b3fd1"/>'
        f'<path d="M{cx} {cy - 50}L{cx + 34} {cy}L{cx} {cy + 50}L{cx - 34} {cy}Z" fill="#ffffff"/>'
        f'<circle cx="{cx}" cy="{cy}" r="12" fill="#5b3fd1"/>'
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {BACK_W} {BACK_H}" preserveAspectRatio="none">{"".join(parts)}</svg>'
    )
