"""Portrait files on disk: each character owns its own, and nothing is left behind."""

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse

from cards.models import Memeyori
from tests.conftest import make_memeyori, set_portrait
from tests.test_portraits import image_bytes, media_files, upload

pytestmark = pytest.mark.usefixtures("media_storage")


def portrait_names(character) -> set[str]:
    character.refresh_from_db()
    return {
        f.name
        for f in (character.portrait, character.portrait_print, character.portrait_thumb)
        if f
    }


@pytest.fixture
def pup(alice, types):
    return make_memeyori(alice, types["Blaze"])


def test_a_duplicate_shares_the_files_and_a_new_crop_gives_it_its_own(
    client, settings, alice, pup, django_capture_on_commit_callbacks
):
    set_portrait(pup, upload=upload(image_bytes((600, 300), fmt="PNG")))
    client.force_login(alice)
    kwargs = {"kind": "memeyori", "code": pup.code}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("character_duplicate", kwargs=kwargs))
    copy = Memeyori.objects.exclude(pk=pup.pk).get()
    # The same files, no bytes written (issue 18.5); files go only when no row names them.
    assert portrait_names(copy) == portrait_names(pup)
    assert len(portrait_names(copy)) == 3

    # Moving the copy's focal point replaces the copy's files, never the original's.
    copy_page = reverse("print_portrait", kwargs={"kind": "memeyori", "code": copy.code})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(copy_page, {"focus_x": "0.9", "focus_y": "0.5"})
    assert response.status_code == 302
    for name in portrait_names(pup):
        assert default_storage.exists(name)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("print_portrait", kwargs=kwargs), {"focus_x": "0.1", "focus_y": "0.5"}
        )
    assert response.status_code == 302
    # Each moved its focal point: new crops of its own; the upload they share stays one.
    assert len(media_files(settings)) == 5


def test_replacing_files_never_deletes_a_file_another_character_uses(
    settings, alice, pup, types, django_capture_on_commit_callbacks
):
    set_portrait(pup, upload=upload(image_bytes(fmt="PNG")))
    # Two rows naming the same files, as duplicates made before the fix did.
    twin = make_memeyori(alice, types["Blaze"], name="Twin")
    Memeyori.objects.filter(pk=twin.pk).update(
        portrait=pup.portrait.name,
        portrait_print=pup.portrait_print.name,
        portrait_thumb=pup.portrait_thumb.name,
    )
    twin.refresh_from_db()
    set_portrait(twin, focus_x=0.2, focus_y=0.5)
    for name in portrait_names(pup):
        assert default_storage.exists(name)


def test_a_duplicate_of_a_character_with_an_upload_waiting_shares_nothing(
    client, alice, pup, types
):
    from cards.printing.portrait_uploads import character_set_portrait

    # Not processed: the test's transaction never commits.
    character_set_portrait(character=pup, upload=upload(image_bytes(fmt="PNG")))
    pup.refresh_from_db()
    assert pup.portrait_pending
    client.force_login(alice)
    client.post(reverse("character_duplicate", kwargs={"kind": "memeyori", "code": pup.code}))
    copy = Memeyori.objects.exclude(pk=pup.pk).get()
    assert copy.portrait_pending == "" and not copy.portrait


def test_clearing_the_portrait_drops_an_upload_still_waiting(client, alice, pup):
    from cards.printing.portrait_uploads import character_set_portrait
    from cards.services import character_set_portrait as builder_set_portrait

    character_set_portrait(character=pup, upload=upload(image_bytes(fmt="PNG")))
    pup.refresh_from_db()
    builder_set_portrait(character=pup, image=False)
    pup.refresh_from_db()
    assert pup.portrait_pending == ""


def test_a_recrop_never_overwrites_the_crops_of_a_newer_portrait(settings, alice, pup):
    from cards import tasks

    set_portrait(pup, upload=upload(image_bytes((600, 300), fmt="PNG")))
    stale = Memeyori.objects.get(pk=pup.pk)  # what a slow re-crop task read
    set_portrait(pup, upload=upload(image_bytes((300, 600), fmt="PNG")))
    newer = portrait_names(pup)
    with pytest.raises(tasks.Superseded):
        tasks._store(Memeyori, stale, "", None, b"print", b"thumb")
    assert portrait_names(pup) == newer
    assert len(media_files(settings)) == 3
