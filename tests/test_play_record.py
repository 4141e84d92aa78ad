"""A played game is its record: the AI's plans are recorded when it makes them, so a read
replays with the engine alone and never thinks; a friend's or table game's seed is the
server's, committed to from the first round and shown when the game ends."""

import hashlib

import pytest
from django.core.exceptions import ValidationError

from battles.engine import policies
from battles.engine.field import Policy
from battles.engine.played import replay as replay_log
from battles.engine.run import canonical, input_for
from battles.models import Battle
from battles.play import services
from battles.play.models import Game, PlayedPlan
from tests.play_parties import NIGHT_CARDS, play_party
from tests.playing import think


@pytest.fixture
def parties(alice, bob, types):
    night = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS, visibility="public")
    return play_party(alice, types), night


def _first_plan(state) -> dict:
    """The first card in hand that MP allows, on the first target it lists."""
    for card in state["hand"]:
        if card["mp_cost"] <= state["mp"] and card["targets"]:
            return {"switch": None, "summon": False,
                    "cards": [[card["id"], 1, card["targets"][0]["id"]]]}  # fmt: skip
    return {"switch": None, "summon": False, "cards": []}


def _thinking_forbidden(monkeypatch):
    """Replace the current lookahead with a policy that fails if it is ever asked to plan."""

    def refuse(*args):
        raise AssertionError("the AI was asked to plan again")

    version = policies.LOOKAHEAD.version
    blocked = Policy("lookahead", refuse, refuse, refuse, version=version, dice="own")
    monkeypatch.setitem(policies.VERSIONS, ("lookahead", version), blocked)


def test_reads_of_a_game_against_lookahead_never_run_the_ai(alice, parties, monkeypatch):
    pa, pb = parties
    game = services.start_game(
        user=alice, party=pa, opponent="ai", party_b=pb, policy_b="lookahead", seed=12
    )
    for _ in range(3):
        think(game)
        state = services.game_state(game, 0)
        if state["status"] != "planning":
            break
        services.submit_plan(game, 0, state["round"], _first_plan(state))
    think(game)
    assert PlayedPlan.objects.filter(game=game, by="ai").count() >= 2
    before = services.game_state(game, 0)
    watched = services.watch_state(game)
    _thinking_forbidden(monkeypatch)
    # Every read now replays the recorded plans: the blocked policy is never asked.
    assert services.game_state(game, 0) == before
    assert services.watch_state(game) == watched
    log, rounds = services.game_log(game)
    assert rounds >= 2 and log["events"]


def test_a_finished_game_against_lookahead_replays_from_its_record_alone(alice, parties):
    pa, pb = parties
    game = services.start_game(
        user=alice, party=pa, opponent="ai", party_b=pb, policy_b="lookahead", seed=3
    )
    for _ in range(4):
        state = services.game_state(game, 0)
        services.submit_plan(game, 0, state["round"], _first_plan(state))
        think(game)
    services.forfeit(game, 0)
    battle = Battle.objects.get(game=game)
    # manage.py replay's path: the log's plan records, the AI run again, byte for byte.
    again = replay_log(input_for(game.snapshot), battle.log)
    assert canonical(again) == canonical(battle.log)


def test_a_friend_game_keeps_its_seed_secret_until_the_end(alice, bob, parties):
    pa, pb = parties
    with pytest.raises(ValidationError, match="seed drawn by the server"):
        services.start_game(user=alice, party=pa, opponent="friend", seed=7)
    assert not Game.objects.exists()
    game = services.start_game(user=alice, party=pa, opponent="friend")
    services.join_game(game.invite_token, bob, pb)
    game.refresh_from_db()
    assert not game.seed_chosen
    for side in (0, 1):
        state = services.game_state(game, side)
        assert state["seed"] is None and state["seed_salt"] is None
        assert state["seed_chosen"] is False and len(state["seed_commitment"]) == 64
        assert str(game.seed) not in str(state) and game.seed_salt not in str(state)
    watched = services.watch_state(game)
    assert watched["seed"] is None and watched["seed_commitment"] == state["seed_commitment"]
    services.forfeit(game, 1)
    game.refresh_from_db()
    shown = services.game_state(game, 0)
    assert shown["seed"] == game.seed and shown["seed_salt"] == game.seed_salt
    # Anyone can check the commitment shown from the first round against what is shown now.
    text = f"memeyori-seed:{shown['seed']}:{shown['seed_salt']}"
    assert hashlib.sha256(text.encode()).hexdigest() == state["seed_commitment"]


def test_a_table_game_refuses_a_chosen_seed(types):
    from tests.playing import table_game

    users, table, game = table_game(types)
    assert not game.seed_chosen and services.game_state(game, 0)["seed"] is None
    with pytest.raises(ValidationError, match="seed drawn by the server"):
        services.start_game(
            user=users["gwen"], party=game.party_a, opponent="table", party_b=game.party_b,
            table=table, seed=3,
        )  # fmt: skip


def test_an_ai_game_says_its_seed_was_chosen(alice, parties):
    pa, pb = parties
    game = services.start_game(user=alice, party=pa, opponent="ai", party_b=pb, seed=99)
    state = services.game_state(game, 0)
    assert state["seed_chosen"] is True and state["seed"] == 99


def test_the_game_page_shows_the_commitment_then_the_seed_to_each_player(alice, bob, parties):
    from django.test import Client

    pa, pb = parties
    game = services.start_game(user=alice, party=pa, opponent="friend")
    services.join_game(game.invite_token, bob, pb)
    game.refresh_from_db()
    pages = {}
    for user in (alice, bob):
        client = Client()
        client.force_login(user)
        pages[user.username] = client
        page = client.get(game.get_absolute_url()).content.decode()
        assert game.seed_commitment in page and "The deal is sealed" in page
        assert game.seed_salt not in page
    services.forfeit(game, 0)
    game.refresh_from_db()
    page = pages["bob"].get(game.get_absolute_url()).content.decode()
    assert f'Seed <code class="hash">{game.seed}</code>' in page and game.seed_salt in page
    assert game.seed_commitment in page
