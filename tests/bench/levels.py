"""The AI levels' strength scale (issue 39.1, battles/play/levels.py): fitted from
AI-against-AI battles, and checked on pairings kept out of the fitting.

    .venv/bin/python -m tests.bench.levels            # fit and check; print, keep nothing
    .venv/bin/python -m tests.bench.levels --write    # ... and keep the ratings (levels.json)
    .venv/bin/python -m tests.bench.levels --check    # check the kept ratings only

Pairings: the 25 ordered pairs of the demo's five parties and 25 pairs of random parties
(tests.test_battle_groups.random_party, seeded), each split 15 to fit and 10 kept out.

Fitting: on each fitting pairing, greedy on the first party against each level on the
second (FIT battles, THINKER for the Thinker, which thinks about 600 times longer), and
Coin Flipper against Beginner (FIT_AI), seats alternated, seeds from FIT_SEEDS; Davidson's
model fitted by maximum likelihood (levels.fit). The kept ratings took 457 s (13,860
battles, 60 of them the Thinker's) on a busy 2-core machine; after a rules change (R9.6,
the round limit deciding) run `--write` again, then `--check` (about 6 minutes without the
Thinker's labs, BENCH_LEVELS_CHECK_THINKER=0).

Checking (the issue's test): on each of the 20 kept-out pairings, the picker's own
measurements (fair.BATTLES_BY_POLICY on the picker's seeds) give the player's chance at
each level: measured for the cheap levels, predicted from greedy's and the kept ratings
for the Thinker; a lab of CHECK battles (the Thinker: CHECK_THINKER) on other seeds
measures it. The ratings' prediction for every level from greedy's alone is printed too.
The goal is 18 of 20 within 10 points at every level. CHECK_THINKER=400
(BENCH_LEVELS_CHECK_THINKER) is the issue's full check,
8,000 Thinker battles: hours on this machine, so the default is a smaller sample, whose
own error is quoted beside it; 0 leaves the Thinker out of the check.
"""

import argparse
import itertools
import json
import math
import os
import random
import time

from tests.bench import sized

FIT = int(os.environ.get("BENCH_LEVELS_FIT", sized(120, 4)))
FIT_AI = int(sized(100, 2))
THINKER = int(os.environ.get("BENCH_LEVELS_THINKER", sized(2, 0)))
CHECK = int(sized(400, 4))
CHECK_THINKER = int(os.environ.get("BENCH_LEVELS_CHECK_THINKER", sized(8, 0)))
# Levels to check (BENCH_LEVELS_ONLY=lookahead: the Thinker's alone); empty: every one.
ONLY = [k for k in os.environ.get("BENCH_LEVELS_ONLY", "").split(",") if k]
FIT_SEEDS = 500_000
CHECK_SEEDS = 700_000
SPLIT = 15  # of each 25 pairings, fitted on; the rest kept out
WITHIN = 0.10


def pairings():
    """(fitting, kept out): lists of (name, snapshot)."""
    from battles.engine.model import LIMIT_DECIDE
    from battles.snapshot import demo_snapshot, snapshot
    from cards.demo import DEMO_FILE
    from tests.test_battle_groups import random_party
    from tests.test_battle_invariants import CHART

    names = [p["name"] for p in json.loads(DEMO_FILE.read_text(encoding="utf-8"))["parties"]]
    # Under the rule the site plays by default (R9.6: the round limit decides), as the
    # picker's own measurements are (fair.picker).
    demo = [
        (f"{a} v {b}", demo_snapshot(a, b, limit=LIMIT_DECIDE))
        for a, b in itertools.product(names, repeat=2)
    ]
    random.Random(3900).shuffle(demo)
    rng = random.Random(3901)
    made = [
        (f"random {n}", snapshot([random_party(rng), random_party(rng)], CHART, limit=LIMIT_DECIDE))
        for n in range(25)
    ]
    return demo[:SPLIT] + made[:SPLIT], demo[SPLIT:] + made[SPLIT:]


def fit_records(fitting, thinker: int = THINKER, log=print):
    from battles.engine.policies import GREEDY, POLICIES
    from battles.play.fair_tasks import tally
    from battles.play.levels import Record

    games = [("greedy", name, FIT if name != "lookahead" else thinker) for name in POLICIES]
    games.append(("random", "beginner", FIT_AI))
    records = []
    for name, snap in fitting:
        start = time.perf_counter()
        for first, second, n in games:
            if not n:
                continue
            w, lo, d = tally(snap, POLICIES[first], POLICIES[second], n, FIT_SEEDS)
            records.append(Record(name, first, second, w, lo, d))
        log(f"levels:   fitted on {name} in {time.perf_counter() - start:.1f} s")
    assert GREEDY is POLICIES["greedy"]
    return records


def check(kept_out, ratings, log=print) -> tuple[dict[str, int], dict[str, int]]:
    """Per level, how many kept-out pairings got within WITHIN of the lab: what the picker
    shows (its own measurement for the levels it measures, fair.BATTLES_BY_POLICY, else the
    prediction from its greedy measurement), and the ratings' prediction alone."""
    from battles.engine.policies import GREEDY, POLICIES
    from battles.play import fair
    from battles.play.fair_tasks import SEED_BASE, tally
    from battles.play.levels import Outcome, predict

    checked = [k for k in ratings if k != "lookahead" or CHECK_THINKER]
    if ONLY:
        checked = [k for k in checked if k in ONLY]
    shown, alone = dict.fromkeys(checked, 0), dict.fromkeys(checked, 0)
    pooled = {k: [0.0, 0.0] for k in checked}  # the shown chances' sum, the labs' sum
    for name, snap in kept_out:
        measured = {
            level: tally(snap, GREEDY, POLICIES[level], int(sized(n, 2)), SEED_BASE)
            for level, n in fair.BATTLES_BY_POLICY.items()
        }
        line = []
        for level in checked:
            n = CHECK_THINKER if level == "lookahead" else CHECK
            w, lo, d = tally(snap, GREEDY, POLICIES[level], n, CHECK_SEEDS)
            said = predict(*measured["greedy"], level, ratings)
            picker = said
            if level in measured:
                mw, ml, md = measured[level]
                total = mw + ml + md
                picker = Outcome(mw / total, ml / total, md / total)
            shown[level] += abs(picker.won - w / n) <= WITHIN
            pooled[level][0] += picker.won
            pooled[level][1] += w / n
            alone[level] += abs(said.won - w / n) <= WITHIN
            line.append(
                f"{level} {picker.won:.0%} (ratings {said.won:.0%})"
                f" ~ {w / n:.0%} ({d / n:.0%} drawn)"
            )
        log(f"levels:   {name}: " + ", ".join(line))
    # Over all the pairings at once: a check of a level's rating whose labs are too small
    # to judge one pairing (the Thinker's).
    log("levels: mean chance shown ~ mean of the labs: " + ", ".join(
        f"{k} {a / len(kept_out):.1%} ~ {b / len(kept_out):.1%}" for k, (a, b) in pooled.items()
    ))  # fmt: skip
    return shown, alone


def run(*, write: bool = False, check_only: bool = False, log=print) -> None:
    from battles.engine.battle import ENGINE_VERSION
    from battles.engine.policies import POLICIES
    from battles.play import levels

    fitting, kept_out = pairings()
    start = time.perf_counter()
    if check_only:
        ratings = levels.kept({k: p.version for k, p in POLICIES.items()})
    else:
        records = fit_records(fitting, log=log)
        fitted = levels.fit(records)
        ratings = fitted["ratings"]
        took = time.perf_counter() - start
        log(
            f"levels: fitted on {len(fitting)} pairings, {sum(r.battles for r in records):,}"
            f" battles, in {took:.0f} s: "
            + ", ".join(f"{k} {v:+.2f}" for k, v in sorted(ratings.items(), key=lambda i: i[1]))
        )
        old = levels.kept({k: p.version for k, p in POLICIES.items()})
        if old:
            log("levels: kept: " + ", ".join(f"{k} {v:+.2f}" for k, v in old.items()))
        if write:
            data = {
                "about": "battles/play/levels.py; re-fit with python -m tests.bench.levels --write",
                "model": "Davidson (Bradley-Terry with draws), natural-log units, greedy 0",
                "ratings": {k: round(v, 4) for k, v in ratings.items()},
                "versions": {k: POLICIES[k].version for k in ratings},
                "engine_version": ENGINE_VERSION,
                "fitted_on": {
                    "pairings": [name for name, _ in fitting],
                    "battles": {f"{r.first} v {r.second}": r.battles for r in records[:5]},
                    "seconds": round(took),
                },
            }
            levels.DATA.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            levels._read.cache_clear()
            log(f"levels: kept in {levels.DATA}")
    start = time.perf_counter()
    shown, alone = check(kept_out, ratings, log=log)
    spread = 100 * math.sqrt(0.25 / max(CHECK_THINKER, 1))
    log(
        f"levels: kept-out pairings within {WITHIN:.0%} of a lab ({CHECK} battles, the Thinker"
        f" {CHECK_THINKER}, whose own error is up to {spread:.0f} points), as the picker shows"
        f" them: {', '.join(f'{k} {v} of {len(kept_out)}' for k, v in shown.items())};"
        f" the ratings alone: {', '.join(f'{k} {v}' for k, v in alone.items())}"
        f" (goal 18 of 20); checked in {time.perf_counter() - start:.0f} s"
    )


def bench_levels() -> None:
    run()


BENCHES = [bench_levels]


if __name__ == "__main__":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    django.setup()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="keep the ratings (levels.json)")
    parser.add_argument("--check", action="store_true", help="check the kept ratings only")
    args = parser.parse_args()
    run(write=args.write, check_only=args.check)
