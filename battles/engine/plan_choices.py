"""What a player plans with (issue 17): the plan page's cards and Switches.

Each card in hand with its cost this round, its Tiers and, on each target, R4's exact
odds and R5's expected damage or the HP a heal restores. Read from a side's View alone:
it shows the rules' numbers and decides nothing (a plan is checked in plan_check.py).
"""

from fractions import Fraction
from functools import lru_cache

from .damage import NEUTRAL, STAB, heal_amount, type_multiplier
from .field import View
from .model import TIER_COST
from .odds import attack_odds, expected_damage


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)


@lru_cache(maxsize=8192)
def _expected(power, stat, same_type, effect, mitigation, accuracy, evasion, crit_rate):
    """R5's exact mean damage of one attack (a miss counts 0), memoised: it is a function of
    numbers printed on the cards, and a game's every request asks for the same few."""
    return expected_damage(
        power=power,
        stat=stat,
        stab=STAB if same_type else NEUTRAL,
        type_multiplier=type_multiplier(effect),
        mitigation=mitigation,
        accuracy=accuracy,
        evasion=evasion,
        crit_rate=crit_rate,
    )


def card_choices(view: View) -> list[dict]:
    """Each card in hand as the plan page shows it: this round's MP cost (before the plan's
    own surcharges), Quick, Tiers with their Resonance and Power, and for an attack R4's
    exact odds and R5's expected damage on each enemy on the field, for a heal the HP it
    restores on each ally on the field (R5), at each Tier it has."""
    side = view.side
    out = []
    allies = side.field()
    for card in side.hand:
        user = view.owners[card.id]
        spec = user.spec
        row = {
            "id": card.id,
            "name": card.name,
            "type": card.type,
            "category": card.category,
            "power": card.power,
            "user": user.id,
            "user_name": spec.name,
            "base_mp_cost": card.mp_cost,
            "mp_cost": card.mp_cost + user.played_nonquick,
            "quick": card.quick,
            "tiers": [
                {"tier": t, "power": card.power_at(t), "resonance": TIER_COST[t]}
                for t in card.tiers()
            ],
            "targets": [],
        }
        if card.category == "support":
            for ally in allies:
                row["targets"].append(
                    {
                        "id": ally.id,
                        "name": ally.spec.name,
                        "heal": {
                            str(t): heal_amount(
                                card.power_at(t),
                                spec.support_power,
                                hp=ally.hp,
                                max_hp=ally.spec.max_hp,
                            )
                            for t in card.tiers()
                        },
                    }
                )
        else:
            physical = card.category == "physical"
            accuracy = spec.physical_accuracy if physical else spec.magic_accuracy
            stat = spec.physical_damage if physical else spec.magic_damage
            same = card.type == spec.type  # R5's STAB
            for enemy in view.enemies:
                tspec = enemy.spec
                odds = attack_odds(accuracy, tspec.evasion, spec.crit_rate)
                effect = view.effect(card.type, tspec.type)
                mitigation = tspec.defense if physical else tspec.resistance
                expected = {}
                for t in card.tiers():
                    value = _expected(
                        card.power_at(t), stat, same, effect, mitigation, accuracy,
                        tspec.evasion, spec.crit_rate,
                    )  # fmt: skip
                    expected[str(t)] = {"value": round(float(value), 2), "exact": _exact(value)}
                row["targets"].append(
                    {
                        "id": enemy.id,
                        "name": tspec.name,
                        "effect": effect,
                        "land": _exact(odds.p_land),
                        "critical": _exact(odds.p_critical),
                        "complication": _exact(odds.p_complication),
                        "expected_damage": expected,
                    }
                )
        out.append(row)
    return out


def switch_options(view: View) -> list[list[str]]:
    return [list(pair) for pair in view.switch_options()]
