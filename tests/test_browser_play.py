"""Two people play three rounds against each other in two browsers (issue 17): one at a
desktop with the mouse, one on a phone with the keyboard alone. Each page they see is
checked with axe-core and screenshotted; the waiting side moves on by itself."""

import re

import pytest
from playwright.sync_api import expect

from battles.play import services
from battles.play.models import Game
from tests.playing import hand_words, leaks, make_side

from .browser import DESKTOP, PHONE, screenshot, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def tab_to(page, selector: str, *, limit: int = 200):
    """Press Tab until `selector` has the focus, as a keyboard user would."""
    for _ in range(limit):
        if page.evaluate(
            "(s) => document.activeElement && document.activeElement.matches(s)", selector
        ):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def choose_by_keyboard(page, select_id: str):
    """Focus a card's menu by Tab and pick its first play (Tier 1 on the first target)."""
    tab_to(page, f"#{select_id}")
    page.keyboard.press("ArrowDown")


def first_card_select(page) -> str | None:
    menus = page.locator(".hand select")
    return menus.first.get_attribute("id") if menus.count() else None


def test_two_players_play_three_rounds_desktop_and_phone_keyboard(
    _browser, live_server, alice, bob, types
):
    make_side(alice, types, "Sunrise", prefix="Sun", archon=True)
    make_side(bob, types, "Night", prefix="Moon")
    desk_ctx, desk = signed_in(_browser, live_server.url, alice, **DESKTOP)
    phone_ctx, phone = signed_in(_browser, live_server.url, bob, **PHONE)
    try:
        # Alice starts a friend game from the form, with a two-minute time limit.
        desk.goto(f"{live_server.url}/play/new/")
        screenshot(desk, "play-01-desktop-start-form")
        desk.get_by_label("A friend (an invite link)").check()
        desk.get_by_label("Time to plan each round").select_option("120")
        desk.get_by_role("button", name="Start the game").click()
        expect(desk.get_by_role("heading", name="Waiting for your friend")).to_be_visible()
        invite = desk.locator("#invite-link").input_value()
        screenshot(desk, "play-02-desktop-invite-link")

        # Bob joins on his phone, by the keyboard alone.
        phone.goto(invite)
        screenshot(phone, "play-03-phone-join")
        tab_to(phone, "#id_party")
        tab_to(phone, "button[type=submit]:not(.link)")
        phone.keyboard.press("Enter")
        expect(phone.locator("[data-page=plan]")).to_be_visible()
        # Alice's invite page moves on by itself once Bob has joined.
        expect(desk.locator("[data-page=plan]")).to_be_visible(timeout=20_000)
        game = Game.objects.get()

        for round_no in (1, 2, 3):
            game.refresh_from_db()
            if game.status == "finished":
                break
            expect(desk.get_by_role("heading", name=re.compile("Your hand"))).to_be_visible()
            expect(desk.locator(".countdown")).to_contain_text("left")
            # Alice plays her first card with the mouse; the running total follows.
            menu = first_card_select(desk)
            if menu:
                before = desk.locator("[data-mp-left]").inner_text()
                desk.locator(f"#{menu}").select_option(index=1)
                expect(desk.locator("[data-mp-left]")).not_to_have_text(before)
            screenshot(desk, f"play-1{round_no}-desktop-plan-round-{round_no}")
            desk.get_by_role("button", name=f"Submit the plan for round {round_no}").click()
            expect(desk.get_by_role("heading", name="Waiting for the other side")).to_be_visible()
            screenshot(desk, f"play-2{round_no}-desktop-waiting-round-{round_no}")

            # Bob, meanwhile, sees nothing of Alice's hand or plan.
            alice_state = services.game_state(game, 0)
            phone.reload()
            assert not leaks(phone.content(), hand_words(alice_state))
            expect(phone.get_by_role("heading", name=re.compile("Your hand"))).to_be_visible()
            menu = first_card_select(phone)
            if menu:
                choose_by_keyboard(phone, menu)
            screenshot(phone, f"play-3{round_no}-phone-plan-round-{round_no}")
            tab_to(phone, "button[name=submit]")
            phone.keyboard.press("Enter")

            # Both watch the round resolve in the viewer, from its first event.
            expect(phone).to_have_url(re.compile(rf"/watch/\?round={round_no}$"))
            expect(desk).to_have_url(re.compile(rf"/watch/\?round={round_no}$"), timeout=20_000)
            expect(phone.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 1")
            expect(desk.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 1")
            desk.locator("#viewer [data-nav=next]").click()
            expect(desk.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 2")
            screenshot(desk, f"play-4{round_no}-desktop-watch-round-{round_no}")
            # The phone steps with the arrow keys.
            phone.keyboard.press("ArrowRight")
            expect(phone.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 2")
            screenshot(phone, f"play-5{round_no}-phone-watch-round-{round_no}")
            game.refresh_from_db()
            if game.status == "finished":
                break
            desk.get_by_role("link", name=f"Plan round {round_no + 1}").click()
            tab_to(phone, "[data-next-plan]")
            phone.keyboard.press("Enter")
            expect(phone.locator("[data-page=plan]")).to_be_visible()

        game.refresh_from_db()
        assert game.round >= 3 or game.status == "finished"
        # Alice forfeits (a confirmation first, in red), and both see the end.
        desk.goto(f"{live_server.url}{game.get_absolute_url()}")
        desk.get_by_role("link", name="Forfeit…").click()
        # The confirmation is a page of its own: axe must not run while it loads.
        expect(desk.get_by_role("button", name="Forfeit the game")).to_be_visible()
        screenshot(desk, "play-60-desktop-forfeit-confirm")
        desk.get_by_role("button", name="Forfeit the game").click()
        expect(desk.get_by_role("heading", name="The game is over")).to_be_visible()
        screenshot(desk, "play-61-desktop-finished")
        phone.goto(f"{live_server.url}{game.get_absolute_url()}")
        expect(phone.locator(".result")).to_contain_text("Sunrise forfeited")
        screenshot(phone, "play-62-phone-finished")
        phone.goto(f"{live_server.url}/play/")
        screenshot(phone, "play-63-phone-my-games")
    finally:
        desk_ctx.close()
        phone_ctx.close()


def test_a_spectator_on_a_share_link_sees_each_round_pushed_as_it_resolves(
    _browser, alice, types, settings, tmp_path
):
    """The site as `make serve` runs it (gunicorn's asgi worker): the spectator's page
    holds a stream, gets "changed" when the round resolves (planned here, in another
    process), asks for its own view and lands on the new round; it never polls."""
    from . import servers
    from .playing import affordable_plan

    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    night = make_side(alice, types, "Night", prefix="Moon")
    game = services.start_game(user=alice, party=sun, opponent="ai", party_b=night, seed=9)
    token = services.share_game(game)
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
        page.goto(f"http://127.0.0.1:{port}/play/s/{token}/")
        expect(page.locator(".spectating")).to_contain_text("You are watching")
        screenshot(page, "play-70-phone-spectator-before-round-1")
        for round_no in (1, 2):
            page.wait_for_timeout(500)  # the stream is open (its first event came)
            state = services.game_state(game, 0)
            plan = {"switch": None, "summon": False, "cards": affordable_plan(state)}
            services.submit_plan(game, 0, state["round"], plan)
            expect(page).to_have_url(re.compile(rf"\?round={round_no}$"), timeout=10_000)
            expect(page.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 1")
        screenshot(page, "play-71-phone-spectator-round-2-pushed")
        # One stream held open per page (the first, then each round it moved on to), and a
        # look at the status on load and after each event: no polling.
        assert sum("/live/play/" in url for url in asked) == 3
        assert sum("/status/" in url for url in asked) <= 3 * 3
    finally:
        context.close()
        servers.stop(server)
