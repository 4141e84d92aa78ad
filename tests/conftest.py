import json
import os
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from hypothesis import settings as hypothesis_settings

from cards.demo import DEMO_FILE, load_types
from cards.models import Archon, Card, Memeyori, Party, Type

# No per-example deadline: speed is measured in benchmarks, never asserted by a timer in a
# test, and a deadline only fails a correct example on a busy machine (CI shares its cores).
hypothesis_settings.register_profile("memeyori", deadline=None)
hypothesis_settings.load_profile("memeyori")


@pytest.fixture(autouse=True)
def _rate_windows_stand_still(monkeypatch):
    """django-ratelimit counts in fixed windows of the clock: a test's few requests that
    happened to straddle a window's end (a second or two on a busy machine) would start
    again at zero and miss their 429. In this process the windows stand still; each test
    starts with no counts (the cache is cleared), and other processes keep the real clock."""
    import types

    from django_ratelimit import core

    now = int(core.time.time())
    monkeypatch.setattr(core, "time", types.SimpleNamespace(time=lambda: now))


def uses_database(item) -> bool:
    """pytest-django's own rule: without the mark or one of these fixtures, a test that
    opens a connection fails."""
    return item.get_closest_marker("django_db") is not None or bool(
        {"db", "transactional_db", "live_server"} & set(item.fixturenames)
    )


def pytest_collection_modifyitems(config, items):
    # The PostgreSQL pass skips `engine` tests as the same code on either database; a test
    # marked so that uses the database would be skipped there wrongly.
    wrong = [i.nodeid for i in items if i.get_closest_marker("engine") and uses_database(i)]
    if wrong:
        raise pytest.UsageError(f"marked engine but uses the database: {', '.join(wrong)}")


@pytest.fixture(autouse=True)
def _isolated(request, settings, tmp_path, django_db_setup, django_db_blocker):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"
    # Rate-limit counts live in the cache (a table in the test database); each test starts
    # with none spent.
    with django_db_blocker.unblock():
        if uses_database(request.node):
            cache.clear()
        else:
            # A test without the database does not keep a connection to it open, nor
            # touch the cache: run alone, its file sets up no test database at all.
            connection.close()
    # Tasks run inside the request that enqueues them, unless a test asks for the queue
    # (the `queued_tasks` fixture) to see what a person sees while a worker is busy.
    settings.TASKS = {"default": settings.IMMEDIATE_TASKS}


def stored_files(folder: str = "") -> list[str]:
    """Every media file's name, through the storage API (whatever backend is in use)."""
    from django.core.files.storage import default_storage

    try:
        directories, files = default_storage.listdir(folder)
    except FileNotFoundError:  # a folder that was never written to
        return []
    names = [f"{folder}/{f}" if folder else f for f in files]
    for directory in directories:
        names += stored_files(f"{folder}/{directory}" if folder else directory)
    return sorted(names)


@pytest.fixture(params=["filesystem", "memory"])
def media_storage(request, settings):
    """Media tests run on a folder and on Django's InMemoryStorage, so that no code (and
    no test) reaches for a file's path: every read and write goes through storage."""
    backend = {
        "filesystem": "django.core.files.storage.FileSystemStorage",
        "memory": "django.core.files.storage.InMemoryStorage",
    }[request.param]
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": backend}}
    return request.param


@pytest.fixture
def queued_tasks(settings):
    """Tasks wait in the database, as on the site, for a db_worker to claim them."""
    settings.TASKS = {"default": settings.DATABASE_TASKS}


@pytest.fixture
def types(db) -> dict[str, Type]:
    """The default Types and type chart, as seed_demo loads them."""
    return load_types(json.loads(DEMO_FILE.read_text(encoding="utf-8")))


def make_user(username: str):
    return get_user_model().objects.create_user(username, password=f"{username}-pass-123!")


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


def make_memeyori(owner, type, **overrides) -> Memeyori:
    fields = dict(name="Emberpup", strength=5, endurance=5, iq=3, wit=2, speed=4, aura=2, rank=1)
    fields.update(overrides)
    return Memeyori.objects.create(owner=owner, type=type, **fields)


def make_archon(owner, type, **overrides) -> Archon:
    fields = dict(name="Vela", strength=3, endurance=5, iq=8, wit=7, speed=5, aura=9)
    fields.update(overrides)
    return Archon.objects.create(owner=owner, type=type, **fields)


def make_card(holder, type, **overrides) -> Card:
    fields = dict(name="Cinder Nip", category="physical", power=4, mp_cost=1, unlock_rank=1)
    fields.update(overrides)
    return Card.objects.create(**{holder.kind: holder}, type=type, **fields)


def make_party(owner, **overrides) -> Party:
    fields = dict(name="Sunrise Squad", level=1)
    fields.update(overrides)
    return Party.objects.create(owner=owner, **fields)


@pytest.fixture(scope="session")
def _browser():
    from playwright.sync_api import sync_playwright

    from .browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

    require_chromium()
    # Playwright's sync API runs an event loop in this thread; the tests still call the
    # ORM synchronously between browser steps, which is safe here.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(_browser):
    context = _browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def without_per_request_tokens(response) -> str:
    """The page's HTML with its CSP nonce and CSRF token blanked, to compare two pages."""
    return re.sub(r'(nonce="|"X-CSRFToken": "|value=")[^"]*"', r"\1", response.content.decode())


def set_portrait(character, **kwargs):
    """Store a portrait and run its processing task, as the commit would (the test's own
    transaction never commits, so the on_commit callbacks are run here)."""
    from django.test import TestCase

    from cards.printing.portrait_uploads import character_set_portrait

    with TestCase.captureOnCommitCallbacks(execute=True):
        character_set_portrait(character=character, **kwargs)
    character.refresh_from_db()


def seed_demo_with_login():
    """seed_demo as `make run` leaves it: with debug off (as in tests) the demo user gets no
    usable password (issue 11.10), so a test that logs in as demo sets the documented one."""
    from django.contrib.auth import get_user_model

    from cards.demo import DEMO_PASSWORD, DEMO_USERNAME, seed_demo

    seed_demo()
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    user.set_password(DEMO_PASSWORD)
    user.save(update_fields=["password"])
