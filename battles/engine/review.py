"""The game review (issue 32): Win% by round, each plan rated, and the dice's luck.

Pure Python, no Django: a battle's record (its input and log) in, a review dict out, the
same for the same record in any process (every playout's seed comes from the record).

The states. The battle is replayed from its record (the engine's own loop, the recorded
policies and plans, the battle's own generator) and two states of each round are kept:
- planning: after R9.1 (the round's draw and MP), as planning begins (the `win_a` of the
  round: "from the start of the round", once its cards are drawn);
- planned: after both plans (Switches, summons, cards committed), before any die.
Between one round's planning and planned states only the plans act; between its planned
state and the next round's planning state only chance does (dice, the replacements'
draws, the next draw). So a round's luck is Win%(next planning) - Win%(planned), and the
sum of all rounds' luck and plan effects adds up to the result.

Win% of a state. The rest of the battle is played out many times from it in summary mode,
both sides by greedy (today's), each playout in a copy of the state whose draw piles are
shuffled anew (their contents are known to a spectator of the log, their order is not: the
log's own next draws are never used), with new dice. Draws count half.
- Common random numbers: playout k of every state of one battle starts from the same seed,
  so neighbouring points differ by what changed, not by which dice were sampled.
- Antithetic dice: each seed is played twice, once with its uniform numbers u and once
  with TOP - u (`_Mirror`: every die face f becomes 7 - f, a hit becomes a miss), and the
  pair's mean is one observation. Measured on the demo battle the two playouts of a pair
  correlate only weakly (about -0.07: the reshuffled draw piles and the greedy plans that
  follow weigh more than any one die), so this alone buys little.
- Control variates, which buy the most: each playout counts its dice luck (`_Luck`): for
  every attack, landed less its exact chance to land and critical less its exact chance
  (R4, odds.attack_odds, from the state before the roll), per side, the same weighted by
  the share of the target's HP the blow would take, by the share of its full HP, and by
  whether it would knock the target out, and the same over the playout's first two rounds
  alone: fourteen sums (the last four bought a tenth fewer playouts). Each term
  has mean exactly 0, so the estimate is the pairs' mean result less its least-squares
  fit on their mean luck (the regression estimator); its interval is from the residual
  spread. The luck explains 20-70% of a result's variance (more late in the battle).
- Sequential stopping: from `MIN_PAIRS` pairs, the 95% interval (1.96 residual standard
  errors) is checked until it is at most `HALF_WIDTH` (3 points) on each side for a
  round's start, `PLANNED_HALF_WIDTH` (4) after its plans (read only by the luck, as a
  difference of two points that share their seeds), or `MAX_PAIRS` is reached. A check
  that falls short says when the next is due: a half-width narrows as 1 / sqrt(pairs), so
  at `LEAD` (95%) of the pairs it asks for, in steps of `STEP` to `MAX_STEP` pairs. Fixed
  batches of 16 overshot by 8 pairs a point on average; this overshoots by about 2, and
  checks no more often.
  A point whose pairs all agree has the rule of three (3 / playouts) as its interval.
- How many playouts: a plain estimate (independent playouts) needs 1.96^2 p (1 - p) / 0.03^2
  for +-3 points, 1,067 at p = 50%. On the 15-round demo battle of tests/bench/review.py
  (Sunrise Squad vs Night Shift, seed 0) the start-of-round points took 160 to 696
  playouts, less than half of what plain estimates of the same points would take (6,584
  against 14,288); the whole curve costs about 5,700-5,900 greedy battles of the same
  parties in summary mode, and with both sides' plans rated 6,978 to 7,334 (make bench,
  seven runs on a quiet machine, 2026-12-06; against the issue's budget of 8,000).
- When both plans made are greedy's own with no Switch or summon (greedy against greedy),
  every playout from the planning state makes them too, so the planned point is the
  planning point and is not estimated again.

Plan rating. A side's plan is rated with only what that side could see, exactly as
lookahead plans (lookahead1._Known and _world): its own hand, discard and the contents of
its draw pile (reshuffled in each world), the enemy field as planning began, the enemy's
Resonance and number of cards in hand, the enemy hand sampled in each world from the
cards of its combatants on the field; the enemy plans by greedy in each world. The
candidates are the plan made, greedy's whole plan, lookahead's card candidates (greedy's
cards and their neighbours, after the plan's own Switch and summon) and the plan made's
neighbours (a card less, a card more, another target, a Tier up or down, no Switch or
greedy's, the summon or not), each legal by `played.check_plan`. Every candidate is played
out to the end (both sides by greedy after this round) in the same worlds:
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

Luck. A round's luck for side A is Win%(after its dice) - Win%(planned, before them): the
next round's planning state, or the result when the battle ended in the round. Side B's is
the opposite. The luck-adjusted result is the result less the luck summed over the game
(as GNU Backgammon reports it); the opening hands' luck (round 1's draw) is not counted.
"""

import hashlib
import math
import random

from . import end, greedy, lookahead2, plan, resolve, start
from .battle import Engine
from .dice import shuffle
from .field import EnemyView, Policy, Side, View
from .fork import begin_fork, record_inputs, state_at_round
from .keyed import rng_for
from .lookahead1 import _greedy_side, _Known, _Sink, _summon, _world
from .model import MAX_ROUNDS, BattleInput
from .odds import attack_odds
from .plan import begin as planning_views
from .played import _Plans, check_plan, is_played, open_round, own_draws_of
from .policies import GREEDY, policy_version
from .settle import _damage

FORMAT = "memeyori-review/1"
HALF_WIDTH = 0.03  # the 95% interval of a round's Win% (the curve): at most +-3 points
PLANNED_HALF_WIDTH = 0.04  # after the plans: only luck reads it, as a difference (CRN)
EARLY_ROUNDS = 2  # a playout's first rounds, whose dice luck is also counted apart
MIN_PAIRS = 32
STEP, MAX_STEP = 4, 16  # pairs between two checks of an interval (see the docstring)
LEAD = 0.95
MAX_PAIRS = 640
Z = 1.96
SCREEN = 4  # worlds for every candidate plan
SHORTLIST = 2
SHORTLIST_MORE = 8  # more worlds for the shortlist
FINAL = 40  # fresh worlds for the challenger against the plan made
SURE = 1.645  # a loss counts when above this many standard errors (one-sided 95%)
INACCURACY, MISTAKE, BLUNDER = 3.0, 7.0, 15.0
MARKS = ((BLUNDER, "blunder"), (MISTAKE, "mistake"), (INACCURACY, "inaccuracy"))

_TOP = 1.0 - 2.0**-53  # random() returns multiples of 2**-53 in [0, TOP]


class _Mirror(random.Random):
    """The antithetic twin of random.Random(seed): TOP - u for each u, so every die face f
    reads 7 - f and every shuffle picks from the other end (the engine draws only random())."""

    def random(self, _draw=random.Random.random):
        return _TOP - _draw(self)


# -- the battle's states, from its record --------------------------------------------------
class _Recording:
    """A side's policy that notes the plan it makes: {"switch", "summon", "cards"}."""

    def __init__(self, policy: Policy, made: dict):
        self.policy = policy
        self.made = made

    def switch(self, view, rng):
        choice = self.policy.switch(view, rng)
        self.made[view.side.index] = {
            "switch": list(choice) if choice else None,
            "summon": False,
            "cards": [],
        }
        return choice

    def summon(self, view, rng):
        choice = bool(self.policy.summon(view, rng))
        self.made[view.side.index]["summon"] = choice
        return choice

    def plays(self, view, rng):
        chosen = self.policy.plays(view, rng)
        self.made[view.side.index]["cards"] = [[c, t, x] for c, t, x in chosen]
        return chosen

    def as_policy(self) -> Policy:
        p = self.policy
        # The same dice as the policy it records (plan.dice_for), so the replay is the log's.
        return Policy(p.name, self.switch, self.summon, self.plays, p.version, p.dice)


def clone(real, rng: random.Random):
    """A copy of an engine's state that shares nothing a battle changes (summary mode, both
    sides by greedy from here on)."""
    world = object.__new__(Engine)
    world.chart = real.chart
    world.rng = rng
    world.events = None
    world.tally = _Sink()
    world.memos = real.memos
    world.blows = real.blows
    world.round = real.round
    world.upheavals = real.upheavals
    world.shown = list(real.shown) if real.shown is not None else None
    world.policies = (GREEDY, GREEDY)
    world._origin, world._dice_root = real._origin, real._dice_root
    world.own_draws = real.own_draws
    by_id = {}
    sides = []
    for real_side in real.sides:
        side = Side(real_side.index, real_side.spec)
        pairs = zip(
            [*side.roster, *([side.archon] if side.archon else [])],
            [*real_side.roster, *([real_side.archon] if real_side.archon else [])],
            strict=True,
        )
        for f, rf in pairs:
            f.hp, f.status, f.played_nonquick, f.fielded = (
                rf.hp, rf.status, rf.played_nonquick, rf.fielded,
            )  # fmt: skip
            by_id[f.id] = f
        side.slots = [by_id[f.id] if f is not None else None for f in real_side.slots]
        side.resonance, side.mp = real_side.resonance, real_side.mp
        side.pile = list(real_side.pile)
        side.hand = list(real_side.hand)
        side.discard = list(real_side.discard)
        side.in_play = list(real_side.in_play)
        side.heirs = {out: by_id[f.id] for out, f in real_side.heirs.items()}
        side.last_switch = real_side.last_switch
        sides.append(side)
    world.sides = sides
    world.by_id = by_id
    world.owners = {cid: by_id[f.id] for cid, f in real.owners.items()}
    return world


class RoundStates:
    """One round of the battle as played: its planning and planned states (engine copies),
    the plans committed, and each side's plan as made (None for a side not replayed)."""

    def __init__(self, round_no, planning, planned, plans, made, by):
        self.round = round_no
        self.planning = planning
        self.planned = planned
        self.plans = plans
        self.made = made
        self.by = by  # per side: "player", "ai" or "timeout"


def _card_id(card) -> str:
    return card.id


def replay_states(data: BattleInput, log: dict) -> tuple[list[RoundStates], float]:
    """The battle replayed from its record: each round's states, and side A's result (1 a
    win, 0 a loss, 0.5 a draw). ValueError when the record does not replay to its result."""
    made: dict = {}
    if is_played(log):
        # The AI's plans as recorded, so a lookahead side is not thought out again.
        ai, plans, forfeit = record_inputs(log)
        recorded = _Plans(plans, ai)
        inner = (recorded.policy(0), recorded.policy(1))
    else:
        versions = log.get("policy_versions", [1, 1])
        inner = tuple(policy_version(n, v) for n, v in zip(log["policies"], versions, strict=True))
        forfeit, recorded = None, None
    policies = tuple(_Recording(p, made).as_policy() for p in inner)
    engine, first = _first_round(data, log, policies)
    rounds: list[RoundStates] = []
    winner = False
    for engine.round in range(first, MAX_ROUNDS + 1):
        seen, winner = open_round(engine, started=engine.round == first and "fork" in log)
        if winner is not False:
            break
        if forfeit is not None and forfeit[0] == engine.round:
            winner = 1 - forfeit[1]
            break
        plan.begin(engine)  # what each side shows the table as planning begins (Seen)
        planning = clone(engine, random.Random(0))
        made.clear()
        plans = plan.plan_round(engine)
        by = ["ai", "ai"]
        if recorded is not None:
            for rec in recorded.made[-2:]:
                by[rec["side"]] = rec["by"]
        rounds.append(
            RoundStates(
                engine.round,
                planning,
                clone(engine, random.Random(0)),
                plans,
                [made.get(0), made.get(1)],
                by,
            )
        )
        resolve.resolve_round(engine, plans)
        if engine.upheavals != seen:
            winner = end.winner(engine)
            if winner is not False:
                break
        end.round_end(engine)
    if winner is False:
        winner = None
    expected = log["result"]["winner"]
    if winner != expected or engine.round != log["result"]["rounds"]:
        raise ValueError(
            f"the record replays to winner {winner} in round {engine.round}, not its log's"
            f" {expected} in round {log['result']['rounds']}"
        )
    return rounds, _points(winner, 0)


def _first_round(data: BattleInput, log: dict, policies) -> tuple[Engine, int]:
    """The engine the review replays, and its first round: round 1 after the setup, or for a
    fork (engine/fork.py) the fork round as its planning began, with the fork's own dice and
    draw piles. A fork's review rates the rounds played in the fork; the rounds before are
    its origin's, whose own review rates them."""
    fork = log.get("fork")
    own = own_draws_of(log)
    if fork is None:
        engine = Engine(data, policies, rng_for(log["seed"]), summary=True, own_draws=own)
        start.setup(engine)
        return engine, 1
    engine = state_at_round(data, fork["origin"], fork["round"])
    begin_fork(engine, log["seed"], policies, own_draws=own)
    return engine, fork["round"]


def _points(winner, me: int) -> float:
    return 0.5 if winner is None else (1.0 if winner == me else 0.0)


# -- playouts ------------------------------------------------------------------------------
def finish(world, plans=None) -> int | None:
    """Play a world to its end, both sides by greedy: from planning (plans None) or with
    this round's plans committed. The winner (0, 1) or None for a draw."""
    while True:
        if plans is None:
            plans = plan.plan_round(world)
        resolve.resolve_round(world, plans)
        plans = None
        winner = end.winner(world)
        if winner is not False:
            return winner
        end.round_end(world)
        if world.round >= MAX_ROUNDS:
            return None  # R9: after 30 rounds the battle is a draw
        world.round += 1
        start.round_start(world)
        winner = end.winner(world)
        if winner is not False:
            return winner


class _Luck(_Sink):
    """A playout's dice luck, its control variates. For each attack, with its exact chances
    (R4, odds.attack_odds) from the state before its roll:
    - landed less its chance to land, and critical less its chance, one sum per side;
    - the same weighted by the share of its target's HP the blow would take (plain, and
      what a critical adds), one sum per side;
    - the first two sums again over the first `EARLY_ROUNDS` rounds alone (early luck
      weighs more: the rest of the battle grows from it);
    - the damage the blow would do as a share of its target's full HP (plain, and what a
      critical adds), one sum per side: unlike the share of the HP left, it tells a blow
      that takes a fresh fighter's half from one that finishes off the last few HP;
    - whether the blow would knock its target out (plain, and what a critical adds), one
      sum per side: a knock-out changes the field, and the battle turns on that.
    Each term has mean 0 whatever happened before it (its weight is fixed before its
    roll), so every sum has mean exactly 0 over the playouts; and they move with the
    result."""

    def __init__(self, world, odds: dict):
        super().__init__()
        self.world = world
        self.blows = world.blows
        self.by_id = world.by_id
        self.odds = odds
        self.luck = [0.0] * 14
        self.early = world.round + EARLY_ROUNDS  # the rounds whose luck counts twice

    def card(self, side, card_id, tier, attack, landed, critical, target) -> None:
        if not attack:
            return
        key = (card_id, target, tier)
        fighter = self.by_id[target]
        chances = self.odds.get(key)
        if chances is None:
            chances = self.odds[key] = _chances(self.blows[key], fighter.spec.max_hp)
        p_land, p_critical, plain_damage, critical_damage, of_most, critical_of_most = chances
        land = landed - p_land
        crit = critical - p_critical
        hp = fighter.hp
        if hp > 0:
            plain = min(1.0, plain_damage / hp)
            extra = min(1.0, critical_damage / hp) - plain
        else:
            plain = extra = 0.0
        fells = plain_damage >= hp
        luck = self.luck
        at = side * 2
        luck[at] += land
        luck[at + 1] += crit
        luck[4 + side] += plain * land + extra * crit
        if self.world.round < self.early:
            luck[6 + at] += land
            luck[7 + at] += crit
        luck[10 + side] += of_most * land + critical_of_most * crit
        luck[12 + side] += fells * land + ((critical_damage >= hp) - fells) * crit


def _chances(entry, most: int) -> tuple[float, float, int, int, float, float]:
    """A blow's exact chances to land and to be critical (R4), its damage plain and critical
    (R5), and the same two as shares of the target's full HP (`most`), what a critical adds,
    from its entry in the table of blows (resolve.blow)."""
    exact = attack_odds(*entry[:3])
    power, stat, mitigation, same, effect = entry[5], entry[6], entry[7], entry[8], entry[3]
    plain = _damage(power, stat, same, effect, 0, 0, mitigation)[0]
    critical = _damage(power, stat, same, effect, 1, 0, mitigation)[0]
    return (
        float(exact.p_land),
        float(exact.p_critical),
        plain,
        critical,
        plain / most,
        (critical - plain) / most,
    )


def _neutral(state, rng, odds: dict, piles: list[list]):
    """A spectator's world: the state as it is with its dice luck counted, each draw pile
    in a new order from `piles`, the state's piles in a fixed order (`_fixed_piles`: their
    contents only, the log's order is not used)."""
    world = clone(state, rng)
    for side, pile in zip(world.sides, piles, strict=True):
        side.pile = list(pile)
        shuffle(rng, side.pile)
    world.tally = _Luck(world, odds)
    return world


def _fixed_piles(state) -> list[list]:
    return [sorted(side.pile, key=_card_id) for side in state.sides]


def seeds_for(log: dict, count: int, tag: str = "curve") -> list[int]:
    """`count` playout seeds from the record alone (the same in every process)."""
    digest = hashlib.sha256(f"memeyori-review/{tag}/{log['seed']}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    return [rng.getrandbits(64) for _ in range(count)]


def _playout(state, rng, plans, odds, piles) -> list[float]:
    """[side A's points, then its dice luck (the controls)] of one playout."""
    world = _neutral(state, rng, odds, piles)
    return [_points(finish(world, plans), 0), *world.tally.luck]


def estimate(state, seeds, plans=None, half_width=HALF_WIDTH, max_pairs=MAX_PAIRS) -> dict:
    """Side A's Win% from a state (planning, or planned with `plans`): antithetic pairs,
    corrected by their dice luck (control variates), the 95% interval and the playouts."""
    moments = None
    odds: dict = {}
    piles = _fixed_piles(state)
    next_check = MIN_PAIRS
    for seed in seeds[:max_pairs]:
        a = _playout(state, random.Random(seed), plans, odds, piles)
        b = _playout(state, _Mirror(seed), plans, odds, piles)
        if moments is None:
            moments = Moments(len(a))
        moments.add([(x + y) / 2 for x, y in zip(a, b, strict=True)])
        n = moments.n
        if n >= next_check:
            half = controlled(moments)[2]
            if half <= half_width:
                break
            # A half-width narrows as 1 / sqrt(pairs): check next where this one says it
            # will be narrow enough, a step at least and a little early at most.
            need = n * (half / half_width) ** 2
            ahead = STEP * math.ceil((LEAD * need - n) / STEP)
            next_check = n + min(max(ahead, STEP), MAX_STEP)
    mean, low_high, _ = controlled(moments)
    return {"win_a": mean, "low": low_high[0], "high": low_high[1], "playouts": 2 * moments.n}


class Moments:
    """Rows [y, c1, ..., ck] as running sums of the rows and of their products: what the
    regression estimator reads, so that checking the interval after each batch costs k^2,
    not n k^2 (it was a tenth of a curve's time)."""

    def __init__(self, width: int):
        self.n = 0
        self.ys: list[float] = []  # for the plain interval
        self.sums = [0.0] * width
        self.products = [[0.0] * width for _ in range(width)]  # upper triangle: i <= j

    def add(self, row: list[float]) -> None:
        self.n += 1
        self.ys.append(row[0])
        width = len(row)
        for i, x in enumerate(row):
            self.sums[i] += x
            if x:
                line = self.products[i]
                for j in range(i, width):
                    line[j] += x * row[j]

    def scatter(self, i: int, j: int) -> float:
        """The sum of (row[i] - mean i)(row[j] - mean j) over the rows."""
        if i > j:
            i, j = j, i
        return self.products[i][j] - self.sums[i] * self.sums[j] / self.n


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None when the matrix is singular."""
    size = len(vector)
    rows = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                for k in range(col, size + 1):
                    rows[r][k] -= factor * rows[col][k]
    return [rows[i][size] / rows[i][i] for i in range(size)]


# Below this scatter (a sum of squares over the rows) the y's are taken to be all alike:
# sums of products carry rounding that exact centring did not.
ALIKE = 1e-9


def controlled(m: Moments) -> tuple[float, tuple[float, float], float]:
    """The control-variate estimate of the mean of y from rows [y, c1, ..., ck] whose c's
    have mean 0: y less its least-squares fit on the c's (the regression estimator), its
    95% interval and half-width. The plain mean when the fit cannot be made."""
    n = m.n
    k = len(m.sums) - 1
    if n < 4 * (k + 1) or m.scatter(0, 0) <= ALIKE:
        return _interval(m.ys)
    cross = [[m.scatter(i, j) for j in range(1, k + 1)] for i in range(1, k + 1)]
    with_y = [m.scatter(i, 0) for i in range(1, k + 1)]
    beta = _solve(cross, with_y)
    if beta is None:
        return _interval(m.ys)
    # The mean of y moved by what the controls' sample means (expected 0) say about the
    # luck of this sample.
    estimate_ = (m.sums[0] - sum(b * s for b, s in zip(beta, m.sums[1:], strict=True))) / n
    # The residuals' sum of squares, sum (y - beta.c)^2 over the centred rows.
    squares = (
        m.scatter(0, 0)
        - 2 * sum(b * w for b, w in zip(beta, with_y, strict=True))
        + sum(beta[i] * beta[j] * cross[i][j] for i in range(k) for j in range(k))
    )
    if squares <= ALIKE:
        return _interval(m.ys)
    half = Z * math.sqrt(squares / (n - k - 1) / n)
    estimate_ = min(1.0, max(0.0, estimate_))
    return estimate_, (max(0.0, estimate_ - half), min(1.0, estimate_ + half)), half


def _interval(values: list[float]) -> tuple[float, tuple[float, float], float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = Z * math.sqrt(var / n)
    if half == 0.0:
        half = 3 / (2 * n)  # the rule of three over 2n playouts
        if mean >= 1.0:
            return 1.0, (1.0 - half, 1.0), half
        if mean <= 0.0:
            return 0.0, (0.0, half), half
    return mean, (max(0.0, mean - half), min(1.0, mean + half)), half


# -- plan rating ---------------------------------------------------------------------------
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
        _summon(scratch, side)
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
    for cards in lookahead2._variants(after_made, rng):
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
        self.known = _Known(self.view, random.Random(0), 0)

    def play(self, seed: int, candidate: dict) -> float:
        """The candidate's result for this side in one sampled world (1, 0.5 or 0)."""
        known = self.known
        world = _world(known, seed)
        me = world.sides[known.me]
        enemy = world.sides[1 - known.me]
        enemy_field = tuple(EnemyView(f.id, f.spec, f.hp) for f in enemy.field())
        enemy_plays = _greedy_side(world, enemy, known.my_field)
        view = View(world, me, enemy_field, world.round)
        if candidate["switch"]:
            plan.switch(world, me, *candidate["switch"])
        if candidate["summon"] and view.can_summon():
            _summon(world, me)
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


# -- words ---------------------------------------------------------------------------------
def plan_words(planning, side_index: int, plan_: dict, *, first=True) -> str:
    """A plan in words: "Switching Sparkit out for Boltkin, playing Zap on Pebblin at Tier
    2" (`first`: with a capital, to begin a sentence)."""
    by_id = planning.by_id
    cards = {c.id: c for f in by_id.values() for c in f.spec.cards}

    def name(fid):
        f = by_id.get(fid)
        return f.spec.name if f is not None else fid

    parts = []
    if plan_["switch"]:
        out, inn = plan_["switch"]
        parts.append(f"switching {name(out)} out for {name(inn)}")
    if plan_["summon"]:
        archon = planning.sides[side_index].archon
        parts.append(f"summoning {archon.spec.name if archon else 'the Archon'}")
    plays = []
    for cid, tier, target in plan_["cards"]:
        card = cards.get(cid)
        text = f"{card.name if card else cid} on {name(target)}"
        plays.append(text + (f" at Tier {tier}" if tier != 1 else ""))
    if plays:
        parts.append("playing " + ", ".join(plays))
    if not parts:
        return "Passing" if first else "passing"
    text = ", ".join(parts)
    return text[0].upper() + text[1:] if first else text


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


def _greedy_plans(states: RoundStates) -> bool:
    """Both plans made are greedy's own, with no Switch or summon (which draw a card)."""
    views = planning_views(clone(states.planning, random.Random(0)))
    rng = random.Random(0)
    for side, made in enumerate(states.made):
        if made is None or made["switch"] or made["summon"]:
            return False
        view = views[side]
        if greedy.switch(view, rng) is not None:
            return False
        if view.can_summon() and greedy.summon(view, rng):
            return False
        if [list(p) for p in greedy.plays(view, rng)] != made["cards"]:
            return False
    return True


# -- the review ----------------------------------------------------------------------------
def review(
    data: BattleInput,
    log: dict,
    *,
    rate_sides=None,
    progress=None,
    half_width=HALF_WIDTH,
    max_pairs=MAX_PAIRS,
) -> dict:
    """The whole review of a battle. `rate_sides` (a, b) says which sides' plans are rated:
    None rates the sides a person played (plans made by a player or on a timeout).
    `progress(done, total)` is called as the rounds are done."""
    rounds, result = replay_states(data, log)
    if rate_sides is None:
        rate_sides = tuple(any(r.by[s] in ("player", "timeout") for r in rounds) for s in (0, 1))
    seeds = seeds_for(log, max_pairs)
    rows = []
    total = len(rounds)
    playouts = 0
    for index, states in enumerate(rounds):
        planning = estimate(states.planning, seeds, None, half_width, max_pairs)
        if _greedy_plans(states):
            # Greedy plans without chance: every playout from the planning state makes
            # these plans, with the same draws after them, so the estimate is the same.
            planned = dict(planning, playouts=0)
        else:
            wider = half_width * PLANNED_HALF_WIDTH / HALF_WIDTH
            planned = estimate(states.planned, seeds, states.plans, wider, max_pairs)
        playouts += planning["playouts"] + planned["playouts"]
        row = {
            "round": states.round,
            "win_a": round(planning["win_a"], 4),
            "win_a_low": round(planning["low"], 4),
            "win_a_high": round(planning["high"], 4),
            "planned_win_a": round(planned["win_a"], 4),
            "planned_low": round(planned["low"], 4),
            "planned_high": round(planned["high"], 4),
            "playouts": [planning["playouts"], planned["playouts"]],
            "plan_loss": [None, None],
            "mark": [None, None],
            "better": [None, None],
            "plan_win": [None, None],
            "by": states.by,
        }
        for s in (0, 1):
            if not rate_sides[s] or states.made[s] is None:
                continue
            rated = rate(
                states.planning,
                s,
                states.made[s],
                seeds_for(log, SCREEN + SHORTLIST_MORE + FINAL, f"rate/{states.round}/{s}"),
            )
            row["plan_loss"][s] = rated["loss"]
            row["mark"][s] = mark(rated["loss"])
            row["plan_win"][s] = round(rated["win"], 4)
            if rated["better"] is not None:
                row["better"][s] = (
                    f"{plan_words(states.planning, s, rated['better'])} instead of"
                    f" {plan_words(states.planning, s, normal(states.made[s]), first=False)}:"
                    f" {_pct(rated['better_win'])} instead of {_pct(rated['win'])}"
                )
        rows.append(row)
        if progress is not None:
            progress(index + 1, total)
    for i, row in enumerate(rows):
        after = rows[i + 1]["win_a"] if i + 1 < len(rows) else result
        luck = round(100 * (after - row["planned_win_a"]), 1)
        row["luck"] = [luck, -luck]
    luck_a = round(sum(r["luck"][0] for r in rows), 1)
    accuracy_ = [
        game_accuracy([r["plan_loss"][s] for r in rows if r["plan_loss"][s] is not None])
        for s in (0, 1)
    ]
    swings = sorted(rows, key=lambda r: (-abs(r["luck"][0]), r["round"]))[:3]
    adjusted = round(result - luck_a / 100, 4)
    return {
        "format": FORMAT,
        "rounds": rows,
        "accuracy": accuracy_,
        "luck": [luck_a, -luck_a],
        "plan_loss": [
            round(sum(r["plan_loss"][s] for r in rows if r["plan_loss"][s] is not None), 1)
            if rate_sides[s]
            else None
            for s in (0, 1)
        ],
        "result": [result, 1 - result],
        "luck_adjusted": [adjusted, round(1 - adjusted, 4)],
        "swings": sorted(r["round"] for r in swings),
        "rated": list(rate_sides),
        "playouts": playouts,
        "half_width": half_width,
    }
