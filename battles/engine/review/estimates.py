"""The game review's estimates: Win% of a state, from playouts.

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
"""

import hashlib
import math
import random

from .. import end, plan, resolve, start
from ..dice import shuffle
from ..model import MAX_ROUNDS
from ..odds import attack_odds
from ..settle import _damage
from ..worlds import Sink
from .states import _card_id, _points, clone

HALF_WIDTH = 0.03  # the 95% interval of a round's Win% (the curve): at most +-3 points
PLANNED_HALF_WIDTH = 0.04  # after the plans: only luck reads it, as a difference (CRN)
EARLY_ROUNDS = 2  # a playout's first rounds, whose dice luck is also counted apart
MIN_PAIRS = 32
STEP, MAX_STEP = 4, 16  # pairs between two checks of an interval (see the docstring)
LEAD = 0.95
MAX_PAIRS = 640
Z = 1.96

_TOP = 1.0 - 2.0**-53  # random() returns multiples of 2**-53 in [0, TOP]


class _Mirror(random.Random):
    """The antithetic twin of random.Random(seed): TOP - u for each u, so every die face f
    reads 7 - f and every shuffle picks from the other end (the engine draws only random())."""

    def random(self, _draw=random.Random.random):
        return _TOP - _draw(self)


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
            return end.at_limit(world)  # R9.6 under the battle's rule, or a draw
        world.round += 1
        start.round_start(world)
        winner = end.winner(world)
        if winner is not False:
            return winner


class _Luck(Sink):
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
    plain = _damage(power, stat, same, effect, False, False, mitigation)[0]
    critical = _damage(power, stat, same, effect, True, False, mitigation)[0]
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
