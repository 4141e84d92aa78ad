"""The game review's plan ratings: each plan made against the best one found.

Plan rating. A side's plan is rated with only what that side could see, exactly as
the Thinker plans (worlds.Seen and worlds.world): its own hand, discard and the contents of
its draw pile (reshuffled in each world), the enemy field as planning began, the enemy's
Resonance and number of cards in hand, the enemy hand sampled in each world from the
cards of its combatants on the field; the enemy plans by greedy in each world. The
candidates are the plan made, greedy's whole plan, the Thinker's card candidates
(worlds.card_options: greedy's cards and their neighbours, after the plan's own Switch and
summon) and the plan made's neighbours (a card less, a card more, another target, a Tier
up or down, no Switch or greedy's, the summon or not), each legal by `plan_check.check_plan`.
Every candidate is played out to the end (both sides by greedy after this round) in the same worlds:
- screening: all of them in `SCREEN` worlds; the `SHORTLIST` best go on to `SHORTLIST_MORE`
  more worlds, and the best of those is the challenger; the plan made is played in the
  same worlds, and a challenger that did no better there ends the rating (no loss);
- the verdict: the challenger and the plan made in `FINAL` fresh worlds (so the pick and
  its measure do not share their luck); the loss is the challenger's mean minus the plan
  made's, counted only when it is more than `SURE` standard errors of the paired
  difference (else 0: no plan found is better beyond noise). A challenger that does no
  better than the plan made in the first half of those worlds ends the rating there (no
  loss): stopping for futility only ever drops a loss, never finds one, and saves the
  second half where no better plan exists, which is most rounds.
A candidate stops being played in a stage as soon as the worlds left could not change
what the stage decides (it can no longer reach the shortlist, beat the plan made, or beat
it in the first half of the fresh worlds): the same ratings for about a fifth fewer
playouts.
The better plan is said in words ("Playing Static Burst on Pebblin at Tier 2 instead of
playing Zap on Sparkit: 64% instead of 51%"), the Win% being the side's own (its worlds).
A side's plans are rated when a person made them (or a timeout's AI, in a played game);
an AI side only on request (`rate_sides`). A plan an AI made after its own Switch may hold
the card that Switch drew; in a world where another card was drawn it plays without it.
Marks by the loss in points of Win% (as Lichess and GNU Backgammon grade): an inaccuracy
from `INACCURACY` (3), a mistake from `MISTAKE` (7), a blunder from `BLUNDER` (15).
Accuracy per round is Lichess's published formula,
    103.1668 * exp(-0.04354 * loss) - 3.1669, within 0-100,
and a side's accuracy for the game the mean of its rounds' arithmetic and harmonic means
(Lichess's game accuracy without its volatility weights: the harmonic mean makes one
blunder cost more than a few inaccuracies, as a player feels it).
"""

import math
import random

from .. import greedy, plan, worlds
from ..field import EnemyView, View
from ..plan import begin as planning_views
from ..plan_check import check_plan
from .estimates import finish
from .states import _points, clone

SCREEN = 4  # worlds for every candidate plan
SHORTLIST = 2
SHORTLIST_MORE = 8  # more worlds for the shortlist
FINAL = 40  # fresh worlds for the challenger against the plan made
SURE = 1.645  # a loss counts when above this many standard errors (one-sided 95%)
INACCURACY, MISTAKE, BLUNDER = 3.0, 7.0, 15.0
MARKS = ((BLUNDER, "blunder"), (MISTAKE, "mistake"), (INACCURACY, "inaccuracy"))


def normal(plan_: dict) -> dict:
    return {
        "switch": list(plan_["switch"]) if plan_.get("switch") else None,
        "summon": bool(plan_.get("summon")),
        "cards": [list(c) for c in plan_.get("cards", [])],
    }


def _after(planning, side_index: int, choice: dict) -> View:
    """A View of side `side_index` after a plan's Switch and summon, on a scratch copy (for
    greedy's and lookahead's cards chosen after them)."""
    scratch = clone(planning, random.Random(0))
    side = scratch.sides[side_index]
    view = planning_views(scratch)[side_index]
    if choice["switch"]:
        plan.switch(scratch, side, *choice["switch"])
    if choice["summon"]:
        worlds.summon_archon(scratch, side)
    return View(scratch, side, view.enemies, scratch.round, view.enemy_ids)


def candidates(planning, side_index: int, made: dict) -> list[dict]:
    """The plan made first, then every other legal candidate (see the module docstring)."""
    view = planning_views(clone(planning, random.Random(0)))[side_index]
    side = view.side
    hand_ids = {c.id for c in side.hand}
    rng = random.Random(0)
    out = [normal(made)]

    def add(switch, summon, cards):
        leaving = switch[0] + "." if switch else None
        cards = [
            [c, t, x]
            for c, t, x in cards
            if c in hand_ids and not (leaving and c.startswith(leaving))
        ]
        candidate = {"switch": list(switch) if switch else None, "summon": summon, "cards": cards}
        if candidate not in out and check_plan(view, candidate).ok:
            out.append(candidate)

    can_summon = view.can_summon()
    g_switch = greedy.switch(view, rng)
    g_summon = (
        bool(greedy.summon(_after(planning, side_index, normal({"switch": g_switch})), rng))
        if can_summon
        else False
    )
    g_choice = {"switch": list(g_switch) if g_switch else None, "summon": g_summon}
    add(g_choice["switch"], g_summon, greedy.plays(_after(planning, side_index, g_choice), rng))
    mine = normal(made)
    after_made = _after(planning, side_index, mine)
    for cards in worlds.card_options(after_made, rng):
        add(mine["switch"], mine["summon"], cards)
    cards = mine["cards"]
    enemy_ids = view.enemy_ids
    by_id = {c.id: c for c in side.hand}
    for i, (cid, tier, target) in enumerate(cards):
        add(mine["switch"], mine["summon"], cards[:i] + cards[i + 1 :])
        card = by_id.get(cid)
        if card is None:
            continue
        if card.category != "support":
            for other in enemy_ids:
                if other != target:
                    add(
                        mine["switch"],
                        mine["summon"],
                        [*cards[:i], [cid, tier, other], *cards[i + 1 :]],
                    )
        for t in (tier - 1, tier + 1):
            if t in card.tiers():
                add(mine["switch"], mine["summon"], [*cards[:i], [cid, t, target], *cards[i + 1 :]])
    played = {c for c, _, _ in cards}
    allies = [f.id for f in side.field()]
    for card in side.hand:
        if card.id in played:
            continue
        for target in allies if card.category == "support" else enemy_ids:
            add(mine["switch"], mine["summon"], [*cards, [card.id, 1, target]])
    # The Switch or not: none, or greedy's (the cards of the one going out stay home).
    for choice in (None, g_switch):
        add(choice, mine["summon"], cards)
    if can_summon:
        add(mine["switch"], not mine["summon"], cards)
    return out


class _Rater:
    """One side's knowledge at one round's planning (lookahead's), and its playouts."""

    def __init__(self, planning, side_index: int):
        self.view = planning_views(clone(planning, random.Random(0)))[side_index]
        self.known = worlds.Seen(self.view, random.Random(0), 0)
        self.limit = planning.limit  # R9.6: the worlds end as the battle would

    def play(self, seed: int, candidate: dict) -> float:
        """The candidate's result for this side in one sampled world (1, 0.5 or 0)."""
        known = self.known
        world = worlds.world(known, seed)
        world.limit = self.limit
        me = world.sides[known.me]
        enemy = world.sides[1 - known.me]
        enemy_field = tuple(EnemyView(f.id, f.spec, f.hp) for f in enemy.field())
        enemy_plays = worlds.greedy_side(world, enemy, known.my_field)
        view = View(world, me, enemy_field, world.round)
        if candidate["switch"]:
            plan.switch(world, me, *candidate["switch"])
        if candidate["summon"] and view.can_summon():
            worlds.summon_archon(world, me)
        # A card an AI drew with its own Switch may be another in this world: left out.
        hand = {c.id for c in me.hand}
        chosen = [(c, t, x) for c, t, x in candidate["cards"] if c in hand]
        mine = plan.commit(world, me, chosen, view)
        plans = [mine, enemy_plays] if known.me == 0 else [enemy_plays, mine]
        return _points(finish(world, plans), known.me)


def _while_it_can_pass(rater: _Rater, option: dict, seeds: list[int], score, bar) -> list:
    """The option's results in `seeds`, played in turn while `score` plus them can still end
    above `bar` (a world gives at most 1): once it cannot, the rest would change nothing a
    stage of `rate` decides, so they are not played."""
    results = []
    for k, seed in enumerate(seeds):
        if score + sum(results) + len(seeds) - k <= bar:
            break
        results.append(rater.play(seed, option))
    return results


def rate(planning, side_index: int, made: dict, seeds: list[int]) -> dict:
    """The plan made against the best candidate found, in this side's own sampled worlds."""
    rater = _Rater(planning, side_index)
    options = candidates(planning, side_index, made)
    screen = seeds[:SCREEN]
    more = seeds[SCREEN : SCREEN + SHORTLIST_MORE]
    fresh = seeds[SCREEN + SHORTLIST_MORE : SCREEN + SHORTLIST_MORE + FINAL]
    first = [rater.play(s, options[0]) for s in screen + more]
    out = {
        "win": sum(first) / len(first),
        "loss": 0.0,
        "better": None,
        "better_win": None,
        "candidates": len(options),
    }
    if len(options) == 1:
        return out
    scores = []
    for option in options[1:]:
        # To reach the shortlist, beat the SHORTLIST-th best so far (earlier ones win ties).
        bar = sorted(scores, reverse=True)[SHORTLIST - 1] if len(scores) >= SHORTLIST else -math.inf
        scores.append(sum(_while_it_can_pass(rater, option, screen, 0.0, bar)))
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:SHORTLIST]
    made_score = sum(first)
    for i in order:
        scores[i] += sum(_while_it_can_pass(rater, options[1 + i], more, scores[i], made_score))
    best = max(order, key=lambda i: (scores[i], -i))
    if scores[best] <= made_score:
        return out  # no candidate did better than the plan made in the same worlds
    challenger = options[1 + best]
    half = FINAL // 2
    base = [rater.play(s, options[0]) for s in fresh[:half]]
    other = _while_it_can_pass(rater, challenger, fresh[:half], 0.0, sum(base))
    if sum(other) <= sum(base):
        out["win"] = sum(base) / half
        return out  # futility: no better in the first half of the fresh worlds
    base += [rater.play(s, options[0]) for s in fresh[half:]]
    other += [rater.play(s, challenger) for s in fresh[half:]]
    win = sum(base) / len(base)
    diffs = [b - a for a, b in zip(base, other, strict=True)]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    out["win"] = win
    if mean > 0 and mean > SURE * math.sqrt(var / len(diffs)):
        out.update(loss=round(100 * mean, 1), better=challenger, better_win=win + mean)
    return out


def mark(loss: float | None) -> str | None:
    if loss is None:
        return None
    for threshold, name in MARKS:
        if loss >= threshold:
            return name
    return None


def accuracy(loss: float) -> float:
    """Lichess's per-move accuracy from the Win% points given up."""
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def game_accuracy(losses: list[float]) -> float | None:
    if not losses:
        return None
    each = [accuracy(x) for x in losses]
    mean = sum(each) / len(each)
    harmonic = len(each) / sum(1 / max(a, 0.01) for a in each)
    return round((mean + harmonic) / 2, 1)
