"""A newcomer's first hour in a real browser: every page at a laptop's and a phone's size
(no page wider than the phone, no serious or critical axe-core finding, light and dark),
focus after adding a card, and a draft that survives signing up.

Screenshots of every page at both sizes land in artifacts/screenshots/all-*.png.
"""

import re

import pytest
from playwright.sync_api import expect

from battles import services as battle_services
from cards.models import Archon, Memeyori, Party
from tests.conftest import seed_demo_with_login

from .axe import check_a11y
from .browser import screenshot

pytestmark = pytest.mark.browser
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}
PASSWORD = "a-long-pass-123!"


@pytest.fixture
def demo(transactional_db):
    seed_demo_with_login()
    parties = Party.objects.filter(owner__username="demo").order_by("name")
    battle = battle_services.battle_run(
        owner=parties[0].owner, party_a=parties[0], party_b=parties[1], seed=7
    )
    return battle_services.battle_set_visibility(battle=battle, visibility="public")


def visitor_pages(battle) -> list[str]:
    return [
        "/", "/types/", "/build/memeyori/", "/build/archon/", "/battles/public/",
        f"/battles/{battle.code}/", f"/battles/{battle.code}/?round=1&step=3",
        "/battles/protocol/", "/print/", "/accounts/login/", "/accounts/signup/",
        "/accounts/reset/", "/accounts/reset/sent/", "/no-such-page/",
    ]  # fmt: skip


def player_pages(battle) -> list[str]:
    m = Memeyori.objects.filter(owner__username="demo").order_by("-rank").first()
    a = Archon.objects.filter(owner__username="demo").first()
    p = Party.objects.filter(owner__username="demo").first()
    return [
        "/my/", "/parties/", "/parties/new/", f"/parties/{p.code}/", f"/parties/{p.code}/edit/",
        f"/c/memeyori/{m.code}/", f"/c/memeyori/{m.code}/edit/", f"/c/memeyori/{m.code}/cards/",
        f"/c/archon/{a.code}/", f"/c/archon/{a.code}/edit/",
        f"/print/c/memeyori/{m.code}/portrait/",
        "/battles/", "/battles/new/", "/import/", "/accounts/password/",
    ]  # fmt: skip


def log_in(page, url):
    page.goto(url + "/accounts/login/")
    page.get_by_label("Username").fill("demo")
    page.get_by_label("Password").fill("memeyori-demo")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".site-header")).to_contain_text("demo")


def visit_all(page, url, paths, size, scheme):
    for path in paths:
        page.goto(url + path)
        page.wait_for_load_state("networkidle")
        if size == "phone":
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{path} is {overflow}px wider than a phone"
        name = path.strip("/").replace("/", "-") or "home"
        name = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "x", name)
        if scheme == "light":
            screenshot(page, f"all-{name}-{size}")
        else:
            check_a11y(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_every_page_fits_and_passes_axe(_browser, live_server, demo, size, scheme):
    if scheme == "dark" and size == "phone":
        pytest.skip("the dark set is checked at one size; its colours do not depend on width")
    width, height = SIZES[size]
    context = _browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    visit_all(page, live_server.url, visitor_pages(demo), size, scheme)
    log_in(page, live_server.url)
    visit_all(page, live_server.url, player_pages(demo), size, scheme)
    context.close()


def test_focus_stays_in_the_add_form_after_adding_a_card(page, live_server, demo):
    log_in(page, live_server.url)
    m = Memeyori.objects.filter(owner__username="demo").first()
    page.goto(live_server.url + f"/c/memeyori/{m.code}/cards/")
    page.locator("summary", has_text="Add a card").click()
    page.locator("#id_new-name").fill("Quick Jab")
    page.locator("#id_new-category").select_option("physical")
    page.locator("#id_new-power").fill("3")
    page.locator("#id_new-mp_cost").fill("1")
    page.get_by_role("button", name="Add card").click()
    expect(page.locator("#card-editor")).to_contain_text("Quick Jab")
    expect(page.locator("#id_new-name")).to_be_focused()
    expect(page.get_by_role("status").filter(has_text="Added Quick Jab")).to_have_count(1)
    check_a11y(page)


def test_a_draft_survives_signing_up_in_the_browser(page, live_server, demo):
    page.goto(live_server.url + "/build/memeyori/")
    page.locator("#id_name").fill("Draftling")
    page.locator("[aria-label='Increase Strength']").click()
    expect(page.locator("#id_strength")).to_have_value("3")
    expect(page.locator("#live-summary")).to_contain_text("HP 22")
    page.get_by_role("button", name="Sign up to save").click()
    page.get_by_label("Username").fill("drafter")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/build/memeyori/$"))
    expect(page.locator("#id_name")).to_have_value("Draftling")
    expect(page.locator("#id_strength")).to_have_value("3")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_url(re.compile(r"/c/memeyori/[0-9a-f-]+/edit/"))
    assert Memeyori.objects.get(name="Draftling", owner__username="drafter").strength == 3
