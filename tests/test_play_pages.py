"""Playing a game through its pages (issue 17): start, plan by the form, wait, watch each
round resolve, hot-seat, a friend, forfeit, the time limit, a table's game, My games."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from battles.models import Battle
from battles.play import services
from battles.play.models import Game, PlayedPlan
from cards.models import TableMembership
from cards.tables.services import table_create
from tests.conftest import make_user
from tests.playing import affordable_plan, form_fields, hand_words, leaks, make_side

pytestmark = pytest.mark.django_db


@pytest.fixture
def sunrise(alice, types):
    return make_side(alice, types, "Sunrise", prefix="Sun", archon=True)


@pytest.fixture
def night(bob, types):
    return make_side(bob, types, "Night", prefix="Moon", visibility="public")


def start(client, party, opponent="ai", **fields):
    # A chosen seed for the AI and hot-seat; a friend's game gets the server's (SECRET_SEED).
    seed = {"seed": 5} if opponent in ("ai", "hotseat") else {}
    data = {"party": party.code, "opponent": opponent, "policy_b": "greedy", **seed, **fields}
    response = client.post(reverse("play_new"), data)
    assert response.status_code == 302, response.content[:2000]
    game = Game.objects.latest("id")
    assert response["Location"] == game.get_absolute_url()
    return game


def plan_url(game):
    return reverse("play_plan_form", kwargs={"code": game.code})


def watch_url(game):
    return reverse("play_watch", kwargs={"code": game.code})


def test_a_whole_game_against_the_ai_is_played_through_the_plan_form(client, alice, sunrise, night):
    client.force_login(alice)
    game = start(client, sunrise, party_b=night.code)
    for _ in range(40):
        game.refresh_from_db()
        if game.status == "finished":
            break
        page = client.get(game.get_absolute_url())
        assert page.status_code == 200
        state = services.game_state(game, 0)
        assert f"Plan round {state['round']}".encode() in page.content
        response = client.post(plan_url(game), form_fields(state, affordable_plan(state)))
        assert response.status_code == 302
        # Each round opens in the viewer at its first event, later rounds unknown.
        assert response["Location"] == f"{watch_url(game)}?round={state['round']}"
        watched = client.get(response["Location"])
        assert watched.status_code == 200
        assert f"Round {state['round']} · event 1 of".encode() in watched.content
        assert f"Round {state['round'] + 1} ·".encode() not in watched.content
    game.refresh_from_db()
    assert game.status == "finished" and game.battle is not None
    end = client.get(game.get_absolute_url())
    assert b"The game is over" in end.content
    assert game.battle.get_absolute_url().encode() in end.content
    assert b"Rematch" in end.content
    # The plans it was played with are the record: every one by the player, by round.
    plans = [p for p in game.battle.log["plans"] if p["side"] == 0]
    assert [p["round"] for p in plans] == list(range(1, len(plans) + 1))
    assert {p["by"] for p in plans} == {"player"}
    assert client.get(game.battle.get_absolute_url()).status_code == 200


def test_the_plan_page_shows_each_card_with_its_cost_quick_tiers_and_odds(
    client, alice, sunrise, night
):
    client.force_login(alice)
    game = start(client, sunrise, party_b=night.code)
    state = services.game_state(game, 0)
    html = client.get(game.get_absolute_url()).content.decode()
    for card in state["hand"]:
        assert card["name"] in html
    assert "MP</strong> this round" in html
    quick = [c for c in state["hand"] if c["quick"]]
    if quick:
        assert '<span class="tag quick">Quick</span>' in html
    assert "Tier 2: Power" in html and "for 4 Resonance" in html
    attack = next(c for c in state["hand"] if c["category"] != "support")
    first = attack["targets"][0]
    from fractions import Fraction

    from battles.engine.words import percent

    assert percent(Fraction(first["land"])) in html
    assert f"{first['expected_damage']['1']['value']:.2f}" in html
    heal = [c for c in state["hand"] if c["category"] == "support"]
    for card in heal:
        assert f"{card['targets'][0]['heal']['1']} HP" in html
    assert "holds <strong>" in html  # the other side's hand: a count, never its cards
    assert b"Forfeit" in client.get(game.get_absolute_url()).content


def test_a_plan_over_the_mp_with_the_surcharge_is_refused_by_the_card_and_nothing_is_stored(
    client, alice, sunrise, night
):
    client.force_login(alice)
    game = start(client, sunrise, party_b=night.code)
    state = services.game_state(game, 0)
    # Every card of one Memeyori, non-Quick ones first: the surcharge runs the MP out.
    user = state["hand"][0]["user"]
    mine = sorted(
        (c for c in state["hand"] if c["user"] == user and c["targets"]), key=lambda c: c["quick"]
    )
    cards = [[c["id"], 1, c["targets"][0]["id"]] for c in mine] * 1
    cards += [[c["id"], 1, c["targets"][0]["id"]] for c in state["hand"] if c["user"] != user]
    total = services.preview_plan(game, 0, {"switch": None, "summon": False, "cards": cards})
    assert total["errors"], "the fixture's hand should not fit in its MP"
    response = client.post(plan_url(game), form_fields(state, cards))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Not submitted: the rules refuse this plan" in html
    # Its totals are the refused plan's, not the untouched MP (issue 31.5).
    assert f"<strong data-mp-left>{total['mp_left']}</strong>" in html
    assert f"<strong data-mp-left>{state['mp']}</strong>" not in html
    refused_id, reasons = next(iter(total["by_card"].items()))
    assert reasons[0] in html
    # The reason sits by its card, not only at the top.
    card_block = html.split(f'id="refusal-{refused_id.replace(".", "-")}"')[1][:600]
    assert reasons[0] in card_block
    assert PlayedPlan.objects.count() == 0


def test_the_check_and_its_htmx_partial_follow_the_rules_and_store_nothing(
    client, alice, sunrise, night
):
    client.force_login(alice)
    game = start(client, sunrise, party_b=night.code)
    state = services.game_state(game, 0)
    cards = affordable_plan(state)[:2]
    spent = services.preview_plan(game, 0, {"switch": None, "summon": False, "cards": cards})
    fields = form_fields(state, cards, ready=1)
    check_url = reverse("play_plan_check", kwargs={"code": game.code})
    # A POST: the plan and the CSRF token never ride in a URL (issue 31); a GET is refused.
    assert client.get(check_url, fields).status_code == 405
    page = client.post(check_url, fields)
    assert page.status_code == 200
    assert f"<strong data-mp-left>{spent['mp_left']}</strong>".encode() in page.content
    partial = client.post(check_url, fields, headers={"HX-Request": "true"})
    text = partial.content.decode()
    assert text.lstrip().startswith('<section id="plan-check"')
    assert f"<strong data-mp-left>{spent['mp_left']}</strong>" in text
    assert 'hx-swap-oob="true"' in text  # each card's cost this round, beside the card
    assert "<html" not in text
    assert PlayedPlan.objects.count() == 0


def test_a_hot_seat_game_hands_the_device_over_between_the_sides(client, alice, sunrise, types):
    other = make_side(alice, types, "Dusk", prefix="Dusk")
    client.force_login(alice)
    game = start(client, sunrise, "hotseat", party_b=other.code)
    for round_no in (1, 2):
        a, b = services.game_state(game, 0), services.game_state(game, 1)
        first = client.get(game.get_absolute_url())
        assert b"Hand the device to the player of Sunrise" in first.content
        assert not leaks(first.content.decode(), hand_words(a) | hand_words(b))
        page = client.get(game.get_absolute_url(), {"side": 0, "ready": 1}).content.decode()
        assert leaks(page, hand_words(a)) and not leaks(page, hand_words(b))
        # The form carries this round (it was empty after the hand-over, issue 31).
        assert f'name="round" value="{round_no}"' in page
        response = client.post(plan_url(game), form_fields(a, affordable_plan(a), side=0))
        assert response["Location"] == f"{game.get_absolute_url()}?side=1"
        over = client.get(response["Location"]).content.decode()
        assert "Hand the device to the player of Dusk" in over
        # Side A's plan and hand stay off the screen side B's player is handed.
        assert not leaks(over, hand_words(a) | hand_words(b))
        page = client.get(game.get_absolute_url(), {"side": 1, "ready": 1}).content.decode()
        assert leaks(page, hand_words(b)) and not leaks(page, hand_words(a))
        response = client.post(plan_url(game), form_fields(b, affordable_plan(b), side=1))
        game.refresh_from_db()
        if game.status == "finished":
            break
        assert response["Location"] == f"{watch_url(game)}?round={round_no}"
        assert game.round == round_no + 1


def two_players(alice, bob, sunrise, night):
    a, b = Client(), Client()
    a.force_login(alice)
    b.force_login(bob)
    game = start(a, sunrise, "friend")
    page = a.get(game.get_absolute_url())
    join = reverse("play_join", kwargs={"token": game.invite_token})
    assert join.encode() in page.content and b"Revoke the invite link" in page.content
    assert b.get(join).status_code == 200
    response = b.post(join, {"party": night.code})
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
    game.refresh_from_db()
    return game, a, b


def everything_side_fetches(client, game, side: int, other_state: dict) -> dict[str, str]:
    """Every page, partial and JSON answer this side's player can ask for now."""
    base = game.get_absolute_url()
    state = services.game_state(game, side)
    urls = {
        "game": base,
        "check": f"{base}?ready=1&round={state['round']}",
        "watch": watch_url(game),
        "watch round 1": watch_url(game) + "?round=1&step=1",
        "state.json": reverse("play_state", kwargs={"code": game.code}),
        "my games": reverse("play_list"),
        "forfeit": reverse("play_forfeit", kwargs={"code": game.code}),
    }
    answers = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code in (200, 302), (name, response.status_code)
        answers[name] = response.content.decode()
        partial = client.get(url, headers={"HX-Request": "true"})
        answers[name + " (htmx)"] = partial.content.decode()
    if state["status"] == "planning":
        cards = affordable_plan(state)
        fields = form_fields(state, cards, ready=1)
        answers["preview"] = client.get(
            base, fields, headers={"HX-Request": "true"}
        ).content.decode()
    return answers


def test_a_friend_never_sees_the_hand_or_the_plan_of_the_side_that_planned_first(
    alice, bob, sunrise, night
):
    game, a, b = two_players(alice, bob, sunrise, night)
    for first, (planner, planner_side), (other, other_side) in (
        (1, (a, 0), (b, 1)),
        (2, (b, 1), (a, 0)),
    ):
        mine = services.game_state(game, planner_side)
        assert mine["round"] == first
        response = planner.post(plan_url(game), form_fields(mine, affordable_plan(mine)))
        assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
        waiting = planner.get(game.get_absolute_url()).content.decode()
        assert "Waiting for the other side" in waiting
        # What was planned and held is not for the other side's eyes, on any page.
        secret = hand_words(mine)
        for name, text in everything_side_fetches(other, game, other_side, mine).items():
            assert not leaks(text, secret), (first, name, leaks(text, secret))
        theirs = services.game_state(game, other_side)
        response = other.post(plan_url(game), form_fields(theirs, affordable_plan(theirs)))
        assert response["Location"] == f"{watch_url(game)}?round={first}"
        game.refresh_from_db()
        if game.status == "finished":
            break
        # The waiting side's page now sends them to watch the round that resolved.
        back = planner.get(game.get_absolute_url(), {"after": first})
        assert back["Location"] == f"{watch_url(game)}?round={first}"


def test_forfeit_asks_first_then_the_other_side_wins(alice, bob, sunrise, night):
    game, a, b = two_players(alice, bob, sunrise, night)
    url = reverse("play_forfeit", kwargs={"code": game.code})
    ask = b.get(url)
    assert b"Forfeit with Night?" in ask.content and b"danger solid" in ask.content
    game.refresh_from_db()
    assert game.status == "planning"
    assert b.post(url).status_code == 302
    game.refresh_from_db()
    assert game.status == "finished" and game.winner == 0
    assert game.battle.log["forfeit"] == {"round": 1, "side": 1}
    page = a.get(game.get_absolute_url()).content.decode()
    assert "Night forfeited" in page and "Sunrise wins" in page
    # Its creator's rematch is a new invite with the same party.
    assert f"{reverse('play_new')}?party={game.party_a.code}&amp;opponent=friend" in page


def test_the_time_limit_counts_down_and_then_the_ai_plans_for_the_late_side(
    alice, bob, sunrise, night
):
    a = Client()
    a.force_login(alice)
    game = start(a, sunrise, party_b=night.code, time_limit=60)
    page = a.get(game.get_absolute_url()).content.decode()
    assert "data-deadline=" in page and "to plan." in page
    timeout = reverse("play_timeout", kwargs={"code": game.code})
    a.post(timeout)  # early: changes nothing
    assert PlayedPlan.objects.count() == 0
    Game.objects.filter(pk=game.pk).update(round_started_at=timezone.now() - timedelta(seconds=61))
    assert a.post(timeout).status_code == 302
    recorded = PlayedPlan.objects.get(game=game, round=1, side=0)
    assert recorded.by == "timeout"
    game.refresh_from_db()
    assert game.round == 2
    # The round's page says the AI planned for the absent side, once.
    watch = a.get(f"{watch_url(game)}?round=1").content.decode()
    assert watch.count("The time ran out in round 1: the AI (Greedy) planned for Sunrise.") == 1


def test_a_task_at_the_deadline_resolves_the_round_when_no_page_is_open(
    alice, bob, sunrise, night, queued_tasks, django_capture_on_commit_callbacks
):
    """Bob closed his tab and Alice's page asks for nothing: the task queued for the
    deadline lets the AI plan for Bob, resolves the round and queues round 2's."""
    from django_tasks_db.models import DBTaskResult

    from battles.play import clock

    a, b = Client(), Client()
    a.force_login(alice)
    b.force_login(bob)
    with django_capture_on_commit_callbacks(execute=True):
        game = start(a, sunrise, "friend", time_limit=60)
        b.post(reverse("play_join", kwargs={"token": game.invite_token}), {"party": night.code})
    game.refresh_from_db()
    queued = DBTaskResult.objects.get()
    assert queued.task_path.endswith("clock.expire_round")
    assert abs((queued.run_after - clock.deadline(game)).total_seconds()) < 1
    state = services.game_state(game, 0)
    with django_capture_on_commit_callbacks(execute=True):
        a.post(plan_url(game), form_fields(state, affordable_plan(state)))
    # Early, it changes nothing.
    assert clock.expire_round.call(game.code, "") is False
    assert PlayedPlan.objects.filter(game=game).count() == 1
    Game.objects.filter(pk=game.pk).update(round_started_at=timezone.now() - timedelta(seconds=61))
    with django_capture_on_commit_callbacks(execute=True) as published:
        assert clock.expire_round.call(game.code, "") is True
    assert published  # the live "changed" and the next deadline, after the write
    game.refresh_from_db()
    assert game.round == 2
    assert PlayedPlan.objects.get(game=game, round=1, side=1).by == "timeout"
    assert DBTaskResult.objects.filter(run_after__gt=timezone.now()).count() >= 1


def test_a_revoked_invite_link_says_it_no_longer_works(client, alice, bob, sunrise, night):
    client.force_login(alice)
    game = start(client, sunrise, "friend")
    join = reverse("play_join", kwargs={"token": game.invite_token})
    revoke = reverse("play_invite", kwargs={"code": game.code})
    assert b"Revoke the invite link?" in client.get(revoke).content
    assert Game.objects.get(pk=game.pk).invite_token  # asking changed nothing
    client.post(revoke)
    assert Game.objects.get(pk=game.pk).invite_token is None
    friend = Client()
    friend.force_login(bob)
    dead = friend.get(join)
    assert dead.status_code == 404 and b"This invite link no longer works" in dead.content
    assert friend.post(join, {"party": night.code}).status_code == 404


def test_the_gm_pairs_two_members_parties_and_each_plans_their_own_side(client, alice, bob, types):
    gm = make_user("gwen")
    table = table_create(gm=gm, name="Sunday")
    TableMembership.objects.create(table=table, user=alice)
    TableMembership.objects.create(table=table, user=bob)
    sun = make_side(alice, types, "Sunrise", prefix="Sun", visibility="tables")
    moon = make_side(bob, types, "Night", prefix="Moon", visibility="tables")
    client.force_login(gm)
    assert (
        reverse("play_table_new", kwargs={"table_code": table.code}).encode()
        in client.get(table.get_absolute_url()).content
    )
    url = reverse("play_table_new", kwargs={"table_code": table.code})
    same = client.post(url, {"party_a": sun.code, "party_b": sun.code, "time_limit": 0})
    assert same.status_code == 400 and b"pick another member" in same.content
    response = client.post(url, {"party_a": sun.code, "party_b": moon.code, "time_limit": 0})
    game = Game.objects.get()
    assert response["Location"] == watch_url(game)
    assert (game.user_a, game.user_b, game.table) == (alice, bob, table)
    # The GM watches (a table member) but plans neither side.
    assert client.get(watch_url(game)).status_code == 200
    # The game's own page sends the GM to watch it (it was a 404, issue 31.5).
    assert client.get(game.get_absolute_url())["Location"] == watch_url(game)
    assert client.post(plan_url(game), {"round": 1}).status_code == 404
    a = Client()
    a.force_login(alice)
    page = a.get(game.get_absolute_url()).content.decode()
    assert leaks(page, hand_words(services.game_state(game, 0)))
    games = a.get(reverse("play_list")).content.decode()
    assert "Waiting for you (1)" in games
    table_page = client.get(table.get_absolute_url()).content.decode()
    assert watch_url(game) in table_page


def test_my_games_lists_whose_turn_it_is_and_what_is_finished(alice, bob, sunrise, night):
    game, a, b = two_players(alice, bob, sunrise, night)
    state = services.game_state(game, 0)
    a.post(plan_url(game), form_fields(state, affordable_plan(state)))
    mine = a.get(reverse("play_list")).content.decode()
    assert "Waiting for the other side (1)" in mine and "Waiting for you (0)" in mine
    theirs = b.get(reverse("play_list")).content.decode()
    assert "Waiting for you (1)" in theirs
    b.post(reverse("play_forfeit", kwargs={"code": game.code}))
    assert "Finished (1)" in a.get(reverse("play_list")).content.decode()


def test_the_start_points_are_on_the_party_page_and_the_battle_form(client, alice, sunrise):
    client.force_login(alice)
    party = client.get(sunrise.get_absolute_url()).content.decode()
    assert f"{reverse('play_new')}?party={sunrise.code}" in party
    assert reverse("play_new") in client.get(reverse("battle_new")).content.decode()
    assert reverse("play_list") in client.get(reverse("home")).content.decode()
    form = client.get(reverse("play_new"), {"party": sunrise.code})
    assert form.status_code == 200 and form.context["form"].initial["party"] == str(sunrise.code)


def test_a_bad_start_is_refused_by_the_field_and_stores_nothing(client, alice, sunrise):
    client.force_login(alice)
    response = client.post(reverse("play_new"), {"party": sunrise.code, "opponent": "ai"})
    assert response.status_code == 400
    assert "party_b" in response.context["form"].errors
    assert not Game.objects.exists()


def test_reading_any_page_changes_nothing(alice, bob, sunrise, night):
    game, a, b = two_players(alice, bob, sunrise, night)
    before = (Game.objects.values().get(pk=game.pk), PlayedPlan.objects.count())
    everything_side_fetches(a, game, 0, {})
    everything_side_fetches(b, game, 1, {})
    for url in (reverse("play_invite", kwargs={"code": game.code}),
                reverse("play_share", kwargs={"code": game.code}) + "?action=revoke"):  # fmt: skip
        a.get(url)
    assert (Game.objects.values().get(pk=game.pk), PlayedPlan.objects.count()) == before
    assert Battle.objects.count() == 0


def test_a_summon_without_8_resonance_is_refused_in_words_and_a_switch_is_offered(
    client, alice, types, night
):
    big = make_side(alice, types, "Sunrise", prefix="Sun", size=4, archon=True)
    client.force_login(alice)
    game = start(client, big, party_b=night.code)
    state = services.game_state(game, 0)
    html = client.get(game.get_absolute_url()).content.decode()
    assert f"Summoning Sun Archon costs 8 Resonance; you have {state['resonance']}." in html
    out, inn = state["switches"][0]
    assert f'<option value="{out}:{inn}">' in html  # Sun Mon 4 waits in storage
    refused = client.post(plan_url(game), form_fields(state, [], summon="on"))
    assert refused.status_code == 400
    assert f"costs 8 Resonance; you have {state['resonance']}" in refused.content.decode()
    assert PlayedPlan.objects.count() == 0
    client.post(plan_url(game), form_fields(state, [], switch=f"{out}:{inn}"))
    recorded = PlayedPlan.objects.get(game=game, round=1, side=0)
    assert recorded.plan["switch"] == [out, inn]


def test_the_home_page_says_you_can_play(client, alice):
    for reader in (None, alice):
        if reader is not None:
            client.force_login(reader)
        html = client.get(reverse("home")).content.decode()
        assert f'href="{reverse("play_new")}">Play a game</a>' in html
        assert "against the AI, a friend" in html


def test_a_check_for_a_round_that_resolved_meanwhile_sends_the_page_on_instead_of_a_new_hand(
    alice, bob, sunrise, night
):
    """Bob's submit resolved round 1 while Alice's check was on its way: her check must
    not swap in round 2's cards (htmx:oobErrorNoTarget #cost-A1-1, issue 31.5)."""
    game, a, b = two_players(alice, bob, sunrise, night)
    check_url = reverse("play_plan_check", kwargs={"code": game.code})
    mine = services.game_state(game, 0)
    fields = form_fields(mine, affordable_plan(mine)[:1])
    live = a.post(check_url, fields, headers={"HX-Request": "true"})
    assert live.status_code == 200 and 'hx-swap-oob="true"' in live.content.decode()
    assert a.post(plan_url(game), form_fields(mine, [])).status_code == 302
    theirs = services.game_state(game, 1)
    assert b.post(plan_url(game), form_fields(theirs, [])).status_code == 302
    late = a.post(check_url, fields, headers={"HX-Request": "true"})
    assert late.status_code == 204
    assert late["HX-Redirect"] == f"{game.get_absolute_url()}?after=1"
    # Without htmx, the same: to the game, which shows the round that resolved.
    assert a.post(check_url, fields)["Location"] == f"{game.get_absolute_url()}?after=1"


def test_a_plan_can_be_taken_back_until_the_other_side_has_planned(alice, bob, sunrise, night):
    game, a, b = two_players(alice, bob, sunrise, night)
    cancel_url = reverse("play_cancel", kwargs={"code": game.code})
    mine = services.game_state(game, 0)
    assert a.post(plan_url(game), form_fields(mine, affordable_plan(mine))).status_code == 302
    waiting = a.get(game.get_absolute_url()).content.decode()
    assert "Waiting for the other side" in waiting and "Take back my plan" in waiting
    # Nobody else can take it back; a GET changes nothing.
    stranger = Client()
    stranger.force_login(make_user("dee"))
    assert stranger.post(cancel_url).status_code == 404
    assert a.get(cancel_url).status_code == 405
    assert PlayedPlan.objects.filter(game=game).count() == 1
    taken = a.post(cancel_url, follow=True)
    assert "Your plan for round 1 is taken back" in taken.content.decode()
    assert "Submit the plan for round 1" in taken.content.decode()
    assert not PlayedPlan.objects.filter(game=game).exists()
    # Bob's view of it is what it was: nothing of Alice's hand or plan.
    assert not leaks(b.get(game.get_absolute_url()).content.decode(), hand_words(mine))
    # Planned again, and then Bob plans: the round resolves; there is nothing to take back.
    assert a.post(plan_url(game), form_fields(mine, [])).status_code == 302
    theirs = services.game_state(game, 1)
    assert b.post(plan_url(game), form_fields(theirs, [])).status_code == 302
    refused = a.post(cancel_url, follow=True).content.decode()
    assert "You have no plan in for round 2 to take back." in refused
    assert PlayedPlan.objects.filter(game=game).count() == 2


def test_a_plan_cannot_be_taken_back_once_the_time_is_up(alice, bob, sunrise, night):
    from django.core.exceptions import ValidationError

    from battles.play.cancel import cancel_plan

    game, a, b = two_players(alice, bob, sunrise, night)
    Game.objects.filter(pk=game.pk).update(time_limit=60)
    mine = services.game_state(game, 0)
    a.post(plan_url(game), form_fields(mine, []))
    Game.objects.filter(pk=game.pk).update(round_started_at=timezone.now() - timedelta(seconds=61))
    game.refresh_from_db()
    with pytest.raises(ValidationError, match="The time for round 1 is up"):
        cancel_plan(game, 0)
    assert PlayedPlan.objects.filter(game=game, side=0).exists()


def test_a_friend_is_challenged_by_name_and_the_invite_works_for_them_alone(
    alice, bob, sunrise, night
):
    a, b, dee = Client(), Client(), Client()
    a.force_login(alice)
    b.force_login(bob)
    dee.force_login(make_user("dee"))
    game = start(a, sunrise, "friend")
    url = reverse("play_challenge", kwargs={"code": game.code})
    invite = a.get(game.get_absolute_url()).content.decode()
    assert "Copy the link" in invite and url in invite
    # A name nobody has: said by the field, nothing changed.
    wrong = a.post(url, {"username": "bobb"})
    assert (
        wrong.status_code == 400
        and "Nobody here is called &#x27;bobb&#x27;" in wrong.content.decode()
    )
    assert a.post(url, {"username": "alice"}).status_code == 400
    # Only the game's creator challenges.
    assert b.post(url, {"username": "bob"}).status_code == 404
    game.refresh_from_db()
    assert game.user_b is None
    assert a.post(url, {"username": "BOB"})["Location"] == game.get_absolute_url()
    game.refresh_from_db()
    assert game.user_b == bob and game.status == "waiting"
    assert "You challenged <strong>bob</strong>" in a.get(game.get_absolute_url()).content.decode()
    # Bob finds it in his games, and the game's page takes him to the join form.
    join = reverse("play_join", kwargs={"token": game.invite_token})
    games = b.get(reverse("play_list")).content.decode()
    assert "Challenges for you (1)" in games and join in games
    assert "No game is waiting on anyone else." in games  # not twice
    assert b.get(game.get_absolute_url())["Location"] == join
    # Anyone else holding the link is told it is not theirs; nothing in their games.
    assert "This invite is for someone else" in dee.get(join).content.decode()
    assert dee.post(join, {"party": night.code}).status_code == 404
    assert "Challenges for you" not in dee.get(reverse("play_list")).content.decode()
    assert b.post(join, {"party": night.code})["Location"] == game.get_absolute_url()
    game.refresh_from_db()
    assert (game.status, game.user_b, game.party_b) == ("planning", bob, night)
