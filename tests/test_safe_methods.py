"""GET, HEAD and OPTIONS never change anything (issue 18.1).

HEAD is not checked for CSRF, and a link, a prefetching browser or a crawler sends GETs
nobody meant; so for every URL pattern the site has, the owner's GET, HEAD and OPTIONS
leave every table's rows as they were: the same count, the same contents.
"""

import uuid
from datetime import timedelta

from django.apps import apps
from django.core import serializers
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from cards.printing.store import Render

from .test_access_matrix import RULES, urls_for, world  # noqa: F401  (the fixture)

# A render is the print store's cache of a PDF or PNG, keyed by what it draws (issue 18.2
# bounds how many are in flight). The URLs that ask for a file by GET may fill that cache
# (a render and its task row; retiring the asker's own dead render to make room), as a
# cache may: nothing anyone owns or sees changes. Every other URL, the render's own page
# among them, changes no row at all, caches included.
# A print also keeps what each card said (PrintedNumbers, issue 34), once per version.
CACHES = {Render._meta.label, "django_tasks_db.DBTaskResult", "cards.PrintedNumbers"}
FILLS_CACHE = {
    "print_page", "print_sheet", "print_mastercard", "print_share_png", "table_print",
    "battle_og", "battle_shared_og",
}  # fmt: skip


def every_pattern():
    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                if p.app_name != "admin":
                    yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield p, prefix + str(p.pattern)

    return list(walk(get_resolver().url_patterns))


def urls_of(pattern, route: str, world) -> list[str]:  # noqa: F811
    name = pattern.name
    if name in RULES:
        return urls_for(name, world)
    converters = pattern.pattern.converters
    if not name:
        return ["/" + route]
    if name == "password_reset_confirm":
        return [reverse(name, kwargs={"uidb64": "MQ", "token": "set-password"})]
    values = {
        "kind": "memeyori",
        "slug": world["memeyori"].type.slug,
        "seed": str(uuid.uuid4()),
        "category": "magic",
        "digest": "0123456789abcdef",
        "style": "plain",
        "table_code": str(world["table"].code),
    }
    return [reverse(name, kwargs={k: values[k] for k in converters})]


def snapshot() -> dict[str, dict]:
    """Every model's rows, serialized, by model and primary key."""
    return {
        model._meta.label: {
            row.pk: serializers.serialize("json", [row])
            for row in model._base_manager.order_by("pk")
        }
        for model in apps.get_models()
        if model._meta.managed
    }


def changed_tables(before: dict, after: dict, *, fills_cache: bool) -> list[str]:
    return sorted(
        label
        for label in before
        if before[label] != after[label] and not (fills_cache and label in CACHES)
    )


def test_get_head_and_options_change_no_row_for_the_owner(client, alice, world):  # noqa: F811
    client.force_login(alice)
    # A render whose worker died long ago: its page says so, and changes nothing.
    Render.objects.filter(pk=world["render"].pk).update(
        status=Render.Status.RENDERING, started_at=timezone.now() - timedelta(hours=1)
    )
    changed = []
    for pattern, route in every_pattern():
        for url in urls_of(pattern, route, world):
            for method in ("get", "head", "options"):
                # Each request sees the whole world: a change is rolled back after it
                # is seen, so a delete by HEAD cannot hide the next URL's own change.
                with transaction.atomic():
                    before = snapshot()
                    getattr(client, method)(url)
                    after = snapshot()
                    transaction.set_rollback(True)
                moved = changed_tables(before, after, fills_cache=pattern.name in FILLS_CACHE)
                if moved:
                    changed.append((method.upper(), url, moved))
    assert not changed, "\n".join(f"{m} {u}: {', '.join(t)}" for m, u, t in changed)
