"""R9.3, resolution: cards in groups of equal Initiative, each rolled on the state before it.

A group is every card played this round by users with the same Initiative (fixed when
resolution starts). Its cards go in a fixed order: side (A first), the user's field place
(places 1-3, then the Archon), then the order its user played them. Each card's target is
resolved and its dice rolled against the state before the group; nothing is applied until
the whole group has been rolled (`settle.apply_group`), so every card of the group resolves
and two combatants can knock each other out.
"""

from . import settle
from .dice import roll_counts, roll_faces
from .field import ARCHON_PLACE, FIELD


def groups(engine, plans) -> list[tuple[int, list]]:
    """[(Initiative, [plays in the group's fixed order])], highest Initiative first.

    R9.3: Initiative = SPD + floor(highest AUR on the side's field / 2), fixed here, as
    resolution starts (after Switches and summons)."""
    by_id = engine.by_id
    entries = []
    for side, side_plans in zip(engine.sides, plans, strict=True):
        if not side_plans:
            continue
        slots = side.slots
        archon = side.archon
        aura = 0
        for f in slots:
            if f is not None and f.status == FIELD and f.spec.aura > aura:
                aura = f.spec.aura
        if archon is not None and archon.status == FIELD and archon.spec.aura > aura:
            aura = archon.spec.aura
        bonus = aura // 2
        index = side.index
        for seq, play in enumerate(side_plans):
            user = by_id[play.user]
            place = ARCHON_PLACE if user is archon else slots.index(user)
            entries.append((-(user.spec.speed + bonus), index, place, seq, play))
    # The first four entries are unique (a side's plays are numbered), so the plays
    # themselves are never compared.
    entries.sort()
    out = []
    current = None
    for negative, _, _, _, play in entries:
        if negative != current:
            current = negative
            out.append((-negative, [play]))
        else:
            out[-1][1].append(play)
    return out


def resolve_round(engine, plans) -> bool:
    """R9.3-4; True when the battle ended during resolution."""
    gains = [0, 0]
    for initiative, plays in groups(engine, plans):
        pending = roll_group(engine, plays, initiative, gains)
        if pending and settle.apply_group(engine, pending):
            engine.upheavals += 1
            if engine.sides[0].lost() or engine.sides[1].lost():
                return True
    for side in engine.sides:
        if gains[side.index]:
            engine.gain(side, gains[side.index], "criticals and weaknesses")
    return False


def retarget(engine, support: bool, pool, target):
    """Ruling 4: where a card goes when its planned target no longer stands, or None.

    A blow follows the field: to whoever took the switched-out target's place, else (its
    target knocked out) the first enemy standing in field order. A heal goes to the most
    hurt ally standing (lowest HP fraction; the first in field order on a tie).
    """
    standing = [f for f in pool.field() if f.hp > 0]
    if not standing:
        return None
    if support:
        best = standing[0]
        for f in standing[1:]:
            # f.hp / f.max_hp < best.hp / best.max_hp, in integers.
            if f.hp * best.spec.max_hp < best.hp * f.spec.max_hp:
                best = f
        return best
    heir = pool.heirs.get(target.id)
    if heir is not None and heir.status == FIELD and heir.hp > 0:
        return heir
    return standing[0]


def blow(engine, card, user, target, tier: int) -> tuple:
    """What a card does to a target, fixed for the battle: (accuracy, evasion, crit rate,
    chart entry, 1 if a weakness (R9.4), power, stat, mitigation, same Type (R5), and the
    damage of each outcome (plain, complication, critical, both) once computed)."""
    spec = user.spec
    tspec = target.spec
    physical = card.category == "physical"
    effect = engine.chart.get((card.type, tspec.type), "neutral")
    entry = engine.blows[card.id, target.id, tier] = (
        spec.physical_accuracy if physical else spec.magic_accuracy,
        tspec.evasion,
        spec.crit_rate,
        effect,
        1 if effect == "weak" else 0,
        card.power_at(tier),
        spec.physical_damage if physical else spec.magic_damage,
        tspec.defense if physical else tspec.resistance,
        card.type == spec.type,
        [None, None, None, None],
    )
    return entry


def roll_group(engine, plays, initiative: int, gains: list[int]) -> list[tuple]:
    """Every card of the group, on the state before it: its target, then (an attack) its
    roll. Returns what landed, in order, for settle.apply_group:
    (blow or None for a heal, user, target, outcome or heal Power, card).

    The hot path of a battle: events are dict literals appended directly, and the dice
    come from dice.roll_faces, which draws exactly what dice.roll_attack_reference would."""
    events = engine.events
    tally = engine.tally
    rnd = engine.round
    by_id = engine.by_id
    sides = engine.sides
    rng = engine.rng
    blows = engine.blows
    pending = []
    for play in plays:
        user = by_id[play.user]
        card = play.card
        if user.status != FIELD or user.hp <= 0:
            if events is not None:
                events.append({"round": rnd, "kind": "fizzle", "side": user.side,
                               "combatant": user.id, "card": card.id,
                               "reason": "user knocked out"})  # fmt: skip
            continue
        support = card.category == "support"
        pool = sides[user.side] if support else sides[1 - user.side]
        target = by_id[play.target]
        retargeted = None
        if target.status != FIELD or target.hp <= 0 or target.side != pool.index:
            new = retarget(engine, support, pool, target)
            if new is None:
                if events is not None:
                    events.append({"round": rnd, "kind": "fizzle", "side": user.side,
                                   "combatant": user.id, "card": card.id,
                                   "reason": "no target"})  # fmt: skip
                continue
            retargeted, target = target.id, new
        tier = play.tier
        if events is not None:
            events.append({"round": rnd, "kind": "play", "side": user.side, "combatant": user.id,
                           "card": card.id, "name": card.name, "type": card.type,
                           "category": card.category, "tier": tier, "mp_cost": play.mp_cost,
                           "initiative": initiative, "targets": [target.id],
                           "retargeted_from": retargeted})  # fmt: skip
        if support:
            if tally is not None:
                tally.card(user.side, card.id, tier, False, False, False, target.id)
            pending.append((None, user, target, card.power_at(tier), card))
            continue
        entry = blows.get((card.id, target.id, tier))
        if entry is None:
            entry = blow(engine, card, user, target, tier)
        accuracy, evasion, crit_rate, effect, weak, _, _, _, _, _ = entry
        if events is not None:
            attack, extra, evade, hits, glitches, xhits, dhits = roll_faces(
                rng, accuracy, evasion, crit_rate
            )
            # R4 steps 4-6, as dice.judge.
            landed = hits > dhits
            critical = landed and hits + xhits >= dhits + 5
            complication = glitches >= 1 and glitches >= hits
            events.append({"round": rnd, "kind": "attack", "attacker": user.id,
                           "defender": target.id, "card": card.id, "accuracy": accuracy,
                           "evasion": evasion, "crit_rate": crit_rate, "attack_dice": attack,
                           "explosive_dice": extra, "evasion_dice": evade, "hits": hits,
                           "glitches": glitches, "explosive_hits": xhits,
                           "defender_hits": dhits, "landed": landed, "critical": critical,
                           "complication": complication, "effect": effect})  # fmt: skip
        else:
            # Summary mode: the same draws, without the faces.
            hits, glitches, xhits, dhits = roll_counts(rng, accuracy, evasion, crit_rate)
            landed = hits > dhits
            critical = landed and hits + xhits >= dhits + 5
            complication = glitches >= 1 and glitches >= hits
            tally.card(user.side, card.id, tier, True, landed, critical, target.id)
        if landed:
            # R9.4: +1 Resonance per landed critical, +1 per landed hit on a weakness.
            gains[user.side] += critical + weak
            pending.append((entry, user, target, critical * 2 + complication, card))
    return pending
