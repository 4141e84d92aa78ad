"""`make bench`: speed figures, printed as times and as ratios measured in the same run.

Each module here with a `BENCHES` list is one area's benches (`battles`, `builder`, `lab`,
...); `python -m tests.bench` runs them all, `python -m tests.bench battles lab` only those.
The load test (`load.py`, `make load`) and the battle audit (`audit_battles.py`) live here
too: none of these is a test, nothing here is asserted, and no test imports them.

`BENCH_QUICK=1` (`make bench-quick`, which CI runs) shrinks every bench to a few iterations,
so that a bench that crashes fails CI in under a minute; its figures mean nothing.
"""

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")


def sized(full: float, quick: float = 1) -> float:
    """An iteration count: `full` in a real run, `quick` under BENCH_QUICK."""
    return quick if QUICK else full


def timed(fn: Callable[[], object], *, repeat: int = 5, number: int = 1) -> float:
    """Median seconds for one call of fn over `repeat` batches of `number` calls."""
    if QUICK:
        repeat, number = 1, 1
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def all_benches(areas=()):
    """Each bench module's BENCHES list, by module name; `areas` picks some of them."""
    import importlib
    import pkgutil

    benches = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if areas and info.name not in areas:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        benches += getattr(module, "BENCHES", [])
    return benches


@contextmanager
def throwaway_database(filename: str):
    """A database for one bench, dropped after; yields its DATABASE_URL, for a server the
    bench starts in a child process. On PostgreSQL it is the test database settings name;
    on SQLite a file (not memory, so a child process sees the same rows) in RAM-backed
    /dev/shm when there is one, so the figures measure Django, not the disk."""
    from django.db import connection

    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    tmp = tempfile.TemporaryDirectory(prefix="memeyori-bench-", dir=shm)
    old_test_settings = dict(connection.settings_dict.get("TEST", {}))
    sqlite = connection.vendor == "sqlite"
    if sqlite:
        connection.settings_dict.setdefault("TEST", {})["NAME"] = str(Path(tmp.name) / filename)
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        s = connection.settings_dict
        if sqlite:
            yield f"sqlite:///{s['NAME']}"
        else:
            yield f"postgres://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        # The benches after this one make their own test database where settings say.
        connection.settings_dict["TEST"] = old_test_settings
        tmp.cleanup()
