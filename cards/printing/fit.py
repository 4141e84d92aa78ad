"""Shrink-to-fit: font-size steps per text zone, a first guess from character counts, and
the check that reads WeasyPrint's laid-out boxes.

How text is made to fit (the issue left the method open):
1. Each card's variable text sits in one fixed-size zone (`<div class="fit">`) whose font
   size comes from a step (`data-step`); card.css gives each step's size.
2. A cheap estimate from character counts picks the starting step, so most cards are
   right the first time and a deck is laid out once.
3. After layout the worker measures every zone's content against its box
   (`overflowing_zones`). A zone that overflows moves to a smaller step and the document
   is laid out again; at the smallest step what still overflows is marked as cut on the
   card itself (a visible banner) and listed in the preflight. Nothing is cut silently.

Pure Python: no Django, no WeasyPrint import at module level.
"""

import math
import re
from dataclasses import dataclass

# Font sizes in pt, largest first. card.css has one rule per step; a test keeps them equal.
STEPS = {
    # Never under 6 pt (issue 22): what does not fit at 6 pt is reported, not set smaller.
    # Then 6 pt again without the flavour text (NO_FLAVOUR), and the move card's last step
    # is 6 pt again with the odds grids and the art left out too (card.css), so that long
    # rules text takes their room.
    "move": (8.0, 7.5, 7.0, 6.5, 6.0, 6.0, 6.0),
    "master": (7.0, 6.5, 6.0, 6.0),
    # One-line zones (names, the Type band, the owner line) keep their designed size: they
    # are checked so that an overflow is reported, never hidden.
    "line": (0.0,),
}
# From this step on the zone's flavour text is left out (card.css), and the preflight says
# so: the rules are what a player needs, so flavour goes before they are cut or the odds
# and the art make way for them (issue 34).
NO_FLAVOUR = {"move": 5, "master": 3}
# Zone sizes in mm (card.css: .move .fit and .mastercard .fit).
ZONES = {"move": (55.8, 33.6), "master": (55.8, 21.7)}
# Steps that also give the zone more room (card.css), by (kind, step).
ROOMIER = {("move", 6): (55.8, 58.2)}
LINE_HEIGHT = 1.12
# DejaVu Sans Condensed averages about half an em per character in running English.
EM_PER_CHAR = 0.5
PT_PER_MM = 72 / 25.4

FIT_ATTRS = re.compile(r'data-fit="(\d+)" data-step="(\d+)" data-cut="([01])"')


@dataclass(frozen=True, slots=True)
class Zone:
    """One text zone to fit: its id in the markup, its kind, and a label for the preflight."""

    id: int
    kind: str
    label: str
    paragraphs: tuple[str, ...]


def estimate_step(
    kind: str,
    paragraphs: tuple[str, ...] | list[str],
    fill: float = 0.9,
    flavour: tuple[str, ...] | list[str] = (),
) -> int:
    """The largest step at which the text probably fits, by counting characters: the
    `paragraphs` and, before NO_FLAVOUR, the `flavour` lines. The screen, which has no
    second pass, asks for a smaller `fill` to be safe."""
    for step, size in enumerate(STEPS[kind]):
        if flavour and step < NO_FLAVOUR.get(kind, len(STEPS[kind])):
            shown = [*paragraphs, *flavour]
        else:
            shown = paragraphs
        width_mm, height_mm = ROOMIER.get((kind, step), ZONES[kind])
        per_line = max(1, int(width_mm * PT_PER_MM / (EM_PER_CHAR * size)))
        lines = sum(max(1, math.ceil(len(p) / per_line)) for p in shown)
        # Leave a tenth spare: the check after layout catches the rest.
        if lines * size * LINE_HEIGHT <= height_mm * PT_PER_MM * fill:
            return step
    return len(STEPS[kind]) - 1


def next_step(kind: str, step: int, ratio: float) -> int:
    """The step to try after one whose content was `ratio` times the zone's height.

    Text area grows with the square of the font size, so aim at size / sqrt(ratio).
    """
    sizes = STEPS[kind]
    target = sizes[step] / math.sqrt(max(ratio, 1.0)) + 1e-9
    for candidate in range(step + 1, len(sizes)):
        if sizes[candidate] <= target:
            return candidate
    return min(step + 1, len(sizes) - 1)


def apply_steps(html: str, steps: dict[int, int], cut: set[int]) -> str:
    """Rewrite each zone's data-step / data-cut in the markup (user text cannot forge the
    attributes: it is escaped, so it never contains a bare double quote)."""

    def swap(match: re.Match) -> str:
        zone = int(match[1])
        step = steps.get(zone, int(match[2]))
        return f'data-fit="{zone}" data-step="{step}" data-cut="{int(zone in cut)}"'

    return FIT_ATTRS.sub(swap, html)


def overflowing_zones(document) -> dict[int, float]:
    """{zone id: content height / zone height} for every zone whose content is too tall.

    `document` is a rendered weasyprint Document; zones are found by their data-fit.
    """
    found = {}
    for page in document.pages:
        seen = set()
        for box in page._page_box.descendants(placeholders=True):
            element = getattr(box, "element", None)
            if element is None or id(element) in seen or element.get("data-fit") is None:
                continue
            # The element's own box comes before any anonymous box made from it.
            seen.add(id(element))
            if not box.children or not isinstance(getattr(box, "height", None), float | int):
                continue
            top = box.content_box_y()
            bottom = max(child.position_y + child.margin_height() for child in box.children)
            used = bottom - top
            # Half a point of slack: sub-pixel rounding is not an overflow.
            if used > box.height + 0.5:
                found[int(element.get("data-fit"))] = used / max(box.height, 1.0)
    return found
