"""Play from here in a real browser (issue 32 §6): a reader opens a battle, steps to round
3, forks it against the AI, plans that round and sees it resolve; each page is checked
with axe-core."""

import re

import pytest
from playwright.sync_api import expect

from battles.play import services
from battles.play.models import Game
from battles.services import battle_run
from tests.playing import affordable_plan, make_side

from .browser import DESKTOP, screenshot, signed_in
from .test_browser_hotseat import choose

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reader_forks_a_battle_from_round_3_against_the_ai_and_plays_a_round(
    _browser, live_server, alice, types
):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(alice, types, "Night", prefix="Moon")
    for seed in range(1, 40):
        battle = battle_run(owner=alice, party_a=sun, party_b=night, seed=seed)
        if battle.rounds >= 4:
            break
    context, page = signed_in(_browser, live_server.url, alice, **DESKTOP)
    try:
        page.goto(f"{live_server.url}{battle.get_absolute_url()}")
        page.locator("#jump-round").select_option("3")
        page.locator('[data-nav="jump"]').click()
        expect(page.locator("#viewer .where")).to_contain_text("Round 3")
        page.get_by_role("link", name=re.compile(r"Play from here: round 3")).click()

        expect(page.get_by_role("heading", name=re.compile("Play from here"))).to_be_visible()
        expect(page.locator("#id_round")).to_have_value("3")
        expect(page.locator(".fork-note")).to_contain_text(
            "Both hands at that round are known from the battle's log"
        )
        screenshot(page, "fork-01-form")
        page.get_by_label("The AI").check()
        page.get_by_label("Side A: Sunrise").check()
        page.get_by_role("button", name="Play from this round").click()

        expect(page.locator("[data-page=plan]")).to_be_visible()
        assert page.locator("input[name=round]").input_value() == "3"
        game = Game.objects.get()
        assert (game.fork_battle_id, game.fork_round) == (battle.pk, 3)
        state = services.game_state(game, 0)
        screenshot(page, "fork-02-plan-round-3")
        plan = affordable_plan(state)
        for card_id, _tier, target in plan:
            choose(page, card_id, target, keyboard=False)
        page.locator("button[name=submit]").click()

        # The round resolves against the AI, and the page shows it from its first event.
        expect(page).to_have_url(re.compile(r"/watch/\?round=3$"))
        expect(page.locator("#viewer .where")).to_contain_text("Round 3 · event 1")
        game.refresh_from_db()
        assert game.round == 4 or game.status == "finished"
        screenshot(page, "fork-03-round-3-resolved")
    finally:
        context.close()
