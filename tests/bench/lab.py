"""`make bench` figures for the matchup lab: a 10,000-battle lab run by real db_workers,
with one worker and with two, timed from the moment it is enqueued until its last chunk is
counted (workers already up and idle, as on the site).

Each run builds its own database: PostgreSQL `memeyori_lab_bench` at 127.0.0.1:5432 when
it answers (LAB_BENCH_DATABASE_URL overrides), else a throwaway SQLite file. Run alone:
`.venv/bin/python -m tests.bench.lab`. Nothing is asserted; figures are printed with the
ratio measured in the same run (the machine may be shared, so the ratio is the figure).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench import sized

ROOT = Path(__file__).resolve().parents[2]
BATTLES = sized(10_000, 100)
PG_URL = "postgres://postgres@127.0.0.1:5432/memeyori_lab_bench"


def _pg(*statements: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True,
                         connect_timeout=2) as conn:  # fmt: skip
        for sql in statements:
            conn.execute(sql)


def _database_url(tmp: str) -> str:
    if os.environ.get("LAB_BENCH_DATABASE_URL"):
        return os.environ["LAB_BENCH_DATABASE_URL"]
    try:
        _pg("DROP DATABASE IF EXISTS memeyori_lab_bench", "CREATE DATABASE memeyori_lab_bench")
        return PG_URL
    except Exception:
        return f"sqlite:///{tmp}/lab-bench.sqlite3"


def _env(db_url: str) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memeyori_site.settings",
        "DATABASE_URL": db_url,
        "DATABASE_CONN_MAX_AGE": "600",
        "DJANGO_TASKS_IMMEDIATE": "0",
        "DJANGO_LOG_LEVEL": "ERROR",
    }


def drive(workers: int) -> dict:
    """In a process of its own (the bench's database): start the workers, wait until they
    are idle, create the lab, and time it until Lab.done reaches its total."""
    import django

    django.setup()
    from battles.lab import services
    from battles.models import Lab
    from cards.models import Party

    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "db_worker",
                "--no-reload",
                "--no-startup-delay",
                "--worker-id",
                f"lab-bench-{workers}-{n}",
            ],
            cwd=ROOT,
            env=os.environ.copy(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for n in range(workers)
    ]
    try:
        time.sleep(3)  # the workers import Django and start polling
        a = Party.objects.get(name="Sunrise Squad")
        b = Party.objects.get(name="Night Shift")
        start = time.perf_counter()
        lab = services.lab_create(
            owner=a.owner, party_a=a, party_b=b, battles=BATTLES, seed=workers
        )
        seen = []
        while True:
            row = Lab.objects.values("done", "total", "status").get(pk=lab.pk)
            seen.append(row["done"])
            if row["status"] in ("done", "failed"):
                break
            if time.perf_counter() - start > 300:
                break
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        from collections import Counter

        from django_tasks_db.models import DBTaskResult

        split = Counter(
            w for ids in DBTaskResult.objects.filter(
                worker_ids__isnull=False, task_path__endswith="run_lab_chunk"
            ).values_list("worker_ids", flat=True) for w in ids
            if w.startswith(f"lab-bench-{workers}-")
        )  # fmt: skip
        return {
            "chunks_per_worker": sorted(split.values(), reverse=True),
            "workers": workers,
            "seconds": elapsed,
            "status": row["status"],
            "battles": row["total"],
            "progress_steps": len(set(seen)),
        }
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


def _with_cpu(result: dict) -> dict:
    """Add the CPU seconds the (now ended) workers used, start-up and idle polling
    included: on a shared machine wall time says little, CPU time says what was done."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {**result, "worker_cpu": usage.ru_utime + usage.ru_stime}


def _engine_chunk(n: int) -> float:
    import django

    django.setup()
    from battles.lab.runner import run_range
    from battles.snapshot import demo_snapshot

    snap = demo_snapshot("Sunrise Squad", "Night Shift")
    start = time.perf_counter()
    run_range(snap, lab_seed=1, start=0, end=n, policies=("greedy", "greedy"))
    return time.perf_counter() - start


def _ceiling(n: int = sized(1000, 20)) -> tuple[float, float]:
    """The machine's own ceiling right now: battles/s of one bare process (no database, no
    tasks), and how much more two such processes side by side get through than one."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_engine_chunk, [20, 20]))  # both processes warm
        start = time.perf_counter()
        one = pool.submit(_engine_chunk, n).result()
        alone = time.perf_counter() - start
        start = time.perf_counter()
        list(pool.map(_engine_chunk, [n, n]))
        both = time.perf_counter() - start
    return n / one, 2 * alone / both


def bench_lab() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    with tempfile.TemporaryDirectory(prefix="memeyori-lab-bench-") as tmp:
        db_url = _database_url(tmp)
        env = _env(db_url)
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        subprocess.run([*manage, "seed_demo"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        results = {}
        for workers in (1, 2):
            out = subprocess.run(
                [sys.executable, "-m", "tests.bench.lab", "drive", str(workers)],
                cwd=ROOT, env=env, check=True, capture_output=True, text=True,
            )  # fmt: skip
            results[workers] = json.loads(out.stdout.strip().splitlines()[-1])
        vendor = "PostgreSQL" if db_url.startswith("postgres") else "SQLite"
        for workers, r in results.items():
            print(
                f"lab: {r['battles']:,} battles with {workers} db_worker(s) on {vendor}: "
                f"{r['seconds']:.1f} s ({r['battles'] / r['seconds']:,.0f} battles/s), "
                f"{r['status']}, progress seen at {r['progress_steps']} different counts, "
                f"chunks per worker {r['chunks_per_worker']}, "
                f"workers' CPU {r['worker_cpu']:.1f} s in all"
            )
        if db_url == PG_URL:
            _pg("DROP DATABASE IF EXISTS memeyori_lab_bench WITH (FORCE)")  # leave nothing
        speedup = results[1]["seconds"] / results[2]["seconds"]
        rate, scaling = _ceiling()
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"lab: 2 workers finish {speedup:.2f}x as fast as 1 (goal: at least 1.7x)")
        two = results[2]
        print(
            f"lab: on two free cores the 2-worker lab would take about "
            f"{two['worker_cpu'] / 2:.1f} s (its workers' CPU time over 2; goal: under 15 s)"
        )
        print(
            f"lab: the machine's ceiling in the same run: one bare process {rate:,.0f} "
            f"battles/s, two side by side {scaling:.2f}x one (load average {load}); "
            f"the lab's workers reach {speedup / scaling:.0%} of that scaling"
        )


BENCHES = [bench_lab]

if __name__ == "__main__":
    if sys.argv[1:2] == ["drive"]:
        print(json.dumps(_with_cpu(drive(int(sys.argv[2])))))
    else:
        bench_lab()
