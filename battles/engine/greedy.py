"""`greedy` version 2: one round at a time, by rules a player would call sensible.

Cheap on purpose (the lab's default plays millions of plans): every value below is a sum
of a few exact-odds numbers kept in tables shared by every battle of an input. Each rule
fixes one of version 1's habits (issue 19.1, measured by `python -m tests.bench.audit_battles`):

- **Switch** by what it gains and what it costs. The gain is the type matchup (enemies
  whose Type it is weak to, minus enemies weak to its Type: version 1's score) of the one
  going out minus that of the one coming in; the cost is the outgoing Memeyori's cards in
  hand, which leave play (ruling 9), less the one card drawn for the newcomer:
  switch when gain - max(0, cards lost - 1) >= 1, the best such pair (first on a tie).
  Never switch out last round's newcomer (which also rules out switching straight back),
  and never bring in a Memeyori under half its HP unless the one it replaces has a lower
  HP fraction still (a rescue).
- **Archon**: summon only when its upkeep is covered for at least the next two rounds; it
  waits for four (8 + 4 x 1 = 12 Resonance), which the audit measured to leave far fewer
  Archons dismissed for want of upkeep at the same strength; while it is on the field, no
  Tier spends its last two upkeeps, and every other unit is worth 3 HP (a round more of
  the Archon).
- **Cards**, in three passes, each card judged by what it is expected to do per MP (a
  0 MP card counts as half an MP):
  1. the most hurt ally under half HP gets the heal restoring the most HP per MP;
  2. then, repeatedly, the attack and target with the most expected damage *delivered* per
     MP: R4's exact odds x R5's damage of each outcome, each capped at the HP the target is
     expected to have left (at least 2, as a blow at a fallen target goes to another,
     ruling 4), so a big blow goes where it is not wasted (no overkill when another target
     can use the damage);
  3. then, while MP is left, the heal restoring the most HP per MP on any hurt ally (HP
     below its maximum, counting the heals already planned), however little is missing.
- **Tiers** when the extra expected damage (or healing) beats the best other use of that
  Resonance, counted per unit of Resonance from the top: a unit that the next round's
  gain would push over the cap of 16 is worth nothing (it would be lost); with an Archon
  to summon later or on the field, a unit is worth 3 HP (saving for the summon, or its
  upkeep); otherwise 1.5 HP, as in version 1; the active Archon's last two upkeeps are
  never spent.
"""

from .damage import damage, heal_power, type_multiplier
from .field import DISMISSED, FIELD, STORED, View
from .greedy1 import FREE, _matchups, _score_matchup
from .model import ARCHON_SUMMON_COST, RESONANCE_MAX, TIER_COST
from .odds import attack_odds

VERSION = 2
UPKEEP = 1  # R9.1: what an active Archon costs at each round start
UPKEEP_ROUNDS = 2  # while the Archon is on the field, Tiers never spend these upkeeps
# A summon needs its upkeep covered for at least two rounds; four (8 + 4 = 12 Resonance) is
# what the audit measured best: 24% of summons end dismissed for want of upkeep, not 37%.
SUMMON_UPKEEP_ROUNDS = 4
HEAL_BELOW = 0.5  # the first pass heals an ally under half its maximum HP
CARD_WORTH = 1  # a card in hand is worth one point of type matchup
ROOM_AT_LEAST = 2  # a target expected to fall still takes this much (ruling 4 retargets)
HP_PER_RESONANCE = 1.5
SAVING_HP_PER_RESONANCE = 3.0
NEVER = float("inf")
TIER_PRICES = sorted(set(TIER_COST.values()) - {0})

# (power, stat, same Type, chart entry, mitigation, accuracy, evasion, crit rate) ->
# (mean damage, largest damage, ((probability, damage), ...) of each landed outcome,
# {room: the mean capped at room} as _capped finds them).
# Floats steer choices only; the log's numbers come from the engine's exact arithmetic.
_OUTCOMES: dict[tuple, tuple] = {}
TABLE_LIMIT = 100_000
CAPPED_KEPT = 64  # rooms kept per outcome


def _outcomes(power, stat, same_type, effect, mitigation, accuracy, evasion, crit_rate):
    key = (power, stat, same_type, effect, mitigation, accuracy, evasion, crit_rate)
    found = _OUTCOMES.get(key)
    if found is None:
        if len(_OUTCOMES) > TABLE_LIMIT:
            _OUTCOMES.clear()
        multiplier = type_multiplier(effect)
        dist = []
        for critical, complication, p in attack_odds(accuracy, evasion, crit_rate).outcomes():
            if p:
                amount = damage(
                    power, stat, stab=same_type, type_multiplier=multiplier,
                    critical=critical, complication=complication, mitigation=mitigation,
                )  # fmt: skip
                dist.append((float(p), amount))
        mean = sum(p * d for p, d in dist)
        most = max((d for _, d in dist), default=0)
        found = _OUTCOMES[key] = (mean, most, tuple(dist), {})
    return found


def _capped(outcome, room: float) -> float:
    """Expected damage, each outcome capped at `room`; kept per room (the same enemy HP
    comes up plan after plan), each the same float the sum gives."""
    mean, most, dist, known = outcome
    if most <= room:
        return mean
    found = known.get(room)
    if found is None:
        found = 0.0
        for p, d in dist:
            found += p * (d if d < room else room)
        if len(known) < CAPPED_KEPT:
            known[room] = found
    return found


def _blow_table(view: View) -> dict:
    """This enemy field's rows by card id, kept for the battle's input (specs are frozen)."""
    key = ("greedy2", view.enemy_ids)
    table = view.memo.get(key)
    if table is None:
        table = view.memo[key] = {}
    return table


def _enemy_row(view: View, card, user, enemy) -> tuple:
    """((tier, Resonance, outcomes), ...) for each Tier of `card` on `enemy`, and the most
    a Tier adds there, however capped (outcomes align: same odds); kept per card and enemy,
    so a new enemy field costs only the rows of the enemies not met yet."""
    rows = view.memo.get("greedy2 rows")
    if rows is None:
        rows = view.memo["greedy2 rows"] = {}
    key = (card.id, enemy.id)
    found = rows.get(key)
    if found is None:
        spec = user.spec
        e = enemy.spec
        physical = card.category == "physical"
        options = tuple(
            (
                tier,
                TIER_COST[tier],
                _outcomes(
                    card.power_at(tier),
                    spec.physical_damage if physical else spec.magic_damage,
                    card.type == spec.type,
                    view.effect(card.type, e.type),
                    e.defense if physical else e.resistance,
                    spec.physical_accuracy if physical else spec.magic_accuracy,
                    e.evasion,
                    spec.crit_rate,
                ),
            )
            for tier in card.tiers()
        )
        bound = 0.0
        plain = options[0][2][2]
        for _, _, outcome in options[1:]:
            more = sum(
                p * max(0, d - d1) for (p, d), (_, d1) in zip(outcome[2], plain, strict=True)
            )
            bound = max(bound, more)
        found = rows[key] = (options, bound)
    return found


def _blow_rows(view: View, card, user) -> tuple:
    """(rows, the cheapest Tier's Resonance (NEVER without one), the index of the first
    enemy with the largest mean, its Tier 1 outcomes, the largest mean of the others, the
    most a Tier can add).
    Rows, for each enemy in view order: ((tier, Resonance, outcomes), ...) for each Tier."""
    rows = []
    bound = 0.0
    for enemy in view.enemies:
        options, most = _enemy_row(view, card, user, enemy)
        rows.append(options)
        bound = max(bound, most)
    cheapest = rows[0][1][1] if len(rows[0]) > 1 else NEVER
    top_index, top = 0, rows[0][0][2]
    for index, options in enumerate(rows):
        if options[0][2][0] > top[0]:
            top_index, top = index, options[0][2]
    second = max((o[0][2][0] for i, o in enumerate(rows) if i != top_index), default=-1.0)
    return tuple(rows), cheapest, top_index, top, second, bound


def switch(view: View, rng):
    """The Switch worth the most after what it throws away, if any is worth one point."""
    side = view.side
    stored = [f for f in side.roster if f.status == STORED and f.hp > 0]  # Side.stored()
    if not stored:
        return None
    table = _matchups(view)
    last = view.last_switch()
    newcomer = last[1] if last is not None else None
    best = None
    best_value = 0
    ins = None  # (Fighter, HP fraction, matchup) of each one stored, once an out is found
    for out in side.slots:
        if out is None or out.status != FIELD or out.hp <= 0 or out.id == newcomer:
            continue
        out_score = table.get(out.spec.type)
        if out_score is None:
            out_score = _score_matchup(view, out.spec.type)
        if out_score <= 0:
            continue
        mine = out.id + "."
        lost = 0
        for c in side.hand:
            if c.id.startswith(mine):
                lost += 1
        cost = CARD_WORTH * max(0, lost - 1)
        out_hp = out.hp / out.spec.max_hp
        if ins is None:
            ins = []
            for inn in stored:
                score = table.get(inn.spec.type)
                if score is None:
                    score = _score_matchup(view, inn.spec.type)
                ins.append((inn, inn.hp / inn.spec.max_hp, score))
        for inn, in_hp, in_score in ins:
            if in_hp < HEAL_BELOW and in_hp <= out_hp:
                continue
            value = out_score - in_score - cost
            if value > best_value:
                best, best_value = (out.id, inn.id), value
    return best


def summon(view: View, rng) -> bool:
    """Only with the summon and the next four rounds' upkeep in hand."""
    return view.side.resonance >= ARCHON_SUMMON_COST + SUMMON_UPKEEP_ROUNDS * UPKEEP


# (units above which a unit is free, units never spent, HP a unit is worth) and Resonance
# left -> _prices; a few dozen in all.
_PRICES: dict[tuple, dict] = {}
UNAFFORDABLE = dict.fromkeys(TIER_PRICES, NEVER)


def _prices(side, level: int) -> dict:
    """{Resonance: the HP it is worth, or NEVER when it cannot be spent} for each Tier's
    price, with `level` Resonance left: what each unit of this side's Resonance is worth
    this round (module docstring). Shared: never changed by a caller."""
    if level < TIER_PRICES[0]:
        return UNAFFORDABLE
    archon = side.archon
    if archon is not None and archon.status == FIELD:
        purse = (RESONANCE_MAX, UPKEEP_ROUNDS * UPKEEP, SAVING_HP_PER_RESONANCE)
    else:
        free_above = RESONANCE_MAX  # less what the next round start adds (R9.1)
        for f in side.slots:
            if f is not None and f.status == FIELD:
                free_above -= 1
        saving = archon is not None and archon.status in (STORED, DISMISSED)
        purse = (free_above, 0, SAVING_HP_PER_RESONANCE if saving else HP_PER_RESONANCE)
    key = (purse, level)
    found = _PRICES.get(key)
    if found is None:
        free_above, reserve, worth = purse
        found = _PRICES[key] = {}
        for price in TIER_PRICES:
            if price > level - reserve:
                found[price] = NEVER
                continue
            # The units level, level - 1, ..., level - price + 1 that are not above
            # free_above, each worth `worth`: a multiple of 1/2, so count x worth is the sum
            # exactly.
            count = (level if level < free_above else free_above) - (level - price)
            found[price] = worth * count if count > 0 else 0.0
    return found


def _tiered(options, room: float, prices: dict, base: float):
    """(value, Tier) of the best Tier for these ((tier, price, outcome), ...) options."""
    tier, value, net = 1, base, 0.0
    for t, price, outcome in options[1:]:
        more = _capped(outcome, room)
        better = more - base - prices[price]
        if better > net:
            tier, value, net = t, more, better
    return value, tier


def _best_heal(heals, owners, extra, mp, prices, patients, planned_hp):
    """(card, user, MP, Tier, patient, HP restored): of these support cards, the one
    restoring the most HP per MP, or None."""
    best, best_score = None, 0.0
    for card in heals:
        user = owners[card.id]
        cost = card.mp_cost + user.played_nonquick + extra.get(user.id, 0)
        if cost > mp:
            continue
        support = user.spec.support_power
        power = card.power + support  # R5's heal (damage.heal_power)
        per_mp = cost or FREE
        tiered = card.tier2_power is not None
        for f in patients:
            missing = f.spec.max_hp - planned_hp[f.id]
            base = missing if missing < power else power
            tier, restored, net = 1, base, 0.0
            if tiered:
                for t in card.tiers()[1:]:
                    more = min(missing, heal_power(card.power_at(t), support))
                    better = more - base - prices[TIER_COST[t]]
                    if better > net:
                        tier, restored, net = t, more, better
            score = restored / per_mp
            if score > best_score:
                best, best_score = (card, user, cost, tier, f, restored), score
    return best


PLAYED = NEVER  # a planned card's cost: more than any MP pool


def plays(view: View, rng) -> list[tuple[str, int, str]]:
    """The three passes of the module docstring."""
    side = view.side
    owners = view.owners
    mp = side.mp
    level = side.resonance
    prices = _prices(side, level)
    extra: dict[str, int] = {}  # non-Quick cards each user plays in this plan
    plays = []
    enemies = view.enemies
    table = _blow_table(view) if enemies else None
    # [MP it costs now, card, user, _blow_rows] for each attack; a planned one costs PLAYED.
    cands = []
    heals = []
    for card in side.hand:
        if card.category == "support":
            heals.append(card)
        elif table is not None:
            user = owners[card.id]
            rows = table.get(card.id)
            if rows is None:
                rows = table[card.id] = _blow_rows(view, card, user)
            cands.append([card.mp_cost + user.played_nonquick, card, user, rows])
    if heals:
        allies = [f for f in side.slots if f is not None and f.status == FIELD]
        if side.archon is not None and side.archon.status == FIELD:
            allies.append(side.archon)
        planned_hp = {f.id: f.hp for f in allies}
        # 1. The most hurt ally under half HP (the first of them).
        patient, lowest = None, HEAL_BELOW
        for f in allies:
            ratio = f.hp / f.spec.max_hp
            if f.hp > 0 and ratio < lowest:
                patient, lowest = f, ratio
        if patient is not None:
            found = _best_heal(heals, owners, extra, mp, prices, [patient], planned_hp)
            if found is not None:
                card, user, cost, tier, f, restored = found
                planned_hp[f.id] += restored
                mp -= cost
                if tier != 1:
                    level -= TIER_COST[tier]
                    prices = _prices(side, level)
                if not card.quick:
                    extra[user.id] = 1
                    for other in cands:
                        if other[2] is user:
                            other[0] += 1
                heals.remove(card)
                plays.append((card.id, tier, f.id))

    # 2. Attacks, by expected damage delivered per MP.
    if cands:
        enemy_ids = view.enemy_ids
        hp_left = [float(e.hp) for e in enemies]
        while True:
            best, best_score = None, 0.0
            for cand in cands:
                cost = cand[0]
                if cost > mp:
                    continue
                rows, cheapest, top_index, top, second, bound = cand[3]
                per_mp = cost or FREE
                tiers = cheapest <= level and bound > prices[cheapest]
                if not tiers:
                    room = hp_left[top_index]
                    if room < ROOM_AT_LEAST:
                        room = ROOM_AT_LEAST
                    if top[1] <= room:
                        value = top[0]
                    else:
                        value = top[3].get(room)
                        if value is None:
                            value = _capped(top, room)
                    if value > second:
                        # Capping only lowers a value: no other enemy can match this one.
                        score = value / per_mp
                        if score > best_score:
                            best, best_score = (cand, 1, top_index, value), score
                        continue
                for index, options in enumerate(rows):
                    room = hp_left[index]
                    if room < ROOM_AT_LEAST:
                        room = ROOM_AT_LEAST
                    outcome = options[0][2]
                    if outcome[1] <= room:
                        value = outcome[0]
                    else:
                        value = outcome[3].get(room)
                        if value is None:
                            value = _capped(outcome, room)
                    tier = 1
                    if tiers:
                        value, tier = _tiered(options, room, prices, value)
                    score = value / per_mp
                    if score > best_score:
                        best, best_score = (cand, tier, index, value), score
            if best is None:
                break
            cand, tier, index, value = best
            cost, card, user = cand[0], cand[1], cand[2]
            cand[0] = PLAYED
            hp_left[index] -= value
            mp -= cost
            if tier != 1:
                level -= TIER_COST[tier]
                prices = _prices(side, level)
            if not card.quick:
                extra[user.id] = extra.get(user.id, 0) + 1
                for other in cands:
                    if other[2] is user:
                        other[0] += 1
            plays.append((card.id, tier, enemy_ids[index]))

    # 3. Leftover MP heals whoever is hurt at all.
    while heals:
        hurt = [f for f in allies if f.hp > 0 and planned_hp[f.id] < f.spec.max_hp]
        if not hurt:
            break
        found = _best_heal(heals, owners, extra, mp, prices, hurt, planned_hp)
        if found is None:
            break
        card, user, cost, tier, f, restored = found
        planned_hp[f.id] += restored
        mp -= cost
        if tier != 1:
            level -= TIER_COST[tier]
            prices = _prices(side, level)
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
        heals.remove(card)
        plays.append((card.id, tier, f.id))
    return plays
