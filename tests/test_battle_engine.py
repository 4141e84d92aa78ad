"""The battle engine (RULES.md R9-R10) on hand-built snapshots: no database needed."""

import random

import pytest

from battles.engine.battle import Engine, Policy, run_battle
from battles.engine.model import battle_input
from battles.engine.policies import GREEDY
from battles.snapshot import character_row, party_row, snapshot

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine


class AllSixes(random.Random):
    """Every die shows 6 (so every die hits and explodes); shuffles stay seeded."""

    def random(self):
        return 1 - 2**-53  # the largest float below 1: every group of dice is all sixes

    def getrandbits(self, k):
        # Declared so that shuffles draw bits (seeded), not this constant random().
        return super().getrandbits(k)


def card(name="Jab", type="Ether", category="physical", power=4, mp_cost=1, **extra):
    return dict(name=name, type=type, category=category, power=power, mp_cost=mp_cost,
                quick=extra.pop("quick", False), unlock_rank=extra.pop("unlock_rank", 1),
                **extra)  # fmt: skip


def fighter(name="Mon", type="Ether", *, cards=None, rank=1, kind="memeyori", **attributes):
    attrs = dict(strength=5, endurance=5, iq=3, wit=2, speed=4, aura=2)
    attrs.update(attributes)
    return character_row(
        name=name,
        kind=kind,
        type=type,
        attributes=attrs,
        cards=cards if cards is not None else [card()],
        rank=rank if kind == "memeyori" else None,
    )


def party(name, *memeyori, archon=None, level=1, dp_mp=0, dp_sp=0, dp_draw=0):
    return party_row(
        name=name,
        level=level,
        dp_sp=dp_sp,
        dp_mp=dp_mp,
        dp_draw=dp_draw,
        memeyori=list(memeyori),
        archon=archon,
    )


def scripted(plays=None, switches=None, summons=(), hands=None):
    """A policy that plays what a test says, round by round: {round: [(card, tier, target)]}.

    `hands`, when given, collects (round, card ids in hand) as the side chooses its cards.
    """
    plays = plays or {}
    switches = switches or {}
    seen = hands if hands is not None else []

    def switch(view, rng):
        return switches.get(view.round)

    def summon(view, rng):
        return view.round in summons

    def play(view, rng):
        seen.append((view.round, [c.id for c in view.side.hand]))
        return plays.get(view.round, [])

    return Policy("scripted", switch, summon, play)


IDLE = Policy("idle", lambda v, r: None, lambda v, r: False, lambda v, r: [])


def run(a, b, policies=(IDLE, IDLE), rng=None, chart=None):
    data = battle_input(snapshot([a, b], chart or {}))
    return run_battle(data, policies, rng or random.Random(1), seed=1)


def of(log, kind):
    return [e for e in log["events"] if e["kind"] == kind]


def test_it_knocks_out_both_combatants_of_an_equal_initiative_exchange_and_calls_a_draw():
    bruiser = dict(strength=20, speed=4, aura=2, cards=[card(power=30)])
    a = party("A", fighter("Ann", **bruiser))
    b = party("B", fighter("Bo", **bruiser))
    plays = scripted({1: [("A1.1", 1, "B1")]}), scripted({1: [("B1.1", 1, "A1")]})
    log = run(a, b, plays, rng=AllSixes(3))
    kinds = [e["kind"] for e in log["events"] if e["round"] == 1]
    # Both are rolled against the state before the group, then both apply (R9.3).
    first_damage = kinds.index("damage")
    assert kinds.count("attack") == 2 and kinds.index("attack", 1) < first_damage
    assert {e["combatant"] for e in of(log, "ko")} == {"A1", "B1"}
    assert log["result"]["winner"] is None and log["result"]["rounds"] == 1
    assert of(log, "end") == [{"round": 1, "kind": "end", "winner": None}]


def test_it_charges_one_more_mp_for_each_earlier_non_quick_card_of_the_same_user():
    cards = [card("Slow", mp_cost=1), card("Quick", mp_cost=1, quick=True), card("Late", mp_cost=1)]
    a = party("A", fighter("Ann", cards=cards, endurance=20), level=4, dp_mp=3)  # MP 6
    b = party("B", fighter("Bo", endurance=20, speed=1))
    plan = scripted({1: [("A1.1", 1, "B1"), ("A1.2", 1, "B1"), ("A1.3", 1, "B1")]})
    log = run(a, b, (plan, IDLE), rng=AllSixes(5))
    costs = [e["mp_cost"] for e in of(log, "play") if e["round"] == 1]
    assert costs == [1, 2, 2]  # Quick pays the surcharge but adds none
    assert [e for e in of(log, "plan") if e["side"] == 0][0]["mp_left"] == 1


def test_it_refuses_a_plan_beyond_the_mp_pool():
    cards = [card("Big", mp_cost=3), card("More", mp_cost=1)]
    a = party("A", fighter("Ann", cards=cards))  # MP 3
    plan = scripted({1: [("A1.1", 1, "B1"), ("A1.2", 1, "B1")]})
    with pytest.raises(ValueError, match="costs 2 MP; 0 left"):
        run(a, party("B", fighter("Bo")), (plan, IDLE))


def test_an_archon_costs_upkeep_and_is_dismissed_when_its_side_cannot_pay():
    archon = fighter("Vela", kind="archon", cards=[card("Command")])
    a = party("A", fighter("Ann"), fighter("Al"), fighter("Ari"), archon=archon)
    log = run(a, party("B", fighter("Bo")), (scripted(summons={3}), IDLE))
    mine = [e for e in log["events"] if e.get("side") == 0 and e["kind"] in ("resonance", "summon",
            "dismiss") and e["round"] >= 3]  # fmt: skip
    assert [(e["round"], e["kind"], e.get("delta"), e.get("total")) for e in mine[:6]] == [
        (3, "resonance", 3, 9),  # three Memeyori on the field
        (3, "resonance", -8, 1),  # the summon
        (3, "summon", None, None),
        (4, "resonance", -1, 0),  # upkeep, no passive gain
        (5, "dismiss", None, None),  # cannot pay: dismissed, and no gain this round
        (6, "resonance", 3, 3),
    ]


def test_a_switch_takes_the_old_memeyoris_cards_out_and_draws_one_of_the_new_ones():
    team = [fighter(n, cards=[card(f"{n} {i}") for i in range(3)]) for n in ("P", "Q", "R", "S")]
    a = party("A", *team, level=2, dp_sp=1)
    hands = []
    plan = scripted(switches={2: ("A1", "A4")}, hands=hands)
    log = run(a, party("B", fighter("Bo")), (plan, IDLE))
    switch = of(log, "switch")[0]
    assert (switch["round"], switch["out"], switch["in"]) == (2, "A1", "A4")
    after = log["events"][log["events"].index(switch) + 1]
    assert after["kind"] == "draw" and len(after["cards"]) == 1
    assert after["cards"][0].startswith("A4.")
    hand_in_round_2 = dict(hands)[2]
    assert not [c for c in hand_in_round_2 if c.startswith("A1.")]
    assert after["cards"][0] in hand_in_round_2


def test_a_card_whose_target_fell_goes_to_the_next_enemy_on_the_field():
    fast = fighter("Fast", strength=20, speed=9, cards=[card(power=40)])
    slow = fighter("Slow", speed=1, cards=[card("Poke")])
    a = party("A", fast, slow)
    b = party("B", fighter("Bo", speed=1), fighter("Bea", speed=1, endurance=20))
    plan = scripted({1: [("A1.1", 1, "B1"), ("A2.1", 1, "B1")]})
    log = run(a, b, (plan, IDLE), rng=AllSixes(2))
    plays = of(log, "play")
    assert plays[1]["targets"] == ["B2"] and plays[1]["retargeted_from"] == "B1"
    assert of(log, "attack")[1]["defender"] == "B2"


def test_a_knocked_out_users_later_card_fizzles():
    a = party("A", fighter("Ann", strength=20, speed=9, cards=[card(power=60)]))
    b = party("B", fighter("Bo", speed=1, cards=[card("Jab")]), fighter("Bea", speed=1))
    plans = scripted({1: [("A1.1", 1, "B1")]}), scripted({1: [("B1.1", 1, "A1")]})
    log = run(a, b, plans, rng=AllSixes(2))
    assert of(log, "fizzle")[0] == {"round": 1, "kind": "fizzle", "side": 1, "combatant": "B1",
                                    "card": "B1.1", "reason": "user knocked out"}  # fmt: skip


def test_after_thirty_rounds_the_battle_is_a_draw():
    log = run(party("A", fighter("Ann")), party("B", fighter("Bo")))
    assert log["result"]["winner"] is None and log["result"]["rounds"] == 30
    assert len(of(log, "round_start")) == 30
    assert log["result"]["growth"] == []


def _quick_win(rank_a, rank_b):
    a = party("A", fighter("Ann", rank=rank_a, strength=20, speed=9, cards=[card(power=60)]))
    b = party("B", fighter("Bo", rank=rank_b, speed=1))
    log = run(a, b, (scripted({1: [("A1.1", 1, "B1")]}), IDLE), rng=AllSixes(1))
    assert log["result"]["winner"] == 0
    return {g["combatant"]: (g["rank_before"], g["rank_after"]) for g in log["result"]["growth"]}


def test_growth_against_an_equal_side_raises_both():
    assert _quick_win(2, 2) == {"A1": (2, 3), "B1": (2, 3)}


def test_growth_against_a_weaker_side_raises_only_the_weaker():
    assert _quick_win(3, 2) == {"B1": (2, 3)}


def test_growth_against_a_stronger_side_raises_the_underdog():
    assert _quick_win(1, 3) == {"A1": (1, 2)}


def test_growth_stops_at_rank_six():
    assert _quick_win(6, 6) == {}


def test_a_heal_restores_power_plus_support_power_but_never_above_max_hp():
    medic = fighter("Medic", wit=5, speed=1, cards=[card("Patch", category="support", power=3)])
    a = party("A", medic)
    b = party("B", fighter("Bo", strength=10, speed=9, cards=[card(power=8)]))
    plans = scripted({1: [("A1.1", 1, "A1")]}), scripted({1: [("B1.1", 1, "A1")]})
    log = run(a, b, plans, rng=AllSixes(4))
    damage, heal = of(log, "damage")[0], of(log, "heal")[0]
    medic_record = log["sides"][0]["combatants"][0]
    # The heal event says what R5 heals (Power + Support Power); its group applies it, capped.
    assert heal["power"] == 3 and heal["support_power"] == medic_record["support_power"]
    assert heal["amount"] == 3 + medic_record["support_power"]
    hit, healed = [e for e in of(log, "apply") if e["combatant"] == "A1"]
    assert hit["hp_after"] == hit["hp_before"] - damage["amount"]
    assert healed["hp_before"] == hit["hp_after"] and healed["healing"] == heal["amount"]
    assert healed["hp_after"] == min(medic_record["max_hp"], hit["hp_after"] + heal["amount"])


def test_tier_two_costs_four_resonance_and_uses_the_tier_two_power():
    cards = [card("Big", power=4, tier2_power=9)]
    a = party("A", fighter("Ann", cards=cards, endurance=20), fighter("Al"), fighter("Ari"))
    b = party("B", fighter("Bo", endurance=20, speed=1))
    log = run(a, b, (scripted({2: [("A1.1", 2, "B1")]}), IDLE), rng=AllSixes(4))
    spent = [e for e in of(log, "resonance") if e["delta"] < 0]
    assert spent[0]["delta"] == -4 and spent[0]["reason"] == "tier 2: Big"
    assert of(log, "damage")[0]["breakdown"]["power"] == 9


def test_the_greedy_policy_only_plays_what_its_side_can_see():
    a = party("A", fighter("Ann"), fighter("Al"))
    b = party("B", fighter("Bo"), fighter("Bea"))
    engine = Engine(battle_input(snapshot([a, b], {})), (GREEDY, GREEDY), random.Random(7))
    engine.setup()
    engine.round = 1
    engine.round_start()
    plans = engine.plan()
    for side, plays in enumerate(plans):
        assert all(p.card.id.startswith("AB"[side]) for p in plays)
        assert all(p.target.startswith("BA"[side]) for p in plays)


def test_initiative_adds_half_the_highest_aura_on_the_side_to_each_combatant():
    a = party("A", fighter("Ann", speed=4, aura=2), fighter("Al", speed=3, aura=9))
    plan = scripted({1: [("A1.1", 1, "B1")]})
    log = run(a, party("B", fighter("Bo", endurance=20)), (plan, IDLE), rng=AllSixes(1))
    assert of(log, "play")[0]["initiative"] == 4 + 9 // 2


def test_a_knocked_out_memeyori_is_replaced_from_storage_and_its_cards_drawn():
    killer = fighter("Ann", strength=20, speed=9, cards=[card(power=60)])
    b = party("B", fighter("Bo", speed=1), fighter("Bea"), fighter("Bi"), fighter("Bu"), dp_sp=1,
              level=2)  # fmt: skip
    log = run(party("A", killer), b, (scripted({1: [("A1.1", 1, "B1")]}), IDLE), rng=AllSixes(1))
    summon = [e for e in of(log, "summon") if e["reason"] == "replacement"][0]
    assert (summon["round"], summon["combatant"], summon["place"]) == (1, "B4", 0)
    drawn = log["events"][log["events"].index(summon) + 1]
    assert drawn["kind"] == "draw" and drawn["cards"] == ["B4.1"]


class Fours(random.Random):
    """Every die shows 4: an attack lands exactly when its Accuracy beats the Evasion, the
    same whichever order the attacks are rolled in; shuffles stay seeded."""

    def random(self):
        return 0.55


def focused():
    """Every card in hand, every round: blows at the enemy in place 1 (else the first enemy),
    heals on the ally in place 1 (else the first ally)."""

    def plays(view, rng):
        allies = [f.id for f in view.side.field()]
        foes = [e.id for e in view.enemies]
        out = []
        for c in sorted(view.side.hand, key=lambda c: c.id):
            me, foe = c.id[0], "B" if c.id[0] == "A" else "A"
            if c.category == "support":
                out.append((c.id, 1, f"{me}1" if f"{me}1" in allies else allies[0]))
            elif foes:
                out.append((c.id, 1, f"{foe}1" if f"{foe}1" in foes else foes[0]))
        return out

    return Policy("focused", lambda v, r: None, lambda v, r: False, plays)


def _story(log, *, swap=False) -> dict:
    """What happened (per round, the sorted applies, plays, knock-outs and fizzles), with the
    side letters swapped when asked."""
    letters = str.maketrans("AB", "BA") if swap else str.maketrans("", "")
    winner = log["result"]["winner"]
    out = {"winner": winner if not swap or winner is None else 1 - winner,
           "rounds": log["result"]["rounds"]}  # fmt: skip
    for e in log["events"]:
        if e["kind"] == "apply":
            row = (e["combatant"].translate(letters), e["hp_before"], e["damage"], e["healing"],
                   e["hp_after"])  # fmt: skip
        elif e["kind"] == "play":
            row = (e["card"].translate(letters), e["targets"][0].translate(letters))
        elif e["kind"] in ("ko", "fizzle"):
            row = (e["kind"], e["combatant"].translate(letters))
        else:
            continue
        out.setdefault(e["round"], []).append(row)
    return {k: sorted(v) if isinstance(v, list) else v for k, v in out.items()}


def test_swapping_sides_with_the_same_plays_and_dice_mirrors_the_battle():
    # Everyone has Initiative 5, so each round is one group of six cards (R9.3).
    x = party("X", fighter("Ann", strength=20, speed=4, aura=2, cards=[card(power=30)]),
              fighter("Al", wit=10, speed=4, aura=2,
                      cards=[card("Mend", category="support", power=10)]),
              fighter("Ari", strength=12, speed=4, aura=2, cards=[card(power=12)]),
              level=2, dp_draw=1)  # fmt: skip
    y = party("Y", fighter("Bo", strength=18, endurance=8, speed=4, aura=2,
                           cards=[card(power=25)]),
              fighter("Bea", wit=12, speed=4, aura=2,
                      cards=[card("Mend", category="support", power=8)]),
              fighter("Bi", strength=15, speed=4, aura=2, cards=[card(power=20)]),
              level=2, dp_draw=1)  # fmt: skip
    xy = run(x, y, (focused(), focused()), rng=Fours(1))
    yx = run(y, x, (focused(), focused()), rng=Fours(1))
    assert _story(xy) == _story(yx, swap=True)
    # Not vacuous: round 1 knocks out A1 and B1 together, each healed in the same group.
    first = [e for e in of(xy, "apply") if e["round"] == 1]
    assert {(e["combatant"], e["hp_after"]) for e in first} == {("A1", 0), ("B1", 0)}
    assert all(e["damage"] and e["healing"] for e in first)
    assert {e["combatant"] for e in of(xy, "ko") if e["round"] == 1} == {"A1", "B1"}


def test_a_blow_at_a_switched_out_target_goes_to_the_one_that_took_its_place():
    a = party("A", fighter("Ann", strength=20, speed=9, cards=[card(power=5)]))
    b = party("B", fighter("Bo"), fighter("Bea"), fighter("Bi"), fighter("Bu", endurance=20),
              level=2, dp_sp=1)  # fmt: skip
    # A plans against B2; B then switches B2 out for B4 (ruling 8: A could not see it). The
    # blow follows the field to B4, in B2's place, not to B1, first in field order.
    plans = scripted({1: [("A1.1", 1, "B2")]}), scripted(switches={1: ("B2", "B4")})
    log = run(a, b, plans, rng=AllSixes(3))
    play = of(log, "play")[0]
    assert play["targets"] == ["B4"] and play["retargeted_from"] == "B2"
    assert of(log, "attack")[0]["defender"] == "B4"


def test_a_heal_whose_target_fell_goes_to_the_most_hurt_ally_standing():
    medic = fighter("Medic", wit=5, speed=1, cards=[card("Patch", category="support", power=3)])
    a = party("A", fighter("Ann", speed=5), medic, fighter("Ari", speed=5))
    killer = fighter("Bo", strength=20, speed=9, cards=[card(power=60), card("Tap", power=0)])
    b = party("B", killer, level=2, dp_draw=1)
    # Round 1: Bo taps Ari (A3), so A3 is hurt and A2 (the medic) is at full HP. Round 2:
    # Bo knocks out Ann (A1) before the medic's heal on A1 resolves.
    plans = (
        scripted({2: [("A2.1", 1, "A1")]}),
        scripted({1: [("B1.2", 1, "A3")], 2: [("B1.1", 1, "A1")]}),
    )
    log = run(a, b, plans, rng=AllSixes(5))
    hurt = [e for e in of(log, "apply") if e["round"] == 1]
    assert [(e["combatant"], e["hp_after"] < e["hp_before"]) for e in hurt] == [("A3", True)]
    heal = [e for e in of(log, "play") if e["card"] == "A2.1"][0]
    assert heal["retargeted_from"] == "A1" and heal["targets"] == ["A3"]
    assert of(log, "heal")[0]["target"] == "A3"


def test_greedy_1_never_switches_straight_back_the_round_after():
    from battles.engine.field import EnemyView, View
    from battles.engine.greedy1 import greedy_switch

    chart = {("Blaze", "Verdant"): "weak", ("Tide", "Blaze"): "weak"}
    a = party("A", fighter("Leaf", type="Verdant"), fighter("Drop", type="Tide"),
              level=2, dp_sp=0)  # fmt: skip
    a["memeyori"] = a["memeyori"][:2]
    b = party("B", fighter("Ember", type="Blaze"))
    engine = Engine(battle_input(snapshot([a, b], chart)), (GREEDY, GREEDY), random.Random(1))
    engine.setup()
    engine.round = 1
    side = engine.sides[0]
    side.slots = [engine.by_id["A1"], None, None]
    engine.by_id["A2"].status = "stored"
    foes = (EnemyView("B1", engine.by_id["B1"].spec, engine.by_id["B1"].hp),)
    # Leaf (Verdant) is weak to the Blaze enemy; Drop (Tide) is strong: greedy switches.
    assert greedy_switch(View(engine, side, foes, 1), engine.rng) == ("A1", "A2")
    # Had it switched Drop out for Leaf last round, it would not switch straight back.
    side.last_switch = (1, "A2", "A1")
    assert greedy_switch(View(engine, side, foes, 2), engine.rng) is None
    assert greedy_switch(View(engine, side, foes, 3), engine.rng) == ("A1", "A2")


def test_greedy_1_summons_only_with_the_first_upkeep_to_spare():
    from battles.engine.field import View
    from battles.engine.greedy1 import greedy_summon

    archon = fighter("Arc", kind="archon")
    a = party("A", fighter("Ann"), archon=archon)
    engine = Engine(battle_input(snapshot([a, party("B", fighter("Bo"))], {})), (GREEDY, GREEDY),
                    random.Random(1))  # fmt: skip
    engine.setup()
    side = engine.sides[0]
    view = View(engine, side, (), 1)
    side.resonance = 8  # the summon would leave nothing for the next round's upkeep
    assert not greedy_summon(view, engine.rng)
    side.resonance = 9
    assert greedy_summon(view, engine.rng)
