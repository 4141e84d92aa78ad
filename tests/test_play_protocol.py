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
