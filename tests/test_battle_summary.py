"""battles.engine.summary: a battle's totals, checked against its log by hand."""

import itertools
import json
import random

import pytest

from battles.engine.battle import run_battle
from battles.engine.model import battle_input
from battles.engine.run import simulate
from battles.engine.summary import simulate_summary, summarize
from battles.snapshot import demo_snapshot, snapshot
from tests.test_battle_engine import AllSixes, card, fighter, party, scripted

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]


def _demo_logs():
    for (a, b), seed in zip(itertools.permutations(PARTIES, 2), itertools.count(11)):
        yield simulate(demo_snapshot(a, b), seed=seed)


def _final_hp(log):
    hp = {c["id"]: c["max_hp"] for side in log["sides"] for c in side["combatants"]}
    for e in log["events"]:
        if e["kind"] in ("damage", "heal") and "hp_after" in e:
            hp[e["target"]] = e["hp_after"]
        if e["kind"] == "apply":
            hp[e["combatant"]] = e["hp_after"]
        if e["kind"] == "ko":
            hp[e["combatant"]] = 0
    return hp


def test_every_combatants_damage_taken_is_the_sum_of_its_damage_events():
    for log in _demo_logs():
        s = summarize(log)
        ids = [c["id"] for side in log["sides"] for c in side["combatants"]]
        assert sorted(s["combatants"]) == sorted(ids)
        damage = [e for e in log["events"] if e["kind"] == "damage"]
        for cid in ids:
            row = s["combatants"][cid]
            assert row["damage_taken"] == sum(e["amount"] for e in damage if e["target"] == cid)
            assert row["damage_dealt"] == sum(e["amount"] for e in damage if e["source"] == cid)
            kos = [e for e in log["events"] if e["kind"] == "ko" and e["combatant"] == cid]
            assert row["knocked_out"] == bool(kos)
        total = sum(e["amount"] for e in damage)
        assert sum(c["damage"] for c in s["cards"].values()) == total
        assert sum(c["damage_dealt"] for c in s["combatants"].values()) == total
        # Every knock-out here came from a blow, so each one credits someone.
        assert sum(c["knockouts"] for c in s["combatants"].values()) >= sum(
            c["knocked_out"] for c in s["combatants"].values()
        )


def test_hp_left_is_each_sides_memeyori_hp_over_their_max_hp():
    for log in _demo_logs():
        s = summarize(log)
        hp = _final_hp(log)
        for index, side in enumerate(log["sides"]):
            mons = [c for c in side["combatants"] if c["kind"] == "memeyori"]
            expected = sum(hp[c["id"]] for c in mons) / sum(c["max_hp"] for c in mons)
            assert s["hp_left"][index] == round(expected, 6)
        assert (s["seed"], s["winner"], s["rounds"]) == (
            log["seed"],
            log["result"]["winner"],
            log["result"]["rounds"],
        )
        if s["winner"] is not None:
            assert s["hp_left"][1 - s["winner"]] == 0


def test_resonance_gained_less_spent_is_what_each_side_ends_with():
    for log in _demo_logs():
        s = summarize(log)
        for index in (0, 1):
            totals = [e["total"] for e in log["events"]
                      if e["kind"] == "resonance" and e["side"] == index]  # fmt: skip
            side = s["sides"][index]
            assert side["resonance_gained"] - side["resonance_spent"] == (totals or [0])[-1]
            plays = [e for e in log["events"] if e["kind"] == "play" and e["side"] == index]
            assert side["tier2_plays"] == sum(e["tier"] == 2 for e in plays)
            assert side["tier3_plays"] == sum(e["tier"] == 3 for e in plays)


def test_card_counts_match_the_plays_and_attacks_of_the_log():
    for log in _demo_logs():
        s = summarize(log)
        plays = [e["card"] for e in log["events"] if e["kind"] == "play"]
        assert set(s["cards"]) == set(plays)
        for card_id, row in s["cards"].items():
            attacks = [e for e in log["events"] if e["kind"] == "attack" and e["card"] == card_id]
            assert row["played"] == plays.count(card_id)
            assert row["attacks"] == len(attacks)
            assert row["landed"] == sum(e["landed"] for e in attacks)
            assert row["criticals"] == sum(e["landed"] and e["critical"] for e in attacks)
        json.dumps(s)  # JSON-able as it is


def test_a_two_round_battle_adds_up_by_hand():
    # Every die a 6: Ann's Jab (Power 30) lands a critical each round for 70 against Bo's
    # 116 HP. Round 1: 116 -> 46, Bo's Nap heals 2 + Support Power 2 = 4 (-> 50); round 2:
    # 50 -> 0, a knock-out. Side A gains 1 + 1 (summoned Memeyori) + 1 (round 1's critical;
    # round 2's battle ends before R9.4's gain).
    a = party("A", fighter("Ann", strength=20, speed=9, cards=[card(power=30)]))
    bo = fighter("Bo", endurance=20, speed=1, cards=[card("Nap", category="support", power=2)])
    b = party("B", bo)
    plays = (
        scripted({1: [("A1.1", 1, "B1")], 2: [("A1.1", 1, "B1")]}),
        scripted({1: [("B1.1", 1, "B1")]}),
    )
    log = run_battle(battle_input(snapshot([a, b], {})), plays, AllSixes(5), seed=5)
    assert log["sides"][1]["combatants"][0]["max_hp"] == 116
    idle = {"archon_dismissals": 0, "archon_rounds": 0, "archon_summons": 0,
            "resonance_spent": 0, "tier2_plays": 0, "tier3_plays": 0}  # fmt: skip
    assert summarize(log) == {
        "seed": 5,
        "winner": 0,
        "rounds": 2,
        "hp_left": [1.0, 0.0],
        "sides": [{**idle, "resonance_gained": 3}, {**idle, "resonance_gained": 2}],
        "combatants": {
            "A1": {
                "damage_dealt": 140,
                "damage_taken": 0,
                "healing_done": 0,
                "knockouts": 1,
                "knocked_out": False,
                "rounds_on_field": 2,
            },
            "B1": {
                "damage_dealt": 0,
                "damage_taken": 140,
                "healing_done": 4,
                "knockouts": 0,
                "knocked_out": True,
                "rounds_on_field": 2,
            },
        },  # fmt: skip
        "cards": {
            "A1.1": {
                "played": 2,
                "attacks": 2,
                "landed": 2,
                "criticals": 2,
                "damage": 140,
                "healing": 0,
            },
            "B1.1": {
                "played": 1,
                "attacks": 0,
                "landed": 0,
                "criticals": 0,
                "damage": 0,
                "healing": 4,
            },
        },  # fmt: skip
    }


def test_simulate_summary_is_summarize_of_simulate():
    rng = random.Random(3)
    for a, b in itertools.permutations(PARTIES, 2):
        seed = rng.randrange(1 << 30)
        snap = demo_snapshot(a, b)
        for policies in (("greedy", "greedy"), ("random", "greedy")):
            expected = summarize(simulate(snap, seed=seed, policies=policies))
            assert simulate_summary(snap, seed=seed, policies=policies) == expected


def _seeds():
    """10,000 (snapshot, seed, policies): 2,000 greedy demo battles, then 8,000 between
    random parties of one to three Memeyori (short battles, every kind of play)."""
    from tests.test_battle_groups import CHART, random_party

    demo = [demo_snapshot(a, b) for a, b in itertools.permutations(PARTIES, 2)]
    for seed in range(2_000):
        yield demo[seed % len(demo)], seed, ("greedy", "greedy")
    rng = random.Random(14)
    pairs = [("random", "random"), ("greedy", "random"), ("greedy", "greedy")]
    for n in range(1_000):
        a, b = random_party(rng, most=3), random_party(rng, most=3)
        snap = snapshot([a, b], CHART)
        for k in range(8):
            yield snap, 100_000 + n * 8 + k, pairs[k % 3]


@pytest.mark.slow
def test_summary_mode_gives_exactly_the_full_logs_summary_on_ten_thousand_seeds():
    count = 0
    for snap, seed, policies in _seeds():
        expected = summarize(simulate(snap, seed=seed, policies=policies))
        assert simulate_summary(snap, seed=seed, policies=policies) == expected, seed
        count += 1
    assert count == 10_000
