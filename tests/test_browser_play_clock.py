"""The round's clock, end to end (issue 31.2): the site as `make serve` runs it and a
db_worker. Alice plans and waits; Bob has closed his tab. Nobody's page asks for the
timeout (the countdown's own POST is blocked here): the task queued for the deadline lets
the AI plan for Bob, and Alice's page, pushed, moves on to the round by itself, saying so.
"""

import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from battles.play import services
from battles.play.models import Game, PlayedPlan
from tests.playing import make_side

from . import servers
from .browser import PHONE, screenshot, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECONDS_LEFT = 8


def test_when_the_time_runs_out_the_task_plans_for_the_absent_side_and_the_page_moves_on(
    _browser, alice, bob, types, settings, tmp_path
):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(bob, types, "Night", prefix="Moon")
    game = services.start_game(user=alice, party=sun, opponent="friend", time_limit=60)
    game = services.join_game(game.invite_token, bob, night)
    port = servers.free_port()
    env = servers.site_env(
        DJANGO_SECRET_KEY=settings.SECRET_KEY, DJANGO_MEDIA_ROOT=str(tmp_path / "media")
    )
    server = servers.web_server(env, port)
    worker = servers.task_worker(env)
    base = f"http://127.0.0.1:{port}"
    context, page = signed_in(_browser, base, alice, **PHONE)
    try:
        # Only the server's task may end the round: the page's own POST never gets there.
        page.route("**/timeout/", lambda route: route.abort())
        # The round started long ago: SECONDS_LEFT to go.
        started = timezone.now() - timedelta(seconds=60 - SECONDS_LEFT)
        Game.objects.filter(pk=game.pk).update(round_started_at=started)
        deadline = time.time() + SECONDS_LEFT
        page.goto(f"{base}{game.get_absolute_url()}")
        expect(page.locator("[data-countdown]")).to_contain_text(re.compile(r"0:0\d left"))
        page.locator(".hand select").first.select_option(index=1)
        page.get_by_role("button", name="Submit the plan for round 1").click()
        expect(page.get_by_role("heading", name="Waiting for the other side")).to_be_visible()
        expect(page.locator(".countdown")).to_contain_text("If Night has not planned by then")
        screenshot(page, "clock-phone-waiting")
        # Pushed on once the task has run: no reload, no click.
        expect(page).to_have_url(re.compile(r"/watch/\?round=1$"), timeout=30_000)
        late = time.time() - deadline
        expect(page.locator(".timeouts")).to_have_text(
            "The time ran out in round 1: the AI (Greedy) planned for Night."
        )
        screenshot(page, "clock-phone-moved-on")
        print(f"the page moved on {late:.1f} s after the deadline")
        assert PlayedPlan.objects.get(game=game, round=1, side=1).by == "timeout"
        game.refresh_from_db()
        assert game.round == 2 and game.round_started_at > started
    finally:
        context.close()
        servers.stop(server, worker)
