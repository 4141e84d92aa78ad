"""What an upload costs and who may see it (issue 11.4, 11.5, 11.7)."""

import os
import time

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection, transaction
from django.urls import reverse
from PIL import ImageFile

from cards.models import Memeyori
from tests.conftest import make_memeyori
from tests.test_portraits import huge_png_header, image_bytes, media_files

# On a folder and on InMemoryStorage (tests/conftest.py), except the two sweep tests that
# age files on disk, which ask for the folder themselves.
pytestmark = pytest.mark.usefixtures("media_storage")
on_disk = pytest.mark.parametrize("media_storage", ["filesystem"], indirect=True)


def png_upload(size=(300, 200), name="me.png"):
    return SimpleUploadedFile(name, image_bytes(size, fmt="PNG"), content_type="image/png")


def builder_data(pup, **overrides):
    data = {"name": pup.name, "type": pup.type_id, "rank": 1, "strength": 5, "endurance": 5,
            "iq": 3, "wit": 2, "speed": 4, "aura": 2, "flavour": "",
            "visibility": "private"}  # fmt: skip
    data.update(overrides)
    return data


@pytest.fixture
def pup(alice, types):
    return make_memeyori(alice, types["Blaze"], name="Pup")


def edit_url(pup):
    return reverse("character_edit", kwargs={"kind": "memeyori", "code": pup.code})


def portrait_url(c, size="thumb"):
    return reverse("character_portrait", kwargs={"kind": c.kind, "code": c.code, "size": size})


# --- 11.4: decode once, outside any transaction -----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_an_upload_is_decoded_once_and_outside_any_transaction(
    client, alice, types, monkeypatch, settings, tmp_path
):
    pup = make_memeyori(alice, types["Blaze"], name="Pup")
    decodes = []
    real_load = ImageFile.ImageFile.load

    def load(image):
        # A real decode of the upload (tiles still to read), not a stored JPEG read back.
        if image.size == (300, 200) and image.tile:
            decodes.append(connection.in_atomic_block)
        return real_load(image)

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)
    client.force_login(alice)
    response = client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload()})
    assert response.status_code == 302
    assert decodes == [False]
    pup.refresh_from_db()
    assert pup.portrait_print and not pup.portrait_pending


def test_an_upload_is_written_to_the_store_by_a_worker_never_by_the_page(
    client, alice, pup, queued_tasks
):
    """Issue 39.5: a stalled store held each upload's page 6.4 s. The page keeps the bytes
    in the database and answers; the worker stores them, then processes them."""
    from django_tasks_db.models import DBTaskResult

    from cards.models import HeldUpload
    from tests.conftest import stored_files

    client.force_login(alice)
    before = stored_files()
    response = client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload()})
    assert response.status_code == 302
    assert stored_files() == before  # the page wrote nothing to the store
    pup.refresh_from_db()
    held = HeldUpload.objects.get()
    assert pup.portrait_pending == held.name and held.tries == 0
    for path in ("cards.tasks.store_held_upload", "cards.tasks.process_portrait"):
        row = DBTaskResult.objects.get(task_path=path, status="READY")
        assert row.task.call(*row.args_kwargs["args"]) == "stored"
        DBTaskResult.objects.filter(pk=row.pk).update(status="SUCCESSFUL")
    pup.refresh_from_db()
    assert not HeldUpload.objects.exists() and not pup.portrait_pending
    assert pup.portrait_thumb.name in stored_files()


def test_the_pixel_cap_is_what_a_card_portrait_needs(pup, client, alice):
    client.force_login(alice)
    big = SimpleUploadedFile("big.png", huge_png_header(6300, 6300), content_type="image/png")
    response = client.post(edit_url(pup), {**builder_data(pup), "portrait": big})
    assert response.status_code == 200
    assert "at most 16 megapixels" in response.content.decode()


def test_the_builder_says_a_portrait_is_processing_until_it_is_done(client, alice, pup):
    client.force_login(alice)
    # The commit never happens inside a test, so the task has not run: still pending.
    client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload()})
    pup.refresh_from_db()
    assert pup.portrait_pending and not pup.portrait
    assert "is processing" in client.get(edit_url(pup)).content.decode()


def test_uploads_are_rate_limited_but_plain_saves_are_not(client, alice, pup):
    rate = django_settings.RATE_LIMITS["portrait_upload"][0]
    allowed = int(rate.split("/")[0])
    client.force_login(alice)
    for _ in range(allowed):
        response = client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload()})
        assert response.status_code == 302
    page = reverse("print_portrait", kwargs={"kind": "memeyori", "code": pup.code})
    refused = client.post(page, {"portrait": png_upload(), "focus_x": "0.5", "focus_y": "0.5"})
    assert refused.status_code == 429
    assert client.post(edit_url(pup), builder_data(pup, name="Renamed")).status_code == 302


# --- 11.5: served through a view that applies the character's visibility -----------------


def test_a_private_portrait_is_the_owners_alone(
    client, alice, bob, pup, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload()})
    pup.refresh_from_db()
    for size in ("full", "print", "thumb"):
        mine = client.get(portrait_url(pup, size))
        assert mine.status_code == 200 and mine["Content-Type"] == "image/jpeg"
        assert mine["Cache-Control"] == "private, no-store"
    page = client.get(reverse("character", kwargs={"kind": "memeyori", "code": pup.code}))
    assert portrait_url(pup) in page.content.decode()
    client.force_login(bob)
    assert client.get(portrait_url(pup)).status_code == 404
    client.logout()
    assert client.get(portrait_url(pup)).status_code == 404
    # Nor by its file's path: media is never served as files.
    assert client.get(f"{django_settings.MEDIA_URL}{pup.portrait_thumb.name}").status_code == 404


def test_a_public_portrait_may_be_cached_by_anyone(
    client, alice, pup, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            edit_url(pup), {**builder_data(pup, visibility="public"), "portrait": png_upload()}
        )
    client.logout()
    response = client.get(portrait_url(pup))
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=3600"
    assert b"".join(response.streaming_content)[:2] == b"\xff\xd8"  # a JPEG


# --- 11.7: no orphaned files -------------------------------------------------------------


def test_an_upload_in_a_write_that_rolls_back_leaves_no_file(
    settings, alice, pup, django_capture_on_commit_callbacks
):
    from cards.services import character_save

    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        character_save(character=pup, portrait=png_upload())
        raise RuntimeError("something later in the same write failed")
    assert media_files(settings) == []
    pup.refresh_from_db()
    assert not pup.portrait and not pup.portrait_pending


def test_two_uploads_in_a_row_leave_only_the_last_ones_files(
    client, settings, alice, pup, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    # Both saves commit before either is processed, as with two quick uploads.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload((300, 200))})
        client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload((200, 300))})
    pup.refresh_from_db()
    assert len(media_files(settings)) == 3
    assert not pup.portrait_pending


def test_a_character_deleted_before_its_upload_is_processed_leaves_no_file(
    client, settings, alice, pup, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload()})
        Memeyori.objects.filter(pk=pup.pk).delete()
    assert media_files(settings) == []


def _age(path, seconds):
    past = time.time() - seconds
    os.utime(path, (past, past))


def _disk_files(settings) -> list:
    root = settings.MEDIA_ROOT
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


@on_disk
def test_sweep_media_removes_only_old_files_nobody_names(
    settings, alice, pup, django_capture_on_commit_callbacks
):
    """Files are aged on disk here (by mtime); the S3 test sweeps an object store."""
    from tests.conftest import set_portrait

    set_portrait(pup, upload=png_upload())
    kept = _disk_files(settings)
    orphans = settings.MEDIA_ROOT / "portraits" / "print"
    old, young = orphans / "old-orphan.jpg", orphans / "young-orphan.jpg"
    old.write_bytes(b"x")
    young.write_bytes(b"x")
    for path in [*kept, old]:
        _age(path, 2 * 3600)
    call_command("sweep_media", verbosity=0)
    assert _disk_files(settings) == sorted([*kept, young])


def test_the_builder_links_the_current_portrait_through_the_view(
    client, alice, pup, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(edit_url(pup), {**builder_data(pup), "portrait": png_upload()})
    page = client.get(edit_url(pup)).content.decode()
    assert django_settings.MEDIA_URL not in page
    assert portrait_url(pup, "full") in page


def test_media_files_are_not_served_by_path_even_in_debug(client, settings, alice, pup):
    import importlib

    from django.urls import clear_url_caches

    import memeyori_site.urls

    from .conftest import set_portrait

    set_portrait(pup, upload=png_upload())
    settings.DEBUG = True
    try:
        importlib.reload(memeyori_site.urls)
        clear_url_caches()
        client.force_login(alice)  # even the owner: only the view serves portraits
        assert client.get(f"{settings.MEDIA_URL}{pup.portrait.name}").status_code == 404
    finally:
        settings.DEBUG = False
        importlib.reload(memeyori_site.urls)
        clear_url_caches()


@on_disk
def test_the_worker_sweeps_old_orphans_when_it_processes_an_upload_at_most_hourly(
    settings, alice, pup
):
    from tests.conftest import set_portrait

    orphans = settings.MEDIA_ROOT / "portraits" / "print"
    orphans.mkdir(parents=True, exist_ok=True)
    first, second = orphans / "first-orphan.jpg", orphans / "second-orphan.jpg"
    first.write_bytes(b"x")
    _age(first, 2 * 3600)
    set_portrait(pup, upload=png_upload())
    assert not first.exists()
    second.write_bytes(b"x")
    _age(second, 2 * 3600)
    set_portrait(pup, upload=png_upload())
    assert second.exists()  # swept an hour ago at most: the next upload does not sweep again
