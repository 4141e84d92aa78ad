"""Browser journeys for the first evening's rough edges (issue 21): the phone viewer keeps
the field in view as a blow lands, a destructive action asks first (without JavaScript
too), dead links are pages of the site, and a long pasted name is counted, not cut.

Each is looked at at 1366x900 and 390x844, light and dark; the screenshots (evening-*.png
in artifacts/screenshots/) are named in the helper's note, and axe-core checks every one.
"""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from battles import viewer as viewer_module
from battles.demo import DEMO_PARTIES
from battles.services import battle_run
from cards.models import Party, TableMembership
from cards.tables import services as tables

from .browser import screenshot
from .test_browser_journeys import csp_violations, sign_up
from .test_browser_journeys import demo as demo  # noqa: F401  (a fixture, used by name)

pytestmark = pytest.mark.browser
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1366, "height": 900}}
SIZES = {"390x844": PHONE, "1366x900": DESKTOP}


def demo_battle():
    """Cold Front vs Night Shift, seed 7: the first two balanced demo parties by name (the
    demo's First Friends, weak on purpose, would make it a rout)."""
    owner = get_user_model().objects.get(username="demo")
    a, b = Party.objects.filter(owner=owner, name__in=DEMO_PARTIES).order_by("name")[:2]
    return battle_run(owner=owner, party_a=a, party_b=b, seed=7, visibility="public")


def a_blow(battle) -> tuple[int, int, str, int, int]:
    """(round, step, combatant, HP before, HP after) of the first blow past round 1 that
    hurts without knocking out: the log has scrolled well below the field by then."""
    log, frames = battle.log, battle.frames
    for r in range(2, len(frames)):
        first = frames[r]["first_event"]
        for step in range(1, viewer_module.round_length(log, frames, r) + 1):
            e = log["events"][first + step - 1]
            if e["kind"] == "apply" and 0 < e["hp_after"] < e["hp_before"]:
                return r, step, e["combatant"], e["hp_before"], e["hp_after"]
    raise AssertionError("the demo battle has no blow to watch")


def fill_width(page, cid: str) -> float:
    return page.eval_on_selector(f"#hp-glance-{cid}", "e => e.getBoundingClientRect().width")


# Every frame's width of one HP bar, from now until the test reads them: the step may take
# seconds to come back under load, and the slide is over 0.6 s after it lands.
SAMPLE_WIDTHS = """cid => {
  window.hpWidths = [];
  (function sample() {
    const fill = document.getElementById("hp-glance-" + cid);
    if (fill) window.hpWidths.push(fill.getBoundingClientRect().width);
    requestAnimationFrame(sample);
  })();
}"""


def test_a_phone_keeps_the_field_in_view_as_a_blow_lands(_browser, live_server, demo):
    battle = demo_battle()
    round_no, step, cid, before, after = a_blow(battle)
    url = f"{live_server.url}{battle.get_absolute_url()}?round={round_no}&step={step - 1}"
    for scheme in ("light", "dark"):
        page = _browser.new_context(**PHONE, color_scheme=scheme).new_page()
        page.set_default_timeout(10_000)
        violations = csp_violations(page)
        page.goto(url)
        old = fill_width(page, cid)
        page.evaluate(SAMPLE_WIDTHS, cid)
        page.locator("#viewer a[data-nav=next]").click()
        expect(page.locator("#viewer")).to_have_attribute("data-step", str(step), timeout=20_000)
        page.wait_for_timeout(700)  # the smooth scroll and the slide, before the picture
        # The bar moved: some frame after the step showed a width between old and new.
        widths = page.evaluate("window.hpWidths")
        new = fill_width(page, cid)
        assert new == pytest.approx(old * after / before, rel=0.03), (old, new)
        assert any(new + 1 < w < old - 1 for w in widths), f"no motion: {widths}"

        # In view together: the compact field with every combatant's name, bar and HP,
        # the blow's -N, the step's own line, and the current event in the log below.
        glance = page.locator("#viewer .glance")
        expect(glance).to_be_in_viewport(ratio=1)
        row = page.locator(f"#viewer .glance-row:has(#hp-glance-{cid})")
        expect(row).to_have_class("glance-row hit")
        expect(row.locator(".delta")).to_have_text(f"\u2212{before - after}")
        expect(row.locator(".glance-hp")).to_contain_text(f"{after}/")
        expect(page.locator("#viewer .now")).to_be_in_viewport(ratio=1)
        current = page.locator("#viewer .event.current")
        expect(current).to_be_in_viewport()
        stage = page.locator("#viewer .stage").bounding_box()
        assert current.bounding_box()["y"] >= stage["y"] + stage["height"] - 1, "under the stage"
        assert stage["height"] < 844 * 0.45, "the stage leaves room for the log"
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
        screenshot(page, f"evening-21.1-after-390x844-{scheme}")
        assert violations == []
        page.context.close()


def test_no_bar_moves_for_someone_who_asked_for_less_motion(_browser, live_server, demo):
    battle = demo_battle()
    round_no, step, cid, before, after = a_blow(battle)
    page = _browser.new_context(**PHONE, reduced_motion="reduce").new_page()
    page.goto(f"{live_server.url}{battle.get_absolute_url()}?round={round_no}&step={step - 1}")
    old = fill_width(page, cid)
    page.locator("#viewer a[data-nav=next]").click()
    expect(page.locator("#viewer")).to_have_attribute("data-step", str(step))
    widths = [fill_width(page, cid)]
    for _ in range(6):
        page.wait_for_timeout(50)
        widths.append(fill_width(page, cid))
    final = old * after / before
    # It jumps: every moment shows the old width or the new one, never one in between.
    assert widths[-1] == pytest.approx(final, rel=0.03), widths
    assert all(w == pytest.approx(final, rel=0.03) or w == old for w in widths), widths
    expect(page.locator(f"#viewer .glance-row:has(#hp-glance-{cid}) .delta")).to_be_visible()
    page.context.close()


def test_on_a_wide_screen_the_full_field_stands_in_for_the_compact_one(_browser, live_server, demo):
    battle = demo_battle()
    round_no, step, cid, before, after = a_blow(battle)
    for scheme in ("light", "dark"):
        page = _browser.new_context(**DESKTOP, color_scheme=scheme).new_page()
        page.goto(f"{live_server.url}{battle.get_absolute_url()}?round={round_no}&step={step}")
        page.wait_for_timeout(700)
        expect(page.locator("#viewer .glance")).to_be_hidden()
        expect(page.locator("#viewer .steps")).to_be_in_viewport()
        expect(page.locator("#viewer .event.current")).to_be_in_viewport()
        # The full field's bar for the same combatant shows the same blow.
        expect(page.locator(f"#viewer .combatant:has(#hp-field-{cid}) .delta")).to_have_text(
            f"\u2212{before - after}"
        )
        screenshot(page, f"evening-21.1-after-1366x900-{scheme}")
        page.context.close()


def test_removing_a_member_asks_on_a_page_that_works_without_javascript(
    _browser, live_server, demo
):
    url = live_server.url
    owner = get_user_model().objects.get(username="demo")
    for size, options in SIZES.items():
        for scheme in ("light", "dark"):
            gm = _browser.new_context(**options, color_scheme=scheme).new_page()
            name = f"gm{size[:3]}{scheme}"
            sign_up(gm, url, name)
            user = get_user_model().objects.get(username=name)
            table = tables.table_create(gm=user, name="Thursday Table")
            TableMembership.objects.get_or_create(table=table, user=owner)
            gm.goto(url + table.get_absolute_url())
            remove = gm.get_by_role("button", name="Remove")
            make_gm = gm.get_by_role("button", name="Make GM")
            danger = gm.evaluate(
                "getComputedStyle(document.documentElement).getPropertyValue('--color-danger')"
            )
            colour = remove.evaluate("e => getComputedStyle(e).color")
            assert colour != make_gm.evaluate("e => getComputedStyle(e).color")
            assert colour == gm.evaluate(
                "c => { const s = document.createElement('span'); s.style.color = c;"
                " document.body.append(s); const v = getComputedStyle(s).color; s.remove();"
                " return v; }",
                danger.strip(),
            )
            screenshot(gm, f"evening-21.4-after-{size}-{scheme}-table")
            remove.click()
            expect(gm.locator("h1")).to_have_text("Remove demo from Thursday Table?")
            assert TableMembership.objects.filter(table=table, user=owner).exists()
            screenshot(gm, f"evening-21.4-after-{size}-{scheme}-confirm")
            gm.context.close()

    # Without JavaScript: the same two steps, and the member is gone.
    context = _browser.new_context(java_script_enabled=False, **PHONE)
    gm = context.new_page()
    sign_up(gm, url, "nojsgm")
    table = tables.table_create(
        gm=get_user_model().objects.get(username="nojsgm"), name="Thursday Table"
    )
    TableMembership.objects.create(table=table, user=owner)
    gm.goto(url + table.get_absolute_url())
    gm.get_by_role("button", name="Remove").click()
    gm.get_by_role("button", name="Remove demo").click()
    expect(gm.locator(".messages")).to_contain_text("demo no longer sits at Thursday Table.")
    assert not TableMembership.objects.filter(table=table, user=owner).exists()
    context.close()


def test_dead_links_are_pages_of_the_site_that_say_what_to_do(_browser, live_server, demo):
    url = live_server.url
    owner = get_user_model().objects.get(username="demo")
    table = tables.table_create(gm=owner, name="Thursday Table")
    token = tables.table_invite_open(table=table).invite_token
    tables.table_invite_revoke(table=table)
    battle = demo_battle()
    for size, options in SIZES.items():
        for scheme in ("light", "dark"):
            page = _browser.new_context(**options, color_scheme=scheme).new_page()
            response = page.goto(f"{url}/tables/join/{token}/")
            assert response.status == 404
            expect(page.locator("h1")).to_have_text("This invite link no longer works")
            expect(page.locator("main")).to_contain_text("Ask your GM for a new one.")
            expect(page.get_by_role("link", name="Go to your tables")).to_be_visible()
            screenshot(page, f"evening-21.5-after-{size}-{scheme}-invite")
            response = page.goto(f"{url}{battle.get_absolute_url()}?round=999&step=-4")
            assert response.status == 400
            expect(page.locator("h1")).to_have_text("That step is not in this battle")
            page.get_by_role("link", name="Open the battle at its start").click()
            expect(page.locator("#viewer")).to_have_attribute("data-round", "0")
            response = page.goto(f"{url}/no/such/page/")
            assert response.status == 404
            expect(page.locator(".site-header")).to_be_visible()
            screenshot(page, f"evening-21.5-after-{size}-{scheme}-404")
            page.context.close()


def test_a_pasted_long_name_is_counted_and_refused_not_cut(_browser, live_server, demo):
    page = _browser.new_context(**PHONE).new_page()
    sign_up(page, live_server.url, "namer")
    page.goto(live_server.url + "/build/memeyori/")
    name = page.locator("#id_name")
    name.focus()
    page.keyboard.insert_text("Sparkle " * 37 + "Spark")  # 301 characters, as a paste
    assert len(name.input_value()) == 301  # nothing cut
    count = page.locator("#id_name + .char-count")
    expect(count).to_have_text("301 characters: 241 too many (at most 60)")
    expect(count).to_have_class("char-count error")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".field.has-error .errorlist")).to_contain_text(
        "Name can be at most 60 characters; this one has 301. Shorten it."
    )
    screenshot(page, "evening-21.9-after-390x844-light-name")
    name.fill("Sparkle")
    expect(count).to_be_hidden()
    page.context.close()
