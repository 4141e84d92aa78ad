"""The game review (issue 32): Win% by round, each plan rated, and the dice's luck.

Pure Python, no Django: a battle's record (its input and log) in, a review dict out, the
same for the same record in any process (every playout's seed comes from the record).

The parts, each a module of this package:
- states.py: the battle replayed from its record, each round's planning and planned
  states;
- estimates.py: Win% of a state from playouts (antithetic dice, control variates,
  sequential stopping);
- ratings.py: each plan made against the best candidate found, marks and accuracy;
- words.py: plans and Win% in words;
- here: the review of a whole battle, and the luck.

Luck. A round's luck for side A is Win%(after its dice) - Win%(planned, before them): the
next round's planning state, or the result when the battle ended in the round. Side B's is
the opposite. The luck-adjusted result is the result less the luck summed over the game
(as GNU Backgammon reports it); the opening hands' luck (round 1's draw) is not counted.
"""

import random

from .. import greedy
from ..model import BattleInput
from ..plan import begin as planning_views
from .estimates import (  # noqa: F401  (callers and tests read them here)
    ALIKE,
    EARLY_ROUNDS,
    HALF_WIDTH,
    LEAD,
    MAX_PAIRS,
    MAX_STEP,
    MIN_PAIRS,
    PLANNED_HALF_WIDTH,
    STEP,
    Moments,
    Z,
    _fixed_piles,
    _Luck,
    _Mirror,
    _neutral,
    _playout,
    controlled,
    estimate,
    finish,
    seeds_for,
)
from .ratings import (  # noqa: F401
    BLUNDER,
    FINAL,
    INACCURACY,
    MARKS,
    MISTAKE,
    SCREEN,
    SHORTLIST,
    SHORTLIST_MORE,
    SURE,
    _Rater,
    accuracy,
    candidates,
    game_accuracy,
    mark,
    normal,
    rate,
)
from .states import RoundStates, _points, clone, replay_states  # noqa: F401
from .words import _pct, plan_words

FORMAT = "memeyori-review/1"


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
    _, whole = review_rounds(
        data, log, [], rate_sides=rate_sides, progress=progress, half_width=half_width,
        max_pairs=max_pairs,
    )  # fmt: skip
    return whole


def review_rounds(
    data: BattleInput,
    log: dict,
    rows: list[dict],
    *,
    rate_sides=None,
    progress=None,
    half_width=HALF_WIDTH,
    max_pairs=MAX_PAIRS,
    more=None,
) -> tuple[list[dict], dict | None]:
    """The review made in parts, from the round after `rows` (the rounds earlier parts made):
    (the rows so far, the whole review once the last round is in, else None). `more()`,
    asked before each round after the first of this part, stops the part when false: a
    worker makes a long review a second at a time, and what waits behind it goes between.

    A review made in parts is the one made at once, byte for byte: a round's row depends on
    the record and the round alone (every playout's seed comes from them)."""
    rounds, result = replay_states(data, log)
    if rate_sides is None:
        rate_sides = tuple(any(r.by[s] in ("player", "timeout") for r in rounds) for s in (0, 1))
    seeds = seeds_for(log, max_pairs)
    rows = list(rows)
    total = len(rounds)
    first = len(rows)
    for index in range(first, total):
        if index > first and more is not None and not more():
            return rows, None
        rows.append(_row(rounds[index], log, seeds, rate_sides, half_width, max_pairs))
        if progress is not None:
            progress(index + 1, total)
    return rows, _whole(rows, result, rate_sides, half_width)


def _row(states: RoundStates, log: dict, seeds, rate_sides, half_width, max_pairs) -> dict:
    """One round's Win% before and after the plans, and each rated side's plan."""
    planning = estimate(states.planning, seeds, None, half_width, max_pairs)
    if _greedy_plans(states):
        # Greedy plans without chance: every playout from the planning state makes
        # these plans, with the same draws after them, so the estimate is the same.
        planned = dict(planning, playouts=0)
    else:
        wider = half_width * PLANNED_HALF_WIDTH / HALF_WIDTH
        planned = estimate(states.planned, seeds, states.plans, wider, max_pairs)
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
    return row


def _whole(rows: list[dict], result: float, rate_sides, half_width) -> dict:
    """The review from its rows: each round's luck, the game's accuracy, luck and swings."""
    rows = [dict(r) for r in rows]  # luck is added to copies: a part's rows stay as made
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
        "playouts": sum(sum(r["playouts"]) for r in rows),
        "half_width": half_width,
    }
