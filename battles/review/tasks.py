"""The review's task: one battle each, on the bulk queue behind renders (cards/workers.py).
Progress lives in the Review row (done of total rounds), so a page reads it from there."""

from django.db import transaction
from django.tasks import task
from django.utils import timezone

from battles.engine import review as estimator
from battles.engine.run import input_for
from cards import workers

from .models import Review, ReviewStatus


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def run_review(review_id: int) -> bool:
    return run(review_id)


@workers.on_reclaim(run_review)
def _review_back_in_queue(review_id: int, *, final: bool):
    stopped(review_id, final=final)


def run(review_id: int) -> bool:
    """The task's work: compute the review unless it is done. True when it was computed."""
    with transaction.atomic():
        review = Review.objects.select_for_update().select_related("battle").get(pk=review_id)
        if review.status == ReviewStatus.DONE:
            return False
        review.status = ReviewStatus.RUNNING
        review.save(update_fields=["status"])
    battle = review.battle

    def progress(done: int, total: int) -> None:
        Review.objects.filter(pk=review_id).update(done=done, total=total)

    rate = (True, True) if review.rate_ai else None
    try:
        data = estimator.review(
            input_for(battle.snapshot), battle.log, rate_sides=rate, progress=progress
        )
    except (LookupError, ValueError) as e:  # a record that does not replay
        Review.objects.filter(pk=review_id).update(
            status=ReviewStatus.FAILED, error=str(e)[:300], finished=timezone.now()
        )
        return False
    except Exception:
        # Not left "running" for ever: failed, and the worker logs what went wrong.
        Review.objects.filter(pk=review_id).update(
            status=ReviewStatus.FAILED, error="The review stopped on an error.",
            finished=timezone.now(),
        )  # fmt: skip
        raise
    with transaction.atomic():
        Review.objects.filter(pk=review_id).update(
            status=ReviewStatus.DONE, data=data, done=len(data["rounds"]),
            total=len(data["rounds"]), finished=timezone.now(),
        )  # fmt: skip
    return True


def stopped(review_id: int, *, final: bool) -> None:
    """A worker died on it: queued again, or failed for good."""
    Review.objects.filter(pk=review_id).exclude(status=ReviewStatus.DONE).update(
        status=ReviewStatus.FAILED if final else ReviewStatus.QUEUED,
        error="The workers stopped on it too often." if final else "",
    )
