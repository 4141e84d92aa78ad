"""Battles that take thinking, played by a task worker, never in a page (issue 39.2-3).

A battle between cheap policies (greedy, random, beginner: the battles bench plays one in
a few milliseconds) is still run in the request that asks for it. One with a thinking
policy (lookahead plays seconds a battle, more under load) becomes a BattleJob: the page
that asked redirects to the job's progress page, and a worker on the interactive queue
plays it, after any waiting deadline or render (cards/workers.py, THINKING_PRIORITY).

A lab's battle i is made the same way, once, and kept (LabBattle): only the lab's owner,
signed in, may ask; everyone else sees that it is not made yet.

Fair share: a person has at most ACTIVE_PER_PERSON jobs waiting or running, so one person
looping the heaviest request holds at most that many interactive workers' turns.
"""

import contextlib
import logging

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.tasks import task
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend

from cards import workers
from cards.models import Party, Table

from .lab.tasks import lock_person
from .models import Battle, BattleJob, JobStatus

log = logging.getLogger(__name__)

# Policies the battles bench times at a few milliseconds a battle: they stay in the page.
CHEAP = frozenset({"greedy", "random", "beginner"})
ACTIVE_PER_PERSON = 2
ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
BUSY = (
    "You already have {n} battles being played; each takes a few seconds. Wait for one to "
    "finish, then ask again."
)


def thinks(*policies: str) -> bool:
    """Whether a battle between these policies is too slow for a page."""
    return any(policy not in CHEAP for policy in policies)


def _room_for(owner_id: int) -> None:
    """Refuse a person's next job while ACTIVE_PER_PERSON of theirs wait or run. Inside a
    transaction, with the person locked, so that two requests at once cannot both pass."""
    lock_person(owner_id)
    n = BattleJob.objects.filter(owner_id=owner_id, status__in=ACTIVE).count()
    if n >= ACTIVE_PER_PERSON:
        raise ValidationError(BUSY.format(n=n))


def _queue(job: BattleJob) -> None:
    code = str(job.code)
    if isinstance(make_battle.get_backend(), DatabaseBackend):
        make_battle.enqueue(code)  # in this transaction: the task exists exactly with its job
    else:  # no queue (ImmediateBackend): played as the job commits
        transaction.on_commit(lambda: make_battle.enqueue(code))


def battle_job_start(
    *, owner, party_a: Party, party_b: Party, seed: int, policy_a: str, policy_b: str,
    counts_for_growth: bool, visibility: str, table: Table | None, draw_at_limit: bool = False,
) -> BattleJob:  # fmt: skip
    """Check the battle as battle_run would (a refusal shows on the form at once) and queue
    it; the worker checks again when it runs (the parties may change meanwhile)."""
    from .services import battle_check  # services imports this module's neighbours

    # A person at the cap is refused before the checks read both parties (counted again
    # under the lock below, where it counts).
    n = BattleJob.objects.filter(owner_id=owner.pk, status__in=ACTIVE).count()
    if n >= ACTIVE_PER_PERSON:
        raise ValidationError(BUSY.format(n=n))
    battle_check(
        owner=owner, party_a=party_a, party_b=party_b, counts_for_growth=counts_for_growth,
        visibility=visibility, table=table,
    )  # fmt: skip
    with transaction.atomic():
        _room_for(owner.pk)
        job = BattleJob.objects.create(
            owner=owner,
            request={
                "party_a": party_a.pk, "party_b": party_b.pk, "seed": seed,
                "policy_a": policy_a, "policy_b": policy_b,
                "counts_for_growth": counts_for_growth, "visibility": visibility,
                "table": table.pk if table is not None else None,
                "draw_at_limit": draw_at_limit,
            },
        )  # fmt: skip
        _queue(job)
    job.refresh_from_db()  # a backend without a queue (the tests') has run it already
    return job


def lab_battle_job(*, matchup, i: int) -> BattleJob | None:
    """The job making battle i of this matchup, while one is waiting or running."""
    return BattleJob.objects.filter(matchup=matchup, i=i, status__in=ACTIVE).first()


def lab_battle_job_start(*, lab, matchup, i: int, by) -> BattleJob:
    """Queue battle i of a lab's matchup to be made and kept (the lab's owner only); a
    second ask while one is under way gets the same job."""
    if by.pk != lab.owner_id:
        raise ValidationError("Only the lab's owner can make its battles.")
    if not 0 <= i < lab.battles:
        raise ValidationError(f"Choose a battle from 0 to {lab.battles - 1}.")
    if (job := lab_battle_job(matchup=matchup, i=i)) is not None:
        return job
    try:
        with transaction.atomic():
            _room_for(by.pk)
            job = BattleJob.objects.create(owner=by, matchup=matchup, i=i)
            _queue(job)
    except IntegrityError:  # the same battle asked for twice at once: one job makes it
        job = lab_battle_job(matchup=matchup, i=i)
        if job is None:
            raise
        return job
    job.refresh_from_db()
    return job


def _finish(job: BattleJob, *, battle: Battle | None = None, error: str = "") -> None:
    job.status = JobStatus.FAILED if error else JobStatus.DONE
    job.battle, job.error, job.finished = battle, error[:500], timezone.now()
    job.save(update_fields=["status", "battle", "error", "finished"])


def _play(job: BattleJob) -> Battle:
    from .lab import services as lab_services
    from .services import battle_run

    if job.matchup_id is not None:
        matchup = job.matchup
        return lab_services.lab_open_battle(lab=matchup.lab, matchup=matchup, i=job.i)
    r = job.request
    parties = Party.objects.in_bulk([r["party_a"], r["party_b"]])
    if r["party_a"] not in parties or r["party_b"] not in parties:
        raise ValidationError("A party of this battle was deleted before it was played.")
    table = Table.objects.filter(pk=r["table"]).first() if r["table"] else None
    if r["table"] and table is None:
        raise ValidationError("The table of this battle was deleted before it was played.")
    battle = battle_run(
        owner=job.owner, party_a=parties[r["party_a"]], party_b=parties[r["party_b"]],
        seed=r["seed"], policy_a=r["policy_a"], policy_b=r["policy_b"],
        counts_for_growth=r["counts_for_growth"], visibility=r["visibility"], table=table,
        draw_at_limit=r.get("draw_at_limit", False),
    )  # fmt: skip
    from . import views  # the preview image, as battle_new queues it for a battle it ran

    with contextlib.suppress(views.store.Refused):
        views._og_job(battle, requester=f"battle:{battle.code}")
    return battle


@task(queue_name=workers.INTERACTIVE, priority=workers.THINKING_PRIORITY)
def make_battle(code: str) -> str:
    """Play a queued battle job and save its battle; returns the battle's code, or "" when
    there was nothing to do or it was refused (the job says why)."""
    job = BattleJob.objects.select_related("owner", "matchup__lab").filter(code=code).first()
    if job is None or job.status not in ACTIVE:
        return ""
    BattleJob.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING)
    try:
        battle = _play(job)
    except ValidationError as error:
        _finish(job, error=" ".join(error.messages))
        return ""
    except Exception:
        _finish(job, error="The battle could not be played; try again.")
        raise
    _finish(job, battle=battle)
    return str(battle.code)


@workers.on_reclaim(make_battle)
def _job_back_in_queue(code: str, *, final: bool) -> None:
    if final:
        BattleJob.objects.filter(code=code, status__in=ACTIVE).update(
            status=JobStatus.FAILED,
            finished=timezone.now(),
            error="Task workers stopped several times while playing this battle; try again.",
        )
    else:
        BattleJob.objects.filter(code=code, status=JobStatus.RUNNING).update(
            status=JobStatus.QUEUED
        )
