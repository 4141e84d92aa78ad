"""The game review's estimator (issue 32, battles/engine/review/): Win% by round, plans
rated with what their side could see, and luck, on hand-built and demo battles."""

import json
import math
import random
import statistics
import subprocess
import sys

import pytest

from battles.engine import played, review
from battles.engine.dice import shuffle
from battles.engine.model import battle_input
from battles.engine.policies import GREEDY
from battles.engine.run import input_for, simulate
from battles.snapshot import demo_snapshot, snapshot
from tests.test_battle_engine import card, fighter, party

# The rules alone, in pure Python: the PostgreSQL pass of .ci/run leaves them to SQLite's.
pytestmark = pytest.mark.engine

TIMEOUT = {"by": "timeout", "policy": "greedy", "version": 2}
RATING_WORLDS = review.SCREEN + review.SHORTLIST_MORE + review.FINAL  # as review.review asks


def duel():
    """One Memeyori each, each with two attacks that knock the other out in one blow; the
    Aces move first."""
    a = party("Aces", fighter("Ace", strength=12, speed=9, cards=[card("Slam", power=40)] * 2))
    b = party("Bees", fighter("Bee", strength=12, speed=2, cards=[card("Sting", power=40)] * 2))
    return battle_input(snapshot([a, b], {}))


def played_log(data, first_plan, seed=0):
    """A played game: side A a person (`first_plan` in round 1, then timeouts: greedy),
    side B greedy."""
    plans = {(1, 0): first_plan, **{(r, 0): TIMEOUT for r in range(2, 31)}}
    return played.play(data, (None, GREEDY), seed, plans).log


def test_a_battle_whose_result_is_certain_reads_100_percent_at_every_round():
    a = party("Aces", fighter("Ace", strength=12, speed=9, cards=[card("Slam", power=40)] * 2))
    b = party("Pacifists", fighter("Dove", cards=[]), fighter("Lamb", cards=[]))
    data = battle_input(snapshot([a, b], {}))
    log = simulate(snapshot([a, b], {}), seed=3)
    assert log["result"]["winner"] == 0
    rows = review.review(data, log)["rounds"]
    assert len(rows) >= 2
    for row in rows:
        assert (row["win_a"], row["win_a_low"]) == (1.0, pytest.approx(1.0, abs=0.03))
        assert row["win_a_high"] == 1.0
        assert row["luck"] == [0.0, -0.0]


def test_passing_with_a_lethal_attack_in_hand_is_a_blunder():
    data = duel()
    log = played_log(data, {"switch": None, "summon": False, "cards": []})
    data_ = review.review(data, log)
    first = data_["rounds"][0]
    assert data_["rated"] == [True, False]
    assert first["mark"][0] == "blunder"
    assert first["plan_loss"][0] >= review.BLUNDER
    assert first["better"][0].startswith("Playing Slam on Bee")
    assert "instead of passing" in first["better"][0]
    assert first["plan_loss"][1] is None  # the AI side is not rated unless asked


def test_playing_both_lethal_attacks_is_not_marked():
    data = duel()
    both = [["A1.1", 1, "B1"], ["A1.2", 1, "B1"]]
    log = played_log(data, {"switch": None, "summon": False, "cards": both})
    first = review.review(data, log)["rounds"][0]
    assert first["mark"][0] is None
    assert first["plan_loss"][0] < review.INACCURACY


def _demo(seed=0):
    snap = demo_snapshot("Sunrise Squad", "Night Shift")
    return input_for(snap), simulate(snap, seed=seed)


def test_greedy_against_greedy_gets_no_mark_where_greedys_plan_is_the_best_found():
    data, log = _demo()
    rounds, _ = review.replay_states(data, log)
    seeds = review.seeds_for(log, 80, "test")
    for states in rounds[:4]:
        for side in (0, 1):
            rated = review.rate(states.planning, side, states.made[side], seeds)
            if rated["better"] is None:  # the plan made (greedy's) is the best found
                assert rated["loss"] == 0.0
                assert review.mark(rated["loss"]) is None
            else:
                assert rated["better_win"] > rated["win"]


def test_luck_is_the_next_estimate_less_the_estimate_before_the_dice():
    data = duel()
    log = played_log(data, {"switch": None, "summon": False, "cards": [["A1.1", 1, "B1"]]})
    a = party("Aces", fighter("Ace", strength=12, speed=9, cards=[card("Slam", power=40)] * 2))
    b = party("Pacifists", fighter("Dove", cards=[]), fighter("Lamb", cards=[]))
    log2 = simulate(snapshot([a, b], {}), seed=3)
    for data_, log_ in ((data, log), (battle_input(snapshot([a, b], {})), log2)):
        result = review.review(data_, log_)
        rows = result["rounds"]
        for i, row in enumerate(rows):
            after = rows[i + 1]["win_a"] if i + 1 < len(rows) else result["result"][0]
            assert row["luck"][0] == pytest.approx(100 * (after - row["planned_win_a"]), abs=0.06)
            assert row["luck"][1] == -row["luck"][0]
        assert result["luck"][0] == pytest.approx(sum(r["luck"][0] for r in rows), abs=0.06)
        assert result["luck_adjusted"][0] == pytest.approx(
            result["result"][0] - result["luck"][0] / 100, abs=1e-3
        )


def test_the_review_is_the_same_in_every_run_and_process(monkeypatch):
    data = duel()
    log = played_log(data, {"switch": None, "summon": False, "cards": []}, seed=4)
    first = review.review(data, log)
    assert review.review(data, log) == first
    code = (
        "import json, sys, django, os\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'memeyori_site.settings')\n"
        "django.setup()\n"
        "from tests.test_review import duel\n"
        "from battles.engine import review\n"
        "log = json.loads(sys.stdin.read())\n"
        "print(json.dumps(review.review(duel(), log), sort_keys=True))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(log),
        capture_output=True,
        text=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
        cwd=str(__import__("pathlib").Path(__file__).parent.parent),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(json.dumps(first, sort_keys=True))


def test_a_review_made_a_round_at_a_time_is_the_review_made_at_once():
    # Issue 39: a worker makes a long review a second at a time; each part's rows go
    # through the database (JSON) before the next part takes them up.
    a = party("Aces", fighter("Ace", strength=12, speed=9, cards=[card("Slam", power=40)] * 2))
    b = party("Pacifists", fighter("Dove", cards=[]), fighter("Lamb", cards=[]))
    many = snapshot([a, b], {})
    data, log = battle_input(many), simulate(many, seed=3)
    for rate in (None, (True, True)):
        whole = review.review(data, log, rate_sides=rate)
        rows, parts, made = [], 0, None
        while made is None:
            rows, made = review.review_rounds(data, log, rows, rate_sides=rate, more=lambda: False)
            rows = json.loads(json.dumps(rows))
            parts += 1
        assert parts == len(whole["rounds"]) > 1
        assert json.dumps(made) == json.dumps(whole)


def test_a_sides_rating_ignores_the_other_sides_hand_and_every_draw_order():
    data, log = _demo()
    rounds, _ = review.replay_states(data, log)
    states = rounds[2]
    seeds = review.seeds_for(log, 40, "hidden")
    for side in (0, 1):
        before = review.rate(states.planning, side, states.made[side], seeds)
        other = review.clone(states.planning, __import__("random").Random(0))
        enemy = other.sides[1 - side]
        mine = other.sides[side]
        # Another hand of the same size for the enemy, from its draw pile and discard.
        pool = enemy.hand + enemy.pile + enemy.discard
        shuffle(__import__("random").Random(99), pool)
        size = len(enemy.hand)
        enemy.hand, enemy.pile = pool[:size], pool[size:]
        enemy.discard = []
        mine.pile.reverse()  # its own draw order is not its to know either
        assert review.rate(other, side, states.made[side], seeds) == before


def test_a_battle_of_policies_with_dice_of_their_own_replays_for_the_review():
    """lookahead 3 and random 2 draw from dice of their own (Policy.dice): the review's
    replay records their plans with the same dice, so it reaches the log's result."""
    from battles.engine import review as engine_review
    from battles.engine.run import input_for, simulate
    from battles.snapshot import demo_snapshot

    snap = demo_snapshot("Night Shift", "Cold Front")
    log = simulate(snap, seed=4, policies=("lookahead", "random"))
    states, result = engine_review.replay_states(input_for(snap), log)
    assert len(states) >= log["result"]["rounds"] - 1
    assert result == {0: 1.0, 1: 0.0, None: 0.5}[log["result"]["winner"]]


def _rate_playing_every_world(planning, side, made, seeds, plays):
    """review.rate as it was before it stopped candidates early: every candidate in every
    world of each stage (the reference the early stops must agree with)."""
    rater = review._Rater(planning, side)

    def play(seed, option):
        plays.append(1)
        return rater.play(seed, option)

    options = review.candidates(planning, side, made)
    cut = review.SCREEN + review.SHORTLIST_MORE
    screen, more = seeds[: review.SCREEN], seeds[review.SCREEN : cut]
    fresh = seeds[cut : cut + review.FINAL]
    first = [play(s, options[0]) for s in screen + more]
    out = {"win": sum(first) / len(first), "loss": 0.0, "better": None, "better_win": None,
           "candidates": len(options)}  # fmt: skip
    if len(options) == 1:
        return out
    scores = [sum(play(s, o) for s in screen) for o in options[1:]]
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[: review.SHORTLIST]
    for i in order:
        scores[i] += sum(play(s, options[1 + i]) for s in more)
    best = max(order, key=lambda i: (scores[i], -i))
    if scores[best] <= sum(first):
        return out
    half = review.FINAL // 2
    base = [play(s, options[0]) for s in fresh[:half]]
    other = [play(s, options[1 + best]) for s in fresh[:half]]
    if sum(other) > sum(base):
        base += [play(s, options[0]) for s in fresh[half:]]
        other += [play(s, options[1 + best]) for s in fresh[half:]]
    win = sum(base) / len(base)
    diffs = [b - a for a, b in zip(base, other, strict=True)]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    out["win"] = win
    if mean > 0 and mean > review.SURE * math.sqrt(var / len(diffs)):
        out.update(loss=round(100 * mean, 1), better=options[1 + best], better_win=win + mean)
    return out


def test_the_rating_stops_a_candidate_only_where_no_world_left_could_change_the_outcome(
    monkeypatch,
):
    data, log = _demo()
    rounds, _ = review.replay_states(data, log)
    everything, stopped = [], []
    play = review._Rater.play

    def counted(self, seed, option):
        stopped.append(1)
        return play(self, seed, option)

    monkeypatch.setattr(review._Rater, "play", counted)
    for states in rounds[:6]:
        for side in (0, 1):
            seeds = review.seeds_for(log, RATING_WORLDS, f"rate/{states.round}/{side}")
            made = states.made[side]
            reference = _rate_playing_every_world(states.planning, side, made, seeds, everything)
            assert review.rate(states.planning, side, made, seeds) == reference
    # `stopped` counted the reference's plays too.
    assert len(stopped) - len(everything) < 0.9 * len(everything)


def test_every_dice_luck_control_averages_zero_over_the_playouts():
    """Each control is landed (or critical) less its chance, weighted by what was known
    before the roll: its mean over many playouts is 0 within a few standard errors."""
    data, log = _demo()
    rounds, _ = review.replay_states(data, log)
    state = rounds[3].planning
    odds: dict = {}
    piles = review._fixed_piles(state)
    rows = [review._playout(state, random.Random(n), None, odds, piles) for n in range(600)]
    columns = list(zip(*rows, strict=True))[1:]
    assert len(columns) == 14
    for index, column in enumerate(columns):
        error = statistics.stdev(column) / len(column) ** 0.5
        assert error > 0, index
        assert abs(statistics.mean(column)) < 4 * error, (index, statistics.mean(column), error)
