"""A portrait upload taken onto its character's row (the builder, the print page's focal
point): checked by what its header shows, stored as pending after the commit, and decoded
once by cards.tasks.process_portrait, outside any transaction (issue 11.4)."""

import logging
import secrets
from functools import partial

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction

from cards.media import delete_on_commit
from cards.models import Archon, Character, Memeyori
from cards.tasks import hold, process_portrait

from .portraits import _check_focus, _refuse, portrait_check

log = logging.getLogger(__name__)


def character_set_portrait(
    *, character: Character, upload=None, focus_x=None, focus_y=None
) -> None:
    """Take a new portrait (if `upload`) and/or move its focal point. Raises ValidationError
    (nothing stored) on what the header shows is bad.

    Nothing is decoded here: the row names the upload as pending; after the commit the
    upload is stored as it came and cards.tasks.process_portrait decodes it once, outside
    any transaction (in a worker once tasks run in one), and makes the three sizes.
    """
    fx = character.portrait_focus_x if focus_x is None else _check_focus(focus_x, "x")
    fy = character.portrait_focus_y if focus_y is None else _check_focus(focus_y, "y")
    data = fmt = None
    if upload is not None:
        data, fmt = portrait_check(upload)
    elif not (character.portrait or character.portrait_pending):
        _refuse("Upload a portrait first.")
    incoming = ""
    if data is not None:
        incoming = f"portraits/incoming/{character.code}-{secrets.token_hex(6)}.{fmt.lower()}"
    with transaction.atomic():
        fields = ["portrait_focus_x", "portrait_focus_y"]
        character.portrait_focus_x, character.portrait_focus_y = fx, fy
        if incoming:
            # An upload still waiting is replaced; its task will find it superseded.
            waiting = (
                type(character)
                .objects.filter(pk=character.pk)
                .values_list("portrait_pending", flat=True)
                .first()
            )
            character.portrait_pending, character.portrait_error = incoming, ""
            fields += ["portrait_pending", "portrait_error"]
            delete_on_commit([waiting])
        character.save(update_fields=[*fields, "updated"])
        # The upload reaches the disk only once the row naming it has committed: a write
        # that rolls back, here or in any caller's transaction, leaves no file (11.7).
        transaction.on_commit(
            partial(
                _store_and_enqueue, kind=character.kind, code=str(character.code),
                incoming=incoming, data=data,
            )
        )  # fmt: skip


def _store_and_enqueue(*, kind: str, code: str, incoming: str, data: bytes | None) -> None:
    if incoming:
        try:
            stored = default_storage.save(incoming, ContentFile(data))
        except Exception as error:  # a stalled or full store: keep the upload, try later
            log.warning("the store did not take upload %s: %s", incoming, error)
            hold(kind=kind, code=code, name=incoming, data=data)
            return
        if stored != incoming:  # a name taken: never process another file
            default_storage.delete(stored)
            models = {c.kind: c for c in (Memeyori, Archon)}
            models[kind].objects.filter(code=code, portrait_pending=incoming).update(
                portrait_pending="", portrait_error="The upload could not be stored; try again."
            )
            return
    process_portrait.enqueue(kind, code, incoming)
