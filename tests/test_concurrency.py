"""Many writers at once: nothing lost and no "database is locked", on SQLite and PostgreSQL."""

import threading

import pytest
from django.db import connection, transaction

from cards.models import Card, Memeyori, Party
from cards.services import party_set_memeyori

from .conftest import make_memeyori

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
