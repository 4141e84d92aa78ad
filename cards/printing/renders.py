"""The stored renders' rows (store.py asks for them, tasks.py fills them): the Render
model, when one in flight has gone stale (its worker died, or none ever took it), and the
pruning that keeps their total under RENDER_STORE_MAX_BYTES. It imports nothing of the
rest of printing, so that cards/models.py can register the model without the renderer."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q, Sum
from django.utils import timezone

from .. import workers

# A job queued this long with no worker for renders alive gives up (a live worker, however
# busy, keeps it queued).
QUEUED_GIVE_UP = timedelta(minutes=10)


def _new_code() -> str:
    return secrets.token_urlsafe(32)


class Render(models.Model):
    class Kind(models.TextChoices):
        SHEET = "sheet", "print sheets"  # a PDF and a picture of its page one
        MASTERCARD = "mastercard", "Mastercard PDF"
        SHARE = "share", "Mastercard PNG"
        BATTLE_IMAGE = "battle-og", "battle preview image"  # battles/og.py, Pillow

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RENDERING = "rendering", "Rendering"
        DONE = "done", "Ready"
        FAILED = "failed", "Failed"

    IN_FLIGHT = (Status.QUEUED, Status.RENDERING)

    key = models.CharField(max_length=64, unique=True)
    # The public handle in URLs: unguessable, unlike the hash of known content.
    code = models.CharField(max_length=43, unique=True, default=_new_code, editable=False)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # "user:<id>" or "ip:<address>": who queued it, for the one-in-flight rule.
    requester = models.CharField(max_length=100)
    # Its place among the RENDER_QUEUE_MAX renders that may be in flight at once.
    slot = models.PositiveSmallIntegerField(null=True, blank=True)
    filename = models.CharField(max_length=200)
    spec = models.JSONField(null=True, blank=True)  # the documents; dropped once rendered
    data = models.BinaryField(null=True, blank=True)
    preview = models.BinaryField(null=True, blank=True)  # page one as a PNG (sheets)
    size = models.PositiveBigIntegerField(default=0)
    meta = models.JSONField(default=dict, blank=True)  # pages, preflight, shrunk
    # The characters it drew, as [kind, pk] pairs: it is served only while each still
    # exists and its reader may see it (`readable_by`, issue 33.5).
    drew = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    runs = models.PositiveIntegerField(default=0)  # times a worker started it
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    used_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["requester"],
                condition=Q(status__in=["queued", "rendering"]),
                name="one_render_in_flight_per_requester",
            ),
            models.UniqueConstraint(
                fields=["slot"],
                condition=Q(status__in=["queued", "rendering"]),
                name="one_render_in_flight_per_slot",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"], name="render_queue"),
            models.Index(fields=["status", "used_at"], name="render_lru"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.key[:12]} ({self.status})"

    @property
    def content_type(self) -> str:
        png = (self.Kind.SHARE, self.Kind.BATTLE_IMAGE)
        return "image/png" if self.kind in png else "application/pdf"

    @property
    def in_flight(self) -> bool:
        return self.status in self.IN_FLIGHT

    def ahead(self) -> int:
        """Queued renders that a worker will take before this one."""
        if self.status != self.Status.QUEUED:
            return 0
        return Render.objects.filter(
            status=self.Status.QUEUED, created_at__lt=self.created_at
        ).count()


LIGHT = ("data", "preview", "spec")  # never loaded just to look at a render's state


def stale_reason(render: Render) -> str:
    """Why a render in flight will never finish (its worker died, or none ever took it), or
    "" while it may still."""
    if not render.in_flight:
        return ""
    now = timezone.now()
    timeout = timedelta(seconds=getattr(settings, "PRINT_RENDER_TIMEOUT", 30) + 60)
    if render.status == Render.Status.RENDERING and render.started_at < now - timeout:
        return "the render worker stopped before it finished"
    if (
        render.status == Render.Status.QUEUED
        and render.created_at < now - QUEUED_GIVE_UP
        and not workers.serving(workers.INTERACTIVE)
    ):
        return "no render worker is running; ask again when one is"
    return ""


def as_shown(render: Render) -> Render:
    """The render as its page shows it: a stale one as failed, with the reason, and nothing
    written (issue 18.1: a GET changes nothing; the worker's prune, or asking again,
    records it)."""
    if reason := stale_reason(render):
        render.status, render.error = Render.Status.FAILED, reason
        render.finished_at = timezone.now()
    return render


def expire_if_stale(render: Render) -> Render:
    """Mark a render failed when its worker died or none ever took it, so that the page
    says so and its requester may ask again."""
    reason = stale_reason(render)
    if not reason:
        return render
    Render.objects.filter(pk=render.pk, status=render.status).update(
        status=Render.Status.FAILED, error=reason, finished_at=timezone.now(), spec=None
    )
    render.refresh_from_db(fields=["status", "error", "finished_at"])
    return render


def prune(max_bytes: int | None = None) -> int:
    """Keep stored renders under the size cap, least recently served first; forget old
    failures and finished task records. Returns how many renders were deleted."""
    from django_tasks_db.models import DBTaskResult

    cap = settings.RENDER_STORE_MAX_BYTES if max_bytes is None else max_bytes
    now = timezone.now()
    for render in Render.objects.defer(*LIGHT).filter(status__in=Render.IN_FLIGHT):
        expire_if_stale(render)
    deleted, _ = Render.objects.filter(
        status=Render.Status.FAILED, finished_at__lt=now - timedelta(days=1)
    ).delete()
    DBTaskResult.objects.finished().filter(finished_at__lt=now - timedelta(days=1)).delete()
    done = Render.objects.filter(status=Render.Status.DONE)
    total = done.aggregate(total=Sum("size"))["total"] or 0
    if total <= cap:
        return deleted
    doomed = []
    for pk, size in done.order_by("used_at", "pk").values_list("pk", "size").iterator():
        if total <= cap:
            break
        doomed.append(pk)
        total -= size
    for start in range(0, len(doomed), 500):
        Render.objects.filter(pk__in=doomed[start : start + 500]).delete()
    return deleted + len(doomed)
