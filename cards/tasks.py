"""Work that runs after the request, in a task (django.tasks): portrait processing and the
media sweep. Arguments are plain values (kind, code, file names), so a worker process can
run them; until one does, Django's ImmediateBackend runs them inline after the commit.
"""

import logging
import secrets
from datetime import timedelta

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.tasks import default_task_backend, task
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend
from PIL import Image

from . import workers
from .media import delete_on_commit, delete_unreferenced, sweep
from .models import Archon, HeldUpload, Memeyori, Party
from .printing import layout, portraits

log = logging.getLogger(__name__)
MODELS = {"memeyori": Memeyori, "archon": Archon}


class Superseded(Exception):
    """A newer upload took this one's place while it was being processed."""


@task(queue_name=workers.INTERACTIVE, priority=workers.INTERACTIVE_PRIORITY)
def process_portrait(kind: str, code: str, incoming: str = "") -> str:
    """Decode a pending upload once (or re-crop the stored portrait when `incoming` is
    empty) and store the kept copy, the print crop and the thumbnail.

    The decode and the crops run outside any transaction; the row is locked only to swap
    the file names in, so another player's save never waits on an image (issue 11.4).
    """
    _sweep_now_and_then()
    model = MODELS[kind]
    row = model.objects.filter(code=code).first()
    if row is None or (incoming and row.portrait_pending != incoming):
        if incoming:
            delete_unreferenced([incoming])
        return "superseded"
    try:
        if incoming:
            with default_storage.open(incoming, "rb") as handle:
                image = portraits.portrait_decode(handle.read())
        elif row.portrait:
            with row.portrait.open("rb") as stored, Image.open(stored, formats=["JPEG"]) as im:
                image = im.convert("RGB")
        else:
            return "nothing to do"
        printed, thumb = portraits.crops(image, row.portrait_focus_x, row.portrait_focus_y)
        kept = portraits._jpeg(image) if incoming else None
    except ValidationError as error:
        _give_up(model, row, incoming, " ".join(error.messages))
        return "refused"
    except FileNotFoundError:
        _give_up(model, row, incoming, "The portrait file is missing; upload it again.")
        return "missing"
    except Exception:
        _give_up(model, row, incoming, "The portrait could not be processed; upload it again.")
        raise
    try:
        _store(model, row, incoming, kept, printed, thumb)
    except Superseded:
        return "superseded"
    return "stored"


# The card at 300 DPI: the back image is printed edge to edge inside the card's frame.
BACK_SIZE = (layout.px_at_dpi(layout.CARD_W), layout.px_at_dpi(layout.CARD_H))


@task(queue_name=workers.INTERACTIVE, priority=workers.INTERACTIVE_PRIORITY)
def process_party_back(code: str, incoming: str) -> str:
    """Decode a party's back image upload once (the same decode as a portrait: format
    whitelist, pixel cap, no metadata), crop it to the card from its centre and store it."""
    try:
        with default_storage.open(incoming, "rb") as handle:
            image = portraits.portrait_decode(handle.read())
    except (ValidationError, FileNotFoundError) as error:
        log.info("party %s back image refused: %s", code, error)
        default_storage.delete(incoming)
        return "refused"
    box = portraits.crop_box(image.size, layout.CARD_W / layout.CARD_H, 0.5, 0.5)
    data = portraits._jpeg(image.crop(box).resize(BACK_SIZE, Image.Resampling.LANCZOS))
    name = default_storage.save(f"backs/{code}-{secrets.token_hex(6)}.jpg", ContentFile(data))
    default_storage.delete(incoming)
    with transaction.atomic():
        party = Party.objects.select_for_update().filter(code=code).first()
        if party is None:
            default_storage.delete(name)
            return "gone"
        old = party.back_image.name
        party.back_image = name
        party.save(update_fields=["back_image", "updated"])
        if old:
            transaction.on_commit(lambda: default_storage.delete(old), robust=True)
    return "stored"


# Orphans come only from uploads, so the worker that processes uploads also sweeps, at
# most once an hour: django-tasks-db has no scheduler, and the mark lives in the cache
# every process shares (issue 11.7).
SWEEP_EVERY_SECONDS = 3600


def _sweep_now_and_then() -> None:
    if cache.add("cards:sweep_media", True, SWEEP_EVERY_SECONDS):
        sweep_media.enqueue()


def _store(model, row, incoming: str, kept, printed: bytes, thumb: bytes) -> None:
    stem = f"{row.code}-{secrets.token_hex(6)}"
    written = []
    try:
        if kept is not None:
            written.append(default_storage.save(f"portraits/{stem}.jpg", ContentFile(kept)))
        written.append(default_storage.save(f"portraits/print/{stem}.jpg", ContentFile(printed)))
        written.append(default_storage.save(f"portraits/thumbs/{stem}.jpg", ContentFile(thumb)))
        with transaction.atomic():
            fresh = model.objects.select_for_update().get(pk=row.pk)
            if incoming and fresh.portrait_pending != incoming:
                raise Superseded
            if not incoming and fresh.portrait.name != row.portrait.name:
                raise Superseded  # a new portrait landed meanwhile, with crops of its own
            old = [fresh.portrait_print.name, fresh.portrait_thumb.name]
            fields = ["portrait_print", "portrait_thumb", "portrait_error", "updated"]
            if kept is not None:
                old += [fresh.portrait.name, incoming]
                fresh.portrait, fresh.portrait_pending = written[0], ""
                fields += ["portrait", "portrait_pending"]
            fresh.portrait_print, fresh.portrait_thumb = written[-2], written[-1]
            fresh.portrait_error = ""
            fresh.save(update_fields=fields)
            delete_on_commit(old)
    except BaseException:
        for name in written:  # fresh names of our own: no row names them
            default_storage.delete(name)
        if incoming:
            delete_unreferenced([incoming])
        raise


def _give_up(model, row, incoming: str, message: str) -> None:
    """Say why on the row (the builder shows it) and drop the refused upload."""
    with transaction.atomic():
        rows = model.objects.filter(pk=row.pk)
        if incoming:
            rows = rows.filter(portrait_pending=incoming)
            rows.update(portrait_pending="", portrait_error=message[:300])
        else:
            rows.update(portrait_error=message[:300])
    if incoming:
        delete_unreferenced([incoming])


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def sweep_media(max_age_seconds: int = 3600) -> int:
    """Delete portrait files no row names that are older than `max_age_seconds`; returns how
    many. Run periodically by the task worker, and by `manage.py sweep_media`."""
    retry_held_uploads()
    removed = sweep(max_age=timedelta(seconds=max_age_seconds))
    if removed:
        log.info("sweep_media removed %d unreferenced files", len(removed))
    return len(removed)


# -- uploads on their way to the store -----------------------------------------------------
# A page never waits on the store (issue 39.5: a stalled store held a page thread 6.4 s an
# upload): the request keeps the bytes in the database (HeldUpload), in the transaction of
# the row that awaits them, and store_held_upload writes them to the store from a worker.
# A store that does not answer is tried again soon, then less often (at most every
# RETRY_MAX), for HOLD_FOR; then the row says so and the person uploads again.
RETRY_FIRST = timedelta(seconds=5)
RETRY_MAX = timedelta(minutes=5)
HOLD_FOR = timedelta(days=1)
GAVE_UP = "The picture store did not answer for a day; upload the picture again."


def keep_upload(*, kind: str, code: str, name: str, data: bytes) -> None:
    """The request's whole part of an upload: keep its bytes (HeldUpload, in the caller's
    transaction) and, once that commits, queue a worker to write them to the store under
    `name` and process them (store_held_upload)."""
    HeldUpload.objects.create(name=name, kind=kind, code=code, data=data)
    if isinstance(store_held_upload.get_backend(), DatabaseBackend):
        store_held_upload.enqueue(name)  # in this transaction: queued exactly when kept
    else:  # no queue (ImmediateBackend): stored as the upload commits
        transaction.on_commit(lambda: store_held_upload.enqueue(name), robust=True)


def _try_later(name: str, tries: int) -> None:
    # Without a backend that can wait (the immediate one), the media sweep tries again.
    if default_task_backend.supports_defer:
        wait = min(RETRY_FIRST * 2**tries, RETRY_MAX)
        store_held_upload.using(run_after=timezone.now() + wait).enqueue(name)


def _awaited(held: HeldUpload) -> bool:
    """Does the row still wait for this upload (no newer one took its place)?"""
    if held.kind == HeldUpload.Kind.BACK:
        return Party.objects.filter(code=held.code).exists()
    return MODELS[held.kind].objects.filter(code=held.code, portrait_pending=held.name).exists()


@task(queue_name=workers.INTERACTIVE, priority=workers.INTERACTIVE_PRIORITY)
def store_held_upload(name: str) -> str:
    """Write a kept upload to the store; once it takes it, process it (process_portrait,
    process_party_back). A store that does not answer is tried again later."""
    held = HeldUpload.objects.filter(name=name).first()
    if held is None:
        return "gone"  # stored by an earlier try
    if not _awaited(held):
        held.delete()
        return "superseded"
    try:
        stored = default_storage.save(name, ContentFile(bytes(held.data)))
    except Exception as error:
        log.warning("the store did not take held upload %s: %s", name, error)
        if timezone.now() - held.held_at >= HOLD_FOR:
            held.delete()
            if held.kind != HeldUpload.Kind.BACK:
                MODELS[held.kind].objects.filter(code=held.code, portrait_pending=name).update(
                    portrait_pending="", portrait_error=GAVE_UP
                )
            return "given up"
        HeldUpload.objects.filter(pk=held.pk).update(tries=held.tries + 1)
        _try_later(name, held.tries + 1)
        return "held"
    if stored != name:
        # Another try stored it a moment ago (storage names are never overwritten).
        default_storage.delete(stored)
        return "stored already"
    HeldUpload.objects.filter(pk=held.pk).delete()
    if held.kind == HeldUpload.Kind.BACK:
        process_party_back.enqueue(str(held.code), name)
    else:
        process_portrait.enqueue(held.kind, str(held.code), name)
    return "stored"


def retry_held_uploads() -> int:
    """Try the store again with every held upload (the media sweep does, hourly)."""
    names = list(HeldUpload.objects.values_list("name", flat=True))
    for name in names:
        store_held_upload.enqueue(name)
    return len(names)
