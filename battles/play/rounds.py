"""A played game's row brought up to its record: the AI's plans stored as it makes them,
the round being planned or the stored Battle at the end, the plans of a time limit that ran
out, and the live event that says the game changed. Every write of services.py, stage.py,
fork.py and clock.py ends here, inside its own transaction."""

from django.db import transaction
from django.utils import timezone

from memeyori_site import live

from ..engine.battle import ENGINE_VERSION
from ..engine.played_record import plan_of
from ..engine.state import round_frames
from ..models import Battle, BattleVisibility
from .models import Game, GameStatus, PlanBy, PlayedPlan
from .record import Replay, ai_policies, timeout_plan

# What advance and its callers (a timeout, a forfeit) change on the game's row: saving
# only these leaves the snapshot (the row's biggest field, never changed after the start)
# unwritten each round.
ADVANCED = ["round", "round_started_at", "status", "forfeit_side", "forfeit_round", "updated"]


def queue_thinking(game: Game, replay: Replay) -> bool:
    """thinking.queue_thinking (imported here, late: the task's module imports this one)."""
    from .thinking import queue_thinking as queue

    return queue(game, replay)


def record_ai_plans(game: Game, replay: Replay) -> None:
    """Store each plan the AI made in this replay and not yet stored, so that no later read
    runs the AI again: the recorded plan replays with the engine alone. Only for a policy
    whose dice are its own or none (Policy.replays_from_record); an older one, which drew
    from the battle's generator, is run again on each replay, as it always was."""
    ai = ai_policies(game)
    for rec in replay.played.made:
        key = (rec["round"], rec["side"])
        if rec["by"] != "ai" or key in replay.plans or not ai[rec["side"]].replays_from_record:
            continue
        plan = plan_of(rec)
        PlayedPlan.objects.create(game=game, round=key[0], side=key[1], plan=plan, by=PlanBy.AI)
        replay.plans[key] = plan


def advance(game: Game, replay: Replay) -> None:
    """Record the AI's new plans, then bring the row up to what the replay says: the round
    being planned (queueing the AI's thinking for it, when it has yet to plan: thinking.py),
    or the end (an ordinary stored Battle, linked from the game). Inside the caller's
    transaction."""
    record_ai_plans(game, replay)
    played = replay.played
    now = timezone.now()
    if played.needed is not None:
        if played.needed.round != game.round:
            game.round = played.needed.round
            game.round_started_at = now
        game.status = GameStatus.PLANNING
        game.save(update_fields=ADVANCED)
        queue_thinking(game, replay)
        return
    log = played.log
    game.status = GameStatus.FINISHED
    game.winner = log["result"]["winner"]
    game.round = log["result"]["rounds"]
    # By key: the owner and the parties are not loaded for this.
    game.battle = Battle.objects.create(
        owner_id=game.created_by_id,
        party_a_id=game.party_a_id,
        party_b_id=game.party_b_id,
        name_a=game.name_a,
        name_b=game.name_b,
        snapshot=game.snapshot,
        seed=game.seed,
        policy_a=game.policy_a,
        policy_b=game.policy_b,
        log=log,
        engine_version=ENGINE_VERSION,
        frames=round_frames(log),
        winner=log["result"]["winner"],
        rounds=log["result"]["rounds"],
        visibility=BattleVisibility.PRIVATE,
        table_id=game.table_id,
    )
    game.save(update_fields=[*ADVANCED, "winner", "battle"])


def write_timeouts(game: Game, replay: Replay) -> None:
    made = {(rec["round"], rec["side"]): rec for rec in replay.played.made}
    for key in replay.timeouts:
        # Not made yet when the round waits for the AI's thinking (the replay stopped
        # before the round was planned): then the record names greedy, which plans again
        # (in a millisecond, the same plan) where a replay reaches it.
        plan = timeout_plan(game, made.get(key), replay.stages.get(key))
        PlayedPlan.objects.create(
            game=game, round=key[0], side=key[1], plan=plan, by=PlanBy.TIMEOUT
        )
    if replay.timeouts:
        game.round_started_at = replay.round_started_at
        needed = replay.needed
        if needed is not None:
            game.round = needed.round
        advance(game, replay)


def locked_row(game: Game) -> Game:
    return Game.objects.select_for_update().get(pk=game.pk)


def expire_time_limit(game: Game) -> bool:
    """Record the plans the AI made for sides whose time ran out (by "timeout") and resolve
    their rounds. A write: call it from POSTs (every write here does). True if it did."""
    if not game.time_limit or game.status != GameStatus.PLANNING:
        return False
    with transaction.atomic():
        locked = locked_row(game)
        replay = Replay(locked, now=timezone.now())
        if not replay.timeouts:
            return False
        write_timeouts(locked, replay)
    refresh(game, locked)
    game_changed(game)
    return True


def refresh(game: Game, locked: Game) -> None:
    for f in (
        "round",
        "status",
        "winner",
        "battle_id",
        "round_started_at",
        "forfeit_side",
        "forfeit_round",
        "updated",
    ):
        setattr(game, f, getattr(locked, f))
    if locked.battle_id is not None and Game.battle.is_cached(locked):
        game.battle = locked.battle


def game_changed(game: Game) -> None:
    """Called after every change to a game (once its transaction commits, for listeners).
    The live pages listen on `game:<code>`: the event says only that it changed, and each
    page then asks for its own side's view (battles/play/views.py, memeyori_site/live.py)."""
    live.publish(game_channel(game.code))


def game_channel(code: str) -> str:
    return f"game:{code}"
