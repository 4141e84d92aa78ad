"""`lookahead` version 1, frozen: stored battles it played replay with it, so nothing here
changes (the current version is lookahead.py). Candidate plans scored by playing out the
rest of the round and the next few.

For each decision of a plan (the Switch, the Archon summon, the cards) it weighs a few
candidates: greedy's choice and its neighbours (no Switch, another Switch; summon or not;
greedy's cards, the same cards all aimed at one enemy, at their highest Tier, without the
heals, version 1's cards). Each candidate is played out in `SAMPLES` sampled worlds with
the engine's own rules (plan, resolve, settle, end, start: nothing re-implemented), the
enemy planning by greedy in each world, both sides by greedy in the next round, and scored
by what is left: a side's Memeyori count 1 each while conscious plus their HP fraction,
its Archon on the field half that, its Resonance a little; a won battle is worth +100, a
lost one -100. The candidate with the best mean wins; ties go to the earlier (greedy's).

It sees what a player at the table sees, and nothing else:
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
their seeds across candidates (common random numbers), so candidates are compared on the
same dice and the same enemy hands.

Its choices are made of greedy version 2's and version 1's (`_GREEDY`, the variants): a
change to either, or to a number below, makes a new lookahead version.
"""

import random
from collections import defaultdict

from . import end, greedy, greedy1, plan, resolve, start
from .dice import shuffle
from .field import DISMISSED, FIELD, KO, STORED, EnemyView, Policy, Side, View
from .model import ARCHON_SUMMON_COST, TIER_COST

VERSION = 1
SAMPLES = 10  # worlds per candidate
EXTRA_ROUNDS = 5  # rounds played out after this one, both sides by greedy
WIN = 100.0
RESONANCE_WORTH = 0.02  # per unit, against 1 for a conscious Memeyori
ARCHON_WORTH = 0.5

_new_tuple = tuple.__new__
# The enemy model in every world, and both sides' play in the rounds after this one.
_GREEDY = Policy("greedy", greedy.switch, greedy.summon, greedy.plays, version=greedy.VERSION)


class _Sink:
    """Summary mode's tally for a sampled world: counts nobody reads."""

    def __init__(self):
        self.sides = [defaultdict(int), defaultdict(int)]
        self.combatants = defaultdict(lambda: defaultdict(int))
        self.cards = defaultdict(lambda: defaultdict(int))

    def planned(self, side) -> None:
        pass

    def card(self, *args) -> None:
        pass


class _Known:
    """What this side knows as it begins to plan (see the module docstring)."""

    __slots__ = (
        "view", "seeds", "me", "my_field", "enemy", "pool", "hand_size", "resonance",
        "enemy_switch",
    )  # fmt: skip

    def __init__(self, view: View, rng, samples: int = SAMPLES):
        engine = view._engine
        side = view.side
        self.view = view
        private = random.Random(rng.random())  # the one draw from the battle's generator
        self.seeds = [private.getrandbits(64) for _ in range(samples)]
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
        # The enemy's last Switch as this plan begins. Versions 1 and 2 read it from the
        # live battle, where the enemy's Switch of this round (side A plans first) has
        # already replaced it: a leak lookahead 3 closes (lookahead.py); kept here so their
        # stored battles replay as played.
        self.enemy_switch = enemy.last_switch


def _known(view: View, rng) -> _Known:
    """This plan's knowledge, made once per plan (at its first decision), kept with the
    plan's own View: never where another battle or thread could replace it mid-plan."""
    known = view.scratch.get("lookahead")
    if known is None:
        known = view.scratch["lookahead"] = _Known(view, rng)
    return known


def _world(known: _Known, seed: int):
    """A sampled copy of the battle: our side as it is, the enemy as planning began."""
    real = known.view._engine
    world = object.__new__(type(real))
    world.chart = real.chart
    world.rng = rng = random.Random(seed)
    world.events = None
    world.tally = _Sink()
    world.memos = real.memos
    world.blows = real.blows
    world.round = real.round
    world.upheavals = 0
    world.shown = None
    world.policies = (_GREEDY, _GREEDY)
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


def _summon(world, side) -> None:
    world.spend(side, ARCHON_SUMMON_COST, "archon summon")
    world.bring_in(side, side.archon)


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
    total = side.resonance * RESONANCE_WORTH
    for f in side.roster:
        if f.hp > 0 and f.status != KO:
            total += 1 + f.hp / f.spec.max_hp
    archon = side.archon
    if archon is not None and archon.status == FIELD and archon.hp > 0:
        total += ARCHON_WORTH * (1 + archon.hp / archon.spec.max_hp)
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


def _best(known: _Known, candidates: list[dict]):
    """The index of the candidate with the best mean score (the first on a tie)."""
    best, best_score = 0, None
    for index, candidate in enumerate(candidates):
        score = sum(_play_out(known, seed, **candidate) for seed in known.seeds)
        if best_score is None or score > best_score:
            best, best_score = index, score
    return best


def switch(view: View, rng):
    """No Switch, greedy's, or version 1's: whichever plays out best."""
    known = _known(view, rng)
    options = [None]
    for choice in (greedy.switch(view, rng), greedy1.greedy_switch(view, rng)):
        if choice is not None and choice not in options:
            options.append(choice)
    if len(options) == 1:
        return None
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
    add(greedy1.greedy_plays(view, rng))
    return out


def plays(view: View, rng) -> list[tuple[str, int, str]]:
    """Greedy's cards or one of their neighbours, whichever plays out best."""
    known = _known(view, rng)
    options = _variants(view, rng)
    if len(options) == 1:
        return options[0]
    return options[_best(known, [{"plays": o} for o in options])]
