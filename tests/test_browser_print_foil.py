"""Foil on the print page in a real browser (issue 34): asked for without print-shop mode
it is refused by its box and in the htmx result; with it, the preview is a foil card."""

import re

import pytest
from playwright.sync_api import expect

from .browser import DESKTOP, screenshot, signed_in
from .conftest import make_card, make_memeyori

pytestmark = pytest.mark.browser


def test_foil_is_asked_for_with_print_shop_mode_and_previewed(
    _browser, live_server, transactional_db, types, alice
):
    pup = make_memeyori(alice, types["Blaze"], name="Emberpup", flavour="Barks in sparks.")
    make_card(pup, types["Blaze"], name="Cinder Nip")
    context, page = signed_in(_browser, live_server.url, alice, **DESKTOP)
    try:
        page.goto(live_server.url + "/print/")
        page.get_by_label(re.compile("Emberpup")).check()
        foil = page.get_by_label(re.compile("^Foil"))
        foil.check()
        page.get_by_role("button", name="Check and preview").click()
        summary = page.locator("#print-result .error-summary")
        expect(summary).to_contain_text("Foil prints only in print-shop mode")
        summary.get_by_role("link").click()
        expect(foil).to_be_focused()
        screenshot(page, "print-foil-refused")

        page.get_by_label(re.compile("^Print-shop mode")).check()
        page.get_by_role("button", name="Check and preview").click()
        expect(page.get_by_role("link", name="Download the PDF")).to_be_visible(timeout=60_000)
        expect(page.locator(".preflight.ok")).to_be_visible()
        assert "foil=on" in page.url and "bleed=on" in page.url
        page.locator(".sheet-preview").scroll_into_view_if_needed()
        screenshot(page, "print-foil-preview")
    finally:
        context.close()
