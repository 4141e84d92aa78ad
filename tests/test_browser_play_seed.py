"""The sealed deal on a friend game's page, on a phone: the commitment folds open, wraps
within the screen, and passes axe."""

import pytest

from battles.play import services
from tests.browser import PHONE, screenshot, signed_in
from tests.play_parties import NIGHT_CARDS, play_party

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_phone_opens_the_sealed_deal_within_the_screen(_browser, live_server, alice, bob, types):
    game = services.start_game(user=alice, party=play_party(alice, types), opponent="friend")
    night = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS)
    services.join_game(game.invite_token, bob, night)
    game.refresh_from_db()
    context, page = signed_in(_browser, live_server.url, bob, **PHONE)
    try:
        page.goto(f"{live_server.url}{game.get_absolute_url()}")
        page.get_by_text("The deal is sealed").click()
        assert page.get_by_text(game.seed_commitment).is_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, width
        screenshot(page, "play-seed-sealed-phone")
    finally:
        context.close()
