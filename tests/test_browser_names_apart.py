"""Two Memeyori of one name, as a person sees them (issue 41.8): the plan's target menus
and the viewer's field and log say "Puddlewick #1" and "Puddlewick #2", at 1366 px in
light and 390 px in dark, with axe-core; and the viewer shows each one's art (41.9)."""

import re

import pytest
from playwright.sync_api import expect

from tests.test_names_apart import BARE, namesake_game

from .browser import DESKTOP, PHONE, screenshot, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    "options,scheme", [(DESKTOP, "light"), (PHONE, "dark")], ids=["1366-light", "390-dark"]
)
def test_a_player_tells_two_namesakes_apart_in_the_plan_and_the_viewer(
    _browser, live_server, alice, types, options, scheme
):
    game = namesake_game(alice, types)
    width = options["viewport"]["width"]
    context, page = signed_in(_browser, live_server.url, alice, color_scheme=scheme, **options)
    try:
        page.goto(f"{live_server.url}{game.get_absolute_url()}")
        # An attack's menu: each namesake on the enemy field is a target of its own.
        menu = page.locator(
            ".hand select", has=page.locator("option", has_text="on Puddlewick #2")
        ).first
        expect(menu.locator("option", has_text=re.compile(r"^on Puddlewick #1$"))).to_have_count(1)
        expect(menu.locator("option", has_text=re.compile(r"^on Puddlewick #2$"))).to_have_count(1)
        menu.select_option(label="on Puddlewick #2")
        expect(page.locator("#plan-check")).to_contain_text("Puddlewick #2")
        screenshot(page, f"names-apart-plan-{width}-{scheme}")
        page.get_by_role("button", name="Submit the plan for round 1").click()
        expect(page).to_have_url(re.compile(r"/watch/\?round=1$"))
        page.locator("#viewer [data-nav=last]").click()
        expect(page.locator("#viewer")).to_contain_text("Puddlewick #1")
        expect(page.locator("#viewer")).to_contain_text("Puddlewick #2")
        assert not BARE.search(page.locator("#viewer").inner_text())
        screenshot(page, f"names-apart-viewer-{width}-{scheme}")
        # Each character shows its art, as its card does, not its Type's symbol (41.9).
        arts = page.locator('#viewer .combatant img.portrait[src*="/print/art/"]')
        expect(arts.first).to_be_visible()
        assert page.locator("#viewer .portrait.placeholder").count() == 0
        assert all(
            img.evaluate("i => i.complete && i.naturalWidth > 0") for img in arts.all()
        )  # every picture loaded
        page.locator("#viewer .fields").scroll_into_view_if_needed()
        screenshot(page, f"viewer-art-{width}-{scheme}")
    finally:
        context.close()
