"""Many writers at once: nothing lost and no "database is locked", on SQLite and PostgreSQL."""

import threading

import pytest
from django.db import connection, transaction

from battles.models import Battle
from battles.services import battle_run
from cards.models import Card, Memeyori, Party
from cards.services import party_set_memeyori
from cards.tables.services import table_create

from .conftest import make_memeyori, make_party

THREADS = 16
WRITES_PER_THREAD = 5


def run_threads(work) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def worker(n: int):
        try:
            start.wait()
            work(n)
        except BaseException as exc:  # noqa: BLE001 - every failure is reported
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return errors


@pytest.mark.django_db(transaction=True)
def test_sixteen_threads_write_characters_and_parties_at_once(alice, types):
    blaze = types["Blaze"]

    def work(n: int):
        for i in range(WRITES_PER_THREAD):
            with transaction.atomic():
                m = make_memeyori(alice, blaze, name=f"T{n}-{i}")
                Card.objects.create(
                    memeyori=m, type=blaze, name="Nip", category="physical", power=4
                )
            party = Party.objects.create(owner=alice, name=f"P{n}-{i}")
            party_set_memeyori(party=party, memeyori=[m])

    errors = run_threads(work)
    assert errors == []
    total = THREADS * WRITES_PER_THREAD
    assert Memeyori.objects.count() == total
    assert Card.objects.count() == total
    assert Party.objects.filter(slots__isnull=False).distinct().count() == total


@pytest.mark.django_db(transaction=True)
def test_sixteen_threads_run_and_save_battles_at_once(alice, types):
    # Growth is the GM's call at a table (a table of one here), between two parties.
    table = table_create(gm=alice, name="Sparring table")
    party, rival = make_party(alice, name="Sparring"), make_party(alice, name="Rivals")
    team = [make_memeyori(alice, types["Blaze"], name=f"S{i}") for i in range(4)]
    for m in team:
        Card.objects.create(memeyori=m, type=types["Blaze"], name="Nip", category="physical")
    party_set_memeyori(party=party, memeyori=team[:2])
    party_set_memeyori(party=rival, memeyori=team[2:])

    def work(n: int):
        for i in range(2):
            battle_run(owner=alice, party_a=party, party_b=rival, seed=n * 10 + i,
                       counts_for_growth=True, table=table)  # fmt: skip

    errors = run_threads(work)
    assert errors == []
    battles = Battle.objects.all()
    assert battles.count() == THREADS * 2
    # Every battle's growth was applied in its own transaction; none was lost.
    grown = sum(len(b.growth_applied or []) for b in battles)
    ranks = sum(m.rank - 1 for m in Memeyori.objects.filter(pk__in=[m.pk for m in team]))
    assert ranks == grown
