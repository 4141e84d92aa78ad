"""Design rules that hold for any Type colour a game master may choose."""

from hypothesis import given
from hypothesis import strategies as st

from cards.printing.render import _tint


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance."""

    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(hex_colour[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@given(st.integers(0, 0xFFFFFF))
def test_black_type_band_text_stays_readable_on_any_tint_even_in_greyscale(rgb):
    tint = _tint(f"#{rgb:06x}")
    # Contrast of black text on the tint, which greyscale printing keeps: WCAG AAA is 7.
    assert (luminance(tint) + 0.05) / 0.05 >= 7


def test_the_print_page_shows_progress_while_it_renders(client, db):
    page = client.get("/print/").content.decode()
    assert 'hx-indicator="#rendering"' in page
    assert 'id="rendering" class="htmx-indicator' in page
