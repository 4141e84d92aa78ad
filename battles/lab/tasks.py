"""The lab's tasks: one chunk of battles each, with plain JSON-able arguments, and what
queues and counts them (fair shares: services.py's docstring).

Progress lives in the lab's own rows (Lab.done, LabChunk.finished), so a page reads it from
the database and never from a task result; a chunk run twice is counted once. Chunks wait
on the bulk queue, behind whatever a person waits for (cards/workers.py)."""

from functools import partial

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.tasks import task
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend

from cards import workers

from . import stats
from .models import Lab, LabChunk, LabStatus
from .runner import run_range

# Chunks of one person's in the task queue (waiting or running) at once.
QUEUED_PER_PERSON = 2
ACTIVE = (LabStatus.QUEUED, LabStatus.RUNNING)


def lock_person(user_id: int) -> None:
    """Hold the person's row until the transaction ends, so that their counts stay true
    until what they allow is written (on SQLite, IMMEDIATE transactions already do)."""
    get_user_model().objects.select_for_update().filter(pk=user_id).first()


def dispatch(owner_id: int) -> None:
    """Queue the person's next chunks until QUEUED_PER_PERSON of theirs are in the queue.
    Call it inside a transaction, with the person locked."""
    active = LabChunk.objects.filter(lab__owner_id=owner_id, lab__status__in=ACTIVE)
    unfinished = active.filter(finished=False)
    if isinstance(run_lab_chunk.get_backend(), DatabaseBackend):
        room = QUEUED_PER_PERSON - unfinished.filter(queued=True).count()
    else:
        room = None  # no queue to share (ImmediateBackend): every chunk, after the commit
    chunks = list(
        unfinished.filter(queued=False)
        .order_by("lab__created", "lab_id", "matchup__index", "start")
        .values_list("pk", "lab__code", "matchup__index", "start", "end")[:room]
    )
    if not chunks:
        return
    LabChunk.objects.filter(pk__in=[c[0] for c in chunks]).update(queued=True)
    for _, code, index, start, end in chunks:
        args = (str(code), index, start, end)
        if room is None:
            transaction.on_commit(partial(run_lab_chunk.enqueue, *args))
        else:
            # In this transaction: the task exists exactly when its chunk says queued.
            run_lab_chunk.enqueue(*args)


# ---- Running


def run_chunk(*, lab_code: str, matchup: int, start: int) -> bool:
    """Run one chunk and count it in; False when it was already counted (a retry or a
    second worker), so running a chunk twice never counts its battles twice."""
    chunk = (
        LabChunk.objects.select_related("matchup", "lab")
        .filter(lab__code=lab_code, matchup__index=matchup, start=start)
        .first()
    )
    if chunk is None or chunk.finished or chunk.lab.status == LabStatus.FAILED:
        return False
    lab = chunk.lab
    if lab.status == LabStatus.QUEUED:
        Lab.objects.filter(pk=lab.pk, status=LabStatus.QUEUED).update(status=LabStatus.RUNNING)
    if lab.started is None:
        Lab.objects.filter(pk=lab.pk, started=None).update(started=timezone.now())
    try:
        tally = run_range(
            chunk.matchup.snapshot,
            lab_seed=lab.seed,
            start=chunk.start,
            end=chunk.end,
            policies=lab.policies,
            versions=lab.policy_versions,
        )
    except Exception as e:
        with transaction.atomic():
            lock_person(lab.owner_id)
            Lab.objects.filter(pk=lab.pk).update(
                status=LabStatus.FAILED, error=f"{type(e).__name__}: {e}"[:500]
            )
            dispatch(lab.owner_id)  # the person's next lab takes the failed one's turn
        raise
    with transaction.atomic():
        lock_person(lab.owner_id)
        # Lock the chunk: of two workers on the same chunk only the first counts it.
        locked = LabChunk.objects.select_for_update().get(pk=chunk.pk)
        if locked.finished:
            return False
        locked.finished = True
        locked.tally = tally
        locked.save(update_fields=["finished", "tally"])
        Lab.objects.filter(pk=lab.pk).update(
            done=F("done") + (chunk.end - chunk.start), progressed=timezone.now()
        )
        lab = Lab.objects.select_for_update().get(pk=lab.pk)
        if lab.done >= lab.total and lab.status != LabStatus.FAILED:
            _finish(lab)
        dispatch(lab.owner_id)
    return True


def chunk_stopped(*, lab_code: str, matchup: int, start: int, final: bool) -> None:
    """The worker running this chunk stopped (cards/workers.py put its task back in the
    queue): the lab waits for a worker again; after MAX_ATTEMPTS stopped workers it fails,
    with the reason, and stops counting against its owner's labs."""
    lab = Lab.objects.filter(code=lab_code).first()
    if lab is None:
        return
    if not final:
        Lab.objects.filter(pk=lab.pk, status=LabStatus.RUNNING).update(status=LabStatus.QUEUED)
        return
    chunk = lab.chunks.filter(matchup__index=matchup, start=start).first()
    where = f"battles {start:,} to {chunk.end - 1:,}" if chunk else "a chunk"
    lock_person(lab.owner_id)
    Lab.objects.filter(pk=lab.pk, status__in=ACTIVE).update(
        status=LabStatus.FAILED,
        error=f"Task workers stopped several times while running {where}; "
        "try the unfinished battles again.",
    )
    dispatch(lab.owner_id)


def _finish(lab: Lab) -> None:
    for m in lab.matchups.all():
        m.tally = stats.merge_all(c.tally for c in m.chunks.order_by("start"))
        m.save(update_fields=["tally"])
    lab.status = LabStatus.DONE
    lab.finished = timezone.now()
    lab.save(update_fields=["status", "finished"])


def run_inline(lab: Lab) -> None:
    """Every chunk not yet counted, here and now (the command line, tests, a stuck lab)."""
    for index, start in lab.chunks.filter(finished=False).values_list("matchup__index", "start"):
        run_chunk(lab_code=str(lab.code), matchup=index, start=start)


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def run_lab_chunk(lab_code: str, matchup: int, start: int, end: int) -> int:
    """Battles start..end-1 of one matchup; returns how many this run counted."""
    counted = run_chunk(lab_code=lab_code, matchup=matchup, start=start)
    return end - start if counted else 0


@workers.on_reclaim(run_lab_chunk)
def _chunk_back_in_queue(lab_code: str, matchup: int, start: int, end: int, *, final: bool):
    chunk_stopped(lab_code=lab_code, matchup=matchup, start=start, final=final)
