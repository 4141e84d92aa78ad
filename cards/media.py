"""Portrait files in storage: who owns which, and removing them without touching anyone else's.

Every read and write goes through Django's storage (`storages["default"]`: a folder, or an
S3-compatible object store, settings.MEDIA_STORAGE), never a path, so web machines and task
workers need no shared disk. A name is written once and never again (each carries a
random token), so a name stands for its content (the print store's key relies on it).

A duplicate or a copy names its original's files (issue 18.5: a copy writes no bytes).
So a file is deleted only when no character row names it any more, and a new upload or
crop is written under fresh names: the two never touch each other's pictures.
"""

import secrets
from datetime import timedelta

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

PORTRAIT_FIELDS = ("portrait", "portrait_print", "portrait_thumb")
# Every column that names a file: the three sizes and an upload waiting to be processed.
FILE_FIELDS = (*PORTRAIT_FIELDS, "portrait_pending")


def _character_models():
    from .models import Archon, Memeyori

    return (Memeyori, Archon)


def referenced(names) -> set[str]:
    """Which of these file names some character row still names."""
    names = {n for n in names if n}
    if not names:
        return set()
    found = set()
    for model in _character_models():
        match = Q()
        for field in FILE_FIELDS:
            match |= Q(**{f"{field}__in": names})
        for row in model.objects.filter(match).values_list(*FILE_FIELDS):
            found.update(row)
    return found & names


def delete_unreferenced(names, storage=default_storage) -> None:
    """Delete the files no character names; the others stay where they are."""
    names = {n for n in names if n}
    for name in names - referenced(names):
        storage.delete(name)


def delete_on_commit(names, storage=default_storage) -> None:
    """After the current transaction commits, delete these files unless still named."""
    names = [n for n in names if n]
    if names:
        transaction.on_commit(lambda: delete_unreferenced(names, storage), robust=True)


def print_asset_url(name: str) -> str:
    """How a print document names a media file: the renderer is handed the file's bytes,
    read from storage (cards/printing/render.py), so this names no server or folder."""
    from cards.printing.pdf import MEDIA_PREFIX

    return MEDIA_PREFIX + name if name else ""


def copy_portrait_files(source, target) -> list[str]:
    """Give `target` its own copies of `source`'s portrait files (not saved); returns the
    new names so the caller can remove them if its transaction fails."""
    written = []
    stem = f"{target.code}-{secrets.token_hex(6)}"
    for field in PORTRAIT_FIELDS:
        file = getattr(source, field)
        if not file:
            continue
        folder = file.name.rpartition("/")[0]
        with file.storage.open(file.name, "rb") as handle:
            name = file.storage.save(f"{folder}/{stem}.jpg", handle)
        written.append(name)
        setattr(target, field, name)
    return written


def _files(storage, folder: str):
    try:
        directories, files = storage.listdir(folder)
    except FileNotFoundError:  # a folder never written to (an object store has no folders)
        return
    for name in files:
        yield f"{folder}/{name}"
    for directory in directories:
        yield from _files(storage, f"{folder}/{directory}")


def sweep(*, max_age: timedelta, storage=default_storage, folder: str = "portraits") -> list[str]:
    """Delete the files under `folder` that no character names and that are older than
    `max_age` (a younger one may belong to a write that has not committed yet)."""
    cutoff = timezone.now() - max_age
    old = [name for name in _files(storage, folder) if storage.get_modified_time(name) < cutoff]
    removed = []
    for start in range(0, len(old), 500):
        chunk = set(old[start : start + 500])
        for name in sorted(chunk - referenced(chunk)):
            storage.delete(name)
            removed.append(name)
    return removed
