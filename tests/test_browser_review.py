"""The game review in a real browser (issue 32): its owner starts it from the battle page,
the graph under the viewer stays spoiler-free until the result is asked for, and it reads
well (axe-core) at 390 and 1366 px."""

import pytest
from playwright.sync_api import expect

from battles.engine.run import simulate
from battles.engine.state import round_frames
from battles.models import Battle
from tests.conftest import make_user

from .browser import DESKTOP, PHONE, screenshot, signed_in
from .test_review_pages import duel_snapshot

pytestmark = pytest.mark.browser


@pytest.fixture
def battle(transactional_db):
    owner = make_user("reviewer")
    snap = duel_snapshot()
    for seed in range(50):
        log = simulate(snap, seed=seed)
        if log["result"]["rounds"] >= 3:
            break
    return Battle.objects.create(
        owner=owner, name_a="Aces", name_b="Bees", snapshot=snap, seed=seed, log=log,
        frames=round_frames(log), winner=log["result"]["winner"], rounds=log["result"]["rounds"],
    )  # fmt: skip


@pytest.mark.parametrize("options", [DESKTOP, PHONE], ids=["1366", "390"])
def test_the_review_graph_grows_with_the_steps_and_tells_the_end_only_at_the_result(
    _browser, live_server, battle, options
):
    context, page = signed_in(_browser, live_server.url, battle.owner, **options)
    page.goto(f"{live_server.url}{battle.get_absolute_url()}?round=1&step=1")
    review = page.locator("#review")
    expect(review).to_contain_text("A review plays the rest of the battle out")
    review.get_by_role("button", name="Review this battle").click()
    expect(page.locator("#review svg")).to_be_visible(timeout=60_000)
    expect(page.locator("#review circle")).to_have_count(1)
    expect(review).not_to_contain_text("dice swung")
    expect(review).to_contain_text("Round 1: Aces")
    width = options["viewport"]["width"]
    review.scroll_into_view_if_needed()
    screenshot(page, f"review-round-1-{width}")
    page.locator('[data-nav="last"]').first.click()
    expect(page.locator("#review")).to_contain_text("The dice swung the game most")
    expect(page.locator("#review circle")).to_have_count(battle.rounds + 1)
    box = page.locator("#review svg").bounding_box()
    assert box["width"] <= width  # the graph fits the screen
    page.locator("#review").scroll_into_view_if_needed()
    screenshot(page, f"review-result-{width}")
    context.close()
