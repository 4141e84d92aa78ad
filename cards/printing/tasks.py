"""The render task: a db_worker takes a queued render, renders it, stores the output.

The render itself runs in child processes under PRINT_RENDER_TIMEOUT (pdf.run_many): one
past its limit is killed and the render marked failed with the reason, and this worker
goes on to its next job. A worker that dies mid-render (killed, its machine gone) leaves
the render to another: the sweep (cards/workers.py) queues the task again and puts the
render back to "queued" here.
"""

import logging

from django.db.models import F
from django.tasks import task
from django.utils import timezone

from cards import workers

from . import pdf
from .render import render_spec
from .renders import Render, prune

logger = logging.getLogger(__name__)


def _fail(render_id: int, reason: str) -> None:
    Render.objects.filter(pk=render_id).update(
        status=Render.Status.FAILED, error=reason, finished_at=timezone.now(), spec=None
    )


def _store_picture(render_id: int, spec: dict) -> str:
    """A battle's preview image: Pillow, a few tens of milliseconds, bounded by its inputs
    (seven combatants a side, names cut to fit), so no child process or time limit."""
    from battles import og

    try:
        data = og.paint(spec["og"])
    except Exception:
        logger.exception("battle image %s failed", render_id)
        _fail(render_id, "the picture could not be drawn; the site's log has the details")
        raise
    now = timezone.now()
    Render.objects.filter(pk=render_id).update(
        status=Render.Status.DONE, data=data, size=len(data), spec=None, finished_at=now,
        used_at=now,
    )  # fmt: skip
    prune()
    return "done"


@task(queue_name=workers.INTERACTIVE, priority=workers.INTERACTIVE_PRIORITY)
def render_task(render_id: int) -> str:
    claimed = Render.objects.filter(pk=render_id, status=Render.Status.QUEUED).update(
        status=Render.Status.RENDERING, started_at=timezone.now(), runs=F("runs") + 1
    )
    if not claimed:  # expired while it waited, or rendered already
        return "skipped"
    kind, spec = Render.objects.values_list("kind", "spec").get(pk=render_id)
    if kind == Render.Kind.BATTLE_IMAGE:
        return _store_picture(render_id, spec)
    try:
        result = render_spec(spec)
    except pdf.RenderFailed as error:
        _fail(render_id, str(error))
        raise
    except Exception:
        logger.exception("render %s failed", render_id)
        _fail(render_id, "the renderer failed unexpectedly; the site's log has the details")
        raise
    data = result.png if kind == Render.Kind.SHARE else result.pdf
    preview = result.png if kind == Render.Kind.SHEET else None
    now = timezone.now()
    Render.objects.filter(pk=render_id).update(
        status=Render.Status.DONE,
        data=data,
        preview=preview,
        size=len(data) + len(preview or b""),
        meta={"pages": result.pages, "preflight": result.preflight, "shrunk": result.shrunk},
        spec=None,
        finished_at=now,
        used_at=now,
    )
    # The clean-up runs after every render: the store only grows here.
    prune()
    return "done"


@workers.on_reclaim(render_task)
def _render_back_in_queue(render_id: int, *, final: bool) -> None:
    """Its worker stopped mid-render: queue it for another, or, after MAX_ATTEMPTS workers
    stopped on it, fail it with the reason (asking again queues it afresh)."""
    rows = Render.objects.filter(pk=render_id, status__in=Render.IN_FLIGHT)
    if final:
        rows.update(
            status=Render.Status.FAILED, finished_at=timezone.now(), spec=None,
            error=f"{workers.MAX_ATTEMPTS} render workers stopped while rendering this",
        )  # fmt: skip
    else:
        rows.filter(status=Render.Status.RENDERING).update(
            status=Render.Status.QUEUED, started_at=None
        )
