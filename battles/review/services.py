"""Starting and reading a battle's review (issue 32). The numbers come from
battles.engine.review; this module says who may start one and keeps its row; running it is
tasks.py's."""

from datetime import timedelta
from functools import partial

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend

from battles.engine.battle import ENGINE_VERSION
from battles.lab.tasks import lock_person

from .models import Review, ReviewStatus
from .tasks import dispatch, run_review_now

# Reviews one person may have waiting or running at once (issue 39.4); beyond, the next is
# refused with a message. Those in the task queue are fewer still (tasks.QUEUED_PER_PERSON).
WAITING_PER_PERSON = 25
# A player's review of a game that ended this recently is what they wait for: it goes on
# the interactive queue, ahead of bulk work.
JUST_PLAYED = timedelta(hours=1)


def _game_of(battle):
    try:
        return battle.game
    except Exception:  # no game: a battle run by the AI on both sides
        return None


def may_start(battle, user, review: Review | None = None) -> bool:
    """The owner, a player of its game, its table's GM, or (when the owner allows it)
    anyone who can watch it (the caller has checked that much)."""
    if not user.is_authenticated or battle.engine_version != ENGINE_VERSION:
        return False
    if battle.owner_id == user.pk or (review is not None and review.open_to_viewers):
        return True
    # Only a played game has players (a side of it is "player"): ask for its game only then.
    if "player" in (battle.policy_a, battle.policy_b):
        game = _game_of(battle)
        if game is not None and user.pk in (game.user_a_id, game.user_b_id):
            return True
    return battle.table_id is not None and battle.table.gm_id == user.pk


def in_progress(battle) -> bool:
    """A played game still being played shows no review to anyone (hidden information)."""
    game = _game_of(battle)
    return game is not None and game.status != "finished"


def just_played(battle, user) -> bool:
    """`user` played this battle's game and it ended within JUST_PLAYED."""
    game = _game_of(battle)
    return (
        game is not None
        and game.status == "finished"
        and user.pk in (game.user_a_id, game.user_b_id)
        and timezone.now() - game.updated <= JUST_PLAYED
    )


def start(battle, user, *, rate_ai: bool = False) -> Review:
    """Queue the battle's review, once: a review queued, running or done is left as it is
    (never computed twice). ValidationError when `user` may not start it."""
    if in_progress(battle):
        raise ValidationError("This game is still being played; its review waits for the end.")
    with transaction.atomic():
        review, _ = Review.objects.select_for_update().get_or_create(battle=battle)
        if review.started:
            return review
        if not may_start(battle, user, review):
            raise ValidationError(
                "Only the battle's owner, its players and its table's GM can start its review,"
                " unless the owner lets anyone who can watch it."
            )
        lock_person(user.pk)  # the person's count stays true until this one is written
        waiting = Review.objects.filter(
            requested_by=user, status__in=(ReviewStatus.QUEUED, ReviewStatus.RUNNING)
        ).count()
        if waiting >= WAITING_PER_PERSON:
            raise ValidationError(
                f"You have {waiting} reviews waiting or being made, the most one person may"
                " have at once; start this one when some of them are done."
            )
        now = just_played(battle, user)
        review.status = ReviewStatus.QUEUED
        review.requested_by = user
        review.rate_ai = rate_ai
        review.in_queue = now
        # A fork's review has the rounds played in the fork (engine/review/states.py).
        first = battle.log.get("fork", {}).get("round", 1)
        review.done, review.total, review.error = 0, battle.rounds - first + 1, ""
        review.data = None  # a part kept from a failed run may have rated other sides
        review.save()
        if not now:
            dispatch(user.pk)  # its turn among the person's bulk work (tasks.py)
        elif isinstance(run_review_now.get_backend(), DatabaseBackend):
            # In this transaction: queued exactly when recorded.
            run_review_now.enqueue(review.pk, interactive=True)
        else:
            transaction.on_commit(partial(run_review_now.enqueue, review.pk, interactive=True))
    return review


def set_open(battle, user, open_to_viewers: bool) -> Review:
    """The owner lets anyone who can watch the battle start its review (or stops that)."""
    if battle.owner_id != user.pk:
        raise ValidationError("Only the battle's owner can say who may start its review.")
    with transaction.atomic():
        review, _ = Review.objects.select_for_update().get_or_create(battle=battle)
        review.open_to_viewers = open_to_viewers
        review.save(update_fields=["open_to_viewers"])
    return review
