"""The player's journeys in a real browser (Playwright driving Debian's Chromium).

Sign up; build a Memeyori and watch HP, Accuracy and the odds change while typing; add
cards; make a party; print a sheet; run a battle; step and jump through the viewer with
the keyboard; share it with a logged-out visitor; revoke the link. Each step leaves a
screenshot in artifacts/screenshots/.
"""

import re

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from battles.models import Battle
from cards.demo import seed_demo
from cards.models import Card, Memeyori, Party

from .axe import check_a11y
from .browser import screenshot

pytestmark = pytest.mark.browser
PASSWORD = "a-long-pass-123!"


@pytest.fixture
def demo(transactional_db):
    seed_demo()


def csp_violations(page) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if "Content Security" in m.text else None)
    return found


def sign_up(page, url: str, username: str):
    page.goto(url + "/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name=re.compile("sign up", re.I)).click()
    expect(page.locator(".site-header")).to_contain_text(username)


def type_into(page, field_id: str, value: str):
    box = page.locator(f"#{field_id}")
    box.fill("")
    box.press_sequentially(value, delay=20)


def test_a_player_builds_prints_battles_and_shares(page, live_server, demo, _browser):
    url = live_server.url
    violations = csp_violations(page)

    sign_up(page, url, "carol")
    screenshot(page, "01-signed-up")

    # Build: every number follows the typing, without a reload.
    page.goto(url + "/build/memeyori/")
    page.locator("#id_name").fill("Sparkfin")
    for field, value in dict(strength=5, endurance=5, iq=3, wit=2, speed=4, aura=2).items():
        type_into(page, f"id_{field}", str(value))
    expect(page.locator("#formula-hp")).to_have_text("HP 41 = 6 + 5 x END 5 + 2 x STR 5")
    expect(page.locator("#formula-physical_accuracy")).to_contain_text("Physical Accuracy 6")
    lands_before = page.locator(".odds tbody tr").first.locator("td").nth(1).inner_text()
    type_into(page, "id_strength", "9")
    expect(page.locator("#formula-hp")).to_contain_text("HP 49")
    expect(page.locator("#formula-physical_accuracy")).to_contain_text("Physical Accuracy 10")
    expect(page.locator(".odds tbody tr").first.locator("td").nth(1)).not_to_have_text(lands_before)
    screenshot(page, "02-builder-live")

    type_into(page, "id_strength", "21")
    expect(page.locator("#hint-strength")).to_contain_text("20")
    expect(page.locator(".panel-errors")).to_be_visible()
    screenshot(page, "03-builder-inline-error")
    assert not Memeyori.objects.filter(name="Sparkfin").exists()
    type_into(page, "id_strength", "5")
    expect(page.locator("#formula-hp")).to_contain_text("HP 41")
    # Public, so that the battle below may be shared (issue 18.6).
    page.locator("#id_visibility").select_option("public")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/c/memeyori/[0-9a-f-]+/edit/"))
    sparkfin = Memeyori.objects.get(name="Sparkfin", owner__username="carol")
    assert sparkfin.derived.hp == 41

    # Cards, added inline.
    page.goto(url + f"/c/memeyori/{sparkfin.code}/cards/")
    editor = page.locator("#card-editor")
    editor.locator("#id_new-name").fill("Fin Slap")
    editor.locator("#id_new-category").select_option("physical")
    editor.locator("#id_new-power").fill("6")
    editor.locator("#id_new-mp_cost").fill("1")
    editor.get_by_role("button", name=re.compile("add", re.I)).click()
    expect(editor).to_contain_text("Fin Slap")
    assert Card.objects.filter(memeyori=sparkfin, name="Fin Slap").exists()
    screenshot(page, "04-card-editor")

    # A party of one.
    page.goto(url + "/parties/new/")
    page.locator("#id_name").fill("Carol's Crew")
    page.locator("#id_slot_1").select_option(label=re.compile("Sparkfin").pattern)
    page.locator("#id_visibility").select_option("public")
    page.get_by_role("button", name="Save party").click()
    page.wait_for_load_state()
    party = Party.objects.get(name="Carol's Crew")
    assert party.memeyori_in_order() == [sparkfin]
    screenshot(page, "05-party")

    # Print: preview, preflight, then the real PDF.
    page.goto(url + "/print/")
    page.get_by_label(re.compile("Sparkfin")).check()
    page.get_by_role("button", name="Check and preview").click()
    download_link = page.get_by_role("link", name="Download the PDF")
    expect(download_link).to_be_visible(timeout=60_000)
    screenshot(page, "06-print-preview")
    with page.expect_download(timeout=60_000) as info:
        download_link.click()
    pdf = PdfReader(info.value.path())
    assert "Sparkfin" in pdf.pages[0].extract_text().replace("\x00", "")

    # A battle against a demo party.
    page.goto(url + "/battles/new/")
    page.locator("#id_party_a").select_option(label="Carol's Crew (carol)")
    page.locator("#id_party_b").select_option(label="Night Shift (demo)")
    page.locator("#id_visibility").select_option("unlisted")
    page.get_by_role("button", name=re.compile("run", re.I)).click()
    page.wait_for_url(re.compile(r"/battles/[0-9a-f-]+/"))
    battle = Battle.objects.get(owner__username="carol")
    screenshot(page, "07-viewer")

    # The viewer from the keyboard.
    viewer = page.locator("#viewer")
    page.locator("h1").click()
    page.keyboard.press("End")
    expect(viewer).to_have_attribute("data-round", str(battle.log["result"]["rounds"]))
    page.keyboard.press("Home")
    # The start is the teams on the field before round 1, the result still unknown.
    setup = battle.frames[1]["first_event"]
    expect(viewer).to_have_attribute("data-round", "0")
    expect(viewer).to_have_attribute("data-step", str(setup))
    page.keyboard.press("ArrowRight")
    expect(viewer).to_have_attribute("data-round", "1")
    expect(viewer).to_have_attribute("data-step", "1")
    page.keyboard.press("ArrowRight")
    expect(viewer).to_have_attribute("data-step", "2")
    page.keyboard.press("ArrowLeft")
    expect(viewer).to_have_attribute("data-step", "1")
    assert "round=1&step=1" in page.url  # each step is a deep link
    page.keyboard.press("Home")
    expect(viewer).to_have_attribute("data-round", "0")
    page.locator("#jump-round").select_option("1")
    page.get_by_role("button", name="Go").click()
    expect(viewer).to_have_attribute("data-round", "1")
    screenshot(page, "08-viewer-jumped")

    # Share with someone who has no account, then revoke.
    if page.get_by_role("button", name="Make a share link").count():
        page.get_by_role("button", name="Make a share link").click()
    share = page.locator(".share a[href*='/battles/s/']")
    share_url = share.get_attribute("href")
    visitor = _browser.new_context().new_page()
    visitor.goto(share_url if share_url.startswith("http") else url + share_url)
    expect(visitor.locator("#viewer")).to_be_visible()
    screenshot(visitor, "09-shared-logged-out")
    page.get_by_role("button", name="Revoke the link").click()
    # Revoking breaks the link for everyone who has it, so a page asks first (issue 21.4).
    expect(page.locator("h1")).to_have_text("Revoke the share link?")
    page.get_by_role("button", name="Revoke the link").click()
    page.wait_for_load_state()
    response = visitor.reload()
    assert response.status == 404
    screenshot(visitor, "10-revoked-404")
    visitor.context.close()

    assert violations == []


LABELLED = """() => [...document.querySelectorAll('input, select, textarea')]
    .filter(el => el.type !== 'hidden')
    .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                  && !el.getAttribute('aria-labelledby'))
    .map(el => el.name || el.id)"""


@pytest.mark.parametrize(
    "path",
    ["/build/memeyori/", "/accounts/signup/", "/types/", "/print/", "/battles/public/"],
)
def test_pages_fit_a_phone_and_label_every_input(_browser, live_server, demo, path):
    context = _browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + path)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    # The type chart is a wide grid that scrolls inside its own box, not the page.
    assert overflow <= 0, f"{path} is {overflow}px wider than a phone"
    assert page.evaluate(LABELLED) == [], f"inputs without a label on {path}"
    screenshot(page, f"phone-{path.strip('/').replace('/', '-') or 'home'}")
    context.close()


def test_the_builder_works_from_the_keyboard_alone(page, live_server, demo):
    page.goto(live_server.url + "/build/memeyori/")
    page.locator("#id_name").focus()
    page.keyboard.type("Keyboardia")
    # Tab to Strength, whatever lies between, and type over it.
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "id_strength":
            break
    assert page.evaluate("document.activeElement.id") == "id_strength"
    page.keyboard.press("Control+A")
    page.keyboard.type("9")
    expect(page.locator("#formula-hp")).to_contain_text("2 x STR 9")
    # A stat's formula shows on keyboard focus, not only on hover.
    # Leaving the field sends a last update; the panel it swaps in keeps the focus.
    page.locator("#stat-hp").focus()
    page.wait_for_timeout(300)
    page.wait_for_load_state("networkidle")
    expect(page.locator("#stat-hp")).to_be_focused()
    expect(page.locator("#formula-hp")).to_be_visible()
    check_a11y(page)
