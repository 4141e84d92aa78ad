"""`lookahead` version 3: version 2's search (lookahead2.py), knowing only what the table
saw, in twice as many worlds.

Version 2 read two things from the live battle that the side planning second could not
have known as planning began: the enemy's last Switch, which the enemy's Switch of this
very round had already replaced, and which enemy combatants stood where after that Switch
or summon. An audit that changed only side A's plan saw side B's lookahead plan change.
Version 3 reads the enemy only from what the table saw before either side planned
(View.enemies, View.shown: Seen, and the cards printed on its combatants), so nothing side
A plans this round can move side B's plan.

Its dice are its own (Policy.dice "own", plan.dice_for): drawn from a generator fixed by
where the battle's started, the round and the side, never from the battle's generator. So
the other side's draws cannot move them either, and a played game's recorded lookahead
plan replays without thinking again.

The search is version 2's (candidates: any rescue Switch, greedy's cards and their
neighbours; each candidate's gain over greedy's choice counted world by world on the same
dice, dropped when it gains nothing in the first worlds, chosen only when its mean gain
less `DOUBT` standard errors is above zero), with its numbers changed where measuring
against greedy said so (tests/bench/policies.py): `SAMPLES` worlds, each this round and
`EXTRA_ROUNDS` more, both sides by greedy, scored as version 1 scores them.
"""

import math
import random

from . import end, greedy, greedy1, lookahead2, plan, resolve, start
from .field import DISMISSED, FIELD, KO, STORED, EnemyView, View
from .lookahead1 import _greedy_side, _score, _summon, _world

VERSION = 3
# Twice version 2's worlds: against greedy over 400 battles of identical parties (the
# bench's first 200 demo and 200 random), 24 worlds won 72% of the decided demo battles and
# 83% of the random ones; 12 worlds won 62% and 70% over issue 31's 1,400; ten extra rounds
# instead of five, with 12 worlds, did no better on the same 400 (59%, 77%).
SAMPLES = 24  # worlds per candidate
FIRST = 8  # a candidate no better than greedy's in these first worlds is dropped
DOUBT = 1.0  # standard errors a candidate's mean gain over greedy's must clear
EXTRA_ROUNDS = 5  # rounds played out after this one, both sides by greedy

_new_tuple = tuple.__new__


class _Seen:
    """What this side knows as it begins to plan: its own side, and the enemy as the
    table saw it (View.enemies, View.shown), never the live battle's enemy side."""

    __slots__ = (
        "view", "seeds", "me", "my_field", "enemy", "pool", "hand_size", "resonance",
        "enemy_switch",
    )  # fmt: skip

    def __init__(self, view: View, rng, samples: int):
        side = view.side
        self.view = view
        private = random.Random(rng.random())  # the one draw from the generator given
        self.seeds = [private.getrandbits(64) for _ in range(samples)]
        self.me = side.index
        # Our field as the enemy saw it when planning began (before our Switch or summon).
        self.my_field = tuple(_new_tuple(EnemyView, (f.id, f.spec, f.hp)) for f in side.field())
        # The cards the enemy may hold: those printed on its combatants on the field.
        self.pool = [c for e in view.enemies for c in e.spec.playable_cards()]
        on_field = {e.id: e.hp for e in view.enemies}
        shown = view.shown(1 - side.index)
        if shown is None:  # a View made by hand, outside plan_round: the enemy as it began
            enemy_spec = view._engine.sides[1 - side.index].spec
            fighters = [*enemy_spec.memeyori, *([enemy_spec.archon] if enemy_spec.archon else [])]
            roster = [(f.id, STORED, f.max_hp) for f in fighters]
            resonance, hand, last_switch = 0, 2 + enemy_spec.draw, None
        else:
            roster, resonance, hand = shown.roster, shown.resonance, shown.hand
            last_switch = shown.last_switch
        # (fighter id, status, hp) of every enemy combatant, as planning began.
        self.enemy = []
        for fid, status, hp in roster:
            if fid in on_field:
                self.enemy.append((fid, FIELD, on_field[fid]))
            elif status == KO:
                self.enemy.append((fid, KO, hp))
            else:
                self.enemy.append((fid, DISMISSED if status == DISMISSED else STORED, hp))
        self.resonance, self.hand_size = resonance, min(hand, len(self.pool))
        self.enemy_switch = last_switch


def _known(view: View, rng) -> _Seen:
    """This plan's knowledge, made once per plan, kept with the plan's own View."""
    known = view.scratch.get("lookahead3")
    if known is None:
        known = view.scratch["lookahead3"] = _Seen(view, rng, SAMPLES)
    return known


def _play_out(known: _Seen, seed: int, switch=False, summon=None, plays=None) -> float:
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


def _best(known: _Seen, candidates: list[dict]) -> int:
    """The index of the candidate most surely better than the first (greedy's), or 0
    (version 2's rule: lookahead2._best)."""
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


def plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Greedy's cards or one of their neighbours (version 2's), whichever plays out best."""
    known = _known(view, rng)
    options = lookahead2._variants(view, rng)
    if len(options) == 1:
        return options[0]
    return options[_best(known, [{"plays": o} for o in options])]
