"""`make bench` figures for R9.6 (issue 41.1): how many battles end in a draw, greedy against
greedy, with "a draw at the limit" (the rule of every battle before R9.6) and with the
round limit deciding, in the same run on the same seeds.

Each of the five demo parties against itself, and the six pairings of the four balanced
demo parties (battles.demo.DEMO_PARTIES), `BATTLES` battles each (seeds 0 to 199, summary
mode). Goal: a demo party against itself at most 10% draws under R9.6 (66% before). It also
says how many battles were won at the limit, and the ratio of the two rules' CPU time (a
battle decided at the limit costs no more than a draw; longer battles show as more time).

A second figure says whether playing for the limit pays: greedy as it is (near_limit.py)
against greedy without it, under R9.6, seats alternated.

    .venv/bin/python -m tests.bench draws
"""

import itertools
import random
import time

from tests.bench import sized

BATTLES = 200
SELF = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch", "First Friends"]
BALANCED = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]


def draw_rates(pairs, battles: int) -> list[tuple[str, dict, dict]]:
    """(name, {rule: draws}, {rule: [CPU seconds, battles won at the limit]}) per pairing."""
    from battles.engine.battle import run_summary
    from battles.engine.model import LIMIT_DECIDE, LIMIT_DRAW, MAX_ROUNDS, battle_input
    from battles.engine.policies import GREEDY
    from battles.snapshot import demo_snapshot

    out = []
    for a, b in pairs:
        draws, costs = {}, {}
        for rule in (LIMIT_DRAW, LIMIT_DECIDE):
            data = battle_input(demo_snapshot(a, b, limit=rule))
            # One battle first, so that neither rule's time pays for the input's memos.
            run_summary(data, (GREEDY, GREEDY), random.Random(-1))
            start = time.process_time()
            drawn = at_limit = 0
            for seed in range(battles):
                summary = run_summary(data, (GREEDY, GREEDY), random.Random(seed), seed=seed)
                drawn += summary["winner"] is None
                at_limit += summary["winner"] is not None and summary["rounds"] == MAX_ROUNDS
            draws[rule] = drawn
            costs[rule] = [time.process_time() - start, at_limit]
        out.append((f"{a} vs {b}", draws, costs))
    return out


def bench_draws() -> None:
    battles = int(sized(BATTLES, 4))
    pairs = [(p, p) for p in SELF] + list(itertools.combinations(BALANCED, 2))
    rows = draw_rates(pairs, battles)
    print(f"draws: greedy vs greedy, {battles} battles each, a draw at the limit -> R9.6 decides")
    for name, draws, costs in rows:
        ratio = costs["decide"][0] / costs["draw"][0] if costs["draw"][0] else float("nan")
        print(
            f"draws: {name:30} {100 * draws['draw'] / battles:5.1f}% -> "
            f"{100 * draws['decide'] / battles:4.1f}%"
            f" (won at the limit {costs['decide'][1]}; CPU decide/draw {ratio:.2f})"
        )
    for label, chosen in (("against itself", rows[: len(SELF)]), ("pairings", rows[len(SELF) :])):
        before = sum(d["draw"] for _, d, _ in chosen) / (battles * len(chosen))
        after = sum(d["decide"] for _, d, _ in chosen) / (battles * len(chosen))
        print(f"draws: {label}, all: {100 * before:.1f}% -> {100 * after:.1f}%")


def bench_limit_play() -> None:
    """Greedy that plays for the limit (near_limit.py: its Archon summoned near round 30
    whenever the upkeep to the limit is covered) against greedy without it, under R9.6, on
    each demo party against itself, seats alternated: the share of decided battles the
    limit-aware side wins, with its 95% Wilson interval."""
    from battles.engine import greedy
    from battles.engine.battle import run_summary
    from battles.engine.field import Policy
    from battles.engine.model import LIMIT_DECIDE, battle_input
    from battles.engine.policies import GREEDY
    from battles.lab.stats import wilson
    from battles.snapshot import demo_snapshot

    def unaware_summon(view, rng):
        return view.side.resonance >= greedy.ARCHON_SUMMON_COST + greedy.SUMMON_UPKEEP_ROUNDS

    unaware = Policy("greedy", greedy.switch, unaware_summon, greedy.plays, GREEDY.version, "none")
    battles = int(sized(BATTLES, 4))
    wins = losses = 0
    for party in SELF:
        data = battle_input(demo_snapshot(party, party, limit=LIMIT_DECIDE))
        for seed in range(battles):
            seat = seed % 2
            policies = (GREEDY, unaware) if seat == 0 else (unaware, GREEDY)
            winner = run_summary(data, policies, random.Random(seed), seed=seed)["winner"]
            if winner is not None:
                wins += winner == seat
                losses += winner != seat
    low, high = wilson(wins, wins + losses)
    print(
        f"draws: greedy playing for the limit vs without, R9.6, the five demo mirrors,"
        f" {battles} battles each: {wins} wins, {losses} losses"
        f" ({100 * wins / max(1, wins + losses):.1f}% of decided, 95% {100 * low:.1f}-"
        f"{100 * high:.1f}%)"
    )


BENCHES = [bench_draws, bench_limit_play]
