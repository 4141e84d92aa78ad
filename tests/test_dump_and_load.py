"""`manage.py dumpdata` then `loaddata` into an empty database gives the same site."""

import json
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from cards.demo import seed_demo
from cards.models import Memeyori

from .conftest import without_per_request_tokens

EXCLUDE = ["contenttypes", "auth.permission", "sessions", "admin.logentry"]

# Django's serializer writes a time to the millisecond, and drops the fraction when
# it is zero: a time saved 0.0004 s past a second dumps as "...:13.000Z" and, loaded
# back, as "...:13Z". The same instant, so both are written one way before comparing.
ZERO_MILLISECONDS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.000(?=Z$|[+-]\d\d:\d\d$|$)")


def same_instants_written_alike(value):
    if isinstance(value, dict):
        return {key: same_instants_written_alike(item) for key, item in value.items()}
    if isinstance(value, list):
        return [same_instants_written_alike(item) for item in value]
    if isinstance(value, str):
        return ZERO_MILLISECONDS.sub(r"\1", value)
    return value


def dump(path) -> list[dict]:
    call_command(
        "dumpdata", natural_foreign=True, exclude=EXCLUDE, indent=1, output=str(path),
        verbosity=0,
    )  # fmt: skip
    return same_instants_written_alike(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.django_db(transaction=True)
def test_dump_then_load_into_an_empty_database_gives_the_same_site(tmp_path, client):
    seed_demo()
    # One time just past a whole second, so the millisecond rounding is always met.
    demo = User.objects.get(username="demo")
    User.objects.filter(pk=demo.pk).update(date_joined=demo.date_joined.replace(microsecond=400))
    before = dump(tmp_path / "before.json")
    page_before = client.get(Memeyori.objects.get(name="Glimmerfox").get_absolute_url())

    call_command("flush", interactive=False, verbosity=0)
    assert not Memeyori.objects.exists()
    call_command("loaddata", str(tmp_path / "before.json"), verbosity=0)

    assert dump(tmp_path / "after.json") == before
    page_after = client.get(Memeyori.objects.get(name="Glimmerfox").get_absolute_url())
    assert page_after.status_code == page_before.status_code == 200
    assert without_per_request_tokens(page_after) == without_per_request_tokens(page_before)
