"""Presenter mode on a game in progress, in real browsers on the site as `make serve`
runs it (gunicorn's asgi worker): the table's GM presents the resolved rounds at a
desktop, a member follows on a phone, and each step arrives down the stream; the round
being planned never shows (issue 17)."""

import pytest
from playwright.sync_api import expect

from battles.play import services
from tests.playing import affordable_plan, hand_words, leaks, table_game

from . import servers
from .browser import DESKTOP, PHONE, screenshot, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_presents_a_game_in_progress_and_a_phone_follows_by_stream(
    _browser, types, settings, tmp_path
):
    users, _table, game = table_game(types)
    gwen, cal = users["gwen"], users["cal"]
    for side in (0, 1):
        services.submit_plan(
            game, side, 1, {"cards": affordable_plan(services.game_state(game, side))}
        )
    hands = hand_words(services.game_state(game, 0)) | hand_words(services.game_state(game, 1))

    port = servers.free_port()
    base = f"http://127.0.0.1:{port}"
    env = servers.site_env(
        DJANGO_SECRET_KEY=settings.SECRET_KEY, DJANGO_MEDIA_ROOT=str(tmp_path / "media")
    )
    server = servers.web_server(env, port)
    gm_ctx, gm = signed_in(_browser, base, gwen, **DESKTOP)
    cal_ctx, phone = signed_in(_browser, base, cal, **PHONE)
    try:
        watch = f"{base}/play/{game.code}/watch/"
        gm.goto(f"{watch}?round=1&step=1")
        gm.get_by_role("button", name="Present this game").click()
        expect(gm.locator("#present .message")).to_have_text(
            "You are presenting: followers see your step."
        )
        # Said once, not twice (issue 31.5).
        expect(
            gm.locator("#present").get_by_text("You are presenting").locator("visible=true")
        ).to_have_count(1)
        screenshot(gm, "play-presenting-01-gm-desktop")

        asked = []
        phone.on("request", lambda request: asked.append(request.url))
        phone.goto(watch)
        expect(phone.locator("#present")).to_contain_text("gwen is presenting.")
        expect(phone.get_by_role("button", name="Take over presenting")).to_have_count(0)
        phone.get_by_role("button", name="Follow the presenter").click()
        follower = phone.locator("#viewer")
        expect(follower).to_have_attribute("data-step", "1")
        for number in (2, 3):
            gm.locator("#viewer [data-nav=next]").click()
            expect(gm.locator("#viewer")).to_have_attribute("data-step", str(number))
            expect(follower).to_have_attribute("data-step", str(number), timeout=5_000)
        expect(phone.locator("[data-follow-status]")).to_have_text("Following the presenter.")
        screenshot(phone, "play-presenting-02-phone-following")
        assert any("/live/play/p/" in url for url in asked)
        assert not any("/play/presented/" in url for url in asked)  # pushed, not polled
        assert not leaks(follower.inner_html(), hands)

        gm.get_by_role("button", name="Stop presenting").click()
        expect(phone.locator("[data-follow-status]")).to_have_text("The presentation has ended.")
    finally:
        gm_ctx.close()
        cal_ctx.close()
        servers.stop(server)
