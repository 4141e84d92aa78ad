"""A round's clock (issue 31.2): a task at the deadline lets the AI plan for whoever has
not, so the round resolves (and the waiting player's page is pushed on, services.
game_changed) even when nobody's page is open to ask for it.

The pages' own countdown still posts play_timeout at zero; whichever comes first does it,
the other changes nothing (services.expire_time_limit is a locked, idempotent write).
"""

from datetime import timedelta

from django.db import transaction
from django.tasks import default_task_backend, task

from cards import workers

from . import services
from .models import Game, GameStatus, PlanBy, PlayedPlan

# A little after the deadline: a task that ran a moment early would change nothing.
SLACK = timedelta(milliseconds=300)


def deadline(game: Game):
    if not game.time_limit or game.round_started_at is None:
        return None
    return game.round_started_at + timedelta(seconds=game.time_limit)


def schedule(game: Game) -> bool:
    """Queue the task for this round's deadline (after the write commits). A backend that
    cannot defer (the immediate one of the tests) is left to the pages' countdown."""
    when = deadline(game)
    if when is None or game.status != GameStatus.PLANNING:
        return False
    if not default_task_backend.supports_defer:
        return False
    code = game.code
    transaction.on_commit(
        lambda: expire_round.using(run_after=when + SLACK).enqueue(code, when.isoformat()),
        robust=True,
    )
    return True


@task(queue_name=workers.INTERACTIVE, priority=workers.DEADLINE_PRIORITY)
def expire_round(code: str, due: str) -> bool:
    """The deadline `due` passed: record the AI's plans for the sides that did not plan,
    resolve the round, publish it, and queue the next round's deadline."""
    game = Game.objects.filter(code=code).first()
    if game is None or game.status != GameStatus.PLANNING:
        return False
    expired = services.expire_time_limit(game)
    if expired:
        schedule(game)
    return expired


def timed_out(game: Game) -> dict[int, list[int]]:
    """The sides the AI planned for when the time ran out, by round."""
    rounds: dict[int, list[int]] = {}
    rows = PlayedPlan.objects.filter(game=game, by=PlanBy.TIMEOUT).order_by("round", "side")
    for round_no, side in rows.values_list("round", "side"):
        rounds.setdefault(round_no, []).append(side)
    return rounds
