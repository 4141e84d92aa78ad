"""greedy version 2's rules (battles/engine/greedy.py), each on a hand-set field."""

import random

import pytest

from battles.engine import greedy
from battles.engine.battle import Engine
from battles.engine.field import EnemyView, View
from battles.engine.model import battle_input
from battles.engine.policies import GREEDY, GREEDY_1, POLICIES, policy_version
from battles.snapshot import snapshot
from tests.test_battle_engine import card, fighter, party

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

CHART = {("Blaze", "Verdant"): "weak", ("Tide", "Blaze"): "weak"}


def _engine(a, b, chart=CHART):
    engine = Engine(battle_input(snapshot([a, b], chart)), (GREEDY, GREEDY), random.Random(1))
    engine.setup()
    engine.round = 1
    return engine


def _view(engine, side=0, round_no=1):
    enemies = tuple(EnemyView(f.id, f.spec, f.hp) for f in engine.sides[1 - side].field())
    return View(engine, engine.sides[side], enemies, round_no)


def test_the_registry_keeps_greedy_1_and_plays_greedy_2():
    assert POLICIES["greedy"] is GREEDY and GREEDY.version == 2
    assert policy_version("greedy", 1) is GREEDY_1 and GREEDY_1.name == "greedy"
    assert policy_version("greedy") is GREEDY


def _switch_field(cards_of_leaf):
    leaf = fighter("Leaf", type="Verdant", cards=cards_of_leaf)
    a = party("A", leaf, fighter("Drop", type="Tide"), level=2, dp_sp=0)
    a["memeyori"] = a["memeyori"][:2]
    engine = _engine(a, party("B", fighter("Ember", type="Blaze")))
    side = engine.sides[0]
    side.slots = [engine.by_id["A1"], None, None]
    engine.by_id["A2"].status = "stored"
    return engine, side


def test_greedy_switches_out_a_bad_matchup_that_holds_no_more_than_one_card():
    engine, side = _switch_field([card("Vine")])
    side.hand = [c for c in side.hand if c.id.startswith("A1.")][:1]
    # Leaf (Verdant) is weak to the Blaze enemy, Drop (Tide) is strong: gain 2, one card lost.
    assert greedy.switch(_view(engine), engine.rng) == ("A1", "A2")


def test_greedy_keeps_a_bad_matchup_whose_hand_is_worth_more_than_the_switch():
    engine, side = _switch_field([card("Vine"), card("Thorn"), card("Root")])
    side.hand = [c for c in engine.by_id["A1"].spec.cards]
    # Gain 2 (matchup 1 -> -1), but 3 cards thrown away for 1 drawn: 2 - 2 < 1.
    assert greedy.switch(_view(engine), engine.rng) is None


def test_greedy_never_brings_in_a_memeyori_under_half_hp_for_a_healthier_one():
    engine, side = _switch_field([card("Vine")])
    side.hand = []
    engine.by_id["A2"].hp = engine.by_id["A2"].spec.max_hp // 3
    assert greedy.switch(_view(engine), engine.rng) is None
    engine.by_id["A1"].hp = 1  # a rescue: the one going out is lower still
    assert greedy.switch(_view(engine), engine.rng) == ("A1", "A2")


def test_greedy_never_switches_out_last_rounds_newcomer():
    engine, side = _switch_field([card("Vine")])
    side.hand = []
    side.last_switch = (1, "A2", "A1")  # Leaf came in last round
    assert greedy.switch(_view(engine, round_no=2), engine.rng) is None
    assert greedy.switch(_view(engine, round_no=3), engine.rng) == ("A1", "A2")


def test_greedy_summons_only_with_four_rounds_of_upkeep_covered():
    a = party("A", fighter("Ann"), archon=fighter("Arc", kind="archon"))
    engine = _engine(a, party("B", fighter("Bo")), {})
    side = engine.sides[0]
    view = View(engine, side, (), 1)
    side.resonance = 11  # the summon would cover three upkeeps only
    assert not greedy.summon(view, engine.rng)
    side.resonance = 12
    assert greedy.summon(view, engine.rng)


def test_leftover_mp_heals_an_ally_hurt_only_a_little():
    mender = fighter("Mender", cards=[card("Mend", category="support", power=3, mp_cost=1)])
    a = party("A", mender, fighter("Tank", cards=[card("Jab", mp_cost=3)]))
    engine = _engine(a, party("B", fighter("Bo")), {})
    side = engine.sides[0]
    side.hand = [*engine.by_id["A1"].spec.cards, *engine.by_id["A2"].spec.cards]
    side.mp = 4
    tank = engine.by_id["A2"]
    tank.hp = tank.spec.max_hp - 2  # hurt, far from half
    chosen = greedy.plays(_view(engine), engine.rng)
    assert ("A2.1", 1, "B1") in chosen and ("A1.1", 1, "A2") in chosen


def test_greedy_spends_resonance_on_a_tier_only_when_it_would_be_lost():
    big = card("Slam", power=4, mp_cost=1, tier2_power=14)
    a = party("A", fighter("Ann", cards=[big]), fighter("Bea"), fighter("Cy"), level=3, dp_sp=2)
    engine = _engine(a, party("B", fighter("Bo", endurance=12)), {})
    side = engine.sides[0]
    side.hand = [engine.by_id["A1"].spec.cards[0]]
    side.mp = 3
    side.resonance = 10  # three summoned Memeyori gain 3 next round: 13 is room enough
    assert greedy.plays(_view(engine), engine.rng) == [("A1.1", 1, "B1")]
    side.resonance = 16  # every unit above 13 would be lost at the next round start
    assert greedy.plays(_view(engine), engine.rng) == [("A1.1", 2, "B1")]
