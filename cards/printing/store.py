"""Stored renders: one row per distinct output, found by a hash of everything in it.

A request prepares its documents (render.prepare), hashes them with the files they load
(`spec_key`) and looks the hash up: a finished render is served from here without
rendering; otherwise one row is queued and a task (cards/printing/tasks.py) renders it.

Choices (the issue left them open):
- Outputs live in the database, beside the jobs: a worker on another machine writes where
  every web process reads, with no shared disk to set up. `prune` keeps their total under
  RENDER_STORE_MAX_BYTES, least recently served first.
- One render in flight per requester (a user, or a client address for visitors) is a
  partial unique constraint, so the database refuses a second one even under a race.
- At most RENDER_QUEUE_MAX renders in flight in all: each holds one of that many numbered
  slots, unique among renders in flight (another partial unique constraint), so two
  requests racing for the last place cannot both have it.
- A render waits on the interactive queue (cards/workers.py), never behind lab chunks, so
  waiting is never a reason to fail it: only when no worker for renders is alive does a
  long wait end, with the reason, so that its requester may ask again.
- A failed render is shown with its reason; asking again (the page's "Try again" link, or
  the same URL after FAILED_SHOWN_FOR) queues it once more.
"""

import hashlib
import json
import random
from datetime import timedelta
from pathlib import Path
from urllib.parse import urljoin

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from battles.engine.words import plural

from . import pdf
from .render import _roots
from .renders import (  # noqa: F401 (Render, prune and the rest, as callers knew them here)
    LIGHT,
    QUEUED_GIVE_UP,
    Render,
    _new_code,
    as_shown,
    expire_if_stale,
    prune,
    stale_reason,
)
from .tasks import render_task

# Bump when a change in the render code (not in templates, CSS or data, which the key
# covers by content) changes the output, so that stored renders are not served again.
# 2: each SVG picture drawn once per PDF as a form (pdf._share_svg_drawings).
# 3: the renderer reads card.css with its fixed colour tokens written in (pdf.py).
PIPELINE_VERSION = 3
FAILED_SHOWN_FOR = timedelta(seconds=60)
# Touch `used_at` at most this often, so that serving a stored render writes nothing.
TOUCH_EVERY = timedelta(minutes=5)
ASSET_REF = pdf.ASSET_REF


class Refused(Exception):
    status = 429
    retry_after = 5


class Busy(Refused):
    def __init__(self):
        super().__init__(
            "You already have a render in progress. Wait for it to finish, then ask again."
        )


class QueueFull(Refused):
    status = 503
    retry_after = 15

    def __init__(self, in_flight: int):
        super().__init__(
            f"The print queue is full ({plural(in_flight, 'render')} waiting or rendering). "
            "Try again in a few seconds."
        )


# --- The key -------------------------------------------------------------------------

_digests: dict[tuple[str, int, int], str] = {}


def _file_digest(path: Path) -> str:
    """A file's SHA-256, remembered while its size and modification time stay the same."""
    stat = path.stat()
    marker = (str(path), stat.st_mtime_ns, stat.st_size)
    digest = _digests.get(marker)
    if digest is None:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if len(_digests) > 10_000:
            _digests.clear()
        _digests[marker] = digest
    return digest


def _asset_digests(spec: dict) -> list[tuple[str, str]]:
    """Every file the documents load (stylesheets, what they load in turn, portraits),
    resolved exactly as the renderer's fetcher will, with a digest of its content. A media
    file (in storage, perhaps on another machine) stands for itself by name: names are
    written once, never overwritten (cards/media.py), so nothing is read to hash it."""
    roots = {prefix: [Path(d).resolve() for d in dirs] for prefix, dirs in _roots().items()}
    todo = [
        (pdf.ASSET_BASE, ref)
        for job in spec.get("jobs", [])
        for match in ASSET_REF.finditer(job["html"])
        for ref in match.groups()
        if ref
    ]
    # Pictures made for the render (marks, default art, backs) are in the spec already.
    made = {pdf.ASSET_BASE + name for job in spec.get("jobs", []) for name in job["generated"]}
    seen: dict[str, str] = {}
    while todo:
        base, ref = todo.pop()
        url = urljoin(base, ref)
        if url in seen or not url.startswith(pdf.ASSET_BASE):
            continue
        if url in made or url.startswith(pdf.ASSET_BASE + pdf.GENERATED):
            continue  # made for the render, already in the spec
        try:
            name = pdf.media_name(url)
            if name is not None:
                seen[url] = f"media:{name}"
                continue
            path = pdf.resolve_asset(url, roots)
        except pdf.RefusedURL:
            seen[url] = "refused"
            continue
        seen[url] = _file_digest(path)
        if path.suffix.lower() == ".css":
            text = path.read_text(encoding="utf-8", errors="replace")
            todo += [(url, ref) for m in ASSET_REF.finditer(text) for ref in m.groups() if ref]
    return sorted(seen.items())


def spec_key(kind: str, spec: dict, drew: list | tuple = ()) -> str:
    """The hash of everything that goes into a render: the documents (the faces' data,
    Type colours and layout options are written into them by the templates), the files
    they load (the CSS, portraits), the kind of output and the pipeline's version; and
    which characters it drew, so that a copy drawing the same as its original is another
    render, which follows the copy (a private duplicate's link dies with the duplicate)."""
    digest = hashlib.sha256()
    head = {"version": PIPELINE_VERSION, "kind": kind, "spec": spec}
    if drew:
        head["drew"] = [list(pair) for pair in drew]
    digest.update(json.dumps(head, sort_keys=True, separators=(",", ":")).encode())
    digest.update(json.dumps(_asset_digests(spec)).encode())
    return digest.hexdigest()


# --- Asking for a render -------------------------------------------------------------


def _enqueue(render_id: int) -> None:
    render_task.enqueue(render_id)


def _free_slot() -> int:
    """One of the RENDER_QUEUE_MAX places no render in flight holds, at random so that
    racing requests rarely pick the same; the constraint settles those that do."""
    taken = set(Render.objects.filter(status__in=Render.IN_FLIGHT).values_list("slot", flat=True))
    free = [n for n in range(settings.RENDER_QUEUE_MAX) if n not in taken]
    if not free:
        raise QueueFull(len(taken))
    return random.choice(free)


def drawn(characters) -> list[list]:
    """What a render of these characters drew, as Render.drew keeps it."""
    return [[c.kind, c.pk] for c in characters]


def readable_by(render: Render, user) -> bool:
    """Whether every character the render drew still exists and `user` may see it now (its
    owner, anyone when public, table mates when shared with tables: as its own pages allow)."""
    from django.http import Http404

    from cards.models import Archon, Memeyori, get_readable_or_404

    models_by_kind = {"memeyori": Memeyori, "archon": Archon}
    for kind, pk in render.drew:
        model = models_by_kind[kind]
        try:
            get_readable_or_404(model.objects.only("visibility", "owner_id"), user, pk=pk)
        except Http404:
            return False
    return True


def all_public(render: Render) -> bool:
    """Whether anyone may see what it drew (then a cache may keep it)."""
    from cards.models import Archon, Memeyori, Visibility

    if not render.drew:
        return False
    for kind, model in {"memeyori": Memeyori, "archon": Archon}.items():
        pks = {pk for k, pk in render.drew if k == kind}
        public = model.objects.filter(pk__in=pks, visibility=Visibility.PUBLIC)
        if pks and public.count() != len(pks):
            return False
    return True


def find_or_queue(
    *, kind: str, spec: dict, requester: str, filename: str, again: bool = False,
    drew: list | tuple = (),
) -> Render:  # fmt: skip
    """The stored render for this spec, queueing it first if there is none (or it failed
    and `again`, or failed long enough ago). Raises Busy or QueueFull instead of queueing
    past the limits. `drew`: the characters in it (`drawn`), whose visibility its links
    follow."""
    key = spec_key(kind, spec, drew)
    render = Render.objects.defer(*LIGHT).filter(key=key).first()
    if render is not None:
        render = expire_if_stale(render)
        if render.status == Render.Status.DONE:
            if render.used_at < timezone.now() - TOUCH_EVERY:
                Render.objects.filter(pk=render.pk).update(used_at=timezone.now())
            return render
        if render.in_flight:
            return render
        if not again and render.finished_at > timezone.now() - FAILED_SHOWN_FOR:
            return render
    for mine in Render.objects.defer(*LIGHT).filter(
        requester=requester, status__in=Render.IN_FLIGHT
    ):
        expire_if_stale(mine)
    for _ in range(5):
        slot = _free_slot()
        try:
            with transaction.atomic():
                if render is None:
                    render = Render.objects.create(
                        key=key, kind=kind, spec=spec, requester=requester,
                        filename=filename, slot=slot, drew=list(drew),
                    )  # fmt: skip
                else:
                    now = timezone.now()
                    Render.objects.filter(pk=render.pk, status=Render.Status.FAILED).update(
                        status=Render.Status.QUEUED, spec=spec, requester=requester, error="",
                        slot=slot, created_at=now, started_at=None, finished_at=None,
                        used_at=now,
                    )  # fmt: skip
                # In the same transaction: the job exists exactly when its row says queued.
                _enqueue(render.pk)
        except IntegrityError:
            # Someone queued the same render a moment ago (then wait for theirs), or this
            # requester already has one in flight, or another request took this slot.
            existing = Render.objects.defer(*LIGHT).filter(key=key).first()
            if existing is not None and existing.status != Render.Status.FAILED:
                return existing
            if Render.objects.filter(requester=requester, status__in=Render.IN_FLIGHT).exists():
                raise Busy() from None
            render = existing
            continue
        return Render.objects.defer(*LIGHT).get(pk=render.pk)
    raise QueueFull(settings.RENDER_QUEUE_MAX)


def content(render: Render, field: str = "data") -> bytes:
    return bytes(Render.objects.values_list(field, flat=True).get(pk=render.pk) or b"")


# --- Clean-up ------------------------------------------------------------------------
