"""The review's task: one battle each, on the bulk queue behind renders (cards/workers.py).
Progress lives in the Review row (done of total rounds), so a page reads it from there."""

from django.tasks import task

from cards import workers

from . import services


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def run_review(review_id: int) -> bool:
    return services.run(review_id)


@workers.on_reclaim(run_review)
def _review_back_in_queue(review_id: int, *, final: bool):
    services.stopped(review_id, final=final)
