"""`beginner` version 1: plays as a new player does, legally, with mistakes to punish.

Each habit is one a player learns to exploit in a first few games:
- **it never switches**, so a Memeyori weak to the enemy's Types stays in and takes it;
- **it ignores type matchups**: each attack goes at an enemy picked at random (its own
  dice, Policy.dice "own"), not at the one the card hurts most;
- **it never plays a Tier**: Resonance piles up to the cap and is lost there (R9.1);
- **it summons its Archon the moment it can** (8 Resonance), with nothing kept for the
  upkeep, so the Archon is soon dismissed (ruling 2);
- **cards go in hand order** while MP lasts (R9.2's surcharge counted), a heal on the
  most hurt ally only when one is under half its HP, and otherwise kept.

It reads only its own side and the enemy field as planning began (View.enemies).
"""

from .field import View

VERSION = 1
HEAL_BELOW = 0.5


def switch(view: View, rng):
    return None


def summon(view: View, rng) -> bool:
    return True  # plan_round asks only when the Resonance is there (View.can_summon)


def plays(view: View, rng) -> list[tuple[str, int, str]]:
    side = view.side
    mp = side.mp
    extra: dict[str, int] = {}  # non-Quick cards each user plays in this plan
    hurt = [f for f in side.field() if f.hp > 0 and f.hp < f.spec.max_hp * HEAL_BELOW]
    patient = min(hurt, key=lambda f: f.hp / f.spec.max_hp, default=None)
    out = []
    for card in side.hand:
        user = view.user_of(card)
        cost = card.mp_cost + user.played_nonquick + extra.get(user.id, 0)
        if cost > mp:
            continue
        if card.category == "support":
            if patient is None:
                continue
            target = patient.id
            patient = None  # one heal a round is all it thinks of
        elif view.enemy_ids:
            target = rng.choice(view.enemy_ids)
        else:
            continue
        mp -= cost
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
        out.append((card.id, 1, target))
    return out
