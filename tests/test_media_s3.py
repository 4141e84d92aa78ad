"""Media in an S3-compatible object store (django-storages), against a real S3 server on
loopback (moto's server mode) and a real db_worker process: upload, processing, serving
with visibility (by the site, and by signed URLs), duplicate, delete and the orphan sweep.
Nothing touches a local media folder."""

import urllib.request

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from cards.models import Memeyori

from . import servers
from .conftest import make_memeyori, stored_files
from .test_portraits import image_bytes

pytestmark = pytest.mark.django_db(transaction=True)

FILES = ("portrait", "portrait_print", "portrait_thumb")


@pytest.fixture
def s3(settings, tmp_path):
    with servers.s3_server() as env:
        settings.STORAGES = servers.s3_storages(env, settings)
        yield env


def names(character) -> set[str]:
    character.refresh_from_db()
    return {getattr(character, f).name for f in FILES if getattr(character, f)}


def test_portraits_live_in_the_object_store_from_upload_to_sweep(
    s3, settings, tmp_path, client, alice, types, queued_tasks
):
    pup = make_memeyori(alice, types["Blaze"], name="Pup")
    client.force_login(alice)
    page = reverse("print_portrait", kwargs={"kind": "memeyori", "code": pup.code})
    upload = SimpleUploadedFile("p.png", image_bytes((300, 400), fmt="PNG"), "image/png")
    assert (
        client.post(page, {"portrait": upload, "focus_x": 0.5, "focus_y": 0.5}).status_code == 302
    )
    pup.refresh_from_db()
    assert pup.portrait_pending.startswith("portraits/incoming/")
    # Kept in the database, not yet in the bucket: the worker stores it (issue 39.5).
    assert not default_storage.exists(pup.portrait_pending)

    worker_media = tmp_path / "worker-media"
    worker = servers.task_worker(servers.site_env(**s3, DJANGO_MEDIA_ROOT=str(worker_media)))
    try:
        servers.until(lambda: len(names(pup)) == 3 and not pup.portrait_pending)
    finally:
        servers.stop(worker)
    stored = names(pup)
    assert all(default_storage.exists(n) for n in stored)

    # Served by the site, with the character's visibility: a private portrait is a 404.
    thumb = pup.portrait_url("thumb")
    mine = client.get(thumb)
    assert mine.status_code == 200 and b"".join(mine.streaming_content)[:2] == b"\xff\xd8"
    assert Client().get(thumb).status_code == 404
    # Or by a signed URL of the store that expires, after the same check.
    settings.MEDIA_SERVE = "signed"
    signed = client.get(thumb)
    assert signed.status_code == 302 and "X-Amz-Signature=" in signed.url
    assert "X-Amz-Expires=300" in signed.url
    with urllib.request.urlopen(signed.url, timeout=10) as answer:
        assert answer.read()[:2] == b"\xff\xd8"
    assert Client().get(thumb).status_code == 404
    settings.MEDIA_SERVE = "site"

    # A duplicate shares the files (issue 18.5); deleting it leaves them to the original.
    kind = {"kind": "memeyori", "code": pup.code}
    assert client.post(reverse("character_duplicate", kwargs=kind)).status_code == 302
    copy = Memeyori.objects.exclude(pk=pup.pk).get()
    assert names(copy) == stored
    gone = {"kind": "memeyori", "code": copy.code}
    assert client.post(reverse("character_delete", kwargs=gone)).status_code == 302
    assert all(default_storage.exists(n) for n in stored)

    # The sweep removes files nobody names (older than --older-than) and nothing else.
    orphan = default_storage.save("portraits/print/orphan.jpg", ContentFile(b"x"))
    call_command("sweep_media", "--older-than", "0", verbosity=0)
    assert not default_storage.exists(orphan)
    assert sorted(stored_files("portraits")) == sorted(stored)

    # And no process wrote to a local media folder.
    for folder in (settings.MEDIA_ROOT, worker_media):
        assert not folder.exists() or not any(p.is_file() for p in folder.rglob("*"))
