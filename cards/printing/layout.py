"""Sheet geometry in millimetres: where each card sits and where each cut mark goes.

Pure Python. The PDF's positioning CSS, its cut-mark SVG and the tests all read the
same numbers from here, so what the tests check is what was drawn.
"""

import math
from dataclasses import dataclass

MM_PER_INCH = 25.4
PT_PER_MM = 72 / MM_PER_INCH

# Poker size, the standard for playing cards (and sleeves).
CARD_W, CARD_H = 63.0, 88.0
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
COLUMNS, ROWS = 3, 3
PER_SHEET = COLUMNS * ROWS
# Cards stand 2 mm apart so that every corner has room for a cut mark that touches no
# card. Letter is the tight one: 3 x 88 + 2 x 2 mm leaves 5.7 mm top and bottom, inside
# what home printers print (most need 3-5 mm).
GUTTER = 2.0
# A mark starts this far from the corner it points at and never runs closer than this to
# the next card or to the paper's edge; MARK_MAX is its longest length.
MARK_GAP = 0.3
MARK_MAX = 4.0
# Print-shop mode: 3 mm of the card's background beyond the trim on every side.
BLEED = 3.0

# The portrait window on a Mastercard (see static/css/card.css, .portrait).
PORTRAIT_W, PORTRAIT_H = 22.0, 28.0
PRINT_DPI = 300


def px_at_dpi(mm: float, dpi: int = PRINT_DPI) -> int:
    return math.ceil(mm / MM_PER_INCH * dpi)


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h


@dataclass(frozen=True, slots=True)
class Mark:
    """A cut mark: a straight segment from (x1, y1) to (x2, y2), in mm from the top left."""

    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True, slots=True)
class SheetLayout:
    page_w: float
    page_h: float
    slots: tuple[Rect, ...]
    marks: tuple[Mark, ...]
    # Card backs: ink-light (a thin frame on white) unless the solid dark back is asked for.
    solid_backs: bool = False

    def mirrored_slot(self, index: int) -> int:
        """Where the back of slot `index` goes so a long-edge duplex print lines up.

        Turning the paper over about its vertical axis swaps the columns of each row.
        """
        if len(self.slots) == 1:
            return 0
        row, column = divmod(index, COLUMNS)
        return row * COLUMNS + (COLUMNS - 1 - column)


def sheet_layout(
    paper: str, *, columns: int = COLUMNS, rows: int = ROWS, solid_backs: bool = False
) -> SheetLayout:
    """A grid of cards centred on the paper, with marks at every corner outside the cards."""
    page_w, page_h = PAPERS[paper]
    grid_w = columns * CARD_W + (columns - 1) * GUTTER
    grid_h = rows * CARD_H + (rows - 1) * GUTTER
    left, top = (page_w - grid_w) / 2, (page_h - grid_h) / 2
    if left < MARK_GAP or top < MARK_GAP:
        raise ValueError(f"{columns} x {rows} cards do not fit on {paper}")
    slots = tuple(
        Rect(left + c * (CARD_W + GUTTER), top + r * (CARD_H + GUTTER), CARD_W, CARD_H)
        for r in range(rows)
        for c in range(columns)
    )
    marks = _corner_marks(slots, page_w, page_h)
    return SheetLayout(page_w, page_h, slots, marks, solid_backs=solid_backs)


def _room(start: float, direction: int, limit_edges: list[float], page_edge: float) -> float:
    """Free distance from `start` going in `direction` before the next card edge or page edge."""
    ahead = [e for e in limit_edges if (e - start) * direction > 0]
    nearest = min(ahead, key=lambda e: abs(e - start)) if ahead else page_edge
    return abs(nearest - start)


def _corner_marks(slots: tuple[Rect, ...], page_w: float, page_h: float) -> tuple[Mark, ...]:
    marks = []
    for card in slots:
        for cx, dx in ((card.x, -1), (card.right, 1)):
            for cy, dy in ((card.y, -1), (card.bottom, 1)):
                # The horizontal mark continues the card's top or bottom edge outwards; it
                # may only cross the gutter, so its room ends at the next card in its row.
                row_edges = [
                    e
                    for s in slots
                    if s.y < cy + 1e-9 and s.bottom > cy - 1e-9 and s != card
                    for e in (s.x, s.right)
                ]
                room = _room(cx, dx, row_edges, 0.0 if dx < 0 else page_w)
                length = min(MARK_MAX, room - 2 * MARK_GAP)
                if length > 0:
                    start = cx + dx * MARK_GAP
                    marks.append(Mark(start, cy, start + dx * length, cy))
                column_edges = [
                    e
                    for s in slots
                    if s.x < cx + 1e-9 and s.right > cx - 1e-9 and s != card
                    for e in (s.y, s.bottom)
                ]
                room = _room(cy, dy, column_edges, 0.0 if dy < 0 else page_h)
                length = min(MARK_MAX, room - 2 * MARK_GAP)
                if length > 0:
                    start = cy + dy * MARK_GAP
                    marks.append(Mark(cx, start, cx, start + dy * length))
    return tuple(marks)


def single_card_layout(paper: str) -> SheetLayout:
    """One card centred on the paper ('a4', 'letter'), or a page the card's own size ('card')."""
    if paper == "card":
        return SheetLayout(CARD_W, CARD_H, (Rect(0.0, 0.0, CARD_W, CARD_H),), ())
    return sheet_layout(paper, columns=1, rows=1)


def pages(items: list, per_page: int = PER_SHEET) -> list[list]:
    return [items[i : i + per_page] for i in range(0, len(items), per_page)] or [[]]


def with_copies(faces: list, copies: int) -> list:
    """Each move card `copies` times, next to each other; Mastercards once."""
    return [f for face in faces for f in [face] * (copies if face.kind == "move" else 1)]
