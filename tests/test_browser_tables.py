"""Browser journeys for tables and presenter mode, and the viewer's suspense and focus.

A GM makes a table and invites; a player joins in a second browser, shares a character
and a party with the table; the GM runs a battle at the table, makes it count for growth
and presents it; the player's viewer follows, detaches, steps alone and follows again.
"""

import re

import pytest
from playwright.sync_api import expect

from battles.models import Battle
from cards.models import Memeyori, Type
from cards.services import party_set_memeyori

from .browser import screenshot
from .conftest import make_card, make_memeyori, make_party
from .test_browser_evening import demo_battle
from .test_browser_journeys import csp_violations, sign_up
from .test_browser_journeys import demo as demo  # noqa: F401  (a fixture, used by name)

pytestmark = pytest.mark.browser
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1366, "height": 900}}


def team_for(username: str, name: str):
    """A party of two Memeyori for a player who signed up in the browser (kept private)."""
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.get(username=username)
    blaze = Type.objects.get(name="Blaze")
    team = []
    for i in range(2):
        m = make_memeyori(owner, blaze, name=f"{name} {i + 1}", strength=6, endurance=6)
        make_card(m, blaze, name="Cinder Nip", power=6)
        team.append(m)
    party = make_party(owner, name=name)
    party_set_memeyori(party=party, memeyori=team)
    return party


def test_a_gm_and_a_player_share_battle_grow_and_watch_together(_browser, live_server, demo):
    url = live_server.url
    gm = _browser.new_context(**DESKTOP).new_page()
    gm.set_default_timeout(10_000)
    violations = csp_violations(gm)
    sign_up(gm, url, "gemma")

    # The GM opens a table and an invite link.
    gm.goto(url + "/tables/new/")
    gm.get_by_label("Name").fill("Sunday Table")
    gm.get_by_label("Short description").fill("Every other Sunday")
    gm.get_by_role("button", name="Open the table").click()
    expect(gm.locator("h1")).to_have_text("Sunday Table")
    gm.get_by_role("button", name="Make an invite link").click()
    invite = gm.locator("a.invite-link").get_attribute("href")
    screenshot(gm, "tables-01-gm-table")

    # The player joins in a second browser and shares a character and a party.
    player = _browser.new_context(**PHONE).new_page()
    player.set_default_timeout(10_000)
    sign_up(player, url, "pablo")
    player.goto(invite)
    screenshot(player, "tables-02-phone-join")
    player.get_by_role("button", name="Join the table").click()
    expect(player.locator("h1")).to_have_text("Sunday Table")
    party = team_for("pablo", "Pablo Pack")
    # A party is no more visible than its members (issue 11.2): share each one first.
    for slot in party.slots.order_by("position"):
        player.goto(f"{url}/c/memeyori/{slot.memeyori.code}/edit/")
        player.locator("#id_visibility").select_option("tables")
        player.get_by_role("button", name="Save", exact=True).click()
        expect(player.locator(".messages")).to_be_visible()
    player.goto(f"{url}/parties/{party.code}/edit/")
    player.locator("#id_visibility").select_option("tables")
    player.get_by_role("button", name="Save party").click()
    player.goto(url + "/tables/")
    player.get_by_role("link", name="Sunday Table").click()
    expect(player.locator("body")).to_contain_text("pablo shared the Memeyori Pablo Pack 1")
    screenshot(player, "tables-03-phone-table")

    # The GM sees it, runs a battle at the table and makes it count for growth.
    team_for("gemma", "Gemma Guard")
    gm.reload()
    expect(gm.locator("body")).to_contain_text("Pablo Pack 1")
    gm.get_by_role("link", name="Run a battle at this table").click()
    gm.locator("#id_party_a").select_option(label="Gemma Guard (gemma)")
    gm.locator("#id_party_b").select_option(label="Pablo Pack (pablo)")
    expect(gm.locator("#id_table")).to_have_value(re.compile("[0-9a-f-]{36}"))
    gm.get_by_role("button", name=re.compile("run", re.I)).click()
    gm.wait_for_url(re.compile(r"/battles/[0-9a-f-]+/"))
    battle = Battle.objects.get(owner__username="gemma")
    # The viewer opens on the teams, the winner unknown.
    expect(gm.locator("#viewer")).to_have_attribute("data-round", "0")
    expect(gm.locator(".battle-meta")).not_to_contain_text("wins")
    gm.get_by_role("button", name="Count this battle for growth").click()
    # It cannot be undone, so a page asks first (issue 21.4).
    expect(gm.locator("h1")).to_have_text("Count this battle for growth?")
    gm.get_by_role("button", name="Count it for growth").click()
    expect(gm.locator(".messages")).to_contain_text("counts for growth")
    battle.refresh_from_db()
    assert battle.counts_for_growth
    grown = {g["memeyori"] for g in battle.growth_applied}
    for m in Memeyori.objects.filter(code__in=grown):
        assert m.rank == 2  # in its own owner's collection

    # The GM presents; the player follows from the phone.
    gm.get_by_role("button", name="Present this battle").click()
    expect(gm.locator(".present")).to_contain_text("You are presenting")
    player.goto(f"{url}{battle.get_absolute_url()}?follow=1")
    follower = player.locator("#viewer")
    expect(player.locator("[data-action=follow]")).to_have_attribute("aria-pressed", "true")
    viewer = gm.locator("#viewer")
    gm.locator("h1").click()
    for expected in ("1", "2", "3"):
        gm.keyboard.press("ArrowRight")
        expect(viewer).to_have_attribute("data-step", expected)
        expect(follower).to_have_attribute("data-step", expected, timeout=3_000)
    expect(follower).to_have_attribute("data-round", "1")
    expect(player.locator("#viewer .event.current")).to_be_in_viewport()
    player.wait_for_timeout(600)
    screenshot(gm, "tables-04-gm-presenting")
    screenshot(player, "tables-05-phone-following")

    # Detach, step alone, follow again.
    player.get_by_role("button", name="Detach").click()
    player.locator("#viewer a[data-nav=next]").click()
    expect(follower).to_have_attribute("data-step", "4")
    gm.keyboard.press("ArrowLeft")
    expect(viewer).to_have_attribute("data-step", "2")
    player.wait_for_timeout(1500)
    expect(follower).to_have_attribute("data-step", "4")  # detached: the presenter's moves wait
    player.get_by_role("button", name="Follow the presenter").click()
    expect(follower).to_have_attribute("data-step", "2", timeout=3_000)
    screenshot(player, "tables-06-phone-following-again")

    # A battle is no more visible than its least visible party (issue 18.6): the GM may
    # not give a table battle of private and "my tables" parties a share link ...
    gm.locator("#visibility").select_option("unlisted")
    gm.locator(".share").get_by_role("button", name="Save").first.click()
    expect(gm.locator(".messages")).to_contain_text("Gemma Guard (private)")
    # ... until their owners make them public. Then a visitor without an account follows
    # through the unlisted share link.
    for party in (battle.party_a, battle.party_b):
        Memeyori.objects.filter(slots__party=party).update(visibility="public")
        type(party).objects.filter(pk=party.pk).update(visibility="public")
    gm.locator("#visibility").select_option("unlisted")
    gm.locator(".share").get_by_role("button", name="Save").first.click()
    expect(gm.locator(".messages")).to_contain_text("Unlisted")
    share = gm.locator(".share a[href*='/battles/s/']").get_attribute("href")
    gm.locator("h1").click()
    gm.keyboard.press("PageDown")
    expect(viewer).to_have_attribute("data-round", "1")
    expect(viewer).to_have_attribute("data-step", "1")
    visitor = _browser.new_context(**PHONE).new_page()
    visitor.goto(f"{share if share.startswith('http') else url + share}?follow=1")
    watched = visitor.locator("#viewer")
    expect(watched).to_have_attribute("data-round", "1", timeout=3_000)
    expect(watched).to_have_attribute("data-step", "1", timeout=3_000)
    gm.keyboard.press("ArrowRight")
    expect(watched).to_have_attribute("data-step", "2", timeout=3_000)
    assert "/battles/s/" in visitor.locator("#viewer a[data-nav=next]").get_attribute("href")
    screenshot(visitor, "tables-08-phone-visitor-following")
    visitor.context.close()

    # The player sees what grew, when, and from which battle.
    player.goto(url + "/tables/")
    if (
        battle.growth_applied
        and Memeyori.objects.filter(code__in=grown, owner__username="pablo").exists()
    ):
        expect(player.locator("body")).to_contain_text("Gemma Guard vs Pablo Pack")
    screenshot(player, "tables-07-phone-my-tables")
    overflow = player.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert violations == []
    gm.context.close()
    player.context.close()


def test_the_viewer_keeps_focus_and_scrolls_to_the_current_event(_browser, live_server, demo):
    battle = demo_battle()
    for size, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = _browser.new_context(**size).new_page()
        page.set_default_timeout(10_000)
        page.goto(live_server.url + battle.get_absolute_url())
        viewer = page.locator("#viewer")
        expect(page.locator("[data-viewer-controls]")).to_be_visible()
        step = page.locator("#viewer a[data-nav=next]")
        step.focus()
        for expected in ("1", "2", "3", "4", "5"):
            # Enter on the focused Step link: the step loads, focus stays on its twin.
            page.keyboard.press("Enter")
            expect(viewer).to_have_attribute("data-step", expected)
            page.wait_for_function(
                "() => document.activeElement && document.activeElement.dataset.nav === 'next'"
            )
        # The current event is on screen, not left below the fold.
        current = page.locator("#viewer .event.current")
        expect(current).to_be_in_viewport()
        # Keys work while Play has focus; focus stays on Play.
        page.get_by_role("button", name="Play").focus()
        page.keyboard.press("ArrowRight")
        expect(viewer).to_have_attribute("data-step", "6")
        assert page.evaluate("document.activeElement.dataset.action") == "play"
        # Space on the focused Play button toggles once, not twice (key and click).
        play = page.locator("[data-action=play]")
        page.keyboard.press(" ")
        expect(play).to_have_attribute("aria-pressed", "true")
        page.keyboard.press(" ")
        expect(play).to_have_attribute("aria-pressed", "false")
        page.goto(live_server.url + battle.get_absolute_url() + "?round=1&step=6")
        play = page.locator("[data-action=play]")
        play.focus()
        # Round navigation lands on the round's first event.
        page.keyboard.press("PageDown")
        expect(viewer).to_have_attribute("data-round", "2")
        expect(viewer).to_have_attribute("data-step", "1")
        expect(page.locator(".battle-meta")).not_to_contain_text("wins")
        expect(page.locator("#viewer .event.current")).to_be_in_viewport()
        page.wait_for_timeout(600)  # let the smooth scroll finish before the picture
        screenshot(page, f"viewer-suspense-{name}")
        page.context.close()


def test_without_javascript_the_viewer_shows_no_dead_controls(_browser, live_server, demo):
    battle = demo_battle()
    context = _browser.new_context(java_script_enabled=False, **DESKTOP)
    page = context.new_page()
    page.goto(live_server.url + battle.get_absolute_url())
    expect(page.get_by_role("button", name="Play")).to_be_hidden()
    expect(page.get_by_text("Keys:")).to_be_hidden()
    page.get_by_role("link", name="Step ▶").click()
    expect(page.locator("#viewer")).to_have_attribute("data-round", "1")
    # axe-core runs as JavaScript in the page: with JS off it would wait forever.
    screenshot(page, "viewer-no-javascript", a11y=False)
    context.close()
