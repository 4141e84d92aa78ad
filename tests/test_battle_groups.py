"""R9.3 groups, checked by a second, deliberately simple implementation of the rule.

`Referee` shares no code with battles/engine: it folds a log with its own state, works out
each group (cards of users with equal Initiative) from RULES.md and PROTOCOL.md rulings
4-5 alone - who may act, where each card goes, R4's verdict from the dice, R5's amounts,
the group applied at once, its knock-outs, R9.4's Resonance - and compares every group
with what the engine wrote, over thousands of battles between random parties.
"""

import random
from fractions import Fraction
from math import floor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles.engine.run import simulate
from battles.snapshot import character_row, party_row, snapshot
from tests.test_battle_invariants import CHART, TYPES, parties

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

POLICY_PAIRS = [("greedy", "greedy"), ("random", "random"), ("greedy", "random")]
SETTLE_KINDS = ("damage", "heal", "apply", "ko")


class Referee:
    """Reads one log, event by event, and checks each group as it closes."""

    def __init__(self, log: dict, chart: dict):
        self.chart = chart
        self.rec = {c["id"]: c for s in log["sides"] for c in s["combatants"]}
        self.cards = {k["id"]: k for c in self.rec.values() for k in c["cards"]}
        self.side = {c["id"]: i for i, s in enumerate(log["sides"]) for c in s["combatants"]}
        self.hp = {cid: c["max_hp"] for cid, c in self.rec.items()}
        self.status = dict.fromkeys(self.rec, "stored")
        self.slots = [[None, None, None], [None, None, None]]
        self.archon = [None, None]
        self.resonance = [0, 0]
        self.gains = [0, 0]
        self.gain_seen = [False, False]
        self.heirs = {}
        self.init = {}
        self.group = None  # {"initiative", "cards": [...], "settle": [...]}
        self.groups = 0
        self.big_groups = 0  # groups where two or more cards resolved
        self.mutual_kos = 0  # groups knocking out combatants of both sides

    # -- the referee's own picture of the field -----------------------------------------
    def field(self, side: int) -> list[str]:
        order = [c for c in self.slots[side] if c is not None]
        if self.archon[side] is not None:
            order.append(self.archon[side])
        return [c for c in order if self.status[c] == "field"]

    def standing(self, side: int) -> list[str]:
        return [c for c in self.field(side) if self.hp[c] > 0]

    def place(self, cid: str) -> int:
        side = self.side[cid]
        return self.slots[side].index(cid) if cid in self.slots[side] else 3

    def initiatives(self) -> dict[str, int]:
        out = {}
        for side in (0, 1):
            field = self.field(side)
            bonus = max([self.rec[c]["crit_rate"] for c in field] or [0]) // 2
            for c in field:
                out[c] = self.rec[c]["initiative"] + bonus
        return out

    # -- R4, R5 and ruling 4, written out again ---------------------------------------------
    def effect(self, card_type: str, defender: str) -> str:
        return self.chart.get((card_type, self.rec[defender]["type"]), "neutral")

    def damage(self, user: str, target: str, card: dict, tier: int, crit, compl) -> int:
        u, t = self.rec[user], self.rec[target]
        physical = card["category"] == "physical"
        power = {1: card["power"], 2: card["tier2_power"], 3: card["tier3_power"]}[tier]
        raw = Fraction(power + (u["physical_damage"] if physical else u["magic_damage"]))
        raw *= Fraction(6, 5) if card["type"] == u["type"] else 1
        raw *= {"weak": Fraction(3, 2), "strong": Fraction(1, 2), "neutral": 1}[
            self.effect(card["type"], target)
        ]
        raw *= Fraction(3, 2) if crit else 1
        raw *= Fraction(1, 2) if compl else 1
        return max(1, floor(raw - (t["defense"] if physical else t["resistance"])))

    def target(self, planned: str, support: bool, user_side: int):
        pool = user_side if support else 1 - user_side
        standing = self.standing(pool)
        if planned in standing:
            return planned
        if not standing:
            return None
        if support:
            return min(standing, key=lambda c: (Fraction(self.hp[c], self.rec[c]["max_hp"]),
                                                standing.index(c)))  # fmt: skip
        heir = self.heirs.get(planned)
        return heir if heir in standing else standing[0]

    # -- reading the log -------------------------------------------------------------------
    def read(self, log: dict) -> None:
        for event in log["events"]:
            kind = event["kind"]
            if kind in ("play", "fizzle", "attack"):
                if kind != "attack":
                    initiative = self.init[event["combatant"]]
                    g = self.group
                    if g is not None and (g["settle"] or g["initiative"] != initiative):
                        self.close()
                    if self.group is None:
                        self.group = {"initiative": initiative, "cards": [], "settle": []}
                    if kind == "play":
                        assert event["initiative"] == initiative
                    self.group["cards"].append(event)
                else:
                    self.group["cards"][-1]["_attack"] = event
                continue
            if kind in SETTLE_KINDS:
                self.group["settle"].append(event)
                continue
            if self.group is not None:
                self.close()
            self.fold(event)
        assert self.group is None

    def fold(self, event: dict) -> None:
        kind = event["kind"]
        if kind == "round_start":
            for side in (0, 1):
                assert self.gain_seen[side] or not self.gains[side]
            self.gains, self.gain_seen, self.heirs = [0, 0], [False, False], {}
        elif kind == "summon":
            self.status[event["combatant"]] = "field"
            if event["place"] is None:
                self.archon[event["side"]] = event["combatant"]
            else:
                self.slots[event["side"]][event["place"]] = event["combatant"]
        elif kind == "switch":
            slots = self.slots[event["side"]]
            slots[slots.index(event["out"])] = event["in"]
            self.status[event["out"]], self.status[event["in"]] = "stored", "field"
            self.heirs[event["out"]] = event["in"]
        elif kind == "dismiss":
            self.status[event["combatant"]] = "dismissed"
        elif kind == "plan" and event["side"] == 1:
            self.init = self.initiatives()  # fixed as resolution starts
        elif kind == "resonance":
            side = event["side"]
            if event["reason"] == "criticals and weaknesses":
                expected = min(16, self.resonance[side] + self.gains[side]) - self.resonance[side]
                assert event["delta"] == expected and self.gains[side] > 0
                self.gain_seen[side] = True
            self.resonance[side] = event["total"]

    def close(self) -> None:
        """Work the group out from the state before it and compare with the log."""
        g, self.group = self.group, None
        self.groups += 1
        keys = [(self.side[e["combatant"]], self.place(e["combatant"])) for e in g["cards"]]
        assert keys == sorted(keys), "a group's cards go by side, then field place"
        want = []  # (kind, source, target, card, amount)
        for e in g["cards"]:
            user = e["combatant"]
            if e["kind"] == "fizzle":
                if e["reason"] == "user knocked out":
                    assert self.status[user] == "ko"
                else:
                    card = self.cards[e["card"]]
                    side = self.side[user]
                    assert not self.standing(side if card["category"] == "support" else 1 - side)
                continue
            assert user in self.standing(self.side[user]), "only the standing act"
            support = e["category"] == "support"
            planned = e["retargeted_from"] or e["targets"][0]
            target = self.target(planned, support, self.side[user])
            assert e["targets"] == [target]
            assert (e["retargeted_from"] is None) == (target == planned)
            card = self.cards[e["card"]]
            if support:
                power = {1: card["power"], 2: card["tier2_power"], 3: card["tier3_power"]}
                amount = power[e["tier"]] + self.rec[user]["support_power"]
                want.append(("heal", user, target, e["card"], amount))
                continue
            a = e["_attack"]
            assert (a["attacker"], a["defender"], a["card"]) == (user, target, e["card"])
            hits = sum(f >= 4 for f in a["attack_dice"])
            ones = a["attack_dice"].count(1)
            extra = sum(f >= 4 for f in a["explosive_dice"])
            dodge = sum(f >= 4 for f in a["evasion_dice"])
            landed = hits > dodge
            crit = landed and hits + extra >= dodge + 5
            compl = ones >= 1 and ones >= hits
            assert (a["landed"], a["critical"], a["complication"]) == (landed, crit, compl)
            if landed:
                amount = self.damage(user, target, card, e["tier"], crit, compl)
                want.append(("damage", user, target, e["card"], amount))
                weak = self.effect(card["type"], target) == "weak"
                self.gains[self.side[user]] += crit + weak
        if len([e for e in g["cards"] if e["kind"] == "play"]) >= 2:
            self.big_groups += 1
        got = [(e["kind"], e["source"], e["target"], e["card"], e["amount"])
               for e in g["settle"] if e["kind"] in ("damage", "heal")]  # fmt: skip
        assert got == want
        sums = {}
        for kind, _, target, _, amount in want:
            sums.setdefault(target, [0, 0])[kind == "heal"] += amount
        applies, kos = [], []
        for target, (dmg, heal) in sums.items():
            after = min(self.rec[target]["max_hp"], self.hp[target] - dmg + heal)
            applies.append((target, self.hp[target], dmg, heal, max(0, after)))
            if after <= 0:
                kos.append(target)
        got = [(e["combatant"], e["hp_before"], e["damage"], e["healing"], e["hp_after"])
               for e in g["settle"] if e["kind"] == "apply"]  # fmt: skip
        assert got == applies
        assert [e["combatant"] for e in g["settle"] if e["kind"] == "ko"] == kos
        stage = {"damage": 0, "heal": 0, "apply": 1, "ko": 2}
        stages = [stage[e["kind"]] for e in g["settle"]]
        assert stages == sorted(stages), "damage and heals, then applies, then knock-outs"
        for target, *_, after in applies:
            self.hp[target] = after
        for target in kos:
            self.status[target] = "ko"
        if len({self.side[c] for c in kos}) == 2:
            self.mutual_kos += 1


def referee(log: dict, chart: dict) -> Referee:
    ref = Referee(log, chart)
    ref.read(log)
    return ref


# -- random parties from a seeded generator (and from Hypothesis, below) ------------------
def random_card(rng: random.Random) -> dict:
    tier2 = rng.choice([None, rng.randint(0, 30)])
    return {
        "name": rng.choice(["Jab", "Bolt", "Mend", "Slam"]),
        "type": rng.choice(TYPES),
        "category": rng.choice(["physical", "magic", "support"]),
        "power": rng.randint(0, 20),
        "mp_cost": rng.randint(0, 3),
        "quick": rng.random() < 0.3,
        "unlock_rank": rng.randint(1, 3),
        "tier2_power": tier2,
        "tier3_power": rng.choice([None, rng.randint(0, 40)]) if tier2 is not None else None,
    }


def random_character(rng: random.Random, kind="memeyori") -> dict:
    # Few distinct SPD and AUR values, so equal Initiative (real groups) is common.
    attributes = {"strength": rng.randint(1, 20), "endurance": rng.randint(1, 20),
                  "iq": rng.randint(1, 20), "wit": rng.randint(1, 20),
                  "speed": rng.choice([3, 5, 5, 8]), "aura": rng.choice([2, 4])}  # fmt: skip
    return character_row(
        name=rng.choice(["Pip", "Mox", "Zed"]),
        kind=kind,
        type=rng.choice(TYPES),
        attributes=attributes,
        cards=[random_card(rng) for _ in range(rng.randint(1, 4))],
        rank=rng.randint(1, 6) if kind == "memeyori" else None,
    )


def random_party(rng: random.Random, most: int = 6) -> dict:
    level = rng.randint(1, 6)
    dp_sp = rng.randint(0, level - 1)
    return party_row(
        name=rng.choice(["Reds", "Blues"]),
        level=level,
        dp_sp=dp_sp,
        dp_mp=level - 1 - dp_sp,
        dp_draw=0,
        memeyori=[random_character(rng) for _ in range(rng.randint(1, most))],
        archon=random_character(rng, "archon") if rng.random() < 0.4 else None,
    )


def test_the_reference_agrees_with_every_group_of_two_thousand_random_battles():
    rng = random.Random(2026)
    battles = groups = big = mutual = 0
    for n in range(400):
        snap = snapshot([random_party(rng), random_party(rng)], CHART)
        for seed in range(5):
            # Random play: every legal card and target, heals included, and cheap to run
            # (greedy's plays are covered below and by the demo battles).
            log = simulate(snap, seed=n * 5 + seed, policies=("random", "random"))
            ref = referee(log, CHART)
            battles += 1
            groups += ref.groups
            big += ref.big_groups
            mutual += ref.mutual_kos
    assert battles == 2_000
    # Not vacuous: many groups of several cards, and knock-outs both ways in one group.
    assert groups > 20_000 and big > 5_000 and mutual > 20, (groups, big, mutual)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=parties(), b=parties(), seed=st.integers(0, 2**32 - 1),
       policies=st.sampled_from(POLICY_PAIRS))  # fmt: skip
def test_the_reference_agrees_with_the_engine_on_any_two_parties(a, b, seed, policies):
    referee(simulate(snapshot([a, b], CHART), seed=seed, policies=policies), CHART)
