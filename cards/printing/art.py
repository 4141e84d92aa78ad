"""The cards' pictures: art for a character without a portrait, art for a move card, and
the card back. Pure Python (fontTools, which WeasyPrint brings, reads the Type symbol's
outline), SVG with presentation attributes only (the CSP refuses style attributes).

A character's art is a creature (a Memeyori) or a robed summoner (an Archon) drawn from:
- its Type: the colours (design.type_tokens) and the Type's symbol, drawn as an outline
  from the cards' own font, on its chest or its staff and scattered over the sky;
- its attributes: Strength and Endurance make it broad and tall, IQ its eyes, Wit where
  it looks, Speed a tail and motion lines, Aura the rings and sparks around it;
- its code, its name and the owner's chosen variant: a hash picks the ears, the markings,
  the mouth, the rays behind it and where the symbols fall.
The same character gives the same bytes on screen, in the PNG and in the PDF. No text
element: a PDF's words stay the card's own, and no font is needed to draw it. Solid
colours mixed in advance, no opacity: a transparency group costs the renderer on every
card. Decorative, so hidden from screen readers: the name beside it says whose it is.
"""

import hashlib
import math
import re
from dataclasses import dataclass
from functools import lru_cache

from .design import luminance, mix, type_tokens

HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
# The art window's box (the Mastercard's 22.4 x 28.5 mm), in tenths of a millimetre.
ART_W, ART_H = 224, 285
# A move card's art band (55.8 x 14 mm).
MOVE_W, MOVE_H = 558, 140
EARS = ("pointed", "round", "long", "horns", "fins", "antenna")
MARKINGS = ("plain", "spots", "stripes", "mask", "belly")
MOUTHS = ("smile", "fang", "open", "cat")
HOODS = ("peaked", "round", "crowned", "horned")
RAYS = (10, 12, 14, 16)


def _hex(colour: str) -> str:
    return colour.lower() if HEX.match(colour or "") else "#888888"


def _n(value: float) -> str:
    """A coordinate, one decimal, no trailing zero: short and the same on every machine."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


class _Dice:
    """Bytes of a SHA-256 chain, read as choices: the same seed gives the same picture."""

    def __init__(self, seed: str):
        self.seed, self.pool, self.counter = seed.encode(), b"", 0

    def byte(self) -> int:
        if not self.pool:
            self.pool = hashlib.sha256(self.seed + str(self.counter).encode()).digest()
            self.counter += 1
        value, self.pool = self.pool[0], self.pool[1:]
        return value

    def pick(self, options):
        return options[self.byte() % len(options)]

    def unit(self) -> float:
        return self.byte() / 255


@lru_cache(maxsize=64)
def glyph(symbol: str) -> tuple[str, float, float] | None:
    """The outline of a Type's symbol in the cards' font, as an SVG path in font units
    (y up), with the glyph's advance width and the font's em; None when the font or the
    glyph is missing (a diamond is drawn instead)."""
    try:
        from fontTools.pens.svgPathPen import SVGPathPen
        from fontTools.ttLib import TTFont

        font = TTFont(FONT, lazy=True)
    except (ImportError, OSError):
        return None
    name = font.getBestCmap().get(ord(symbol[0])) if symbol else None
    if name is None:
        return None
    glyphs = font.getGlyphSet()
    pen = SVGPathPen(glyphs, ntos=lambda v: _n(v))
    glyphs[name].draw(pen)
    commands = pen.getCommands()
    if not commands:
        return None
    return commands, float(glyphs[name].width), float(font["head"].unitsPerEm)


def symbol_def(symbol: str, ident: str = "s") -> str:
    """A <path id=...> of the Type symbol, 100 units across centred on 0,0 (y down), to
    <use> wherever it goes; a diamond when the font cannot draw it."""
    found = glyph(symbol)
    if found is None:
        return f'<path id="{ident}" d="M0 -50L38 0L0 50L-38 0Z"/>'
    commands, width, em = found
    scale = 100 / em
    # The em box's middle: x by the advance, y by the font's usual symbol height.
    dx, dy = -width / 2, -em * 0.36
    return (
        f'<path id="{ident}" transform="scale({scale:.5f},{-scale:.5f}) '
        f'translate({_n(dx)},{_n(dy)})" d="{commands}"/>'
    )


def _use(x: float, y: float, size: float, fill: str, ident: str = "s") -> str:
    return (
        f'<use href="#{ident}" transform="translate({_n(x)},{_n(y)}) scale({size / 100:.3f})" '
        f'fill="{fill}"/>'
    )


@dataclass(frozen=True)
class Look:
    """The choices that make a character's picture, compared by the tests: two characters
    of a party never share one."""

    kind: str
    colour: str
    ears: str
    marking: str
    mouth: str
    rays: int
    tilt: int
    body: tuple[int, int]
    eyes: int
    gaze: int
    tail: int
    halo: int
    scatter: tuple[tuple[int, int, int], ...]


def look(*, kind: str, code, name: str, colour: str, attributes: dict, variant: int = 0) -> Look:
    colour = _hex(colour)
    dice = _Dice(f"{code}|{name}|{variant}")
    a = {k: max(1, min(20, int(attributes.get(k, 2)))) for k in
         ("strength", "endurance", "iq", "wit", "speed", "aura")}  # fmt: skip
    ears = dice.pick(HOODS if kind == "archon" else EARS)
    marking, mouth, rays = dice.pick(MARKINGS), dice.pick(MOUTHS), dice.pick(RAYS)
    tilt = dice.byte() % 30
    # Three: each is the symbol's whole outline again for the renderer to draw.
    scatter = tuple(
        (12 + dice.byte() % 200, 10 + dice.byte() % 90, 16 + dice.byte() % 12) for _ in range(3)
    )
    width = 84 + a["strength"] * 2.5 + dice.byte() % 12
    height = 76 + a["endurance"] * 2 + dice.byte() % 12
    return Look(
        kind=kind, colour=colour, ears=ears, marking=marking, mouth=mouth, rays=rays,
        tilt=tilt, body=(width, height), eyes=7 + a["iq"] // 3, gaze=(a["wit"] - 10) // 3,
        tail=a["speed"], halo=a["aura"], scatter=scatter,
    )  # fmt: skip


def character_look(character) -> Look:
    return look(
        kind=character.kind, code=character.code, name=character.name,
        colour=character.type.colour, attributes=character.attributes(),
        variant=getattr(character, "art_variant", 0) or 0,
    )  # fmt: skip


def character_art_svg(character) -> str:
    return look_svg(character_look(character), character.type.symbol)


def _sky(look: Look, tokens, parts: list[str]) -> None:
    colour = look.colour
    parts.append(f'<rect width="{ART_W}" height="{ART_H}" fill="{mix(colour, 0.78)}"/>')
    # Rays from behind the figure, as on a card game's holo art: alternate wedges.
    cx, cy, reach = ART_W / 2, 150, 320
    step = 2 * math.pi / look.rays
    wedges = []
    for i in range(0, look.rays, 2):
        a0 = i * step + math.radians(look.tilt)
        a1 = a0 + step
        wedges.append(
            f"M{_n(cx)} {_n(cy)}L{_n(cx + reach * math.cos(a0))} {_n(cy + reach * math.sin(a0))}"
            f"L{_n(cx + reach * math.cos(a1))} {_n(cy + reach * math.sin(a1))}Z"
        )
    parts.append(f'<path d="{"".join(wedges)}" fill="{mix(colour, 0.64)}"/>')
    # The Type's symbol scattered over the sky, small and light.
    for x, y, size in look.scatter:
        parts.append(_use(x, y, size, mix(colour, 0.45)))
    # The ground: two bands of the colour.
    parts.append(
        f'<path d="M0 228Q{ART_W / 2} 206 {ART_W} 228V{ART_H}H0Z" fill="{mix(colour, 0.5)}"/>'
    )
    parts.append(
        f'<path d="M0 252Q{ART_W / 2} 238 {ART_W} 252V{ART_H}H0Z" fill="{mix(colour, 0.3)}"/>'
    )
    # Aura: rings behind the figure, one for every five points.
    for ring in range(look.halo // 5 + 1):
        r = 72 + ring * 13
        parts.append(
            f'<circle cx="{_n(cx)}" cy="{_n(cy - 6)}" r="{r}" fill="none" '
            f'stroke="{mix(colour, 0.9)}" stroke-width="3"/>'
        )


def _sparks(look: Look, parts: list[str], colour: str) -> None:
    """Aura above 8: four-pointed sparks around the figure."""
    count = max(0, (look.halo - 6) // 3)
    for i in range(count):
        angle = -math.pi / 2 + (i - (count - 1) / 2) * 0.55
        x, y, s = ART_W / 2 + 95 * math.cos(angle), 146 + 95 * math.sin(angle), 7
        parts.append(
            f'<path d="M{_n(x)} {_n(y - s)}Q{_n(x)} {_n(y)} {_n(x + s)} {_n(y)}'
            f"Q{_n(x)} {_n(y)} {_n(x)} {_n(y + s)}Q{_n(x)} {_n(y)} {_n(x - s)} {_n(y)}"
            f'Q{_n(x)} {_n(y)} {_n(x)} {_n(y - s)}Z" fill="{colour}"/>'
        )


def _creature(look: Look, tokens, parts: list[str]) -> None:
    colour, deep = look.colour, tokens["type-deep"]
    body, light, shade = mix(colour, 0.12), mix(colour, 0.7), mix(colour, 0.3, "#000000")
    w, h = look.body
    cx, base = ART_W / 2, 236
    top = base - h
    line = f'stroke="{deep}" stroke-width="4" stroke-linejoin="round"'
    # The tail (Speed): a curl behind the body, longer the faster.
    if look.tail >= 4:
        reach = 30 + look.tail * 3.5
        tx, ty = cx + w / 2 - 6, base - 26
        parts.append(
            f'<path d="M{_n(tx)} {_n(ty)}Q{_n(tx + reach)} {_n(ty + 6)} {_n(tx + reach * 0.8)} '
            f'{_n(ty - reach * 0.7)}" fill="none" {line.replace("4", "10", 1)}/>'
        )
        parts.append(
            f'<path d="M{_n(tx)} {_n(ty)}Q{_n(tx + reach)} {_n(ty + 6)} {_n(tx + reach * 0.8)} '
            f'{_n(ty - reach * 0.7)}" fill="none" stroke="{body}" stroke-width="5" '
            'stroke-linecap="round"/>'
        )
        # Motion lines on the other side.
        for i in range(min(4, look.tail // 5 + 1)):
            y = base - 30 - i * 16
            x0 = cx - w / 2 - 8 - i * 4
            parts.append(
                f'<path d="M{_n(x0)} {_n(y)}h-{_n(18 + look.tail)}" stroke="{mix(colour, 0.4)}" '
                'stroke-width="4" stroke-linecap="round"/>'
            )
    # Ears (or horns, fins, antennae) behind the head.
    ear_fill = f'fill="{body}" {line}'
    lx, rx, ey = cx - w * 0.28, cx + w * 0.28, top + 14
    if look.ears == "pointed":
        for x, d in ((lx, -1), (rx, 1)):
            parts.append(
                f'<path d="M{_n(x - 16)} {_n(ey + 8)}L{_n(x + d * 10)} {_n(ey - 40)}'
                f'L{_n(x + 18)} {_n(ey + 6)}Z" {ear_fill}/>'
            )
            parts.append(
                f'<path d="M{_n(x - 7)} {_n(ey + 2)}L{_n(x + d * 8)} {_n(ey - 24)}'
                f'L{_n(x + 9)} {_n(ey + 2)}Z" fill="{light}"/>'
            )
    elif look.ears == "round":
        for x in (lx - 6, rx + 6):
            parts.append(f'<circle cx="{_n(x)}" cy="{_n(ey - 8)}" r="17" {ear_fill}/>')
            parts.append(f'<circle cx="{_n(x)}" cy="{_n(ey - 8)}" r="9" fill="{light}"/>')
    elif look.ears == "long":
        for x, d in ((lx, -1), (rx, 1)):
            parts.append(
                f'<ellipse cx="{_n(x + d * 6)}" cy="{_n(ey - 34)}" rx="11" ry="36" '
                f'transform="rotate({d * 14} {_n(x)} {_n(ey)})" {ear_fill}/>'
            )
    elif look.ears == "horns":
        for x, d in ((lx, -1), (rx, 1)):
            parts.append(
                f'<path d="M{_n(x - 9)} {_n(ey + 6)}Q{_n(x + d * 4)} {_n(ey - 30)} '
                f"{_n(x + d * 26)} {_n(ey - 44)}Q{_n(x + d * 10)} {_n(ey - 14)} {_n(x + 10)} "
                f'{_n(ey + 6)}Z" fill="{light}" {line}/>'
            )
    elif look.ears == "fins":
        for x, d in ((cx - w / 2 + 4, -1), (cx + w / 2 - 4, 1)):
            parts.append(
                f'<path d="M{_n(x)} {_n(ey + 10)}L{_n(x + d * 30)} {_n(ey - 6)}'
                f'L{_n(x + d * 22)} {_n(ey + 30)}Z" {ear_fill}/>'
            )
        parts.append(
            f'<path d="M{_n(cx - 14)} {_n(top + 6)}L{_n(cx)} {_n(top - 22)}L{_n(cx + 14)} '
            f'{_n(top + 6)}Z" {ear_fill}/>'
        )
    else:  # antenna
        for x, d in ((lx, -1), (rx, 1)):
            tip = (x + d * 16, ey - 40)
            parts.append(
                f'<path d="M{_n(x)} {_n(ey + 4)}Q{_n(x)} {_n(ey - 30)} {_n(tip[0])} {_n(tip[1])}" '
                f'fill="none" stroke="{deep}" stroke-width="4"/>'
            )
            parts.append(_use(tip[0], tip[1], 26, deep))
    # Feet, then the body: a bean, wider at the bottom.
    for x in (cx - w * 0.26, cx + w * 0.26):
        parts.append(
            f'<ellipse cx="{_n(x)}" cy="{_n(base + 2)}" rx="{_n(w * 0.17)}" ry="10" '
            f'fill="{shade}" {line}/>'
        )
    parts.append(
        f'<path d="M{_n(cx - w / 2)} {_n(base - h * 0.42)}'
        f"C{_n(cx - w / 2)} {_n(top - h * 0.06)} {_n(cx + w / 2)} {_n(top - h * 0.06)} "
        f"{_n(cx + w / 2)} {_n(base - h * 0.42)}"
        f"C{_n(cx + w / 2 + 6)} {_n(base + 4)} {_n(cx - w / 2 - 6)} {_n(base + 4)} "
        f'{_n(cx - w / 2)} {_n(base - h * 0.42)}Z" fill="{body}" {line}/>'
    )
    # Markings.
    belly_y = base - h * 0.28
    if look.marking in ("belly", "plain", "spots"):
        parts.append(
            f'<ellipse cx="{_n(cx)}" cy="{_n(belly_y)}" rx="{_n(w * 0.3)}" '
            f'ry="{_n(h * 0.26)}" fill="{light}"/>'
        )
    if look.marking == "spots":
        for dx, dy, r in ((-0.36, -0.5, 6), (0.38, -0.42, 5), (-0.4, -0.2, 4), (0.41, -0.16, 6)):
            parts.append(
                f'<circle cx="{_n(cx + dx * w)}" cy="{_n(base + dy * h)}" r="{r}" fill="{shade}"/>'
            )
    elif look.marking == "stripes":
        for i in range(3):
            y = top + h * (0.2 + i * 0.1)
            parts.append(
                f'<path d="M{_n(cx - 8)} {_n(y)}l8 {_n(7)}l8 -7" fill="none" stroke="{shade}" '
                'stroke-width="4" stroke-linecap="round"/>'
            )
        parts.append(
            f'<ellipse cx="{_n(cx)}" cy="{_n(belly_y)}" rx="{_n(w * 0.26)}" '
            f'ry="{_n(h * 0.22)}" fill="{light}"/>'
        )
    elif look.marking == "mask":
        parts.append(
            f'<ellipse cx="{_n(cx)}" cy="{_n(top + h * 0.36)}" rx="{_n(w * 0.36)}" ry="15" '
            f'fill="{shade}"/>'
        )
    # The Type's symbol on its chest: the badge that says which Type it is.
    parts.append(_use(cx, belly_y + 4, 34, deep))
    # The face: eyes (IQ: bigger), looking where Wit sends them, a mouth.
    eye_y, r = top + h * 0.36, look.eyes
    for x in (cx - w * 0.2, cx + w * 0.2):
        parts.append(f'<circle cx="{_n(x)}" cy="{_n(eye_y)}" r="{r}" fill="#ffffff" {line}/>')
        px = x + look.gaze * 1.6
        parts.append(
            f'<circle cx="{_n(px)}" cy="{_n(eye_y + 1)}" r="{_n(r * 0.55)}" fill="#16141c"/>'
        )
        parts.append(
            f'<circle cx="{_n(px - r * 0.22)}" cy="{_n(eye_y - r * 0.25)}" '
            f'r="{_n(r * 0.2)}" fill="#ffffff"/>'
        )
    my = eye_y + r + 9
    stroke = f'fill="none" stroke="{deep}" stroke-width="3.5" stroke-linecap="round"'
    if look.mouth == "smile":
        parts.append(
            f'<path d="M{_n(cx - 9)} {_n(my)}Q{_n(cx)} {_n(my + 8)} {_n(cx + 9)} {_n(my)}" '
            f"{stroke}/>"
        )
    elif look.mouth == "fang":
        parts.append(
            f'<path d="M{_n(cx - 10)} {_n(my)}Q{_n(cx)} {_n(my + 7)} {_n(cx + 10)} {_n(my)}" '
            f"{stroke}/>"
        )
        parts.append(
            f'<path d="M{_n(cx + 2)} {_n(my + 3)}l3 6l3 -6Z" fill="#ffffff" '
            f'stroke="{deep}" stroke-width="1.5"/>'
        )
    elif look.mouth == "open":
        parts.append(f'<ellipse cx="{_n(cx)}" cy="{_n(my + 2)}" rx="6" ry="5" fill="{deep}"/>')
    else:
        parts.append(f'<path d="M{_n(cx - 10)} {_n(my)}q5 6 10 0q5 6 10 0" {stroke}/>')
    # Cheeks.
    for x in (cx - w * 0.33, cx + w * 0.33):
        parts.append(
            f'<ellipse cx="{_n(x)}" cy="{_n(my - 2)}" rx="6" ry="4" fill="{mix(colour, 0.5)}"/>'
        )


def _summoner(look: Look, tokens, parts: list[str]) -> None:
    """An Archon: a robed summoner with a staff topped by the Type's symbol."""
    colour, deep = look.colour, tokens["type-deep"]
    robe, trim, shade = mix(colour, 0.1, "#000000"), mix(colour, 0.7), mix(colour, 0.55, "#000000")
    w, h = look.body
    cx, base = ART_W / 2 - 10, 244
    top = base - h - 40
    line = f'stroke="{deep}" stroke-width="4" stroke-linejoin="round"'
    side = 1 if look.tilt % 2 else -1
    sx = cx + side * (w / 2 + 8)
    # The staff, with the symbol in a ring at its top (Aura: more rings).
    parts.append(
        f'<path d="M{_n(sx)} {_n(base + 4)}V{_n(top + 6)}" stroke="{deep}" stroke-width="6"/>'
    )
    for ring in range(1 + look.halo // 7):
        parts.append(
            f'<circle cx="{_n(sx)}" cy="{_n(top - 12)}" r="{20 + ring * 7}" fill="none" '
            f'stroke="{mix(colour, 0.2)}" stroke-width="3"/>'
        )
    parts.append(f'<circle cx="{_n(sx)}" cy="{_n(top - 12)}" r="18" fill="#ffffff" {line}/>')
    parts.append(_use(sx, top - 10, 30, deep))
    # The robe: a bell from the shoulders down, its hem in the trim colour.
    parts.append(
        f'<path d="M{_n(cx - w * 0.28)} {_n(top + 46)}L{_n(cx - w / 2 - 6)} {_n(base)}'
        f"Q{_n(cx)} {_n(base + 12)} {_n(cx + w / 2 + 6)} {_n(base)}L{_n(cx + w * 0.28)} "
        f'{_n(top + 46)}Z" fill="{robe}" {line}/>'
    )
    parts.append(
        f'<path d="M{_n(cx - w / 2 - 2)} {_n(base - 12)}Q{_n(cx)} {_n(base)} '
        f'{_n(cx + w / 2 + 2)} {_n(base - 12)}" fill="none" stroke="{trim}" stroke-width="7"/>'
    )
    if look.marking in ("stripes", "spots"):
        parts.append(
            f'<path d="M{_n(cx)} {_n(top + 56)}V{_n(base - 8)}" stroke="{trim}" stroke-width="6"/>'
        )
    parts.append(_use(cx, top + 86, 30, trim))
    # The arm holding the staff.
    parts.append(
        f'<path d="M{_n(cx + side * w * 0.2)} {_n(top + 60)}Q{_n(sx)} {_n(top + 70)} '
        f'{_n(sx)} {_n(top + 48)}" fill="none" stroke="{robe}" stroke-width="14" '
        'stroke-linecap="round"/>'
    )
    parts.append(f'<circle cx="{_n(sx)}" cy="{_n(top + 46)}" r="7" fill="{trim}" {line}/>')
    # The hood, its face in shadow with two lit eyes (looking where Wit sends them).
    hx, hy = cx, top + 30
    if look.ears == "peaked":
        hood = f"M{_n(hx - 34)} {_n(hy + 22)}Q{_n(hx - 30)} {_n(hy - 30)} {_n(hx + 6)} {_n(hy - 46)}Q{_n(hx + 34)} {_n(hy - 20)} {_n(hx + 34)} {_n(hy + 22)}Z"  # noqa: E501
    elif look.ears == "horned":
        hood = f"M{_n(hx - 32)} {_n(hy + 22)}Q{_n(hx - 36)} {_n(hy - 32)} {_n(hx)} {_n(hy - 34)}Q{_n(hx + 36)} {_n(hy - 32)} {_n(hx + 32)} {_n(hy + 22)}Z"  # noqa: E501
        for d in (-1, 1):
            parts.append(
                f'<path d="M{_n(hx + d * 18)} {_n(hy - 26)}Q{_n(hx + d * 40)} {_n(hy - 40)} '
                f"{_n(hx + d * 36)} {_n(hy - 62)}Q{_n(hx + d * 30)} {_n(hy - 40)} "
                f'{_n(hx + d * 8)} {_n(hy - 32)}Z" fill="{trim}" {line}/>'
            )
    else:
        hood = f"M{_n(hx - 32)} {_n(hy + 22)}Q{_n(hx - 36)} {_n(hy - 36)} {_n(hx)} {_n(hy - 36)}Q{_n(hx + 36)} {_n(hy - 36)} {_n(hx + 32)} {_n(hy + 22)}Z"  # noqa: E501
    parts.append(f'<path d="{hood}" fill="{robe}" {line}/>')
    parts.append(f'<ellipse cx="{_n(hx)}" cy="{_n(hy + 2)}" rx="20" ry="19" fill="{shade}"/>')
    if look.ears == "crowned":
        parts.append(
            f'<path d="M{_n(hx - 22)} {_n(hy - 28)}l6 -16l8 10l8 -14l8 14l8 -10l6 16Z" '
            f'fill="{trim}" {line}/>'
        )
    for d in (-1, 1):
        ex = hx + d * 8 + look.gaze * 1.2
        parts.append(
            f'<ellipse cx="{_n(ex)}" cy="{_n(hy + 2)}" rx="{_n(2 + look.eyes / 5)}" ry="3" '
            f'fill="{mix(colour, 0.85)}"/>'
        )


# The pictures are pure functions of frozen inputs, and every print request makes them
# again (render.prepare hashes them into the render's key): kept once made.
@lru_cache(maxsize=512)
def look_svg(look: Look, symbol: str) -> str:
    tokens = type_tokens(look.colour)
    parts: list[str] = [f"<defs>{symbol_def(symbol)}</defs>"]
    _sky(look, tokens, parts)
    figure: list[str] = []
    (_summoner if look.kind == "archon" else _creature)(look, tokens, figure)
    # Drawn at a friendly size, then grown from its feet to fill the window.
    parts.append(
        f'<g transform="translate({ART_W / 2:g},240) scale(1.3) translate({-ART_W / 2:g},-240)">'
        f"{''.join(figure)}</g>"
    )
    _sparks(look, parts, tokens["type-deep"])
    return (
        f'<svg class="default-art" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {ART_W} {ART_H}" aria-hidden="true" preserveAspectRatio="xMidYMid slice">'
        f"{''.join(parts)}</svg>"
    )


def look_digest(look: Look) -> str:
    """A short name for a look, for the picture's URL: a new look is a new URL."""
    return hashlib.sha256(repr(look).encode()).hexdigest()[:12]


@lru_cache(maxsize=256)
def move_art_svg(colour: str, symbol: str, category: str) -> str:
    """A move card's band: the Type's colour and symbol, and what the move does (claw
    marks for physical, rings and sparks for magic, a cross in a glow for support)."""
    colour = _hex(colour)
    tokens = type_tokens(colour)
    deep = tokens["type-deep"]
    cx, cy = MOVE_W / 2, MOVE_H / 2
    parts = [
        f"<defs>{symbol_def(symbol)}</defs>",
        f'<rect width="{MOVE_W}" height="{MOVE_H}" fill="{mix(colour, 0.72)}"/>',
    ]
    # Rays from the middle, as behind a character.
    wedges = []
    for i in range(0, 24, 2):
        a0, a1 = i * math.pi / 12, (i + 1) * math.pi / 12
        wedges.append(
            f"M{_n(cx)} {_n(cy)}L{_n(cx + 600 * math.cos(a0))} {_n(cy + 600 * math.sin(a0))}"
            f"L{_n(cx + 600 * math.cos(a1))} {_n(cy + 600 * math.sin(a1))}Z"
        )
    parts.append(f'<path d="{"".join(wedges)}" fill="{mix(colour, 0.6)}"/>')
    for i, x in enumerate((70, 190, 370, 490)):
        parts.append(_use(x, 30 if i % 2 else 110, 22, mix(colour, 0.45)))
    if category == "physical":
        # Three claw marks across the symbol.
        for i in (-1, 0, 1):
            x = cx + i * 34
            parts.append(
                f'<path d="M{_n(x - 40)} {_n(cy + 52)}Q{_n(x - 14)} {_n(cy + 14)} {_n(x + 40)} '
                f'{_n(cy - 54)}Q{_n(x + 14)} {_n(cy - 6)} {_n(x - 40)} {_n(cy + 52)}Z" '
                f'fill="{mix(colour, 0.25, "#000000")}"/>'
            )
    elif category == "magic":
        for r in (40, 54, 68):
            parts.append(
                f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{r}" fill="none" stroke="{deep}" '
                'stroke-width="3"/>'
            )
        for i in range(6):
            angle = i * math.pi / 3
            x, y = cx + 68 * math.cos(angle), cy + 68 * math.sin(angle)
            parts.append(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="6" fill="{deep}"/>')
    else:
        for r, amount in ((62, 0.85), (48, 0.95)):
            parts.append(
                f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{r}" fill="{mix(colour, amount)}"/>'
            )
        for dx in (-96, 96):
            parts.append(
                f'<path d="M{_n(cx + dx - 8)} {_n(cy - 24)}h16v16h16v16h-16v16h-16v-16h-16v-16h16Z"'
                f' fill="{deep}"/>'
            )
    parts.append(
        f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="34" fill="#ffffff" stroke="{deep}" '
        'stroke-width="4"/>'
    )
    parts.append(_use(cx, cy + 2, 46, deep))
    return (
        '<svg class="move-art" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {MOVE_W} {MOVE_H}" aria-hidden="true" preserveAspectRatio="xMidYMid slice">'
        f"{''.join(parts)}</svg>"
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


@lru_cache(maxsize=1024)
def qr_svg(url: str) -> str:
    """A QR code of `url` (segno), black on white with a one-module margin, one path."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="l", micro=False).save(
        out, kind="svg", xmldecl=False, svgns=True, nl=False, border=1, omitsize=True,
        svgclass=None, lineclass=None, light="#ffffff",
    )  # fmt: skip
    return out.getvalue().decode()


# A card's frame (63 x 88 mm, in tenths of a millimetre): the ring under the card's
# 1.8 mm border shows it (card.css), the face inside stays white.
FRAME_W, FRAME_H, RING = 630, 880, 18
PATTERNS = ("stripes", "dots", "waves", "zigzag", "scales")


def frame_pattern(slug: str) -> str:
    """Each Type's texture, the same for every card of the Type (a hash of its slug)."""
    return PATTERNS[hashlib.sha256(slug.encode()).digest()[0] % len(PATTERNS)]


def _ring_marks(pattern: str, ink: str) -> str:
    """The texture along the whole card (the face covers all but the ring), one path."""
    d = []
    if pattern == "stripes":
        d = [f"M{x} 0l-60 {FRAME_H}" for x in range(0, FRAME_W + 60 * 16, 12)]
        return f'<path d="{"".join(d)}" stroke="{ink}" stroke-width="3"/>'
    if pattern == "dots":
        for y in range(4, FRAME_H, 9):
            for x in range(4 + (y // 9 % 2) * 4, FRAME_W, 9):
                if x < RING + 2 or x > FRAME_W - RING - 2 or y < RING + 2 or y > FRAME_H - RING - 2:
                    d.append(f"M{x} {y}h0")
        return f'<path d="{"".join(d)}" stroke="{ink}" stroke-width="3.6" stroke-linecap="round"/>'
    if pattern == "waves":
        for y in (6, 12, FRAME_H - 12, FRAME_H - 6):
            d.append(f"M0 {y}" + "q6 -5 12 0t12 0" * (FRAME_W // 24 + 1))
        for x in (6, 12, FRAME_W - 12, FRAME_W - 6):
            d.append(f"M{x} 0" + "q5 6 0 12t0 12" * (FRAME_H // 24 + 1))
        return f'<path d="{"".join(d)}" fill="none" stroke="{ink}" stroke-width="1.8"/>'
    if pattern == "zigzag":
        for y in (5, FRAME_H - 13):
            d.append(f"M0 {y + 8}" + "l6 -8l6 8" * (FRAME_W // 12 + 1))
        for x in (5, FRAME_W - 13):
            d.append(f"M{x} 0" + "l8 6l-8 6" * (FRAME_H // 12 + 1))
        return f'<path d="{"".join(d)}" fill="none" stroke="{ink}" stroke-width="2.2"/>'
    # scales: rows of arcs, offset every other row
    for y in range(6, FRAME_H, 8):
        offset = (y // 8 % 2) * 5
        if RING + 4 < y < FRAME_H - RING - 4:
            for x in (0, FRAME_W - RING - 2):
                d.append(f"M{x + offset} {y}" + "a5 5 0 0 0 10 0" * 2)
        else:
            d.append(f"M{offset - 10} {y}" + "a5 5 0 0 0 10 0" * (FRAME_W // 10 + 2))
    return f'<path d="{"".join(d)}" fill="none" stroke="{ink}" stroke-width="1.6"/>'


# Foil (print-shop mode, issue 34): the hues of a holographic sheen, laid at low opacity
# over a frame so that the Type's colour and texture still show through. The same stops
# run over the bleed (render._bleed_css), so a cut a little off shows foil, not a seam.
FOIL_HUES = ("#ff3d6e", "#ffc83d", "#6dff8a", "#3dd2ff", "#8a63ff", "#ff5ad2")
FOIL_OPACITY = 0.55
# The rainbow runs this many times from corner to corner, as a holographic foil's does.
FOIL_CYCLES = 2
# Bands of light across the sheen, as a holographic card catches it: (offset, opacity).
FOIL_GLINTS = ((0.14, 0.7), (0.38, 0.45), (0.62, 0.7), (0.86, 0.45))


def foil_stops() -> list[tuple[float, str]]:
    """The sheen's gradient stops, as (offset 0-1, colour): the hues FOIL_CYCLES times,
    back to the first at the end."""
    hues = [*FOIL_HUES * FOIL_CYCLES, FOIL_HUES[0]]
    last = len(hues) - 1
    return [(i / last, hue) for i, hue in enumerate(hues)]


def _foil_layer() -> tuple[str, str]:
    """The foil's <defs> and the shapes that draw it over the whole frame (the card's face
    covers all but the ring, so the sheen never lies under text)."""
    stops = "".join(
        f'<stop offset="{offset:.3f}" stop-color="{hue}" stop-opacity="{FOIL_OPACITY}"/>'
        for offset, hue in foil_stops()
    )
    glints = "".join(
        f'<stop offset="{max(0, o - 0.04):.2f}" stop-color="#ffffff" stop-opacity="0"/>'
        f'<stop offset="{o:.2f}" stop-color="#ffffff" stop-opacity="{a}"/>'
        f'<stop offset="{min(1, o + 0.04):.2f}" stop-color="#ffffff" stop-opacity="0"/>'
        for o, a in FOIL_GLINTS
    )
    defs = (
        f'<linearGradient id="foil" x1="0" y1="0" x2="1" y2="1">{stops}</linearGradient>'
        f'<linearGradient id="glint" x1="1" y1="0" x2="0" y2="1">{glints}</linearGradient>'
    )
    shapes = (
        f'<rect width="{FRAME_W}" height="{FRAME_H}" fill="url(#foil)"/>'
        f'<rect width="{FRAME_W}" height="{FRAME_H}" fill="url(#glint)"/>'
    )
    return defs, shapes


@lru_cache(maxsize=128)
def frame_svg(
    colour: str, symbol: str, slug: str, *, archon: bool = False, foil: bool = False
) -> str:
    """A Type's frame: its colour, its texture (`frame_pattern`) in a darker shade, and its
    symbol in the corners. An Archon's is the Type's deep shade with a gold double rule
    and studs: told from a Memeyori's across a table. With `foil`, a holographic sheen
    (`_foil_layer`) over the colour and texture, under the rules and studs."""
    colour = _hex(colour)
    tokens = type_tokens(colour)
    deep = tokens["type-deep"]
    # Mid-edges: a card's corners are rounded off on screen.
    half = RING // 2
    studs = [(FRAME_W // 2, half), (FRAME_W // 2, FRAME_H - half),
             (half, FRAME_H // 2), (FRAME_W - half, FRAME_H // 2)]  # fmt: skip
    parts = [f"<defs>{symbol_def(symbol)}</defs>"]
    # Drawn as the card's border-image (card.css): the corners are the card's own, rounded.
    clip = f'<clipPath id="c"><rect width="{FRAME_W}" height="{FRAME_H}" rx="30"/></clipPath>'
    if foil:
        clip += _foil_layer()[0]
    parts[0] = parts[0].replace("</defs>", clip + "</defs>")
    if archon:
        gold, base = "#e3b341", mix(deep, 0.25, "#000000")
        parts.append(f'<rect width="{FRAME_W}" height="{FRAME_H}" fill="{base}"/>')
        parts.append(_ring_marks(frame_pattern(slug), mix(base, 0.18)))
        if foil:
            parts.append(_foil_layer()[1])
        for inset, width in ((4, 2.4), (13, 1.4)):
            parts.append(
                f'<rect x="{inset}" y="{inset}" width="{FRAME_W - 2 * inset}" '
                f'height="{FRAME_H - 2 * inset}" rx="{max(2, 30 - inset)}" fill="none" '
                f'stroke="{gold}" stroke-width="{width}"/>'
            )
        for x, y in studs:
            parts.append(f'<path d="M{x} {y - 9}l9 9l-9 9l-9 -9z" fill="{gold}"/>')
            parts.append(_use(x, y + 1, 10, base))
    else:
        parts.append(f'<rect width="{FRAME_W}" height="{FRAME_H}" fill="{colour}"/>')
        # The texture a shade darker, or lighter on a dark Type, so that it shows.
        ink = mix(colour, 0.3) if luminance(colour) < 0.12 else mix(colour, 0.22, "#000000")
        parts.append(_ring_marks(frame_pattern(slug), ink))
        if foil:
            parts.append(_foil_layer()[1])
        parts.append(
            f'<rect x="{RING - 1}" y="{RING - 1}" width="{FRAME_W - 2 * RING + 2}" '
            f'height="{FRAME_H - 2 * RING + 2}" fill="none" stroke="{deep}" stroke-width="2"/>'
        )
        for x, y in studs:
            parts.append(
                f'<circle cx="{x}" cy="{y}" r="8" fill="#ffffff" stroke="{deep}" '
                'stroke-width="1.2"/>'
            )
            parts.append(_use(x, y + 1, 11, deep))
    body = parts[0] + f'<g clip-path="url(#c)">{"".join(parts[1:])}</g>'
    # Its size in pixels is the frame's in tenths of a mm, as border-image-slice counts.
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{FRAME_W}" height="{FRAME_H}" '
        f'viewBox="0 0 {FRAME_W} {FRAME_H}" preserveAspectRatio="none">{body}</svg>'
    )
