"""The lookahead policy: deterministic for a seed, and blind to what a player cannot see
(the enemy's hand, draw pile and plan, its own draw pile's order, the battle's dice)."""

import random

from battles.engine import lookahead, plan, start
from battles.engine.battle import Engine
from battles.engine.model import battle_input
from battles.engine.policies import GREEDY, LOOKAHEAD, POLICIES
from battles.engine.run import log_json, simulate
from battles.snapshot import demo_snapshot


def _round_one(a="Sunrise Squad", b="Night Shift", seed=11, policies=(LOOKAHEAD, GREEDY)):
    engine = Engine(battle_input(demo_snapshot(a, b)), policies, random.Random(seed))
    engine.setup()
    engine.round = 1
    start.round_start(engine)
    return engine


def _decide(engine, side_index=0):
    """Lookahead's Switch and cards for a side, as plan_round would ask for them."""
    from battles.engine.field import EnemyView, View

    engine.shown = [(s.resonance, len(s.hand)) for s in engine.sides]
    enemy = engine.sides[1 - side_index]
    enemies = tuple(EnemyView(f.id, f.spec, f.hp) for f in enemy.field())
    view = View(engine, engine.sides[side_index], enemies, engine.round)
    return lookahead.switch(view, engine.rng), lookahead.plays(view, engine.rng)


def test_lookahead_is_registered_and_replays_to_the_byte():
    assert POLICIES["lookahead"] is LOOKAHEAD and LOOKAHEAD.version == 1
    snap = demo_snapshot("Cold Front", "Wild Bunch")
    first = simulate(snap, seed=5, policies=("lookahead", "greedy"))
    assert first["policies"] == ["lookahead", "greedy"] and first["policy_versions"] == [1, 2]
    assert log_json(first) == log_json(simulate(snap, seed=5, policies=("lookahead", "greedy")))


def test_it_draws_one_number_from_the_battle_generator_per_plan():
    engine = _round_one()
    before = random.Random()
    before.setstate(engine.rng.getstate())
    _decide(engine)
    before.random()
    assert engine.rng.getstate() == before.getstate()


def test_its_plan_does_not_depend_on_the_enemys_real_hand_or_draw_pile():
    engine = _round_one()
    other = _round_one()
    enemy = other.sides[1]
    # The same number of cards, from the same combatants, but other ones: swap the hand
    # with the top of the draw pile (and reverse the pile).
    swap = len(enemy.hand)
    enemy.hand, enemy.pile = enemy.pile[-swap:], enemy.pile[:-swap][::-1] + enemy.hand
    assert sorted(c.id for c in enemy.hand) != sorted(c.id for c in engine.sides[1].hand)
    assert _decide(engine) == _decide(other)


def test_its_plan_does_not_depend_on_the_order_of_its_own_draw_pile():
    engine = _round_one()
    other = _round_one()
    other.sides[0].pile.reverse()
    assert _decide(engine) == _decide(other)


def test_side_b_plans_the_same_whatever_side_a_planned():
    from battles.engine.field import Policy

    # Side A's plans differ in everything that draws no die: its cards and their targets.
    idle = Policy("idle", lambda v, r: None, lambda v, r: False, lambda v, r: [])
    busy = Policy("busy", lambda v, r: None, lambda v, r: False, GREEDY.plays)
    plans = []
    for side_a in (idle, busy):
        engine = _round_one(policies=(side_a, LOOKAHEAD), seed=12)
        planned_a, planned_b = plan.plan_round(engine)
        plans.append([(p.card.id, p.tier, p.target) for p in planned_b])
        assert bool(planned_a) == (side_a is busy)
    assert plans[0] == plans[1]
