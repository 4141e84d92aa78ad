"""Determinism and invariants over a few hundred whole battles of the demo parties."""

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles.engine import damage as dmg
from battles.engine.dice import count_hits, judge
from battles.engine.model import RESONANCE_MAX
from battles.engine.run import log_json, simulate
from battles.engine.state import apply, frame_end, initial_state, round_frames, state_at
from battles.snapshot import character_row, demo_snapshot, party_row, snapshot
from cards import stats

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]
POLICY_PAIRS = [("greedy", "greedy"), ("random", "random"), ("greedy", "random")]


def test_the_same_seed_gives_a_byte_identical_log():
    snap = demo_snapshot("Sunrise Squad", "Wild Bunch")
    for policies in POLICY_PAIRS:
        first = log_json(simulate(snap, seed=2026, policies=policies))
        assert first == log_json(simulate(snap, seed=2026, policies=policies))
    assert first != log_json(simulate(snap, seed=2027, policies=policies))


def _battles():
    for a, b in itertools.permutations(PARTIES, 2):
        snap = demo_snapshot(a, b)
        for policies in POLICY_PAIRS:
            for seed in range(8):
                yield simulate(snap, seed=seed * 7919 + len(a), policies=policies)


def check_invariants(log):
    records = {c["id"]: c for side in log["sides"] for c in side["combatants"]}
    pools = [side["mp"] for side in log["sides"]]
    state = initial_state(log)
    last_initiative = None
    group = {}  # the current group's damage and healing by target, until its apply event
    for event in log["events"]:
        kind = event["kind"]
        if kind == "round_start":
            last_initiative = None
        if kind in ("damage", "heal"):
            # Rolled on the state before the group: its target was standing then.
            assert state["status"][event["target"]] == "field" and state["hp"][event["target"]] > 0
            group.setdefault(event["target"], [0, 0])[kind == "heal"] += event["amount"]
        if kind == "apply":
            c = event["combatant"]
            assert event["hp_before"] == state["hp"][c]
            assert [event["damage"], event["healing"]] == group.pop(c)
            after = min(
                records[c]["max_hp"], event["hp_before"] - event["damage"] + event["healing"]
            )
            assert event["hp_after"] == max(0, after)
        if kind in ("play", "round_start", "ko"):
            assert not group  # every touched combatant got its apply event
        if kind == "damage":
            b = event["breakdown"]
            assert event["amount"] == dmg.damage(
                b["power"],
                b["stat"],
                stab=b["stab"],
                type_multiplier=b["type_multiplier"],
                critical=b["critical"],
                complication=b["complication"],
                mitigation=b["mitigation"],
            )
        if kind == "heal":
            assert event["amount"] == event["power"] + event["support_power"]
            assert event["support_power"] == records[event["source"]]["support_power"]
        if kind == "attack":
            attack = event["attack_dice"]
            assert (
                len(attack) == event["accuracy"] and len(event["evasion_dice"]) == event["evasion"]
            )
            assert len(event["explosive_dice"]) <= event["crit_rate"]
            counted = (count_hits(attack), attack.count(1), count_hits(event["explosive_dice"]),
                       count_hits(event["evasion_dice"]))  # fmt: skip
            assert counted == (event["hits"], event["glitches"], event["explosive_hits"],
                               event["defender_hits"])  # fmt: skip
            assert judge(*counted) == (event["landed"], event["critical"], event["complication"])
        if kind == "play":
            assert state["status"][event["combatant"]] == "field"
            # R9.3: highest Initiative first.
            assert last_initiative is None or event["initiative"] <= last_initiative
            last_initiative = event["initiative"]
        if kind == "plan":
            assert 0 <= event["mp_left"] <= pools[event["side"]]
            assert event["mp_spent"] + event["mp_left"] == pools[event["side"]]
        apply(state, event)
        for index, side in enumerate(state["sides"]):
            assert 0 <= side["resonance"] <= RESONANCE_MAX
            assert 0 <= side["mp"] <= pools[index]
            on_field = [c for c in side["slots"] if c and state["status"][c] == "field"]
            assert len(on_field) <= 3
            assert all(records[c]["kind"] == "memeyori" for c in on_field)
        assert all(0 <= hp <= records[c]["max_hp"] for c, hp in state["hp"].items())
    result = log["result"]
    assert log["events"][-1] == {
        "round": result["rounds"],
        "kind": "end",
        "winner": result["winner"],
    }
    assert 1 <= result["rounds"] <= 30


def test_hundreds_of_battles_keep_every_invariant():
    count = 0
    outcomes = set()
    for log in _battles():
        check_invariants(log)
        outcomes.add(log["result"]["winner"])
        count += 1
    assert count == 288
    assert outcomes == {0, 1, None}


@pytest.mark.parametrize("policies", POLICY_PAIRS)
def test_round_frames_give_the_same_state_as_folding_from_the_start(policies):
    log = simulate(demo_snapshot("Night Shift", "Cold Front"), seed=11, policies=policies)
    frames = round_frames(log)
    assert [f["round"] for f in frames] == list(range(log["result"]["rounds"] + 1))
    starts = {f["first_event"]: f["round"] for f in frames[1:]}
    state = initial_state(log)
    for index, event in enumerate(log["events"]):
        if index in starts:
            assert state_at(log, frames, starts[index], 0) == state
        apply(state, event)
    last = frames[-1]
    assert state_at(log, frames, last["round"], len(log["events"]) - last["first_event"]) == state


def test_stepping_through_a_battle_leaves_its_stored_frames_as_they_were():
    log = simulate(demo_snapshot("Sunrise Squad", "Night Shift"), seed=5, policies=("greedy",) * 2)
    frames = round_frames(log)
    stored = json.dumps(frames, sort_keys=True)
    for frame in frames:
        end = frame_end(frames, frame["round"], len(log["events"]))
        state_at(log, frames, frame["round"], end - frame["first_event"])
    assert json.dumps(frames, sort_keys=True) == stored


TYPES = ["Ether", "Blaze", "Tide", "Verdant"]
CHART = {("Blaze", "Verdant"): "weak", ("Tide", "Blaze"): "weak", ("Verdant", "Tide"): "weak",
         ("Blaze", "Tide"): "strong", ("Tide", "Verdant"): "strong"}  # fmt: skip


@st.composite
def cards(draw):
    tier2 = draw(st.none() | st.integers(0, 30))
    return {
        "name": draw(st.sampled_from(["Jab", "Bolt", "Mend", "Slam"])),
        "type": draw(st.sampled_from(TYPES)),
        "category": draw(st.sampled_from(["physical", "magic", "support"])),
        "power": draw(st.integers(0, 20)),
        "mp_cost": draw(st.integers(0, 5)),
        "quick": draw(st.booleans()),
        "unlock_rank": draw(st.integers(1, 6)),
        "tier2_power": tier2,
        "tier3_power": draw(st.none() | st.integers(0, 40)) if tier2 is not None else None,
    }


@st.composite
def characters(draw, kind="memeyori"):
    attributes = {a: draw(st.integers(1, 20)) for a in stats.ATTRIBUTES}
    return character_row(
        name=draw(st.sampled_from(["Pip", "Mox", "Zed"])),
        kind=kind,
        type=draw(st.sampled_from(TYPES)),
        attributes=attributes,
        cards=draw(st.lists(cards(), max_size=5)),
        rank=draw(st.integers(1, 6)) if kind == "memeyori" else None,
    )


@st.composite
def parties(draw):
    level = draw(st.integers(1, 6))
    dp = draw(st.lists(st.integers(0, 2), min_size=3, max_size=3).filter(lambda d: sum(d) < level))
    return party_row(
        name=draw(st.sampled_from(["Reds", "Blues"])),
        level=level,
        dp_sp=dp[0],
        dp_mp=dp[1],
        dp_draw=dp[2],
        memeyori=draw(st.lists(characters(), min_size=1, max_size=6)),
        archon=draw(st.none() | characters(kind="archon")),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=parties(), b=parties(), seed=st.integers(0, 2**32 - 1),
       policies=st.sampled_from(POLICY_PAIRS))  # fmt: skip
def test_any_two_parties_battle_to_an_end_that_keeps_every_invariant(a, b, seed, policies):
    log = simulate(snapshot([a, b], CHART), seed=seed, policies=policies)
    check_invariants(log)
    assert log_json(log) == log_json(
        simulate(snapshot([a, b], CHART), seed=seed, policies=policies)
    )
