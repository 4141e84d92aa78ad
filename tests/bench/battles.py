"""`make bench` figures for battles: engine speed, its cost over bare dice, and the viewer.

Nothing here is asserted; each figure is printed with a ratio measured in the same run.
"""

import itertools
import json
import os
import random
import shutil
import subprocess
import time
from pathlib import Path

from tests.bench import QUICK, sized, timed

DEMO_PARTIES = ["Sunrise Squad", "Night Shift", "Cold Front", "Wild Bunch"]

# Pokemon Showdown's simulator, the yardstick (issue 42): installed from npm at bench time
# into a cache outside the repository (none of its code is committed), run by node.
SHOWDOWN = "pokemon-showdown@0.11"
SHOWDOWN_CACHE = Path(
    os.environ.get("MEMEYORI_BENCH_CACHE", "~/.cache/memeyori-bench")
).expanduser()
# Its own runner (random players, the full protocol), one battle after another, timed in
# CPU time as this process's battles are; a few battles first, untimed, to warm the JIT.
SHOWDOWN_SCRIPT = """
const {Runner} = require('pokemon-showdown/dist/sim/tools/runner');
const [n, base] = [Number(process.argv[2]), Number(process.argv[3])];
(async () => {
  for (let i = 0; i < Math.min(5, n); i++) {
    await new Runner({format: 'gen9randombattle', prng: [9, 9, 9, i]}).run();
  }
  const wall = process.hrtime.bigint(), cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    await new Runner({format: 'gen9randombattle', prng: [1, 2, base, i]}).run();
  }
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({battles: n, wall: Number(process.hrtime.bigint() - wall) / 1e9,
                              cpu: (used.user + used.system) / 1e6}));
})();
"""


def _showdown() -> Path | str:
    """The runner script beside an installed Showdown, or why there is none."""
    if not shutil.which("node") or not shutil.which("npm"):
        return "no node/npm on this machine"
    runner = SHOWDOWN_CACHE / "node_modules/pokemon-showdown/dist/sim/tools/runner.js"
    if not runner.exists():
        if QUICK:
            return f"not installed in {SHOWDOWN_CACHE} (quick mode installs nothing)"
        SHOWDOWN_CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--omit=optional", "--ignore-scripts",
             "--prefix", str(SHOWDOWN_CACHE), SHOWDOWN],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if done.returncode != 0 or not runner.exists():
            return f"npm install {SHOWDOWN} failed: {done.stderr.strip()[-300:]}"
    script = SHOWDOWN_CACHE / "memeyori-bench.js"
    script.write_text(SHOWDOWN_SCRIPT, encoding="utf-8")
    return script


def _showdown_rate(script: Path, n: int, base: int) -> tuple[float, float]:
    """Showdown's gen9 random battles per second of CPU time and of wall time, `n` of them."""
    done = subprocess.run(
        ["node", str(script), str(n), str(base)],
        cwd=SHOWDOWN_CACHE, capture_output=True, text=True, check=True, timeout=1800,
    )  # fmt: skip
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["battles"] / figures["cpu"], figures["battles"] / figures["wall"]


class CountingRandom(random.Random):
    """Counts the draws a battle makes, so the bench can time the same draws bare."""

    def __init__(self, seed):
        super().__init__(seed)
        self.floats = 0
        self.bits = 0

    def random(self):
        self.floats += 1
        return super().random()

    def getrandbits(self, k):
        self.bits += 1
        return super().getrandbits(k)


def _demo_inputs(model=None):
    from battles.engine import model as engine_model
    from battles.snapshot import demo_snapshot

    model = model or engine_model
    return [
        model.battle_input(demo_snapshot(a, b)) for a, b in itertools.permutations(DEMO_PARTIES, 2)
    ]


def _recording(policy, decisions: list):
    """`policy`, writing down each decision it makes (Switch, summon, cards), in order."""
    from battles.engine.field import Policy

    def keep(choose):
        def chosen(view, rng):
            decision = choose(view, rng)
            decisions.append(decision)
            return decision

        return chosen

    return Policy(
        policy.name, keep(policy.switch), keep(policy.summon), keep(policy.plays),
        policy.version,
    )  # fmt: skip


def _replaying(policy, decisions: list):
    """A policy that makes `decisions` again, in order, at no cost: a battle played with it
    costs only the engine (greedy draws no random numbers, so the dice are the same)."""
    from battles.engine.field import Policy

    take = iter(decisions).__next__

    def again(view, rng):
        return take()

    return Policy(policy.name, again, again, again, policy.version)


def _baseline_engine():
    """The engine in $BENCH_BASELINE_ENGINE (a copy of another commit's battles/engine, e.g.
    `git archive main battles/engine | tar -x -C /tmp/base` then /tmp/base/battles/engine),
    imported under another name so both engines run in this process; None without it."""
    import importlib.util
    import os
    import sys

    path = os.environ.get("BENCH_BASELINE_ENGINE")
    if not path:
        return None
    spec = importlib.util.spec_from_file_location(
        "baseline_engine", os.path.join(path, "__init__.py"), submodule_search_locations=[path]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules["baseline_engine"] = package
    spec.loader.exec_module(package)
    return {
        name: importlib.import_module(f"baseline_engine.{name}")
        for name in ("battle", "model", "policies")
    }


def bench_engine() -> None:
    from battles.engine import ENGINE_BUILD, battle
    from battles.engine.dice import roll_attack
    from battles.engine.policies import GREEDY, RANDOM, policy_version

    print(f"battles: the engine runs {ENGINE_BUILD} (battles.engine.ENGINE_BUILD)")
    # Showdown before and after this process's battles, the mean of the two: the machine is
    # shared, and its load drifts over a run.
    showdown = _showdown()
    showdown_n = sized(60, 1)
    showdown_rates = []
    if isinstance(showdown, Path):
        showdown_rates.append(_showdown_rate(showdown, showdown_n, 1))
    run_battle = battle.run_battle
    inputs = _demo_inputs()
    policies = (GREEDY, GREEDY)
    first = policy_version("greedy", 1)
    # (name, run, inputs, policies): today's engine with today's greedy, with greedy 1 (the
    # engine alone: the policy main had), random; and the baseline engine's, if given.
    runs = [
        ("full", battle.run_battle, inputs, policies),
        ("summary", battle.run_summary, inputs, policies),
        ("full greedy 1", battle.run_battle, inputs, (first, first)),
        ("summary greedy 1", battle.run_summary, inputs, (first, first)),
        ("random", battle.run_battle, inputs, (RANDOM, RANDOM)),
    ]
    base = _baseline_engine()
    if base is not None:
        base_inputs = _demo_inputs(base["model"])
        base_greedy = base["policies"].POLICIES["greedy"]
        # Like with like: the baseline's greedy 1 beside this engine's greedy 1, and its
        # current greedy (2, on main today) beside this one's.
        base_first = base["policies"].policy_version("greedy", 1)
        runs += [
            ("baseline full", base["battle"].run_battle, base_inputs, (base_greedy,) * 2),
            ("baseline summary", base["battle"].run_summary, base_inputs, (base_greedy,) * 2),
            ("baseline full 1", base["battle"].run_battle, base_inputs, (base_first,) * 2),
            ("baseline summary 1", base["battle"].run_summary, base_inputs, (base_first,) * 2),
        ]

    def batch(n, run, batch_inputs, pols, offset=0):
        for i in range(n):
            run(batch_inputs[i % len(batch_inputs)], pols, random.Random(offset + i))

    start = time.perf_counter()
    for _, run, batch_inputs, pols in runs:
        batch(len(batch_inputs), run, batch_inputs, pols)  # cold: fills the memos
    cold = time.perf_counter() - start
    # Best of seven batches, the runs interleaved: the machine is shared, and the quietest
    # batch is the fairest. CPU time (process_time) counts only this process's work.
    n = sized(240, 12)
    best = {}
    for attempt in range(sized(7)):
        for name, run, batch_inputs, pols in runs:
            wall, cpu = time.perf_counter(), time.process_time()
            batch(n, run, batch_inputs, pols, 10_000 + attempt * n)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            old = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(old[0], wall), min(old[1], cpu))
    rounds = sum(
        run_battle(inputs[i % len(inputs)], policies, random.Random(10_000 + i))["result"]["rounds"]
        for i in range(n)
    )
    full, summary, rand = best["full"], best["summary"], best["random"]
    print(
        f"battles: {n / full[0]:,.0f} complete demo battles/s with greedy {GREEDY.version} vs"
        f" greedy {GREEDY.version} in one process, full log ({full[0] / n * 1e3:.2f} ms each,"
        f" {rounds / n:.1f} rounds on average; goal 1,000/s); {n / full[1]:,.0f}/s of CPU time"
    )
    print(
        f"battles: summary mode (run_summary, no event dicts) {n / summary[0]:,.0f}/s,"
        f" {n / summary[1]:,.0f}/s of CPU time (goal 1,500/s); summary/full speed ratio"
        f" {full[0] / summary[0]:.2f} (CPU {full[1] / summary[1]:.2f});"
        f" random vs random {n / rand[0]:,.0f}/s"
    )
    full1, summary1 = best["full greedy 1"], best["summary greedy 1"]
    print(
        f"battles: with greedy 1 (the engine alone, the policy of the golden logs)"
        f" {n / full1[1]:,.0f}/s full, {n / summary1[1]:,.0f}/s summary, of CPU time;"
        f" greedy {GREEDY.version}/greedy 1 CPU speed {full1[1] / full[1]:.2f} full,"
        f" {summary1[1] / summary[1]:.2f} summary"
    )
    if base is not None:
        bfull, bsummary = best["baseline full"], best["baseline summary"]
        bfull1, bsummary1 = best["baseline full 1"], best["baseline summary 1"]
        print(
            f"battles: the baseline engine ($BENCH_BASELINE_ENGINE) with its greedy"
            f" {base_greedy.version} {n / bfull[1]:,.0f}/s full, {n / bsummary[1]:,.0f}/s"
            f" summary, of CPU time; this engine/baseline CPU speed with greedy 1:"
            f" {bfull1[1] / full1[1]:.2f} full, {bsummary1[1] / summary1[1]:.2f} summary;"
            f" with the current greedy: {bfull[1] / full[1]:.2f} full,"
            f" {bsummary[1] / summary[1]:.2f} summary"
        )
    print(f"battles: the first battles of each run (cold memos) took {cold * 1e3:.0f} ms")
    if isinstance(showdown, Path):
        showdown_rates.append(_showdown_rate(showdown, showdown_n, 2))
        (cpu0, wall0), (cpu1, wall1) = showdown_rates
        mean, mean_wall = (cpu0 + cpu1) / 2, (wall0 + wall1) / 2
        print(
            f"battles: Pokemon Showdown {SHOWDOWN} gen9randombattle (its Runner, random players,"
            f" full protocol), {showdown_n} battles before and after: {cpu0:,.1f} and"
            f" {cpu1:,.1f}/s of CPU time ({wall0:,.1f} and {wall1:,.1f}/s of wall time);"
            f" greedy demo battles with full logs / Showdown's, in CPU time:"
            f" {n / full[1] / mean:,.1f}x (goal 100x), summary mode {n / summary[1] / mean:,.1f}x;"
            f" in wall time {n / full[0] / mean_wall:,.1f}x"
        )
    else:
        print(f"battles: Pokemon Showdown skipped: {showdown}")
    _bench_engine_alone(inputs, n)

    # The engine's time against the time to draw only the same random numbers: the draws
    # are counted in one pass (CountingRandom is slower than Random), then the same battles,
    # the bare draws and the dice alone are timed in CPU time, the best of three each.
    count = sized(200, 12)
    counted = []
    pools = []
    decided = []  # greedy's decisions in each battle, to make them again at no cost
    for i in range(count):
        rng = CountingRandom(30_000 + i)
        a, b = [], []
        log = run_battle(
            inputs[i % len(inputs)], (_recording(GREEDY, a), _recording(GREEDY, b)), rng
        )
        decided.append((a, b))
        counted.append((rng.floats, rng.bits))
        pools += [(e["accuracy"], e["evasion"], e["crit_rate"]) for e in log["events"]
                  if e["kind"] == "attack"]  # fmt: skip
    floats = sum(f for f, _ in counted)
    bits = sum(b for _, b in counted)

    def cpu(fn) -> float:
        best_s = float("inf")
        for _ in range(sized(3)):
            start = time.process_time()
            fn()
            best_s = min(best_s, time.process_time() - start)
        return best_s

    def engine(pols):
        return lambda: batch(count, run_battle, inputs, pols, 30_000)

    def bare(floats=floats, bits=bits):
        rng = random.Random(1)
        draw, bits_of = rng.random, rng.getrandbits
        for _ in range(floats):
            draw()
        for _ in range(bits):
            bits_of(8)

    floats1 = 0
    for i in range(count):
        rng = CountingRandom(30_000 + i)
        run_battle(inputs[i % len(inputs)], (first, first), rng)
        floats1 += rng.floats

    def dice_only():
        rng = random.Random(2)
        for accuracy, evasion, crit_rate in pools:
            roll_attack(rng, accuracy, evasion, crit_rate)

    def engine_alone():
        for i, (a, b) in enumerate(decided):
            pair = (_replaying(GREEDY, a), _replaying(GREEDY, b))
            run_battle(inputs[i % len(inputs)], pair, random.Random(30_000 + i))

    engine_s, engine1_s = cpu(engine(policies)), cpu(engine((first, first)))
    alone_s = cpu(engine_alone)
    bare_s, dice_s = cpu(bare), cpu(dice_only)
    bare1_s = cpu(lambda: bare(floats1, 0))
    print(
        f"battles: {count} battles draw {floats:,} floats and {bits:,} bit strings;"
        f" drawing alone {bare_s * 1e3:.1f} ms of CPU; the engine alone (greedy's decisions"
        f" replayed) {alone_s * 1e3:.0f} ms: engine/random ratio {alone_s / bare_s:,.1f}"
        f" (goal at most 30); with greedy thinking {engine_s * 1e3:.0f} ms:"
        f" {engine_s / bare_s:,.1f}; with greedy 1 (its {floats1:,} floats)"
        f" {engine1_s / bare1_s:,.1f}"
    )
    print(
        f"battles: their {len(pools):,} attacks through dice.roll_attack alone take"
        f" {dice_s * 1e3:.0f} ms ({dice_s / engine_s:.0%} of the engine's time)"
    )


def _bench_engine_alone(inputs, n: int) -> None:
    """The same greedy battles with greedy's decisions made again at no cost: what the
    engine costs alone, and so what greedy's own thinking costs, in the same run."""
    from battles.engine import battle
    from battles.engine.policies import GREEDY

    seeds = [20_000 + i for i in range(n)]
    decided = []
    for i, seed in enumerate(seeds):
        a, b = [], []
        played = battle.run_summary(
            inputs[i % len(inputs)], (_recording(GREEDY, a), _recording(GREEDY, b)),
            random.Random(seed),
        )  # fmt: skip
        again = battle.run_summary(
            inputs[i % len(inputs)], (_replaying(GREEDY, a), _replaying(GREEDY, b)),
            random.Random(seed),
        )  # fmt: skip
        if again != played:
            raise AssertionError(f"battle {i} replayed differently: greedy drew from the rng?")
        decided.append((a, b))
    best = {}
    for _ in range(sized(3)):
        for mode, run in (("full", battle.run_battle), ("summary", battle.run_summary)):
            for kind in ("greedy", "replayed"):
                if kind == "greedy":
                    pairs = [(GREEDY, GREEDY)] * n
                else:
                    pairs = [(_replaying(GREEDY, a), _replaying(GREEDY, b)) for a, b in decided]
                start = time.process_time()
                for i, seed in enumerate(seeds):
                    run(inputs[i % len(inputs)], pairs[i], random.Random(seed))
                spent = time.process_time() - start
                best[mode, kind] = min(best.get((mode, kind), float("inf")), spent)
    for mode in ("full", "summary"):
        whole, alone = best[mode, "greedy"], best[mode, "replayed"]
        print(
            f"battles: {mode}: the engine alone (greedy's decisions made again at no cost)"
            f" {n / alone:,.0f}/s of CPU time against {n / whole:,.0f}/s with greedy"
            f" thinking; greedy is {(whole - alone) / whole:.0%} of a battle"
            f" ({(whole - alone) / n * 1e3:.3f} ms of {whole / n * 1e3:.3f})"
        )


def bench_viewer() -> None:
    """The viewer of a 30-round battle: queries and server time, on a throwaway database."""
    import json

    from django.core.cache import caches
    from django.db import connection
    from django.test import Client

    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from django.contrib.auth import get_user_model

        from battles.models import BattleVisibility
        from battles.services import battle_run
        from cards.demo import DEMO_FILE, load_types
        from cards.models import Card, Memeyori, Party
        from cards.services import party_set_memeyori

        types = load_types(json.loads(DEMO_FILE.read_text(encoding="utf-8")))
        user = get_user_model().objects.create_user("bench", password="bench-pass-123!")
        party = Party.objects.create(owner=user, name="Calm", visibility="public")
        team = []
        for i in range(3):
            m = Memeyori.objects.create(
                owner=user, type=types["Ether"], name=f"Calm {i}", visibility="public"
            )
            Card.objects.create(
                memeyori=m, type=types["Ether"], name="Nap", category="support", power=2
            )
            team.append(m)
        party_set_memeyori(party=party, memeyori=team)
        battle = battle_run(
            owner=user,
            party_a=party,
            party_b=party,
            seed=1,
            visibility=BattleVisibility.PUBLIC,
        )
        client = Client()
        url = battle.get_absolute_url()
        # Counted with a wrapper: request_started resets connection.queries mid-capture.
        queries = []
        with connection.execute_wrapper(lambda run, sql, *a: queries.append(sql) or run(sql, *a)):
            client.get(url, {"round": 17})
        page = timed(lambda: client.get(url, {"round": 17}), repeat=5, number=10)

        def get_step():
            client.get(url, {"round": 30, "step": 3}, headers={"HX-Request": "true"})

        def build_step():
            caches["fragments"].clear()  # as for the first reader of a step
            get_step()

        step = timed(get_step, repeat=5, number=10)
        built = timed(build_step, repeat=5, number=10)
        print(
            f"viewer: {battle.rounds}-round battle, {len(battle.log['events'])} events:"
            f" {len(queries)} queries per page (goal <= 10); full page {page * 1e3:.1f} ms,"
            f" HTMX step {step * 1e3:.1f} ms kept rendered (page/step ratio {page / step:.1f}),"
            f" {built * 1e3:.1f} ms built for its first reader (built/kept {built / step:.2f})"
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def bench_keyed() -> None:
    """Issue 40.1: complete played games (greedy vs greedy, own draws, as a game started
    today plays) with a key's stream (battles/engine/keyed.py) against the same pairings
    with Mersenne Twister, interleaved, best of three in CPU time. The two generators deal
    different games, so the ratio is of time per round played (goal: <= 1.10)."""
    import hashlib

    from battles.engine import played
    from battles.engine.policies import GREEDY

    inputs = _demo_inputs()
    n = sized(240, 4)
    ints = list(range(40_000, 40_000 + n))
    keys = [hashlib.sha256(b"bench-key-%d" % i).hexdigest() for i in range(n)]
    sample = min(n, len(inputs))  # games to warm the memos with, and to count draws in

    def game(i, seed) -> int:
        data = inputs[i % len(inputs)]
        return played.play(data, (GREEDY, GREEDY), seed, {}, own_draws=True).log["result"]["rounds"]

    for i in range(sample):
        game(i, ints[i])  # cold memos out of the timings
    # Game by game in turns, so both kinds see the same moments of a shared machine.
    best = {"mt": float("inf"), "keyed": float("inf")}
    rounds = {}
    for _ in range(sized(3)):
        spent = {"mt": 0.0, "keyed": 0.0}
        rounds = {"mt": 0, "keyed": 0}
        for i in range(n):
            for name, seed in (("mt", ints[i]), ("keyed", keys[i])):
                start = time.process_time()
                rounds[name] += game(i, seed)
                spent[name] += time.process_time() - start
        best = {name: min(best[name], spent[name]) for name in best}
    per_round = {name: best[name] / rounds[name] for name in best}
    # The generator alone, less noisy than two sets of different games: a game's draws
    # (counted on the Mersenne games) from a fresh generator of each kind, as a share of a
    # Mersenne game's time.
    from battles.engine.keyed import FLOATS, KeyedRandom

    floats = 0
    for i in range(sample):
        game = played.play(inputs[i], (GREEDY, GREEDY), keys[i], {}, own_draws=True)
        where = game.engine.rng.getstate()[1]  # (key words..., block, drawn in it, ...)
        floats += where[4] * FLOATS + where[5]

    def draws(make):
        start = time.process_time()
        for seed in keys:
            draw = make(seed).random
            for _ in range(floats // sample):
                draw()
        return time.process_time() - start

    alone = {"mt": float("inf"), "keyed": float("inf")}
    for _ in range(sized(3)):
        alone["mt"] = min(alone["mt"], draws(lambda key: random.Random(int(key[:8], 16))))
        alone["keyed"] = min(alone["keyed"], draws(KeyedRandom))
    print(
        f"battles: keyed dice: {n} played greedy games (own draws) {n / best['keyed']:,.0f}/s"
        f" with a key, {n / best['mt']:,.0f}/s with random.Random, of CPU time"
        f" ({rounds['keyed'] / n:.1f} and {rounds['mt'] / n:.1f} rounds on average):"
        f" keyed/Mersenne time per round {per_round['keyed'] / per_round['mt']:.3f}"
        f" (goal <= 1.10); a game's {floats // sample} draws from a fresh generator"
        f" add {(alone['keyed'] - alone['mt']) / best['mt']:+.1%} to a game's time with a key"
        f" ({alone['keyed'] / alone['mt']:.1f}x Mersenne's draws)"
    )


BENCHES = [bench_engine, bench_viewer, bench_keyed]
