"""No policy can read what the other side planned this round, holds, or will draw.

The audit that found lookahead 2's leak (issue 31) changed side A's plan and kept
everything else, then asked whether side B's plan changed. Here, for every current policy,
at many rounds of many battles: side B's plan is the same whatever side A plans (no plan,
a Switch, its cards, random choices that draw from the battle's generator), and either
side's plan is the same when the other side's hand, the order of its draw pile or the
battle's future dice are changed.

One thing a side's plan may rightly follow: the card its own Switch or summon draws this
round, which it may play at once (PROTOCOL ruling 8). That draw comes from the battle's
shuffled pile, so the dice before it move it. Each probe therefore compares plans made
after the same own draws: a plan is keyed by what its side drew while planning.
"""

import random

import pytest

from battles.engine import end, plan, resolve, start
from battles.engine.battle import Engine
from battles.engine.field import Policy
from battles.engine.model import MAX_ROUNDS
from battles.engine.policies import POLICIES, RANDOM_1, policy_version
from battles.engine.run import input_for
from battles.snapshot import demo_snapshot
from tests.golden import random_snapshots

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

# Side A's other plans: none at all, the first Switch it may make with greedy's cards, and
# random choices drawn from the battle's own generator.
IDLE = Policy("idle", lambda v, r: None, lambda v, r: False, lambda v, r: [])
GREEDY = POLICIES["greedy"]


def _first_switch(view, rng):
    options = view.switch_options()
    return options[0] if options else None


SWITCHER = Policy("switcher", _first_switch, lambda v, r: True, GREEDY.plays)
OTHERS_A = (IDLE, SWITCHER, RANDOM_1, GREEDY)

CURRENT = [
    pytest.param(policy_version(name, version), id=f"{name}{version}")
    for name, version in (("greedy", 1), ("greedy", 2), ("random", 2), ("lookahead", 3))
]


def _engine_at(data, policies, seed: int, round_no: int) -> Engine | None:
    """The battle as round `round_no`'s planning is about to begin, or None if it ended."""
    engine = Engine(data, policies, random.Random(seed))
    start.setup(engine)
    for engine.round in range(1, round_no + 1):
        start.round_start(engine)
        if end.winner(engine) is not False:
            return None
        if engine.round == round_no:
            return engine
        resolve.resolve_round(engine, plan.plan_round(engine))
        if end.winner(engine) is not False:
            return None
        end.round_end(engine)
    return None


def _planned(engine: Engine, side: int) -> tuple[tuple, tuple]:
    """(the cards `side` drew while planning, by its own Switch or summon; its plan)."""
    first = len(engine.events)
    plans = plan.plan_round(engine)
    drawn = tuple(
        card
        for e in engine.events[first:]
        if e["kind"] == "draw" and e["side"] == side
        for card in e["cards"]
    )
    return drawn, tuple((p.card.id, p.tier, p.target) for p in plans[side])


def _probes(count: int):
    """(input, seed, round) to probe: demo and random parties, early and late rounds."""
    snaps = [
        demo_snapshot("Night Shift", "Cold Front"),
        demo_snapshot("Sunrise Squad", "Wild Bunch"),
        *random_snapshots()[:4],
    ]
    rng = random.Random(31)
    for index in range(count):
        snap = snaps[index % len(snaps)]
        yield input_for(snap), rng.randrange(10**6), rng.randrange(1, min(MAX_ROUNDS, 9))


def _check_side_b_ignores_side_a(policy, count: int) -> int:
    probed = 0
    for data, seed, round_no in _probes(count):
        plans: dict[tuple, set] = {}
        for side_a in OTHERS_A:
            engine = _engine_at(data, (GREEDY, policy), seed, round_no)
            if engine is None:
                break
            engine.policies = (side_a, policy)
            drawn, planned = _planned(engine, 1)
            plans.setdefault(drawn, set()).add(planned)
        else:
            assert all(len(made) == 1 for made in plans.values()), (seed, round_no, plans)
            probed += 1
    return probed


def _check_blind_to_hidden(policy, side: int, count: int) -> int:
    """`side`'s plan with the other side's hand, draw order and the future dice changed."""
    probed = 0
    for data, seed, round_no in _probes(count):
        policies = (policy, GREEDY) if side == 0 else (GREEDY, policy)
        engine = _engine_at(data, policies, seed, round_no)
        other = _engine_at(data, policies, seed, round_no)
        if engine is None:
            continue
        them = other.sides[1 - side]
        if them.pile and them.hand:
            swap = min(len(them.hand), len(them.pile))
            them.hand[:swap], them.pile[-swap:] = them.pile[-swap:], them.hand[:swap]
        them.pile.reverse()
        other.rng = random.Random(seed + 1)
        drawn, planned = _planned(engine, side)
        drawn_other, planned_other = _planned(other, side)
        if drawn != drawn_other:  # its own Switch drew another card: not the same question
            continue
        assert planned == planned_other, (seed, round_no)
        probed += 1
    return probed


@pytest.mark.parametrize("policy", CURRENT)
def test_side_bs_plan_never_depends_on_what_side_a_plans(policy):
    count = 12 if policy.name == "lookahead" else 150
    assert _check_side_b_ignores_side_a(policy, count) >= count // 2


@pytest.mark.parametrize("side", [0, 1], ids=["side A", "side B"])
@pytest.mark.parametrize("policy", CURRENT)
def test_a_plan_never_depends_on_the_other_sides_hand_draw_order_or_future_dice(policy, side):
    count = 12 if policy.name == "lookahead" else 150
    assert _check_blind_to_hidden(policy, side, count) >= count // 2


@pytest.mark.slow
@pytest.mark.parametrize("policy", CURRENT)
def test_thousands_of_probes_find_no_leak(policy):
    # Lookahead plans in tens of milliseconds, each probe four plans: 120 probes take it
    # about as long as the others' 2,000.
    count = 120 if policy.name == "lookahead" else 2000
    assert _check_side_b_ignores_side_a(policy, count) >= count // 2
    for side in (0, 1):
        assert _check_blind_to_hidden(policy, side, count // 2) >= count // 4
