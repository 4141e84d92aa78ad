"""The whole site's thinking against its printing (issue 39, "a bench for the whole"):

1. a fresh Mastercard's wait while the picker's measurements for two parties, two reviews
   (rate_ai on) and a 10,000-battle lab are queued, against the same render alone, on
   `make run`'s worker layout: one db_worker on the interactive queue and one on the bulk
   queue (--layout shared: one worker on both, the layout before issue 39), beside a
   runserver, on a throwaway SQLite database (goal: at most 3x); --layout serve runs the
   same on this checkout's own `make serve` (gunicorn, and run_workers with its interactive
   and bulk workers, debug off);
2. one picker visit's total cost in greedy battles: the time of every battle the picker
   plays for one party against twelve opponents (fair.BATTLES_BY_POLICY each), over the
   time of one greedy-against-greedy battle on the same pairings, in the same run; and
   beside it what the picker before issue 39 played (300 battles at each cheap level and
   60 Thinker battles an opponent), from the Thinker's cost measured on THINKER battles
   (goal: at most 2,000).

    .venv/bin/python -m tests.bench.budget [--layout split|shared|serve]

The servers are this checkout's own processes at BENCH_BUDGET_PORT (8171): for split and
shared, runserver and db_workers started here as `make run` starts them; for serve, `make
serve` itself.
"""

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.bench import queues, sized
from tests.bench.queues import Client, timed_render

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("BENCH_BUDGET_PORT", "8171"))
RENDERS = int(sized(3, 1))
LAB = int(sized(10_000, 100))
OPPONENTS = 12
GREEDY_SAMPLE = int(sized(60, 2))  # greedy battles a pairing, to price one
THINKER = int(sized(2, 1))  # Thinker battles, to price the picker before issue 39

# Run in the tree (manage.py shell): "player" with two parties and twelve opponents to see,
# two battles of theirs to review; "labber" with two parties; a Memeyori for each render.
SETUP = """
import json, os
from django.contrib.auth import get_user_model
from battles.engine.run import simulate
from battles.engine.state import round_frames
from battles.models import Battle
from battles.snapshot import battle_snapshot
from cards.models import Card, Memeyori, Party, Type
from cards.services import party_set_memeyori
User = get_user_model()
demo = User.objects.get(username="demo")
for name in ("player", "labber", "reader"):
    User.objects.create_user(name, password=os.environ["BENCH_PASSWORD"])
parties = list(Party.objects.filter(owner=demo).exclude(slots=None).distinct().order_by("name"))

def copy(model, owner, name, visibility):
    extra = Party.objects.create(owner=owner, name=name, level=model.level,
        archon=model.archon, dp_sp=model.dp_sp, dp_mp=model.dp_mp, dp_draw=model.dp_draw,
        visibility=visibility)
    party_set_memeyori(party=extra, memeyori=[s.memeyori for s in model.slots.all()])
    return extra

for n in range(12 - len(parties)):  # twelve opponents in all, counting the player's own
    copy(parties[n % len(parties)], demo, f"Field {n}", "public")
from tests.playing import make_side
types = {t.name: t for t in Type.objects.all()}
player = User.objects.get(username="player")
mine = [make_side(player, types, f"Mine {n}", prefix=f"M{n}", size=3 + n) for n in range(2)]
labber = User.objects.get(username="labber")
lab = [make_side(labber, types, f"Lab {n}", prefix=f"L{n}") for n in range(2)]
battles = []
for n in range(2):
    snap = battle_snapshot(mine[0], parties[n + 1])
    log = simulate(snap, seed=n)
    battles.append(str(Battle.objects.create(owner=player, name_a=snap["sides"][0]["name"],
        name_b=snap["sides"][1]["name"], snapshot=snap, seed=n, log=log,
        frames=round_frames(log), winner=log["result"]["winner"],
        rounds=log["result"]["rounds"]).code))
reader = User.objects.get(username="reader")
blaze = Type.objects.get(name="Blaze")
pups = []
for n in range(2 * int(os.environ["BENCH_RENDERS"]) + 2):
    m = Memeyori.objects.create(owner=reader, type=blaze, name=f"Pup {n}", strength=5,
        endurance=5, iq=3, wit=2, speed=4, aura=2, rank=1)
    Card.objects.create(memeyori=m, type=blaze, name="Cinder Nip", category="physical",
                        power=4, mp_cost=1, unlock_rank=1)
    pups.append(str(m.code))
print(json.dumps({"mine": [str(p.code) for p in mine], "lab": [str(p.code) for p in lab],
                  "battles": battles, "pups": pups}))
"""
WAITING = (
    "from django_tasks_db.models import DBTaskResult; "
    "print(DBTaskResult.objects.filter(status__in=('READY', 'RUNNING')).count())"
)


def _serve(tmp: Path, env: dict, log) -> list[subprocess.Popen]:
    """`make serve` on this checkout, as heavy.py runs it: it migrates and seeds itself."""
    venv = ROOT / ".venv"
    return [
        subprocess.Popen(
            [
                "make",
                "-C",
                str(ROOT),
                f"VENV={venv}",
                f"PYTHON={sys.executable}",
                "-o",
                f"{venv}/.installed",
                "serve",
                f"SERVE_PORT={PORT}",
            ],
            env={**env, "DJANGO_STATIC_ROOT": str(tmp / "static")},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    ]


def _start(tmp: Path, env: dict, layout: str) -> list[subprocess.Popen]:
    log = (tmp / "server.log").open("w")
    if layout == "serve":
        return _serve(tmp, env, log)
    manage = [sys.executable, "manage.py"]
    for step in (["migrate", "--noinput"], ["createcachetable"], ["seed_demo"]):
        subprocess.run(manage + step, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    queues_for = ["interactive", "bulk"] if layout == "split" else ["interactive,bulk"]
    procs = [
        subprocess.Popen(
            [
                "nice",
                "-n",
                "10",
                *manage,
                "db_worker",
                "--no-reload",
                "--interval",
                "0.25",
                "--queue-name",
                names,
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        for names in queues_for
    ]
    procs.append(
        subprocess.Popen(
            [*manage, "runserver", "--noreload", f"127.0.0.1:{PORT}"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    )
    return procs


def _stop(procs) -> None:
    if len(procs) == 1:  # make serve: its whole process group
        queues.stop(procs[0])
        return
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def renders(layout: str) -> dict:
    queues.PORT = PORT  # the Client and timed_render of queues.py, on this bench's port
    password = queues.PASSWORD
    tmp = Path(tempfile.mkdtemp(prefix="budget-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp}/bench.sqlite3", DJANGO_MEDIA_ROOT=str(tmp / "media"),
        DJANGO_SETTINGS_MODULE="memeyori_site.settings", BENCH_PASSWORD=password,
        BENCH_RENDERS=str(RENDERS), DJANGO_ALLOWED_HOSTS="127.0.0.1",
    )  # fmt: skip

    def shell(code: str) -> str:
        done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                              env=env, capture_output=True, text=True)  # fmt: skip
        if done.returncode:
            raise SystemExit(f"budget bench: manage.py shell failed:\n{done.stderr}")
        return done.stdout.strip().splitlines()[-1]

    procs = _start(tmp, env, layout)
    try:
        queues.wait_for_server(procs[-1])
        made = json.loads(shell(SETUP))
        reader, player, labber = Client(), Client(), Client()
        for client, name in ((reader, "reader"), (player, "player"), (labber, "labber")):
            client.login(name)
        pups = made["pups"]
        warm = threading.Thread(target=timed_render, args=(labber, pups[0]))
        warm.start()
        timed_render(reader, pups[1])
        warm.join()
        alone = [timed_render(reader, pup) for pup in pups[2 : 2 + RENDERS]]
        for code in made["mine"]:
            status, _, _ = player.request("GET", f"/play/fair/?party={code}")
            assert status == 200, status
        for code in made["battles"]:
            status, _, body = player.request(
                "POST", f"/battles/{code}/review/", {"action": "start", "rate_ai": "on"}
            )
            assert status == 302, (status, body[:300])
        status, _, body = labber.request("POST", "/labs/new/", {
            "party_a": made["lab"][0], "against": "one", "party_b": made["lab"][1],
            "battles": LAB, "seed": 1, "policy_a": "greedy", "policy_b": "greedy",
            "visibility": "private",
        })  # fmt: skip
        assert status == 302, (status, body[:300])
        waiting = int(shell(WAITING))
        under = [timed_render(reader, pup) for pup in pups[2 + RENDERS :]]
        return {"alone": alone, "under": under, "waiting": waiting}
    finally:
        _stop(procs)


def picker_cost() -> dict:
    """CPU seconds of one picker visit's battles, and of one greedy battle, on the same
    pairings: Sunrise Squad against the demo's five parties and seven again (twelve). CPU
    time, not the clock's: the machine's other work would weigh on one and not the other."""
    import json as _json

    from battles.engine.policies import GREEDY, POLICIES
    from battles.play import fair
    from battles.play.fair_tasks import SEED_BASE, tally
    from battles.snapshot import demo_snapshot
    from cards.demo import DEMO_FILE

    names = [p["name"] for p in _json.loads(DEMO_FILE.read_text(encoding="utf-8"))["parties"]]
    opponents = [names[n % len(names)] for n in range(OPPONENTS)]
    snaps = [demo_snapshot("Sunrise Squad", name) for name in opponents]
    start = time.process_time()
    for snap in snaps:
        for policy, battles in fair.BATTLES_BY_POLICY.items():
            tally(snap, GREEDY, POLICIES[policy], battles if not sized(0, 1) else 2, SEED_BASE)
    visit = time.process_time() - start
    played = sum(fair.BATTLES_BY_POLICY.values()) * OPPONENTS if not sized(0, 1) else 0
    start = time.process_time()
    for snap in snaps:
        tally(snap, GREEDY, GREEDY, GREEDY_SAMPLE, 900_000)
    greedy = (time.process_time() - start) / (GREEDY_SAMPLE * len(snaps))
    start = time.process_time()
    for n in range(THINKER):
        tally(snaps[n % len(snaps)], GREEDY, POLICIES["lookahead"], 1, 910_000 + n)
    thinker = (time.process_time() - start) / THINKER
    return {"visit": visit, "played": played, "greedy": greedy, "thinker": thinker}


def report(layout: str, r: dict | None, cost: dict) -> None:
    if r is not None:
        _renders(layout, r)
    g = cost["greedy"]
    before = OPPONENTS * (900 + 60 * cost["thinker"] / g)
    print(
        f"budget: one picker visit ({OPPONENTS} opponents, {cost['played']:,} battles)"
        f" costs {cost['visit'] / g:,.0f} greedy battles' time (goal at most 2,000); one"
        f" greedy battle {g * 1000:.1f} ms, one Thinker battle {cost['thinker'] / g:,.0f}"
        f" greedy ones, so the picker before issue 39 cost about {before:,.0f}"
    )


def _renders(layout: str, r: dict) -> None:
    alone = statistics.median(r["alone"])
    each = ", ".join("-" if s is None else f"{s:.2f}" for s in r["under"])
    print(f"budget: a fresh Mastercard PDF alone: median {alone:.2f} s")
    if all(s is not None for s in r["under"]):
        under = statistics.median(r["under"])
        print(
            f"budget: with two pickers' measurements, two reviews and a {LAB:,}-battle lab"
            f" queued ({r['waiting']} tasks waiting or running), {layout} workers: median"
            f" {under:.2f} s ({each}), {under / alone:.2f}x alone (goal at most 3x)"
        )
    else:
        print(f"budget: a render was not served within {queues.TIMEOUT:.0f} s ({each})")


def bench() -> None:
    cost = picker_cost()
    report("split", renders("split"), cost)


BENCHES = [bench]


if __name__ == "__main__":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    django.setup()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", choices=("split", "shared", "serve"), default="split")
    parser.add_argument("--cost", action="store_true", help="the picker's cost alone")
    args = parser.parse_args()
    cost = picker_cost()
    report(args.layout, None if args.cost else renders(args.layout), cost)
