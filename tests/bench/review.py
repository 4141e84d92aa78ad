"""`make bench` figures for the game review (issue 32, battles/engine/review/).

A 15-round demo battle (Sunrise Squad vs Night Shift, seed 0, greedy against greedy) is
reviewed twice: its Win% curve alone, and the whole review with both sides' plans rated
(the AI's, as `manage.py review --rate-ai` does). Each is priced as a ratio to one greedy
battle of the same parties in summary mode, timed in the same run (CPU time, so other
processes do not count), with the budget the issue sets: 8,000 such battles.

It also says what the variance reduction buys: for each curve point, the playouts a plain
estimate (independent playouts, no control variates) would need for the same +-3 point
interval, 1.96^2 p (1 - p) / 0.03^2, against the playouts it took.
"""

import random
import statistics
import time

from tests.bench import QUICK, sized

BUDGET = 8000
PARTIES = ("Sunrise Squad", "Night Shift")
SEED = 0


def _one_battle_seconds(data) -> float:
    from battles.engine.battle import run_summary
    from battles.engine.policies import GREEDY

    count = int(sized(300, 5))
    start = time.process_time()
    for seed in range(count):
        run_summary(data, (GREEDY, GREEDY), random.Random(seed))
    return (time.process_time() - start) / count


def bench_review() -> None:
    from battles.engine import review
    from battles.engine.run import input_for, simulate
    from battles.snapshot import demo_snapshot

    snap = demo_snapshot(*PARTIES)
    data = input_for(snap)
    log = simulate(snap, seed=SEED)
    options = {"half_width": 0.25, "max_pairs": 16} if QUICK else {}
    before = _one_battle_seconds(data)
    start = time.process_time()
    curve = review.review(data, log, rate_sides=(False, False), **options)
    curve_s = time.process_time() - start
    start = time.process_time()
    rated = (False, False) if QUICK else (True, True)
    whole = review.review(data, log, rate_sides=rated, **options)
    whole_s = time.process_time() - start
    one = statistics.mean([before, _one_battle_seconds(data)])
    rows = curve["rounds"]
    widest = max((r["win_a_high"] - r["win_a_low"]) / 2 for r in rows)
    points = [r["playouts"][0] for r in rows]
    plain = sum(1.96**2 * r["win_a"] * (1 - r["win_a"]) / 0.03**2 for r in rows)
    print(
        f"review: {PARTIES[0]} vs {PARTIES[1]} seed {SEED}, {log['result']['rounds']} rounds;"
        f" one greedy battle {one * 1e3:.2f} ms (summary mode)"
    )
    print(
        f"review: the Win% curve costs {curve_s / one:,.0f} battles"
        f" ({curve['playouts']:,} playouts, widest interval +-{100 * widest:.1f} points);"
        f" with both sides' plans rated {whole_s / one:,.0f} battles (budget {BUDGET:,})"
    )
    print(
        f"review: playouts per start-of-round point {min(points)}-{max(points)},"
        f" {sum(points):,} in all; a plain estimate (independent playouts, no controls)"
        f" would take {plain:,.0f} for the same intervals"
    )
    marks = [m for r in whole["rounds"] for m in r["mark"] if m]
    print(
        f"review: plans rated: {len(marks)} marks"
        f" ({', '.join(f'{marks.count(k)} {k}' for k in ('inaccuracy', 'mistake', 'blunder'))}),"
        f" accuracy {whole['accuracy']}, luck {whole['luck']} points"
    )


BENCHES = [bench_review]
