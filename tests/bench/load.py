"""`make load`: a bounded load test against a production-like server on loopback.

It starts gunicorn as `make serve` does (its asgi worker, memeyori_site/asgi.py) on
127.0.0.1:LOAD_PORT (8011) and
LOAD_TASK_WORKERS (2) niced task workers, then measures, each phase bounded in time:
- live stats alone and beside 4 clients fetching fresh Mastercard PDFs (load_beside.py);
- a stored Mastercard PDF fetched again (what "cached" costs);
- mixed traffic from LOAD_CLIENTS (32) keep-alive clients for LOAD_SECONDS (at most 60):
  requests per second, p50/p99 latency and errors per endpoint.
Then it stops the server. Every request goes to 127.0.0.1 only, and stops by itself.
"""

import http.client
import os
import random
import re
import secrets
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
PORT = int(os.environ.get("LOAD_PORT", "8011"))
CLIENTS = int(os.environ.get("LOAD_CLIENTS", "32"))
SECONDS = min(60.0, float(os.environ.get("LOAD_SECONDS", "30")))
# As `make serve`: one asgi worker per core (the Makefile says why).
WORKERS = int(os.environ.get("LOAD_WORKERS", str(os.cpu_count() or 2)))
TASK_WORKERS = int(os.environ.get("LOAD_TASK_WORKERS", "2"))
BESIDE = os.environ.get("LOAD_BESIDE", "1") != "0"


@dataclass
class Endpoint:
    name: str
    method: str
    path: str
    weight: int
    body: dict | None = None
    htmx: bool = False


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, name: str, seconds: float, ok: bool):
        with self.lock:
            self.latencies[name].append(seconds)
            if not ok:
                self.errors[name] += 1


def production_like(secret: str, hosts: str) -> dict[str, str]:
    """This environment with the site's settings as `make serve` has them (debug off,
    hashed static files) on loopback over plain HTTP, and no DJANGO_ setting of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_STATIC_MANIFEST="1",
        DJANGO_SECRET_KEY=secret,
        DJANGO_ALLOWED_HOSTS=hosts,
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECURE_COOKIES="0",
        DJANGO_HSTS_SECONDS="0",
        # One address sends all of a bench's traffic; the limits are measured in the tests.
        DJANGO_RATELIMIT_ENABLE="0",
    )
    return env


def server_env() -> dict[str, str]:
    secret = (ROOT / ".venv" / "secret-key").read_text().strip()
    env = production_like(secret, "127.0.0.1,localhost")
    # load_beside's clients say who they are in X-Forwarded-For, as a proxy would.
    env["DJANGO_TRUSTED_PROXIES"] = "127.0.0.1"
    return env


def manage(*args: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
        capture_output=True, text=True,
    )  # fmt: skip
    return out.stdout


WORKER_ARGS = ["db_worker", "--no-reload", "--interval", "0.25", "--verbosity", "0"]


def start_task_workers(env: dict[str, str]) -> list[subprocess.Popen]:
    """As `make serve` runs them: niced, so that pages win the CPU."""
    return [
        subprocess.Popen(
            ["nice", "-n", "10", sys.executable, "manage.py", *WORKER_ARGS],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(TASK_WORKERS)
    ]


# Through the environment: `python -m tests.bench.load` and load_mix's import of
# tests.bench.load are two module objects, and both must see the same password.
DEMO_RUN_PASSWORD = os.environ.setdefault("LOAD_DEMO_PASSWORD", secrets.token_urlsafe(24))
DEMO_UNLOCK = (
    "import os; from django.contrib.auth import get_user_model; "
    "u = get_user_model().objects.get(username='demo'); "
    "u.set_password(os.environ['LOAD_DEMO_PASSWORD']); u.save()"
)


def start_server(env: dict[str, str]) -> subprocess.Popen:
    manage("collectstatic", "--noinput", "-v0", env=env)
    manage("migrate", "--noinput", "-v0", env=env)
    manage("createcachetable", env=env)
    manage("seed_demo", env=env)
    # With debug off the demo user has no usable password (issue 11.10); this run gives it
    # a random one for its own log-in, and main() locks it again when the run ends.
    manage("shell", "-c", DEMO_UNLOCK, env=env)
    # As `make serve` runs it: gunicorn's asgi worker (memeyori_site/asgi.py), persistent
    # database connections, no control socket, a listening socket per worker.
    proc = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "memeyori_site.asgi",
         "--worker-class", "asgi", "--bind", f"{HOST}:{PORT}", "--workers", str(WORKERS),
         "--timeout", "60", "--no-control-socket", "--reuse-port"],
        cwd=ROOT, env={**env, "DATABASE_CONN_MAX_AGE": env.get("DATABASE_CONN_MAX_AGE", "600")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(HOST, PORT, timeout=2)
            conn.request("GET", "/")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit("the server did not answer within 30 s")


class Client:
    """One keep-alive connection with its own cookies (session and CSRF)."""

    def __init__(self):
        self.conn = http.client.HTTPConnection(HOST, PORT, timeout=30)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: dict | None = None, htmx: bool = False):
        headers = {"Host": f"{HOST}:{PORT}"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if method == "POST":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            headers["Referer"] = f"http://{HOST}:{PORT}/"
            data = urlencode(
                {"csrfmiddlewaretoken": self.cookies.get("csrftoken", ""), **(body or {})}
            )
        if htmx:
            headers["HX-Request"] = "true"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            # An idle keep-alive connection the server closed: a browser opens another.
            self.conn.close()
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, PORT, timeout=30)
            raise
        payload = response.read()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        return response.status, payload

    def login(self, username: str, password: str, login_path: str):
        self.request("GET", login_path)
        status, _ = self.request(
            "POST", login_path, {"username": username, "password": password,
                                 "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")}
        )  # fmt: skip
        if status not in (200, 302):
            raise SystemExit(f"log-in failed with {status}")


def discover(client: Client) -> list[Endpoint]:
    """The traffic mix, with real codes found on the demo's own pages."""
    from tests.bench import load_mix

    return load_mix.endpoints(client)


def run(endpoints: list[Endpoint], stats: Stats, stop_at: float, seed: int, cookies: dict):
    rng = random.Random(seed)
    client = Client()
    # One log-in, shared: 32 password hashes at the start would measure PBKDF2, not the site.
    client.cookies.update(cookies)
    weights = [e.weight for e in endpoints]
    while time.monotonic() < stop_at:
        e = rng.choices(endpoints, weights)[0]
        start = time.perf_counter()
        try:
            status, _ = client.request(e.method, e.path, e.body, e.htmx)
            ok = status < 400
        except (http.client.HTTPException, OSError):
            ok = False
        stats.record(e.name, time.perf_counter() - start, ok)


def warm(endpoints: list[Endpoint], client: Client):
    """One request to each endpoint first, so every figure is of a warm server."""
    for e in endpoints:
        if e.method == "GET":
            client.request(e.method, e.path, e.body, e.htmx)


def report(stats: Stats, elapsed: float, endpoints: list[Endpoint]):
    print(f"load: {CLIENTS} clients, {elapsed:.1f} s, {WORKERS} gunicorn workers, {HOST}:{PORT}")
    heads = ("endpoint", "requests", "req/s", "p50 ms", "p99 ms", "errors")
    print(f"{heads[0]:<22} " + " ".join(f"{h:>8}" for h in heads[1:]))
    total = errors = 0
    for name in dict.fromkeys(e.name for e in endpoints):
        lat = sorted(stats.latencies.get(name, []))
        if not lat:
            continue
        p50 = statistics.median(lat) * 1e3
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3
        n, err = len(lat), stats.errors.get(name, 0)
        total, errors = total + n, errors + err
        print(f"{name:<22} {n:>8} {n / elapsed:>8.1f} {p50:>8.1f} {p99:>8.1f} {err:>8}")
    print(f"{'all':<22} {total:>8} {total / elapsed:>8.1f} {'':>8} {'':>8} {errors:>8}")


def cached_pdf(client: Client, path: str) -> None:
    """A stored Mastercard fetched again and again: the cost of a cache hit."""
    from tests.bench.load_beside import fetch_pdf

    fetch_pdf(client, path, "127.0.7.1", time.monotonic() + 60)  # render and store it once
    times = []
    for _ in range(50):
        start = time.perf_counter()
        client.request("GET", path)
        times.append(time.perf_counter() - start)
    times.sort()
    print(
        f"cached pdf: {path}: p50 {statistics.median(times) * 1e3:.1f} ms, "
        f"p99 {times[-1] * 1e3:.1f} ms over {len(times)} requests"
    )


def main():
    env = server_env()
    proc = start_server(env)
    workers = start_task_workers(env)
    try:
        probe = Client()
        endpoints = discover(probe)
        if BESIDE:
            from tests.bench import load_beside

            load_beside.beside(probe)
        cached_pdf(probe, next(e.path for e in endpoints if e.name == "mastercard pdf"))
        stats = Stats()
        warm(endpoints, probe)
        start = time.monotonic()
        stop_at = start + SECONDS
        threads = [
            threading.Thread(
                target=run, args=(endpoints, stats, stop_at, n, probe.cookies), daemon=True
            )
            for n in range(CLIENTS)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=SECONDS + 60)
        report(stats, time.monotonic() - start, endpoints)
    finally:
        for p in [proc, *workers]:
            p.terminate()
        for p in [proc, *workers]:
            p.wait(timeout=30)
        manage("seed_demo", env=env)  # debug off: the demo user cannot log in again


def codes_on(client: Client, path: str, pattern: str) -> list[str]:
    _, html = client.request("GET", path)
    return re.findall(pattern, html.decode())


if __name__ == "__main__":
    main()
