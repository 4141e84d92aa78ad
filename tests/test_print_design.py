"""Design rules of the cards that hold for any Type colour a game master may choose, read
from the design tokens (cards/printing/design.py) and the stylesheet that uses them."""

import re

from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from cards.printing import design, fit

CARD_CSS = settings.BASE_DIR / "static" / "css" / "card.css"


def css() -> str:
    return re.sub(r"/\*.*?\*/", "", CARD_CSS.read_text(), flags=re.S)


def declarations(name: str) -> list[str]:
    return re.findall(rf"(?<![-\w]){name}:\s*([^;}}]+)", css())


def test_card_css_declares_exactly_the_design_tokens():
    declared = dict(re.findall(r"--(card-[a-z-]+):\s*(#[0-9a-fA-F]{6})", css()))
    assert declared == design.CARD_TOKENS


def test_every_text_colour_in_card_css_is_a_token_with_a_checked_background():
    checked = {text for text, _ in design.TEXT_ON + design.TYPE_TEXT_ON}
    for value in declarations("color"):
        token = re.fullmatch(r"var\(--([a-z-]+)(?:,\s*#[0-9a-fA-F]{6})?\)", value.strip())
        assert token, f"a text colour that is not a token: {value}"
        assert token[1] in checked, f"--{token[1]} is used as text but no pair checks it"


def test_every_fixed_text_colour_reaches_4_5_to_1_on_its_background():
    tokens = design.CARD_TOKENS
    for text, background in design.TEXT_ON:
        ratio = design.contrast(tokens[text], tokens[background])
        assert ratio >= 4.5, (text, background, round(ratio, 2))


@given(st.integers(0, 0xFFFFFF))
def test_every_type_text_colour_reaches_4_5_to_1_for_any_type_colour(rgb):
    tokens = {**design.CARD_TOKENS, **design.type_tokens(f"#{rgb:06x}")}
    for text, background in design.TYPE_TEXT_ON:
        assert design.contrast(tokens[text], tokens[background]) >= 4.5, (text, background)


@given(st.integers(0, 0xFFFFFF))
def test_black_type_line_text_stays_readable_on_any_tint_even_in_greyscale(rgb):
    tint = design.tint(f"#{rgb:06x}")
    # Contrast of black text on the tint, which greyscale printing keeps: WCAG AAA is 7.
    assert (design.luminance(tint) + 0.05) / 0.05 >= 7


def test_nothing_on_a_card_is_set_under_6_pt():
    sizes = declarations("font-size")
    assert sizes
    for value in sizes:
        number = re.fullmatch(r"([\d.]+)pt", value.strip())
        assert number, f"font sizes on cards are in pt, so this test can read them: {value}"
        assert float(number[1]) >= 6, value
    assert min(size for steps in fit.STEPS.values() for size in steps if size) >= 6


def test_types_css_and_the_pdf_carry_the_same_type_tokens(client, types):
    from cards.models import Type
    from cards.printing.render import _type_css

    served = client.get("/types.css").content.decode()
    assert _type_css(Type.objects.all()) in served
    blaze = design.type_tokens(types["Blaze"].colour)
    assert f"--type-deep: {blaze['type-deep']};" in served


def test_the_print_page_shows_progress_while_it_renders(client, db):
    page = client.get("/print/").content.decode()
    assert 'hx-indicator="#rendering"' in page
    assert 'id="rendering" class="htmx-indicator' in page
