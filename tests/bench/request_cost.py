"""`python -m tests.bench.request_cost [--only NAME | --dump DIR] [REV] [ROUNDS] [N]`: the
CPU each request of `make load`'s mix costs, in process, on this tree and (given REV) on
that commit, in turns.

No server and no network: each request goes through Django's WSGI handler (every
middleware, the session and user lookups, the view, the template), as `make serve` runs
pages (memeyori_site/asgi.py hands them to the WSGI application), with debug off, static
file names from a manifest, persistent database connections and rate limits off, as
`make load` has them. The endpoints are load_mix's own, found on the demo's pages after
logging in as the demo user.

Each tree runs in a child process of its own, ROUNDS times (3), the trees in turns, on one
throwaway copy of the demo database (in /dev/shm where there is one). A child sends each
endpoint N requests (300; the battle run a tenth of that), interleaved as the mix is,
and times each by `time.process_time`: CPU, so another busy process on the machine moves
the figures less than it would wall time. Per endpoint it prints the median CPU of a
request, then the whole mix weighted as load_mix weighs it.

`--only NAME` measures only the endpoints whose names start with NAME ("live stats").
`--dump DIR` instead saves each endpoint's page (and the builder's invalid-input cases)
from this tree, with the per-request tokens and the run's battle codes replaced, for
comparing two trees' output with diff.

REV is checked out in a temporary worktree sharing this tree's .venv, as load_ab does.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "request-cost-demo-password"
CHILD = "--child"


def _env(scratch: Path, static_root: Path) -> dict[str, str]:
    from tests.bench.load import production_like

    env = production_like(
        "request-cost-bench-secret-key-not-for-any-deployment-0123456789",
        "testserver,127.0.0.1,localhost",
    )
    env.update(
        DJANGO_SETTINGS_MODULE="memeyori_site.settings",
        DJANGO_STATIC_ROOT=str(static_root),
        DJANGO_MEDIA_ROOT=str(scratch / "media"),
        # Every battle run queues its preview image, as under make load (where task workers
        # draw them): never refused for a full queue here, where nothing draws them.
        DJANGO_RENDER_QUEUE_MAX="1000000",
        DATABASE_URL=f"sqlite:///{scratch / 'db.sqlite3'}",
        DATABASE_CONN_MAX_AGE="600",
        LOAD_DEMO_PASSWORD=PASSWORD,
    )
    return env


def _manage(tree: Path, env: dict, *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=tree, env=env, check=True, capture_output=True
    )


def _child(tree: Path, env: dict, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), CHILD, *args],
        cwd=tree, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode:
        raise SystemExit(
            f"request_cost in {tree} failed:\n{out.stdout[-3000:]}{out.stderr[-3000:]}"
        )
    return out.stdout


def prepare(trees: list[Path], scratch: Path) -> dict[Path, dict]:
    """The demo database, each tree's collected static files, and the Mastercard PDF of
    the mix rendered and stored once (the mix reads a stored one back)."""
    envs = {}
    for k, tree in enumerate(trees):
        envs[tree] = env = _env(scratch, scratch / f"static-{k}")
        _manage(tree, env, "collectstatic", "--noinput", "-v0")
    env = envs[trees[0]]
    _manage(trees[0], env, "migrate", "--noinput", "-v0")
    _manage(trees[0], env, "createcachetable")
    _manage(trees[0], env, "seed_demo")
    _manage(
        trees[0], env, "shell", "-c",
        "from django.contrib.auth import get_user_model; "
        "u = get_user_model().objects.get(username='demo'); "
        f"u.set_password({PASSWORD!r}); u.save()",
    )  # fmt: skip
    _child(trees[0], {**env, "DJANGO_TASKS_IMMEDIATE": "1"}, "prepare")
    return envs


# In the child: an in-process stand-in for load.Client, which load_mix drives.


class InProcess:
    """load.Client's interface (request, login, cookies) over Django's WSGI handler."""

    def __init__(self):
        from django.core.handlers.wsgi import WSGIHandler

        self.handler = WSGIHandler()
        self.cookies: dict[str, str] = {}

    def environ(self, method: str, path: str, body: dict | None = None, htmx: bool = False):
        from urllib.parse import urlencode

        from django.test import RequestFactory

        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            headers["HX-Request"] = "true"
        data = b""
        if method == "POST":
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            data = urlencode(
                {"csrfmiddlewaretoken": self.cookies.get("csrftoken", ""), **(body or {})}
            ).encode()
        request = RequestFactory().generic(
            method, path, data, content_type="application/x-www-form-urlencoded",
            headers=headers,
        )  # fmt: skip
        environ = dict(request.environ)
        environ["_body"] = data
        return environ

    def send(self, environ: dict):
        import io

        environ = dict(environ)
        environ["wsgi.input"] = io.BytesIO(environ.pop("_body"))
        got = {}

        def start_response(status, headers, exc_info=None):
            got["status"], got["headers"] = int(status.split()[0]), headers

        response = self.handler(environ, start_response)
        try:
            payload = b"".join(response)
        finally:
            response.close()
        return got["status"], payload, got["headers"]

    def request(self, method: str, path: str, body: dict | None = None, htmx: bool = False):
        status, payload, headers = self.send(self.environ(method, path, body, htmx))
        for header, value in headers:
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        return status, payload

    def login(self, username: str, password: str, login_path: str):
        self.request("GET", login_path)
        status, _ = self.request("POST", login_path, {"username": username, "password": password})
        if status not in (200, 302):
            raise SystemExit(f"log-in failed with {status}")


def _setup():
    import django

    django.setup()
    from tests.bench import load_mix

    client = InProcess()
    return client, load_mix.endpoints(client)


def child_prepare():
    client, endpoints = _setup()
    pdf = next(e for e in endpoints if e.name == "mastercard pdf")
    status, body = client.request("GET", pdf.path)
    if status != 200 or not body.startswith(b"%PDF"):
        raise SystemExit(f"the Mastercard PDF was not rendered ({status})")


def child_measure(n: int, only: str = ""):
    import gc
    import time

    client, endpoints = _setup()
    prepared = []
    for e in endpoints:
        if not e.name.startswith(only):
            continue
        environ = client.environ(e.method, e.path, e.body, e.htmx)
        status, _, _ = client.send(environ)  # warm
        if status >= 400:
            raise SystemExit(f"{e.name} {e.path} answered {status}")
        prepared.append((e, environ, [], status))
    # As memeyori_site/asgi.py does once the worker has loaded.
    gc.collect()
    gc.freeze()
    clock = time.process_time
    for i in range(n):
        for e, environ, samples, want in prepared:
            if e.method == "POST" and i % 10:
                continue
            start = clock()
            status, _, _ = client.send(environ)
            samples.append(clock() - start)
            if status != want:
                raise SystemExit(f"{e.name} {e.path} answered {status}, not {want}")
    print(json.dumps([[e.name, e.weight, statistics.median(s)] for e, _, s, _ in prepared]))


# What the dump adds to the mix: the builder's pages, its invalid-input cases, and Ranks
# that lock cards (1) or raise every attribute (6).
CASES = [
    {"rank": "1"},
    {"rank": "6", "strength": "20"},
    {"strength": "0"},
    {"strength": "21"},
    {"strength": "2.5"},
    {"strength": "abc"},
    {"strength": ""},
    {"iq": "", "aura": "99"},
    {"rank": "7"},
    {"type": "999999"},
    {"name": ""},
    {"vs_evasion": "41"},
    {"vs_defense": "x"},
    {"vs_type": "no-such-type"},
    {"vs_type": "tide"},
    {"vs_type": "ether"},
    {"vs_type": ""},
    {"name": "<b>&amp;\"'</b>", "flavour": "<script>x</script>"},
]


def child_dump(out: Path):
    import re as _re
    from urllib.parse import parse_qsl, urlencode

    client, endpoints = _setup()
    out.mkdir(parents=True, exist_ok=True)
    viewer = next(e.path for e in endpoints if e.name == "viewer page").split("?")[0]
    share = next(e.path for e in endpoints if e.name == "share link")
    run_codes = {viewer.strip("/").split("/")[-1]: "RUN-BATTLE", share: "/SHARE-LINK/"}
    pages = [(e.name, e.method, e.path, e.body, e.htmx) for e in endpoints]
    stats = next(e.path for e in endpoints if e.name == "live stats (htmx)")
    base, _, query = stats.partition("?")
    typed = dict(parse_qsl(query, keep_blank_values=True))
    character = base.removesuffix("stats/")
    pick = "memeyori:" + character.strip("/").split("/")[-1]
    for k, bad in enumerate(CASES):
        url = f"{base}?{urlencode({**typed, **bad})}"
        pages.append((f"case {k} htmx", "GET", url, None, True))
        pages.append((f"case {k} page", "GET", url, None, False))
        new = f"/build/memeyori/stats/?{urlencode({**typed, **bad})}"
        pages.append((f"case {k} new htmx", "GET", new, None, True))
        post = {**typed, **bad, "preview": "1"}
        pages.append((f"case {k} preview", "POST", f"{character}edit/", post, False))
    pages += [
        ("builder edit", "GET", f"{character}edit/", None, False),
        ("builder new", "GET", "/build/memeyori/", None, False),
        ("builder new archon", "GET", "/build/archon/", None, False),
        ("archon stats", "GET", f"/build/archon/stats/?{urlencode(typed)}", None, True),
        ("pick stats", "GET", f"{base}?{urlencode({**typed, 'vs_pick': pick})}", None, True),
    ]  # fmt: skip
    for k, (name, method, path, body, htmx) in enumerate(pages):
        status, payload = client.request(method, path, body, htmx)
        text = f"{status} {method} {path}\n" + payload.decode("utf-8", "replace")
        if method == "POST" and name == "battle run":
            text = _re.sub(r"[0-9a-f-]{36}", "NEW-BATTLE", text)
        for code, placeholder in run_codes.items():
            text = text.replace(code, placeholder)
        text = _re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]+', r"\1CSRF", text)
        text = _re.sub(r'("X-CSRFToken": ")[^"]+', r"\1CSRF", text)
        text = _re.sub(r'nonce="[^"]+"', 'nonce="NONCE"', text)
        slug = _re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        (out / f"{k:03d}-{slug}.html").write_text(text)


def _worktree(rev: str, scratch: Path) -> Path:
    base = scratch / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(base), rev], cwd=ROOT, check=True
    )
    (base / ".venv").symlink_to(ROOT / ".venv")
    return base


def main(argv: list[str]) -> None:
    dump, only = None, ""
    if argv[:1] == ["--dump"]:
        dump, argv = Path(argv[1]).resolve(), argv[2:]
    if argv[:1] == ["--only"]:
        only, argv = argv[1], argv[2:]
    rev = argv[0] if argv else ""
    rounds = int(argv[1]) if len(argv) > 1 else 3
    n = int(argv[2]) if len(argv) > 2 else 300
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    scratch = Path(tempfile.mkdtemp(prefix="request-cost-", dir=shm))
    base = None
    try:
        trees = [ROOT]
        if rev:
            base = _worktree(rev, scratch)
            trees = [base, ROOT]
        envs = prepare(trees, scratch)
        if dump:
            for tree in trees:
                name = "this" if tree == ROOT else rev
                _child(tree, envs[tree], "dump", str(dump / name))
                print(f"request_cost: pages of {name} in {dump / name}")
            return
        results: dict[Path, list] = {tree: [] for tree in trees}
        for r in range(1, rounds + 1):
            for tree in trees:
                out = _child(tree, envs[tree], "measure", str(n), only)
                rows = json.loads(out.splitlines()[-1])
                results[tree].append(rows)
                name = "this tree" if tree == ROOT else rev
                print(f"request_cost: round {r}, {name}: {_mix(rows) * 1e3:.3f} ms a request")
        report(results, trees, rev)
    finally:
        if base is not None:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False
            )
        shutil.rmtree(scratch, ignore_errors=True)


def _by_name(rows) -> dict[str, float]:
    """Each endpoint's CPU a request: the mean of its URLs' medians, as the mix weighs them."""
    grouped: dict[str, list] = {}
    for name, weight, cpu in rows:
        grouped.setdefault(name, []).append((weight, cpu))
    return {
        name: sum(w * c for w, c in pairs) / sum(w for w, _ in pairs)
        for name, pairs in grouped.items()
    }


def _weights(rows) -> dict[str, int]:
    weights: dict[str, int] = {}
    for name, weight, _ in rows:
        weights[name] = weights.get(name, 0) + weight
    return weights


def _mix(rows) -> float:
    return sum(w * c for _, w, c in rows) / sum(w for _, w, _ in rows)


def report(results, trees, rev) -> None:
    names = {tree: ("this tree" if tree == ROOT else rev) for tree in trees}
    weights = _weights(results[trees[0]][0])
    head = f"{'endpoint':<22} {'weight':>6} " + " ".join(f"{names[t]:>14}" for t in trees)
    print(f"request_cost: CPU ms a request, the least of {len(results[trees[0]])} runs' medians")
    print(head + ("   ratio" if len(trees) == 2 else ""))
    best = {t: {} for t in trees}
    for tree in trees:
        for rows in results[tree]:
            for name, cpu in _by_name(rows).items():
                best[tree][name] = min(best[tree].get(name, cpu), cpu)
        best[tree]["whole mix"] = min(_mix(rows) for rows in results[tree])
    for name in [*weights, "whole mix"]:
        cells = " ".join(f"{best[t][name] * 1e3:>14.3f}" for t in trees)
        ratio = f"  {best[trees[1]][name] / best[trees[0]][name]:>6.3f}" if len(trees) == 2 else ""
        print(f"{name:<22} {weights.get(name, sum(weights.values())):>6} {cells}{ratio}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == [CHILD]:
        sys.path.insert(0, os.getcwd())
        mode = args[1]
        if mode == "prepare":
            child_prepare()
        elif mode == "measure":
            child_measure(int(args[2]), *args[3:])
        else:
            child_dump(Path(args[2]))
    else:
        main(args)
