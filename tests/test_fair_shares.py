"""Fair shares (issue 18.3-18.5): what one visitor or one person can make the site store."""

import random
import string
from urllib.parse import urlencode

import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse

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


# ---- What one person may own: characters, cards, parties (18.4, 18.5) -------------------


def export_of(character) -> str:
    from cards import exchange

    return exchange.dumps(exchange.export_character(character))


def test_a_duplicate_shares_its_portrait_files_and_writes_no_bytes(
    client, alice, types, settings, media_storage, django_capture_on_commit_callbacks
):
    from cards.models import Memeyori

    from .conftest import make_memeyori, set_portrait
    from .test_portraits import image_bytes, media_files, upload

    pup = make_memeyori(alice, types["Blaze"])
    set_portrait(pup, upload=upload(image_bytes((600, 300), fmt="PNG")))
    files = media_files(settings)
    client.force_login(alice)
    for _ in range(5):
        url = reverse("character_duplicate", kwargs={"kind": "memeyori", "code": pup.code})
        with django_capture_on_commit_callbacks(execute=True):
            assert client.post(url).status_code == 302
    assert media_files(settings) == files
    names = set(Memeyori.objects.values_list("name", flat=True))
    assert names == {"Emberpup", "Emberpup (copy)", *(f"Emberpup (copy {n})" for n in (2, 3, 4, 5))}
    # Deleting a copy, or giving it a new crop, leaves the original's pictures alone.
    copy = Memeyori.objects.get(name="Emberpup (copy)")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("character_delete", kwargs={"kind": "memeyori", "code": copy.code}))
    page = reverse("print_portrait", kwargs={"kind": "memeyori", "code": pup.code})
    other = Memeyori.objects.get(name="Emberpup (copy 2)")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("print_portrait", kwargs={"kind": "memeyori", "code": other.code}),
            {"focus_x": "0.9", "focus_y": "0.5"},
        )
    assert set(files) <= set(media_files(settings))
    assert client.get(page).status_code == 200
    pup.refresh_from_db()
    for field in (pup.portrait, pup.portrait_print, pup.portrait_thumb):
        assert field.storage.exists(field.name)


def test_a_person_cannot_own_more_than_the_bounds_by_any_door(client, alice, types, settings):
    from cards.models import Card, Memeyori

    from .conftest import make_card, make_memeyori

    settings.PERSON_BOUNDS = {"characters": 3, "cards": 4, "parties": 1}
    pup = make_memeyori(alice, types["Blaze"])
    for n in range(3):
        make_card(pup, types["Blaze"], name=f"Nip {n}")
    client.force_login(alice)
    kwargs = {"kind": "memeyori", "code": pup.code}
    # Duplicate: 3 more cards would make 6.
    page = client.post(reverse("character_duplicate", kwargs=kwargs), follow=True)
    assert "You have 3 cards of the 4 one person may keep" in page.content.decode()
    # Import: a file of one Memeyori with three cards, refused on confirm as on preview.
    payload = export_of(pup)
    refused = client.post(reverse("import_confirm"), {"payload": payload})
    assert refused.status_code == 400
    assert "one person may keep" in refused.content.decode()
    # The builder: two more characters fit, the third is refused by the field.
    fields = {"name": "New", "type": types["Tide"].pk, "rank": 1, "visibility": "private"}
    fields.update(dict.fromkeys(("strength", "endurance", "iq", "wit", "speed", "aura"), 2))
    for _ in range(2):
        assert client.post("/build/memeyori/", {**fields, "save": "1"}).status_code == 302
    page = client.post("/build/memeyori/", {**fields, "save": "1"})
    assert page.status_code == 200
    assert "You have 3 characters of the 3 one person may keep" in page.content.decode()
    assert Memeyori.objects.filter(owner=alice).count() == 3
    assert Card.objects.count() == 3


def test_bounds_hold_when_requests_come_at_once(alice, types, settings, transactional_db):
    """Six duplicates at once from threads, two allowed: the lock on the person counts them
    one after the other (check-then-create would let them all through)."""
    import threading

    from django.db import connection

    from cards.models import Memeyori
    from cards.services import character_duplicate

    from .conftest import make_memeyori

    if connection.vendor == "sqlite":
        pytest.skip("SQLite's IMMEDIATE transactions serialise every writer anyway")
    settings.PERSON_BOUNDS = {"characters": 3, "cards": 100, "parties": 1}
    pup = make_memeyori(alice, types["Blaze"])
    go = threading.Barrier(6)

    def copy():
        go.wait()
        try:
            character_duplicate(character=pup, owner=alice)
        except Exception:
            pass
        finally:
            connection.close()

    threads = [threading.Thread(target=copy) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Memeyori.objects.filter(owner=alice).count() == 3


def test_import_names_like_duplicates_and_the_preview_says_so(client, alice, types):
    from cards.models import Memeyori

    from .conftest import make_memeyori

    fizzlet = make_memeyori(alice, types["Blaze"], name="Fizzlet")
    client.force_login(alice)
    payload = export_of(fizzlet)
    preview = client.post(reverse("import"), {"payload": payload}).content.decode()
    assert "Memeyori <strong>Fizzlet</strong> will be <strong>Fizzlet (copy)</strong>" in preview
    assert client.post(reverse("import_confirm"), {"payload": payload}).status_code == 302
    assert client.post(reverse("import_confirm"), {"payload": payload}).status_code == 302
    names = set(Memeyori.objects.values_list("name", flat=True))
    assert names == {"Fizzlet", "Fizzlet (copy)", "Fizzlet (copy 2)"}


def test_import_confirm_is_rate_limited_like_the_preview(client, alice, types, settings):
    from .conftest import make_memeyori

    settings.RATELIMIT_ENABLE = True
    client.force_login(alice)
    payload = export_of(make_memeyori(alice, types["Blaze"]))
    answers = [
        client.post(reverse("import_confirm"), {"payload": payload}).status_code for _ in range(21)
    ]
    assert answers[:20] == [302] * 20 and answers[20] == 429


def test_one_import_takes_at_most_a_thousand_cards(client, alice, types):
    import json

    from cards import exchange

    from .conftest import make_card, make_memeyori

    pup = make_memeyori(alice, types["Blaze"])
    for n in range(40):
        make_card(pup, types["Blaze"], name=f"Nip {n}")
    data = exchange.export_character(pup)
    row = data["memeyori"][0]
    data["memeyori"] = [{**row, "ref": f"m{n}"} for n in range(26)]
    client.force_login(alice)
    answer = client.post(reverse("import"), {"payload": json.dumps(data)}).content.decode()
    assert "The file holds 1,040 cards; one import takes at most 1,000." in answer
