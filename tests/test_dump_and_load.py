"""`manage.py dumpdata` then `loaddata` into an empty database gives the same site."""

import json

import pytest
from django.core.management import call_command

from cards.demo import seed_demo
from cards.models import Memeyori

from .conftest import without_per_request_tokens

EXCLUDE = ["contenttypes", "auth.permission", "sessions", "admin.logentry"]


def dump(path) -> list[dict]:
    call_command(
        "dumpdata", natural_foreign=True, exclude=EXCLUDE, indent=1, output=str(path),
        verbosity=0,
    )  # fmt: skip
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.django_db(transaction=True)
def test_dump_then_load_into_an_empty_database_gives_the_same_site(tmp_path, client):
    seed_demo()
    before = dump(tmp_path / "before.json")
    page_before = client.get(Memeyori.objects.get(name="Glimmerfox").get_absolute_url())

    call_command("flush", interactive=False, verbosity=0)
    assert not Memeyori.objects.exists()
    call_command("loaddata", str(tmp_path / "before.json"), verbosity=0)

    assert dump(tmp_path / "after.json") == before
    page_after = client.get(Memeyori.objects.get(name="Glimmerfox").get_absolute_url())
    assert page_after.status_code == page_before.status_code == 200
    assert without_per_request_tokens(page_after) == without_per_request_tokens(page_before)
