"""A player makes the Switch first ("Switch/summon now"), sees the card it drew marked on
the plan page, and plays it the same round (issue 31, ruling 8), with the mouse."""

import re
import time

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from battles.play import services
from battles.play.models import Game, PlanStage, PlayedPlan
from tests.playing import make_side

from .browser import DESKTOP, screenshot, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_switches_first_and_plays_the_card_it_drew(_browser, live_server, alice, types):
    sun = make_side(alice, types, "Sunrise", prefix="Sun", size=4)
    moon = make_side(alice, types, "Night", prefix="Moon")
    game = services.start_game(
        user=alice, party=sun, opponent="ai", party_b=moon, policy_b="greedy", seed=4
    )
    ctx, page = signed_in(_browser, live_server.url, alice, **DESKTOP)
    try:
        page.goto(f"{live_server.url}{game.get_absolute_url()}")
        expect(page.get_by_role("heading", name=re.compile("Your hand"))).to_be_visible()
        page.get_by_label(re.compile("^Switch")).select_option(index=1)
        page.get_by_role("button", name="Switch/summon now").click()
        expect(page.locator(".tag.drawn")).to_have_count(1)
        expect(page.get_by_text("Made this round")).to_be_visible()
        screenshot(page, "play-draws-01-after-the-switch")
        stage = PlanStage.objects.get(game=game)
        drawn = page.locator(".play-card", has=page.locator(".tag.drawn"))
        drawn.locator("select").select_option(index=1)
        page.get_by_role("button", name=re.compile("Submit the plan")).click()
        expect(page.locator("body")).not_to_contain_text("Just drawn")
        plan = PlayedPlan.objects.get(game=game, side=0).plan
        assert plan["switch"] == stage.switch
        assert plan["cards"][0][0].startswith(stage.switch[1] + ".")
        game = Game.objects.get(pk=game.pk)
        assert game.round == 2 or game.status == "finished"
    finally:
        ctx.close()


def test_a_live_check_due_as_the_switch_is_made_does_not_make_it_again(
    _browser, live_server, alice, types
):
    """htmx sends a form's request to the formaction of the submit button clicked last: the
    live check, 150 ms after the Switch was chosen, went to "Switch/summon now"'s URL when
    the stage was slow to answer (a loaded machine), and made the Switch a second time."""
    sun = make_side(alice, types, "Sunrise", prefix="Sun", size=4)
    moon = make_side(alice, types, "Night", prefix="Moon")
    game = services.start_game(
        user=alice, party=sun, opponent="ai", party_b=moon, policy_b="greedy", seed=4
    )
    ctx, page = signed_in(_browser, live_server.url, alice, **DESKTOP)
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    def slow(route):
        time.sleep(0.6)  # longer than the check's 150 ms delay
        route.continue_()

    try:
        page.goto(f"{live_server.url}{game.get_absolute_url()}")
        expect(page.get_by_role("heading", name=re.compile("Your hand"))).to_be_visible()
        page.route(re.compile(r".*/stage/$"), slow)
        page.get_by_label(re.compile("^Switch")).select_option(index=1)
        page.get_by_role("button", name="Switch/summon now").click()
        expect(page.locator(".tag.drawn")).to_have_count(1)
        page.wait_for_timeout(500)  # a check still due would have left by now
        expect(page.locator(".message.error")).to_have_count(0)
        assert [u for u in posts if u.endswith("/stage/")] == [
            f"{live_server.url}{reverse('play_stage', kwargs={'code': game.code})}"
        ]
        assert PlanStage.objects.filter(game=game).count() == 1
    finally:
        ctx.close()
