"""`lookahead` version 2, frozen: stored battles it played replay with it, so nothing here
changes (the current version is lookahead.py). More candidates than version 1, and
greedy's choice unless another is surely better.

For each decision of a plan (the Switch, the Archon summon, the cards) it weighs candidates
and plays each out in sampled worlds with the engine's own rules (plan, resolve, settle,
end, start: nothing re-implemented), the enemy planning by greedy in each world and both
sides by greedy in the five rounds after this one. A world is scored by what is left, as
in version 1 (`lookahead1._play_out`): a side's Memeyori count 1 each while conscious plus
their HP fraction, its Archon on the field half that, its Resonance a little; a won
battle is worth +100, a lost one -100.

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

The sampled world, its playout and its score are version 1's (lookahead1.py, frozen).
Its choices are made of greedy version 2's and version 1's: a change to either, or to a
number below, makes a new lookahead version.
"""

import math

from . import greedy, greedy1, lookahead1
from .field import View
from .lookahead1 import _Known, _play_out
from .model import TIER_COST

VERSION = 2
SAMPLES = 12  # worlds per candidate
FIRST = 5  # a candidate no better than greedy's in these first worlds is dropped
DOUBT = 1.0  # standard errors a candidate's mean gain over greedy's must clear


def _known(view: View, rng) -> _Known:
    """This plan's knowledge (version 1's, with `SAMPLES` worlds), made once per plan (at
    its first decision), kept with the plan's own View (View.scratch)."""
    known = view.scratch.get("lookahead2")
    if known is None:
        known = view.scratch["lookahead2"] = _Known(view, rng, SAMPLES)
    return known


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


def switch(view: View, rng, *, knowing=_known):
    """Greedy's Switch (or none), unless none, version 1's or a rescue surely plays out better.
    (`knowing` makes this plan's knowledge: lookahead 3 passes its own.)"""
    known = knowing(view, rng)
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


def summon(view: View, rng, *, knowing=_known) -> bool:
    """Summon now or keep the Resonance, whichever plays out best (greedy's first)."""
    known = knowing(view, rng)
    first = greedy.summon(view, rng)
    options = [first, not first]
    return options[_best(known, [{"summon": o} for o in options])]


def _variants(view: View, rng) -> list[list]:
    """Version 1's candidates (greedy's cards first, then its neighbours) and more, each
    legal as it stands (MP, Resonance)."""
    out = lookahead1._variants(view, rng)
    base = out[0]
    side = view.side
    cards = {c.id: c for c in side.hand}

    def add(plays):
        if plays and plays not in out:
            out.append(plays)

    support = {cid for cid, _, _ in base if cards[cid].category == "support"}
    spare = side.resonance - sum(TIER_COST[tier] for _, tier, _ in base)
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


def plays(view: View, rng, *, knowing=_known) -> list[tuple[str, int, str]]:
    """Greedy's cards or one of their neighbours, whichever plays out best."""
    known = knowing(view, rng)
    options = _variants(view, rng)
    if len(options) == 1:
        return options[0]
    return options[_best(known, [{"plays": o} for o in options])]
