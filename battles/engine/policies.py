"""How a side plans its round (R9.2): `greedy` (the default) and `random`.

A policy is three plain functions of a `View` (its own side, and the enemy field as it
stood when planning began) and the battle's rng. Neither ever sees the other side's hand,
draw pile or plan.
"""

from .battle import Policy, View
from .model import ARCHON_SUMMON_COST, TIER_COST
from .odds import expected_damage

# Expected damage depends only on these eight numbers, and a demo battle asks for the same
# few hundred again and again; floats are fine here because only the policy's choice (never
# the log) depends on them.
_EXPECTED: dict[tuple, float] = {}

HEAL_BELOW = 0.5  # greedy heals an ally under half its maximum HP
TIER_HP_PER_RESONANCE = 1.5  # greedy pays for a Tier when each Resonance buys this much
FREE = 0.5  # a card costing 0 MP is valued as if it cost half an MP: always worth playing


def expected(power, stat, stab, effect, mitigation, accuracy, evasion, crit_rate) -> float:
    key = (power, stat, stab, effect, mitigation, accuracy, evasion, crit_rate)
    value = _EXPECTED.get(key)
    if value is None:
        from .damage import type_multiplier

        value = _EXPECTED[key] = float(
            expected_damage(
                power=power,
                stat=stat,
                stab=stab,
                type_multiplier=type_multiplier(effect),
                mitigation=mitigation,
                accuracy=accuracy,
                evasion=evasion,
                crit_rate=crit_rate,
            )
        )
    return value


def card_expected(view: View, card, tier: int, user, enemy) -> float:
    """Exact expected damage (R4, R5) of this card from this user on this enemy."""
    spec = user.spec
    physical = card.category == "physical"
    return expected(
        card.power_at(tier),
        spec.physical_damage if physical else spec.magic_damage,
        card.type == spec.type,
        view.effect(card.type, enemy.spec.type),
        enemy.spec.defense if physical else enemy.spec.resistance,
        spec.physical_accuracy if physical else spec.magic_accuracy,
        enemy.spec.evasion,
        spec.crit_rate,
    )


def _matchup(view: View, fighter_type: str) -> int:
    """Enemies whose Type it is weak to, minus enemies weak to its Type."""
    enemy_types = tuple(e.spec.type for e in view.enemies)
    key = ("matchup", fighter_type, enemy_types)
    score = view.memo.get(key)
    if score is None:
        score = 0
        for enemy_type in enemy_types:
            score += view.effect(enemy_type, fighter_type) == "weak"
            score -= view.effect(fighter_type, enemy_type) == "weak"
        view.memo[key] = score
    return score


def greedy_switch(view: View, rng):
    """Swap the field Memeyori in the worst type matchup for the stored one in the best."""
    field = [f for f in view.side.slots if f is not None and f.alive]
    stored = view.side.stored()
    if not field or not stored:
        return None
    worst = max(field, key=lambda f: _matchup(view, f.spec.type))
    worst_score = _matchup(view, worst.spec.type)
    if worst_score <= 0:
        return None
    best = min(stored, key=lambda f: _matchup(view, f.spec.type))
    if _matchup(view, best.spec.type) < worst_score:
        return worst.id, best.id
    return None


def greedy_summon(view: View, rng) -> bool:
    """Summon when Resonance leaves room for upkeep, or when the field is nearly empty."""
    side = view.side
    alive = sum(1 for f in side.slots if f is not None and f.alive)
    return side.resonance >= ARCHON_SUMMON_COST + 2 or (
        alive <= 1 and side.resonance >= ARCHON_SUMMON_COST
    )


def greedy_plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Heal allies under half HP, then the best expected damage per MP until MP runs out."""
    side = view.side
    mp = side.mp
    resonance = side.resonance
    hand = list(side.hand)
    extra: dict[str, int] = {}
    plays = []

    def cost(card, user):
        return card.mp_cost + user.played_nonquick + extra.get(user.id, 0)

    def take(card, user, tier, target_id, spent):
        nonlocal mp, resonance
        mp -= spent
        resonance -= TIER_COST[tier]
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
        hand.remove(card)
        plays.append((card.id, tier, target_id))

    allies = side.field()
    hurt = [f for f in allies if f.hp < f.spec.max_hp * HEAL_BELOW]
    if hurt:
        patient = min(hurt, key=lambda f: f.hp / f.spec.max_hp)
        missing = patient.spec.max_hp - patient.hp
        best = None
        for card in hand:
            if card.category != "support":
                continue
            user = view.user_of(card)
            spent = cost(card, user)
            if spent > mp:
                continue
            value = min(missing, card.power + user.spec.support_power) / (spent or FREE)
            if best is None or value > best[0]:
                best = (value, card, user, spent)
        if best is not None:
            take(best[1], best[2], 1, patient.id, best[3])

    hp_left = {e.id: e.hp for e in view.enemies}
    memo = view.memo
    # (card, user, [(enemy id, ((tier, expected damage), ...)), ...]) for each attack in hand.
    attacks = []
    for card in hand:
        if card.category == "support":
            continue
        user = view.user_of(card)
        rows = []
        for enemy in view.enemies:
            options = memo.get((card.id, enemy.id))
            if options is None:
                options = memo[card.id, enemy.id] = tuple(
                    (t, card_expected(view, card, t, user, enemy)) for t in card.tiers()
                )
            rows.append((enemy.id, options))
        attacks.append((card, user, rows))
    while True:
        best = None
        best_score = -1.0
        # Spread damage: once an enemy is expected to fall, others are worth more.
        rooms = {enemy_id: (hp if hp > 2 else 2) for enemy_id, hp in hp_left.items()}
        for entry in attacks:
            card, user, rows = entry
            spent = card.mp_cost + user.played_nonquick + extra.get(user.id, 0)
            if spent > mp:
                continue
            per_mp = spent or FREE
            for enemy_id, options in rows:
                room = rooms[enemy_id]
                value = options[0][1]
                if value > room:
                    value = room
                tier = 1
                for t, expect in options[1:]:
                    if TIER_COST[t] > resonance:
                        break
                    better = expect if expect < room else room
                    if better - value >= TIER_HP_PER_RESONANCE * (TIER_COST[t] - TIER_COST[tier]):
                        tier, value = t, better
                score = value / per_mp
                if score > best_score:
                    best_score = score
                    best = (entry, tier, enemy_id, spent, value)
        if best is None:
            return plays
        entry, tier, enemy_id, spent, value = best
        hp_left[enemy_id] -= value
        attacks.remove(entry)
        take(entry[0], entry[1], tier, enemy_id, spent)


def random_switch(view: View, rng):
    options = view.switch_options()
    if not options:
        return None
    return rng.choice([None, *options])


def random_summon(view: View, rng) -> bool:
    return rng.random() < 0.5


def random_plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Uniformly random legal choices, one at a time, until it picks "stop" or none is left."""
    side = view.side
    mp = side.mp
    resonance = side.resonance
    hand = list(side.hand)
    extra: dict[str, int] = {}
    allies = [f.id for f in side.field()]
    enemies = [e.id for e in view.enemies]
    plays = []
    while True:
        options = []
        for card in hand:
            user = view.user_of(card)
            spent = card.mp_cost + user.played_nonquick + extra.get(user.id, 0)
            if spent > mp:
                continue
            targets = allies if card.category == "support" else enemies
            for tier in card.tiers():
                if TIER_COST[tier] <= resonance:
                    options.extend((card, user, tier, t, spent) for t in targets)
        if not options:
            return plays
        choice = rng.choice([None, *options])
        if choice is None:
            return plays
        card, user, tier, target, spent = choice
        mp -= spent
        resonance -= TIER_COST[tier]
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
        hand.remove(card)
        plays.append((card.id, tier, target))


GREEDY = Policy("greedy", greedy_switch, greedy_summon, greedy_plays)
RANDOM = Policy("random", random_switch, random_summon, random_plays)
POLICIES = {"greedy": GREEDY, "random": RANDOM}
