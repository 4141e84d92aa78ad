"""A store that stalls without stalling pages (issue 33.2): short timeouts and bounded
retries for the object store, and portraits served by signed URLs, so that no page a web
worker serves streams media or waits on the store."""

import socket
import subprocess
import sys

import pytest
from django.test import Client
from django.urls import reverse

from . import servers
from .conftest import make_memeyori, make_party
from .test_deploy_settings import _settings
from .test_settings import ROOT

S3 = {
    "DJANGO_MEDIA_STORAGE": "s3", "DJANGO_S3_BUCKET": servers.BUCKET,
    "DJANGO_S3_REGION": "us-east-1", **servers.S3_KEYS,
}  # fmt: skip


@pytest.fixture
def stalled_store():
    """An endpoint that takes connections and never answers: a paused S3 server."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


def test_with_an_object_store_portraits_are_signed_urls_by_default():
    assert _settings("settings.MEDIA_SERVE", **S3) == "signed"
    assert _settings("settings.MEDIA_SERVE") == "site"
    assert _settings("settings.MEDIA_SERVE", **S3, DJANGO_MEDIA_SERVE="site") == "site"


def test_the_store_client_has_short_timeouts_and_bounded_retries():
    probe = (
        "(lambda c: [c.connect_timeout, c.read_timeout, c.retries])("
        "__import__('django.core.files.storage', fromlist=['x'])"
        ".default_storage.connection.meta.client.meta.config)"
    )
    assert _settings(probe, **S3, DJANGO_S3_ENDPOINT_URL="http://127.0.0.1:9") == [
        2, 3, {"mode": "standard", "total_max_attempts": 2},
    ]  # fmt: skip


def test_a_call_to_a_stalled_store_fails_instead_of_hanging(stalled_store):
    # boto3's defaults wait 60 s a read and retry: this would not end within the guard.
    call = "import django; django.setup(); from django.core.files.storage import default_storage as s; s.exists('portraits/x.jpg')"  # noqa: E501
    env = servers.site_env(**S3, DJANGO_S3_ENDPOINT_URL=stalled_store)
    done = subprocess.run(
        [sys.executable, "-c", call], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=45,
    )  # fmt: skip
    assert done.returncode != 0
    assert "ReadTimeoutError" in done.stderr or "Read timeout" in done.stderr, done.stderr[-500:]


def test_pages_and_portraits_answer_while_the_store_is_stalled(
    settings, stalled_store, alice, types
):
    env = {**S3, "DJANGO_S3_ENDPOINT_URL": stalled_store}
    settings.STORAGES = servers.s3_storages(env, settings)
    settings.STORAGES["default"]["OPTIONS"]["client_config"] = _stalling_config()
    settings.MEDIA_SERVE = "signed"
    pup = make_memeyori(alice, types["Blaze"], name="Pup")
    pup.portrait, pup.portrait_thumb = "portraits/p-1.jpg", "portraits/t/p-1.jpg"
    pup.save(update_fields=["portrait", "portrait_thumb"])
    make_party(alice, name="Pups")
    client = Client()
    client.force_login(alice)
    for page in (reverse("party_list"), pup.get_absolute_url()):
        assert client.get(page).status_code == 200
    thumb = client.get(pup.portrait_url("thumb"))
    assert thumb.status_code == 302 and stalled_store in thumb.url


def _stalling_config():
    from botocore.config import Config

    # Were anything to call the store, it would fail the test at once rather than wait.
    return Config(
        s3={"addressing_style": "path"}, signature_version="s3v4", connect_timeout=1,
        read_timeout=1, retries={"mode": "standard", "total_max_attempts": 1},
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_an_upload_while_the_store_is_stalled_is_kept_and_goes_in_when_the_store_answers(
    settings, stalled_store, alice, types, queued_tasks
):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django_tasks_db.models import DBTaskResult

    from cards.models import HeldUpload
    from cards.tasks import store_held_upload

    from .test_portraits import image_bytes

    env = {**S3, "DJANGO_S3_ENDPOINT_URL": stalled_store}
    settings.STORAGES = servers.s3_storages(env, settings)
    settings.STORAGES["default"]["OPTIONS"]["client_config"] = _stalling_config()
    pup = make_memeyori(alice, types["Blaze"], name="Pup")
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    page = reverse("print_portrait", kwargs={"kind": "memeyori", "code": pup.code})
    sent = image_bytes((300, 400), fmt="PNG")
    upload = SimpleUploadedFile("p.png", sent, "image/png")
    answer = client.post(page, {"portrait": upload, "focus_x": 0.5, "focus_y": 0.5})
    assert answer.status_code == 302
    pup.refresh_from_db()
    # Nothing lost, and the page never asked the store (issue 39.5): the row waits for
    # the upload, whose bytes wait in the database for a worker to store them.
    held = HeldUpload.objects.get()
    assert pup.portrait_pending == held.name and not pup.portrait_error
    assert bytes(held.data) == sent and held.kind == "memeyori" and held.code == pup.code
    assert held.tries == 0
    queued = DBTaskResult.objects.get(task_path="cards.tasks.store_held_upload")
    assert queued.args_kwargs["args"] == [held.name] and queued.queue_name == "interactive"
    assert "A new portrait is processing" in client.get(page).text
    # The worker's try finds the store stalled: it keeps the upload and says so.
    assert store_held_upload.call(held.name) == "held"
    assert HeldUpload.objects.get().tries == 1
    assert "The picture store is not answering" in client.get(page).text
    # Still stalled: the next try keeps it.
    assert store_held_upload.call(held.name) == "held"
    assert HeldUpload.objects.get().tries == 2
    # The store answers (a real S3 server now): the next try stores and processes it.
    with servers.s3_server() as answering:
        settings.STORAGES = servers.s3_storages(answering, settings)
        assert store_held_upload.call(held.name) == "stored"
        processing = DBTaskResult.objects.get(task_path="cards.tasks.process_portrait")
        assert processing.task.call(*processing.args_kwargs["args"]) == "stored"
        pup.refresh_from_db()
        assert not HeldUpload.objects.exists()
        assert not pup.portrait_pending and not pup.portrait_error
        assert pup.portrait and pup.portrait_print and pup.portrait_thumb
        from django.core.files.storage import default_storage

        assert default_storage.exists(pup.portrait_thumb.name)
        assert "is not answering" not in client.get(page).text


def test_a_portrait_read_by_the_site_from_a_stalled_store_is_a_503_that_says_so(
    settings, stalled_store, alice, types
):
    env = {**S3, "DJANGO_S3_ENDPOINT_URL": stalled_store}
    settings.STORAGES = servers.s3_storages(env, settings)
    settings.STORAGES["default"]["OPTIONS"]["client_config"] = _stalling_config()
    settings.MEDIA_STORAGE, settings.MEDIA_SERVE = "s3", "site"
    pup = make_memeyori(alice, types["Blaze"], name="Pup")
    pup.portrait, pup.portrait_thumb = "portraits/p-1.jpg", "portraits/t/p-1.jpg"
    pup.save(update_fields=["portrait", "portrait_thumb"])
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    answer = client.get(pup.portrait_url("thumb"))
    assert answer.status_code == 503
    assert "The picture store is not answering" in answer.content.decode()
    assert answer["Retry-After"] == "30"


@pytest.mark.django_db(transaction=True)
def test_a_held_upload_the_store_never_takes_is_given_up_after_a_day_with_words(
    settings, stalled_store, alice, types
):
    from datetime import timedelta

    from django.utils import timezone

    from cards.models import HeldUpload
    from cards.tasks import GAVE_UP, store_held_upload

    env = {**S3, "DJANGO_S3_ENDPOINT_URL": stalled_store}
    settings.STORAGES = servers.s3_storages(env, settings)
    settings.STORAGES["default"]["OPTIONS"]["client_config"] = _stalling_config()
    pup = make_memeyori(alice, types["Blaze"], name="Pup")
    name = f"portraits/incoming/{pup.code}-0.png"
    type(pup).objects.filter(pk=pup.pk).update(portrait_pending=name)
    HeldUpload.objects.create(name=name, kind="memeyori", code=pup.code, data=b"x")
    HeldUpload.objects.update(held_at=timezone.now() - timedelta(days=1, seconds=1))
    assert store_held_upload.call(name) == "given up"
    pup.refresh_from_db()
    assert not HeldUpload.objects.exists()
    assert not pup.portrait_pending and pup.portrait_error == GAVE_UP


@pytest.mark.django_db(transaction=True)
def test_a_party_back_image_sent_while_the_store_is_stalled_is_held_too(
    settings, stalled_store, alice, types, queued_tasks
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from cards import services
    from cards.models import HeldUpload
    from cards.tasks import store_held_upload

    from .test_portraits import image_bytes

    env = {**S3, "DJANGO_S3_ENDPOINT_URL": stalled_store}
    settings.STORAGES = servers.s3_storages(env, settings)
    settings.STORAGES["default"]["OPTIONS"]["client_config"] = _stalling_config()
    party = make_party(alice, name="Pups")
    back = SimpleUploadedFile("b.png", image_bytes((300, 400), fmt="PNG"), "image/png")
    services.party_save(party=party, memeyori=[], back_image=back)
    held = HeldUpload.objects.get()
    assert held.kind == "back" and held.code == party.code and held.tries == 0
    assert store_held_upload.call(held.name) == "held"
