"""A newcomer's first game in a real browser (issue 41.2, 41.5): sign up, land on "Play
your first game", one click to a filled start form (the starter party, the AI at the
newcomer level), start, and the game names the AI by its level. At a phone's and a
laptop's width, light and dark, each page checked with axe and nothing wider than a phone.

Screenshots: artifacts/screenshots/newcomer-*.png.
"""

import re

import pytest
from playwright.sync_api import expect

from battles.play import newcomer
from battles.play.models import Game
from cards.demo import seed_demo
from cards.models import Party

from .axe import check_a11y
from .browser import screenshot

pytestmark = pytest.mark.browser
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}
PASSWORD = "a-long-pass-123!"


def fits(page, size):
    if size == "phone":
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{page.url} is {overflow}px wider than a phone"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_newcomer_signs_up_and_plays_in_one_click(
    _browser, live_server, transactional_db, size, scheme
):
    seed_demo()
    width, height = SIZES[size]
    context = _browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(15_000)
    name = f"newt-{size}-{scheme}"
    shot = f"newcomer-{size}-{scheme}"
    try:
        page.goto(live_server.url + "/accounts/signup/")
        page.get_by_label("Username").fill(name)
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Password confirmation").fill(PASSWORD)
        page.get_by_role("button", name="Sign up").click()
        # The landing says what to do next, not "None yet."
        expect(page.get_by_role("heading", name="Play your first game")).to_be_visible()
        expect(page.get_by_role("link", name="build a Memeyori")).to_be_visible()
        expect(page.locator("main")).not_to_contain_text("None yet")
        fits(page, size)
        screenshot(page, f"{shot}-1-landing")
        # "Play a game" offers the same click, never an empty party choice.
        page.goto(live_server.url + "/play/new/")
        expect(page.locator("#id_party")).to_have_count(0)
        expect(page.get_by_role("button", name="Play your first game")).to_be_visible()
        check_a11y(page)
        page.get_by_role("button", name="Play your first game").click()
        # One click: the start form, filled.
        page.wait_for_url(re.compile(r"/play/new/\?"))
        party = Party.objects.get(owner__username=name)
        starter = newcomer.starter_source()
        expect(page.get_by_role("status").filter(has_text="is yours")).to_be_visible()
        expect(page.locator("#id_party")).to_have_value(str(party.code))
        expect(page.locator("#id_party_b")).to_have_value(str(starter.code))
        expect(page.locator("#id_policy_b")).to_have_value(newcomer.NEWCOMER_LEVEL)
        fits(page, size)
        screenshot(page, f"{shot}-2-form")
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_url(re.compile(r"/play/[^/]+/$"))
        expect(page.locator(".battle-meta").first).to_contain_text("Against the AI (Beginner)")
        fits(page, size)
        screenshot(page, f"{shot}-3-game")
        assert Game.objects.get(created_by__username=name).policy_b == newcomer.NEWCOMER_LEVEL
    finally:
        context.close()
