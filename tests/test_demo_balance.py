"""Issue 19.3: the demo parties are balanced so that the lab shows something.

.venv/bin/python -m tests.test_demo_balance [battles]   # print the table
"""

import pytest

pytestmark = pytest.mark.slow


def test_at_least_half_of_the_ordered_demo_pairings_are_close_with_greedy_on_both_sides():
    from battles.demo import CLOSE, DEMO_PARTIES, balance_table, demo_balance

    rows = demo_balance(300)
    print(balance_table(rows))
    assert len(rows) == 12
    close = [r for r in rows if r["close"]]
    assert len(close) >= len(rows) / 2, balance_table(rows)
    # Every party is in a close pairing, on side A and on side B.
    assert {r["a"] for r in close} == {r["b"] for r in close} == set(DEMO_PARTIES)
    # And the intervals say it is not luck: a close pairing's interval overlaps 30-70%.
    assert all(r["low"] <= CLOSE[1] and r["high"] >= CLOSE[0] for r in close)


def test_the_demo_keeps_its_variety_of_types_and_roles():
    import json

    from cards.demo import DEMO_FILE

    data = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
    used = {m["type"] for m in data["memeyori"] + data["archons"]}
    assert len(used) >= 9  # every Type but at most one has a demo character
    parties = {p["name"]: p for p in data["parties"]}
    # With an Archon and without; three Memeyori and five; Level 3 to 6.
    assert {p["archon"] is None for p in parties.values()} == {True, False}
    assert {len(p["memeyori"]) for p in parties.values()} >= {3, 5}
    assert len({p["level"] for p in parties.values()}) >= 3
    categories = {c["category"] for m in data["memeyori"] for c in m["cards"]}
    assert categories == {"physical", "magic", "support"}


@pytest.mark.django_db
def test_seed_demos_public_battles_include_a_close_one(django_user_model):
    from django.core.management import call_command

    from battles.engine.summary import summarize
    from battles.models import Battle

    call_command("seed_demo", stdout=None)
    battles = list(Battle.objects.filter(visibility="public"))
    assert len(battles) == 2
    kept = sorted(summarize(b.log)["hp_left"][b.winner] for b in battles if b.winner is not None)
    # The close one: its winner ends with at most a quarter of its Memeyori's HP.
    assert kept[0] <= 0.25, kept


if __name__ == "__main__":
    import os
    import sys

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    django.setup()
    from battles.demo import balance_table, demo_balance

    print(balance_table(demo_balance(int(sys.argv[1]) if len(sys.argv) > 1 else 300)))
