"""R9.6 in a browser: a table's GM chooses a draw at the limit, and the viewer says why a
battle was won at the limit; at 1366 and 390 px, light and dark, checked by axe."""

import pytest
from playwright.sync_api import expect

from battles.services import battle_run
from cards.tables.services import table_create

from .browser import DESKTOP, PHONE, screenshot, signed_in
from .test_battle_pages import make_team

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("size", "options"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_gm_chooses_a_draw_at_the_limit_and_the_viewer_says_why_a_battle_was_won(
    _browser, live_server, alice, types, size, options, scheme
):
    table = table_create(gm=alice, name="Slow Table")
    doves = make_team(alice, types, "Doves", size=3, support_only=True)
    lambs = make_team(alice, types, "Lambs", size=2, support_only=True)
    battle = battle_run(owner=alice, party_a=doves, party_b=lambs, seed=3, table=table)
    context, page = signed_in(_browser, live_server.url, alice, **options, color_scheme=scheme)
    try:
        page.goto(live_server.url + table.get_absolute_url())
        rule = page.locator("#table-limit")
        expect(rule).to_contain_text("The round limit decides (R9.6)")
        page.get_by_label("A draw at the limit").check()
        page.get_by_role("button", name="Save the table's rule").click()
        expect(rule).to_contain_text("A draw at the limit: when round 30 ends")
        expect(page.get_by_label("A draw at the limit")).to_be_checked()
        screenshot(page, f"round-limit-table-{size}-{scheme}")

        page.goto(live_server.url + battle.get_absolute_url() + "?round=30&step=999")
        why = page.locator(".result-why")
        expect(why).to_contain_text("Doves has more combatants standing, 3 to 2: Doves wins.")
        assert page.evaluate("document.documentElement.scrollWidth") <= options["viewport"]["width"]
        screenshot(page, f"round-limit-viewer-{size}-{scheme}")
    finally:
        context.close()
