"""A portrait upload taken onto its character's row (the builder, the print page's focal
point): checked by what its header shows, kept as pending (its bytes in the database),
written to the store by a worker (issue 39.5), and decoded once by
cards.tasks.process_portrait, outside any transaction (issue 11.4)."""

import logging
import secrets

from django.db import transaction

from cards.media import delete_on_commit
from cards.models import Character
from cards.tasks import keep_upload, process_portrait

from .portraits import _check_focus, _refuse, portrait_check

log = logging.getLogger(__name__)


def character_set_portrait(
    *, character: Character, upload=None, focus_x=None, focus_y=None
) -> None:
    """Take a new portrait (if `upload`) and/or move its focal point. Raises ValidationError
    (nothing stored) on what the header shows is bad.

    Nothing is decoded or stored here: the row names the upload as pending and its bytes
    are kept beside it (HeldUpload); after the commit a worker stores the upload as it came
    (cards.tasks.store_held_upload) and cards.tasks.process_portrait decodes it once,
    outside any transaction, and makes the three sizes.
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
        if incoming:
            # The bytes wait in the database with the row naming them; a worker stores
            # them (never this request: issue 39.5) and then processes them. A write that
            # rolls back, here or in any caller's transaction, keeps nothing (11.7).
            keep_upload(kind=character.kind, code=str(character.code), name=incoming, data=data)
        else:
            kind, code = character.kind, str(character.code)
            transaction.on_commit(lambda: process_portrait.enqueue(kind, code, ""))
