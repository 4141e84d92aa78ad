"""A newcomer on a phone picks an opponent (issue 31.4): the new-game page loads how strong
each one is, the chances arrive by themselves, and "Choose it" fills in the fair fight."""

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from battles.play import fair
from tests.playing import make_side
from tests.test_play_fair import _work_the_queue

from .browser import PHONE, screenshot, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_newcomer_on_a_phone_sees_the_chances_and_takes_the_fair_fight(
    _browser, live_server, alice, bob, types, monkeypatch, queued_tasks
):
    monkeypatch.setattr(fair, "BATTLES_BY_POLICY", {"greedy": 4, "beginner": 2, "random": 2})
    # Any predicted chance counts as fair here: which one is, is test_play_fair's; this
    # test follows the page from the picker to the filled-in form.
    monkeypatch.setattr(fair, "FAIR_LOW", 0.0)
    monkeypatch.setattr(fair, "FAIR_HIGH", 1.0)
    monkeypatch.setattr(fair, "FAIR_DRAWS", 1.01)
    mine = make_side(alice, types, "First Steps", prefix="Step")
    theirs = make_side(bob, types, "Night", prefix="Moon", visibility="public", size=4)
    context, page = signed_in(_browser, live_server.url, alice, **PHONE)
    try:
        page.goto(f"{live_server.url}/play/new/")
        panel = page.locator("#fair")
        expect(panel).to_contain_text("Your chances with First Steps")
        # Three measurements per opponent (its own party and Night): greedy, Beginner and
        # Coin Flipper against the player's greedy.
        expect(panel).to_contain_text("Working out 6 chances in the background")
        assert _work_the_queue() == 6  # a db_worker's part; the panel polls for them
        expect(panel).to_contain_text("A fair fight:", timeout=15_000)
        expect(panel).not_to_contain_text("working it out")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        panel.scroll_into_view_if_needed()
        screenshot(page, "play-fair-01-phone-picker")
        choose = panel.get_by_role("link", name="Choose it")
        offered = parse_qs(urlsplit(choose.get_attribute("href")).query)
        choose.click()
        assert page.locator("#id_party").input_value() == str(mine.code)
        # The fair fight offered (its own mirror or Night, as four battles fall), filled in.
        assert offered["party_b"][0] in (str(mine.code), str(theirs.code))
        assert page.locator("#id_party_b").input_value() == offered["party_b"][0]
        assert page.locator("#id_policy_b").input_value() == offered["policy_b"][0]
        assert offered["policy_b"][0] in fair_levels()
    finally:
        context.close()


def fair_levels():
    from battles.engine.policies import LEVELS

    return set(LEVELS)
