"""One person plays a whole hot-seat game to its end through the page (issue 31.2): the
hand-over screen between the sides, each side's hand and nothing of the other's, the
live plan panel following each choice, at a desktop with the mouse and on a phone with
the keyboard alone. One Memeyori a side keeps it short (about seven rounds)."""

import re

import pytest
from playwright.sync_api import expect

from battles.play import services
from battles.play.models import Game
from tests.playing import affordable_plan, hand_words, leaks, make_side

from .browser import DESKTOP, PHONE, screenshot, signed_in
from .test_browser_play import tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MAX_ROUNDS = 30


def choose(page, card_id: str, target: str, *, keyboard: bool):
    """Play a card at Tier 1 on `target`: with the mouse (the menu), or by Tab and the
    arrow keys (Tier 1 options come first, one per target, in the order of the field)."""
    menu = f"#play-{card_id.replace('.', '-')}"
    if not keyboard:
        page.locator(menu).select_option(f"1:{target}")
        return
    options = page.locator(f"{menu} option").evaluate_all("(os) => os.map((o) => o.value)")
    tab_to(page, menu)
    for _ in range(options.index(f"1:{target}")):
        page.keyboard.press("ArrowDown")


def press(page, selector: str, *, keyboard: bool):
    if keyboard:
        tab_to(page, selector)
        page.keyboard.press("Enter")
    else:
        page.locator(selector).click()


def play_hot_seat_to_the_end(page, base_url: str, game: Game, *, keyboard: bool, label: str):
    names = (game.name_a, game.name_b)
    page.goto(f"{base_url}{game.get_absolute_url()}")
    for _ in range(MAX_ROUNDS):
        game.refresh_from_db()
        round_no = game.round
        for side in (0, 1):
            state = services.game_state(game, side)
            other = services.game_state(game, 1 - side)
            # The hand-over: nobody's hand on screen while the device changes hands.
            heading = f"Hand the device to the player of {names[side]}"
            expect(page.get_by_role("heading", name=heading)).to_be_visible()
            handover = page.content()
            assert not leaks(handover, hand_words(state) | hand_words(other))
            if round_no == 1:
                screenshot(page, f"hotseat-{label}-handover-side-{side}")
            press(page, "a.button[href*='ready=1']", keyboard=keyboard)
            expect(page.locator("[data-page=plan]")).to_be_visible()
            assert page.locator("input[name=round]").input_value() == str(round_no)
            assert not leaks(page.content(), hand_words(other))
            plan = affordable_plan(state)
            for card_id, _tier, target in plan:
                choose(page, card_id, target, keyboard=keyboard)
            if plan:
                # The live panel follows the choices (it stayed at "No cards yet").
                expect(page.locator(".plan-rows li")).to_have_count(len(plan))
            if round_no == 1:
                screenshot(page, f"hotseat-{label}-plan-side-{side}")
            press(page, "button[name=submit]", keyboard=keyboard)
            if side == 0:
                expect(page).to_have_url(re.compile(r"\?side=1$"))
        # Both planned: the round resolves and the page shows it from its first event.
        expect(page).to_have_url(re.compile(rf"/watch/\?round={round_no}$"))
        expect(page.locator("#viewer .where")).to_contain_text(f"Round {round_no} · event 1")
        game.refresh_from_db()
        if game.status == "finished":
            screenshot(page, f"hotseat-{label}-last-round")
            return round_no
        press(page, "[data-next-plan]", keyboard=keyboard)
    raise AssertionError(f"the game did not end in {MAX_ROUNDS} rounds")


@pytest.mark.parametrize(
    "device,keyboard", [("desktop", False), ("phone", True)], ids=["desktop-mouse", "phone-keys"]
)
def test_a_whole_hot_seat_game_is_played_to_its_end_through_the_page(
    _browser, live_server, alice, types, device, keyboard
):
    embers = make_side(alice, types, "Embers", prefix="Emb", size=1)
    dusk = make_side(alice, types, "Dusk", prefix="Dusk", size=1)
    context, page = signed_in(
        _browser, live_server.url, alice, **(DESKTOP if device == "desktop" else PHONE)
    )
    try:
        # Started from the form, as a person would.
        page.goto(f"{live_server.url}/play/new/?party={embers.code}")
        page.get_by_label("Hot-seat: you plan both sides on this device").check()
        page.get_by_label("The other party").select_option(str(dusk.code))
        page.get_by_role("button", name="Start the game").click()
        game = Game.objects.get()
        rounds = play_hot_seat_to_the_end(
            page, live_server.url, game, keyboard=keyboard, label=device
        )
        game.refresh_from_db()
        assert game.status == "finished" and game.forfeit_side is None
        assert game.round == rounds
        # One game, nothing left "waiting for you".
        assert Game.objects.count() == 1
        page.goto(f"{live_server.url}{game.get_absolute_url()}")
        expect(page.get_by_role("heading", name="The game is over")).to_be_visible()
        expect(page.locator(".result")).to_contain_text(f"after round {rounds}")
        screenshot(page, f"hotseat-{device}-finished")
    finally:
        context.close()
