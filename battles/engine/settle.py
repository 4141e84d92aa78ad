"""R9.3, settling a group: everything it did is applied at once, then its knock-outs.

For each combatant the group touched (in the order the group first touched it):
after = min(max HP, before - the sum of R5 damage + the sum of heals (Power + Support
Power)). It is knocked out exactly when after <= 0; its HP shows 0 then.
"""

from functools import lru_cache

from . import damage as dmg
from .field import FIELD, KO


@lru_cache(maxsize=8192)
def _damage(power, stat, same_type, effect, critical, complication, mitigation):
    """R5 via battles.engine.damage: (amount, STAB, type multiplier, raw) with exact strings.

    Memoised: a battle deals the same few dozen blows over and over, and Fractions are slow.
    """
    stab = dmg.STAB if same_type else dmg.NEUTRAL
    multiplier = dmg.type_multiplier(effect)
    raw = dmg.raw_damage(
        power,
        stat,
        stab=stab,
        type_multiplier=multiplier,
        critical=critical,
        complication=complication,
    )
    return dmg.mitigated(raw, mitigation), dmg.frac(stab), dmg.frac(multiplier), dmg.frac(raw)


def apply_group(engine, pending) -> bool:
    """Write the group's damage and heal events, apply each touched combatant's sums, then
    knock out those at 0 or less. True when someone was knocked out."""
    events = engine.events
    rnd = engine.round
    touched: dict = {}  # Fighter -> [damage, healing]; insertion order is first touch
    tally = engine.tally
    if tally is not None:
        # Summary mode counts here what summary.summarize reads from the same events.
        combatants, cards = tally.combatants, tally.cards
        hit_by: dict = {}  # target -> the sources that damaged it in this group, in order
        heals: dict = {}  # target -> [(source, card, amount)]
    for entry, user, target, detail, card in pending:
        sums = touched.get(target)
        if sums is None:
            sums = touched[target] = [0, 0]
        if entry is None:
            support_power = user.spec.support_power
            amount = detail + support_power  # R5's heal, before the max-HP cap
            sums[1] += amount
            if events is not None:
                events.append({"round": rnd, "kind": "heal", "source": user.id,
                               "target": target.id, "card": card.id, "amount": amount,
                               "power": detail, "support_power": support_power})  # fmt: skip
            else:
                row = heals.get(target)
                if row is None:
                    heals[target] = [(user.id, card.id, amount)]
                else:
                    row.append((user.id, card.id, amount))
            continue
        _, _, _, effect, _, power, stat, mitigation, same_type, outcomes = entry
        known = outcomes[detail]
        if known is None:
            known = outcomes[detail] = _damage(
                power, stat, same_type, effect, detail > 1, detail & 1 == 1, mitigation
            )
        amount = known[0]
        sums[0] += amount
        if events is not None:
            _, stab, multiplier, raw = known
            events.append({"round": rnd, "kind": "damage", "source": user.id,
                           "target": target.id, "card": card.id, "amount": amount,
                           "breakdown": {"power": power, "stat": stat, "stab": stab,
                                         "type_multiplier": multiplier,
                                         "critical": detail > 1,
                                         "complication": detail & 1 == 1,
                                         "mitigation": mitigation, "raw": raw}})  # fmt: skip
        else:
            source = user.id
            combatants[source]["damage_dealt"] += amount
            combatants[target.id]["damage_taken"] += amount
            cards[card.id]["damage"] += amount
            sources = hit_by.get(target)
            if sources is None:
                hit_by[target] = [source]
            elif source not in sources:
                sources.append(source)
    knocked_out = False
    for target, (damage, healing) in touched.items():
        before = target.hp
        after = before - damage + healing
        max_hp = target.spec.max_hp
        if after > max_hp:
            after = max_hp
        target.hp = after if after > 0 else 0
        if events is not None:
            events.append({"round": rnd, "kind": "apply", "side": target.side,
                           "combatant": target.id, "hp_before": before, "damage": damage,
                           "healing": healing, "hp_after": target.hp})  # fmt: skip
        elif target in heals:
            # summary.summarize's share of the restored HP, in log order.
            restored = target.hp - (before - damage)
            for source, card_id, amount in heals[target]:
                share = min(amount, max(0, restored))
                restored -= share
                combatants[source]["healing_done"] += share
                cards[card_id]["healing"] += share
        if after <= 0:
            knocked_out = True
    if knocked_out:
        for target in touched:
            if target.hp <= 0 and target.status == FIELD:
                target.status = KO
                engine.leave_play(engine.sides[target.side], target)
                if events is not None:
                    events.append({"round": rnd, "kind": "ko", "side": target.side,
                                   "combatant": target.id})  # fmt: skip
                else:
                    combatants[target.id]["knocked_out"] = True
                    for source in hit_by.get(target, ()):
                        combatants[source]["knockouts"] += 1
    return knocked_out
