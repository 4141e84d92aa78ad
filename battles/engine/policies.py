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
    return _matchups(view).get(fighter_type) or _score_matchup(view, fighter_type)


def _matchups(view: View) -> dict[str, int]:
    """This enemy field's matchup scores by Type, kept for the battle (the chart is fixed)."""
    key = ("matchup", tuple(e.spec.type for e in view.enemies))
    table = view.memo.get(key)
    if table is None:
        table = view.memo[key] = {}
    return table


def _score_matchup(view: View, fighter_type: str) -> int:
    table = _matchups(view)
    score = table.get(fighter_type)
    if score is None:
        score = 0
        for enemy in view.enemies:
            score += view.effect(enemy.spec.type, fighter_type) == "weak"
            score -= view.effect(fighter_type, enemy.spec.type) == "weak"
        table[fighter_type] = score
    return score


def greedy_switch(view: View, rng):
    """Swap the field Memeyori in the worst type matchup for the stored one in the best."""
    side = view.side
    stored = side.stored()
    if not stored:
        return None
    table = _matchups(view)
    worst = None
    worst_score = 0
    for f in side.slots:
        if f is not None and f.alive:
            score = table.get(f.spec.type)
            if score is None:
                score = _score_matchup(view, f.spec.type)
            # The first of the worst, as max() picks.
            if worst is None or score > worst_score:
                worst, worst_score = f, score
    if worst is None or worst_score <= 0:
        return None
    best = None
    best_score = 0
    for f in stored:
        score = table.get(f.spec.type)
        if score is None:
            score = _score_matchup(view, f.spec.type)
        if best is None or score < best_score:
            best, best_score = f, score
    if best_score < worst_score:
        return worst.id, best.id
    return None


def greedy_summon(view: View, rng) -> bool:
    """Summon when Resonance leaves room for upkeep, or when the field is nearly empty."""
    side = view.side
    alive = sum(1 for f in side.slots if f is not None and f.alive)
    return side.resonance >= ARCHON_SUMMON_COST + 2 or (
        alive <= 1 and side.resonance >= ARCHON_SUMMON_COST
    )


def _rows(view: View, card, user) -> tuple:
    """(enemy index, Tier 1 expected damage, ((tier, Resonance, expected damage), ...)) for
    each enemy in view order: the numbers greedy weighs for one card, kept for the battle."""
    memo = view.memo
    rows = []
    for index, enemy in enumerate(view.enemies):
        options = memo.get((card.id, enemy.id))
        if options is None:
            options = memo[card.id, enemy.id] = tuple(
                (t, card_expected(view, card, t, user, enemy)) for t in card.tiers()
            )
        rows.append((index, options[0][1], tuple((t, TIER_COST[t], e) for t, e in options[1:])))
    return tuple(rows)


def greedy_plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Heal allies under half HP, then the best expected damage per MP until MP runs out."""
    side = view.side
    mp = side.mp
    resonance = side.resonance
    owners = view.owners
    extra: dict[str, int] = {}  # non-Quick cards each user plays in this plan
    plays = []

    hurt = [f for f in side.field() if f.hp < f.spec.max_hp * HEAL_BELOW]
    if hurt:
        patient = min(hurt, key=lambda f: f.hp / f.spec.max_hp)
        missing = patient.spec.max_hp - patient.hp
        best = None
        for card in side.hand:
            if card.category != "support":
                continue
            user = owners[card.id]
            spent = card.mp_cost + user.played_nonquick
            if spent > mp:
                continue
            value = min(missing, card.power + user.spec.support_power) / (spent or FREE)
            if best is None or value > best[0]:
                best = (value, card, user, spent)
        if best is not None:
            _, card, user, spent = best
            mp -= spent
            if not card.quick:
                extra[user.id] = 1
            plays.append((card.id, 1, patient.id))

    enemies = view.enemies
    memo = view.memo
    enemy_ids = tuple(e.id for e in enemies)
    hp_left = [e.hp for e in enemies]
    # [MP it costs now, card, user, rows] for each attack in hand that MP still allows.
    cands = []
    for card in side.hand:
        if card.category == "support":
            continue
        user = owners[card.id]
        spent = card.mp_cost + user.played_nonquick + extra.get(user.id, 0)
        if spent > mp:
            continue
        rows = memo.get((card.id, enemy_ids))
        if rows is None:
            rows = memo[card.id, enemy_ids] = _rows(view, card, user)
        cands.append([spent, card, user, rows])
    while cands:
        best = None
        best_score = -1.0
        # Spread damage: once an enemy is expected to fall, others are worth more.
        rooms = [hp if hp > 2 else 2 for hp in hp_left]
        for cand in cands:
            spent = cand[0]
            per_mp = spent or FREE
            for index, value, tiers in cand[3]:
                room = rooms[index]
                if value > room:
                    value = room
                tier = 1
                if tiers:
                    paid = 0
                    for t, price, expect in tiers:
                        if price > resonance:
                            break
                        better = expect if expect < room else room
                        if better - value >= TIER_HP_PER_RESONANCE * (price - paid):
                            tier, value, paid = t, better, price
                score = value / per_mp
                if score > best_score:
                    best_score = score
                    best = (cand, tier, index, value)
        if best is None:
            break
        cand, tier, index, value = best
        spent, card, user, _ = cand
        hp_left[index] -= value
        mp -= spent
        resonance -= TIER_COST[tier]
        plays.append((card.id, tier, enemy_ids[index]))
        if not card.quick:
            for other in cands:
                if other[2] is user:
                    other[0] += 1
        cands = [c for c in cands if c is not cand and c[0] <= mp]
    return plays


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
