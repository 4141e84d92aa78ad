"""The AI levels' one strength scale (issues 39.1, 41.3; battles/play/levels.py): Davidson's
Bradley-Terry with draws, fitted from battles between levels, predicting a pairing at any
level from its greedy-against-greedy counts."""

import json
import math
import random

import pytest

from battles.engine.policies import LEVELS, POLICIES
from battles.play import levels
from battles.play.levels import Record, against_anchor, fit, outcome, pairing, predict, strength

TRUE = {"random": -2.5, "beginner": -1.2, "greedy": 0.0, "lookahead": 0.5}


def _draw(rng, x, nu, n):
    o = outcome(x, nu)
    w = lo = d = 0
    for _ in range(n):
        u = rng.random()
        if u < o.won:
            w += 1
        elif u < o.won + o.lost:
            lo += 1
        else:
            d += 1
    return w, lo, d


def test_davidson_splits_battles_into_wins_losses_and_draws():
    even = outcome(0.0, 2.0)
    assert even.won == even.lost == pytest.approx(0.25) and even.drawn == pytest.approx(0.5)
    assert even.decided == 0.5
    strong = outcome(math.log(4), 0.0)  # 4 to 1 with no draws
    assert strong.won == pytest.approx(0.8) and strong.decided == pytest.approx(0.8)
    # The counts give back the pairing they came from (smoothed by half a battle each).
    s, nu = pairing(399_999, 99_999, 199_999)
    assert s == pytest.approx(math.log(4), abs=1e-4) and nu == pytest.approx(1.0, abs=1e-4)


def test_a_prediction_at_greedy_is_the_measurement_and_others_move_by_their_rating():
    ratings = {"greedy": 0.0, "lookahead": 0.5, "random": -3.0}
    at_greedy = predict(60, 30, 10, "greedy", ratings)
    assert at_greedy.won == pytest.approx(0.6, abs=0.01)
    assert at_greedy.drawn == pytest.approx(0.1, abs=0.01)
    assert predict(60, 30, 10, "lookahead", ratings).won < at_greedy.won
    assert predict(60, 30, 10, "random", ratings).won > 0.9
    # A pairing nobody has won yet is not infinitely lopsided.
    assert 0 < predict(0, 100, 0, "greedy", ratings).won < 0.01


def test_the_fit_finds_the_levels_ratings_from_their_battles():
    rng = random.Random(39)
    records = []
    for p in range(30):
        s, nu = rng.gauss(0, 1.5), rng.choice([0.05, 0.5, 3.0])
        for level in TRUE:
            w, lo, d = _draw(rng, s + TRUE["greedy"] - TRUE[level], nu, 300)
            records.append(Record(f"p{p}", "greedy", level, w, lo, d))
        w, lo, d = _draw(rng, s + TRUE["random"] - TRUE["beginner"], nu, 100)
        records.append(Record(f"p{p}", "random", "beginner", w, lo, d))
    fitted = fit(records)["ratings"]
    assert fitted["greedy"] == 0.0
    for level, r in TRUE.items():
        assert fitted[level] == pytest.approx(r, abs=0.15), (level, fitted)


def test_a_levels_strength_is_said_against_greedy():
    ratings = {"greedy": 0.0, "lookahead": math.log(7 / 3), "random": -4.0}
    assert against_anchor("lookahead", ratings) == pytest.approx(0.7)
    assert strength("lookahead", ratings) == "wins about 7 in 10 against Greedy"
    assert strength("random", ratings) == "wins less than 1 in 20 against Greedy"
    assert strength("greedy", ratings).startswith("the measure")
    assert strength("beginner", ratings) == ""  # not rated: nothing is claimed


def test_the_kept_ratings_rate_every_level_at_its_current_version():
    data = json.loads(levels.DATA.read_text(encoding="utf-8"))
    assert set(data["ratings"]) == set(LEVELS)
    assert data["versions"] == {name: p.version for name, p in POLICIES.items()}
    rated = levels.kept({name: p.version for name, p in POLICIES.items()})
    assert rated["greedy"] == 0.0
    assert rated["random"] < rated["beginner"] < rated["greedy"]


def test_a_changed_policy_is_unrated_until_the_bench_fits_it(tmp_path):
    path = tmp_path / "levels.json"
    path.write_text(json.dumps({
        "ratings": {"greedy": 0.0, "lookahead": 0.4},
        "versions": {"greedy": 2, "lookahead": 3},
    }))  # fmt: skip
    assert levels.kept({"greedy": 2, "lookahead": 3}, path) == {"greedy": 0.0, "lookahead": 0.4}
    assert levels.kept({"greedy": 2, "lookahead": 4}, path) == {"greedy": 0.0}
    assert levels.kept({"greedy": 3, "lookahead": 3}, path) == {}
