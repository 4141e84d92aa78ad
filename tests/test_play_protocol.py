"""The JSON protocol `memeyori-play/1` (battles/play/PROTOCOL.md) and the services behind it."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from battles.models import Battle
from battles.play.models import Game, PlayedPlan
from tests.play_parties import play_party


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
    assert PlayedPlan.objects.filter(game=game).count() == rounds
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
