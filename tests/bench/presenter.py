"""`make bench`: what 30 followers of a presented battle cost the server.

Self-contained: a throwaway database (a temporary SQLite file, or a test database on
whatever DATABASE_URL points at) with the demo, a table and a battle at it; a
production-like gunicorn (debug off, 2 sync workers, persistent database connections) on
127.0.0.1:8130 (BENCH_PRESENTER_PORT moves it). Three phases of the same length:

- idle: nobody asks anything;
- presenter: the GM steps once a second (the viewer's own htmx post);
- presenter + followers: the same, and 30 followers poll as viewer.js does when it has no
  stream (every 0.8 s, with the last ETag, so an unchanged step is a 304);
- presenter + streaming followers: the same 30 followers hold a Server-Sent Events stream
  each (memeyori_site/live.py), as viewer.js does first.

The server is started as `make serve` starts it: gunicorn's asgi worker (two of them),
persistent database connections, no control socket. A follower's lag is from the moment
the presenter sends a step to the moment the follower has it.

The server's CPU time (utime + stime of gunicorn's master and workers, from /proc) per
second of wall time is the share of one core; the followers' cost is the third phase
minus the second. It also reports how long a follower took to see a new step.
"""

import http.client
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.bench import sized, throwaway_database

PORT = int(os.environ.get("BENCH_PRESENTER_PORT", "8130"))
ROOT = Path(__file__).resolve().parents[2]
FOLLOWERS = sized(30, 3)
POLL_SECONDS = 0.8  # viewer.js's POLL_MS
PHASE_SECONDS = float(os.environ.get("BENCH_PRESENTER_SECONDS", sized(10, 1)))
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(master: int) -> float:
    """utime + stime of the master and its children (the workers), in seconds."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid, ppid = int(entry), int(fields[1])
        if pid == master or ppid == master:
            total += int(fields[11]) + int(fields[12])
    return total / TICK


def _request(conn, method, path, headers=None, body=None):
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    # Header names any case (an ASGI server sends them in lower case), every Set-Cookie.
    headers = {name.title(): value for name, value in response.getheaders()}
    headers["Set-Cookie"] = "; ".join(response.msg.get_all("Set-Cookie") or [])
    return response.status, headers, response.read()


def _wait_for_server(proc) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the bench server exited; is port {PORT} free?")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=1)
            status, _, _ = _request(conn, "GET", "/battles/protocol/")
            if status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the bench server did not answer within 30 s")


def _seed():
    from django.contrib.auth import get_user_model
    from django.test import Client

    from battles import services
    from battles.demo import DEMO_PARTIES
    from cards.demo import seed_demo
    from cards.models import Party
    from cards.tables.services import table_create

    seed_demo()
    gm = get_user_model().objects.get(username="demo")
    table = table_create(gm=gm, name="Bench table")
    parties = list(Party.objects.filter(owner=gm, name__in=DEMO_PARTIES).order_by("name")[:2])
    battle = services.battle_run(
        owner=gm, party_a=parties[0], party_b=parties[1], seed=7, table=table
    )
    client = Client()
    client.force_login(gm)
    client.post(f"{battle.get_absolute_url()}present/", {"action": "start", "round": 1})
    follow = client.get(f"{battle.get_absolute_url()}follow/").json()
    return battle, client.cookies["sessionid"].value, follow["poll"], follow["stream"]


class Presenter(threading.Thread):
    """Steps once a second through round 1 and on, as the presenter's viewer posts."""

    def __init__(self, battle, session: str, stop: threading.Event):
        super().__init__(daemon=True)
        self.battle, self.session, self.stop = battle, session, stop
        self.moves: dict[int, float] = {}  # step number -> when the presenter sent it
        self.errors = 0

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
        cookie = f"sessionid={self.session}"
        _, headers, html = _request(conn, "GET", self.battle.get_absolute_url(), {"Cookie": cookie})
        token = re.search(rb'"X-CSRFToken": "([^"]+)"', html).group(1).decode()
        csrf = re.search(r"csrftoken=([^;]+)", headers.get("Set-Cookie", "")).group(1)
        cookie += f"; csrftoken={csrf}"
        step = 1
        length = self.battle.frames[2]["first_event"] - self.battle.frames[1]["first_event"]
        while not self.stop.is_set():
            step = step % length + 1
            body = f"action=step&round=1&step={step}"
            self.moves[step] = time.monotonic()
            status, _, _ = _request(
                conn, "POST", f"{self.battle.get_absolute_url()}present/",
                {"Cookie": cookie, "X-CSRFToken": token, "HX-Request": "true",
                 "Content-Type": "application/x-www-form-urlencoded",
                 "Referer": f"http://127.0.0.1:{PORT}/"},
                body,
            )  # fmt: skip
            if status != 204:
                self.errors += 1
            self.stop.wait(1.0)


class Follower(threading.Thread):
    def __init__(self, poll: str, stop: threading.Event, presenter: Presenter):
        super().__init__(daemon=True)
        self.poll, self.stop, self.presenter = poll, stop, presenter
        self.lags: list[float] = []
        self.counts = {200: 0, 304: 0}
        self.errors = 0

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
        etag = None
        while not self.stop.is_set():
            headers = {"HX-Request": "true"}
            if etag:
                headers["If-None-Match"] = etag
            status, got, html = _request(conn, "GET", self.poll, headers)
            now = time.monotonic()
            if status == 200:
                etag = got.get("Etag")
                match = re.search(rb'data-step="(\d+)"', html)
                moved = self.presenter.moves.get(int(match.group(1))) if match else None
                if moved and etag and now - moved < 5:
                    self.lags.append(now - moved)
            elif status != 304:
                self.errors += 1
            self.counts[status] = self.counts.get(status, 0) + 1
            self.stop.wait(POLL_SECONDS)


class StreamFollower(threading.Thread):
    """Holds one event stream open, as viewer.js's EventSource does."""

    def __init__(self, url: str, stop: threading.Event, presenter: Presenter):
        super().__init__(daemon=True)
        self.url, self.stop, self.presenter = url, stop, presenter
        self.lags: list[float] = []
        self.counts = {200: 0}
        self.errors = 0

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=3)
        conn.request("GET", self.url, headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        if response.status != 200:
            self.errors += 1
            return
        while not self.stop.is_set():
            try:
                line = response.readline()
            except TimeoutError:
                continue
            if not line:
                break
            match = re.search(rb'data-step="(\d+)"', line)
            if match:
                now = time.monotonic()
                self.counts[200] += 1
                sent = self.presenter.moves.get(int(match.group(1)))
                if sent and now - sent < 5:
                    self.lags.append(now - sent)
        conn.close()


def _phase(master: int, battle, session: str, poll: str, *, presenter: bool, followers: int,
           stream: str | None = None):  # fmt: skip
    stop = threading.Event()
    p = Presenter(battle, session, stop)
    if stream:
        fs = [StreamFollower(stream, stop, p) for _ in range(followers)]
    else:
        fs = [Follower(poll, stop, p) for _ in range(followers)]
    if presenter:
        p.start()
    for f in fs:
        f.start()
    time.sleep(1.0)  # connections open, first answers in
    cpu0, t0 = _cpu_seconds(master), time.monotonic()
    time.sleep(PHASE_SECONDS)
    cpu1, t1 = _cpu_seconds(master), time.monotonic()
    stop.set()
    for thread in [p, *fs] if presenter else fs:
        thread.join(timeout=10)
    return (cpu1 - cpu0) / (t1 - t0), p, fs


def bench_presenter() -> None:
    from django.conf import settings

    if not Path("/proc/self/stat").exists():
        print("presenter: skipped, it reads CPU times from /proc")
        return
    with throwaway_database("presenter.sqlite3") as db_url:
        proc = None
        try:
            battle, session, poll, stream = _seed()
            env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
            env.update(
                DATABASE_URL=db_url, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=settings.SECRET_KEY,
                DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost", DJANGO_SECURE_SSL_REDIRECT="0",
                DJANGO_SECURE_COOKIES="0", DJANGO_HSTS_SECONDS="0", DATABASE_CONN_MAX_AGE="600",
                DJANGO_RATELIMIT_ENABLE="0", DJANGO_SETTINGS_MODULE="memeyori_site.settings",
            )  # fmt: skip
            proc = subprocess.Popen(
                [str(Path(sys.executable).parent / "gunicorn"), "memeyori_site.asgi",
                 "--worker-class", "asgi", "--bind", f"127.0.0.1:{PORT}", "--workers", "2",
                 "--timeout", "60", "--no-control-socket"],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            _wait_for_server(proc)
            idle, _, _ = _phase(proc.pid, battle, session, poll, presenter=False, followers=0)
            alone, p1, _ = _phase(proc.pid, battle, session, poll, presenter=True, followers=0)
            print(
                f"presenter: server CPU, share of one core over {PHASE_SECONDS:.0f} s: idle "
                f"{idle:.1%}, presenter stepping each second {alone:.1%} "
                f"(load average {os.getloadavg()[0]:.1f})"
            )
            for how, url in (("polling", None), ("streaming", stream)):
                crowd, p2, fs = _phase(
                    proc.pid, battle, session, poll, presenter=True, followers=FOLLOWERS, stream=url
                )
                _report(how, crowd - alone, p1.errors + p2.errors, fs)
        except RuntimeError as error:
            print(f"presenter: skipped: {error}")
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=10)


def _report(how: str, cost: float, presenter_errors: int, fs) -> None:
    lags = sorted(lag for f in fs for lag in f.lags)
    answers = sum(sum(f.counts.values()) for f in fs)
    not_modified = sum(f.counts.get(304, 0) for f in fs)
    errors = presenter_errors + sum(f.errors for f in fs)
    extra = (
        f"{answers / PHASE_SECONDS:.0f} polls/s, {not_modified / max(answers, 1):.0%} answered 304"
        if how == "polling"
        else f"{answers / PHASE_SECONDS:.0f} events/s pushed"
    )
    print(
        f"presenter: {FOLLOWERS} {how} followers cost {cost:.1%} of one core (goal < 10%); "
        f"{extra}; errors {errors}"
    )
    if lags:
        print(
            f"presenter: {how}: a follower saw a new step after median "
            f"{statistics.median(lags) * 1e3:.0f} ms, p95 "
            f"{lags[max(0, int(len(lags) * 0.95) - 1)] * 1e3:.0f} ms, max {lags[-1] * 1e3:.0f} ms "
            f"(goal: median under 250 ms)"
        )


BENCHES = [bench_presenter]
