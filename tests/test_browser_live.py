"""A follower's phone gets each presented step pushed down a stream (Server-Sent Events),
from the site as `make serve` runs it (gunicorn's asgi worker), with no polling; and the
take-over control shows only to whoever may use it (issue 21.3)."""

import pytest
from playwright.sync_api import expect

from battles import services
from battles.models import BattleVisibility
from battles.views import _presented_html

from . import servers
from .browser import screenshot
from .test_battle_pages import make_team, run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}


def step(battle, presenter, round_no, number):
    html, shared = _presented_html(battle, round_no, number)
    services.presentation_move(
        battle=battle, by=presenter, round_no=round_no, step=number, html=html, html_shared=shared
    )


def test_a_phone_follows_the_presenter_by_a_pushed_stream(
    _browser, alice, types, settings, tmp_path
):
    a = make_team(alice, types, "Sunrise", visibility="public")
    b = make_team(alice, types, "Night", visibility="public")
    battle = run(alice, a, b, visibility=BattleVisibility.PUBLIC)
    html, shared = _presented_html(battle, 1, 1)
    services.presentation_start(
        battle=battle, by=alice, round_no=1, step=1, html=html, html_shared=shared
    )
    port = servers.free_port()
    env = servers.site_env(
        DJANGO_SECRET_KEY=settings.SECRET_KEY, DJANGO_MEDIA_ROOT=str(tmp_path / "media")
    )
    server = servers.web_server(env, port)
    context = _browser.new_context(**PHONE)
    try:
        page = context.new_page()
        asked = []
        page.on("request", lambda request: asked.append(request.url))
        page.goto(f"http://127.0.0.1:{port}{battle.get_absolute_url()}?follow=1")
        follower = page.locator("#viewer")
        expect(page.locator("[data-action=follow]")).to_have_attribute("aria-pressed", "true")
        expect(follower).to_have_attribute("data-step", "1")
        # No take-over for a visitor: only "… is presenting" and the follow control.
        expect(page.get_by_role("button", name="Take over presenting")).to_have_count(0)
        for number in (2, 3, 4):
            step(battle, alice, 1, number)  # from another process: the broker carries it
            expect(follower).to_have_attribute("data-step", str(number), timeout=3_000)
        expect(page.locator("[data-follow-status]")).to_have_text("Following the presenter.")
        screenshot(page, "live-01-phone-following-by-stream")
        assert any("/live/battles/p/" in url for url in asked)
        assert not any("/battles/p/" in url and "/live/" not in url for url in asked)

        services.presentation_stop(battle=battle, by=alice)
        expect(page.locator("[data-follow-status]")).to_have_text("The presentation has ended.")
    finally:
        context.close()
        servers.stop(server)


def _signed_in(_browser, live_server, user, **options):
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = _browser.new_context(**options)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value,
          "url": live_server.url}]
    )  # fmt: skip
    return context


def test_take_over_shows_only_to_the_gm_and_messages_land_by_the_controls(
    _browser, live_server, alice, bob, types
):
    from cards.models import TableMembership
    from cards.tables.services import table_create

    table = table_create(gm=alice, name="Sunday")
    TableMembership.objects.create(table=table, user=bob)
    a = make_team(alice, types, "Sunrise", visibility="tables")
    b = make_team(bob, types, "Night", visibility="tables")
    battle = run(bob, a, b, table=table)
    desktop = {"viewport": {"width": 1366, "height": 900}}
    gm = _signed_in(_browser, live_server, alice, **desktop)
    owner = _signed_in(_browser, live_server, bob, **desktop)
    try:
        page = gm.new_page()
        page.goto(f"{live_server.url}{battle.get_absolute_url()}?round=1&step=2")
        page.get_by_role("button", name="Present this battle").click()
        # The message is beside the controls, in view, not at the top of the page.
        message = page.locator("#present .message")
        expect(message).to_have_text("You are presenting: followers see your step.")
        expect(message).to_be_in_viewport()
        # ... and not under the sticky step bar.
        bar = page.locator("#viewer .steps").bounding_box()
        assert message.bounding_box()["y"] >= bar["y"] + bar["height"]
        expect(page.locator("ul.messages li")).to_have_count(0)
        screenshot(page, "live-02-gm-presenting-message-in-place")

        other = owner.new_page()
        other.goto(f"{live_server.url}{battle.get_absolute_url()}?round=1&step=2")
        expect(other.locator("#present")).to_contain_text("alice is presenting.")
        expect(other.get_by_role("button", name="Take over presenting")).to_have_count(0)
        screenshot(other, "live-03-member-sees-no-take-over")
    finally:
        gm.close()
        owner.close()
