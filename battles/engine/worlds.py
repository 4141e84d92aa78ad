"""Worlds and playouts for the current policies that look ahead (the Thinker, lookahead.py).

A plan that looks ahead weighs candidates by playing each out in sampled worlds with the
engine's own rules (plan, resolve, settle, end, start: nothing re-implemented). Everything
it may know lives in `Seen`, made once per plan from what a player at the table sees:

- its own hand, discard pile and the *contents* of its draw pile, never their order: each
  world shuffles its draw pile anew;
- the enemy as the table saw it before either side planned (View.enemies, View.shown:
  Seen's roster, Resonance, cards in hand and last Switch) and the cards printed on its
  combatants on the field. The enemy's hand in each world is that many cards drawn at
  random from those; its real hand, draw pile and plan are never read.

Its dice are its own: one number drawn from the generator it is given seeds a private
`random.Random`, which seeds every world. The worlds share their seeds across candidates and
decisions (common random numbers), so candidates are compared on the same dice and the same
enemy hands.

The frozen versions (lookahead1.py, lookahead2.py) keep their own copies of this, so that a
change here never moves a stored battle they played; a change here that moves a current
policy's choice makes a new version of it (policies.py).
"""

import math
import random
from collections import defaultdict

from . import end, greedy, plan, resolve, start
from .dice import shuffle
from .field import DISMISSED, FIELD, KO, STORED, EnemyView, Policy, Side, View
from .model import ARCHON_SUMMON_COST, LIMIT_DECIDE, MAX_ROUNDS, TIER_COST

WIN = 100.0  # a won world, against a few points of material
RESONANCE_WORTH = 0.02  # per unit, against 1 for a conscious Memeyori
ARCHON_WORTH = 0.5

_new_tuple = tuple.__new__
# The enemy model in every world, and both sides' play in the rounds after this one.
GREEDY = Policy("greedy", greedy.switch, greedy.summon, greedy.plays, version=greedy.VERSION)


class Sink:
    """Summary mode's tally for a sampled world: counts nobody reads."""

    def __init__(self):
        self.sides = [defaultdict(int), defaultdict(int)]
        self.combatants = defaultdict(lambda: defaultdict(int))
        self.cards = defaultdict(lambda: defaultdict(int))

    def planned(self, side) -> None:
        pass

    def card(self, *args) -> None:
        pass


class Seen:
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


def world(known: Seen, seed: int):
    """A sampled copy of the battle: our side as it is, the enemy as planning began."""
    real = known.view._engine
    world = object.__new__(type(real))
    world.chart = real.chart
    world.rng = rng = random.Random(seed)
    world.events = None
    world.tally = Sink()
    world.memos = real.memos
    world.blows = real.blows
    world.round = real.round
    world.limit = real.limit  # R9.6's rule, so that a playout near round 30 plays for it
    world.upheavals = 0
    world.shown = None
    world.policies = (GREEDY, GREEDY)
    sides = []
    by_id = {}
    for real_side in real.sides:
        side = Side(real_side.index, real_side.spec)
        for f in [*side.roster, *([side.archon] if side.archon else [])]:
            by_id[f.id] = f
        sides.append(side)
    me, enemy = sides[known.me], sides[1 - known.me]
    mine = real.sides[known.me]
    for f in [*mine.roster, *([mine.archon] if mine.archon else [])]:
        copy = by_id[f.id]
        copy.hp, copy.status, copy.played_nonquick, copy.fielded = (
            f.hp, f.status, f.played_nonquick, f.fielded,
        )  # fmt: skip
    me.slots = [by_id[f.id] if f is not None else None for f in mine.slots]
    me.resonance, me.mp = mine.resonance, mine.mp
    me.hand, me.discard, me.in_play = list(mine.hand), list(mine.discard), list(mine.in_play)
    me.pile = sorted(mine.pile, key=_card_id)  # its contents; the order is not ours to know
    shuffle(rng, me.pile)
    me.heirs = {out: by_id[f.id] for out, f in mine.heirs.items()}
    me.last_switch = mine.last_switch
    for fid, status, hp in known.enemy:
        f = by_id[fid]
        f.status, f.hp, f.fielded = status, hp, status == FIELD
    field = [by_id[e.id] for e in known.view.enemies if by_id[e.id] is not enemy.archon]
    enemy.slots = (field + [None, None, None])[:3]
    pool = list(known.pool)
    shuffle(rng, pool)
    enemy.hand, enemy.pile = pool[: known.hand_size], pool[known.hand_size :]
    enemy.resonance, enemy.mp = known.resonance, enemy.spec.mp
    last = known.enemy_switch
    enemy.last_switch = last if last is not None and last[0] < real.round else None
    world.sides = sides
    world.by_id = by_id
    world.owners = {c.id: f for f in by_id.values() for c in f.spec.cards}
    return world


def _card_id(card) -> str:
    return card.id


def summon_archon(world, side) -> None:
    world.spend(side, ARCHON_SUMMON_COST, "archon summon")
    world.bring_in(side, side.archon)


def greedy_side(world, side, enemies) -> list:
    """One side's whole plan by greedy against `enemies` (EnemyView tuples), committed."""
    view = View(world, side, enemies, world.round)
    choice = greedy.switch(view, world.rng)
    if choice is not None:
        plan.switch(world, side, *choice)
    if side.archon is not None and view.can_summon() and greedy.summon(view, world.rng):
        summon_archon(world, side)
    return plan.commit(world, side, greedy.plays(view, world.rng), view)


def material(side) -> float:
    total = side.resonance * RESONANCE_WORTH
    for f in side.roster:
        if f.hp > 0 and f.status != KO:
            total += 1 + f.hp / f.spec.max_hp
    archon = side.archon
    if archon is not None and archon.status == FIELD and archon.hp > 0:
        total += ARCHON_WORTH * (1 + archon.hp / archon.spec.max_hp)
    return total


def score(world, me: int) -> float:
    """+WIN won, -WIN lost, 0 drawn; otherwise our material less the enemy's. A world whose
    round 30 has ended is over: R9.6 decides it where the battle's rule says so."""
    winner = end.winner(world)
    if winner is False and world.round >= MAX_ROUNDS and world.limit == LIMIT_DECIDE:
        winner = end.limit_decision(world)[0]
    if winner is not False:
        return 0.0 if winner is None else (WIN if winner == me else -WIN)
    return material(world.sides[me]) - material(world.sides[1 - me])


def play_out(
    known: Seen, seed: int, extra_rounds: int, switch=False, summon=None, plays=None
) -> float:
    """One world's score for our candidate: `switch` (False: already decided), `summon`
    (None: already decided), `plays` (a list of cards, or None: greedy's); this round
    and `extra_rounds` more, both sides by greedy after this one's plan."""
    world_ = world(known, seed)
    me = world_.sides[known.me]
    enemy = world_.sides[1 - known.me]
    enemy_field = tuple(_new_tuple(EnemyView, (f.id, f.spec, f.hp)) for f in enemy.field())
    enemy_plays = greedy_side(world_, enemy, known.my_field)
    view = View(world_, me, enemy_field, world_.round)
    if switch is not False and switch is not None:
        plan.switch(world_, me, *switch)
    if summon or (
        summon is None
        and switch is not False
        and me.archon is not None
        and view.can_summon()
        and greedy.summon(view, world_.rng)
    ):
        summon_archon(world_, me)
    chosen = plays if plays is not None else greedy.plays(view, world_.rng)
    my_plays = plan.commit(world_, me, chosen, view)
    plans = [my_plays, enemy_plays] if known.me == 0 else [enemy_plays, my_plays]
    if resolve.resolve_round(world_, plans) or end.winner(world_) is not False:
        return score(world_, known.me)
    end.round_end(world_)
    for _ in range(extra_rounds):
        if world_.round >= MAX_ROUNDS and world_.limit == LIMIT_DECIDE:
            break  # R9.6 decides after round 30 (before R9.6, playouts ran past it)
        world_.round += 1
        start.round_start(world_)
        if end.winner(world_) is not False:
            break
        if resolve.resolve_round(world_, plan.plan_round(world_)):
            break
        if end.winner(world_) is not False:
            break
        end.round_end(world_)
    return score(world_, known.me)


def surest(known: Seen, candidates: list[dict], *, first: int, doubt: float, extra_rounds: int):
    """The index of the candidate most surely better than the first (greedy's), or 0.

    Each candidate is played out in the same worlds as the first; its gain in a world is
    its score there minus the first's. One whose gains in the first `first` worlds sum to
    nothing or less is dropped; the others count by the mean of their gains less `doubt`
    standard errors of that mean, so that one better only on average over a few lucky
    worlds does not displace greedy's choice (ties to the earlier)."""
    seeds = known.seeds
    base = [play_out(known, seed, extra_rounds, **candidates[0]) for seed in seeds]
    count = len(seeds)
    best, best_bound = 0, 0.0
    for index in range(1, len(candidates)):
        candidate = candidates[index]
        gains = [
            play_out(known, seed, extra_rounds, **candidate) - b
            for seed, b in zip(seeds[:first], base, strict=False)
        ]
        if sum(gains) <= 0:  # no better than greedy's in the first worlds: dropped
            continue
        gains += [
            play_out(known, seed, extra_rounds, **candidate) - b
            for seed, b in zip(seeds[first:], base[first:], strict=True)
        ]
        mean = sum(gains) / count
        spread = sum((g - mean) ** 2 for g in gains) / (count - 1)
        bound = mean - doubt * math.sqrt(spread / count)
        if bound > best_bound:
            best, best_bound = index, bound
    return best


def switch_options(view: View, rng, also=()) -> list:
    """Greedy's Switch (or none) first, then none, `also`'s, and each rescue (the most hurt
    Memeyori on the field, by HP fraction, out; any stored one in)."""
    options = [greedy.switch(view, rng)]  # greedy's first: the one to beat
    field = [f for f in view.side.slots if f is not None and f.alive]
    hurt = min(field, key=lambda f: f.hp / f.spec.max_hp, default=None)
    rescues = [(o, i) for o, i in view.switch_options() if hurt is not None and o == hurt.id]
    for choice in (None, *(other(view, rng) for other in also), *rescues):
        if choice not in options:
            options.append(choice)
    return options


def card_options(view: View, rng, also=()) -> list[list]:
    """Greedy's cards first, then their neighbours, each legal as it stands (MP,
    Resonance): all aimed at one enemy; without the heals; every attack at its highest
    Tier; `also`'s plans; greedy's plan against each enemy alone; one attack aimed
    elsewhere; one card held back; one card a Tier up or down."""
    base = greedy.plays(view, rng)
    side = view.side
    cards = {c.id: c for c in side.hand}
    out = [base]

    def add(plays):
        if plays and plays not in out:
            out.append(plays)

    support = {cid for cid, _, _ in base if cards[cid].category == "support"}
    for target in view.enemy_ids:
        add([(cid, tier, t if cid in support else target) for cid, tier, t in base])
    add([p for p in base if p[0] not in support])
    # Every attack at its highest Tier the Resonance allows, in plan order.
    left = side.resonance - (greedy.UPKEEP_ROUNDS if side.archon_active() else 0)
    left -= sum(TIER_COST[tier] for _, tier, _ in base)
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
    for other in also:
        add(other(view, rng))
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


class Thinker:
    """A lookahead policy as a parameter set over this module: `samples` worlds per
    candidate, each this round and `extra_rounds` more; a candidate displaces greedy's
    choice as `surest` rules with `first` and `doubt`; `also_switch` and `also_plays` add
    other policies' choices to the candidates. Each plan's knowledge (Seen) is kept with
    the plan's own View under `key`."""

    def __init__(self, *, key, samples, first, doubt, extra_rounds, also_switch=(), also_plays=()):
        self.key, self.samples, self.first, self.doubt = key, samples, first, doubt
        self.extra_rounds = extra_rounds
        self.also_switch, self.also_plays = also_switch, also_plays

    def known(self, view: View, rng) -> Seen:
        """This plan's knowledge, made once per plan (at its first decision)."""
        known = view.scratch.get(self.key)
        if known is None:
            known = view.scratch[self.key] = Seen(view, rng, self.samples)
        return known

    def _pick(self, known: Seen, name: str, options: list):
        if len(options) == 1:
            return options[0]
        index = surest(
            known,
            [{name: o} for o in options],
            first=self.first,
            doubt=self.doubt,
            extra_rounds=self.extra_rounds,
        )
        return options[index]

    def switch(self, view: View, rng):
        """Greedy's Switch (or none), unless another option surely plays out better."""
        known = self.known(view, rng)
        return self._pick(known, "switch", switch_options(view, rng, self.also_switch))

    def summon(self, view: View, rng) -> bool:
        """Summon now or keep the Resonance, whichever plays out best (greedy's first)."""
        known = self.known(view, rng)
        first = greedy.summon(view, rng)
        return self._pick(known, "summon", [first, not first])

    def plays(self, view: View, rng) -> list[tuple[str, int, str]]:
        """Greedy's cards or one of their neighbours, whichever plays out best."""
        known = self.known(view, rng)
        return self._pick(known, "plays", card_options(view, rng, self.also_plays))
