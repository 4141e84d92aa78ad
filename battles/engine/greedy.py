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

Ties go to the card first in hand, then to the enemy first in field order (the View's), and
each score is the float its plain sum gives (capped), so that how the scan is organised
never changes a choice. What keeps it cheap: everything a card's plays depend on that is
printed on the cards is kept per enemy field (greedy_tables.py); and each attack carries
the most its score can be (its largest mean, per MP at its printed cost), so the scan looks
at the attacks highest bound first and stops at the first that cannot match the best so far.
"""

from operator import itemgetter
from typing import Any, Final

from .field import DISMISSED, FIELD, STORED, View
from .greedy_tables import (
    BOUND_MARGIN,
    FREE,
    HEAL,
    NEVER,
    blow_table,
    capped,
    card_entry,
    matchups,
    score_matchup,
)
from .model import ARCHON_SUMMON_COST, RESONANCE_MAX, TIER_COST
from .near_limit import summon_for_the_limit

VERSION: Final = 2
UPKEEP: Final = 1  # R9.1: what an active Archon costs at each round start
UPKEEP_ROUNDS: Final = 2  # while the Archon is on the field, Tiers never spend these upkeeps
# A summon needs its upkeep covered for at least two rounds; four (8 + 4 = 12 Resonance) is
# what the audit measured best: 24% of summons end dismissed for want of upkeep, not 37%.
SUMMON_UPKEEP_ROUNDS: Final = 4
HEAL_BELOW: Final = 0.5  # the first pass heals an ally under half its maximum HP
CARD_WORTH: Final = 1  # a card in hand is worth one point of type matchup
ROOM_AT_LEAST: Final = 2  # a target expected to fall still takes this much (ruling 4 retargets)
HP_PER_RESONANCE: Final = 1.5
SAVING_HP_PER_RESONANCE: Final = 3.0
TIER_PRICES: Final = sorted(set(TIER_COST.values()) - {0})


def switch(view: View, rng):
    """The Switch worth the most after what it throws away, if any is worth one point."""
    side = view.side
    stored = [f for f in side.roster if f.status == STORED and f.hp > 0]  # Side.stored()
    if not stored:
        return None
    table = matchups(view)
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
            out_score = score_matchup(view, out.spec.type)
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
                    score = score_matchup(view, inn.spec.type)
                ins.append((inn, inn.hp / inn.spec.max_hp, score))
        for inn, in_hp, in_score in ins:
            if in_hp < HEAL_BELOW and in_hp <= out_hp:
                continue
            value = out_score - in_score - cost
            if value > best_value:
                best, best_value = (out.id, inn.id), value
    return best


def summon(view: View, rng) -> bool:
    """Only with the summon and the next four rounds' upkeep in hand; near a round limit
    that decides (R9.6), whenever the upkeep to the limit is covered (near_limit.py)."""
    if summon_for_the_limit(view):
        return True
    return view.side.resonance >= ARCHON_SUMMON_COST + SUMMON_UPKEEP_ROUNDS * UPKEEP


# (units above which a unit is free, units never spent, HP a unit is worth) and Resonance
# left -> _prices; a few dozen in all.
_PRICES: Final[dict[tuple, dict]] = {}
UNAFFORDABLE: Final = dict.fromkeys(TIER_PRICES, NEVER)


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
        # Filled whole before it is shared: another thread may read the table meanwhile.
        found = {}
        for price in TIER_PRICES:
            if price > level - reserve:
                found[price] = NEVER
                continue
            # The units level, level - 1, ..., level - price + 1 that are not above
            # free_above, each worth `worth`: a multiple of 1/2, so count x worth is the sum
            # exactly.
            count = (level if level < free_above else free_above) - (level - price)
            found[price] = worth * count if count > 0 else 0.0
        _PRICES[key] = found
    return found


def _tiered(options, room: float, prices: dict, base: float):
    """(value, Tier) of the best Tier for these ((tier, price, outcome), ...) options."""
    tier, value, net = 1, base, 0.0
    for t, price, outcome in options[1:]:
        more = capped(outcome, room)
        better = more - base - prices[price]
        if better > net:
            tier, value, net = t, more, better
    return value, tier


def _cost(card, owners, extra: dict) -> tuple:
    """(its user, what `card` costs now): R9.2's MP cost plus 1 for each card without Quick
    its user played this round, and for each this plan has it play before."""
    user = owners[card.id]
    return user, card.mp_cost + user.played_nonquick + extra.get(user.id, 0)


def _best_heal(heals, owners, extra, mp, prices, patients):
    """(index in heals, user, MP, Tier, patient, HP restored): of these heals (card_entry) on
    these (ally, HP missing) patients, the one restoring the most HP per MP, or None."""
    best, best_score = None, 0.0
    for i, (_, card, power, tiers) in enumerate(heals):
        user, cost = _cost(card, owners, extra)
        if cost > mp:
            continue
        per_mp = cost or FREE
        for f, missing in patients:
            base = missing if missing < power else power
            tier, restored, net = 1, base, 0.0
            for t, price, more in tiers:
                if missing < more:
                    more = missing
                better = more - base - prices[price]
                if better > net:
                    tier, restored, net = t, more, better
            score = restored / per_mp
            if score > best_score:
                best, best_score = (i, user, cost, tier, f, restored), score
    return best


def _earlier(hand: list, card, other) -> bool:
    """Whether `card` comes before `other` in the hand."""
    for c in hand:
        if c is card:
            return True
        if c is other:
            return False
    return False


_BOUND: Final = itemgetter(0)  # a candidate's bound


def plays(view: View, rng) -> list[tuple[str, int, str]]:
    """The three passes of the module docstring."""
    side = view.side
    owners = view.owners
    hand = side.hand
    mp = side.mp
    level = side.resonance
    prices: Any = None  # _prices, looked up once a Tier comes into question
    extra: dict[str, int] = {}  # non-Quick cards each user plays in this plan
    plays = []
    enemies = view.enemies
    cands = []  # the candidates (card_entry) of the attacks not planned yet
    heals = []
    if enemies:
        table = blow_table(view)
        for card in hand:
            entry = table.get(card.id)
            if entry is None:
                entry = table[card.id] = card_entry(view, card, owners[card.id])
            if entry[0] is HEAL:
                heals.append(entry)
                if entry[3] and prices is None:
                    prices = _prices(side, level)
            elif entry[2] <= level:
                if prices is None:
                    prices = _prices(side, level)
                # Resonance only goes down in a plan and its price up: a Tier not worth its
                # price now never will be, and the bound without one holds.
                cands.append(entry[1] if entry[3] > prices[entry[2]] else entry[0])
            else:
                cands.append(entry[0])  # no Tier it could pay for, in this plan
        cands.sort(key=_BOUND, reverse=True)  # so a scan can stop at the first too low
    else:
        for card in hand:
            if card.category == "support":
                heals.append(card_entry(view, card, owners[card.id]))
        prices = _prices(side, level)
    healed: dict[str, int] = {}  # HP the plan restores, by ally
    if heals:
        # 1. The most hurt ally under half HP (the first of them).
        patient, lowest = None, HEAL_BELOW
        for f in side.slots:
            if f is not None and f.status == FIELD and f.hp > 0:
                ratio = f.hp / f.spec.max_hp
                if ratio < lowest:
                    patient, lowest = f, ratio
        archon = side.archon
        if archon is not None and archon.status == FIELD and archon.hp > 0:
            ratio = archon.hp / archon.spec.max_hp
            if ratio < lowest:
                patient, lowest = archon, ratio
        if patient is not None:
            missing = patient.spec.max_hp - patient.hp
            found = _best_heal(heals, owners, extra, mp, prices, ((patient, missing),))
            if found is not None:
                i, user, cost, tier, f, restored = found
                card = heals[i][1]
                healed[f.id] = restored
                mp -= cost
                if tier != 1:
                    level -= TIER_COST[tier]
                    prices = _prices(side, level)
                if not card.quick:
                    extra[user.id] = 1
                del heals[i]
                plays.append((card.id, tier, f.id))

    # 2. Attacks, by expected damage delivered per MP.
    if cands:
        enemy_ids = view.enemy_ids
        hp_left = [e.hp for e in enemies]
    while cands:
        # The best play so far: its score, its card, and (candidate, Tier, enemy index, value,
        # MP).
        best_score, best_card, best = 0.0, None, None
        for cand in cands:
            if cand[0] < best_score:
                break  # it cannot match the best so far, nor can any after it
            if cand[2] > mp:
                continue  # its printed cost alone is more than the MP left
            card = cand[3]
            user, cost = _cost(card, owners, extra)
            if cost > mp:
                continue
            cheapest, bound, top_index, top_mean, top_most, top, second, rows = cand[4]
            per_mp = cost or FREE
            if cheapest > level or bound <= prices[cheapest]:  # no Tier worth its price
                room = hp_left[top_index]
                if room < ROOM_AT_LEAST:
                    room = ROOM_AT_LEAST
                if top_most <= room:
                    value = top_mean
                else:
                    value = top[3].get(room)
                    if value is None:
                        value = capped(top, room)
                if value > second:
                    # Capping only lowers a value: no other enemy can match this one.
                    score = value / per_mp
                    if score > best_score or (
                        score == best_score and best is not None and _earlier(hand, card, best_card)
                    ):
                        best_score, best_card, best = score, card, (cand, 1, top_index, value, cost)
                    continue
                tiers = False
            else:
                tiers = True
                price = prices[cheapest] + BOUND_MARGIN
            for index, (options, more, worth, worth_tiered) in enumerate(rows):
                if (worth_tiered if tiers else worth) / per_mp < best_score:
                    continue
                room = hp_left[index]
                if room < ROOM_AT_LEAST:
                    room = ROOM_AT_LEAST
                outcome = options[0][2]
                if outcome[1] <= room:
                    value = outcome[0]
                else:
                    value = outcome[3].get(room)
                    if value is None:
                        value = capped(outcome, room)
                tier = 1
                if tiers and more > price:  # a Tier may add more than it costs here
                    value, tier = _tiered(options, room, prices, value)
                score = value / per_mp
                if score > best_score or (
                    score == best_score
                    and best is not None
                    and best_card is not card
                    and _earlier(hand, card, best_card)
                ):
                    best_score, best_card, best = score, card, (cand, tier, index, value, cost)
        if best is None:
            break
        cand, tier, index, value, cost = best
        cands.remove(cand)
        card = cand[3]
        user = owners[card.id]
        hp_left[index] -= value
        mp -= cost
        if tier != 1:
            level -= TIER_COST[tier]
            prices = _prices(side, level)
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
        plays.append((card.id, tier, enemy_ids[index]))
        for cand in cands:
            if cand[2] <= mp:
                break
        else:
            break  # MP allows none of the others, whatever their users played

    # 3. Leftover MP heals whoever is hurt at all.
    while heals:
        for heal in heals:
            if heal[1].mp_cost <= mp:
                break
        else:
            break  # MP allows none of them, whatever their users played
        hurt = []  # (ally, HP missing once the planned heals land)
        for f in side.slots:
            if f is not None and f.status == FIELD and f.hp > 0:
                missing = f.spec.max_hp - f.hp - healed.get(f.id, 0)
                if missing > 0:
                    hurt.append((f, missing))
        archon = side.archon
        if archon is not None and archon.status == FIELD and archon.hp > 0:
            missing = archon.spec.max_hp - archon.hp - healed.get(archon.id, 0)
            if missing > 0:
                hurt.append((archon, missing))
        if not hurt:
            break
        found = _best_heal(heals, owners, extra, mp, prices, hurt)
        if found is None:
            break
        i, user, cost, tier, f, restored = found
        card = heals[i][1]
        healed[f.id] = healed.get(f.id, 0) + restored
        mp -= cost
        if tier != 1:
            level -= TIER_COST[tier]
            prices = _prices(side, level)
        if not card.quick:
            extra[user.id] = extra.get(user.id, 0) + 1
        del heals[i]
        plays.append((card.id, tier, f.id))
    return plays
