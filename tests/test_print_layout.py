"""Sheet geometry (cards/printing/layout.py): pure numbers, checked without a PDF."""

import pytest

from cards.printing import layout


def _overlaps_interior(mark: layout.Mark, card: layout.Rect) -> bool:
    """True if the segment has any point strictly inside the card."""
    x_lo, x_hi = sorted((mark.x1, mark.x2))
    y_lo, y_hi = sorted((mark.y1, mark.y2))
    return x_hi > card.x and x_lo < card.right and y_hi > card.y and y_lo < card.bottom


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_it_centres_nine_poker_cards_on_the_paper(paper):
    sheet = layout.sheet_layout(paper)
    assert len(sheet.slots) == 9
    assert all((s.w, s.h) == (63.0, 88.0) for s in sheet.slots)
    left = min(s.x for s in sheet.slots)
    right = sheet.page_w - max(s.right for s in sheet.slots)
    top = min(s.y for s in sheet.slots)
    bottom = sheet.page_h - max(s.bottom for s in sheet.slots)
    assert left == pytest.approx(right) and top == pytest.approx(bottom)
    # A margin home printers handle: at least 5 mm on every side.
    assert min(left, top) >= 5.0


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_its_cut_marks_never_touch_a_card(paper):
    sheet = layout.sheet_layout(paper)
    for mark in sheet.marks:
        assert not any(_overlaps_interior(mark, card) for card in sheet.slots), mark
        assert min(mark.x1, mark.x2) >= 0 and max(mark.x1, mark.x2) <= sheet.page_w
        assert min(mark.y1, mark.y2) >= 0 and max(mark.y1, mark.y2) <= sheet.page_h


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_card_corner_has_a_horizontal_and_a_vertical_mark(paper):
    sheet = layout.sheet_layout(paper)
    for card in sheet.slots:
        for cx in (card.x, card.right):
            for cy in (card.y, card.bottom):
                near = [
                    m
                    for m in sheet.marks
                    if min(abs(m.x1 - cx) + abs(m.y1 - cy), abs(m.x2 - cx) + abs(m.y2 - cy))
                    <= layout.MARK_GAP + 1e-9
                ]
                assert any(m.y1 == m.y2 == cy for m in near), (card, cx, cy)
                assert any(m.x1 == m.x2 == cx for m in near), (card, cx, cy)


def test_backs_swap_columns_so_a_duplex_print_lines_up():
    sheet = layout.sheet_layout("a4")
    assert [sheet.mirrored_slot(i) for i in range(9)] == [2, 1, 0, 5, 4, 3, 8, 7, 6]
    for i, slot in enumerate(sheet.slots):
        back = sheet.slots[sheet.mirrored_slot(i)]
        # Flipped about the page's vertical axis, the back covers the front exactly.
        assert back.x == pytest.approx(sheet.page_w - slot.right)
        assert back.y == slot.y


def test_a_single_card_sits_in_the_middle_of_the_page():
    sheet = layout.single_card_layout("letter")
    (card,) = sheet.slots
    assert card.x + card.w / 2 == pytest.approx(215.9 / 2)
    assert card.y + card.h / 2 == pytest.approx(279.4 / 2)
    assert len(sheet.marks) == 8
    assert layout.single_card_layout("card").slots == (layout.Rect(0, 0, 63, 88),)


def test_a_print_portrait_is_at_least_300_dpi():
    assert layout.px_at_dpi(layout.PORTRAIT_W) / (layout.PORTRAIT_W / 25.4) >= 300
