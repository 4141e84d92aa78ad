"""R9.2, the plan: each side's Switch, Archon summon and cards, checked and paid for."""

from .field import STORED, EnemyView, Play, Side, View
from .model import ARCHON_SUMMON_COST, TIER_COST

_new_tuple = tuple.__new__  # builds the NamedTuples without their Python-level __new__


def plan_round(engine) -> list[list[Play]]:
    """Each side plans against the enemy field as it stood before either planned (ruling 8)."""
    # What each side shows the other before either plans: its Resonance and how many cards
    # it holds (View.shown), so no policy models its enemy from the enemy's plan.
    engine.shown = [(side.resonance, len(side.hand)) for side in engine.sides]
    seen = []
    for side in engine.sides:
        field = side.field()
        seen.append(
            (
                tuple([_new_tuple(EnemyView, (f.id, f.spec, f.hp)) for f in field]),
                tuple([f.id for f in field]),
            )
        )
    plans = []
    for side in engine.sides:
        policy = engine.policies[side.index]
        enemies, enemy_ids = seen[1 - side.index]
        view = View(engine, side, enemies, engine.round, enemy_ids)
        choice = policy.switch(view, engine.rng)
        if choice is not None:
            switch(engine, side, *choice)
        if side.archon is not None and view.can_summon() and policy.summon(view, engine.rng):
            engine.spend(side, ARCHON_SUMMON_COST, "archon summon")
            engine.emit(
                "summon", side=side.index, combatant=side.archon.id, reason="resonance", place=None
            )
            if engine.tally is not None:
                engine.tally.sides[side.index]["archon_summons"] += 1
            engine.bring_in(side, side.archon)
        plans.append(commit(engine, side, policy.plays(view, engine.rng), view))
    return plans


def switch(engine, side: Side, out_id: str, in_id: str) -> None:
    out = engine.by_id[out_id]
    inn = engine.by_id[in_id]
    if out not in side.slots or not out.alive or inn not in side.stored():
        raise ValueError(f"illegal switch {out_id} -> {in_id}")
    place = side.slots.index(out)
    out.status = STORED
    engine.leave_play(side, out)
    side.slots[place] = inn
    side.heirs[out.id] = inn
    side.last_switch = (engine.round, out.id, inn.id)
    if engine.events is not None:
        engine.events.append({"round": engine.round, "kind": "switch", "side": side.index,
                              "out": out.id, "in": inn.id})  # fmt: skip
    engine.bring_in(side, inn)


def commit(engine, side: Side, choices, view: View) -> list[Play]:
    """Check a policy's cards (hand, MP with the surcharge, Resonance, targets) and pay."""
    plays = []
    hand = side.hand
    owners = engine.owners
    in_play = side.in_play
    allies = None
    ids = None
    for card_id, tier, target in choices:
        # By id: CardSpec's dataclass == compares every field, and ids are unique. `ids`
        # follows the hand as cards leave it.
        if ids is None:
            ids = [c.id for c in hand]
        try:
            index = ids.index(card_id)
        except ValueError:
            raise ValueError(f"{card_id} is not in side {side.index}'s hand") from None
        card = hand[index]
        user = owners[card_id]
        cost = card.mp_cost + user.played_nonquick
        if cost > side.mp:
            raise ValueError(f"{card.name} costs {cost} MP; {side.mp} left")
        if tier != 1:
            card.power_at(tier)  # raises for a Tier the card does not have
        if card.category == "support":
            if allies is None:
                allies = [f.id for f in side.field()]
            legal = target in allies
        else:
            legal = target in view.enemy_ids
        if not legal:
            raise ValueError(f"{card.name} cannot target {target}")
        side.mp -= cost
        if not card.quick:
            user.played_nonquick += 1
        del hand[index]
        del ids[index]
        in_play.append(card)
        if tier != 1:
            engine.spend(side, TIER_COST[tier], f"tier {tier}: {card.name}")
        plays.append(_new_tuple(Play, (card, user.id, tier, target, cost)))
    if engine.events is not None:
        engine.events.append({"round": engine.round, "kind": "plan", "side": side.index,
                              "cards": len(plays), "mp_spent": side.spec.mp - side.mp,
                              "mp_left": side.mp})  # fmt: skip
    else:
        engine.tally.planned(side)
    return plays
