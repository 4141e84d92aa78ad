"""`make bench` figures for the newcomer's default AI level (issue 41.2,
battles/play/newcomer.py): a copy of the starter party (the demo's First Friends) against
the demo's own, at every AI level, the player's side played by `beginner` (a new player)
and by `greedy` (the estimates' stand-in for a careful player), seats alternated and seeds
from 31,000 as the estimates do. Prints each record and the weakest level whose game is
even (35-65% of decided battles won, under 20% drawn), which NEWCOMER_LEVEL should be.

Run alone: `.venv/bin/python -m tests.bench newcomer`.
"""

import random

from tests.bench import sized

EVEN = (0.35, 0.65)
DRAWS_UNDER = 0.2


def record(snapshot, player: str, level: str, battles: int) -> tuple[int, int, int]:
    """(won, lost, drawn) of the player's side over `battles`, seats alternated."""
    from battles.engine.battle import run_summary
    from battles.engine.model import battle_input
    from battles.engine.policies import POLICIES

    sides = snapshot["sides"]
    inputs = (battle_input(snapshot), battle_input({**snapshot, "sides": sides[::-1]}))
    won = lost = drawn = 0
    for n in range(battles):
        seat = n % 2
        policies = (POLICIES[player], POLICIES[level])[:: 1 - 2 * seat]
        winner = run_summary(inputs[seat], policies, random.Random(31_000 + n))["winner"]
        if winner is None:
            drawn += 1
        elif winner == seat:
            won += 1
        else:
            lost += 1
    return won, lost, drawn


def even(won: int, lost: int, drawn: int) -> bool:
    decided = won + lost
    total = decided + drawn
    return bool(decided) and EVEN[0] <= won / decided <= EVEN[1] and drawn < DRAWS_UNDER * total


def bench_newcomer() -> None:
    from battles.engine.policies import LEVELS
    from battles.play import newcomer
    from battles.snapshot import battle_snapshot
    from cards.demo import seed_demo
    from tests.bench import throwaway_database
    from tests.conftest import make_user

    with throwaway_database("newcomer.sqlite3"):
        seed_demo()
        snapshot = battle_snapshot(
            newcomer.starter_party_create(owner=make_user("newt")), newcomer.starter_source()
        )
        for player in ("beginner", "greedy"):
            weakest = None
            for level, (label, _) in LEVELS.items():
                battles = int(sized(60, 2) if level == "lookahead" else sized(300, 4))
                won, lost, drawn = record(snapshot, player, level, battles)
                share = won / (won + lost) if won + lost else float("nan")
                if weakest is None and even(won, lost, drawn):
                    weakest = label
                print(
                    f"newcomer: {player} against {label}: won {won}, lost {lost}, drew "
                    f"{drawn} of {battles} ({share:.0%} of decided)"
                )
            print(f"newcomer: weakest even level for {player}: {weakest}")
        print(f"newcomer: NEWCOMER_LEVEL is {LEVELS[newcomer.NEWCOMER_LEVEL][0]}")


BENCHES = [bench_newcomer]
