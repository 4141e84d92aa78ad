"""One strength scale for the AI levels (issues 39.1 and 41.3): each level's rating, fitted
once from AI-against-AI battles and kept in levels.json, and the prediction of a player's
chance at any level from one cheap measurement of the pairing (greedy against greedy).

The model is Davidson's extension of Bradley-Terry. A battle between sides whose
strengths differ by x (natural-log units) ends

    won   e^(x/2) / Z,   lost   e^(-x/2) / Z,   drawn   nu / Z,   Z = e^(x/2) + e^(-x/2) + nu

where nu is how drawish the pairing is (nu / (2 + nu) of battles between equals are drawn).
x is the sum of the parties' difference (s, one per pairing of parties) and the levels'
(r_mine - r_theirs, one per level, the same for every pairing): a level is as much
stronger than greedy on any parties.

Why Bradley-Terry and not Elo or Glicko-2: the players are four fixed programs measured
once in a batch, not people whose strength moves between games. Elo is Bradley-Terry
fitted one game at a time (its K-factor a step size); Glicko-2 adds each player's
uncertainty and volatility over time. Fitted at once by maximum likelihood, the ratings
are the ones Elo would wander around, and a new policy version is a new player anyway.
Why Davidson for draws: under the draw-at-the-limit rule most battles between equals were
draws (66-71%, issue 41.1), and counting a draw as half of a win pulls every chance
towards even; Davidson keeps the draws as their own outcome, with each pairing's own nu
measured from its greedy battles (two healers draw far more than two brawlers).

A picker plays greedy against greedy on the pairing (fair.py), reads s and nu from those
counts (`pairing`) and predicts the Thinker from the ratings (`predict`): no Thinker battle
is played for it (the cheap levels it measures, fair.py says why). Fitting and checking:
tests/bench/levels.py (fitted on 30 pairings, 13,860 battles, in 457 s on a busy 2-core
machine: Coin Flipper -3.37, Beginner -2.40, Greedy 0, Thinker +0.27, i.e. the Thinker
wins 57% of decided battles against Greedy on equal parties).

Pure Python, no Django: the bench and the pages read the same functions.
"""

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("levels.json")
ANCHOR = "greedy"  # the level every rating is measured from (rating 0), the player's own
SMOOTH = 0.5  # added to each count of a pairing's measurement, so none is 0 (no infinite s)


@dataclass(frozen=True)
class Outcome:
    """Shares of battles won, lost and drawn, from the first side's point of view."""

    won: float
    lost: float
    drawn: float

    @property
    def decided(self) -> float:
        """The share of the decided battles the first side wins (0.5 when none is)."""
        d = self.won + self.lost
        return self.won / d if d else 0.5


def outcome(x: float, nu: float) -> Outcome:
    up, down = math.exp(x / 2), math.exp(-x / 2)
    z = up + down + nu
    return Outcome(up / z, down / z, nu / z)


def pairing(wins: int, losses: int, draws: int) -> tuple[float, float]:
    """(s, nu) of a pairing from its greedy-against-greedy counts: Davidson's maximum
    likelihood (s = ln(W/L), nu = D / sqrt(W L)) on counts smoothed by SMOOTH each."""
    w, lo, d = wins + SMOOTH, losses + SMOOTH, draws + SMOOTH
    return math.log(w / lo), d / math.sqrt(w * lo)


def predict(wins: int, losses: int, draws: int, level: str, ratings: dict) -> Outcome:
    """The chance of greedy on the player's party against `level` on the other, from the
    pairing's greedy-against-greedy counts (the player's wins first) and the ratings."""
    s, nu = pairing(wins, losses, draws)
    return outcome(s + ratings[ANCHOR] - ratings[level], nu)


def against_anchor(level: str, ratings: dict) -> float:
    """The share of decided battles `level` wins against greedy on equal parties."""
    return 1 / (1 + math.exp(ratings[ANCHOR] - ratings[level]))


def in_words(chance: float) -> str:
    """A chance as people say it: "about 1 in 5", "about 3 in 4", "about even"."""
    if chance < 0.05:
        return "less than 1 in 20"
    if chance > 0.95:
        return "more than 19 in 20"
    near = Fraction(chance).limit_denominator(10)
    if near == Fraction(1, 2):
        return "about even"
    # The plainest fraction within a few points: 0.27 is "about 1 in 4", not "3 in 11".
    for denominator in range(2, 11):
        numerator = round(chance * denominator)
        if numerator and abs(numerator / denominator - chance) <= 0.03:
            return f"about {numerator} in {denominator}"
    return f"about {near.numerator} in {near.denominator}"


def strength(level: str, ratings: dict, anchor_label: str = "Greedy") -> str:
    """A level's place on the scale in words (issue 41.3): "wins about 7 in 10 against
    Greedy" (of decided battles between equal parties); "" when it is not rated."""
    if level not in ratings or ANCHOR not in ratings:
        return ""
    if level == ANCHOR:
        return "the measure: the other levels are rated against it"
    share = against_anchor(level, ratings)
    # In tenths, so that the levels read as one scale ("2 in 10", "6 in 10").
    if share < 0.05:
        said = "less than 1 in 20"
    elif share > 0.95:
        said = "more than 19 in 20"
    else:
        said = f"about {min(9, max(1, round(share * 10)))} in 10"
    return f"wins {said} against {anchor_label}"


# -- the kept ratings ---------------------------------------------------------------------


@cache
def _read(path: str) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"ratings": {}, "versions": {}}


def kept(versions: dict[str, int], path: Path = DATA) -> dict:
    """The kept ratings of the levels whose policy is at the version they were fitted at
    (a changed policy is a new player: unrated until the bench fits it), greedy's
    included only if greedy itself is."""
    data = _read(str(path))
    if data["versions"].get(ANCHOR) != versions.get(ANCHOR):
        return {}
    return {
        name: r
        for name, r in data["ratings"].items()
        if data["versions"].get(name) == versions.get(name)
    }


# -- fitting ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """Battles on one pairing of parties: `first` played the pairing's first party,
    `second` the other (seats alternated), with the first's wins, losses and draws."""

    pairing: str
    first: str
    second: str
    wins: int
    losses: int
    draws: int

    @property
    def battles(self) -> int:
        return self.wins + self.losses + self.draws


def log_likelihood(records, ratings, s, log_nu) -> float:
    total = 0.0
    for rec in records:
        o = outcome(s[rec.pairing] + ratings[rec.first] - ratings[rec.second],
                    math.exp(log_nu[rec.pairing]))  # fmt: skip
        for count, p in ((rec.wins, o.won), (rec.losses, o.lost), (rec.draws, o.drawn)):
            if count:
                total += count * math.log(max(p, 1e-300))
    return total


def fit(records: list[Record], *, iterations: int = 400, prior: float = 1 / 25) -> dict:
    """Maximum likelihood ratings (ANCHOR at 0), with each pairing's s and log nu as
    nuisance parameters; `prior` is a weak Gaussian pull to 0 on s and log nu (variance
    25) that keeps a pairing one side always wins finite. Diagonal Newton steps:
    each parameter moves by its gradient over its curvature, all at once, halved when a
    step would lower the likelihood."""
    levels = sorted({r.first for r in records} | {r.second for r in records})
    pairings = sorted({r.pairing for r in records})
    ratings = dict.fromkeys(levels, 0.0)
    s = dict.fromkeys(pairings, 0.0)
    log_nu = dict.fromkeys(pairings, 0.0)

    def objective(ratings, s, log_nu):
        pull = sum(v * v for v in s.values()) + sum(v * v for v in log_nu.values())
        return log_likelihood(records, ratings, s, log_nu) - prior * pull / 2

    best = objective(ratings, s, log_nu)
    step = 1.0
    for _ in range(iterations):
        g_r, h_r = dict.fromkeys(levels, 0.0), dict.fromkeys(levels, 0.0)
        g_s = {p: -prior * s[p] for p in pairings}
        h_s = dict.fromkeys(pairings, prior)
        g_n = {p: -prior * log_nu[p] for p in pairings}
        h_n = dict.fromkeys(pairings, prior)
        for rec in records:
            nu = math.exp(log_nu[rec.pairing])
            o = outcome(s[rec.pairing] + ratings[rec.first] - ratings[rec.second], nu)
            n = rec.battles
            # d log L / dx and its curvature (Fisher information), per battle.
            gx = (rec.wins - rec.losses) / 2 - n * (o.won - o.lost) / 2
            hx = n * ((o.won + o.lost) / 4 - ((o.won - o.lost) / 2) ** 2)
            g_s[rec.pairing] += gx
            h_s[rec.pairing] += hx
            g_r[rec.first] += gx
            h_r[rec.first] += hx
            g_r[rec.second] -= gx
            h_r[rec.second] += hx
            g_n[rec.pairing] += rec.draws - n * o.drawn
            h_n[rec.pairing] += n * o.drawn * (1 - o.drawn)
        while True:
            new_r = {k: v + step * g_r[k] / h_r[k] if h_r[k] else v for k, v in ratings.items()}
            shift = new_r.get(ANCHOR, 0.0)
            new_r = {k: v - shift for k, v in new_r.items()}
            new_s = {k: v + step * g_s[k] / h_s[k] for k, v in s.items()}
            new_n = {k: v + step * g_n[k] / h_n[k] for k, v in log_nu.items()}
            value = objective(new_r, new_s, new_n)
            if value >= best or step < 1e-6:
                break
            step /= 2
        if value - best < 1e-9 and step >= 1:
            ratings, s, log_nu, best = new_r, new_s, new_n, value
            break
        ratings, s, log_nu, best = new_r, new_s, new_n, value
        step = min(1.0, step * 2)
    return {"ratings": ratings, "pairings": {p: [s[p], math.exp(log_nu[p])] for p in pairings}}
