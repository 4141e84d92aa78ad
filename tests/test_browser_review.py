"""The game review in a real browser (issue 32): its owner starts it from the battle page,
the graph under the viewer stays spoiler-free until the result is asked for, and it reads
well (axe-core) at 390 and 1366 px."""

import math

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


def test_from_the_review_a_reader_steps_to_a_marked_round_forks_it_and_plays_a_round(
    _browser, live_server, transactional_db, types
):
    """Issue 32's journey: the review of a battle marks a plan; its round links to its
    step in the viewer and to a new game from there, which the reader plays for a round."""
    import re

    from battles.play.models import Game
    from battles.review import services as review_services
    from battles.review import tasks as review_tasks
    from battles.review.models import Review
    from battles.services import battle_run
    from tests.playing import affordable_plan, make_side

    from .test_browser_hotseat import choose

    owner = make_user("reviewer")
    # One Memeyori a side: a short battle, and a review of a few seconds.
    sun = make_side(owner, types, "Sunrise", prefix="Sun", size=1)
    night = make_side(owner, types, "Night", prefix="Moon", size=1)
    for seed in range(1, 30):
        battle = battle_run(owner=owner, party_a=sun, party_b=night, seed=seed)
        if battle.rounds < 3:
            continue
        review = review_services.start(battle, owner, rate_ai=True)
        review_tasks.run(review.pk, seconds=math.inf)
        rows = Review.objects.get(pk=review.pk).data["rounds"]
        marked = [r["round"] for r in rows if any(r["mark"]) and r["round"] < battle.rounds]
        if marked:
            break
    else:
        raise AssertionError("no battle of these parties had a marked plan")
    round_no = marked[0]
    context, page = signed_in(_browser, live_server.url, owner, **DESKTOP)
    try:
        page.goto(f"{live_server.url}{battle.get_absolute_url()}")
        page.locator('[data-nav="last"]').first.click()
        review_box = page.locator("#review")
        expect(review_box).to_contain_text("The dice swung the game most")
        review_box.locator(".review-rounds").scroll_into_view_if_needed()
        screenshot(page, "review-marked-round-links")
        review_box.get_by_role("link", name=f"Step to round {round_no}").click()
        expect(page.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 1")
        page.get_by_role("link", name=f"Play from here: round {round_no}…").click()
        expect(page.locator("#id_round")).to_have_value(str(round_no))
        page.get_by_label("The AI").check()
        page.get_by_role("button", name="Play from this round").click()
        expect(page.locator("[data-page=plan]")).to_be_visible()
        game = Game.objects.get()
        for card_id, _tier, target in affordable_plan(services_state(game)):
            choose(page, card_id, target, keyboard=False)
        screenshot(page, "review-fork-plan")
        page.locator("button[name=submit]").click()
        expect(page).to_have_url(re.compile(rf"/watch/\?round={round_no}$"))
        expect(page.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 1")
    finally:
        context.close()


def services_state(game):
    from battles.play import services

    return services.game_state(game, 0)


@pytest.mark.parametrize(
    "options,scheme", [(DESKTOP, "light"), (PHONE, "dark")], ids=["1366-light", "390-dark"]
)
def test_a_routs_review_reads_in_words_that_hold(_browser, live_server, battle, options, scheme):
    """Issue 41.7, as a person sees it: a game lost from the first round says so, with no
    negative percentage, no swings of 0.0 points and no accuracy it did not earn."""
    from battles.models import Review, ReviewStatus
    from tests.test_review_words import rout

    snap = duel_snapshot()
    # A battle side B won, as the made-up review of a rout says.
    seed = next(s for s in range(200) if simulate(snap, seed=s)["result"]["winner"] == 1)
    log = simulate(snap, seed=seed)
    battle = Battle.objects.create(
        owner=make_user("routed"), name_a="Aces", name_b="Bees", snapshot=snap, seed=seed,
        log=log, frames=round_frames(log), winner=1, rounds=log["result"]["rounds"],
    )  # fmt: skip
    Review.objects.create(battle=battle, status=ReviewStatus.DONE, data=rout(battle.rounds))
    context, page = signed_in(
        _browser, live_server.url, battle.owner, color_scheme=scheme, **options
    )
    try:
        page.goto(f"{live_server.url}{battle.get_absolute_url()}?round=1&step=1")
        page.locator('[data-nav="last"]').first.click()
        review = page.locator("#review")
        expect(review).to_contain_text("Bees' win was certain from the start")
        expect(review).to_contain_text("Luck-adjusted, Aces scores 0%.")
        expect(review).to_contain_text("No accuracy for Aces")
        text = review.inner_text()
        assert "-1%" not in text and "0.0 points" not in text and "Accuracy:" not in text
        review.scroll_into_view_if_needed()
        screenshot(page, f"review-rout-{options['viewport']['width']}-{scheme}")
    finally:
        context.close()
