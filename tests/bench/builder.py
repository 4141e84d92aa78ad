"""`make bench`: the live stats endpoint against a trivial Django view, in the same run.

Self-contained: it builds a throwaway database (a temporary SQLite file, or a test
database on whatever DATABASE_URL points at), loads the default Types, a user, and a
Memeyori with six cards, and removes it all at the end.

Two measurements:
- server time: each request goes through Django's WSGI handler (every middleware, the
  session and auth lookups, the view, the template) with no network, timed one by one
  for the median and p99;
- over HTTP: a real WSGI server on 127.0.0.1:8101 in a child process, hit by client
  threads in this process, for requests per second; the ratio is the endpoint's
  throughput over the trivial view's.
"""

import http.client
import io
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from django.http import HttpResponse
from django.urls import include, path

from tests.bench import sized, throwaway_database

# The builder's own port on the shared machine; BENCH_BUILDER_PORT moves it.
PORT = int(os.environ.get("BENCH_BUILDER_PORT", "8101"))
ROOT = Path(__file__).resolve().parents[2]


def trivial(request):
    return HttpResponse("ok", content_type="text/plain")


def trivial_user(request):
    """Trivial too, but it reads request.user: the session and user lookups every
    logged-in page pays before its own work."""
    return HttpResponse(str(request.user.pk), content_type="text/plain")


# The bench's own URLconf: the site plus trivial views behind the same middleware.
urlpatterns = [
    path("bench/trivial/", trivial),
    path("bench/trivial-user/", trivial_user),
    path("", include("memeyori_site.urls")),
]

# What a user types, in order: every value is valid, so every request renders both panels.
KEYSTROKES = [
    {"strength": s, "endurance": 5 + s % 3, "iq": 3 + s % 5, "aura": 2 + s % 4}
    for s in range(1, 21)
]


def _seed():
    from django.contrib.auth import get_user_model

    from cards.demo import DEMO_FILE, load_types
    from cards.models import Card, Memeyori

    types = load_types(json.loads(DEMO_FILE.read_text(encoding="utf-8")))
    user = get_user_model().objects.create_user("bench", password="bench-pass-123!")
    memeyori = Memeyori.objects.create(
        owner=user, type=types["Blaze"], name="Bench", strength=5, endurance=5, iq=3, wit=2,
        speed=4, aura=2, rank=3,
    )  # fmt: skip
    for i, (type_name, category) in enumerate(
        [("Blaze", "physical"), ("Tide", "magic"), ("Verdant", "physical"),
         ("Volt", "magic"), ("Stone", "physical"), ("Lumen", "support")]
    ):  # fmt: skip
        Card.objects.create(
            memeyori=memeyori, type=types[type_name], name=f"Card {i}", category=category,
            power=4 + i, mp_cost=1, unlock_rank=1 + i % 6, position=i,
        )  # fmt: skip
    return user, memeyori, types


def _session_cookie(user) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def _stats_queries(memeyori, types) -> list[str]:
    from django.urls import reverse

    url = reverse("character_stats", kwargs={"kind": "memeyori", "code": memeyori.code})
    base = {
        "name": "Bench", "type": types["Blaze"].pk, "rank": 3, "strength": 5, "endurance": 5,
        "iq": 3, "wit": 2, "speed": 4, "aura": 2, "flavour": "", "visibility": "private",
        "vs_evasion": 2, "vs_defense": 2, "vs_resistance": 2, "vs_type": "verdant",
    }  # fmt: skip
    return [f"{url}?{urlencode({**base, **keys})}" for keys in KEYSTROKES]


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _server_times(handler, cookie: str, urls: list[str], n: int) -> list[float]:
    """Seconds per request through the WSGI handler, one sample per request."""
    from django.test import RequestFactory

    factory = RequestFactory()
    environs = []
    for url in urls:
        environ = factory.get(url, headers={"HX-Request": "true", "Cookie": cookie}).environ
        environ["wsgi.input"] = io.BytesIO(b"")
        environs.append(environ)
    samples = []
    statuses = set()

    def start_response(status, headers, exc_info=None):
        statuses.add(status)

    for i in range(n):
        environ = dict(environs[i % len(environs)])
        environ["wsgi.input"] = io.BytesIO(b"")
        start = time.perf_counter()
        response = handler(environ, start_response)
        b"".join(response)
        response.close()
        samples.append(time.perf_counter() - start)
    if statuses != {"200 OK"}:
        raise RuntimeError(f"bench requests failed: {statuses}")
    return samples


REQUESTS = int(sized(600, 30))


def _in_process(cookie, stats_urls, n=REQUESTS):
    from django.core.handlers.wsgi import WSGIHandler

    handler = WSGIHandler()
    warm = int(sized(60, 5))
    _server_times(handler, cookie, stats_urls, warm)  # warm the caches and the templates
    _server_times(handler, cookie, ["/bench/trivial/"], warm)
    stats_s = _server_times(handler, cookie, stats_urls, n)
    trivial_s = _server_times(handler, cookie, ["/bench/trivial/"], n)
    user_s = _server_times(handler, cookie, ["/bench/trivial-user/"], n)
    return stats_s, trivial_s, user_s


def _http_rps(urls: list[str], cookie: str, *, clients: int, seconds: float) -> tuple[float, int]:
    """Requests per second from `clients` threads, and how many were not 200."""
    done = [0] * clients
    errors = [0] * clients
    stop = time.perf_counter() + seconds

    def worker(k):
        i = k
        while time.perf_counter() < stop:
            # wsgiref speaks HTTP/1.0 and closes after each response, like a client
            # behind a proxy that does not pool connections.
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
            conn.request(
                "GET", urls[i % len(urls)], headers={"HX-Request": "true", "Cookie": cookie}
            )
            response = conn.getresponse()
            response.read()
            conn.close()
            if response.status != 200:
                errors[k] += 1
            done[k] += 1
            i += 1

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - start), sum(errors)


def _wait_for_server(proc) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the bench server exited; is port {PORT} free?")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=1)
            conn.request("GET", "/bench/trivial/")
            response = conn.getresponse()
            response.read()
            # Only the bench's own server has this URL; anything else means the port is
            # taken by another server.
            if response.status != 200:
                raise RuntimeError(f"port {PORT} answers, but not as the bench server")
            time.sleep(0.5)
            if proc.poll() is not None:
                raise RuntimeError(f"the bench server exited; is port {PORT} free?")
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the bench server did not answer within 30 s")


def _over_http(db_url: str, cookie: str, stats_urls: list[str]):
    from django.conf import settings

    env = dict(
        os.environ,
        DATABASE_URL=db_url,
        DJANGO_DEBUG="0",
        # The same key as this process, so the session cookie made here logs in there.
        DJANGO_SECRET_KEY=settings.SECRET_KEY,
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECURE_COOKIES="0",
        DJANGO_SETTINGS_MODULE="memeyori_site.settings",
        DATABASE_CONN_MAX_AGE="600",
    )
    # wsgiref's single-threaded server: one thread keeps one database connection for the
    # whole run, as a gunicorn sync worker would (runserver starts a thread, and so a new
    # connection, per request).
    code = (
        "import django; from django.conf import settings; django.setup();"
        "settings.ROOT_URLCONF = 'tests.bench.builder';"
        "from wsgiref.simple_server import make_server, WSGIRequestHandler;"
        "from django.core.wsgi import get_wsgi_application;"
        "WSGIRequestHandler.log_message = lambda *a: None;"
        f"make_server('127.0.0.1', {PORT}, get_wsgi_application()).serve_forever()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_server(proc)
        results = {}
        for clients in (1, 4):
            _http_rps(stats_urls, cookie, clients=clients, seconds=sized(1, 0.2))  # warm up
            stats = _http_rps(stats_urls, cookie, clients=clients, seconds=sized(4, 0.5))
            plain = _http_rps(["/bench/trivial/"], cookie, clients=clients, seconds=sized(4, 0.5))
            results[clients] = (stats, plain)
        return results
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def bench_live_stats() -> None:
    with throwaway_database("bench.sqlite3") as db_url:
        _live_stats(db_url)


def _live_stats(db_url: str) -> None:
    from django.conf import settings
    from django.db import connection
    from django.test.utils import override_settings

    # Persistent connections, as a deployment should set DATABASE_CONN_MAX_AGE: with 0,
    # every request also pays for opening (and setting up) a new database connection.
    old_max_age = connection.settings_dict["CONN_MAX_AGE"]
    connection.settings_dict["CONN_MAX_AGE"] = 600
    try:
        hosts = [*settings.ALLOWED_HOSTS, "testserver"]  # RequestFactory's host
        with override_settings(
            ROOT_URLCONF="tests.bench.builder", DEBUG=False, ALLOWED_HOSTS=hosts
        ):
            user, memeyori, types = _seed()
            cookie = _session_cookie(user)
            stats_urls = _stats_queries(memeyori, types)
            stats_s, trivial_s, user_s = _in_process(cookie, stats_urls)
            med, p99 = statistics.median(stats_s), _percentile(stats_s, 0.99)
            tmed, umed = statistics.median(trivial_s), statistics.median(user_s)
            print(
                f"builder: live stats endpoint server time median {med * 1e3:.2f} ms, "
                f"p99 {p99 * 1e3:.2f} ms (goal: median < 10 ms); trivial view median "
                f"{tmed * 1e3:.2f} ms, trivial view reading request.user {umed * 1e3:.2f} ms"
            )
            print(
                f"builder: in-process throughput {1 / med:,.0f} vs {1 / tmed:,.0f} req/s: "
                f"the endpoint runs at {tmed / med:.0%} of the trivial view "
                f"({umed / med:.0%} of the one reading request.user)"
            )
            try:
                results = _over_http(db_url, cookie, stats_urls)
            except RuntimeError as error:
                print(f"builder: over HTTP skipped: {error}")
            else:
                for clients, ((srps, serr), (trps, terr)) in results.items():
                    print(
                        f"builder: over HTTP (wsgiref server, {clients} client"
                        f"{'s' if clients > 1 else ''}): live stats {srps:,.0f} req/s, "
                        f"trivial view {trps:,.0f} req/s: {srps / trps:.0%} of it "
                        f"(goal >= 80%); errors {serr + terr}"
                    )
    finally:
        connection.settings_dict["CONN_MAX_AGE"] = old_max_age


BENCHES = [bench_live_stats]
