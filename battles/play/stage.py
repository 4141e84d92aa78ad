"""A side's Switch and summon made before its cards (issue 31, ruling 8 for everyone): a
side makes its Switch and draws, then its summon and draws, then chooses its cards, which
may include what it drew. An AI has always planned so; a player does it with "Switch/summon
now" on the plan page (or `POST /play/<code>/stage.json`), and then plans the cards.

Like drawing at a table, a stage cannot be taken back, and a side makes one a round. Only
in a game with own draws (Game.own_draws): there what a stage draws comes from the side's
own generator for the round, so it is the card the round draws when it resolves, whatever
the other side plans. Nothing of it reaches the other side: its page is not told (no
"changed" is sent, the game's row is not touched), and its state never reads the stage.
"""

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from ..engine.plan_check import check_plan, normal_plan
from . import services
from .models import GameStatus, PlanStage
from .record import Replay


def make_stage(game, side: int, round_no, switch, summon) -> dict:
    """Make `side`'s Switch and/or summon for the round being planned, drawing at once; the
    side's state after it. ValidationError (nothing stored) when the rules or the game
    refuse it, in words; services.WrongRound for another round than the one planned."""
    services.check_side(game, side)
    with transaction.atomic():
        locked = services.locked_row(game)
        if locked.status != GameStatus.PLANNING:
            raise services.WrongRound("The game is not being planned.")
        if not locked.is_player_side(side):
            raise ValidationError("The AI plans that side.")
        if not locked.own_draws:
            raise ValidationError(
                "This game began before a Switch or summon could be made first: plan the"
                " round in one go (what they draw stays in your hand for the next round)."
            )
        replay = Replay(locked, now=timezone.now() if locked.time_limit else None)
        services.write_timeouts(locked, replay)
        needed = replay.needed
        if needed is None:
            raise services.WrongRound("The game is over.")
        if round_no != needed.round:
            raise services.WrongRound(
                f"Round {needed.round} is being planned, not round {round_no}."
            )
        if side not in needed.sides or (needed.round, side) in replay.plans:
            raise services.WrongRound(
                f"Side {'AB'[side]} has already planned round {needed.round}."
            )
        if (needed.round, side) in replay.stages:
            raise ValidationError(
                "You made this round's Switch and summon already; like a draw at the table,"
                " it cannot be made again or taken back."
            )
        plan, errors = normal_plan({"switch": switch, "summon": summon, "cards": []})
        if plan is None:
            raise ValidationError(errors)
        if plan["switch"] is None and not plan["summon"]:
            raise ValidationError("Choose a Switch or the summon to make now.")
        checked = check_plan(needed.views[side], plan)
        if not checked.ok:
            raise ValidationError(checked.errors)
        try:
            with transaction.atomic():
                PlanStage.objects.create(
                    game=locked,
                    round=needed.round,
                    side=side,
                    switch=plan["switch"],
                    summon=plan["summon"],
                )
        except IntegrityError:
            raise ValidationError("You made this round's Switch and summon already.") from None
        # The game's row is not saved and no "changed" is published: the other side's
        # page must not learn that this side did anything.
        replay.stages[needed.round, side] = {"switch": plan["switch"], "summon": plan["summon"]}
    game.round = locked.round
    return services.side_state(game, side, replay)
