"""The JSON protocol `memeyori-play/1` (battles/play/PROTOCOL.md) and the services behind it."""

import io
import json
import re
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from battles.engine.log import render_text
from battles.models import Battle
from battles.play import services
from battles.play.models import Game, PlayedPlan
from cards.models import TableMembership
from tests.conftest import make_user
from tests.play_parties import NIGHT_CARDS, play_party
from tests.playing import with_seed


@pytest.fixture
def alice_party(alice, types):
    return play_party(alice, types)


@pytest.fixture
def bob_party(bob, types):
    return play_party(bob, types, "Night Crew", visibility="public")


def signed_in(user) -> Client:
    """A client that checks CSRF as the site does, with its token from a real page."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get(reverse("battle_new"))
    client.csrf = client.cookies["csrftoken"].value
    return client


def post_json(client, url, body):
    return client.post(
        url, json.dumps(body), content_type="application/json", HTTP_X_CSRFTOKEN=client.csrf
    )


def start(client, party, party_b, **fields):
    data = {"party": str(party.code), "opponent": "ai", "party_b": str(party_b.code),
            "policy_b": "greedy", "seed": "7", **fields}  # fmt: skip
    response = client.post(reverse("play_new"), data, HTTP_X_CSRFTOKEN=client.csrf)
    assert response.status_code == 302, response.content
    game = Game.objects.get(created_by__username=party.owner.username, name_b=party_b.name)
    assert response["Location"] == f"/play/{game.code}/"
    return game


def simple_plan(state) -> dict:
    """The first attack cards the MP pays for (each card's surcharge counted), on the first
    enemy: what a script playing the protocol would send."""
    mp = state["mp"]
    used: dict[str, int] = {}
    cards = []
    for card in state["hand"]:
        cost = card["mp_cost"] + used.get(card["user"], 0)
        if card["category"] == "support" or cost > mp or not card["targets"]:
            continue
        cards.append([card["id"], 1, card["targets"][0]["id"]])
        mp -= cost
        if not card["quick"]:
            used[card["user"]] = used.get(card["user"], 0) + 1
    return {"round": state["round"], "switch": None, "summon": False, "cards": cards}


def test_a_whole_game_against_the_ai_through_the_json_protocol(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    state_url = reverse("play_state", kwargs={"code": game.code})
    plan_url = reverse("play_plan", kwargs={"code": game.code})
    rounds = 0
    while True:
        state = client.get(state_url).json()
        assert state["format"] == "memeyori-play/1"
        if state["status"] == "finished":
            break
        assert state["status"] == "planning" and state["side"] == 0
        response = post_json(client, plan_url, simple_plan(state))
        assert response.status_code == 200, response.content
        assert response.json()["round"] in (state["round"], state["round"] + 1)
        rounds += 1
        assert rounds <= 30
    game.refresh_from_db()
    assert game.status == "finished" and game.battle is not None
    battle = Battle.objects.get(pk=game.battle_id)
    assert state["battle"] == battle.get_absolute_url()
    assert state["winner"] == battle.winner
    assert battle.log["policies"] == ["player", "greedy"]
    # Each round's plans: the player's, and the AI's, recorded as it made them.
    assert PlayedPlan.objects.filter(game=game, by="player").count() == rounds
    assert PlayedPlan.objects.filter(game=game, by="ai").count() == rounds
    # The battle is an ordinary stored one: its page opens for its owner.
    assert client.get(battle.get_absolute_url()).status_code == 200


def test_a_plan_without_the_csrf_token_is_refused(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    response = client.post(
        reverse("play_plan", kwargs={"code": game.code}),
        json.dumps({"round": 1, "switch": None, "summon": False, "cards": []}),
        content_type="application/json",
    )
    assert response.status_code == 403
    assert not PlayedPlan.objects.filter(game=game).exists()


def test_a_plan_for_another_round_is_a_409_and_stores_nothing(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    url = reverse("play_plan", kwargs={"code": game.code})
    response = post_json(client, url, {"round": 2, "switch": None, "summon": False, "cards": []})
    assert response.status_code == 409
    assert "Round 1 is being planned" in response.json()["errors"][0]
    assert not PlayedPlan.objects.filter(game=game).exists()


# -- refusals: the engine's own checks, in words, and nothing stored -----------------------
def seed_where(alice_party, bob_party, wanted) -> int:
    """The first seed whose round-1 hand for side A satisfies `wanted` (a set of card ids)."""
    from battles.engine import played
    from battles.engine.policies import GREEDY
    from battles.engine.run import input_for
    from battles.snapshot import battle_snapshot

    data = input_for(battle_snapshot(alice_party, bob_party))
    for seed in range(500):
        hand = {c.id for c in played.play(data, (None, GREEDY), seed, {}).needed.views[0].side.hand}
        if wanted(hand):
            return seed
    raise AssertionError("no seed gives that hand")


def refused(client, game, body) -> dict:
    before = PlayedPlan.objects.filter(game=game).count()
    response = post_json(client, reverse("play_plan", kwargs={"code": game.code}), body)
    assert response.status_code == 400, response.content
    assert PlayedPlan.objects.filter(game=game).count() == before
    game.refresh_from_db()
    return response.json()


def plan(round_no=1, cards=(), switch=None, summon=False) -> dict:
    cards = [list(c) for c in cards]
    return {"round": round_no, "switch": switch, "summon": summon, "cards": cards}


def test_it_refuses_a_second_card_over_the_mp_with_the_surcharge(alice, alice_party, bob_party):
    seed = seed_where(alice_party, bob_party, lambda hand: {"A1.1", "A1.2"} <= hand)
    client = signed_in(alice)
    game = start(client, alice_party, bob_party, seed=str(seed))
    answer = refused(client, game, plan(cards=[("A1.2", 1, "B1"), ("A1.1", 1, "B1")]))
    message = (
        "Static Burst costs 3 MP this round: 2, plus 1 because Fizzlet already played a card"
        " without Quick; 2 MP left."
    )
    assert answer["errors"] == [message]
    assert answer["by_card"] == {"A1.1": [message]}
    # The same two cards the other way round cost 2 + 2 = 4 > 3: refused as well, in words.
    answer = refused(client, game, plan(cards=[("A1.1", 1, "B1"), ("A1.2", 1, "B1")]))
    assert answer["errors"] == [
        "Zap costs 2 MP this round: 1, plus 1 because Fizzlet already played a card without"
        " Quick; 1 MP left."
    ]


def test_it_refuses_a_card_not_in_hand_and_a_locked_one(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    # Glowmote (A4) starts in storage: its cards are not in the pile.
    answer = refused(client, game, plan(cards=[("A4.2", 1, "B1"), ("A1.5", 1, "B1")]))
    assert answer["errors"] == [
        "Zap is not in your hand.",
        "Thunderclap unlocks at Rank 3; Fizzlet is Rank 1.",
    ]
    answer = refused(client, game, plan(cards=[("B1.1", 1, "B1")]))
    assert answer["errors"] == ["There is no card B1.1 in your hand."]


def test_it_refuses_a_tier_without_the_resonance(alice, alice_party, bob_party):
    seed = seed_where(alice_party, bob_party, lambda hand: "A1.1" in hand)
    client = signed_in(alice)
    game = start(client, alice_party, bob_party, seed=str(seed))
    answer = refused(client, game, plan(cards=[("A1.1", 2, "B1")]))
    # R9.1: round 1 gives 1 Resonance per summoned Memeyori: 3.
    assert answer["errors"] == ["Static Burst at Tier 2 costs 4 Resonance; 3 Resonance left."]
    answer = refused(client, game, plan(cards=[("A1.1", 4, "B1")]))
    assert answer["errors"] == ["Static Burst has no Tier 4."]


def test_it_refuses_a_target_not_on_the_field(alice, alice_party, bob_party):
    seed = seed_where(alice_party, bob_party, lambda hand: "A1.1" in hand)
    client = signed_in(alice)
    game = start(client, alice_party, bob_party, seed=str(seed))
    answer = refused(client, game, plan(cards=[("A1.1", 1, "B4")]))
    assert answer["errors"] == [
        "Static Burst targets an enemy on the field; Night Crew Glowmote is not one."
    ]
    answer = refused(client, game, plan(cards=[("A1.1", 1, "A2")]))
    assert answer["errors"] == ["Static Burst targets an enemy on the field; Sparkit is not one."]


def test_it_refuses_a_summon_without_8_resonance(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    state = client.get(reverse("play_state", kwargs={"code": game.code})).json()
    assert state["can_summon"] is False and state["summon"]["cost"] == 8
    answer = refused(client, game, plan(summon=True))
    assert answer["errors"] == ["Summoning Storm Crew Vela costs 8 Resonance; you have 3."]


def test_it_refuses_a_switch_to_a_knocked_out_memeyori(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    state_url = reverse("play_state", kwargs={"code": game.code})
    plan_url = reverse("play_plan", kwargs={"code": game.code})
    state = client.get(state_url).json()
    # Side A plans nothing until greedy has knocked one of its Memeyori out.
    while not any(f["knocked_out"] for f in state["stored"]):
        assert state["status"] == "planning"
        state = post_json(client, plan_url, plan(state["round"])).json()
    down = next(f for f in state["stored"] if f["knocked_out"])
    standing = state["field"][0]
    answer = refused(client, game, plan(state["round"], switch=[standing["id"], down["id"]]))
    assert answer["errors"] == [f"{down['name']} is knocked out, so it cannot switch in."]
    assert [standing["id"], down["id"]] not in state["switches"]


def test_a_malformed_plan_is_refused_with_its_shape(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    answer = refused(client, game, {"round": 1, "switch": "A1", "cards": [["A1.1", "2", "B1"]]})
    assert answer["errors"] == [
        "switch is null or [the one going out, the one coming in].",
        "['A1.1', '2', 'B1'] is not [card id, tier 1-3, target id].",
    ]
    url = reverse("play_plan", kwargs={"code": game.code})
    response = client.post(url, "{not json", content_type="application/json",
                           HTTP_X_CSRFTOKEN=client.csrf)  # fmt: skip
    assert response.status_code == 400 and response.json()["errors"] == ["The body is not JSON."]


@pytest.mark.parametrize("name", ["play_plan", "play_stage_json"])
@pytest.mark.parametrize("field", ["switch", "summon", "cards"])
def test_a_lone_surrogate_is_refused_in_words_not_a_500(alice, alice_party, bob_party, name, field):
    """Issue 40.5: the refusal quoting it could not be written as UTF-8."""
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    body = '{"round": 1, "switch": null, "summon": false, "cards": []}'
    body = body.replace(f'"{field}": ', f'"{field}": "A1\\ud800", "x": ', 1)
    url = reverse(name, kwargs={"code": game.code})
    response = client.post(
        url, body.encode(), content_type="application/json", HTTP_X_CSRFTOKEN=client.csrf
    )
    assert response.status_code == 400
    assert "lone surrogate" in response.json()["errors"][0]
    assert not PlayedPlan.objects.filter(game=game).exists()


# -- friend games, hidden information, hot-seat ----------------------------------------------
@pytest.fixture
def bob_night(bob, types):
    return play_party(bob, types, "Night Crew", cards=NIGHT_CARDS)


def friend_game(alice, bob, alice_party, bob_night):
    a, b = signed_in(alice), signed_in(bob)
    response = a.post(reverse("play_new"), {"party": str(alice_party.code), "opponent": "friend"},
                      HTTP_X_CSRFTOKEN=a.csrf)  # fmt: skip
    assert response.status_code == 302
    game = Game.objects.get(created_by=alice)
    assert game.status == "waiting" and len(game.invite_token) >= 43  # 256 bits
    response = b.post(reverse("play_join", kwargs={"token": game.invite_token}),
                      {"party": str(bob_night.code)}, HTTP_X_CSRFTOKEN=b.csrf)  # fmt: skip
    assert response.status_code == 302 and response["Location"] == f"/play/{game.code}/"
    game.refresh_from_db()
    assert game.status == "planning" and game.user_b == bob and game.invite_token is None
    return with_seed(game, 3), a, b


def leaks(text: str, side_letter: str, names) -> list[str]:
    """Card ids (`A1.2`) of a side and card names of its party found in a text."""
    found = re.findall(rf"\b{side_letter}\d\.\d\b|\b{side_letter}X\.\d\b", text)
    return found + [n for n in names if n in text]


def test_each_side_of_a_friend_game_sees_its_own_hand_never_the_others(
    alice, bob, alice_party, bob_night
):
    game, a, b = friend_game(alice, bob, alice_party, bob_night)
    state_url = reverse("play_state", kwargs={"code": game.code})
    plan_url = reverse("play_plan", kwargs={"code": game.code})
    mine = a.get(state_url).json()
    assert mine["side"] == 0 and mine["hand"] and mine["enemy_hand_size"] == 4
    planned = simple_plan(mine)
    assert planned["cards"]
    after = post_json(a, plan_url, planned).json()
    assert after["status"] == "waiting" and after["plan"]["cards"] == planned["cards"]
    # Side B, while A has planned: not one of A's card ids or names, in hand or plan.
    theirs = b.get(state_url)
    assert theirs.json()["side"] == 1 and theirs.json()["status"] == "planning"
    alice_names = {c["name"] for c in mine["hand"]}
    assert leaks(theirs.content.decode(), "A", alice_names) == []
    # ... and the reverse, once B has planned.
    theirs_plan = simple_plan(theirs.json())
    b_answer = post_json(b, plan_url, theirs_plan).json()
    assert b_answer["round"] == 2  # both plans in: the round resolved
    bob_names = {c["name"] for c in theirs.json()["hand"]}
    mine_now = a.get(state_url).content.decode()
    assert leaks(mine_now, "B", bob_names) == []
    # A watcher state from the share link shows neither hand.
    token = services.share_game(game)
    shared = Client().get(reverse("play_shared_state", kwargs={"token": token}))
    assert shared.status_code == 200 and shared.json()["hand_sizes"][0] >= 1
    assert leaks(shared.content.decode(), "A", alice_names) == []
    assert leaks(shared.content.decode(), "B", bob_names) == []


def test_the_enemy_hand_size_is_shown_as_planning_began(alice, bob, alice_party, bob_night):
    game, a, b = friend_game(alice, bob, alice_party, bob_night)
    state_url = reverse("play_state", kwargs={"code": game.code})
    first = a.get(state_url).json()
    post_json(a, reverse("play_plan", kwargs={"code": game.code}), simple_plan(first))
    # A's plan does not change what B sees of A: the hand A held as planning began.
    assert b.get(state_url).json()["enemy_hand_size"] == len(first["hand"])


def test_a_used_or_revoked_invite_is_refused(alice, bob, types, alice_party, bob_night):
    game, a, b = friend_game(alice, bob, alice_party, bob_night)
    carol = make_user("carol")
    c = signed_in(carol)
    carol_party = play_party(carol, types, "Carol Crew")
    response = c.post(reverse("play_join", kwargs={"token": "x" * 43}),
                      {"party": str(carol_party.code)}, HTTP_X_CSRFTOKEN=c.csrf)  # fmt: skip
    # A dead invite is the site's dead-link page (a 404 saying so), as a table's is.
    assert response.status_code == 404
    game2 = services.start_game(user=alice, party=alice_party, opponent="friend")
    token = game2.invite_token
    services.revoke_invite(game2)
    response = c.post(reverse("play_join", kwargs={"token": token}),
                      {"party": str(carol_party.code)}, HTTP_X_CSRFTOKEN=c.csrf)  # fmt: skip
    assert response.status_code == 404
    assert b"This invite link no longer works" in response.content
    game2.refresh_from_db()
    assert game2.user_b is None and game2.status == "waiting"


def test_the_friend_cannot_join_with_someone_elses_party(alice, bob, alice_party, bob_night):
    game = services.start_game(user=alice, party=alice_party, opponent="friend")
    with pytest.raises(ValidationError, match="your own parties"):
        services.join_game(game.invite_token, bob, alice_party)
    game.refresh_from_db()
    assert game.status == "waiting"


def test_a_hot_seat_game_plans_both_sides_in_turn(alice, alice_party, bob_party):
    client = signed_in(alice)
    response = client.post(reverse("play_new"), {"party": str(alice_party.code),
                           "opponent": "hotseat", "party_b": str(bob_party.code), "seed": "5"},
                           HTTP_X_CSRFTOKEN=client.csrf)  # fmt: skip
    assert response.status_code == 302
    game = Game.objects.get(created_by=alice)
    state_url = reverse("play_state", kwargs={"code": game.code})
    plan_url = reverse("play_plan", kwargs={"code": game.code})
    a = client.get(state_url, {"side": 0}).json()
    b = client.get(state_url, {"side": 1}).json()
    assert (a["side"], b["side"]) == (0, 1)
    assert {c["id"][0] for c in a["hand"]} == {"A"} and {c["id"][0] for c in b["hand"]} == {"B"}
    answer = post_json(client, plan_url, {**simple_plan(a), "side": 0}).json()
    assert answer["status"] == "waiting" and answer["side"] == 0
    answer = post_json(client, plan_url, {**simple_plan(b), "side": 1}).json()
    assert answer["round"] == 2 and answer["status"] == "planning"
    assert services.my_games(alice)["your_turn"] == [game]


# -- access -----------------------------------------------------------------------------------
def test_who_may_read_a_games_state(alice, bob, types, alice_party, bob_night):
    game, a, b = friend_game(alice, bob, alice_party, bob_night)
    url = reverse("play_state", kwargs={"code": game.code})
    carol = make_user("carol")
    assert a.get(url).status_code == 200
    assert b.get(url).status_code == 200
    assert signed_in(carol).get(url).status_code == 404
    visitor = Client().get(url)
    assert visitor.status_code == 302 and "/login" in visitor["Location"]
    assert signed_in(carol).get(reverse("play_state", kwargs={"code": "nope"})).status_code == 404
    # A share link while it lives; after revocation a 404.
    token = services.share_game(game)
    shared = reverse("play_shared_state", kwargs={"token": token})
    assert Client().get(shared).status_code == 200
    services.unshare_game(game)
    assert Client().get(shared).status_code == 404
    # Nobody but a player posts a plan.
    response = post_json(signed_in(carol), reverse("play_plan", kwargs={"code": game.code}),
                         plan())  # fmt: skip
    assert response.status_code == 404
    assert not PlayedPlan.objects.filter(game=game).exists()


def test_table_members_watch_a_table_game_and_each_plans_their_own(alice, bob, types):
    from cards.tables.services import table_create

    table = table_create(gm=alice, name="Thursday")
    TableMembership.objects.create(table=table, user=bob)
    carol = make_user("carol")
    TableMembership.objects.create(table=table, user=carol)
    dave = make_user("dave")
    pa = play_party(alice, types)
    pb = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS)
    game = services.start_game(user=alice, party=pa, opponent="table", party_b=pb, table=table)
    url = reverse("play_state", kwargs={"code": game.code})
    assert signed_in(alice).get(url).json()["side"] == 0
    assert signed_in(bob).get(url).json()["side"] == 1
    watched = signed_in(carol).get(url)
    assert watched.status_code == 200 and watched.json()["side"] is None
    assert "hand" not in watched.json()
    assert signed_in(dave).get(url).status_code == 404
    with pytest.raises(ValidationError, match="GM"):
        services.start_game(user=bob, party=pb, opponent="table", party_b=pa, table=table)


def test_it_refuses_to_start_with_a_party_that_is_not_yours(alice, bob, alice_party, bob_night):
    client = signed_in(bob)
    response = client.post(reverse("play_new"), {"party": str(alice_party.code),
                           "opponent": "ai", "party_b": str(bob_night.code)},
                           HTTP_X_CSRFTOKEN=client.csrf)  # fmt: skip
    assert response.status_code == 400
    assert b"your own parties" in response.content
    # Side B of an AI game: a party Bob cannot see (Alice's is private).
    with pytest.raises(ValidationError, match="any party you can see"):
        services.start_game(user=bob, party=bob_night, opponent="ai", party_b=alice_party)
    assert not Game.objects.exists()


# -- time limit, forfeit, replay -------------------------------------------------------------
def test_when_the_time_runs_out_the_ai_plans_and_the_log_says_so(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party, time_limit="60")
    state_url = reverse("play_state", kwargs={"code": game.code})
    first = client.get(state_url).json()
    assert first["round"] == 1 and first["deadline"] is not None
    Game.objects.filter(pk=game.pk).update(round_started_at=timezone.now() - timedelta(seconds=61))
    # A read shows the round the timeout resolved, and writes nothing (GET never writes).
    now = client.get(state_url).json()
    assert now["round"] == 2 and now["status"] == "planning"
    assert not PlayedPlan.objects.filter(game=game).exists()
    game.refresh_from_db()
    assert game.round == 1
    # The next write records the AI's plan for round 1, by "timeout", then its own.
    response = post_json(client, reverse("play_plan", kwargs={"code": game.code}),
                         simple_plan(now))  # fmt: skip
    assert response.status_code == 200, response.content
    rows = list(PlayedPlan.objects.filter(game=game).values_list("round", "by"))
    assert rows == [(1, "timeout"), (1, "ai"), (2, "player"), (2, "ai")]
    services.forfeit(game, 0)
    battle = Battle.objects.get(game=game)
    record = battle.log["plans"][0]
    assert record["by"] == "timeout" and record["policy"] == "greedy"
    text = render_text(battle.log)
    assert "Storm Crew's time ran out, so the AI planned for Storm Crew" in text
    assert "Storm Crew forfeits." in text


def test_expiring_the_time_limit_writes_the_same_plans_a_read_showed(alice, alice_party, bob_party):
    game = services.start_game(user=alice, party=alice_party, opponent="ai",
                               party_b=bob_party, seed=4, time_limit=120)  # fmt: skip
    Game.objects.filter(pk=game.pk).update(
        round_started_at=timezone.now() - timedelta(seconds=2 * 120 + 5)
    )
    game.refresh_from_db()
    shown = services.game_state(game, 0)
    assert shown["round"] == 3  # two rounds ran out, one after the other
    assert services.expire_time_limit(game) is True
    assert services.expire_time_limit(game) is False
    game.refresh_from_db()
    assert game.round == 3
    assert services.game_state(game, 0) == {
        **shown,
        "deadline": services.game_state(game, 0)["deadline"],
    }
    assert list(PlayedPlan.objects.filter(game=game).values_list("by", flat=True)) == [
        "timeout",
        "ai",
        "timeout",
        "ai",
    ]


def test_a_recorded_timeout_replays_without_running_the_ai_and_gives_the_same_log(
    alice, alice_party, bob_party, monkeypatch
):
    game = services.start_game(user=alice, party=alice_party, opponent="ai",
                               party_b=bob_party, seed=4, time_limit=120)  # fmt: skip
    Game.objects.filter(pk=game.pk).update(
        round_started_at=timezone.now() - timedelta(seconds=2 * 120 + 5)
    )
    game.refresh_from_db()
    shown = services.game_state(game, 0)  # worked out lazily, by greedy
    assert services.expire_time_limit(game) is True
    stored = PlayedPlan.objects.filter(game=game, by="timeout").order_by("round")
    assert [p.plan["policy"] for p in stored] == ["greedy", "greedy"]
    assert all("cards" in p.plan and "switch" in p.plan for p in stored)
    # From here no read runs a policy: both sides' plans of rounds 1-2 are recorded.
    from battles.engine import played_record

    def no_thinking(*args):
        raise AssertionError(f"a read ran the AI: {args}")

    monkeypatch.setattr(played_record, "policy_version", no_thinking)
    game.refresh_from_db()
    again = services.game_state(game, 0)
    assert again == {**shown, "deadline": again["deadline"]}
    # The whole log, from the recorded plans, is the log the policy's own plans give.
    monkeypatch.undo()
    services.forfeit(game, 0)
    battle = Battle.objects.get(game=game)
    assert [r["by"] for r in battle.log["plans"][:4]] == ["timeout", "ai", "timeout", "ai"]
    out = io.StringIO()
    call_command("replay", str(battle.code), stdout=out)  # timeouts planned again by greedy
    assert "Identical" in out.getvalue()


def test_a_forfeit_ends_the_game_and_the_other_side_wins(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party)
    services.forfeit(game, 0)
    game.refresh_from_db()
    assert game.status == "finished" and game.winner == 1 and game.forfeit_side == 0
    battle = game.battle
    assert battle.winner == 1 and battle.log["forfeit"] == {"round": 1, "side": 0}
    state = client.get(reverse("play_state", kwargs={"code": game.code})).json()
    assert state["status"] == "finished" and state["winner"] == 1
    assert state["forfeit"] == {"round": 1, "side": 0}
    with pytest.raises(ValidationError):
        services.forfeit(game, 0)
    response = post_json(client, reverse("play_plan", kwargs={"code": game.code}), plan())
    assert response.status_code == 409


def test_manage_py_replay_finds_a_played_game_byte_identical(alice, alice_party, bob_party):
    client = signed_in(alice)
    game = start(client, alice_party, bob_party, seed="12")
    state_url = reverse("play_state", kwargs={"code": game.code})
    plan_url = reverse("play_plan", kwargs={"code": game.code})
    state = client.get(state_url).json()
    while state["status"] != "finished":
        state = post_json(client, plan_url, simple_plan(state)).json()
    battle = Battle.objects.get(game=game)
    out = io.StringIO()
    call_command("replay", str(battle.code), stdout=out)
    assert "A played game" in out.getvalue() and "Identical" in out.getvalue()
    # Byte for byte, from the plan records alone.
    from battles.engine import played
    from battles.engine.policies import policy_version
    from battles.engine.run import input_for, log_json

    assert log_json(played.replay(input_for(battle.snapshot), battle.log)) == log_json(
        played.play(input_for(game.snapshot), (None, policy_version("greedy", 2)),
                    game.seed, {(p.round, p.side): p.plan for p in game.plans.all()},
                    own_draws=game.own_draws).log
    )  # fmt: skip
    # A changed plan record no longer replays to the stored log.
    log = battle.log
    log["plans"][0]["cards"] = []
    Battle.objects.filter(pk=battle.pk).update(log=log)
    with pytest.raises(CommandError, match="does not replay"):
        call_command("replay", str(battle.code), stdout=io.StringIO())


def test_a_preview_gives_the_running_totals_and_stores_nothing(alice, alice_party, bob_party):
    seed = seed_where(alice_party, bob_party, lambda hand: {"A1.1", "A1.2"} <= hand)
    game = services.start_game(user=alice, party=alice_party, opponent="ai",
                               party_b=bob_party, seed=seed)  # fmt: skip
    one = services.preview_plan(game, 0, {"cards": [["A1.2", 1, "B1"]]})
    assert one == {"mp_left": 2, "resonance_left": 3, "errors": [], "by_card": {}}
    two = services.preview_plan(game, 0, {"cards": [["A1.2", 1, "B1"], ["A1.1", 1, "B1"]]})
    assert two["mp_left"] == 2 and list(two["by_card"]) == ["A1.1"]
    assert not PlayedPlan.objects.filter(game=game).exists()


def test_the_rounds_so_far_show_the_other_sides_draws_only_as_counts(
    alice, bob, alice_party, bob_night
):
    from battles.engine.state import round_frames

    game, a, b = friend_game(alice, bob, alice_party, bob_night)
    for side in (0, 1):
        state = services.game_state(game, side)
        services.submit_plan(game, side, 1, simple_plan(state))
    game.refresh_from_db()
    for side in (0, 1):
        log = services.visible_log(game, side)
        assert log["seed"] is None and log["result"]["rounds"] == 1
        draws = [e for e in log["events"] if e["kind"] == "draw"]
        theirs = [e for e in draws if e["side"] != side]
        assert theirs and all(e["cards"] == [] and e["count"] >= 1 for e in theirs)
        mine = [e for e in draws if e["side"] == side]
        assert all(e["cards"] for e in mine[:1])
        # The plays of the round already resolved are there; nothing of round 2's plans.
        assert {e["round"] for e in log["events"]} <= {0, 1, 2}
        assert not [e for e in log["events"] if e["kind"] == "plan" and e["round"] == 2]
        assert len(round_frames(log)) == 3  # setup, round 1, round 2 begun
    watcher = services.visible_log(game, None)
    assert all(e["cards"] == [] for e in watcher["events"] if e["kind"] == "draw")
