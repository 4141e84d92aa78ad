"""The review's task: one battle each, on the bulk queue behind renders (cards/workers.py),
or on the interactive queue for a player's review of the game they just played
(services.start). Progress lives in the Review row (done of total rounds), so a page
reads it from there.

A second at a time (PART_SECONDS, issue 39): a review is seconds of playouts, so each run of
the task makes the rounds that fit in about a second, keeps them in the row (data, as a
part) and queues the rest behind whatever came meanwhile, at its own queue and priority. A
render asked for in the middle of a player's review waits for that second, not the whole
review, on `make run`'s one interactive worker; a bulk review takes its turn with labs in
seconds as the lab's chunks do. The parts make the review made at once, byte for byte
(engine.review.review_rounds).

Fair shares of the bulk queue (issue 39.4), as the lab's chunks have them (lab/tasks.py):
a person has at most QUEUED_PER_PERSON reviews in the task queue at once; the rest wait
as rows (status queued, in_queue False), and each review that ends queues the person's
next, at the back. So one person's 21 reviews hold another's lab for two reviews at most."""

import time

from django.conf import settings
from django.db import transaction
from django.tasks import task
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend

from battles.engine import review as estimator
from battles.engine.run import input_for
from battles.lab.tasks import lock_person
from cards import workers

from .models import Review, ReviewStatus

QUEUED_PER_PERSON = 2  # a person's reviews in the task queue at once
PART = "memeyori-review-part/1"  # Review.data while the rounds come in, a part at a time


def part_seconds() -> float:
    """How long one run of the task makes rounds before it queues the rest."""
    return float(getattr(settings, "REVIEW_PART_SECONDS", 1.0))


@task(queue_name=workers.BULK, priority=workers.BULK_PRIORITY)
def run_review(review_id: int, interactive: bool = False) -> bool:
    review = Review.objects.filter(pk=review_id).values("requested_by_id").first()
    made = None
    try:
        made = run(review_id)
        if made is None:  # a part: the rest goes back in the same queue, at the back
            (run_review_now if interactive else run_review).enqueue(
                review_id, interactive=interactive
            )
        return bool(made)
    finally:
        if made is not None and review and review["requested_by_id"] is not None:
            next_turn(review["requested_by_id"])


# What a person waits for, at once: a player's review of the game they just played. Ahead
# of all bulk work, but behind a render or a deadline that is waiting: a review is seconds
# of playouts, a render's reader is waiting on a page too (issue 39: on `make run`'s one
# interactive worker, a render queued behind a review waited for all of it).
run_review_now = run_review.using(
    queue_name=workers.INTERACTIVE, priority=workers.THINKING_PRIORITY
)


def dispatch(user_id: int) -> None:
    """Queue the person's next waiting reviews, oldest first, until QUEUED_PER_PERSON of
    theirs are in the task queue. Call it in a transaction, with the person locked."""
    mine = Review.objects.filter(
        requested_by_id=user_id, status__in=(ReviewStatus.QUEUED, ReviewStatus.RUNNING)
    )
    if isinstance(run_review.get_backend(), DatabaseBackend):
        room = max(0, QUEUED_PER_PERSON - mine.filter(in_queue=True).count())
    else:
        room = None  # no queue to share (the immediate backend): every one, after the commit
    ids = list(
        mine.filter(in_queue=False).order_by("created", "pk").values_list("pk", flat=True)[:room]
    )
    Review.objects.filter(pk__in=ids).update(in_queue=True)
    for pk in ids:
        if room is None:
            transaction.on_commit(lambda pk=pk: run_review.enqueue(pk))
        else:
            run_review.enqueue(pk)  # in this transaction: queued exactly when recorded


def next_turn(user_id: int) -> None:
    with transaction.atomic():
        lock_person(user_id)
        dispatch(user_id)


@workers.on_reclaim(run_review)
def _review_back_in_queue(review_id: int, interactive: bool = False, *, final: bool):
    stopped(review_id, final=final)
    if final:
        who = Review.objects.filter(pk=review_id).values_list("requested_by_id", flat=True)
        if who and who[0] is not None:
            lock_person(who[0])
            dispatch(who[0])


def run(review_id: int, seconds: float | None = None) -> bool | None:
    """The task's work: the review's next part (about `seconds` of rounds, part_seconds()
    by default; inf for all at once), unless it is done. True when the review was finished
    by this part, None when rounds remain, False when there was nothing to do."""
    with transaction.atomic():
        review = Review.objects.select_for_update().select_related("battle").get(pk=review_id)
        if review.status == ReviewStatus.DONE:
            return False
        review.status = ReviewStatus.RUNNING
        review.save(update_fields=["status"])
    battle = review.battle
    made = review.data["rounds"] if review.data and review.data.get("format") == PART else []
    deadline = time.monotonic() + (part_seconds() if seconds is None else seconds)
    last = [time.monotonic()]

    def more() -> bool:
        # Another round only if one more as long as the last still ends in time: a round
        # of a demo battle is 0.3-0.6 s, so stopping once past the deadline made parts of
        # up to 1.6 s.
        now = time.monotonic()
        took, last[0] = now - last[0], now
        return now + took <= deadline

    def progress(done: int, total: int) -> None:
        Review.objects.filter(pk=review_id).update(done=done, total=total)

    rate = (True, True) if review.rate_ai else None
    try:
        rows, data = estimator.review_rounds(
            input_for(battle.snapshot), battle.log, made, rate_sides=rate, progress=progress,
            more=more,
        )  # fmt: skip
    except (LookupError, ValueError) as e:  # a record that does not replay
        Review.objects.filter(pk=review_id).update(
            status=ReviewStatus.FAILED, error=str(e)[:300], finished=timezone.now(),
            in_queue=False,
        )  # fmt: skip
        return False
    except Exception:
        # Not left "running" for ever: failed, and the worker logs what went wrong.
        Review.objects.filter(pk=review_id).update(
            status=ReviewStatus.FAILED, error="The review stopped on an error.",
            finished=timezone.now(), in_queue=False,
        )  # fmt: skip
        raise
    if data is None:
        Review.objects.filter(pk=review_id).update(
            data={"format": PART, "rounds": rows}, done=len(rows)
        )
        return None
    with transaction.atomic():
        Review.objects.filter(pk=review_id).update(
            status=ReviewStatus.DONE, data=data, done=len(data["rounds"]),
            total=len(data["rounds"]), finished=timezone.now(), in_queue=False,
        )  # fmt: skip
    return True


def stopped(review_id: int, *, final: bool) -> None:
    """A worker died on it: queued again, or failed for good."""
    Review.objects.filter(pk=review_id).exclude(status=ReviewStatus.DONE).update(
        status=ReviewStatus.FAILED if final else ReviewStatus.QUEUED,
        error="The workers stopped on it too often." if final else "",
        in_queue=not final,
    )
