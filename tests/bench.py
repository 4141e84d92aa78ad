"""`make bench`: speed figures, printed as times and as ratios measured in the same run.

Run with `make bench`; nothing here is asserted, and no test imports it.
"""

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object], *, repeat: int = 5, number: int = 1) -> float:
    """Median seconds for one call of fn over `repeat` batches of `number` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def bench_odds() -> None:
    from battles.engine import odds

    def cold():
        odds.attack_odds.cache_clear()
        odds._attack_faces.cache_clear()
        odds._explosive_tail.cache_clear()
        odds.attack_odds(20, 20, 20)

    cold_s = timed(cold, repeat=7)
    odds.attack_odds(20, 20, 20)
    warm_s = timed(lambda: odds.attack_odds(20, 20, 20), repeat=7, number=10_000)
    print(
        f"odds: attack_odds(20, 20, 20) cold {cold_s * 1e3:.2f} ms, repeated {warm_s * 1e6:.2f} us"
    )
    print(f"odds: a cold call costs {cold_s / warm_s:,.0f} repeated calls")


BENCHES = [bench_odds]


def all_benches():
    """This module's benches, then each `tests/bench_<area>.py` module's BENCHES list."""
    import importlib
    import pkgutil

    import tests

    benches = list(BENCHES)
    for info in sorted(pkgutil.iter_modules(tests.__path__), key=lambda i: i.name):
        if info.name.startswith("bench_"):
            benches += importlib.import_module(f"tests.{info.name}").BENCHES
    return benches


def main() -> None:
    import django
    from django.test.utils import setup_test_environment, teardown_test_environment

    django.setup()
    # Benches that need a database make a throwaway one; the test environment (fast
    # in-memory mail, template signals) is set up once for all of them.
    setup_test_environment()
    try:
        for bench in all_benches():
            bench()
    finally:
        teardown_test_environment()


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    main()
