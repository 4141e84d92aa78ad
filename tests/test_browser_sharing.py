"""What a person sees of issue 41.9 in a real browser: a party shared with its characters
to the owner's tables in one confirmed step, and a review that never says "queued" once
it is in. At a phone's and a laptop's width, light and dark, with axe; nothing wider than
a phone. Screenshots: artifacts/screenshots/share-*.png, review-in-*.png.
"""

import pytest
from playwright.sync_api import expect

from battles.engine.run import simulate
from battles.engine.state import round_frames
from battles.models import Battle
from cards.models import TableMembership
from cards.tables.services import table_create
from tests.conftest import make_user
from tests.playing import make_side

from .browser import screenshot, signed_in
from .test_review_pages import duel_snapshot

pytestmark = pytest.mark.browser
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}


def fits(page, size):
    if size == "phone":
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{page.url} is {overflow}px wider than a phone"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_party_is_shared_with_its_characters_in_one_confirmed_step(
    _browser, live_server, transactional_db, types, size, scheme
):
    ana, gwen = make_user("ana"), make_user("gwen")
    table = table_create(gm=gwen, name="Sunday")
    TableMembership.objects.create(table=table, user=ana)
    party = make_side(ana, types, "Sunrise", prefix="Sun", archon=True)
    width, height = SIZES[size]
    context, page = signed_in(
        _browser,
        live_server.url,
        ana,
        viewport={"width": width, "height": height},
        color_scheme=scheme,
    )
    try:
        page.goto(live_server.url + party.get_absolute_url())
        page.get_by_role("link", name="Share with my tables").click()
        expect(page.get_by_role("heading", name="Share Sunrise with your tables?")).to_be_visible()
        expect(page.locator("main li")).to_have_count(5)  # the party, its Archon, three Memeyori
        fits(page, size)
        screenshot(page, f"share-{size}-{scheme}-question")
        page.get_by_role("button", name="Share these 5").click()
        expect(page.get_by_role("status")).to_contain_text("Shared with your tables")
        expect(page.get_by_role("link", name="Share with my tables")).to_have_count(0)
        fits(page, size)
        screenshot(page, f"share-{size}-{scheme}-done")
        party.refresh_from_db()
        assert party.visibility == "tables"
        assert {m.visibility for m in party.memeyori_in_order()} == {"tables"}
        assert party.archon.visibility == "tables"
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_review_that_is_in_never_says_it_is_queued(
    _browser, live_server, transactional_db, size, scheme
):
    # The review pages' short duel (tests/test_review_pages.py): a review of it is quick.
    owner = make_user("reviewer")
    snap = duel_snapshot()
    for seed in range(50):
        log = simulate(snap, seed=seed)
        if log["result"]["rounds"] >= 3:
            break
    battle = Battle.objects.create(
        owner=owner, name_a="Aces", name_b="Bees", snapshot=snap, seed=seed, log=log,
        frames=round_frames(log), winner=log["result"]["winner"], rounds=log["result"]["rounds"],
    )  # fmt: skip
    width, height = SIZES[size]
    context, page = signed_in(
        _browser,
        live_server.url,
        owner,
        viewport={"width": width, "height": height},
        color_scheme=scheme,
    )
    try:
        page.goto(live_server.url + battle.get_absolute_url())
        page.get_by_role("button", name="Review this battle").click()
        # The tests' task backend makes the review inside the request: it is in at once.
        expect(page.locator("#review .review-graph")).to_be_visible(timeout=60_000)
        expect(page.locator("body")).not_to_contain_text("The review is queued")
        fits(page, size)
        page.locator("#review").scroll_into_view_if_needed()
        screenshot(page, f"review-in-{size}-{scheme}")
    finally:
        context.close()
