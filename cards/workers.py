"""Task workers: the two queues, who is alive, and taking back what a dead worker held.

Queues (issue 18.2). What a person waits for (a round's deadline, renders, battle preview
images, portraits, party backs, a battle with a thinking policy) goes on INTERACTIVE;
batches of battles (lab chunks, estimates, reviews) and upkeep (the media sweep) on BULK.
`make run` and `make serve` both run workers per queue (`manage.py run_workers`), so that
bulk work never holds a worker an interactive task waits for (issue 39.1: one worker for
both let renders wait minutes behind estimates). Interactive tasks also carry the higher
priority, so a worker serving both queues still claims a waiting render before the next
lab chunk; within the interactive queue a deadline goes first.

Leases (issue 18.8). django-tasks-db marks a claimed task RUNNING and nothing more: a
worker killed mid-task leaves it RUNNING for good. Every `db_worker` here (our command of
that name, cards/management/commands/db_worker.py) keeps a TaskWorker row and beats it
every WORKER_BEAT_SECONDS from a thread of its own, and sweeps: a RUNNING task whose
worker has not beaten for WORKER_DEAD_SECONDS is put back in the queue, where any live
worker takes it up again, and the task's `on_reclaim` hook puts its own rows back (a
render "rendering" becomes "queued" again). A task that stopped MAX_ATTEMPTS workers fails
for good, with the reason, so that one poisonous job cannot take every worker down in turn.
The supervisor (`run_workers`) does not wait for the silence: it knows when its child died.
"""

import logging
import os
import socket
import threading
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger(__name__)

INTERACTIVE = "interactive"
BULK = "bulk"
QUEUES = (INTERACTIVE, BULK)
# Within the interactive queue: a timed round's deadline first (a table waits on it, and
# it takes milliseconds), then what a page shows (renders, portraits), then thinking a
# person waits for (a battle played with a thinking policy, a player's review of their own
# game: seconds of work, a few at a time each).
DEADLINE_PRIORITY = 100
INTERACTIVE_PRIORITY = 50
THINKING_PRIORITY = 20
BULK_PRIORITY = -50
# A task on which this many workers stopped (killed, out of memory) is not tried again.
MAX_ATTEMPTS = 3


class WorkerStopped(Exception):
    """Recorded on a task that workers kept dying on."""


class TaskWorker(models.Model):
    """A db_worker process that is (or was, until its beats stop) running."""

    worker_id = models.CharField(max_length=64, unique=True)
    queues = models.CharField(max_length=200)  # comma-separated, "*" for every queue
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    beat_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        app_label = "cards"

    def __str__(self):
        return f"{self.worker_id} on {self.host} (pid {self.pid})"


def beat_seconds() -> float:
    return float(getattr(settings, "WORKER_BEAT_SECONDS", 5))


def dead_after() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "WORKER_DEAD_SECONDS", 30)))


# ---- Who is alive


def register(worker_id: str, queues) -> None:
    TaskWorker.objects.update_or_create(
        worker_id=worker_id,
        defaults={"queues": ",".join(queues), "host": socket.gethostname()[:255],
                  "pid": os.getpid(), "started_at": timezone.now(), "beat_at": Now()},
    )  # fmt: skip


def beat(worker_id: str) -> None:
    # The database's clock, not this machine's: workers on several hosts compare beats.
    TaskWorker.objects.filter(worker_id=worker_id).update(beat_at=Now())


def unregister(worker_id: str) -> None:
    TaskWorker.objects.filter(worker_id=worker_id).delete()


def _alive():
    return TaskWorker.objects.filter(beat_at__gte=Now() - dead_after())


def serving(queue: str) -> bool:
    """Whether a live worker takes tasks from this queue."""
    return any(
        "*" in row.split(",") or queue in row.split(",")
        for row in _alive().values_list("queues", flat=True)
    )


# ---- Taking work back


_hooks: dict[str, Callable] = {}


def on_reclaim(task):
    """Register fn(*args, final=bool, **kwargs), called in the transaction that puts one of
    `task`'s runs back in the queue (final=False) or fails it for good (final=True), to put
    the task's own rows in step."""

    def register_hook(fn):
        _hooks[task.module_path] = fn
        return fn

    return register_hook


def _hook(task_path: str) -> Callable | None:
    if task_path not in _hooks:
        try:
            import_string(task_path)  # importing the task's module registers its hook
        except ImportError:
            return None
    return _hooks.get(task_path)


def take_back(task_id, worker_id: str) -> bool:
    """Put a task that `worker_id` was running back in the queue, or fail it when workers
    stopped on it MAX_ATTEMPTS times. False when it is no longer that worker's to give up."""
    with transaction.atomic():
        row = DBTaskResult.objects.select_for_update().filter(pk=task_id).first()
        if row is None or row.status != "RUNNING" or row.worker_ids[-1:] != [worker_id]:
            return False
        final = len(row.worker_ids) >= MAX_ATTEMPTS
        if final:
            row.status = "FAILED"
            row.finished_at = timezone.now()
            row.exception_class_path = f"{__name__}.WorkerStopped"
            row.traceback = (
                f"WorkerStopped: {len(row.worker_ids)} workers stopped while running this "
                f"task ({', '.join(row.worker_ids)})\n"
            )
            row.save(update_fields=["status", "finished_at", "exception_class_path", "traceback"])
        else:
            # Back to READY keeps its place: the queue orders by priority, then age.
            row.status = "READY"
            row.save(update_fields=["status"])
        hook = _hook(row.task_path)
        if hook is not None:
            hook(*row.args_kwargs["args"], final=final, **row.args_kwargs["kwargs"])
    logger.warning(
        "task %s (%s) of stopped worker %s %s", row.pk, row.task_path, worker_id,
        "failed for good" if final else "is queued again",
    )  # fmt: skip
    return True


def reclaim(dead: set[str] | None = None) -> int:
    """Take back every RUNNING task whose worker is in `dead` or, by default, has not beaten
    for WORKER_DEAD_SECONDS (a task that has run for less than that is left alone, in case
    its worker is just starting). Returns how many tasks were taken back."""
    cutoff = timezone.now() - dead_after()
    live = set() if dead is not None else set(_alive().values_list("worker_id", flat=True))
    taken = 0
    running = DBTaskResult.objects.running().values_list("pk", "worker_ids", "started_at")
    for pk, worker_ids, started_at in running:
        worker = worker_ids[-1] if worker_ids else ""
        if dead is not None:
            if worker not in dead:
                continue
        elif worker in live or (started_at and started_at > cutoff):
            continue
        taken += take_back(pk, worker)
    if dead is None:
        # Rows of workers silent for a day are history.
        TaskWorker.objects.filter(beat_at__lt=Now() - timedelta(days=1)).delete()
    else:
        TaskWorker.objects.filter(worker_id__in=dead).delete()
    return taken


def reclaim_quietly(dead: set[str]) -> int:
    """reclaim(dead) for a process that must not fall over with the database (a supervisor,
    a worker on its way out): on an error the sweeps of live workers catch up later."""
    try:
        return reclaim(dead)
    except Exception:
        logger.exception("could not queue again the tasks of %s", ", ".join(sorted(dead)))
        connection.close()
        return 0


SESSIONS_CLEARED_EVERY = 3600


def clear_sessions_now_and_then() -> bool:
    """Expired sessions go, at most once an hour for all workers (issue 18.3: nothing else
    removes them; a visitor's draft session lives a day). The mark lives in the cache every
    process shares. `manage.py clearsessions` does the same by hand."""
    from importlib import import_module

    from django.conf import settings
    from django.core.cache import cache

    if not cache.add("cards:clear_sessions", True, SESSIONS_CLEARED_EVERY):
        return False
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
    return True


class Heartbeat(threading.Thread):
    """Beats for one worker and sweeps for everyone, beside the worker's own loop (which
    may be busy in one task for a long while)."""

    def __init__(self, worker_id: str):
        super().__init__(name=f"heartbeat-{worker_id}", daemon=True)
        self.worker_id = worker_id
        self.stopped = threading.Event()

    def run(self) -> None:
        sweep_every = max(1, round(dead_after().total_seconds() / 2 / beat_seconds()))
        ticks = 0
        try:
            while not self.stopped.wait(beat_seconds()):
                ticks += 1
                try:
                    beat(self.worker_id)
                    if ticks % sweep_every == 0:
                        reclaim()
                        clear_sessions_now_and_then()
                except Exception:  # a lost connection: the next beat tries again
                    logger.exception("worker %s could not beat", self.worker_id)
                    connection.close()
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)
