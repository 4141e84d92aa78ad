"""Fair shares (issue 18.3-18.5): what one visitor or one person can make the site store."""

import random
import string
from urllib.parse import urlencode

import pytest
from django.contrib.sessions.models import Session

from cards import workers
from cards.views.builder import DRAFT_KEY

from .test_first_hour import draft


def session_bytes() -> int:
    return sum(len(s.session_data) for s in Session.objects.all())


def test_a_crafted_draft_stores_only_the_builders_fields(client, types):
    rng = random.Random(3)
    names = ["".join(rng.choices(string.ascii_letters, k=210_000)) for _ in range(5)]
    flood = {**draft(types), **dict.fromkeys(names, "x"), "flavour": "y" * 50_000}
    response = client.post(
        "/build/memeyori/",
        urlencode({**flood, "save": "login"}),
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 302
    stored = client.session[DRAFT_KEY]["data"]
    assert set(stored) <= set(draft(types)) | {"flavour"}
    assert stored["name"] == "Draftling" and len(stored["flavour"]) == 2000
    assert session_bytes() < 4000
    # A visitor's draft lives a day, not the two weeks of a signed-in session.
    assert client.session.get_expiry_age() == 24 * 3600


def test_a_draft_too_big_to_be_typed_is_not_kept(client, types):
    many = {**draft(types), "flavour": "y" * 2000, "name": "n" * 60}
    many.update({f"vs_{n}": "z" * 2000 for n in ("evasion", "defense", "resistance", "type")})
    client.post("/build/memeyori/", {**many, "save": "login"})
    assert DRAFT_KEY not in client.session


def test_drafts_are_rate_limited_per_address(client, types, settings):
    settings.RATELIMIT_ENABLE = True
    answers = [
        client.post("/build/memeyori/", {**draft(types), "save": "login"}).status_code
        for _ in range(31)
    ]
    assert answers[:30] == [302] * 30 and answers[30] == 429


def test_the_worker_clears_expired_sessions_once_an_hour(client, types, db):
    from django.core.cache import cache
    from django.utils import timezone

    cache.delete("cards:clear_sessions")
    client.post("/build/memeyori/", {**draft(types), "save": "login"})
    Session.objects.update(expire_date=timezone.now() - timezone.timedelta(seconds=1))
    assert workers.clear_sessions_now_and_then()
    assert not Session.objects.exists()
    assert not workers.clear_sessions_now_and_then()  # the next hour's turn


@pytest.fixture(autouse=True)
def _fresh_limits(db):
    from django.core.cache import cache

    cache.clear()
