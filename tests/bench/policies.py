"""`make bench` figures for the policies: how strong `lookahead` (the Thinker level) is
against `greedy`, what a lookahead plan costs, and how far below greedy the weaker levels
play.

Strength: battles of identical parties (each demo party against itself, and random parties
against themselves), lookahead on side A in even battles and side B in odd ones, so neither
side's seat helps it; the share of decided battles lookahead wins, with its 95% Wilson
interval (battles.lab.stats.wilson). Cost: CPU time (process_time, so other processes on
the machine do not count) per plan, a plan being one side's Switch, summon and cards in
one round, with greedy's plan timed in the same battles as the baseline.
"""

import random
import statistics
import time

from tests.bench import sized

DEMO_PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]


def _inputs(demo_battles: int, random_battles: int) -> list:
    """(input, seed) for each battle: the demo parties in turn, then random parties."""
    from battles.engine.model import battle_input
    from battles.snapshot import demo_snapshot, snapshot
    from tests.test_battle_groups import random_party
    from tests.test_battle_invariants import CHART

    demo = [battle_input(demo_snapshot(p, p)) for p in DEMO_PARTIES]
    out = [(demo[i % len(demo)], 40_000 + i) for i in range(demo_battles)]
    rng = random.Random(2019)
    for i in range(random_battles):
        party = random_party(rng)
        out.append((battle_input(snapshot([party, party], CHART)), 50_000 + i))
    return out


class _Timed:
    """A policy whose every plan (switch, summon and plays of one side in one round) is
    timed in CPU seconds."""

    def __init__(self, policy, plans: list):
        from battles.engine.field import Policy

        self.plans = plans
        self.started = {}

        def switch(view, rng):
            start = time.process_time()
            out = policy.switch(view, rng)
            self.started[view.side.index] = time.process_time() - start
            return out

        def summon(view, rng):
            start = time.process_time()
            out = policy.summon(view, rng)
            self.started[view.side.index] += time.process_time() - start
            return out

        def plays(view, rng):
            start = time.process_time()
            out = policy.plays(view, rng)
            spent = self.started.pop(view.side.index, 0.0) + time.process_time() - start
            self.plans.append(spent)
            return out

        self.policy = Policy(
            policy.name, switch, summon, plays, version=policy.version, dice=policy.dice
        )


def _record(results: dict, group: str, winner, seat: int) -> None:
    won, lost, drawn = results.setdefault(group, [0, 0, 0])
    if winner is None:
        results[group][2] += 1
    elif winner == seat:
        results[group][0] += 1
    else:
        results[group][1] += 1


def _share(name: str, won: int, lost: int, drawn: int) -> str:
    """ "wins W, loses L, D draws (d% of battles); w% of decided (95% Wilson lo-hi)"."""
    from battles.lab.stats import wilson

    decided = won + lost
    low, high = wilson(won, decided) if decided else (0.0, 0.0)
    return (
        f"{name} wins {won:,}, loses {lost:,}, {drawn:,} draws"
        f" ({drawn / max(decided + drawn, 1):.0%} of battles); {won / max(decided, 1):.1%} of"
        f" decided battles (95% Wilson {low:.1%}-{high:.1%})"
    )


def bench_lookahead() -> None:
    """The strongest level (Thinker: lookahead) against greedy, with plan times."""
    from battles.engine.battle import run_summary
    from battles.engine.policies import GREEDY, LEVELS, LOOKAHEAD

    demo_battles, random_battles = int(sized(1000, 4)), int(sized(1000, 4))
    battles = _inputs(demo_battles, random_battles)
    look_plans, greedy_plans = [], []
    look = _Timed(LOOKAHEAD, look_plans).policy
    greedy = _Timed(GREEDY, greedy_plans).policy
    results: dict[str, list[int]] = {}
    wall = time.perf_counter()
    for n, (data, seed) in enumerate(battles):
        seat = n % 2  # lookahead's side
        policies = (look, greedy) if seat == 0 else (greedy, look)
        winner = run_summary(data, policies, random.Random(seed))["winner"]
        _record(results, "demo" if n < demo_battles else "random", winner, seat)
    wall = time.perf_counter() - wall
    name = f"{LEVELS['lookahead'][0]} (lookahead {LOOKAHEAD.version})"
    total = [sum(r[i] for r in results.values()) for i in range(3)]
    print(
        f"policies: {name} vs greedy over {len(battles):,} battles of identical parties"
        f" (sides alternated; goal 70% of decided battles):"
    )
    for group, count in (("demo", demo_battles), ("random", random_battles)):
        print(f"policies:   {count:,} on the {group} parties: {_share(name, *results[group])}")
    print(f"policies:   all: {_share(name, *total)}")
    look_median = statistics.median(look_plans)
    greedy_median = statistics.median(greedy_plans)
    print(
        f"policies: a lookahead plan takes {look_median * 1e3:.1f} ms of CPU (median of"
        f" {len(look_plans):,}; 90th percentile"
        f" {sorted(look_plans)[int(len(look_plans) * 0.9)] * 1e3:.1f} ms; goal at most 50 ms),"
        f" greedy's {greedy_median * 1e3:.3f} ms in the same battles:"
        f" lookahead/greedy ratio {look_median / greedy_median:,.0f};"
        f" {wall:.0f} s in all"
    )


def bench_levels() -> None:
    """The levels below greedy against it, on the same battles: each should lose."""
    from battles.engine.battle import run_summary
    from battles.engine.policies import GREEDY, LEVELS, POLICIES

    battles = _inputs(int(sized(500, 4)), int(sized(500, 4)))
    for policy in ("random", "beginner"):
        results: dict[str, list[int]] = {}
        for n, (data, seed) in enumerate(battles):
            seat = n % 2
            pair = (POLICIES[policy], GREEDY) if seat == 0 else (GREEDY, POLICIES[policy])
            _record(results, "all", run_summary(data, pair, random.Random(seed))["winner"], seat)
        label = LEVELS[policy][0]
        print(f"policies: {label} ({policy}) vs greedy, {len(battles):,} battles:"
              f" {_share(label, *results['all'])}")  # fmt: skip


BENCHES = [bench_lookahead, bench_levels]
