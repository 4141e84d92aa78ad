"""The beginner level: legal play with a new player's habits, each one a player can punish."""

import random

import pytest

from battles.engine.battle import run_battle, run_summary
from battles.engine.model import battle_input
from battles.engine.policies import BEGINNER, GREEDY, LEVELS, POLICIES, RANDOM, policy_version
from battles.engine.run import log_json, simulate
from battles.forms import POLICY_CHOICES
from battles.snapshot import demo_snapshot, snapshot
from tests.test_battle_groups import random_party
from tests.test_battle_invariants import CHART

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

DEMO = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]


def _inputs(count: int):
    rng = random.Random(31)
    out = [battle_input(demo_snapshot(p, p)) for p in DEMO]
    while len(out) < count:
        party = random_party(rng)
        out.append(battle_input(snapshot([party, party], CHART)))
    return out


def test_beginner_is_a_registered_level_named_for_a_person():
    assert POLICIES["beginner"] is BEGINNER and policy_version("beginner", 1) is BEGINNER
    assert BEGINNER.dice == "own"
    assert LEVELS["beginner"][0] == "Beginner" and LEVELS["lookahead"][0] == "Thinker"
    labels = dict(POLICY_CHOICES)
    assert labels["beginner"].startswith("Beginner") and "never switches" in labels["beginner"]
    assert set(labels) == set(POLICIES)


def test_beginner_never_switches_never_plays_a_tier_and_replays_to_the_byte():
    snap = demo_snapshot("Cold Front", "Wild Bunch")
    for seed in range(6):
        log = simulate(snap, seed=seed, policies=("beginner", "greedy"))
        assert log["policy_versions"] == [1, 2]
        mine = [e for e in log["events"] if e.get("side") == 0]
        assert not [e for e in mine if e["kind"] == "switch"]
        assert not [e for e in mine if e["kind"] == "play" and e.get("tier", 1) != 1]
        again = simulate(snap, seed=seed, policies=("beginner", "greedy"))
        assert log_json(log) == log_json(again)


def test_beginner_plays_legally_against_every_level_and_loses_to_greedy_most_of_the_time():
    # plan.commit refuses any card not in hand, over MP, at a Tier it cannot pay or on a
    # target it cannot reach: a battle that ends is a battle of legal plans.
    won = lost = 0
    for n, data in enumerate(_inputs(40)):
        seat = n % 2
        for other in (GREEDY, RANDOM):
            policies = (BEGINNER, other) if seat == 0 else (other, BEGINNER)
            winner = run_summary(data, policies, random.Random(n))["winner"]
            if other is GREEDY and winner is not None:
                won, lost = won + (winner == seat), lost + (winner != seat)
        run_battle(data, (BEGINNER, BEGINNER), random.Random(n))
    # Measured over 400 battles of identical parties: beginner wins 41 of 303 decided.
    assert lost > 3 * won, (won, lost)
