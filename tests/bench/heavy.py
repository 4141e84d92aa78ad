"""Another person's pages while one person loops the heaviest requests the site allows, on
`make serve` (issue 39.2-3: a lab battle opened by an anonymous visitor, and a lookahead
battle posted by a signed-in one, were each played inside the request; two connections for
40 s took another user's page p99 from 192 ms to 9-12 s).

It runs the tree's own `make serve` (this checkout, or `--tree DIR`) on 127.0.0.1 at
BENCH_HEAVY_PORT (8160) with a throwaway SQLite database, and then, in one run:
1. "reader" fetches a round of light pages (the home page, the public battles and labs,
   their own battle list and a battle) one after another for SECONDS, alone: each page's
   time is a sample;
2. the same for SECONDS more while the heavy person keeps two connections busy: one,
   signed in as "heavy", posts new battles with lookahead on both sides (refused once two
   of theirs wait: issue 39's cap), the other, signed out, opens battle after battle of a
   public lookahead lab (each a battle nobody has made).
It prints the reader's p50 and p99 alone and under the heavy loop, and their ratios (the
goal: p99 at most 2x alone), and what the heavy loop's requests got (their count and p50).

Measured on 2 shared cores (load average about 19 from other work), HEAVY_SECONDS=25, one
sitting: before (0d9548d, battles played in the request) the reader's p99 went from 110 ms
alone to 19,269 ms beside the loop (174.9x; 6 pages in 25 s, the heavy requests 18-28 s
each); after, 126 ms to 591 ms (4.68x; p50 22 to 96 ms, 4.29x): the two heavy connections
now cost 90-97 ms a request (most of them answered 429 by the rate limits) but still hold a
page thread each, and the two interactive workers play lookahead beside the pages.

Before and after, on one machine in one sitting:
    git archive <commit> | tar -x -C /tmp/before
    .venv/bin/python -m tests.bench.heavy --tree /tmp/before
    .venv/bin/python -m tests.bench.heavy
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.bench import queues as q
from tests.bench import sized

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("BENCH_HEAVY_PORT", "8160"))
SECONDS = sized(float(os.environ.get("HEAVY_SECONDS", "40")), 3)

SETUP = """
import json, os
from django.contrib.auth import get_user_model
from battles.lab import services as lab_services
from battles.models import Battle
from battles.services import battle_run
from cards.models import Party
User = get_user_model()
demo = User.objects.get(username="demo")
for name in ("heavy", "reader"):
    User.objects.create_user(name, password=os.environ["BENCH_PASSWORD"])
reader = User.objects.get(username="reader")
a = Party.objects.get(owner=demo, name="Sunrise Squad")
b = Party.objects.get(owner=demo, name="Night Shift")
lab = lab_services.lab_create(owner=demo, party_a=a, party_b=b, battles=100, seed=1,
                              policy_a="lookahead", policy_b="lookahead")
lab_services.lab_set_visibility(lab=lab, visibility="public")
# Its battles are what is opened; its chunks would burn the bulk worker in both phases.
from django_tasks_db.models import DBTaskResult
DBTaskResult.objects.filter(task_path="battles.lab.tasks.run_lab_chunk").delete()
mine = battle_run(owner=reader, party_a=a, party_b=b, seed=1)
print(json.dumps({"a": str(a.code), "b": str(b.code), "lab": str(lab.code),
                  "battle": str(mine.code)}))
"""


def _loop(client: q.Client, paths, stop: threading.Event, out: list, post=None) -> None:
    n = 0
    while not stop.is_set():
        path = paths(n) if callable(paths) else paths[n % len(paths)]
        start = time.perf_counter()
        try:
            if post is not None:
                client.request("POST", path, post)
            else:
                client.request("GET", path)
        except OSError:
            time.sleep(0.1)
            continue
        out.append(time.perf_counter() - start)
        n += 1


def run(tree: Path) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="heavy-bench-"))
    venv = ROOT / ".venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp}/bench.sqlite3", DJANGO_MEDIA_ROOT=str(tmp / "media"),
        DJANGO_STATIC_ROOT=str(tmp / "static"), DJANGO_SETTINGS_MODULE="memeyori_site.settings",
        BENCH_PASSWORD=q.PASSWORD,  # rate limits on: what the site allows
    )  # fmt: skip
    log = (tmp / "serve.log").open("w")
    queues_port, q.PORT = q.PORT, PORT  # queues.Client and wait_for_server read it
    server = subprocess.Popen(
        ["make", "-C", str(tree), f"VENV={venv}", f"PYTHON={sys.executable}",
         "-o", f"{venv}/.installed", "serve", f"SERVE_PORT={PORT}"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        q.wait_for_server(server)
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SETUP], cwd=tree,
            env={**env, "DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": q.HOST,
                 "DJANGO_SECRET_KEY": "bench-" + "x" * 50},
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"heavy bench: manage.py shell failed:\n{done.stderr}")
        made = json.loads(done.stdout.strip().splitlines()[-1])
        reader, heavy, visitor = q.Client(), q.Client(), q.Client()
        reader.login("reader")
        heavy.login("heavy")
        pages = ["/", "/battles/public/", "/labs/public/", "/battles/",
                 f"/battles/{made['battle']}/"]  # fmt: skip
        for path in pages:  # warm each page once
            reader.request("GET", path)
        alone: list[float] = []
        stop = threading.Event()
        t = threading.Thread(target=_loop, args=(reader, pages, stop, alone))
        t.start()
        time.sleep(SECONDS)
        stop.set()
        t.join()
        under: list[float] = []
        posts: list[float] = []
        opens: list[float] = []
        stop = threading.Event()
        battle = {
            "party_a": made["a"], "party_b": made["b"], "seed": 1, "visibility": "private",
            "policy_a": "lookahead", "policy_b": "lookahead",
        }  # fmt: skip
        threads = [
            threading.Thread(target=_loop, args=(reader, pages, stop, under)),
            threading.Thread(
                target=_loop, args=(heavy, ["/battles/new/"], stop, posts), kwargs={"post": battle}
            ),  # fmt: skip
            threading.Thread(
                target=_loop,
                args=(
                    visitor,
                    lambda n: f"/labs/{made['lab']}/battle/?m=0&i={n % 100}",
                    stop,
                    opens,
                ),
            ),  # fmt: skip
        ]
        for thread in threads:
            thread.start()
        time.sleep(SECONDS)
        stop.set()
        for thread in threads:
            thread.join()
        return {"alone": alone, "under": under, "posts": posts, "opens": opens}
    finally:
        q.stop(server)
        q.PORT = queues_port
        log.close()


def _p(samples: list[float], pct: float) -> float:
    if len(samples) < 2:
        return samples[0] if samples else float("nan")
    return statistics.quantiles(samples, n=100, method="inclusive")[int(pct) - 1]


def report(tree: Path, r: dict) -> None:
    label = "this checkout" if tree == ROOT else str(tree)
    a50, a99 = _p(r["alone"], 50), _p(r["alone"], 99)
    u50, u99 = _p(r["under"], 50), _p(r["under"], 99)
    print(f"heavy ({label}): reader's pages alone: {len(r['alone'])} in {SECONDS:.0f} s, "
          f"p50 {a50 * 1e3:.0f} ms, p99 {a99 * 1e3:.0f} ms")  # fmt: skip
    print(f"heavy ({label}): beside the heavy loop: {len(r['under'])}, p50 {u50 * 1e3:.0f} ms, "
          f"p99 {u99 * 1e3:.0f} ms: p50 {u50 / a50:.2f}x, p99 {u99 / a99:.2f}x alone "
          "(goal: p99 at most 2x)")  # fmt: skip
    for name, samples in (("lookahead battle posts", r["posts"]),
                          ("anonymous lookahead lab battle opens", r["opens"])):  # fmt: skip
        if samples:
            print(f"heavy ({label}):   {name}: {len(samples)}, p50 "
                  f"{statistics.median(samples) * 1e3:.0f} ms")  # fmt: skip


def bench() -> None:
    report(ROOT, run(ROOT))


BENCHES = [bench]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="a checkout to serve")
    tree = parser.parse_args().tree.resolve()
    report(tree, run(tree))
