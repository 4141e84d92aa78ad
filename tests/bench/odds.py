"""`make bench` figures for the exact odds (battles.engine.odds): a cold call and a repeat."""

from tests.bench import timed


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
