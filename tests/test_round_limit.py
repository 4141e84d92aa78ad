"""R9.6, the round limit decides: each step of the decision, the rule a battle is played
under (BattleInput.limit, from its snapshot), its log, and replays of battles recorded
before R9.6 (still draws at the limit)."""

import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from battles.engine import end, played, review
from battles.engine.battle import Engine, run_battle
from battles.engine.field import DISMISSED, FIELD, KO, STORED
from battles.engine.fork import fork_record, play_fork
from battles.engine.model import LIMIT_DECIDE, LIMIT_DRAW, MAX_ROUNDS, battle_input
from battles.engine.played_record import empty_plan
from battles.engine.policies import GREEDY
from battles.engine.run import simulate
from battles.snapshot import demo_snapshot, snapshot
from tests.test_battle_engine import fighter, party

pytestmark = pytest.mark.engine


def engine_of(a, b, limit=LIMIT_DECIDE):
    data = battle_input(snapshot([a, b], {}, limit=limit))
    engine = Engine(data, (GREEDY, GREEDY), random.Random(0))
    engine.setup()
    engine.round = MAX_ROUNDS
    return engine


def trio(name, archon=False):
    return party(
        name,
        *(fighter(f"{name} {n}", cards=[]) for n in range(1, 5)),
        archon=fighter(f"{name} Archon", kind="archon", cards=[]) if archon else None,
        dp_sp=1,
        level=2,
    )


def test_the_side_with_more_conscious_combatants_wins_counting_stored_memeyori():
    engine = engine_of(trio("Ants"), trio("Bees"))
    ants, bees = engine.sides
    # Ants: one on the field knocked out, the stored fourth still conscious (3 in all);
    # Bees: two knocked out (2 left).
    ants.slots[0].hp, ants.slots[0].status = 0, KO
    for f in bees.roster[:2]:
        f.hp, f.status = 0, KO
    assert end.limit_decision(engine) == (0, {"step": 1, **_why(engine)})
    # Step 1 before step 2: the Bees at full HP do not win on share.
    for f in ants.roster:
        if f.hp > 0:
            f.hp = 1
    assert end.limit_decision(engine)[0] == 0


def test_an_archon_counts_only_while_it_is_on_the_field():
    engine = engine_of(trio("Ants", archon=True), trio("Bees"))
    ants, bees = engine.sides
    bees.roster[3].hp, bees.roster[3].status = 0, KO  # Bees 3, Ants 4 (Archon stored)
    ants.roster[3].hp, ants.roster[3].status = 0, KO  # Ants 3
    for f in bees.roster[:3]:
        f.hp = 1  # so that the Ants would win on share alone
    ants.roster[0].hp = 1
    assert end.limit_decision(engine)[1]["conscious"] == [3, 3]
    assert end.limit_decision(engine)[1]["step"] == 2
    ants.archon.status = FIELD
    assert end.limit_decision(engine) == (0, {"step": 1, **_why(engine)})
    assert end.limit_decision(engine)[1]["conscious"] == [4, 3]
    ants.archon.status = DISMISSED
    assert end.limit_decision(engine)[1]["conscious"] == [3, 3]


def test_with_equal_counts_the_larger_exact_share_of_full_hp_wins():
    engine = engine_of(party("Ants", fighter("Ant", cards=[])), party("Bees", fighter("Bee")))
    ant, bee = engine.sides[0].roster[0], engine.sides[1].roster[0]
    assert ant.spec.max_hp == bee.spec.max_hp
    ant.hp, bee.hp = ant.spec.max_hp - 1, ant.spec.max_hp
    assert end.limit_decision(engine) == (1, {"step": 2, **_why(engine)})
    bee.hp = ant.spec.max_hp - 2
    assert end.limit_decision(engine)[0] == 0


def test_shares_that_round_alike_are_still_told_apart():
    # 2/3 against 667/1000 would be 67% each: compared exactly, the second is larger.
    engine = engine_of(
        party("Ants", fighter("Ant", cards=[], endurance=5)),
        party("Bees", fighter("Bee", cards=[], endurance=5)),
    )
    ant, bee = engine.sides[0].roster[0], engine.sides[1].roster[0]
    full = ant.spec.max_hp
    ant.hp = full * 2 // 3
    bee.hp = ant.hp + 1
    assert Fraction(ant.hp, full) < Fraction(bee.hp, full)
    assert end.limit_decision(engine)[0] == 1


def test_equal_counts_and_equal_shares_are_a_draw():
    engine = engine_of(trio("Ants"), trio("Bees"))
    assert end.limit_decision(engine) == (None, {"step": 3, **_why(engine)})


def _why(engine):
    standing = [end.conscious(side) for side in engine.sides]
    return {
        "conscious": [len(s) for s in standing],
        "hp": [sum(f.hp for f in s) for s in standing],
        "max_hp": [sum(f.spec.max_hp for f in s) for s in standing],
    }


STATES = st.sampled_from([FIELD, STORED, KO])


@given(
    st.lists(st.tuples(st.integers(0, 60), STATES), min_size=4, max_size=4),
    st.lists(st.tuples(st.integers(0, 60), STATES), min_size=4, max_size=4),
    st.booleans(),
    st.booleans(),
)
def test_the_decision_follows_r9_6_and_mirrors_when_the_sides_swap(ants, bees, arch_a, arch_b):
    def build(first, second, arch_first, arch_second):
        engine = engine_of(trio("Ants", archon=True), trio("Bees", archon=True))
        for side, rows, arch in zip(
            engine.sides, (first, second), (arch_first, arch_second), strict=True
        ):
            for f, (hp, status) in zip(side.roster, rows, strict=True):
                f.hp = min(hp, f.spec.max_hp) if status != KO else 0
                f.status = status
            side.archon.status = FIELD if arch else STORED
        return engine

    engine = build(ants, bees, arch_a, arch_b)
    counts, shares = [], []
    for side in engine.sides:
        alive = [f for f in side.roster if f.hp > 0 and f.status in (FIELD, STORED)]
        if side.archon.status == FIELD:
            alive.append(side.archon)
        counts.append(len(alive))
        full = sum(f.spec.max_hp for f in alive)
        shares.append(Fraction(sum(f.hp for f in alive), full) if full else Fraction(0))
    if counts[0] != counts[1]:
        expected = 0 if counts[0] > counts[1] else 1
    elif shares[0] != shares[1]:
        expected = 0 if shares[0] > shares[1] else 1
    else:
        expected = None
    winner, why = end.limit_decision(engine)
    assert winner == expected
    swapped, _ = end.limit_decision(build(bees, ants, arch_b, arch_a))
    assert swapped == (None if expected is None else 1 - expected)


# -- whole battles ---------------------------------------------------------------------------
def pacifists(limit):
    """Nobody can hurt anybody: the battle reaches round 30 with three Doves against two."""
    a = party("Doves", *(fighter(f"Dove {n}", cards=[]) for n in range(3)))
    b = party("Lambs", *(fighter(f"Lamb {n}", cards=[]) for n in range(2)))
    return snapshot([a, b], {}, limit=limit)


def test_a_battle_under_r9_6_is_won_at_the_limit_and_its_log_says_why():
    log = simulate(pacifists(LIMIT_DECIDE), seed=1)
    assert log["limit"] == "decide"
    assert log["result"]["winner"] == 0
    assert log["result"]["rounds"] == MAX_ROUNDS
    limit, last = log["events"][-2:]
    assert limit == {
        "round": MAX_ROUNDS,
        "kind": "limit",
        "winner": 0,
        "step": 1,
        "conscious": [3, 2],
        "hp": limit["hp"],
        "max_hp": limit["max_hp"],
    }
    assert last == {"round": MAX_ROUNDS, "kind": "end", "winner": 0}
    assert log["result"]["growth"]  # a win at the limit is a win (R10)


def test_a_draw_at_the_limit_is_kept_when_chosen_and_the_log_says_so():
    log = simulate(pacifists(LIMIT_DRAW), seed=1)
    assert log["limit"] == "draw"
    assert log["result"]["winner"] is None
    assert [e["kind"] for e in log["events"][-1:]] == ["end"]
    assert not any(e["kind"] == "limit" for e in log["events"])


def test_a_battle_recorded_before_r9_6_replays_as_a_draw_to_the_byte():
    old = pacifists(None)  # a snapshot taken before R9.6 has no `limit`
    assert "limit" not in old
    data = battle_input(old)
    assert data.limit is None
    first = run_battle(data, (GREEDY, GREEDY), random.Random(5), seed=5)
    assert "limit" not in first
    assert first["result"]["winner"] is None
    assert run_battle(battle_input(old), (GREEDY, GREEDY), random.Random(5), seed=5) == first
    # The same parties under R9.6 are decided: the rule, not the parties, kept the draw.
    assert simulate(pacifists(LIMIT_DECIDE), seed=5)["result"]["winner"] == 0


def test_a_demo_party_against_itself_that_drew_before_r9_6_is_decided_under_it():
    old = demo_snapshot("Sunrise Squad", "Sunrise Squad")
    drawn = [s for s in range(12) if simulate(old, seed=s)["result"]["winner"] is None]
    assert drawn, "the old rule drew some of these"
    new = demo_snapshot("Sunrise Squad", "Sunrise Squad", limit=LIMIT_DECIDE)
    decided = [simulate(new, seed=s)["result"] for s in drawn]
    assert any(r["winner"] is not None and r["rounds"] == MAX_ROUNDS for r in decided)


def test_it_refuses_an_unknown_limit_rule():
    with pytest.raises(ValueError, match="round limit"):
        battle_input(pacifists("sudden death"))


def test_a_played_game_is_won_at_the_limit_and_replays_from_its_record():
    data = battle_input(pacifists(LIMIT_DECIDE))
    game = played.play(data, (None, GREEDY), 3, {(r, 0): empty_plan() for r in range(1, 31)})
    log = game.log
    assert log["limit"] == "decide"
    assert log["result"]["winner"] == 0
    assert log["events"][-2]["kind"] == "limit"
    assert played.replay(data, log) == log
    old = battle_input(pacifists(None))
    game = played.play(old, (None, GREEDY), 3, {(r, 0): empty_plan() for r in range(1, 31)})
    assert game.log["result"]["winner"] is None
    assert "limit" not in game.log


def test_a_fork_near_the_limit_plays_on_under_its_battles_rule():
    data = battle_input(pacifists(LIMIT_DECIDE))
    origin = run_battle(data, (GREEDY, GREEDY), random.Random(2), seed=2)
    fork = fork_record(origin, 29, data=data)
    forked = play_fork(data, fork, (GREEDY, GREEDY), 9, {})
    assert (forked.log["result"]["winner"], forked.log["result"]["rounds"]) == (0, MAX_ROUNDS)
    assert forked.log["events"][-2]["kind"] == "limit"


def test_the_review_replays_a_battle_won_at_the_limit_and_its_playouts_decide_too():
    data = battle_input(pacifists(LIMIT_DECIDE))
    log = run_battle(data, (GREEDY, GREEDY), random.Random(4), seed=4)
    rounds, result = review.replay_states(data, log)
    assert result == 1.0
    last = rounds[-1]
    assert review.finish(review.clone(last.planning, random.Random(0))) == 0
    old = battle_input(pacifists(None))
    rounds, result = review.replay_states(
        old, run_battle(old, (GREEDY, GREEDY), random.Random(4), seed=4)
    )
    assert result == 0.5
    assert review.finish(review.clone(rounds[-1].planning, random.Random(0))) is None


# -- the AI that knows the limit -----------------------------------------------------------
@pytest.mark.parametrize(
    ("limit", "round_no", "resonance", "summons"),
    [
        (LIMIT_DECIDE, MAX_ROUNDS, 8, True),  # the Archon counts at the limit (step 1)
        (LIMIT_DECIDE, MAX_ROUNDS - 1, 9, True),  # with its one upkeep to the limit
        (LIMIT_DECIDE, MAX_ROUNDS - 1, 8, False),  # it would be dismissed before it counts
        (LIMIT_DECIDE, 10, 8, False),  # far from the limit: greedy's own rule (12)
        (LIMIT_DRAW, MAX_ROUNDS, 8, False),  # a draw at the limit: as greedy always played
        (None, MAX_ROUNDS, 8, False),  # a battle from before R9.6 replays as it was played
    ],
)
def test_greedy_summons_its_archon_for_a_limit_that_decides(limit, round_no, resonance, summons):
    from battles.engine import greedy
    from battles.engine.plan import begin

    engine = engine_of(trio("Ants", archon=True), trio("Bees"), limit=limit)
    engine.round = round_no
    engine.sides[0].resonance = resonance
    view = begin(engine)[0]
    assert view.can_summon()
    assert greedy.summon(view, engine.rng) is summons


@pytest.mark.parametrize("limit", [LIMIT_DECIDE, LIMIT_DRAW])
def test_the_thinkers_worlds_end_at_round_30_as_the_battles_rule_says(limit):
    """The Thinker's playouts (worlds.py) know the limit: a world copied at round 30 keeps
    the battle's rule, and under R9.6 the side with fewer conscious combatants has lost
    there (a draw at the limit leaves the material count, as before R9.6)."""
    from battles.engine import worlds
    from battles.engine.field import View

    engine = engine_of(trio("Ants"), trio("Bees"), limit=limit)
    ants = engine.sides[0]
    ants.slots[0].hp, ants.slots[0].status = 0, KO  # our own side is copied as it stands
    view = View(engine, ants, (), engine.round)
    world = worlds.world(worlds.Seen(view, random.Random(0), 1), 7)
    assert world.limit == limit
    if limit == LIMIT_DECIDE:
        assert worlds.score(world, 0) == -worlds.WIN
        assert worlds.score(world, 1) == worlds.WIN
    else:
        assert -worlds.WIN < worlds.score(world, 0) < 0
