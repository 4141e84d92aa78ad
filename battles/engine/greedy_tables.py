"""What greedy (greedy.py) reads of a card against an enemy field, worked out once and kept.

Greedy plays millions of plans in a lab, and most of what a plan weighs is printed on the
cards: a card's odds and damage against an enemy, its bound, the type matchups of a field.
These tables hold that per battle input (View.memo) or for the process (_OUTCOMES), so a plan
costs only what changes from round to round: HP, MP, Resonance and the hand. Floats here steer
choices only; the log's numbers come from the engine's exact arithmetic (damage.py, R5).
"""

import itertools
from typing import Final

from .damage import damage, heal_power, type_multiplier
from .field import View
from .model import TIER_COST
from .odds import attack_odds

FREE: Final = 0.5  # a card costing 0 MP is valued as if it cost half an MP: always worth playing
NEVER: Final = float("inf")
# A capped mean exceeds the plain mean, or a Tier adds more than its bound, by rounding at
# most (a few units in the last place of numbers below 100): every bound below has this
# margin added, so a play skipped on a bound is one the full computation would not pick.
BOUND_MARGIN: Final = 1e-9

# (power, stat, same Type, chart entry, mitigation, accuracy, evasion, crit rate) ->
# (mean damage, largest damage, ((probability, damage), ...) of each landed outcome,
# {room: the mean capped at room} as capped finds them).
# Floats steer choices only; the log's numbers come from the engine's exact arithmetic.
_OUTCOMES: Final[dict[tuple, tuple]] = {}
TABLE_LIMIT: Final = 100_000
CAPPED_KEPT: Final = 64  # rooms kept per outcome


def outcomes(power, stat, same_type, effect, mitigation, accuracy, evasion, crit_rate):
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
        # sum() of a list, not of a generator: mypyc compiles the latter to plain additions,
        # and Python's sum adds floats with compensation (3.12+): one battle in 600 of the
        # golden demo set chose another target on the compiled engine.
        mean = sum([p * d for p, d in dist])
        most = max((d for _, d in dist), default=0)
        found = _OUTCOMES[key] = (mean, most, tuple(dist), {})
    return found


def capped(outcome, room: float) -> float:
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


# -- what a card does against an enemy field: kept for the battle's input ------------------
# Specs are frozen, so a card's entry below never goes stale; the memo (View.memo) is shared
# by every battle of one input, and a lab plays thousands.


def blow_table(view: View) -> dict:
    """This enemy field's entries (card_entry) by card id."""
    key = ("greedy2", view.enemy_ids)
    table = view.memo.get(key)
    if table is None:
        table = view.memo[key] = {}
    return table


def enemy_row(view: View, card, user, enemy) -> tuple:
    """(((tier, Resonance, outcomes), ...) for each Tier of `card` on `enemy`, the most a
    Tier adds there, however capped (outcomes align: same odds), the most the card is worth
    there without a Tier, and with one (its largest mean, plus BOUND_MARGIN)); kept per
    card and enemy (memo "greedy2 rows"), so a new enemy field costs only the rows of the
    enemies not met yet."""
    spec = user.spec
    e = enemy.spec
    physical = card.category == "physical"
    options = tuple(
        (
            tier,
            TIER_COST[tier],
            outcomes(
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
        more = sum(  # of a list, as in outcomes
            [p * max(0, d - d1) for (p, d), (_, d1) in zip(outcome[2], plain, strict=True)]
        )
        bound = max(bound, more)
    worth = options[0][2][0] + BOUND_MARGIN
    worth_tiered = max(o[2][0] for o in options) + BOUND_MARGIN
    return options, bound, worth, worth_tiered


def matchups(view: View) -> dict[str, int]:
    """This enemy field's matchup scores by Type, kept for the battle (the chart is fixed)."""
    key = ("matchup", view.enemy_ids)
    table = view.memo.get(key)
    if table is None:
        table = view.memo[key] = {}
    return table


def score_matchup(view: View, fighter_type: str) -> int:
    """Enemies whose Type it is weak to, minus enemies weak to its Type (version 1's)."""
    table = matchups(view)
    score = table.get(fighter_type)
    if score is None:
        score = 0
        for enemy in view.enemies:
            score += view.effect(enemy.spec.type, fighter_type) == "weak"
            score -= view.effect(fighter_type, enemy.spec.type) == "weak"
        table[fighter_type] = score
    return score


HEAL: Final = "heal"  # what a heal's entry starts with
_SERIALS: Final = itertools.count()  # tells candidates apart, so == on two never reaches a card


def card_entry(view: View, card, user) -> tuple:
    """What plays reads of one card against this enemy field.

    A heal's: (HEAL, card, HP it restores, ((tier, Resonance, HP restored), ...) for each
    higher Tier), R5's heal with its user's Support Power.

    An attack's: (its candidate bounded without a Tier, its candidate bounded with one, the
    cheapest Tier's Resonance (NEVER without one), the most a Tier adds on any enemy).
    A candidate is (the most its score can be, a number of its own, the printed MP cost,
    card, scan): the bound is the most the card is worth on any enemy per MP at the printed
    cost, as R9's surcharge only ever adds to it. Scan: (the cheapest Tier's Resonance, the
    most a Tier adds, the index of the first enemy with the largest Tier 1 mean, that mean,
    that enemy's largest damage, its Tier 1 outcomes, the largest Tier 1 mean of the other
    enemies, each enemy's enemy_row in view order)."""
    if card.category == "support":
        support = user.spec.support_power
        return (
            HEAL,
            card,
            heal_power(card.power, support),
            tuple(
                (t, TIER_COST[t], heal_power(card.power_at(t), support)) for t in card.tiers()[1:]
            ),
        )
    known = view.memo.get("greedy2 rows")
    if known is None:
        known = view.memo["greedy2 rows"] = {}
    rows = []
    for enemy in view.enemies:
        key = (card.id, enemy.id)
        row = known.get(key)
        if row is None:
            row = known[key] = enemy_row(view, card, user, enemy)
        rows.append(row)
    first = rows[0][0]
    cheapest = first[1][1] if len(first) > 1 else NEVER
    top_index, top = 0, first[0][2]
    bound = worth = worth_tiered = 0.0
    for index, row in enumerate(rows):
        if row[0][0][2][0] > top[0]:
            top_index, top = index, row[0][0][2]
        bound = max(bound, row[1])
        worth = max(worth, row[2])
        worth_tiered = max(worth_tiered, row[3])
    second = -1.0
    for index, row in enumerate(rows):
        if index != top_index:
            second = max(second, row[0][0][2][0])
    scan = (cheapest, bound, top_index, top[0], top[1], top, second, tuple(rows))
    per_mp = card.mp_cost or FREE
    serial = next(_SERIALS)
    return (
        (worth / per_mp, serial, card.mp_cost, card, scan),
        (worth_tiered / per_mp, serial, card.mp_cost, card, scan),
        cheapest,
        bound,
    )
