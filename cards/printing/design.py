"""The cards' design tokens: the fixed colours card.css uses, the colours made from each
Type's own (a GM may pick any), and the contrast rule every text colour keeps.

Pure Python. card.css declares the fixed tokens as custom properties on `.card` (a test
keeps them equal to CARD_TOKENS and checks every text colour against its background);
the Type tokens are written by `type_rules`, into /types.css for the screen and into each
PDF's <style> for print, so both show the same card (no inline style: the CSP refuses it).
"""

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

HEX = re.compile(r"^#[0-9a-fA-F]{6}$")

# Fixed colours (custom properties on .card in static/css/card.css).
CARD_TOKENS = {
    "card-paper": "#ffffff",  # the card's face
    "card-ink": "#16141c",  # body text
    "card-muted": "#4f4b59",  # secondary text: scale labels, the foot line
    "card-panel": "#f1eff5",  # the stat panels' background
    "card-rule": "#c9c4d6",  # hairlines and empty pips (not text)
    "card-weak": "#1d6b33",  # "Weak to" (the chart's green, darkened for print)
    "card-strong": "#9f2119",  # "Strong against" (the chart's red)
    "card-badge": "#16141c",  # the Quick badge's fill
    "card-badge-ink": "#ffffff",
    "card-back-ink": "#1d1b22",  # the ink-light back's lines and words
    "card-back-solid": "#1d1b22",  # the solid back's fill
    "card-mark": "#5b3fd1",  # the game's mark (static/icons/icon.svg)
    "card-star": "#f2c744",  # the Rank's stars on their badge, as a card game's rarity
}

# Every text colour card.css sets, and the background it sits on. A test checks each
# pair at 4.5:1 (WCAG AA for small text, which everything on a card is).
TEXT_ON = [
    ("card-ink", "card-paper"),
    ("card-muted", "card-paper"),
    ("card-ink", "card-panel"),
    ("card-muted", "card-panel"),
    ("card-weak", "card-panel"),
    ("card-strong", "card-panel"),
    ("card-weak", "card-paper"),
    ("card-strong", "card-paper"),
    ("card-badge-ink", "card-badge"),
    ("card-back-ink", "card-paper"),
    ("card-paper", "card-back-solid"),
    ("card-paper", "card-mark"),
    ("card-star", "card-badge"),
]
# Text colours made from a Type's colour, and their backgrounds (see `type_tokens`).
TYPE_TEXT_ON = [
    ("type-ink", "type-colour"),
    ("card-ink", "type-tint"),
    ("type-deep", "card-paper"),
    ("type-deep", "type-tint"),
    ("type-deep", "card-panel"),
]
MIN_CONTRAST = 4.5


def luminance(colour: str) -> float:
    """WCAG relative luminance of #rrggbb."""

    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def mix(colour: str, amount: float, towards: str = "#ffffff") -> str:
    """`colour` moved `amount` (0-1) of the way towards another colour."""
    a = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(towards[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * amount):02x}" for x, y in zip(a, b, strict=True))


def tint(colour: str, amount: float = 0.25) -> str:
    """The colour at `amount` strength on white: a flat tint prints faster than opacity."""
    return mix(colour, 1 - amount)


# Every Mastercard PDF (stored or not: its spec names the tokens) and /types.css write the
# tokens of every Type: some 1 ms of darkening steps for ten Types. A pure function of the
# colour, so each colour's are kept (read-only) once worked out.
@lru_cache(maxsize=1024)
def type_tokens(colour: str) -> Mapping[str, str]:
    """The colours a card makes from its Type's colour:
    - type-colour: the frame, bars and pips (never text);
    - type-ink: text on type-colour, black or white, whichever reads better (one of the two
      always reaches 4.5:1);
    - type-tint: a quarter of the colour on white, for bands under dark text;
    - type-deep: the colour darkened until it reads as text on white, the tint and the
      panels (names of Types, headings)."""
    colour = colour.lower() if HEX.match(colour or "") else "#888888"
    # Pure black, not card-ink: only black or white reaches 4.5:1 on every colour.
    dark, light = "#000000", CARD_TOKENS["card-paper"]
    ink = dark if contrast(dark, colour) >= contrast(light, colour) else light
    tinted = tint(colour)
    backgrounds = [light, tinted, CARD_TOKENS["card-panel"]]
    deep, step = colour, 0
    while min(contrast(deep, bg) for bg in backgrounds) < MIN_CONTRAST:
        step += 1
        deep = mix(colour, step / 20, towards="#000000")
    tokens = {"type-colour": colour, "type-ink": ink, "type-tint": tinted, "type-deep": deep}
    return MappingProxyType(tokens)


def type_rules(types, *, foil: bool = False) -> str:
    """One CSS rule per Type (objects with .slug and .colour), its tokens as custom
    properties on `.type-<slug>`. Rows with a bad slug or colour are left out: the text goes
    into a stylesheet. With `foil` (print-shop pages only), the frames are the foil ones."""
    rules = []
    for t in types:
        if not (HEX.match(t.colour or "") and re.fullmatch(r"[-a-zA-Z0-9_]+", t.slug or "")):
            continue
        tokens = type_tokens(t.colour)
        body = " ".join(f"--{name}: {value};" for name, value in tokens.items())
        rules.append(f".type-{t.slug} {{ {body} }}")
        # The Type's frame (art.frame_svg), under the card's border (card.css).
        rules.append(
            f".card.mastercard.type-{t.slug}, .card.move.type-{t.slug} "
            f'{{ border-image-source: url("{frame_path(t.slug, foil=foil)}"); }}'
        )
        rules.append(
            f".card.archon.type-{t.slug} "
            f'{{ border-image-source: url("{frame_path(t.slug, True, foil=foil)}"); }}'
        )
    return "\n".join(rules)


def frame_path(slug: str, archon: bool = False, *, foil: bool = False) -> str:
    """Where a Type's card frame is served (cards/views/art.py); the renderer is handed
    the same picture under the same path (deck.Face.pictures)."""
    return f"/print/frame/{'archon/' if archon else ''}{'foil/' if foil else ''}{slug}.svg"
