"""`manage.py db_worker`: django-tasks-db's worker, with a heartbeat and a sweep.

This command takes the place of django-tasks-db's own (the `cards` app is listed before
`django_tasks_db` in INSTALLED_APPS for that), so every worker of this project, however it
is started, beats and sweeps (cards/workers.py): one that did not would look dead to the
others, who would take its tasks. It takes the same arguments; by default it serves both
of this project's queues, interactive first (by priority).
"""

from django_tasks_db.management.commands import db_worker as base
from django_tasks_db.models import DBTaskResult

from cards import workers

# A task cut short by the worker's own shutdown (a second Ctrl-C or SIGTERM) ends with one
# of these: the task did not fail, its worker stopped, so it goes back in the queue.
STOPPED = {"builtins.SystemExit", "builtins.KeyboardInterrupt"}


class Worker(base.Worker):
    def run(self) -> None:
        workers.register(self.worker_id, self.queue_names)
        heartbeat = workers.Heartbeat(self.worker_id)
        heartbeat.start()
        try:
            super().run()
        finally:
            heartbeat.stop()
            # Anything still ours was cut short: queue it again now, then leave.
            workers.reclaim_quietly({self.worker_id})

    def run_task(self, db_task_result: DBTaskResult) -> None:
        super().run_task(db_task_result)
        if db_task_result.exception_class_path in STOPPED:
            DBTaskResult.objects.filter(pk=db_task_result.pk).update(status="RUNNING")
            workers.take_back(db_task_result.pk, self.worker_id)


class Command(base.Command):
    help = "Run a task worker that beats and takes back what dead workers held"

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        parser.set_defaults(queue_name=",".join(workers.QUEUES))

    def handle(self, *args, **options) -> None:
        # The parent builds its Worker from the module's global name; point it at ours.
        original, base.Worker = base.Worker, Worker
        try:
            super().handle(*args, **options)
        finally:
            base.Worker = original
