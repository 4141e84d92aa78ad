"""Another person's fresh Mastercard while one person's three biggest labs are queued, on
`make serve` (issue 18.2: under the same load it had not started after 150 s).

It runs the tree's own `make serve` (this checkout, or `--tree DIR`) on 127.0.0.1 at
BENCH_QUEUES_PORT (8150) with a throwaway SQLite database, and then:
1. warms the render workers up (two Mastercards asked for at once: each worker's first
   render starts its fork server), then times RENDERS fresh Mastercard PDFs of "reader"
   with nothing else queued (alone);
2. has "labber" start three labs against the field, 20,000 battles against each of ten
   opponents: 200,000 battles each, the most one lab may run, three the most one person may;
3. times RENDERS fresh Mastercard PDFs of "reader", one after another, each from the request
   until the PDF is served (polling its file link, as the waiting page does), giving up on
   one after TIMEOUT seconds.
4. leaves the labs to run for WATCH (30) seconds more.
It prints each time, its ratio to the alone time, how fast the labs ran meanwhile (battles a
second, from the first lab's request to the end) and the load average, then stops the
server and every worker.

Before and after, on one machine in one sitting:
    git archive <commit> | tar -x -C /tmp/before
    .venv/bin/python -m tests.bench.queues --tree /tmp/before
    .venv/bin/python -m tests.bench.queues
"""

import argparse
import http.client
import json
import os
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from tests.bench import sized

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_QUEUES_PORT", "8150"))
PER_OPPONENT = int(sized(20_000, 100))
RENDERS = int(sized(3, 1))
TIMEOUT = sized(120, 60)
WATCH = sized(30, 0)  # seconds the labs are left to run after the renders, for their rate
PASSWORD = secrets.token_urlsafe(18)

# Run in the tree's own code (manage.py shell): ten opponents for "labber" to meet (the
# demo's four parties and seven more of the demo's, all public), and one fresh Memeyori
# for each render "reader" will ask for.
SETUP = """
import json, os
from django.contrib.auth import get_user_model
from cards.models import Card, Memeyori, Party, Type
from cards.services import party_set_memeyori
User = get_user_model()
demo = User.objects.get(username="demo")
for name in ("labber", "reader"):
    User.objects.create_user(name, password=os.environ["BENCH_PASSWORD"])
reader = User.objects.get(username="reader")
parties = list(Party.objects.filter(owner=demo).order_by("name"))
for n in range(11 - len(parties)):
    model = parties[n % len(parties)]
    extra = Party.objects.create(owner=demo, name=f"Field {n}", level=model.level,
        archon=model.archon, dp_sp=model.dp_sp, dp_mp=model.dp_mp, dp_draw=model.dp_draw,
        visibility=model.visibility)
    party_set_memeyori(party=extra, memeyori=[s.memeyori for s in model.slots.all()])
blaze = Type.objects.get(name="Blaze")
codes = []
for n in range(2 * int(os.environ["BENCH_RENDERS"]) + 2):
    owner = User.objects.get(username="labber") if n == 0 else reader
    m = Memeyori.objects.create(owner=owner, type=blaze, name=f"Pup {n}", strength=5,
        endurance=5, iq=3, wit=2, speed=4, aura=2, rank=1)
    Card.objects.create(memeyori=m, type=blaze, name="Cinder Nip", category="physical",
                        power=4, mp_cost=1, unlock_rank=1)
    codes.append(str(m.code))
side_a = Party.objects.get(owner=demo, name="Sunrise Squad")
print(json.dumps({"side_a": str(side_a.code), "pups": codes}))
"""
BATTLES_DONE = (
    "from battles.models import Lab; from django.db.models import Sum; "
    "print(Lab.objects.aggregate(n=Sum('done'))['n'] or 0)"
)


class Client:
    """One person's cookies over plain http.client: redirects are not followed."""

    def __init__(self):
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: dict | None = None):
        conn = http.client.HTTPConnection(HOST, PORT, timeout=60)
        headers = {"Host": f"{HOST}:{PORT}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if method == "POST":
            token = self.cookies.get("csrftoken", "")
            headers.update({"Content-Type": "application/x-www-form-urlencoded",
                            "X-CSRFToken": token, "Referer": f"http://{HOST}:{PORT}/"})  # fmt: skip
            data = urlencode({"csrfmiddlewaretoken": token, **(body or {})})
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        payload = response.read()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        conn.close()
        return response.status, response.getheader("Content-Type", ""), payload

    def login(self, username: str) -> None:
        self.request("GET", "/accounts/login/")
        status, _, _ = self.request("POST", "/accounts/login/",
                                    {"username": username, "password": PASSWORD})  # fmt: skip
        if status != 302:
            raise SystemExit(f"queues bench: log-in as {username} answered {status}")


def timed_render(client: Client, pup: str) -> float | None:
    """Seconds from asking for the Mastercard until its PDF is served; None past TIMEOUT."""
    start = time.perf_counter()
    status, kind, body = client.request("GET", f"/print/c/memeyori/{pup}/mastercard.pdf")
    if status == 200 and kind == "application/pdf":
        return time.perf_counter() - start
    if status != 202:
        raise SystemExit(f"queues bench: the Mastercard answered {status}: {body[:200]!r}")
    code = re.search(rb"/print/r/([^/\"?]+)/", body).group(1).decode()
    while time.perf_counter() - start < TIMEOUT:
        status, kind, _ = client.request("GET", f"/print/r/{code}/file")
        if status == 200 and kind == "application/pdf":
            return time.perf_counter() - start
        time.sleep(0.05)
    return None


def wait_for_server(server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("queues bench: make serve stopped before it answered")
        try:
            conn = http.client.HTTPConnection(HOST, PORT, timeout=2)
            conn.request("GET", "/")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("queues bench: make serve did not answer within 300 s")


def run(tree: Path) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="queues-bench-"))
    venv = ROOT / ".venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp}/bench.sqlite3", DJANGO_MEDIA_ROOT=str(tmp / "media"),
        DJANGO_STATIC_ROOT=str(tmp / "static"), DJANGO_SETTINGS_MODULE="memeyori_site.settings",
        BENCH_PASSWORD=PASSWORD, BENCH_RENDERS=str(RENDERS),
    )  # fmt: skip
    log = (tmp / "serve.log").open("w")
    # This checkout's venv serves either tree (the tree's own code comes first on the path);
    # -o keeps make from reinstalling it from the other tree.
    server = subprocess.Popen(
        ["make", "-C", str(tree), f"VENV={venv}", f"PYTHON={sys.executable}",
         "-o", f"{venv}/.installed", "serve",
         f"SERVE_PORT={PORT}"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip

    def manage(code: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code], cwd=tree,
            env={**env, "DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": HOST,
                 "DJANGO_SECRET_KEY": "bench-" + "x" * 50},
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"queues bench: manage.py shell failed:\n{done.stderr}")
        return done.stdout.strip().splitlines()[-1]

    try:
        wait_for_server(server)
        made = json.loads(manage(SETUP))
        reader, labber = Client(), Client()
        reader.login("reader")
        labber.login("labber")
        load_before = os.getloadavg()
        pups = made["pups"]
        warm = threading.Thread(target=timed_render, args=(labber, pups[0]))
        warm.start()
        timed_render(reader, pups[1])
        warm.join()
        alone = [timed_render(reader, pup) for pup in pups[2 : 2 + RENDERS]]
        started = time.perf_counter()
        for n in range(3):
            status, _, body = labber.request("POST", "/labs/new/", {
                "party_a": made["side_a"], "against": "field", "battles": PER_OPPONENT,
                "seed": n, "policy_a": "greedy", "policy_b": "greedy", "visibility": "private",
            })  # fmt: skip
            if status != 302:
                raise SystemExit(f"queues bench: lab {n + 1} answered {status}: {body[:300]!r}")
        labs_posted = time.perf_counter() - started
        times = []
        for pup in pups[2 + RENDERS :]:
            seconds = timed_render(reader, pup)
            times.append(seconds)
            if seconds is None:
                break  # its render still waits, and reader may have only one in flight
        time.sleep(WATCH)
        battles = int(manage(BATTLES_DONE))
        return {"alone": alone, "times": times, "labs_posted": labs_posted, "battles": battles,
                "labs_ran": time.perf_counter() - started,
                "load": (load_before, os.getloadavg())}  # fmt: skip
    finally:
        stop(server)
        log.close()


def stop(server: subprocess.Popen) -> None:
    """SIGTERM to make serve's whole process group (gunicorn, the task workers, their
    render children), then SIGKILL to whatever is left after a minute."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            server.poll()
            os.killpg(server.pid, 0)  # ProcessLookupError once the whole group is gone
            time.sleep(0.2)
        os.killpg(server.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    server.wait()


def report(tree: Path, result: dict) -> None:
    label = "this checkout" if tree == ROOT else str(tree)
    alone = statistics.median(result["alone"])
    each = ", ".join(f"{s:.2f}" for s in result["alone"])
    print(f"queues ({label}): a fresh Mastercard PDF alone: median {alone:.2f} s ({each})")
    for n, seconds in enumerate(result["times"], 1):
        if seconds is None:
            print(f"queues ({label}):   render {n} under three labs: not served within "
                  f"{TIMEOUT:.0f} s (more than {TIMEOUT / alone:.0f}x alone)")  # fmt: skip
        else:
            print(f"queues ({label}):   render {n} under three labs: {seconds:.2f} s "
                  f"({seconds / alone:.1f}x alone)")  # fmt: skip
    done = [s for s in result["times"] if s is not None]
    if len(done) == len(result["times"]) == RENDERS:
        under = statistics.median(done)
        print(f"queues ({label}): median under three labs {under:.2f} s, "
              f"{under / alone:.2f}x alone")  # fmt: skip
    print(
        f"queues ({label}): 3 labs of {PER_OPPONENT * 10:,} battles asked for in "
        f"{result['labs_posted']:.1f} s; {result['battles']:,} battles run in "
        f"{result['labs_ran']:.0f} s ({result['battles'] / result['labs_ran']:.0f}/s)"
    )
    before, after = result["load"]
    print(
        f"queues ({label}): load average {before[0]:.2f} at the start, "
        f"{after[0]:.2f} at the end (1-minute; {os.cpu_count()} cores)"
    )


def bench() -> None:
    report(ROOT, run(ROOT))


BENCHES = [bench]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="a checkout to serve")
    tree = parser.parse_args().tree.resolve()
    report(tree, run(tree))
