"""The builder's art picker in a real browser (issue 34): the looks follow the typed name
and Type, a look is picked by keyboard and by click, the preview follows, and the owner's
pick is what the character's cards show. axe-core checks the page; screenshots at a
phone's and a laptop's width land in artifacts/screenshots/."""

import pytest
from playwright.sync_api import expect

from cards.models import Memeyori
from cards.printing import art

from .axe import check_a11y
from .browser import DESKTOP, PHONE, screenshot, signed_in

pytestmark = pytest.mark.browser


def preview(page) -> str:
    return page.locator("#art-preview svg").evaluate("svg => svg.outerHTML")


def settled(page):
    page.wait_for_timeout(300)  # the live update waits 200 ms after the last keystroke
    page.wait_for_load_state("networkidle")


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_a_player_picks_a_look_and_the_preview_follows(
    _browser, live_server, transactional_db, types, alice, device
):
    options = PHONE if device == "phone" else DESKTOP
    context, page = signed_in(_browser, live_server.url, alice, **options)
    try:
        page.goto(live_server.url + "/build/memeyori/")
        looks = page.get_by_role("radio", name="Look 1", exact=True)
        expect(looks).to_be_checked()
        expect(page.get_by_role("radio", name="Look 8", exact=True)).to_have_count(1)
        first = preview(page)

        # Typing a name redraws the preview and the thumbnails, without a reload.
        page.locator("#id_name").fill("Glimmerpaw")
        settled(page)
        named = preview(page)
        assert named != first
        thumb = page.locator("#look-thumb-2 svg").evaluate("svg => svg.outerHTML")

        # Another Type: its colours.
        page.locator("#id_type").select_option(label=f"{types['Tide'].symbol} Tide")
        settled(page)
        assert preview(page) != named
        assert page.locator("#look-thumb-2 svg").evaluate("svg => svg.outerHTML") != thumb
        tide = preview(page)

        # By keyboard: focus the chosen look, arrow to the next ones.
        looks.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        expect(page.get_by_role("radio", name="Look 3", exact=True)).to_be_checked()
        expect(page.get_by_role("radio", name="Look 3", exact=True)).to_be_focused()
        settled(page)
        expect(page.locator(".art-caption")).to_have_text("Look 3, as the cards print it")
        keyboard = preview(page)
        assert keyboard != tide
        # The preview is the thumbnail of the look picked (the same picture, larger).
        thumb = page.locator("#look-thumb-2 svg").evaluate("svg => svg.outerHTML")
        assert keyboard.replace("preview-s", "s") == thumb.replace("look-3-s", "s")

        # By click (on the thumbnail, the radio's label).
        page.locator("label[for=id_art_variant_5]").click()
        expect(page.get_by_role("radio", name="Look 6", exact=True)).to_be_checked()
        settled(page)
        expect(page.locator(".art-caption")).to_have_text("Look 6, as the cards print it")
        assert preview(page) != keyboard
        page.locator("#art-preview").scroll_into_view_if_needed()
        check_a11y(page)
        screenshot(page, f"builder-art-picker-{device}")

        # Saved, the character's cards show the look that was previewed.
        shown = preview(page)
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_url("**/edit/")
        saved = Memeyori.objects.get(name="Glimmerpaw")
        assert saved.art_variant == 5
        expected = art.character_art_svg(saved)
        normalise = page.evaluate(
            "s => { const d = document.createElement('div'); d.innerHTML = s;"
            " return d.firstElementChild.outerHTML; }",
            expected,
        )
        assert shown.replace("preview-s", "s") == normalise
    finally:
        context.close()
