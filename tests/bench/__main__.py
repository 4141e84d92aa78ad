"""`python -m tests.bench [area ...]`: every bench, or those of the named modules."""

import os
import sys
import time
from pathlib import Path


def main(areas) -> None:
    import django
    from django.test.utils import setup_test_environment, teardown_test_environment

    from tests.bench import QUICK, all_benches

    django.setup()
    _own_test_database()
    benches = all_benches(areas)
    if not benches:
        sys.exit(f"no benches in {', '.join(areas)}")
    if QUICK:
        print("bench: quick mode (BENCH_QUICK): a few iterations each; the figures mean nothing")
    # Benches that need a database make a throwaway one; the test environment (fast
    # in-memory mail, template signals) is set up once for all of them.
    setup_test_environment()
    try:
        for bench in benches:
            start = time.perf_counter()
            bench()
            if QUICK:
                print(f"bench: {bench.__module__}.{bench.__name__} ran in "
                      f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    finally:
        teardown_test_environment()


def _own_test_database() -> None:
    """The benches' throwaway database is not the suite's (settings: test-db.sqlite3, or
    test_<name> on PostgreSQL), so benches and tests can run side by side (.ci/run does):
    creating one clobbered the other's file under it."""
    from django.db import connection

    test = connection.settings_dict.setdefault("TEST", {})
    if connection.vendor == "sqlite":
        test["NAME"] = str(Path(__file__).resolve().parents[2] / "bench-db.sqlite3")
    else:
        test["NAME"] = f"bench_{connection.settings_dict['NAME']}"


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    main(sys.argv[1:])
