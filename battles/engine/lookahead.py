"""`lookahead` version 2: more candidates, and greedy's choice unless another is surely better.

For each decision of a plan (the Switch, the Archon summon, the cards) it weighs candidates
and plays each out in sampled worlds with the engine's own rules (plan, resolve, settle,
end, start: nothing re-implemented), the enemy planning by greedy in each world and both
sides by greedy in the `EXTRA_ROUNDS` rounds after this one, and scores a world by what is
left (as version 1: a side's Memeyori count 1 each while conscious plus their HP fraction,
its Archon on the field half that, its Resonance a little; a won battle is worth +100, a
lost one -100).

What version 2 changes from version 1 (lookahead1.py):
- more candidates. Switch: greedy's (or none), no Switch, version 1's greedy's, and each
  rescue (the Memeyori on the field with the lowest HP fraction out, any stored one in).
  Cards: version 1's (greedy's cards; all aimed at one enemy; without the heals; every
  attack at its highest Tier; greedy version 1's cards), and greedy's cards with one attack
  aimed elsewhere, one card held back, one card a Tier up or down, and greedy's own plan
  against each enemy alone.
- greedy's choice stands unless another is surely better. Version 1 took the best mean
  over ten worlds, and with a few candidates a lucky one often won: measured against many
  worlds played out to the end, its picks did no better than greedy's own. Here each
  candidate's gain over greedy's choice is counted world by world (the same worlds, the
  same dice), a candidate with no gain in the first `FIRST` worlds is dropped, and one
  displaces greedy's choice only if its mean gain over all `SAMPLES` worlds, less `DOUBT`
  standard errors, is above zero (the largest such wins).

It sees what a player at the table sees, and nothing else, exactly as version 1:
- its own hand, discard pile and the *contents* of its draw pile, never their order: each
  world shuffles its draw pile anew;
- the enemy field as it stood before either side planned (View.enemies), the enemy's
  Resonance and number of cards in hand as planning began (View.shown), which of its
  combatants are knocked out, and the cards printed on its combatants. The enemy's hand in
  each world is that many cards drawn at random from the cards of its Memeyori and Archon
  on the field; its real hand, draw pile and plan are never read.
Its dice are its own: one number drawn from the battle's generator per plan seeds a
private `random.Random`, which seeds every world, so a battle stays deterministic for a
seed and the policy never reads or copies the battle generator's state. The worlds share
their seeds across candidates and decisions (common random numbers), so candidates are
compared on the same dice and the same enemy hands.

The sampled world, its tally sink and the score are version 1's (lookahead1.py, frozen).
Its choices are made of greedy version 2's and version 1's: a change to either, or to a
number below, makes a new lookahead version.
"""

import math
import random

from . import end, greedy, greedy1, plan, resolve, start
from .field import DISMISSED, FIELD, KO, STORED, EnemyView, View
from .lookahead1 import _summon, _world
from .model import TIER_COST

VERSION = 2
SAMPLES = 12  # worlds per candidate
FIRST = 5  # a candidate no better than greedy's in these first worlds is dropped
DOUBT = 1.0  # standard errors a candidate's mean gain over greedy's must clear
EXTRA_ROUNDS = 5  # rounds played out after this one, both sides by greedy
WIN = 100.0
RESONANCE_WORTH = 0.02  # per unit, against 1 for a conscious Memeyori
ARCHON_WORTH = 0.5
HP_WORTH = 1.0  # a Memeyori at full HP, on top of the 1 it counts while conscious
HAND_WORTH = 0.0  # per card in hand

_new_tuple = tuple.__new__


class _Known:
    """What this side knows as it begins to plan (see the module docstring)."""

    __slots__ = ("view", "seeds", "me", "my_field", "enemy", "pool", "hand_size", "resonance")

    def __init__(self, view: View, rng):
        engine = view._engine
        side = view.side
        self.view = view
        private = random.Random(rng.random())  # the one draw from the battle's generator
        self.seeds = [private.getrandbits(64) for _ in range(SAMPLES)]
        self.me = side.index
        # Our field as the enemy saw it when planning began (before our Switch or summon).
        self.my_field = tuple(_new_tuple(EnemyView, (f.id, f.spec, f.hp)) for f in side.field())
        enemy = engine.sides[1 - side.index]
        on_field = {e.id: e.hp for e in view.enemies}
        # (fighter id, status, hp) of every enemy combatant, as planning began.
        self.enemy = []
        for f in [*enemy.roster, *([enemy.archon] if enemy.archon else [])]:
            if f.id in on_field:
                status, hp = FIELD, on_field[f.id]
            elif f.status == KO:
                status, hp = KO, f.hp
            else:
                status, hp = (DISMISSED if f.status == DISMISSED else STORED), f.hp
            self.enemy.append((f.id, status, hp))
        # The cards the enemy may hold: those of its combatants on the field.
        self.pool = [c for e in view.enemies for c in e.spec.playable_cards()]
        shown = view.shown(enemy.index)
        if shown is None:  # a View made by hand, outside plan_round: the opening hand
            shown = (enemy.resonance, 2 + enemy.spec.draw)
        self.resonance, self.hand_size = shown[0], min(shown[1], len(self.pool))


def _known(view: View, rng) -> _Known:
    """This plan's knowledge, made once per plan (at its first decision)."""
    known = view.memo.get("lookahead2")
    if known is None or known.view is not view:
        known = view.memo["lookahead2"] = _Known(view, rng)
    return known


def _greedy_side(world, side, enemies) -> list:
    """One side's whole plan by greedy against `enemies` (EnemyView tuples), committed."""
    view = View(world, side, enemies, world.round)
    choice = greedy.switch(view, world.rng)
    if choice is not None:
        plan.switch(world, side, *choice)
    if side.archon is not None and view.can_summon() and greedy.summon(view, world.rng):
        _summon(world, side)
    return plan.commit(world, side, greedy.plays(view, world.rng), view)


def _material(side) -> float:
    total = side.resonance * RESONANCE_WORTH + len(side.hand) * HAND_WORTH
    for f in side.roster:
        if f.hp > 0 and f.status != KO:
            total += 1 + HP_WORTH * f.hp / f.spec.max_hp
    archon = side.archon
    if archon is not None and archon.status == FIELD and archon.hp > 0:
        total += ARCHON_WORTH * (1 + HP_WORTH * archon.hp / archon.spec.max_hp)
    return total


def _score(world, me: int) -> float:
    winner = end.winner(world)
    if winner is not False:
        return 0.0 if winner is None else (WIN if winner == me else -WIN)
    return _material(world.sides[me]) - _material(world.sides[1 - me])


def _play_out(known: _Known, seed: int, switch=False, summon=None, plays=None) -> float:
    """One world's score for our candidate: `switch` (False: already decided), `summon`
    (None: already decided), `plays` (a list of cards, or None: greedy's)."""
    world = _world(known, seed)
    me = world.sides[known.me]
    enemy = world.sides[1 - known.me]
    enemy_field = tuple(_new_tuple(EnemyView, (f.id, f.spec, f.hp)) for f in enemy.field())
    enemy_plays = _greedy_side(world, enemy, known.my_field)
    view = View(world, me, enemy_field, world.round)
    if switch is not False and switch is not None:
        plan.switch(world, me, *switch)
    if summon or (
        summon is None
        and switch is not False
        and me.archon is not None
        and view.can_summon()
        and greedy.summon(view, world.rng)
    ):
        _summon(world, me)
    chosen = plays if plays is not None else greedy.plays(view, world.rng)
    my_plays = plan.commit(world, me, chosen, view)
    plans = [my_plays, enemy_plays] if known.me == 0 else [enemy_plays, my_plays]
    if resolve.resolve_round(world, plans) or end.winner(world) is not False:
        return _score(world, known.me)
    end.round_end(world)
    for _ in range(EXTRA_ROUNDS):
        world.round += 1
        start.round_start(world)
        if end.winner(world) is not False:
            break
        if resolve.resolve_round(world, plan.plan_round(world)):
            break
        if end.winner(world) is not False:
            break
        end.round_end(world)
    return _score(world, known.me)


def _best(known: _Known, candidates: list[dict]) -> int:
    """The index of the candidate most surely better than the first (greedy's), or 0.

    Each candidate is played out in the same `SAMPLES` worlds as the first; its gain in a
    world is its score there minus the first's. One whose gains in the first `FIRST`
    worlds sum to nothing or less is dropped; the others count by the mean of their gains
    less `DOUBT` standard errors of that mean, so that one better only on average over a
    few lucky worlds does not displace greedy's choice (ties to the earlier)."""
    seeds = known.seeds
    first = [_play_out(known, seed, **candidates[0]) for seed in seeds]
    count = len(seeds)
    best, best_bound = 0, 0.0
    for index in range(1, len(candidates)):
        candidate = candidates[index]
        gains = [
            _play_out(known, seed, **candidate) - base
            for seed, base in zip(seeds[:FIRST], first, strict=False)
        ]
        if sum(gains) <= 0:  # no better than greedy's in the first worlds: dropped
            continue
        gains += [
            _play_out(known, seed, **candidate) - base
            for seed, base in zip(seeds[FIRST:], first[FIRST:], strict=True)
        ]
        mean = sum(gains) / count
        spread = sum((g - mean) ** 2 for g in gains) / (count - 1)
        bound = mean - DOUBT * math.sqrt(spread / count)
        if bound > best_bound:
            best, best_bound = index, bound
    return best


def switch(view: View, rng):
    """Greedy's Switch (or none), unless none, version 1's or a rescue surely plays out better."""
    known = _known(view, rng)
    options = [greedy.switch(view, rng)]  # greedy's first: the one to beat
    # A rescue: the most hurt Memeyori on the field (by HP fraction) out, any stored one in.
    field = [f for f in view.side.slots if f is not None and f.alive]
    hurt = min(field, key=lambda f: f.hp / f.spec.max_hp, default=None)
    rescues = [(o, i) for o, i in view.switch_options() if hurt is not None and o == hurt.id]
    for choice in (None, greedy1.greedy_switch(view, rng), *rescues):
        if choice not in options:
            options.append(choice)
    if len(options) == 1:
        return options[0]
    return options[_best(known, [{"switch": o} for o in options])]


def summon(view: View, rng) -> bool:
    """Summon now or keep the Resonance, whichever plays out best (greedy's first)."""
    known = _known(view, rng)
    first = greedy.summon(view, rng)
    options = [first, not first]
    return options[_best(known, [{"summon": o} for o in options])]


def _variants(view: View, rng) -> list[list]:
    """Greedy's cards and their neighbours, each legal as it stands (MP, Resonance)."""
    base = greedy.plays(view, rng)
    side = view.side
    cards = {c.id: c for c in side.hand}
    out = [base]

    def add(plays):
        if plays and plays not in out:
            out.append(plays)

    support = {cid for cid, _, _ in base if cards[cid].category == "support"}
    # Version 1's neighbours.
    for target in view.enemy_ids:
        add([(cid, tier, t if cid in support else target) for cid, tier, t in base])
    add([p for p in base if p[0] not in support])
    spare = side.resonance - sum(TIER_COST[tier] for _, tier, _ in base)
    left = spare - (greedy.UPKEEP_ROUNDS if side.archon_active() else 0)
    tiered = []
    for cid, tier, target in base:
        left += TIER_COST[tier]
        best = tier
        for t in cards[cid].tiers():
            if TIER_COST[t] <= left:
                best = t
        left -= TIER_COST[best]
        tiered.append((cid, best, target))
    add(tiered)
    add(greedy1.greedy_plays(view, rng))
    # Greedy's plan against each enemy alone (its Tiers and order for that target).
    if len(view.enemies) > 1:
        for enemy in view.enemies:
            alone = View(view._engine, side, (enemy,), view.round)
            add(greedy.plays(alone, rng))
    # One attack aimed elsewhere.
    for index, (cid, tier, target) in enumerate(base):
        if cid in support:
            continue
        for other in view.enemy_ids:
            if other != target:
                add([*base[:index], (cid, tier, other), *base[index + 1 :]])
    # One card held back (the cards after it cost no more without it).
    for index in range(len(base)):
        add([*base[:index], *base[index + 1 :]])
    # One card a Tier up or down.
    for index, (cid, tier, target) in enumerate(base):
        for t in cards[cid].tiers():
            if t != tier and TIER_COST[t] - TIER_COST[tier] <= spare:
                add([*base[:index], (cid, t, target), *base[index + 1 :]])
    return out


def plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Greedy's cards or one of their neighbours, whichever plays out best."""
    known = _known(view, rng)
    options = _variants(view, rng)
    if len(options) == 1:
        return options[0]
    return options[_best(known, [{"plays": o} for o in options])]
