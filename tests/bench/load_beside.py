"""Live stats alone, then beside clients fetching Mastercard PDFs: does printing slow pages?

Part of `make load`. Two clients type into the builder (the live stats endpoint) for
BESIDE_SECONDS alone, then again while BESIDE_PDF_CLIENTS (4) other clients fetch
Mastercard PDFs of characters made for this run, so that every PDF is a fresh render (a
stored one would cost nothing). A PDF client behaves as a browser without JavaScript: it
follows the waiting page's refresh until the PDF arrives. Each client sends its own
X-Forwarded-For address; the server trusts it only when DJANGO_TRUSTED_PROXIES names
127.0.0.1 (load.py sets that), so the per-client limits see separate people.
"""

import http.client
import os
import re
import statistics
import threading
import time
from urllib.parse import urlencode

from tests.bench.load import Client

SECONDS = min(30.0, float(os.environ.get("BESIDE_SECONDS", "15")))
PDF_CLIENTS = int(os.environ.get("BESIDE_PDF_CLIENTS", "4"))
CHARACTERS = int(os.environ.get("BESIDE_CHARACTERS", "40"))
PAPERS = ("a4", "letter", "card")
REFRESH = re.compile(r'http-equiv="refresh" content="(\d+);\s*url=([^"]+)"')


def _send(client: Client, method: str, path: str, **kwargs):
    """One request on the client's keep-alive connection, opening another if the server
    closed it while it sat idle (as a browser does)."""
    try:
        client.conn.request(method, path, **kwargs)
        return client.conn.getresponse()
    except (http.client.HTTPException, OSError):
        client.conn.close()
        client.conn.request(method, path, **kwargs)
        return client.conn.getresponse()


def _post(client: Client, path: str, fields: dict):
    response = _send(
        client, "POST", path,
        body=urlencode({**fields, "csrfmiddlewaretoken": client.cookies.get("csrftoken", "")}),
        headers={
            "Host": f"{client.conn.host}:{client.conn.port}",
            "Cookie": "; ".join(f"{k}={v}" for k, v in client.cookies.items()),
            "Content-Type": "application/x-www-form-urlencoded",
            "Referer": f"http://{client.conn.host}:{client.conn.port}/",
        },
    )  # fmt: skip
    response.read()
    return response


def delete_characters(client: Client, paths: list[str]) -> None:
    """Leave the demo account as it was."""
    for path in paths:
        _post(client, f"{path}delete/", {})


def make_characters(client: Client, count: int, label: str) -> list[str]:
    """Save `count` new Memeyori through the builder; their Mastercard paths."""
    _, html = client.request("GET", "/build/memeyori/")
    type_pk = re.findall(r'<option value="(\d+)"', html.decode())[0]
    paths = []
    for n in range(count):
        fields = {
            "name": f"Load test {label} {n}",
            "type": type_pk,
            "rank": 1 + n % 5,
            "flavour": f"Made by the load test ({label}, number {n}).",
            "visibility": "private",
            **{a: 2 + (n + i) % 9 for i, a in enumerate(("strength", "endurance", "iq", "wit"))},
            "speed": 4,
            "aura": 3,
        }
        response = _post(client, "/build/memeyori/", fields)
        location = response.getheader("Location", "")
        match = re.search(r"(/c/memeyori/[0-9a-f-]{36}/)", location)
        if response.status != 302 or not match:
            raise SystemExit(f"saving a character for the load test failed: {response.status}")
        paths.append(match.group(1))
    return paths


def _client(cookies: dict) -> Client:
    client = Client()
    client.cookies.update(cookies)
    return client


def fetch_pdf(client: Client, path: str, address: str, stop_at: float) -> bool:
    """GET a PDF, following a waiting page's refresh like a browser without JavaScript."""
    url = path
    while time.monotonic() < stop_at + 60:
        headers = {
            "Host": f"{client.conn.host}:{client.conn.port}",
            "Cookie": "; ".join(f"{k}={v}" for k, v in client.cookies.items()),
            "X-Forwarded-For": address,
        }
        response = _send(client, "GET", url, headers=headers)
        body = response.read()
        kind = response.getheader("Content-Type", "")
        if response.status == 200 and kind.startswith("application/pdf"):
            return True
        if response.status in (429, 503):
            time.sleep(float(response.getheader("Retry-After", "1")))
            continue
        match = REFRESH.search(body.decode(errors="replace"))
        if response.status >= 400 or not match:
            return False
        time.sleep(int(match.group(1)))
        url = match.group(2).replace("&amp;", "&")
    return False


def stats_client(urls: list[str], stop_at: float, samples: list[float], seed: int):
    client = Client()
    n = seed
    while time.monotonic() < stop_at:
        n += 1
        start = time.perf_counter()
        try:
            status, _ = client.request("GET", urls[n % len(urls)], htmx=True)
        except (http.client.HTTPException, OSError):
            status = 599
        if status == 200:
            samples.append(time.perf_counter() - start)


def pdf_client(paths: list[str], stop_at: float, cookies: dict, number: int, done: list[int]):
    client = _client(cookies)
    address = f"127.0.9.{number + 1}"
    n = number
    while time.monotonic() < stop_at:
        path = paths[n % len(paths)]
        n += PDF_CLIENTS
        try:
            ok = fetch_pdf(client, path, address, stop_at)
        except (http.client.HTTPException, OSError):
            client.conn.close()
            client = _client(cookies)
            ok = False
        done.append(1 if ok else 0)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered) * 1e3, p99 * 1e3


def beside(probe: Client) -> None:
    label = f"{time.time():.0f}"
    characters = make_characters(probe, CHARACTERS, label)
    urls = [
        "/build/memeyori/stats/?"
        + urlencode({"name": "Typing", "type": 1, "rank": 3, "strength": s, "endurance": 5,
                     "iq": 4, "wit": 3, "speed": 5, "aura": 4, "vs_evasion": 2})
        for s in range(2, 14)
    ]  # fmt: skip
    pdfs = [f"/print{path}mastercard.pdf?paper={paper}" for paper in PAPERS for path in characters]
    for url in urls:  # warm
        probe.request("GET", url, htmx=True)
    # Warm the render path too (worker processes start, fonts load) with PDFs of their own,
    # so both phases measure a warm server.
    warm_stop = time.monotonic() + 5
    warmers = [
        threading.Thread(
            target=lambda n=n: [
                fetch_pdf(_client(probe.cookies), pdfs[-1 - n - k * PDF_CLIENTS],
                          f"127.0.8.{n + 1}", warm_stop)
                for k in range(2)
            ],
            daemon=True,
        )
        for n in range(PDF_CLIENTS)
    ]  # fmt: skip
    for t in warmers:
        t.start()
    for t in warmers:
        t.join(timeout=120)
    figures = {}
    for phase, pdf_clients in (("alone", 0), ("beside PDFs", PDF_CLIENTS)):
        samples: list[float] = []
        done: list[int] = []
        stop_at = time.monotonic() + SECONDS
        threads = [
            threading.Thread(target=stats_client, args=(urls, stop_at, samples, n), daemon=True)
            for n in range(2)
        ] + [
            threading.Thread(
                target=pdf_client, args=(pdfs, stop_at, probe.cookies, n, done), daemon=True
            )
            for n in range(pdf_clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=SECONDS + 90)
        p50, p99 = percentiles(samples)
        figures[phase] = (p50, p99)
        extra = f", {sum(done)} PDFs fetched, {len(done) - sum(done)} failed" if done else ""
        print(
            f"beside: live stats {phase}: {len(samples)} requests, p50 {p50:.1f} ms, "
            f"p99 {p99:.1f} ms{extra}"
        )
    delete_characters(probe, characters)
    (a50, a99), (b50, b99) = figures["alone"], figures["beside PDFs"]
    print(
        f"beside: with {PDF_CLIENTS} clients fetching PDFs, live stats p99 is {b99 / a99:.2f}x "
        f"and p50 {b50 / a50:.2f}x what it is alone (load average {os.getloadavg()[0]:.1f})"
    )
