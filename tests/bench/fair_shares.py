"""Fair shares (issue 18.3, 18.4, 18.5): what one person (or one anonymous visitor) can
make the site store, and what their imports cost everyone else, on `make serve`.

It runs the tree's own `make serve` (this checkout, or `--tree DIR`) on 127.0.0.1 at
BENCH_FAIR_PORT (8163) with a throwaway SQLite database and media folder, and then:
1. draft flood (18.3): two anonymous clients each post FLOOD builder drafts (38 fields named
   with 210,000 characters each, "save" so the draft is stashed for after log-in), each
   from a fresh session; prints the bytes the session table holds before and after;
2. duplicate flood (18.5): two clients of one person post DUPLICATES duplicates each of a
   Memeyori whose portrait is a 6 MB photo; prints the bytes the media folder gained;
3. imports (18.4): "reader" opens /my/ alone (median of READS), then four other people
   each confirm one maximum import at once (100 characters x 40 cards, 20 parties, about
   750 KB) while reader keeps opening /my/; prints reader's latencies (median and worst)
   and their ratio to alone, and how each import answered and how long it took.

Before and after, on one machine in one sitting:
    git archive <commit> | tar -x -C /tmp/before
    .venv/bin/python -m tests.bench.fair_shares --tree /tmp/before
    .venv/bin/python -m tests.bench.fair_shares
"""

import argparse
import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.bench import queues, sized
from tests.bench.queues import Client

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("BENCH_FAIR_PORT", "8163"))
FLOOD = int(sized(10, 2))
DUPLICATES = int(sized(30, 3))
READS = int(sized(10, 2))
CHARACTERS = int(sized(100, 10))
# 40 cards each was the largest file before issue 18.4; one import now takes 1,000 cards
# in all, so BENCH_FAIR_CARDS=10 is the largest file it takes.
CARDS = int(os.environ.get("BENCH_FAIR_CARDS", sized(40, 4)))
PARTIES = int(sized(20, 2))

SETUP = """
import io, json, os, random, secrets
from PIL import Image
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from cards.models import Memeyori, Type
User = get_user_model()
for name in ("flooder", "reader", "importer1", "importer2", "importer3", "importer4"):
    User.objects.create_user(name, password=os.environ["BENCH_PASSWORD"])
blaze = Type.objects.get(name="Blaze")
reader = User.objects.get(username="reader")
for n in range(20):
    Memeyori.objects.create(owner=reader, type=blaze, name=f"Reader pup {n}", rank=1)
# A 6 MB photo: noise does not compress, so the JPEG keeps its size.
rng = random.Random(1)
def noise(w, h, quality):
    image = Image.frombytes("RGB", (w, h), rng.randbytes(w * h * 3))
    out = io.BytesIO(); image.save(out, "JPEG", quality=quality); return out.getvalue()
stem = secrets.token_hex(6)
pup = Memeyori.objects.create(owner=User.objects.get(username="flooder"), type=blaze,
                              name="Photo pup", rank=1)
pup.portrait = default_storage.save(f"portraits/{stem}.jpg", ContentFile(noise(2400, 1600, 90)))
pup.portrait_print = default_storage.save(f"portraits/print/{stem}.jpg",
                                          ContentFile(noise(260, 330, 90)))
pup.portrait_thumb = default_storage.save(f"portraits/thumbs/{stem}.jpg",
                                          ContentFile(noise(120, 150, 85)))
pup.save()
print(json.dumps({"pup": str(pup.code), "bytes": pup.portrait.size}))
"""
SESSION_BYTES = (
    "from django.contrib.sessions.models import Session; "
    "print(sum(len(s.session_data) for s in Session.objects.all()))"
)
COPIES = "from cards.models import Memeyori; print(Memeyori.objects.filter(owner__username='flooder').count())"  # noqa: E501


def max_import() -> str:
    """The largest file the importer takes: characters with their cards, and parties."""
    card = {
        "name": "Cinder Nip", "type": "Blaze", "category": "physical", "power": 4,
        "mp_cost": 1, "quick": False, "unlock_rank": 1, "text": "A quick bite of ember.",
        "tier2_power": None, "tier2_text": "", "tier3_power": None, "tier3_text": "",
    }  # fmt: skip

    def character(ref, n, archon=False):
        row = {
            "ref": ref, "name": f"Import {ref} {n}", "type": "Blaze", "strength": 5,
            "endurance": 5, "iq": 3, "wit": 2, "speed": 4, "aura": 2,
            "flavour": "Made by the fair-shares bench.", "visibility": "private",
            "portrait_focus_x": 0.5, "portrait_focus_y": 0.5,
            "cards": [{**card, "name": f"Nip {i}"} for i in range(CARDS)],
        }  # fmt: skip
        if not archon:
            row["rank"] = 1
        return row

    archons = PARTIES
    memeyori = [character(f"m{n}", n) for n in range(CHARACTERS - archons)]
    data = {
        "format": "memeyori-export/1",
        "memeyori": memeyori,
        "archons": [character(f"a{n}", n, archon=True) for n in range(archons)],
        "parties": [
            {"name": f"Party {n}", "level": 1, "dp_sp": 0, "dp_mp": 0, "dp_draw": 0,
             "visibility": "private", "archon": f"a{n}", "memeyori": [f"m{n}"]}
            for n in range(PARTIES)
        ],
    }  # fmt: skip
    return json.dumps(data)


def media_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def draft_flood() -> list[int]:
    statuses = []
    # Random names: the session is stored compressed, and a repeated letter compresses away.
    rng = random.Random(18)
    letters = string.ascii_letters + string.digits
    fields = {"".join(rng.choices(letters, k=210_000)): "x" for _ in range(38)}
    fields.update(name="Flood", save="login")

    def client():
        for _ in range(FLOOD):
            visitor = Client()
            visitor.request("GET", "/build/memeyori/")
            status, _, _ = visitor.request("POST", "/build/memeyori/", fields)
            statuses.append(status)

    threads = [threading.Thread(target=client) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def duplicate_flood(pup: str) -> list[int]:
    statuses = []

    def client():
        person = Client()
        person.login("flooder")
        for _ in range(DUPLICATES):
            status, _, _ = person.request("POST", f"/c/memeyori/{pup}/duplicate/")
            statuses.append(status)

    threads = [threading.Thread(target=client) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def read_time(reader: Client) -> float:
    start = time.perf_counter()
    status, _, _ = reader.request("GET", "/my/")
    if status != 200:
        raise SystemExit(f"fair_shares bench: /my/ answered {status}")
    return time.perf_counter() - start


def imports(reader: Client) -> dict:
    payload = max_import()
    alone = [read_time(reader) for _ in range(READS)]
    importers = []
    for n in range(4):
        person = Client()
        person.login(f"importer{n + 1}")
        importers.append(person)
    answers = [None] * 4
    go = threading.Event()

    def confirm(n):
        go.wait()
        start = time.perf_counter()
        try:
            status, _, _ = importers[n].request("POST", "/import/confirm/", {"payload": payload})
        except OSError:  # the bench's client gives up after 60 s
            status = "no answer"
        answers[n] = (status, time.perf_counter() - start)

    threads = [threading.Thread(target=confirm, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    go.set()
    under = []
    while any(t.is_alive() for t in threads) or not under:
        under.append(read_time(reader))
        time.sleep(0.1)
    for t in threads:
        t.join()
    return {"alone": alone, "under": under, "answers": answers, "size": len(payload)}


def run(tree: Path) -> dict:
    queues.PORT = PORT
    tmp = Path(tempfile.mkdtemp(prefix="fair-bench-"))
    venv = ROOT / ".venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(
        DATABASE_URL=f"sqlite:///{tmp}/bench.sqlite3", DJANGO_MEDIA_ROOT=str(tmp / "media"),
        DJANGO_STATIC_ROOT=str(tmp / "static"), DJANGO_SETTINGS_MODULE="memeyori_site.settings",
        BENCH_PASSWORD=queues.PASSWORD,
    )  # fmt: skip
    log = (tmp / "serve.log").open("w")
    server = subprocess.Popen(
        ["make", "-C", str(tree), f"VENV={venv}", f"PYTHON={sys.executable}",
         "-o", f"{venv}/.installed", "serve", f"SERVE_PORT={PORT}"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip

    def manage(code: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code], cwd=tree,
            env={**env, "DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": queues.HOST,
                 "DJANGO_SECRET_KEY": "bench-" + "x" * 50},
            capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode:
            raise SystemExit(f"fair_shares bench: manage.py shell failed:\n{done.stderr}")
        return done.stdout.strip().splitlines()[-1]

    try:
        queues.wait_for_server(server)
        made = json.loads(manage(SETUP))
        result = {"photo": made["bytes"]}
        sessions_before = int(manage(SESSION_BYTES))
        result["drafts"] = draft_flood()
        result["sessions"] = (sessions_before, int(manage(SESSION_BYTES)))
        media_before = media_bytes(tmp / "media")
        result["duplicates"] = duplicate_flood(made["pup"])
        result["media"] = (media_before, media_bytes(tmp / "media"))
        result["copies"] = int(manage(COPIES)) - 1
        reader = Client()
        reader.login("reader")
        result["imports"] = imports(reader)
        return result
    finally:
        queues.stop(server)
        log.close()


def report(tree: Path, r: dict) -> None:
    label = "this checkout" if tree == ROOT else str(tree)
    mb = 1024 * 1024
    before, after = r["sessions"]
    codes = sorted(set(r["drafts"]))
    print(f"fair_shares ({label}): draft flood, {len(r['drafts'])} anonymous posts "
          f"(answers {codes}): sessions hold {before / mb:.2f} MB before, "
          f"{after / mb:.2f} MB after: {(after - before) / mb:.2f} MB stored, "
          f"{(after - before) / len(r['drafts']) / 1024:.1f} KB a post")  # fmt: skip
    before, after = r["media"]
    answers = {c: r["duplicates"].count(c) for c in sorted(set(r["duplicates"]))}
    print(f"fair_shares ({label}): duplicate flood, {len(r['duplicates'])} posts "
          f"(answers {answers}) of a Memeyori with a {r['photo'] / mb:.1f} MB photo: "
          f"{r['copies']} copies, media grew {(after - before) / mb:.2f} MB")  # fmt: skip
    imp = r["imports"]
    alone = statistics.median(imp["alone"])
    under = statistics.median(imp["under"])
    worst = max(imp["under"])
    print(f"fair_shares ({label}): reader's /my/ alone: median {alone * 1000:.0f} ms")
    print(f"fair_shares ({label}): under four {imp['size'] / 1024:.0f} KB imports "
          f"({len(imp['under'])} reads): median {under * 1000:.0f} ms ({under / alone:.1f}x), "
          f"worst {worst * 1000:.0f} ms ({worst / alone:.1f}x alone)")  # fmt: skip
    answers = ", ".join(f"{s} in {t:.1f} s" for s, t in imp["answers"])
    print(f"fair_shares ({label}): the four imports answered: {answers}")


def bench() -> None:
    report(ROOT, run(ROOT))


BENCHES = [bench]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="a checkout to serve")
    tree = parser.parse_args().tree.resolve()
    report(tree, run(tree))
