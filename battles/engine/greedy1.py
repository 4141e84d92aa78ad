"""`greedy` version 1, frozen: battles and labs made with it replay with it, to the byte.

Do not change what these functions choose (tests/golden_battles.json holds thousands of
its battles); `greedy.py` is the version that improves. Its expected-damage tables below
are shared with the later versions, which read them the same way.

Version 1 heals the most hurt ally under half HP with its best heal per MP; then,
repeatedly, plays the card and target with the best exact expected damage (R4 odds x R5
damage, capped at the target's remaining HP) per MP, paying for a Tier when each
Resonance buys at least 1.5 expected HP (a 0 MP card counts as costing half an MP), never
spending the active Archon's next upkeep on a Tier; switches its Memeyori in the worst type
matchup for a stored one in a better one, but never straight back to the one it switched
out the round before; summons the Archon at 10 Resonance, or at 9 (the summon plus one
upkeep) when at most one Memeyori is standing.
"""

import itertools

from .damage import heal_power
from .field import FIELD, View
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
    key = ("matchup", view.enemy_ids)
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
        if f is not None and f.status == FIELD and f.hp > 0:  # Fighter.alive, inlined
            score = table.get(f.spec.type)
            if score is None:
                score = _score_matchup(view, f.spec.type)
            # The first of the worst, as max() picks.
            if worst is None or score > worst_score:
                worst, worst_score = f, score
    if worst is None or worst_score <= 0:
        return None
    # Never straight back: the one switched out last round stays out while the one that
    # replaced it is the worst (a switch undone only hands the enemy a free round).
    last = view.last_switch()
    barred = last[0] if last is not None and last[1] == worst.id else None
    best = None
    best_score = 0
    for f in stored:
        if f.id == barred:
            continue
        score = table.get(f.spec.type)
        if score is None:
            score = _score_matchup(view, f.spec.type)
        if best is None or score < best_score:
            best, best_score = f, score
    if best is not None and best_score < worst_score:
        return worst.id, best.id
    return None


UPKEEP = 1  # R9.1: what an active Archon costs at each round start


def greedy_summon(view: View, rng) -> bool:
    """Summon when Resonance leaves room for upkeep, or when the field is nearly empty; never
    with less than the next round's upkeep left over, or the Archon is dismissed at once."""
    side = view.side
    alive = sum(1 for f in side.slots if f is not None and f.alive)
    return side.resonance >= ARCHON_SUMMON_COST + 2 or (
        alive <= 1 and side.resonance >= ARCHON_SUMMON_COST + UPKEEP
    )


# Greedy's tables are pure functions of numbers printed on the cards, the chart and R4-R5,
# so they are kept across battles, keyed by interned numbers: a card with its user's stats
# (and the card's Type), an enemy's defences and Type, a chart, an enemy field. Numbers are
# never reused, so clearing the tables (when they grow large) never confuses a battle.
_NUMBERS: dict[tuple, int] = {}
_NEXT_NUMBER = itertools.count()
_ROWS: dict[tuple[int, int], tuple] = {}
TABLE_LIMIT = 100_000


def _number(key: tuple) -> int:
    number = _NUMBERS.get(key)
    if number is None:
        if len(_NUMBERS) > TABLE_LIMIT:
            _NUMBERS.clear()
        number = _NUMBERS[key] = next(_NEXT_NUMBER)
    return number


def _pair(view: View, card, user, enemy) -> tuple:
    """(Tier 1 expected damage, ((tier, Resonance, expected damage), ...) for higher Tiers)
    of the card from its user on the enemy."""
    return (
        card_expected(view, card, 1, user, enemy),
        tuple(
            (t, TIER_COST[t], card_expected(view, card, t, user, enemy)) for t in card.tiers()[1:]
        ),
    )


# The ratio below which two expected damages count as close: further apart, a division by
# the same MP cannot make them tie, so the larger is the better play whatever the MP.
_CLOSE = 1e-9
NO_TIER = float("inf")
PLAYED = float("inf")


def _rows(view: View, card, user) -> tuple:
    """What greedy weighs for one card against this enemy field.

    (rows, top index, top, shortcut): rows are (enemy index, Tier 1 expected damage,
    ((tier, Resonance, expected damage), ...)) in view order; top is the first largest
    Tier 1 expected damage. When top is sharp (no earlier enemy is close to it), the
    Resonance is below the shortcut (the cheapest Tier's, or any when there is no Tier),
    and the top enemy has room for it, that enemy is this card's best target exactly as the
    full scan would find it, so greedy skips the scan. A blunt top has shortcut -1: never.
    """
    rows = []
    top = -1.0
    top_index = 0
    for index, enemy in enumerate(view.enemies):
        value, tiers = _pair(view, card, user, enemy)
        rows.append((index, value, tiers))
        if value > top:
            top, top_index = value, index
    sharp = True
    for _, value, _ in rows[:top_index]:
        if top - value <= top * _CLOSE:
            sharp = False
    tiers = rows[0][2]
    shortcut = (tiers[0][1] if tiers else NO_TIER) if sharp else -1
    return tuple(rows), top_index, top, shortcut


def _card_number(view: View, card, user) -> int:
    memo = view.memo
    number = memo.get(card.id)
    if number is None:
        spec = user.spec
        physical = card.category == "physical"
        number = memo[card.id] = _number(
            (
                "card",
                card.type,
                physical,
                card.power,
                card.tiers()[-1],
                card.tier2_power,
                card.tier3_power,
                spec.physical_damage if physical else spec.magic_damage,
                card.type == spec.type,
                spec.physical_accuracy if physical else spec.magic_accuracy,
                spec.crit_rate,
            )
        )
    return number


def _field_table(view: View, enemy_ids: tuple) -> tuple[int, dict]:
    """(this enemy field's number, its rows by card id for this battle)."""
    memo = view.memo
    chart = memo.get("chart")
    if chart is None:
        chart = memo["chart"] = _number(("chart", frozenset(view.chart.items())))
    foes = []
    for enemy in view.enemies:
        foe = memo.get(enemy.id)
        if foe is None:
            spec = enemy.spec
            foe = memo[enemy.id] = _number(
                ("foe", spec.type, spec.defense, spec.resistance, spec.evasion)
            )
        foes.append(foe)
    entry = memo[enemy_ids] = (_number(("field", chart, tuple(foes))), {})
    return entry


def greedy_plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Heal allies under half HP, then the best expected damage per MP until MP runs out."""
    side = view.side
    mp = side.mp
    resonance = side.resonance
    if side.archon_active():
        resonance -= UPKEEP  # Tiers never spend the Archon's next upkeep
    owners = view.owners
    extra: dict[str, int] = {}  # non-Quick cards each user plays in this plan
    plays = []

    patient = None
    lowest = 1.0
    for f in side.field():
        if f.hp < f.spec.max_hp * HEAL_BELOW:
            # The most hurt (the first of them), as min() picks.
            ratio = f.hp / f.spec.max_hp
            if patient is None or ratio < lowest:
                patient, lowest = f, ratio
    if patient is not None:
        missing = patient.spec.max_hp - patient.hp
        best = None
        for card in side.hand:
            if card.category != "support":
                continue
            user = owners[card.id]
            spent = card.mp_cost + user.played_nonquick
            if spent > mp:
                continue
            value = min(missing, heal_power(card.power, user.spec.support_power)) / (spent or FREE)
            if best is None or value > best[0]:
                best = (value, card, user, spent)
        if best is not None:
            _, card, user, spent = best
            mp -= spent
            if not card.quick:
                extra[user.id] = 1
            plays.append((card.id, 1, patient.id))

    enemies = view.enemies
    if not enemies:
        return plays
    enemy_ids = view.enemy_ids
    field, table = view.memo.get(enemy_ids) or _field_table(view, enemy_ids)
    hp_left = [e.hp for e in enemies]
    # [MP it costs now, card, user, rows, top index, top, shortcut] for each attack in hand
    # that MP allows; a played one costs more than any pool.
    cands = []
    for card in side.hand:
        if card.category == "support":
            continue
        user = owners[card.id]
        spent = card.mp_cost + user.played_nonquick
        if extra:
            spent += extra.get(user.id, 0)
        if spent > mp:
            continue
        rows = table.get(card.id)
        if rows is None:
            key = (_card_number(view, card, user), field)
            rows = _ROWS.get(key)
            if rows is None:
                if len(_ROWS) > TABLE_LIMIT:
                    _ROWS.clear()
                rows = _ROWS[key] = _rows(view, card, user)
            table[card.id] = rows
        cands.append([spent, card, user, *rows])
    while cands:
        best = None
        best_score = -1.0
        for cand in cands:
            spent, _, _, rows, top_index, top, shortcut = cand
            if spent > mp:
                continue
            per_mp = spent or FREE
            if resonance < shortcut:
                # Spread damage: once an enemy is expected to fall, others are worth more;
                # its room is its expected HP left, at least 2.
                room = hp_left[top_index]
                if top <= room or top <= 2:
                    score = top / per_mp
                    if score > best_score:
                        best_score = score
                        best = (cand, 1, top_index, top)
                    continue
            for index, value, tiers in rows:
                room = hp_left[index]
                if not room > 2:
                    room = 2
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
        spent, card, user = cand[0], cand[1], cand[2]
        cand[0] = PLAYED
        hp_left[index] -= value
        mp -= spent
        resonance -= TIER_COST[tier]
        plays.append((card.id, tier, enemy_ids[index]))
        if not card.quick:
            for other in cands:
                if other[2] is user:
                    other[0] += 1
    return plays
