"""Every page of the play journey fits the screen (issue 31.3): no page wider than the
viewport at 390 px (a phone) or 1366 px (a laptop), no table cell outside its card, the
plan bar in view on a phone, and the top menu folded behind a button on narrow screens.
Each page's width is printed (pytest -s) for the issue's note."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from battles.play import services
from tests.play_parties import NIGHT_CARDS, play_party
from tests.playing import affordable_plan, make_side

from .browser import DESKTOP, PHONE, screenshot, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Cells whose right or left edge is more than this outside their card count as cut off.
SLACK_PX = 1

CELLS_OUTSIDE_THEIR_CARD = """() => {
  const SLACK = %SLACK%;
  const out = [];
  for (const card of document.querySelectorAll(".play-card")) {
    const box = card.getBoundingClientRect();
    for (const cell of card.querySelectorAll("th, td")) {
      const r = cell.getBoundingClientRect();
      if (r.width === 0) continue;  // folded away (a closed <details>)
      const outside = r.right > box.right + SLACK || r.left < box.left - SLACK;
      if (outside) out.push(cell.textContent.trim());
    }
  }
  return out;
}""".replace("%SLACK%", str(SLACK_PX))


def journey_pages(live_server, alice, bob, types) -> dict[str, tuple[object, str]]:
    """(who, path) of each page of the journey, a game in the state each page needs."""
    # Tiers 2 and 3 and an Archon: the widest hand a plan page shows.
    sun = play_party(alice, types)
    night = make_side(bob, types, "Night", prefix="Moon")
    dusk = play_party(alice, types, "Dusk Crew", cards=NIGHT_CARDS)
    # A friend game with a clock: join (before bob joins), then plan, waiting and watch.
    friend = services.start_game(user=alice, party=sun, opponent="friend", time_limit=120)
    join = reverse("play_join", kwargs={"token": friend.invite_token})
    hotseat = services.start_game(user=alice, party=sun, opponent="hotseat", party_b=dusk)
    played = services.start_game(user=alice, party=sun, opponent="ai", party_b=dusk, seed=4)
    state = services.game_state(played, 0)
    services.submit_plan(
        played, 0, 1, {"switch": None, "summon": False, "cards": affordable_plan(state)}
    )
    waiting = services.start_game(user=alice, party=sun, opponent="friend", time_limit=120)
    waiting = services.join_game(waiting.invite_token, bob, night)
    state = services.game_state(waiting, 0)
    services.submit_plan(
        waiting, 0, 1, {"switch": None, "summon": False, "cards": affordable_plan(state)}
    )
    return {
        "new game": (alice, reverse("play_new")),
        "join": (bob, join),
        "invite": (alice, friend.get_absolute_url()),
        "hand-over": (alice, hotseat.get_absolute_url()),
        "plan": (alice, f"{hotseat.get_absolute_url()}?side=0&ready=1"),
        "waiting": (alice, waiting.get_absolute_url()),
        "watch": (alice, reverse("play_watch", kwargs={"code": played.code}) + "?round=1"),
        "my games": (alice, reverse("play_list")),
    }


def test_no_play_page_is_wider_than_a_phone_or_a_laptop_and_no_cell_leaves_its_card(
    _browser, live_server, alice, bob, types
):
    pages = journey_pages(live_server, alice, bob, types)
    widths = {}
    overflowing = {}
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        contexts = {}
        try:
            for name, (user, path) in pages.items():
                if user.pk not in contexts:
                    contexts[user.pk] = signed_in(_browser, live_server.url, user, **size)
                page = contexts[user.pk][1]
                page.goto(f"{live_server.url}{path}")
                page.wait_for_load_state("networkidle")
                width = page.evaluate("document.documentElement.scrollWidth")
                widths[name, label] = width
                if label == "desktop":
                    overflowing[name] = page.evaluate(CELLS_OUTSIDE_THEIR_CARD)
                screenshot(page, f"fit-{label}-{name}", a11y=False)
        finally:
            for context, _ in contexts.values():
                context.close()
    for (name, label), width in sorted(widths.items()):
        print(f"{label:8} {name:32} scrollWidth {width}")
    print("cells outside their card at 1366:", {k: v for k, v in overflowing.items() if v})
    assert {k: w for k, w in widths.items() if k[1] == "phone" and w > 390} == {}
    assert {k: w for k, w in widths.items() if k[1] == "desktop" and w > 1366} == {}
    assert {k: v for k, v in overflowing.items() if v} == {}


def test_on_a_phone_the_plan_bar_stays_in_view_and_the_menu_folds(
    _browser, live_server, alice, types
):
    sun = play_party(alice, types)
    dusk = play_party(alice, types, "Dusk Crew", cards=NIGHT_CARDS)
    game = services.start_game(user=alice, party=sun, opponent="hotseat", party_b=dusk)
    context, page = signed_in(_browser, live_server.url, alice, **PHONE)
    try:
        page.goto(f"{live_server.url}{game.get_absolute_url()}?side=0&ready=1")
        submit = page.get_by_role("button", name="Submit the plan for round 1")
        for scroll in (0, 1500, 100_000):
            page.evaluate(f"window.scrollTo(0, {scroll})")
            expect(submit).to_be_in_viewport()
        page.evaluate("window.scrollTo(0, 0)")
        # The menu is one button; its links show when it is opened.
        menu = page.locator(".site-menu > summary")
        expect(menu).to_be_visible()
        expect(page.get_by_role("link", name="Type chart")).to_be_hidden()
        header = page.locator(".site-header").bounding_box()
        assert header["height"] < 80
        menu.click()
        expect(page.get_by_role("link", name="Type chart")).to_be_visible()
        screenshot(page, "fit-phone-menu-open")
        menu.click()
        # Each card's odds fold into one line; the whole table is a tap away.
        first = page.locator(".play-card").filter(has=page.locator("table.odds")).first
        expect(first.locator(".odds-line")).to_be_visible()
        expect(first.locator(".odds-list")).to_be_hidden()
        first.locator(".odds-more > summary").click()
        expect(first.locator(".odds-list")).to_be_visible()
        screenshot(page, "fit-phone-odds-open")
    finally:
        context.close()
    context, page = signed_in(_browser, live_server.url, alice, **DESKTOP)
    try:
        # At a laptop's width the menu is the row of links, the odds a table, no button.
        page.goto(f"{live_server.url}{game.get_absolute_url()}?side=0&ready=1")
        expect(page.locator(".site-menu > summary")).to_be_hidden()
        expect(page.get_by_role("link", name="Type chart")).to_be_visible()
        expect(page.locator("table.odds").first).to_be_visible()
    finally:
        context.close()


def test_the_demo_parties_plan_pages_fit_a_phone_and_a_laptop(_browser, live_server):
    """The demo's parties have the longest names and Tier 3 cards (all but First Friends):
    each one's plan page (hot-seat, side A's hand) fits both screens, no cell outside its
    card."""
    from django.contrib.auth import get_user_model

    from cards.models import Party
    from tests.conftest import seed_demo_with_login

    seed_demo_with_login()
    demo = get_user_model().objects.get(username="demo")
    parties = list(Party.objects.filter(owner=demo, slots__isnull=False).distinct())
    games = [
        services.start_game(user=demo, party=a, opponent="hotseat", party_b=parties[i - 1], seed=i)
        for i, a in enumerate(parties)
    ]
    found = {}
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        context, page = signed_in(_browser, live_server.url, demo, **size)
        try:
            for game in games:
                page.goto(f"{live_server.url}{game.get_absolute_url()}?side=0&ready=1")
                width = page.evaluate("document.documentElement.scrollWidth")
                cut = page.evaluate(CELLS_OUTSIDE_THEIR_CARD)
                print(f"{label:8} plan of {game.name_a:24} scrollWidth {width}")
                if width > size["viewport"]["width"] or cut:
                    found[label, game.name_a] = (width, cut)
                # First Friends' Rank 1 cards have no Tiers: its page has no wide card.
                if page.locator(".play-card.wide").count():
                    page.locator(".play-card.wide").first.scroll_into_view_if_needed()
                    if label == "phone":
                        page.locator(".play-card.wide .odds-more > summary").first.click()
                screenshot(page, f"fit-{label}-demo-{game.name_a}", a11y=False)
        finally:
            context.close()
    assert found == {}


def test_the_invite_links_copy_button_puts_the_link_on_the_clipboard(
    _browser, live_server, alice, types
):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    game = services.start_game(user=alice, party=sun, opponent="friend")
    context, page = signed_in(_browser, live_server.url, alice, **PHONE)
    try:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
        page.goto(f"{live_server.url}{game.get_absolute_url()}")
        page.get_by_role("button", name="Copy the link").click()
        expect(page.locator("[data-copied]")).to_have_text("Copied.")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.locator("#invite-link").input_value()
        assert f"/play/join/{game.invite_token}/" in copied
        screenshot(page, "fit-phone-invite-copied")
    finally:
        context.close()


def test_a_choice_made_before_a_reload_survives_it_and_goes_with_the_submit(
    _browser, live_server, alice, types
):
    """The plan in progress is kept in the tab (sessionStorage, by game, round and side),
    never sent anywhere: a reload puts it back, the running plan follows; a submit drops it."""
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    dusk = make_side(alice, types, "Dusk", prefix="Dusk")
    game = services.start_game(user=alice, party=sun, opponent="hotseat", party_b=dusk, seed=2)
    context, page = signed_in(_browser, live_server.url, alice, **PHONE)
    try:
        url = f"{live_server.url}{game.get_absolute_url()}?side=0&ready=1"
        page.goto(url)
        menu = page.locator(".hand select").first
        chosen = menu.locator("option").nth(1).get_attribute("value")
        menu.select_option(chosen)
        page.locator(".hand input.order").first.fill("7")
        expect(page.locator(".plan-rows li")).to_have_count(1)
        page.reload()
        expect(page.locator(".hand select").first).to_have_value(chosen)
        expect(page.locator(".hand input.order").first).to_have_value("7")
        expect(page.locator(".plan-rows li")).to_have_count(1)  # checked again
        keys = page.evaluate("Object.keys(sessionStorage)")
        assert [k for k in keys if k.startswith("memeyori-plan:")] == [
            f"memeyori-plan:{game.code}:1:0"
        ]
        # Side B's page on the same device starts empty: the key names the side.
        page.goto(f"{live_server.url}{game.get_absolute_url()}?side=1&ready=1")
        expect(page.locator(".hand select").first).to_have_value("")
        page.goto(url)
        page.get_by_role("button", name="Submit the plan for round 1").click()
        expect(page).to_have_url(re.compile(r"\?side=1$"))
        assert page.evaluate(f"sessionStorage.getItem('memeyori-plan:{game.code}:1:0')") is None
    finally:
        context.close()


def test_a_choice_made_before_the_scripts_arrive_still_reaches_the_running_plan(
    _browser, live_server, alice, types
):
    """On a slow phone the hand is on screen before htmx has arrived: a card chosen then
    fired no check. Held here until the choice is made, the script's arrival must still
    bring the running plan up to the form (CI once caught the hot-seat journey so)."""
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    dusk = make_side(alice, types, "Dusk", prefix="Dusk")
    game = services.start_game(user=alice, party=sun, opponent="hotseat", party_b=dusk, seed=2)
    context, page = signed_in(_browser, live_server.url, alice, **PHONE)
    held = []
    try:
        page.route("**/htmx*.js", lambda route: held.append(route))
        page.goto(f"{live_server.url}{game.get_absolute_url()}?side=0&ready=1", wait_until="commit")
        menu = page.locator(".hand select").first
        menu.select_option(index=1)
        assert len(held) == 1 and not page.evaluate("'htmx' in window")
        expect(page.locator(".plan-rows li")).to_have_count(0)
        held[0].continue_()
        expect(page.locator(".plan-rows li")).to_have_count(1)
    finally:
        context.close()


def test_on_a_phone_the_plan_bar_covers_neither_the_last_card_nor_the_forfeit_link(
    _browser, live_server, alice, types
):
    sun = make_side(alice, types, "Sunrise", prefix="Sun")
    dusk = make_side(alice, types, "Dusk", prefix="Dusk")
    game = services.start_game(user=alice, party=sun, opponent="hotseat", party_b=dusk)
    context, page = signed_in(_browser, live_server.url, alice, **PHONE)
    try:
        page.goto(f"{live_server.url}{game.get_absolute_url()}?side=0&ready=1")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        bar = page.locator(".plan-check").bounding_box()
        for selector in (".play-card >> nth=-1", ".forfeit-link a"):
            box = page.locator(selector).bounding_box()
            assert box["y"] + box["height"] <= bar["y"], selector
        screenshot(page, "fit-phone-plan-bottom", a11y=False)
    finally:
        context.close()
