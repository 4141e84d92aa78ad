"""R9.2, the plan: each side's Switch, Archon summon and cards, checked and paid for."""

from .field import STORED, EnemyView, Play, Policy, Side, View, seen
from .model import ARCHON_SUMMON_COST, TIER_COST

_new_tuple = tuple.__new__  # builds the NamedTuples without their Python-level __new__


def begin(engine) -> list[View]:
    """Each side's View as planning begins: the enemy field as it stood before either side
    planned (ruling 8), and what each side shows the table (Seen: Resonance, cards in hand,
    statuses, last Switch), taken once, before anyone plans, so that no policy models its
    enemy from the enemy's plan."""
    engine.shown = [seen(side) for side in engine.sides]
    fields = []
    for side in engine.sides:
        field = side.field()
        fields.append(
            (
                tuple([_new_tuple(EnemyView, (f.id, f.spec, f.hp)) for f in field]),
                tuple([f.id for f in field]),
            )
        )
    views = []
    for side in engine.sides:
        enemies, enemy_ids = fields[1 - side.index]
        views.append(View(engine, side, enemies, engine.round, enemy_ids))
    return views


def dice_for(engine, policy: Policy, side: int):
    """The generator a policy draws from: the battle's own for the versions that always did
    (their stored battles replay so), else dice of the policy's own for this round and side
    (`Engine.policy_rng`), so that nothing the other side plans or draws moves them."""
    return engine.policy_rng(side) if policy.dice == "own" else engine.rng


def plan_round(engine) -> list[list[Play]]:
    """Each side plans against the enemy field as it stood before either planned (ruling 8)."""
    views = begin(engine)
    plans = []
    for side, view in zip(engine.sides, views, strict=True):
        policy = engine.policies[side.index]
        rng = dice_for(engine, policy, side.index)
        # Own draws: this side's Switch and summon shuffle with a generator of its own for
        # the round, so nothing the other side planned first moves what they draw. Made
        # only when one of them draws (every read of a game replays every round).
        drawer = None
        choice = policy.switch(view, rng)
        if choice is not None:
            drawer = _drawer(engine, side)
            switch(engine, side, choice[0], choice[1], drawer)
        if side.archon is not None and view.can_summon() and policy.summon(view, rng):
            if drawer is None:
                drawer = _drawer(engine, side)
            engine.spend(side, ARCHON_SUMMON_COST, "archon summon")
            engine.emit(
                "summon", side=side.index, combatant=side.archon.id, reason="resonance", place=None
            )
            if engine.tally is not None:
                engine.tally.sides[side.index]["archon_summons"] += 1
            engine.bring_in(side, side.archon, drawer)
        plans.append(commit(engine, side, policy.plays(view, rng), view))
    return plans


def _drawer(engine, side: Side):
    return engine.draw_rng(side.index) if engine.own_draws else None


def switch(engine, side: Side, out_id: str, in_id: str, drawer=None) -> None:
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
    engine.bring_in(side, inn, drawer)


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
