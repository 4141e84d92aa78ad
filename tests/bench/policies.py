"""`make bench` figures for the policies: how strong `lookahead` (the Thinker level) is
against `greedy`, what a lookahead plan costs, and how far below greedy the weaker levels
play.

Strength (issue 42): set-ups of two *different* parties, the four balanced demo parties in
each ordered pairing and pairs of random parties, each set-up played twice on the same seed,
lookahead on side A and then on side B, so that neither the seat nor the pairing helps it;
the share of decided battles lookahead wins, with its 95% Wilson interval
(battles.lab.stats.wilson). Cost: CPU time (process_time, so other processes on the machine
do not count) per plan, a plan being one side's Switch, summon and cards in one round,
against the CPU time of a whole greedy battle timed in the same run (the goal: at most 30
greedy battles' time a plan).
"""

import random
import statistics
import time

from tests.bench import sized

DEMO_PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]


def _inputs(demo_setups: int, random_setups: int) -> list:
    """(group, input, seed) for each set-up: the ordered pairings of different demo parties
    in turn, then pairs of random parties."""
    from battles.engine.model import battle_input
    from battles.snapshot import demo_snapshot, snapshot
    from tests.test_battle_groups import random_party
    from tests.test_battle_invariants import CHART

    pairings = [(a, b) for a in DEMO_PARTIES for b in DEMO_PARTIES if a != b]
    demo = [battle_input(demo_snapshot(a, b)) for a, b in pairings]
    out = [("demo", demo[i % len(demo)], 40_000 + i) for i in range(demo_setups)]
    rng = random.Random(2019)
    for i in range(random_setups):
        parties = [random_party(rng), random_party(rng)]
        out.append(("random", battle_input(snapshot(parties, CHART)), 50_000 + i))
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


def thinker_against_greedy(
    demo_setups: int, random_setups: int, policy=None, progress: int = 0
) -> None:
    """Print lookahead's (or `policy`'s) share against greedy and its cost a plan (and the
    tally so far every `progress` set-ups, for long runs)."""
    from battles.engine.battle import run_summary
    from battles.engine.policies import GREEDY, LEVELS, LOOKAHEAD

    policy = policy or LOOKAHEAD
    setups = _inputs(demo_setups, random_setups)
    look_plans, greedy_plans = [], []
    look = _Timed(policy, look_plans).policy
    greedy = _Timed(GREEDY, greedy_plans).policy
    results: dict[str, list[int]] = {}
    wall = time.perf_counter()
    for n, (group, data, seed) in enumerate(setups, 1):
        for seat in (0, 1):  # lookahead's side
            policies = (look, greedy) if seat == 0 else (greedy, look)
            winner = run_summary(data, policies, random.Random(seed))["winner"]
            _record(results, group, winner, seat)
        if progress and n % progress == 0:
            print(f"policies:   after {n} set-ups: {results}", flush=True)
    wall = time.perf_counter() - wall
    # A whole greedy battle, timed in the same run on the same set-ups.
    greedy_battles = []
    for _, data, seed in setups[:: max(1, len(setups) // 50)]:
        start = time.process_time()
        run_summary(data, (GREEDY, GREEDY), random.Random(seed))
        greedy_battles.append(time.process_time() - start)
    name = f"{LEVELS['lookahead'][0]} (lookahead {policy.version})"
    total = [sum(r[i] for r in results.values()) for i in range(3)]
    print(
        f"policies: {name} vs greedy over {2 * len(setups):,} battles, {len(setups):,}"
        f" set-ups of two different parties each played from both seats"
        f" (goal 70% of decided battles):"
    )
    for group, count in (("demo", demo_setups), ("random", random_setups)):
        if count:
            print(
                f"policies:   {2 * count:,} on the {group} parties: {_share(name, *results[group])}"
            )
    print(f"policies:   all: {_share(name, *total)}")
    look_median = statistics.median(look_plans)
    battle_median = statistics.median(greedy_battles)
    print(
        f"policies: a lookahead plan takes {look_median * 1e3:.1f} ms of CPU (median of"
        f" {len(look_plans):,}; 90th percentile"
        f" {sorted(look_plans)[int(len(look_plans) * 0.9)] * 1e3:.1f} ms), a whole greedy"
        f" battle {battle_median * 1e3:.2f} ms and a greedy plan"
        f" {statistics.median(greedy_plans) * 1e3:.3f} ms in the same run: a lookahead plan"
        f" costs {look_median / battle_median:.1f} greedy battles (goal at most 30);"
        f" {wall:.0f} s in all"
    )


def bench_lookahead() -> None:
    """The strongest level (Thinker: lookahead) against greedy, with plan times."""
    thinker_against_greedy(int(sized(150, 2)), int(sized(150, 2)))


def bench_levels() -> None:
    """The levels below greedy against it, on the same battles: each should lose."""
    from battles.engine.battle import run_summary
    from battles.engine.policies import GREEDY, LEVELS, POLICIES

    battles = _inputs(int(sized(500, 4)), int(sized(500, 4)))
    for policy in ("random", "beginner"):
        results: dict[str, list[int]] = {}
        for n, (_, data, seed) in enumerate(battles):
            seat = n % 2
            pair = (POLICIES[policy], GREEDY) if seat == 0 else (GREEDY, POLICIES[policy])
            _record(results, "all", run_summary(data, pair, random.Random(seed))["winner"], seat)
        label = LEVELS[policy][0]
        print(f"policies: {label} ({policy}) vs greedy, {len(battles):,} battles:"
              f" {_share(label, *results['all'])}")  # fmt: skip


BENCHES = [bench_lookahead, bench_levels]
