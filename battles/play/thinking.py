"""The AI's thinking in a played game, made by a task worker, never in a page (issue 39).

A page request replays a game without running a thinking policy (Policy.thinks, the
Thinker: tens to hundreds of milliseconds of CPU a plan, seconds under load): where the
AI's plan for the round being planned is not recorded, the replay stops there
(record.Replay.thinking) and the page says the AI is thinking. Every write that leaves a
game so (its start, a round resolved, a fork, a timeout; rounds.advance) queues
`think_for_game` for that round, on the interactive queue behind renders
(workers.THINKING_PRIORITY), as battles/making.py does for a thinking battle. The task makes
the AI's plan from the record alone (record.Replay.ai_plans), then, in one transaction with
the game's row locked, records it (by "ai"), resolves the round if every player's plan is
in, and tells the live pages (rounds.game_changed).

Meanwhile the player plans: plans are simultaneous and hidden, so a plan submitted while
the AI thinks is stored and the round waits for the AI (services.submit_plan).

At most one task is queued a round (Game.thinking_round, set under the row lock by the
write that queues it). A second run, or a task for a round already past, changes nothing:
the write checks under the lock that the plan is still missing (and PlayedPlan is unique
per game, round and side). A task that fails clears Game.thinking_round, so that the next
write on the game queues it again; with no worker at all the page keeps saying that the AI
is thinking (and that no worker runs): `make run` and `make serve` start one. Nothing here
ever runs in a request: there is no inline fallback.
"""

import logging

from django.db import transaction
from django.tasks import task
from django.utils import timezone
from django_tasks_db.backend import DatabaseBackend

from cards import workers

from ..engine.played_record import PLAYER
from ..engine.policies import policy_version
from .models import Game, GameStatus, PlanBy, PlayedPlan
from .record import Replay

log = logging.getLogger(__name__)


def queue_thinking(game: Game, replay: Replay) -> bool:
    """Queue the task that makes the AI's plan for the round `replay` stopped at, unless one
    is queued for that round already. Inside the caller's transaction, with the game's row
    locked (every write on a game holds it). True if it queued one."""
    needed = replay.needed
    if needed is None or not needed.thinking or game.thinking_round == needed.round:
        return False
    game.thinking_round = needed.round
    Game.objects.filter(pk=game.pk).update(thinking_round=needed.round)
    code, round_no = game.code, needed.round
    if isinstance(think_for_game.get_backend(), DatabaseBackend):
        # In this transaction: the task exists exactly when the state that needs it does.
        think_for_game.enqueue(code, round_no)
    else:  # no queue (the immediate backend): run once the write has committed
        transaction.on_commit(lambda: think_for_game.enqueue(code, round_no), robust=True)
    return True


def thinking_sides(game: Game) -> list[int]:
    """The AI sides still to make their plan for the round being planned, from the game's
    row and one query, without a replay (the status poll's answer). What the replay says
    (record.Replay.thinking), for a game whose row is up to its record."""
    if game.status != GameStatus.PLANNING:
        return []
    sides = []
    for side, (name, version) in enumerate(zip(game.policies, game.policy_versions, strict=True)):
        if name == PLAYER:
            continue
        policy = policy_version(name, version)
        if policy.thinks and policy.replays_from_record:
            sides.append(side)
    if not sides:
        return []
    planned = set(
        PlayedPlan.objects.filter(game=game, round=game.round, side__in=sides).values_list(
            "side", flat=True
        )
    )
    return [s for s in sides if s not in planned]


def worker_missing() -> bool:
    """Whether no task worker takes the interactive queue (where the AI thinks): the page
    then says so, rather than leave the game waiting without a word."""
    if not isinstance(think_for_game.get_backend(), DatabaseBackend):
        return False  # tasks run as they are queued
    return not workers.serving(workers.INTERACTIVE)


def _now(game: Game):
    return timezone.now() if game.time_limit else None


@task(queue_name=workers.INTERACTIVE, priority=workers.THINKING_PRIORITY)
def think_for_game(code: str, round_no: int) -> bool:
    """Make and record the AI's plan for round `round_no` of the game, and resolve the
    round when every plan is in. True if it recorded a plan."""
    game = Game.objects.filter(code=code).first()
    if game is None or game.status != GameStatus.PLANNING:
        return False
    try:
        # The thinking, outside any transaction: it reads the record and writes nothing,
        # so no lock (on SQLite, no database-wide write lock) is held for its seconds.
        replay = Replay(game, now=_now(game))
        if replay.needed is None or replay.needed.round != round_no:
            return False
        made = replay.ai_plans()
        return record_thinking(game, round_no, made)
    except Exception:
        Game.objects.filter(pk=game.pk, thinking_round=round_no).update(thinking_round=None)
        raise


def record_thinking(game: Game, round_no: int, made: dict[int, dict]) -> bool:
    """Record the AI's plans `made` for `round_no` where they are still missing, then bring
    the game up to its record (the round resolves once every plan is in); one transaction,
    the game's row locked. Idempotent: a plan already recorded, or a round already past,
    is left as it is."""
    from . import clock, rounds  # both import services, which imports rounds

    with transaction.atomic():
        locked = rounds.locked_row(game)
        if locked.status != GameStatus.PLANNING:
            return False
        replay = Replay(locked, now=_now(locked))
        rounds.write_timeouts(locked, replay)
        needed = replay.needed
        if needed is None or needed.round != round_no:
            return False
        recorded = False
        for side in needed.thinking:
            plan = made.get(side)
            if plan is None:  # it waits for a player's plan (a game without own draws)
                continue
            PlayedPlan.objects.create(
                game=locked, round=round_no, side=side, plan=plan, by=PlanBy.AI
            )
            replay.plans[round_no, side] = plan
            recorded = True
        if not recorded:
            # It waits for a player's plan (that write queues the task again); if that plan
            # came in while this task thought, the task is queued again at once.
            locked.thinking_round = None
            Game.objects.filter(pk=locked.pk).update(thinking_round=None)
            if not needed.sides:
                queue_thinking(locked, replay)
            return False
        replay.played.resume()  # the round resolves if the players' plans are in
        rounds.advance(locked, replay)  # and the next round's thinking is queued
        if locked.round != round_no:
            clock.schedule(locked)  # the next round's deadline, as a posted plan's does
    rounds.refresh(game, locked)
    rounds.game_changed(game)
    return True


@workers.on_reclaim(think_for_game)
def _back_in_queue(code: str, round_no: int, *, final: bool) -> None:
    if final:  # it failed for good: the next write on the game queues it again
        Game.objects.filter(code=code, thinking_round=round_no).update(thinking_round=None)
