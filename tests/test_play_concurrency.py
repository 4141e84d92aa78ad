"""Played games under concurrency and across a restart: each round resolves exactly once
(the game's row lock and the database's one plan per game, round and side), and a game
is rebuilt from the database alone. Run on PostgreSQL too (DATABASE_URL=postgres://...).
"""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.db import IntegrityError, connection, transaction

from battles.play import services
from battles.play.models import Game, PlayedPlan
from tests.play_parties import NIGHT_CARDS, play_party
from tests.playing import with_seed

ROOT = Path(__file__).resolve().parent.parent


def at_once(*works) -> list:
    """Run each function in its own thread, all released together; their results in order
    (an exception is a result too)."""
    results: list = [None] * len(works)
    start = threading.Barrier(len(works))

    def worker(i, work):
        try:
            start.wait()
            results[i] = work()
        except BaseException as exc:  # noqa: BLE001 - every outcome is reported
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, w)) for i, w in enumerate(works)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def first_plan(state) -> dict:
    cards = []
    for card in state["hand"]:
        if card["category"] != "support" and card["quick"] and card["mp_cost"] <= state["mp"]:
            cards.append([card["id"], 1, card["targets"][0]["id"]])
            break
    return {"switch": None, "summon": False, "cards": cards}


@pytest.fixture
def parties(alice, bob, types):
    night = play_party(bob, types, "Night Crew", cards=NIGHT_CARDS, visibility="public")
    return play_party(alice, types), night


@pytest.mark.django_db(transaction=True)
def test_two_submissions_of_one_side_and_round_record_one_plan(alice, parties):
    """A double click or two tabs: one plan recorded, the round resolved once, the other
    answer a WrongRound (409)."""
    pa, pb = parties
    game = services.start_game(user=alice, party=pa, opponent="ai", party_b=pb, seed=8)
    plan = first_plan(services.game_state(game, 0))

    def submit():
        return services.submit_plan(Game.objects.get(pk=game.pk), 0, 1, plan)

    results = at_once(submit, submit)
    wins = [r for r in results if isinstance(r, dict)]
    refusals = [r for r in results if isinstance(r, services.WrongRound)]
    assert len(wins) == 1 and len(refusals) == 1, results
    assert PlayedPlan.objects.filter(game=game, round=1, by="player").count() == 1
    game.refresh_from_db()
    assert game.round == 2


@pytest.mark.django_db(transaction=True)
def test_both_sides_at_the_same_instant_resolve_the_round_once(alice, bob, parties):
    pa, pb = parties
    game = with_seed(services.start_game(user=alice, party=pa, opponent="friend"), 9)
    services.join_game(game.invite_token, bob, pb)
    plans = [first_plan(services.game_state(game, side)) for side in (0, 1)]

    def submit(side):
        return lambda: services.submit_plan(Game.objects.get(pk=game.pk), side, 1, plans[side])

    results = at_once(submit(0), submit(1))
    assert all(isinstance(r, dict) for r in results), results
    # One of them was second: its answer is already round 2, the round resolved once.
    assert sorted(r["round"] for r in results) == [1, 2]
    assert PlayedPlan.objects.filter(game=game).count() == 2
    game.refresh_from_db()
    assert game.round == 2 and game.status == "planning"


@pytest.mark.django_db(transaction=True)
def test_the_database_holds_one_plan_per_game_round_and_side(alice, parties):
    pa, pb = parties
    game = services.start_game(user=alice, party=pa, opponent="hotseat", party_b=pb, seed=1)
    PlayedPlan.objects.create(game=game, round=1, side=0, plan={"cards": []})
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayedPlan.objects.create(game=game, round=1, side=0, plan={"cards": []})


def database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST']}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_a_game_carries_on_after_a_restart_from_the_database_alone(alice, parties):
    """A fresh process (the server restarted) reads the game from the database and sees
    exactly what this one sees; a plan it records resolves the round the same way."""
    pa, pb = parties
    game = services.start_game(user=alice, party=pa, opponent="ai", party_b=pb, seed=21)
    for round_no in (1, 2):
        services.submit_plan(game, 0, round_no, first_plan(services.game_state(game, 0)))
    here = services.game_state(game, 0)
    script = (
        "import json; from battles.play import services; from battles.play.models import Game;"
        f"g = Game.objects.get(code={game.code!r}); s = services.game_state(g, 0);"
        "p = {'switch': None, 'summon': False, 'cards': []};"
        "n = services.submit_plan(g, 0, s['round'], p);"
        "print(json.dumps([s, n]))"
    )
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "memeyori_site.settings",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    there, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert there == here
    game.refresh_from_db()
    assert game.round == 4 and after["round"] == 4
    assert services.game_state(game, 0) == after
