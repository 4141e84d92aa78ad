"""The engine's played battles (battles/engine/played.py): plans from outside, one round at
a time, the state a pure function of (snapshot, seed, policies, plans so far)."""

import pytest

from battles.engine import plan_check, plan_choices, played, played_record
from battles.engine.battle import run_battle
from battles.engine.policies import GREEDY, POLICIES
from battles.engine.run import input_for, log_json
from battles.snapshot import demo_snapshot

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

SNAP = demo_snapshot("Sunrise Squad", "Night Shift")


def first_cards(view, limit=2):
    """A simple legal plan: the first cards in hand the MP pays for, on the first enemy."""
    mp = view.side.mp
    cards = []
    for row in plan_choices.card_choices(view):
        cost = row["mp_cost"] + (len(cards) if not row["quick"] else 0) * 0
        if row["category"] == "support" or cost > mp or len(cards) >= limit:
            continue
        cards.append([row["id"], 1, row["targets"][0]["id"]])
        mp -= cost
    plan = {"switch": None, "summon": False, "cards": cards}
    checked = plan_check.check_plan(view, plan)
    if not checked.ok:  # the surcharge of a second card by the same user
        plan["cards"] = cards[:1]
    return plan


def play_out(seed, planner=first_cards, policies=(None, GREEDY)):
    data = input_for(SNAP)
    plans = {}
    while True:
        result = played.play(data, policies, seed, plans)
        if result.log is not None:
            return result, plans
        for side in result.needed.sides:
            plans[result.needed.round, side] = planner(result.needed.views[side])


def test_a_player_side_stops_the_battle_at_its_first_plan():
    result = played.play(input_for(SNAP), (None, GREEDY), 5, {})
    assert result.log is None
    assert result.needed.round == 1
    assert result.needed.sides == (0,)
    view = result.needed.views[0]
    assert view.side.index == 0 and len(view.side.hand) == 2 + SNAP["sides"][0]["draw"]


def test_hot_seat_waits_for_both_sides():
    result = played.play(input_for(SNAP), (None, None), 5, {})
    assert result.needed.sides == (0, 1)


def test_the_state_is_a_pure_function_of_the_plans_so_far():
    finished, plans = play_out(11)
    some = {k: v for k, v in plans.items() if k[0] <= 3}
    a = played.play(input_for(SNAP), (None, GREEDY), 11, some)
    b = played.play(input_for(SNAP), (None, GREEDY), 11, dict(some))
    assert a.needed.round == b.needed.round == 4
    assert a.engine.events == b.engine.events
    # ... and the start of the finished battle's log.
    assert finished.engine.events[: len(a.engine.events)] == a.engine.events


@pytest.mark.parametrize("seed", [1, 2, 3, 40])
def test_timeouts_every_round_play_exactly_the_ai_battle(seed):
    """A side whose every plan is greedy's (a timeout) fights the very battle two greedy
    sides fight: the recorded plans never move the generator's draws."""
    timeout = {"by": "timeout", "policy": "greedy", "version": GREEDY.version}
    data = input_for(SNAP)
    plans = {(r, 0): timeout for r in range(1, 31)}
    result = played.play(data, (None, GREEDY), seed, plans)
    import random

    ai = run_battle(data, (GREEDY, GREEDY), random.Random(seed), seed=seed)
    ours = [{k: v for k, v in e.items() if k != "by"} for e in result.log["events"]]
    assert ours == ai["events"]
    assert result.log["result"] == ai["result"]
    assert {p["by"] for p in result.log["plans"] if p["side"] == 0} == {"timeout"}


def test_a_played_log_replays_byte_identical_from_its_plan_records():
    finished, _ = play_out(23)
    log = finished.log
    policies, plans, forfeit = played_record.inputs_from_log(log)
    again = played.play(input_for(SNAP), policies, log["seed"], plans, forfeit=forfeit)
    assert log_json(again.log) == log_json(log)


def test_every_plan_is_recorded_with_its_round_side_and_maker():
    finished, plans = play_out(23)
    records = finished.log["plans"]
    rounds = finished.log["result"]["rounds"]
    assert [(p["round"], p["side"]) for p in records] == [
        (r, s) for r in range(1, rounds + 1) for s in (0, 1)
    ]
    assert {p["by"] for p in records if p["side"] == 0} == {"player"}
    assert {p["by"] for p in records if p["side"] == 1} == {"ai"}
    for p in records:
        if p["side"] == 0:
            assert p["cards"] == plans[p["round"], 0]["cards"]


def test_a_forfeit_ends_the_battle_for_the_other_side():
    data = input_for(SNAP)
    result = played.play(data, (None, GREEDY), 9, {}, forfeit=(1, 0))
    assert result.log["result"]["winner"] == 1
    assert result.log["forfeit"] == {"round": 1, "side": 0}
    assert result.log["events"][-2] == {"round": 1, "kind": "forfeit", "side": 0}


def test_the_current_policies_can_be_the_ai_side():
    for name in ("random", "greedy"):
        finished, _ = play_out(3, policies=(None, POLICIES[name]))
        assert finished.log["policies"] == ["player", name]


# -- the checks are the engine's: a plan the check passes is one the engine plays ---------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def round_and_plan(draw):
    """A seed, a round reached by simple plans, and a random plan for side A: cards of its
    hand (and a stranger's), in any order, at any Tier 1-3, on anyone."""
    seed = draw(st.integers(0, 50))
    rounds = draw(st.integers(0, 4))
    return seed, rounds, draw(st.randoms(use_true_random=False))


@settings(max_examples=60, deadline=None)
@given(round_and_plan())
def test_a_plan_passes_the_check_exactly_when_the_engine_plays_it(case):
    seed, rounds, rnd = case
    data = input_for(SNAP)
    plans = {}
    result = played.play(data, (None, GREEDY), seed, plans)
    for _ in range(rounds):
        if result.needed is None:
            return
        plans[result.needed.round, 0] = first_cards(result.needed.views[0])
        result = played.play(data, (None, GREEDY), seed, plans)
    if result.needed is None:
        return
    view = result.needed.views[0]
    ids = [c.id for c in view.side.hand] + ["A1.9", "B1.1"]
    people = [f.id for f in data_fighters(view)] + ["Z9"]
    cards = [
        [rnd.choice(ids), rnd.choice([1, 1, 1, 2, 3]), rnd.choice(people)]
        for _ in range(rnd.randint(0, 4))
    ]
    plan = {"switch": None, "summon": False, "cards": cards}
    checked = plan_check.check_plan(view, plan)
    round_no = result.needed.round
    try:
        after = played.play(data, (None, GREEDY), seed, {**plans, (round_no, 0): plan})
    except ValueError:
        assert not checked.ok, (plan, "the engine refused what the check let through")
        return
    assert checked.ok, (plan, checked.errors)
    event = next(
        e for e in after.engine.events
        if e["kind"] == "plan" and e["round"] == round_no and e["side"] == 0
    )  # fmt: skip
    assert event["mp_left"] == checked.mp_left


def data_fighters(view):
    engine = view._engine
    return list(engine.by_id.values())


def test_a_knocked_out_archons_summon_is_refused_in_its_own_words():
    from battles.engine.field import KO

    view = played.play(input_for(SNAP), (None, GREEDY), 3, {}).needed.views[0]
    archon = view.side.archon
    archon.status, archon.hp = KO, 0
    view.side.resonance = 8
    checked = plan_check.check_plan(view, {"switch": None, "summon": True, "cards": []})
    assert checked.errors == [f"{archon.spec.name} is knocked out, so it cannot be summoned."]
